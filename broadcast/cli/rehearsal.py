"""`serve --sim`: the rehearsal's schedule, kept in its journal, and the line that says it.

The move itself is one pure transformation of the config (`broadcast.config.rehearsal`).
Here: how far to move (round 1, or `--round R`, starts now), remembered in the journal so
that a rehearsal started again keeps the schedule it played under (and its snapshots still
fit the config); `--round R` moves it again so that round R starts now.
"""

from __future__ import annotations

import datetime as dt

from broadcast.config.model import EventConfig, SectionConfig
from broadcast.config.rehearsal import (
    META_KEY,
    meta_text,
    rehearsal_config,
    rehearsal_shift,
    shift_words,
    stored_move,
)
from broadcast.journal.store import Journal
from broadcast.tournament.bye_policy import bye_deadline

__all__ = ["bye_window", "rehearsal_line", "rehearse"]


def rehearse(
    config: EventConfig, journal: Journal, now: float, round_number: int | None
) -> EventConfig:
    """The rehearsal's config on `journal` at event time `now`: the schedule moved so that
    round `round_number` (None: the journal's earlier move, else round 1) starts now."""
    stored = stored_move(journal.meta(META_KEY))
    if round_number is None and stored is not None:
        by, round_number = stored
    else:
        round_number = round_number or 1
        moment = dt.datetime.fromtimestamp(now, dt.UTC)
        by = rehearsal_shift(config, moment, round_number)
        journal.set_meta(META_KEY, meta_text(by, round_number))
    return rehearsal_config(config, by, round_number)


def bye_window(section: SectionConfig, now: dt.datetime) -> tuple[int, dt.datetime] | None:
    """The first round whose bye requests are still open at `now`, and until when
    (None: the section grants no byes, or none is left to ask)."""
    if not section.byes.allowed:
        return None
    for number in range(1, section.rounds + 1):
        if number in section.byes.excluded_rounds:
            continue
        deadline = bye_deadline(section, number)
        if deadline > now:
            return number, deadline
    return None


def _when(moment: dt.datetime, now: dt.datetime, config: EventConfig) -> str:
    local = moment.astimezone(config.zone)
    if local.date() == now.astimezone(config.zone).date():
        return f"{local:%H:%M}"
    return f"{local:%a %d %b %H:%M}"


def rehearsal_line(config: EventConfig, now: float) -> str:
    """One line for the start: 'rehearsal: the schedule moved 447 days 3 h later: round 1
    at 14:37, bye requests for round 3 until tomorrow 07:37' (the event's timezone)."""
    rehearsal = config.rehearsal
    if rehearsal is None:
        return ""
    moment = dt.datetime.fromtimestamp(now, dt.UTC)
    parts = [f"round {rehearsal.round} at {_when(rehearsal.at, moment, config)}"]
    windows = [(s, bye_window(s, moment)) for s in config.sections]
    open_ = [(s, w) for s, w in windows if w is not None]
    if open_:
        section, (number, until) = min(open_, key=lambda sw: sw[1][1])
        named = f" ({section.name})" if len(config.sections) > 1 else ""
        parts.append(f"bye requests for round {number}{named} until {_when(until, moment, config)}")
    elif any(s.byes.allowed for s in config.sections):
        parts.append("bye requests closed")
    return f"rehearsal: the schedule moved {shift_words(rehearsal.by)}: " + ", ".join(parts)
