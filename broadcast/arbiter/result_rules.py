"""Results: final positions (mate, stalemate, dead position, repetition, 75 moves), flag
falls, the kings' signal and other proposals, confirmations (applied at once when the
event says so), the early-draw rule, and the no-shows a forfeit counts.

A family with `observe(event, ctx)` only: the time-based results (the default time) are
presence's, which proposes them through `propose`. The pure pieces are in `flag.py` and
`results.py`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from broadcast.arbiter.flag import flag_fall_result
from broadcast.arbiter.results import early_draw_breach, position_result
from broadcast.fide.results import REASON_TEXT
from broadcast.games.game_events import (
    GameClock,
    GameMove,
    GameResultText,
    GameTakeback,
    LineCorrected,
    ProposalWithdrawn,
    ResultConfirmed,
    ResultProposed,
    ResultReason,
    StartPositionSet,
)
from broadcast.games.game_state import GameState
from broadcast.phrases import Phrase, Value, colour_word, say
from clocks.move_times import FlagFell

if TYPE_CHECKING:
    from broadcast.arbiter.context import Observable, RulesContext

__all__ = [
    "AUTOMATIC_REASONS",
    "DRAW_BY_AGREEMENT",
    "ENDS_WITH_THE_GAME",
    "POSITION_REASONS",
    "observe",
    "propose",
]

POSITION_REASONS: frozenset[str] = frozenset(
    {"checkmate", "stalemate", "dead-position", "repetition", "75-moves"}
)
AUTOMATIC_REASONS: frozenset[str] = POSITION_REASONS | {"kings-signal", "flag-fall"}
"""Results the event may apply at once ("apply"). Default-time forfeits are never among
them: Laws 6.7.1 leaves the arbiter room to decide otherwise, so they wait for a word."""

DRAW_BY_AGREEMENT: frozenset[str] = frozenset({"kings-signal", "agreement"})

# Alerts about a game whose cause ends with the game: once its result stands they close.
ENDS_WITH_THE_GAME: frozenset[str] = frozenset(
    {"late", "check-presence", "out-of-sync", "illegal-move-stood", "result-proposed", "both-flags"}
)


def observe(event: Observable, ctx: RulesContext) -> list[Observable]:
    """Flag falls, results proposed and confirmed, final positions after a move."""
    match event:
        case FlagFell():
            return _flag(ctx, event, ctx.named_game)
        case ResultConfirmed():
            done = ctx.book.get(event.game)
            return _finish(ctx, done, event) + _confirmed(ctx, done, event)
        case ResultProposed():
            return _proposed(ctx, ctx.book.get(event.game), event)
        case ProposalWithdrawn():
            # The game goes on: the proposal's alert closes; the same proposal is not
            # raised again (its key stays in the watch), a new one (a mate) may be.
            return ctx.resolve(
                ctx.open_about("game", event.game),
                lambda a: a.kind == "result-proposed",
                event.t,
                event.why or say("proposal withdrawn by %(by)s", by=event.by),
            )
    game = ctx.watched(getattr(event, "game", ""))
    if game is None:
        return []
    match event:
        case GameMove() if event.ply == game.ply:
            return _position_rules(ctx, game, event.t, "")
        case GameClock() if event.running is None:
            if ctx.before.get(game.id).running is not None:
                return _position_rules(ctx, game, event.t, " (clock stopped)")
        case LineCorrected() | GameTakeback() | StartPositionSet():
            # A changed line may end in a final position or leave one.
            return _position_rules(ctx, game, event.t, " (corrected line)")
    return []


def _finish(ctx: RulesContext, game: GameState, confirmed: ResultConfirmed) -> list[Observable]:
    """The game's result stands: stop watching it, close the alerts it ends."""
    ctx.close(game.id)
    return ctx.resolve(
        ctx.open_about("game", game.id),
        lambda a: a.kind in ENDS_WITH_THE_GAME,
        confirmed.t,
        say("result %(result)s (%(by)s)", result=confirmed.result, by=confirmed.by),
    )


def _proposal_alert(
    ctx: RulesContext, game: GameState, proposal: ResultProposed
) -> list[Observable]:
    """A result waiting for the arbiter: one alert per proposal, the older ones of the
    game superseded."""
    key = game.ply if proposal.reason in POSITION_REASONS else 0
    alert_id = f"result-proposed:{game.id}:{proposal.reason}:{proposal.result}:{key}"
    out = ctx.resolve(
        ctx.open_about("game", game.id),
        lambda a: a.kind == "result-proposed" and a.id != alert_id,
        proposal.t,
        say(
            "superseded by %(result)s (%(reason)s)", result=proposal.result, reason=proposal.reason
        ),
    )
    # The reason's words are the pages' (web/words.py REASON_WORDS): translated there.
    words = Phrase(REASON_TEXT.get(proposal.reason, proposal.reason))
    detail = f": {proposal.detail}" if proposal.detail else ""
    return out + ctx.alert(
        alert_id,
        "result-proposed",
        proposal.t,
        say(
            "proposed result %(result)s by %(reason)s%(detail)s; confirm it, set another "
            "result, or reject it (the game goes on)",
            result=proposal.result,
            reason=words,
            detail=detail,
        ),
        game=game,
        result=proposal.result,
        reason=proposal.reason,
    )


def _position_rules(ctx: RulesContext, game: GameState, t: float, note: str) -> list[Observable]:
    history = [game.start_fen, *(m.fen_after for m in game.moves[:-1])]
    found = position_result(game.fen, history if game.moves else ())
    if found is None:
        return []
    return propose(ctx, game, found.result, found.reason, t, found.detail + note)


def propose(
    ctx: RulesContext,
    game: GameState,
    result: GameResultText,
    reason: ResultReason,
    t: float,
    detail: str,
) -> list[Observable]:
    watch = ctx.watches.get(game.id)
    if watch is None or game.finished:
        return []
    key = (reason, result, game.ply if reason in POSITION_REASONS else 0)
    if key in watch.proposed:
        return []
    watch.proposed.add(key)
    proposal = ResultProposed(game.id, result, reason, t, detail)
    ctx.fold(proposal)
    out: list[Observable] = ctx.emit([proposal])
    if ctx.mode == "apply" and reason in AUTOMATIC_REASONS:
        confirmed = ResultConfirmed(game.id, result, reason, t, by="rules")
        ctx.fold(confirmed)
        out += ctx.emit([confirmed])
        out += _finish(ctx, ctx.book.get(game.id), confirmed)
    else:
        out += _proposal_alert(ctx, ctx.book.get(game.id), proposal)
    return out


def _proposed(ctx: RulesContext, game: GameState, event: ResultProposed) -> list[Observable]:
    """A proposal from outside the engine (the kings signal) or our own fed back."""
    watch = ctx.watches.get(game.id)
    if watch is None:
        return []
    key = (event.reason, event.result, game.ply if event.reason in POSITION_REASONS else 0)
    ours = key in watch.proposed
    watch.proposed.add(key)
    out: list[Observable] = []
    early = False
    if event.result == "1/2-1/2" and event.reason in DRAW_BY_AGREEMENT:
        out += _early_draw(ctx, game, event.t)
        early = _early_breach(ctx, game, event.t) is not None
    if ours:
        return out
    # The early-draw rule holds whatever the result's source: a kings-signal draw before
    # the allowed move stays a proposal for the arbiter, even when results apply at once.
    if ctx.mode == "apply" and event.reason in AUTOMATIC_REASONS and not early:
        confirmed = ResultConfirmed(game.id, event.result, event.reason, event.t, by="rules")
        ctx.fold(confirmed)
        out += ctx.emit([confirmed])
        out += _finish(ctx, ctx.book.get(game.id), confirmed)
    else:
        out += _proposal_alert(ctx, game, event)
    return out


def _confirmed(ctx: RulesContext, game: GameState, event: ResultConfirmed) -> list[Observable]:
    out: list[Observable] = []
    if event.result == "1/2-1/2" and event.reason in DRAW_BY_AGREEMENT:
        out += _early_draw(ctx, game, event.t)
    return out


def _began(ctx: RulesContext, game: GameState, t: float) -> float:
    config = ctx.section(game.key.section)
    start = ctx.round_start(config, game.key.round)
    return start if start is not None else (game.first_activity or t)


def _early_breach(ctx: RulesContext, game: GameState, t: float) -> Value | None:
    """Why a draw by agreement at `t` breaks the section's early-draw rule (None: it
    does not)."""
    config = ctx.section(game.key.section)
    began = _began(ctx, game, t)
    return early_draw_breach(config.early_draw, plies=game.ply, elapsed_seconds=t - began)


def _early_draw(ctx: RulesContext, game: GameState, t: float) -> list[Observable]:
    why = _early_breach(ctx, game, t)
    if why is None:
        return []
    began = _began(ctx, game, t)
    minutes = int(max(0.0, t - began) // 60)
    return ctx.alert(
        f"early-draw:{game.id}",
        "early-draw",
        t,
        say(
            "draw by agreement after %(moves)s moves and %(minutes)s minutes: %(why)s; "
            "confirm only if the chief arbiter authorised it",
            moves=game.ply // 2,
            minutes=minutes,
            why=why,
        ),
        game=game,
    )


def _flag(ctx: RulesContext, event: FlagFell, game_id: str | None) -> list[Observable]:
    if game_id is None:
        return []
    game = ctx.book.games.get(game_id)
    watch = ctx.watches.get(game_id)
    if game is None or watch is None or game.finished:
        return []
    if event.colour in watch.flagged:
        return []
    watch.flagged.add(event.colour)
    pending = game.proposal
    if pending is not None and pending.reason != "flag-fall":
        # Something ended the game first (a mate, the kings signal, the default time:
        # an absent player's clock runs out too); the flag adds nothing.
        return []
    if pending is not None and pending.reason == "flag-fall":
        return ctx.alert(
            f"both-flags:{game.id}",
            "both-flags",
            event.t,
            say(
                "both flags have fallen (%(colour)s second); decide the result (Laws 6.9 "
                "and III.3.1.1: a draw if it cannot be established who fell first)",
                colour=colour_word(event.colour),
            ),
            game=game,
        )
    result, detail = flag_fall_result(game.board_now(), event.colour)
    return propose(ctx, game, result, "flag-fall", event.t, detail)
