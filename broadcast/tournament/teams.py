"""A team section's rounds: the fold of its team events, and the view its standings read.

`apply_team_event` is the team part of `SectionState.apply`: a round's matches
(`MatchesPaired`) and each team's lineup (`LineupSubmitted`, `LineupWithdrawn`), refused
in words when they cannot apply. The games themselves are the section's ordinary rounds
(`RoundPaired`, board numbers by `board_of`), so `team_view` reads the boards and
results from there and says them by team: what the team standings, tie-breaks, board
prizes and crosstable (`broadcast.fide.teams`) and the pages read.
"""

from __future__ import annotations

from dataclasses import replace

from broadcast.config.model import SectionConfig
from broadcast.fide.pairing import Pairing
from broadcast.fide.results import Result
from broadcast.fide.teams.match import Match, board_of, first_team_is_white
from broadcast.fide.teams.view import BoardGame, MatchRecord, TeamSectionView, TeamView
from broadcast.phrases import say
from broadcast.tournament.section import RoundState, SectionRecord, StateError
from broadcast.tournament.team_events import (
    LineupSubmitted,
    LineupWithdrawn,
    MatchesPaired,
    TeamEvent,
)
from broadcast.tournament.team_record import TeamRounds

__all__ = ["TeamRounds", "apply_team_event", "team_view"]

# The points a bye code gives the player who has it (a forfeit win on an empty board is
# recorded as "F": see broadcast.tournament.team_rounds).
_BYE_POINTS = {"F": 1.0, "U": 1.0, "H": 0.5, "Z": 0.0}


def apply_team_event(section: SectionRecord, event: TeamEvent) -> TeamRounds:
    """The section's team rounds after `event`; StateError (in words) if it cannot apply."""
    config = section.config
    if not config.is_team:
        raise StateError(
            say(
                "section %(section)s is not a team section: it has no matches or lineups",
                section=config.name,
            )
        )
    section.check_round_number(event.round)
    match event:
        case MatchesPaired():
            return _paired(section, event)
        case LineupSubmitted():
            return _submitted(section, event)
        case LineupWithdrawn():
            _lineup_open(section, event.round)
            rounds = section.team_rounds
            if (event.round, event.team) not in rounds.lineups:
                raise StateError(
                    say(
                        "team %(team)d has no lineup for round %(round)d to take back",
                        team=event.team,
                        round=event.round,
                    )
                )
            kept = {k: v for k, v in rounds.lineups.items() if k != (event.round, event.team)}
            return replace(rounds, lineups=kept)


def _paired(section: SectionRecord, event: MatchesPaired) -> TeamRounds:
    rounds = section.team_rounds
    if event.round in rounds.matches:
        raise StateError(say("round %(round)d's matches are already paired", round=event.round))
    if event.round > 1 and event.round - 1 not in rounds.matches:
        raise StateError(
            say(
                "round %(before)d's matches must be paired before round %(round)d's",
                before=event.round - 1,
                round=event.round,
            )
        )
    known = {team.number for team in section.config.teams}
    seen: set[int] = set()
    byes = 0
    for expected, match in enumerate(event.matches, start=1):
        if match.number != expected:
            raise StateError(
                say(
                    "round %(round)d: the matches are numbered 1, 2, ... in board order "
                    "(match %(number)d is number %(expected)d)",
                    round=event.round,
                    number=match.number,
                    expected=expected,
                )
            )
        byes += match.is_bye
        for team in match.teams():
            if team not in known:
                raise StateError(
                    say(
                        "round %(round)d: there is no team %(team)d in the section",
                        round=event.round,
                        team=team,
                    )
                )
            if team in seen:
                raise StateError(
                    say(
                        "round %(round)d: team %(team)d is in two matches",
                        round=event.round,
                        team=team,
                    )
                )
            seen.add(team)
    if byes > 1:
        raise StateError(say("round %(round)d: only one team may have the bye", round=event.round))
    return replace(
        rounds,
        matches={**rounds.matches, event.round: event.matches},
        sources={**rounds.sources, event.round: event.source},
    )


def _lineup_open(section: SectionRecord, round_number: int) -> None:
    """Refuse a lineup change once the round's boards are paired."""
    if round_number in section.rounds:
        raise StateError(
            say(
                "round %(round)d's boards are already paired from the lineups; "
                "a change of lineup now is a change of the pairing",
                round=round_number,
            )
        )


def _submitted(section: SectionRecord, event: LineupSubmitted) -> TeamRounds:
    rounds = section.team_rounds
    _lineup_open(section, event.round)
    match = rounds.match_of(event.round, event.team)
    if match is None:
        raise StateError(
            say(
                "team %(team)d plays no match in round %(round)d",
                team=event.team,
                round=event.round,
            )
        )
    if match.is_bye:
        raise StateError(
            say(
                "team %(team)d has the bye in round %(round)d: it sends no lineup",
                team=event.team,
                round=event.round,
            )
        )
    rules = section.config.team_rules
    assert rules is not None  # a team section (checked above)
    team = next(t for t in section.config.teams if t.number == event.team)
    if len(event.players) > rules.boards:
        raise StateError(
            say(
                "a lineup has at most %(boards)d players, one a board",
                boards=rules.boards,
            )
        )
    named = [p for p in event.players if p is not None]
    if len(set(named)) != len(named):
        raise StateError(say("a lineup names a player twice"))
    for player in named:
        if player not in team.roster:
            raise StateError(
                say(
                    "player %(player)d is not on the roster of team %(team)s",
                    player=player,
                    team=team.name,
                )
            )
    return replace(rounds, lineups={**rounds.lineups, (event.round, event.team): event})


def team_view(
    config: SectionConfig, state: SectionRecord, *, edition: int = 2024
) -> TeamSectionView:
    """The team section as the FIDE team core reads it: its teams, every paired match
    with its boards and their results (from the section's rounds), and the rounds whose
    matches all have results. `edition`: the event's `tiebreak_edition` (its default is
    the config's), which the team tie-breaks follow."""
    rules = config.team_rules
    if rules is None:
        raise StateError(say("section %(section)s is not a team section", section=config.name))
    records: list[MatchRecord] = []
    complete = 0
    for number in sorted(state.team_rounds.matches):
        rnd = state.rounds.get(number)
        here = [
            MatchRecord(number, match, () if rnd is None else _boards(config, rnd, match))
            for match in state.team_rounds.matches[number]
        ]
        records.extend(here)
        finished = rnd is not None and all(
            r.match.is_bye or all(b.has_result for b in r.boards) for r in here
        )
        if finished and complete == number - 1:
            complete = number
    ratings = {p.number: p.rating for p in state.players.values()}
    return TeamSectionView(
        teams=tuple(
            TeamView(t.number, t.name, t.roster, t.federation or t.club) for t in config.teams
        ),
        boards=rules.boards,
        matches=tuple(records),
        rounds=complete,
        match_points=rules.match_points,
        rank_by=rules.rank_by,
        tiebreaks=config.tiebreaks,
        bye_match_points=rules.bye_match_points,
        bye_game_points=rules.bye_game_points,
        board_prize_min_games=rules.board_prize_min_games,
        ratings=ratings,
        round_robin=config.system != "swiss",
        edition=edition,
    )


def _boards(config: SectionConfig, rnd: RoundState, match: Match) -> tuple[BoardGame, ...]:
    """A match's boards as the round's pairings and results have them. A board's game is
    found by its section board number; an empty board facing a present player is that
    player's bye-code pairing on the board (a forfeit win); both sides empty: nobody
    plays it and it is worth nothing to either."""
    rules = config.team_rules
    assert rules is not None
    if match.second is None:
        return ()
    by_board: dict[int, Pairing] = {p.board: p for p in rnd.pairings if p.board}
    first_roster = next(t.roster for t in config.teams if t.number == match.first)
    out: list[BoardGame] = []
    for board in range(1, rules.boards + 1):
        white_first = first_team_is_white(board, rules.first_team_white)
        pairing = by_board.get(board_of(match.number, board, rules.boards))
        if pairing is None:
            out.append(BoardGame(board, None, None, 0.0, 0.0, False, white_first))
            continue
        if pairing.black is None:
            present = pairing.white
            points = _BYE_POINTS.get(rnd.bye_codes.get(present, "F"), 1.0)
            ours = present in first_roster
            out.append(
                BoardGame(
                    board,
                    present if ours else None,
                    None if ours else present,
                    points if ours else 0.0,
                    0.0 if ours else points,
                    False,
                    white_first,
                )
            )
            continue
        first, second = (
            (pairing.white, pairing.black) if white_first else (pairing.black, pairing.white)
        )
        outcome = rnd.results.get(pairing.white)
        first_points = second_points = None
        played = True
        if outcome is not None:
            result = Result.from_tournament(outcome.result)
            white, black = result.points
            first_points, second_points = (white, black) if white_first else (black, white)
            played = not result.is_forfeit
        out.append(
            BoardGame(board, first, second, first_points, second_points, played, white_first)
        )
    return tuple(out)
