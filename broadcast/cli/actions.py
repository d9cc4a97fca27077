"""`boardwire actions EVENT.toml`: every arbiter action of the event, from the journal.

The organiser's and the chief arbiter's record of who decided what and when: each action
with its number (what an undo names: the desk's Undo, or `POST
/api/v1/arbiter/actions/N/undo` on the running `serve`), its words, what it removed, and
which action undid it. Read-only: the journal is opened for reading, a running `serve` is
not disturbed.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
from pathlib import Path
from typing import Any

from broadcast.config import load_event
from broadcast.config.errors import ConfigError
from broadcast.journal.kinds import register_all
from broadcast.journal.store import Journal, JournalError
from broadcast.service.action_log import ActionLog
from broadcast.service.journal_reader import default_db

__all__ = ["add_parser", "run"]


def add_parser(sub: Any) -> None:
    parser = sub.add_parser(
        "actions", help="every arbiter action of the event (who, when, what), from the journal"
    )
    parser.add_argument("event", type=Path, metavar="EVENT.toml")
    parser.add_argument(
        "--db", type=Path, help="journal file (default: EVENT.sqlite next to the config)"
    )
    parser.add_argument("--json", action="store_true", help="one JSON list instead of lines")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    try:
        config = load_event(args.event)
    except ConfigError as exc:
        print(f"actions: {exc}", file=sys.stderr)
        return 2
    path = args.db or default_db(args.event)
    if not path.exists():
        print(f"actions: no journal at {path}: give --db PATH", file=sys.stderr)
        return 2
    register_all()
    log = ActionLog()
    try:
        journal = Journal(path, readonly=True)
        try:
            log.load(journal)
        finally:
            journal.close()
    except JournalError as exc:
        print(f"actions: {exc}", file=sys.stderr)
        return 2
    rows: list[dict[str, Any]] = [
        {
            "seq": a.seq,
            "at": dt.datetime.fromtimestamp(a.t, config.zone).isoformat(timespec="seconds"),
            "by": a.by,
            "kind": a.kind,
            "summary": a.summary,
            "removes": list(a.removes),
            "undoes": a.undoes,
            "undone_by": log.undone_by(a.seq),
        }
        for a in reversed(log.recent(len(log)))
    ]
    if args.json:
        print(json.dumps(rows, ensure_ascii=False, indent=1))
        return 0
    if not rows:
        print(f"no arbiter actions in {path}")
    for row in rows:
        state = f"  [undone by {row['undone_by']}]" if row["undone_by"] else ""
        print(f"{row['seq']:>7}  {row['at']}  {row['by']}: {row['summary']}{state}")
        for removed in row["removes"]:
            print(f"{'':>9}removed: {removed}")
    return 0
