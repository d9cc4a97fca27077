"""The engine's contract: byes, acknowledgements, idempotence, restore, determinism."""

from __future__ import annotations

import datetime as dt

from broadcast.arbiter import Alert, AlertAcknowledged, RulesConfig
from broadcast.cli.event_lines import to_json
from broadcast.fide.pairing import Pairing
from broadcast.games.game_events import ResultProposed
from broadcast.tournament.tournament_events import ByeGranted, ByeRefused, ByeRequested, RoundPaired
from tests.support.arbiter import SESTAO, engine, gid, kinds, moves, standalone, start_of

ZONE = SESTAO.zone


def test_bye_granted_before_deadline_removes_player_from_pairing() -> None:
    rules = standalone(SESTAO)
    r1 = SESTAO.sections[0].round_start(1).start
    # Sestao: a bye for round 2 must be asked before round 1 starts.
    out = rules.observe(ByeRequested("Open", 2, 5, r1 - dt.timedelta(seconds=1)))
    assert out == [ByeGranted("Open", 2, 5, r1 - dt.timedelta(seconds=1))]
    assert 5 in rules.tournament.section("Open").absent_for(2)


def test_bye_at_the_deadline_is_refused_with_alert() -> None:
    rules = standalone(SESTAO)
    r1 = SESTAO.sections[0].round_start(1).start
    out = rules.observe(ByeRequested("Open", 2, 5, r1))
    assert kinds(out) == ["bye-refused", "alert:bye-refused"]
    refused = out[0]
    assert isinstance(refused, ByeRefused) and "too late" in refused.reason
    alert = out[1]
    assert (
        isinstance(alert, Alert)
        and alert.severity == "info"
        and "grant it by hand" in alert.message
    )
    assert 5 not in rules.tournament.section("Open").absent_for(2)


def test_bye_in_last_rounds_refused() -> None:
    rules = standalone(SESTAO)
    early = SESTAO.sections[0].round_start(1).start - dt.timedelta(days=1)
    out = rules.observe(ByeRequested("Open", 9, 5, early))
    assert isinstance(out[0], ByeRefused) and "no byes in round 9" in out[0].reason


def test_alert_json_and_acknowledgement() -> None:
    rules = engine(SESTAO)
    out = rules.tick(start_of(SESTAO, 1) + 900)
    alert = next(e for e in out if isinstance(e, Alert))
    body = to_json(alert)
    assert body["type"] == "alert" and body["kind"] == "late"
    for key in ("severity", "section", "round", "board", "game", "players", "message", "t"):
        assert key in body
    assert alert in rules.open_alerts()
    rules.observe(AlertAcknowledged(alert.id, start_of(SESTAO, 1) + 901))
    assert alert not in rules.open_alerts()
    proposal = ResultProposed("open-r1-b1", "+/-", "default-time", 0.0)
    assert to_json(proposal)["type"] == "result-proposed"


def test_ticks_are_idempotent_and_cadence_free() -> None:
    """Ticking every second or once gives the same events with the same times."""
    start = start_of(SESTAO, 1)
    game = gid(SESTAO, 1, 1)
    fine = engine(SESTAO)
    coarse = engine(SESTAO)
    first_move = moves(game, ["e2e4"], start + 3)
    a = fine.observe(first_move[0])
    b = coarse.observe(first_move[0])
    for s in range(0, 1900):
        a += fine.tick(start + s)
    b += coarse.tick(start + 1899)
    assert a == b
    assert fine.tick(start + 1899) == [] and fine.tick(start + 1000) == []
    assert len([e for e in a if isinstance(e, ResultProposed)]) == 4


def test_restore_raises_nothing_then_continues() -> None:
    start = start_of(SESTAO, 1)
    live = engine(SESTAO)
    journal: list[object] = [
        RoundPaired("Open", 1, live.tournament.section("Open").rounds[1].pairings)
    ]
    journal += live.tick(start + 1000)
    restored = standalone(SESTAO)
    restored.restore(journal)
    assert restored.tick(start + 1000) == []
    assert kinds(restored.tick(start + 1800)) == kinds(live.tick(start + 1800))


def test_unknown_game_events_are_ignored() -> None:
    rules = engine(SESTAO)
    assert rules.observe(ResultProposed("open-r7-b1", "1-0", "checkmate", 0.0)) == []


def test_second_section_round_paired_later_gets_watched() -> None:
    rules = standalone(SESTAO, RulesConfig(warn_before=(60,)))
    rules.observe(RoundPaired("Open", 1, (Pairing(1, 1, 2),)))
    out = rules.tick(start_of(SESTAO, 1) + 1740)
    assert [(a.kind, a.t) for a in out if isinstance(a, Alert)] == [
        ("late", start_of(SESTAO, 1) + 1740)
    ]
