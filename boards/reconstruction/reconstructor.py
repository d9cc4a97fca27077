"""The reconstructor: timestamped board positions and clock readings in, game events out.

What it does with each position the board reports (see docs/reconstruction.md):

1. classify it against the game: the current position ("same"), a position a few legal
   plies ahead ("forward"), a result signal, a fresh start position, an earlier position
   of the game (takeback), an earlier position plus other moves (correction), or nothing;
2. act only once the evidence is good enough: the position stayed unchanged long enough
   (longer for moves that may be half of something else: a king stepping to the centre,
   a rook landing where castling puts it), or a lever press says the move is complete;
3. when nothing matches for a while, report OutOfSync, keep searching deeper as the
   players go on, and report BackInSync (with the moves made meanwhile) on a match.

Pure: no I/O, no clock reading; every call gets its time `t`.

`Reconstructor` is the public face and holds one `State`; the steps are functions over
it, each in the module named for its job: `classify` (what a position is), `decide` (when
to act on it), `press` (what a lever press completed), `log_feed` (the EEPROM log),
`result_signal` (the kings on the centre), `record` (moves played, corrected, retracted).
"""

from __future__ import annotations

from collections.abc import Sequence

import chess

from boards.position import BoardPosition, Orientation
from boards.reconstruction.config import ReconstructionConfig
from boards.reconstruction.decide import next_deadline, run
from boards.reconstruction.keys import board_key, codes_key
from boards.reconstruction.log_feed import flush_recovered, read_log
from boards.reconstruction.press import press_made
from boards.reconstruction.reconstruction_events import ReconstructionEvent, Result
from boards.reconstruction.reconstruction_state import Candidate, Ply, State
from clocks.move_times import (
    ClockStarted,
    ClockTimes,
    FlagFell,
    LeverPressed,
    MoveTime,
    SoftwareClock,
)
from clocks.reading import ClockReading, NoClock, Side
from clocks.timecontrol import Colour, TimeControl

__all__ = ["Reconstructor"]


class Reconstructor:
    """Turns one board's positions (and its clock's readings) into a legal game.

    `start_fen` defaults to the standard start; `chess960=True` allows Chess960 castling
    and recognises any Chess960 start as a new game. `orientation=None` detects it from
    the first position that matches. `time_control` enables a software clock for boards
    without a clock; `white_side` fixes which clock side is White (else: left, then the
    side whose time runs first).
    """

    def __init__(
        self,
        *,
        start_fen: str | None = None,
        chess960: bool = False,
        orientation: Orientation | None = None,
        config: ReconstructionConfig | None = None,
        time_control: TimeControl | None = None,
        white_side: Side | None = None,
    ) -> None:
        self._s = State(
            start_fen=start_fen or chess.STARTING_FEN,
            chess960=chess960,
            orientation=orientation,
            config=config or ReconstructionConfig(),
            time_control=time_control,
            white_side=white_side,
        )

    # ------------------------------------------------------------------ public API

    @property
    def config(self) -> ReconstructionConfig:
        """The waits and search depths this reconstruction uses."""
        return self._s.config

    @property
    def board(self) -> chess.Board:
        """A copy of the game's current position (with its move stack)."""
        return self._s.board.copy()

    @property
    def moves(self) -> list[chess.Move]:
        return [p.move for p in self._s.plies]

    @property
    def sans(self) -> list[str]:
        return [p.san for p in self._s.plies]

    @property
    def clocks(self) -> list[MoveTime | None]:
        return [p.clock for p in self._s.plies]

    @property
    def ply(self) -> int:
        return len(self._s.plies)

    @property
    def orientation(self) -> Orientation | None:
        return self._s.orientation

    @property
    def in_sync(self) -> bool:
        return self._s.out_since is None

    @property
    def result(self) -> Result | None:
        return self._s.signalled

    @property
    def clock_times(self) -> ClockTimes:
        """The clock follower (which side is White, last reading)."""
        return self._s.clock

    def set_white_side(self, side: Side) -> None:
        """The arbiter says White's time is on `side` of the clock."""
        self._s.clock.set_white_side(side)

    def set_orientation(self, orientation: Orientation) -> None:
        """The board is known to stand this way round (it was seen showing the game)."""
        self._s.orientation = orientation

    def start_software_clock(self, t: float, white: float, black: float) -> None:
        """Keep the time in software from `t` on, from the times each side has left (a
        board without a clock taking over a game under way: the arbiter says the times).
        Needs the reconstruction's time control; without one this does nothing."""
        if self._s.time_control is None or self._s.time_control.untimed:
            return
        to_move: Colour = "white" if self._s.board.turn == chess.WHITE else "black"
        soft = SoftwareClock(self._s.time_control, to_move)
        made = {"white": 0, "black": 0}
        for ply in self._s.plies:
            made["white" if ply.white else "black"] += 1
        soft.resume(white, black, made["white"], made["black"], t)
        self._s.soft = soft

    def resume(
        self,
        ucis: Sequence[str],
        t: float = 0.0,
        white_side: Side | None = None,
        clocks: Sequence[float | None] = (),
    ) -> None:
        """Continue a game already under way (after a restart, or an arbiter's corrected
        line): the moves are known facts, so no events are produced for them.

        The game counts as announced: no `NewGame` follows (it would tell a `GameLine` to
        drop the resumed moves), and positions that match nothing can go out of sync at
        once. The orientation is still detected from the board if it was not given. No
        software clock is kept from here: the time each side had left is not known.
        `clocks`: the recorded moves' clock times, where known (a press read again later,
        from the board's log, must not go to a move that has its time already)."""
        board = self._s.board
        for uci in ucis:
            move = chess.Move.from_uci(uci)
            if move not in board.legal_moves:
                raise ValueError(
                    f"cannot resume: {uci} is illegal after {len(self._s.plies)} plies"
                )
            san = board.san(move)
            white = board.turn == chess.WHITE
            board.push(move)
            key = board_key(board)
            self._s.key_nodes.setdefault(key, []).append(len(self._s.keys))
            self._s.keys.append(key)
            known = clocks[len(self._s.plies)] if len(self._s.plies) < len(clocks) else None
            clock = None if known is None else MoveTime(known, None)
            self._s.plies.append(Ply(move, san, t, white, clock, False, False))
        self._s.clock.reset("white" if board.turn == chess.WHITE else "black")
        # The colours were settled when the game started: the side whose clock runs first
        # after a resume is just the side to move, not White. Keep what was known.
        self._s.clock.set_white_side(white_side or self._s.clock.white_side)
        if not self._s.announced:
            self._s.announced = True
            self._s.announce_t = t
        self._s.soft = None
        self._s.node_changed()

    def clock_was_running(self, colour: Colour, white_side: Side) -> None:
        """Take over a game whose record last saw `colour`'s clock running, White's time on
        `white_side` (after a restart). A reading that shows the other colour's clock
        running is then a press made while nobody listened (a press read only after the
        restart, as a capture station resends it): it completes the move it belongs to,
        where the first reading would otherwise only start the clock."""
        self._s.clock.set_white_side(white_side)
        self._s.clock.resume_running(self._s.clock.side_of(colour))

    def feed_position(
        self, t: float, position: BoardPosition, recovered: bool = False
    ) -> list[ReconstructionEvent]:
        """A full board position seen at `t`.

        `recovered=True`: a position replayed from the board's EEPROM log after an outage
        (`t` is an estimate). Such positions are collected and, when the live input
        resumes, explained together as one sequence (see `log_feed.flush_recovered`).
        """
        events: list[ReconstructionEvent] = []
        if recovered:
            self._s.recovered.append((t, position.codes))
            self._s.left_root = True
            return events
        if not self._s.left_root and position.codes not in self._s.root_codes:
            self._s.left_root = True  # something moved: the game's start is behind us
        flush_recovered(self._s, t, events)
        run(self._s, t, events)
        codes = position.codes
        cand = self._s.cand
        if cand is None or cand.codes != codes:
            key = codes_key(codes, self._s.orientation or "normal")
            if cand is None or key != cand.key:
                cand = Candidate(codes, t, key)
                self._s.cand = cand
                self._s.seen_at.setdefault(key, t)
                for press in self._s.presses:
                    if not press.closed:
                        press.cands.append(cand)
                self._s.recent.append(cand)
                if len(self._s.recent) > 8:
                    del self._s.recent[0]
                self._s.sight(key, t)
                if len(self._s.observed) < 64:
                    self._s.observed.append(key)
            else:
                cand.codes = codes  # only ignored squares (magic pieces) changed
        run(self._s, t, events)
        return events

    def feed_clock(self, t: float, reading: ClockReading | NoClock) -> list[ReconstructionEvent]:
        """A clock reading seen at `t` (readings drive lever-press evidence and [%clk])."""
        events: list[ReconstructionEvent] = []
        flush_recovered(self._s, t, events)
        run(self._s, t, events)
        if not self._s.clock.decided:
            if self._s.plies or self._s.recovered or self._s.left_root:
                # Joined a game under way (a restart, moves read back from the board's log):
                # whichever clock runs now says nothing about colours, and positions may
                # still be in flight. Keep the convention (White on the left) unless the
                # arbiter says otherwise.
                self._s.clock.set_white_side(self._s.clock.white_side)
            else:
                self._s.clock.expect_first(
                    "white" if self._s.board.turn == chess.WHITE else "black"
                )
        for event in self._s.clock.feed(t, reading):
            if isinstance(event, LeverPressed):
                press_made(self._s, t, event)
            elif isinstance(event, ClockStarted | FlagFell):
                events.append(event)
        run(self._s, t, events)
        return events

    def feed_log(
        self,
        t: float,
        positions: Sequence[tuple[BoardPosition, Sequence[tuple[Side, int]]]],
        seen: int,
    ) -> list[ReconstructionEvent]:
        """A board's EEPROM log read back at `t` (after an outage, or at a first start
        mid-round): the positions it showed, in order, each with the lever presses
        (clock side, seconds left) logged right after it. The log holds no times.

        The game is first aligned with the log: the last position, at or before index
        `seen` (what the host last saw live), that shows the game's current position.
        From there the log is explained press by press: a position followed by a press is
        a move completed (it must be a position of the game) and the press's time is that
        move's clock time; the positions between are the way there and may be skipped,
        however long a hand rested on them. A press at the game's current position
        belongs to its last move (a press counted already is not counted again). What
        follows the last press, or does not fit, goes on as live input (which can go out
        of sync): so does the whole log when the game's position is not in it."""
        events: list[ReconstructionEvent] = []
        flush_recovered(self._s, t, events)
        run(self._s, t, events)
        if not positions:
            return events
        read_log(self._s, t, positions, seen, events)
        events += self.feed_position(t, positions[-1][0])
        return events

    def tick(self, t: float) -> list[ReconstructionEvent]:
        """Let time pass: fires stability waits and software-clock flags due by `t`."""
        events: list[ReconstructionEvent] = []
        flush_recovered(self._s, t, events)
        run(self._s, t, events)
        return events

    def next_deadline(self) -> float | None:
        """The next time at which `tick` may have something to do (None: only new input)."""
        return next_deadline(self._s)
