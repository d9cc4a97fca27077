"""The position's picture as PNG, for link previews: chat and social sites show a PNG
`og:image`, many of them no SVG.

Rendered from our own SVG (`web.board_svg`) by CairoSVG, which needs the cairo library
(Debian's `libcairo2`, which chromium brings too). Without it `png_of` answers None and
the previews point at the SVG: the pages work as before, nothing else needs installing.

A render takes some 75 ms of CPU, most of it holding the interpreter's lock, and anybody
may ask for any game's picture: left to asyncio's default pool (several threads, an
unbounded queue) a crowd of requests raised the arbiter API's p99 from 4 to 150-190 ms.
So `Previews` keeps them within bounds:

- one dedicated worker thread (`workers`): renders never run side by side, whatever
  the crowd;
- single flight: every request for a position being rendered waits for that one render;
- a queue bound (`max_waiting` renders queued or running): beyond it a request is
  answered at once with `PreviewsBusy` (the route's 503 with Retry-After), never queued;
- the worker's CPU time is charged to the web's share of the loop (`charge`, the
  `LoopBudget`), so previews are paid for like any other spectator's work;
- a cache sized to the event (`cache_size`: both sides of every board, and room for the
  positions just played), so a hall's pictures are rendered once per position.
"""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache

from broadcast.config.model import EventConfig
from clocks.errors import BoardwireError

__all__ = [
    "MIN_CACHE",
    "PNG_TYPE",
    "SIZE",
    "Previews",
    "PreviewsBusy",
    "cache_size",
    "png_available",
    "png_of",
]

PNG_TYPE = "image/png"
SIZE = 480  # pixels a side, as og:image:width/height say
MIN_CACHE = 64  # pictures kept however small the event
RETRY_SECONDS = 2  # what a refused request is told to wait


@lru_cache(maxsize=1)
def png_available() -> bool:
    """Whether PNG pictures can be made here (CairoSVG and the cairo library load)."""
    try:
        import cairosvg  # noqa: F401
    except (ImportError, OSError):  # OSError: the cairo library itself is missing
        return False
    return True


def png_of(svg: str) -> bytes | None:
    """`svg` (a board picture of ours) as a SIZE x SIZE PNG, or None without cairo."""
    if not png_available():
        return None
    import cairosvg

    return bytes(
        cairosvg.svg2png(bytestring=svg.encode("utf-8"), output_width=SIZE, output_height=SIZE)
    )


def cache_size(config: EventConfig) -> int:
    """Pictures kept for `config`'s event: each board's position from both sides, twice
    over (the position just played is still asked for by late previews), at least
    MIN_CACHE. A board is a hall board or a pairing of a round, whichever is more."""
    pairings = sum((len(s.players) + 1) // 2 for s in config.sections)
    return max(MIN_CACHE, 4 * max(len(config.boards), pairings))


class PreviewsBusy(BoardwireError):
    """Too many pictures are waiting to be rendered: try again in `retry_after` seconds."""

    def __init__(self, waiting: int) -> None:
        super().__init__(f"{waiting} pictures are being drawn: try again in a moment")
        self.retry_after = RETRY_SECONDS


Render = Callable[[str], bytes | None]


class Previews:
    """PNG pictures for one server: a dedicated worker, single flight, a queue bound and
    a cache (see the module's text). `charge(seconds)` is told the CPU time of each
    render (the web's `LoopBudget.charge`)."""

    def __init__(
        self,
        size: int,
        *,
        workers: int = 1,
        max_waiting: int = 8,
        charge: Callable[[float], None] | None = None,
        render: Render = png_of,
    ) -> None:
        if size < 1 or workers < 1 or max_waiting < 1:
            raise ValueError(
                f"previews need a cache, a worker and a queue: {size}, {workers}, {max_waiting}"
            )
        self.size = size
        self.workers = workers
        self.max_waiting = max_waiting
        self.charge = charge
        self.render = render  # replaceable (tests count and hold renders)
        self._cache: OrderedDict[Hashable, bytes] = OrderedDict()
        self._flights: dict[Hashable, asyncio.Future[bytes | None]] = {}
        self._executor: ThreadPoolExecutor | None = None
        self.renders = 0  # renders started (for tests and the bench)
        self.refused = 0  # requests answered "busy"

    @property
    def waiting(self) -> int:
        """Renders queued or running."""
        return len(self._flights)

    async def png(self, key: Hashable, svg: Callable[[], str]) -> bytes | None:
        """The picture for `key` (None without cairo), drawn from `svg()` if it is not
        kept. Raises `PreviewsBusy` when `max_waiting` renders are already waiting."""
        kept = self._cache.get(key)
        if kept is not None:
            self._cache.move_to_end(key)
            return kept
        flight = self._flights.get(key)
        if flight is None:
            if len(self._flights) >= self.max_waiting:
                self.refused += 1
                raise PreviewsBusy(len(self._flights))
            flight = self._flights[key] = self._start(key, svg)
        # Shielded: one waiter leaving (its client went away) does not cancel the render
        # the others wait for.
        return await asyncio.shield(flight)

    def _start(self, key: Hashable, svg: Callable[[], str]) -> asyncio.Future[bytes | None]:
        if self._executor is None:
            self._executor = ThreadPoolExecutor(self.workers, thread_name_prefix="web-previews")
        self.renders += 1
        render = self.render

        def work() -> tuple[bytes | None, float]:
            started = time.thread_time()
            png = render(svg())
            return png, time.thread_time() - started

        loop = asyncio.get_running_loop()
        done: asyncio.Future[bytes | None] = loop.create_future()
        job = loop.run_in_executor(self._executor, work)

        def finished(job: asyncio.Future[tuple[bytes | None, float]]) -> None:
            self._flights.pop(key, None)
            if job.cancelled():
                done.cancel()
                return
            error = job.exception()
            if error is not None:
                done.set_exception(error)
                done.exception()  # retrieved: the waiters (if any) get it, nobody else must
                return
            png, cpu = job.result()
            if self.charge is not None:
                self.charge(cpu)
            if png is not None:
                self._keep(key, png)
            done.set_result(png)

        job.add_done_callback(finished)
        return done

    def _keep(self, key: Hashable, png: bytes) -> None:
        self._cache[key] = png
        self._cache.move_to_end(key)
        while len(self._cache) > self.size:
            self._cache.popitem(last=False)

    def close(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None
