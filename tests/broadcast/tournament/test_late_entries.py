"""Late entries and replacements through the service, and across a restart (the journal
replayed): who gets which starting number, which rounds they missed and what those are
worth, who the next FIDE Dutch round pairs, and what the TRF, the standings and the PGN
say. FIDE C.04 (late entries: 0 or 0.5 per missed round, unplayed for tie-breaks) and
Sestao art. 6 ("may be replaced by another participant")."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from broadcast.config.model import LateEntryRules, PlayerEntry
from broadcast.export.pgn import game_pgn
from broadcast.export.trf import section_trf
from broadcast.games.ids import GameKey
from broadcast.journal.store import Journal
from broadcast.service.event_service import ActionError, EventService
from broadcast.service.snapshot import Capture
from broadcast.tournament.eligibility import is_active, out_reason
from broadcast.tournament.newcomer import NEWCOMER_FIELDS, NewcomerError, newcomer_entry
from broadcast.tournament.section import StateError
from broadcast.tournament.tournament_events import PlayerEntered, PlayerReplaced
from broadcast.tournament.tournament_state import SectionState
from clocks.timesource import ManualTime
from tests.broadcast.tournament.test_regulations_applied import (
    ARBITER,
    at,
    service_for,
    standings_of,
)
from tests.support import acting
from tests.support.paths import ROOT
from tests.support.web_app import play_moves

OPEN = "Open"
LARA = {
    "name": "Etxeberria, Lara",
    "rating": 1880,
    "fide_id": "22999999",
    "federation": "esp",
    "sex": "F",
    "birth": "2004",
}


def _round_one(service: EventService, time_source: ManualTime, forfeit_board: int = 0) -> None:
    """Round 1 paired by FIDE Dutch and played: White wins every game; on
    `forfeit_board` Black did not come (+/-, a no-show)."""
    pairings = acting.dutch_pairings(service, OPEN, 1)
    acting.publish_pairings(service, OPEN, 1, pairings, "dutch", ARBITER)
    time_source.set(at("2025-09-12T21:00:00"))
    for p in pairings:
        if p.black is None:
            continue
        game = GameKey(OPEN, 1, p.board).id
        if p.board == forfeit_board:
            acting.set_result(service, game, "+/-", ARBITER, "forfeit")
        else:
            acting.set_result(service, game, "1-0", ARBITER, "resignation")


def _enter_late(
    service: EventService,
    section: str,
    fields: Mapping[str, object],
    by: str,
    *,
    from_round: int | None = None,
    missed_points: float | None = None,
) -> PlayerEntered:
    """A late entry through the door: what it journaled."""
    done = acting.enter_late(
        service, section, fields, by, from_round=from_round, missed_points=missed_points
    )
    return acting.journaled(done, PlayerEntered)


def _replace_player(
    service: EventService,
    section: str,
    player: int,
    fields: Mapping[str, object],
    by: str,
    *,
    override: str = "",
) -> PlayerReplaced:
    """A replacement through the door: what it journaled."""
    done = acting.replace_player(service, section, player, fields, by, override=override)
    return acting.journaled(done, PlayerReplaced)


def _restarted(service: EventService, time_source: ManualTime) -> EventService:
    again = EventService(service.config, service.journal, time_source=time_source, delay=0)
    again.load()
    return again


def _trf_line(service: EventService, number: int) -> str:
    text = section_trf(service.tournament, service.config, OPEN)
    return next(line for line in text.splitlines() if line.startswith(f"001 {number:4d}"))


def _round_field(line: str, number: int) -> str:
    """A TRF player line's field for round `number` (opponent, colour, result)."""
    start = 91 + 10 * (number - 1)
    return line[start : start + 8].strip()


def test_a_late_entry_is_paired_from_the_round_they_join_and_survives_a_restart(
    tmp_path: Path,
) -> None:
    service, time_source = service_for(tmp_path, "sestao-2025-swiss.toml", "2025-09-10T12:00:00")
    registered = len(service.tournament.section(OPEN).players)
    _round_one(service, time_source)

    entered = _enter_late(service, OPEN, LARA, ARBITER)
    # The next free starting number (nobody renumbered), the next round not paired, and
    # the section's setting for missed rounds (the Sestao example: the default, 0).
    assert entered.player == PlayerEntry(
        registered + 1, "Etxeberria, Lara", 1880, "22999999", "ESP", "", "w", "2004"
    )
    assert (entered.from_round, entered.missed_points) == (2, 0.0)
    late = registered + 1
    section = service.tournament.section(OPEN)
    assert not is_active(section, late, 1) and is_active(section, late, 2)
    assert "paired from round 2" in out_reason(section, late, 1)
    row = next(r for r in standings_of(service.tournament, OPEN).rows if r.start == late)
    assert row.points == 0

    # The next round's FIDE Dutch pairs the late entry; the TRF shows round 1 as
    # unplayed (Z, zero points) and round 2's game.
    pairings = acting.dutch_pairings(service, OPEN, 2)
    game = next(p for p in pairings if late in p.players())
    assert game.black is not None
    acting.publish_pairings(service, OPEN, 2, pairings, "dutch", ARBITER)
    line = _trf_line(service, late)
    assert "Etxeberria, Lara" in line and "ESP" in line and "22999999" in line
    assert _round_field(line, 1) == "0000 - Z"
    opponent = game.white if game.black == late else game.black
    assert _round_field(line, 2).split()[0] == str(opponent)
    played = service.book.get(GameKey(OPEN, 2, game.board).id)
    assert "Etxeberria, Lara" in (played.white.name, played.black.name)
    pgn = game_pgn(played, service.config, tournament=service.tournament)
    assert '"Etxeberria, Lara"' in pgn and "1880" in pgn

    # A restart replays the journal into the same state; the config does not list her,
    # which the service says (and keeps her).
    again = _restarted(service, time_source)
    assert again.tournament == service.tournament
    assert again.tournament.section(OPEN).players[late].name == "Etxeberria, Lara"
    (line,) = again.config_changes()
    assert f"player {late} (Etxeberria, Lara) joined as a late entry from round 2" in line
    assert "the event keeps them" in line


def test_half_points_for_missed_rounds_are_a_config_choice(tmp_path: Path) -> None:
    service, time_source = service_for(tmp_path, "sestao-2025-swiss.toml", "2025-09-10T12:00:00")
    section = dataclasses.replace(service.config.sections[0], late_entries=LateEntryRules(0.5))
    config = dataclasses.replace(service.config, sections=(section,))
    service = EventService(config, service.journal, time_source=time_source, delay=0)
    service.load()
    _round_one(service, time_source)
    acting.publish_pairings(
        service, OPEN, 2, acting.dutch_pairings(service, OPEN, 2), "dutch", ARBITER
    )

    entered = _enter_late(service, OPEN, LARA, ARBITER, from_round=3)
    late = entered.player.number
    assert entered.missed_points == 0.5
    # Two missed rounds at half a point; the standings are after round 1 until a game of
    # round 2 has a result (issue 30, M1), and count the second half point from then on.
    assert service.tournament.section(OPEN).to_crosstable().score(late) == 1.0
    row = next(r for r in standings_of(service.tournament, OPEN).rows if r.start == late)
    assert row.points == 0.5
    line = _trf_line(service, late)
    assert _round_field(line, 1) == "0000 - H" and _round_field(line, 2) == "0000 - H"
    # Those are not requested byes: she may still ask for the regulation's three.
    assert service.tournament.section(OPEN).byes_of(late) == frozenset()
    for rnd in (4, 5, 6):
        acting.request_bye(service, OPEN, rnd, late, ARBITER)
    # The arbiter may give one entry no points for missed rounds whatever the setting.
    other = _enter_late(
        service, OPEN, {"name": "Bilbao, Jon"}, ARBITER, from_round=3, missed_points=0
    )
    assert other.player.number == late + 1 and other.missed_points == 0.0
    assert _round_field(_trf_line(service, late + 1), 2) == "0000 - Z"
    assert _restarted(service, time_source).tournament == service.tournament


def test_a_late_entry_is_refused_where_it_cannot_be(tmp_path: Path) -> None:
    service, time_source = service_for(tmp_path, "sestao-2025-swiss.toml", "2025-09-10T12:00:00")
    _round_one(service, time_source)
    with pytest.raises(ActionError, match=r"round 1 is already paired: .* \(the next is 2\)"):
        _enter_late(service, OPEN, LARA, ARBITER, from_round=1)
    with pytest.raises(ActionError, match="rating 'abc' is not a rating"):
        _enter_late(service, OPEN, {**LARA, "rating": "abc"}, ARBITER)
    with pytest.raises(ActionError, match="needs a name"):
        _enter_late(service, OPEN, {"rating": 1500}, ARBITER)
    with pytest.raises(ActionError, match=r"0 or 0\.5"):
        _enter_late(service, OPEN, LARA, ARBITER, missed_points=1)
    first = service.tournament.section(OPEN).players[1]
    with pytest.raises(ActionError, match=f"has the name of player 1 \\({first.name}\\)"):
        _enter_late(service, OPEN, {"name": first.name.upper()}, ARBITER)
    _enter_late(service, OPEN, LARA, ARBITER)
    with pytest.raises(ActionError, match="FIDE id 22999999 of player 25"):
        _enter_late(service, OPEN, {"name": "Other", "fide_id": "22999999"}, ARBITER)
    # The fold itself: only the next free number (nobody renumbered).
    state = service.tournament.section(OPEN)
    wrong = PlayerEntered(OPEN, PlayerEntry(30, "Somebody"), 3)
    with pytest.raises(StateError, match="next free starting number, 26, not 30"):
        state.apply(wrong)

    # A round robin's Berger tables are fixed.
    (tmp_path / "rr").mkdir()
    rr, _ = service_for(tmp_path / "rr", "pamplona-masters.toml", "2025-12-22T12:00:00")
    with pytest.raises(ActionError, match="Berger tables are fixed"):
        _enter_late(rr, "Masters", LARA, ARBITER)


def test_a_replacement_before_the_first_game_takes_the_starting_number(tmp_path: Path) -> None:
    service, time_source = service_for(tmp_path, "sestao-2025-swiss.toml", "2025-09-10T12:00:00")
    pairings = acting.dutch_pairings(service, OPEN, 1)
    acting.publish_pairings(service, OPEN, 1, pairings, "dutch", ARBITER)
    acting.request_bye(service, OPEN, 4, 3, ARBITER)  # the original's request goes with them
    board = next(p for p in pairings if 3 in p.players())
    original = service.tournament.section(OPEN).players[3]

    done = _replace_player(service, OPEN, 3, {"name": "Ordezko, Miren"}, ARBITER)
    assert (done.player, done.newcomer.number, done.from_round) == (3, 3, 1)
    assert done.original == original
    section = service.tournament.section(OPEN)
    assert section.players[3].name == "Ordezko, Miren" and len(section.players) == 24
    assert section.byes_of(3) == frozenset()
    game = service.book.get(GameKey(OPEN, 1, board.board).id)
    assert "Ordezko, Miren" in (game.white.name, game.black.name)

    # The games that follow are hers: the result, the PGN, the TRF.
    time_source.set(at("2025-09-12T21:00:00"))
    acting.set_result(service, game.id, "1/2-1/2", ARBITER, "arbiter")
    pgn = game_pgn(service.book.get(game.id), service.config, tournament=service.tournament)
    assert '"Ordezko, Miren"' in pgn and original.name not in pgn
    assert "Ordezko, Miren" in _trf_line(service, 3)
    assert original.name not in section_trf(service.tournament, service.config, OPEN)

    again = _restarted(service, time_source)
    assert again.tournament == service.tournament
    (line,) = again.config_changes()
    assert "player 3 was replaced by Ordezko, Miren from round 1" in line
    assert f"the config still lists {original.name}" in line


def test_a_replacement_after_a_no_show_leaves_the_forfeit_with_the_absent_player(
    tmp_path: Path,
) -> None:
    """Sestao art. 6: absent at the start of round 1, excluded, and replaced."""
    service, time_source = service_for(tmp_path, "sestao-2025-swiss.toml", "2025-09-10T12:00:00")
    _round_one(service, time_source, forfeit_board=2)
    absent = service.tournament.section(OPEN).rounds[1].pairings[1].black
    assert absent is not None
    name = service.tournament.section(OPEN).players[absent].name
    asking = [a.kind for a in service.alerts() if name in a.players]
    assert asking == ["withdraw-from-pairing"]  # excluded: what becomes of the place?
    done = _replace_player(service, OPEN, absent, {"name": "Ordezko, Ane"}, ARBITER)
    newcomer = done.newcomer.number
    assert newcomer == 25 and done.from_round == 2 and done.override == ""
    assert [a.kind for a in service.alerts() if name in a.players] == []  # answered

    section = service.tournament.section(OPEN)
    assert section.players[absent] == done.original  # the forfeit stays with them
    assert not is_active(section, absent, 2) and is_active(section, newcomer, 2)
    assert _round_field(_trf_line(service, absent), 1).endswith("-")
    assert _round_field(_trf_line(service, newcomer), 1) == "0000 - Z"
    pairings = acting.dutch_pairings(service, OPEN, 2)
    paired = {n for p in pairings for n in p.players()}
    assert newcomer in paired and absent not in paired
    rows = {r.start: r for r in standings_of(service.tournament, OPEN).rows}
    assert rows[absent].points == 0 and rows[newcomer].points == 0
    again = _restarted(service, time_source)
    assert again.tournament == service.tournament
    assert [a.kind for a in again.alerts() if name in a.players] == []


def test_replacing_a_player_who_has_played_needs_a_withdrawal_and_the_override(
    tmp_path: Path,
) -> None:
    service, time_source = service_for(tmp_path, "sestao-2025-swiss.toml", "2025-09-10T12:00:00")
    _round_one(service, time_source)
    acting.publish_pairings(
        service, OPEN, 2, acting.dutch_pairings(service, OPEN, 2), "dutch", ARBITER
    )
    sub = {"name": "Ordezko, Jon", "rating": 2100}
    with pytest.raises(ActionError, match=r"has played \(rounds 1\): only the arbiter's override"):
        _replace_player(service, OPEN, 1, sub, ARBITER)
    with pytest.raises(ActionError, match="still in the event in round 2: withdraw them first"):
        _replace_player(service, OPEN, 1, sub, ARBITER, override="illness")
    acting.withdraw(service, OPEN, 1, ARBITER, from_round=2, reason="illness")
    # In a Swiss, 1's round-2 game, paired and not begun, is a forfeit won by the opponent.
    board = service.tournament.section(OPEN).rounds[2].game_of(1)
    assert board is not None and board.black is not None
    forfeit = service.book.get(GameKey(OPEN, 2, board.board).id)
    assert (forfeit.result, forfeit.result_reason) == (
        "-/+" if board.white == 1 else "+/-",
        "withdrawal",
    )
    done = _replace_player(service, OPEN, 1, sub, ARBITER, override="chief arbiter")
    assert (done.newcomer.number, done.from_round, done.override) == (25, 3, "chief arbiter")
    # Rounds 1 and 2 stay 1's (a win, a forfeit loss); the newcomer plays from round 3.
    assert service.tournament.section(OPEN).rounds[2].game_of(25) is None
    assert "Ordezko, Jon" not in (forfeit.white.name, forfeit.black.name)  # type: ignore[union-attr]
    assert _round_field(_trf_line(service, 1), 1).endswith("w 1")
    assert _round_field(_trf_line(service, 1), 2).endswith("-")
    assert _round_field(_trf_line(service, 25), 2) == "0000 - Z"
    round3 = acting.dutch_pairings(service, OPEN, 3, override=True)
    paired = {n for p in round3 for n in p.players()}
    assert 25 in paired and 1 not in paired
    assert _restarted(service, time_source).tournament == service.tournament


def test_a_game_in_progress_does_not_change_hands(tmp_path: Path) -> None:
    service, _ = service_for(tmp_path, "sestao-2025-swiss.toml", "2025-09-10T12:00:00")
    pairings = acting.dutch_pairings(service, OPEN, 1)
    acting.publish_pairings(service, OPEN, 1, pairings, "dutch", ARBITER)
    board = next(p for p in pairings if 1 in p.players())
    play_moves(service, GameKey(OPEN, 1, board.board).id, ["e4", "e5"])
    with pytest.raises(ActionError, match="has started \\(2 plies\\): a newcomer cannot take over"):
        _replace_player(service, OPEN, 1, {"name": "Ordezko, Jon"}, ARBITER)


def test_a_round_robin_replaces_only_before_the_first_result(tmp_path: Path) -> None:
    service, time_source = service_for(tmp_path, "pamplona-masters.toml", "2025-12-22T12:00:00")
    section = service.tournament.section("Masters")
    round1 = section.rounds[1]
    done = _replace_player(service, "Masters", 2, {"name": "Ordezko, Unai"}, ARBITER)
    assert (done.newcomer.number, done.from_round) == (2, 1)
    # Every Berger round keeps number 2: now the newcomer's.
    named = 0
    for number, rnd in service.tournament.section("Masters").rounds.items():
        pairing = rnd.game_of(2)
        if pairing is not None and pairing.black is not None:
            game = service.book.get(GameKey("Masters", number, pairing.board).id)
            assert "Ordezko, Unai" in (game.white.name, game.black.name)
            named += 1
    assert named == 7
    white = next(p for p in round1.pairings if 5 in p.players())
    acting.set_result(service, GameKey("Masters", 1, white.board).id, "1-0", ARBITER, "resignation")
    with pytest.raises(ActionError, match="Berger tables are fixed"):
        _replace_player(service, "Masters", 5, {"name": "Ordezko, Ander"}, ARBITER)
    assert _restarted(service, time_source).tournament == service.tournament


# -- what a client can send ------------------------------------------------------------------

_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=True),
    st.text(max_size=300),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(st.sampled_from([*NEWCOMER_FIELDS, "other"]), _VALUES, max_size=8),
    st.integers(min_value=-5, max_value=10**6),
)
def test_a_newcomer_s_particulars_are_accepted_or_refused_never_crash(
    fields: dict[str, object], number: int
) -> None:
    try:
        entry = newcomer_entry(number, fields)
    except NewcomerError as exc:
        assert str(exc)
        return
    assert entry.name and entry.name == entry.name.strip()
    assert 0 <= entry.rating <= 4000 and entry.sex in ("", "m", "w")
    assert entry.fide_id == "" or entry.fide_id.isdigit()


def _sestao_state(tmp_path: Path) -> SectionState:
    service, time_source = service_for(tmp_path, "sestao-2025-swiss.toml", "2025-09-10T12:00:00")
    _round_one(service, time_source, forfeit_board=3)
    return service.tournament.section(OPEN)


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> SectionState:
    return _sestao_state(tmp_path_factory.mktemp("played"))


@settings(max_examples=300, deadline=None)
@given(
    kind=st.sampled_from(["enter", "replace"]),
    player=st.integers(min_value=-2, max_value=30),
    number=st.integers(min_value=-2, max_value=30),
    from_round=st.integers(min_value=-2, max_value=12),
    missed=st.sampled_from([0.0, 0.5, 1.0, -0.5]),
    name=st.text(max_size=5),
    override=st.sampled_from(["", "chief arbiter"]),
)
def test_the_fold_takes_any_entry_or_replacement_or_refuses_it(
    played: SectionState,
    kind: str,
    player: int,
    number: int,
    from_round: int,
    missed: float,
    name: str,
    override: str,
) -> None:
    """Whatever a journal holds, the fold applies it or refuses it with a StateError, and
    what it applies keeps the pairings' players registered."""
    newcomer = PlayerEntry(number, name)
    event: PlayerEntered | PlayerReplaced
    if kind == "enter":
        event = PlayerEntered(OPEN, newcomer, from_round, missed)
    else:
        original = played.players.get(player, PlayerEntry(player, "?"))
        event = PlayerReplaced(OPEN, player, original, newcomer, from_round, missed, override)
    try:
        after = played.apply(event)
    except StateError as exc:
        assert str(exc)
        return
    for rnd in after.rounds.values():
        assert all(p in after.players for pairing in rnd.pairings for p in pairing.players())
    after.to_crosstable()  # the TRF and the standings can be made of it


# -- the config's setting ----------------------------------------------------------------------


def _with_late_entries(text: str, table: str) -> str:
    return text.replace("[section.byes]", table + "\n\n[section.byes]", 1)


def test_the_points_of_a_missed_round_are_read_from_the_config() -> None:
    from broadcast.cli.check import describe
    from broadcast.config import ConfigError, load_event_text
    from tests.broadcast.config.test_loader import GOOD

    assert load_event_text(GOOD, "/tmp/e.toml").sections[0].late_entries == LateEntryRules(0.0)
    half = "[section.late_entries]\nmissed_round_points = 0.5"
    config = load_event_text(_with_late_entries(GOOD, half), "/tmp/e.toml")
    assert config.sections[0].late_entries == LateEntryRules(0.5)
    line = next(t for t in describe(config) if t.startswith("  late entries:"))
    assert line.startswith("  late entries: 0.5 points per missed round (half-point byes, H)")
    assert "desk 'Late entry'" in line
    for table, message in (
        ("[section.late_entries]\nmissed_round_points = 1", "FIDE gives a late entry 0 or 0.5"),
        ("[section.late_entries]\nmissed_round_points = true", "FIDE gives a late entry 0 or 0.5"),
        ("[section.late_entries]\nmissed_points = 0.5", "unknown key"),
    ):
        with pytest.raises(ConfigError) as info:
            load_event_text(_with_late_entries(GOOD, table), "/tmp/e.toml")
        assert any(message in issue.message for issue in info.value.issues), info.value.issues
    root = ROOT / "examples"
    robin = (root / "pamplona-masters.toml").read_text(encoding="utf-8")
    robin += "\n[section.late_entries]\nmissed_round_points = 0\n"
    with pytest.raises(ConfigError) as info:
        load_event_text(robin, str(root / "pamplona-masters.toml"))
    (issue,) = info.value.issues
    assert "late entries are a Swiss rule" in issue.message
    assert issue.line == robin.splitlines().index("[section.late_entries]") + 1


def test_a_restart_from_a_snapshot_keeps_late_entries_and_replacements(tmp_path: Path) -> None:
    """The snapshot stores the fold's new parts (who joined when, what missed rounds are
    worth, who replaced whom): a restart from it ends where a full replay ends."""
    service, time_source = service_for(tmp_path, "sestao-2025-swiss.toml", "2025-09-10T12:00:00")
    _round_one(service, time_source, forfeit_board=2)
    _enter_late(service, OPEN, LARA, ARBITER, missed_points=0.5)
    absent = service.tournament.section(OPEN).rounds[1].pairings[1].black
    assert absent is not None
    _replace_player(service, OPEN, absent, {"name": "Ordezko, Ane"}, ARBITER)
    capture = Capture(
        service.state, service.rules.memory(), service.public_state(), time_source.now()
    )
    assert service.snapshots._take(capture)
    _enter_late(service, OPEN, {"name": "Bilbao, Jon"}, ARBITER)  # the tail
    service.journal.close()

    def restart(snapshots: bool) -> EventService:
        again = EventService(
            service.config,
            Journal(tmp_path / "j.sqlite"),
            time_source=time_source,
            delay=0,
            snapshots=snapshots,
        )
        again.load()
        return again

    fast, slow = restart(True), restart(False)
    assert fast.replayed == 2 and slow.replayed > 2  # the tail: the entry, its action record
    assert fast.state == slow.state
    section = fast.tournament.section(OPEN)
    assert section.joined == {25: 2, 26: 2, 27: 2}
    assert section.missed_points == {25: 0.5, 26: 0.0, 27: 0.0}
    assert [r.newcomer.name for r in section.replacements] == ["Ordezko, Ane"]


def test_a_granted_bye_of_a_round_that_is_over_stays_with_the_player(tmp_path: Path) -> None:
    service, time_source = service_for(tmp_path, "sestao-2025-swiss.toml", "2025-09-10T12:00:00")
    acting.request_bye(service, OPEN, 1, 7, ARBITER)
    _round_one(service, time_source)
    done = _replace_player(service, OPEN, 7, {"name": "Ordezko, Ane"}, ARBITER)
    # Round 1 is over: the half-point bye is player 7's result, so the newcomer gets a
    # new number from round 2 and player 7 keeps their H.
    assert (done.newcomer.number, done.from_round) == (25, 2)
    assert _round_field(_trf_line(service, 7), 1) == "0000 - H"
    assert _round_field(_trf_line(service, 25), 1) == "0000 - Z"
