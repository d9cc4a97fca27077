"""`boardwire pairings`: Berger tables, Dutch pairings of a TRF's next round, a TRF's
round as the pairing program wrote it, or a round of an event's round robin.

Output (text): one line per board, "white black" as starting numbers, White first,
a bye as "player 0"; several rounds are separated by "Round N" lines.
Output (--json): a round is a list of [white, black] pairs (bye: [player, 0]); all
Berger rounds are a list of such lists; with --event each pair is an object
{"board", "white", "black", "white_name", "black_name"} (bye: board 0, black 0).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from broadcast.fide.pairing import Pairing


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register `pairings` on the `boardwire` subcommand parser."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "pairings",
        help="round-robin tables, Dutch Swiss pairings from a TRF, or an event's round",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--berger", type=int, metavar="N", help="Berger table for N players")
    source.add_argument("--trf", metavar="FILE", help="a TRF-16 file from the pairing program")
    source.add_argument("--event", metavar="EVENT.toml", help="an event config (round robins)")
    parser.add_argument("--round", type=int, metavar="R", help="only this round")
    parser.add_argument(
        "--next",
        action="store_true",
        help="with --trf: pair the next round with FIDE Dutch (C.04.3)",
    )
    parser.add_argument(
        "--acceleration",
        choices=("baku",),
        help="with --trf --next: accelerated pairings (FIDE C.04.5.1 Baku)",
    )
    parser.add_argument("--double", action="store_true", help="with --berger: double round robin")
    parser.add_argument("--section", metavar="NAME", help="with --event: the section")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.set_defaults(handler=run)
    return parser


def _print_round(pairings: tuple[Pairing, ...]) -> None:
    for pairing in pairings:
        white, black = pairing.as_pair()
        print(f"{white} {black}")


def _fail(message: str) -> int:
    print(f"boardwire pairings: {message}", file=sys.stderr)
    return 2


def run(args: argparse.Namespace) -> int:
    """Handler for `boardwire pairings`; returns the exit code."""
    try:
        if args.berger is not None:
            return _berger(args)
        if args.trf is not None:
            return _trf(args)
        return _event(args)
    except (ValueError, OSError) as exc:
        return _fail(str(exc))


def _berger(args: argparse.Namespace) -> int:
    from broadcast.fide.berger import berger_round, berger_table

    if args.next:
        return _fail("--next needs --trf")
    cycles = 2 if args.double else 1
    if args.round is not None:
        pairings = berger_round(args.berger, args.round, cycles)
        if args.json:
            print(json.dumps([list(p.as_pair()) for p in pairings]))
        else:
            _print_round(pairings)
        return 0
    table = berger_table(args.berger, cycles)
    if args.json:
        print(json.dumps([[list(p.as_pair()) for p in rnd] for rnd in table]))
        return 0
    for number, pairings in enumerate(table, start=1):
        print(f"Round {number}")
        _print_round(pairings)
    return 0


def _trf(args: argparse.Namespace) -> int:
    from broadcast.fide.dutch import pair_trf
    from broadcast.fide.pairing_import import round_pairings
    from broadcast.fide.trf import load_trf

    if args.next == (args.round is not None):
        return _fail("with --trf give either --next (pair it) or --round R (read it)")
    if args.acceleration is not None and not args.next:
        return _fail("--acceleration is for pairing: give --next")
    report = load_trf(args.trf)
    if args.next:
        # The total rounds (XXR/142) and the initial colour (XXC/152) as the file says.
        _, pairings = pair_trf(report, acceleration=args.acceleration)
    else:
        pairings = round_pairings(report.crosstable, args.round)
    if args.json:
        print(json.dumps([list(p.as_pair()) for p in pairings]))
    else:
        _print_round(pairings)
    return 0


def _event(args: argparse.Namespace) -> int:
    from broadcast.config import ConfigError, load_event
    from broadcast.fide.berger import berger_round

    if args.round is None:
        return _fail("--event needs --round R")
    try:
        event = load_event(args.event)
    except ConfigError as exc:
        print(exc, file=sys.stderr)
        return 1
    if args.section is not None:
        section = event.section(args.section)
    elif len(event.sections) == 1:
        section = event.sections[0]
    else:
        known = ", ".join(s.name for s in event.sections)
        return _fail(f"the event has several sections; pick one with --section ({known})")
    if section.system == "swiss":
        return _fail(
            f"section {section.name!r} is a Swiss: its pairings depend on results; "
            "use --trf FILE --next (or --round R to read the pairing program's round)"
        )
    cycles = 2 if section.system == "double-round-robin" else 1
    pairings = berger_round(len(section.players), args.round, cycles)
    names = {p.number: p.name for p in section.players}
    if args.json:
        rows = [
            {
                "board": p.board,
                "white": p.white,
                "black": p.black or 0,
                "white_name": names[p.white],
                "black_name": names[p.black] if p.black else "",
            }
            for p in pairings
        ]
        print(json.dumps(rows, ensure_ascii=False))
        return 0
    print(f"{event.name}: {section.name}, round {args.round}")
    for p in pairings:
        if p.black is None:
            print(f"  bye: {p.white} {names[p.white]}")
        else:
            print(f"  board {p.board}: {p.white} {names[p.white]} - {p.black} {names[p.black]}")
    return 0


__all__ = ["add_parser", "run"]
