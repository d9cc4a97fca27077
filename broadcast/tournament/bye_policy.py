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
from broadcast.tournament.schedule import round_start


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
    deadline = bye_deadline(section, round_number)
    if requested_at >= deadline:
        zone = deadline.tzinfo
        return _no(
            say(
                "too late: byes for round %(round)s had to be requested before %(deadline)s "
                "(request at %(requested)s)",
                round=round_number,
                deadline=f"{deadline:%Y-%m-%d %H:%M:%S %Z}",
                requested=f"{requested_at.astimezone(zone):%Y-%m-%d %H:%M:%S %Z}",
            )
        )
    return Decision(True)


def check_bye_cancel(
    section: SectionConfig, round_number: int, *, requested_at: dt.datetime
) -> Decision:
    """A granted bye may be cancelled until the same deadline as its request."""
    deadline = bye_deadline(section, round_number)
    if requested_at >= deadline:
        return _no(
            say(
                "too late to cancel the bye for round %(round)s: the deadline was %(deadline)s",
                round=round_number,
                deadline=f"{deadline:%Y-%m-%d %H:%M:%S %Z}",
            )
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
        return _no(
            say(
                "no draw by agreement before move %(move)s (now move %(now)s)",
                move=rule.min_moves,
                now=moves_played,
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


__all__ = ["Decision", "bye_deadline", "check_bye_cancel", "check_bye_request", "check_draw_offer"]
