"""The `eboardevent` feed as a pure function (`web.livechess.feed`): what a subscriber is
told from what it was told and the board now. No sockets: views built by hand, and a
hypothesis property over random sequences of reconstruction states."""

from __future__ import annotations

from typing import Any

import chess
from hypothesis import given, settings
from hypothesis import strategies as st

from web.livechess.feed import BoardView, ClockView, feed_steps, placement

START = chess.STARTING_FEN


def view(
    sans: list[str],
    *,
    start: str = START,
    board: str | None = None,
    clock: ClockView | None = None,
    flipped: bool = False,
) -> BoardView:
    position = chess.Board(start)
    line = []
    for san in sans:
        position.push_san(san)
        line.append((san, position.board_fen()))
    shown = position.board_fen() if board is None else board
    return BoardView("10001", flipped, shown, clock, start, tuple(line))


def params(sent: BoardView | None, now: BoardView) -> list[dict[str, Any]]:
    return [s.param for s in feed_steps(sent, now)]


def test_a_new_subscriber_is_told_everything_once() -> None:
    now = view(["e4", "e5"], clock=ClockView(5400, 5395, True, 1))
    (first,) = params(None, now)
    assert first == {
        "serialnr": "10001",
        "flipped": False,
        "board": placement(chess.Board("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR").fen()),
        "clock": {"white": 5400, "black": 5395, "run": True, "time": 1},
        "start": START,
        "san": ["e4", "e5"],
        "match": True,
    }


def test_nothing_changed_says_nothing_and_a_clock_reading_time_alone_is_no_change() -> None:
    a = view(["e4"], clock=ClockView(5400, 5400, True, 1))
    b = view(["e4"], clock=ClockView(5400, 5400, True, 2))
    assert params(a, b) == []


def test_one_move_is_one_message_with_the_new_board_and_clock() -> None:
    a = view(["e4"], clock=ClockView(5400, 5400, True))
    b = view(["e4", "c5"], clock=ClockView(5400, 5390, True))
    (msg,) = params(a, b)
    assert msg["san"] == ["e4", "c5"] and msg["match"] is True
    assert msg["board"] == b.board and msg["clock"]["black"] == 5390


def test_two_moves_at_once_are_two_messages_in_order() -> None:
    a = view(["e4"])
    b = view(["e4", "e5", "Nf3"])
    msgs = params(a, b)
    assert [m["san"] for m in msgs] == [["e4", "e5"], ["e4", "e5", "Nf3"]]
    assert "board" in msgs[0] and "board" not in msgs[1]  # said once, where it changed
    assert [m["match"] for m in msgs] == [False, True]


def test_a_takeback_shrinks_san_in_one_message() -> None:
    msgs = params(view(["e4", "e5", "Nf3"]), view(["e4", "e5"]))
    assert [m["san"] for m in msgs] == [["e4", "e5"]]


def test_a_takeback_and_another_move_is_a_shrink_then_the_move() -> None:
    msgs = params(view(["e4", "e5", "Nf3"]), view(["e4", "e5", "Nc3"]))
    assert [m["san"] for m in msgs] == [["e4", "e5"], ["e4", "e5", "Nc3"]]


def test_castling_is_said_once() -> None:
    line = ["e4", "e5", "Nf3", "Nc6", "Bc4", "Bc5"]
    msgs = params(view(line), view([*line, "O-O"]))
    assert [m["san"][-1] for m in msgs] == ["O-O"]


def test_a_new_start_position_resets_san_before_its_moves() -> None:
    fen960 = chess.Board.from_chess960_pos(518).fen()
    other = "bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w KQkq - 0 1"
    msgs = params(view(["e4"], start=fen960), view(["e4"], start=other))
    assert [(m["start"], m["san"]) for m in msgs] == [(other, []), (other, ["e4"])]


def test_a_board_that_stops_matching_says_so_without_a_move() -> None:
    a = view(["e4"])
    b = view(["e4"], board="8/8/8/8/8/8/8/8")
    (msg,) = params(a, b)
    assert msg["match"] is False and msg["board"] == "8/8/8/8/8/8/8/8" and "clock" not in msg


# -- the property: no sequence of board states makes the feed repeat or skip a move -------------


@st.composite
def games(draw: st.DrawFn) -> list[BoardView]:
    """A sequence of reconstruction states: a line that grows by one or more moves at a
    time, shrinks (takebacks, corrections), gets a new start, with boards that match or
    not and clocks that change or not."""
    states: list[BoardView] = []
    start = START
    line: list[chess.Move] = []
    for _ in range(draw(st.integers(1, 25))):
        action = draw(st.sampled_from(["play", "play", "play", "back", "setup", "same", "noise"]))
        board = chess.Board(start)
        for m in line:
            board.push(m)
        if action == "play":
            for _ in range(draw(st.integers(1, 3))):
                legal = list(board.legal_moves)
                if not legal:
                    break
                move = draw(st.sampled_from(legal))
                board.push(move)
                line.append(move)
        elif action == "back" and line:
            del line[len(line) - draw(st.integers(1, len(line))) :]
        elif action == "setup":
            start = chess.Board.from_chess960_pos(draw(st.integers(0, 959))).fen()
            line = []
        replay = chess.Board(start)
        sans = []
        for m in line:
            sans.append(replay.san(m))
            replay.push(m)
        shown = "8/8/8/8/8/8/8/8" if action == "noise" else None
        clock = ClockView(draw(st.integers(0, 3)), 5, draw(st.sampled_from([True, False, None])))
        states.append(view(sans, start=start, board=shown, clock=clock))
    return states


@given(games())
@settings(max_examples=300, deadline=None)
def test_no_sequence_of_board_states_makes_the_feed_repeat_or_skip_a_move(
    states: list[BoardView],
) -> None:
    sent: BoardView | None = None
    told_start: str | None = None
    told: list[str] = []
    for now in states:
        for msg in params(sent, now):
            san = msg["san"]
            if told_start is None:
                assert san == list(now.san)  # a new subscriber: the whole line at once
            elif msg["start"] != told_start:
                assert san == []  # a new start is said with no moves first
            elif len(san) > len(told):
                assert san == [*told, san[-1]], "one move at a time, after what was told"
            elif len(san) < len(told):
                assert san == told[: len(san)], "a takeback keeps what stands"
            else:
                assert san == told
            told_start, told = msg["start"], san
        sent = now
        # after each state, the subscriber holds exactly the reconstruction
        assert told_start == now.start and told == list(now.san)
