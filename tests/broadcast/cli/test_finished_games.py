"""A game with a result takes no moves (issue 16, item 6). After a restart of `serve
--sim ... --round 1` on the same journal, the emulated players set the pieces up again
and replayed their games, and those moves went into the finished games (the journal had
`ResultConfirmed`, then `GameMove` ply 1; board 1 fell from 66 plies to 22).

The board of a finished game is not followed, live or after a restart: a reset and a new
game on it are nothing until the pairings give that board another game; and the game
state itself refuses moves after its result, so a journal the old code wrote replays to
the game as it ended."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path

import chess
import chess.pgn

from boards.position import BoardPosition
from broadcast.cli.serve import all_followed
from broadcast.cli.simboards import SimulatedHall, start_simulated_boards
from broadcast.games.game_events import (
    GameMove,
    GameMoveClocked,
    GameTakeback,
    LineCorrected,
    ResultConfirmed,
)
from broadcast.games.game_state import GameState
from broadcast.games.ids import GameKey
from broadcast.journal.store import Journal
from broadcast.service.event_service import EventService
from clocks.timesource import EpochTime
from tests.broadcast.service.test_event_service import EVENT, SAMPLE, SPEED, opening, wait_for
from tests.support import acting
from tests.support.service import running_service
from tests.support.web_app import make_service, play_moves

GAME = "masters-r1-b1"
START = BoardPosition.from_fen(chess.STARTING_FEN).codes


def second_opening(plies: int) -> chess.pgn.Game:
    """Another game of the sample (the players' next game on that board)."""
    with SAMPLE.open(encoding="utf-8") as f:
        chess.pgn.read_game(f)
        game = chess.pgn.read_game(f)
    assert game is not None
    node = game
    for _ in range(plies):
        node = node.variations[0]
    node.variations.clear()
    game.headers["TimeControl"] = "900+10"
    return chess.pgn.read_game(io.StringIO(str(game))) or game


def set_up_again(hall: SimulatedHall, board: int) -> None:
    """The players put the pieces back in the start position."""
    host, index = hall.where[board]
    for square in range(64):
        host.set_square(square, 0, board=index)
    for square, code in enumerate(START):
        if code:
            host.set_square(square, code, board=index)


def after_the_result(service: EventService, game_id: str) -> list[object]:
    """Moves and takebacks the journal holds for `game_id` after its result."""
    entries = [e.event for e in service.journal.read()]
    ended = next(
        i for i, e in enumerate(entries) if isinstance(e, ResultConfirmed) and e.game == game_id
    )
    return [
        e for e in entries[ended:] if isinstance(e, GameMove | GameTakeback) and e.game == game_id
    ]


async def play_next_game_beside_a_witness(
    service: EventService, hall: SimulatedHall, time_source: EpochTime, witness: int
) -> None:
    """Board 1 is set up again and a new game is played on it, and the same game at the
    same pace on the `witness` board, whose game is still being played: once the witness
    has all of it, board 1's moves would have been decided too."""
    set_up_again(hall, 1)
    game = second_opening(4)
    for board in (1, witness):
        await hall.play(board, game, time_source, speed=SPEED, delay=1.0)
    witness_game = GameKey("Masters", 1, witness).id
    line = [m.uci() for m in game.mainline_moves()]
    await wait_for(lambda: [m.uci for m in service.book.get(witness_game).moves] == line)


async def test_a_finished_game_takes_no_moves_when_its_board_is_set_up_again(
    tmp_path: Path,
) -> None:
    time_source = EpochTime(SPEED)
    hall, ports = await start_simulated_boards(EVENT, time_source)
    try:
        async with running_service(EVENT, tmp_path, time_source, ports) as service:
            await hall.play(1, opening(6), time_source, speed=SPEED, delay=1.0)
            await wait_for(lambda: service.book.get(GAME).ply == 6)
            line = [m.uci for m in service.book.get(GAME).moves]
            acting.set_result(service, GAME, "1-0", "arbiter:ana")
            assert service.hall[1].to_game is None and service.hall[1].game == GAME
            await play_next_game_beside_a_witness(service, hall, time_source, witness=2)
            game = service.book.get(GAME)
            assert [m.uci for m in game.moves] == line and game.result == "1-0"
            assert after_the_result(service, GAME) == []
    finally:
        await hall.stop()


async def test_a_finished_game_takes_no_moves_after_a_restart(tmp_path: Path) -> None:
    time_source = EpochTime(SPEED)
    hall, ports = await start_simulated_boards(EVENT, time_source)
    try:
        async with running_service(EVENT, tmp_path, time_source, ports) as service:
            await hall.play(1, opening(6), time_source, speed=SPEED, delay=1.0)
            await wait_for(lambda: service.book.get(GAME).ply == 6)
            line = [m.uci for m in service.book.get(GAME).moves]
            acting.set_result(service, GAME, "0-1", "arbiter:ana")
        # The boards outlive the server; the restarted one reads the same journal.
        async with running_service(
            EVENT, tmp_path, time_source, ports, journal=Journal(tmp_path / "j.sqlite")
        ) as again:
            assert again.book.get(GAME).finished and again.hall[1].to_game is None
            await wait_for(lambda: all_followed(again))  # a finished game's board counts
            await play_next_game_beside_a_witness(again, hall, time_source, witness=3)
            game = again.book.get(GAME)
            assert [m.uci for m in game.moves] == line and game.result == "0-1"
            assert after_the_result(again, GAME) == []
    finally:
        await hall.stop()


def test_the_game_state_refuses_moves_after_its_result() -> None:
    game = GameState(GameKey("Masters", 1, 1), None, None)
    board = chess.Board()
    for ply, san in enumerate(["e4", "e5", "Qh5"], 1):
        move = board.parse_san(san)
        board.push(move)
        game = game.apply(GameMove(game.id, ply, san, move.uci(), board.fen(), float(ply)))
    ended = game.apply(ResultConfirmed(game.id, "1/2-1/2", "agreement", 10.0))
    reset = chess.Board()
    reset.push_uci("d2d4")
    assert ended.apply(GameTakeback(game.id, 0, 11.0)) == ended
    assert ended.apply(GameMove(game.id, 1, "d4", "d2d4", reset.fen(), 12.0)) == ended
    # A clock time for a move it has, and the arbiter's correction, still apply.
    clocked = ended.apply(GameMoveClocked(game.id, 3, 880.0, 20.0, 13.0))
    assert clocked.moves[2].remaining == 880.0
    corrected = ended.apply(LineCorrected(game.id, ("e2e4", "e7e5"), 14.0, by="arbiter"))
    assert corrected.ply == 2 and corrected.result == "1/2-1/2"


def test_a_journal_with_moves_after_a_result_replays_to_the_game_as_it_ended(
    tmp_path: Path,
) -> None:
    """What the old code journaled (ResultConfirmed, then GameMove ply 1) heals on load."""
    service, _ = make_service(tmp_path, delay=0.0)
    play_moves(service, GAME, ["e4", "c5", "Nf3", "d6"])
    acting.set_result(service, GAME, "1-0", "arbiter:ana")
    reset = chess.Board()
    reset.push_uci("d2d4")
    service.commit([GameMove(GAME, 1, "d4", "d2d4", reset.fen(), service.time_source.now())])
    service.journal.close()
    again, _ = make_service(tmp_path, delay=0.0)
    game = again.book.get(GAME)
    assert [m.san for m in game.moves] == ["e4", "c5", "Nf3", "d6"] and game.result == "1-0"
    assert again.hall[1].to_game is None


async def test_the_next_game_the_pairings_give_a_board_is_followed(tmp_path: Path) -> None:
    service, _ = make_service(tmp_path, delay=0.0)
    acting.set_result(service, GAME, "1-0", "arbiter:ana")
    assert service.hall[1].game == GAME and service.hall[1].to_game is None
    # Round 2 becomes live: board 1 carries its game, followed.
    from broadcast.service.hall import utc
    from broadcast.tournament.live_round import RoundStartMoved

    service.commit([RoundStartMoved("Masters", 2, utc(service.time_source.now()))])
    service.attach_boards()
    await asyncio.sleep(0)
    assert service.hall[1].game == GameKey("Masters", 2, 1).id
    assert service.hall[1].to_game is not None
