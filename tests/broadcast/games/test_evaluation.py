"""How evaluations read (score text, best line in SAN, `[%eval]` in PGN): never raising,
whatever the score, the position or the line an engine (or a corrupt cache) hands over."""

from __future__ import annotations

import re

import chess
from hypothesis import given, settings
from hypothesis import strategies as st

from broadcast.games.evaluation import (
    PV_PLIES,
    Evaluation,
    eval_json,
    evaluable,
    pgn_eval,
    position_key,
    pv_line,
    pv_san,
    score_text,
    white_share,
)

FENS = st.one_of(
    st.sampled_from(
        [
            chess.STARTING_FEN,
            "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1",
            "3r2k1/5ppp/8/8/8/8/5PPP/6K1 b - - 0 61",
            "8/8/8/8/8/8/8/K6k w - - 0 1",
        ]
    ),
    st.text(max_size=90),  # anything at all, as a broken feed could send
)
UCI = st.one_of(
    st.sampled_from(["e2e4", "e7e5", "g1f3", "d1d8", "a7a8q", "0000", "e1g1"]),
    st.text(max_size=6),
)
SANS = st.lists(st.text(min_size=1, max_size=8), max_size=12)


@st.composite
def evaluations(draw: st.DrawFn) -> Evaluation:
    fen = draw(FENS)
    depth = draw(st.integers(min_value=0, max_value=250))
    pv = tuple(draw(SANS))
    if draw(st.booleans()):
        return Evaluation(fen, depth, mate=draw(st.integers(-500, 500)), pv=pv)
    return Evaluation(fen, depth, cp=draw(st.integers(-100_000, 100_000)), pv=pv)


PGN_EVAL = re.compile(r"^\[%eval (#-?\d+|-?\d+\.\d\d)\]$")


@settings(max_examples=300, deadline=None)
@given(evaluations())
def test_formatting_never_raises(ev: Evaluation) -> None:
    text = score_text(ev)
    assert text and " " not in text
    assert PGN_EVAL.match(pgn_eval(ev)), pgn_eval(ev)
    share = white_share(ev)
    assert 0.0 <= share <= 1.0
    if ev.mate is not None and ev.mate > 0:
        assert share == 1.0 and text.startswith("#")
    data = eval_json(ev)
    assert ("cp" in data) != ("mate" in data)
    assert data["pv"] == list(ev.pv)
    assert isinstance(pv_line(ev), str)
    position_key(ev.fen)


@settings(max_examples=300, deadline=None)
@given(FENS, st.lists(UCI, max_size=12), st.integers(min_value=0, max_value=10))
def test_a_line_in_san_never_raises_and_is_legal(fen: str, moves: list[str], plies: int) -> None:
    line = pv_san(fen, moves, plies)
    assert len(line) <= plies
    if line:  # a line at all means the position was readable: replaying it is legal
        board = chess.Board(fen)
        for san in line:
            board.push_san(san)
    evaluable(fen)


def test_the_readings() -> None:
    fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"
    ev = Evaluation(fen, 18, cp=35, pv=("Bb5", "a6", "Ba4"))
    assert (score_text(ev), pgn_eval(ev)) == ("+0.35", "[%eval 0.35]")
    assert pv_line(ev) == "3. Bb5 a6 4. Ba4"
    black = Evaluation(fen.replace(" w ", " b "), 9, cp=-120, pv=("a6", "Ba4"))
    assert (score_text(black), pgn_eval(black)) == ("-1.20", "[%eval -1.20]")
    assert pv_line(black) == "3... a6 4. Ba4"
    mated = Evaluation(fen, 20, mate=-2)
    assert (score_text(mated), pgn_eval(mated), white_share(mated)) == ("#-2", "[%eval #-2]", 0.0)
    assert score_text(Evaluation(fen, 1, cp=0)) == "0.00"
    assert 0.5 < white_share(ev) < 0.6
    assert pv_san(chess.STARTING_FEN, ["e2e4", "e7e5", "e1e2", "zz"], PV_PLIES) == (
        "e4",
        "e5",
        "Ke2",
    )
