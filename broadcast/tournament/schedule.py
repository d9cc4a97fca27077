"""Round start times of a section, as aware datetimes, and simple questions about them.

Pure: `now` is always passed in, never read from the wall clock.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from zoneinfo import ZoneInfo

from broadcast.config.model import SectionConfig

StartOverrides = Mapping[tuple[str, int], dt.datetime]
"""Round starts moved away from the schedule, by (section, round): the journal's
`RoundStartMoved` (`serve --round R`, an arbiter's decision to delay a round)."""


def round_start(
    section: SectionConfig, round_number: int, moved: StartOverrides | None = None
) -> dt.datetime:
    """When `round_number` starts (aware): as `moved` says if it moved the round, else as
    scheduled (in the zone the schedule gives for it). The one answer to "when does round
    R start" for the default time, the live round and the bye deadline alike."""
    at = moved.get((section.name, round_number)) if moved else None
    return at if at is not None else section.round_start(round_number).start


def schedule_in(section: SectionConfig, zone: ZoneInfo) -> list[tuple[int, dt.datetime]]:
    """(round, start) for every round, converted to `zone` (the event's timezone)."""
    return [(s.round, s.start.astimezone(zone)) for s in section.schedule]


def started_rounds(section: SectionConfig, now: dt.datetime) -> list[int]:
    """Rounds whose scheduled start is at or before `now`."""
    _require_aware(now)
    return [s.round for s in section.schedule if s.start <= now]


def next_round(section: SectionConfig, now: dt.datetime) -> int | None:
    """The first round not yet started at `now` (None once the last has started)."""
    _require_aware(now)
    for start in section.schedule:
        if start.start > now:
            return start.round
    return None


def _require_aware(moment: dt.datetime) -> None:
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError(
            f"{moment.isoformat()} has no timezone: pass an aware datetime from the TimeSource"
        )


__all__ = ["StartOverrides", "next_round", "round_start", "schedule_in", "started_rounds"]
