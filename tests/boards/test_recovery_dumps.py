"""Recovery over the logs every firmware writes: a piece dump as the last anchor (POWERUP or
START_TAG followed by the pieces, with no BEGINPOS after it), a power cycle in the middle
of a game, a log that lost our place; and the properties that make recovery total."""

from __future__ import annotations

import chess
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from boards.dgt.eeprom import (
    ClockTime,
    EepromEvent,
    PieceChange,
    Tag,
    TagEvent,
    decode_ring,
)
from boards.driver_events import LogRecovered
from boards.position import SYMBOL_TO_CODE, BoardPosition, square_to_index
from boards.reconstruction import MovePlayed, Reconstructor
from boards.recovery import (
    continued,
    recover,
    unlogged_since_reboot,
    with_reading_after_reboot,
)
from clocks.reading import ClockReading

START = BoardPosition.from_fen(chess.STARTING_FEN)
LEFT, RIGHT = True, False


def sq(name: str) -> int:
    return square_to_index(chess.parse_square(name))


def dump(position: BoardPosition) -> list[EepromEvent]:
    return [PieceChange(i, c) for i, c in enumerate(position.codes) if c]


def played(board: chess.Board, ucis: list[str], first_left: bool = True) -> list[EepromEvent]:
    """Clean moves with their presses (times counting down from 890)."""
    out: list[EepromEvent] = []
    for n, uci in enumerate(ucis):
        m = chess.Move.from_uci(uci)
        piece = board.piece_at(m.from_square)
        assert piece is not None
        board.push(m)
        out += [
            PieceChange(sq(uci[:2]), 0),
            PieceChange(sq(uci[2:4]), SYMBOL_TO_CODE[piece.symbol()]),
        ]
        white = (n % 2 == 0) == first_left
        out.append(ClockTime(left=white, seconds=890 - n))
    return out


def changes(events: list[EepromEvent]) -> list[tuple[int, int]]:
    return [(e.index, e.code) for e in events if isinstance(e, PieceChange)]


def follow(rec: Reconstructor, got: LogRecovered) -> list[str]:
    positions = [(got.start, ())] + [
        (p, s.presses) for p, s in zip(got.positions(), got.steps, strict=True)
    ]
    out = rec.feed_log(got.t, positions, got.seen + 1) + rec.tick(got.t + 30.0)
    return [e.san for e in out if isinstance(e, MovePlayed)]


HEADS: dict[str, list[EepromEvent]] = {
    # What different firmware writes when switched on with the pieces set up.
    "powerup": [TagEvent(Tag.POWERUP), *dump(START)],
    "powerup+start_tag": [TagEvent(Tag.POWERUP), TagEvent(Tag.START_TAG), *dump(START)],
    "start_tag": [TagEvent(Tag.START_TAG), *dump(START)],
}


@pytest.mark.parametrize("head", sorted(HEADS))
def test_a_dump_as_the_last_anchor_before_our_place_is_read(head: str) -> None:
    # The old `_steps` popped the dump's own step before its first piece: IndexError.
    board = chess.Board()
    log = [*HEADS[head], *played(board, ["e2e4", "e7e5"])]
    seen = changes(log)[-4:]
    missed = played(board, ["g1f3", "b8c6"])
    got = recover(log + missed, seen, BoardPosition.from_board(board), 50.0, "b")
    # The host knew e4 e5: it gets the start of the game from the dump, and the rest.
    known = chess.Board()
    known.push_uci("e2e4")
    known.push_uci("e7e5")
    got = recover(log + missed, seen, BoardPosition.from_board(known), 50.0, "b")
    assert got is not None and got.placed
    assert got.anchor == "setup"  # the dump shows the start: a setup, tagged or not
    assert got.start == START
    assert got.positions()[got.seen] == BoardPosition.from_board(known)
    rec = Reconstructor()
    rec.resume(["e2e4", "e7e5"])
    assert follow(rec, got) == ["Nf3", "Nc6"]


@pytest.mark.parametrize("head", sorted(HEADS))
def test_a_first_start_finds_the_setup_in_an_untagged_dump(head: str) -> None:
    # Without BEGINPOS the old recovery found no setup at all and gave up (None).
    board = chess.Board()
    log = [*HEADS[head], *played(board, ["d2d4", "g8f6", "c2c4"])]
    got = recover(log, (), None, 50.0, "b")
    assert got is not None and got.anchor == "setup" and got.seen == -1
    assert follow(Reconstructor(), got) == ["d4", "Nf6", "c4"]


@pytest.mark.parametrize("tag", [Tag.POWERUP, Tag.WATCHDOG])
def test_a_power_cycle_mid_game_without_a_position_tag_is_read_through(tag: Tag) -> None:
    # The board lost power after 2.Nf3 (or its watchdog reset it) and logged the pieces;
    # no BEGINPOS follows a mid-game dump. Our place is before the reset.
    board = chess.Board()
    log = [TagEvent(Tag.POWERUP), *dump(START), TagEvent(Tag.BEGINPOS)]
    log += played(board, ["e2e4", "e7e5"])
    seen = changes(log)[-4:]
    known = BoardPosition.from_board(board)
    missed = played(board, ["g1f3"])
    missed += [TagEvent(Tag.NOP), TagEvent(tag), *dump(BoardPosition.from_board(board))]
    missed += played(board, ["b8c6", "f1b5"], first_left=False)
    got = recover(log + missed, seen, known, 50.0, "b")
    assert got is not None and got.placed
    rec = Reconstructor()
    rec.resume(["e2e4", "e7e5"])
    assert follow(rec, got) == ["Nf3", "Nc6", "Bb5"]


def test_a_log_that_lost_our_place_starts_from_its_last_dump() -> None:
    # A bus board that rebooted: what it sends from the start tag begins after the reboot,
    # and the changes we saw last are not in it. The host's position, then the dump.
    board = chess.Board()
    played(board, ["e2e4", "e7e5"])
    known = BoardPosition.from_board(board)
    seen = [(sq("e7"), 0), (sq("e5"), SYMBOL_TO_CODE["p"]), (sq("e2"), 0), (sq("e4"), 1)]
    board.push_uci("g1f3")  # while the power was off: not logged
    log = [TagEvent(Tag.POWERUP), TagEvent(Tag.START_TAG), *dump(BoardPosition.from_board(board))]
    log += played(board, ["b8c6"], first_left=False)
    got = recover(log, seen, known, 50.0, "b")
    assert got is not None and not got.placed and got.start == known and got.seen == -1
    assert got.final == BoardPosition.from_board(board)
    rec = Reconstructor()
    rec.resume(["e2e4", "e7e5"])
    assert follow(rec, got) == ["Nf3", "Nc6"]


def test_a_log_with_no_anchor_and_no_place_still_gives_none() -> None:
    assert recover([PieceChange(1, 2)], ((5, 5),) * 6, START, 0.0, "b") is None


# -- totality ------------------------------------------------------------------------------

TOTAL = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

events_st = st.lists(
    st.one_of(
        st.builds(PieceChange, st.integers(0, 63), st.integers(0, 15), st.booleans()),
        st.builds(ClockTime, st.booleans(), st.integers(0, 9 * 3600 + 3599)),
        st.builds(TagEvent, st.sampled_from(list(Tag))),
    ),
    max_size=120,
)
changes_st = st.lists(st.tuples(st.integers(0, 63), st.integers(0, 15)), max_size=60)
position_st = st.one_of(
    st.none(),
    st.just(START),
    st.builds(BoardPosition, st.tuples(*[st.integers(0, 15)] * 64)),
)
reading_st = st.builds(
    ClockReading,
    st.integers(0, 35999),
    st.integers(0, 35999),
    st.booleans(),
    st.booleans(),
)


@st.composite
def game_logs(draw: st.DrawFn) -> tuple[list[EepromEvent], list[str], BoardPosition]:
    """A plausible log (a dump head, random legal moves with presses) with random records
    spliced in; the moves the host knew; the position it last saw."""
    board = chess.Board()
    head = draw(st.sampled_from(sorted(HEADS)))
    log = list(HEADS[head])
    ucis: list[str] = []
    for _ in range(draw(st.integers(0, 12))):
        moves = list(board.legal_moves)
        if not moves:
            break
        ucis.append(draw(st.sampled_from(moves)).uci())
        log += played(board.copy(), [ucis[-1]])  # the records of this one move
        board.push_uci(ucis[-1])
    for _ in range(draw(st.integers(0, 6))):
        at = draw(st.integers(0, len(log)))
        log[at:at] = draw(events_st.map(lambda e: e[:3]))
    known = draw(st.integers(0, len(ucis)))
    replay = chess.Board()
    for uci in ucis[:known]:
        replay.push_uci(uci)
    return log, ucis[:known], BoardPosition.from_board(replay)


def check(got: LogRecovered | None) -> None:
    if got is None:
        return
    assert -1 <= got.seen < max(len(got.steps), 1)
    assert len(got.positions()) == len(got.steps)
    assert got.final is not None
    assert isinstance(unlogged_since_reboot(got), bool)
    for running, right in ((True, False), (True, True), (False, False)):
        again = with_reading_after_reboot(got, ClockReading(100, 200, running, right))
        assert len(again.steps) == len(got.steps) and again.seen == got.seen


@TOTAL
@given(st.binary(max_size=600), changes_st, position_st)
def test_decode_ring_and_recover_never_raise_on_any_bytes(
    raw: bytes, recent: list[tuple[int, int]], last_known: BoardPosition | None
) -> None:
    events, bad = decode_ring(raw)
    assert bad >= 0
    for e in events:
        if isinstance(e, PieceChange):
            assert 0 <= e.index < 64 and 0 <= e.code <= 15
    check(recover(events, recent, last_known, 1.0, "b"))


@TOTAL
@given(
    events_st,
    changes_st,
    position_st,
    st.lists(st.one_of(st.tuples(st.integers(0, 63), st.integers(0, 15)), reading_st), max_size=12),
)
def test_recover_and_continued_never_raise_on_any_events(
    events: list[EepromEvent],
    recent: list[tuple[int, int]],
    last_known: BoardPosition | None,
    later: list[tuple[int, int] | ClockReading],
) -> None:
    got = recover(events, recent, last_known, 1.0, "b")
    check(got)
    if got is not None:
        check(continued(got, later))


@TOTAL
@given(game_logs(), st.integers(0, 60), st.booleans(), st.data())
def test_feed_log_never_raises_on_what_recover_gives(
    case: tuple[list[EepromEvent], list[str], BoardPosition],
    tail: int,
    first_start: bool,
    data: st.DataObject,
) -> None:
    log, known_moves, known = case
    recent = changes(log)[-tail:] if tail else []
    last_known = None if first_start else data.draw(st.one_of(st.just(known), position_st))
    got = recover(log, recent, last_known, 100.0, "b")
    check(got)
    if got is None:
        return
    rec = Reconstructor()
    if not first_start:
        rec.resume(known_moves)
    positions = [(got.start, ())] + [
        (p, s.presses) for p, s in zip(got.positions(), got.steps, strict=True)
    ]
    rec.feed_log(got.t, positions, got.seen + 1)
    rec.tick(got.t + 30.0)
    # A second read of the same log (another restart) is as safe.
    rec.feed_log(got.t + 40.0, positions, data.draw(st.integers(-3, len(positions) + 3)))
    rec.tick(got.t + 80.0)


def test_the_live_stream_runs_on_across_a_watchdog_dump() -> None:
    # A bus board reset by its watchdog: the host saw e5 before the reset and Nf3 after it
    # (its change buffer restarts); the dump between was never a change it saw. The old
    # matcher placed us before Nf3 (the dump broke the run), and the game, which had Nf3
    # already, could not be aligned with the log: bench_recovery worldcup:11 watchdog.
    board = chess.Board()
    log = [TagEvent(Tag.POWERUP), *dump(START), TagEvent(Tag.BEGINPOS)]
    log += played(board, ["e2e4", "e7e5"])
    log += [TagEvent(Tag.WATCHDOG), *dump(BoardPosition.from_board(board))]
    log += played(board, ["g1f3"])
    live = [*changes(log)[32:36], *changes(log)[-2:]]  # e4 e5, then Nf3: no dump
    known = BoardPosition.from_board(board)
    missed = played(board, ["b8c6"], first_left=False)
    got = recover(log + missed, live, known, 50.0, "b")
    assert got is not None and got.placed
    assert got.positions()[got.seen] == known
    rec = Reconstructor()
    rec.resume(["e2e4", "e7e5", "g1f3"])
    assert follow(rec, got) == ["Nc6"]
