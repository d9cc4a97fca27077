"""One UCI engine process (Stockfish), at low priority, driven by python-chess.

`find_engine()` looks for Debian's `stockfish` on PATH and at /usr/games/stockfish (Debian
installs it there, and /usr/games is not on every service's PATH). `Engine` starts it
as its own OS process with one thread and a small hash, lowers its priority (`nice`) so
the boards, the journal and the web always come first on a busy venue laptop, and turns
`analyse` answers into `Evaluation`s from White's side.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

import chess
import chess.engine

from broadcast.games.evaluation import PV_PLIES, Evaluation, pv_san
from clocks.errors import BoardwireError

__all__ = [
    "DEBIAN_STOCKFISH",
    "DEFAULT_DEPTH",
    "Engine",
    "EngineError",
    "EngineSettings",
    "find_engine",
]

DEBIAN_STOCKFISH = Path("/usr/games/stockfish")
DEFAULT_DEPTH = 16  # about 0.2-0.5 s a position on one core of a 2-core laptop
NICE = 15  # how much lower than the venue's processes the engine runs
CLOSE_SECONDS = 2.0  # a polite `quit` waits this long, then the process is killed


class EngineError(BoardwireError):
    """The engine could not be started or answered nonsense."""


@dataclass(frozen=True, slots=True)
class EngineSettings:
    """How deep (plies) or how long (seconds) each position is searched: the first limit
    reached ends the search. With neither, `DEFAULT_DEPTH`."""

    command: str
    depth: int | None = DEFAULT_DEPTH
    seconds: float | None = None
    threads: int = 1
    hash_mb: int = 32
    nice: int = NICE

    def __post_init__(self) -> None:
        if self.depth is not None and not 1 <= self.depth <= 99:
            raise ValueError(f"depth must be 1 to 99 plies, not {self.depth}")
        if self.seconds is not None and not 0 < self.seconds <= 600:
            raise ValueError(f"time must be more than 0 and at most 600 s, not {self.seconds}")

    def limit(self) -> chess.engine.Limit:
        depth = self.depth if self.depth is not None or self.seconds is not None else DEFAULT_DEPTH
        return chess.engine.Limit(depth=depth, time=self.seconds)

    def describe(self) -> str:
        parts = []
        if self.depth is not None:
            parts.append(f"depth {self.depth}")
        if self.seconds is not None:
            parts.append(f"{self.seconds:g} s")
        return " or ".join(parts) or f"depth {DEFAULT_DEPTH}"


def find_engine(command: str = "stockfish") -> str | None:
    """The engine's path: `command` on PATH, else Debian's /usr/games/stockfish; None
    when neither is there."""
    found = shutil.which(command)
    if found is not None:
        return found
    if command == "stockfish" and os.access(DEBIAN_STOCKFISH, os.X_OK):
        return str(DEBIAN_STOCKFISH)
    return None


class Engine:
    """One running engine process. `start()`, then `evaluate(fen)` one at a time, then
    `close()` (also after the process died)."""

    def __init__(self, settings: EngineSettings) -> None:
        self.settings = settings
        self.pid: int | None = None
        self._transport: asyncio.SubprocessTransport | None = None
        self._protocol: chess.engine.UciProtocol | None = None
        self.evaluated = 0

    async def start(self) -> None:
        settings = self.settings
        try:
            transport, protocol = await chess.engine.popen_uci(settings.command)
        except (OSError, chess.engine.EngineError) as exc:
            raise EngineError(f"cannot start the engine {settings.command}: {exc}") from exc
        self._transport, self._protocol = transport, protocol
        self.pid = transport.get_pid()
        with contextlib.suppress(OSError):  # a platform without it: the engine at normal priority
            os.setpriority(os.PRIO_PROCESS, self.pid, settings.nice)
        options = {"Threads": settings.threads, "Hash": settings.hash_mb}
        await protocol.configure({k: v for k, v in options.items() if k in protocol.options})

    async def evaluate(self, fen: str) -> Evaluation:
        """The engine's evaluation of `fen` (a legal position with a move to make)."""
        protocol = self._protocol
        if protocol is None:
            raise EngineError("the engine is not started")
        board = chess.Board(fen)
        info = await protocol.analyse(board, self.settings.limit())
        pov = info.get("score")
        if pov is None:
            raise EngineError(f"the engine gave no score for {fen}")
        score = pov.white()
        moves = [m.uci() for m in info.get("pv", [])[:PV_PLIES]]
        depth = int(info.get("depth", 0))
        self.evaluated += 1
        mate = score.mate()
        if mate is not None:
            return Evaluation(fen, depth, mate=mate, pv=pv_san(fen, moves))
        return Evaluation(fen, depth, cp=score.score(), pv=pv_san(fen, moves))

    async def close(self) -> None:
        """Ask the engine to quit, and kill it if it does not (or if this is cancelled
        meanwhile): no engine process outlives its `Engine`."""
        protocol, transport = self._protocol, self._transport
        self._protocol = self._transport = None
        try:
            if protocol is not None:
                with contextlib.suppress(Exception):  # it may be dead already: nothing to ask
                    await asyncio.wait_for(protocol.quit(), CLOSE_SECONDS)
        finally:
            if transport is not None:
                with contextlib.suppress(ProcessLookupError, OSError):
                    if transport.get_returncode() is None:
                        transport.kill()
                transport.close()
