"""The `boardwire` command: the one place that wires boards, clocks, domain, web and simulator."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import asdict

from boards.drivers.discovery import ProbeResult, list_serial_ports, probe_port, probe_ports
from broadcast.cli import actions as cli_actions
from broadcast.cli import check as cli_check
from broadcast.cli import demo as demo_options
from broadcast.cli import export as cli_export
from broadcast.cli import mirror as cli_mirror
from broadcast.cli import pairings as cli_pairings
from broadcast.cli import serve as cli_serve
from broadcast.cli import standings as cli_standings
from broadcast.cli import station as cli_station
from broadcast.cli.args import (
    non_negative_float,
    port_number,
    positive_float,
    positive_int,
    serial_port_problem,
    whole_number,
)

MAX_SIM_BOARDS = 99  # what the simulator runs at once
MAX_SERIAL = 16383  # a bus address is 14 bits


def _board_rows(results: list[ProbeResult]) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    for result in results:
        if not result.boards:
            rows.append({"port": result.port, "mode": None, "error": result.error})
        for info in result.boards:
            row = asdict(info)
            row["version"] = f"{info.version[0]}.{info.version[1]}"
            rows.append(row)
    return rows


def _print_table(rows: list[dict[str, object]]) -> None:
    if not rows:
        print(
            "No serial ports found. Plug a board in, or try `boardwire sim` to start emulated boards."
        )
        return
    headers = [
        "port",
        "mode",
        "serial",
        "version",
        "bus_address",
        "battery_percent",
        "clock_present",
    ]
    titles = ["PORT", "MODE", "SERIAL", "VERSION", "BUS ADDR", "BATTERY", "CLOCK"]

    def cell(row: dict[str, object], key: str) -> str:
        value = row.get(key)
        if key == "clock_present":
            return {True: "yes", False: "no", None: "?"}[value if isinstance(value, bool) else None]
        if key == "battery_percent" and value is not None:
            return f"{value}%"
        return "-" if value is None else str(value)

    table = [[cell(r, h) for h in headers] for r in rows]
    widths = [max(len(t), *(len(line[i]) for line in table)) for i, t in enumerate(titles)]
    print("  ".join(t.ljust(w) for t, w in zip(titles, widths, strict=True)).rstrip())
    for row, line in zip(rows, table, strict=True):
        text = "  ".join(c.ljust(w) for c, w in zip(line, widths, strict=True)).rstrip()
        if row.get("error"):
            text = f"{row['port']}  (no board: {row['error']})"
        print(text)


def _simulated_ports() -> list[str]:
    from boardsim.sim import list_running

    paths: list[str] = []
    for device in list_running():
        path = device.get("path")
        if isinstance(path, str) and path not in paths:
            paths.append(path)
    return paths


async def _cmd_boards(args: argparse.Namespace) -> int:
    not_probed: list[str] = []
    if args.port:
        problem = serial_port_problem(args.port)
        if problem is not None:
            print(f"boardwire: {problem}", file=sys.stderr)
            return 1
        results = [await probe_port(args.port)]
    else:
        ports = list_serial_ports()
        to_probe = [p.path for p in ports if p.likely_dgt] + _simulated_ports()
        results = await probe_ports(to_probe) if to_probe else []
        not_probed = [p.path for p in ports if not p.likely_dgt]
    rows = _board_rows(results)
    found = any(r.boards for r in results)
    if args.json:
        print(json.dumps(rows, indent=2))
    elif found or args.port:
        _print_table(rows)
        if not_probed:
            print("Other serial ports (not probed; use --port PATH): " + ", ".join(not_probed))
    else:
        print(_nothing_found(results, not_probed))
    return 0 if found or not args.port else 1


def _nothing_found(results: list[ProbeResult], not_probed: list[str]) -> str:
    """One paragraph saying what was tried, for `boards` when no board answered."""
    parts = ["No DGT board found."]
    if results:
        parts.append("No answer on " + ", ".join(r.port for r in results) + ".")
    else:
        parts.append("No USB or Bluetooth port that looks like a DGT board.")
    if not_probed:
        parts.append(f"Other serial ports, not probed: {', '.join(not_probed)} (try --port PATH).")
    parts.append("Plug a board in and switch it on, or try `boardwire sim` for emulated boards.")
    return " ".join(parts)


# What the simulator's options accept under `boardwire sim`: its own parser lets nan, inf
# and negative numbers through, and reports a bad count without the usage.
SIM_VALUES: dict[str, Callable[[str], object]] = {
    "boards": whole_number(1, MAX_SIM_BOARDS),
    "speed": positive_float,
    "max_think": positive_float,
    "start_after": non_negative_float,
    "first_serial": whole_number(1, MAX_SERIAL),
}


def _check_sim_values(sim: argparse.ArgumentParser) -> None:
    for action in sim._actions:  # argparse has no public way to retype an added option
        if action.dest in SIM_VALUES:
            action.type = SIM_VALUES[action.dest]


def _cmd_sim(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    from boardsim import cli as sim_cli

    last = args.first_serial + args.boards - 1
    if last > MAX_SERIAL:
        parser.error(
            f"--first-serial {args.first_serial} with --boards {args.boards} goes past "
            f"serial {MAX_SERIAL} (the largest bus address)"
        )
    return asyncio.run(sim_cli.run(args))


def _cmd_replay(args: argparse.Namespace) -> int:
    from broadcast.cli.watch import run_replay

    return run_replay(args)


def _cmd_watch(args: argparse.Namespace) -> int:
    from broadcast.cli.watch import run_watch

    return run_watch(args)


def _cmd_demo(args: argparse.Namespace) -> int:
    from broadcast.cli.demo import run_demo

    return run_demo(args)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="boardwire",
        description="Live over-the-board chess: DGT boards and clocks, exact games, arbiter alerts, live web.",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log debug detail")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    boards = sub.add_parser("boards", help="list serial ports and the DGT boards on them")
    boards.add_argument(
        "--port", metavar="PATH", help="probe this port only (single board or a whole bus)"
    )
    boards.add_argument("--json", action="store_true", help="machine-readable output")
    boards.set_defaults(handler=lambda a: asyncio.run(_cmd_boards(a)))

    sim = sub.add_parser("sim", help="start emulated DGT boards on pseudo-terminals")
    try:
        from boardsim import cli as sim_cli

        sim_cli.add_arguments(sim)
    except (
        ImportError
    ):  # the simulator is part of the distribution; this only guards a broken install
        pass
    _check_sim_values(sim)
    sim.set_defaults(handler=lambda a: _cmd_sim(a, sim))

    watch = sub.add_parser("watch", help="follow one board live and keep its game as PGN")
    watch.add_argument("port", metavar="PORT", help="serial port of the board (or of its bus)")
    watch.add_argument(
        "--address",
        type=whole_number(1, MAX_SERIAL),
        metavar="N",
        help="bus address (serial number) on a bus port",
    )
    watch.add_argument("--pgn", metavar="OUT", help="keep the current game in this PGN file")
    watch.add_argument("--record", metavar="CAPTURE", help="record the raw traffic (JSON Lines)")
    watch.add_argument(
        "--time-control", metavar="TC", help="e.g. 5400+30; a software clock for boards without one"
    )
    watch.add_argument("--seconds", type=positive_float, help="stop after this many seconds")
    watch.set_defaults(handler=_cmd_watch)

    replay = sub.add_parser("replay", help="run a recorded capture through the pipeline offline")
    replay.add_argument(
        "capture", metavar="CAPTURE", help="JSON Lines capture, or a file of raw board bytes"
    )
    replay.add_argument("--pgn", metavar="OUT", help="write the reconstructed game here")
    replay.add_argument(
        "--events", metavar="OUT.jsonl", help="write every event, one JSON object a line"
    )
    replay.add_argument(
        "--board",
        metavar="SERIAL|B",
        help="which board of a bus capture goes to --pgn; with --event, the event's board number",
    )
    replay.add_argument(
        "--event",
        metavar="EVENT.toml",
        help="run the capture as board B's game in round R of this event, with the arbiter "
        "rules (the capture's started_at meets the schedule)",
    )
    replay.add_argument("--round", type=positive_int, metavar="R", help="with --event: the round")
    replay.add_argument(
        "--section", metavar="NAME", help="with --event and no [[board]] list: the section"
    )
    replay.add_argument(
        "--time-control", metavar="TC", help="software clock for boards without a clock"
    )
    replay.set_defaults(handler=_cmd_replay)

    cli_standings.add_parser(sub)
    cli_pairings.add_parser(sub)
    cli_check.add_parser(sub)
    cli_serve.add_parser(sub)
    cli_export.add_parser(sub)
    cli_actions.add_parser(sub)
    cli_mirror.add_parser(sub)
    cli_station.add_parser(sub)

    demo = sub.add_parser(
        "demo",
        help="the Pamplona Masters example on emulated boards: spectator pages and arbiter desk",
    )
    demo.add_argument(
        "--speed",
        type=positive_float,
        default=20.0,
        help="time compression of the event (default 20)",
    )
    demo.add_argument(
        "--seconds", type=positive_float, default=None, help="stop after this many seconds"
    )
    demo.add_argument("--port", type=port_number, default=8080, help="web port (default 8080)")
    demo_options.add_arguments(demo)
    demo.set_defaults(handler=_cmd_demo)
    return parser


def parse_arguments(
    parser: argparse.ArgumentParser, argv: Sequence[str] | None
) -> argparse.Namespace:
    """Like `parse_args`, but an unknown option of a subcommand is reported with that
    subcommand's usage (argparse would print the top-level one)."""
    args, extras = parser.parse_known_args(argv)
    if extras:
        command = getattr(args, "command", None)
        sub = _subparsers(parser).get(command or "", parser)
        sub.error(f"unrecognized arguments: {' '.join(extras)}")
    return args


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:  # argparse keeps no public handle on its subparsers
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parse_arguments(parser, argv)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.INFO,
        format="%(asctime)s %(levelname)s %(message)s",
        datefmt="%H:%M:%S",
    )
    try:
        result = args.handler(args)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (`| head`): stop quietly, and keep Python's exit flush quiet too.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except (MemoryError, RecursionError) as exc:
        print(
            f"boardwire: the input is too large or too deeply nested ({exc!r:.80})", file=sys.stderr
        )
        return 1
    except OSError as exc:
        # A file or device problem nobody caught closer to it: one line, no traceback.
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"boardwire: {where}{exc.strerror or exc}", file=sys.stderr)
        if args.verbose:
            raise
        return 1
    except Exception as exc:
        if args.verbose:
            raise
        print(
            f"boardwire: internal error: {type(exc).__name__}: {exc!s:.200} "
            "(run with -v for the traceback, and please report it)",
            file=sys.stderr,
        )
        return 1
    return int(result or 0)


__all__ = ["MAX_SERIAL", "MAX_SIM_BOARDS", "SIM_VALUES", "build_parser", "main", "parse_arguments"]
