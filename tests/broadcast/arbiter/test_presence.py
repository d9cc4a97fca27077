"""Presence and default time, to the second, for both default times of the regulations
(Sestao 30 min, Donostia 60 min) and the zero of regulations that say nothing."""

from __future__ import annotations

from dataclasses import replace

import pytest

from broadcast.arbiter import Alert, AlertResolved, PlayerMarkedPresent
from broadcast.arbiter.alerts import PlayerMarkedAbsent
from broadcast.arbiter.presence import (
    Presence,
    forfeit_moment,
    forfeit_result,
    player_presence,
    warning_marks,
)
from broadcast.config.model import EventConfig
from broadcast.games.game_events import ResultConfirmed, ResultProposed
from broadcast.tournament.tournament_events import NoShowCounted
from tests.support.arbiter import (
    DONOSTIA,
    PAMPLONA,
    SESTAO,
    engine,
    gid,
    kinds,
    moves,
    press,
    start_of,
    without_resolutions,
)

E4_E5 = ["e2e4", "e7e5"]
JUST_AFTER = 0.001  # a millisecond past the default time: it has passed


def _proposed(events: list[object], game: str) -> list[ResultProposed]:
    return [e for e in events if isinstance(e, ResultProposed) and e.game == game]


@pytest.mark.parametrize(("event", "minutes"), [(SESTAO, 30), (DONOSTIA, 60)])
def test_default_time_boundary_is_exact(event: EventConfig, minutes: int) -> None:
    """Sestao allows "a maximum delay of 30 minutes", Donostia forfeits players "more than
    60 minutes" late: at start + 30:00.0 the default time has not passed yet; a millisecond
    later it has, and the absent player's forfeit is proposed, stamped just after it."""
    rules = engine(event)
    game = gid(event, 1, 1)
    due = start_of(event, 1) + minutes * 60
    for e in moves(game, ["e2e4"], start_of(event, 1) + 5):  # White is there, Black is not
        rules.observe(e)
    assert not _proposed(rules.tick(due - 1), game)
    assert [a.kind for a in rules.open_alerts() if a.game == game and "black" in a.message]
    assert not _proposed(rules.tick(due), game)  # 30:00.0 (60:00.0): not yet
    at = _proposed(rules.tick(due + JUST_AFTER), game)
    passed = forfeit_moment(due)
    assert due < passed < due + JUST_AFTER
    assert at == [ResultProposed(game, "+/-", "default-time", passed, at[0].detail if at else "")]
    assert f"({minutes} min)" in at[0].detail


@pytest.mark.parametrize(("event", "minutes"), [(SESTAO, 30), (DONOSTIA, 60)])
def test_a_player_arriving_at_exactly_the_default_time_is_in_time(
    event: EventConfig, minutes: int
) -> None:
    """Black's first move at start + 30:00.0 (60:00.0): no forfeit, then or later; the same
    move at 30:00.001 comes too late (the forfeit was proposed just before it)."""
    start = start_of(event, 1)
    game = gid(event, 1, 1)
    due = start + minutes * 60
    for arrival, late in ((due, False), (due + JUST_AFTER, True)):
        rules = engine(event)
        white, black = moves(game, E4_E5, start + 5)
        out = rules.observe(white)
        out += rules.observe(replace(black, t=arrival))  # time runs up to the move first
        out += rules.tick(start + 3 * 3600)
        assert [p.result for p in _proposed(out, game)] == (["+/-"] if late else [])


def test_warnings_at_each_mark_to_the_second() -> None:
    rules = engine(SESTAO)
    game = gid(SESTAO, 1, 1)
    start = start_of(SESTAO, 1)
    due = start + 1800
    for e in moves(game, ["e2e4"], start + 1):
        rules.observe(e)
    for mark in (due - 900, due - 300, due - 60):
        assert not [a for a in rules.tick(mark - 1) if isinstance(a, Alert) and a.game == game]
        raised = [a for a in rules.tick(mark) if isinstance(a, Alert) and a.game == game]
        assert [(a.kind, a.severity, a.t) for a in raised] == [("late", "warning", mark)]
        assert len(raised[0].players) == 1  # Black only: White has moved
        assert "black" in raised[0].message and "white" not in raised[0].message


def test_warning_marks_respect_round_start() -> None:
    assert warning_marks(0.0, 1800.0, (900, 300, 60)) == [900.0, 1500.0, 1740.0]
    assert warning_marks(0.0, 600.0, (900, 300)) == [300.0]
    assert warning_marks(0.0, 0.0, (900, 300)) == []


@pytest.mark.parametrize(
    ("absent", "result"),
    [(("white",), "-/+"), (("black",), "+/-"), (("white", "black"), "-/-"), ((), None)],
)
def test_forfeit_results(absent: tuple[str, ...], result: str | None) -> None:
    assert forfeit_result(absent) == result  # type: ignore[arg-type]


def test_both_absent_is_double_forfeit() -> None:
    rules = engine(SESTAO)
    due = start_of(SESTAO, 1) + 1800
    assert not [e for e in rules.tick(due) if isinstance(e, ResultProposed)]
    proposals = [e for e in rules.tick(due + JUST_AFTER) if isinstance(e, ResultProposed)]
    assert {p.result for p in proposals} == {"-/-"}
    assert len(proposals) == 4


def test_white_absent_black_marked_present() -> None:
    rules = engine(SESTAO)
    game = gid(SESTAO, 1, 2)
    start = start_of(SESTAO, 1)
    rules.observe(PlayerMarkedPresent(game, "black", start + 120))
    out = [e for e in rules.tick(start + 1800 + JUST_AFTER) if getattr(e, "game", "") == game]
    assert [(e.result, e.reason) for e in out if isinstance(e, ResultProposed)] == [
        ("-/+", "default-time")
    ]


def test_black_present_by_clock_press_before_any_move_of_theirs() -> None:
    """Black's first press counts (White's move made, Black presses after replying)."""
    rules = engine(SESTAO)
    game = gid(SESTAO, 1, 1)
    start = start_of(SESTAO, 1)
    for e in press(game, start + 1799, "black", "white"):
        rules.observe(e)
    for e in press(game, start + 1500, "white", "black"):
        rules.observe(e)
    out = rules.tick(start + 1800 + JUST_AFTER)
    assert not [e for e in out if getattr(e, "game", "") == game and isinstance(e, ResultProposed)]


def test_late_arrival_at_29_minutes_is_only_warned_31_is_forfeit() -> None:
    start = start_of(SESTAO, 1)
    game = gid(SESTAO, 1, 1)
    for minutes, forfeited in ((29, False), (31, True)):
        rules = engine(SESTAO)
        rules.observe(moves(game, ["e2e4"], start + 3)[0])
        out = rules.observe(moves(game, E4_E5, start + minutes * 60 - 20, step=10)[1])
        out += rules.tick(start + 3 * 3600)
        mine = [e for e in out if getattr(e, "game", "") == game]
        assert bool([e for e in mine if isinstance(e, ResultProposed)]) is forfeited
        late = [e for e in mine if isinstance(e, Alert) and e.kind == "late"]
        assert len(late) == (2 if minutes == 29 else 3)  # 15 and 25 min; 29 min too at 31


def test_zero_default_time_asks_the_arbiter_to_check_instead_of_proposing() -> None:
    rules = engine(PAMPLONA)
    start = start_of(PAMPLONA, 1)
    out = rules.tick(start + 299)
    assert not [e for e in out if isinstance(e, ResultProposed | Alert)]
    game = gid(PAMPLONA, 1, 1)
    out = rules.observe(moves(game, ["e2e4"], start + 100)[0]) + rules.tick(start + 300)
    alerts = [e for e in out if isinstance(e, Alert) and e.kind == "check-presence"]
    assert alerts and all(a.t == start + 300 for a in alerts)
    mine = [a for a in alerts if a.game == game]
    assert len(mine) == 1 and "black" in mine[0].message and "white" not in mine[0].message
    assert not [e for e in out if isinstance(e, ResultProposed)]
    assert not [e for e in rules.tick(start + 3 * 3600) if isinstance(e, ResultProposed)]


def test_forfeit_is_a_proposal_even_when_results_apply() -> None:
    from broadcast.arbiter import RulesConfig

    rules = engine(SESTAO, config=RulesConfig(automatic_results="apply"))
    out = rules.tick(start_of(SESTAO, 1) + 1800 + JUST_AFTER)
    assert [e for e in out if isinstance(e, ResultProposed)]
    assert not [e for e in out if isinstance(e, ResultConfirmed)]


def test_no_show_counted_on_confirmation_and_limit_alert() -> None:
    """Sestao: two no-shows -> withdraw from pairing (round 1 and round 2 absences)."""
    rules = engine(SESTAO, round_number=2)
    # Round 1 was paired as 1-2, 3-4, ...: count player 2's no-show there by hand.
    first = rules.observe(NoShowCounted("Open", 1, 2))
    assert first == []
    start = start_of(SESTAO, 2)
    game = gid(SESTAO, 2, 1)  # round 2 pairings: 1-13 (SESTAO_R1 reused)
    rules.observe(moves(game, ["e2e4"], start + 1)[0])
    proposal = _proposed(rules.tick(start + 1800 + JUST_AFTER), game)
    assert [(p.result, p.reason) for p in proposal] == [("+/-", "default-time")]
    assert rules.tournament.section("Open").no_shows.get(13) is None  # not before confirmation
    out = rules.observe(ResultConfirmed(game, "+/-", "default-time", start + 1900))
    # the forfeit decided, the late warnings and the proposal about this game close
    closed = {e.alert for e in out if isinstance(e, AlertResolved)}
    assert closed and all(
        a.startswith(("late:open-r2-b1:", "result-proposed:open-r2-b1:")) for a in closed
    )
    assert any(a.startswith("result-proposed:") for a in closed)
    out = without_resolutions(out)
    # Art. 6: a single absence disqualifies unless the player asks to continue.
    assert out[0] == NoShowCounted("Open", 2, 13)
    assert kinds(out[1:]) == ["alert:absence-disqualifies"]
    # the second no-show of player 2 in round 2 (board 2 is 14-2): out for good.
    game2 = gid(SESTAO, 2, 2)
    out = without_resolutions(
        rules.observe(ResultConfirmed(game2, "+/-", "default-time", start + 1950))
    )
    assert kinds(out) == ["no-show-counted", "alert:withdraw-from-pairing", "player-withdrawn"]
    alert = out[1]
    assert (
        isinstance(alert, Alert) and alert.severity == "critical" and "2 no-shows" in alert.message
    )
    assert rules.tournament.section("Open").withdrawn == {2: 3}
    # fed back or replayed: nothing new
    assert rules.observe(out[0]) == [] and rules.observe(alert) == []


def test_donostia_has_no_no_show_limit() -> None:
    rules = engine(DONOSTIA)
    game = gid(DONOSTIA, 1, 1)
    rules.tick(start_of(DONOSTIA, 1) + 3600)
    out = rules.observe(ResultConfirmed(game, "-/-", "default-time", start_of(DONOSTIA, 1) + 3600))
    assert kinds(without_resolutions(out)) == ["no-show-counted", "no-show-counted"]


def test_presence_is_judged_strictly_after_the_default_time() -> None:
    """The hall's view: nobody seen at the default time itself is not absent yet; a
    millisecond later they are. With a zero default time (due = the start) a player first
    seen at the start is in time and one seen after it is late (Laws 6.7.1)."""
    due = 10_000.0
    nobody = Presence()
    assert player_presence(nobody, "white", now=due, due=due, absent_unseen=True).state == (
        "unknown"
    )
    after = player_presence(nobody, "white", now=due + JUST_AFTER, due=due, absent_unseen=True)
    assert (after.state, after.since) == ("absent", due)
    on_time = nobody.seen("white", due, "board")
    late = nobody.seen("white", due + JUST_AFTER, "board")
    later = due + 600
    assert player_presence(on_time, "white", now=later, due=due, absent_unseen=True).state == (
        "present"
    )
    assert player_presence(late, "white", now=later, due=due, absent_unseen=True).state == (
        "absent"
    )


def test_zero_default_a_player_marked_absent_before_the_start_loses_only_after_it() -> None:
    rules = engine(PAMPLONA)
    start = start_of(PAMPLONA, 1)
    game = gid(PAMPLONA, 1, 1)
    rules.observe(PlayerMarkedAbsent(game, "black", start - 60))
    assert not _proposed(rules.tick(start), game)  # at the start itself: in time
    out = _proposed(rules.tick(start + JUST_AFTER), game)
    assert [(p.result, p.t) for p in out] == [("+/-", forfeit_moment(start))]
