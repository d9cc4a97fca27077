"""A team section at the default time: a team forfeit when too few of a team are there.

The boards of a match are ordinary games: the presence rules (`presence_rules`) judge each
board at the default time as in any section (a player not seen loses that board by
forfeit, proposed), and a board a lineup left empty has no game at all. On top of that, a
team whose players present at the default time are fewer than the section's
`min_players` loses the whole match by forfeit (Olympiad-style regulations): at the
default time the arbiter is alerted, naming the match, the team, the players who are
there and the proposed result; the arbiter decides (the boards' results are entered as
for any forfeit). The alert closes by itself when enough of the team turn out to have
been there in time (the arbiter marks them present); should the team fall short again
later (a player marked absent after all), a new alert says so, once each time.

Same shape as every rule family: `observe(event, ctx)` and `tick(now, ctx)`. Pure.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from broadcast.arbiter.alerts import (
    AbsenceUnmarked,
    PlayerMarkedAbsent,
    PlayerMarkedPresent,
    PresenceUnmarked,
)
from broadcast.arbiter.presence import absent_colours, deadline, default_time_passed, forfeit_moment
from broadcast.arbiter.presence_rules import walked
from broadcast.config.model import SectionConfig
from broadcast.fide.teams.match import Match, board_of
from broadcast.games.game_events import Colour
from broadcast.games.game_state import GameState
from broadcast.phrases import Phrase, say

if TYPE_CHECKING:
    from broadcast.arbiter.context import Observable, RulesContext

__all__ = ["MatchTurnout", "observe", "tick", "turnout"]

COLOURS: tuple[Colour, Colour] = ("white", "black")


@dataclass(frozen=True, slots=True)
class MatchTurnout:
    """Who of one team of a match was at the boards by the default time (starting
    numbers, in board order)."""

    match: Match
    team: int
    present: tuple[int, ...]


def observe(event: Observable, ctx: RulesContext) -> list[Observable]:
    """A presence mark of a team board: the team's forfeit alert follows it (a player
    marked present in time closes it)."""
    if not isinstance(
        event, PlayerMarkedPresent | PlayerMarkedAbsent | PresenceUnmarked | AbsenceUnmarked
    ):
        return []
    game = ctx.book.games.get(event.game)
    if game is None:
        return []
    config = ctx.section(game.key.section)
    if config.team_rules is None:
        return []
    return _round(ctx, config, game.key.round, ctx.now)


def tick(now: float, ctx: RulesContext) -> list[Observable]:
    """At the default time of a team round being played: each team's turnout."""
    out: list[Observable] = []
    rounds = sorted({(g.key.section, g.key.round) for g in ctx.playing})
    for section, round_number in rounds:
        config = ctx.section(section)
        if config.team_rules is not None and config.team_rules.min_players > 0:
            out += _round(ctx, config, round_number, now)
    return out


def _due(ctx: RulesContext, config: SectionConfig, round_number: int) -> float | None:
    start = ctx.round_start(config, round_number)
    return None if start is None else deadline(start, config.default_time_minutes)


def _round(
    ctx: RulesContext, config: SectionConfig, round_number: int, now: float
) -> list[Observable]:
    rules = config.team_rules
    due = _due(ctx, config, round_number)
    if rules is None or rules.min_players <= 0 or due is None:
        return []
    if not default_time_passed(now, due):
        ctx.wake(forfeit_moment(due))
        return []
    out: list[Observable] = []
    for seen in turnout(ctx, config, round_number, due):
        base = f"team-forfeit:{config.name}:{round_number}:{seen.match.number}:{seen.team}"
        alert_id, raised = _latest(ctx, base)
        short = len(seen.present) < rules.min_players
        again = alert_id in ctx.alerts and _ended(ctx, alert_id)
        if short and (alert_id not in ctx.alerts or again):
            # Short again after the alert closed by itself (a player marked present, then
            # absent): a new alert, once; one the arbiter acknowledged stays decided.
            alert_id = f"{base}:{raised + 1}" if again else alert_id
            out += ctx.alert(
                alert_id,
                "team-forfeit",
                now if again else forfeit_moment(due),
                _message(ctx, config, seen),
                section=config.name,
                round_number=round_number,
                players=tuple(ctx.player_name(config.name, p) for p in seen.present),
                reason="team-forfeit",
            )
        elif not short and ctx.is_open(alert_id):
            out += ctx.resolve(
                [ctx.alerts[alert_id]],
                lambda _: True,
                now,
                say(
                    "%(present)s players of the team were there in time",
                    present=len(seen.present),
                ),
            )
    return out


def _latest(ctx: RulesContext, base: str) -> tuple[str, int]:
    """The id of the latest team-forfeit alert of one team's match (`base`, then
    `base:2`, `base:3`, ... for each time the team fell short again), and how many were
    raised; `base` and 0 when none was."""
    if base not in ctx.alerts:
        return base, 0
    count = 1
    while f"{base}:{count + 1}" in ctx.alerts:
        count += 1
    return (base if count == 1 else f"{base}:{count}"), count


def _ended(ctx: RulesContext, alert_id: str) -> bool:
    """The alert closed because its cause ended (enough of the team were there), not
    because the arbiter acknowledged it."""
    return not ctx.is_open(alert_id) and alert_id not in ctx.acknowledged


def turnout(
    ctx: RulesContext, config: SectionConfig, round_number: int, due: float
) -> list[MatchTurnout]:
    """Each team of each match of the round (byes aside): its players at the boards by
    `due`. A board with a game both of whose players moved, or one the arbiter or the
    e-board saw, counts; at a table without an e-board, a player the arbiter has not
    marked absent counts; so does a player facing an empty board (the other team's short
    lineup), who wins it unplayed; the team's own empty board does not."""
    section = ctx.tournament.section(config.name)
    rules = config.team_rules
    rnd = section.rounds.get(round_number)
    if rules is None or rnd is None:
        return []  # the boards are not paired: nobody is expected at them yet
    games = {g.key.board: g for g in ctx.book.round_games(config.name, round_number)}
    # A player facing an empty board has no game to be seen at: they win it unplayed.
    facing_nobody = {p.board: p.white for p in rnd.pairings if p.black is None and p.board}
    rosters = {t.number: frozenset(t.roster) for t in config.teams}
    out: list[MatchTurnout] = []
    for match in section.team_rounds.round_matches(round_number):
        if match.second is None:
            continue
        boards = [board_of(match.number, b, rules.boards) for b in range(1, rules.boards + 1)]
        for team in match.teams():
            roster = rosters.get(team, frozenset())
            present: list[int] = []
            for board in boards:
                game = games.get(board)
                alone = facing_nobody.get(board)
                if game is not None:
                    present += [
                        player
                        for colour, player in _players(game)
                        if player in roster and _there(ctx, game, colour, due)
                    ]
                elif alone is not None and alone in roster:
                    present.append(alone)
            out.append(MatchTurnout(match, team, tuple(present)))
    return out


def _players(game: GameState) -> Sequence[tuple[Colour, int]]:
    refs = zip(COLOURS, (game.white, game.black), strict=True)
    return [(c, ref.start) for c, ref in refs if ref is not None and ref.start is not None]


def _there(ctx: RulesContext, game: GameState, colour: Colour, due: float) -> bool:
    watch = ctx.watches.get(game.id)
    if watch is not None and walked(ctx.event, game):
        # Nobody sees who sits at a table without an e-board: the arbiter's walk tells who
        # is not there.
        return watch.presence.absent_since(colour) is None
    if watch is not None:
        return colour not in absent_colours(watch.presence, due)
    # Not watched: its result stands. Moves on it mean both were there; a forfeit
    # without moves says who was not.
    if game.moves:
        return True
    result = game.result or ""
    missing = {"0-1": "white", "-+": "white", "1-0": "black", "+-": "black"}.get(result)
    if result in ("--", "0-0", "-/-"):
        return False
    return missing != colour


def _message(ctx: RulesContext, config: SectionConfig, seen: MatchTurnout) -> Phrase:
    rules = config.team_rules
    assert rules is not None
    names = {t.number: t.name for t in config.teams}
    match = seen.match
    there = ", ".join(ctx.player_name(config.name, p) for p in seen.present) or "nobody"
    team = names.get(seen.team, f"team {seen.team}")
    score = f"0-{rules.boards}" if seen.team == match.first else f"{rules.boards}-0"
    return say(
        "match %(match)s (%(first)s - %(second)s): %(team)s has %(count)s players at the "
        "boards at the default time (%(minutes)s min), fewer than the %(least)s the rules "
        "require (present: %(there)s). Proposed: %(team)s loses the match by forfeit "
        "(%(first)s - %(second)s %(score)s); decide, then enter the boards' results",
        match=match.number,
        first=names.get(match.first, f"team {match.first}"),
        second=names.get(match.second or 0, f"team {match.second}"),
        team=team,
        count=len(seen.present),
        minutes=config.default_time_minutes,
        least=rules.min_players,
        there=there,
        score=score,
    )
