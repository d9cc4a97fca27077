"""Reading an event's journal without running it: for standings, exports and audits.

The same fold as the running service (`EventState`), from the newest snapshot whose state
fits and the journal after it; the journal is opened for reading only.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

from broadcast.config import load_event
from broadcast.config.model import EventConfig
from broadcast.config.rehearsal import META_KEY, as_rehearsed
from broadcast.games.book import GameBook
from broadcast.games.game_state import GameError
from broadcast.journal.kinds import register_all
from broadcast.journal.store import Journal, JournalError
from broadcast.service.event_state import EventState
from broadcast.service.snapshot import read_state
from broadcast.tournament.section import StateError
from broadcast.tournament.tournament_state import TournamentState

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class EventRecord:
    config: EventConfig
    tournament: TournamentState
    book: GameBook
    events: int  # the number of the last event folded


def default_db(event: Path) -> Path:
    """Where `serve` keeps the journal when --db is not given."""
    return event.with_suffix(".sqlite")


def fold_journal(journal: Journal, config: EventConfig) -> EventState:
    """The state the journal's events make, from its newest fitting snapshot on."""
    state = read_state(journal, config) or EventState.new(config)
    for entry in journal.read(state.seq):
        try:
            state = state.apply(entry.event, entry.seq)
        except (GameError, StateError) as exc:
            # As the service replays it: an event that did not fit was not applied then.
            log.warning("journal event %d does not fit (%s): skipped", entry.seq, exc)
            state = state.at(entry.seq)
    return state


def read_event(event: Path, db: Path | None = None) -> EventRecord:
    """The event's tournament and games as the journal leaves them. Raises ConfigError,
    or JournalError when there is no journal to read (or it cannot be read: one line)."""
    config = load_event(event)
    path = db or default_db(event)
    if not path.exists():
        raise JournalError(
            f"no journal at {path}: run `boardwire serve {event}` first, or give --db PATH"
        )
    register_all()
    journal = Journal(path, readonly=True, event=config.name)
    try:
        # A rehearsal's journal is read with the schedule it was played under.
        config = as_rehearsed(config, journal.meta(META_KEY))
        state = fold_journal(journal, config)
    finally:
        journal.close()
    return EventRecord(config, state.tournament, state.book, state.seq)


__all__ = ["EventRecord", "default_db", "fold_journal", "read_event"]
