"""Limits the web puts on its clients, and the share of the event loop it may use.

- `TokenBucket`: so many actions a second with a burst (subscribes per websocket client,
  new connections per address, ...). Pure; the clock is passed in.
- `QuietLog`: one warning per interval for things anyone can trigger, with a count of the
  ones not written (a flood of bad requests must not become a flood of log lines).
- `LoopBudget`: the web's share of the event loop. The boards, the journal and the rules
  share one asyncio loop with the web; a spectator must never be able to delay them. Each
  piece of web work (a websocket message, a public request) first waits its turn, then
  pays for the loop time it used (measured step by step with `timed`, so time spent
  awaiting a socket or a worker is not counted). While the web has used more than its
  share, further web work waits in a FIFO queue and the loop serves the boards; a queue
  that grows too long is answered "busy" at once. See docs/security.md.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable, Coroutine, Generator
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from clocks.errors import BoardwireError

log = logging.getLogger(__name__)

T = TypeVar("T")

Clock = Callable[[], float]


class TokenBucket:
    """`rate` tokens a second, at most `burst` saved up; starts full."""

    def __init__(self, rate: float, burst: float, now: Clock = time.monotonic) -> None:
        if rate <= 0 or burst < 1:
            raise ValueError(f"a token bucket needs rate > 0 and burst >= 1, not {rate}, {burst}")
        self.rate = rate
        self.burst = burst
        self.now = now
        self._tokens = burst
        self._stamp = now()

    def _refill(self) -> float:
        t = self.now()
        self._tokens = min(self.burst, self._tokens + (t - self._stamp) * self.rate)
        self._stamp = t
        return self._tokens

    def take(self, n: float = 1.0) -> bool:
        """Spend `n` tokens if there are that many (True), else spend nothing (False)."""
        if self._refill() >= n:
            self._tokens -= n
            return True
        return False

    def reserve(self, max_wait: float) -> float | None:
        """Take a token now or in the future: the seconds to wait before using it (0: at
        once), or None (nothing taken) when that would be more than `max_wait`. Those who
        reserve are served in order, at the bucket's rate."""
        tokens = self._refill()
        if tokens >= 1:
            self._tokens -= 1
            return 0.0
        wait = (1 - tokens) / self.rate
        if wait > max_wait:
            return None
        self._tokens -= 1
        return wait

    def wait(self, n: float = 1.0) -> float:
        """Seconds until `n` tokens are there (0: now)."""
        missing = n - self._refill()
        return max(0.0, missing / self.rate)

    @property
    def full(self) -> bool:
        return self._refill() >= self.burst


class QuietLog:
    """One warning per `every` seconds; the ones in between are counted, not written."""

    def __init__(
        self, every: float, now: Clock = time.monotonic, logger: logging.Logger = log
    ) -> None:
        self.every = every
        self.now = now
        self.logger = logger
        self.last = -every
        self.suppressed = 0

    def warning(self, message: str) -> bool:
        """Write `message` (True) unless one was written less than `every` seconds ago."""
        t = self.now()
        if t - self.last < self.every:
            self.suppressed += 1
            return False
        extra = f" ({self.suppressed} more since the last report)" if self.suppressed else ""
        self.logger.warning("%s%s", message, extra)
        self.last, self.suppressed = t, 0
        return True


@dataclass(frozen=True)
class HubLimits:
    """What one websocket client, and all of them together, may ask of the hub.

    A subscribe costs a snapshot (encoded once per scope and frame, but sent to each) or
    a replay; a flood of them must cost the flooder, not the boards. Per client: a few
    subscribes at once, then one every `subscribe_every` seconds; any message at most
    `message_rate` a second. Answers beyond that are an `error`; `strikes` of them close
    the socket with 1008 (policy violation). Overall: `global_rate` subscribes a second
    (bursts of `global_burst`); beyond that a subscribe waits its turn up to
    `global_wait` seconds, else the socket is closed with 1013 (try again later). A
    client resynced (it could not keep up) more than `resync_burst` times in quick
    succession is closed with 1013 too: it reconnects with `since` when it can.
    """

    subscribe_burst: int = 6
    subscribe_every: float = 2.0
    message_rate: float = 5.0
    message_burst: int = 20
    strikes: int = 10
    global_rate: float = 400.0
    global_burst: int = 800
    global_wait: float = 5.0
    resync_burst: int = 3
    resync_every: float = 10.0
    max_message_bytes: int = 4096


@dataclass(frozen=True)
class WebLimits:
    """Every limit of the web server in one place (docs/security.md explains them)."""

    hub: HubLimits = field(default_factory=HubLimits)
    header_timeout: float = 10.0  # the request line and headers must be in by then
    keepalive_timeout: float = 15.0  # an idle keep-alive connection is closed after this
    body_timeout: float = 30.0  # a request body must be in by then
    per_address: int = 64  # open connections from one address (trusted proxies exempt)
    new_per_address_rate: float = 20.0  # new connections a second from one address ...
    new_per_address_burst: int = 100  # ... after a burst of this many
    max_connections: int | None = None  # all together (None: from the open-file limit)
    # Of those, kept for the arbiter's side: spectators' requests and websockets never
    # hold them (None: a sixteenth of the cap, 8 to 64; see web.http_server).
    arbiter_reserve: int | None = None
    loop_share: float = 0.5  # of the event loop's time, for spectators' requests
    loop_burst: float = 0.025  # the longest the web may hold the loop in one go (about)
    log_every: float = 60.0  # one line per kind of trouble per this many seconds


MIRROR_LOOP_SHARE = 0.9
"""A mirror's web share of its loop: it has no boards to protect, only the stream to read
(`serve` keeps half for the boards, the journal and the rules)."""


class Busy(BoardwireError):
    """The web has used its share of the loop and too much work is already waiting."""


class LoopBudget:
    """The web may use `share` of the loop's time (0-1), in bursts of up to `burst`
    seconds; each piece of work is charged at least `overhead` seconds (the framework's
    own parsing and writing, which the handler's timing does not see)."""

    def __init__(
        self,
        share: float = 0.5,
        burst: float = 0.025,
        *,
        overhead: float = 0.0002,
        max_waiting: int = 4096,
        now: Clock = time.perf_counter,
    ) -> None:
        if not 0 < share <= 1:
            raise ValueError(f"the web's share of the loop must be in (0, 1], not {share}")
        self.share = share
        self.burst = burst
        self.overhead = overhead
        self.max_waiting = max_waiting
        self.now = now
        self._credit = burst  # seconds of loop time the web may use now
        self._stamp = now()
        self._waiters: deque[asyncio.Future[None]] = deque()
        self._timer: asyncio.TimerHandle | None = None
        self.used = 0.0  # loop seconds charged so far (for the benchmarks)
        self.waited = 0  # pieces of work that had to wait their turn
        self.refused = 0  # pieces of work answered "busy"

    def _refill(self) -> float:
        t = self.now()
        self._credit = min(self.burst, self._credit + (t - self._stamp) * self.share)
        self._stamp = t
        return self._credit

    @property
    def waiting(self) -> int:
        return len(self._waiters)

    def recovered_in(self) -> float:
        """Seconds until the web may work at once again (0: now)."""
        return max(0.0, -self._refill()) / self.share

    async def turn(self, *, refuse: bool = True) -> None:
        """Wait until the web may work again (at once when it is within its share).
        Raises `Busy` when `max_waiting` pieces of work already wait (unless not
        `refuse`: work already accepted, such as the sends to a connected client)."""
        if not self._waiters and self._refill() > 0:
            self._credit -= self.overhead
            return
        if refuse and len(self._waiters) >= self.max_waiting:
            self.refused += 1
            raise Busy("the server is busy")
        self.waited += 1
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(future)
        self._arm()
        try:
            await future
        except asyncio.CancelledError:
            if future in self._waiters:
                self._waiters.remove(future)
            raise

    def charge(self, seconds: float) -> None:
        """The web used `seconds` of loop time beyond the overhead already charged."""
        self._refill()
        self._credit -= max(0.0, seconds)
        self.used += max(0.0, seconds) + self.overhead

    def _arm(self) -> None:
        if self._timer is not None or not self._waiters:
            return
        missing = max(0.0, -self._refill()) + self.overhead
        self._timer = asyncio.get_running_loop().call_later(missing / self.share, self._release)

    def _release(self) -> None:
        # One waiter a time while there is credit: each pays its overhead up front, so a
        # long queue is let through at the pace the share allows, never all at once.
        self._timer = None
        while self._waiters and self._refill() > 0:
            future = self._waiters.popleft()
            if not future.done():
                self._credit -= self.overhead
                future.set_result(None)
        self._arm()

    async def run(self, work: Callable[[], Awaitable[T]]) -> T:
        """Wait for a turn, run `work`, charge the loop time its steps took."""
        await self.turn()
        coroutine = work()
        timer = Timed(coroutine)
        try:
            return await timer
        finally:
            self.charge(timer.spent)


class Timed(Generic[T]):
    """Awaits a coroutine and adds up the time of its steps on the loop (`spent`): the
    time it ran, not the time it waited for a socket, a timer or another thread."""

    def __init__(self, work: Awaitable[T], now: Clock = time.perf_counter) -> None:
        self.coroutine: Coroutine[Any, Any, T] = (
            work if isinstance(work, Coroutine) else _coroutine(work)
        )
        self.now = now
        self.spent = 0.0

    def __await__(self) -> Generator[Any, Any, T]:
        coroutine = self.coroutine
        send: Any = None
        error: BaseException | None = None
        while True:
            start = self.now()
            try:
                step = coroutine.send(send) if error is None else coroutine.throw(error)
            except StopIteration as done:
                result: T = done.value
                return result
            finally:
                self.spent += self.now() - start
            try:
                send, error = (yield step), None
            except BaseException as exc:  # delivered into the coroutine at its next step
                send, error = None, exc


async def _coroutine(work: Awaitable[T]) -> T:
    return await work


__all__ = [
    "MIRROR_LOOP_SHARE",
    "Busy",
    "Clock",
    "HubLimits",
    "LoopBudget",
    "QuietLog",
    "Timed",
    "TokenBucket",
    "WebLimits",
]
