"""Issue 19, through the service: a desk an arbiter trusts. No Swiss round paired from
results that are not in; a result proposal the arbiter can reject; "mark present"
withdraws a forfeit proposal; a newer alert on the same matter closes the older one."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from broadcast.config import load_event
from broadcast.games.ids import GameKey
from broadcast.journal.store import Journal
from broadcast.service.event_service import ActionError, EventService
from clocks.timesource import ManualTime

ROOT = Path(__file__).resolve().parent.parent
MADRID = ZoneInfo("Europe/Madrid")
ARBITER = "arbiter:ana"
OPEN = "Open"


def at(text: str) -> float:
    return dt.datetime.fromisoformat(text).replace(tzinfo=MADRID).timestamp()


def sestao(tmp_path: Path, start: str = "2025-09-12T16:00:00") -> tuple[EventService, ManualTime]:
    config = load_event(ROOT / "examples" / "sestao-2025-swiss.toml")
    time = ManualTime(at(start))
    service = EventService(config, Journal(tmp_path / "j.sqlite"), time=time, delay=0)
    service.load()
    return service, time


def paired_round_1(tmp_path: Path) -> tuple[EventService, ManualTime]:
    service, time = sestao(tmp_path)
    service.publish_pairings(OPEN, 1, service.dutch_pairings(OPEN, 1), "dutch", ARBITER)
    return service, time


def test_round_2_is_not_paired_while_round_1_has_games_without_a_result(
    tmp_path: Path,
) -> None:
    service, _ = paired_round_1(tmp_path)
    round1 = service.tournament.section(OPEN).rounds[1]
    games = [p for p in round1.pairings if p.black is not None]
    for pairing in games[1:]:
        service.set_result(GameKey(OPEN, 1, pairing.board).id, "1-0", ARBITER, "resignation")
    with pytest.raises(ActionError) as refused:
        service.dutch_pairings(OPEN, 2)
    message = str(refused.value)
    names = {p.number: p.name for p in service.config.sections[0].players}
    first = games[0]
    assert f"round 1 board {first.board} ({names[first.white]} - {names[first.black]})" in (message)
    assert "1 game" in message and "override" in message
    # The desk and the API publish what the worker paired: refused there too.
    with pytest.raises(ActionError, match="no result yet"):
        service.publish_pairings(OPEN, 2, round1.pairings, "dutch", ARBITER)
    assert 2 not in service.tournament.section(OPEN).rounds

    # The arbiter overrides: round 2 is paired.
    pairings = service.dutch_pairings(OPEN, 2, override=True)
    service.publish_pairings(OPEN, 2, pairings, "dutch", ARBITER, override=True)
    assert service.tournament.section(OPEN).rounds[2].pairings == pairings


def test_round_2_pairs_once_round_1_has_every_result(tmp_path: Path) -> None:
    service, _ = paired_round_1(tmp_path)
    for pairing in service.tournament.section(OPEN).rounds[1].pairings:
        if pairing.black is not None:
            service.set_result(GameKey(OPEN, 1, pairing.board).id, "0-1", ARBITER, "resignation")
    pairings = service.dutch_pairings(OPEN, 2)
    service.publish_pairings(OPEN, 2, pairings, "dutch", ARBITER)
    assert service.tournament.section(OPEN).rounds[2].pairings == pairings
    assert pairings != service.tournament.section(OPEN).rounds[1].pairings
