"""What a reconstruction knows at one moment: the game so far, what the board shows, the
positions seen since the last game node (the trail) and the lever presses still settling.

`State` is the one mutable object the reconstruction steps share: `classify` reads it,
`decide`, `press`, `log_feed` and `result_signal` decide on it, `record` changes the game
in it. Its own methods keep the bookkeeping that must change together (a new game, a new
node, a position sighted). The values below are what those steps pass around.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Literal

import chess

from boards.position import BoardPosition, Orientation
from boards.reconstruction.config import ReconstructionConfig
from boards.reconstruction.keys import Key, board_key
from boards.reconstruction.reconstruction_events import Result
from boards.reconstruction.search import Line
from clocks.move_times import ClockTimes, MoveTime, SoftwareClock
from clocks.reading import Side
from clocks.timecontrol import TimeControl

__all__ = [
    "EPS",
    "NONE",
    "SAME",
    "Candidate",
    "Kind",
    "Match",
    "Ply",
    "Press",
    "Seen",
    "State",
    "Suspect",
]

Kind = Literal["same", "forward", "signal", "start", "takeback", "correction", "none"]
Suspect = Literal["centre_king", "castling_rook"] | None

EPS = 1e-9
# Positions kept for a chain resync (since the last game node): a long out-of-sync stretch
# of a blitz finish, or an EEPROM log replayed after an outage, fits many times over.
_TRAIL_MAX = 2000


@dataclass(frozen=True, slots=True)
class Match:
    """What a position is to the game (see `classify`)."""

    kind: Kind
    moves: Line = ()
    base: int = 0  # node the moves start from (takeback/correction: an earlier node)
    orientation: Orientation | None = None
    fen: str = ""
    chess960: bool = False
    result: Result | None = None
    kings: tuple[int, int] = (0, 0)
    suspect: Suspect = None
    patient: bool = False
    deep: bool = False
    # Different lines reach this position and nothing seen tells them apart (as text).
    ambiguous: tuple[str, ...] = ()
    # A correction the board itself shows (the last piece moved on from its landing
    # square, or the replacing line fits the positions seen since the node better than any
    # line from it): decided as soon as a move would be, not after the takeback wait.
    evident: bool = False


SAME = Match("same")
NONE = Match("none")


@dataclass(slots=True)
class Candidate:
    """A position the board shows (or showed), with its classification once made."""

    codes: tuple[int, ...]
    since: float
    key: Key
    match: Match | None = None
    version: int = -1
    slow_done: bool = False
    deep_done: bool = False
    chain_done: bool = False  # the chain resync depends on the trail, not on the depth


@dataclass(frozen=True, slots=True)
class Seen:
    """A position the board showed since the last game node, for a chain resync."""

    key: Key
    since: float
    until: float | None = None  # when the next position replaced it
    recovered: bool = False


@dataclass(slots=True)
class Ply:
    """A recorded move of the game."""

    move: chess.Move
    san: str
    t: float
    white: bool
    clock: MoveTime | None
    by_press: bool
    centre_king: bool


@dataclass(slots=True)
class Press:
    """A lever press settling: the positions shown around it decide what it completed."""

    t: float
    white: bool
    time: MoveTime
    deadline: float
    cands: list[Candidate] = field(default_factory=list)
    # The opponent pressed since: what the board shows from then on is their move or
    # later, never what this press completed (a stall of the reader stamps a press and
    # the moves after it alike, inside the settle window).
    closed: bool = False


class State:
    """One board's reconstruction state (see the module docstring)."""

    def __init__(
        self,
        *,
        start_fen: str,
        chess960: bool,
        orientation: Orientation | None,
        config: ReconstructionConfig,
        time_control: TimeControl | None,
        white_side: Side | None,
    ) -> None:
        self.config = config
        self.orientation: Orientation | None = orientation
        self.time_control = time_control if time_control and not time_control.untimed else None
        self.clock = ClockTimes(white_side)
        self.cand: Candidate | None = None
        self.recent: list[Candidate] = []
        self.presses: list[Press] = []
        self.recovered: list[tuple[float, tuple[int, ...]]] = []
        self.trail: list[Seen] = []
        self.trail_broken = False
        self.announced = False
        self.announce_t = 0.0
        self.soft: SoftwareClock | None = None
        self.setup(start_fen, chess960)

    def setup(self, fen: str, chess960: bool) -> None:
        """A new game from `fen`: everything about the old one goes."""
        board = chess.Board(fen, chess960=chess960)
        self.chess960 = chess960
        self.root = board.copy()
        self.root_key = board_key(board)
        # The start as a board shows it, either way round: colours are read from the
        # clock only while the pieces still stand there.
        self.root_codes = {
            BoardPosition.from_board(board, "normal").codes,
            BoardPosition.from_board(board, "rotated").codes,
        }
        self.left_root = False
        self.board = board
        self.plies: list[Ply] = []
        self.keys: list[Key] = [self.root_key]
        self.key_nodes: dict[Key, list[int]] = {self.root_key: [0]}
        self.cache: dict[Key, Match] = {}
        self.version = 0
        self.seen_at: dict[Key, float] = {}
        self.observed: list[Key] = []
        self.presses_since_node = 0
        # Lever-press times not yet given to a move, oldest first, per colour (True = White).
        self.stamps: dict[bool, list[tuple[float, MoveTime]]] = {True: [], False: []}
        self.unmatched_since: float | None = None
        self.unmatched_patient = False
        self.out_since: float | None = None
        self.signalled: Result | None = None
        # A king move retracted as the first king of a signal: (node key, move, time).
        self.signal_undone: tuple[Key, chess.Move, float] | None = None
        self.announced = False
        self.presses = []
        self.restart_trail()
        self.clock.reset("white" if board.turn == chess.WHITE else "black")
        self.soft = None
        if self.cand is not None:
            self.cand.match = None
            self.cand.slow_done = self.cand.deep_done = self.cand.chain_done = False

    def node_changed(self) -> None:
        """The game moved to another node: what was learnt about positions from the old one
        (classifications, sightings, the trail) no longer holds."""
        self.presses_since_node = 0
        self.version += 1
        self.cache.clear()
        keep = self.cand.key if self.cand is not None else None
        since = self.seen_at.get(keep) if keep is not None else None
        self.seen_at = {keep: since} if keep is not None and since is not None else {}
        self.observed = []
        self.restart_trail()
        if self.cand is not None:
            self.cand.slow_done = self.cand.deep_done = self.cand.chain_done = False

    def restart_trail(self) -> None:
        """A new game node: the trail starts again from what the board shows now."""
        cand = self.cand
        self.trail = [Seen(cand.key, cand.since)] if cand is not None else []
        self.trail_broken = False

    def sight(self, key: Key, t: float, recovered: bool = False) -> None:
        """The board shows `key` from `t` on: add it to the trail."""
        trail = self.trail
        if trail and trail[-1].until is None:
            trail[-1] = replace(trail[-1], until=t)
        trail.append(Seen(key, t, recovered=recovered))
        if len(trail) > _TRAIL_MAX:
            # Bounded: the oldest go, and with them the link to the game node.
            del trail[: len(trail) - _TRAIL_MAX]
            self.trail_broken = True

    def clock_running(self) -> bool:
        """Does the board's clock show a running clock?"""
        reading = self.clock.last_reading
        return self.clock.present and reading is not None and reading.running

    def may_go_out(self) -> bool:
        """May a position that matches nothing be reported out of sync?"""
        return self.announced and self.out_since is None and self.signalled is None

    def fresh_stamps(self, white: bool, t: float) -> list[MoveTime]:
        """`white`'s lever-press times not yet given to a move and not too old at `t`."""
        ttl = self.config.stamp_ttl
        return [time for stamp_t, time in self.stamps[white] if t - stamp_t <= ttl]
