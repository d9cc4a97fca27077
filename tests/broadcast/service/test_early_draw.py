"""The early-draw rule holds whatever the result's source: with `automatic_results =
"apply"`, a kings-signal draw before the section's minimum (Sestao: move 30 and one hour)
stays a proposal for the arbiter, with its alerts; after it, the draw stands at once.
Through the service, and across a restart."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import chess.pgn

from broadcast.config import load_event
from broadcast.games.game_events import ResultProposed
from broadcast.games.ids import GameKey
from broadcast.journal.store import Journal
from broadcast.service.event_service import EventService
from clocks.timesource import ManualTime
from tests.broadcast.tournament.test_regulations_applied import ARBITER, ROOT, at, vega_round1
from tests.support import acting
from tests.support.web_app import play_moves

OPEN = "Open"


def _sample_line(plies: int) -> list[str]:
    with (ROOT / "examples" / "games" / "worldcup2025-sample.pgn").open(encoding="utf-8") as f:
        while (game := chess.pgn.read_game(f)) is not None:
            board = game.board()
            sans = []
            for move in game.mainline_moves():
                sans.append(board.san(move))
                board.push(move)
            if len(sans) >= plies:
                return sans[:plies]
    raise AssertionError(f"no sample game with {plies} plies")


def _applying_service(tmp_path: Path) -> tuple[EventService, ManualTime]:
    config = dataclasses.replace(
        load_event(ROOT / "examples" / "sestao-2025-swiss.toml"), automatic_results="apply"
    )
    time_source = ManualTime(at("2025-09-12T12:00:00"))
    service = EventService(config, Journal(tmp_path / "j.sqlite"), time_source=time_source, delay=0)
    service.load()
    acting.publish_imported(service, OPEN, 1, vega_round1(config), ARBITER)
    return service, time_source


def test_an_early_kings_signal_draw_stays_a_proposal_when_results_apply(tmp_path: Path) -> None:
    service, time_source = _applying_service(tmp_path)
    early, late = GameKey(OPEN, 1, 1).id, GameKey(OPEN, 1, 2).id
    time_source.set(at("2025-09-12T17:40:00"))
    play_moves(service, early, _sample_line(24))
    service.commit([ResultProposed(early, "1/2-1/2", "kings-signal", time_source.now(), "kings")])
    game = service.book.get(early)
    assert game.result is None and game.proposal is not None
    kinds = {a.kind for a in service.alerts() if a.game == early}
    assert kinds == {"early-draw", "result-proposed"}
    assert 1 not in service.tournament.section(OPEN).rounds[1].results

    # After move 30 and an hour of play the same signal stands at once.
    time_source.set(at("2025-09-12T18:30:00"))
    play_moves(service, late, _sample_line(60))
    service.commit([ResultProposed(late, "1/2-1/2", "kings-signal", time_source.now(), "kings")])
    assert service.book.get(late).result == "1/2-1/2"
    assert not [a for a in service.alerts() if a.game == late]

    again = EventService(service.config, service.journal, time_source=time_source, delay=0)
    again.load()
    assert again.book.get(early).result is None and again.book.get(early).proposal is not None
    assert {a.kind for a in again.alerts() if a.game == early} == kinds
    assert again.book.get(late).result == "1/2-1/2"
    # The arbiter's word decides: confirmed, it stands.
    acting.confirm_proposal(again, early, ARBITER)
    assert again.book.get(early).result == "1/2-1/2"
