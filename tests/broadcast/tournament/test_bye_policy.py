"""Bye policy boundaries (deadline to the second, count, excluded rounds) and the
early-draw rule, on the Sestao example's section."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

import pytest

from broadcast.config import SectionConfig, load_event
from broadcast.tournament.bye_policy import (
    bye_deadline,
    check_bye_cancel,
    check_bye_request,
    check_draw_offer,
    move_reached,
)
from tests.support.paths import ROOT

MADRID = ZoneInfo("Europe/Madrid")
SECOND = dt.timedelta(seconds=1)


@pytest.fixture(scope="module")
def sestao() -> SectionConfig:
    return load_event(ROOT / "examples/sestao-2025-swiss.toml").sections[0]


def test_deadline_is_the_start_of_the_previous_round(sestao: SectionConfig) -> None:
    # Round 5 bye: before round 4 starts (14 September, 17:00 Madrid).
    assert bye_deadline(sestao, 5) == dt.datetime(2025, 9, 14, 17, 0, tzinfo=MADRID)
    # Round 1 has no previous round: its own start.
    assert bye_deadline(sestao, 1) == dt.datetime(2025, 9, 12, 17, 0, tzinfo=MADRID)


def test_deadline_to_the_second(sestao: SectionConfig) -> None:
    deadline = bye_deadline(sestao, 5)
    early = check_bye_request(sestao, 5, requested_at=deadline - SECOND, byes_granted=0)
    assert early.allowed
    on_time = check_bye_request(sestao, 5, requested_at=deadline, byes_granted=0)
    assert not on_time.allowed and "too late" in on_time.reason
    assert "2025-09-14 17:00:00 CEST" in on_time.reason
    # Same instant written in UTC: the same answer.
    utc = deadline.astimezone(dt.UTC)
    assert not check_bye_request(sestao, 5, requested_at=utc, byes_granted=0).allowed
    assert check_bye_request(sestao, 5, requested_at=utc - SECOND, byes_granted=0).allowed
    assert check_bye_cancel(sestao, 5, requested_at=deadline - SECOND).allowed
    assert not check_bye_cancel(sestao, 5, requested_at=deadline).allowed


def test_at_most_three_and_never_in_the_last_two_rounds(sestao: SectionConfig) -> None:
    early = dt.datetime(2025, 9, 1, tzinfo=MADRID)
    assert check_bye_request(sestao, 7, requested_at=early, byes_granted=2).allowed
    fourth = check_bye_request(sestao, 7, requested_at=early, byes_granted=3)
    assert not fourth.allowed and "3 of the 3" in fourth.reason
    for last in (8, 9):
        refused = check_bye_request(sestao, last, requested_at=early, byes_granted=0)
        assert not refused.allowed and "rounds 1-7" in refused.reason
    assert not check_bye_request(sestao, 10, requested_at=early, byes_granted=0).allowed
    out = "the player has withdrawn from round 2"
    withdrawn = check_bye_request(sestao, 3, requested_at=early, byes_granted=0, out_reason=out)
    assert not withdrawn.allowed and withdrawn.reason == out


def test_naive_times_are_refused(sestao: SectionConfig) -> None:
    with pytest.raises(ValueError, match="aware"):
        check_bye_request(sestao, 3, requested_at=dt.datetime(2025, 9, 1), byes_granted=0)


def test_early_draw_rule_needs_both_minimums(sestao: SectionConfig) -> None:
    rule = sestao.early_draw
    hour = dt.timedelta(hours=1)
    assert not check_draw_offer(rule, plies=57, elapsed=2 * hour).allowed
    assert not check_draw_offer(rule, plies=80, elapsed=hour - SECOND).allowed
    assert check_draw_offer(rule, plies=60, elapsed=hour).allowed
    assert check_draw_offer(None, plies=1, elapsed=dt.timedelta()).allowed


def test_early_draw_move_minimum_counts_the_move_reached(sestao: SectionConfig) -> None:
    """Sestao art. 3, "no draw offers before move 30": after Black's 29th move (58 plies)
    it is early; White's 30th move (59 plies) reaches move 30."""
    rule = sestao.early_draw
    assert rule is not None and rule.min_moves == 30
    hour = dt.timedelta(hours=1)
    early = check_draw_offer(rule, plies=58, elapsed=2 * hour)
    assert not early.allowed
    assert early.reason == "no draw by agreement before move 30 (now move 29)"
    assert check_draw_offer(rule, plies=59, elapsed=2 * hour).allowed
    assert [move_reached(p) for p in (0, 1, 2, 58, 59, 60)] == [0, 1, 1, 29, 30, 30]
