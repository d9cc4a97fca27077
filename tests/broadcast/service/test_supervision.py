"""No task dies silently: an exception injected into each long-running task of a running
event (the clock tick, a board driver, each publisher, the web hub, an emulated player,
the emulated ports, `boardwire watch`) is logged once with its traceback, raises a
critical desk alert naming the task (seen through the arbiter JSON API), and the task
runs again; a one-shot task (a scripted player) and a command end visibly instead."""

from __future__ import annotations

import asyncio
import logging
from base64 import b64encode
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from aiohttp import WSMsgType, web
from aiohttp.test_utils import TestClient, TestServer

import broadcast.cli.simboards as simboards
import broadcast.publish.tasks as publishers
from boards.driver_events import BoardConnected, BoardLost
from boards.drivers.single import SingleBoardDriver
from boardsim.board import EmulatedBoard
from boardsim.pty import PtyHost
from boardsim.sim import Simulator
from broadcast.cli import build_parser
from broadcast.cli.simboards import start_simulated_boards
from broadcast.cli.watch import _watch
from broadcast.publish.lichess import LichessRelayConfig
from broadcast.publish.tasks import PublishSettings, start_publishers
from broadcast.service.event_service import EventService
from broadcast.service.health import SYSTEM_PREFIX
from broadcast.service.supervisor import Backoff, task_key
from clocks.timesource import EpochTime
from tests.broadcast.service.test_event_service import EVENT, SPEED, opening
from tests.support.service import running_service
from tests.support.web_app import CREDENTIALS, make_service, play_moves
from web.app import build_app
from web.keys import HUB

FAST = Backoff(first=0.05, longest=0.2, healthy_after=60.0)
BASIC = {"Authorization": "Basic " + b64encode(":".join(CREDENTIALS).encode()).decode()}
GAME = "masters-r1-b1"


async def until(predicate: Callable[[], bool], timeout: float = 30.0, what: str = "") -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        assert loop.time() < deadline, f"timed out waiting for {what or 'it'}"
        await asyncio.sleep(0.02)


def once(exc: Exception, real: Callable[..., Any]) -> Callable[..., Any]:
    """`real`, except that its first call raises `exc`."""
    calls: list[int] = []

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) == 1:
            raise exc
        return real(*args, **kwargs)

    return wrapper


def failure_logs(caplog: pytest.LogCaptureFixture, task: str) -> list[logging.LogRecord]:
    return [
        r
        for r in caplog.records
        if r.name == "broadcast.service.supervisor" and r.getMessage().startswith(f"{task} stopped")
    ]


def assert_logged_once(caplog: pytest.LogCaptureFixture, task: str, kind: type) -> None:
    records = failure_logs(caplog, task)
    assert len(records) == 1, [r.getMessage() for r in records]
    assert records[0].levelno == logging.ERROR
    assert records[0].exc_info is not None and records[0].exc_info[0] is kind


def task_alert(alerts: list[dict[str, Any]], task: str) -> dict[str, Any]:
    wanted = SYSTEM_PREFIX + task_key(task)
    found = [a for a in alerts if a["id"] == wanted]
    assert found, f"no alert {wanted} in {[a['id'] for a in alerts]}"
    return found[0]


@pytest.fixture
async def desk_api(tmp_path: Path) -> AsyncIterator[tuple[TestClient, EventService]]:
    """A service that is not running (no boards), with its web app."""
    service, _ = make_service(tmp_path, delay=0.0)
    service.supervisor.backoff = FAST
    client = TestClient(TestServer(build_app(service, CREDENTIALS)))
    await client.start_server()
    yield client, service
    await client.close()


async def api_alerts(client: TestClient) -> list[dict[str, Any]]:
    response = await client.get("/api/v1/arbiter/alerts", headers=BASIC)
    assert response.status == 200
    alerts: list[dict[str, Any]] = await response.json()
    return alerts


# -- the service's own tasks: the clock tick and the drivers ------------------------------------


@pytest.mark.expected_log(r"the clock tick stopped: RuntimeError: injected")
async def test_the_tick_loop_is_logged_alerted_and_restarted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    time_source = EpochTime(SPEED)
    hall, ports = await start_simulated_boards(EVENT, time_source)
    try:
        async with running_service(
            EVENT, tmp_path, time_source, ports, restart_backoff=FAST
        ) as service:
            ticks: list[float] = []
            real_tick = service.runtime.tick

            def counted(
                *, full: bool = True, loop: asyncio.AbstractEventLoop | None = None
            ) -> bool:
                ticks.append(asyncio.get_running_loop().time())
                return real_tick(full=full, loop=loop)

            monkeypatch.setattr(service.runtime, "tick", counted)
            await until(lambda: len(ticks) >= 2, what="ticks")
            # The arithmetic around tick() (unguarded before): the loop's own lag sample.
            monkeypatch.setattr(
                service.lag, "loop", once(RuntimeError("injected"), service.lag.loop)
            )
            await until(lambda: bool(failure_logs(caplog, "the clock tick")), what="the log")
            failed_at = asyncio.get_running_loop().time()
            await until(lambda: sum(t > failed_at for t in ticks) >= 3, what="ticks again")
            assert_logged_once(caplog, "the clock tick", RuntimeError)
            client = TestClient(TestServer(build_app(service, CREDENTIALS)))
            await client.start_server()
            try:
                alert = task_alert(await api_alerts(client), "the clock tick")
            finally:
                await client.close()
            assert alert["severity"] == "critical" and alert["kind"] == "task-failed"
            assert "the clock tick stopped" in alert["message"] and "injected" in alert["message"]
            assert "Default times, flag falls" in alert["message"]
    finally:
        await hall.stop()


@pytest.mark.expected_log(r"the driver for .* stopped: RuntimeError: driver bug")
async def test_a_driver_whose_run_raises_is_logged_alerted_and_reconnected(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    time_source = EpochTime(SPEED)
    hall, ports = await start_simulated_boards(EVENT, time_source)
    real_run = SingleBoardDriver.run
    crashed: list[str] = []

    async def crashing_run(self: SingleBoardDriver) -> None:
        if self.port != ports[1] or crashed:
            await real_run(self)
            return
        crashed.append(self.port)
        inner = asyncio.ensure_future(real_run(self))
        await until(lambda: service.hall[1].connected, what="board 1 connected")
        inner.cancel()
        with pytest.raises(asyncio.CancelledError):
            await inner
        raise RuntimeError("driver bug")

    monkeypatch.setattr(SingleBoardDriver, "run", crashing_run)
    try:
        async with running_service(
            EVENT, tmp_path, time_source, ports, restart_backoff=FAST
        ) as service:
            await until(lambda: bool(failure_logs(caplog, f"the driver for {ports[1]}")))
            name = service.hall[1].name

            def lost() -> list[BoardLost]:
                return [
                    e.event
                    for e in service.journal.read()
                    if isinstance(e.event, BoardLost) and e.event.board == name
                ]

            await until(lambda: bool(lost()), what="BoardLost")  # the desk is told at once
            assert "software error" in lost()[0].reason
            # Restarted: the board is connected again, the other boards never stopped.
            await until(
                lambda: (
                    service.hall[1].connected
                    and sum(
                        isinstance(e.event, BoardConnected) and e.event.board == name
                        for e in service.journal.read()
                    )
                    >= 2
                ),
                what="board 1 reconnected",
            )
            assert_logged_once(caplog, f"the driver for {ports[1]}", RuntimeError)
            [alert] = [a for a in service.health.alerts(None, 0.0) if a.kind == "task-failed"]
            assert alert.severity == "critical" and ports[1] in alert.message
            assert all(service.hall[n].connected for n in (2, 3, 4))
    finally:
        await hall.stop()


# -- the publishers, each on its own ---------------------------------------------------------------


@pytest.mark.expected_log(r"the export to .* stopped: KeyError")
async def test_an_unexpected_export_error_is_logged_alerted_and_retried(
    desk_api: tuple[TestClient, EventService],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    client, service = desk_api
    folder = tmp_path / "export"
    monkeypatch.setattr(
        publishers,
        "export_round_folder",
        once(KeyError("Masters"), publishers.export_round_folder),
    )
    tasks = start_publishers(service, PublishSettings(folder=folder))
    try:
        name = f"the export to {folder}"
        await until(lambda: bool(failure_logs(caplog, name)), what="the log")
        alert = task_alert(await api_alerts(client), name)
        assert alert["severity"] == "critical" and "KeyError" in alert["message"]
        play_moves(service, GAME, ["e4", "c5"])
        target = folder / "round-1" / "game-1.pgn"
        await until(
            lambda: target.exists() and "1... c5" in target.read_text(encoding="utf-8"),
            what="the export",
        )
        assert_logged_once(caplog, name, KeyError)
        assert tasks[0].running and tasks[0].failures == 1
    finally:
        for task in tasks:
            await task.stop()


class HangingLichess:
    """A Lichess push endpoint in an outage: requests wait until `answer` is set."""

    def __init__(self) -> None:
        self.requests = 0
        self.answer = asyncio.Event()

    async def push(self, request: web.Request) -> web.Response:
        self.requests += 1
        await request.text()
        await self.answer.wait()
        return web.json_response({"moves": 1})


@pytest.fixture
async def lichess() -> AsyncIterator[tuple[HangingLichess, LichessRelayConfig]]:
    standin = HangingLichess()
    app = web.Application()
    app.router.add_post("/api/broadcast/round/{round}/push", standin.push)
    server = TestServer(app)
    await server.start_server()
    config = LichessRelayConfig("AbCd1234", "lip_token", base_url=str(server.make_url("")))
    yield standin, config
    standin.answer.set()
    await server.close()


async def test_a_lichess_outage_never_stalls_the_folder_export(
    desk_api: tuple[TestClient, EventService],
    tmp_path: Path,
    lichess: tuple[HangingLichess, LichessRelayConfig],
) -> None:
    _, service = desk_api
    standin, config = lichess
    folder = tmp_path / "export"
    settings = PublishSettings(folder=folder, lichess=config)
    tasks = start_publishers(service, settings)
    try:
        await until(lambda: standin.requests >= 1, what="a push")  # and it hangs
        play_moves(service, GAME, ["d4", "Nf6"])
        target = folder / "round-1" / "game-1.pgn"
        await until(
            lambda: target.exists() and "1... Nf6" in target.read_text(encoding="utf-8"),
            timeout=10,
            what="the export while Lichess hangs",
        )
        assert standin.requests == 1  # still the first push, unanswered
        standin.answer.set()  # Lichess is back: the relay catches up by itself
        await until(lambda: standin.requests >= 2, what="the next push")
    finally:
        for task in tasks:
            await task.stop()


@pytest.mark.expected_log(r"the Lichess relay stopped: ValueError: pgn bug")
async def test_an_unexpected_lichess_relay_error_is_logged_alerted_and_retried(
    desk_api: tuple[TestClient, EventService],
    lichess: tuple[HangingLichess, LichessRelayConfig],
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    client, service = desk_api
    standin, config = lichess
    standin.answer.set()  # no outage here
    monkeypatch.setattr(
        publishers, "round_game_texts", once(ValueError("pgn bug"), publishers.round_game_texts)
    )
    tasks = start_publishers(service, PublishSettings(lichess=config))
    try:
        await until(lambda: standin.requests >= 1, what="a push after the restart")
        assert_logged_once(caplog, "the Lichess relay", ValueError)
        alert = task_alert(await api_alerts(client), "the Lichess relay")
        assert alert["severity"] == "critical" and "pgn bug" in alert["message"]
        assert "Lichess is not sent new moves" in alert["message"]
    finally:
        for task in tasks:
            await task.stop()


# -- the web hub ---------------------------------------------------------------------------


@pytest.mark.expected_log(r"the live web updates stopped: RuntimeError: frame bug")
async def test_the_hub_pump_is_logged_alerted_and_restarted(
    desk_api: tuple[TestClient, EventService],
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    client, _ = desk_api
    hub = client.server.app[HUB]  # type: ignore[union-attr]
    frames: list[int] = []
    real = hub.public_frame

    def counted() -> Any:
        frames.append(1)
        return real()

    monkeypatch.setattr(hub, "public_frame", once(RuntimeError("frame bug"), counted))
    await until(lambda: bool(failure_logs(caplog, "the live web updates")), what="the log")
    before = len(frames)
    await until(lambda: len(frames) >= before + 2, what="the pump again")
    assert_logged_once(caplog, "the live web updates", RuntimeError)
    alert = task_alert(await api_alerts(client), "the live web updates")
    assert alert["severity"] == "critical" and "frame bug" in alert["message"]


@pytest.mark.expected_log(r"websocket writer failed")
async def test_a_failing_client_writer_ends_that_client_with_one_log_line(
    desk_api: tuple[TestClient, EventService],
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    client, _ = desk_api
    hub = client.server.app[HUB]  # type: ignore[union-attr]
    real = hub._write

    async def broken(_client: Any) -> None:
        raise TypeError("writer bug")

    monkeypatch.setattr(hub, "_write", broken)
    async with client.ws_connect("/ws") as ws:
        message = await ws.receive(timeout=5)
        assert message.type in (WSMsgType.CLOSE, WSMsgType.CLOSED)
    records = [r for r in caplog.records if "websocket writer failed" in r.getMessage()]
    assert len(records) == 1 and records[0].exc_info is not None
    monkeypatch.setattr(hub, "_write", real)
    async with client.ws_connect("/ws") as ws:  # the others are served as before
        await ws.send_json({"type": "subscribe", "scope": "event"})
        assert (await ws.receive_json(timeout=5))["type"] == "snapshot"


# -- emulated players and ports ---------------------------------------------------------------


@pytest.mark.expected_log(r"the emulated player on board 2 stopped: RuntimeError: script bug")
async def test_an_emulated_player_that_dies_is_logged_and_alerted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    time_source = EpochTime(SPEED)
    hall, ports = await start_simulated_boards(EVENT, time_source)
    real_play = simboards.play

    async def broken_on_board_2(host: PtyHost, *args: Any, **kwargs: Any) -> None:
        if host is hall.where[2][0]:
            raise RuntimeError("script bug")
        await real_play(host, *args, **kwargs)

    monkeypatch.setattr(simboards, "play", broken_on_board_2)
    try:
        async with running_service(
            EVENT, tmp_path, time_source, ports, restart_backoff=FAST
        ) as service:
            for board in (1, 2):
                await hall.play(
                    board, opening(4), time_source, speed=SPEED, supervisor=service.supervisor
                )
            await until(lambda: service.book.get(GAME).ply == 4, what="board 1's game")
            assert_logged_once(caplog, "the emulated player on board 2", RuntimeError)
            [alert] = [a for a in service.health.alerts(None, 0.0) if a.kind == "task-failed"]
            assert alert.severity == "critical" and "board 2" in alert.message
            assert "not restarted" in alert.message  # its scripted game cannot start over
    finally:
        await hall.stop()


class BrokenBoard(EmulatedBoard):
    def tick(self, t: float) -> bytes:
        raise ArithmeticError("emulator bug")


@pytest.mark.expected_log(r"emulated port .* stopped: emulator bug")
async def test_a_failing_emulated_port_is_logged_goes_dead_and_stops_cleanly(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    host = PtyHost(BrokenBoard("10001"), tmp_path / "board-1")
    await host.start()
    await until(lambda: host.failure is not None, what="the pump's failure")
    records = [r for r in caplog.records if r.name == "boardsim.pty"]
    assert len(records) == 1 and records[0].exc_info is not None
    assert not host.plugged and not host.path.exists()  # dead, like a pulled cable
    await host.stop()  # never raises: the error was logged when it happened


@pytest.mark.expected_log(r"emulated player \d .* stopped: script bug")
async def test_the_simulator_cleans_up_after_a_failing_player(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import boardsim.sim as sim_module

    async def broken(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("script bug")

    monkeypatch.setattr(sim_module, "play", broken)
    sim = Simulator(2, games=[opening(2)], rundir=tmp_path / "run", register=False)
    await sim.start()
    with pytest.raises(RuntimeError, match="script bug"):
        await sim.wait_games()
    await sim.stop()  # the hosts go too, although a player failed
    assert not sim.hosts and not (tmp_path / "run").exists()
    assert [str(e) for e in sim.failures] == ["script bug", "script bug"]


# -- boardwire watch ------------------------------------------------------------------------------


@pytest.mark.expected_log(r"the driver for .* stopped: RuntimeError: driver bug")
async def test_watch_exits_non_zero_when_its_driver_dies(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    async def broken(self: SingleBoardDriver) -> None:
        raise RuntimeError("driver bug")

    monkeypatch.setattr(SingleBoardDriver, "run", broken)
    pgn = tmp_path / "game.pgn"
    args = build_parser().parse_args(
        ["watch", str(tmp_path / "board"), "--pgn", str(pgn), "--seconds", "20"]
    )
    assert await asyncio.wait_for(_watch(args), 10) == 1
    err = capsys.readouterr().err
    assert "watch stopped: the driver for" in err and "RuntimeError: driver bug" in err


async def test_a_pulled_cable_is_the_drivers_news_not_an_asyncio_error(tmp_path: Path) -> None:
    """pyserial-asyncio-fast reports a failed write to the loop's exception handler (an
    ERROR with a traceback on every pulled cable); the driver already hears of it."""
    from boards.drivers.link import LinkError, open_serial

    async with PtyHost(EmulatedBoard("10001"), tmp_path / "board-1") as host:
        link = await open_serial(str(host.path))
        host.unplug()
        with pytest.raises(LinkError):
            for _ in range(50):
                link.write(b"\x42")  # a board dump request, into a dead port
                await asyncio.sleep(0.01)
            await asyncio.wait_for(link.read(), 5)
        await link.close()
