"""`watch` follows a board on a pty and keeps its PGN; `replay` of the recorded capture
gives the same game offline."""

from __future__ import annotations

import argparse
import asyncio
import io
import json
from pathlib import Path

import chess.pgn

from boards.dgt.eeprom import ClockTime
from boardsim.board import EmulatedBoard
from boardsim.pty import PtyHost
from boardsim.script import actions_for_game, play
from boardsim.timing import ScaledTime
from broadcast.cli import build_parser, main
from broadcast.cli.watch import _watch
from tests.support.paths import ROOT

SAMPLE = ROOT / "examples" / "games" / "worldcup2025-sample.pgn"
SPEED = 40.0
SCRIPT_SLACK = 60.0  # game seconds: 1.5 s of real time at 40x, a sanity bound only


def first_game(plies: int) -> chess.pgn.Game:
    with SAMPLE.open(encoding="utf-8") as f:
        game = chess.pgn.read_game(f)
    assert game is not None
    node = game
    for _ in range(plies):
        node = node.variations[0]
    node.variations.clear()  # keep the opening only: a short test
    return game


def pgn_moves_and_clocks(text: str) -> tuple[list[str], list[float | None]]:
    game = chess.pgn.read_game(io.StringIO(text))
    assert game is not None
    nodes = list(game.mainline())
    return [n.move.uci() for n in nodes], [n.clock() for n in nodes]


def clocks_at_the_presses(board: EmulatedBoard, plies: int) -> list[float]:
    """What the emulated clock showed for the mover at each move's lever press, to the
    second: the board writes the stopped side's time into its EEPROM log on every press.
    This is the ground truth `watch` must match, however late the loaded machine let the
    scripted player press (at 40x a 25 ms hiccup is a second of game time)."""
    presses = [e for e in board.eeprom.events() if isinstance(e, ClockTime)]
    assert len(presses) == plies + 1, (
        presses
    )  # Black's press that starts the game, then a move each
    assert not presses[0].left  # Black (right) starts White's clock
    assert [p.left for p in presses[1:]] == [ply % 2 == 0 for ply in range(plies)]  # White left
    return [float(p.seconds) for p in presses[1:]]


async def test_watch_then_replay_the_capture(tmp_path: Path) -> None:
    game = first_game(16)
    played = [m.uci() for m in game.mainline_moves()]
    played_clocks = [n.clock() for n in game.mainline()]
    clock = ScaledTime(SPEED)
    pgn_live, capture = tmp_path / "live.pgn", tmp_path / "capture.jsonl"
    board = EmulatedBoard("10001", t=clock.now())
    async with PtyHost(board, tmp_path / "board-1", time_source=clock) as host:
        args = build_parser().parse_args(
            [
                "watch",
                str(host.path),
                "--pgn",
                str(pgn_live),
                "--record",
                str(capture),
                "--seconds",
                "60",
            ]
        )
        watcher = asyncio.ensure_future(_watch(args, time_source=clock))  # events in game time
        await asyncio.sleep(1.0)  # connected and in update mode
        # The TimeControl tag of these games is wrong (see testdata README): they are 15+10.
        await play(host, actions_for_game(game, increment=10.0), clock, speed=SPEED)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 15
        while loop.time() < deadline:
            await asyncio.sleep(0.2)
            if pgn_live.exists() and pgn_moves_and_clocks(pgn_live.read_text())[0] == played:
                break
        watcher.cancel()
        await asyncio.gather(watcher, return_exceptions=True)

    moves, clocks = pgn_moves_and_clocks(pgn_live.read_text())
    assert moves == played
    shown = clocks_at_the_presses(board, len(played))
    assert clocks == shown  # every [%clk] is what the clock showed at that press, to the second
    # The script presses when the game's own [%clk] says; a late press (or a late start of
    # the opponent's time) moves that by far less than this at 40x.
    assert all(
        p is not None and abs(p - s) <= SCRIPT_SLACK
        for s, p in zip(shown, played_clocks, strict=True)
    )

    pgn_offline, events = tmp_path / "offline.pgn", tmp_path / "events.jsonl"
    assert main(["replay", str(capture), "--pgn", str(pgn_offline), "--events", str(events)]) == 0
    offline_moves, offline_clocks = pgn_moves_and_clocks(pgn_offline.read_text())
    assert offline_moves == played
    assert offline_clocks == shown  # the capture replays to the same clock times
    lines = [json.loads(line) for line in events.read_text().splitlines()]
    assert all("type" in e and "t" in e for e in lines)
    assert sum(e["type"] == "move-played" for e in lines) == len(played)


def test_replay_accepts_a_plain_file_of_board_bytes(tmp_path: Path) -> None:
    from boards.dgt.messages import BoardDump, FieldUpdate, encode_message
    from boards.position import BoardPosition, square_to_index

    start = BoardPosition.from_fen(chess.STARTING_FEN)
    raw = encode_message(BoardDump(start))
    raw += encode_message(FieldUpdate(square_to_index(chess.E2), 0))
    raw += encode_message(FieldUpdate(square_to_index(chess.E4), 1))
    path = tmp_path / "raw.bin"
    path.write_bytes(raw)
    out = tmp_path / "game.pgn"
    assert main(["replay", str(path), "--pgn", str(out)]) == 0
    assert pgn_moves_and_clocks(out.read_text())[0] == ["e2e4"]


def test_replay_reports_a_broken_capture(tmp_path: Path, capsys: object) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"t": 0, "dir": "in", "hex": "zz"}\n')
    assert main(["replay", str(path)]) == 2


def test_watch_rejects_a_bad_time_control() -> None:
    args = build_parser().parse_args(["watch", "/dev/null", "--time-control", "90 minutes"])
    try:
        asyncio.run(_watch(args))
    except SystemExit as exc:
        assert "time-control" in str(exc)
    else:
        raise AssertionError("a bad time control must stop watch with a message")


def test_parser_knows_every_command() -> None:
    parser = build_parser()
    for argv in (["boards"], ["sim"], ["demo"], ["watch", "X"], ["replay", "Y"]):
        assert isinstance(parser.parse_args(argv), argparse.Namespace)


def test_replay_pgn_is_dated_by_the_capture_not_by_the_replay(tmp_path: Path) -> None:
    """A capture started in the evening at UTC-2 is the 5th at the venue and the 6th in UTC;
    the replay, run years later, must say so."""
    capture, pgn = tmp_path / "capture.jsonl", tmp_path / "game.pgn"
    capture.write_text(json.dumps({"meta": {"started_at": "2024-03-05T23:30:00-02:00"}}) + "\n")
    assert main(["replay", str(capture), "--pgn", str(pgn)]) == 0
    game = chess.pgn.read_game(io.StringIO(pgn.read_text(encoding="utf-8")))
    assert game is not None
    assert game.headers["Date"] == "2024.03.05"
    assert (game.headers["UTCDate"], game.headers["UTCTime"]) == ("2024.03.06", "01:30:00")


def test_replay_pgn_of_a_capture_without_a_start_time_has_an_unknown_date(tmp_path: Path) -> None:
    capture, pgn = tmp_path / "raw.bin", tmp_path / "game.pgn"
    capture.write_bytes(b"")  # raw board bytes: no meta line, so no date
    assert main(["replay", str(capture), "--pgn", str(pgn)]) == 0
    game = chess.pgn.read_game(io.StringIO(pgn.read_text(encoding="utf-8")))
    assert game is not None
    assert game.headers["Date"] == "????.??.??"
    assert "UTCDate" not in game.headers and "UTCTime" not in game.headers
