"""Snapshots of the folded state: a restart from one, then the journal's tail, ends where a
full replay ends (the state, the rules' memory, the public view); one that does not fit
(damaged, another config, another journal, another format) is ignored with a log line and
the journal replayed in full; the service takes them in a worker thread; the offline
readers use them; a schema-1 journal opens (migrated) and is read as it is."""

from __future__ import annotations

import asyncio
import hashlib
import logging
import shutil
import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest

from broadcast.config.loader import load_event
from broadcast.config.model import EventConfig
from broadcast.journal.kinds import register_all
from broadcast.journal.store import Journal
from broadcast.service.event_service import EventService
from broadcast.service.event_state import EventState
from broadcast.service.journal_reader import fold_journal, read_event
from broadcast.service.snapshot import Capture
from clocks.timesource import ManualTime
from tests.support.paths import ROOT
from tests.support.service_feed import PAMPLONA, load_games, run_round

GAMES = ROOT / "examples" / "games" / "worldcup2025-sample.pgn"


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, float, int]:
    """A journal of a played round with a snapshot at 70% of it, as a running service
    would have taken it: (path, the service time at the end, the snapshot's event)."""
    tmp = tmp_path_factory.mktemp("played")
    service, time_source = run_round(tmp, load_games(GAMES, 4), seed=3)
    total = service.last_seq
    service.journal.close()
    full = tmp / "full.sqlite"
    shutil.copyfile(service.journal.path, full)
    middle = int(total * 0.7)
    upto = EventService(
        load_event(PAMPLONA), Journal(full), time_source=ManualTime(time_source.now()), delay=0.0
    )
    for entry in upto.journal.read():  # the state as of event `middle`, folded as at start
        if entry.seq > middle:
            break
        upto.committer.replay(entry)
    capture = Capture(upto.state, upto.rules.memory(), upto.public_state(), time_source.now())
    assert upto.snapshots._take(capture)
    upto.journal.close()
    return full, time_source.now(), middle


def _service(
    path: Path, now: float, *, snapshots: bool = True, config: EventConfig | None = None
) -> EventService:
    service = EventService(
        config or load_event(PAMPLONA),
        Journal(path),
        time_source=ManualTime(now),
        delay=0.0,
        snapshots=snapshots,
    )
    service.load()
    return service


def _copy(played: tuple[Path, float, int], tmp: Path, name: str) -> Path:
    target = tmp / name
    shutil.copyfile(played[0], target)
    return target


def _same(a: EventService, b: EventService) -> None:
    assert a.state == b.state
    assert a.rules.memory() == b.rules.memory()
    assert a.public_state() == b.public_state()
    assert a.rules.open_alerts() == b.rules.open_alerts()


def test_a_restart_from_a_snapshot_ends_where_a_full_replay_ends(
    played: tuple[Path, float, int], tmp_path: Path
) -> None:
    path, now, middle = played
    fast = _service(_copy(played, tmp_path, "a.sqlite"), now)
    slow = _service(_copy(played, tmp_path, "b.sqlite"), now, snapshots=False)
    total = Journal(path, readonly=True).last_seq()
    assert slow.replayed == total
    assert fast.replayed == total - middle  # the tail only
    _same(fast, slow)
    assert sum(len(g.moves) for g in fast.book.games.values()) > 100


@pytest.mark.parametrize(
    ("damage", "why"),
    [
        ("UPDATE snapshots SET body = substr(body, 1, 100) || body", "damaged"),
        ("UPDATE snapshots SET format = '0:0'", "another format"),
        ("UPDATE events SET t = t + 1 WHERE seq = (SELECT seq FROM snapshots)", "not the one"),
    ],
)
def test_a_snapshot_that_does_not_fit_is_ignored_with_a_log_line(
    played: tuple[Path, float, int],
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    damage: str,
    why: str,
) -> None:
    _path, now, _ = played
    target = _copy(played, tmp_path, "damaged.sqlite")
    db = sqlite3.connect(target)
    db.execute(damage)
    db.commit()
    db.close()
    with caplog.at_level(logging.WARNING):
        service = _service(target, now)
    lines = [r.getMessage() for r in caplog.records if "snapshot at event" in r.getMessage()]
    assert len(lines) == 1 and "ignored" in lines[0] and why in lines[0]
    reference = _service(_copy(played, tmp_path, "ref.sqlite"), now, snapshots=False)
    assert service.replayed == reference.replayed  # a full replay
    if "UPDATE events" not in damage:
        _same(service, reference)


def test_a_snapshot_of_another_config_is_ignored(
    played: tuple[Path, float, int], tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    _path, now, _ = played
    config = load_event(PAMPLONA)
    changed = replace(config, sections=(replace(config.sections[0], default_time_minutes=45),))
    with caplog.at_level(logging.WARNING):
        service = _service(_copy(played, tmp_path, "c.sqlite"), now, config=changed)
    assert any("config" in r.getMessage() and "ignored" in r.getMessage() for r in caplog.records)
    reference = _service(_copy(played, tmp_path, "ref.sqlite"), now, snapshots=False)
    assert service.replayed == reference.replayed  # a full replay


def test_the_offline_readers_use_the_snapshot_and_agree(
    played: tuple[Path, float, int], tmp_path: Path
) -> None:
    _path, _now, middle = played
    target = _copy(played, tmp_path, "offline.sqlite")
    before = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in tmp_path.iterdir()}
    record = read_event(PAMPLONA, target)
    after = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in tmp_path.iterdir()}
    assert {k: v for k, v in after.items() if k in before} == before  # read, never written
    register_all()
    journal = Journal(target, readonly=True)
    journal_snapshots = list(journal.snapshots())
    journal.close()
    assert [s.seq for s in journal_snapshots] == [middle]
    reader = Journal(target, readonly=True)
    state = EventState.new(load_event(PAMPLONA))
    for entry in reader.read():  # the fold from the first event, no snapshot
        state = state.apply(entry.event, entry.seq)
    reader.close()
    assert record.book == state.book and record.tournament == state.tournament


async def test_the_service_takes_snapshots_in_a_worker_thread(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from boards.driver_events import BoardLost

    path = tmp_path / "j.sqlite"
    service = EventService(
        load_event(PAMPLONA), Journal(path), time_source=ManualTime(1.8e9), live_round=1, delay=0.0
    )
    service.load()
    service.snapshots.every_events = 50
    service.snapshots.min_seconds = 0.0
    port = service.hall[1].config.port
    with caplog.at_level(logging.INFO, logger="broadcast.service.snapshot"):
        for n in range(200):
            service.queue_driver_event(port, BoardLost(1.8e9 + n, f"{n:05d}", "test"))
            await asyncio.sleep(0.001)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 30
        while not service.snapshots.taken:
            assert loop.time() < deadline
            await asyncio.sleep(0.01)
        while service.syncing or service.committer._inbox:
            await asyncio.sleep(0.01)
    service.snapshots.close()
    taken = [r for r in caplog.records if "snapshot at event" in r.getMessage()]
    assert taken and all(r.threadName.startswith("journal-snapshot") for r in taken)
    seq = service.snapshots.taken[-1][0]
    service.journal.close()
    again = EventService(load_event(PAMPLONA), Journal(path), time_source=ManualTime(1.8e9 + 300))
    again.load()
    assert again.replayed == again.last_seq - seq - _commits_at_load(again)
    reference = fold_journal(Journal(path, readonly=True), again.config)
    assert reference.book == again.book


def _commits_at_load(service: EventService) -> int:
    """Events a load committed itself (none here: no --round, the journal has players)."""
    return 0


def test_a_schema_1_journal_is_migrated_by_its_first_write_and_read_as_it_is(
    tmp_path: Path,
) -> None:
    register_all()
    v1 = tmp_path / "v1.sqlite"
    db = sqlite3.connect(v1)
    db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    db.execute(
        "CREATE TABLE events (seq INTEGER PRIMARY KEY, t REAL NOT NULL, kind TEXT NOT NULL, "
        "body TEXT NOT NULL)"
    )
    db.execute("INSERT INTO meta VALUES ('schema_version', '1')")
    db.execute(
        "INSERT INTO events VALUES (1, 1.0, 'BoardLost', "
        '\'{"t":1.0,"board":"01000","reason":"old"}\')'
    )
    db.commit()
    db.close()
    read_only = tmp_path / "copy.sqlite"
    shutil.copyfile(v1, read_only)
    digest = hashlib.sha256(read_only.read_bytes()).hexdigest()
    reader = Journal(read_only, readonly=True)
    assert [e.event.board for e in reader.read()] == ["01000"]  # type: ignore[union-attr]
    assert list(reader.snapshots()) == []
    reader.close()
    assert hashlib.sha256(read_only.read_bytes()).hexdigest() == digest

    journal = Journal(v1)
    assert [e.seq for e in journal.read()] == [1]
    # Migrated by the first write, not before: a journal refused at the start (an event
    # it cannot read) stays as it was (tests/broadcast/journal/test_guards.py).
    assert journal.meta("schema_version") == "1"
    journal.set_meta("event", "Pamplona Masters")
    assert journal.meta("schema_version") == "2"
    assert journal.append([], 2.0) == []
    journal.close()
    tables = {
        r[0]
        for r in sqlite3.connect(v1).execute("SELECT name FROM sqlite_master WHERE type='table'")
    }
    assert tables == {"meta", "events", "snapshots"}


def test_a_snapshot_keeps_the_stations_progress_and_where_boards_connected(
    tmp_path: Path,
) -> None:
    # Without them a restart from a snapshot would apply a station's durable entries
    # again, and could not place a board found by its serial number.
    from boards.driver_events import BoardConnected, BoardInfo
    from broadcast.journal.station_progress import StationProgress

    path = tmp_path / "j.sqlite"
    service = _service(path, 1_800_000_000.0, snapshots=False)
    info = BoardInfo("east:/dev/ttyACM0", "20003", (1, 7), "single")
    service.committer.commit(
        [
            BoardConnected(1_800_000_000.0, "20003", info),
            StationProgress(1_800_000_000.0, "east", "a1", 42),
        ]
    )
    capture = Capture(service.state, service.rules.memory(), service.public_state(), 1e9)
    assert service.snapshots._take(capture)
    service.journal.close()
    again = _service(path, 1_800_000_001.0)
    assert again.replayed == 0  # all from the snapshot
    assert again.state.stations == {"east": ("a1", 42)}
    assert again.state.connected_at == {"20003": ("east:/dev/ttyACM0", None)}
