"""A station's outbox (`broadcast.stations.outbox`): numbered in order from 1 per
incarnation, durable once committed, read back after a reopening, pruned of what was
sent, and remembering each board for its driver's restart."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boards.driver_events import BoardConnected, BoardInfo, ClockSeen, PositionSeen
from boards.position import BoardPosition
from boards.recovery import START
from broadcast.journal.kinds import register_all
from broadcast.stations.outbox import Outbox, OutboxBusy, OutboxUnwritable
from clocks.reading import NoClock

register_all()


def _seen(t: float, board: str = "12345", change: tuple[int, int] | None = None) -> PositionSeen:
    return PositionSeen(t, board, START, change=change)


def test_numbers_from_one_and_reads_back_in_order(tmp_path: Path) -> None:
    box = Outbox.open(tmp_path / "o.sqlite")
    inc = box.incarnation
    assert inc.isalnum() and len(inc) >= 8
    assert [box.append("/dev/ttyUSB0", _seen(float(t))) for t in range(3)] == [1, 2, 3]
    assert box.unsent() == []  # staged, not yet durable: nothing to send
    assert box.commit() == 3
    assert [p.seq for p in box.unsent()] == [1, 2, 3]
    assert box.unsent()[1].event == _seen(1.0)
    box.mark_sent(2, at=100.0)
    assert [p.seq for p in box.unsent()] == [3] and box.waiting == 1
    box.close()
    again = Outbox.open(tmp_path / "o.sqlite")
    assert again.incarnation == inc
    assert [p.seq for p in again.unsent()] == [3]
    assert again.append("/dev/ttyUSB0", _seen(9.0)) == 4
    again.close()
    other = Outbox.open(tmp_path / "other.sqlite")
    assert other.incarnation != inc
    other.close()


def test_a_second_process_is_refused(tmp_path: Path) -> None:
    box = Outbox.open(tmp_path / "o.sqlite")
    with pytest.raises(OutboxBusy, match="in use by another process"):
        Outbox.open(tmp_path / "o.sqlite")
    box.close()


def test_prune_forgets_old_sent_events_but_not_the_boards(tmp_path: Path) -> None:
    box = Outbox.open(tmp_path / "o.sqlite")
    info = BoardInfo("/dev/ttyUSB0", "12345", (1, 0), "single")
    box.append("/dev/ttyUSB0", BoardConnected(1.0, "12345", info))
    box.append("/dev/ttyUSB0", _seen(2.0, change=(12, 0)))
    box.append("/dev/ttyUSB0", ClockSeen(3.0, "12345", NoClock()))
    box.commit()
    box.mark_sent(2, at=50.0)
    box.mark_sent(3, at=500.0)
    assert box.prune(sent_before=100.0) == 2
    assert [p.seq for p in box.events()] == [3]
    box.close()
    again = Outbox.open(tmp_path / "o.sqlite")
    assert again.last_seq == 3 and again.waiting == 0
    (known,) = again.known("/dev/ttyUSB0")
    assert known.serial == "12345" and known.position == START
    assert known.recent == ((12, 0),) and known.last_seen == 2.0
    assert again.known("/dev/ttyUSB1") == []
    again.close()


def test_memory_follows_the_boards_log_fold(tmp_path: Path) -> None:
    box = Outbox.open(tmp_path / "o.sqlite")
    info = BoardInfo("/dev/ttyUSB0", "00003", (1, 0), "bus", bus_address=3)
    box.append("/dev/ttyUSB0", BoardConnected(1.0, "00003", info))
    empty = BoardPosition.empty()
    box.append("/dev/ttyUSB0", PositionSeen(2.0, "00003", empty))
    box.append("/dev/ttyUSB0", _seen(3.0, "00003"))  # a dump: differences become changes
    box.commit()
    box.close()
    again = Outbox.open(tmp_path / "o.sqlite")
    (known,) = again.known("/dev/ttyUSB0", 3)
    assert known.position == START and len(known.recent) == 32
    assert again.known("/dev/ttyUSB0", 4) == []
    again.close()


_steps = st.lists(
    st.one_of(
        st.tuples(st.just("append"), st.integers(1, 5)),
        st.tuples(st.just("commit"), st.just(0)),
        st.tuples(st.just("send"), st.integers(1, 4)),
        st.tuples(st.just("reopen"), st.booleans()),  # True: staged events are lost (kill -9)
        st.tuples(st.just("prune"), st.just(0)),
    ),
    max_size=30,
)


@settings(max_examples=40, deadline=None)
@given(_steps)
def test_appends_sends_and_reopenings_keep_order_and_lose_nothing(
    steps: list[tuple[str, int]],
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "o.sqlite"
        box = Outbox.open(path)
        inc = box.incarnation
        committed: list[float] = []  # the events made durable, in order
        staged: list[float] = []
        sent: list[int] = []  # what a receiver got, by number
        t = 0.0
        for step, n in steps:
            if step == "append":
                for _ in range(n):
                    t += 1
                    seq = box.append("p", _seen(t))
                    assert seq == len(committed) + len(staged) + 1
                    staged.append(t)
            elif step == "commit":
                box.commit()
                committed += staged
                staged = []
            elif step == "send":
                batch = box.unsent(n)
                assert [p.seq for p in batch] == list(
                    range(len(sent) + 1, len(sent) + 1 + len(batch))
                )
                assert [p.event.t for p in batch] == committed[len(sent) : len(sent) + len(batch)]
                sent += [p.seq for p in batch]
                if batch:
                    box.mark_sent(batch[-1].seq, at=float(len(sent)))
            elif step == "prune":
                box.prune(sent_before=float(len(sent)))
            else:
                if n:  # killed: only what was committed survives
                    box._db.close()
                    box._lock.close()
                    staged = []
                else:
                    box.close()
                    committed += staged
                    staged = []
                box = Outbox.open(path)
                assert box.incarnation == inc
                assert box.last_seq == len(committed)
        box.commit()
        committed += staged
        rest = box.unsent(10_000)
        sent += [p.seq for p in rest]
        assert sent == list(range(1, len(committed) + 1))
        assert [p.event.t for p in rest] == committed[len(sent) - len(rest) :]
        box.close()


def _fill(box: Outbox) -> None:
    """The outbox's file full, for real: SQLite refuses to grow it (SQLITE_FULL)."""
    db = box._db  # the outbox's own connection: the limit holds for it only
    pages = db.execute("PRAGMA page_count").fetchone()[0]
    db.execute(f"PRAGMA max_page_count = {pages}")


def test_a_full_disk_keeps_the_events_in_order_until_it_can_write(tmp_path: Path) -> None:
    box = Outbox.open(tmp_path / "o.sqlite")
    box.append("/dev/ttyUSB0", _seen(1.0, change=(0, 1)))
    box.commit()
    box.mark_sent(1, at=10.0)
    _fill(box)
    big = [_seen(float(t), change=(t % 64, 2)) for t in range(2, 400)]
    for event in big:
        box.append("/dev/ttyUSB0", event)
    with pytest.raises(OutboxUnwritable, match=r"cannot be written.*full"):
        box.commit()
    assert box.staged == len(big) and box.durable_seq == 1  # kept, nothing half-written
    box.mark_sent(1, at=11.0)  # marks and prunes never fail on a full disk
    assert box.prune(sent_before=1e9) >= 0
    with pytest.raises(OutboxUnwritable):
        box.commit()  # tried again: still full, still kept
    box._db.execute("PRAGMA max_page_count = 1073741823")  # space again
    assert box.commit() == len(big) + 1 and box.staged == 0
    assert [p.event for p in box.unsent(1000)] == big
    # The boards' memory counted each change once, however many attempts it took.
    (known,) = box.known("/dev/ttyUSB0")
    assert list(known.recent) == [(t % 64, 2) for t in range(2, 400)][-len(known.recent) :]
    box.close()
    again = Outbox.open(tmp_path / "o.sqlite")
    assert again.last_seq == len(big) + 1 and again.unsent(1)[0].seq == 2
    again.close()
