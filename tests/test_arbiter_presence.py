"""Presence and default time, to the second, for both default times of the regulations
(Sestao 30 min, Donostia 60 min) and the zero of regulations that say nothing."""

from __future__ import annotations

import pytest
from arbiter_support import (
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

from broadcast.arbiter import Alert, AlertResolved, PlayerMarkedPresent
from broadcast.arbiter.presence import forfeit_result, warning_marks
from broadcast.config.model import EventConfig
from broadcast.games.events import ResultConfirmed, ResultProposed
from broadcast.tournament.events import NoShowCounted

E4_E5 = ["e2e4", "e7e5"]


@pytest.mark.parametrize(("event", "minutes"), [(SESTAO, 30), (DONOSTIA, 60)])
def test_default_time_boundary_is_exact(event: EventConfig, minutes: int) -> None:
    rules = engine(event)
    game = gid(event, 1, 1)
    due = start_of(event, 1) + minutes * 60
    for e in moves(game, ["e2e4"], start_of(event, 1) + 5):  # White is there, Black is not
        rules.observe(e)
    before = rules.tick(due - 1)
    assert not [e for e in before if isinstance(e, ResultProposed) and e.game == game]
    assert [a.kind for a in rules.open_alerts() if a.game == game and "black" in a.message]
    at = [e for e in rules.tick(due) if isinstance(e, ResultProposed) and e.game == game]
    assert at == [ResultProposed(game, "+/-", "default-time", due, at[0].detail if at else "")]
    assert f"({minutes} min)" in at[0].detail


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
    proposals = [e for e in rules.tick(due) if isinstance(e, ResultProposed)]
    assert {p.result for p in proposals} == {"-/-"}
    assert len(proposals) == 4


def test_white_absent_black_marked_present() -> None:
    rules = engine(SESTAO)
    game = gid(SESTAO, 1, 2)
    start = start_of(SESTAO, 1)
    rules.observe(PlayerMarkedPresent(game, "black", start + 120))
    out = [e for e in rules.tick(start + 1800) if getattr(e, "game", "") == game]
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
    out = rules.tick(start + 1800)
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
    out = rules.tick(start_of(SESTAO, 1) + 1800)
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
    proposal = [
        e for e in rules.tick(start + 1800) if isinstance(e, ResultProposed) and e.game == game
    ]
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
