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
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if not (args.pgn or args.trf or args.folder):
        print(
            "export: say what to write: --pgn OUT, --trf OUT and/or --folder DIR", file=sys.stderr
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
    return 0


__all__ = ["add_parser", "run"]
