"""A LiveChess local-API client written from issue 34's description only (not from
boardwire's code): plain aiohttp WebSocket and JSON, as a venue's script would be.

Requests are `{"id": N, "call": NAME, "param": ...}`; replies `{"response": "call" |
"feed" | "error", "id": N, "param": ..., "time": ms}`. `call` waits for the reply to its
own id; feed messages are kept, in order, per feed id, for `next_feed`.
"""

from __future__ import annotations

import asyncio
import json
from collections import defaultdict
from typing import Any

import aiohttp

__all__ = ["LiveChessClient", "Refused"]


class Refused(Exception):
    """The server answered with an error reply."""

    def __init__(self, param: Any) -> None:
        super().__init__(param)
        self.param = param


class LiveChessClient:
    def __init__(self, url: str, *, headers: dict[str, str] | None = None) -> None:
        self.url = url
        self.headers = headers or {}
        self.session: aiohttp.ClientSession | None = None
        self.ws: aiohttp.ClientWebSocketResponse | None = None
        self.next_id = 100
        self.replies: dict[int | None, asyncio.Future[dict[str, Any]]] = {}
        self.feeds: dict[int, asyncio.Queue[dict[str, Any]]] = defaultdict(asyncio.Queue)
        self.errors: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.reader: asyncio.Task[None] | None = None

    async def __aenter__(self) -> LiveChessClient:
        self.session = aiohttp.ClientSession()
        self.ws = await self.session.ws_connect(self.url, headers=self.headers)
        self.reader = asyncio.get_running_loop().create_task(self._read())
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self.ws is not None:
            await self.ws.close()
        if self.reader is not None:
            self.reader.cancel()
            await asyncio.gather(self.reader, return_exceptions=True)
        if self.session is not None:
            await self.session.close()

    async def _read(self) -> None:
        assert self.ws is not None
        async for msg in self.ws:
            if msg.type != aiohttp.WSMsgType.TEXT:
                break
            frame = json.loads(msg.data)
            kind, rid = frame["response"], frame["id"]
            if kind == "feed":
                self.feeds[rid].put_nowait(frame)
                continue
            waiting = self.replies.pop(rid, None)
            if waiting is not None and not waiting.done():
                waiting.set_result(frame)
            else:
                self.errors.put_nowait(frame)

    async def send_raw(self, data: str | bytes) -> None:
        assert self.ws is not None
        if isinstance(data, bytes):
            await self.ws.send_bytes(data)
        else:
            await self.ws.send_str(data)

    async def request(self, call: str, param: Any = None, timeout: float = 10) -> dict[str, Any]:
        """The whole reply frame to one request."""
        assert self.ws is not None
        self.next_id += 1
        rid = self.next_id
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.replies[rid] = future
        await self.ws.send_str(json.dumps({"id": rid, "call": call, "param": param}))
        return await asyncio.wait_for(future, timeout)

    async def call(self, call: str, param: Any = None) -> Any:
        """A call's `param`; `Refused` on an error reply."""
        frame = await self.request(call, param)
        if frame["response"] == "error":
            raise Refused(frame["param"])
        assert frame["response"] == "call"
        return frame["param"]

    async def subscribe(self, serialnr: str, feed_id: int) -> Any:
        return await self.call(
            "subscribe", {"feed": "eboardevent", "id": feed_id, "param": {"serialnr": serialnr}}
        )

    async def next_feed(self, feed_id: int, timeout: float = 10) -> dict[str, Any]:
        frame = await asyncio.wait_for(self.feeds[feed_id].get(), timeout)
        return dict(frame["param"])

    def pending(self, feed_id: int) -> int:
        return self.feeds[feed_id].qsize()
