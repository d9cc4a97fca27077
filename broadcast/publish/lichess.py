"""Push a round's games to a Lichess broadcast round (``POST /api/broadcast/round/{id}/push``).

The request body is PGN text, games separated by blank lines, sent as ``text/plain``
with ``Authorization: Bearer <token>`` (a token with the ``study:write`` scope, of an
account that contributes to the broadcast). Lichess answers ``{"games": [...]}``, one
entry per game in the order sent: ``{"tags": {...}, "moves": N}`` when the game was
taken, ``{"tags": {...}, "error": "..."}`` when it was not.

What this client does on top of one request:

- Push on change: it remembers a hash of each game's PGN as last accepted and sends
  only the games whose text changed (a game Lichess refused is sent again next time).
- Batches of at most 100 games a request, one request at a time (Lichess asks API
  users to make one request at a time).
- Lichess marks a round finished when every game of a push has a result, so a batch of
  only finished games while others still play carries one unfinished game with it.
- Retries network errors, 5xx and 429 with exponential backoff (429 honours
  ``Retry-After``, else waits a full minute as the Lichess API asks); 4xx other than
  429 are not retried: they need a person (wrong round id, token without rights).
- Logs each game's answer. The token is never logged, never in a repr or an error.

The games it pushes should be built from the delayed book (Lichess can also delay a
round itself; the two delays would add up).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import os
import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any

import aiohttp

from clocks.errors import BoardwireError

__all__ = [
    "LICHESS_URL",
    "MAX_GAMES_PER_PUSH",
    "TOKEN_ENV",
    "GameAnswer",
    "LichessPushError",
    "LichessPusher",
    "LichessRelayConfig",
    "PushReport",
]

LICHESS_URL = "https://lichess.org"
MAX_GAMES_PER_PUSH = 100
TOKEN_ENV = "LICHESS_TOKEN"
_RATE_LIMIT_WAIT = 60.0  # the Lichess API: after a 429, wait a full minute
_RESULT = re.compile(r'^\[Result\s+"([^"]*)"\]', re.MULTILINE)
_ROUND_ID = re.compile(r"[A-Za-z0-9]{8}")

log = logging.getLogger("boardwire.relay.lichess")

Sleep = Callable[[float], Awaitable[None]]


class LichessPushError(BoardwireError, RuntimeError):
    """A push that failed for good: `status` is the HTTP status (None: network)."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class LichessRelayConfig:
    """Where and how to push. `token` is kept out of repr so it never reaches a log."""

    round_id: str
    token: str = field(repr=False)
    base_url: str = LICHESS_URL
    batch_size: int = MAX_GAMES_PER_PUSH
    max_attempts: int = 6
    backoff_initial: float = 1.0
    backoff_max: float = 120.0
    timeout: float = 30.0
    # The delay the Lichess round itself was given (its broadcast settings): boardwire
    # cannot read it, so the operator says it. Lichess holds back what it is pushed by that
    # much, on top of the event's own delay (what is pushed is the delayed public state).
    round_delay: float = 0.0

    def __post_init__(self) -> None:
        if not self.round_delay >= 0:
            raise ValueError(f"the Lichess round's delay must be 0 or more, got {self.round_delay}")
        if not _ROUND_ID.fullmatch(self.round_id):
            raise ValueError(
                f"Lichess round id {self.round_id!r} is not 8 letters/digits; copy it from "
                "the round's URL (the last part, e.g. .../round-1/AbCd1234)"
            )
        if not self.token:
            raise ValueError(f"no Lichess token: set {TOKEN_ENV} or pass one (scope study:write)")
        if not 1 <= self.batch_size <= MAX_GAMES_PER_PUSH:
            raise ValueError(f"batch_size must be 1..{MAX_GAMES_PER_PUSH}, got {self.batch_size}")
        if self.max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")

    @classmethod
    def from_env(
        cls,
        round_id: str,
        *,
        token: str | None = None,
        environ: Mapping[str, str] | None = None,
        **options: Any,
    ) -> LichessRelayConfig:
        """A config whose token is `token` if given, else the ``LICHESS_TOKEN`` variable."""
        env = os.environ if environ is None else environ
        return cls(round_id, token or env.get(TOKEN_ENV, ""), **options)

    @property
    def push_url(self) -> str:
        return f"{self.base_url.rstrip('/')}/api/broadcast/round/{self.round_id}/push"


@dataclass(frozen=True, slots=True)
class GameAnswer:
    """Lichess's answer about one game: `moves` taken, or the `error`."""

    game_id: str
    moves: int | None = None
    error: str | None = None
    tags: Mapping[str, str] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.error is None


@dataclass(frozen=True, slots=True)
class PushReport:
    """One `push` call: the answers for the games sent, how many requests it took."""

    answers: tuple[GameAnswer, ...] = ()
    unchanged: int = 0
    requests: int = 0
    attempts: int = 0

    @property
    def sent(self) -> int:
        return len(self.answers)

    @property
    def errors(self) -> tuple[GameAnswer, ...]:
        return tuple(a for a in self.answers if not a.ok)


def _digest(pgn: str) -> str:
    return hashlib.sha256(pgn.encode("utf-8")).hexdigest()


def _finished(pgn: str) -> bool:
    match = _RESULT.search(pgn)
    return match is not None and match.group(1) != "*"


class _Retry(Exception):
    def __init__(self, reason: str, wait: float | None, status: int | None) -> None:
        super().__init__(reason)
        self.wait = wait
        self.status = status


class LichessPusher:
    """Pushes PGN games to one Lichess broadcast round. Use as ``async with``.

    `push(games)` takes the round's games as ``{game id: PGN text}`` (every game of the
    round, each time: the pusher finds what changed). `sleep` is injectable so tests and
    the fast-forward simulator do not wait for real.
    """

    def __init__(
        self,
        config: LichessRelayConfig,
        *,
        session: aiohttp.ClientSession | None = None,
        sleep: Sleep = asyncio.sleep,
        logger: logging.Logger = log,
    ) -> None:
        self.config = config
        self._session = session
        self._own_session = session is None
        self._sleep = sleep
        self._log = logger
        self._accepted: dict[str, str] = {}  # game id -> digest of the text Lichess took
        self._lock = asyncio.Lock()

    def __repr__(self) -> str:
        return f"LichessPusher(round={self.config.round_id!r}, url={self.config.base_url!r})"

    async def __aenter__(self) -> LichessPusher:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    async def close(self) -> None:
        """Close the HTTP session if this pusher opened it."""
        if self._own_session and self._session is not None:
            await self._session.close()
        self._session = None

    def forget(self, game_ids: Sequence[str] | None = None) -> None:
        """Send these games (all if None) again on the next push, changed or not, e.g.
        after the round was reset on Lichess."""
        if game_ids is None:
            self._accepted.clear()
        for game_id in game_ids or ():
            self._accepted.pop(game_id, None)

    def changed(self, games: Mapping[str, str]) -> list[str]:
        """Ids of the games whose text differs from what Lichess last accepted."""
        return [gid for gid, pgn in games.items() if self._accepted.get(gid) != _digest(pgn)]

    async def push(self, games: Mapping[str, str]) -> PushReport:
        """Send the changed games of the round; returns Lichess's answers per game.

        Raises `LichessPushError` when a request fails for good (after the retries, or
        at once for a 4xx that retrying cannot fix). Games answered before the failure
        stay accepted.
        """
        async with self._lock:
            todo = self.changed(games)
            if not todo:
                return PushReport(unchanged=len(games))
            unfinished = [gid for gid, pgn in games.items() if not _finished(pgn)]
            answers: list[GameAnswer] = []
            requests = attempts = 0
            for batch in self._batches(todo, games, unfinished):
                body = "\n".join(games[gid].rstrip("\n") + "\n" for gid in batch)
                payload, tries = await self._send(body, len(batch))
                requests += 1
                attempts += tries
                for answer in self._answers(batch, payload):
                    answers.append(answer)
                    if answer.ok:
                        self._accepted[answer.game_id] = _digest(games[answer.game_id])
            return PushReport(tuple(answers), len(games) - len(todo), requests, attempts)

    def _batches(
        self, todo: list[str], games: Mapping[str, str], unfinished: list[str]
    ) -> list[list[str]]:
        size = self.config.batch_size
        batches: list[list[str]] = []
        rest = list(todo)
        while rest:
            batch, rest = rest[:size], rest[size:]
            if unfinished and size > 1 and all(_finished(games[g]) for g in batch):
                # Lichess closes a round when every game of a push is finished: carry an
                # unfinished game along (one still to send if there is one).
                pad = next((g for g in rest if g in unfinished), unfinished[0])
                if pad in rest:
                    rest.remove(pad)
                if len(batch) == size:
                    rest.insert(0, batch.pop())
                batch.append(pad)
            batches.append(batch)
        return batches

    def _answers(self, batch: list[str], payload: Any) -> list[GameAnswer]:
        entries = payload.get("games") if isinstance(payload, dict) else None
        if not isinstance(entries, list):
            # An answer without per-game entries (older servers: {"moves": N}): the
            # request succeeded, so every game of it counts as taken.
            self._log.info("lichess push: %d games sent, answer %r", len(batch), payload)
            return [GameAnswer(gid) for gid in batch]
        if len(entries) != len(batch):
            self._log.warning(
                "lichess push: sent %d games, got %d answers; matching them in order",
                len(batch),
                len(entries),
            )
        answers: list[GameAnswer] = []
        for gid, entry in zip(batch, entries, strict=False):
            entry = entry if isinstance(entry, dict) else {}
            raw_tags = entry.get("tags")
            tags = (
                {str(k): str(v) for k, v in raw_tags.items()} if isinstance(raw_tags, dict) else {}
            )
            error = entry.get("error")
            moves = entry.get("moves")
            who = f"{tags.get('White', '?')} - {tags.get('Black', '?')}"
            if error is not None:
                answers.append(GameAnswer(gid, None, str(error), tags))
                self._log.warning("lichess push: %s (%s) refused: %s", gid, who, error)
            else:
                count = moves if isinstance(moves, int) else None
                answers.append(GameAnswer(gid, count, None, tags))
                self._log.info("lichess push: %s (%s) accepted, %s moves", gid, who, count)
        # Games without an answer are not marked accepted: they go again next time.
        return answers

    def _client(self) -> aiohttp.ClientSession:
        if self._session is None:
            self._session = aiohttp.ClientSession(
                timeout=aiohttp.ClientTimeout(total=self.config.timeout)
            )
            self._own_session = True
        return self._session

    async def _send(self, body: str, count: int) -> tuple[Any, int]:
        """POST one batch, retrying what can be retried; (decoded JSON, attempts)."""
        cfg = self.config
        delay = cfg.backoff_initial
        last: _Retry | None = None
        for attempt in range(1, cfg.max_attempts + 1):
            try:
                return await self._post_once(body), attempt
            except _Retry as retry:
                last = retry
                if attempt == cfg.max_attempts:
                    break
                wait = retry.wait if retry.wait is not None else delay
                self._log.warning(
                    "lichess push of %d games, attempt %d/%d: %s; retrying in %.1f s",
                    count,
                    attempt,
                    cfg.max_attempts,
                    retry,
                    wait,
                )
                await self._sleep(wait)
                delay = min(delay * 2, cfg.backoff_max)
        assert last is not None
        raise LichessPushError(
            f"lichess push of {count} games failed after {cfg.max_attempts} attempts: {last}",
            last.status,
        )

    async def _post_once(self, body: str) -> Any:
        headers = {
            "Authorization": f"Bearer {self.config.token}",
            "Content-Type": "text/plain; charset=utf-8",
            "Accept": "application/json",
        }
        try:
            async with self._client().post(
                self.config.push_url, data=body.encode("utf-8"), headers=headers
            ) as response:
                text = await response.text()
                status = response.status
                retry_after = response.headers.get("Retry-After")
        except (aiohttp.ClientError, TimeoutError) as exc:
            # Only the exception's class and message: aiohttp's may hold the request.
            raise _Retry(f"network error {type(exc).__name__}: {exc}", None, None) from None
        if status == 429:
            raise _Retry("rate limited (429)", _retry_after(retry_after), status)
        if status >= 500:
            raise _Retry(f"server error {status}: {text[:200]}", None, status)
        if status in (401, 403):
            raise LichessPushError(
                f"lichess refused the token ({status}): it needs the study:write scope and "
                "its account must be a contributor of the broadcast",
                status,
            )
        if status == 404:
            raise LichessPushError(
                f"lichess has no round {self.config.round_id!r} (404); check the round id",
                status,
            )
        if status >= 400:
            raise LichessPushError(f"lichess rejected the push ({status}): {text[:300]}", status)
        try:
            return json.loads(text) if text.strip() else {}
        except ValueError:
            raise LichessPushError(
                f"lichess answered {status} with something that is not JSON: {text[:200]!r}",
                status,
            ) from None


def _retry_after(value: str | None) -> float:
    if value is not None:
        try:
            return max(0.0, float(value))
        except ValueError:
            pass  # an HTTP date: rare here, the default minute is safe
    return _RATE_LIMIT_WAIT
