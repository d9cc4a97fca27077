"""Issue 19, through the service: a desk an arbiter trusts. No Swiss round paired from
results that are not in; a result proposal the arbiter can reject; "mark present"
withdraws a forfeit proposal; a newer alert on the same matter closes the older one."""

from __future__ import annotations

import datetime as dt
import logging
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from broadcast.arbiter.alerts import AlertResolved
from broadcast.config import load_event
from broadcast.games.game_events import GameClock, ResultProposed
from broadcast.games.ids import GameKey
from broadcast.journal.store import Journal
from broadcast.service.event_service import ActionError, EventService
from clocks.timesource import ManualTime
from tests.support import acting
from tests.support.paths import ROOT
from web import json_views

MADRID = ZoneInfo("Europe/Madrid")
ARBITER = "arbiter:ana"
OPEN = "Open"


def at(text: str) -> float:
    return dt.datetime.fromisoformat(text).replace(tzinfo=MADRID).timestamp()


def sestao(tmp_path: Path, start: str = "2025-09-12T16:00:00") -> tuple[EventService, ManualTime]:
    config = load_event(ROOT / "examples" / "sestao-2025-swiss.toml")
    time_source = ManualTime(at(start))
    service = EventService(config, Journal(tmp_path / "j.sqlite"), time_source=time_source, delay=0)
    service.load()
    return service, time_source


def paired_round_1(tmp_path: Path) -> tuple[EventService, ManualTime]:
    service, time_source = sestao(tmp_path)
    acting.publish_pairings(
        service, OPEN, 1, acting.dutch_pairings(service, OPEN, 1), "dutch", ARBITER
    )
    return service, time_source


def test_round_2_is_not_paired_while_round_1_has_games_without_a_result(
    tmp_path: Path,
) -> None:
    service, _ = paired_round_1(tmp_path)
    round1 = service.tournament.section(OPEN).rounds[1]
    games = [p for p in round1.pairings if p.black is not None]
    for pairing in games[1:]:
        acting.set_result(
            service, GameKey(OPEN, 1, pairing.board).id, "1-0", ARBITER, "resignation"
        )
    with pytest.raises(ActionError) as refused:
        acting.dutch_pairings(service, OPEN, 2)
    message = str(refused.value)
    names = {p.number: p.name for p in service.config.sections[0].players}
    first = games[0]
    assert f"round 1 board {first.board} ({names[first.white]} - {names[first.black]})" in (message)
    assert "1 game" in message and "override" in message
    # The desk and the API publish what the worker paired: refused there too.
    with pytest.raises(ActionError, match="no result yet"):
        acting.publish_pairings(service, OPEN, 2, round1.pairings, "dutch", ARBITER)
    assert 2 not in service.tournament.section(OPEN).rounds

    # The arbiter overrides: round 2 is paired.
    pairings = acting.dutch_pairings(service, OPEN, 2, override=True)
    acting.publish_pairings(service, OPEN, 2, pairings, "dutch", ARBITER, override=True)
    assert service.tournament.section(OPEN).rounds[2].pairings == pairings


def test_round_2_pairs_once_round_1_has_every_result(tmp_path: Path) -> None:
    service, _ = paired_round_1(tmp_path)
    for pairing in service.tournament.section(OPEN).rounds[1].pairings:
        if pairing.black is not None:
            acting.set_result(
                service, GameKey(OPEN, 1, pairing.board).id, "0-1", ARBITER, "resignation"
            )
    pairings = acting.dutch_pairings(service, OPEN, 2)
    acting.publish_pairings(service, OPEN, 2, pairings, "dutch", ARBITER)
    assert service.tournament.section(OPEN).rounds[2].pairings == pairings
    assert pairings != service.tournament.section(OPEN).rounds[1].pairings


# -- a proposal has three ways out: confirm, set another result, reject ------------------------


def proposed(tmp_path: Path) -> tuple[EventService, ManualTime, str]:
    service, time_source = paired_round_1(tmp_path)
    time_source.set(at("2025-09-12T17:10:00"))
    game = GameKey(OPEN, 1, 1).id
    service.commit(
        [ResultProposed(game, "1/2-1/2", "kings-signal", time_source.now(), "kings on e4/e5")]
    )
    assert [a.game for a in service.alerts() if a.kind == "result-proposed"] == [game]
    return service, time_source, game


def test_rejecting_a_proposal_clears_the_pending_result_and_closes_its_alert(
    tmp_path: Path,
) -> None:
    service, _, game = proposed(tmp_path)
    [alert] = [a for a in service.alerts() if a.kind == "result-proposed"]
    acting.reject_proposal(service, game, ARBITER)
    assert service.book.get(game).proposal is None and service.book.get(game).result is None
    assert json_views.game_json(service.public_state().book.get(game))["pending_result"] is None
    assert [a for a in service.alerts() if a.kind == "result-proposed"] == []
    assert alert.id in service.rules.resolved
    with pytest.raises(ActionError, match="no result waiting"):
        acting.reject_proposal(service, game, ARBITER)
    # The journal holds it: a restart reads the game as going on.
    again = EventService(service.config, service.journal, time_source=service.time_source, delay=0)
    again.load()
    assert again.book.get(game).proposal is None
    assert [a for a in again.alerts() if a.kind == "result-proposed"] == []


def test_the_clocks_stop_when_the_result_happens_not_when_the_arbiter_confirms(
    tmp_path: Path,
) -> None:
    service, time_source = paired_round_1(tmp_path)
    game = GameKey(OPEN, 1, 1).id
    time_source.set(at("2025-09-12T17:10:00"))
    service.commit([GameClock(game, 5123, 4987, "white", time_source.now())], game=game)
    time_source.advance(1)
    service.commit(
        [ResultProposed(game, "0-1", "kings-signal", time_source.now(), "kings on e4/e5")]
    )
    # The clock on the table runs on while the arbiter walks over: nobody sees it.
    for _ in range(30):
        time_source.advance(60)
        left = 5123 - int(time_source.now() - at("2025-09-12T17:10:00"))
        service.commit([GameClock(game, left, 4987, "white", time_source.now())], game=game)
    stopped = service.book.get(game)
    assert (stopped.white_clock, stopped.black_clock, stopped.running) == (5123, 4987, None)
    public = json_views.game_json(service.public_state().book.get(game))
    assert public["clock"] == {"white": 5123, "black": 4987, "running": None}
    # Confirmed: still the times of the signal.
    acting.confirm_proposal(service, game, ARBITER)
    assert (service.book.get(game).white_clock, service.book.get(game).running) == (5123, None)


def test_a_rejected_proposal_lets_the_clocks_run_again(tmp_path: Path) -> None:
    service, time_source, game = proposed(tmp_path)
    service.commit([GameClock(game, 4000, 3900, "black", time_source.now() + 5)], game=game)
    assert service.book.get(game).running is None
    acting.reject_proposal(service, game, ARBITER)
    time_source.advance(10)
    service.commit([GameClock(game, 4000, 3890, "black", time_source.now())], game=game)
    going = service.book.get(game)
    assert (going.white_clock, going.black_clock, going.running) == (4000, 3890, "black")


def test_acknowledge_is_no_answer_to_a_proposal(tmp_path: Path) -> None:
    service, _, game = proposed(tmp_path)
    [alert] = [a for a in service.alerts() if a.kind == "result-proposed"]
    with pytest.raises(ActionError, match="confirm it, set another result, or reject it"):
        acting.acknowledge(service, alert.id, ARBITER)
    assert service.book.get(game).proposal is not None
    assert [a.id for a in service.alerts() if a.kind == "result-proposed"] == [alert.id]
    # Once decided, the alert is closed anyway; another result (the second way out).
    acting.set_result(service, game, "1-0", ARBITER, "resignation")
    assert service.book.get(game).result == "1-0"
    assert [a for a in service.alerts() if a.kind == "result-proposed"] == []


# -- "mark present" withdraws a default-time forfeit ----------------------------------------------


def forfeit_proposed(tmp_path: Path) -> tuple[EventService, ManualTime, str]:
    """Round 1 at Sestao (default time 30 min): Black of board 1 never comes."""
    service, time_source = paired_round_1(tmp_path)
    time_source.set(at("2025-09-12T17:02:00"))
    for pairing in service.tournament.section(OPEN).rounds[1].pairings:
        if pairing.black is None:
            continue
        game = GameKey(OPEN, 1, pairing.board).id
        acting.mark_present(service, game, "white", ARBITER)
        if pairing.board > 1:
            acting.mark_present(service, game, "black", ARBITER)
    for minute in ("17:15:01", "17:25:01", "17:29:01", "17:30:01"):
        time_source.set(at(f"2025-09-12T{minute}"))
        service.tick()
    game = GameKey(OPEN, 1, 1).id
    proposal = service.book.get(game).proposal
    assert proposal is not None and (proposal.result, proposal.reason) == ("+/-", "default-time")
    return service, time_source, game


def test_marking_the_player_present_withdraws_the_forfeit_proposal(tmp_path: Path) -> None:
    service, time_source, game = forfeit_proposed(tmp_path)
    time_source.advance(20)
    acting.mark_present(service, game, "black", ARBITER)
    assert service.book.get(game).proposal is None and service.book.get(game).result is None
    assert [a for a in service.alerts() if a.game == game] == []
    # Time goes on: the same forfeit is not proposed again.
    time_source.advance(600)
    service.tick()
    assert service.book.get(game).proposal is None
    assert [a for a in service.alerts() if a.game == game] == []


def test_marking_the_other_player_present_keeps_the_forfeit_proposal(tmp_path: Path) -> None:
    service, _, game = forfeit_proposed(tmp_path)
    acting.mark_present(service, game, "white", ARBITER)  # already present: nothing to withdraw
    assert service.book.get(game).proposal is not None


# -- a newer alert on the same matter replaces the older one ----------------------------------


def test_each_late_warning_replaces_the_one_before_and_the_forfeit_closes_the_last(
    tmp_path: Path,
) -> None:
    service, time_source = paired_round_1(tmp_path)
    game = GameKey(OPEN, 1, 1).id
    time_source.set(at("2025-09-12T17:02:00"))
    acting.mark_present(service, game, "white", ARBITER)
    open_late: list[list[str]] = []
    for minute in ("17:15:01", "17:25:01", "17:29:01"):
        time_source.set(at(f"2025-09-12T{minute}"))
        service.tick()
        open_late.append([a.id for a in service.alerts() if a.game == game and a.kind == "late"])
    assert open_late == [[f"late:{game}:900"], [f"late:{game}:300"], [f"late:{game}:60"]]
    time_source.set(at("2025-09-12T17:30:01"))
    service.tick()
    assert [a.kind for a in service.alerts() if a.game == game] == ["result-proposed"]
    why = {
        e.event.alert: e.event.why
        for e in service.journal.read()
        if isinstance(e.event, AlertResolved)
    }
    assert why[f"late:{game}:900"] == f"replaced by late:{game}:300"
    assert why[f"late:{game}:300"] == f"replaced by late:{game}:60"
    assert why[f"late:{game}:60"] == "the default time passed: forfeit +/- proposed"


# -- a forfeit reads as a forfeit ------------------------------------------------------------------


def test_a_proposed_default_time_forfeit_reads_as_a_forfeit(tmp_path: Path) -> None:
    service, _, game = forfeit_proposed(tmp_path)
    public = json_views.game_json(service.public_state().book.get(game))
    assert public["result"] == "*"
    assert public["pending_result"] == {"result": "+/-", "reason": "default time"}


# -- serve's own log: one INFO line for every alert, result and arbiter action ---------------


def test_every_alert_result_and_arbiter_action_is_one_line_of_the_log(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    service, time_source, game = proposed(tmp_path)
    caplog.set_level(logging.INFO, logger="broadcast.service.committer")
    caplog.clear()
    acting.reject_proposal(service, game, ARBITER)
    acting.mark_present(service, game, "white", ARBITER)
    acting.set_result(service, game, "1-0", ARBITER, "resignation")
    lines = [r.getMessage() for r in caplog.records if r.levelno == logging.INFO]
    assert (
        f"{game}: proposed result withdrawn by {ARBITER}: rejected by {ARBITER}: the game goes on"
        in lines
    )
    assert any(line.startswith("alert closed: result-proposed:") for line in lines)
    assert f"{game}: white marked present by {ARBITER}" in lines
    assert f"{game}: result 1-0 (resignation) by {ARBITER}" in lines
    caplog.clear()
    time_source.set(at("2025-09-12T17:15:01"))
    service.tick()
    raised = [r.getMessage() for r in caplog.records if r.getMessage().startswith("alert late")]
    assert raised and all("not at the board" in line for line in raised)
