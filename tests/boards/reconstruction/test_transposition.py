"""Transposed move orders: the positions seen on the way decide, or nothing is published.

The fixture is a real case: a game resumed after a server restart at ply 20, then seven
positions replayed from the board's EEPROM log (Be3 placed, c7 pawn lifted, c6 placed,
a1 rook lifted, d1 placed, d8 queen lifted, e7 placed) and the same final position live.
`Be3 Qe7 Rad1 c6` reaches that final position too; only the order of the positions seen
says the game went `Be3 c6 Rad1 Qe7`.
"""

from __future__ import annotations

import json
from typing import Any

import chess
import pytest

from boards.position import BoardPosition, Orientation
from boards.reconstruction import (
    BackInSync,
    GameLine,
    MovePlayed,
    NewGame,
    OutOfSync,
    ReconstructionEvent,
    Reconstructor,
)
from boards.reconstruction.keys import codes_key
from boards.reconstruction.search import line_keys, ordered_fit
from tests.support.paths import DATA

FIXTURE = DATA / "resume-recovered-transposition.json"
PLAYED = ["Be3", "c6", "Rad1", "Qe7"]
TRANSPOSED = ["Be3", "Qe7", "Rad1", "c6"]


def _fixture() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(FIXTURE.read_text(encoding="utf-8"))
    return data


def _run(
    resume: list[str],
    feed: list[tuple[float, str, bool]],
    orientation: Orientation = "normal",
    settle: float = 15.0,
) -> tuple[Reconstructor, list[ReconstructionEvent]]:
    rec = Reconstructor()
    rec.resume(resume)
    out: list[ReconstructionEvent] = []
    for t, fen, recovered in feed:
        position = BoardPosition.from_fen(fen, orientation)
        out += rec.feed_position(t, position, recovered=recovered)
    t_end = feed[-1][0]
    k = 1
    while k * 0.5 <= settle:
        out += rec.tick(t_end + k * 0.5)
        k += 1
    return rec, out


def _sans(events: list[ReconstructionEvent]) -> list[str]:
    return [e.san for e in events if isinstance(e, MovePlayed)]


@pytest.mark.parametrize("orientation", ["normal", "rotated"])
def test_recovered_stretch_after_resume_keeps_the_order_the_board_showed(
    orientation: Orientation,
) -> None:
    data = _fixture()
    rec, out = _run(data["resume"], [tuple(item) for item in data["feed"]], orientation)
    assert _sans(out) == PLAYED
    assert [e.ply for e in out if isinstance(e, MovePlayed)] == [21, 22, 23, 24]
    assert not any(isinstance(e, NewGame | OutOfSync) for e in out)
    assert rec.orientation == orientation
    # Each move is stamped with the time its position was first seen in the log.
    times = [e.t for e in out if isinstance(e, MovePlayed)]
    feed_t = [item[0] for item in data["feed"]]
    assert times == [feed_t[0], feed_t[2], feed_t[4], feed_t[6]]
    # A GameLine that knew the resumed moves keeps them (no NewGame wipes them).
    board = chess.Board()
    line = GameLine(fen=chess.STARTING_FEN)
    for uci in data["resume"]:
        move = chess.Move.from_uci(uci)
        line.sans.append(board.san(move))
        line.ucis.append(uci)
        line.clocks.append(None)
        line.times.append(0.0)
        board.push(move)
    line.extend(out)
    assert line.sans[20:] == PLAYED and len(line.sans) == 24


@pytest.mark.parametrize("dwell", [None, 0.3], ids=["as-logged", "blitz"])
def test_same_stretch_seen_live_with_every_intermediate_position(dwell: float | None) -> None:
    # The same positions seen live: with the logged gaps each move is stable on its own;
    # at 0.3 s a position nothing settles until the end, and the chain through all of
    # them (not a deep search of the last one) gives the moves.
    data = _fixture()
    feed = [(t, fen, False) for t, fen, _ in data["feed"]]
    if dwell is not None:
        t0 = feed[0][0]
        feed = [(t0 + i * dwell, fen, False) for i, (_, fen, _) in enumerate(feed[:-1])]
    rec, out = _run(data["resume"], feed)
    assert _sans(out) == PLAYED
    assert not any(isinstance(e, NewGame) for e in out)
    assert rec.in_sync and rec.ply == 24


def test_transposition_with_no_intermediate_evidence_is_not_guessed() -> None:
    # Only the final position is ever seen: both orders fit it equally, so nothing is
    # published; the board goes out of sync and says which lines it cannot tell apart.
    data = _fixture()
    final = data["feed"][-1]
    rec, out = _run(data["resume"], [(final[0], final[1], False)])
    assert _sans(out) == []
    assert rec.ply == 20 and not rec.in_sync
    outs = [e for e in out if isinstance(e, OutOfSync)]
    assert len(outs) == 1
    assert sorted(outs[0].ambiguous) == ["11. Be3 Qe7 12. Rad1 c6", "11. Be3 c6 12. Rad1 Qe7"]
    assert not any(isinstance(e, NewGame) for e in out)
    # Still nothing later, however long the position stands.
    assert _sans(rec.tick(final[0] + 120.0)) == []
    # The players take the moves back to where the game was: back in sync, nothing lost.
    board = chess.Board()
    for uci in data["resume"]:
        board.push_uci(uci)
    t = final[0] + 130.0
    back = rec.feed_position(t, BoardPosition.from_board(board)) + rec.tick(t + 2.0)
    assert any(isinstance(e, BackInSync) for e in back)
    assert _sans(back) == [] and rec.ply == 20


def test_ordered_fit_prefers_the_order_the_positions_were_seen_in() -> None:
    data = _fixture()
    board = chess.Board()
    for uci in data["resume"]:
        board.push_uci(uci)
    # The seven logged positions (the live one repeats the last).
    logged = data["feed"][:-1]
    seen = [codes_key(BoardPosition.from_fen(fen).codes, "normal") for _, fen, _ in logged]
    lines: dict[str, list[str]] = {"played": PLAYED, "transposed": TRANSPOSED}
    scores: dict[str, int] = {}
    for name, sans in lines.items():
        probe = board.copy()
        moves = []
        for san in sans:
            move = probe.parse_san(san)
            moves.append(move)
            probe.push(move)
        scores[name] = ordered_fit(line_keys(board, tuple(moves)), seen)
    assert scores["played"] == len(seen)
    assert scores["transposed"] < scores["played"]
    # Order matters, not just fitting somewhere: seen backwards, only one of them fits.
    probe = board.copy()
    moves = []
    for san in PLAYED:
        moves.append(probe.parse_san(san))
        probe.push(moves[-1])
    assert ordered_fit(line_keys(board, tuple(moves)), seen[::-1]) == 1


def test_resumed_game_is_not_announced_as_new() -> None:
    rec = Reconstructor()
    rec.resume(["e2e4", "e7e5", "g1f3"])
    board = chess.Board()
    for uci in ("e2e4", "e7e5", "g1f3"):
        board.push_uci(uci)
    out = rec.feed_position(10.0, BoardPosition.from_board(board)) + rec.tick(12.0)
    board.push_uci("b8c6")
    out += rec.feed_position(13.0, BoardPosition.from_board(board)) + rec.tick(15.0)
    assert not any(isinstance(e, NewGame) for e in out)
    assert [(e.ply, e.san) for e in out if isinstance(e, MovePlayed)] == [(4, "Nc6")]
