"""Event policies as pure decisions: requested byes (count, rounds, deadline) and the
early-draw rule. Time is passed in; nothing here reads the clock.

The decisions are proposals: regulations such as Sestao's leave the final word to the
chief arbiter, who can grant or refuse anyway (the state accepts his ByeGranted).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from broadcast.config.model import EarlyDrawRule, SectionConfig
from broadcast.phrases import Phrase, Value, say
from broadcast.tournament.schedule import StartOverrides, round_start


@dataclass(frozen=True, slots=True)
class Decision:
    """Whether a request is allowed, and why not (an actionable sentence)."""

    allowed: bool
    reason: str = ""
    said: Phrase | None = None  # `reason` for the desk's languages (None: English only)

    @property
    def why(self) -> Value:
        """The reason as a value of a sentence: the phrase if there is one."""
        return self.said if self.said is not None else self.reason


def _no(reason: Phrase) -> Decision:
    return Decision(False, str(reason), reason)


def _schedule_zone(section: SectionConfig, round_number: int) -> dt.tzinfo | None:
    """The zone the schedule gives the round in: a moved start (often UTC from the
    command line) is still shown in the event's local time."""
    return round_start(section, round_number).tzinfo


def bye_deadline(
    section: SectionConfig, round_number: int, moved: StartOverrides | None = None
) -> dt.datetime:
    """The moment from which a bye for `round_number` can no longer be asked (or
    cancelled). "before-previous-round": the start of round r-1; round 1, having no
    previous round, closes at its own start. A start the arbiter moved (`moved`, the
    journal's RoundStartMoved) moves the deadline with it."""
    if section.byes.deadline == "before-previous-round" and round_number > 1:
        return round_start(section, round_number - 1, moved)
    return round_start(section, round_number, moved)


def check_bye_request(
    section: SectionConfig,
    round_number: int,
    *,
    requested_at: dt.datetime,
    byes_granted: int,
    already_granted: bool = False,
    out_reason: str = "",
    round_paired: bool = False,
    moved: StartOverrides | None = None,
) -> Decision:
    """Check a requested bye against the section's policy.

    `byes_granted`: byes the player already holds in this section (other rounds).
    `out_reason`: why the player may not be paired in that round (withdrawn, no-show
    limit, an absence without a request to continue), "" when they may: the refusal.
    `moved`: the round starts moved from the schedule (the deadline follows them).
    The request must come strictly before the deadline: at the deadline second it
    is late.
    """
    if requested_at.tzinfo is None or requested_at.utcoffset() is None:
        raise ValueError("requested_at must be an aware datetime (from the TimeSource)")
    policy = section.byes
    if not policy.allowed:
        return _no(say("section %(section)s grants no requested byes", section=repr(section.name)))
    if not 1 <= round_number <= section.rounds:
        return _no(
            say(
                "round %(round)s does not exist (1..%(rounds)s)",
                round=round_number,
                rounds=section.rounds,
            )
        )
    if out_reason:
        return Decision(False, out_reason)
    if round_number in policy.excluded_rounds:
        allowed = sorted(set(range(1, section.rounds + 1)) - policy.excluded_rounds)
        last = (
            say("rounds %(first)s-%(last)s", first=allowed[0], last=allowed[-1])
            if allowed
            else say("no round")
        )
        return _no(
            say(
                "no byes in round %(round)s (excluded by the regulations; byes: %(rounds)s)",
                round=round_number,
                rounds=last,
            )
        )
    if already_granted:
        return _no(say("a bye for round %(round)s is already granted", round=round_number))
    if round_paired:
        return _no(say("round %(round)s is already paired", round=round_number))
    if byes_granted >= policy.max_byes:
        return _no(
            say(
                "the player already has %(granted)s of the %(allowed)s byes allowed",
                granted=byes_granted,
                allowed=policy.max_byes,
            )
        )
    deadline = bye_deadline(section, round_number, moved)
    if requested_at >= deadline:
        zone = _schedule_zone(section, round_number)
        return _no(
            say(
                "too late: byes for round %(round)s had to be requested before %(deadline)s "
                "(request at %(requested)s)",
                round=round_number,
                deadline=f"{deadline.astimezone(zone):%Y-%m-%d %H:%M:%S %Z}",
                requested=f"{requested_at.astimezone(zone):%Y-%m-%d %H:%M:%S %Z}",
            )
        )
    return Decision(True)


def check_bye_cancel(
    section: SectionConfig,
    round_number: int,
    *,
    requested_at: dt.datetime,
    moved: StartOverrides | None = None,
) -> Decision:
    """A granted bye may be cancelled until the same deadline as its request."""
    deadline = bye_deadline(section, round_number, moved)
    if requested_at >= deadline:
        zone = _schedule_zone(section, round_number)
        return _no(
            say(
                "too late to cancel the bye for round %(round)s: the deadline was %(deadline)s",
                round=round_number,
                deadline=f"{deadline.astimezone(zone):%Y-%m-%d %H:%M:%S %Z}",
            )
        )
    return Decision(True)


def move_reached(plies: int) -> int:
    """The move number the game has reached after `plies` half-moves: White's 30th move
    (59 plies) reaches move 30, as "no draw offers before move 30" is usually read; after
    Black's 29th (58 plies) the game is at move 29."""
    return (max(0, plies) + 1) // 2


def check_draw_offer(rule: EarlyDrawRule | None, *, plies: int, elapsed: dt.timedelta) -> Decision:
    """Whether a draw by agreement is allowed after `plies` half-moves and `elapsed`
    playing time. Both minimums must be met (Sestao: move 30 and one hour); the move
    minimum counts the move reached (`move_reached`)."""
    if rule is None:
        return Decision(True)
    reached = move_reached(plies)
    if reached < rule.min_moves:
        return _no(
            say(
                "no draw by agreement before move %(move)s (now move %(now)s)",
                move=rule.min_moves,
                now=reached,
            )
        )
    if elapsed < dt.timedelta(minutes=rule.min_minutes):
        played = int(elapsed.total_seconds() // 60)
        return _no(
            say(
                "no draw by agreement before %(minutes)s minutes of play (%(played)s so far)",
                minutes=rule.min_minutes,
                played=played,
            )
        )
    return Decision(True)


__all__ = [
    "Decision",
    "bye_deadline",
    "check_bye_cancel",
    "check_bye_request",
    "check_draw_offer",
    "move_reached",
]
