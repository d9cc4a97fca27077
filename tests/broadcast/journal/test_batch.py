"""Batched journal appends: one transaction for many appends, durable only at its commit
(which may run in another thread), and the service announces nothing before that."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest

from boards.driver_events import BoardLost
from broadcast.config import load_event
from broadcast.journal.kinds import register_all
from broadcast.journal.store import Journal
from broadcast.service.event_service import EventService
from clocks.timesource import ManualTime
from tests.support.paths import ROOT

EVENT = load_event(ROOT / "examples" / "pamplona-masters.toml")


def lost(n: int) -> BoardLost:
    return BoardLost(float(n), f"{10000 + n:05d}", "test")


def test_appends_in_a_transaction_are_seen_only_after_its_commit(tmp_path: Path) -> None:
    register_all()
    writer, reader = Journal(tmp_path / "j.sqlite"), Journal(tmp_path / "j.sqlite")
    txn = writer.begin()
    assert writer.add(txn, [lost(1)], 1.0) == [1]
    assert writer.add(txn, [lost(2), lost(3)], 2.0) == [2, 3]
    assert reader.last_seq() == 0  # another connection: nothing durable yet
    writer.seal(txn)
    done = threading.Thread(target=writer.commit, args=(txn,))  # as the service does
    done.start()
    done.join()
    assert [e.event for e in reader.read()] == [lost(1), lost(2), lost(3)]
    assert writer.append([lost(4)], 3.0) == [4]  # the lock was given back by the thread


def test_a_failed_transaction_stores_nothing(tmp_path: Path) -> None:
    register_all()
    journal = Journal(tmp_path / "j.sqlite")
    with pytest.raises(RuntimeError), journal.transaction() as txn:
        journal.add(txn, [lost(1)], 1.0)
        raise RuntimeError("boom")
    assert journal.last_seq() == 0
    journal.append([lost(2)], 2.0)
    assert [e.seq for e in journal.read()] == [1]


class GatedJournal(Journal):
    """A journal whose commits wait for the test to open a gate."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.gate = threading.Event()
        self.committed = 0

    def _commit(self) -> None:
        self.gate.wait(30)
        super()._commit()
        self.committed += 1


async def test_board_events_are_announced_only_once_their_batch_is_durable(
    tmp_path: Path,
) -> None:
    journal = GatedJournal(tmp_path / "j.sqlite")
    journal.gate.set()
    service = EventService(EVENT, journal, time_source=ManualTime(1.0e9), live_round=1)
    service.load()  # no loop work: these commits are made in place
    journal.gate.clear()
    heard: list[int] = []
    service.listeners.append(lambda entries: heard.extend(e.seq for e in entries))
    before = service.last_seq
    port = service.hall[1].config.port
    for n in range(5):
        service.queue_driver_event(port, lost(n))
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 30
    while not service.syncing:  # the batch is folded and its commit waits on the disk
        assert loop.time() < deadline
        await asyncio.sleep(0.01)
    assert service.last_seq >= before + 5  # the five, and what the rules raised
    assert heard == [], "announced before it was durable"
    service.queue_driver_event(port, lost(9))  # read meanwhile: waits for the next batch
    journal.gate.set()
    while service.syncing or service.committer._inbox or not heard or heard[-1] < service.last_seq:
        assert loop.time() < deadline
        await asyncio.sleep(0.01)
    assert heard == list(range(before + 1, service.last_seq + 1))
    stored = [e.event for e in journal.read(before) if isinstance(e.event, BoardLost)]
    assert stored == [lost(n) for n in (0, 1, 2, 3, 4, 9)]
    assert journal.committed >= 2
