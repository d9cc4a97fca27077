"""A rehearsal's schedule: the event's dates moved to now, as one transformation. Pure.

A rehearsal (`serve --sim`) runs months before or after the event's real dates. Every rule
that reads a date reads it from the schedule: when a round starts and becomes the boards'
round, the default time (start + minutes), the deadlines of bye requests and their
cancellations (a round's start, or the one before it), late entries (by round), the PGN's
Date and the TRF's round dates. Moving every round start by one amount moves all of them
together, with the gaps between rounds and sections kept, so a rehearsal can request byes,
reach default times and enter late players as on the day. Nothing in the rules knows it is a
rehearsal: they read the moved config.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json

from broadcast.config.model import EventConfig, Rehearsal, RoundStart, SectionConfig

__all__ = [
    "META_KEY",
    "as_rehearsed",
    "meta_text",
    "moved_schedule",
    "rehearsal_config",
    "rehearsal_shift",
    "shift_words",
    "stored_move",
]

META_KEY = "rehearsal"
"""The journal's meta key that keeps a rehearsal's move: a journal played as a rehearsal
is read (exported, restarted) with the schedule it was played under."""


def _start(config: EventConfig, round_number: int) -> dt.datetime:
    """The earliest start of round `round_number` over the sections that have it (a
    section with fewer rounds has none); ValueError when no section has it."""
    starts = [
        s.start for section in config.sections for s in section.schedule if s.round == round_number
    ]
    if not starts:
        rounds = max((s.rounds for s in config.sections), default=0)
        raise ValueError(f"round {round_number}: the event has {rounds} rounds")
    return min(starts)


def rehearsal_shift(config: EventConfig, now: dt.datetime, round_number: int = 1) -> dt.timedelta:
    """How far the schedule moves so that round `round_number` starts at `now` (its
    earliest section's start; whole seconds, so that the times said stay readable)."""
    if now.tzinfo is None or now.utcoffset() is None:
        raise ValueError(f"{now.isoformat()} has no timezone: pass an aware datetime")
    # In UTC: between two times of one zone Python subtracts wall clocks, and a DST
    # change in between would be an hour off.
    by = now.astimezone(dt.UTC) - _start(config, round_number).astimezone(dt.UTC)
    return dt.timedelta(seconds=int(by.total_seconds() // 1))


def _moved(start: RoundStart, by: dt.timedelta) -> RoundStart:
    # In UTC (an aware time plus a timedelta moves its wall clock), then back in the
    # round's own zone; `time()` keeps `fold`, so an hour that a DST change repeats is the
    # right one of the two.
    local = (start.start.astimezone(dt.UTC) + by).astimezone(start.start.tzinfo)
    return dataclasses.replace(start, date=local.date(), time=local.time())


def moved_schedule(section: SectionConfig, by: dt.timedelta) -> SectionConfig:
    """`section` with every round start `by` later (in absolute time)."""
    return dataclasses.replace(section, schedule=tuple(_moved(s, by) for s in section.schedule))


def rehearsal_config(config: EventConfig, by: dt.timedelta, round_number: int = 1) -> EventConfig:
    """`config` as a rehearsal sees it: every round start of every section `by` later,
    and `rehearsal` saying so (round `round_number` then starts at `at`)."""
    sections = tuple(moved_schedule(s, by) for s in config.sections)
    moved = dataclasses.replace(config, sections=sections)
    at = _start(moved, round_number)
    return dataclasses.replace(moved, rehearsal=Rehearsal(by, round_number, at))


def shift_words(by: dt.timedelta) -> str:
    """'412 days 3 h 12 min later', '2 h 5 min earlier', 'not' (a zero move)."""
    seconds = int(abs(by.total_seconds()))
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes = rest // 60
    parts = []
    if days:
        parts.append(f"{days} day{'s' if days != 1 else ''}")
    if hours:
        parts.append(f"{hours} h")
    if minutes or not parts:
        parts.append(f"{minutes} min")
    if seconds < 60:
        return "less than a minute" if seconds else "not"
    return " ".join(parts) + (" later" if by > dt.timedelta(0) else " earlier")


def meta_text(by: dt.timedelta, round_number: int) -> str:
    """The move as the journal keeps it."""
    return json.dumps({"seconds": int(by.total_seconds()), "round": round_number})


def stored_move(text: str | None) -> tuple[dt.timedelta, int] | None:
    """The move a journal keeps (None: none, or not one this version understands)."""
    if text is None:
        return None
    try:
        raw = json.loads(text)
        return dt.timedelta(seconds=int(raw["seconds"])), int(raw["round"])
    except (ValueError, KeyError, TypeError, OverflowError):
        return None


def as_rehearsed(config: EventConfig, text: str | None) -> EventConfig:
    """`config` with the move a journal keeps (`text`, its META_KEY), if any: the event as
    its rehearsal was played, for reading the journal afterwards."""
    move = stored_move(text)
    if move is None:
        return config
    try:
        return rehearsal_config(config, *move)
    except (ValueError, OverflowError):  # the config changed since: no such round now
        return config
