"""PNG link previews under load (issue 29, F5): each position is drawn once for everybody
waiting for it, renders never run side by side, a full queue is answered 503 with
Retry-After at once, each render's CPU is charged to the web's share of the loop, and the
cache is sized to the event.

The drawing itself (CairoSVG's `svg2png`) is replaced by a stand-in that counts its
calls and can be held: behaviour, not timing, is what is checked."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from broadcast.config import load_event
from broadcast.service.event_service import EventService
from tests.support import big_event
from tests.support.paths import ROOT
from tests.support.web_app import CREDENTIALS, make_service, play_moves
from web.app import build_app

cairosvg = pytest.importorskip("cairosvg", reason="PNG previews need CairoSVG and cairo")

OPENINGS = ["e4", "d4", "c4", "Nf3", "g3", "b3", "f4", "Nc3"]
ROUND1 = [f"masters-r1-b{n}" for n in range(1, 5)]
ROUND2 = [f"masters-r2-b{n}" for n in range(1, 5)]
PNG = b"\x89PNG\r\n\x1a\n-stand-in"


class Drawing:
    """The stand-in for `cairosvg.svg2png`: counts calls, the most at once, and holds
    every call until `release()`."""

    def __init__(self) -> None:
        self.calls = 0
        self.running = 0
        self.most = 0
        self.gate = threading.Event()
        self.lock = threading.Lock()

    def __call__(self, **kwargs: Any) -> bytes:
        with self.lock:
            self.calls += 1
            self.running += 1
            self.most = max(self.most, self.running)
        try:
            self.gate.wait(30)
            return PNG
        finally:
            with self.lock:
                self.running -= 1

    def release(self) -> None:
        self.gate.set()


async def until(condition: Callable[[], bool], what: str) -> None:
    """Wait (a bounded while) for `condition`; fail naming `what` if it never holds."""
    for _ in range(1000):
        if condition():
            return
        await asyncio.sleep(0.01)
    pytest.fail(f"never happened: {what}")


@pytest.fixture
async def site(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[tuple[TestClient, EventService, Drawing]]:
    drawing = Drawing()
    monkeypatch.setattr(cairosvg, "svg2png", drawing)
    service, _ = make_service(tmp_path, delay=0.0)
    # Eight games, eight different positions (sixteen pictures with the flipped ones).
    for game, opening in zip(ROUND1 + ROUND2, OPENINGS, strict=True):
        play_moves(service, game, [opening])
    client = TestClient(TestServer(build_app(service, CREDENTIALS)))
    await client.start_server()
    yield client, service, drawing
    drawing.release()
    await client.close()


def _previews(client: TestClient) -> Any:
    from web.keys import PREVIEWS

    app: web.Application = client.server.app  # type: ignore[attr-defined]
    return app[PREVIEWS]


async def _get(client: TestClient, path: str) -> tuple[int, bytes, str | None]:
    async with client.get(path) as response:
        return response.status, await response.read(), response.headers.get("Retry-After")


async def test_one_render_for_every_request_of_one_position(
    site: tuple[TestClient, EventService, Drawing],
) -> None:
    client, _, drawing = site
    asking = [
        asyncio.ensure_future(_get(client, f"/api/v1/games/{ROUND1[0]}.png")) for _ in range(20)
    ]
    await until(lambda: drawing.calls >= 1, "the first render")
    await asyncio.sleep(0.3)  # the other requests arrive meanwhile (and must not draw again)
    drawing.release()
    answers = await asyncio.gather(*asking)
    assert [status for status, _, _ in answers] == [200] * 20
    assert {body for _, body, _ in answers} == {PNG}
    assert drawing.calls == 1
    # Kept: asked again later, it is not drawn again.
    assert (await _get(client, f"/api/v1/games/{ROUND1[0]}.png"))[0] == 200
    assert drawing.calls == 1


async def test_renders_never_run_side_by_side(
    site: tuple[TestClient, EventService, Drawing],
) -> None:
    client, _, drawing = site
    paths = [f"/api/v1/games/{game}.png" for game in ROUND1 + ROUND2[:2]]
    asking = [asyncio.ensure_future(_get(client, path)) for path in paths]
    await until(lambda: drawing.calls >= 1, "the first render")
    await asyncio.sleep(0.3)  # the other five are queued meanwhile (not drawn beside it)
    assert drawing.running == 1
    drawing.release()
    answers = await asyncio.gather(*asking)
    assert [status for status, _, _ in answers] == [200] * len(paths)
    assert drawing.calls == len(paths) and drawing.most == 1


async def test_a_full_queue_is_answered_at_once_with_503(
    site: tuple[TestClient, EventService, Drawing],
) -> None:
    client, _, drawing = site
    previews = _previews(client)
    paths = [f"/api/v1/games/{game}.png" for game in ROUND1 + ROUND2]
    paths += [f"{path}?flip=1" for path in paths]  # sixteen different pictures
    asking = [asyncio.ensure_future(_get(client, path)) for path in paths]
    # While the first render is held, all but `max_waiting` of them are refused: those
    # answers come back without any render finishing.
    refused_count = len(paths) - previews.max_waiting
    await until(lambda: sum(task.done() for task in asking) >= refused_count, "the refusals")
    refused = [task.result() for task in asking if task.done()]
    assert len(refused) == refused_count
    assert all(status == 503 and retry for status, _, retry in refused)
    assert drawing.calls <= 1
    drawing.release()
    await asyncio.gather(*asking)
    statuses = sorted(task.result()[0] for task in asking)
    assert statuses == [200] * previews.max_waiting + [503] * refused_count
    assert drawing.calls == previews.max_waiting
    # Once the queue has room again, the refused pictures are drawn like any other.
    assert (await _get(client, paths[-1]))[0] == 200


async def test_each_render_is_charged_to_the_loop_budget() -> None:
    from web.board_png import Previews

    charged: list[float] = []

    def busy(svg: str) -> bytes:
        total = 0
        for i in range(200_000):  # some CPU, as a real render takes
            total += i
        return PNG

    previews = Previews(8, charge=charged.append, render=busy)
    try:
        assert await previews.png(("fen", None, False), lambda: "<svg/>") == PNG
    finally:
        previews.close()
    assert len(charged) == 1 and charged[0] > 0


async def test_the_cache_keeps_its_size_oldest_out() -> None:
    from web.board_png import Previews

    drawn: list[str] = []

    def render(svg: str) -> bytes:
        drawn.append(svg)
        return svg.encode()

    previews = Previews(3, render=render)
    try:
        for key in ("a", "b", "c", "a", "d", "a", "b"):
            await previews.png(key, lambda key=key: key)  # type: ignore[misc]
    finally:
        previews.close()
    # a, b, c drawn; a kept; d pushes out b (the oldest used); a kept; b drawn again.
    assert drawn == ["a", "b", "c", "d", "b"]


def test_the_cache_is_sized_to_the_event() -> None:
    """Both sides of every board, twice over: a 300-player Swiss keeps 600 pictures, the
    old fixed 256 would have drawn its round again and again."""
    from web.board_png import MIN_CACHE, cache_size

    big = big_event.swiss_config(300)
    assert cache_size(big) == 4 * 150
    small = load_event(ROOT / "examples" / "pamplona-masters.toml")
    assert cache_size(small) == MIN_CACHE
