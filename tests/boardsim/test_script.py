"""Scripted games: PGN -> physical actions, replayed on the pure board and clock."""

from __future__ import annotations

import io
import itertools
from dataclasses import dataclass

import chess
import chess.pgn
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boards.dgt.eeprom import ClockTime
from boards.position import BoardPosition
from boards.reconstruction import GameLine, Reconstructor
from boards.reconstruction.drive import drive
from boardsim.board import EmulatedBoard
from boardsim.clock import Side
from boardsim.humans import Habits
from boardsim.script import (
    Action,
    ClockSetup,
    LeverPress,
    SquareSet,
    TimedAction,
    actions_for_game,
    habits_named,
    hand_moves,
    human_actions_for_game,
    parse_time_control,
    perform,
    play,
)
from boardsim.timing import ScaledTime

SPECIAL = [
    "e4",
    "d5",
    "e5",
    "f5",
    "exf6",
    "Nc6",
    "fxg7",
    "Qd6",
    "gxh8=Q",
    "Bd7",
    "Nf3",
    "O-O-O",
    "Be2",
    "e5",
    "O-O",
]


def game_of(
    sans: list[str], clocks: list[int] | None = None, tc: str | None = None
) -> chess.pgn.Game:
    game = chess.pgn.Game()
    if tc:
        game.headers["TimeControl"] = tc
    node: chess.pgn.GameNode = game
    for i, san in enumerate(sans):
        node = node.add_variation(node.board().parse_san(san))
        if clocks is not None:
            node.set_clock(clocks[i])
    return game


def replay(actions: list[Action], board: EmulatedBoard) -> None:
    for a in sorted(actions, key=lambda a: a.t):
        match a:
            case SquareSet(t, index, code):
                board.set_square(index, code, t)
            case LeverPress(t, side):
                board.press_lever(side, t)
            case ClockSetup(t, left, right, inc):
                assert board.clock is not None
                board.clock.setup(left, right, t, increment=inc)


def test_special_moves_end_in_the_right_position() -> None:
    game = game_of(SPECIAL)
    board = EmulatedBoard("10001")
    replay(actions_for_game(game), board)
    expected = BoardPosition.from_board(game.end().board())
    assert board.position == expected


def test_rotated_board_gets_mirrored_indices() -> None:
    game = game_of(SPECIAL)
    board = EmulatedBoard("10001", position=BoardPosition.from_board(chess.Board(), "rotated"))
    replay(actions_for_game(game, orientation="rotated"), board)
    assert board.position == BoardPosition.from_board(game.end().board(), "rotated")


def test_hand_order_for_captures_castling_en_passant_promotion() -> None:
    b = chess.Board("4k3/8/8/3pP3/8/8/8/R3K2R w KQ d6 0 1")
    ep = hand_moves(b, b.parse_san("exd6"))
    assert ep == [(chess.E5, None), (chess.D6, "P"), (chess.D5, None)]
    castle = hand_moves(b, b.parse_san("O-O-O"))
    assert castle == [(chess.E1, None), (chess.C1, "K"), (chess.A1, None), (chess.D1, "R")]
    b = chess.Board("r3k3/1P6/8/8/8/8/8/4K3 w - - 0 1")
    promo = hand_moves(b, b.parse_san("bxa8=N"))
    assert promo == [(chess.A8, None), (chess.B7, None), (chess.A8, "N")]


def test_clock_times_follow_clk_comments_with_increment() -> None:
    clocks = [301, 298, 299, 295, 296]
    game = game_of(SPECIAL[:5], clocks, tc="300+2")
    actions = actions_for_game(game)
    assert actions[0] == ClockSetup(0.0, 300.0, 300.0, 2.0)
    board = EmulatedBoard("10001")
    replay(actions, board)
    times = [e for e in board.eeprom.events() if isinstance(e, ClockTime)]
    # The first entry is Black starting White's clock; then one per move, mover's side.
    assert [(e.left, e.seconds) for e in times[1:]] == [
        (True, 301),
        (False, 298),
        (True, 299),
        (False, 295),
        (True, 296),
    ]


def test_base_from_first_clk_without_time_control() -> None:
    actions = actions_for_game(game_of(["e4", "e5"], [3590, 3595]))
    assert actions[0] == ClockSetup(0.0, 3590.0, 3590.0, 0.0)
    presses = [a for a in actions if isinstance(a, LeverPress)]
    assert presses[1].t - presses[0].t == pytest.approx(0.6)  # 0 s spent: the hand minimum


def test_default_think_and_cap() -> None:
    actions = actions_for_game(game_of(["e4", "e5", "Nf3"]), default_think=7.0)
    presses = [a.t for a in actions if isinstance(a, LeverPress)]
    assert [round(b - a, 6) for a, b in itertools.pairwise(presses)] == [7.0] * 3
    capped = actions_for_game(game_of(["e4"], [100]), base=3600.0, max_think=2.0)
    presses = [a.t for a in capped if isinstance(a, LeverPress)]
    assert presses[1] - presses[0] == pytest.approx(2.0)


def test_time_control_parsing() -> None:
    assert parse_time_control("5400+30") == parse_time_control("40/5400+30:1800+30")
    tc = parse_time_control("180")
    assert tc is not None and (tc.base, tc.increment) == (180.0, 0.0)
    assert parse_time_control("?") is None and parse_time_control(None) is None


def test_actions_read_from_pgn_text() -> None:
    pgn = io.StringIO('[TimeControl "60+1"]\n\n1. e4 {[%clk 0:01:00]} e5 {[%clk 0:00:58]} *\n')
    game = chess.pgn.read_game(pgn)
    assert game is not None
    board = EmulatedBoard("10001")
    replay(actions_for_game(game), board)
    times = [e.seconds for e in board.eeprom.events() if isinstance(e, ClockTime)]
    assert times[1:] == [60, 58]


@settings(max_examples=30, deadline=None)
@given(st.randoms(use_true_random=False), st.integers(1, 60))
def test_random_games_replay_to_their_final_position(rnd: object, plies: int) -> None:
    import random

    assert isinstance(rnd, random.Random)
    b = chess.Board()
    sans: list[str] = []
    for _ in range(plies):
        moves = list(b.legal_moves)
        if not moves:
            break
        move = rnd.choice(moves)
        sans.append(b.san(move))
        b.push(move)
    game = game_of(sans)
    board = EmulatedBoard("10001")
    actions = actions_for_game(game, default_think=1.0)
    assert [a.t for a in actions] == sorted(a.t for a in actions)
    replay(actions, board)
    assert board.position == BoardPosition.from_board(b)


class Recorder:
    """An ActionTarget that writes down what it is asked to do."""

    def __init__(self) -> None:
        self.calls: list[tuple[object, ...]] = []

    def set_square(self, index: int, code: int, board: int = 0) -> None:
        self.calls.append(("square", index, code, board))

    def press_lever(self, side: Side, board: int = 0) -> None:
        self.calls.append(("lever", side, board))

    def setup_clock(
        self, left_seconds: float, right_seconds: float, increment: float = 0.0, board: int = 0
    ) -> None:
        self.calls.append(("setup", left_seconds, right_seconds, increment, board))


@dataclass(frozen=True)
class ForeignChange:
    t: float
    index: int
    code: int


@dataclass(frozen=True)
class ForeignLever:
    t: float
    side: str


async def test_play_performs_in_time_order_including_foreign_actions() -> None:
    target = Recorder()
    actions: list[TimedAction] = [
        LeverPress(0.4, "left"),
        ForeignChange(0.2, 52, 0),
        ClockSetup(0.0, 60, 60, 1),
        ForeignLever(0.5, "right"),
        SquareSet(0.3, 36, 1),
    ]
    clock = ScaledTime(speed=20.0)
    start = clock.now()
    await play(target, actions, clock, board=2, speed=20.0)
    assert clock.now() - start >= 0.5
    assert target.calls == [
        ("setup", 60, 60, 1, 2),
        ("square", 52, 0, 2),
        ("square", 36, 1, 2),
        ("lever", "left", 2),
        ("lever", "right", 2),
    ]


def test_unknown_actions_are_refused() -> None:
    @dataclass(frozen=True)
    class Shrug:
        t: float

    with pytest.raises(TypeError, match="cannot perform"):
        perform(Recorder(), Shrug(0.0))


# --- players with human habits -------------------------------------------------------------


def _positions_of(actions: list[Action], board: EmulatedBoard) -> list[tuple[float, BoardPosition]]:
    """Replay on the pure board, noting the position after each square change."""
    seen: list[tuple[float, BoardPosition]] = [(0.0, board.position)]
    for a in sorted(actions, key=lambda a: a.t):
        replay([a], board)
        if isinstance(a, SquareSet) and board.position != seen[-1][1]:
            seen.append((a.t, board.position))
    return seen


@pytest.mark.parametrize("seed", range(6))
def test_human_habits_replay_to_the_game_and_reconstruct_exactly(seed: int) -> None:
    game = game_of(SPECIAL, tc="300+2")
    habits = Habits.realistic()
    actions = human_actions_for_game(game, habits=habits, seed=seed)
    board = EmulatedBoard("10001", seed=seed)
    positions = _positions_of(actions, board)
    final = game.end().board()
    assert board.position in (
        BoardPosition.from_board(final, "normal"),
        BoardPosition.from_board(final, "rotated"),
    )
    # Messier than the tidy hands (slides, j'adoube, capture orders...), yet the same game.
    assert len(positions) > 2 * len(SPECIAL)
    events = drive(Reconstructor(), positions)
    line = GameLine()
    line.extend(events)
    assert line.sans == SPECIAL


def test_human_habits_set_the_clock_and_start_it() -> None:
    actions = human_actions_for_game(game_of(SPECIAL, tc="300+2"), habits=Habits.none(), seed=1)
    setup = [a for a in actions if isinstance(a, ClockSetup)]
    assert setup == [ClockSetup(0.0, 300, 300, 2.0)]
    presses = [a for a in actions if isinstance(a, LeverPress)]
    assert presses[0].side == "right"  # Black starts White's clock
    assert len(presses) == len(SPECIAL) + 1


def test_habits_are_named() -> None:
    assert habits_named("none") is None
    assert habits_named("realistic") == Habits.realistic()
    with pytest.raises(ValueError, match="unknown habits"):
        habits_named("sloppy")  # type: ignore[arg-type]
