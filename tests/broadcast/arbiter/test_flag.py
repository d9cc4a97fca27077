"""Flag fall: loss on time unless the opponent cannot mate by any legal series of moves."""

from __future__ import annotations

import chess
import pytest

from broadcast.arbiter import Alert, RulesConfig
from broadcast.arbiter.flag import blocked_dead, can_checkmate, flag_fall_result
from broadcast.games.game_events import ResultConfirmed, ResultProposed, StartPositionSet
from clocks.move_times import FlagFell
from tests.support.arbiter import SESTAO, engine, gid, moves, start_of


@pytest.mark.parametrize(
    ("fen", "colour", "expected"),
    [
        ("8/8/8/4k3/8/8/8/4K3 w - - 0 1", "white", False),  # bare kings
        ("8/8/8/4k3/8/8/3N4/4K3 w - - 0 1", "white", False),  # K+N v K
        ("8/8/4p3/4k3/8/8/3N4/4K3 w - - 0 1", "white", True),  # K+N v K+P: a helpmate exists
        ("8/8/4r3/4k3/8/8/3N4/4K3 w - - 0 1", "white", True),  # K+N v K+R
        ("8/8/4q3/4k3/8/8/3N4/4K3 w - - 0 1", "white", False),  # K+N v K+Q: the queen never blocks
        ("8/8/8/4k3/8/8/2B5/4K3 w - - 0 1", "white", False),  # K+B v K
        ("8/8/4r3/4k3/8/8/2B5/4K3 w - - 0 1", "white", False),  # K+B v K+R
        ("8/8/4n3/4k3/8/8/2B5/4K3 w - - 0 1", "white", True),  # K+B v K+N
        ("8/8/4p3/4k3/8/8/2B5/4K3 w - - 0 1", "white", True),  # K+B v K+P
        ("8/8/8/4k1b1/8/8/2B5/4K3 w - - 0 1", "white", True),  # opposite bishops: blockers exist
        ("8/8/8/4kb2/8/8/2B5/4K3 w - - 0 1", "white", False),  # same-colour bishops
        ("8/8/8/4k3/8/8/1BB5/4K3 w - - 0 1", "white", True),  # bishop pair
        ("8/8/8/4k3/8/8/1NN5/4K3 w - - 0 1", "white", True),  # two knights (helpmate)
        ("8/8/8/4k3/8/8/2BN4/4K3 w - - 0 1", "white", True),  # B+N
        ("8/8/8/4k3/8/8/4P3/4K3 w - - 0 1", "white", True),  # a pawn
        ("8/8/8/4k3/8/8/4P3/4K3 w - - 0 1", "black", False),  # ...but Black has nothing
    ],
)
def test_can_checkmate_material(fen: str, colour: str, expected: bool) -> None:
    assert can_checkmate(chess.Board(fen), colour) is expected  # type: ignore[arg-type]


BLOCKED = "8/8/1k6/p1p1p1p1/P1P1P1P1/8/3K4/8 w - - 0 1"  # a locked chain, kings apart
TAKEABLE = "8/8/1k6/p1p1p3/P1P1P1p1/8/3K4/8 w - - 0 1"  # g4 can be reached and taken


def test_blocked_pawn_chain_is_dead() -> None:
    board = chess.Board(BLOCKED)
    assert not board.is_insufficient_material()  # material alone says play on
    assert blocked_dead(board)
    assert not can_checkmate(board, "white") and not can_checkmate(board, "black")
    assert flag_fall_result(board, "white")[0] == "1/2-1/2"


def test_chain_with_a_free_or_takeable_pawn_is_not_dead() -> None:
    assert not blocked_dead(chess.Board(TAKEABLE))
    assert not blocked_dead(chess.Board("8/8/1k6/p1p1p3/P1P1P3/8/3K2P1/8 w - - 0 1"))


def test_flag_fall_results() -> None:
    kn_kp = chess.Board("8/8/4p3/4k3/8/8/3N4/4K3 b - - 0 1")
    assert flag_fall_result(kn_kp, "black")[0] == "1-0"  # the K+N side wins on time
    kn_k = chess.Board("8/8/8/4k3/8/8/3N4/4K3 b - - 0 1")
    assert flag_fall_result(kn_k, "black")[0] == "1/2-1/2"
    assert flag_fall_result(chess.Board(), "white")[0] == "0-1"


def test_engine_proposes_loss_on_time_and_applies_when_configured() -> None:
    start = start_of(SESTAO, 1)
    game = gid(SESTAO, 1, 1)
    for mode, confirmed in (("confirm", False), ("apply", True)):
        rules = engine(SESTAO, config=RulesConfig(automatic_results=mode))  # type: ignore[arg-type]
        for e in moves(game, ["e2e4", "e7e5"], start + 5):
            rules.observe(e)
        rules.tick(start + 4999)
        out = rules.observe(FlagFell(start + 5000, "left", "white"), game=game)
        proposals = [e for e in out if isinstance(e, ResultProposed) and e.game == game]
        assert [(p.result, p.reason, p.t) for p in proposals] == [
            ("0-1", "flag-fall", start + 5000)
        ]
        assert bool([e for e in out if isinstance(e, ResultConfirmed)]) is confirmed
        assert rules.observe(FlagFell(start + 5001, "left", "white"), game=game) == []


def test_flag_fall_with_insufficient_opponent_is_a_draw_in_the_engine() -> None:
    start = start_of(SESTAO, 1)
    game = gid(SESTAO, 1, 1)
    rules = engine(SESTAO)
    rules.observe(StartPositionSet(game, "8/8/4p3/4k3/8/8/3N4/4K3 w - - 0 1", start))
    out = rules.observe(FlagFell(start + 100, "right", "black"), game=game)
    assert [(e.result, e.reason) for e in out if isinstance(e, ResultProposed)] == [
        ("1-0", "flag-fall")
    ]
    rules = engine(SESTAO)
    rules.observe(StartPositionSet(game, "8/8/8/4k3/8/8/3N4/4K3 w - - 0 1", start))
    out = rules.observe(FlagFell(start + 100, "right", "black"), game=game)
    # K+N v K is dead already: the position's draw was proposed, the flag adds nothing
    assert [(e.result, e.reason) for e in out if isinstance(e, ResultProposed)] == []
    assert rules.book.get(game).proposal is not None
    assert rules.book.get(game).proposal.reason == "dead-position"  # type: ignore[union-attr]


def test_second_flag_raises_both_flags() -> None:
    start = start_of(SESTAO, 1)
    game = gid(SESTAO, 1, 1)
    rules = engine(SESTAO)
    rules.observe(FlagFell(start + 100, "left", "white"), game=game)
    out = rules.observe(FlagFell(start + 101, "right", "black"), game=game)
    assert [(a.kind, a.severity) for a in out if isinstance(a, Alert)] == [
        ("both-flags", "critical")
    ]


def test_flag_without_a_game_is_ignored() -> None:
    rules = engine(SESTAO)
    assert rules.observe(FlagFell(start_of(SESTAO, 1), "left", "white")) == []
