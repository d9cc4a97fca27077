"""The simulator as a whole: ptys, scripted games at speed, the registry, the command line."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from boards.dgt.bus import BusReply, BusRequest
from boards.dgt.codes import BusCommand, BusReplyId, Command
from boards.dgt.decoder import BoardStreamDecoder, BusStreamDecoder
from boards.dgt.eeprom import ClockTime, PieceChange, Tag, TagEvent
from boards.dgt.messages import BoardDump, EEMoves, FieldUpdate
from boards.position import BoardPosition
from boardsim import cli
from boardsim.sim import Simulator, list_running, load_games, runtime_root
from tests.support.event_log import assert_no_errors

PGN = """[Event "Sim"]
[White "A"]
[Black "B"]
[TimeControl "60+1"]
[Result "*"]

1. e4 {[%clk 0:01:00]} e5 {[%clk 0:01:00]} 2. Nf3 {[%clk 0:00:59]} Nc6 {[%clk 0:00:59]}
3. Bb5 {[%clk 0:00:58]} a6 {[%clk 0:00:58]} 4. O-O {[%clk 0:00:57]} *

[Event "Sim"]
[White "C"]
[Black "D"]
[Result "*"]

1. d4 d5 2. c4 dxc4 *
"""


@pytest.fixture(autouse=True)
def runtime(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Keep registries of these tests apart from any real running simulator."""
    root = tmp_path / "xdg"
    root.mkdir()
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(root))
    return root / "boardsim"


@pytest.fixture
def pgn_file(tmp_path: Path) -> Path:
    path = tmp_path / "games.pgn"
    path.write_text(PGN)
    return path


def read_all(fd: int) -> bytes:
    try:
        return os.read(fd, 65536)
    except BlockingIOError:
        return b""


async def test_single_boards_play_their_games(pgn_file: Path) -> None:
    games = load_games(pgn_file)
    async with Simulator(3, games=games, speed=50.0) as sim:
        fds = [os.open(d.path, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK) for d in sim.devices]
        for fd in fds:
            os.write(fd, bytes([Command.SEND_UPDATE_BRD]))
        await asyncio.wait_for(sim.wait_games(), 10)
        await asyncio.sleep(0.05)
        for i, fd in enumerate(fds):
            updates = [
                m for m in BoardStreamDecoder().feed(read_all(fd)) if isinstance(m, FieldUpdate)
            ]
            assert updates, f"board {i + 1} sent no field updates"
            os.write(fd, bytes([Command.SEND_BRD]))
            await asyncio.sleep(0.05)
            [dump] = BoardStreamDecoder().feed(read_all(fd))
            game = games[i % len(games)]  # board 3 replays game 1
            assert dump == BoardDump(BoardPosition.from_board(game.end().board()))
            os.close(fd)
        assert [d.serial for d in sim.devices] == ["10001", "10002", "10003"]


async def test_the_eeprom_download_holds_the_game_at_9600_baud(pgn_file: Path) -> None:
    games = load_games(pgn_file)
    async with Simulator(1, games=games[:1], speed=50.0) as sim:
        fd = os.open(sim.devices[0].path, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        await asyncio.wait_for(sim.wait_games(), 10)
        board = sim.hosts[0].boards[0]
        assert board.download_rate == 960
        os.write(fd, bytes([Command.SEND_EE_MOVES]))
        got: list[object] = []
        decoder = BoardStreamDecoder()
        deadline = time.monotonic() + 10  # about 8.3 s of simulated time: 0.17 s at speed 50
        while not got and time.monotonic() < deadline:
            got += decoder.feed(read_all(fd))
            await asyncio.sleep(0.01)
        os.close(fd)
        [download] = got
        assert isinstance(download, EEMoves)
        events = download.events()
        start = events.index(TagEvent(Tag.POWERUP))
        codes = [0] * 64
        for event in events[start:]:
            if isinstance(event, PieceChange):
                codes[event.index] = event.code
        assert BoardPosition(tuple(codes)) == BoardPosition.from_board(games[0].end().board())
        presses = [e for e in events if isinstance(e, ClockTime)]
        assert len(presses) == 1 + len(list(games[0].mainline_moves()))  # Black starts White's


async def test_instant_download_is_an_option(tmp_path: Path) -> None:
    parser = argparse.ArgumentParser()
    cli.add_arguments(parser)
    assert not parser.parse_args([]).instant_download
    assert parser.parse_args(["--instant-download"]).instant_download
    async with Simulator(2, bus=True, instant_download=True, rundir=tmp_path / "run") as sim:
        assert [b.download_rate for b in sim.hosts[0].boards] == [None, None]


async def test_players_with_realistic_habits_end_in_the_games_final_positions(
    pgn_file: Path,
) -> None:
    games = load_games(pgn_file)
    async with Simulator(
        2, games=games, speed=50.0, habits="realistic", seed=3, max_think=2.0
    ) as sim:
        fds = [os.open(d.path, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK) for d in sim.devices]
        await asyncio.wait_for(sim.wait_games(), 10)
        await asyncio.sleep(0.05)
        for fd, game in zip(fds, games, strict=True):
            os.write(fd, bytes([Command.SEND_BRD]))
            await asyncio.sleep(0.05)
            [dump] = BoardStreamDecoder().feed(read_all(fd))
            final = game.end().board()
            # A rotated board (one of the habits) shows the same game turned around.
            assert dump in (
                BoardDump(BoardPosition.from_board(final)),
                BoardDump(BoardPosition.from_board(final, "rotated")),
            )
            os.close(fd)


async def test_bus_line_plays_games_and_answers_polls(pgn_file: Path) -> None:
    games = load_games(pgn_file)
    async with Simulator(4, bus=True, games=games, speed=50.0, first_serial=2001) as sim:
        assert {d.path for d in sim.devices} == {sim.devices[0].path}
        assert [d.address for d in sim.devices] == [2001, 2002, 2003, 2004]
        await asyncio.wait_for(sim.wait_games(), 10)
        fd = os.open(sim.devices[0].path, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        await asyncio.sleep(0.05)
        decoder = BusStreamDecoder()
        for d in sim.devices:
            assert d.address is not None
            os.write(fd, BusRequest(BusCommand.SEND_BRD, d.address).encode())
            got: list[object] = []
            for _ in range(40):
                got += decoder.feed(read_all(fd))
                if got:
                    break
                await asyncio.sleep(0.005)
            [reply] = got
            assert isinstance(reply, BusReply) and reply.reply_id is BusReplyId.BRD_DUMP
            end = games[d.board % len(games)].end().board()
            assert reply.data == BoardPosition.from_board(end).to_bytes()
        os.close(fd)


async def test_registry_lists_devices_and_is_removed(runtime: Path) -> None:
    async with Simulator(2) as sim:
        assert sim.registry_path is not None and sim.registry_path.parent == runtime
        assert sim.registry_path.name.startswith(f"{os.getpid()}-")
        registry = sim.registry_path
        running = list_running()
        assert [r["serial"] for r in running] == ["10001", "10002"]
        assert all(
            r["pid"] == os.getpid() and str(r["tty"]).startswith("/dev/pts/") for r in running
        )
        assert running[0]["mode"] == "single"
    assert not registry.exists()
    assert list_running() == []


def test_stale_registry_files_are_skipped(runtime: Path) -> None:
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    runtime.mkdir(parents=True)
    (runtime / f"{dead.pid}.json").write_text(
        json.dumps({"pid": dead.pid, "devices": [{"path": "/nope", "serial": "10001"}]})
    )
    (runtime / "garbage.json").write_text("{not json")
    assert runtime_root() == runtime
    assert list_running() == []


def test_bad_inputs_are_explained(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="1 to 99"):
        Simulator(0)
    with pytest.raises(ValueError, match="99999"):
        Simulator(5, first_serial=99998)
    with pytest.raises(ValueError, match="broadcast address"):
        Simulator(5, first_serial=16381)  # 16384 would answer at bus address 0
    with pytest.raises(ValueError, match="unknown habits"):
        Simulator(1, habits="sloppy")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="cannot read PGN"):
        load_games(tmp_path / "missing.pgn")
    empty = tmp_path / "empty.pgn"
    empty.write_text("")
    with pytest.raises(ValueError, match="no PGN games"):
        load_games(empty)


async def test_cli_run_prints_devices_and_stops(
    pgn_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    parser = argparse.ArgumentParser()
    cli.add_arguments(parser)
    args = parser.parse_args(
        [
            "--boards",
            "2",
            "--bus",
            "--pgn",
            str(pgn_file),
            "--speed",
            "10",
            "--rundir",
            str(tmp_path / "run"),
        ]
    )
    task = asyncio.create_task(cli.run(args))
    for _ in range(100):
        await asyncio.sleep(0.01)
        if (tmp_path / "run" / "bus-1").is_symlink():
            break
    assert (tmp_path / "run" / "bus-1").is_symlink()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    out = capsys.readouterr().out.splitlines()
    assert out == [
        f"{tmp_path / 'run' / 'bus-1'}\t10001\tbus\t10001",
        f"{tmp_path / 'run' / 'bus-1'}\t10002\tbus\t10002",
    ]
    assert not (tmp_path / "run").exists()


async def test_cli_reports_a_missing_pgn(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    parser = argparse.ArgumentParser()
    cli.add_arguments(parser)
    args = parser.parse_args(["--pgn", str(tmp_path / "nope.pgn")])
    assert await cli.run(args) == 2
    assert "cannot read PGN file" in capsys.readouterr().err


def test_cli_takes_the_players_habits() -> None:
    parser = argparse.ArgumentParser()
    cli.add_arguments(parser)
    assert parser.parse_args([]).habits == "none"
    assert parser.parse_args(["--habits", "realistic"]).habits == "realistic"
    with pytest.raises(SystemExit):
        parser.parse_args(["--habits", "sloppy"])


def test_cli_rejects_a_bad_speed() -> None:
    parser = argparse.ArgumentParser()
    cli.add_arguments(parser)
    with pytest.raises(SystemExit):
        parser.parse_args(["--speed", "0"])


def test_python_m_boardsim_runs_and_stops_on_sigterm(tmp_path: Path) -> None:
    env = {**os.environ, "XDG_RUNTIME_DIR": str(tmp_path)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "boardsim", "--boards", "1", "--rundir", str(tmp_path / "r")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert line.startswith(str(tmp_path / "r" / "board-1"))
    deadline = time.monotonic() + 5
    while not list(tmp_path.glob("boardsim/*.json")) and time.monotonic() < deadline:
        time.sleep(0.01)
    proc.terminate()
    assert proc.wait(10) == 0
    assert not list(tmp_path.glob("boardsim/*.json"))
    _, err = proc.communicate()
    assert_no_errors(err)
