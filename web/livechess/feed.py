"""The `eboardevent` feed as a pure function: what a subscriber is told, given what it
was told last and what the board and its game are now.

Consumers of LiveChess learned that its feed reports a move twice, two moves in one
message, castling twice, or a king move never played. Here the feed is derived from
boardwire's reconstruction as journaled (the game's line), never from square changes,
and each step of the line is its own message: a move added is one message; a takeback
(or a correction) shrinks `san` to what still stands, in one message, and then adds the
new moves one at a time; a new start position (`setup`) resets `san` to empty first.
So a client that appends the last SAN of each message, and cuts its list when one
shrinks, holds exactly the game.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["BoardView", "ClockView", "Step", "feed_steps", "placement"]


def placement(fen: str) -> str:
    """The piece placement of a FEN (its first field)."""
    return fen.split(" ", 1)[0]


@dataclass(frozen=True, slots=True)
class ClockView:
    """The clock as LiveChess says it: seconds left, whether it runs (None: not known),
    and when this was read (epoch ms; not part of what counts as a change)."""

    white: int
    black: int
    run: bool | None
    time: int = field(default=0, compare=False)

    def json(self) -> dict[str, Any]:
        return {"white": self.white, "black": self.black, "run": self.run, "time": self.time}


@dataclass(frozen=True, slots=True)
class BoardView:
    """One e-board and its game now: `board` the pieces it shows (placement, in the
    game's orientation), `start` the FEN the line starts from, `line` each ply's SAN with
    the placement after it."""

    serialnr: str
    flipped: bool
    board: str
    clock: ClockView | None
    start: str
    line: tuple[tuple[str, str], ...] = ()

    @property
    def san(self) -> tuple[str, ...]:
        return tuple(s for s, _ in self.line)

    def placement_at(self, ply: int) -> str:
        return placement(self.start) if ply == 0 else self.line[ply - 1][1]

    @property
    def match(self) -> bool:
        """The board shows the reconstructed position."""
        return self.board == self.placement_at(len(self.line))


@dataclass(frozen=True, slots=True)
class Step:
    """One feed message's `param`."""

    param: dict[str, Any]


def _common(a: BoardView, b: BoardView) -> int:
    if a.start != b.start:
        return 0
    n = 0
    for (sa, _), (sb, _) in zip(a.line, b.line, strict=False):
        if sa != sb:
            break
        n += 1
    return n


def _param(
    now: BoardView, ply: int, *, board: bool, clock: bool, start: str | None = None
) -> dict[str, Any]:
    out: dict[str, Any] = {"serialnr": now.serialnr, "flipped": now.flipped}
    if board:
        out["board"] = now.board
    if clock:
        out["clock"] = None if now.clock is None else now.clock.json()
    out["start"] = now.start if start is None else start
    out["san"] = list(now.san[:ply])
    out["match"] = now.board == now.placement_at(ply)
    return out


def feed_steps(sent: BoardView | None, now: BoardView) -> list[Step]:
    """The messages that bring a subscriber from `sent` (what it was told last; None: a
    new subscriber) to `now`. Empty when nothing it is told changed. `board` and `clock`
    are in the first message of a burst, and only when changed (always in the first
    message of a subscription)."""
    if sent is None:
        return [Step(_param(now, len(now.line), board=True, clock=True))]
    board = sent.board != now.board
    clock = sent.clock != now.clock
    common = _common(sent, now)
    steps: list[Step] = []
    told = len(sent.line)
    if now.start != sent.start or common < told:
        # what no longer stands goes first, in one message
        steps.append(Step(_param(now, common, board=board, clock=clock)))
        board = clock = False
    for ply in range(common + 1, len(now.line) + 1):
        steps.append(Step(_param(now, ply, board=board, clock=clock)))
        board = clock = False
    if not steps and (board or clock or sent.flipped != now.flipped or sent.match != now.match):
        steps.append(Step(_param(now, len(now.line), board=board, clock=clock)))
    return steps
