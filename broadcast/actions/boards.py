"""Where a game is played: a spare board taking a game over, a pairing's table number.

- `ReplaceBoard`: the game moves to another hall board (a spare, after its own failed),
  named by number or by the serial of a DGT board plugged into a hall port. A free board
  is the choice; a board whose game is in play is taken only as a swap chosen on purpose
  (both games move, both boards must be set up again); never the game's own board.
- `AssignBoard`: the game of a round, by its White, goes to board N: a game on a hall
  board now moves there as above; otherwise the pairing's table number changes (a swap
  with the game at that table), refused once either game has begun.

Both ask first: they take a game's board away.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from broadcast.actions.door import ActionHost, Plan, game_state, section_state
from broadcast.actions.words import game_words
from broadcast.games.game_events import BoardReplaced
from broadcast.games.ids import GameKey
from broadcast.phrases import say
from broadcast.service.committer import ActionError
from broadcast.service.hall import HallBoard
from broadcast.tournament.tournament_events import BoardAssigned

__all__ = ["MAX_BOARD", "AssignBoard", "ReplaceBoard", "board_choices", "on_hall_board"]

MAX_BOARD = 9999  # an event without a [[board]] list: any plausible table number


def on_hall_board(host: ActionHost, game_id: str) -> int | None:
    """The hall board that carries the game now (None: none, its round is not live)."""
    return next((n for n, b in host.hall.items() if b.game == game_id), None)


def _busy(host: ActionHost, board: HallBoard) -> bool:
    game = host.book.games.get(board.game or "")
    return game is not None and not game.finished


def board_choices(host: ActionHost, game_id: str) -> tuple[list[HallBoard], list[HallBoard]]:
    """The hall boards `game_id` can move to: the free ones (no game in play), and the busy
    ones (a swap), each by number; never the game's own board."""
    own = on_hall_board(host, game_id)
    boards = [b for n, b in sorted(host.hall.items()) if n != own]
    return [b for b in boards if not _busy(host, b)], [b for b in boards if _busy(host, b)]


def _seconds(value: float | None) -> None:
    if value is not None and not 0 <= value <= 86_400:
        raise ActionError(
            say(
                "a player's time must be 0 to 86400 seconds, not %(value)s",
                value=format(value, "g"),
            )
        )


@dataclass(frozen=True, slots=True)
class ReplaceBoard:
    """`game` goes on at hall board `board`, or at the hall board where DGT board `serial`
    is connected; `swap` takes a board whose game is in play (that game moves to the
    left board). The times are for a spare without a clock (both or neither)."""

    game: str
    board: int | None = None
    serial: str | None = None
    swap: bool = False
    white_seconds: float | None = None
    black_seconds: float | None = None
    kind: ClassVar[str] = "replace-board"

    def _target(self, host: ActionHost) -> int:
        if (self.board is None) == (self.serial is None or not self.serial.strip()):
            raise ActionError(say("name the spare: a hall board number, or a DGT board's serial"))
        if self.board is not None:
            if self.board not in host.hall:
                numbers = ", ".join(str(n) for n in sorted(host.hall))
                raise ActionError(
                    say(
                        "there is no hall board %(board)s (the hall's boards: %(numbers)s)",
                        board=self.board,
                        numbers=numbers or say("none"),
                    )
                )
            return self.board
        serial = (self.serial or "").strip()
        found = next((b for b in host.hall.values() if b.name == serial), None)
        if found is None:
            seen = sorted(b.name for b in host.hall.values() if b.name)
            raise ActionError(
                say(
                    "no DGT board %(serial)s is connected on a hall port (seen: %(seen)s)",
                    serial=repr(serial),
                    seen=", ".join(seen) or say("none"),
                )
            )
        return found.number

    def plan(self, host: ActionHost, by: str) -> Plan:
        game = game_state(host, self.game)
        where = game_words(host.tournament, game)
        if game.finished:
            raise ActionError(
                say(
                    "%(where)s is finished (%(result)s): a finished game stays where it was played",
                    where=where,
                    result=str(game.result),
                )
            )
        current = on_hall_board(host, game.id)
        if current is None:
            raise ActionError(
                say(
                    "%(where)s is on no hall board now (its round is not the one being played)",
                    where=where,
                )
            )
        board = self._target(host)
        if current == board:
            raise ActionError(
                say("%(where)s is on board %(board)s already", where=where, board=board)
            )
        if (self.white_seconds is None) != (self.black_seconds is None):
            raise ActionError(
                say("enter both players' times for a spare without a clock, or neither")
            )
        _seconds(self.white_seconds)
        _seconds(self.black_seconds)
        now = host.time_source.now()
        moves = [
            BoardReplaced(
                game.id, current, board, game.ply, now, by, self.white_seconds, self.black_seconds
            )
        ]
        removes = [f"board {current} from {where}"]
        notes = [
            f"board {board} must show the game's position (ply {game.ply}) before play goes on"
        ]
        occupant = host.hall[board].game
        other = host.book.games.get(occupant) if occupant is not None else None
        if other is not None and not other.finished:
            other_words = game_words(host.tournament, other)
            if not self.swap:
                free, _ = board_choices(host, game.id)
                listed = ", ".join(str(b.number) for b in free)
                raise ActionError(
                    say(
                        "board %(board)s carries %(other)s, in play: a swap moves both games. "
                        "Choose a free board (%(listed)s), or the swap on purpose",
                        board=board,
                        other=other_words,
                        listed=listed or say("none"),
                    )
                )
            moves.append(BoardReplaced(other.id, board, current, other.ply, now, by))
            removes.append(f"board {board} from {other_words} (it moves to board {current})")
            notes.append(f"board {current} must show that game's position (ply {other.ply})")
        summary = f"{where} moves from board {current} to board {board}"
        if len(moves) > 1:
            summary += " (a swap)"
        return Plan(self.kind, summary, tuple(moves), tuple(removes), tuple(notes))


@dataclass(frozen=True, slots=True)
class AssignBoard:
    """The game of round `round` of `section` whose White is `white` plays on board
    `board` from now on (see the module docstring)."""

    section: str
    round: int
    white: int
    board: int
    swap: bool = False
    white_seconds: float | None = None
    black_seconds: float | None = None
    kind: ClassVar[str] = "assign-board"

    def plan(self, host: ActionHost, by: str) -> Plan:
        state = section_state(host, self.section)
        hall = [b for b in host.hall.values() if b.config.section == state.name]
        if hall and self.board not in {b.number for b in hall}:
            numbers = sorted(b.number for b in hall)
            raise ActionError(
                say(
                    "board %(board)s is not a board of %(name)s in the hall "
                    "(boards %(first)s-%(last)s)",
                    board=self.board,
                    name=state.name,
                    first=numbers[0],
                    last=numbers[-1],
                )
            )
        if not hall and not 1 <= self.board <= MAX_BOARD:
            raise ActionError(
                say(
                    "board must be between 1 and %(most)s, not %(board)s",
                    most=MAX_BOARD,
                    board=self.board,
                )
            )
        game_id = next(
            (
                g.id
                for g in host.book.round_games(state.name, self.round)
                if g.white is not None and g.white.start == self.white
            ),
            None,
        )
        if game_id is None:
            raise ActionError(
                say(
                    "%(name)s round %(round)s: no game with White %(white)s",
                    name=state.name,
                    round=self.round,
                    white=self.white,
                )
            )
        if on_hall_board(host, game_id) is not None:
            replace = ReplaceBoard(
                game_id,
                self.board,
                swap=self.swap,
                white_seconds=self.white_seconds,
                black_seconds=self.black_seconds,
            )
            return replace.plan(host, by)
        game = host.book.get(game_id)
        there = host.book.games.get(GameKey(state.name, self.round, self.board).id)
        for begun in (game, there):
            if begun is not None and (begun.moves or begun.finished):
                raise ActionError(
                    say(
                        "%(game)s has begun: its table cannot change any more",
                        game=game_words(host.tournament, begun),
                    )
                )
        if game.key.board == self.board:
            raise ActionError(
                say(
                    "%(game)s is at table %(table)s already",
                    game=game_words(host.tournament, game),
                    table=self.board,
                )
            )
        where = game_words(host.tournament, game)
        removes = [f"table {game.key.board} from {where}"]
        if there is not None:
            removes.append(
                f"table {self.board} from {game_words(host.tournament, there)} "
                f"(it moves to table {game.key.board})"
            )
        event = BoardAssigned(state.name, self.round, self.white, self.board, by=by)
        return Plan(
            self.kind,
            f"{where} moves to table {self.board}",
            (event,),
            tuple(removes),
        )
