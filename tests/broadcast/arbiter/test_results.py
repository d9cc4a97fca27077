"""Automatic results from the position, the clock stopped in a final position, the kings
signal, and the early-draw rule (both sides of each boundary)."""

from __future__ import annotations

import chess

from broadcast.arbiter import Alert, RulesConfig
from broadcast.arbiter.results import early_draw_breach, position_result
from broadcast.config.model import EarlyDrawRule
from broadcast.games.game_events import GameClock, ResultConfirmed, ResultProposed, StartPositionSet
from tests.support.arbiter import SESTAO, engine, gid, kinds, moves, start_of

FOOLS_MATE = ["f2f3", "e7e5", "g2g4", "d8h4"]
KNIGHT_DANCE = ["g1f3", "g8f6", "f3g1", "f6g8"]  # back to the start: one repetition cycle


def test_checkmate_stalemate_dead_from_fen() -> None:
    board = chess.Board()
    for uci in FOOLS_MATE:
        board.push_uci(uci)
    found = position_result(board.fen())
    assert found is not None and (found.result, found.reason) == ("0-1", "checkmate")
    stalemate = position_result("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1")
    assert stalemate is not None and stalemate.reason == "stalemate"
    dead = position_result("8/8/8/4k3/8/8/3N4/4K3 b - - 0 1")
    assert dead is not None and dead.reason == "dead-position"
    assert position_result(chess.STARTING_FEN) is None


def test_fivefold_needs_the_fifth_occurrence() -> None:
    board = chess.Board()
    history = [board.fen()]
    for _ in range(4):
        for uci in KNIGHT_DANCE:
            board.push_uci(uci)
            history.append(board.fen())
    # the start position now stands for the 5th time; with 4 only, nothing
    assert position_result(history[-1], history[1:-1]) is None  # 4 times counted
    found = position_result(history[-1], history[:-1])
    assert found is not None and found.reason == "repetition"


def test_seventy_five_moves_boundary() -> None:
    assert position_result("8/8/8/4k3/8/8/3R4/4K3 w - - 149 120") is None
    found = position_result("8/8/8/4k3/8/8/3R4/4K3 w - - 150 120")
    assert found is not None and found.reason == "75-moves"
    # a mate on the 75th move stands as a mate
    mate = position_result("k7/1Q6/1K6/8/8/8/8/8 b - - 150 120")
    assert mate is not None and mate.reason == "checkmate"


def test_engine_proposes_checkmate_at_the_move() -> None:
    rules = engine(SESTAO)
    game = gid(SESTAO, 1, 1)
    start = start_of(SESTAO, 1)
    out = []
    for e in moves(game, FOOLS_MATE, start + 10):
        out += rules.observe(e)
    proposals = [e for e in out if isinstance(e, ResultProposed)]
    assert [(p.result, p.reason, p.t) for p in proposals] == [("0-1", "checkmate", start + 40)]
    # the clock stopped afterwards: the same final position is not proposed twice
    assert rules.observe(GameClock(game, 5000, 5000, "white", start + 41)) == []
    assert rules.observe(GameClock(game, 5000, 5000, None, start + 42)) == []


def test_engine_fivefold_in_game() -> None:
    rules = engine(SESTAO)
    game = gid(SESTAO, 1, 1)
    out = []
    for e in moves(game, KNIGHT_DANCE * 4, start_of(SESTAO, 1) + 1, step=5):
        out += rules.observe(e)
    assert [(e.result, e.reason) for e in out if isinstance(e, ResultProposed)] == [
        ("1/2-1/2", "repetition")
    ]
    assert kinds(out).count("result-proposed:1/2-1/2:repetition") == 1


def test_clock_stopped_in_final_position_after_a_correction() -> None:
    rules = engine(SESTAO, config=RulesConfig(automatic_results="apply"))
    game = gid(SESTAO, 1, 1)
    start = start_of(SESTAO, 1)
    out = rules.observe(StartPositionSet(game, "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", start + 5))
    assert [(e.result, e.reason) for e in out if isinstance(e, ResultProposed)] == [
        ("1/2-1/2", "stalemate")
    ]
    assert [e.by for e in out if isinstance(e, ResultConfirmed)] == ["rules"]


def test_early_draw_rule_boundaries() -> None:
    rule = EarlyDrawRule(min_moves=30, min_minutes=60)
    # After Black's 29th move (58 plies) the game is at move 29; White's 30th (59) reaches 30.
    assert str(early_draw_breach(rule, plies=58, elapsed_seconds=7200)) == (
        "no draw by agreement before move 30 (now move 29)"
    )
    assert early_draw_breach(rule, plies=59, elapsed_seconds=7200) is None
    assert early_draw_breach(rule, plies=59, elapsed_seconds=3599) is not None
    assert early_draw_breach(rule, plies=60, elapsed_seconds=3599) is not None
    assert early_draw_breach(rule, plies=60, elapsed_seconds=3600) is None
    assert early_draw_breach(None, plies=2, elapsed_seconds=1) is None


def _sample_line(plies: int) -> list[str]:
    import chess.pgn

    from tests.support.arbiter import EXAMPLES

    with (EXAMPLES / "games" / "worldcup2025-sample.pgn").open(encoding="utf-8") as f:
        for _ in range(20):
            game = chess.pgn.read_game(f)
            assert game is not None
            line = [m.uci() for m in game.mainline_moves()]
            if len(line) >= plies:
                return line[:plies]
    raise AssertionError(f"no sample game with {plies} plies")


def _drawn_by_signal(plies: int, seconds: float) -> list[Alert]:
    rules = engine(SESTAO)
    game = gid(SESTAO, 1, 1)
    start = start_of(SESTAO, 1)
    for e in moves(game, _sample_line(plies), start + 1, step=1):
        rules.observe(e)
    out = rules.observe(ResultProposed(game, "1/2-1/2", "kings-signal", start + seconds))
    return [e for e in out if isinstance(e, Alert) and e.game == game and e.kind == "early-draw"]


def test_kings_signal_draw_at_move_12_raises_alert() -> None:
    alerts = _drawn_by_signal(24, 1800)
    assert [(a.kind, a.severity) for a in alerts] == [("early-draw", "warning")]
    assert "move 30" in alerts[0].message


def test_early_draw_both_sides_of_move_30_and_one_hour() -> None:
    assert [a.kind for a in _drawn_by_signal(58, 7200)] == ["early-draw"]  # Black's 29th
    assert _drawn_by_signal(59, 7200) == []  # White's 30th move reaches move 30
    assert [a.kind for a in _drawn_by_signal(60, 3599)] == ["early-draw"]
    assert _drawn_by_signal(60, 3600) == []


def test_agreement_confirmed_by_the_arbiter_is_checked_too() -> None:
    rules = engine(SESTAO)
    game = gid(SESTAO, 1, 1)
    start = start_of(SESTAO, 1)
    for e in moves(game, _sample_line(10), start + 1):
        rules.observe(e)
    out = rules.observe(ResultConfirmed(game, "1/2-1/2", "agreement", start + 600))
    assert [a.kind for a in out if isinstance(a, Alert)] == ["early-draw"]
