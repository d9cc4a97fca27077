"""Helpers for the web tests: a service on the Pamplona example, and a server thread."""

from __future__ import annotations

import asyncio
import socket
import threading
from pathlib import Path

import chess

from broadcast.config import load_event
from broadcast.games.game_events import GameMove
from broadcast.journal.store import Journal
from broadcast.service.event_service import EventService
from clocks.timesource import EpochTimeSource, ManualTime
from tests.support.paths import ROOT

EVENT = ROOT / "examples" / "pamplona-masters.toml"
T0 = 1_766_419_000.0  # shortly before round 1 of the example (2025-12-22 17:00 Madrid)
CREDENTIALS = ("arbiter", "correct horse battery staple")


def make_service(
    tmp: Path, *, delay: float = 60.0, time_source: EpochTimeSource | None = None
) -> tuple[EventService, ManualTime]:
    clock = ManualTime(T0)
    service = EventService(
        load_event(EVENT),
        Journal(tmp / "journal.sqlite"),
        time_source=time_source or clock,
        live_round=1,
        delay=delay,
    )
    service.load()
    return service, clock


def play_moves(service: EventService, game_id: str, sans: list[str]) -> None:
    """Commit moves to a game as the board reconstruction would (a board batch, written
    before this returns)."""
    game = service.book.get(game_id)
    board = game.board_now()
    events = []
    for san in sans:
        move = board.parse_san(san)
        uci = move.uci()
        board.push(move)
        events.append(
            GameMove(
                game_id,
                len(board.move_stack),
                san,
                uci,
                board.fen(),
                service.time_source.now(),
                5400.0,
            )
        )
    with service.batch():
        service.commit(events)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class ServerThread:
    """The web app on its own event loop in a thread (for synchronous clients)."""

    def __init__(self, tmp: Path, *, delay: float = 0.0, limits: object = None) -> None:
        self.tmp = tmp
        self.delay = delay
        self.limits = limits
        self.port = free_port()
        self.loop = asyncio.new_event_loop()
        self.ready = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.service: EventService | None = None

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_until_complete(self._start())
        self.ready.set()
        self.loop.run_forever()

    async def _start(self) -> None:
        from web.app import start_web

        self.service, _ = make_service(self.tmp, delay=self.delay)
        self.runner = await start_web(
            self.service,
            host="127.0.0.1",
            port=self.port,
            credentials=CREDENTIALS,
            limits=self.limits,  # type: ignore[arg-type]
        )

    def __enter__(self) -> ServerThread:
        self.thread.start()
        self.ready.wait(20)
        return self

    def __exit__(self, *exc: object) -> None:
        asyncio.run_coroutine_threadsafe(self.runner.cleanup(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


__all__ = ["CREDENTIALS", "ServerThread", "chess", "free_port", "make_service", "play_moves"]
