"""A round played by `boardwire sim` in its own process, for tests that kill and restart
the programs that read it (`serve`, capture stations) while the boards play on.

The emulated boards outlive whatever reads them, as real boards do: they keep playing
and logging to their EEPROM, and a restarted reader recovers what it missed from them.
The simulator writes the truth about the clocks (`--truth`: the time each press left),
so a test can ask for every move *and* every clock time.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import chess.pgn

from broadcast.games.game_state import MoveRecord
from tests.support.paths import ROOT

__all__ = [
    "BOARDWIRE",
    "SAMPLE",
    "BoardSim",
    "api",
    "clock_errors",
    "seeds",
    "short_games",
    "wait_up",
]

SAMPLE = ROOT / "examples" / "games" / "worldcup2025-sample.pgn"
BOARDWIRE = [sys.executable, "-m", "broadcast.cli"]


def seeds(spec: str) -> list[int]:
    """ "1-3,7" -> [1, 2, 3, 7] (soak runs name their seeds in the environment)."""
    out: list[int] = []
    for part in spec.split(","):
        first, _, last = part.partition("-")
        out.extend(range(int(first), int(last or first) + 1))
    return out


def short_games(path: Path, count: int, plies: int) -> list[list[str]]:
    """The sample's first `count` games cut to `plies`, written to `path` as rapid games;
    their moves (UCI)."""
    games: list[list[str]] = []
    out = io.StringIO()
    with SAMPLE.open(encoding="utf-8") as f:
        while len(games) < count and (game := chess.pgn.read_game(f)) is not None:
            node: chess.pgn.GameNode = game
            for _ in range(plies):
                node = node.variations[0]
            node.variations.clear()
            game.headers["TimeControl"] = "900+10"  # the sample's tag is prose
            games.append([m.uci() for m in game.mainline_moves()])
            print(game, file=out, end="\n\n")
    path.write_text(out.getvalue(), encoding="utf-8")
    return games


def api(port: int, path: str) -> object:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=2) as response:
        return json.loads(response.read())


def wait_up(port: int, proc: subprocess.Popen[bytes], timeout: float = 20) -> None:
    """Until `serve` on `port` answers (it must not exit meanwhile)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert proc.poll() is None, "serve exited early"
        try:
            api(port, "/api/v1/event")
            return
        except OSError:
            time.sleep(0.1)
    raise AssertionError("serve did not come up")


class BoardSim:
    """`boardwire sim` with `boards` boards playing `games.pgn` (in `tmp`), one port each
    or one bus line; `paths` are the ports, in board order."""

    def __init__(
        self,
        tmp: Path,
        *,
        boards: int,
        plies: int,
        speed: float,
        seed: int,
        firmware: list[str],
        bus: bool = False,
        extra: list[str] | tuple[str, ...] = (),
        max_think: float = 25,
        start_after: float = 3,
    ) -> None:
        self.tmp = tmp
        self.expected = short_games(tmp / "games.pgn", boards, plies)
        self.truth = tmp / "truth.jsonl"
        self.env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        sim_log = (tmp / "sim.log").open("wb")  # the child's; closed here once it has it
        self.proc = subprocess.Popen(
            [
                *BOARDWIRE, "sim", "--boards", str(boards), *(["--bus"] if bus else []),
                "--firmware", ",".join(firmware), "--pgn", str(tmp / "games.pgn"),
                "--speed", str(speed), "--max-think", str(max_think),
                "--start-after", str(start_after), "--rundir", str(tmp / "sim"),
                "--seed", str(seed), "--truth", str(self.truth), *extra,
            ],
            stdout=subprocess.PIPE, stderr=sim_log, env=self.env, cwd=ROOT,
        )  # fmt: skip
        sim_log.close()
        assert self.proc.stdout is not None
        self.paths = [self.proc.stdout.readline().decode().split("\t")[0] for _ in range(boards)]
        self.boards = boards

    def truth_presses(self) -> dict[int, list[int]]:
        """Per board, the time the clock showed after each move's press (the simulator's
        record; its first press only starts the clock)."""
        lines: list[str] = []
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            lines = self.truth.read_text().splitlines() if self.truth.exists() else []
            if len(lines) >= self.boards:
                break
            time.sleep(0.2)
        out = {}
        for line in lines:
            record = json.loads(line)
            out[record["board"]] = [seconds for _, seconds in record["presses"][1:]]
        return out

    def trouble(self) -> str:
        """What the logs in `tmp` say went wrong (errors, tracebacks, warnings), for a
        failure's message."""
        lines = []
        for log in sorted(self.tmp.glob("*.log")):
            for line in log.read_text(errors="replace").splitlines():
                if any(w in line for w in ("ERROR", "Traceback", "Error:", "WARNING")):
                    lines.append(f"{log.name}: {line}")
        return "\n".join(lines[-40:])

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        if self.proc.stdout is not None:
            self.proc.stdout.close()


def clock_errors(
    games: list[tuple[MoveRecord, ...]], truth: dict[int, list[int]], allowance: float = 0.0
) -> dict[int, list[tuple[int, float | None, int]]]:
    """Per board (1, 2, ...), the moves whose recorded clock time is not the time the clock
    showed after the press, beyond `allowance` seconds: (ply, recorded, truth)."""
    return {
        board: [
            (ply, m.remaining, want)
            for ply, (m, want) in enumerate(zip(moves, truth[board], strict=False), 1)
            if m.remaining is None
            or (
                round(m.remaining) != want
                if allowance == 0
                else abs(m.remaining - want) > allowance
            )
        ]
        for board, moves in enumerate(games, 1)
    }
