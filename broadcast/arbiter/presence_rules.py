"""Presence: players late at the board, the default time, the zero-default check, and
what a no-show leads to (round-1 exclusion, a single absence, the section's limit).

Same shape as every rule family: `observe(event, ctx)` and `tick(now, ctx)`, `ctx` the
engine. The pure pieces (marks, deadlines, forfeit results) are in `presence.py`.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from broadcast.arbiter import result_rules
from broadcast.arbiter.alerts import PlayerMarkedPresent
from broadcast.arbiter.presence import (
    Presence,
    absent_colours,
    deadline,
    forfeit_result,
    no_show_colours,
    pressed_by,
    warning_marks,
)
from broadcast.arbiter.watch import Watch
from broadcast.games.events import Colour, GameClock, GameMove, ResultConfirmed
from broadcast.games.state import GameState
from broadcast.tournament.events import NoShowCounted

if TYPE_CHECKING:
    from broadcast.arbiter.engine import ArbiterRules, Observable

__all__ = ["after_no_show", "count_no_shows", "mark_present", "observe", "tick"]

PRESENCE_KINDS: frozenset[str] = frozenset({"late", "check-presence"})


def _no_show_limit(
    ctx: ArbiterRules, section_name: str, player: int, round_number: int
) -> list[Observable]:
    section = ctx.tournament.section(section_name)
    limit = section.config.no_show_limit
    rounds = section.no_shows.get(player, ())
    if limit is None or len(rounds) < limit:
        return []
    name = ctx.player_name(section_name, player)
    listed = ", ".join(str(r) for r in rounds)
    eliminate = section.config.no_shows.on_limit == "withdraw"
    what = (
        "eliminated (regulations); their remaining games follow [section.withdrawal]"
        if eliminate
        else "withdraw them from the pairing (PlayerWithdrawn) unless you decide otherwise"
    )
    out = ctx.alert(
        f"withdraw-from-pairing:{section_name}:{player}",
        "withdraw-from-pairing",
        ctx.now,
        f"{name} has {len(rounds)} no-shows (rounds {listed}), the section's limit is "
        f"{limit}: {what}",
        section=section_name,
        round_number=round_number,
        players=(name,),
    )
    if eliminate:
        out += ctx.withdraw(section_name, player, round_number + 1, f"{len(rounds)} no-shows")
    return out


def observe(event: Observable, ctx: ArbiterRules) -> list[Observable]:
    """Players seen at the board (a move, a press, the arbiter's word), no-shows counted."""
    match event:
        case PlayerMarkedPresent():
            return mark_present(ctx, event.game, event.colour, event.t)
        case NoShowCounted():
            return _no_show_limit(ctx, event.section, event.player, event.round)
        case GameMove() if ctx.watched(event.game):
            colour: Colour = "white" if event.ply % 2 == 1 else "black"
            return mark_present(ctx, event.game, colour, event.t)
        case GameClock() if ctx.watched(event.game):
            pressed = pressed_by(ctx.before.get(event.game).running, event.running)
            if pressed is not None:
                return mark_present(ctx, event.game, pressed, event.t)
    return []


def tick(now: float, ctx: ArbiterRules) -> list[Observable]:
    """Warnings before the default time, the default time itself, the zero-default check."""
    out: list[Observable] = []
    for game in ctx.playing:
        out += _presence_rules(ctx, game, now)
        ctx.wake(_presence_due(ctx, game))
    return out


def mark_present(ctx: ArbiterRules, game_id: str, colour: Colour, t: float) -> list[Observable]:
    """`colour` is at the board from `t`; presence alerts about nobody still missing close."""
    watch = ctx.watches.get(game_id)
    game = ctx.book.games.get(game_id)
    if watch is None or game is None or watch.presence.of(colour) is not None:
        return []
    p = watch.presence
    watch.presence = Presence(t, p.black) if colour == "white" else Presence(p.white, t)
    missing = {ctx.name_of(game, c) for c in absent_colours(watch.presence, math.inf)}
    return ctx.resolve(
        ctx.open_about("game", game_id),
        lambda a: a.kind in PRESENCE_KINDS and not missing.intersection(a.players),
        t,
        "the players are at the board",
    )


def after_no_show(
    ctx: ArbiterRules, section_name: str, player: int, round_number: int
) -> list[Observable]:
    """The section's no-show rules: round-1 exclusion, single absence, the limit."""
    config = ctx.section(section_name)
    rules = config.no_shows
    name = ctx.player_name(section_name, player)
    if round_number == 1 and rules.first_round == "exclude":
        out = ctx.alert(
            f"withdraw-from-pairing:{section_name}:{player}",
            "withdraw-from-pairing",
            ctx.now,
            f"{name} did not show up in round 1: excluded from the event (regulations); "
            "they are no longer paired",
            section=section_name,
            round_number=1,
            players=(name,),
        )
        return out + ctx.withdraw(section_name, player, 2, "absent in round 1")
    out = _no_show_limit(ctx, section_name, player, round_number)
    if out or rules.single_absence != "disqualify-unless-continue":
        return out
    return ctx.alert(
        f"absence-disqualifies:{section_name}:{player}:{round_number}",
        "absence-disqualifies",
        ctx.now,
        f"{name} was absent in round {round_number}: disqualified unless they ask in "
        f"writing to continue before round {round_number + 1} is paired (record it "
        "with 'continue'); until then they are not paired",
        section=section_name,
        round_number=round_number,
        players=(name,),
    )


def _presence_due(ctx: ArbiterRules, game: GameState) -> float:
    watch = ctx.watches.get(game.id)
    config = ctx.section(game.key.section)
    start = ctx.round_start(config, game.key.round)
    if watch is None or start is None:
        return math.inf
    due = deadline(start, config.default_time_minutes)
    if watch.presence.white is not None and watch.presence.black is not None:
        return math.inf
    if config.default_time_minutes == 0:
        check = start + ctx.config.zero_default_check_after
        return check if check > ctx.now else math.inf
    for mark in [*warning_marks(start, due, ctx.config.warn_before), due]:
        if mark > ctx.now:
            return mark
    return math.inf


def _presence_rules(ctx: ArbiterRules, game: GameState, now: float) -> list[Observable]:
    watch = ctx.watches.get(game.id)
    config = ctx.section(game.key.section)
    start = ctx.round_start(config, game.key.round)
    if watch is None or start is None or now < start:
        return []
    due = deadline(start, config.default_time_minutes)
    out: list[Observable] = []
    if config.default_time_minutes == 0:
        return _zero_default_check(ctx, game, watch, start, now)
    for mark in warning_marks(start, due, ctx.config.warn_before):
        if mark > now:
            break
        absent = absent_colours(watch.presence, mark)
        if not absent:
            continue
        left = int(due - mark)
        who = " and ".join(f"{c} ({ctx.name_of(game, c)})" for c in absent)
        out += ctx.alert(
            f"late:{game.id}:{int(due - mark)}",
            "late",
            mark,
            f"{who} not at the board; default time in {left // 60} min {left % 60:02d} s "
            f"(at {config.default_time_minutes} min); mark them present if they are there",
            game=game,
            players=tuple(ctx.name_of(game, c) for c in absent),
        )
    if now >= due:
        absent = absent_colours(watch.presence, due)
        result = forfeit_result(absent)
        if result is not None:
            who = " and ".join(f"{c} ({ctx.name_of(game, c)})" for c in absent)
            out += result_rules.propose(
                ctx,
                game,
                result,
                "default-time",
                due,
                f"{who} absent at the default time ({config.default_time_minutes} min)",
            )
    return out


def _zero_default_check(
    ctx: ArbiterRules, game: GameState, watch: Watch, start: float, now: float
) -> list[Observable]:
    check = start + ctx.config.zero_default_check_after
    if now < check:
        return []
    absent = absent_colours(watch.presence, check)
    if not absent:
        return []
    who = " and ".join(f"{c} ({ctx.name_of(game, c)})" for c in absent)
    minutes = ctx.config.zero_default_check_after // 60
    return ctx.alert(
        f"check-presence:{game.id}",
        "check-presence",
        check,
        f"no sign of {who} {minutes} min after the start; the default time is 0, so a "
        "player who was not at the board at the start loses: mark them present, or record the forfeit",
        game=game,
        players=tuple(ctx.name_of(game, c) for c in absent),
    )


def count_no_shows(ctx: ArbiterRules, event: ResultConfirmed) -> list[Observable]:
    """A forfeit for a missed game counts a no-show for the player(s) who missed it."""
    out: list[Observable] = []
    game = ctx.book.get(event.game)
    if event.reason == "withdrawal" or not no_show_colours(event.result):
        return out  # only a missed game counts, whoever entered it (board, desk, rules)
    section = ctx.tournament.section(game.key.section)
    if game.key.round > section.config.rounds:
        return out  # a play-off game
    rnd = section.rounds.get(game.key.round)
    pairing = next((p for p in rnd.pairings if p.board == game.key.board), None) if rnd else None
    if pairing is None or pairing.black is None:
        return out
    for colour in no_show_colours(event.result):
        player = pairing.white if colour == "white" else pairing.black
        marker = (game.key.section, game.key.round, player)
        if marker in ctx.counted or game.key.round in section.no_shows.get(player, ()):
            continue
        ctx.counted.add(marker)
        counted = NoShowCounted(game.key.section, game.key.round, player)
        ctx.fold(counted)
        out += ctx.emit([counted])
        out += after_no_show(ctx, game.key.section, player, game.key.round)
    return out
