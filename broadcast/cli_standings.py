"""`boardwire standings`: standings with FIDE tie-breaks from a TRF file (or, later, the journal)."""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from typing import Any

from broadcast.tournament.standings import Standings, compute_standings
from broadcast.tournament.tiebreaks import TiebreakError, parse_edition, parse_tiebreaks
from broadcast.tournament.trf import TrfError, load_trf

DEFAULT_TIEBREAKS = "BH-C1,SB,PS,DE,APRO"


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``standings`` sub-command to a ``add_subparsers()`` object."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "standings", help="standings with FIDE tie-breaks from a TRF file or an event"
    )
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--trf", metavar="FILE", help="a TRF-16 tournament report")
    source.add_argument("--event", metavar="EVENT.toml", help="an event config (needs the journal)")
    parser.add_argument("--db", metavar="PATH", help="journal database for --event")
    parser.add_argument(
        "--tiebreaks",
        metavar="LIST",
        help=f'tie-break list, e.g. "{DEFAULT_TIEBREAKS}" (default: from the TRF 202/212 '
        f"record, else {DEFAULT_TIEBREAKS})",
    )
    parser.add_argument(
        "--edition", default="2024", help="FIDE C.07 edition: 2024 (default) or 2026"
    )
    parser.add_argument("--rounds", type=int, metavar="N", help="standings after round N")
    parser.add_argument(
        "--unrated", type=int, metavar="RATING", help="rating for unrated opponents in ARO/TPR/APRO"
    )
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.set_defaults(handler=run)
    return parser


def _fmt(value: float | None) -> str:
    if value is None:
        return "-"
    return str(int(value)) if value == int(value) else f"{value:g}"


def format_table(standings: Standings) -> str:
    """A readable table: rank, start number, name, points and each tie-break."""
    labels = [s.label for s in standings.tiebreaks]
    header = ["Rk", "SNo", "Name", "Pts", *labels]
    body = [
        [
            str(r.rank),
            str(r.start),
            r.name,
            _fmt(r.points),
            *(_fmt(r.tiebreaks[label]) for label in labels),
        ]
        for r in standings.rows
    ]
    widths = [max(len(h), *(len(row[i]) for row in body)) for i, h in enumerate(header)]
    left = {2}

    def line(cells: list[str]) -> str:
        return "  ".join(
            c.ljust(w) if i in left else c.rjust(w)
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        ).rstrip()

    out = [line(header), line(["-" * w for w in widths])]
    out.extend(line(row) for row in body)
    out.append(f"(after {standings.rounds} rounds; FIDE C.07 edition {standings.edition})")
    return "\n".join(out)


def _event_standings(args: argparse.Namespace) -> int:
    try:
        config = importlib.import_module("broadcast.config")
    except ImportError:
        config = None
    if config is None or not hasattr(config, "load_event"):
        print("standings: only --trf is supported until the event config lands", file=sys.stderr)
        return 2
    try:
        config.load_event(args.event)
    except Exception as exc:  # the config loader reports file, line and hint itself
        print(f"standings: {exc}", file=sys.stderr)
        print("standings: (only --trf is supported until the journal lands)", file=sys.stderr)
        return 2
    print(
        "standings: the event config is valid, but results live in the journal, which is not "
        "available yet; only --trf is supported for now (export a TRF and use --trf FILE)",
        file=sys.stderr,
    )
    return 2


def run(args: argparse.Namespace) -> int:
    """Handler of ``boardwire standings``; returns the exit code."""
    if args.event:
        return _event_standings(args)
    try:
        report = load_trf(args.trf)
        edition = parse_edition(args.edition)
        text = args.tiebreaks
        if text is None:
            text = ",".join(report.tiebreaks) or DEFAULT_TIEBREAKS
        specs = parse_tiebreaks(text)
        standings = compute_standings(
            report.crosstable,
            specs,
            edition=edition,
            rounds=args.rounds,
            unrated_rating=args.unrated,
        )
    except OSError as exc:
        print(f"standings: cannot read {args.trf}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    except (TrfError, TiebreakError, ValueError) as exc:
        print(f"standings: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(standings.as_json(), indent=2, ensure_ascii=False))
    else:
        print(format_table(standings))
    return 0


def main(argv: list[str] | None = None) -> int:
    """Run the sub-command stand-alone (tests, or before it is wired into ``boardwire``)."""
    parser = argparse.ArgumentParser(prog="boardwire")
    add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return int(args.handler(args))


if __name__ == "__main__":
    sys.exit(main())
