"""Presence: players late at the board, the default time, the zero-default check, and
what a no-show leads to (round-1 exclusion, a single absence, the section's limit).

Same shape as every rule family: `observe(event, ctx)` and `tick(now, ctx)`, `ctx` the
engine. The pure pieces (marks, deadlines, forfeit results) are in `presence.py`.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from broadcast.arbiter import result_rules
from broadcast.arbiter.alerts import PlayerMarkedPresent, PresenceUnmarked
from broadcast.arbiter.presence import (
    Presence,
    absent_colours,
    deadline,
    forfeit_result,
    pressed_by,
    warning_marks,
)
from broadcast.arbiter.watch import Watch
from broadcast.games.events import Colour, GameClock, GameMove
from broadcast.games.state import GameState

if TYPE_CHECKING:
    from broadcast.arbiter.context import Observable, RulesContext

__all__ = ["observe", "tick"]

PRESENCE_KINDS: frozenset[str] = frozenset({"late", "check-presence"})


def observe(event: Observable, ctx: RulesContext) -> list[Observable]:
    """Players seen at the board (a move, a press, the arbiter's word), no-shows counted."""
    match event:
        case PlayerMarkedPresent():
            return _mark_present(ctx, event.game, event.colour, event.t)
        case PresenceUnmarked():
            _unmark(ctx, event)
            return []
        case GameMove() if ctx.watched(event.game):
            colour: Colour = "white" if event.ply % 2 == 1 else "black"
            return _mark_present(ctx, event.game, colour, event.t)
        case GameClock() if ctx.watched(event.game):
            pressed = pressed_by(ctx.before.get(event.game).running, event.running)
            if pressed is not None:
                return _mark_present(ctx, event.game, pressed, event.t)
    return []


def tick(now: float, ctx: RulesContext) -> list[Observable]:
    """Warnings before the default time, the default time itself, the zero-default check."""
    out: list[Observable] = []
    for game in ctx.playing:
        out += _presence_rules(ctx, game, now)
        ctx.wake(_presence_due(ctx, game))
    return out


def _mark_present(ctx: RulesContext, game_id: str, colour: Colour, t: float) -> list[Observable]:
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


def _unmark(ctx: RulesContext, event: PresenceUnmarked) -> None:
    """The arbiter's mark is taken back: the colour counts as not seen, unless the board
    has seen them since the mark (a move, a press) or before it."""
    watch = ctx.watches.get(event.game)
    if watch is None or watch.presence.of(event.colour) != event.since:
        return
    game = ctx.book.games.get(event.game)
    # Seen at the board since the mark (a move of theirs): present from then, as they
    # would have been without it.
    parity = 0 if event.colour == "white" else 1
    moved = next(
        (
            m.t
            for i, m in enumerate(game.moves if game is not None else ())
            if i % 2 == parity and m.t >= event.since
        ),
        None,
    )
    p = watch.presence
    watch.presence = (
        Presence(moved, p.black) if event.colour == "white" else Presence(p.white, moved)
    )
    ctx.rescan()


def _presence_due(ctx: RulesContext, game: GameState) -> float:
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


def _presence_rules(ctx: RulesContext, game: GameState, now: float) -> list[Observable]:
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
        alert_id = f"late:{game.id}:{left}"
        raised = ctx.alert(
            alert_id,
            "late",
            mark,
            f"{who} not at the board; default time in {left // 60} min {left % 60:02d} s "
            f"(at {config.default_time_minutes} min); mark them present if they are there",
            game=game,
            players=tuple(ctx.name_of(game, c) for c in absent),
        )
        if raised:
            # A newer warning on the same matter replaces the older ones.
            out += _close_late(ctx, game, mark, f"replaced by {alert_id}", keep=alert_id)
        out += raised
    if now >= due:
        absent = absent_colours(watch.presence, due)
        result = forfeit_result(absent)
        if result is not None:
            who = " and ".join(f"{c} ({ctx.name_of(game, c)})" for c in absent)
            proposed = result_rules.propose(
                ctx,
                game,
                result,
                "default-time",
                due,
                f"{who} absent at the default time ({config.default_time_minutes} min)",
            )
            if proposed:
                # The warnings are overtaken: the forfeit's own alert is the matter now.
                why = f"the default time passed: forfeit {result} proposed"
                out += _close_late(ctx, game, due, why)
            out += proposed
    return out


def _close_late(
    ctx: RulesContext, game: GameState, t: float, why: str, *, keep: str = ""
) -> list[Observable]:
    """Close the game's open `late` warnings but `keep`, saying why."""
    return ctx.resolve(
        ctx.open_about("game", game.id), lambda a: a.kind == "late" and a.id != keep, t, why
    )


def _zero_default_check(
    ctx: RulesContext, game: GameState, watch: Watch, start: float, now: float
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
