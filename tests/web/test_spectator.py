"""What spectators see beyond the live boards: check marked on the board, the board as a
standalone picture (link previews), federation flags, OpenGraph tags, the /embed/ pages
and who may frame them (the event's `embed_origins`), and that nothing else is framable."""

from __future__ import annotations

import re
import struct
import xml.etree.ElementTree as ET
from collections.abc import AsyncIterator
from pathlib import Path

import chess
import pytest
from aiohttp.test_utils import TestClient, TestServer
from hypothesis import given
from hypothesis import strategies as st

from broadcast.config import ConfigError, load_event_text
from broadcast.journal.store import Journal
from broadcast.service.event_service import EventService
from clocks.timesource import ManualTime
from tests.support.web_app import CREDENTIALS, EVENT, T0, play_moves
from web.app import build_app
from web.board_svg import board_image, board_svg
from web.flags import FLAGS, flag_svg
from web.pages import used_text
from web.proxy import ProxySettings

FRAMER = "https://www.fvaxedrez.eus"
GAME = "masters-r1-b1"


def _event_text(extra: str) -> str:
    text = EVENT.read_text(encoding="utf-8")
    return text.replace("[event]\n", f"[event]\n{extra}\n", 1)


def _checked_rects(svg: str) -> list[str]:
    return re.findall(r'<rect x="(\d)" y="(\d)" [^>]*class="[ld] check"', svg)


def test_the_king_in_check_is_marked_and_only_then() -> None:
    board = chess.Board()
    for san in ("e4", "f5", "Qh5"):
        board.push_san(san)
    assert _checked_rects(str(board_svg(board.fen()))) == [("4", "0")]  # e8, from White's side
    assert _checked_rects(str(board_svg(board.fen(), flipped=True))) == [("3", "7")]
    board.push_san("g6")
    assert _checked_rects(str(board_svg(board.fen()))) == []


def test_the_board_image_stands_alone() -> None:
    image = board_image(chess.STARTING_FEN, "e2e4")
    root = ET.fromstring(image)  # well-formed XML: what an image viewer needs
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert "class=" not in image  # no stylesheet reaches an image: colours are attributes
    assert image.count("<symbol") == 12 and image.count("<use") == 32
    assert image.count('fill="#f6f669"') == 2  # the last move's two squares
    assert board_image("not a fen", "zz").startswith("<svg")  # nothing raises


def test_flags_are_drawn_for_known_codes_and_plain_for_others() -> None:
    spain = flag_svg("ESP")
    assert spain is not None and "#aa151b" in spain and "#f1bf00" in spain
    assert flag_svg("esp") == spain
    plain = flag_svg("XYZ")
    assert plain is not None and "#b0bec5" in plain
    assert flag_svg("ES") is None and flag_svg("../x") is None and flag_svg("ESP1") is None
    for code in FLAGS:
        ET.fromstring(flag_svg(code) or "")


@given(st.text(max_size=12))
def test_a_flag_request_never_raises(code: str) -> None:
    image = flag_svg(code)
    assert image is None or image.startswith("<svg")


def test_time_used_reads_short() -> None:
    assert [used_text(s) for s in (None, 0, 7.4, 59.6, 125, 3725)] == [
        "",
        "0s",
        "7s",
        "1:00",
        "2:05",
        "1:02:05",
    ]


def test_embed_origins_are_read_and_checked() -> None:
    config = load_event_text(
        _event_text(f'embed_origins = ["{FRAMER}/", "http://x.org:8080"]'), EVENT
    )
    assert config.embed_origins == (FRAMER, "http://x.org:8080")
    assert load_event_text(_event_text(""), EVENT).embed_origins == ()
    with pytest.raises(ConfigError, match=r"embed_origins.*not a site origin"):
        load_event_text(_event_text('embed_origins = ["https://x.org/page"]'), EVENT)
    with pytest.raises(ConfigError, match="must be a list"):
        load_event_text(_event_text('embed_origins = "https://x.org"'), EVENT)
    with pytest.raises(ConfigError, match="not a site origin"):
        load_event_text(_event_text('embed_origins = ["https://x.org; script-src *"]'), EVENT)


@pytest.fixture
async def client(tmp_path: Path) -> AsyncIterator[TestClient]:
    config = load_event_text(_event_text(f'embed_origins = ["{FRAMER}"]'), EVENT)
    service = EventService(
        config, Journal(tmp_path / "j.sqlite"), time_source=ManualTime(T0), live_round=1, delay=0.0
    )
    service.load()
    play_moves(service, GAME, ["e4", "f5", "Qh5+"])
    proxy = ProxySettings(public_origin="https://live.example.org")
    c = TestClient(TestServer(build_app(service, CREDENTIALS, proxy)))
    await c.start_server()
    try:
        yield c
    finally:
        await c.close()


def _ancestors(csp: str) -> str:
    match = re.search(r"frame-ancestors ([^;]*)", csp)
    assert match, csp
    return match.group(1)


async def test_only_the_embeds_are_framable_and_only_by_the_configured_sites(
    client: TestClient,
) -> None:
    for path in (f"/embed/game/{GAME}", "/embed/round/1"):
        r = await client.get(path)
        assert r.status == 200, path
        assert _ancestors(r.headers["Content-Security-Policy"]) == f"'self' {FRAMER}"
        assert "X-Frame-Options" not in r.headers
        assert 'data-channel="public"' in await r.text()
    for path in (
        "/",
        "/round/1",
        f"/game/{GAME}",
        "/standings",
        "/arbiter/login",
        "/arbiter",
        "/nope",
    ):
        r = await client.get(path, allow_redirects=False)
        assert _ancestors(r.headers["Content-Security-Policy"]) == "'none'", path
        assert r.headers["X-Frame-Options"] == "DENY", path
    r = await client.get("/embed/game/no-such-game")
    assert r.status == 404 and _ancestors(r.headers["Content-Security-Policy"]) != "'none'"


async def test_a_shared_game_link_previews_players_result_and_board(client: TestClient) -> None:
    text = await (await client.get(f"/game/{GAME}")).text()
    og = dict(re.findall(r'<meta property="og:(\w+)" content="([^"]*)"', text))
    # "White \u2013 Black", each name "Last, First"
    assert "\u2013" in og["title"] and og["title"].count(",") >= 2
    # A PNG (chat apps show no SVG previews): .ci/run installs the cairo library.
    assert og["image"] == f"https://live.example.org/api/v1/games/{GAME}.png"
    assert '<meta property="og:image:type" content="image/png">' in text
    assert og["url"] == f"https://live.example.org/game/{GAME}"
    png = await client.get(f"/api/v1/games/{GAME}.png")
    assert png.status == 200 and png.content_type == "image/png"
    data = await png.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])  # the IHDR chunk
    assert (width, height) == (480, 480)
    assert (await client.get("/api/v1/games/nope.png")).status == 404
    assert "round 1, board 1, 2 moves" in og["description"]
    image = await client.get(f"/api/v1/games/{GAME}.svg")
    assert image.status == 200 and image.content_type == "image/svg+xml"
    body = await image.text()
    assert 'fill="#e53935"' in body  # Qh5+: the king in check shows in the preview
    assert (await client.get("/api/v1/games/nope.svg")).status == 404


async def test_flags_are_served(client: TestClient) -> None:
    r = await client.get("/flags/ESP.svg")
    assert r.status == 200 and r.content_type == "image/svg+xml"
    assert (await client.get("/flags/E.svg")).status == 404
    home = await (await client.get("/")).text()
    assert re.search(r'<img class="flag" src="/flags/[A-Z]{3}\.svg"', home)
