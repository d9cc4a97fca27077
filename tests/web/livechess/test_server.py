"""The LiveChess API over a real socket (`web.livechess.server`), spoken to by the client
written from the issue's description (`tests.support.livechess_client`). In-process: the
service on virtual time, its board 1 driven through positions as a DGT board sends them
(the reconstruction makes the moves), so a takeback and a board lost and found are what
the hall really sees. `serve --sim` in a subprocess is at the end."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import chess
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from boards.driver_events import BoardConnected, BoardInfo, BoardLost, PositionSeen
from boards.position import BoardPosition
from broadcast.service.event_service import EventService
from clocks.timesource import ManualTime
from tests.support.livechess_client import LiveChessClient, Refused
from tests.support.paths import ROOT
from tests.support.web_app import CREDENTIALS, free_port, make_service
from web.livechess.access import api_token
from web.livechess.server import LINK_NAME, LiveChessApi, LiveChessSettings

SERIAL = "10001"
GAME = "masters-r1-b1"


class Hall:
    """Board 1 of the example as its driver would report it."""

    def __init__(self, service: EventService, clock: ManualTime) -> None:
        self.service, self.clock = service, clock
        self.port = service.hall[1].config.port
        self.board = chess.Board()

    def connect(self, *, reconnect: bool = False) -> None:
        info = BoardInfo(self.port, SERIAL, (1, 7), "single", battery_percent=80)
        self.service.on_driver_event(
            self.port, BoardConnected(self.clock.now(), SERIAL, info, reconnect=reconnect)
        )

    def show(self) -> None:
        self.clock.advance(2)
        position = BoardPosition.from_fen(self.board.fen())
        self.service.on_driver_event(self.port, PositionSeen(self.clock.now(), SERIAL, position))
        for _ in range(4):  # the reconstruction decides once the position has settled
            self.clock.advance(1)
            self.service.tick()

    def play(self, *sans: str) -> None:
        for san in sans:
            self.board.push_san(san)
            self.show()

    def lose(self) -> None:
        self.service.on_driver_event(self.port, BoardLost(self.clock.now(), SERIAL, "unplugged"))


@pytest.fixture
async def venue(tmp_path: Path) -> AsyncIterator[tuple[str, Hall, LiveChessApi]]:
    service, clock = make_service(tmp_path, delay=60.0)  # the API is live: no delay
    hall = Hall(service, clock)
    hall.connect()
    hall.show()
    api = LiveChessApi(service, LiveChessSettings("127.0.0.1", free_port()), CREDENTIALS)
    await api.start()
    try:
        yield f"ws://127.0.0.1:{api.settings.port}/api/v1.0", hall, api
    finally:
        await api.close()


async def test_list_boards_and_sources(venue: tuple[str, Hall, LiveChessApi]) -> None:
    url, hall, _ = venue
    async with LiveChessClient(url) as client:
        boards = await client.call("eboards")
        (board,) = boards
        assert board["serialnr"] == SERIAL and board["source"] == hall.port
        assert board["state"] == "ACTIVE" and board["battery"] == 80
        assert board["board"] == chess.Board().board_fen() and board["flipped"] is False
        assert set(board) >= {"comment", "clock"}
        sources = await client.call("sources")
        assert any(SERIAL in s["serialnrs"] for s in sources)


async def test_follow_a_game_a_takeback_and_a_board_lost_and_found(
    venue: tuple[str, Hall, LiveChessApi],
) -> None:
    url, hall, _ = venue
    async with LiveChessClient(url) as client:
        ack = await client.subscribe(SERIAL, 7)
        assert ack["serialnr"] == SERIAL
        first = await client.next_feed(7)
        assert first["san"] == [] and first["start"] == chess.STARTING_FEN
        assert first["match"] is True and "board" in first and "clock" in first
        hall.play("e4", "e5", "Nf3")
        sans = [(await client.next_feed(7))["san"] for _ in range(3)]
        assert sans == [["e4"], ["e4", "e5"], ["e4", "e5", "Nf3"]]
        hall.board.pop()
        hall.show()
        takeback = await client.next_feed(7)
        assert takeback["san"] == ["e4", "e5"] and takeback["match"] is True
        hall.lose()
        lost = await client.call("eboards")
        assert lost[0]["state"] == "NOTRESPONDING"
        hall.connect(reconnect=True)
        hall.play("Nc3")
        found = await client.next_feed(7)
        assert found["san"] == ["e4", "e5", "Nc3"]
        assert (await client.call("eboards"))[0]["state"] == "ACTIVE"
        await client.call("unsubscribe", {"id": 7})
        hall.play("Nf6")
        await asyncio.sleep(0.2)  # nothing may arrive for a feed that is gone
        assert client.pending(7) == 0


async def test_two_clients_each_get_every_move_once(venue: tuple[str, Hall, LiveChessApi]) -> None:
    url, hall, _ = venue
    async with LiveChessClient(url) as one, LiveChessClient(url) as two:
        await one.subscribe(SERIAL, 1)
        await two.subscribe(SERIAL, 2)
        await one.next_feed(1)
        await two.next_feed(2)
        hall.play("d4", "d5")
        for client, feed in ((one, 1), (two, 2)):
            got = [(await client.next_feed(feed))["san"] for _ in range(2)]
            assert got == [["d4"], ["d4", "d5"]]
            assert client.pending(feed) == 0


async def test_a_setup_goes_through_the_arbiter_door(
    venue: tuple[str, Hall, LiveChessApi],
) -> None:
    url, hall, api = venue
    fen = chess.Board.from_chess960_pos(100).fen()
    async with LiveChessClient(url) as client:
        await client.subscribe(SERIAL, 3)
        await client.next_feed(3)
        hall.play("e4")
        await client.next_feed(3)
        done = await client.call("call", {"id": SERIAL, "method": "setup", "param": {"fen": fen}})
        assert done["fen"] == fen
        reset = await client.next_feed(3)
        assert reset["start"] == fen and reset["san"] == [] and reset["match"] is False
        assert api.service.book.get(GAME).start_fen == fen
        record = api.service.action_log.recent(1)[0]
        assert record.kind == "start-position" and "LiveChess API" in record.by
        with pytest.raises(Refused) as refused:
            await client.call("call", {"id": SERIAL, "method": "setup", "param": "not a fen"})
        assert "not a FEN" in refused.value.param["message"]
        with pytest.raises(Refused):
            await client.call("call", {"id": SERIAL, "method": "flip"})


async def test_rest(venue: tuple[str, Hall, LiveChessApi]) -> None:
    url, hall, _ = venue
    hall.play("e4", "c5")
    base = url.replace("ws://", "http://") + "/"
    async with aiohttp.ClientSession() as http:

        async def get(path: str) -> tuple[int, object]:
            async with http.get(base + path) as r:
                return r.status, await r.json()

        status, boards = await get("eboards")
        assert status == 200 and boards[0]["serialnr"] == SERIAL  # type: ignore[index]
        _, tournaments = await get("tournaments")
        tid = tournaments[0]["id"]  # type: ignore[index]
        _, tournament = await get(f"tournament/{tid}")
        assert tournament["rounds"][0]["live"] >= 1  # type: ignore[index]
        _, pairings = await get(f"round/{tid}/1")
        first = pairings["pairings"][0]  # type: ignore[index]
        assert set(first) >= {"white", "black", "result", "live"} and first["live"] is True
        assert set(first["white"]) >= {"fname", "lname", "title", "federation", "fideid"}
        _, game = await get(f"game/{GAME}")
        assert [m.split()[0] for m in game["moves"]] == ["e4", "c5"]  # type: ignore[index]
        assert game["chess960"] is False and game["result"] is None  # type: ignore[index]
        assert (await get("game/nope"))[0] == 404
        assert (await get(f"round/{tid}/99"))[0] == 404


async def test_malformed_requests_get_an_error_and_the_socket_goes_on(
    venue: tuple[str, Hall, LiveChessApi],
) -> None:
    url, _, _ = venue
    async with LiveChessClient(url) as client:
        for junk in (b"\x00\xff", "{", "[]", '{"id": 1}', '{"id": 2, "call": "subscribe"}'):
            await client.send_raw(junk)
            error = await asyncio.wait_for(client.errors.get(), 5)
            assert error["response"] == "error" and error["param"]["message"]
        for bad in (
            {"feed": "other", "param": {"serialnr": SERIAL}},
            {"feed": "eboardevent", "param": {"serialnr": "nobody"}},
            {"feed": "eboardevent", "id": "x", "param": {"serialnr": SERIAL}},
        ):
            frame = await client.request("subscribe", bad)
            assert frame["response"] == "error" and frame["param"]["message"]
        assert (await client.request("unsubscribe", {"id": 99}))["response"] == "error"
        assert len(await client.call("eboards")) == 1  # still answering


@given(
    st.one_of(
        st.binary(max_size=200),
        st.recursive(
            st.none() | st.booleans() | st.integers() | st.text(max_size=12),
            lambda inner: (
                st.lists(inner, max_size=3)
                | st.dictionaries(st.sampled_from(["id", "call", "param", "feed", "x"]), inner)
            ),
            max_leaves=12,
        ).map(json.dumps),
    )
)
@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
async def test_any_frame_gets_a_reply_never_a_crash(
    venue: tuple[str, Hall, LiveChessApi], frame: str | bytes
) -> None:
    url, _, _ = venue
    async with LiveChessClient(url) as client:
        await client.send_raw(frame)
        await asyncio.sleep(0)  # whatever it was, the server still answers a real call
        assert len(await client.call("eboards")) == 1


async def test_beyond_loopback_the_arbiter_login_or_the_token(tmp_path: Path) -> None:
    service, _ = make_service(tmp_path)
    port = free_port()
    api = LiveChessApi(service, LiveChessSettings("0.0.0.0", port), CREDENTIALS)
    await api.start()
    url = f"ws://127.0.0.1:{port}/api/v1.0"
    try:
        async with aiohttp.ClientSession() as http:
            with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                await http.ws_connect(url)
            assert refused.value.status == 401
            async with http.get(url.replace("ws:", "http:") + "/eboards?token=wrong") as r:
                assert r.status == 401
        basic = base64.b64encode(":".join(CREDENTIALS).encode()).decode()
        async with LiveChessClient(url, headers={"Authorization": f"Basic {basic}"}) as client:
            assert await client.call("eboards") == []
        token = api_token(CREDENTIALS, service.config.name)
        async with LiveChessClient(f"{url}?token={token}") as client:
            assert await client.call("eboards") == []
            # the arbiter's desk lists the API among its links: the address with the token
            # a LAN tool needs, and who is connected now
            state = dict(service.health.links())[LINK_NAME]
            assert f"ws://0.0.0.0:{port}/api/v1.0?token={token}" in state
            assert "1 program(s) connected, 0 board feed(s)" in state
    finally:
        await api.close()
    with pytest.raises(ValueError, match="BOARDWIRE_ARBITER_PASSWORD"):
        LiveChessApi(service, LiveChessSettings("0.0.0.0", port), None)


async def test_on_loopback_another_sites_page_needs_the_token(
    venue: tuple[str, Hall, LiveChessApi],
) -> None:
    url, _, _ = venue
    async with aiohttp.ClientSession() as http:
        with pytest.raises(aiohttp.WSServerHandshakeError):
            await http.ws_connect(url, headers={"Origin": "https://evil.example"})
    async with LiveChessClient(url, headers={"Origin": "https://lichess.org"}) as client:
        assert len(await client.call("eboards")) == 1


# -- `serve --sim` in a subprocess ------------------------------------------------------------------


async def test_serve_sim_serves_the_api_and_follows_its_games(tmp_path: Path) -> None:
    sample = tmp_path / "games.pgn"
    sample.write_text('[TimeControl "900+10"]\n\n1. e4 c5 2. Nf3 d6 3. d4 cxd4 *\n\n')
    port, api_port = free_port(), free_port()
    env = {**os.environ, "BOARDWIRE_ARBITER_PASSWORD": "x" * 16}
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "broadcast.cli", "serve",
        str(ROOT / "examples" / "pamplona-masters.toml"),
        "--db", str(tmp_path / "j.sqlite"), "--port", str(port), "--sim", "--speed", "20",
        "--games", str(sample), "--delay", "0", "--round", "1",
        "--livechess-api", str(api_port),
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        while b"LiveChess API" not in (line := await asyncio.wait_for(proc.stdout.readline(), 60)):
            assert line, "serve ended before the API was up"
        assert f"ws://127.0.0.1:{api_port}/api/v1.0".encode() in line
        url = f"ws://127.0.0.1:{api_port}/api/v1.0"
        async with LiveChessClient(url) as one, LiveChessClient(url) as two:
            boards: list[dict[str, object]] = []
            for _ in range(300):  # the emulated boards connect a moment after the start
                boards = await one.call("eboards")
                if boards:
                    break
                await asyncio.sleep(0.1)
            serial = str(boards[0]["serialnr"])
            await one.subscribe(serial, 1)
            await two.subscribe(serial, 1)
            want = ["e4", "c5", "Nf3", "d6", "d4", "cxd4"]
            for client in (one, two):
                san: list[str] = []
                while san != want:
                    msg = await client.next_feed(1, timeout=60)
                    new = msg["san"]
                    assert new == san[: len(new)] or new[:-1] == san, (san, new)
                    san = new
    finally:
        proc.terminate()
        _, err = await asyncio.wait_for(proc.communicate(), 30)
    assert b"Traceback" not in err, err.decode()


@pytest.mark.parametrize(
    ("options", "words"),
    [
        (["--livechess-api", "--livechess-host", "0.0.0.0"], "BOARDWIRE_ARBITER_PASSWORD"),
        (["--port", "8123", "--livechess-api", "8123"], "the web's port"),
    ],
)
async def test_serve_refuses_an_api_it_could_not_guard(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], options: list[str], words: str
) -> None:
    from broadcast.cli import build_parser
    from broadcast.cli import serve as cli_serve

    event = str(ROOT / "examples" / "pamplona-masters.toml")
    args = build_parser().parse_args(["serve", event, "--db", str(tmp_path / "j"), *options])
    assert args.livechess_api in (1982, 8123)
    assert await cli_serve.serve(args, credentials=None) == 2
    assert words in capsys.readouterr().err
    assert not (tmp_path / "j").exists()  # refused before anything started
