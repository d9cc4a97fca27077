"""Reading back a board's EEPROM log after an outage: our place in it, the steps we missed,
and what reconstruction makes of them (crafted logs, as a real board writes them)."""

from __future__ import annotations

import chess

from boards.dgt.eeprom import (
    ClockTime,
    EepromEvent,
    PieceChange,
    Tag,
    TagEvent,
    decode_events,
    decode_ring,
)
from boards.driver_events import LogRecovered
from boards.position import SYMBOL_TO_CODE, BoardPosition, square_to_index
from boards.reconstruction import MoveClocked, MovePlayed, Reconstructor
from boards.recovery import RecentChanges, continued, recover
from clocks.reading import ClockReading

START = BoardPosition.from_fen(chess.STARTING_FEN)
LEFT, RIGHT = True, False  # White is on the left


def sq(name: str) -> int:
    return square_to_index(chess.parse_square(name))


def put(name: str, symbol: str | None) -> PieceChange:
    return PieceChange(sq(name), SYMBOL_TO_CODE[symbol] if symbol else 0)


def move(board: chess.Board, uci: str) -> list[PieceChange]:
    """The records of a clean move: origin emptied, piece placed (victim replaced)."""
    m = chess.Move.from_uci(uci)
    piece = board.piece_at(m.from_square)
    assert piece is not None
    board.push(m)
    return [put(uci[:2], None), put(uci[2:4], piece.symbol())]


def press(white: bool, seconds: int) -> ClockTime:
    return ClockTime(left=white, seconds=seconds)


def after(*ucis: str) -> BoardPosition:
    board = chess.Board()
    for uci in ucis:
        board.push_uci(uci)
    return BoardPosition.from_board(board)


def changes(events: list[EepromEvent]) -> list[tuple[int, int]]:
    return [(e.index, e.code) for e in events if isinstance(e, PieceChange)]


def follow(rec: Reconstructor, got: LogRecovered) -> list[MovePlayed | MoveClocked]:
    positions = [(got.start, ())] + [
        (p, s.presses) for p, s in zip(got.positions(), got.steps, strict=True)
    ]
    out = rec.feed_log(got.t, positions, got.seen + 1) + rec.tick(got.t + 30.0)
    return [e for e in out if isinstance(e, MovePlayed | MoveClocked)]


def opening_log() -> tuple[list[EepromEvent], chess.Board]:
    """Power-up with every piece, the start tag, 1.e4 e5 with their presses."""
    board = chess.Board()
    log: list[EepromEvent] = [TagEvent(Tag.NOP), TagEvent(Tag.POWERUP)]
    log += [PieceChange(i, c) for i, c in enumerate(START.codes) if c]
    log.append(TagEvent(Tag.BEGINPOS))
    log += [*move(board, "e2e4"), press(LEFT, 895), *move(board, "e7e5"), press(RIGHT, 893)]
    return log, board


def test_a_repeated_position_is_not_mistaken_for_our_place() -> None:
    # Nf3 Nf6 Ng1 Ng8 returns to the position we saw last: matching the run of changes
    # seen live places us before them, not after.
    log, board = opening_log()
    seen = changes(log[-6:])
    missed: list[EepromEvent] = []
    for uci, white in (("g1f3", LEFT), ("g8f6", RIGHT), ("f3g1", LEFT), ("f6g8", RIGHT)):
        missed += [*move(board, uci), press(white, 880)]
    got = recover(log + missed, seen, after("e2e4", "e7e5"), 50.0, "10001")
    assert got is not None and got.anchor == "setup" and got.start == START
    fens = [p.board_fen() for p in got.positions()]
    assert fens[got.seen] == after("e2e4", "e7e5").board_fen()
    assert len(got.steps) - got.seen - 1 == 8  # the four knight moves, two records each


def test_the_last_live_change_overwritten_in_the_log_is_read_again() -> None:
    # We saw the e5 pawn lifted (e5 emptied) and nothing more; the board then put it back
    # and the log overwrote that record (e5 emptied -> e5 black pawn), then 2.Nf3.
    log, board = opening_log()
    seen = [*changes(log[-6:-1]), (sq("e5"), 0)]
    missed = [*move(board, "g1f3"), press(LEFT, 880)]
    got = recover(log + missed, seen, after("e2e4", "e7e5").with_piece(sq("e5"), 0), 50.0, "b")
    assert got is not None
    unseen = got.steps[got.seen + 1 :]
    assert unseen[0].changes == ((sq("e5"), SYMBOL_TO_CODE["p"]),)
    assert got.final == after("e2e4", "e7e5", "g1f3")


def test_a_piece_lifted_and_put_back_live_matches_the_one_record_it_left() -> None:
    log, board = opening_log()
    # Live: the g1 knight lifted and put back (two changes); the log keeps one record.
    log.append(put("g1", "N"))
    seen = [*changes(log[-7:-1]), (sq("g1"), 0), (sq("g1"), SYMBOL_TO_CODE["N"])]
    missed = [*move(board, "g1f3"), press(LEFT, 880)]
    got = recover(log + missed, seen, after("e2e4", "e7e5"), 50.0, "b")
    assert got is not None
    assert [s.changes for s in got.steps[got.seen + 1 :]] == [
        ((sq("g1"), 0),),
        ((sq("f3"), SYMBOL_TO_CODE["N"]),),
    ]


def test_without_live_changes_our_last_position_places_us() -> None:
    log, board = opening_log()
    missed = [*move(board, "g1f3"), press(LEFT, 880)]
    got = recover(log + missed, (), after("e2e4", "e7e5"), 50.0, "b")
    assert got is not None
    assert got.positions()[got.seen] == after("e2e4", "e7e5")


def test_an_unplaceable_log_gives_none() -> None:
    assert recover([PieceChange(1, 2)], ((5, 5),) * 6, START, 0.0, "b") is None
    assert recover([PieceChange(1, 2)], (), None, 0.0, "b") is None  # no setup logged


def test_a_ring_that_starts_mid_record_is_decoded_from_the_first_sure_boundary() -> None:
    # Bytes written from the protocol, not by our encoder: the ring begins inside a clock
    # record (minutes 0x45, seconds 0x12 would read as a black-rook... change on a square),
    # then 7F padding, POWERUP, white pawn on e2 (index 0x34), a fast black king on e8
    # (0x04), left clock 1:05:30, BEGINPOS, EOF.
    raw = bytes.fromhex("4512 7f7f7f 6a 4134 5b04 710530 6f 6b")
    events, bad = decode_ring(raw)
    assert events == [
        TagEvent(Tag.POWERUP),
        PieceChange(0x34, 1),
        PieceChange(0x04, 0x0B, fast=True),
        ClockTime(left=True, seconds=3930),
        TagEvent(Tag.BEGINPOS),
    ]
    assert bad == 2
    # Read as an aligned stream, the cut record would have become a phantom change.
    assert decode_events(raw)[0][0] == PieceChange(0x12, 5)


def test_a_piece_passing_over_squares_is_not_a_move() -> None:
    # 2.Bc4 slid from f1 over e2 and d3: the bishop showed on d3 (a legal Bd3) before it
    # landed on c4 and d3 emptied. However long the hand rested there, the log says only
    # "in order": the press after c4 is what completes the move.
    log, board = opening_log()
    slide = [put("f1", None), put("d3", "B"), put("c4", "B"), put("d3", None)]
    board.push_uci("f1c4")
    missed: list[EepromEvent] = [*slide, press(LEFT, 870), *move(board, "g8f6"), press(RIGHT, 860)]
    got = recover(log + missed, changes(log[-6:]), after("e2e4", "e7e5"), 50.0, "b")
    assert got is not None
    rec = Reconstructor()
    rec.resume(["e2e4", "e7e5"])
    out = follow(rec, got)
    played = [e for e in out if isinstance(e, MovePlayed)]
    assert [e.san for e in played] == ["Bc4", "Nf6"]
    assert [e.clock.remaining if e.clock else None for e in played] == [870.0, 860.0]


def test_a_transposed_path_is_never_preferred_over_the_pressed_positions() -> None:
    # 2.Bd3 rests on d3 then goes on to c4 (one move, one press), 2...Nf6: a line through
    # Bd3 needs Bd3 Nf6 Bc4 (three plies) and never shows the pressed position Bc4.
    log, board = opening_log()
    missed: list[EepromEvent] = [put("f1", None), put("d3", "B"), put("d3", None)]
    missed += [put("c4", "B"), press(LEFT, 870)]
    board.push_uci("f1c4")
    missed += [*move(board, "g8f6"), press(RIGHT, 860)]
    got = recover(log + missed, changes(log[-6:]), after("e2e4", "e7e5"), 50.0, "b")
    assert got is not None
    rec = Reconstructor()
    rec.resume(["e2e4", "e7e5"])
    assert [e.san for e in follow(rec, got) if isinstance(e, MovePlayed)] == ["Bc4", "Nf6"]


def test_the_press_already_seen_live_is_not_counted_twice() -> None:
    # 1.e4 was recorded live with its press; we were killed before the press reached us
    # as a change... the log's press after e4 comes back: the move keeps one clock time.
    board = chess.Board()
    log: list[EepromEvent] = [TagEvent(Tag.BEGINPOS), *move(board, "e2e4")]
    seen = changes(log)
    missed: list[EepromEvent] = [press(LEFT, 895), *move(board, "e7e5"), press(RIGHT, 893)]
    got = recover(log + missed, seen, after("e2e4"), 50.0, "b")
    assert got is not None
    rec = Reconstructor()
    rec.resume(["e2e4"])
    out = follow(rec, got)
    assert [(type(e).__name__, e.ply if isinstance(e, MoveClocked) else e.san) for e in out] == [
        ("MoveClocked", 1),
        ("MovePlayed", "e5"),
    ]
    # The same log read again (a second restart) adds nothing.
    again = follow(rec, got)
    assert again == []


def test_positions_seen_before_the_kill_that_were_not_moves_yet_are_replayed() -> None:
    # The journal saw 1...e5 on the board (and then the g1 knight lifted) but reconstruction
    # had recorded only 1.e4: the restarted game resumes from e4 and the log brings e5
    # back, with its press, then Nf3.
    log, board = opening_log()
    log.append(put("g1", None))
    seen = changes(log[-8:])
    missed: list[EepromEvent] = [put("f3", "N"), press(LEFT, 880)]
    board.push_uci("g1f3")
    got = recover(log + missed, seen, after("e2e4", "e7e5").with_piece(sq("g1"), 0), 50.0, "b")
    assert got is not None
    rec = Reconstructor()
    rec.resume(["e2e4"])
    played = [e for e in follow(rec, got) if isinstance(e, MovePlayed)]
    assert [(e.san, e.clock.remaining if e.clock else None) for e in played] == [
        ("e5", 893.0),
        ("Nf3", 880.0),
    ]


def test_a_first_start_mid_round_rebuilds_the_game_from_the_setup() -> None:
    log, board = opening_log()
    log += [*move(board, "g1f3"), press(LEFT, 880)]
    got = recover(log, (), None, 50.0, "b")
    assert got is not None and got.anchor == "setup" and got.seen == -1
    rec = Reconstructor()
    played = [e for e in follow(rec, got) if isinstance(e, MovePlayed)]
    assert [e.san for e in played] == ["e4", "e5", "Nf3"]
    assert all(e.clock is not None for e in played)


def test_a_power_cycle_during_the_outage_is_read_through_its_dump() -> None:
    log, board = opening_log()
    seen = changes(log[-6:])
    missed: list[EepromEvent] = [*move(board, "g1f3"), press(LEFT, 880)]
    missed += [TagEvent(Tag.NOP), TagEvent(Tag.POWERUP)]
    missed += [PieceChange(i, c) for i, c in enumerate(BoardPosition.from_board(board).codes) if c]
    missed += [*move(board, "b8c6"), press(RIGHT, 870)]
    got = recover(log + missed, seen, after("e2e4", "e7e5"), 50.0, "b")
    assert got is not None and got.final == BoardPosition.from_board(board)
    rec = Reconstructor()
    rec.resume(["e2e4", "e7e5"])
    played = [e for e in follow(rec, got) if isinstance(e, MovePlayed)]
    assert [e.san for e in played] == ["Nf3", "Nc6"]


def test_recent_changes_keep_the_live_order() -> None:
    recent = RecentChanges(size=3)
    for change in ((1, 0), (9, 3), (1, 3), (2, 0)):
        recent.add(*change)
    assert recent.as_tuple() == ((9, 3), (1, 3), (2, 0))


def test_a_press_made_while_the_log_was_downloading_is_seen_on_the_clock() -> None:
    # The log ends with 2.Nf3 and White's press; 2...Nc6 and Black's press came while the
    # log was on its way, so only the clock's display tells of that press: White's time
    # runs again, Black's shows what Black has left.
    log, board = opening_log()
    log += [*move(board, "g1f3"), press(LEFT, 880)]
    got = recover(log, changes(log[-8:-3]), after("e2e4", "e7e5"), 50.0, "b")
    assert got is not None
    rec = Reconstructor()
    rec.resume(["e2e4", "e7e5"])
    out = follow(rec, got)
    shown = BoardPosition.from_board(board)
    board.push_uci("b8c6")
    after_reply = BoardPosition.from_board(board)
    out += rec.feed_position(51.0, shown.with_piece(sq("b8"), 0))
    out += rec.feed_position(51.0, after_reply)
    out += rec.feed_clock(51.0, ClockReading(878, 871, running=True, right_lever_high=False))
    out += rec.tick(60.0)
    played = [e for e in out if isinstance(e, MovePlayed)]
    assert [(e.san, e.clock.remaining if e.clock else None) for e in played] == [
        ("Nf3", 880.0),
        ("Nc6", 871.0),
    ]


def test_a_chess960_setup_is_found_by_its_four_rows_tag() -> None:
    # No BEGINPOS for a Chess960 start: the board tags FOURROWS once the pieces are out,
    # and the power-up dump before it says which pieces stand where.
    board = chess.Board.from_chess960_pos(518 - 1)
    setup = BoardPosition.from_board(board)
    log: list[EepromEvent] = [TagEvent(Tag.POWERUP)]
    log += [PieceChange(i, c) for i, c in enumerate(setup.codes) if c]
    log.append(TagEvent(Tag.FOURROWS))
    log += [*move(board, "e2e4"), press(LEFT, 895)]
    got = recover(log, (), None, 50.0, "b")
    assert got is not None and got.anchor == "setup" and got.start == setup
    rec = Reconstructor(start_fen=chess.Board.from_chess960_pos(517).fen(), chess960=True)
    assert [e.san for e in follow(rec, got) if isinstance(e, MovePlayed)] == ["e4"]


def test_what_the_board_sent_while_its_log_downloaded_continues_the_log() -> None:
    # The log ends with 2.Nf3 and its press; while it downloaded, 2...Nc6 3.Bb5 were
    # played and pressed: field updates and clock readings queued behind the download.
    log, board = opening_log()
    log += [*move(board, "g1f3"), press(LEFT, 880)]
    got = recover(log, changes(log[-8:-3]), after("e2e4", "e7e5"), 50.0, "b")
    assert got is not None
    later: list[tuple[int, int] | ClockReading] = [(c.index, c.code) for c in move(board, "b8c6")]
    later.append(ClockReading(880, 871, running=True, right_lever_high=False))
    later += [(c.index, c.code) for c in move(board, "f1b5")]
    later.append(ClockReading(872, 871, running=True, right_lever_high=True))
    got = continued(got, later)
    assert got.final == BoardPosition.from_board(board)
    rec = Reconstructor()
    rec.resume(["e2e4", "e7e5"])
    played = [e for e in follow(rec, got) if isinstance(e, MovePlayed)]
    assert [(e.san, e.clock.remaining if e.clock else None) for e in played] == [
        ("Nf3", 880.0),
        ("Nc6", 871.0),
        ("Bb5", 872.0),
    ]
