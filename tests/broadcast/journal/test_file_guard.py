"""File tricks under a journal that must never lose an acknowledged action (issue 29),
checked from outside: only `Journal`, the service and the command line, never how the
guards are built.

- A journal overwritten in place is noticed even when the overwrite lands between two of
  the service's own writes, or before its first write, and the file that was copied
  there is left as it was put there (the service's pages are never laid over it).
- The guards do not refuse what SQLite recovers: a journal killed during a checkpoint
  (its page 1 already copied from the -wal, the file not yet grown to the size page 1
  says) opens, and every event is read back.
- A journal that is absent but has a -wal beside it is refused, the -wal left as it was
  (SQLite would lay that -wal over a new, empty journal).
- A second writer is refused even when whatever marks the first one (a lock file) was
  deleted by a cleanup while it runs.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from boards.driver_events import BoardLost
from broadcast.cli import main
from broadcast.config import load_event
from broadcast.games.game_events import GameMove
from broadcast.journal.kinds import register_all
from broadcast.journal.store import Journal, JournalError
from broadcast.service.committer import NotDurable
from broadcast.service.event_service import EventService
from clocks.timesource import ManualTime
from tests.support import acting
from tests.support.web_app import EVENT, make_service, play_moves

GAME = "masters-r1-b1"
T1 = 1_766_419_100.0  # during round 1 of the example


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _journal_files(folder: Path, name: str) -> dict[str, str]:
    """The journal and its -wal/-shm/-journal beside it, by content."""
    return {
        p.name: _sha(p)
        for p in sorted(folder.iterdir())
        if p.name == name or p.name in (f"{name}-wal", f"{name}-shm", f"{name}-journal")
    }


def _restart(folder: Path) -> EventService:
    """`serve EVENT` again on the journal, without --round: its load writes nothing."""
    service = EventService(
        load_event(EVENT), Journal(folder / "journal.sqlite"), time_source=ManualTime(T1), delay=0.0
    )
    service.load()
    return service


def _noticed(service: EventService) -> None:
    """The service saw it: actions are refused and the desk has a critical alert."""
    service.tick()  # (its first look at the file is at once)
    assert service.journal.problem is not None, "nothing noticed"
    with pytest.raises(NotDurable):
        acting.mark_present(service, GAME, "white", "arbiter:ana")
    alerts = service.health.alerts(service.journal, service.time_source.now())
    assert any(a.severity == "critical" and a.id.startswith("system-journal") for a in alerts)


# -- overwritten in place --------------------------------------------------------------------


@pytest.mark.expected_log(r"journal")  # the critical lines of a journal overwritten on purpose
def test_an_overwrite_between_two_writes_is_noticed(tmp_path: Path) -> None:
    """The service writes right after the overwrite, before any periodic look: what it
    finds then must not be taken for what it wrote itself."""
    service, _ = make_service(tmp_path, delay=0.0)
    path = Path(service.journal.path)
    play_moves(service, GAME, ["e4", "e5"])
    backup = tmp_path / "backup.sqlite"
    shutil.copyfile(path, backup)  # the file alone, as a careless backup takes it
    play_moves(service, GAME, ["Nf3", "Nc6", "Bb5", "a6"])
    shutil.copyfile(backup, path)  # `cp backup.sqlite event.sqlite`: the same inode
    play_moves(service, GAME, ["Ba4"])  # a board batch lands before the next look
    _noticed(service)


@pytest.mark.expected_log(r"journal")
def test_an_overwrite_before_the_first_write_is_noticed(tmp_path: Path) -> None:
    """A restart without --round writes nothing while no board speaks (between rounds):
    a backup copied over the journal then must be noticed all the same."""
    service, _ = make_service(tmp_path, delay=0.0)
    play_moves(service, GAME, ["e4", "e5"])
    path = Path(service.journal.path)
    service.journal.close()
    backup = tmp_path / "backup.sqlite"
    shutil.copyfile(path, backup)
    service, _ = make_service(tmp_path, delay=0.0)
    play_moves(service, GAME, ["Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6"])
    service.journal.close()

    restarted = _restart(tmp_path)
    shutil.copyfile(backup, path)
    _noticed(restarted)
    restarted.journal.close()


@pytest.mark.expected_log(r"journal")
def test_the_file_copied_over_a_running_journal_is_left_as_it_was_put_there(
    tmp_path: Path,
) -> None:
    """After the overwrite, the service's own pages (its -wal, its checkpoint at the
    stop) never reach the copied file: a restart on it finds the backup, whole."""
    service, _ = make_service(tmp_path, delay=0.0)
    path = Path(service.journal.path)
    play_moves(service, GAME, ["e4", "e5"])
    service.journal.close()
    backup = tmp_path / "backup.sqlite"
    shutil.copyfile(path, backup)  # a clean copy: no -wal holds anything
    service, _ = make_service(tmp_path, delay=0.0)
    play_moves(service, GAME, ["Nf3", "Nc6", "Bb5", "a6"])
    shutil.copyfile(backup, path)
    _noticed(service)
    play_moves(service, GAME, ["Ba4", "Nf6"])  # the boards go on
    service.journal.close()
    assert _sha(path) == _sha(backup), "boardwire wrote into the copied file"
    register_all()
    again = Journal(path)  # the next start: no -wal of ours laid over the copy
    moves = [e.event.san for e in again.read() if isinstance(e.event, GameMove)]
    again.close()
    assert moves == ["e4", "e5"]


class _CopiedOverDuringAWrite(Journal):
    """A journal over which `cp` lands while one of the service's own writes is under way
    (`_commit`: the hook the batch tests use too)."""

    copy_from: Path | None = None

    def _commit(self) -> None:
        if self.copy_from is not None:
            shutil.copyfile(self.copy_from, self.path)
            self.copy_from = None
        super()._commit()


@pytest.mark.expected_log(r"journal")
def test_an_overwrite_during_a_write_of_the_service_is_noticed(tmp_path: Path) -> None:
    """The journal's own writes change its file (checkpoints): whatever tells them from
    another program's must not take a `cp` that lands during one of them for its own. A
    smaller file is never the service's doing: its file never shrinks."""
    service, _ = make_service(tmp_path, delay=0.0)
    path = Path(service.journal.path)
    play_moves(service, GAME, ["e4", "e5"])
    service.journal.close()
    backup = tmp_path / "backup.sqlite"
    shutil.copyfile(path, backup)
    service, _ = make_service(tmp_path, delay=0.0)
    play_moves(service, GAME, ["Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6", "O-O", "Be7"])
    service.journal.close()
    assert path.stat().st_size > backup.stat().st_size

    journal = _CopiedOverDuringAWrite(path)
    service = EventService(load_event(EVENT), journal, time_source=ManualTime(T1), delay=0.0)
    service.load()
    journal.copy_from = backup
    play_moves(service, GAME, ["Re1"])
    assert journal.copy_from is None  # it happened, during that batch's write
    _noticed(service)


@pytest.mark.expected_log(r"journal")
def test_an_action_after_the_wal_was_emptied_in_place_is_refused_or_survives_a_crash(
    tmp_path: Path,
) -> None:
    """`> event.sqlite-wal` (or `truncate -s 0`) keeps the -wal's inode: SQLite goes on
    writing its frames after a hole, and a crash then finds no valid -wal at all. An action
    after it is either refused, or in what a kill -9 would leave."""
    service, _ = make_service(tmp_path, delay=0.0)
    path = Path(service.journal.path)
    play_moves(service, GAME, ["e4", "e5", "Nf3"])
    wal = path.with_name(path.name + "-wal")
    assert wal.stat().st_size > 0
    os.truncate(wal, 0)
    service.tick()
    try:
        acting.mark_present(service, GAME, "white", "arbiter:ana")
    except NotDurable:
        return  # refused: nothing acknowledged
    crash = tmp_path / "crash"  # what a kill -9 now would leave
    crash.mkdir()
    for name in (path.name, wal.name):
        if (path.parent / name).exists():
            shutil.copyfile(path.parent / name, crash / name)
    register_all()
    reader = Journal(crash / path.name, readonly=True)
    kinds = [type(e.event).__name__ for e in reader.read()]
    reader.close()
    assert "PlayerMarkedPresent" in kinds, "acknowledged, then lost by a crash"


# -- what SQLite recovers is not refused ------------------------------------------------------


def _wal_frames(wal: bytes) -> list[tuple[int, int]]:
    """(page number, offset of the page's bytes) of each frame of a -wal, in order."""
    page_size = int.from_bytes(wal[8:12], "big")
    frames, at = [], 32
    while at + 24 + page_size <= len(wal):
        frames.append((int.from_bytes(wal[at : at + 4], "big"), at + 24))
        at += 24 + page_size
    return frames


def _killed_during_a_checkpoint(folder: Path) -> Path:
    """A journal as a kill -9 leaves it in the middle of a checkpoint: the -wal holds the
    newest pages, page 1 of the file was already copied from it (a checkpoint copies
    pages in order), the file is not yet as long as that page 1 says."""
    register_all()
    live = folder / "live"
    live.mkdir()
    path = live / "j.sqlite"
    journal = Journal(path)
    journal.set_meta("event", "Pamplona Masters")
    journal.append([BoardLost(float(n), f"{10000 + n:05d}", "before") for n in range(50)], 1.0)
    journal.close()  # checkpointed: the file holds all of it
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA wal_autocheckpoint=0")
    db.execute("PRAGMA synchronous=OFF")  # test data: no fsync needed
    for first in range(50, 1550, 10):  # many commits, the file grows by dozens of pages
        db.execute("BEGIN")
        db.executemany(
            "INSERT INTO events VALUES (?, ?, 'BoardLost', ?)",
            [
                (n + 1, 2.0, f'{{"t":{n}.0,"board":"{10000 + n:05d}","reason":"in the wal"}}')
                for n in range(first, first + 10)
            ],
        )
        db.execute("COMMIT")
    crash = folder / "crash"
    crash.mkdir()
    image = crash / "j.sqlite"
    shutil.copyfile(path, image)
    shutil.copyfile(path.with_name("j.sqlite-wal"), crash / "j.sqlite-wal")
    db.close()
    wal = (crash / "j.sqlite-wal").read_bytes()
    page_size = int.from_bytes(wal[8:12], "big")
    page1 = [at for number, at in _wal_frames(wal) if number == 1][-1]
    with image.open("r+b") as f:
        f.write(wal[page1 : page1 + page_size])
    says = int.from_bytes(wal[page1 + 28 : page1 + 32], "big") * page_size
    assert image.stat().st_size < says  # the state the test is about
    return image


def test_a_journal_killed_during_a_checkpoint_opens_and_reads_whole(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    image = _killed_during_a_checkpoint(tmp_path)
    reader = Journal(image, readonly=True)  # as `standings` and `export` open it
    assert [e.seq for e in reader.read()] == list(range(1, 1551))
    reader.close()
    code = main(["export", str(EVENT), "--db", str(image), "--pgn", str(tmp_path / "x.pgn")])
    assert code == 0, capsys.readouterr().err
    journal = Journal(image)  # as `serve` opens it after the crash
    assert journal.last_seq() == 1550
    journal.close()


# -- an absent journal with a -wal beside it ---------------------------------------------------


def test_an_absent_journal_with_a_wal_beside_it_is_refused_untouched(tmp_path: Path) -> None:
    """`rm event.sqlite` after a crash leaves its -wal: a new journal there would have
    SQLite lay that -wal's pages over it. Refused, the -wal as it was."""
    image = _killed_during_a_checkpoint(tmp_path)
    folder = image.parent
    image.unlink()
    before = _journal_files(folder, image.name)
    assert f"{image.name}-wal" in before
    with pytest.raises(JournalError):
        Journal(image)
    assert _journal_files(folder, image.name) == before


# -- a second writer -----------------------------------------------------------------------------


def _writer(path: Path) -> subprocess.Popen[str]:
    script = textwrap.dedent(
        f"""
        from broadcast.journal.kinds import register_all
        from boards.driver_events import BoardLost
        from broadcast.journal.store import Journal
        register_all()
        j = Journal({str(path)!r})
        j.set_meta("event", "Pamplona Masters")
        j.append([BoardLost(1.0, "01001", "first writer")], 1.0)
        print("ready", flush=True)
        import time; time.sleep(60)
        """
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, env=os.environ
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    return proc


def test_a_second_writer_is_refused_after_a_cleanup_deleted_the_lock(tmp_path: Path) -> None:
    """A cleanup (`rm -f *.lock`, a sync tool) may delete whatever file marks the first
    writer; the second writer must be refused all the same, nothing written."""
    folder = tmp_path / "db"
    folder.mkdir()
    path = folder / "j.sqlite"
    first = _writer(path)
    try:
        for other in folder.iterdir():
            if other.name not in (path.name, f"{path.name}-wal", f"{path.name}-shm"):
                other.unlink()  # the cleanup
        before = _journal_files(folder, path.name)
        with pytest.raises(JournalError, match=f"PID {first.pid}"):
            Journal(path)
        assert _journal_files(folder, path.name) == before
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait()
        if first.stdout is not None:
            first.stdout.close()
