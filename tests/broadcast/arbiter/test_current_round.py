"""Only the round being played is watched for absent players; a moved start counts."""

from __future__ import annotations

import datetime as dt

from broadcast.arbiter.presence import forfeit_moment
from broadcast.fide.berger import berger_round
from broadcast.games.game_events import ResultProposed
from broadcast.tournament.live_round import RoundStartMoved
from broadcast.tournament.tournament_events import RoundPaired
from tests.support.arbiter import SESTAO, engine, gid, start_of


def test_an_earlier_round_is_not_forfeited_once_a_later_one_has_started() -> None:
    rules = engine(SESTAO, round_number=1)
    section = SESTAO.sections[0].name
    rules.observe(RoundPaired(section, 2, tuple(berger_round(len(SESTAO.sections[0].players), 2))))
    after_round_2 = start_of(SESTAO, 2) + 31 * 60
    out = rules.tick(after_round_2)
    games = {e.game for e in out if isinstance(e, ResultProposed)}
    assert games and all("-r2-" in g for g in games)


def test_a_moved_start_is_where_the_default_time_counts_from() -> None:
    rules = engine(SESTAO, round_number=1)
    section = SESTAO.sections[0].name
    moved = dt.datetime.fromtimestamp(start_of(SESTAO, 1) + 7200, dt.UTC)
    rules.observe(RoundStartMoved(section, 1, moved))
    game = gid(SESTAO, 1, 1)
    at_old_deadline = rules.tick(start_of(SESTAO, 1) + 30 * 60 + 1)
    assert not [e for e in at_old_deadline if isinstance(e, ResultProposed) and e.game == game]
    new_deadline = moved.timestamp() + 30 * 60
    assert not [
        e for e in rules.tick(new_deadline - 1) if isinstance(e, ResultProposed) and e.game == game
    ]
    assert not [
        e for e in rules.tick(new_deadline) if isinstance(e, ResultProposed) and e.game == game
    ]  # at the default time itself a player is in time
    passed = new_deadline + 0.001
    due = [e for e in rules.tick(passed) if isinstance(e, ResultProposed) and e.game == game]
    assert [(e.result, e.t) for e in due] == [("-/-", forfeit_moment(new_deadline))]
