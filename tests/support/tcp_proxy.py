"""A TCP relay between a program and a server, whose network can be cut: the faults of a
capture station's link to Redis, made real.

`cut()` is a network cut, not a refusal: the relay stops passing bytes both ways on every
connection and accepts new ones without ever answering, so a client sees what a pulled
cable gives, silence, until its own timeouts notice. `mend()` lets new connections through
again (the silenced ones stay dead, as TCP connections across a long cut do). `refuse()`
closes everything at once and refuses new connections (a server that went away).

It runs its own event loop in a thread, so a test that drives subprocesses synchronously
can use it as well as an async one.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Coroutine, Iterator
from typing import Any

from tests.support.web_app import free_port

__all__ = ["TcpProxy"]


class TcpProxy:
    """127.0.0.1:`port` relayed to `target_host`:`target_port`."""

    def __init__(self, target_port: int, target_host: str = "127.0.0.1") -> None:
        self.target = (target_host, target_port)
        self.port = free_port()
        self.state = "open"  # "open", "cut" or "refused"
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()
        self._silenced: list[asyncio.StreamWriter] = []

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self._thread.start()
        self._call(self._listen())

    def close(self) -> None:
        self._call(self._shutdown())
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)
        self._loop.close()

    def cut(self) -> None:
        """Silence: no byte passes either way, new connections hang."""
        self._call(self._set("cut"))

    def refuse(self) -> None:
        """Every connection closed, new ones refused."""
        self._call(self._set("refused"))

    def mend(self) -> None:
        """New connections pass again."""
        self._call(self._set("open"))

    @contextlib.contextmanager
    def running(self) -> Iterator[TcpProxy]:
        self.start()
        try:
            yield self
        finally:
            self.close()

    # -- on the relay's loop -----------------------------------------------------------------------

    def _call(self, coro: Coroutine[Any, Any, None]) -> None:
        asyncio.run_coroutine_threadsafe(coro, self._loop).result(10)

    async def _listen(self) -> None:
        self._server = await asyncio.start_server(self._client, "127.0.0.1", self.port)

    async def _set(self, state: str) -> None:
        self.state = state
        if state in ("cut", "refused"):
            for writer in list(self._writers):
                if state == "refused":
                    writer.transport.abort()
                else:
                    self._silenced.append(writer)
            self._writers.clear()
        if state == "refused" and self._server is not None:
            self._server.close()
            self._server = None
        if state == "open" and self._server is None:
            await self._listen()

    async def _shutdown(self) -> None:
        for writer in [*self._writers, *self._silenced]:
            writer.transport.abort()
        self._writers.clear()
        self._silenced.clear()
        if self._server is not None:
            self._server.close()
            self._server = None
        # Every transport aborted: each relay task reads its end and returns by itself
        # (a cancelled one would be reported by asyncio's stream callback).
        here = asyncio.current_task()
        tasks = [t for t in asyncio.all_tasks() if t is not here]
        if tasks:
            await asyncio.wait(tasks, timeout=2)

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.state != "open":
            self._silenced.append(writer)  # accepted, never answered: a cut cable
            return
        try:
            up_reader, up_writer = await asyncio.open_connection(*self.target)
        except OSError:
            writer.transport.abort()
            return
        pair = (writer, up_writer)
        self._writers.update(pair)
        await asyncio.gather(
            self._pipe(reader, up_writer, pair), self._pipe(up_reader, writer, pair)
        )

    async def _pipe(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        pair: tuple[asyncio.StreamWriter, asyncio.StreamWriter],
    ) -> None:
        try:
            while data := await reader.read(65536):
                if any(w not in self._writers for w in pair):
                    continue  # silenced: swallow, pass nothing on
                writer.write(data)
                await writer.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            if all(w in self._writers for w in pair):
                for w in pair:
                    self._writers.discard(w)
                    w.transport.abort()
