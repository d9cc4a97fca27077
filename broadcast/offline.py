"""Reading an event's journal without running it: for standings, exports and audits."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from broadcast.config import load_event
from broadcast.config.model import EventConfig
from broadcast.event_kinds import register_all
from broadcast.games.book import GameBook
from broadcast.games.events import GameEvent
from broadcast.journal import Journal, JournalError
from broadcast.tournament.events import TournamentEvent
from broadcast.tournament.state import TournamentState


@dataclass(frozen=True)
class EventRecord:
    config: EventConfig
    tournament: TournamentState
    book: GameBook
    events: int


def default_db(event: Path) -> Path:
    """Where `serve` keeps the journal when --db is not given."""
    return event.with_suffix(".sqlite")


def read_event(event: Path, db: Path | None = None) -> EventRecord:
    """The event's tournament and games as the journal leaves them. Raises ConfigError,
    or JournalError when there is no journal to read."""
    config = load_event(event)
    path = db or default_db(event)
    if not path.exists():
        raise JournalError(
            f"no journal at {path}: run `boardwire serve {event}` first, or give --db PATH"
        )
    register_all()
    journal = Journal(path)
    tournament, book, count = TournamentState.new(config), GameBook(), 0
    try:
        for entry in journal.read():
            count += 1
            item: Any = entry.event
            if isinstance(item, TournamentEvent):
                tournament = tournament.apply(item)
                book = book.synced(tournament)
            elif isinstance(item, GameEvent):
                book = book.apply(item)
    finally:
        journal.close()
    return EventRecord(config, tournament, book, count)
