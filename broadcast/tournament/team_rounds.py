"""A team round's boards from its matches and lineups: the individual pairings that the
section's ordinary `RoundPaired` records.

Match m's board b is the section's board `board_of(m, b, boards)`; the team named first
has White on the odd boards or the even ones (`first_team_is_white`). Every team of a
match plays its lineup, or the one its rules make when it sent none (`fallback_lineups`
gives those, to journal first, so that the record says what was played).

How the gaps are recorded:
- an empty board facing a present player is that player's forfeit win with no game: a
  pairing with no Black on the board's number, which the fold records as the bye code
  "F" (`EMPTY_BOARD_CODE`: a point, unplayed, not rated; the TRF writes `0000 - F`).
  TRF-16 would write a forfeit win, `0000 - +` (no scheduled opponent, result "+"; "F"
  is its full-point bye), but the crosstable has no forfeit win without an opponent yet,
  and C.07 scores the two alike only in the 2024 edition. Both sides empty: no pairing;
  the board is worth nothing to either.
- a team's bye: its players get no game and are not paired; the individual record shows
  them unpaired in that round ("Z", no points), while the team scores the section's
  `bye_match_points` and `bye_game_points` (the team standings read them).
"""

from __future__ import annotations

import datetime as dt

from broadcast.config.model import SectionConfig
from broadcast.fide.pairing import Pairing
from broadcast.fide.teams.match import Match, board_of, first_team_is_white
from broadcast.phrases import say
from broadcast.tournament.lineups import available, fallback_lineup
from broadcast.tournament.section import SectionRecord, StateError
from broadcast.tournament.team_events import LineupSubmitted

__all__ = [
    "EMPTY_BOARD_CODE",
    "bye_codes",
    "compose_round",
    "empty_board_code",
    "fallback_lineups",
    "lineup_of",
]

EMPTY_BOARD_CODE = "F"


def empty_board_code(config: SectionConfig, pairing: Pairing) -> str:
    """The bye code the fold gives a pairing without Black: in a team section, a pairing
    on a board (not board 0) is a present player facing an empty board, a forfeit win
    ("F"); anything else is the pairing-allocated bye ("U")."""
    return EMPTY_BOARD_CODE if config.is_team and pairing.board else "U"


def bye_codes(config: SectionConfig, pairings: tuple[Pairing, ...]) -> dict[int, str]:
    """The bye code of each player paired without Black (see `empty_board_code`)."""
    return {p.white: empty_board_code(config, p) for p in pairings if p.black is None}


def _require_matches(state: SectionRecord, round_number: int) -> tuple[Match, ...]:
    config = state.config
    if not config.is_team:
        raise StateError(say("section %(section)s is not a team section", section=config.name))
    state.check_round_number(round_number)
    matches = state.team_rounds.round_matches(round_number)
    if not matches:
        raise StateError(say("round %(round)d's matches are not paired yet", round=round_number))
    return matches


def lineup_of(
    config: SectionConfig, state: SectionRecord, round: int, team: int
) -> tuple[int | None, ...]:
    """The players `team` fields in the round: its lineup, or the fallback its rules make."""
    sent = state.team_rounds.lineup(round, team)
    if sent is not None:
        return sent.players
    return fallback_lineup(config, state, round, team)[0]


def fallback_lineups(
    config: SectionConfig, state: SectionRecord, round: int, at: dt.datetime, by: str = "rules"
) -> tuple[LineupSubmitted, ...]:
    """The lineups of the round's teams that sent none, as events to journal (with the
    rule that made each in `fallback`) before the round's boards are paired."""
    out: list[LineupSubmitted] = []
    for match in _require_matches(state, round):
        for team in match.teams() if match.second is not None else ():
            if state.team_rounds.lineup(round, team) is None:
                players, rule = fallback_lineup(config, state, round, team)
                out.append(
                    LineupSubmitted(config.name, round, team, players, at, by, fallback=rule)
                )
    return tuple(out)


def _seated(
    state: SectionRecord, round_number: int, lineup: tuple[int | None, ...], board: int
) -> int | None:
    """Who sits at the lineup's board: its player, unless the lineup leaves the board
    empty or its player is out of the event since (withdrawn, over the no-show limit):
    then the board is empty, and the player facing it wins by forfeit."""
    player = lineup[board - 1] if board <= len(lineup) else None
    return player if player is not None and available(state, round_number, player) else None


def compose_round(config: SectionConfig, state: SectionRecord, round: int) -> tuple[Pairing, ...]:
    """The round's individual pairings, in board order, from its matches and each team's
    lineup (or fallback); a player out of the event since their lineup came in leaves
    their board empty. Refused (StateError) when the matches are not paired or the
    boards already are."""
    matches = _require_matches(state, round)
    if round in state.rounds:
        raise StateError(say("round %(round)d's boards are already paired", round=round))
    rules = config.team_rules
    assert rules is not None  # _require_matches refused a section without teams
    pairings: list[Pairing] = []
    for match in matches:
        if match.second is None:
            continue  # the team bye: its players are not paired
        first = lineup_of(config, state, round, match.first)
        second = lineup_of(config, state, round, match.second)
        for board in range(1, rules.boards + 1):
            ours = _seated(state, round, first, board)
            theirs = _seated(state, round, second, board)
            number = board_of(match.number, board, rules.boards)
            if ours is not None and theirs is not None:
                if first_team_is_white(board, rules.first_team_white):
                    pairings.append(Pairing(number, ours, theirs))
                else:
                    pairings.append(Pairing(number, theirs, ours))
            elif ours is not None or theirs is not None:
                present = ours if ours is not None else theirs
                assert present is not None
                pairings.append(Pairing(number, present, None))
    return tuple(pairings)
