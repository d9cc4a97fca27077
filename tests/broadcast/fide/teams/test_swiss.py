"""The team Swiss (FIDE C.04.6) on positions worked by hand from the rules' text."""

from __future__ import annotations

import random

import pytest

from broadcast.fide.teams.match import Match
from broadcast.fide.teams.swiss import (
    NoTeamPairing,
    TeamRecord,
    TeamSwissRules,
    floaters_of,
    pair_team_round,
)
from broadcast.fide.teams.swiss.colours import (
    Preference,
    colour_difference,
    named_first,
    preference,
)

NINE = TeamSwissRules(rounds=9)


def fresh(count: int) -> list[TeamRecord]:
    return [TeamRecord(n, n, 0, 0) for n in range(1, count + 1)]


def team(
    n: int,
    mp: float,
    gp: float = 0,
    *,
    met: tuple[int | None, ...] = (),
    named: tuple[bool | None, ...] = (),
    **kw: object,
) -> TeamRecord:
    named = named or tuple(None if o is None else True for o in met)
    return TeamRecord(n, n, mp, gp, opponents=met, first_named=named, **kw)  # type: ignore[arg-type]


def test_round_one_of_eight_is_the_top_half_against_the_bottom_half() -> None:
    # 3.6: the first identifier is 1 2 3 4 | 5 6 7 8; 4.3.1: the odd-ranked first-team
    # takes the drawn colour, the even-ranked one the other.
    assert pair_team_round(fresh(8), 1, NINE) == (
        Match(1, 1, 5),
        Match(2, 6, 2),
        Match(3, 3, 7),
        Match(4, 8, 4),
    )


def test_the_drawn_colour_turns_every_round_one_match() -> None:
    rules = TeamSwissRules(rounds=9, initial_first=False)
    assert pair_team_round(fresh(8), 1, rules) == (
        Match(1, 5, 1),
        Match(2, 2, 6),
        Match(3, 7, 3),
        Match(4, 4, 8),
    )


def test_round_one_of_nine_gives_the_bye_to_the_lowest_ranked_team() -> None:
    matches = pair_team_round(fresh(9), 1, NINE)
    assert matches[-1] == Match(5, 9, None)
    assert matches[:4] == (Match(1, 1, 5), Match(2, 6, 2), Match(3, 3, 7), Match(4, 8, 4))


def test_a_second_round_after_a_bye() -> None:
    # Round 1: 1-5, 6-2, 3-7, 8-4, all won 3-1 by the better-ranked team; 9 had the bye.
    teams = [
        team(1, 2, 3, met=(5,), named=(True,)),
        team(2, 2, 3, met=(6,), named=(False,)),
        team(3, 2, 3, met=(7,), named=(True,)),
        team(4, 2, 3, met=(8,), named=(False,)),
        team(5, 0, 1, met=(1,), named=(False,)),
        team(6, 0, 1, met=(2,), named=(True,)),
        team(7, 0, 1, met=(3,), named=(False,)),
        team(8, 0, 1, met=(4,), named=(True,)),
        team(9, 1, 2, met=(None,), named=(None,), had_bye=True),
    ]
    # The bye: 9 may not have another; of the 0-pointers, all with one match, the lowest
    # rank (8). The 2-pointers pair among themselves, 1 3 | 2 4. 9 is alone on 1 point
    # and takes the first upfloater in order, 5; 6 and 7 remain. Colours: no preferences
    # after one match (Type A); 1 and 2 alternate (4.3.8); 5 and 7 have the lower colour
    # difference (4.3.5).
    assert pair_team_round(teams, 2, NINE) == (
        Match(1, 3, 1),
        Match(2, 2, 4),
        Match(3, 5, 9),
        Match(4, 7, 6),
        Match(5, 8, None),
    )


def test_the_bye_skips_teams_with_a_bye_or_a_forfeit_win() -> None:
    teams = [
        team(1, 2),
        team(2, 0),
        team(3, 0, had_bye=True),
        team(4, 0, won_by_forfeit=True),
        team(5, 0),
    ]
    assert pair_team_round(teams, 2, NINE)[-1] == Match(3, 5, None)


def test_no_team_left_for_the_bye_is_refused_in_words() -> None:
    teams = [team(1, 2, had_bye=True), team(2, 0, had_bye=True), team(3, 0, won_by_forfeit=True)]
    with pytest.raises(NoTeamPairing, match="pairing-allocated bye"):
        pair_team_round(teams, 4, NINE)


def test_two_teams_that_have_met_cannot_be_paired() -> None:
    with pytest.raises(NoTeamPairing, match="not met yet"):
        pair_team_round([team(1, 2, met=(2,)), team(2, 0, met=(1,))], 2, NINE)


def test_the_score_groups_follow_the_primary_score() -> None:
    # On match points 1 and 2 lead; on game points 1 and 3 do.
    teams = [
        team(1, 2, 3.5, met=(11,)),
        team(2, 2, 2.5, met=(12,)),
        team(3, 1, 3, met=(13,)),
        team(4, 0, 1, met=(14,)),
    ]
    by_mp = {frozenset(m.teams()) for m in pair_team_round(teams, 2, NINE)}
    by_gp = {
        frozenset(m.teams())
        for m in pair_team_round(teams, 2, TeamSwissRules(rounds=9, primary="game-points"))
    }
    assert frozenset((1, 2)) in by_mp
    assert frozenset((1, 3)) in by_gp


def floats_case(round: int, *, four_floated: bool, five_score: float = 2) -> set[frozenset[int]]:
    # 1, 2 and 3 lead on 4 points: one upfloater must join them. 4, 5 and 6 have 2.
    floated = (False, True) if four_floated else (False, False)
    history = dict(met=(21, 22), named=(True, False))
    teams = [
        team(1, 4, **history),  # type: ignore[arg-type]
        team(2, 4, **history),  # type: ignore[arg-type]
        team(3, 4, **history),  # type: ignore[arg-type]
        team(4, 2, floated=floated, **history),  # type: ignore[arg-type]
        team(5, five_score, **history),  # type: ignore[arg-type]
        team(6, 2, **history),  # type: ignore[arg-type]
    ]
    return {frozenset(m.teams()) for m in pair_team_round(teams, round, NINE)}


def test_the_first_upfloater_in_order_joins_the_top_group() -> None:
    assert floats_case(3, four_floated=False) == {frozenset(p) for p in ((1, 3), (2, 4), (5, 6))}


def test_c7_passes_over_an_upfloater_that_floated_last_round() -> None:
    assert floats_case(3, four_floated=True) == {frozenset(p) for p in ((1, 3), (2, 5), (4, 6))}


def test_c7_does_not_apply_in_the_last_two_rounds() -> None:
    assert floats_case(8, four_floated=True) == {frozenset(p) for p in ((1, 3), (2, 4), (5, 6))}


def test_c5_the_smallest_score_difference_comes_before_c7() -> None:
    # 5 now has 1 point: [C5] keeps the upfloater among the 2-pointers (4 and 6) before
    # [C7] passes over 4, which floated last round.
    assert floats_case(3, four_floated=True, five_score=1) == {
        frozenset(p) for p in ((1, 3), (2, 6), (4, 5))
    }


def test_c1_an_upfloater_must_find_a_new_opponent() -> None:
    teams = [
        team(1, 4, met=(4,)),
        team(2, 4, met=(4,)),
        team(3, 4, met=(4,)),
        team(4, 2, met=(1, 2, 3)),
        team(5, 2),
        team(6, 2),
    ]
    pairs = {frozenset(m.teams()) for m in pair_team_round(teams, 4, NINE)}
    assert pairs == {frozenset(p) for p in ((1, 3), (2, 5), (4, 6))}


def test_floaters_are_the_teams_meeting_another_score() -> None:
    teams = [team(1, 4), team(2, 2), team(3, 2), team(4, 2)]
    matches = (Match(1, 1, 2), Match(2, 3, 4))
    assert floaters_of(teams, matches, NINE) == {1, 2}


def test_pairing_does_not_depend_on_the_order_of_the_records() -> None:
    teams = [team(n, (n * 7) % 5, met=(n + 20,)) for n in range(1, 12)]
    shuffled = list(teams)
    random.Random(3).shuffle(shuffled)
    assert pair_team_round(teams, 2, NINE) == pair_team_round(shuffled, 2, NINE)


# ---------------------------------------------------------------- colour preferences

A, B = TeamSwissRules(rounds=9, colours="A"), TeamSwissRules(rounds=9, colours="B")


def history(*named: bool | None) -> TeamRecord:
    return TeamRecord(1, 1, 0, 0, opponents=tuple(range(10, 10 + len(named))), first_named=named)


def test_type_a_asks_only_after_an_imbalance_or_the_same_colour_twice() -> None:
    assert preference(history(False, False), 3, A) == Preference(first=True, strong=True)
    assert preference(history(True, False, False, False), 5, A) == Preference(
        first=True, strong=True
    )
    assert preference(history(True, True, False), 4, A) is None  # +1 after one switch
    assert preference(history(True, None, False), 4, A) is None  # unplayed: no colour
    assert preference(history(True, False), 3, A) is None


def test_type_b_adds_mild_preferences_and_drops_them_in_the_last_round() -> None:
    assert preference(history(False), 2, B) == Preference(first=True, strong=False)
    assert preference(history(True, False), 3, B) == Preference(first=True, strong=False)
    assert preference(history(True, False), 9, B) is None
    assert preference(history(True, True), 3, B) == Preference(first=False, strong=True)


def test_no_preferences_when_the_event_says_colours_do_not_count() -> None:
    assert preference(history(False, False), 3, TeamSwissRules(rounds=9, colours="none")) is None


def test_colour_difference_counts_played_matches_only() -> None:
    assert colour_difference(history(True, None, True, False)) == 1


def test_opposite_preferences_are_both_granted_and_a_strong_one_beats_a_mild_one() -> None:
    wants_first = TeamRecord(1, 1, 4, 0, first_named=(False, False))
    wants_second = TeamRecord(2, 2, 4, 0, first_named=(True, True))
    assert named_first(wants_second, wants_first, 3, A) is False
    mild = TeamRecord(3, 3, 4, 0, first_named=(True, False))  # Type B: mild, named first
    assert named_first(mild, wants_first, 3, B) is False  # 4.3.4: the strong wish wins


def test_the_lower_colour_difference_is_named_first() -> None:
    minus = TeamRecord(1, 1, 4, 0, first_named=(False, True, False))
    plus = TeamRecord(2, 2, 4, 0, first_named=(True, False, True))
    assert named_first(minus, plus, 4, TeamSwissRules(rounds=9, colours="none")) is True


def test_c8_moves_the_bracket_off_the_natural_pairing_to_grant_colours() -> None:
    # All four on 4 points; 1 and 3 had the second place twice and must be named first,
    # 2 and 4 the other way round. 1-3 and 2-4 would deny two teams; of the pairings that
    # deny none, 1-4 2-3 comes first (tops 1 2).
    wants_first, wants_second = (False, False), (True, True)
    teams = [
        team(1, 4, met=(11, 12), named=wants_first),
        team(2, 4, met=(13, 14), named=wants_second),
        team(3, 4, met=(15, 16), named=wants_first),
        team(4, 4, met=(17, 18), named=wants_second),
    ]
    assert pair_team_round(teams, 3, NINE) == (Match(1, 1, 4), Match(2, 3, 2))


def test_the_first_team_is_the_better_score_then_the_secondary_score() -> None:
    level = dict(met=(11,), named=(True,))
    ahead_on_games = team(2, 2, 3.5, **level)  # type: ignore[arg-type]
    behind_on_games = team(1, 2, 2.5, **level)  # type: ignore[arg-type]
    # Same colour difference and history: 4.3.8 alternates the first-team's colour.
    assert named_first(ahead_on_games, behind_on_games, 2, NINE) is False
    ignore_games = TeamSwissRules(rounds=9, secondary_for_colour=False)
    assert named_first(ahead_on_games, behind_on_games, 2, ignore_games) is True
