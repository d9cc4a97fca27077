"""Team standings and every team tie-break against gacrux (FIDE's tie-break code).

gacrux takes team events in its own team-tournament JSON (what its team TRF reader builds);
tests.support.team_gacrux builds that from the same TeamSectionView the product reads. The
events: a 10-team round robin of 4 boards (with a forfeited board now and then and one
whole match forfeited), seeded team Swiss events of 40 and 39 teams over 9 rounds played
through our C.04.6 pairing (byes, whole matches forfeited), and Hypothesis schedules with
forfeited boards, empty boards, byes and teams left out of a round. Ranked by match points
and by game points, C.07 2024 and 2026. gacrux spells the Olympiad's SB (our OSB) EMGSB/C1.

Where they differed, and what was done:
- A team that forfeited its last matches: our team Buchholz counted those matches, for the
  team's opponents, as draws; gacrux counts them as scored (0). C.07 art. 16 keeps only a
  requested absence after the participant's last non-voluntary round (16.2.5) as a draw for
  the opponents; a forfeit loss (16.2.4) counts as scored wherever it falls, as our
  individual Buchholz already had it. gacrux is right: broadcast/fide/teams/tiebreaks.py
  now draws only the rounds a team had no match at all
  (test_a_team_forfeiting_its_last_match_counts_zero_for_its_opponents).
- A match in which both teams forfeited every board (0-0): it was a draw for us, two losses
  for gacrux. Nobody played it to a draw, as a double forfeit game scores nothing:
  broadcast/fide/teams/scores.py now gives both teams the loss
  (test_a_match_nobody_scored_in_is_lost_by_both).
Nothing else differed: values, shared ranks and direct encounter agree everywhere below.
"""

from __future__ import annotations

import random
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from broadcast.fide.teams.berger import team_berger_table
from broadcast.fide.teams.standings import team_standings
from broadcast.fide.teams.swiss import TeamSwissRules
from broadcast.fide.teams.tiebreaks import TEAM_TIEBREAKS
from broadcast.fide.teams.view import TeamSectionView
from tests.support.team_gacrux import gacrux_standings
from tests.support.team_schedules import round_robins
from tests.support.team_swiss_events import BOARDS, play_event
from tests.support.team_view import Board, MatchRow, team_view

EDITIONS = (2024, 2026)
RANKINGS = ("match-points", "game-points")
NAMES = tuple(n for n in TEAM_TIEBREAKS if n != "DE")
DE_LISTS = (("DE",), ("DE", "BH"), ("BH-C1", "DE", "SB"), ("GP", "DE", "EMGSB"))


def mismatches(view: TeamSectionView, names: tuple[str, ...], edition: int) -> list[object]:
    """Every (team, what, ours, gacrux's) that differs: tie-break values and ranks."""
    theirs = gacrux_standings(view, names, edition)
    ours = team_standings(view, edition=edition)
    assert {s.team for s in ours} == set(theirs)
    out: list[object] = []
    for row in ours:
        rank, values = theirs[row.team]
        if row.rank != rank:
            out.append((row.team, "rank", row.rank, rank))
        for name, value in zip(names, values, strict=True):
            if value is None or abs(row.value(name) - value) > 1e-9:
                out.append((row.team, name, row.value(name), value))
    return out


def with_list(view: TeamSectionView, names: tuple[str, ...], rank_by: str) -> TeamSectionView:
    return TeamSectionView(
        teams=view.teams,
        boards=view.boards,
        matches=view.matches,
        rounds=view.rounds,
        match_points=view.match_points,
        rank_by=rank_by,
        tiebreaks=names,
        bye_match_points=view.bye_match_points,
        bye_game_points=view.bye_game_points,
        round_robin=view.round_robin,
    )


# -- the 10-team league ----------------------------------------------------------------


def league_rows(seed: int) -> list[MatchRow]:
    """A 10-team round robin of 4 boards: seeded results, a forfeited board about one in
    twenty-five, and one whole match forfeited (round 5's first)."""
    rng = random.Random(seed)
    results: list[Board] = [(1.0, 0.0), (0.5, 0.5), (0.5, 0.5), (0.0, 1.0)]
    rows: list[MatchRow] = []
    for rnd, matches in enumerate(team_berger_table(10), start=1):
        for i, m in enumerate(matches):
            if rnd == 5 and i == 0:
                rows.append((rnd, m.first, m.second, [(0.0, 1.0, "+")] * BOARDS))
                continue
            boards: list[Board] = [
                (1.0, 0.0, "+") if rng.random() < 0.04 else rng.choice(results)
                for _ in range(BOARDS)
            ]
            rows.append((rnd, m.first, m.second, boards))
    return rows


@pytest.mark.parametrize("edition", EDITIONS)
@pytest.mark.parametrize("rank_by", RANKINGS)
@pytest.mark.parametrize("seed", range(3))
def test_ten_team_round_robin_matches_gacrux(seed: int, rank_by: str, edition: int) -> None:
    view = team_view(10, BOARDS, league_rows(seed), round_robin=True, rank_by=rank_by)
    assert mismatches(with_list(view, NAMES, rank_by), NAMES, edition) == []


# -- the 40-team Swiss -----------------------------------------------------------------


def _boards_scoring(points: float) -> list[Board]:
    """Four boards giving the team named first `points` game points."""
    out: list[Board] = []
    for _ in range(BOARDS):
        take = min(1.0, max(0.0, points))
        take = 0.5 if 0 < take < 1 else take
        out.append((take, 1.0 - take))
        points -= take
    return out


@cache
def swiss_rows(teams: int, seed: int, rounds: int = 9) -> tuple[MatchRow, ...]:
    """A `teams`-team Swiss paired by our C.04.6 pairing, played with seeded results (about
    one match in twelve forfeited whole); each match's boards rebuilt from the game points
    the event recorded. One more round is paired than kept, since an event's records give
    a round's results only before the next."""
    event = play_event(teams, TeamSwissRules(rounds=rounds + 1), seed, forfeits=0.08)
    rows: list[MatchRow] = []
    for r in range(rounds):
        before = {t.number: t for t in event.before[r]}
        after = {t.number: t for t in event.before[r + 1]}
        for m in event.rounds[r]:
            if m.second is None:
                rows.append((r + 1, m.first, None, []))
                continue
            points = after[m.first].game_points - before[m.first].game_points
            if after[m.first].opponents[r] is None:  # forfeited whole: no board played
                share = points / BOARDS
                rows.append((r + 1, m.first, m.second, [(share, 1.0 - share, "+")] * BOARDS))
            else:
                rows.append((r + 1, m.first, m.second, _boards_scoring(points)))
    return tuple(rows)


def swiss_view(teams: int, seed: int, rank_by: str) -> TeamSectionView:
    # The seeded events score a team bye as a drawn match (C.04.6): 1 MP, 2 GP.
    return team_view(
        teams, BOARDS, swiss_rows(teams, seed), rank_by=rank_by,
        bye_match_points=1.0, bye_game_points=2.0,
    )  # fmt: skip


@pytest.mark.parametrize("edition", EDITIONS)
@pytest.mark.parametrize("rank_by", RANKINGS)
@pytest.mark.parametrize(("teams", "seed"), [(40, 0), (40, 1), (40, 2), (39, 3), (39, 4)])
def test_team_swiss_of_nine_rounds_matches_gacrux(
    teams: int, seed: int, rank_by: str, edition: int
) -> None:
    rows = swiss_rows(teams, seed)
    forfeited = [r for r in rows if r[2] is not None and all(len(b) == 3 for b in r[3])]
    assert forfeited, "the event should have forfeited matches"
    assert (teams % 2 == 1) == any(r[2] is None for r in rows)
    view = swiss_view(teams, seed, rank_by)
    assert mismatches(with_list(view, NAMES, rank_by), NAMES, edition) == []


# -- direct encounter ------------------------------------------------------------------


@pytest.mark.parametrize("edition", EDITIONS)
@pytest.mark.parametrize("rank_by", RANKINGS)
@pytest.mark.parametrize("names", DE_LISTS, ids="/".join)
def test_direct_encounter_matches_gacrux(
    names: tuple[str, ...], rank_by: str, edition: int
) -> None:
    views = [team_view(10, BOARDS, league_rows(seed), round_robin=True) for seed in range(3)] + [
        swiss_view(teams, seed, rank_by) for teams, seed in ((40, 0), (39, 3))
    ]
    for view in views:
        assert mismatches(with_list(view, names, rank_by), names, edition) == []


def test_direct_encounter_separates_tied_teams_in_these_events() -> None:
    # Guard: a DE that never separated anyone (all zeros) would agree with gacrux as well.
    separated = 0
    for seed in range(3):
        view = team_view(10, BOARDS, league_rows(seed), round_robin=True, tiebreaks=("DE",))
        separated += sum(1 for s in team_standings(view) if s.value("DE") > 0)
    assert separated > 0


# -- the difference found: a forfeit loss at the end -----------------------------------


def test_a_team_forfeiting_its_last_match_counts_zero_for_its_opponents() -> None:
    # Team 4 plays round 1 (losing 1-3 to team 1), then forfeits round 2 to team 3.
    # For team 1's Buchholz team 4 has 0 match points: the forfeit is scored (C.07
    # 16.2.4), not turned into a draw as an absence at the end would be (16.2.5).
    rows: list[MatchRow] = [
        (1, 1, 4, [(1.0, 0.0), (1.0, 0.0), (0.5, 0.5), (0.5, 0.5)]),
        (1, 2, 3, [(0.5, 0.5)] * 4),
        (2, 1, 2, [(0.5, 0.5)] * 4),
        (2, 3, 4, [(1.0, 0.0, "+")] * 4),
    ]
    for edition in EDITIONS:
        view = team_view(4, 4, rows, tiebreaks=("BH",))
        by_team = {s.team: s for s in team_standings(view, edition=edition)}
        assert by_team[1].value("BH") == 0.0 + 2.0  # team 4: 0, team 2: 1 + 1
        assert mismatches(view, ("BH",), edition) == []
    # A team with no match at all in the last round is the absence 16.2.5 draws.
    absent = [row for row in rows if row[0] == 1] + [(2, 1, 2, [(0.5, 0.5)] * 4)]
    view = team_view(4, 4, absent, rounds=2, tiebreaks=("BH",))
    by_team = {s.team: s for s in team_standings(view)}
    assert by_team[1].value("BH") == 1.0 + 2.0  # team 4 seen with a drawn round 2
    assert mismatches(view, ("BH",), 2026) == []


def test_a_match_nobody_scored_in_is_lost_by_both() -> None:
    # Every board of a match forfeited by both sides (0-0): nobody played it to a draw,
    # so both teams lose it, as a double forfeit game scores nothing (gacrux agrees).
    rows: list[MatchRow] = [(1, 1, 2, [(0.0, 0.0, "+")] * 2), (1, 3, 4, [(0.5, 0.5)] * 2)]
    view = team_view(4, 2, rows)
    ours = {s.team: s.match_points for s in team_standings(view)}
    theirs = gacrux_standings(with_list(view, ("MP",), "match-points"), ("MP",), 2026)
    assert (ours[1], ours[2], ours[3], ours[4]) == (0.0, 0.0, 1.0, 1.0)
    assert (theirs[1][1][0], theirs[2][1][0]) == (0.0, 0.0)


# -- any schedule ----------------------------------------------------------------------

CHOICES: list[Board] = [
    (1.0, 0.0), (0.5, 0.5), (0.0, 1.0), (1.0, 0.0, "+"), (0.0, 1.0, "+"), (0.0, 0.0, "+"),
    "empty-first", "empty-second",
]  # fmt: skip


@st.composite
def swiss_with_unplayed(draw: st.DrawFn) -> tuple[int, int, list[MatchRow]]:
    """Swiss-like schedules with forfeited and empty boards, whole matches forfeited,
    byes and teams left out of a round."""
    teams = draw(st.integers(3, 9))
    boards = draw(st.integers(1, 4))
    rounds = draw(st.integers(1, 5))
    rows: list[MatchRow] = []
    for rnd in range(1, rounds + 1):
        order = list(draw(st.permutations(range(1, teams + 1))))
        out = draw(st.integers(0, 1))
        playing = order[out:]
        for i in range(0, len(playing) - 1, 2):
            if draw(st.integers(0, 9)) == 0:
                win = draw(st.sampled_from([(1.0, 0.0, "+"), (0.0, 1.0, "+")]))
                row: list[Board] = [win] * boards
            else:
                row = draw(st.lists(st.sampled_from(CHOICES), min_size=boards, max_size=boards))
            rows.append((rnd, playing[i], playing[i + 1], row))
        if len(playing) % 2:
            rows.append((rnd, playing[-1], None, []))
    return teams, boards, rows


@settings(max_examples=60, deadline=None)
@given(swiss_with_unplayed(), st.sampled_from(RANKINGS), st.sampled_from(EDITIONS))
def test_any_swiss_with_unplayed_rounds_matches_gacrux(
    event: tuple[int, int, list[MatchRow]], rank_by: str, edition: int
) -> None:
    teams, boards, rows = event
    view = team_view(teams, boards, rows, rank_by=rank_by)
    assert mismatches(with_list(view, NAMES, rank_by), NAMES, edition) == []
    assert mismatches(with_list(view, ("DE", "BH"), rank_by), ("DE", "BH"), edition) == []


@settings(max_examples=40, deadline=None)
@given(round_robins(), st.sampled_from(RANKINGS), st.sampled_from(EDITIONS))
def test_any_round_robin_matches_gacrux(
    event: tuple[int, int, list[MatchRow], bool], rank_by: str, edition: int
) -> None:
    teams, boards, rows, _ = event
    view = team_view(teams, boards, rows, round_robin=True, rank_by=rank_by)
    assert mismatches(with_list(view, NAMES, rank_by), NAMES, edition) == []
    assert mismatches(with_list(view, ("DE", "SB"), rank_by), ("DE", "SB"), edition) == []
