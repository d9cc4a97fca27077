"""`Evaluator`: the public (delayed) positions of the event, evaluated one at a time.

It reads only what spectators may see (`source()`, the venue's `public_state` or a
mirror's), so the engine never looks at a position the broadcast delay still hides.
Every `POLL_SECONDS`, and after each evaluation, it looks at the games that changed:

- a position already in the cache (a transposition, a repetition, a restart) is
  announced at once, without the engine;
- otherwise the game's position is offered to the bounded `PositionQueue`, where it
  replaces the game's older waiting position; a game refused by a full queue is
  remembered, and its newest position offered once there is room.

One engine process (`Engine`: its own OS process, niced) works through the queue; each
result goes into the cache and to the `listeners` (the web hub sends it to spectators).
`run()` is a supervised task: if the engine dies, the task fails, the supervisor logs it
and alerts the desk, and a new `run()` starts a new engine and looks at every game again
(what was being evaluated is asked again). Nothing here is journaled: evaluations are
derived, spectator-only data.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable

from broadcast.analysis.cache import EvalCache
from broadcast.analysis.engine import Engine, EngineSettings
from broadcast.analysis.queue import QUEUE_LIMIT, PositionQueue
from broadcast.games.book import GameBook
from broadcast.games.evaluation import Evaluation, evaluable, position_key
from broadcast.games.game_state import GameState
from broadcast.service.event_state import PublicState

__all__ = ["ASKED_KEPT", "POLL_SECONDS", "Evaluator", "Listener"]

POLL_SECONDS = 0.25  # how often an idle evaluator looks at the public state
ASKED_KEPT = 1024  # the last positions handed to the engine, kept for tests and the log

Listener = Callable[[str, Evaluation], None]  # (game id, evaluation), on the event loop


class Evaluator:
    """Evaluations of the positions `source()` shows, for spectators."""

    def __init__(
        self,
        source: Callable[[], PublicState],
        settings: EngineSettings,
        *,
        cache: EvalCache | None = None,
        queue_limit: int = QUEUE_LIMIT,
        poll: float = POLL_SECONDS,
    ) -> None:
        self.source = source
        self.settings = settings
        self.cache = cache if cache is not None else EvalCache()
        self.queue = PositionQueue(queue_limit)
        self.poll = poll
        self.listeners: list[Listener] = []
        # Replaced by a new object whenever the cache gains an evaluation: answers built
        # from the evaluations (the PGN feeds' ?eval=1) are kept while it stays the same.
        self.generation = object()
        self.engine: Engine | None = None
        self.evaluated = 0  # positions the engine evaluated (tests, the bench)
        self.asked: deque[str] = deque(maxlen=ASKED_KEPT)  # the FENs last handed to the engine
        self._book: GameBook | None = None
        self._seen: dict[str, GameState] = {}  # game id -> the game as last looked at
        self._later: dict[str, None] = {}  # games the full queue refused, oldest first
        self._sent: dict[str, str] = {}  # game id -> position key last announced

    # -- what the web reads ------------------------------------------------------------------

    def lookup(self, fen: str) -> Evaluation | None:
        """The evaluation of `fen`, if the engine has made one (the cache's order kept)."""
        return self.cache.peek(fen)

    def current(self, game: GameState) -> Evaluation | None:
        """The evaluation of the position `game` (a public game) is at, if known."""
        return self.cache.peek(game.fen)

    # -- looking at the public state ---------------------------------------------------------

    def scan(self) -> None:
        """Offer the positions of the games that changed since the last look, and the
        remembered games when the queue has room. Cheap when nothing changed."""
        book = self.source().book
        if book is not self._book:
            self._book = book
            games = book.games
            for game_id, game in games.items():
                before = self._seen.get(game_id)
                if before is game:
                    continue
                self._seen[game_id] = game
                if before is None and game.finished:
                    continue  # a game over before we first saw it: its last position is old news
                self._want(game_id, game)
            if len(self._seen) > len(games):  # pairings taken away (a withdrawal)
                for game_id in [g for g in self._seen if g not in games]:
                    del self._seen[game_id]
                    self._later.pop(game_id, None)
                    self.queue.discard(game_id)
        while self._later and not self.queue.full:
            game_id = next(iter(self._later))
            del self._later[game_id]
            later = book.games.get(game_id)
            if later is not None:
                self._want(game_id, later)

    def _want(self, game_id: str, game: GameState) -> None:
        fen = game.fen
        if not evaluable(fen):
            self.queue.discard(game_id)  # a mate or stalemate on the board: nothing to ask
            return
        known = self.cache.get(fen)
        if known is not None:
            self.queue.discard(game_id)
            self._announce(game_id, known)
        elif not self.queue.offer(game_id, fen):
            self._later[game_id] = None

    def _announce(self, game_id: str, ev: Evaluation) -> None:
        key = position_key(ev.fen)
        if self._sent.get(game_id) == key:
            return
        self._sent[game_id] = key
        for listener in self.listeners:
            listener(game_id, ev)

    # -- the supervised task -----------------------------------------------------------------

    async def run(self) -> None:
        """Start an engine and evaluate until cancelled; raises when the engine fails."""
        engine = self.engine = Engine(self.settings)
        # A (re)start looks at every game again: the position that was being evaluated
        # when an engine died is asked again, and cached ones are not announced twice.
        self._book = None
        self._seen = {}
        try:
            await engine.start()
            while True:
                self.scan()
                item = self.queue.take()
                if item is None:
                    await asyncio.sleep(self.poll)
                    continue
                game_id, fen = item
                ev = self.cache.get(fen)  # a transposition evaluated meanwhile
                if ev is None:
                    self.asked.append(fen)
                    try:
                        ev = await engine.evaluate(fen)
                    except BaseException:
                        self._later[game_id] = None  # asked again by the next run()
                        raise
                    self.cache.put(ev)
                    self.evaluated += 1
                    self.generation = object()
                self._announce(game_id, ev)
        finally:
            await engine.close()
