"""Board trouble: silent boards, lost boards, driver faults, log gaps, batteries, missing
clocks, bus polls, boards out of sync with the game and illegal moves that stood.

The family's two entry points have the shape of every family's: `observe(event, ctx)`
for each event (after the engine folded it) and `tick(now, ctx)` as time passes; both
return the new events. `ctx` is the engine (`ArbiterRules`): what the rules know and the
alert helpers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from boards.driver_events import (
    BatterySeen,
    BoardConnected,
    BoardHealth,
    BoardLost,
    ClockSeen,
    ClockSilent,
    DriverFault,
    LogGap,
)
from broadcast.arbiter.memory import BoardWatch
from broadcast.arbiter.presence import pressed_by
from broadcast.arbiter.trouble import battery_severity, move_label, polls_missed, too_long
from broadcast.config.tables import table_of
from broadcast.games.game_events import (
    BoardAttached,
    BoardReplaced,
    Colour,
    GameClock,
    GameSync,
    LineCorrected,
    StartPositionSet,
)
from broadcast.games.game_state import GameState
from broadcast.games.squares import differing_squares
from broadcast.phrases import Phrase, colour_word, say
from clocks.reading import ClockReading, NoClock

if TYPE_CHECKING:
    from broadcast.arbiter.context import Observable, RulesContext

__all__ = ["observe", "tick"]

BoardEvent = (
    BoardConnected
    | BoardLost
    | BoardHealth
    | BatterySeen
    | ClockSeen
    | ClockSilent
    | DriverFault
    | LogGap
)


def observe(event: Observable, ctx: RulesContext) -> list[Observable]:
    """What a board's own messages, its attachment to a game and the game's sync say."""
    match event:
        case (
            BoardConnected()
            | BoardLost()
            | BoardHealth()
            | BatterySeen()
            | ClockSeen()
            | ClockSilent()
            | DriverFault()
            | LogGap()
        ):
            return _board_event(ctx, event, ctx.named_game)
        case BoardAttached(board=board):
            ctx.boards.setdefault(board, BoardWatch()).game = event.game
        case BoardReplaced():
            return _replaced(ctx, event)
        case LineCorrected() | StartPositionSet() if event.board is not None:
            return _corrected(ctx, event)
        case GameSync(in_sync=True):
            watch = ctx.watches.get(event.game)
            if watch is not None:
                watch.press_out = None
            return ctx.resolve(
                ctx.open_about("game", event.game),
                lambda a: a.kind in ("out-of-sync", "illegal-move-stood"),
                event.t,
                say("the board matches the game again"),
            )
        case GameSync(in_sync=False) if ctx.watched(event.game):
            ctx.rescan()
            if ctx.before.get(event.game).in_sync:
                ctx.watches[event.game].out_episode += 1
        case GameClock():
            game = ctx.watched(event.game)
            pressed = pressed_by(ctx.before.get(event.game).running, event.running)
            watch = ctx.watches.get(event.game)
            if game is None or pressed is None or watch is None:
                return []
            if not game.in_sync and watch.press_out is None:
                # Illegal if the board is still out of step a while later (`tick`).
                watch.press_out = (event.t, pressed, watch.out_episode)
                ctx.wake(event.t + ctx.config.trouble.illegal_move_after)
    return []


def _replaced(ctx: RulesContext, event: BoardReplaced) -> list[Observable]:
    """The game left its board: that board's troubles are no longer the game's (its
    alerts close, and what it says later names no game), and the game is out of sync
    until the new board shows its position (a new episode: its alert comes at once)."""
    for watch in ctx.boards.values():
        if watch.game == event.game:
            watch.game = None
    if ctx.watched(event.game) is not None:
        ctx.rescan()
        if ctx.before.get(event.game).in_sync:
            ctx.watches[event.game].out_episode += 1
    return ctx.resolve(
        ctx.open_about("game", event.game),
        lambda a: a.kind in _BOARD_TROUBLE,
        event.t,
        say(
            "the game moved from board %(old)s to board %(new)s",
            old=event.old_board,
            new=event.new_board,
        ),
    )


def _corrected(ctx: RulesContext, event: LineCorrected | StartPositionSet) -> list[Observable]:
    """The arbiter corrected the game on its board: what the board showed was about the
    old line, so its out-of-sync and illegal-move alerts close, and a new wait begins (a
    new episode: its alert, naming the squares to put right, comes at once)."""
    if ctx.watched(event.game) is None:
        return []
    ctx.rescan()
    watch = ctx.watches[event.game]
    watch.out_episode += 1
    watch.press_out = None
    return ctx.resolve(
        ctx.open_about("game", event.game),
        lambda a: a.kind in ("out-of-sync", "illegal-move-stood"),
        event.t,
        say("the arbiter corrected the game: the board must show the corrected position"),
    )


_BOARD_TROUBLE = frozenset(
    {
        "board-not-responding",
        "driver-fault",
        "board-missing",
        "battery-low",
        "clock-not-connected",
        "bus-polls-missed",
        "out-of-sync",
        "illegal-move-stood",
    }
)


def tick(now: float, ctx: RulesContext) -> list[Observable]:
    """Boards out of sync too long, illegal moves that stood, silent boards, faults over."""
    trouble = ctx.config.trouble
    out: list[Observable] = []
    for game in ctx.playing:
        out += _sync_rules(ctx, game, now)
        out += _illegal_rule(ctx, game, now)
        watch = ctx.watches.get(game.id)
        if watch is not None and watch.press_out is not None:
            ctx.wake(watch.press_out[0] + trouble.illegal_move_after)
        if not game.in_sync and game.out_since is not None:
            ctx.wake(game.out_since + _sync_limit(ctx, game))
    for name, board in ctx.boards.items():
        out += _silence_rule(ctx, name, board, now)
        if board.has_clock and board.last_seen is not None and not board.silent:
            ctx.wake(board.last_seen + trouble.silent_after)
        out += _fault_cleared(ctx, name, board, now)
        if board.fault_alert is not None and board.back_since is not None:
            ctx.wake(board.back_since + trouble.fault_cleared_after)
    return out


def _illegal_rule(ctx: RulesContext, game: GameState, now: float) -> list[Observable]:
    """A press made while the board was out of sync, and the board still out of step
    (the same episode) `illegal_move_after` seconds later: the move stood."""
    watch = ctx.watches.get(game.id)
    if watch is None or watch.press_out is None:
        return []
    t, pressed, episode = watch.press_out
    if game.in_sync or episode != watch.out_episode:
        watch.press_out = None
        return []
    due = t + ctx.config.trouble.illegal_move_after
    if now < due:
        return []
    watch.press_out = None
    return _illegal_stood(ctx, game, due, pressed)


def _illegal_stood(
    ctx: RulesContext, game: GameState, t: float, pressed: Colour
) -> list[Observable]:
    watch = ctx.watches[game.id]
    return ctx.alert(
        f"illegal-move-stood:{game.id}:{watch.out_episode}",
        "illegal-move-stood",
        t,
        say(
            "%(colour)s pressed the clock while the board showed a position that is not in "
            "the game, and it still does %(seconds)s s later (%(fen)s, after ply %(ply)s): "
            "an illegal move may stand; stop the clocks and reconstruct (Laws 7.5)",
            colour=colour_word(pressed),
            seconds=format(ctx.config.trouble.illegal_move_after, "g"),
            fen=game.board_fen or "?",
            ply=game.ply,
        ),
        game=game,
    )


# A board that must show the game's position and has shown nothing since the wait began:
# what it shows now comes a moment later (the service reads it right after the action),
# and the alert should name the squares, not say that nothing was shown.
_SHOWN_GRACE_SECONDS = 2.0


def _sync_limit(ctx: RulesContext, game: GameState) -> float:
    """How long the game may be out of sync before the alert. A board that must show the
    game's position (a spare that took it over, a board after a correction) is out of
    sync until it is set up: say so at once, the arbiter is at the board."""
    if not game.awaiting_board:
        return ctx.config.trouble.out_of_sync_after
    return 0.0 if game.board_fen is not None else _SHOWN_GRACE_SECONDS


def _sync_rules(ctx: RulesContext, game: GameState, now: float) -> list[Observable]:
    limit = _sync_limit(ctx, game)
    if game.in_sync or not too_long(game.out_since, now, limit):
        return []
    watch = ctx.watches[game.id]
    since = game.out_since or now
    squares = differing_squares(game.fen, game.board_fen)
    where = (
        say("squares that differ: %(squares)s", squares=" ".join(squares))
        if squares
        else say("check the pieces")
    )
    if game.awaiting_correction:
        return ctx.alert(
            f"out-of-sync:{game.id}:{watch.out_episode}",
            "out-of-sync",
            now,
            say(
                "the arbiter corrected the game: set up its position after ply %(ply)s on the "
                "board (%(fen)s); nothing the board shows is taken as a move until it does; "
                "%(where)s",
                ply=game.ply,
                fen=game.fen.split()[0],
                where=where if game.board_fen else say("the board has shown nothing since"),
            ),
            game=game,
        )
    if game.awaiting_board:
        change = game.board_changes[-1]
        return ctx.alert(
            f"out-of-sync:{game.id}:{watch.out_episode}",
            "out-of-sync",
            now,
            say(
                "the game moved to board %(board)s: set up the game's position after ply "
                "%(ply)s there (%(fen)s); %(where)s",
                board=change.new_board,
                ply=game.ply,
                fen=game.fen.split()[0],
                where=where if game.board_fen else say("the board has shown nothing yet"),
            ),
            game=game,
        )
    return ctx.alert(
        f"out-of-sync:{game.id}:{watch.out_episode}",
        "out-of-sync",
        now,
        say(
            "the board has not matched the game for %(seconds)s s (after ply %(ply)s); it "
            "shows %(fen)s: %(where)s",
            seconds=int(now - since),
            ply=game.ply,
            fen=game.board_fen or "?",
            where=where,
        ),
        game=game,
    )


def _silence_rule(ctx: RulesContext, name: str, board: BoardWatch, now: float) -> list[Observable]:
    limit = ctx.config.trouble.silent_after
    if board.silent or not board.has_clock or not too_long(board.last_seen, now, limit):
        return []
    game = _open_game(ctx, board)
    if game is None:
        return []
    board.silent = True
    last = board.last_seen or now
    return ctx.alert(
        f"board-not-responding:{name}:{last}",
        "board-not-responding",
        now,
        say(
            "board %(board)s has sent nothing for %(seconds)s s while its clock was "
            "connected: check its cable and power",
            board=name,
            seconds=int(now - last),
        ),
        game=game,
        hall_board=name,
    )


def _board_event(ctx: RulesContext, event: BoardEvent, game_id: str | None) -> list[Observable]:
    board = ctx.boards.setdefault(event.board, BoardWatch())
    if game_id is not None:
        board.game = game_id
    # The driver speaks for itself in these, not for the board: they prove no life (but
    # a session the driver ended on a board that still answers does).
    from_driver = isinstance(event, DriverFault | LogGap) or (
        isinstance(event, BoardLost) and not event.answering
    )
    out = [] if from_driver else _board_back(ctx, event)
    if not from_driver:
        board.last_seen = event.t
        board.silent = False
    game = _open_game(ctx, board)
    return out + _board_trouble(ctx, event, board, game)


def _board_back(ctx: RulesContext, event: BoardEvent) -> list[Observable]:
    """Board trouble alerts whose cause this message from the board ends."""
    cfg = ctx.config.trouble
    ended: set[str] = set()
    if not (isinstance(event, BoardHealth) and polls_missed(event.missed_polls, cfg)):
        ended.add("board-not-responding")  # it talks again
    if (
        isinstance(event, BatterySeen)
        and battery_severity(event.percent, event.charging, cfg) is None
    ):
        ended.add("battery-low")
    if isinstance(event, ClockSeen) and isinstance(event.reading, ClockReading):
        ended.add("clock-not-connected")
    if isinstance(event, BoardHealth) and not polls_missed(event.missed_polls, cfg):
        ended.add("bus-polls-missed")
    return ctx.resolve(
        ctx.open_about("board", event.board) if ended else [],
        lambda a: a.kind in ended,
        event.t,
        say("board %(board)s is back", board=event.board),
    )


def _board_trouble(
    ctx: RulesContext, event: BoardEvent, board: BoardWatch, game: GameState | None
) -> list[Observable]:
    cfg = ctx.config.trouble
    match event:
        case DriverFault():
            return _driver_fault(ctx, event, board, game)
        case LogGap():
            return _log_gap(ctx, event, board, game)
        case BoardConnected():
            if board.fault_alert is not None:
                board.back_since = event.t
                ctx.wake(event.t + cfg.fault_cleared_after)
            return []
        case BoardLost(answering=True):
            # The board answers; the driver reads back what it did while it was not
            # streaming (a reboot: its log says so). Not lost: no alarm.
            return []
        case BoardLost():
            board.lost_episode += 1
            board.back_since = None
            board.silent = True  # this alert is about the silence too: no second one
            if game is None or board.fault_alert is not None:
                return []  # no game to worry about, or the fault alert says it all
            return ctx.alert(
                f"board-not-responding:{event.board}:lost:{board.lost_episode}",
                "board-not-responding",
                event.t,
                say(
                    "board %(board)s lost (%(reason)s); the driver is reconnecting; if it "
                    "does not come back, check the cable and power",
                    board=event.board,
                    reason=event.reason,
                ),
                game=game,
                hall_board=event.board,
            )
        case BoardHealth() if polls_missed(event.missed_polls, cfg) and game is not None:
            return ctx.alert(
                f"bus-polls-missed:{event.board}:{int(event.t)}",
                "bus-polls-missed",
                event.t,
                say(
                    "board %(board)s missed %(polls)s bus polls (%(checksums)s bad "
                    "checksums): check the bus cable and its joints",
                    board=event.board,
                    polls=event.missed_polls,
                    checksums=event.bad_checksums,
                ),
                game=game,
                hall_board=event.board,
            )
        case BatterySeen():
            severity = battery_severity(event.percent, event.charging, cfg)
            if severity is None or game is None:
                return []
            return ctx.alert(
                f"battery-low:{event.board}:{severity}",
                "battery-low",
                event.t,
                say(
                    "board %(board)s battery at %(percent)s%%: plug in its charger",
                    board=event.board,
                    percent=event.percent,
                ),
                game=game,
                hall_board=event.board,
                severity=severity,
            )
        case ClockSilent():
            return _clock_silent(ctx, event, board, game)
        case ClockSeen(reading=NoClock()):
            # No clock reports: the board may rightly stay quiet.
            return _clock_gone(
                ctx,
                event.board,
                event.t,
                board,
                game,
                say(
                    "board %(board)s reports no clock: check the clock cable (times are "
                    "missing from the broadcast until it is back)",
                    board=event.board,
                ),
            )
        case ClockSeen():
            # A running DGT clock reports every second; a stopped one only on change.
            board.has_clock = bool(getattr(event.reading, "running", False))
            board.clock_missing = False
            if board.last_seen is not None:
                ctx.wake(board.last_seen + cfg.silent_after)
    return []


def _clock_silent(
    ctx: RulesContext, event: ClockSilent, board: BoardWatch, game: GameState | None
) -> list[Observable]:
    """A running clock stopped reporting while its board answers: its batteries or its
    cable (or a finished game's clock left running until it died). The board is not
    lost: its silence from now on is expected."""
    table = None if game is None else table_of(ctx.event, game.key.section, game.key.board)
    return _clock_gone(
        ctx,
        event.board,
        event.t,
        board,
        game,
        say(
            "the clock of table %(table)s stopped reporting: battery or cable? (board "
            "%(board)s still answers; clock times are missing from the broadcast until the "
            "clock reports again)",
            table=table or 0,
            board=event.board,
        ),
    )


def _clock_gone(
    ctx: RulesContext,
    name: str,
    t: float,
    board: BoardWatch,
    game: GameState | None,
    what: Phrase,
) -> list[Observable]:
    """A board without its clock ("no clock", or a clock gone silent): one warning per
    episode (the same walk to the table whichever way the board says it), closed when
    the clock reports again; none for a board without a game."""
    board.has_clock = False
    if board.clock_missing:
        return []
    board.clock_missing = True
    board.no_clock_episode += 1
    if game is None:
        return []
    return ctx.alert(
        f"clock-not-connected:{name}:{board.no_clock_episode}",
        "clock-not-connected",
        t,
        what,
        game=game,
        hall_board=name,
    )


def _driver_fault(
    ctx: RulesContext, event: DriverFault, board: BoardWatch, game: GameState | None
) -> list[Observable]:
    """A software error stopped the board's driver: one critical alert per episode,
    closed once the board has been back for a while with no new error."""
    board.back_since = None
    if board.fault_alert is not None:
        return []  # the same episode: the alert is up
    board.fault_episode += 1
    board.fault_alert = f"driver-fault:{event.board}:{board.fault_episode}"
    return ctx.alert(
        board.fault_alert,
        "driver-fault",
        event.t,
        say(
            "the driver of board %(board)s on %(port)s stopped on a software error "
            "(%(error)s); it is restarting and the board's moves may arrive late. If this "
            "repeats, keep the server's log for the developers",
            board=event.board,
            port=event.port,
            error=event.error,
        ),
        game=game,
        hall_board=event.board,
    )


def _fault_cleared(ctx: RulesContext, name: str, board: BoardWatch, now: float) -> list[Observable]:
    alert = board.fault_alert
    if alert is None or board.back_since is None:
        return []
    if now - board.back_since < ctx.config.trouble.fault_cleared_after:
        return []
    board.fault_alert, board.back_since = None, None
    return ctx.resolve(
        ctx.open_about("board", name),
        lambda a: a.id == alert,
        now,
        say("board %(board)s has run without a software error since", board=name),
    )


def _log_gap(
    ctx: RulesContext, event: LogGap, board: BoardWatch, game: GameState | None
) -> list[Observable]:
    """The board's log could not fill an outage: the arbiter checks the moves made in
    the gap, after the last one known before it."""
    if game is None:
        return []
    board.gap_episode += 1
    if game.moves:
        last = game.moves[-1]
        where = say(
            "the moves after %(move)s (ply %(ply)s, the last one known before the gap)",
            move=move_label(last.fen_after, last.san),
            ply=len(game.moves),
        )
    else:
        where = say("the game from its first move")
    return ctx.alert(
        f"moves-to-check:{event.board}:{board.gap_episode}",
        "moves-to-check",
        event.t,
        say(
            "board %(board)s on %(port)s: %(reason)s; the game goes on from the board as it "
            "stands. Moves made meanwhile may be missing or wrong: check %(where)s against "
            "the scoresheets",
            board=event.board,
            port=event.port,
            reason=event.reason,
            where=where,
        ),
        game=game,
        hall_board=event.board,
    )


def _open_game(ctx: RulesContext, board: BoardWatch) -> GameState | None:
    if board.game is None or board.game not in ctx.watches:
        return None
    game = ctx.book.games.get(board.game)
    return None if game is None or game.finished else game
