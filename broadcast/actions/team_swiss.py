"""A team Swiss round's pairing from the section as it stands: each team's record before the
round (C.04.6: scores, opponents, who was named first, floats, byes) made from the section's
matches and results, then `fide.teams.swiss.pair_team_round`.

The teams' pairing numbers are their starting numbers (the config lists them in the initial
ranking the regulations give); the colour preferences are the C.04.6 variant the section
chooses (`swiss_colours`: A by default, B, or none) and the lot before round 1 names the
top team first (White on board 1 with odd-board colours).
"""

from __future__ import annotations

from dataclasses import replace

from broadcast.config.model import SectionConfig
from broadcast.fide.teams.match import Match
from broadcast.fide.teams.scores import TeamRound, team_rounds
from broadcast.fide.teams.swiss import (
    NoTeamPairing,
    TeamRecord,
    TeamSwissRules,
    floaters_of,
    pair_team_round,
)
from broadcast.phrases import phrase_of
from broadcast.service.committer import ActionError
from broadcast.tournament.teams import team_view
from broadcast.tournament.tournament_state import SectionState

__all__ = ["swiss_matches", "swiss_records", "swiss_rules"]


def swiss_rules(config: SectionConfig) -> TeamSwissRules:
    """The C.04.6 choices of the section: its rounds, what ranks its teams and the
    colour preference variant (`swiss_colours`)."""
    rules = config.team_rules
    if rules is None:
        return TeamSwissRules(rounds=config.rounds)
    return TeamSwissRules(rounds=config.rounds, primary=rules.rank_by, colours=rules.swiss_colours)


def swiss_records(state: SectionState, round_number: int) -> tuple[TeamRecord, ...]:
    """Every team's record before `round_number`, round by round from round 1 (a round's
    floats are told from the records it was paired from)."""
    config = state.config
    rules = swiss_rules(config)
    view = team_view(config, state)
    counted = team_rounds(replace(view, rounds=round_number - 1))
    records = {t.number: TeamRecord(t.number, t.number, 0.0, 0.0) for t in config.teams}
    for number in range(1, round_number):
        matches = state.team_rounds.round_matches(number)
        floaters = floaters_of(tuple(records.values()), matches, rules)
        played = {team: match for match in matches for team in match.teams()}
        for team, record in records.items():
            after = _after_round(record, played.get(team), counted[team][number - 1])
            records[team] = replace(after, floated=(*record.floated, team in floaters))
    return tuple(records.values())


def _after_round(record: TeamRecord, match: Match | None, scored: TeamRound) -> TeamRecord:
    """The record once a round is counted: its scores, opponent, colour and bye."""
    opponent: int | None = None
    if match is not None and match.second is not None:
        opponent = match.second if match.first == record.number else match.first
    # A match no board of which was played gives no colour (C.04.6 1.6.1).
    first = None
    if match is not None and opponent is not None and not scored.forfeit:
        first = match.first == record.number
    won_unplayed = scored.forfeit and scored.game_points > scored.opponent_game_points
    return replace(
        record,
        match_points=record.match_points + scored.match_points,
        game_points=record.game_points + scored.game_points,
        opponents=(*record.opponents, opponent),
        first_named=(*record.first_named, first),
        had_bye=record.had_bye or (match is not None and match.second is None),
        won_by_forfeit=record.won_by_forfeit or (opponent is not None and won_unplayed),
    )


def swiss_matches(state: SectionState, round_number: int) -> tuple[Match, ...]:
    """Round `round_number`'s matches by the team Swiss; ActionError (C.04.6's words) when
    no pairing meets its absolute criteria."""
    try:
        return pair_team_round(
            swiss_records(state, round_number), round_number, swiss_rules(state.config)
        )
    except NoTeamPairing as exc:
        raise ActionError(phrase_of(exc)) from None
