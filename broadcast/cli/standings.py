"""`boardwire standings`: standings with FIDE tie-breaks from a TRF file or an event's
journal; a team section's are its team standings and board prizes
(`broadcast.cli.team_standings`)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from broadcast.cli.team_standings import team_section_json, team_text
from broadcast.fide.standings import Standings, compute_standings
from broadcast.fide.tiebreaks import TiebreakError, parse_edition, parse_tiebreaks
from broadcast.fide.trf import TrfError, load_trf
from broadcast.tournament.final_standings import section_prizes, section_standings
from broadcast.tournament.prizes import PrizeList

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
        "--edition",
        default=None,
        help="FIDE C.07 edition: 2024 or 2026 (default: the event's, else 2024)",
    )
    parser.add_argument("--rounds", type=int, metavar="N", help="standings after round N")
    parser.add_argument(
        "--unrated", type=int, metavar="RATING", help="rating for unrated opponents in ARO/TPR/APRO"
    )
    parser.add_argument(
        "--prizes",
        action="store_true",
        help="with --event: also the prize list of sections with [section.prizes]",
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
    out.extend(
        line(row) + (f"  [{r.note}]" if r.note else "")
        for row, r in zip(body, standings.rows, strict=True)
    )
    out.append(f"(after {standings.rounds} rounds; FIDE C.07 edition {standings.edition})")
    return "\n".join(out)


def _event_standings(args: argparse.Namespace) -> int:
    from broadcast.config.errors import ConfigError
    from broadcast.journal.store import JournalError
    from broadcast.service.journal_reader import read_event

    try:
        record = read_event(Path(args.event), Path(args.db) if args.db else None)
        edition = parse_edition(args.edition) if args.edition else record.config.tiebreak_edition
        tables: list[tuple[str, Standings | str, Any]] = []
        prize_lists: dict[str, PrizeList] = {}
        for section in record.config.sections:
            if section.is_team:
                # A team event's final figures: the teams' standings and the board
                # prizes (its `tiebreaks` are the teams', not the players').
                team_state = record.tournament.section(section.name)
                tables.append(
                    (
                        section.name,
                        team_text(section, team_state, edition=edition),
                        team_section_json(section, team_state, edition=edition),
                    )
                )
                continue
            specs = parse_tiebreaks(
                args.tiebreaks or ",".join(section.individual_tiebreaks) or DEFAULT_TIEBREAKS
            )
            state = record.tournament.section(section.name)
            if args.tiebreaks is None and args.rounds is None and args.unrated is None:
                # As the regulations rank: play-off for first, withdrawals noted.
                standings = section_standings(state, edition)
            else:
                standings = compute_standings(
                    state.to_crosstable(),
                    specs,
                    edition=edition,
                    rounds=args.rounds,
                    unrated_rating=args.unrated,
                )
            tables.append((section.name, standings, standings.as_json()))
            prize_list = section_prizes(state, edition) if args.prizes else None
            if prize_list is not None:
                prize_lists[section.name] = prize_list
    except (ConfigError, JournalError, TiebreakError, ValueError) as exc:
        print(f"standings: {exc}", file=sys.stderr)
        return 2
    if args.json and args.prizes:
        data = {
            name: {
                "standings": as_json,
                "prizes": prize_lists[name].as_json() if name in prize_lists else None,
            }
            for name, _, as_json in tables
        }
        print(json.dumps(data, indent=2, ensure_ascii=False))
    elif args.json:
        if len(tables) == 1:
            print(json.dumps(tables[0][2], indent=2, ensure_ascii=False))
        else:
            print(
                json.dumps(
                    {name: as_json for name, _, as_json in tables}, indent=2, ensure_ascii=False
                )
            )
    else:
        for name, table, _ in tables:
            print(f"== {name}")
            print(table if isinstance(table, str) else format_table(table))
            if name in prize_lists:
                print(format_prizes(prize_lists[name]))
    return 0


def format_prizes(prizes: PrizeList) -> str:
    """The prize list as text: rank, name, place prize, pool share, total (and the
    retention and net where the regulation states one), then the prizes withheld."""
    title = "Prizes" + (" (provisional: first place undecided)" if prizes.provisional else "")
    # The place column holds place and category prizes; the lines below say which.
    head = f"{'Rk':>3}  {'Name':<30} {'Place':>9} {'Pool':>9} {'Total':>9}"
    out = [title, head + (f" {'Retained':>9} {'Net':>9}" if prizes.retention else "")]
    for p in prizes.lines:
        won = p.place + p.category
        line = f"{p.rank:>3}  {p.name:<30} {won:>9.2f} {p.pool:>9.2f} {p.total:>9.2f}"
        out.append(line + (f" {p.retention:>9.2f} {p.net:>9.2f}" if prizes.retention else ""))
    if not prizes.lines:
        out.append("  (none yet)")
    for p in prizes.lines:
        if p.category:
            out.append(f"  {p.name}: {p.category:.2f} as {p.category_name}")
    for w in prizes.withheld:
        unpaid = f"; {w.amount:.2f} not awarded" if w.amount else ""
        out.append(f"  no prize: {w.start} {w.name} ({w.reason}{unpaid})")
    out.append(f"(amounts in {prizes.currency})")
    return "\n".join(out)


def run(args: argparse.Namespace) -> int:
    """Handler of ``boardwire standings``; returns the exit code."""
    if args.event is not None:
        return _event_standings(args)
    try:
        report = load_trf(args.trf)
        edition = parse_edition(args.edition or "2024")
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

__all__ = ["DEFAULT_TIEBREAKS", "add_parser", "format_prizes", "format_table", "main", "run"]
