"""Which round each section plays now, and when it started. Pure.

A round is live from its scheduled start (boards are set up some minutes before: a round
becomes the boards' current round `SETUP_MINUTES` early) until the next round takes over.
`RoundStartMoved` (from `serve --round R`, or an arbiter's decision to delay a round) moves
one round's start; it is journaled, so a restart keeps it.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from broadcast.config.model import EventConfig, SectionConfig
from broadcast.tournament.schedule import StartOverrides, round_start
from broadcast.tournament.tournament_state import TournamentState

SETUP_MINUTES = 30


@dataclass(frozen=True, slots=True)
class RoundStartMoved:
    """Round `round` of `section` starts at `at` instead of its scheduled time."""

    section: str
    round: int
    at: dt.datetime


def start_of(section: SectionConfig, round_number: int, overrides: StartOverrides) -> dt.datetime:
    """When the round starts, moved or as scheduled (`schedule.round_start`)."""
    return round_start(section, round_number, overrides)


def current_round(
    section: SectionConfig, tournament: TournamentState, now: dt.datetime, overrides: StartOverrides
) -> int | None:
    """The paired round the section's boards carry at `now`: the latest round whose start
    (minus the set-up margin) has come; before round 1's set-up, round 1 if it is paired."""
    state = tournament.section(section.name)
    playoff = [g for g in state.playoff.values() if g.at <= now]
    if playoff:  # a play-off game under way (or the latest one) is what the boards show
        return state.playoff_round(max(playoff, key=lambda g: (g.at, g.number)).number)
    paired = sorted(state.rounds)
    if not paired:
        return None
    margin = dt.timedelta(minutes=SETUP_MINUTES)
    started = [r for r in paired if start_of(section, r, overrides) - margin <= now]
    if started:
        # A moved start (serve --round R) wins over later scheduled rounds.
        return max(started, key=lambda r: (start_of(section, r, overrides), r))
    return paired[0]


def due_round(section: SectionConfig, now: dt.datetime, overrides: StartOverrides) -> int:
    """The round the schedule (or a moved start) puts on the boards at `now`, paired or not:
    the latest round whose start (minus the set-up margin) has come; round 1 before that."""
    margin = dt.timedelta(minutes=SETUP_MINUTES)
    rounds = sorted(
        {s.round for s in section.schedule} | {r for name, r in overrides if name == section.name}
    )
    started = [r for r in rounds if _has_started(section, r, overrides, margin, now)]
    if not started:
        return 1
    return max(started, key=lambda r: (start_of(section, r, overrides), r))


def _has_started(
    section: SectionConfig,
    round_number: int,
    overrides: StartOverrides,
    margin: dt.timedelta,
    now: dt.datetime,
) -> bool:
    try:
        return start_of(section, round_number, overrides) - margin <= now
    except KeyError:
        return False


def current_rounds(
    event: EventConfig, tournament: TournamentState, now: dt.datetime, overrides: StartOverrides
) -> dict[str, int | None]:
    return {s.name: current_round(s, tournament, now, overrides) for s in event.sections}


def unpaired_rounds(
    event: EventConfig, tournament: TournamentState, now: dt.datetime, overrides: StartOverrides
) -> dict[str, int]:
    """Sections with a round not paired up to the one due now (by the schedule, or a
    moved start), and the first such round: rounds are paired in order, so that is the
    one to pair next (round 9 due with nothing paired means pair round 1)."""
    out: dict[str, int] = {}
    for section in event.sections:
        due = min(due_round(section, now, overrides), section.rounds)
        paired = tournament.section(section.name).rounds
        missing = next((r for r in range(1, due + 1) if r not in paired), None)
        if missing is not None:
            out[section.name] = missing
    return out


__all__ = [
    "SETUP_MINUTES",
    "RoundStartMoved",
    "StartOverrides",
    "current_round",
    "current_rounds",
    "due_round",
    "start_of",
    "unpaired_rounds",
]
