"""The bye deadline follows a moved round start (audit D9): Sestao closes byes for round 3
at the start of round 2, and when that start moves (`serve --round R`, the arbiter's
delay: `RoundStartMoved`) the deadline moves with it, as the default time does. The
policy, the rules' decision, and the desk's request and cancellation all use the one
answer to "when does round R start" (`schedule.round_start`)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from broadcast.service.event_service import ActionError
from broadcast.tournament.bye_policy import bye_deadline, check_bye_cancel, check_bye_request
from broadcast.tournament.live_round import RoundStartMoved, start_of
from broadcast.tournament.schedule import round_start
from broadcast.tournament.tournament_events import ByeGranted, ByeRefused, ByeRequested
from tests.broadcast.tournament.test_regulations_applied import ARBITER, service_for
from tests.support import acting
from tests.support.arbiter import SESTAO, standalone

OPEN = SESTAO.sections[0]
R2 = OPEN.round_start(2).start  # 13 September 10:00 Madrid: round 3's bye deadline
LATER = R2 + dt.timedelta(hours=2)
EARLIER = R2 - dt.timedelta(hours=2)
SECOND = dt.timedelta(seconds=1)


def test_the_deadline_is_the_moved_start_of_the_previous_round() -> None:
    moved = {("Open", 2): LATER}
    assert bye_deadline(OPEN, 3) == R2
    assert bye_deadline(OPEN, 3, moved) == LATER
    assert bye_deadline(OPEN, 4, moved) == bye_deadline(OPEN, 4)  # other rounds keep theirs
    # One answer to "when does round 2 start", for the live round and the deadline alike.
    assert round_start(OPEN, 2, moved) == start_of(OPEN, 2, moved) == LATER
    asked = R2 + dt.timedelta(hours=1)  # after the scheduled start, before the moved one
    assert not check_bye_request(OPEN, 3, requested_at=asked, byes_granted=0).allowed
    assert check_bye_request(OPEN, 3, requested_at=asked, byes_granted=0, moved=moved).allowed
    assert check_bye_cancel(OPEN, 3, requested_at=asked, moved=moved).allowed
    late = check_bye_request(OPEN, 3, requested_at=LATER, byes_granted=0, moved=moved)
    assert not late.allowed
    # The deadline reads in the event's local time, even for a start moved in UTC.
    assert "2025-09-13 12:00:00 CEST" in late.reason


def test_the_rules_decide_a_request_by_the_moved_start() -> None:
    rules = standalone(SESTAO)
    rules.observe(RoundStartMoved("Open", 2, LATER.astimezone(dt.UTC)))
    asked = R2 + dt.timedelta(hours=1)
    assert rules.observe(ByeRequested("Open", 3, 5, asked)) == [ByeGranted("Open", 3, 5, asked)]
    # Moved earlier, the deadline comes earlier too.
    rules = standalone(SESTAO)
    rules.observe(RoundStartMoved("Open", 2, EARLIER.astimezone(dt.UTC)))
    out = rules.observe(ByeRequested("Open", 3, 5, EARLIER + SECOND))
    assert isinstance(out[0], ByeRefused) and "too late" in out[0].reason


def test_the_desk_requests_and_cancels_by_the_moved_start(tmp_path: Path) -> None:
    service, time = service_for(tmp_path, "sestao-2025-swiss.toml", "2025-09-13T07:00:00")
    service.commit([RoundStartMoved("Open", 2, LATER.astimezone(dt.UTC))])
    time.set((R2 + dt.timedelta(hours=1)).timestamp())  # the scheduled deadline has passed
    acting.request_bye(service, "Open", 3, 5, ARBITER)
    assert 3 in service.tournament.section("Open").byes_of(5)
    acting.cancel_bye(service, "Open", 3, 5, ARBITER)
    assert 3 not in service.tournament.section("Open").byes_of(5)
    time.set(LATER.timestamp())
    with pytest.raises(ActionError, match="too late"):
        acting.request_bye(service, "Open", 3, 6, ARBITER)
