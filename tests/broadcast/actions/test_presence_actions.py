"""Presence marks through the one door (issue 30): the arbiter marks a player present or
absent at any table, a player checks in, each journaled with who did it, said with the
table and the player, and undone by a counter-action (also across a restart)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from broadcast.actions import MarkAbsent, MarkPresent, act
from broadcast.arbiter.alerts import PlayerMarkedAbsent, PlayerMarkedPresent
from broadcast.config import load_event
from broadcast.config.model import EventConfig
from broadcast.games.game_events import GameMove
from broadcast.journal.store import Journal
from broadcast.service.event_service import ActionError, EventService
from clocks.timesource import ManualTime
from tests.support import acting
from tests.support.paths import ROOT

BY = "arbiter:ana"
SESTAO = load_event(ROOT / "examples" / "sestao-2025-swiss.toml")
HALL = replace(SESTAO, boards=SESTAO.boards[:2])  # tables 3.. have no e-board


def _service(folder: Path, config: EventConfig, after: float = 60) -> EventService:
    start = config.sections[0].schedule[0].start.timestamp()
    service = EventService(
        config, Journal(folder / "j.sqlite"), time_source=ManualTime(start + after), delay=0
    )
    service.load()
    acting.pair_dutch(service, "Open", 1)
    return service


def _game(service: EventService, board: int) -> str:
    return service.book.round_games("Open", 1)[board - 1].id


def _presence(service: EventService, game: str):  # type: ignore[no-untyped-def]
    return service.rules.presence_of(game)


def test_mark_absent_names_the_table_and_player_and_is_undone(tmp_path: Path) -> None:
    s = _service(tmp_path, HALL)
    game = _game(s, 5)
    white = s.book.get(game).white
    assert white is not None
    done = act(s, MarkAbsent(game, "white"), BY)
    assert done.summary == f"table 5, round 1: {white.name} (white) marked absent"
    assert any("forfeit -/+ will be proposed at the default time" in n for n in done.plan.notes)
    assert _presence(s, game).absent_since("white") is not None
    assert done.record.absent and done.record.by == BY
    journaled = [
        e.event for e in s.journal.read(done.seq - 2) if isinstance(e.event, PlayerMarkedAbsent)
    ]
    assert journaled and journaled[0].by == BY
    acting.undo(s, done)
    assert _presence(s, game).absent_since("white") is None
    again = EventService(
        HALL, Journal(tmp_path / "j.sqlite"), time_source=ManualTime(s.time_source.now()), delay=0
    )
    again.load()
    assert again.rules.presence_of(game) == _presence(s, game)


def test_marking_present_after_absent_and_undoing_it_gives_the_absence_back(tmp_path: Path) -> None:
    s = _service(tmp_path, HALL)
    game = _game(s, 6)
    act(s, MarkAbsent(game, "black"), BY)
    absent = _presence(s, game)
    done = act(s, MarkPresent(game, "black"), BY)
    assert _presence(s, game).absent_since("black") is None
    assert _presence(s, game).how("black") == "arbiter"
    acting.undo(s, done)
    assert _presence(s, game).absent_since("black") == absent.absent_since("black")
    assert _presence(s, game).of("black") is None


def test_absent_over_a_present_mark_asks_first_and_its_undo_marks_present_again(
    tmp_path: Path,
) -> None:
    s = _service(tmp_path, HALL)
    game = _game(s, 7)
    act(s, MarkPresent(game, "both"), BY)
    seen = _presence(s, game).of("white")
    with pytest.raises(ActionError, match="marked present at"):
        act(s, MarkAbsent(game, "white"), BY)  # ConfirmationNeeded: the mark goes
    done = act(s, MarkAbsent(game, "white"), BY, confirm=True)
    assert _presence(s, game).of("white") is None
    acting.undo(s, done)
    assert (
        _presence(s, game).of("white") == seen and _presence(s, game).absent_since("white") is None
    )


def test_absent_is_refused_for_a_player_the_board_saw(tmp_path: Path) -> None:
    s = _service(tmp_path, SESTAO)
    game = _game(s, 1)
    with s.batch():
        s.commit(
            [
                GameMove(
                    game,
                    1,
                    "e4",
                    "e2e4",
                    "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
                    s.time_source.now(),
                )
            ]
        )
    with pytest.raises(ActionError, match=r"the board saw .* play at table 1"):
        act(s, MarkAbsent(game, "white"), BY)


def test_check_in_is_the_players_mark_and_only_where_the_event_has_it(tmp_path: Path) -> None:
    s = _service(tmp_path, HALL)
    game = _game(s, 8)
    with pytest.raises(ActionError, match="no check-in"):
        act(s, MarkPresent(game, "white", check_in=True), "player:Open:8:white")


def test_check_in_journals_who_and_how(tmp_path: Path) -> None:
    s = _service(tmp_path, replace(HALL, check_in="optional"))
    game = _game(s, 8)
    done = act(s, MarkPresent(game, "white", check_in=True), "player:Open:8:white")
    assert "checked in" in done.summary and "table 8" in done.summary
    [mark] = [e for e in done.plan.events if isinstance(e, PlayerMarkedPresent)]
    assert (mark.how, mark.by) == ("check-in", "player:Open:8:white")
    assert _presence(s, game).how("white") == "check-in"
    with pytest.raises(ActionError, match="present already"):
        act(s, MarkPresent(game, "white", check_in=True), "player:Open:8:white")


def test_hall_walk_alert_closes_through_the_door_and_reopens_on_undo(tmp_path: Path) -> None:
    start = HALL.sections[0].schedule[0].start.timestamp()
    s = _service(tmp_path, HALL, after=60)
    s.time_source.set(start + 30 * 60 + 1)  # type: ignore[attr-defined]
    s.rules_until_now()
    games = s.book.round_games("Open", 1)
    [alert] = [a for a in s.alerts() if a.kind == "check-tables"]
    assert alert.message.startswith(
        "check tables " + ", ".join(str(b) for b in range(3, len(games) + 1)) + ":"
    )
    last = None
    for g in games[2:]:
        last = act(s, MarkPresent(g.id, "both"), BY)
    assert not [a for a in s.alerts() if a.kind == "check-tables"]
    assert last is not None and alert.id in last.record.closed
    acting.undo(s, last)
    [back] = [a for a in s.alerts() if a.kind == "check-tables"]
    assert back.id == alert.id and back.message.startswith(f"check tables {len(games)}:")
