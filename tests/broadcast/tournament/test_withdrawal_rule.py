"""FIDE's withdrawal rule in round robins (C.06; Pamplona art. 1, Donostia art. 12), the
tax retention per prize (Pamplona art. 6) and the rating of unrated opponents in the
rating tie-breaks (C.07): the audit of 2026-12-05 (D2, D12, D13) played through the
service, both sides of 50 %, and against gacrux."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path

import pytest
from gacrux.tiebreak import tiebreak as GacruxTiebreak
from gacrux.trf2json import trf2json
from hypothesis import given, settings
from hypothesis import strategies as st

from broadcast.config import load_event
from broadcast.config.errors import ConfigError
from broadcast.config.model import EventConfig, SectionConfig, TaxRetention
from broadcast.fide.berger import berger_table
from broadcast.fide.crosstable import Game, Player, ResultCode, build_crosstable
from broadcast.fide.standings import compute_standings
from broadcast.fide.trf import load_trf
from broadcast.games.ids import GameKey
from broadcast.journal.store import Journal
from broadcast.service.event_service import EventService
from broadcast.tournament.final_standings import section_standings
from broadcast.tournament.prizes import PrizeList
from clocks.timesource import ManualTime
from tests.broadcast.tournament.test_regulations_applied import (
    ARBITER,
    at,
    prizes_of,
    service_for,
    standings_of,
)
from tests.support import acting
from tests.support.paths import ROOT

MASTERS = "Masters"
EXE = "Euskal Xake Eskola"
# The evening of each Pamplona round (art. 2; 25 December is a rest day).
PAMPLONA_EVENINGS = {r: f"2025-12-{21 + r + (r >= 4)}T21:00:00" for r in range(1, 8)}
REASONS = {"1-0": "resignation", "0-1": "resignation", "1/2-1/2": "agreement"}


def _with_section(
    service: EventService, time_source: ManualTime, **changes: object
) -> EventService:
    """The same journal under the config with other settings of its first section."""
    section = dataclasses.replace(service.config.sections[0], **changes)  # type: ignore[arg-type]
    config = dataclasses.replace(service.config, sections=(section, *service.config.sections[1:]))
    fresh = EventService(config, service.journal, time_source=time_source, delay=0)
    fresh.load()
    return fresh


def _keep(config: SectionConfig) -> dict[str, object]:
    return {"withdrawal": dataclasses.replace(config.withdrawal, under_half="keep")}


def _enter(service: EventService, section: str, number: int, white: int, result: str) -> None:
    """The result of `white`'s game of round `number` (a forfeit with the reason forfeit)."""
    pairing = service.tournament.section(section).rounds[number].game_of(white)
    assert pairing is not None and pairing.white == white, (number, white)
    reason = REASONS.get(result, "forfeit")
    acting.set_result(service, GameKey(section, number, pairing.board).id, result, ARBITER, reason)


def _play_rounds(
    service: EventService, section: str, rounds: range, result: Callable[[int, int, int], str]
) -> None:
    """Every game of `rounds` still without a result, as `result(round, white, black)`."""
    for number in rounds:
        for pairing in service.tournament.section(section).rounds[number].pairings:
            if pairing.black is None:
                continue
            game = service.book.get(GameKey(section, number, pairing.board).id)
            if game.result is None:
                _enter(service, section, number, pairing.white, result(number, *pairing.players()))


def _lower_wins(number: int, white: int, black: int) -> str:
    return "1-0" if white < black else "0-1"


# -- both sides of 50 % -------------------------------------------------------------------


@pytest.mark.parametrize(("played", "left_out"), [(3, True), (4, False)])
def test_seven_rounds_out_after_three_games_is_left_out_after_four_is_forfeits(
    tmp_path: Path, played: int, left_out: bool
) -> None:
    """Player 1 (who wins every game) withdraws after `played` games of 7: 3 is under
    half (every result of and against 1 leaves the standings), 4 is not (the games not
    played are forfeits won by the opponents)."""
    service, time_source = service_for(tmp_path, "pamplona-masters.toml", "2025-12-22T16:00:00")
    for number in range(1, played + 1):
        time_source.set(at(PAMPLONA_EVENINGS[number]))
        _play_rounds(service, MASTERS, range(number, number + 1), _lower_wins)
    acting.withdraw(service, MASTERS, 1, ARBITER, from_round=played + 1, reason="illness")
    _play_rounds(service, MASTERS, range(1, 8), _lower_wins)
    state = service.tournament.section(MASTERS)
    assert state.finished
    rows = {r.start: r for r in standings_of(service.tournament, MASTERS).rows}
    table = state.to_crosstable()
    assert table.score(1) == played  # the crosstable keeps every result, as played
    if left_out:
        one = rows[1]
        assert one.excluded and one.rank == 8 and one.points == 3.0
        assert set(one.tiebreaks.values()) == {None}
        assert one.note == (
            "withdrawn from round 4 (illness); "
            "results left out: 3 of 7 games played, under half (FIDE withdrawal rule)"
        )
        # Every opponent loses what they scored against 1: nothing for those who lost
        # to 1 over the board (rounds 1-3), the forfeit win for the others (rounds 4-7).
        for start in range(2, 9):
            against = [e.result for e in table.row(start) if e.opponent == 1]
            assert len(against) == 1 and against[0] is not None
            assert rows[start].points == table.score(start) - table.scoring.points(against[0])
            assert rows[start].note == "game against no. 1 left out"
        gained = [s for s in range(2, 9) if rows[s].points < table.score(s)]
        assert len(gained) == 4  # the forfeit wins of rounds 4-7
        assert [r.start for r in standings_of(service.tournament, MASTERS).rows] == [
            2, 3, 4, 5, 6, 7, 8, 1,
        ]  # fmt: skip
    else:
        assert not any(r.excluded for r in rows.values())
        assert rows[1].points == 4.0
        assert all(rows[s].points == table.score(s) for s in rows)
        assert all(rows[s].note == "" for s in range(2, 9))
        # the three opponents of rounds 5-7 have their forfeit wins
        assert sum(1 for e in table.row(1) if e.result is ResultCode.FORFEIT_LOSS) == 3


def test_keep_counts_the_results_of_an_early_withdrawal(tmp_path: Path) -> None:
    service, time_source = service_for(tmp_path, "pamplona-masters.toml", "2025-12-22T21:00:00")
    service = _with_section(service, time_source, **_keep(service.config.sections[0]))
    _play_rounds(service, MASTERS, range(1, 2), _lower_wins)
    acting.withdraw(service, MASTERS, 1, ARBITER, from_round=2, reason="illness")
    rows = {r.start: r for r in standings_of(service.tournament, MASTERS).rows}
    assert not rows[1].excluded and rows[1].note == "withdrawn from round 2 (illness)"
    assert rows[1].points == 1.0


def test_live_standings_leave_the_player_out_once_half_is_out_of_reach(tmp_path: Path) -> None:
    """A withdrawal decided ahead (from round 5, during round 2): the games of rounds 2-4
    may still be played, so the player is in the standings; once round 2 is a forfeit
    (the player did not come) half is out of reach and the rule applies at once."""
    service, _ = service_for(tmp_path, "pamplona-masters.toml", "2025-12-23T21:00:00")
    _play_rounds(service, MASTERS, range(1, 2), _lower_wins)
    acting.withdraw(service, MASTERS, 1, ARBITER, from_round=5, reason="work")
    assert not any(r.excluded for r in standings_of(service.tournament, MASTERS).rows)
    _enter(service, MASTERS, 2, 1, "-/+")  # 1-2 in round 2: 1 does not come
    # 1 played 1 game; rounds 3 and 4 could bring 3 of 7: under half.
    rows = standings_of(service.tournament, MASTERS).rows
    assert rows[-1].start == 1 and rows[-1].excluded
    assert "1 of 7 games played" in rows[-1].note
    # The arbiter takes the withdrawal back: the results count again.
    acting.reinstate(service, MASTERS, 1, ARBITER)
    assert not any(r.excluded for r in standings_of(service.tournament, MASTERS).rows)


# -- the audit's Pamplona run (§1, D2 and D12) ----------------------------------------------

# Every game of the audit's run, round by round (Berger 8, White first). 7 does not come
# in round 1; 6 misses rounds 2 and 4 (8-6 a double forfeit), is eliminated (art. 8:
# two missed games) after playing 2 of 7, and rounds 5-7 become forfeits; 4-7 of round
# 3 is entered as 1-0 and corrected to a draw in round 5. The other results are the
# unique ones that give the audit's standings (8 · 3 = 4 · 1 · 2 · 7 · 5 · 6 by SB, DE,
# WIN) and its FIDE-rule prize list.
AUDIT_RUN = {
    1: {1: "1/2-1/2", 2: "+/-", 3: "1-0", 4: "1/2-1/2"},
    2: {8: "1/2-1/2", 6: "-/+", 7: "1/2-1/2", 1: "1/2-1/2"},
    3: {2: "1/2-1/2", 3: "1/2-1/2", 4: "1-0", 5: "0-1"},
    4: {8: "-/-", 7: "1-0", 1: "1/2-1/2", 2: "0-1"},
    5: {3: "0-1", 4: "1-0", 5: "1/2-1/2"},
    6: {8: "1/2-1/2", 2: "1-0", 3: "1/2-1/2"},
    7: {4: "0-1", 5: "1/2-1/2", 7: "1/2-1/2"},
}


def play_audit_run(service: EventService, time_source: ManualTime) -> None:
    for number, results in AUDIT_RUN.items():
        time_source.set(at(PAMPLONA_EVENINGS[number]))
        for white, result in results.items():
            _enter(service, MASTERS, number, white, result)
        if number == 5:  # the correction of round 3's 4-7
            _enter(service, MASTERS, 3, 4, "1/2-1/2")


def money(prizes: PrizeList | None) -> dict[int, tuple[float, float, float, float]]:
    """start -> (place, pool, retention, net)."""
    assert prizes is not None and not prizes.provisional
    return {p.start: (p.place, p.pool, p.retention, p.net) for p in prizes.lines}


def test_pamplona_audit_run_player_8_is_owed_3000(tmp_path: Path) -> None:
    service, time_source = service_for(tmp_path, "pamplona-masters.toml", "2025-12-22T16:00:00")
    play_audit_run(service, time_source)
    state = service.tournament.section(MASTERS)
    assert state.finished and state.withdrawn[6] == 5
    assert state.played_rounds(6) == (1, 3)

    standings = standings_of(service.tournament, MASTERS)
    assert [(r.start, r.rank) for r in standings.rows] == [
        (8, 1), (1, 2), (3, 3), (4, 3), (2, 5), (7, 6), (5, 7), (6, 8),
    ]  # fmt: skip
    six = standings.rows[-1]
    assert six.excluded and six.note == (
        "withdrawn from round 5 (2 no-shows); "
        "results left out: 2 of 7 games played, under half (FIDE withdrawal rule)"
    )
    assert all(r.note.endswith("game against no. 6 left out") for r in standings.rows[:-1])
    # The audit's table (§1), "FIDE C.06 V.4 reading": place + pool, and the retention of
    # art. 6 on each prize above 500 (15 % ESP, 25 % others).
    assert money(prizes_of(service.tournament, MASTERS)) == {
        8: (2000.0, 1000.0, 450.0, 2550.0),
        1: (1000.0, 0.0, 150.0, 850.0),
        3: (250.0, 500.0, 0.0, 750.0),  # NGR, but no prize higher than 500
        4: (250.0, 500.0, 0.0, 750.0),
        2: (0.0, 1000.0, 150.0, 850.0),
        7: (0.0, 500.0, 0.0, 500.0),
    }
    prizes = prizes_of(service.tournament, MASTERS)
    assert prizes is not None
    assert [(w.start, w.reason) for w in prizes.withheld] == [
        (6, "eliminated by the no-show rules")
    ]

    # The same journal with under_half = "keep": what boardwire paid before (the audit's
    # "boardwire" column, to the cent).
    kept = _with_section(service, time_source, **_keep(service.config.sections[0]))
    assert [(r.start, r.rank) for r in standings_of(kept.tournament, MASTERS).rows] == [
        (8, 1), (3, 2), (4, 2), (1, 4), (2, 5), (7, 6), (5, 7), (6, 8),
    ]  # fmt: skip
    assert money(prizes_of(kept.tournament, MASTERS)) == {
        8: (2000.0, 583.33, 387.5, 2195.83),
        3: (750.0, 583.33, 333.33, 1000.0),
        4: (750.0, 583.33, 333.33, 1000.0),
        1: (0.0, 291.67, 0.0, 291.67),
        2: (0.0, 875.0, 131.25, 743.75),
        7: (0.0, 583.33, 145.83, 437.5),
    }


def test_retention_applies_to_each_prize_not_to_their_sum(tmp_path: Path) -> None:
    """D12: the audit's run under "keep", 8's prize withheld: 1 takes 3rd (500) and a
    pool share of 350. Neither prize is higher than 500: nothing is retained. Summed
    (applies_to = "total") they would be taxed 15 %: 127.50."""
    service, time_source = service_for(tmp_path, "pamplona-masters.toml", "2025-12-22T16:00:00")
    play_audit_run(service, time_source)
    service = _with_section(service, time_source, **_keep(service.config.sections[0]))
    acting.withhold_prize(service, MASTERS, 8, ARBITER, "art. 9")
    lines = money(prizes_of(service.tournament, MASTERS))
    assert lines[1] == (500.0, 350.0, 0.0, 850.0)
    assert lines[3] == (1500.0, 700.0, 550.0, 1650.0)  # both prizes above 500, 25 %
    masters = service.config.sections[0]
    assert masters.prizes is not None and masters.prizes.retention is not None
    total = dataclasses.replace(masters.prizes.retention, applies_to="total")
    summed = _with_section(
        service, time_source, prizes=dataclasses.replace(masters.prizes, retention=total)
    )
    assert money(prizes_of(summed.tournament, MASTERS))[1] == (500.0, 350.0, 127.5, 722.5)


# -- Donostia (§3): 6th and 7th swap ---------------------------------------------------------

# Euskal Xake Eskola, Berger 10: 10 plays rounds 1-3 (beats 1, draws 6 and 2) and
# withdraws; every other result as listed (White's number -> result), rounds 4-9 of 10
# becoming forfeits. The audit's shape: 7 (4.5, a forfeit win against 10) ahead of 1
# (3.5, a loss to 10) when everything counts; both 3.5 without 10, equal on BPG, and 1
# ahead on WON (3 to 2).
DONOSTIA_RUN = {
    1: {1: "0-1", 2: "1/2-1/2", 3: "1-0", 4: "0-1", 5: "1-0"},
    2: {10: "1/2-1/2", 7: "0-1", 8: "1/2-1/2", 9: "0-1", 1: "1-0"},
    3: {2: "1/2-1/2", 3: "1-0", 4: "0-1", 5: "1/2-1/2", 6: "1/2-1/2"},
    4: {8: "0-1", 9: "0-1", 1: "0-1", 2: "1/2-1/2"},
    5: {4: "1/2-1/2", 5: "1-0", 6: "1-0", 7: "0-1"},
    6: {9: "0-1", 1: "1/2-1/2", 2: "1/2-1/2", 3: "0-1"},
    7: {5: "1/2-1/2", 6: "1/2-1/2", 7: "0-1", 8: "0-1"},
    8: {1: "0-1", 2: "1/2-1/2", 3: "1/2-1/2", 4: "1/2-1/2"},
    9: {6: "1/2-1/2", 7: "1/2-1/2", 8: "1-0", 9: "0-1"},
}


def test_donostia_sixth_and_seventh_swap(tmp_path: Path) -> None:
    service, time_source = service_for(
        tmp_path, "donostia-2009-round-robin.toml", "2009-07-07T20:00:00"
    )
    for number, results in DONOSTIA_RUN.items():
        for white, result in results.items():
            _enter(service, EXE, number, white, result)
        if number == 3:
            acting.withdraw(service, EXE, 10, ARBITER, from_round=4, reason="withdrew")
    state = service.tournament.section(EXE)
    assert state.finished and state.played_rounds(10) == (1, 2, 3)

    rows = standings_of(service.tournament, EXE).rows
    assert [(r.rank, r.start, r.points) for r in rows[5:7]] == [(6, 1, 3.5), (7, 7, 3.5)]
    assert [(r.tiebreaks["BPG"], r.tiebreaks["WON"]) for r in rows[5:7]] == [(4, 3), (4, 2)]
    assert rows[-1].start == 10 and rows[-1].excluded
    assert "3 of 9 games played" in rows[-1].note

    # The same journal with everything counted (under_half = "keep"): boardwire before.
    exe = next(s for s in service.config.sections if s.name == EXE)
    exe = dataclasses.replace(exe, **_keep(exe))  # type: ignore[arg-type]
    config = dataclasses.replace(
        service.config,
        sections=tuple(exe if s.name == EXE else s for s in service.config.sections),
    )
    everything = EventService(config, service.journal, time_source=time_source, delay=0)
    everything.load()
    rows = standings_of(everything.tournament, EXE).rows
    assert [(r.rank, r.start, r.points) for r in rows[5:7]] == [(6, 7, 4.5), (7, 1, 3.5)]


# -- the crosstable without players, and the config ------------------------------------------


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.sampled_from(["1-0", "0-1", "1/2-1/2", "+-", "-+", "--", None]), min_size=28),
    st.sets(st.integers(1, 8), max_size=3),
)
def test_without_leaves_the_others_as_if_the_players_never_were(
    results: list[str | None], gone: set[int]
) -> None:
    """Removing players keeps every game between the others, and each other player's
    points drop by exactly what they scored against those removed."""
    players = [Player(i, f"P{i}", 2000 + i) for i in range(1, 9)]
    games = [
        Game(r, p.white, p.black, results[(r - 1) * 4 + b])
        for r, rnd in enumerate(berger_table(8), 1)
        for b, p in enumerate(rnd)
        if p.black is not None
    ]
    table = build_crosstable(players, 7, games, [], system="round-robin")
    less = table.without(gone)
    assert less.starts() == [s for s in table.starts() if s not in gone]
    assert less.validate() == []
    for start in less.starts():
        against = sum(
            table.scoring.points(e.result)
            for e in table.row(start)
            if e.opponent in gone and e.result is not None
        )
        assert less.score(start) == pytest.approx(table.score(start) - against)
        kept = [e for e in table.row(start) if e.opponent not in gone]
        assert [e for e in less.row(start) if e.opponent is not None] == [
            e for e in kept if e.opponent is not None
        ]


def _config_with(tmp_path: Path, example: str, old: str, new: str) -> EventConfig:
    text = (ROOT / "examples" / example).read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    path = tmp_path / example
    path.write_text(text.replace(old, new), encoding="utf-8")
    (tmp_path / "players").mkdir(exist_ok=True)
    for csv in (ROOT / "examples" / "players").iterdir():
        (tmp_path / "players" / csv.name).write_bytes(csv.read_bytes())
    return load_event(path)


def test_the_settings_are_read_and_checked(tmp_path: Path) -> None:
    pamplona = load_event(ROOT / "examples" / "pamplona-masters.toml").sections[0]
    assert pamplona.withdrawal.under_half == "leave-out"
    assert pamplona.unrated_opponent_rating is None
    assert pamplona.prizes is not None and pamplona.prizes.retention == TaxRetention(
        500.0, 15.0, 25.0, "ESP", "each-prize"
    )
    kept = _config_with(
        tmp_path, "pamplona-masters.toml", 'under_half = "leave-out"\n', 'under_half = "keep"\n'
    )
    assert kept.sections[0].withdrawal.under_half == "keep"
    summed = _config_with(
        tmp_path, "pamplona-masters.toml", 'applies_to = "each-prize"\n', 'applies_to = "total"\n'
    )
    assert summed.sections[0].prizes is not None
    assert summed.sections[0].prizes.retention is not None
    assert summed.sections[0].prizes.retention.applies_to == "total"
    rated = _config_with(
        tmp_path,
        "sestao-2025-swiss.toml",
        "tiebreaks = [",
        "unrated_opponent_rating = 0\ntiebreaks = [",
    )
    assert rated.sections[0].unrated_opponent_rating == 0
    for old, new, message in (
        ("tiebreaks = [", 'unrated_opponent_rating = "zero"\ntiebreaks = [', "from 0 to 3500"),
        ("tiebreaks = [", "unrated_opponent_rating = -1\ntiebreaks = [", "from 0 to 3500"),
        ("tiebreaks = [", "unrated_opponent_rating = true\ntiebreaks = [", "from 0 to 3500"),
    ):
        with pytest.raises(ConfigError, match=message):
            _config_with(tmp_path, "sestao-2025-swiss.toml", old, new)
    with pytest.raises(ConfigError, match="round-robin rule"):
        _config_with(
            tmp_path, "sestao-2025-swiss.toml", "tiebreaks = [",
            'tiebreaks = ["BH-C1"]\n[section.withdrawal]\nunder_half = "leave-out"\n#',
        )  # fmt: skip
    with pytest.raises(ConfigError, match="under_half"):
        _config_with(
            tmp_path, "pamplona-masters.toml", 'under_half = "leave-out"\n', 'under_half = "x"\n'
        )
    with pytest.raises(ConfigError, match="applies_to"):
        _config_with(
            tmp_path, "pamplona-masters.toml", 'applies_to = "each-prize"\n', 'applies_to = "x"\n'
        )


# -- D13: unrated opponents in ARO/TPR/APRO ---------------------------------------------------

OPEN_2010 = Path("/work/shared/testdata/trf/open-gros-donostia-2010.trf")
RATING_CODES = ("ARO", "TPR", "APRO")


def test_unrated_opponents_rated_zero_match_gacrux() -> None:
    """With unrated opponents at 0, ARO, TPR and APRO equal gacrux's (FIDE's code) given
    the same rating, on a real open with unrated players."""
    ct = load_trf(OPEN_2010).crosstable
    assert any(p.rating is None for p in ct.players)
    n = 1
    while n < ct.rounds and all(row[n].result is not None for row in ct.entries):
        n += 1
    chessfile = trf2json()
    chessfile.parse_file(OPEN_2010.read_text(encoding="latin-1"), 0)
    tournament = chessfile.get_tournament(1)
    params: dict[str, object] = {
        "tiebreak": ["PTS", *(f"{c}/V2024" for c in RATING_CODES)],
        "check": False,
        "current_round": n,
        "unrated": 0,
        "swiss": True,
    }
    result = GacruxTiebreak(tournament, n, params).compute_tiebreaks(tournament, params)
    theirs = {c["cid"]: c["tiebreakScore"][1:] for c in result["competitors"]}
    mine = compute_standings(ct, list(RATING_CODES), rounds=n, unrated_rating=0)
    left = compute_standings(ct, list(RATING_CODES), rounds=n)
    assert any(
        r.tiebreaks != o.tiebreaks for r, o in zip(mine.rows, left.rows, strict=True)
    )  # the setting changes something here
    for row in mine.rows:
        expected = [None if v is None else float(v) for v in theirs[row.start]]
        assert [row.tiebreaks[c] for c in RATING_CODES] == expected, row


def test_the_section_setting_reaches_the_standings(tmp_path: Path) -> None:
    """A section with an unrated player and ARO/APRO: "leave-out" (the default) leaves
    the games against them out; unrated_opponent_rating = 1000 rates them 1000."""
    config = load_event(ROOT / "examples" / "pamplona-masters.toml")
    masters = config.sections[0]
    players = tuple(
        dataclasses.replace(p, rating=0) if p.number == 8 else p for p in masters.players
    )
    masters = dataclasses.replace(masters, players=players, tiebreaks=("ARO", "APRO"))
    time_source = ManualTime(at("2025-12-22T21:00:00"))
    service = EventService(
        dataclasses.replace(config, sections=(masters,)),
        Journal(tmp_path / "j.sqlite"),
        time_source=time_source,
        delay=0,
    )
    service.load()
    _play_rounds(service, MASTERS, range(1, 2), _lower_wins)  # 1-8: 1 meets the unrated 8
    state = service.tournament.section(MASTERS)
    one = {r.start: r for r in section_standings(state).rows}[1]
    assert one.tiebreaks["ARO"] is None  # the only opponent is unrated: left out
    rated = _with_section(service, time_source, unrated_opponent_rating=1000)
    state = rated.tournament.section(MASTERS)
    one = {r.start: r for r in section_standings(state).rows}[1]
    assert one.tiebreaks["ARO"] == 1000.0
    # The values are the core's with that rating (notes aside).
    plain = compute_standings(state.to_crosstable(), ("ARO", "APRO"), rounds=1, unrated_rating=1000)
    assert {r.start: dict(r.tiebreaks) for r in plain.rows} == {
        r.start: dict(r.tiebreaks) for r in section_standings(state).rows
    }


def test_swiss_sections_keep_a_withdrawn_players_results(tmp_path: Path) -> None:
    """C.06: a Swiss keeps a withdrawal's results whatever the withdrawal table says."""
    config = load_event(ROOT / "examples" / "sestao-2025-swiss.toml")
    section = config.sections[0]
    assert section.system == "swiss" and section.withdrawal.under_half == "leave-out"
    time_source = ManualTime(at("2025-09-12T16:00:00"))
    service = EventService(config, Journal(tmp_path / "j.sqlite"), time_source=time_source, delay=0)
    service.load()
    acting.withdraw(service, section.name, 3, ARBITER, from_round=1)
    rows = standings_of(service.tournament, section.name).rows
    assert not any(r.excluded for r in rows)
