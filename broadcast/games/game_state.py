"""One game's state, folded from its events. Pure."""

from __future__ import annotations

from dataclasses import dataclass, replace

import chess

from broadcast.games.game_events import (
    BoardAttached,
    BoardReplaced,
    Colour,
    GameClock,
    GameEvent,
    GameFlag,
    GameMove,
    GameMoveClocked,
    GameResultText,
    GameSync,
    GameTakeback,
    LineCorrected,
    ProposalWithdrawn,
    ResultCleared,
    ResultConfirmed,
    ResultProposed,
    ResultReason,
    StartPositionSet,
)
from broadcast.games.ids import GameKey
from clocks.errors import BoardwireError


class GameError(BoardwireError, ValueError):
    """An event that does not fit the game (an illegal corrected line, a move from nowhere)."""


@dataclass(frozen=True, slots=True)
class MoveRecord:
    san: str
    uci: str
    fen_after: str
    t: float
    remaining: float | None = None
    spent: float | None = None
    software_clock: bool = False


@dataclass(frozen=True, slots=True)
class PlayerRef:
    """Who plays a colour: enough for pages and PGN headers."""

    start: int
    name: str
    rating: int = 0
    fide_id: str = ""
    title: str = ""
    federation: str = ""


@dataclass(frozen=True)
class GameState:
    """A game: its players, line, clocks, sync and result."""

    key: GameKey
    white: PlayerRef | None
    black: PlayerRef | None
    start_fen: str = chess.STARTING_FEN
    moves: tuple[MoveRecord, ...] = ()
    board: str | None = None
    white_clock: int | None = None
    black_clock: int | None = None
    running: Colour | None = None
    # When the clock showed white_clock/black_clock (event seconds): PGN's ReferenceTime,
    # so that a reader can run a running clock on from the reading.
    clock_t: float | None = None
    in_sync: bool = True
    out_since: float | None = None
    board_fen: str | None = None
    result: GameResultText | None = None
    result_reason: ResultReason | None = None
    proposal: ResultProposed | None = None
    flag: Colour | None = None  # whose flag fell first
    first_activity: float | None = None
    hall_board: int | None = None  # the hall board the arbiter moved the game to
    # The game waits for its board to show its position (nothing the board shows is play
    # until it does): moved to a spare that is not set up yet, or corrected by the arbiter
    # (`awaiting_correction`: on the board it was on, whose clock stays the game's).
    awaiting_board: bool = False
    awaiting_correction: bool = False
    board_changes: tuple[BoardReplaced, ...] = ()  # every move to another board, in order

    @property
    def id(self) -> str:
        return self.key.id

    @property
    def ply(self) -> int:
        return len(self.moves)

    @property
    def finished(self) -> bool:
        return self.result is not None

    @property
    def under_one_move(self) -> bool:
        """Fewer than two plies were made on an e-board that followed the game: FIDE does
        not rate it (TRF W/D/L, PGN "Unplayed"). Without an e-board the moves are on the
        scoresheet only, so a result entered at the desk is a played game."""
        return self.board is not None and self.ply < 2

    @property
    def fen(self) -> str:
        return self.moves[-1].fen_after if self.moves else self.start_fen

    def board_now(self) -> chess.Board:
        board = chess.Board(self.start_fen)
        for move in self.moves:
            board.push_uci(move.uci)
        return board

    def apply(self, event: GameEvent) -> GameState:
        first: float | None
        match event:
            case BoardAttached(board=board):
                return _evolve(self, board=board)
            case BoardReplaced():
                # Out of sync until the new board shows the game's position (GameSync).
                return _evolve(
                    self,
                    hall_board=event.new_board,
                    awaiting_board=True,
                    awaiting_correction=False,
                    board_changes=(*self.board_changes, event),
                    in_sync=False,
                    out_since=self.out_since if not self.in_sync else event.t,
                    board_fen=None,
                )
            case GameMove() | GameTakeback() if self.result is not None:
                # A game with a result takes no moves: whatever a board reports after the
                # end (a reset, the pieces set up again) is not this game. Only the
                # arbiter's correction (LineCorrected) changes a finished game's line.
                return self
            case GameMove():
                if not 1 <= event.ply <= self.ply + 1:
                    raise GameError(
                        f"{self.id}: move at ply {event.ply} but the game has {self.ply} plies"
                    )
                record = MoveRecord(
                    event.san,
                    event.uci,
                    event.fen_after,
                    event.t,
                    event.remaining,
                    event.spent,
                    event.software_clock,
                )
                first = self.first_activity if self.first_activity is not None else event.t
                return _evolve(
                    self, moves=(*self.moves[: event.ply - 1], record), first_activity=first
                )
            case GameMoveClocked(ply=ply):
                if not 1 <= ply <= self.ply:
                    return self  # the move was taken back meanwhile
                moves = list(self.moves)
                moves[ply - 1] = replace(
                    moves[ply - 1],
                    remaining=event.remaining,
                    spent=event.spent,
                    software_clock=False,  # the clock's own time now
                )
                return _evolve(self, moves=tuple(moves))
            case GameTakeback(ply=ply):
                return _evolve(self, moves=self.moves[: max(ply, 0)])
            case GameClock():
                if self.result is not None or self.proposal is not None:
                    # The game ended on the board (kings signal, flag, mate, a default
                    # time): a clock left running would count down to 0:00:00 on every
                    # page while the arbiter decides. Keep the times it showed when the
                    # result happened; a rejected proposal lets the next reading in. A
                    # game with no reading before its end takes the first, stopped.
                    if self.white_clock is not None:
                        return self
                    return _evolve(
                        self,
                        white_clock=event.white,
                        black_clock=event.black,
                        running=None,
                        clock_t=event.t,
                    )
                first = self.first_activity
                if (
                    first is None
                    and event.running is not None
                    and self.running is not None
                    and event.running != self.running
                ):
                    first = event.t  # a press: somebody is at the board
                return _evolve(
                    self,
                    white_clock=event.white,
                    black_clock=event.black,
                    running=event.running,
                    clock_t=event.t,
                    first_activity=first,
                )
            case GameSync(in_sync=in_sync):
                return _evolve(
                    self,
                    in_sync=in_sync,
                    awaiting_board=self.awaiting_board and not in_sync,
                    awaiting_correction=self.awaiting_correction and not in_sync,
                    out_since=None
                    if in_sync
                    else (self.out_since if not self.in_sync else event.t),
                    board_fen=None if in_sync else event.fen,
                )
            case GameFlag(colour=colour):
                # Only the first flag, and only while the clock still decides: after a
                # result or another proposal (a mate, the kings signal, a default time)
                # the flag that falls on an unattended clock says nothing of the game.
                ended = self.result is not None or (
                    self.proposal is not None and self.proposal.reason != "flag-fall"
                )
                return self if self.flag is not None or ended else _evolve(self, flag=colour)
            case ResultProposed():
                # The clocks stop with the result, not with the arbiter's confirmation.
                return _evolve(self, proposal=event, running=None)
            case ProposalWithdrawn():
                return self if self.proposal is None else _evolve(self, proposal=None)
            case ResultConfirmed():
                # The clocks stop with the result (see GameClock): none runs on the pages.
                # A finished game waits for no board to be set up.
                return _evolve(
                    self,
                    result=event.result,
                    result_reason=event.reason,
                    proposal=None,
                    running=None,
                    awaiting_board=False,
                    awaiting_correction=False,
                )
            case ResultCleared():
                return _evolve(self, result=None, result_reason=None)
            case LineCorrected(ucis=ucis):
                line = _line(self.start_fen, ucis, self.moves, self.id)
                return _await_setup(_evolve(self, moves=line), event)
            case StartPositionSet(fen=fen):
                try:
                    chess.Board(fen)
                except ValueError as exc:
                    raise GameError(f"{self.id}: not a FEN: {fen!r} ({exc})") from None
                return _await_setup(_evolve(self, start_fen=fen, moves=()), event)
        raise GameError(f"not a game event: {event!r}")


def software_times(game: GameState) -> tuple[float, float, float] | None:
    """Where the software clock of a clockless spare stands, from the game as journaled
    (to go on after a restart): the time of the last move made on the spare, and the time
    each side had left then (its last move's clock there, else what the arbiter entered).
    None when the game is not on such a spare, or nothing was played there yet."""
    if game.finished or game.awaiting_board or not game.board_changes:
        return None
    change = game.board_changes[-1]
    if change.white_seconds is None or change.black_seconds is None:
        return None
    since = game.moves[change.ply :]
    if not since:
        return None
    left = {"white": change.white_seconds, "black": change.black_seconds}
    for move in since:
        if move.remaining is not None:
            # The side to move after it is the other one: the mover is the one before.
            mover = "black" if move.fen_after.split()[1] == "w" else "white"
            left[mover] = move.remaining
    return since[-1].t, left["white"], left["black"]


def _await_setup(state: GameState, event: LineCorrected | StartPositionSet) -> GameState:
    """After the arbiter's correction, a game its board follows waits for that board to
    show the corrected position (what it showed belonged to the old line): out of sync
    from now, as a spare that takes a game over. A game with a result is followed by no
    board, and a spare still waiting to be set up stays a spare (its clock is not the
    game's yet)."""
    if event.board is None or state.result is not None:
        return state
    return _evolve(
        state,
        awaiting_board=True,
        awaiting_correction=state.awaiting_correction or not state.awaiting_board,
        in_sync=False,
        out_since=event.t,
        board_fen=None,
    )


def _evolve(state: GameState, **changes: object) -> GameState:
    """`dataclasses.replace` without its per-field checks: a game folds thousands of clock
    readings, and `replace` was most of the journal's replay time."""
    new = object.__new__(GameState)
    new.__dict__.update(state.__dict__)
    new.__dict__.update(changes)
    return new


def _line(
    start_fen: str, ucis: tuple[str, ...], old: tuple[MoveRecord, ...], game: str
) -> tuple[MoveRecord, ...]:
    """The corrected line; clock data is kept for the plies whose move did not change."""
    board = chess.Board(start_fen)
    out: list[MoveRecord] = []
    for ply, uci in enumerate(ucis, 1):
        try:
            move = chess.Move.from_uci(uci)
        except ValueError:
            raise GameError(f"{game}: ply {ply}: {uci!r} is not a move in UCI notation") from None
        if move not in board.legal_moves:
            raise GameError(f"{game}: ply {ply}: {uci} is illegal in {board.fen()}")
        san = board.san(move)
        board.push(move)
        keep = (
            old[ply - 1]
            if ply <= len(old)
            and old[ply - 1].uci == uci
            and all(o.uci == u for o, u in zip(old[:ply], ucis[:ply], strict=False))
            else None
        )
        if keep is not None:
            out.append(keep)
        else:
            t = old[ply - 1].t if ply <= len(old) else (old[-1].t if old else 0.0)
            out.append(MoveRecord(san, uci, board.fen(), t))
    return tuple(out)


__all__ = ["GameError", "GameState", "MoveRecord", "PlayerRef", "software_times"]
