"""The commit path: state and journal never disagree, and an acknowledged arbiter action is
never lost.

- A failing step of a board batch (the rules' timers, a rule reacting to a board event, the
  live-round boards) keeps the board events of the batch, in the journal and in the state
  alike, and is logged once and alerted.
- An action is its own transaction, which it waits for: it never rides on a board batch that
  is not synced yet, it is answered only once its rows are durable, and when they cannot be
  (a full disk) the answer is 503 and nothing of it is applied.
- A journal deleted under the running service is noticed, actions are refused, and a copy
  is written through the open connection.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from base64 import b64encode
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer

from boards.driver_events import BoardLost
from broadcast.journal.store import RETRY_MAX, Journal
from broadcast.service.event_service import EventService
from tests.support import acting
from tests.support.web_app import CREDENTIALS, make_service, play_moves
from web.app import build_app
from web.arbiter.actions import Desk

BASIC = {"Authorization": "Basic " + b64encode(":".join(CREDENTIALS).encode()).decode()}
GAME = "masters-r1-b1"


def lost(n: int) -> BoardLost:
    return BoardLost(float(1_766_419_000 + n), f"{10000 + n:05d}", "test")


def stored(journal: Journal, kind: type) -> list[Any]:
    return [e.event for e in journal.read() if isinstance(e.event, kind)]


def folded_again(service: EventService) -> Any:
    """The state a restart would fold from the journal (no snapshot)."""
    from broadcast.service.journal_reader import fold_journal

    reader = Journal(service.journal.path, readonly=True)
    try:
        return fold_journal(reader, service.config)
    finally:
        reader.close()


async def until(condition: Any, seconds: float = 30.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while not condition():
        assert loop.time() < deadline, "timed out"
        await asyncio.sleep(0.01)


def _fill_disk(journal: Journal) -> None:
    pages = journal._db.execute("PRAGMA page_count").fetchone()[0]
    journal._db.execute(f"PRAGMA max_page_count = {pages}")


def _free_disk(journal: Journal) -> None:
    journal._db.execute("PRAGMA max_page_count = 1073741823")


# -- state and journal never diverge (issue 16) -----------------------------------------------


@pytest.mark.expected_log("the arbiter rules.* failed")
async def test_a_failing_rules_tick_keeps_the_board_events_of_its_batch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    service, _ = make_service(tmp_path, delay=0.0)
    port = service.hall[1].config.port
    for n in range(4):  # read now, handled by the tick's batch
        service.queue_driver_event(port, lost(n))

    def broken(now: float) -> list[Any]:
        raise RuntimeError("a rule that breaks")

    monkeypatch.setattr(service.rules, "_tick", broken)  # the rules' own time steps too
    with caplog.at_level(logging.ERROR):
        assert service.tick() is True  # the failure stays inside its step
        await until(lambda: not service.syncing)
        first = [r for r in caplog.records if r.levelno >= logging.ERROR]
        for n in range(4, 6):
            service.queue_driver_event(port, lost(n))
        service.tick()
        await until(lambda: not service.syncing)
    assert stored(service.journal, BoardLost) == [lost(n) for n in range(6)]
    assert folded_again(service) == service.state  # the restart's state is this one
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert errors == first and len(errors) == 2  # each failing place once, with traceback
    assert all(r.exc_info is not None for r in errors)
    assert {r.getMessage().split(" failed")[0] for r in errors} == {
        "the arbiter rules",
        "the arbiter rules' timers",
    }
    faults = [a for a in Desk(service).alerts() if a.id.startswith("system-fault:")]
    assert len(faults) == 2
    assert all(a.severity == "critical" and a.kind == "task-failed" for a in faults)
    assert any("2 time(s)" in a.message for a in faults)
    seq = service.journal.last_seq()
    acting.acknowledge(service, faults[0].id, "arbiter:ana")  # hidden, and nothing journaled
    left = [a.id for a in Desk(service).alerts() if a.id.startswith("system-fault:")]
    assert left == [faults[1].id]
    assert service.journal.last_seq() == seq
    caplog.clear()


@pytest.mark.expected_log("the arbiter rules failed")
def test_a_rule_failing_on_a_board_event_never_undoes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    service, _ = make_service(tmp_path, delay=0.0)
    real = service.rules.observe

    def observe(event: Any, state: Any, *, game: str | None = None) -> list[Any]:
        if type(event).__name__ == "GameMove":
            raise ValueError("a rule that breaks on moves")
        return real(event, state, game=game)

    monkeypatch.setattr(service.rules, "observe", observe)
    with caplog.at_level(logging.ERROR):
        play_moves(service, GAME, ["e4", "e5"])
        play_moves(service, GAME, ["Nf3"])
    assert service.book.get(GAME).ply == 3
    moves = [e.event.san for e in service.journal.read() if type(e.event).__name__ == "GameMove"]
    assert moves == ["e4", "e5", "Nf3"]
    assert folded_again(service) == service.state
    assert len([r for r in caplog.records if r.levelno >= logging.ERROR]) == 1
    caplog.clear()


def test_an_action_that_fails_half_way_applies_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Pairing a round commits the pairing, then points the boards at its games: when the
    second part breaks, the first is not left behind (in the state or the journal)."""
    service, _ = make_service(tmp_path, delay=0.0)
    tournament, book = service.tournament, service.book
    seq = service.journal.last_seq()

    def broken() -> None:
        raise RuntimeError("attaching broke")

    monkeypatch.setattr(service, "attach_boards", broken)
    pairings = service.tournament.section("Masters").rounds[2].pairings
    swapped = tuple(replace(p, white=p.black, black=p.white) for p in pairings if p.black)
    with pytest.raises(RuntimeError, match="attaching broke"):
        acting.publish_pairings(service, "Masters", 2, swapped, "arbiter", "ana")
    assert service.journal.last_seq() == seq
    assert service.tournament == tournament and service.book == book
    assert service.rules.tournament == tournament  # the rules were put back too
    caplog.clear()


# -- an acknowledged action is never lost (issue 17) -----------------------------------------------


async def test_an_action_never_rides_on_a_board_batch_that_is_not_synced(
    tmp_path: Path,
) -> None:
    """The worker thread is busy when a board batch is handed to it: the batch waits,
    unwritten. An arbiter action then must not join it and be answered before it is synced:
    when the action returns, its own rows are in the file (seen by another connection)."""
    service, _ = make_service(tmp_path, delay=0.0)
    gate = threading.Event()
    service.committer._syncer.submit(gate.wait, 30)  # the fsync thread is busy
    port = service.hall[1].config.port
    for n in range(3):
        service.queue_driver_event(port, lost(n))
    await until(lambda: service.syncing)  # the batch is folded; its commit waits
    reader = Journal(service.journal.path)  # another connection
    threading.Timer(0.3, gate.set).start()
    try:
        acting.mark_present(service, GAME, "white", "arbiter:ana")  # returns once durable
        marked = [e.event for e in reader.read() if type(e.event).__name__ == "PlayerMarkedPresent"]
        assert len(marked) == 1, "answered before its rows were synced"
        assert stored(reader, BoardLost) == [lost(n) for n in range(3)]  # those came first
    finally:
        gate.set()
        reader.close()
    seqs = [e.seq for e in service.journal.read()]
    assert seqs == sorted(seqs) == list(range(1, len(seqs) + 1))


@pytest.mark.expected_log("cannot be written")
async def test_an_action_meeting_a_full_disk_is_refused_and_not_applied(tmp_path: Path) -> None:
    service, _ = make_service(tmp_path, delay=0.0)
    play_moves(service, GAME, ["e4", "e5"])
    tournament, book = service.tournament, service.book
    alerts = dict(service.rules.alerts)
    _fill_disk(service.journal)  # nothing has noticed yet: the first write meets it
    client = TestClient(TestServer(build_app(service, CREDENTIALS)))
    await client.start_server()
    try:
        answer = await client.post(
            f"/api/v1/arbiter/games/{GAME}/result", json={"result": "1-0"}, headers=BASIC
        )
        assert answer.status == 503, "answered as done while only in memory"
        assert "disk is full" in (await answer.json())["error"]
        assert service.book.get(GAME).result is None
        assert service.tournament == tournament and service.book == book
        assert service.rules.alerts == alerts and service.rules.book == book
        present = await client.post(
            f"/api/v1/arbiter/games/{GAME}/present", json={"colour": "black"}, headers=BASIC
        )
        assert present.status == 503  # the desk knows now, before trying
        play_moves(service, GAME, ["Nf3"])  # board events are held meanwhile
        assert service.book.get(GAME).ply == 3

        _free_disk(service.journal)
        service.journal.now = lambda: 1e12  # the back-off has passed
        play_moves(service, GAME, ["Nc6"])
        assert service.journal.failure is None
        again = await client.post(
            f"/api/v1/arbiter/games/{GAME}/result", json={"result": "1-0"}, headers=BASIC
        )
        assert again.status == 200
    finally:
        await client.close()
    # A restart finds the board events, and only the action that was answered 200.
    path = Path(service.journal.path)
    service.journal.close()
    reopened = Journal(path)
    kinds = [type(e.event).__name__ for e in reopened.read()]
    assert kinds.count("ResultConfirmed") == 1
    moves = [e.event.san for e in reopened.read() if type(e.event).__name__ == "GameMove"]
    assert moves == ["e4", "e5", "Nf3", "Nc6"]
    reopened.close()
    assert RETRY_MAX > 0


# -- the journal deleted under a running service -----------------------------------------------


@pytest.mark.expected_log("was deleted", "saved to")
async def test_a_journal_deleted_while_running_is_noticed_and_saved(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    service, _ = make_service(tmp_path, delay=0.0)
    play_moves(service, GAME, ["e4", "e5"])
    path = Path(service.journal.path)
    client = TestClient(TestServer(build_app(service, CREDENTIALS)))
    await client.start_server()
    try:
        with caplog.at_level(logging.CRITICAL):
            path.unlink()
            for name in ("-wal", "-shm"):
                path.with_name(path.name + name).unlink(missing_ok=True)
            for _ in range(60):  # the service looks at its file about once a second
                service.tick()
                await asyncio.sleep(0.05)
            answer = await client.post(
                f"/api/v1/arbiter/games/{GAME}/result", json={"result": "1-0"}, headers=BASIC
            )
            assert answer.status == 503, "an action acknowledged into a deleted file"
            await until(lambda: service.journal.gone is not None and service.journal.gone.rescued)
        deleted = [r for r in caplog.records if "was deleted" in r.getMessage()]
        assert len(deleted) == 1  # one log line, not one per look
        message = (await answer.json())["error"]
        assert "was deleted" in message and "/proc/" in message and "--db" in message
        alerts = await (await client.get("/api/v1/arbiter/alerts", headers=BASIC)).json()
        gone = [a for a in alerts if a["id"] == "system-journal-file"]
        assert len(gone) == 1 and gone[0]["severity"] == "critical"
        assert service.book.get(GAME).result is None
        play_moves(service, GAME, ["Nf3"])  # the boards go on, into the open file
    finally:
        await client.close()
    rescued = service.journal.gone.rescued if service.journal.gone else None
    assert rescued is not None and Path(rescued).parent == path.parent
    service.journal.close()  # writes the copy again: it has what came after the first one
    copy = Journal(rescued, readonly=True)
    moves = [e.event.san for e in copy.read() if type(e.event).__name__ == "GameMove"]
    assert moves == ["e4", "e5", "Nf3"]
    assert copy.last_seq() == service.last_seq
    copy.close()
    caplog.clear()


@pytest.mark.expected_log("replaced by another file", "saved to")
def test_a_replaced_journal_is_noticed_too(tmp_path: Path) -> None:
    service, _ = make_service(tmp_path, delay=0.0)
    path = Path(service.journal.path)
    moved = path.with_name("moved.sqlite")
    path.rename(moved)
    path.write_bytes(b"")  # another file where the journal was
    service.tick()  # (its first look is at once)
    with pytest.raises(Exception, match="replaced"):
        acting.mark_present(service, GAME, "white", "arbiter:ana")
    assert path.read_bytes() == b""  # never written over
    assert service.journal.gone is not None and service.journal.problem is service.journal.gone
    service.journal.gone = None  # (so that closing writes no copy)
    service.journal.close()


def test_the_gone_journal_says_how_to_save_it_in_each_case() -> None:
    from broadcast.journal.store import JournalGone

    pending = JournalGone("/e/j.sqlite", "deleted", 42, (7, 9))
    assert "is writing a full copy" in pending.message and "/proc/42/fd/7" in pending.message
    done = JournalGone("/e/j.sqlite", "deleted", 42, (7,), rescued="/e/j.sqlite.rescued-1")
    assert "--db /e/j.sqlite.rescued-1" in done.message
    failed = JournalGone("/e/j.sqlite", "deleted", 42, (7,), rescue_error="disk full")
    assert "cp /proc/42/fd/7 /e/j.sqlite.saved" in failed.message and "disk full" in failed.message
