"""The journal against what other programs and processes do to its files (issue 29, the
security audit's F1, F2, F9, F10 and F12):

- one `serve` per journal: a second one is refused at its start, naming the first one's
  PID, and the lock ends with the process, even a kill -9 (F10);
- a journal overwritten in place (`cp backup.sqlite event.sqlite` keeps the inode) is
  noticed: actions are refused, nothing is ever written into the copied file again (not
  even at the stop), the desk is told, and the next start says the file is older than
  what boardwire last wrote (F1);
- its -wal and -shm deleted under a running service: mended, and no action answered
  after the deletion is lost at a kill -9 (F2);
- a disk that stays full for long: every board event is kept (packed, then spilled) and
  written once it works, with a few log lines, not one a batch (F9);
- another event's journal, or one of ours that cannot be loaded, is refused before
  anything is written into it; a damaged or cut-short journal is one line and exit 2 for
  every command, never "internal error" nor "not a boardwire journal" (F12).

Real files throughout, and real processes where it is about processes (a second serve,
a kill -9). New names of the journal are imported inside the tests that need them, so
that each test fails on its own on a boardwire without them.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.request
from base64 import b64encode
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer
from hypothesis import given, settings
from hypothesis import strategies as st

from boards.driver_events import BoardLost
from broadcast.cli import main
from broadcast.journal import store
from broadcast.journal.kinds import register_all
from broadcast.journal.store import RETRY_MAX, Journal, JournalError
from tests.support.paths import ROOT
from tests.support.web_app import CREDENTIALS, make_service, play_moves
from web.app import build_app

EVENT = ROOT / "examples" / "pamplona-masters.toml"
NAME = "Pamplona Masters"  # the example's event name
BOARDWIRE = [sys.executable, "-m", "broadcast.cli"]
BASIC = {"Authorization": "Basic " + b64encode(":".join(CREDENTIALS).encode()).decode()}
GAME = "masters-r1-b1"


def lost(n: int) -> BoardLost:
    return BoardLost(float(n), f"{10000 + n % 100:05d}", "test")


def after_a_crash(path: Path) -> dict[int, str]:
    """The events a restart finds in `path` (a journal left by a kill -9, or a copy of
    one), number -> kind; none at all when it cannot be read."""
    register_all()
    try:
        reader = Journal(path, readonly=True)
        try:
            return {e.seq: type(e.event).__name__ for e in reader.read()}
        finally:
            reader.close()
    except (JournalError, sqlite3.Error):
        return {}


def digest(*paths: Path) -> dict[str, str | None]:
    return {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest() if p.exists() else None for p in paths
    }


def folder_digest(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def until(condition: Any, seconds: float = 30.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while not condition():
        assert loop.time() < deadline, "timed out"
        await asyncio.sleep(0.02)


def one_line(code: int, err: str) -> str:
    assert "Traceback" not in err and "internal error" not in err, err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, lines
    return lines[0]


# -- F10: one serve per journal ----------------------------------------------------------------


def _serve(db: Path, port: int, log: Path) -> subprocess.Popen[bytes]:
    args = ["serve", str(EVENT), "--db", str(db), "--port", str(port), "--delay", "0"]
    with log.open("wb") as stderr:  # the child keeps its own copy of the descriptor
        return subprocess.Popen(
            [*BOARDWIRE, *args],
            stdout=subprocess.DEVNULL,
            stderr=stderr,
            cwd=ROOT,
        )


def _wait_up(port: int, proc: subprocess.Popen[bytes], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert proc.poll() is None, "serve exited early"
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v1/event", timeout=2):
                return
        except OSError:
            time.sleep(0.1)
    raise AssertionError("serve did not come up")


def test_a_second_serve_on_one_journal_is_refused_naming_the_first(tmp_path: Path) -> None:
    db = tmp_path / "j.sqlite"
    port = free_port()
    first = _serve(db, port, tmp_path / "first.log")
    second: subprocess.Popen[bytes] | None = None
    third: subprocess.Popen[bytes] | None = None
    try:
        _wait_up(port, first)
        port = free_port()
        second = subprocess.Popen(
            [*BOARDWIRE, "serve", str(EVENT), "--db", str(db), "--port", str(port)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            cwd=ROOT,
        )
        try:
            _, err = second.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            second.kill()
            raise AssertionError("a second serve ran on a journal in use") from None
        line = one_line(second.returncode, err.decode())
        assert second.returncode == 2
        assert f"journal {db} is in use by another boardwire serve (PID {first.pid})" in line

        # The lock dies with its process, even a kill -9: the next serve starts.
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=30)
        port = free_port()
        third = _serve(db, port, tmp_path / "third.log")
        _wait_up(port, third)
        third.send_signal(signal.SIGINT)
        assert third.wait(timeout=60) == 0
    finally:
        for proc in (first, second, third):
            if proc is not None and proc.poll() is None:
                proc.kill()
                proc.wait()


# -- F12: decide before writing; a damaged journal in one line ---------------------------------


def _journal_of(path: Path, event: str, events: int) -> None:
    register_all()
    journal = Journal(path)
    journal.set_meta("event", event)
    for k in range(0, events, 500):
        journal.append([lost(n) for n in range(k, min(k + 500, events))], float(k))
    journal.close()


def test_another_events_journal_is_refused_before_anything_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "db"
    folder.mkdir()
    db = folder / "other.sqlite"
    _journal_of(db, "Other Event", 50)
    plain = sqlite3.connect(db)  # as a copy made with the sqlite3 tool may be
    assert plain.execute("PRAGMA journal_mode=DELETE").fetchone()[0] == "delete"
    plain.close()
    before = folder_digest(folder)
    code = main(["serve", str(EVENT), "--db", str(db), "--port", str(free_port())])
    line = one_line(code, capsys.readouterr().err)
    assert code == 2 and "belongs to the event 'Other Event'" in line
    assert folder_digest(folder) == before  # not switched to WAL, no -wal, -shm or lock


_V1_WITH_AN_UNREADABLE_EVENT = """
import os, sqlite3, sys, time
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("PRAGMA journal_mode=WAL")
db.execute("PRAGMA wal_autocheckpoint=0")
db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
db.execute("CREATE TABLE events (seq INTEGER PRIMARY KEY, t REAL NOT NULL, "
           "kind TEXT NOT NULL, body TEXT NOT NULL)")
db.execute("INSERT INTO meta VALUES ('schema_version', '1'), ('event', 'Pamplona Masters')")
db.execute("INSERT INTO events VALUES (1, 1.0, 'BoardLost', "
           "'{\\"t\\":1.0,\\"board\\":\\"01001\\",\\"reason\\":\\"old\\"}')")
db.execute("INSERT INTO events VALUES (2, 2.0, 'GameTeleported', '{}')")
print("ready", flush=True)
time.sleep(60)
"""


def test_a_schema_1_journal_that_cannot_be_loaded_is_left_as_it_was(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A schema-1 journal (of this event) with an event this boardwire cannot read, left
    by a crash with its -wal: refused, not migrated, its -wal not checkpointed."""
    db = tmp_path / "v1.sqlite"
    proc = subprocess.Popen(
        [sys.executable, "-c", _V1_WITH_AN_UNREADABLE_EVENT, str(db)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    proc.stdout.close()
    wal = db.with_name(db.name + "-wal")
    assert wal.stat().st_size > 0
    before = digest(db, wal)
    code = main(["serve", str(EVENT), "--db", str(db), "--port", str(free_port())])
    line = one_line(code, capsys.readouterr().err)
    assert code == 2 and "event 2 cannot be read" in line
    assert digest(db, wal) == before  # no snapshots table added, nothing checkpointed


@pytest.fixture(scope="module")
def sound_journal(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A journal of this event big enough to have pages in its middle (about 5 MB)."""
    path = tmp_path_factory.mktemp("sound") / "j.sqlite"
    _journal_of(path, NAME, 20_000)
    return path


def _malformed(path: Path) -> None:
    middle = path.stat().st_size // 2 // 4096 * 4096
    with path.open("r+b") as f:  # three pages of the events in the middle of the file
        f.seek(middle)
        f.write(b"\xff" * 4096 * 3)


def _cut_short(path: Path) -> None:
    os.truncate(path, path.stat().st_size // 2)  # a copy that stopped half way


@pytest.mark.parametrize("damage", ["malformed", "cut-short"])
@pytest.mark.parametrize("command", ["serve", "standings", "export", "check"])
def test_a_damaged_journal_is_one_clear_line_and_exit_2(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    sound_journal: Path,
    damage: str,
    command: str,
) -> None:
    db = tmp_path / "j.sqlite"
    shutil.copyfile(sound_journal, db)
    {"malformed": _malformed, "cut-short": _cut_short}[damage](db)
    before = folder_digest(tmp_path)
    argv = {
        "serve": ["serve", str(EVENT), "--db", str(db), "--port", str(free_port())],
        "standings": ["standings", "--event", str(EVENT), "--db", str(db)],
        "export": ["export", str(EVENT), "--db", str(db), "--pgn", str(tmp_path / "out.pgn")],
        "check": ["check", str(EVENT), "--db", str(db)],
    }[command]
    code = main(argv)
    line = one_line(code, capsys.readouterr().err)
    assert code == 2, line
    assert "damaged" in line and str(db) in line
    assert "not a boardwire journal" not in line  # it is this event's journal
    if damage == "cut-short":
        assert "cut short" in line
    assert folder_digest(tmp_path) == before  # left untouched


# -- F1: overwritten in place -------------------------------------------------------------------


def _backup(path: Path, to: Path) -> None:
    """What an organiser's backup is: `sqlite3 event.sqlite .backup copy.sqlite`."""
    source = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    target = sqlite3.connect(to)
    source.backup(target)
    target.close()
    source.close()


@pytest.mark.expected_log(
    "overwritten in place", "the file now", "games and results saved", "cannot be written"
)
async def test_a_journal_overwritten_in_place_is_noticed_and_never_written_into(
    tmp_path: Path,
) -> None:
    service, _ = make_service(tmp_path, delay=0.0)
    journal = service.journal
    path = Path(journal.path)
    play_moves(service, GAME, ["e4", "e5"])
    backup = tmp_path / "backup.sqlite"
    _backup(path, backup)
    play_moves(service, GAME, ["Nf3", "Nc6"])
    written = journal.written_seq
    client = TestClient(TestServer(build_app(service, CREDENTIALS)))
    await client.start_server()
    try:
        inode = path.stat().st_ino
        shutil.copyfile(backup, path)  # cp backup.sqlite journal.sqlite: the same file
        assert path.stat().st_ino == inode
        answer = await client.post(
            f"/api/v1/arbiter/games/{GAME}/result", json={"result": "1-0"}, headers=BASIC
        )
        assert answer.status == 503, "an action acknowledged into an overwritten journal"
        assert "overwritten in place" in (await answer.json())["error"]
        assert service.book.get(GAME).result in (None, "*")
        play_moves(service, GAME, ["Bb5"])  # the boards go on: held, never into that file
        assert service.book.get(GAME).ply == 5 and journal.unwritten > 0
        for _ in range(3):  # the look of about once a second finishes the work off the loop
            service.tick()
            await asyncio.sleep(0.4)
        await until(lambda: bool(getattr(journal.gone, "saved", ())))
        alerts = await (await client.get("/api/v1/arbiter/alerts", headers=BASIC)).json()
        [gone] = [a for a in alerts if a["id"] == "system-journal-file"]
        assert gone["severity"] == "critical"
        message = gone["message"]
        assert "overwritten in place" in message and f"up to {written}" in message
        assert ".pgn" in message and "Stop boardwire" in message
    finally:
        await client.close()
    journal.close()
    assert path.read_bytes() == backup.read_bytes()  # not one byte of ours, even at the close
    assert list(tmp_path.glob("journal.sqlite.overwritten-*-wal"))  # our own pages, aside
    [pgn] = tmp_path.glob("journal.sqlite.overwritten-*.pgn")
    assert "Nc6" in pgn.read_text(encoding="utf-8")  # the games as boardwire held them


@pytest.mark.expected_log("older copy")
def test_a_start_on_an_older_copy_says_so_until_the_arbiter_has_seen_it(tmp_path: Path) -> None:
    """`cp backup.sqlite event.sqlite` between two runs (or a run that found it
    overwritten): the start says what it finds instead of serving the older state
    without a word, and goes on saying it at every start until acknowledged."""
    from broadcast.service.health import SYSTEM_PREFIX

    service, _ = make_service(tmp_path, delay=0.0)
    path = Path(service.journal.path)
    play_moves(service, GAME, ["e4"])
    backup = tmp_path / "backup.sqlite"
    _backup(path, backup)
    play_moves(service, GAME, ["e5", "Nf3"])
    written = service.journal.written_seq
    service.journal.close()
    shutil.copyfile(backup, path)
    for name in ("-wal", "-shm"):
        path.with_name(path.name + name).unlink(missing_ok=True)

    def found_alerts(service: Any) -> list[Any]:
        alerts = service.health.alerts(service.journal, service.time_source.now())
        return [a for a in alerts if "older copy" in a.message]

    for _ in range(2):  # every start says it, until acknowledged
        again, _ = make_service(tmp_path, delay=0.0)
        [alert] = found_alerts(again)
        assert alert.severity == "critical" and f"had written up to {written}" in alert.message
        assert again.book.get(GAME).ply == 1  # what the file holds: said, not hidden
        again.journal.close()
    again, _ = make_service(tmp_path, delay=0.0)
    [alert] = found_alerts(again)
    assert again.health.acknowledge(alert.id) and alert.id.startswith(SYSTEM_PREFIX)
    assert not found_alerts(again)
    again.journal.close()
    last, _ = make_service(tmp_path, delay=0.0)
    assert not found_alerts(last)
    last.journal.close()


# -- F2: its -wal and -shm deleted --------------------------------------------------------------


_ACTION_AFTER_THE_WAL_IS_DELETED = """
import sys, time
from boards.driver_events import BoardLost
from broadcast.journal.kinds import register_all
from broadcast.journal.store import Journal
register_all()
journal = Journal(sys.argv[1])
def lost(n): return BoardLost(float(n), f"{10000 + n % 100:05d}", "x" * 300)
def action(n):  # an arbiter action: acknowledged once commit_now returns
    txn = journal.begin()
    [seq] = journal.add(txn, [lost(n)], float(n))
    journal.commit_now(txn)
    return seq
for k in range(40):  # over 5 MB: checkpointed into the file at least once, as in a hall
    journal.append([lost(500 * k + i) for i in range(500)], float(k))
journal.append([lost(30_000 + i) for i in range(10)], 50.0)  # only in the -wal
print("acknowledged", action(99_998), flush=True)  # before the deletion
journal.append([lost(31_000 + i) for i in range(10)], 51.0)
sys.stdin.readline()  # meanwhile the -wal and -shm are deleted
print("acknowledged", action(99_999), flush=True)  # after it
journal.append([lost(100_000)], 100.0)  # a later board batch
print("done", flush=True)
time.sleep(60)
"""


def test_actions_acknowledged_around_a_deleted_wal_survive_a_kill_9(
    tmp_path: Path,
) -> None:
    db = tmp_path / "j.sqlite"
    proc = subprocess.Popen(
        [sys.executable, "-c", _ACTION_AFTER_THE_WAL_IS_DELETED, str(db)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        cwd=ROOT,
    )
    try:
        assert proc.stdin is not None and proc.stdout is not None
        before = proc.stdout.readline().split()
        assert before[0] == "acknowledged", before
        for name in ("-wal", "-shm"):  # a cleanup or sync tool
            db.with_name(db.name + name).unlink()
        proc.stdin.write("go\n")
        proc.stdin.flush()
        after = proc.stdout.readline().split()
        assert after[0] == "acknowledged", after
        assert proc.stdout.readline().strip() == "done"
    finally:
        proc.send_signal(signal.SIGKILL)  # a crash, or a power cut
        proc.wait()
        for pipe in (proc.stdin, proc.stdout):
            if pipe is not None:
                pipe.close()
    found = after_a_crash(db)
    assert int(before[1]) in found, "an action acknowledged before the deletion was lost"
    assert int(after[1]) in found, "an action acknowledged after the deletion was lost"
    # Board events only in the deleted -wal may go (the boards' logs give them back);
    # everything from the first action on is there.
    assert set(range(int(before[1]), int(after[1]) + 2)) <= set(found)


@pytest.mark.expected_log("-wal deleted")
async def test_a_deleted_wal_is_mended_and_said_on_the_desk(tmp_path: Path) -> None:
    service, _ = make_service(tmp_path, delay=0.0)
    path = Path(service.journal.path)
    play_moves(service, GAME, ["e4", "e5"])
    client = TestClient(TestServer(build_app(service, CREDENTIALS)))
    await client.start_server()
    try:
        for name in ("-wal", "-shm"):
            path.with_name(path.name + name).unlink()
        answer = await client.post(
            f"/api/v1/arbiter/games/{GAME}/result", json={"result": "1-0"}, headers=BASIC
        )
        assert answer.status == 200
        # What a kill -9 now would leave: the files at their places.
        crash = tmp_path / "crash"
        crash.mkdir()
        for name in ("", "-wal"):
            if path.with_name(path.name + name).exists():
                shutil.copyfile(path.with_name(path.name + name), crash / f"j.sqlite{name}")
        kinds = list(after_a_crash(crash / "j.sqlite").values())
        assert "ResultConfirmed" in kinds, "acknowledged, then lost by a crash"
        assert kinds.count("GameMove") == 2
        service.tick()
        alerts = await (await client.get("/api/v1/arbiter/alerts", headers=BASIC)).json()
        mended = [a for a in alerts if "Nothing is lost" in a["message"]]
        assert len(mended) == 1 and mended[0]["severity"] == "warning"
        assert "-wal deleted" in mended[0]["message"]
        play_moves(service, GAME, ["Nf3"])  # later board events reach the new -wal
    finally:
        await client.close()
    assert service.journal.problem is None
    service.journal.close()


# -- F9: a long disk-full outage ---------------------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


@pytest.mark.expected_log("the journal cannot be written")  # once, when it starts
async def test_a_long_outage_drops_no_board_event_and_logs_a_few_lines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Ten minutes of a full disk, in virtual time, with a small memory bound so that
    packing and spilling both happen (as the audit's serve_patched.py did with
    MAX_HELD=3000): every event is written once the disk has room, in order."""
    import importlib

    monkeypatch.setattr(store, "MAX_HELD", 3000, raising=False)  # the old drop, if any
    monkeypatch.setattr(store, "FLUSH_ROWS", 6000, raising=False)  # catching up in steps
    try:
        held = importlib.import_module("broadcast.journal.held")
    except ImportError:  # (a boardwire from before it: the test fails below, on the drop)
        pass
    else:
        monkeypatch.setattr(held, "CHUNK", 500)
        monkeypatch.setattr(held, "MEMORY", 20_000)  # a few chunks in memory, then the spill
    service, _ = make_service(tmp_path, delay=0.0)
    journal = service.journal
    clock = Clock()
    journal.now = clock
    port = service.hall[1].config.port
    pages = journal._db.execute("PRAGMA page_count").fetchone()[0]
    journal._db.execute(f"PRAGMA max_page_count = {pages}")  # the disk is full
    burst, bursts = 50, 200
    with caplog.at_level(logging.INFO, logger="broadcast.journal"):
        for k in range(bursts):  # 10,000 board events over ten minutes
            clock.t += 3.0
            for n in range(burst):
                service.queue_driver_event(port, lost(k * burst + n))
            service.drain()
            await until(lambda: not service.syncing)
        held = journal.unwritten  # the board events and what the service made of them
        assert journal.failure is not None and held >= burst * bursts
        assert "none dropped" in journal.failure.message
        assert getattr(journal._held, "spilled_bytes", 0) > 0  # beyond memory: spilled
        journal._db.execute("PRAGMA max_page_count = 1073741823")  # room again
        clock.t += RETRY_MAX
        steps = 0
        while journal.unwritten:  # a few batches write what was held, a part each
            service.queue_driver_event(port, lost(burst * bursts + steps))
            service.drain()
            await until(lambda: not service.syncing)
            steps += 1
            if journal.failure is not None:  # the desk says it is catching up
                assert "wait until it is done" in journal.failure.message
            assert steps < 20
        assert steps > 1
    assert journal.failure is None and journal.unwritten == 0
    [end] = [r.getMessage() for r in caplog.records if "writable again" in r.getMessage()]
    assert int(end.split(": ")[-1].split()[0]) >= held  # those, and the ones behind them
    ours = [r for r in caplog.records if r.name.startswith("broadcast.journal")]
    assert len(ours) <= 14, [r.getMessage() for r in ours]  # start, a minute's summaries, end
    assert "writable again" in ours[-1].getMessage()
    stored = [e.event for e in journal.read() if isinstance(e.event, BoardLost)]
    assert stored == [lost(n) for n in range(burst * bursts + steps)]
    seqs = [e.seq for e in journal.read()]
    assert seqs == list(range(1, len(seqs) + 1))  # no gap
    journal.close()


_ROWS = st.lists(
    st.tuples(
        st.floats(allow_nan=False, allow_infinity=False),
        st.text(max_size=12),
        st.text(max_size=60),  # any text, lone surrogates included
    ),
    max_size=120,
)


@settings(max_examples=60, deadline=None)
@given(
    rows=_ROWS,
    chunk=st.integers(1, 9),
    memory=st.integers(0, 400),
    batches=st.integers(1, 5),
)
def test_held_rows_come_back_exactly_in_order(
    tmp_path_factory: pytest.TempPathFactory,
    rows: list[tuple[float, str, str]],
    chunk: int,
    memory: int,
    batches: int,
) -> None:
    from broadcast.journal.held import HeldRows

    held = HeldRows(chunk=chunk, memory=memory, spill_dir=tmp_path_factory.getbasetemp())
    numbered = [(i + 1, t, k, b) for i, (t, k, b) in enumerate(rows)]
    step = max(1, len(numbered) // batches)
    for i in range(0, len(numbered), step):
        held.add(numbered[i : i + step])
    assert len(held) == len(numbered)
    back: list[tuple[int, float, str, str]] = []
    while held:
        back += held.oldest()
        held.drop_oldest()
    assert back == numbered
    assert held.packed_bytes == held.spilled_bytes == 0


def test_spill_dir_must_exist(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        ["serve", str(EVENT), "--db", str(tmp_path / "j.sqlite"), "--spill-dir", "/no/such/dir"]
    )
    line = one_line(code, capsys.readouterr().err)
    assert code == 2 and "--spill-dir" in line
    assert not (tmp_path / "j.sqlite").exists()


def test_the_lock_file_says_who_and_how_far(tmp_path: Path) -> None:
    register_all()
    path = tmp_path / "j.sqlite"
    journal = Journal(path)
    journal.append([lost(1), lost(2)], 1.0)
    text = path.with_name("j.sqlite.lock").read_text()
    assert f"pid {os.getpid()}" in text and "written 0000000000000002" in text
    journal.close()
