"""`boardwire serve` killed with SIGKILL at random moments of a simulated round, and
restarted, ends with every game complete and identical to what was played, every move
with the clock time the clock showed; and so does a round in which every board loses
its power for 2 s mid-game while the server runs on.

The emulated boards run in their own process (`boardwire sim`), as real boards would
outlive the server: while the server is dead they keep playing and logging to their
EEPROM, and the restarted server reads what it missed from them. Each run gives the four
boards four of the firmware variants (`boardsim.firmware`), in single-board mode (one
port each) or on one bus line; over the default seeds every variant runs in both modes.
The simulator writes the truth about the clocks (`--truth`): the time each press left.

Soak runs: BOARDWIRE_CRASH_SEEDS=1-40 (or 4,7,9), BOARDWIRE_CRASH_MODES=single,bus,
BOARDWIRE_GLITCH_SEEDS=1-20.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import time
from pathlib import Path

import pytest

from broadcast.service.journal_reader import read_event
from tests.support.paths import ROOT
from tests.support.sim_round import BOARDWIRE, BoardSim, api, clock_errors, seeds, wait_up
from tests.support.web_app import free_port

EVENT = ROOT / "examples" / "pamplona-masters.toml"
PLIES = 18
SPEED = 10.0
KILLS = 3
# More seeds for a soak run: BOARDWIRE_CRASH_SEEDS=1-40 (or 4,7,9).
SEEDS_SPEC = os.environ.get("BOARDWIRE_CRASH_SEEDS", "1-2")
MODES = os.environ.get("BOARDWIRE_CRASH_MODES", "single,bus").split(",")
GLITCH_SEEDS_SPEC = os.environ.get("BOARDWIRE_GLITCH_SEEDS", "1")
FIRMWARE = ("classic", "no-beginpos", "start-tag", "nop-padding", "downloaded", "watchdog")
GLITCH_SECONDS = 2.0  # simulated seconds without power


def round_complete(port: int) -> bool:
    """Every game has all its moves, each with its clock time (the last press may come a
    moment after the move)."""
    for board in range(1, 5):
        game = api(port, f"/api/v1/games/masters-r1-b{board}")
        assert isinstance(game, dict)
        if len(game["moves"]) < PLIES or any(m["clock"] is None for m in game["moves"]):
            return False
    return True


def firmware_for(seed: int) -> list[str]:
    """The four boards' firmware: seeds 1 and 2 between them run all six variants."""
    return [FIRMWARE[((seed - 1) * 4 + i) % len(FIRMWARE)] for i in range(4)]


def bus_event(path: Path) -> Path:
    """The example with its four boards on one bus line at the simulator's addresses."""
    text = EVENT.read_text(encoding="utf-8")
    boards = "".join(
        f'[[board]]\nnumber = {n}\nport = "/dev/dgt-bus"\naddress = {10000 + n}\n'
        'section = "Masters"\n\n'
        for n in range(1, 5)
    )
    path.write_text(text[: text.index("[[board]]")] + boards, encoding="utf-8")
    return path


class Round:
    """The simulator playing four games (its own process), and how to start `serve`."""

    def __init__(
        self, tmp_path: Path, mode: str, seed: int, firmware: list[str], extra: list[str]
    ) -> None:
        self.tmp = tmp_path
        self.mode = mode
        self.sim = BoardSim(
            tmp_path, boards=4, plies=PLIES, speed=SPEED, seed=seed, firmware=firmware,
            bus=mode == "bus", extra=extra,
        )  # fmt: skip
        self.expected = self.sim.expected
        self.env = self.sim.env
        event = bus_event(tmp_path / "bus.toml") if mode == "bus" else EVENT
        self.event = event
        self.db, self.port = tmp_path / "journal.sqlite", free_port()
        self.base = [
            *BOARDWIRE,
            "serve",
            str(event),
            "--db",
            str(self.db),
            "--port",
            str(self.port),
            "--speed",
            str(SPEED),
            "--delay",
            "0",
            *[a for i, p in enumerate(self.sim.paths, 1) for a in ("--board", f"{i}={p}")],
        ]
        self.runs = 0
        self.serve: subprocess.Popen[bytes] | None = None

    def start(self, *extra: str) -> subprocess.Popen[bytes]:
        self.runs += 1
        with (self.tmp / f"serve-{self.runs}.log").open("wb") as log:  # the child keeps a copy
            self.serve = subprocess.Popen(
                [*self.base, *extra], stdout=subprocess.DEVNULL, stderr=log, env=self.env, cwd=ROOT
            )
        return self.serve

    def trouble(self) -> str:
        return self.sim.trouble()

    def check(self) -> None:
        """Every game move for move, and every clock time as the clock showed it, on the
        public API and in the journal."""
        assert self.serve is not None
        wait_up(self.port, self.serve)
        got = []
        for board in range(1, 5):
            game = api(self.port, f"/api/v1/games/masters-r1-b{board}")
            assert isinstance(game, dict)
            got.append([m["uci"] for m in game["moves"]])
        assert got == self.expected, self.trouble()
        self.serve.send_signal(signal.SIGTERM)
        self.serve.wait(timeout=10)
        record = read_event(self.event, self.db)
        games = [record.book.get(f"masters-r1-b{b}").moves for b in range(1, 5)]
        assert [[m.uci for m in moves] for moves in games] == self.expected
        wrong = clock_errors(games, self.sim.truth_presses())
        # Every clock time, in every run: no allowance.
        assert wrong == {board: [] for board in range(1, 5)}, (wrong, self.trouble())

    def close(self) -> None:
        if self.serve is not None and self.serve.poll() is None:
            self.serve.kill()
            self.serve.wait()
        self.sim.close()


def crash_cases() -> list[tuple[str, int]]:
    return [(mode, seed) for mode in MODES for seed in seeds(SEEDS_SPEC)]


@pytest.mark.timeout(170)  # a round that never completes fails on `got == expected` first
@pytest.mark.parametrize(("mode", "seed"), crash_cases())
def test_kill_9_and_restart_loses_nothing(tmp_path: Path, mode: str, seed: int) -> None:
    rng = random.Random(seed)
    play = Round(tmp_path, mode, seed, firmware_for(seed), [])
    try:
        kills = 0
        serve = play.start("--round", "1")
        # About 40 s when all goes well; a game left wrong shows as a wrong game, not as a
        # pytest timeout.
        deadline = time.monotonic() + 120
        done = False
        while time.monotonic() < deadline and not done:
            wait_up(play.port, serve)
            # Killed at a random moment: often while the restarted server still reads the
            # boards' logs (about 8 s each), sometimes later; never more than KILLS times,
            # then it runs to the end of the round.
            alive_for = rng.uniform(0.5, 12.0) if kills < KILLS else deadline
            end = time.monotonic() + alive_for
            while time.monotonic() < end and time.monotonic() < deadline:
                if round_complete(play.port):
                    done = True
                    break
                time.sleep(0.2)
            if done or kills >= KILLS:
                break
            serve.send_signal(signal.SIGKILL)
            serve.wait()
            kills += 1
            time.sleep(rng.uniform(0.0, 1.0))  # dead for a while: the boards play on
            serve = play.start()
        assert kills >= 1
        play.check()
    finally:
        play.close()


@pytest.mark.timeout(170)
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("seed", seeds(GLITCH_SEEDS_SPEC))
def test_a_power_glitch_on_every_board_loses_nothing(tmp_path: Path, mode: str, seed: int) -> None:
    # Each board loses its power for 2 s at its own moment mid-game; the server runs on.
    # Before: a rebooted board answered the polls but sent nothing, the driver never
    # noticed, and 0 of 4 games came out right.
    rng = random.Random(1000 + seed)
    cuts = [f"{rng.uniform(30.0, 150.0):.1f}:{GLITCH_SECONDS}:{b}" for b in range(1, 5)]
    extra = [a for cut in cuts for a in ("--power-loss", cut)]
    play = Round(tmp_path, mode, seed, firmware_for(seed), extra)
    try:
        serve = play.start("--round", "1")
        wait_up(play.port, serve)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not round_complete(play.port):
            assert serve.poll() is None, play.trouble()
            time.sleep(0.3)
        play.check()
    finally:
        play.close()
