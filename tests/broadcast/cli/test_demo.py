"""`boardwire demo`: the script (late player, flag fall, kings' signal) and a short run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import chess
import pytest

from boardsim.script import ClockSetup, LeverPress, SquareSet
from broadcast.cli.demo import EVENT, SCRIPT, _games, board_actions, kings_signal
from broadcast.config import load_event
from tests.support.event_log import assert_no_errors
from tests.support.paths import ROOT
from tests.support.web_app import free_port

EVENT_TC = load_event(EVENT).sections[0].time_control


def test_late_player_flag_and_signal_are_in_the_script() -> None:
    games = _games()
    by_board = {s.board: s for s in SCRIPT}
    normal = board_actions(by_board[1], games[0], "none", EVENT_TC)
    late = board_actions(by_board[2], games[1], "none", EVENT_TC)
    first_press = [a for a in late if isinstance(a, LeverPress)]
    assert first_press[1].t - first_press[0].t >= by_board[2].late  # White's first move waits
    flag = board_actions(by_board[3], games[2], "none", EVENT_TC)
    assert sum(isinstance(a, LeverPress) for a in flag) == 1 + 31  # then nobody moves
    signal = board_actions(by_board[4], games[3], "none")
    assert isinstance(signal[-1], SquareSet)
    assert len(normal) > 100


@pytest.mark.parametrize("habits", ["none", "realistic"])
def test_demo_clocks_follow_the_event_time_control(habits: str) -> None:
    """The sample games' own clocks (a 15-minute rapid) are not the event's 7200+30."""
    assert str(EVENT_TC) == "7200+30"
    games = _games()
    for script in SCRIPT:
        actions = board_actions(script, games[script.game], habits, EVENT_TC)
        setups = [a for a in actions if isinstance(a, ClockSetup)]
        assert setups
        assert all(
            (s.left_seconds, s.right_seconds, s.increment) == (7200, 7200, 30) for s in setups
        )


def test_late_white_keeps_time_on_the_clock() -> None:
    """Board 2: White arrives 10 minutes late and still has most of the 2 hours, so the
    clock never reaches 0:00:00 while moves arrive (the demo used to start at 15 min)."""
    games = _games()
    script = next(s for s in SCRIPT if s.board == 2)
    actions = board_actions(script, games[script.game], "none", EVENT_TC)
    presses = [a for a in actions if isinstance(a, LeverPress)]
    white_thinking = sum(
        later.t - earlier.t for earlier, later in zip(presses[0::2], presses[1::2], strict=False)
    )
    assert white_thinking < 7200 + 30 * len(presses) / 2 - 600


def test_kings_signal_puts_the_kings_on_the_centre() -> None:
    board = chess.Board()
    changes = kings_signal(board, "1/2-1/2")
    placed = {sq for sq, code in changes if code}
    assert placed == {chess.E4, chess.E5}


def test_demo_serves_the_event(tmp_path: Path) -> None:
    port = free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "broadcast.cli",
            "demo",
            "--port",
            str(port),
            "--seconds",
            "8",
            "--speed",
            "30",
            "--db",
            str(tmp_path / "demo.sqlite"),
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        deadline = time.monotonic() + 15
        event = None
        while time.monotonic() < deadline and event is None:
            try:
                with urllib.request.urlopen(
                    f"http://127.0.0.1:{port}/api/v1/event", timeout=1
                ) as r:
                    event = json.loads(r.read())
            except OSError:
                time.sleep(0.2)
        assert event is not None and event["name"] == "Pamplona Masters"
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/arbiter/login", timeout=2) as r:
            assert r.status == 200
        out, _ = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, out
    assert f"http://127.0.0.1:{port}/" in out and "password" in out
    assert_no_errors(out)


def _kings_at_the_end(actions: list[object]) -> tuple[chess.Square, chess.Square]:
    """Where the kings stand once every square change of the timeline is done."""
    from boards.position import SYMBOL_TO_CODE, square_to_index

    square_of = {square_to_index(sq): sq for sq in chess.SQUARES}
    codes = {
        square_to_index(sq): SYMBOL_TO_CODE[p.symbol()]
        for sq, p in chess.Board().piece_map().items()
    }
    for a in sorted((a for a in actions if isinstance(a, SquareSet)), key=lambda a: a.t):
        codes[a.index] = a.code
    kings = {
        code: square_of[i]
        for i, code in codes.items()
        if code in (SYMBOL_TO_CODE["K"], SYMBOL_TO_CODE["k"])
    }
    return kings[SYMBOL_TO_CODE["K"]], kings[SYMBOL_TO_CODE["k"]]


@pytest.mark.parametrize("habits", ["none", "realistic"])
def test_every_board_of_the_demo_ends_as_the_readme_announces(habits: str) -> None:
    """Each board ends with its scripted kings' signal or its scripted flag fall: no
    board's clock runs on after its last move (a time forfeit nobody announced), and no
    player's habit adds a signal the script does not have. The README lists each board's
    story as the demo prints it."""
    from boards.reconstruction.result_signal import result_of_kings

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    games = _games()
    for script in SCRIPT:
        assert f"board {script.board}: {script.story}" in readme, script
        actions = board_actions(script, games[script.game], habits, EVENT_TC)
        signalled = result_of_kings(*_kings_at_the_end(actions))
        assert signalled == script.signal, (script.board, signalled)
        if script.signal is None:  # then the game must end on the flag, and say so
            assert script.plies is not None and "flag falls" in script.story, script


def test_make_demo_takes_a_port() -> None:
    def dry(*extra: str) -> str:
        env = {k: v for k, v in os.environ.items() if not k.startswith("MAKE")}  # under make
        run = subprocess.run(
            ["make", "--no-print-directory", "-n", "demo", *extra],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
            env=env,
        )
        return next(line for line in run.stdout.splitlines() if "boardwire demo" in line)

    assert dry("PORT=8090").endswith("boardwire demo --port 8090")
    assert dry().endswith("boardwire demo")
