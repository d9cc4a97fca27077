"""Public answers built once per public state, and heavy ones built a slice at a time.

Every public answer is a function of the delayed public state (and the configuration), an
immutable value: the same state object gives the same answer. So an answer is built once,
kept until the parts of the state it is made of change (standings: the tournament, not
the moves), and shared by everybody who asks meanwhile; requests that arrive while it is
being built wait for that one build instead of starting their own. Answers made by a plain
function (JSON, pages: the standings of a 2,000-player Swiss take 0.1 s) are made in a
worker thread, so the loop only waits for them, never runs them.
Each answer carries an ETag (a hash of its body): a relay polling a round's PGN gets a
bare 304 while nothing changed.

The event PGN (every game of the event: 9,000 games, 3.6 MB in a big Swiss) is the
heavy one. Its games' texts are kept too, each as long as its game does not change (a
`GameState` is immutable: the same object has the same text), so after a move only the
games that moved are written again; and writing the missing ones is cut into slices of
a few milliseconds with the event loop served in between, so the boards never wait for
a spectator's download.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from broadcast.config.model import EventConfig
from broadcast.export.pgn import event_games, game_pgn
from broadcast.games.evaluation import Evaluation, position_key
from broadcast.games.game_state import GameState
from broadcast.games.ids import GameKey
from broadcast.service.event_state import PublicState
from broadcast.tournament.tournament_state import TournamentState
from web.public_source import PublicSource

SLICE_SECONDS = 0.005  # longest stretch of PGN writing before the loop is served again
MAX_ANSWERS = 512  # answers kept (scopes x sections x rounds); the oldest go first


@dataclass(frozen=True, slots=True)
class Answer:
    """A ready answer: its bytes, its content type and its ETag."""

    body: bytes
    content_type: str
    etag: str

    @staticmethod
    def of(text: str, content_type: str) -> Answer:
        body = text.encode("utf-8")
        digest = hashlib.blake2b(body, digest_size=12).hexdigest()
        return Answer(body, content_type, f'"{digest}"')


class GameTexts:
    """Each game's PGN, kept while the game (an immutable value) stays the same object."""

    def __init__(self, config: EventConfig) -> None:
        self.config = config
        # By key, not id: a game's id is a slug computed on every call (9 µs; 9,000 games).
        self._texts: dict[GameKey, tuple[GameState, str]] = {}
        self.written = 0  # games written (for tests and the bench)

    def _keeps(self, game: GameState) -> bool:
        # A play-off game's text reads the tournament (its own time control and start):
        # written each time, there are few of them.
        try:
            return game.key.round <= self.config.section(game.key.section).rounds
        except KeyError:
            return False

    def known(self, game: GameState) -> bool:
        hit = self._texts.get(game.key)
        return hit is not None and hit[0] is game

    def text(self, game: GameState, pairings: TournamentState | None) -> str:
        hit = self._texts.get(game.key)
        if hit is not None and hit[0] is game:
            return hit[1]
        text = game_pgn(game, self.config, pairings=pairings)
        self.written += 1
        if self._keeps(game):
            self._texts[game.key] = (game, text)
        return text

    async def write_missing(self, games: Iterable[GameState], pairings: TournamentState) -> None:
        """Write the texts not kept yet, yielding to the loop every SLICE_SECONDS."""
        until = time.perf_counter() + SLICE_SECONDS
        for i, game in enumerate(games):
            if not self.known(game) and self._keeps(game):
                self.text(game, pairings)
            elif i % 512:
                continue  # a kept one: cheap, look at the time now and then only
            if time.perf_counter() > until:
                await asyncio.sleep(0)
                until = time.perf_counter() + SLICE_SECONDS

    def forget_others(self, games: Iterable[GameState]) -> None:
        """Drop the texts of games no longer in the book (removed pairings)."""
        keep = {game.key for game in games}
        if len(keep) == len(self._texts):
            return
        for key in [k for k in self._texts if k not in keep]:
            del self._texts[key]


Build = Callable[[PublicState], Awaitable[Answer]]
Key = Callable[[PublicState], tuple[object, ...]]


def whole(state: PublicState) -> tuple[object, ...]:
    """What most answers depend on: the delayed tournament and book."""
    return (state.tournament, state.book)


def tournament_only(state: PublicState) -> tuple[object, ...]:
    """Standings, pairings, prizes: results and pairings, not the moves."""
    return (state.tournament,)


class Answers:
    """Answers keyed by name and by the parts of the public state they are made of (`on`,
    compared by identity); one build per state, shared. Builds made by a plain function
    (JSON, pages) run in a worker thread: the loop only waits for the result."""

    def __init__(self, service: PublicSource) -> None:
        self.service = service
        self.texts = GameTexts(service.config)
        self._kept: OrderedDict[str, tuple[tuple[object, ...], Answer]] = OrderedDict()
        self._building: dict[str, tuple[tuple[object, ...], asyncio.Future[Answer]]] = {}
        self._worker: ThreadPoolExecutor | None = None
        self._built_at: dict[str, float] = {}  # when answers with `fresh_for` were built
        self.builds = 0  # answers built (for tests and the bench)

    @staticmethod
    def _same(a: tuple[object, ...], b: tuple[object, ...]) -> bool:
        # Identity, not equality: states share their unchanged parts, and a part that
        # changed is a new object. (The kept key holds the old parts: their ids stay unique.)
        return len(a) == len(b) and all(x is y for x, y in zip(a, b, strict=True))

    async def get(
        self, name: str, build: Build, on: Key = whole, *, fresh_for: float = 0.0
    ) -> Answer:
        """The answer `name` for the current public state (built now if needed).
        `fresh_for`: a heavy answer whose parts change all the time (a feed with the
        engine's evaluations) is built at most once in that many seconds; meanwhile the
        last one is served (older, so never beyond the delay)."""
        state = self.service.public_state()
        key = on(state)
        kept = self._kept.get(name)
        young = (
            fresh_for > 0 and time.monotonic() - self._built_at.get(name, -fresh_for) < fresh_for
        )
        if kept is not None and (young or self._same(kept[0], key)):
            self._kept.move_to_end(name)
            return kept[1]
        building = self._building.get(name)
        if building is not None and self._same(building[0], key):
            return await asyncio.shield(building[1])
        future: asyncio.Future[Answer] = asyncio.get_running_loop().create_future()
        self._building[name] = (key, future)
        try:
            answer = await build(state)
        except asyncio.CancelledError:
            future.cancel()
            raise
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()  # retrieved: the waiters (if any) get it, nobody else must
            raise
        finally:
            if self._building.get(name, (None, None))[1] is future:
                del self._building[name]
        future.set_result(answer)
        self.builds += 1
        if fresh_for > 0:
            self._built_at[name] = time.monotonic()
        self._kept[name] = (key, answer)
        self._kept.move_to_end(name)
        while len(self._kept) > MAX_ANSWERS:
            self._kept.popitem(last=False)
        return answer

    async def _in_worker(self, make: Callable[[], Answer]) -> Answer:
        if self._worker is None:
            self._worker = ThreadPoolExecutor(1, thread_name_prefix="web-answers")
        return await asyncio.get_running_loop().run_in_executor(self._worker, make)

    async def text(
        self, name: str, make: Callable[[PublicState], str], content_type: str, on: Key = whole
    ) -> Answer:
        """A text answer (a page) made by `make` from the public state, in the worker."""

        async def build(state: PublicState) -> Answer:
            return await self._in_worker(lambda: Answer.of(make(state), content_type))

        return await self.get(name, build, on)

    async def json(
        self, name: str, make: Callable[[PublicState], object], on: Key = whole
    ) -> Answer:
        """A JSON answer made by `make` from the public state, in the worker."""

        def encode(state: PublicState) -> str:
            return json.dumps(make(state), ensure_ascii=False)

        return await self.text(name, encode, "application/json", on)

    def close(self) -> None:
        if self._worker is not None:
            self._worker.shutdown(wait=False, cancel_futures=True)
            self._worker = None

    # -- the PGN feeds ---------------------------------------------------------------------

    async def event_pgn(
        self, state: PublicState, content_type: str, live: dict[str, int | None] | None = None
    ) -> Answer:
        """`broadcast.export.pgn.event_pgn` of the state, from the kept game texts: the games
        that exist (`live`: each section's round being played)."""
        games = event_games(state.book, self.service.config, live=live)
        await self.texts.write_missing(games, state.tournament)
        self.texts.forget_others(games)
        return await self._joined(games, state, content_type)

    async def round_pgn(
        self, state: PublicState, section: str, number: int, content_type: str
    ) -> Answer:
        """`broadcast.export.pgn.round_pgn` of the state, from the kept game texts."""
        games = state.book.round_games(section, number)
        await self.texts.write_missing(games, state.tournament)
        return await self._joined(games, state, content_type)

    async def annotated_pgn(
        self,
        games: list[GameState],
        state: PublicState,
        evals: Mapping[str, Evaluation],
        content_type: str,
    ) -> Answer:
        """`games` as PGN with each position's evaluation (`[%eval]`, the feeds' `?eval=1`),
        written in the worker from `evals` (a copy by position key, taken on the loop).
        Not kept per game: the texts change as the engine works, and the plain feeds'
        kept texts stay as they are."""
        config = self.service.config

        def make() -> Answer:
            def lookup(fen: str) -> Evaluation | None:
                return evals.get(position_key(fen))

            texts = [game_pgn(g, config, pairings=state.tournament, evals=lookup) for g in games]
            return Answer.of("\n".join(texts), content_type)

        return await self._in_worker(make)

    async def _joined(
        self, games: list[GameState], state: PublicState, content_type: str
    ) -> Answer:
        # Games separated by one blank line, as the export functions join them; the
        # encoding and the ETag's hash (5 MB for 9,000 games) in the worker.
        texts: list[str] = []
        until = time.perf_counter() + SLICE_SECONDS
        for i in range(0, len(games), 512):
            texts += [self.texts.text(game, state.tournament) for game in games[i : i + 512]]
            if time.perf_counter() > until:
                await asyncio.sleep(0)
                until = time.perf_counter() + SLICE_SECONDS
        text = "\n".join(texts)
        return await self._in_worker(lambda: Answer.of(text, content_type))


__all__ = [
    "MAX_ANSWERS",
    "SLICE_SECONDS",
    "Answer",
    "Answers",
    "Build",
    "GameTexts",
    "Key",
    "tournament_only",
    "whole",
]
