"""Command line of the simulator: `boardwire sim ...` (or `python -m boardsim ...`).

`add_arguments(parser)` adds the options to any argparse parser; `run(args)` starts the
devices, prints one line per board (path, serial, mode, bus address) and runs until
Ctrl-C or SIGTERM.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import sys
from collections.abc import Sequence
from pathlib import Path

from boardsim.firmware import DEFAULT_FIRMWARE, FIRMWARE_NAMES, Firmware, firmware_list
from boardsim.script import HABITS
from boardsim.sim import FIRST_SERIAL, PowerLoss, Simulator, load_games


def _positive(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be greater than 0, got {text}")
    return value


def _firmware(text: str) -> list[Firmware]:
    try:
        return firmware_list(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _power_loss(text: str) -> PowerLoss:
    try:
        return PowerLoss.parse(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def add_firmware_argument(parser: argparse.ArgumentParser) -> None:
    """`--firmware NAME[,NAME...]`: the boards' firmware variant(s), given in turn."""
    parser.add_argument(
        "--firmware",
        type=_firmware,
        default=None,
        metavar="NAME[,NAME...]",
        help=f"firmware variant of the emulated boards, one per board in turn "
        f"({', '.join(FIRMWARE_NAMES)}; default {DEFAULT_FIRMWARE})",
    )


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--boards", type=int, default=1, metavar="N", help="number of boards")
    parser.add_argument(
        "--bus", action="store_true", help="one bus line of N boards instead of N ports"
    )
    parser.add_argument(
        "--pgn", type=Path, metavar="FILE", help="games to play (game i on board i)"
    )
    parser.add_argument(
        "--speed", type=_positive, default=1.0, metavar="X", help="time compression (default 1)"
    )
    parser.add_argument(
        "--max-think", type=_positive, metavar="S", help="cap each think time (game seconds)"
    )
    parser.add_argument(
        "--start-after",
        type=float,
        default=0.0,
        metavar="S",
        help="real seconds to wait before the games start (time to connect)",
    )
    parser.add_argument("--rundir", type=Path, metavar="DIR", help="where the device links go")
    parser.add_argument(
        "--first-serial", type=int, default=FIRST_SERIAL, metavar="N", help="first serial number"
    )
    parser.add_argument(
        "--seed", type=int, default=0, help="seed for random timings and the players' habits"
    )
    parser.add_argument(
        "--habits",
        choices=HABITS,
        default="none",
        help="how the players move pieces: 'realistic' human habits or 'none' (tidy hands)",
    )
    parser.add_argument(
        "--line-speed", action="store_true", help="send at 9600 baud (960 bytes/s), not at once"
    )
    add_firmware_argument(parser)
    parser.add_argument(
        "--power-loss",
        type=_power_loss,
        action="append",
        default=[],
        metavar="AT:SECONDS[:BOARD]",
        help="cut a board's power (every board's without BOARD) for SECONDS, AT simulated "
        "seconds after the games start; repeatable",
    )
    parser.add_argument(
        "--truth",
        type=Path,
        metavar="FILE",
        help="append, per board once its game is played, a JSON line with every clock press "
        "(for tests: the clock times a host should have recorded)",
    )
    parser.add_argument(
        "--instant-download",
        action="store_true",
        help="send the EEPROM log at once instead of at 9600 baud (about 8 s, as real boards)",
    )


def format_devices(sim: Simulator) -> str:
    lines = []
    for d in sim.devices:
        address = str(d.address) if d.address is not None else "-"
        lines.append(f"{d.path}\t{d.serial}\t{d.mode}\t{address}")
    return "\n".join(lines)


async def run(args: argparse.Namespace) -> int:
    """Run the simulator until interrupted. Returns the process exit status."""
    try:
        games = load_games(args.pgn) if args.pgn is not None else []
        sim = Simulator(
            args.boards,
            bus=args.bus,
            games=games,
            speed=args.speed,
            rundir=args.rundir,
            first_serial=args.first_serial,
            seed=args.seed,
            line_speed=args.line_speed,
            max_think=args.max_think,
            game_delay=args.start_after,
            habits=args.habits,
            instant_download=args.instant_download,
            firmware=args.firmware or DEFAULT_FIRMWARE,
            power_losses=args.power_loss,
            truth=args.truth,
        )
    except ValueError as e:
        print(f"boardsim: {e}", file=sys.stderr)
        return 2
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, stop.set)
    try:
        await sim.start()
        print(format_devices(sim), flush=True)
        if sim.registry_path is not None:
            print(f"# registered in {sim.registry_path}; Ctrl-C to stop", file=sys.stderr)
        await stop.wait()
    finally:
        await sim.stop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.remove_signal_handler(sig)
    if sim.failures:  # each was logged with its traceback when it happened
        print(
            f"boardsim: {len(sim.failures)} emulated player(s) or port(s) failed", file=sys.stderr
        )
        return 1
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="boardsim", description="Emulated DGT boards on pseudo-terminals."
    )
    add_arguments(parser)
    args = parser.parse_args(argv)
    try:
        return asyncio.run(run(args))
    except KeyboardInterrupt:
        return 130


__all__ = ["add_arguments", "add_firmware_argument", "format_devices", "main", "run"]
