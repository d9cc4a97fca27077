"""Regression cases from `bench/bench_recovery.py`: games recovered from a board's EEPROM
log (the simulator encodes it) through the product's path, replayed in-process and seeded,
so each case is deterministic. Plus `explain_log` on hand-made logs."""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType

import chess
import pytest

from boards.reconstruction.keys import Key, board_key
from boards.reconstruction.log_explain import explain_log, presser_part
from tests.support.paths import ROOT

BENCH = ROOT / "bench" / "bench_recovery.py"


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_recovery", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("bench_recovery", module)
    spec.loader.exec_module(module)
    return module


def _case(corpus: str, index: int, scenario: str) -> tuple[list[str], list[str], int]:
    bench = _bench()
    path, with_clock = bench.CORPORA[corpus]
    game = bench.read_games(path, index + 1)[index]
    out = bench.run_case(game, index, with_clock, scenario)
    return list(out.got), [m.uci() for m in game.mainline_moves()], int(out.phantoms)


@pytest.mark.parametrize("scenario", ["restart", "first-start"])
def test_log_without_presses_is_explained_position_by_position(scenario: str) -> None:
    # Kasparov #1 (no clock): the log has no presses, and it misses positions (Ne4 before
    # Nxe4, the game's last recorded position at a restart): every move is still recovered.
    got, want, phantoms = _case("kasparov", 1, scenario)
    assert phantoms == 0
    assert got == want


def _keys(board: chess.Board, steps: list[str | None]) -> list[Key]:
    """Keys of the positions after each move (None: the board as it stands, repeated)."""
    board = board.copy()
    keys = []
    for uci in steps:
        if uci is not None:
            board.push_uci(uci)
        keys.append(board_key(board))
    return keys


def test_explain_log_walks_each_logged_position_in_order() -> None:
    board = chess.Board()
    for uci in ["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6"]:
        board.push_uci(uci)
    keys = _keys(board, ["e1g1", None, "f8c5", "d2d3"])
    line, last = explain_log(board, keys)
    assert [m.uci() for m in line] == ["e1g1", "f8c5", "d2d3"]
    assert last == 3


def test_explain_log_skips_a_lifted_piece_and_reaches_two_plies_at_once() -> None:
    board = chess.Board()
    lifted = chess.Board()
    lifted.remove_piece_at(chess.E2)  # the pawn in the hand
    after = chess.Board()
    after.push_uci("e2e4")
    after.push_uci("e7e5")
    keys = [board_key(lifted), board_key(after)]
    line, last = explain_log(board, keys)
    assert [m.uci() for m in line] == ["e2e4", "e7e5"]
    assert last == 1
    assert board == chess.Board()  # left as it was


def test_moves_after_a_flag_fall_without_presses_are_recovered() -> None:
    # World Cup #61: the clock flagged and six plies followed with no press before the
    # restart; the log's positions alone explain them.
    got, want, phantoms = _case("worldcup", 61, "restart")
    assert phantoms == 0
    assert got == want


def test_a_repetition_cycle_after_the_cut_is_kept() -> None:
    # World Cup #59: Kg6 Qc6 Kg7 Qc4 after the cut come back to a position seen before;
    # the four plies are recovered and nothing is invented.
    got, want, phantoms = _case("worldcup", 59, "restart")
    assert phantoms == 0
    assert got == want


def test_a_castling_begun_with_the_rook_is_not_recorded_as_a_rook_move() -> None:
    # Kasparov #39: at the restart the log shows the rook on f1 before the king reaches g1;
    # Rh1-f1 was once recorded from the log and retracted live (a phantom).
    got, want, phantoms = _case("kasparov", 39, "restart")
    assert phantoms == 0
    assert got == want


def test_explain_log_prefers_the_step_that_lets_the_walk_go_on() -> None:
    board = chess.Board()
    for uci in ["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6"]:
        board.push_uci(uci)
    rook_first = board.copy()
    rook_first.remove_piece_at(chess.H1)
    rook_first.set_piece_at(chess.F1, chess.Piece(chess.ROOK, chess.WHITE))
    king_lifted = rook_first.copy()
    king_lifted.remove_piece_at(chess.E1)
    castled = board.copy()
    castled.push_uci("e1g1")
    keys = [board_key(rook_first), board_key(king_lifted), board_key(castled)]
    line, last = explain_log(board, keys)
    assert [m.uci() for m in line] == ["e1g1"]
    assert last == 2


def test_a_reply_begun_before_the_press_waits_for_its_own_press() -> None:
    # World Cup #56 first start: White castles and Black puts the rook on f8 (to castle)
    # before White presses; the press ends White's move only, so O-O O-O is recovered,
    # not O-O Rf8.
    got, want, phantoms = _case("worldcup", 56, "first-start")
    assert phantoms == 0
    assert got == want


def test_presser_part_keeps_the_moves_up_to_the_pressers_last() -> None:
    board = chess.Board()
    line = (chess.Move.from_uci("e2e4"), chess.Move.from_uci("e7e5"))
    assert presser_part(board, line, white=True) == line[:1]
    assert presser_part(board, line, white=False) == line
