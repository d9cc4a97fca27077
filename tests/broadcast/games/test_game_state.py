"""Games folded from events: moves, takebacks, clocks, sync, results, corrections."""

from __future__ import annotations

from dataclasses import replace

import chess
import pytest

from broadcast.config import load_event
from broadcast.fide.berger import berger_round
from broadcast.games.book import GameBook, hall_board_for
from broadcast.games.game_events import (
    BoardAttached,
    BoardReplaced,
    GameClock,
    GameFlag,
    GameMove,
    GameMoveClocked,
    GameSync,
    GameTakeback,
    LineCorrected,
    ProposalWithdrawn,
    ResultConfirmed,
    ResultProposed,
    StartPositionSet,
)
from broadcast.games.game_state import GameError, GameState, PlayerRef
from broadcast.games.ids import GameKey, parse_game_id
from broadcast.tournament.tournament_events import RoundPaired
from broadcast.tournament.tournament_state import fold, registration_events
from tests.support.paths import ROOT

EXAMPLES = ROOT / "examples"
KEY = GameKey("Open A", 3, 12)


def move(game: GameState, ply: int, uci: str, t: float, remaining: float | None = None) -> GameMove:
    board = game.board_now()
    board_moves = board.move_stack
    assert len(board_moves) >= ply - 1
    while len(board.move_stack) > ply - 1:
        board.pop()
    m = chess.Move.from_uci(uci)
    san = board.san(m)
    board.push(m)
    return GameMove(game.id, ply, san, uci, board.fen(), t, remaining)


def play(game: GameState, *ucis: str) -> GameState:
    for i, uci in enumerate(ucis):
        game = game.apply(move(game, game.ply + 1, uci, 100.0 + i))
    return game


def test_ids_round_trip_and_errors() -> None:
    assert KEY.id == "open-a-r3-b12"
    assert parse_game_id(KEY.id, ["Open A", "Open B"]) == KEY
    with pytest.raises(ValueError, match="no section"):
        parse_game_id("rapid-r1-b1", ["Open A"])
    with pytest.raises(ValueError, match="not a game id"):
        parse_game_id("open", ["Open A"])


def test_moves_takebacks_replacements_and_clocks() -> None:
    game = GameState(KEY, PlayerRef(1, "A"), PlayerRef(2, "B"))
    game = play(game, "e2e4", "e7e5", "g1f3")
    assert [m.san for m in game.moves] == ["e4", "e5", "Nf3"]
    game = game.apply(GameMoveClocked(game.id, 3, 5390.0, 12.0, 104.0))
    assert game.moves[2].remaining == 5390.0
    game = game.apply(GameTakeback(game.id, 2, 105.0))
    assert game.ply == 2
    game = game.apply(move(game, 3, "b1c3", 106.0))
    assert [m.san for m in game.moves] == ["e4", "e5", "Nc3"]
    game = game.apply(move(game, 2, "c7c5", 107.0))  # a correction of ply 2 cuts the rest
    assert [m.san for m in game.moves] == ["e4", "c5"]
    with pytest.raises(GameError, match="ply 5"):
        game.apply(GameMove(game.id, 5, "Nf3", "g1f3", "x", 1.0))
    game = game.apply(GameMoveClocked(game.id, 9, 1.0, 1.0, 108.0))  # taken back meanwhile: ignored
    assert game.ply == 2


def test_clock_sync_result_and_board() -> None:
    game = GameState(KEY, None, None).apply(BoardAttached(KEY.id, "10001", 1.0))
    assert game.board == "10001"
    game = game.apply(GameClock(KEY.id, 5400, 5400, "white", 2.0))
    assert game.first_activity is None  # the arbiter starting the clock is not a player
    game = game.apply(GameClock(KEY.id, 5395, 5400, "black", 7.0))
    assert game.first_activity == 7.0  # White pressed
    game = game.apply(GameSync(KEY.id, False, 8.0, fen="8/8/8/8/8/8/8/8"))
    game = game.apply(GameSync(KEY.id, False, 9.0, fen="8/8/8/8/8/8/8/K7"))
    assert not game.in_sync and game.out_since == 8.0 and game.board_fen == "8/8/8/8/8/8/8/K7"
    game = game.apply(GameSync(KEY.id, True, 10.0, out_seconds=2.0))
    assert game.in_sync and game.out_since is None
    proposal = ResultProposed(KEY.id, "1-0", "kings-signal", 11.0)
    game = game.apply(proposal)
    assert game.proposal == proposal and not game.finished
    game = game.apply(ResultConfirmed(KEY.id, "1-0", "kings-signal", 12.0))
    assert game.result == "1-0" and game.proposal is None and game.finished


def test_the_first_flag_counts_while_the_clock_decides() -> None:
    game = GameState(KEY, None, None)
    flagged = game.apply(GameFlag(KEY.id, "black", 5.0)).apply(GameFlag(KEY.id, "white", 6.0))
    assert flagged.flag == "black"
    # A draw signalled with the kings, the clock left running: its flag means nothing.
    signalled = game.apply(ResultProposed(KEY.id, "1/2-1/2", "kings-signal", 4.0))
    assert signalled.apply(GameFlag(KEY.id, "white", 9.0)).flag is None
    decided = game.apply(ResultConfirmed(KEY.id, "1-0", "arbiter", 4.0))
    assert decided.apply(GameFlag(KEY.id, "white", 9.0)).flag is None


def test_the_clocks_stop_with_the_result() -> None:
    """Players who signal a draw and leave the clock running: pages show the clocks as they
    were when the result happened (the signal, not the arbiter's confirmation), not a
    clock ticking down to 0:00:00 on a finished game."""
    game = GameState(KEY, None, None).apply(GameClock(KEY.id, 3000, 2900, "white", 1.0))
    game = game.apply(ResultProposed(KEY.id, "1/2-1/2", "kings-signal", 2.0))
    game = game.apply(GameClock(KEY.id, 2990, 2900, "white", 11.0))
    assert (game.white_clock, game.running) == (3000, None)  # pending: stopped at the signal
    game = game.apply(ResultConfirmed(KEY.id, "1/2-1/2", "kings-signal", 12.0))
    ended = game.apply(GameClock(KEY.id, 0, 2900, "white", 3000.0))
    assert (ended.white_clock, ended.black_clock, ended.running) == (3000, 2900, None)
    # A rejected proposal: the game goes on, and so does its clock.
    going = (
        GameState(KEY, None, None)
        .apply(ResultProposed(KEY.id, "1/2-1/2", "kings-signal", 2.0))
        .apply(ProposalWithdrawn(KEY.id, 3.0, "arbiter:ana"))
        .apply(GameClock(KEY.id, 2980, 2900, "white", 13.0))
    )
    assert (going.white_clock, going.running) == (2980, "white")
    # A game whose clock was first read after its end shows that reading, stopped.
    late = (
        GameState(KEY, None, None)
        .apply(ResultProposed(KEY.id, "1-0", "checkmate", 2.0))
        .apply(GameClock(KEY.id, 2980, 2900, "black", 3.0))
        .apply(GameClock(KEY.id, 2980, 2890, "black", 13.0))
    )
    assert (late.white_clock, late.black_clock, late.running) == (2980, 2900, None)


def test_corrected_line_replaces_everything_and_keeps_clocks_of_unchanged_moves() -> None:
    game = GameState(KEY, None, None)
    game = game.apply(move(game, 1, "e2e4", 1.0, remaining=5400.0))
    game = play(game, "e7e5", "g1f3")
    game = game.apply(LineCorrected(game.id, ("e2e4", "e7e6", "d2d4"), 50.0))
    assert [m.san for m in game.moves] == ["e4", "e6", "d4"]
    assert game.moves[0].remaining == 5400.0 and game.moves[1].remaining is None
    with pytest.raises(GameError, match="illegal"):
        game.apply(LineCorrected(game.id, ("e2e5",), 51.0))


def test_start_position_set() -> None:
    fen = "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"
    game = play(GameState(KEY, None, None), "e2e4").apply(StartPositionSet(KEY.id, fen, 5.0))
    assert game.start_fen == fen and game.ply == 0
    game = play(game, "e2e4")
    assert game.fen.startswith("4k3/8/8/8/4P3")
    with pytest.raises(GameError, match="not a FEN"):
        game.apply(StartPositionSet(KEY.id, "nonsense", 6.0))


def test_book_follows_pairings_of_the_example_event() -> None:
    event = load_event(EXAMPLES / "pamplona-masters.toml")
    state = fold(event, registration_events(event))
    section = event.sections[0].name
    state = state.apply(RoundPaired(section, 1, tuple(berger_round(8, 1)), "berger"))
    book = GameBook().synced(state)
    games = book.round_games(section, 1)
    assert [g.key.board for g in games] == [1, 2, 3, 4]
    assert games[0].white is not None and games[0].white.start == 1 and games[0].black is not None
    assert games[0].black.start == 8
    hall = hall_board_for(event, games[0].key)
    assert hall is not None and hall.number == 1
    book = book.apply(move(games[0], 1, "d2d4", 3.0))
    assert book.get(games[0].id).ply == 1
    assert book.synced(state).get(games[0].id).ply == 1  # re-syncing keeps the moves


def test_a_move_without_clock_gets_the_display_once_the_opponent_runs() -> None:
    from boards.driver_events import ClockSeen
    from boards.position import BoardPosition
    from boards.reconstruction import Reconstructor
    from broadcast.games.from_board import BoardToGame
    from clocks.reading import ClockReading

    reconstructor = Reconstructor()
    reconstructor.resume(["e2e4"])  # as the service does for a game under way
    follower = BoardToGame("10001", KEY.id, reconstructor)
    game = play(GameState(KEY, None, None), "e2e4")  # recorded earlier, no clock time
    after = chess.Board()
    after.push_uci("e2e4")
    follower.seen(BoardPosition.from_board(after))
    out, _ = follower.handle(ClockSeen(50.0, "10001", ClockReading(5410, 5400, True, True)), game)
    clocked = [e for e in out if isinstance(e, GameMoveClocked)]
    assert [(e.ply, e.remaining) for e in clocked] == [(1, 5410.0)]  # White on the left: 1:30:10
    out, _ = follower.handle(ClockSeen(51.0, "10001", ClockReading(5410, 5399, True, False)), game)
    assert not [e for e in out if isinstance(e, GameMoveClocked)]  # White's own time runs: not yet


def test_a_move_timed_by_the_software_clock_gets_the_clocks_own_display() -> None:
    # 1.e4 read from the board's log before any clock reading (a first start): the time
    # control's reckoning (7200+30) stood in. The clock, once read, says what it showed.
    from boards.driver_events import ClockSeen
    from boards.position import BoardPosition
    from boards.reconstruction import Reconstructor
    from broadcast.games.from_board import BoardToGame
    from clocks.reading import ClockReading

    reconstructor = Reconstructor()
    reconstructor.resume(["e2e4"])
    follower = BoardToGame("10001", KEY.id, reconstructor)
    game = GameState(KEY, None, None)
    guessed = replace(move(game, 1, "e2e4", 100.0, 7230.0), spent=0.0, software_clock=True)
    game = game.apply(guessed)
    after = chess.Board()
    after.push_uci("e2e4")
    follower.seen(BoardPosition.from_board(after))
    out, _ = follower.handle(ClockSeen(50.0, "10001", ClockReading(910, 900, True, True)), game)
    clocked = [e for e in out if isinstance(e, GameMoveClocked)]
    assert [(e.ply, e.remaining) for e in clocked] == [(1, 910.0)]
    game = game.apply(clocked[0])
    assert (game.moves[0].remaining, game.moves[0].software_clock) == (910.0, False)
    out, _ = follower.handle(ClockSeen(51.0, "10001", ClockReading(910, 899, True, True)), game)
    assert not [e for e in out if isinstance(e, GameMoveClocked)]  # the clock's time stays


def test_a_game_that_ends_while_its_spare_is_set_up_waits_for_no_board() -> None:
    """A result (a resignation while the arbiter brings the spare) ends the wait: the
    arbiter's JSON and the desk no longer ask for the position to be set up."""
    moved = GameState(KEY, None, None).apply(BoardReplaced(KEY.id, 1, 4, 0, 1.0))
    assert moved.awaiting_board
    ended = moved.apply(ResultConfirmed(KEY.id, "0-1", "resignation", 2.0))
    assert (ended.awaiting_board, ended.awaiting_correction) == (False, False)
