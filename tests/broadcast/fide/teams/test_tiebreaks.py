"""Team tie-breaks against an independent computation (tests.support.team_oracle: loops
over the table of matches), on random round robins and Swiss-like schedules, and by hand
where the rules bite: byes, forfeited matches, cuts, direct encounter."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from broadcast.fide.teams.standings import team_scores
from broadcast.fide.teams.tiebreaks import (
    TEAM_TIEBREAK_DESCRIPTIONS,
    TEAM_TIEBREAKS,
    TeamTiebreakError,
    direct_encounter,
    parse_team_tiebreak,
    tiebreak_values,
)
from tests.support.team_oracle import oracle_rounds, oracle_value
from tests.support.team_schedules import Event, round_robins, swiss_events
from tests.support.team_view import MatchRow, team_view

VALUED = [name for name in TEAM_TIEBREAKS if name != "DE"]


def check_against_oracle(event: Event, rank_by: str) -> None:
    teams, boards, rows, rr = event
    rounds = max(r[0] for r in rows)
    view = team_view(teams, boards, rows, round_robin=rr, rank_by=rank_by)
    scores = team_scores(view)
    table = oracle_rounds(teams, boards, rows, rounds)
    primary = "gp" if rank_by == "game-points" else "mp"
    for name in VALUED:
        mine = tiebreak_values(scores, parse_team_tiebreak(name))
        theirs = {
            t: oracle_value(
                table, t, name, primary=primary, boards=boards, rounds=rounds, round_robin=rr
            )
            for t in range(1, teams + 1)
        }
        assert mine == pytest.approx(theirs), name


@settings(max_examples=60, deadline=None)
@given(round_robins(), st.sampled_from(["match-points", "game-points"]))
def test_every_tiebreak_of_a_round_robin_matches_the_oracle(event: Event, rank_by: str) -> None:
    check_against_oracle(event, rank_by)


@settings(max_examples=60, deadline=None)
@given(swiss_events(), st.sampled_from(["match-points", "game-points"]))
def test_every_tiebreak_of_a_swiss_matches_the_oracle(event: Event, rank_by: str) -> None:
    check_against_oracle(event, rank_by)


def test_every_name_has_a_description_and_parses() -> None:
    assert len(set(TEAM_TIEBREAKS)) == len(TEAM_TIEBREAKS)
    for name in TEAM_TIEBREAKS:
        assert TEAM_TIEBREAK_DESCRIPTIONS[name]
        assert parse_team_tiebreak(name.lower()).name == name


def test_an_unknown_name_is_refused_with_the_list() -> None:
    with pytest.raises(TeamTiebreakError, match=r"not a tie-break for teams.*BH-C1"):
        parse_team_tiebreak("TPR")


def test_osb_is_the_olympiad_sonneborn_berger_without_the_weakest_opponent() -> None:
    # 4 teams, 2 boards, three rounds of a round robin.
    rows = [
        (1, 1, 2, [(1.0, 0.0), (0.5, 0.5)]),  # 1 beats 2 1.5-0.5
        (1, 3, 4, [(0.5, 0.5), (0.5, 0.5)]),  # draw
        (2, 1, 3, [(0.5, 0.5), (0.0, 1.0)]),  # 3 beats 1 1.5-0.5
        (2, 2, 4, [(1.0, 0.0), (1.0, 0.0)]),  # 2 beats 4 2-0
        (3, 4, 1, [(0.0, 1.0), (0.0, 1.0)]),  # 1 beats 4 2-0
        (3, 2, 3, [(0.5, 0.5), (0.5, 0.5)]),  # draw
    ]
    view = team_view(4, 2, rows, round_robin=True)
    scores = team_scores(view)
    # MP: 1 -> 4, 2 -> 3, 3 -> 4, 4 -> 1. Team 1 met 2 (1.5 gp), 3 (0.5), 4 (2).
    osb = tiebreak_values(scores, parse_team_tiebreak("OSB"))
    emgsb = tiebreak_values(scores, parse_team_tiebreak("EMGSB"))
    assert emgsb[1] == 3 * 1.5 + 4 * 0.5 + 1 * 2.0
    assert osb[1] == 3 * 1.5 + 4 * 0.5  # the opponent with fewest MP (team 4) left out
    sb = tiebreak_values(scores, parse_team_tiebreak("SB"))
    assert sb[1] == 3 * 2 + 4 * 0 + 1 * 2


def test_a_swiss_bye_meets_a_dummy_capped_at_draws_2026_and_own_score_2024() -> None:
    rows = [
        (1, 1, 2, [(1.0, 0.0), (1.0, 0.0)]),
        (1, 3, None, []),
        (2, 1, 3, [(1.0, 0.0), (1.0, 0.0)]),
        (2, 2, None, []),
    ]
    view = team_view(3, 2, rows)
    bh = parse_team_tiebreak("BH")
    # Team 2: lost to 1 (4 MP), bye (2 MP own): dummy min(2, 1 x 2 rounds) = 2.
    assert tiebreak_values(team_scores(view), bh)[2] == 4 + 2
    # Team 3: bye then lost: own 2 MP; the 2026 cap is 2, the same as 2024 here.
    assert tiebreak_values(team_scores(view), bh)[3] == 4 + 2
    rows3 = [*rows, (3, 3, 2, [(1.0, 0.0), (1.0, 0.0)]), (3, 1, None, [])]
    view3 = team_view(3, 2, rows3)
    # Team 1 after three rounds: 6 MP; its bye's dummy is 6 in 2024, 1 x 3 rounds in 2026.
    assert tiebreak_values(team_scores(view3, edition=2024), bh)[1] == 2 + 4 + 6
    assert tiebreak_values(team_scores(view3, edition=2026), bh)[1] == 2 + 4 + 3


def test_a_forfeited_match_is_no_encounter_and_meets_a_dummy() -> None:
    rows: list[MatchRow] = [
        (1, 1, 2, [(1.0, 0.0, "+"), (1.0, 0.0, "+")]),  # team 2 did not come
        (1, 3, 4, [(0.5, 0.5), (0.5, 0.5)]),
        (2, 1, 3, [(0.0, 1.0), (0.5, 0.5)]),
        (2, 2, 4, [(0.0, 1.0), (0.0, 1.0)]),
    ]
    view = team_view(4, 2, rows)
    scores = team_scores(view)
    bh = tiebreak_values(scores, parse_team_tiebreak("BH"))
    # Team 1 (2 MP): forfeit win over 2 (0 MP) meets min(own 2, team 2's 0) = 0; team 3: 3.
    assert bh[1] == 0 + 3
    # Team 2's opponents see its forfeit loss as scored: team 1's 2 MP and team 4's 3.
    assert bh[2] == min(0, 2) + 3
    assert direct_encounter(scores, [1, 2]) == {1: 0.0, 2: 0.0}


def test_direct_encounter_orders_teams_that_all_met() -> None:
    rows = [
        (1, 1, 2, [(1.0, 0.0), (0.0, 1.0)]),
        (1, 3, 4, [(1.0, 0.0), (1.0, 0.0)]),
        (2, 2, 3, [(1.0, 0.0), (1.0, 0.0)]),
        (2, 4, 1, [(0.0, 1.0), (0.0, 1.0)]),
        (3, 3, 1, [(1.0, 0.0), (1.0, 0.0)]),
        (3, 2, 4, [(1.0, 0.0), (0.5, 0.5)]),
    ]
    scores = team_scores(team_view(4, 2, rows, round_robin=True))
    # Among 1, 2, 3: 1-2 drew, 2 beat 3, 3 beat 1: 2 has 3 MP, 3 has 2, 1 has 1.
    assert direct_encounter(scores, [1, 2, 3]) == {2: 1.0, 3: 2.0, 1: 3.0}
    assert direct_encounter(scores, [2, 3]) == {2: 1.0, 3: 2.0}
    assert direct_encounter(scores, [1, 2, 4]) == {1: 1.0, 2: 1.0, 4: 3.0}


def test_direct_encounter_in_a_swiss_where_not_all_met() -> None:
    rows = [
        (1, 1, 2, [(1.0, 0.0), (1.0, 0.0)]),
        (1, 3, 4, [(1.0, 0.0), (0.5, 0.5)]),
    ]
    scores = team_scores(team_view(4, 2, rows))
    # 1 beat 2 but 3 could still reach 2 MP against them: no separation of 1 from 3.
    assert direct_encounter(scores, [1, 2, 3]) == {1: 0.0, 2: 0.0, 3: 0.0}
    assert direct_encounter(scores, [1, 2]) == {1: 1.0, 2: 2.0}
