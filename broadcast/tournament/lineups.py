"""A team's lineup for a round: the rules it must keep, and the one a team that sends
none plays with.

A lineup names the team's players in board order, with any empty boards at the bottom
(None). It must keep the roster's order (a player never above one listed before them on
the roster), name only the team's own players, each once, no more than the boards, none
of them out of the event, and be in by the deadline (the round's start minus
`lineup_deadline_minutes`; the arbiter may pass a late one, saying why). Once the round's
boards are paired from the lineups, no lineup changes.
"""

from __future__ import annotations

import datetime as dt

from broadcast.config.model import SectionConfig, TeamEntry
from broadcast.phrases import say
from broadcast.tournament.eligibility import out_reason
from broadcast.tournament.schedule import StartOverrides, round_start
from broadcast.tournament.section import SectionRecord, StateError

__all__ = ["LineupRefused", "available", "check_lineup", "fallback_lineup", "lineup_deadline"]


class LineupRefused(StateError):
    """A lineup that breaks a rule, the rule said in words (a phrase for the desk)."""


def lineup_deadline(
    config: SectionConfig, round_number: int, moved: StartOverrides | None = None
) -> dt.datetime:
    """When the round's lineups are due: its start (moved or as scheduled) less the
    section's `lineup_deadline_minutes`."""
    rules = config.team_rules
    minutes = rules.lineup_deadline_minutes if rules is not None else 0
    return round_start(config, round_number, moved) - dt.timedelta(minutes=minutes)


def _team(config: SectionConfig, team: int) -> TeamEntry:
    if not config.is_team:
        raise LineupRefused(say("section %(section)s is not a team section", section=config.name))
    for entry in config.teams:
        if entry.number == team:
            return entry
    raise LineupRefused(say("there is no team %(team)d in the section", team=team))


def available(state: SectionRecord, round_number: int, player: int) -> bool:
    """May the player sit at a board in the round: in the event (not withdrawn, not out
    by the no-show rules, already joined) and not on a granted bye."""
    return not out_reason(state, player, round_number) and round_number not in state.byes_of(player)


def check_lineup(
    config: SectionConfig,
    state: SectionRecord,
    round: int,
    team: int,
    players: tuple[int | None, ...],
    at: dt.datetime,
    *,
    override: str = "",
    moved: StartOverrides | None = None,
) -> None:
    """Refuse (`LineupRefused`, the rule in words) a lineup that breaks a rule; return
    None when it may be journaled. `override`: the arbiter's reason to accept it late
    (the other rules have no override). `moved`: the round starts moved from the schedule."""
    entry = _team(config, team)
    rules = config.team_rules
    assert rules is not None  # _team refused a section without teams
    state.check_round_number(round)
    if round in state.rounds:
        raise LineupRefused(
            say(
                "round %(round)d's boards are already paired and released: the lineups "
                "cannot change any more",
                round=round,
            )
        )
    match = state.team_rounds.match_of(round, team)
    if match is None:
        raise LineupRefused(
            say(
                "team %(team)s plays no match in round %(round)d (are its matches paired?)",
                team=entry.name,
                round=round,
            )
        )
    if match.is_bye:
        raise LineupRefused(
            say(
                "team %(team)s has the bye in round %(round)d: it sends no lineup",
                team=entry.name,
                round=round,
            )
        )
    if len(players) > rules.boards:
        raise LineupRefused(
            say(
                "the lineup names %(count)d players for %(boards)d boards: one player a board",
                count=len(players),
                boards=rules.boards,
            )
        )
    _check_names(config, state, entry, round, players)
    due = lineup_deadline(config, round, moved)
    if at > due and not override.strip():
        raise LineupRefused(
            say(
                "the lineup is late: round %(round)d's lineups were due by %(due)s; "
                "the arbiter may still accept it, saying why",
                round=round,
                due=due.strftime("%Y-%m-%d %H:%M"),
            )
        )


def _check_names(
    config: SectionConfig,
    state: SectionRecord,
    entry: TeamEntry,
    round_number: int,
    players: tuple[int | None, ...],
) -> None:
    """The players named: the team's own, each once, in roster order, no gap above a
    filled board, all of them in the event."""
    seen: set[int] = set()
    last_place = -1
    empty_board = 0
    for board, player in enumerate(players, start=1):
        if player is None:
            empty_board = empty_board or board
            continue
        if empty_board:
            raise LineupRefused(
                say(
                    "board %(empty)d is empty above board %(board)d: the empty boards are "
                    "the last ones",
                    empty=empty_board,
                    board=board,
                )
            )
        if player in seen:
            raise LineupRefused(
                say("player %(player)d is named twice in the lineup", player=player)
            )
        seen.add(player)
        if player not in entry.roster:
            other = config.team_of(player)
            if other is not None:
                raise LineupRefused(
                    say(
                        "player %(player)d plays for team %(other)s, not for %(team)s: a "
                        "player may play for one team only",
                        player=player,
                        other=other.name,
                        team=entry.name,
                    )
                )
            raise LineupRefused(
                say(
                    "player %(player)d is not on the roster of team %(team)s",
                    player=player,
                    team=entry.name,
                )
            )
        place = entry.roster.index(player)
        if place < last_place:
            above = entry.roster[last_place]
            raise LineupRefused(
                say(
                    "the lineup breaks the roster's order: player %(player)d is above "
                    "player %(above)d on the roster, so cannot play on a lower board",
                    player=player,
                    above=above,
                )
            )
        last_place = place
        why = out_reason(state, player, round_number)
        if why:
            raise LineupRefused(
                say(
                    "player %(player)d cannot play in round %(round)d: %(why)s",
                    player=player,
                    round=round_number,
                    why=why,
                )
            )
        if round_number in state.byes_of(player):
            raise LineupRefused(
                say(
                    "player %(player)d has a bye in round %(round)d: cancel it first",
                    player=player,
                    round=round_number,
                )
            )


def fallback_lineup(
    config: SectionConfig, state: SectionRecord, round: int, team: int
) -> tuple[tuple[int | None, ...], str]:
    """The lineup a team that sent none plays with, and the rule that made it: "last"
    (its lineup of the latest round before, less the players no longer available, who
    leave their boards to the players below them) or "strongest" (the first available
    players of the roster, in its order; also when it has no earlier lineup)."""
    entry = _team(config, team)
    rules = config.team_rules
    assert rules is not None
    if rules.missing_lineup == "last":
        before = state.team_rounds.last_lineup(team, round)
        if before is not None:
            kept = tuple(p for p in before.players if p is not None and available(state, round, p))
            return kept, "last"
    strongest = tuple(p for p in entry.roster if available(state, round, p))[: rules.boards]
    return strongest, "strongest"
