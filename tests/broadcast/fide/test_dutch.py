"""FIDE Dutch through our engine, checked against bbpPairings' own cases
(/work/shared/testdata/pairings: TRF in, the endorsed engine's pairs out, in its board
order), the Baku acceleration, byes, and pairings imported from a pairing program's TRF.
The whole generated corpus is tests/test_dutch_corpus.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from broadcast.fide.crosstable import Crosstable, Game, Player, ResultCode, build_crosstable
from broadcast.fide.dutch import next_round_number, pair_round
from broadcast.fide.pairing_import import PairingImportError, import_round
from broadcast.fide.trf import load_trf
from tests.support.paths import ROOT

CASES = Path("/work/shared/testdata/pairings")


def _expected(name: str) -> list[tuple[int, int]]:
    # Line ends may be bare CR: splitlines() handles CR, LF and CRLF.
    lines = (CASES / f"{name}.expected").read_bytes().decode().splitlines()
    count = int(lines[0])
    pairs = [tuple(int(x) for x in line.split()) for line in lines[1:] if line.strip()]
    assert len(pairs) == count
    return [(a, b) for a, b in pairs]


@pytest.mark.parametrize("name", ["dutch_2025_C5", "dutch_2025_C9", "issue_7"])
def test_next_round_matches_bbppairings(name: str) -> None:
    report = load_trf(CASES / f"{name}.trf")
    number = next_round_number(report.crosstable)
    got = pair_round(report.crosstable, number, total_rounds=report.declared_rounds)
    # bbpPairings lists the boards in FIDE's order: pairs, colours and order must agree.
    assert [p.as_pair() for p in got] == _expected(name)


def test_case_c5_leaves_out_the_player_with_a_pre_entered_zero_bye() -> None:
    report = load_trf(CASES / "dutch_2025_C5.trf")
    got = pair_round(report.crosstable, 3, total_rounds=3)
    assert 4 not in {x for p in got for x in p.players()}
    assert got[-1].is_bye and got[-1].white == 6 and got[-1].board == 0


def test_absent_players_and_withdrawals_are_not_paired() -> None:
    players = [Player(i, f"P{i}", 2500 - 10 * i) for i in range(1, 9)]
    ct = build_crosstable(players, 5)
    got = pair_round(ct, 1, absent={3})
    seen = [x for p in got for x in p.players()]
    assert 3 not in seen and sorted(seen) == [1, 2, 4, 5, 6, 7, 8]
    assert sum(p.is_bye for p in got) == 1  # seven players: one pairing bye
    # Round 1 of 8: top half against bottom half, colours alternating from White.
    assert [p.as_pair() for p in pair_round(ct, 1)] == [(1, 5), (6, 2), (3, 7), (8, 4)]


def test_pairing_bye_goes_to_someone_who_has_not_had_one() -> None:
    players = [Player(i, f"P{i}", 2500 - 10 * i) for i in range(1, 6)]
    r1 = pair_round(build_crosstable(players, 3), 1)
    bye_player = next(p.white for p in r1 if p.is_bye)
    from broadcast.fide.crosstable import Bye

    games = [Game(1, p.white, p.black, "1/2-1/2") for p in r1 if p.black is not None]
    ct = build_crosstable(players, 3, games, [Bye(1, bye_player, ResultCode.PAIRING_BYE)])
    r2 = pair_round(ct, 2)
    assert next(p.white for p in r2 if p.is_bye) != bye_player
    played = {frozenset(p.players()) for p in r1 if p.black}
    assert not played & {frozenset(p.players()) for p in r2 if p.black}, "no rematches"


def test_import_reads_each_round_of_a_real_trf() -> None:
    report = load_trf(CASES / "issue_15.trf")  # 180 players, 11 rounds (bbpPairings check case)
    ct = report.crosstable
    for number in range(1, 12):
        imported = import_round(ct, number)
        seen = [x for p in imported.pairings for x in p.players()] + [s for s, _ in imported.byes]
        assert len(seen) == len(set(seen))
        assert [p.board for p in imported.pairings if not p.is_bye] == list(
            range(1, len(imported.pairings) - sum(p.is_bye for p in imported.pairings) + 1)
        )
        for p in imported.pairings:
            if p.black is not None:
                assert ct.entry(p.white, number).colour == "w"
                assert ct.entry(p.black, number).opponent == p.white
    first = import_round(ct, 1).pairings[0]
    assert first.as_pair() == (90, 1)  # player 1 had Black against 90 in round 1


def test_import_keeps_pre_entered_byes_apart() -> None:
    imported = import_round(load_trf(CASES / "dutch_2025_C5.trf").crosstable, 2)
    assert sorted(p.as_pair() for p in imported.pairings) == [(2, 1), (4, 3), (6, 5)]
    assert imported.byes == ()
    c5 = load_trf(CASES / "dutch_2025_C5.trf").crosstable
    with pytest.raises(PairingImportError):
        import_round(c5, 3)  # only a zero-point bye is written for round 3
    c9 = load_trf(CASES / "dutch_2025_C9.trf").crosstable
    r1 = import_round(c9, 1)
    assert r1.byes == ((5, "Z"),)
    assert sorted(p.as_pair() for p in r1.pairings) == [(1, 3), (4, 2)]


def test_import_board_order_follows_scores() -> None:
    ct = load_trf(CASES / "issue_7.trf").crosstable
    pairings = import_round(ct, 14).pairings
    before = {s: ct.score(s, upto=13) for s in ct.starts()}
    tops = [max(before[p.white], before[p.black or p.white]) for p in pairings if p.black]
    assert tops == sorted(tops, reverse=True)


# -- Baku acceleration (C.04.5.1) ------------------------------------------------------------------


def test_baku_top_group_is_the_first_half_rounded_up_to_even() -> None:
    from broadcast.fide.dutch import baku_group_a

    def field(n: int) -> Crosstable:
        return build_crosstable([Player(i, f"P{i}") for i in range(1, n + 1)], 9)

    assert len(baku_group_a(field(161))) == 82  # FIDE's own example
    assert baku_group_a(field(16)) == frozenset(range(1, 9))
    assert len(baku_group_a(field(10))) == 6  # half of 10 is 5: up to 6
    # Two late entries numbered 17 and 18 do not move GA's last player.
    assert baku_group_a(field(18), late_entries={17, 18}) == frozenset(range(1, 9))


@pytest.mark.parametrize(
    ("rounds", "points"),
    [(9, [1, 1, 1, 0.5, 0.5, 0, 0, 0, 0]), (7, [1, 1, 0.5, 0.5, 0, 0, 0]), (5, [1, 1, 0.5, 0, 0])],
)
def test_baku_virtual_points_by_round(rounds: int, points: list[float]) -> None:
    from broadcast.fide.dutch import baku_virtual_points

    assert [baku_virtual_points(r, rounds) for r in range(1, rounds + 1)] == points


def test_baku_round_one_pairs_each_group_within_itself() -> None:
    players = [Player(i, f"P{i}", 2600 - 10 * i) for i in range(1, 17)]
    ct = build_crosstable(players, 9)
    plain = [p.as_pair() for p in pair_round(ct, 1)]
    assert plain[0] == (1, 9)  # unaccelerated: top half against bottom half
    got = [p.as_pair() for p in pair_round(ct, 1, acceleration="baku")]
    assert got == [(1, 5), (6, 2), (3, 7), (8, 4), (9, 13), (14, 10), (11, 15), (16, 12)]


def test_baku_virtual_points_are_for_pairing_only() -> None:
    from broadcast.fide.dutch import swiss_players

    players = [Player(i, f"P{i}", 2600 - 10 * i) for i in range(1, 17)]
    r1 = pair_round(build_crosstable(players, 9), 1, acceleration="baku")
    games = [Game(1, p.white, p.black, "1-0") for p in r1 if p.black is not None]
    ct = build_crosstable(players, 9, games)
    seen = {p.number: p.score for p in swiss_players(ct, 2, total_rounds=9, acceleration="baku")}
    assert seen[1] == 2.0 and seen[5] == 1.0  # GA: one virtual point on the real score
    assert seen[9] == 1.0 and seen[13] == 0.0
    assert ct.score(1) == 1.0 and ct.score(9) == 1.0  # the standings keep the real score
    after = {p.number: p.score for p in swiss_players(ct, 6, total_rounds=9, acceleration="baku")}
    assert after[1] == 1.0  # round 6 of 9: no virtual points any more
    # Round 2: GA's winners (2 points) meet each other, not GB's winners (1 point).
    r2 = pair_round(ct, 2, acceleration="baku")
    top = {frozenset(p.players()) for p in r2[:2]}
    assert all(pair <= {1, 2, 3, 4, 5, 6, 7, 8} for pair in top)


def test_baku_from_the_section_config(tmp_path: Path) -> None:
    import shutil

    from broadcast.config import ConfigError, load_event

    examples = ROOT / "examples"
    text = (examples / "sestao-2025-swiss.toml").read_text(encoding="utf-8")
    shutil.copytree(examples / "players", tmp_path / "players")
    accelerated = tmp_path / "baku.toml"
    accelerated.write_text(
        text.replace('system = "swiss"', 'system = "swiss"\nacceleration = "baku"', 1),
        encoding="utf-8",
    )
    config = load_event(accelerated)
    assert config.sections[0].acceleration == "baku"
    wrong = tmp_path / "wrong.toml"
    wrong.write_text(
        text.replace('system = "swiss"', 'system = "swiss"\nacceleration = "bak"', 1),
        encoding="utf-8",
    )
    with pytest.raises(ConfigError, match="did you mean 'baku'"):
        load_event(wrong)


# -- half-point and zero-point byes ---------------------------------------------------------------


@pytest.mark.parametrize("code", [ResultCode.HALF_BYE, ResultCode.ZERO_BYE, ResultCode.FULL_BYE])
def test_a_bye_entered_before_pairing_leaves_the_player_out_and_scores(code: ResultCode) -> None:
    from broadcast.fide.crosstable import Bye

    players = [Player(i, f"P{i}", 2500 - 10 * i) for i in range(1, 8)]
    r1 = pair_round(build_crosstable(players, 5), 1)
    games = [Game(1, p.white, p.black, "1/2-1/2") for p in r1 if p.black is not None]
    bye1 = [Bye(1, p.white, ResultCode.PAIRING_BYE) for p in r1 if p.black is None]
    ct = build_crosstable(players, 5, games, [*bye1, Bye(2, 3, code)])
    r2 = pair_round(ct, 2)
    seen = sorted(x for p in r2 for x in p.players())
    assert seen == [1, 2, 4, 5, 6, 7] and not any(p.is_bye for p in r2)  # six left: no bye
    assert ct.score(3, upto=2) == 0.5 + {"H": 0.5, "Z": 0.0, "F": 1.0}[code.value]


def test_a_half_point_bye_in_a_trf_is_left_out_of_the_next_round() -> None:
    from broadcast.fide.dutch import pair_trf
    from broadcast.fide.trf import read_trf

    report = load_trf(CASES / "dutch_2025_C5.trf")
    text = (CASES / "dutch_2025_C5.trf").read_bytes().decode("latin-1")
    assert read_trf(text).crosstable == report.crosstable
    number, got = pair_trf(report)
    assert number == 3 and 4 not in {x for p in got for x in p.players()}  # its Z in round 3
