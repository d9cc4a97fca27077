"""The arbiter's corrections wait for the board (issue 20): after a corrected line or
start position, the game's board must show the corrected position before anything it
shows is read as a move or a takeback, as a spare board that takes a game over. Through
the service on the Pamplona example, with emulated people at emulated boards (the
helpers of tests/broadcast/service/test_board_replaced.py): a knocked-over piece put back (the same line
again), a ply taken back, an illegal move the arbiter corrects, a corrected line the board
is past, and a restart while waiting."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import chess
import chess.pgn
import pytest
from aiohttp.test_utils import TestClient, TestServer

from boards.driver_events import ClockSeen
from broadcast.games.squares import differing_squares
from broadcast.service.event_service import EventService
from clocks.reading import ClockReading
from clocks.timesource import ManualTime
from tests.broadcast.service.test_board_replaced import (
    BASIC,
    T0,
    feed,
    fen_after,
    played,
    port,
    shows,
    start,
    ucis,
)
from tests.broadcast.service.test_board_replaced import (
    game as game,  # the fixture: a sample game of 40+ plies
)
from tests.support import acting
from tests.support.web_app import CREDENTIALS
from tests.web.test_regulations_pages import _confirmed
from web.app import build_app
from web.hub.server import Hub
from web.json_views import arbiter_game_json

GAME = "masters-r1-b1"
SERIAL = "10001"


def sync_alerts(service: EventService) -> list[str]:
    """The messages of the game's open out-of-sync alerts."""
    return [a.message for a in service.alerts() if a.kind == "out-of-sync" and a.game == GAME]


def ten_plies(
    service: EventService, time_source: ManualTime, game: chess.pgn.Game
) -> list[chess.Move]:
    """Board 1 (DGT 10001) plays the game's first ten plies, with its clock."""
    moves = list(game.mainline_moves())
    feed(
        service, time_source, played(SERIAL, port(service, 1), moves[:10], time_source.now() + 5.0)
    )
    assert ucis(service) == [m.uci() for m in moves[:10]]
    assert service.book.get(GAME).in_sync
    return moves


def knocked(fen: str) -> str:
    """`fen` with a knight (or else a bishop) knocked off its square onto an empty one."""
    board = chess.Board(fen)
    square = next(
        s for s in chess.SQUARES if board.piece_type_at(s) in (chess.KNIGHT, chess.BISHOP)
    )
    empty = next(s for s in chess.SQUARES if board.piece_at(s) is None)
    board.set_piece_at(empty, board.remove_piece_at(square))
    return board.fen()


def after(fen: str, move: chess.Move) -> str:
    board = chess.Board(fen)
    board.push(move)
    return board.fen()


def test_a_knocked_over_piece_put_back_records_nothing_in_between(
    tmp_path: Path, game: chess.pgn.Game
) -> None:
    time_source = ManualTime(T0)
    service = start(tmp_path, time_source)
    moves = ten_plies(service, time_source, game)
    where = port(service, 1)
    fen10, fen9 = fen_after(game, 10), fen_after(game, 9)
    before = service.book.get(GAME).moves
    # A knight is knocked over; the arbiter stops the clock and says the game stands as it
    # is (the same line again): the board must show it before play goes on.
    feed(service, time_source, [shows(SERIAL, where, knocked(fen10), time_source.now() + 1)])
    acting.correct_line(service, GAME, [m.uci() for m in moves[:10]], "arbiter:test")
    waiting = service.book.get(GAME)
    assert waiting.awaiting_board and waiting.awaiting_correction and not waiting.in_sync
    assert waiting.moves == before  # the line and its clock times are untouched
    differ = differing_squares(waiting.fen, waiting.board_fen)
    assert len(differ) == 2
    assert arbiter_game_json(waiting)["differs"] == list(differ)
    feed(service, time_source, [])  # the rules look at it on the next tick: at once
    [message] = sync_alerts(service)
    assert all(square in message for square in differ) and "corrected" in message
    # Putting the pieces back, the board passes through a position one legal move ahead
    # and the position one ply back: neither is a move nor a takeback.
    ahead = after(fen10, moves[10])
    clock = ClockReading(5000, 5100, running=False, right_lever_high=True)
    feed(
        service,
        time_source,
        [
            shows(SERIAL, where, ahead, time_source.now() + 1),
            (where, ClockSeen(time_source.now() + 2, SERIAL, clock)),
            shows(SERIAL, where, fen9, time_source.now() + 3),
        ],
    )
    still = service.book.get(GAME)
    assert still.moves == before and not still.in_sync
    # The board's clock is still the game's while it waits (the arbiter stopped it).
    assert (still.white_clock, still.black_clock) == (5000, 5100)
    # The pieces are right: in sync, the alert closes, and play goes on from there.
    feed(service, time_source, [shows(SERIAL, where, fen10, time_source.now() + 1)])
    assert service.book.get(GAME).in_sync and not service.book.get(GAME).awaiting_board
    assert not sync_alerts(service)
    assert service.book.get(GAME).moves == before
    feed(
        service,
        time_source,
        played(SERIAL, where, moves[10:14], time_source.now() + 3, start_fen=fen10, connect=False),
    )
    assert ucis(service) == [m.uci() for m in moves[:14]]


def test_a_ply_taken_back_records_nothing_while_the_board_is_set_up(
    tmp_path: Path, game: chess.pgn.Game
) -> None:
    """The arbiter takes back ply 10 (the board read a move that was not played): the
    board must show the position after ply 9 before play goes on."""
    time_source = ManualTime(T0)
    service = start(tmp_path, time_source)
    moves = ten_plies(service, time_source, game)
    where = port(service, 1)
    fen9, fen8 = fen_after(game, 9), fen_after(game, 8)
    before = service.book.get(GAME).moves[:9]
    acting.correct_line(service, GAME, [m.uci() for m in moves[:9]], "arbiter:test")
    waiting = service.book.get(GAME)
    assert waiting.awaiting_board and waiting.awaiting_correction and not waiting.in_sync
    assert waiting.moves == before  # the line kept and its clock times untouched
    differ = differing_squares(waiting.fen, waiting.board_fen)
    assert len(differ) == 2
    assert arbiter_game_json(waiting)["differs"] == list(differ)
    feed(service, time_source, [])  # the rules look at it on the next tick: at once
    [message] = sync_alerts(service)
    assert all(square in message for square in differ) and "corrected" in message
    # Putting the pieces back, the board passes through a position one legal move ahead
    # of the corrected one (another move) and one ply back: neither is a move nor a
    # takeback.
    other = next(m for m in chess.Board(fen9).legal_moves if m != moves[9])
    clock = ClockReading(5000, 5100, running=False, right_lever_high=True)
    feed(
        service,
        time_source,
        [
            shows(SERIAL, where, after(fen9, other), time_source.now() + 1),
            (where, ClockSeen(time_source.now() + 2, SERIAL, clock)),
            shows(SERIAL, where, fen8, time_source.now() + 3),
        ],
    )
    still = service.book.get(GAME)
    assert still.moves == before and not still.in_sync
    # The board's clock is still the game's while it waits (the arbiter stopped it).
    assert (still.white_clock, still.black_clock) == (5000, 5100)
    # The pieces are right: in sync, the alert closes, and play goes on from there.
    feed(service, time_source, [shows(SERIAL, where, fen9, time_source.now() + 1)])
    assert service.book.get(GAME).in_sync and not service.book.get(GAME).awaiting_board
    assert not sync_alerts(service)
    assert service.book.get(GAME).moves == before
    feed(
        service,
        time_source,
        played(SERIAL, where, moves[9:13], time_source.now() + 3, start_fen=fen9, connect=False),
    )
    assert ucis(service) == [m.uci() for m in moves[:13]]


def illegal(fen: str) -> str:
    """The position after an illegal move from `fen`: the side to move's king walks two
    squares (or, hemmed in, the board shows its king gone)."""
    board = chess.Board(fen)
    king = board.king(board.turn)
    assert king is not None
    for target in chess.SQUARES:
        if board.piece_at(target) is None and chess.square_distance(king, target) == 2:
            board.set_piece_at(target, board.remove_piece_at(king))
            return board.fen()
    board.remove_piece_at(king)
    return board.fen()


def test_an_illegal_move_the_arbiter_corrects_goes_on_from_the_corrected_position(
    tmp_path: Path, game: chess.pgn.Game
) -> None:
    time_source = ManualTime(T0)
    service = start(tmp_path, time_source)
    moves = ten_plies(service, time_source, game)
    where = port(service, 1)
    fen10 = fen_after(game, 10)
    # Two plies the board read that the arbiter will not accept (the line has 12 plies),
    # then an illegal move on the board: a king walks two squares.
    wrong = next(m for m in chess.Board(fen10).legal_moves if m != moves[10])
    fen_wrong = after(fen10, wrong)
    reply = next(iter(chess.Board(fen_wrong).legal_moves))
    feed(
        service,
        time_source,
        played(
            SERIAL, where, [wrong, reply], time_source.now() + 3, start_fen=fen10, connect=False
        ),
    )
    assert service.book.get(GAME).ply == 12
    feed(
        service,
        time_source,
        [shows(SERIAL, where, illegal(after(fen_wrong, reply)), time_source.now() + 1)],
    )
    feed(service, time_source, [])
    assert not service.book.get(GAME).in_sync
    old_alerts = sync_alerts(service)
    assert old_alerts  # the board has not matched for a while: the usual alert
    # The arbiter restores the position before the irregularity (Laws 7.5): the line is
    # the ten plies. The board is past it: nothing is caught up, the game waits.
    acting.correct_line(service, GAME, [m.uci() for m in moves[:10]], "arbiter:test")
    assert ucis(service) == [m.uci() for m in moves[:10]]
    feed(service, time_source, [])
    state = service.book.get(GAME)
    assert state.ply == 10 and state.awaiting_correction and not state.in_sync
    [message] = sync_alerts(service)
    assert message not in old_alerts  # the old alert closed; this one is about ply 10
    assert "after ply 10" in message
    assert all(s in message for s in differing_squares(state.fen, state.board_fen))
    closed = [
        e.event
        for e in service.journal.read()
        if type(e.event).__name__ == "AlertResolved" and "corrected" in e.event.why
    ]
    assert closed
    # The board shows the old line again on its way back: still nothing recorded.
    feed(
        service, time_source, [shows(SERIAL, where, after(fen_wrong, reply), time_source.now() + 1)]
    )
    feed(service, time_source, [shows(SERIAL, where, fen_wrong, time_source.now() + 1)])
    assert ucis(service) == [m.uci() for m in moves[:10]]
    # Set up right, play goes on with the game's real continuation.
    feed(
        service,
        time_source,
        played(SERIAL, where, moves[10:14], time_source.now() + 3, start_fen=fen10, connect=False),
    )
    assert ucis(service) == [m.uci() for m in moves[:14]]
    assert service.book.get(GAME).in_sync and not sync_alerts(service)


def test_a_correction_the_board_shows_already_goes_on_at_once(
    tmp_path: Path, game: chess.pgn.Game
) -> None:
    time_source = ManualTime(T0)
    service = start(tmp_path, time_source)
    moves = ten_plies(service, time_source, game)
    where = port(service, 1)
    # The arbiter set the board up first (two plies back), then corrects the line.
    feed(service, time_source, [shows(SERIAL, where, fen_after(game, 8), time_source.now() + 1)])
    acting.correct_line(service, GAME, [m.uci() for m in moves[:8]], "arbiter:test")
    state = service.book.get(GAME)
    assert state.in_sync and not state.awaiting_board and state.ply == 8
    feed(service, time_source, [])
    assert not sync_alerts(service)
    feed(
        service,
        time_source,
        played(
            SERIAL,
            where,
            moves[8:12],
            time_source.now() + 3,
            start_fen=fen_after(game, 8),
            connect=False,
        ),
    )
    assert ucis(service) == [m.uci() for m in moves[:12]]


def test_a_start_position_set_waits_for_the_board_to_show_it(
    tmp_path: Path, game: chess.pgn.Game
) -> None:
    time_source = ManualTime(T0)
    service = start(tmp_path, time_source)
    moves = list(game.mainline_moves())
    where = port(service, 1)
    feed(service, time_source, played(SERIAL, where, [], time_source.now() + 5.0))
    # An adjourned game goes on from its sealed position.
    fen = fen_after(game, 20)
    acting.set_start_fen(service, GAME, fen, "arbiter:test")
    assert service.book.get(GAME).awaiting_correction
    # The pieces go up one by one: the start position, then a legal move of it, is no move.
    feed(
        service,
        time_source,
        [shows(SERIAL, where, after(chess.STARTING_FEN, moves[0]), time_source.now() + 1)],
    )
    assert service.book.get(GAME).ply == 0 and not service.book.get(GAME).in_sync
    feed(
        service,
        time_source,
        played(SERIAL, where, moves[20:24], time_source.now() + 3, start_fen=fen, connect=False),
    )
    state = service.book.get(GAME)
    assert state.start_fen == fen and [m.uci for m in state.moves] == [
        m.uci() for m in moves[20:24]
    ]


def test_a_correction_waiting_for_its_board_survives_a_restart(
    tmp_path: Path, game: chess.pgn.Game
) -> None:
    time_source = ManualTime(T0)
    service = start(tmp_path, time_source)
    moves = ten_plies(service, time_source, game)
    where = port(service, 1)
    fen8 = fen_after(game, 8)
    acting.correct_line(service, GAME, [m.uci() for m in moves[:8]], "arbiter:test")
    assert not service.book.get(GAME).in_sync  # the board still shows ply 10
    service.journal.close()
    # `serve` restarted on the same journal: the game still waits for its board.
    again = start(tmp_path, time_source)
    restored = again.book.get(GAME)
    assert restored.awaiting_correction and restored.ply == 8 and again.hall[1].game == GAME
    # The board showing ply 9 (one move on from the corrected position) is no move.
    feed(again, time_source, [shows(SERIAL, where, fen_after(game, 9), time_source.now() + 1)])
    assert again.book.get(GAME).ply == 8
    feed(again, time_source, [])
    [message] = [a.message for a in again.alerts() if a.kind == "out-of-sync" and a.game == GAME]
    assert "after ply 8" in message
    feed(
        again,
        time_source,
        played(SERIAL, where, moves[8:12], time_source.now() + 3, start_fen=fen8, connect=False),
    )
    assert ucis(again) == [m.uci() for m in moves[:12]]
    assert again.book.get(GAME).in_sync and not again.book.get(GAME).awaiting_board
    again.journal.close()
    third = start(tmp_path, time_source)
    assert not third.book.get(GAME).awaiting_board and ucis(third) == [m.uci() for m in moves[:12]]


def test_a_finished_game_corrected_waits_for_no_board(tmp_path: Path, game: chess.pgn.Game) -> None:
    time_source = ManualTime(T0)
    service = start(tmp_path, time_source)
    moves = ten_plies(service, time_source, game)
    acting.set_result(service, GAME, "1-0", "arbiter:test")
    acting.correct_line(service, GAME, [m.uci() for m in moves[:9]], "arbiter:test")
    state = service.book.get(GAME)
    assert state.ply == 9 and not state.awaiting_board and state.in_sync


def desk_messages(hub: Hub, since: int, kind: str) -> list[dict[str, Any]]:
    """The arbiter channel's messages of type `kind` after sequence number `since`."""
    assert hub.arbiter is not None
    out = [json.loads(text) for seq, _, text in hub.arbiter.buffer if seq > since]
    return [m for m in out if m["type"] == kind]


def test_the_desk_socket_follows_the_board_as_it_is_set_up(
    tmp_path: Path, game: chess.pgn.Game
) -> None:
    time_source = ManualTime(T0)
    service = start(tmp_path, time_source)
    moves = ten_plies(service, time_source, game)
    where = port(service, 1)
    hub = Hub(service, service.alerts, in_place=True)
    try:
        assert hub.arbiter is not None
        seq = hub.arbiter.seq
        # Ply 10 taken back: the board (still showing it) must show the position before.
        acting.correct_line(service, GAME, [m.uci() for m in moves[:9]], "arbiter:test")
        hub.pump()
        [first] = desk_messages(hub, seq, "waiting")
        [entry] = first["waiting"]
        assert (entry["game"], entry["board"], entry["why"], entry["ply"]) == (
            GAME,
            1,
            "corrected",
            9,
        )
        taken = moves[9]  # a quiet move: two squares differ, where it left and where it went
        assert entry["must_show"] == fen_after(game, 9)
        assert sorted(entry["differs"]) == sorted(
            chess.square_name(s) for s in (taken.from_square, taken.to_square)
        )
        # One square put right: the list says which one still differs.
        seq = hub.arbiter.seq
        board = chess.Board(fen_after(game, 9))
        half = chess.Board(fen_after(game, 10))
        half.remove_piece_at(taken.to_square)  # the piece is lifted: one square left
        right_square = taken.from_square
        feed(service, time_source, [shows(SERIAL, where, half.fen(), time_source.now() + 1)])
        hub.pump()
        [second] = desk_messages(hub, seq, "waiting")
        assert second["waiting"][0]["differs"] == [chess.square_name(right_square)]
        # Put back: the game is in sync (a sync delta), and the list is empty after it.
        seq = hub.arbiter.seq
        feed(service, time_source, [shows(SERIAL, where, board.fen(), time_source.now() + 1)])
        hub.pump()
        assert [m["in_sync"] for m in desk_messages(hub, seq, "sync")] == [True]
        assert [m["waiting"] for m in desk_messages(hub, seq, "waiting")] == [[]]
        assert not any('"waiting"' in text for _, _, text in hub.public.buffer)
    finally:
        hub.executor.shutdown()


@pytest.fixture
def knocked_over(tmp_path: Path, game: chess.pgn.Game) -> EventService:
    """Ten plies on board 1, then a piece knocked over (fed outside the test's loop)."""
    time_source = ManualTime(T0)
    service = start(tmp_path, time_source)
    ten_plies(service, time_source, game)
    feed(
        service,
        time_source,
        [shows(SERIAL, port(service, 1), knocked(fen_after(game, 10)), time_source.now() + 1)],
    )
    return service


async def test_the_api_says_what_the_corrected_board_must_show(
    knocked_over: EventService, game: chess.pgn.Game
) -> None:
    service = knocked_over
    client = TestClient(TestServer(build_app(service, CREDENTIALS)))
    await client.start_server()
    try:
        line = [m.uci for m in service.book.get(GAME).moves]
        url = f"/api/v1/arbiter/games/{GAME}/line"
        # The same line again: the board must show it before play is read (nothing is
        # removed, so it asks nothing).
        response = await client.post(url, json={"moves": line}, headers=BASIC)
        assert response.status == 200, await response.text()
        answer = await response.json()
        assert answer["awaiting_board"] and answer["awaiting_correction"]
        assert not answer["in_sync"] and answer["ply"] == 10
        assert answer["must_show"] == fen_after(game, 10) and len(answer["differs"]) == 2
        assert answer["action"]["summary"].endswith("must show the game's position again (ply 10)")
        # Ply 10 taken back: it removes a ply, so it is done once confirmed.
        response = await _confirmed(client, url, {"moves": line[:9]})
        assert response.status == 200, await response.text()
        answer = await response.json()
        assert answer["awaiting_board"] and answer["awaiting_correction"]
        assert not answer["in_sync"] and answer["ply"] == 9
        must_show = fen_after(game, 9)
        assert answer["must_show"] == must_show
        shown = knocked(fen_after(game, 10))  # what the board shows: a piece knocked over
        assert answer["differs"] == list(differing_squares(must_show, shown))
        assert len(answer["differs"]) == 4
    finally:
        await client.close()
