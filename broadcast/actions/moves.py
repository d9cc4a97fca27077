"""The moves of a game, as the arbiter corrects them: by ply on a phone, or a whole line
pasted from a scoresheet.

- `TakeBack`: the last N plies go.
- `ReplaceMove`: ply N becomes another move (or the next move is added); the later plies
  stay while they are still legal.
- `CorrectLine`: the whole line, typed as on the scoresheet (SAN or UCI, move numbers and
  all). An empty line on a game with moves is refused: that is not a correction. The same
  line again makes the board that follows the game show its position again before
  anything it shows is play (a knocked-over piece put back).
- `SetStartPosition`: the game starts from another position (Chess960, an adjourned
  game): on a game with moves only on purpose, as it removes them all.

Each one that removes plies says which ("plies 34-70 (17...Rxe4 to the end) of round 2
board 3 (...)") and asks. The board that follows the game must then show the corrected
position before anything it shows is read as play again.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

import chess

from broadcast.actions.door import ActionHost, Plan, game_state
from broadcast.actions.words import game_words, move_words, plies_words
from broadcast.games.game_events import LineCorrected, StartPositionSet
from broadcast.games.game_state import GameState
from broadcast.phrases import say
from broadcast.service.committer import ActionError

__all__ = [
    "CorrectLine",
    "ReplaceMove",
    "SetStartPosition",
    "TakeBack",
    "following",
    "parse_move",
    "split_moves",
    "to_ucis",
]


def parse_move(board: chess.Board, text: str, ply: int) -> chess.Move:
    """A move as the arbiter types it (UCI or SAN), legal on `board`; ActionError naming
    the ply otherwise."""
    token = text.strip()
    try:
        move = chess.Move.from_uci(token)
        if move in board.legal_moves:
            return move
    except ValueError:
        pass
    try:
        return board.parse_san(token)
    except ValueError:
        where = move_words(ply, token)
        raise ActionError(
            say(
                "%(where)s: %(token)s is neither legal UCI nor legal SAN here",
                where=where,
                token=repr(token),
            )
        ) from None


def to_ucis(start_fen: str, moves: Sequence[str]) -> list[str]:
    """Moves in UCI or SAN (an arbiter types what the scoresheet says) as UCI."""
    try:
        board = chess.Board(start_fen)
    except ValueError as exc:
        raise ActionError(
            say("the game's start position is not valid: %(exc)s", exc=str(exc))
        ) from None
    out: list[str] = []
    for text in moves:
        if not text.strip():
            continue
        move = parse_move(board, text, len(out) + 1)
        out.append(move.uci())
        board.push(move)
    return out


def split_moves(text: str) -> list[str]:
    """'1. e4 e5 2. Nf3' -> ['e4', 'e5', 'Nf3'] (move numbers and results dropped)."""
    out = []
    for token in text.replace(".", ". ").split():
        bare = token.rstrip(".")
        if not bare or bare.isdigit() or token in ("1-0", "0-1", "1/2-1/2", "*"):
            continue
        out.append(token)
    return out


def following(host: ActionHost, game_id: str) -> int | None:
    """The hall board whose reconstruction follows the game now (None: none does, e.g. a
    finished game or a round not being played)."""
    return next(
        (n for n, b in host.hall.items() if b.game == game_id and b.to_game is not None),
        None,
    )


def _sans(start_fen: str, ucis: Sequence[str]) -> list[str]:
    board = chess.Board(start_fen)
    out = []
    for uci in ucis:
        move = chess.Move.from_uci(uci)
        out.append(board.san(move))
        board.push(move)
    return out


def _line_plan(host: ActionHost, game: GameState, ucis: Sequence[str], by: str, kind: str) -> Plan:
    """Replacing the game's line by `ucis` (legal from its start position)."""
    old = [m.uci for m in game.moves]
    new = list(ucis)
    where = game_words(host.tournament, game)
    board = following(host, game.id)
    if new == old:
        if board is None:
            raise ActionError(
                say(
                    "that is the line of %(where)s already (%(plies)s plies)",
                    where=where,
                    plies=len(old),
                )
            )
        # The same line again: a knocked-over piece, an illegal move put right. Nothing
        # is read as play until the board shows the game's position again.
        event = LineCorrected(game.id, tuple(new), host.time_source.now(), by, board)
        return Plan(
            kind,
            f"{where}: board {board} must show the game's position again (ply {len(new)})",
            (event,),
        )
    first = next((i + 1 for i, (a, b) in enumerate(zip(old, new, strict=False)) if a != b), None)
    if first is None:
        first = min(len(old), len(new)) + 1
    removes = (f"{plies_words(game.moves, first)} of {where}",) if len(old) >= first else ()
    notes: tuple[str, ...] = ()
    if len(new) >= first:
        sans = _sans(game.start_fen, new)
        added = len(new) - first + 1
        start = move_words(first, sans[first - 1])
        notes += (f"the line goes on from {start}: {added} plies, {len(new)} in all",)
    if board is not None:
        notes += (f"board {board} must show the corrected position before play is read again",)
    if len(new) < len(old) and new == old[: len(new)]:
        taken = len(old) - len(new)
        summary = (
            f"{where}: {taken} {'ply' if taken == 1 else 'plies'} taken back ({len(new)} left)"
        )
    elif removes:
        summary = f"{where}: line corrected from ply {first} ({len(new)} plies)"
    else:
        summary = f"{where}: {len(new) - len(old)} plies added ({len(new)} in all)"
    event = LineCorrected(game.id, tuple(new), host.time_source.now(), by, board)
    return Plan(kind, summary, (event,), removes, notes)


@dataclass(frozen=True, slots=True)
class CorrectLine:
    """The game's moves are these, as typed from the scoresheet (SAN or UCI)."""

    game: str
    moves: tuple[str, ...]
    kind: ClassVar[str] = "line"

    def plan(self, host: ActionHost, by: str) -> Plan:
        game = game_state(host, self.game)
        ucis = to_ucis(game.start_fen, self.moves)
        if not ucis and game.moves:
            where = game_words(host.tournament, game)
            raise ActionError(
                say(
                    "an empty line would remove all %(plies)s plies of %(where)s: that is not a "
                    "correction. To take moves back, take back the last plies; to start from "
                    "another position, set the start position on purpose",
                    plies=game.ply,
                    where=where,
                )
            )
        return _line_plan(host, game, ucis, by, self.kind)


@dataclass(frozen=True, slots=True)
class TakeBack:
    """The last `plies` plies of the game go (a move the board read that was not played,
    an illegal move taken back)."""

    game: str
    plies: int = 1
    kind: ClassVar[str] = "takeback"

    def plan(self, host: ActionHost, by: str) -> Plan:
        game = game_state(host, self.game)
        if game.ply == 0:
            raise ActionError(
                say("%(game)s has no moves to take back", game=game_words(host.tournament, game))
            )
        if not 1 <= self.plies <= game.ply:
            raise ActionError(
                say(
                    "take back 1 to %(plies)s plies (the game has %(plies)s), not %(asked)s",
                    plies=game.ply,
                    asked=self.plies,
                )
            )
        kept = [m.uci for m in game.moves[: game.ply - self.plies]]
        return _line_plan(host, game, kept, by, self.kind)


@dataclass(frozen=True, slots=True)
class ReplaceMove:
    """Ply `ply` becomes `move` (SAN or UCI; the ply after the last adds a move). The
    later plies stay as long as they are still legal; the first that is not, and all
    after it, go (and the plan says so)."""

    game: str
    ply: int
    move: str
    kind: ClassVar[str] = "move"

    def plan(self, host: ActionHost, by: str) -> Plan:
        game = game_state(host, self.game)
        if not 1 <= self.ply <= game.ply + 1:
            raise ActionError(
                say(
                    "ply must be 1 to %(next)s (%(plies)s plies played; "
                    "%(next)s adds a move), not %(ply)s",
                    next=game.ply + 1,
                    plies=game.ply,
                    ply=self.ply,
                )
            )
        board = chess.Board(game.start_fen)
        for record in game.moves[: self.ply - 1]:
            board.push_uci(record.uci)
        move = parse_move(board, self.move, self.ply)
        line = [m.uci for m in game.moves[: self.ply - 1]] + [move.uci()]
        board.push(move)
        for record in game.moves[self.ply :]:
            later = chess.Move.from_uci(record.uci)
            if later not in board.legal_moves:
                break
            line.append(record.uci)
            board.push(later)
        if self.ply <= game.ply and game.moves[self.ply - 1].uci == move.uci():
            where = game_words(host.tournament, game)
            raise ActionError(
                say(
                    "ply %(ply)s of %(where)s is %(move)s already",
                    ply=self.ply,
                    where=where,
                    move=move_words(self.ply, game.moves[self.ply - 1].san),
                )
            )
        return _line_plan(host, game, line, by, self.kind)


@dataclass(frozen=True, slots=True)
class SetStartPosition:
    """The game starts from `fen` (a Chess960 setup, an adjourned game). A game with
    moves loses them all: only `on_purpose`."""

    game: str
    fen: str
    on_purpose: bool = False
    kind: ClassVar[str] = "start-position"

    def plan(self, host: ActionHost, by: str) -> Plan:
        game = game_state(host, self.game)
        fen = self.fen.strip()
        where = game_words(host.tournament, game)
        try:
            position = chess.Board(fen, chess960=True)
        except ValueError as exc:
            raise ActionError(
                say("not a FEN: %(fen)s (%(exc)s)", fen=repr(fen), exc=str(exc))
            ) from None
        if not position.is_valid():
            raise ActionError(
                say(
                    "not a legal position: %(fen)s (%(status)s)",
                    fen=repr(fen),
                    status=repr(position.status()),
                )
            )
        if fen == game.start_fen and not game.moves:
            raise ActionError(say("%(where)s starts from that position already", where=where))
        removes: tuple[str, ...] = ()
        if game.moves:
            if not self.on_purpose:
                raise ActionError(
                    say(
                        "%(where)s has %(plies)s plies: a start position removes them all. It is "
                        "for a Chess960 game or an adjourned one: choose it on purpose, or "
                        "correct the moves instead",
                        where=where,
                        plies=game.ply,
                    )
                )
            removes = (f"{plies_words(game.moves, 1)} of {where}",)
        board = following(host, game.id)
        notes = (f"board {board} must show that position before play is read",) if board else ()
        event = StartPositionSet(game.id, fen, host.time_source.now(), by, board)
        return Plan(self.kind, f"{where}: starts from {fen}", (event,), removes, notes)
