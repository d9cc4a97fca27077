"""The running event in one process: emulated boards, the service, the journal."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path

import chess
import chess.pgn
import pytest

from boards.position import SYMBOL_TO_CODE, square_to_index
from broadcast.cli.simboards import start_simulated_boards
from broadcast.config import load_event
from broadcast.journal.store import Journal
from broadcast.service.event_service import ActionError, EventService
from clocks.timesource import EpochTime
from tests.support import acting
from tests.support.paths import ROOT
from tests.support.service import running_service

EVENT = load_event(ROOT / "examples" / "pamplona-masters.toml")
SAMPLE = ROOT / "examples" / "games" / "worldcup2025-sample.pgn"
SPEED = 20.0


def opening(plies: int) -> chess.pgn.Game:
    with SAMPLE.open(encoding="utf-8") as f:
        game = chess.pgn.read_game(f)
    assert game is not None
    node = game
    for _ in range(plies):
        node = node.variations[0]
    node.variations.clear()
    game.headers["TimeControl"] = "900+10"
    return game


async def wait_for(predicate, timeout: float = 30.0) -> None:  # type: ignore[no-untyped-def]
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        assert loop.time() < deadline, "timed out"
        await asyncio.sleep(0.05)


async def test_a_game_flows_from_the_board_to_the_journal_and_the_delayed_view(
    tmp_path: Path,
) -> None:
    time_source = EpochTime(SPEED)
    game = opening(10)
    played = [m.uci() for m in game.mainline_moves()]
    hall, ports = await start_simulated_boards(EVENT, time_source)
    journal = Journal(tmp_path / "j.sqlite")
    service = EventService(
        EVENT, journal, time_source=time_source, port_overrides=ports, live_round=1, delay=200
    )
    service.load()
    runner = asyncio.ensure_future(service.run())
    try:
        await hall.play(1, game, time_source, speed=SPEED, delay=1.0)
        board1 = "masters-r1-b1"
        await wait_for(lambda: [m.uci for m in service.book.get(board1).moves] == played)
        assert all(m.remaining is not None for m in service.book.get(board1).moves)
        assert service.hall[1].connected and service.hall[1].game == board1
        # The public view is 200 s (of event time) behind: nothing yet...
        assert service.public_state().book.get(board1).ply == 0
        # ...but the pairings are public at once.
        assert 1 in service.public_state().tournament.section("Masters").rounds
        # The arbiter's decisions are journaled with who made them, and reach the tournament.
        with pytest.raises(ActionError, match="result must be one of"):
            acting.set_result(service, board1, "2-0", "arbiter:ana")
        with pytest.raises(ActionError, match="neither legal UCI nor legal SAN"):
            acting.correct_line(service, board1, ["e2e5"], "arbiter:ana")
        acting.set_result(service, board1, "1/2-1/2", "arbiter:ana", "arbiter")
        assert service.book.get(board1).result == "1/2-1/2"
        result = service.tournament.section("Masters").rounds[1].results[1]
        assert result.result == "1/2-1/2"
        await asyncio.sleep(200 / SPEED + 0.5)
        public = service.public_state().book.get(board1)
        assert [m.uci for m in public.moves] == played and public.result == "1/2-1/2"
    finally:
        service.stop()
        await runner
        await hall.stop()
    # A restart rebuilds the same state from the journal alone.
    again = EventService(
        EVENT, Journal(tmp_path / "j.sqlite"), time_source=EpochTime(SPEED), port_overrides=ports
    )
    again.load()
    assert [m.uci for m in again.book.get("masters-r1-b1").moves] == played
    assert again.book.get("masters-r1-b1").result == "1/2-1/2"
    assert again.live_rounds() == {"Masters": 1}


async def test_a_correction_replaces_the_line_and_the_board_follows_from_it(tmp_path: Path) -> None:
    time_source = EpochTime(SPEED)
    game = opening(6)
    hall, ports = await start_simulated_boards(EVENT, time_source)
    try:
        async with running_service(EVENT, tmp_path, time_source, ports) as service:
            await hall.play(2, game, time_source, speed=SPEED, delay=1.0)
            board2 = "masters-r1-b2"
            await wait_for(lambda: service.book.get(board2).ply == 6)
            line = [m.uci for m in service.book.get(board2).moves]
            acting.correct_line(service, board2, line[:4], "arbiter:ana")
            assert [m.uci for m in service.book.get(board2).moves] == line[:4]
            # The board still shows ply 6: the game waits for it to show the corrected
            # position, and the two moves on it are not caught up again.
            corrected = service.book.get(board2)
            assert corrected.awaiting_correction and not corrected.in_sync
            await wait_for(lambda: service.book.get(board2).board_fen is not None)
            await asyncio.sleep(2.0)
            assert [m.uci for m in service.book.get(board2).moves] == line[:4]
            # The arbiter puts the pieces back, one square at a time: the game goes on.
            host, index = hall.where[2]
            want = chess.Board(corrected.fen)
            shown = chess.BaseBoard(service.book.get(board2).board_fen or "")
            for square in chess.SQUARES:
                piece = want.piece_at(square)
                if piece != shown.piece_at(square):
                    code = SYMBOL_TO_CODE[piece.symbol()] if piece else 0
                    host.set_square(square_to_index(square), code, board=index)
            await wait_for(lambda: service.book.get(board2).in_sync)
            assert [m.uci for m in service.book.get(board2).moves] == line[:4]
    finally:
        await hall.stop()


def test_unknown_board_override_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ActionError, match="not in the config"):
        EventService(
            EVENT,
            Journal(tmp_path / "j.sqlite"),
            time_source=EpochTime(),
            port_overrides={99: "/dev/null"},
        )


def test_pgn_of_the_sample_is_readable() -> None:
    assert chess.pgn.read_game(io.StringIO(str(opening(4)))) is not None
