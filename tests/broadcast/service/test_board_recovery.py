"""The service after a restart, or started for the first time mid-round: the boards' logs
fill what it did not see, from the last position the journal saw (not the last move)."""

from __future__ import annotations

from pathlib import Path

import chess
import chess.pgn

from boards.dgt.eeprom import ClockTime, EepromEvent, PieceChange, Tag, TagEvent
from boards.driver_events import BoardConnected, BoardInfo, ClockSeen, DriverEvent, PositionSeen
from boards.position import BoardPosition, square_to_index
from boards.recovery import recover
from broadcast.cli.simboards import start_simulated_boards
from broadcast.config import load_event
from broadcast.journal.store import Journal
from broadcast.service.event_service import EventService
from clocks.reading import ClockReading
from clocks.timesource import EpochTime, ManualTime
from tests.broadcast.service.test_event_service import opening, wait_for
from tests.support.paths import ROOT
from tests.support.service import running_service

EVENT = load_event(ROOT / "examples" / "pamplona-masters.toml")
GAME = "masters-r1-b1"


def position(*ucis: str) -> BoardPosition:
    board = chess.Board()
    for uci in ucis:
        board.push_uci(uci)
    return BoardPosition.from_board(board)


def records(board: chess.Board, uci: str) -> list[PieceChange]:
    move = chess.Move.from_uci(uci)
    before = BoardPosition.from_board(board)
    board.push(move)
    now = BoardPosition.from_board(board)
    frm = square_to_index(move.from_square)
    to = square_to_index(move.to_square)
    return [PieceChange(frm, now.codes[frm]), PieceChange(to, now.codes[to])] + [
        PieceChange(i, c)
        for i, (a, c) in enumerate(zip(before.codes, now.codes, strict=True))
        if a != c and i not in (frm, to)
    ]


def test_a_restart_resumes_from_the_last_position_the_journal_saw(tmp_path: Path) -> None:
    time_source = ManualTime(1_800_000_000.0)
    service = EventService(
        EVENT, Journal(tmp_path / "j.sqlite"), time_source=time_source, live_round=1, delay=0
    )
    service.load()
    port = service.hall[1].config.port
    info = BoardInfo(port, "10001", (1, 0), "single")

    def emit(to: EventService, event: DriverEvent) -> None:
        to.on_driver_event(port, event)

    emit(service, BoardConnected(time_source.now(), "10001", info))
    emit(service, PositionSeen(time_source.now(), "10001", position()))
    board = chess.Board()
    log: list[EepromEvent] = [TagEvent(Tag.POWERUP)]
    log += [PieceChange(i, c) for i, c in enumerate(position().codes) if c]
    log.append(TagEvent(Tag.BEGINPOS))
    time_source.advance(3.0)
    service.tick()
    shown = position()
    # 1.e4 is recorded live; 1...e5 is seen on the board and journaled, then the server is
    # killed before reconstruction has decided on it. Each press is in the board's log.
    for uci, left, seconds, decide in (("e2e4", True, 895, True), ("e7e5", False, 893, False)):
        for change in records(board, uci):
            log.append(change)
            shown = shown.with_piece(change.index, change.code)
            emit(
                service,
                PositionSeen(time_source.now(), "10001", shown, change=(change.index, change.code)),
            )
        log.append(ClockTime(left, seconds))
        if decide:
            time_source.advance(3.0)
            service.tick()
    assert [m.uci for m in service.book.get(GAME).moves] == ["e2e4"]
    # While it is dead: 2.Nf3.
    log += [*records(board, "g1f3"), ClockTime(True, 880)]
    time_source.advance(20.0)

    again = EventService(EVENT, Journal(tmp_path / "j.sqlite"), time_source=time_source, delay=0)
    again.load()
    known = again.known_board("10001")
    assert known is not None and known.position == position("e2e4", "e7e5")
    recovered = recover(log, known.recent, known.position, time_source.now(), "10001")
    assert recovered is not None
    emit(again, BoardConnected(time_source.now(), "10001", info, reconnect=True))
    emit(again, recovered)
    emit(again, PositionSeen(time_source.now(), "10001", BoardPosition.from_board(board)))
    time_source.advance(5.0)
    again.tick()
    moves = again.book.get(GAME).moves
    # (1.e4 has the time the software clock gave it live: this board shows no clock.)
    assert [(m.uci, m.remaining) for m in moves[1:]] == [("e7e5", 893.0), ("g1f3", 880.0)]
    assert moves[0].uci == "e2e4" and moves[0].remaining is not None
    # Read again after a second restart, the same log adds nothing.
    third = EventService(EVENT, Journal(tmp_path / "j.sqlite"), time_source=time_source, delay=0)
    third.load()
    known = third.known_board("10001")
    assert known is not None and known.position == position("e2e4", "e7e5", "g1f3")
    emit(third, BoardConnected(time_source.now(), "10001", info, reconnect=True))
    recovered = recover(log, known.recent, known.position, time_source.now(), "10001")
    assert recovered is not None and recovered.seen == len(recovered.steps) - 1
    seq = third.last_seq
    emit(third, recovered)
    assert [(m.uci, m.remaining) for m in third.book.get(GAME).moves] == [
        (m.uci, m.remaining) for m in moves
    ]
    assert not [e for e in third.journal.read(seq) if type(e.event).__name__.startswith("GameMove")]


def test_a_press_heard_only_after_a_restart_still_clocks_its_move(tmp_path: Path) -> None:
    # A capture station's stream, resent to a restarted serve: the board is not read
    # again (the station never lost it). 1.e4 is on the board but not yet decided when
    # the serve dies; White's press arrives as the first reading the new serve sees, and
    # Black's reply and press follow before any other reading.
    time_source = ManualTime(1_800_000_000.0)

    def service() -> EventService:
        made = EventService(
            EVENT, Journal(tmp_path / "j.sqlite"), time_source=time_source, live_round=1, delay=0
        )
        made.load()
        return made

    first = service()
    port = first.hall[1].config.port
    info = BoardInfo(port, "10001", (1, 0), "single")

    def clock(left: int, right: int, white_running: bool) -> ClockSeen:
        reading = ClockReading(left, right, running=True, right_lever_high=not white_running)
        return ClockSeen(time_source.now(), "10001", reading)

    def shown(*ucis: str) -> PositionSeen:
        return PositionSeen(time_source.now(), "10001", position(*ucis))

    first.on_driver_event(port, BoardConnected(time_source.now(), "10001", info))
    first.on_driver_event(port, shown())
    first.on_driver_event(port, clock(900, 900, white_running=True))
    time_source.advance(6.0)
    first.on_driver_event(port, clock(894, 900, white_running=True))
    first.on_driver_event(port, shown("e2e4"))
    assert first.book.get(GAME).moves == ()

    again = service()
    time_source.advance(0.3)
    again.on_driver_event(port, clock(894, 900, white_running=False))
    time_source.advance(0.7)
    again.on_driver_event(port, shown("e2e4", "e7e5"))
    time_source.advance(0.3)
    again.on_driver_event(port, clock(894, 899, white_running=True))
    time_source.advance(3.0)
    again.tick()
    moves = again.book.get(GAME).moves
    assert [(m.uci, m.remaining) for m in moves] == [("e2e4", 894.0), ("e7e5", 899.0)]


async def test_a_first_start_mid_round_rebuilds_the_game_from_the_boards_log(
    tmp_path: Path,
) -> None:
    speed = 20.0
    time_source = EpochTime(speed)
    game = opening(12)
    played = [m.uci() for m in game.mainline_moves()]
    hall, ports = await start_simulated_boards(EVENT, time_source)
    try:
        # The round is under way before the server ever starts: the game is on the board.
        await hall.play(1, game, time_source, speed=speed, delay=0.0)
        await hall.wait_players()
        async with running_service(EVENT, tmp_path, time_source, ports) as service:
            await wait_for(lambda: [m.uci for m in service.book.get(GAME).moves] == played)
            assert all(m.remaining is not None for m in service.book.get(GAME).moves)
            # Boards that still show the start were not read back: nothing to rebuild.
            assert service.book.get("masters-r1-b2").ply == 0
            assert not [a for a in service.alerts() if a.game == GAME]
    finally:
        await hall.stop()
