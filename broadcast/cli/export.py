"""`boardwire export EVENT.toml`: PGN and TRF from the journal, for organisers."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from broadcast.config.errors import ConfigError
from broadcast.export.pgn import event_pgn
from broadcast.export.trf import section_trf
from broadcast.games.ids import slug
from broadcast.journal.store import JournalError
from broadcast.publish.files import write_atomically
from broadcast.publish.folder import export_event_folder
from broadcast.publish.lichess_teams import lichess_teams_text
from broadcast.service.journal_reader import read_event


def add_parser(sub: Any) -> None:
    parser = sub.add_parser(
        "export", help="PGN of every game and TRF-16 of the results, from the journal"
    )
    parser.add_argument("event", type=Path, metavar="EVENT.toml")
    parser.add_argument(
        "--db", type=Path, help="journal file (default: EVENT.sqlite next to the config)"
    )
    parser.add_argument(
        "--pgn", type=Path, metavar="OUT", help="every game of the event in one PGN file"
    )
    parser.add_argument(
        "--trf",
        type=Path,
        metavar="OUT",
        help="TRF-16 of the results (several sections: OUT-<section>.trf)",
    )
    parser.add_argument(
        "--folder", type=Path, metavar="DIR", help="round-N/game-M.pgn and games.pgn files"
    )
    parser.add_argument(
        "--lichess-teams",
        type=Path,
        metavar="OUT",
        help="a team section's players as Lichess's broadcast 'teams' box takes them "
        "(several team sections: OUT-<section>.txt)",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if not (args.pgn or args.trf or args.folder or args.lichess_teams):
        print(
            "export: say what to write: --pgn OUT, --trf OUT, --folder DIR and/or "
            "--lichess-teams OUT",
            file=sys.stderr,
        )
        return 2
    try:
        record = read_event(args.event, args.db)
    except (ConfigError, JournalError) as exc:
        print(f"export: {exc}", file=sys.stderr)
        return 2
    if args.pgn:
        # Organisers' export: the whole truth, results recorded for the tournament included.
        write_atomically(
            args.pgn, event_pgn(record.book, record.config, tournament=record.tournament)
        )
        print(f"wrote {args.pgn}")
    if args.trf:
        sections = record.config.sections
        for section in sections:
            out = (
                args.trf
                if len(sections) == 1
                else args.trf.with_name(f"{args.trf.stem}-{slug(section.name)}{args.trf.suffix}")
            )
            write_atomically(out, section_trf(record.tournament, record.config, section.name))
            print(f"wrote {out}")
    if args.folder:
        export_event_folder(args.folder, record.book, record.config, tournament=record.tournament)
        print(f"wrote {args.folder}/")
    if args.lichess_teams:
        teams = [section for section in record.config.sections if section.is_team]
        if not teams:
            print("export: --lichess-teams: the event has no team section", file=sys.stderr)
            return 2
        for section in teams:
            out = (
                args.lichess_teams
                if len(teams) == 1
                else args.lichess_teams.with_name(
                    f"{args.lichess_teams.stem}-{slug(section.name)}{args.lichess_teams.suffix}"
                )
            )
            write_atomically(out, lichess_teams_text(section))
            print(f"wrote {out}")
    return 0


__all__ = ["add_parser", "run"]
