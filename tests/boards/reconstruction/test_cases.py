"""Reconstruction on hand-written boards: each real-life failure has its named test."""

from __future__ import annotations

from pathlib import Path

import chess
import chess.pgn
import pytest

from boards.position import BoardPosition
from boards.reconstruction import (
    BackInSync,
    MovePlayed,
    MoveRetracted,
    NewGame,
    OutOfSync,
    ReconstructionConfig,
    Reconstructor,
    ResultSignalled,
    result_of_kings,
)
from boards.reconstruction.drive import drive
from boardsim.humans import Habits
from clocks.reading import ClockReading
from tests.support.reconstruction import Script, replay

GAMES = Path("/work/shared/testdata/games")


def played(events: list[object]) -> list[str]:
    return [e.san for e in events if isinstance(e, MovePlayed)]


def test_clean_moves_are_confirmed_once_stable() -> None:
    s = Script()
    s.move(1.0, "e2", "e4").move(3.0, "e7", "e5").move(5.0, "g1", "f3")
    events, line = s.run()
    assert isinstance(events[0], NewGame)
    assert line.sans == ["e4", "e5", "Nf3"]
    assert all(not isinstance(e, MoveRetracted | OutOfSync) for e in events)


def test_a_move_still_in_the_air_is_not_confirmed() -> None:
    s = Script()
    s.put(1.0, "e2", None)  # pawn lifted, never put down
    _events, line = s.run(until=20.0)
    assert line.sans == []


def test_rotated_board_detected_from_start_position() -> None:
    s = Script(orientation="rotated")
    s.move(1.0, "e2", "e4").move(3.0, "c7", "c5")
    events, line = s.run(Reconstructor(orientation=None))
    new = [e for e in events if isinstance(e, NewGame)]
    assert new and new[0].orientation == "rotated"
    assert line.sans == ["e4", "c5"]


def test_takeback_two_plies_deep() -> None:
    # 1.e4 d5 2.exd5 Qxd5: irreversible moves, so taking two back cannot be moves.
    s = Script()
    s.move(1, "e2", "e4").move(3, "d7", "d5").move(5, "e4", "d5").put(7, "d5", None)
    s.move(7.2, "d8", "d5")
    # Take back Qxd5 and exd5: queen home, white pawn back on e4, black pawn on d5.
    s.move(10, "d5", "d8").put(10.6, "e4", "P").put(10.8, "d5", "p")
    events, line = s.run()
    retracted = [e for e in events if isinstance(e, MoveRetracted)]
    assert len(retracted) == 1 and retracted[0].plies == (3, 4) and retracted[0].ply == 2
    assert line.sans == ["e4", "d5"]


def test_castling_rook_first_is_castling() -> None:
    fen = "r3k2r/pppq1ppp/2npbn2/2b1p3/2B1P3/2NPBN2/PPPQ1PPP/R3K2R w KQkq - 0 1"
    s = Script(fen=fen)
    s.move(1.0, "h1", "f1")  # rook first: Rf1 on its own is a legal move
    s.move(2.2, "e1", "g1")
    events, line = s.run(Reconstructor(start_fen=fen))
    assert line.sans == ["O-O"]
    assert not any(isinstance(e, MoveRetracted) for e in events)


def test_castling_rook_first_with_lever_press_confirms_at_once() -> None:
    fen = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"
    s = Script(fen=fen)
    running = ClockReading(300, 300, True, False)
    s.clock(0.5, running)
    s.move(1.0, "a1", "d1").move(1.6, "e1", "c1")
    s.clock(2.0, ClockReading(298, 300, True, True))
    events, line = s.run(Reconstructor(start_fen=fen))
    assert line.sans == ["O-O-O"]
    move = next(e for e in events if isinstance(e, MovePlayed))
    assert move.evidence == "press" and move.t < 3.0
    assert move.clock is not None and move.clock.remaining == 298


def test_dragged_rook_is_recorded_once_at_its_destination() -> None:
    fen = "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1"
    s = Script(fen=fen)
    s.put(1.0, "a1", None)
    t = 1.0
    for square in ("a2", "a3", "a4", "a5", "a6", "a7"):
        t += 0.1
        s.put(t, square, "R")
        t += 0.3  # rests on each square, shorter than a stable position
        s.put(t, square, None)
    s.put(t + 0.1, "a8", "R")
    events, line = s.run(Reconstructor(start_fen=fen))
    assert line.sans == ["Ra8#"]
    assert not any(isinstance(e, MoveRetracted) for e in events)


def test_capture_recapture_within_half_a_second() -> None:
    # 1.e4 d5 2.exd5 Qxd5 with the recapture landing 0.4 s after the capture.
    s = Script()
    s.move(1, "e2", "e4").move(3, "d7", "d5")
    s.move(5.0, "e4", "d5")  # exd5 lands at 5.3
    s.put(5.45, "d8", None).put(5.7, "d5", "q")  # Qxd5 lands at 5.7
    _events, line = s.run()
    assert line.sans == ["e4", "d5", "exd5", "Qxd5"]


def test_capture_recapture_on_one_square_told_apart_by_what_was_seen() -> None:
    # bxa4 bxa4 and bxc4 bxc4 end in the same placement; the emptied a4 square decides.
    fen = "4k3/8/8/1p6/P1P5/1P6/8/4K3 b - - 0 1"
    s = Script(fen=fen)
    s.put(1.0, "b5", None).put(1.3, "a4", "p")
    s.put(1.6, "a4", None).put(1.8, "b3", None).put(2.0, "a4", "P")
    _events, line = s.run(Reconstructor(start_fen=fen))
    assert line.sans == ["bxa4", "bxa4"]


def test_promotion_to_a_knight() -> None:
    fen = "8/4P1k1/8/8/8/8/6K1/8 w - - 0 1"
    s = Script(fen=fen)
    s.move(1.0, "e7", "e8")  # the pawn is put on the last rank first
    s.put(3.5, "e8", None).put(4.2, "e8", "N")
    events, line = s.run(Reconstructor(start_fen=fen))
    assert line.sans == ["e8=N+"]
    assert not any(isinstance(e, OutOfSync) for e in events)


def test_en_passant_with_the_captured_pawn_removed_last() -> None:
    s = Script()
    for t, (a, b) in enumerate([("e2", "e4"), ("a7", "a6"), ("e4", "e5"), ("d7", "d5")]):
        s.move(1 + 2 * t, a, b)
    s.move(10.0, "e5", "d6").put(11.0, "d5", None)
    _events, line = s.run()
    assert line.sans == ["e4", "a6", "e5", "d5", "exd6"]


def test_magic_pieces_are_ignored() -> None:
    s = Script()
    s.raw(0.5, 35, 0x0D)  # a magic "draw" piece on d4
    s.move(1, "e2", "e4").move(3, "e7", "e5")
    events, line = s.run()
    assert line.sans == ["e4", "e5"]
    assert not any(isinstance(e, OutOfSync) for e in events)


@pytest.mark.parametrize(
    ("white", "black", "result"),
    [("d5", "e4", "1-0"), ("e4", "d5", "1-0"), ("d4", "e5", "0-1"), ("e4", "e5", "1/2-1/2")],
)
def test_result_signal_squares(white: str, black: str, result: str) -> None:
    assert result_of_kings(chess.parse_square(white), chess.parse_square(black)) == result


def test_result_signal_when_the_first_king_step_is_a_legal_move() -> None:
    # White Ke3 -> e4 is legal; then the black king goes to d5: 1-0, and no Ke4 move.
    fen = "8/8/6k1/8/8/4K3/8/8 w - - 0 1"
    s = Script(fen=fen)
    s.move(1.0, "e3", "e4").move(3.0, "g6", "d5")
    events, line = s.run(Reconstructor(start_fen=fen))
    assert line.sans == []
    signals = [e for e in events if isinstance(e, ResultSignalled)]
    assert [x.result for x in signals] == ["1-0"]


def test_last_king_move_to_the_centre_kept_for_the_signal_stays_a_move() -> None:
    # No clock: Ke4 is the game's last move (it stands well past the centre wait), then
    # the black king goes to d5 for the signal: 1-0, and Ke4 stays in the game.
    fen = "8/8/6k1/8/8/4K3/8/8 w - - 0 1"
    s = Script(fen=fen)
    s.move(1.0, "e3", "e4").move(6.0, "g6", "d5")
    _events, line = s.run(Reconstructor(start_fen=fen))
    assert line.sans == ["Ke4"]
    assert line.result == "1-0"


def test_pieces_taken_off_the_signal_squares_are_not_a_capture_and_recapture() -> None:
    # No clock. Taking the queen off e4 and the pawn off d4 reads as ...Qxe5 dxe5; the
    # kings then go to e4 and d4 (1/2-1/2): those two "moves" were the signal set-up.
    fen = "2k5/8/8/4P3/3Pq3/8/8/1K6 b - - 0 1"
    s = Script(fen=fen)
    s.put(1.0, "e4", None).put(1.6, "d4", None)
    s.move(3.0, "b1", "e4").move(4.5, "c8", "d4")
    events, line = s.run(Reconstructor(start_fen=fen))
    assert line.sans == []
    assert line.result == "1/2-1/2"
    assert [e.san for e in events if isinstance(e, MovePlayed)] == ["Qxe5", "dxe5"]


def test_a_real_king_move_to_the_centre_is_recorded_after_the_wait() -> None:
    fen = "8/8/6k1/8/8/4K3/8/8 w - - 0 1"
    s = Script(fen=fen)
    s.move(1.0, "e3", "e4").move(8.0, "g6", "g5")
    _events, line = s.run(Reconstructor(start_fen=fen))
    assert line.sans == ["Ke4", "Kg5"]


def _artifact_games() -> list[chess.pgn.Game]:
    games = []
    with open(GAMES / "worldcup2025-broadcast-artifacts-clk.pgn") as f:
        while (game := chess.pgn.read_game(f)) is not None:
            games.append(game)
    return games


@pytest.mark.parametrize("index", range(6))
@pytest.mark.expected_log(r"illegal san")  # python-chess on the broadcast's illegal moves
def test_phantom_king_move_of_a_result_signal(index: int) -> None:
    """The broadcast published an illegal king move for each of these games: the kings
    being put in the centre. boardwire records the legal game and a result signal."""
    game = _artifact_games()[index]
    moves = list(game.mainline_moves())  # python-chess stops before the illegal move
    clocks = [int(n.clock()) if n.clock() is not None else None for n in game.mainline()]
    habits = Habits(result_signal=1.0, max_think=5.0)
    perf, events, line = replay(
        moves, habits=habits, seed=index, clocks=clocks, result=game.headers["Result"]
    )
    assert line.ucis == [m.uci() for m in moves]
    assert line.result == game.headers["Result"]
    assert perf.result_signal == game.headers["Result"]
    assert not any(isinstance(e, MovePlayed) and e.ply > len(moves) for e in events)


def test_out_of_sync_then_back_with_the_moves_made_meanwhile() -> None:
    s = Script()
    s.move(1, "e2", "e4").move(3, "e7", "e5")
    s.put(5.0, "h8", None)  # a rook knocked off the board
    # Meanwhile 2.Nf3 Nc6 are played; then the rook comes back.
    s.move(9.0, "g1", "f3").move(11.0, "b8", "c6").put(13.0, "h8", "r")
    events, line = s.run()
    out = [e for e in events if isinstance(e, OutOfSync)]
    back = [e for e in events if isinstance(e, BackInSync)]
    assert len(out) == 1 and out[0].since == pytest.approx(5.0)
    assert len(back) == 1 and back[0].out_seconds == pytest.approx(back[0].t - 5.0)
    assert line.sans == ["e4", "e5", "Nf3", "Nc6"]


def test_new_game_when_the_start_position_is_set_up_again() -> None:
    s = Script()
    for i, (a, b) in enumerate([("e2", "e4"), ("e7", "e5"), ("g1", "f3"), ("b8", "c6")]):
        s.move(1 + 2 * i, a, b)
    for i, (sq, sym) in enumerate(
        [("e4", None), ("e2", "P"), ("e5", None), ("e7", "p"), ("f3", None), ("g1", "N")]
    ):
        s.put(20 + 0.3 * i, sq, sym)
    s.put(22.0, "c6", None).put(22.3, "b8", "n")
    s.move(30, "d2", "d4")
    events, line = s.run()
    assert sum(isinstance(e, NewGame) for e in events) == 2
    assert line.sans == ["d4"]


def test_an_early_return_to_the_start_is_a_takeback() -> None:
    s = Script()
    s.move(1, "e2", "e4").move(4, "e4", "e2")
    events, line = s.run()
    assert sum(isinstance(e, NewGame) for e in events) == 1
    assert any(isinstance(e, MoveRetracted) for e in events)
    assert line.sans == []


def test_chess960_castling_rook_first() -> None:
    fen = "1r2k1r1/pppppppp/8/8/8/8/PPPPPPPP/1R2K1R1 w GBgb - 0 1"
    s = Script(fen=fen)
    s.move(1.0, "g1", "f1")  # the rook first: the king's target square is the rook's
    s.move(2.0, "e1", "g1")
    events, line = s.run(Reconstructor(start_fen=fen, chess960=True))
    assert line.sans == ["O-O"]
    assert not any(isinstance(e, MoveRetracted) for e in events)


def test_chess960_start_set_up_is_a_new_game() -> None:
    start = chess.Board.from_chess960_pos(518 - 100)
    s = Script()
    s.move(1, "e2", "e4").move(3, "e7", "e5")
    s.move(5, "g1", "f3").move(7, "b8", "c6")
    s.move(9, "f1", "c4")
    # The arbiter sets up a Chess960 start: the whole board at once.
    s.codes = list(BoardPosition.from_board(start).codes)
    s.items.append((20.0, BoardPosition(tuple(s.codes))))
    events, _line = s.run(Reconstructor(chess960=True))
    games = [e for e in events if isinstance(e, NewGame)]
    assert len(games) == 2 and games[1].chess960
    assert games[1].fen.split()[0] == start.board_fen()


def test_illegal_position_is_never_a_move() -> None:
    s = Script()
    s.move(1, "e2", "e5")  # a pawn jumping three squares
    events, line = s.run(until=30.0)
    assert line.sans == []
    assert any(isinstance(e, OutOfSync) for e in events)


def test_lever_press_confirms_before_the_stable_wait() -> None:
    cfg = ReconstructionConfig(move_stable=5.0)
    s = Script()
    s.clock(0.5, ClockReading(300, 300, True, False))
    s.move(1.0, "e2", "e4")
    s.clock(1.5, ClockReading(299, 300, True, True))
    rec = Reconstructor(config=cfg)
    events = drive(rec, sorted(s.items, key=lambda x: x[0]), until=2.5)
    moves = [e for e in events if isinstance(e, MovePlayed)]
    assert [m.san for m in moves] == ["e4"] and moves[0].evidence == "press"


def test_no_moves_before_any_input() -> None:
    rec = Reconstructor()
    assert rec.tick(100.0) == []
    assert rec.next_deadline() is None
    assert rec.feed_position(0.0, BoardPosition.from_fen(chess.STARTING_FEN)) == []
