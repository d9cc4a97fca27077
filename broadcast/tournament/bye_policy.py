"""Event policies as pure decisions: requested byes (count, rounds, deadline) and the
early-draw rule. Time is passed in; nothing here reads the clock.

The decisions are proposals: regulations such as Sestao's leave the final word to the
chief arbiter, who can grant or refuse anyway (the state accepts his ByeGranted).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from broadcast.config.model import EarlyDrawRule, SectionConfig
from broadcast.tournament.schedule import round_start


@dataclass(frozen=True, slots=True)
class Decision:
    """Whether a request is allowed, and why not (an actionable sentence)."""

    allowed: bool
    reason: str = ""


def bye_deadline(section: SectionConfig, round_number: int) -> dt.datetime:
    """The moment from which a bye for `round_number` can no longer be asked (or
    cancelled). "before-previous-round": the start of round r-1; round 1, having no
    previous round, closes at its own start."""
    if section.byes.deadline == "before-previous-round" and round_number > 1:
        return round_start(section, round_number - 1)
    return round_start(section, round_number)


def check_bye_request(
    section: SectionConfig,
    round_number: int,
    *,
    requested_at: dt.datetime,
    byes_granted: int,
    already_granted: bool = False,
    out_reason: str = "",
    round_paired: bool = False,
) -> Decision:
    """Check a requested bye against the section's policy.

    `byes_granted`: byes the player already holds in this section (other rounds).
    `out_reason`: why the player may not be paired in that round (withdrawn, no-show
    limit, an absence without a request to continue), "" when they may: the refusal.
    The request must come strictly before the deadline: at the deadline second it
    is late.
    """
    if requested_at.tzinfo is None or requested_at.utcoffset() is None:
        raise ValueError("requested_at must be an aware datetime (from the TimeSource)")
    policy = section.byes
    if not policy.allowed:
        return Decision(False, f"section {section.name!r} grants no requested byes")
    if not 1 <= round_number <= section.rounds:
        return Decision(False, f"round {round_number} does not exist (1..{section.rounds})")
    if out_reason:
        return Decision(False, out_reason)
    if round_number in policy.excluded_rounds:
        allowed = sorted(set(range(1, section.rounds + 1)) - policy.excluded_rounds)
        last = f"rounds {allowed[0]}-{allowed[-1]}" if allowed else "no round"
        return Decision(
            False, f"no byes in round {round_number} (excluded by the regulations; byes: {last})"
        )
    if already_granted:
        return Decision(False, f"a bye for round {round_number} is already granted")
    if round_paired:
        return Decision(False, f"round {round_number} is already paired")
    if byes_granted >= policy.max_byes:
        return Decision(
            False, f"the player already has {byes_granted} of the {policy.max_byes} byes allowed"
        )
    deadline = bye_deadline(section, round_number)
    if requested_at >= deadline:
        zone = deadline.tzinfo
        return Decision(
            False,
            f"too late: byes for round {round_number} had to be requested before "
            f"{deadline:%Y-%m-%d %H:%M:%S %Z} (request at "
            f"{requested_at.astimezone(zone):%Y-%m-%d %H:%M:%S %Z})",
        )
    return Decision(True)


def check_bye_cancel(
    section: SectionConfig, round_number: int, *, requested_at: dt.datetime
) -> Decision:
    """A granted bye may be cancelled until the same deadline as its request."""
    deadline = bye_deadline(section, round_number)
    if requested_at >= deadline:
        return Decision(
            False,
            f"too late to cancel the bye for round {round_number}: the deadline was "
            f"{deadline:%Y-%m-%d %H:%M:%S %Z}",
        )
    return Decision(True)


def check_draw_offer(
    rule: EarlyDrawRule | None, *, moves_played: int, elapsed: dt.timedelta
) -> Decision:
    """Whether a draw by agreement is allowed after `moves_played` full moves and
    `elapsed` playing time. Both minimums must be met (Sestao: move 30 and one hour)."""
    if rule is None:
        return Decision(True)
    if moves_played < rule.min_moves:
        return Decision(
            False, f"no draw by agreement before move {rule.min_moves} (now move {moves_played})"
        )
    if elapsed < dt.timedelta(minutes=rule.min_minutes):
        played = int(elapsed.total_seconds() // 60)
        return Decision(
            False,
            f"no draw by agreement before {rule.min_minutes} minutes of play ({played} so far)",
        )
    return Decision(True)


__all__ = ["Decision", "bye_deadline", "check_bye_cancel", "check_bye_request", "check_draw_offer"]
