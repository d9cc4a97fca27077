"""Another program's SQLite file is left byte for byte, siblings included: a WAL database
(clean or crashed, with its -wal and -shm), a database with only a view, or only a
user_version or application_id, is refused and not taken over; only an empty file or an
SQLite file with nothing in it becomes a journal. A journal whose event boardwire cannot
read (a newer boardwire's kind, a damaged row) is one clear line and exit 2 for every
command; a read-only filesystem is named as such."""

from __future__ import annotations

import hashlib
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from broadcast.cli import main
from broadcast.journal.store import Journal, JournalError
from tests.support.paths import ROOT

EVENT = ROOT / "examples" / "pamplona-masters.toml"


def _digest(folder: Path) -> dict[str, str]:
    """Every file of the folder (the database and its -wal, -shm, -journal) by content."""
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "db"
    folder.mkdir()
    return folder


def _wal_database(path: Path) -> None:
    db = sqlite3.connect(path)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("CREATE TABLE ledger (id INTEGER PRIMARY KEY, amount REAL)")
    db.executemany("INSERT INTO ledger (amount) VALUES (?)", [(i * 1.5,) for i in range(500)])
    db.commit()
    db.close()


def _crashed_wal_database(path: Path) -> None:
    """Another program's WAL database killed mid-work: its -wal and -shm stay behind."""
    script = textwrap.dedent(
        f"""
        import os, sqlite3
        db = sqlite3.connect({str(path)!r})
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA wal_autocheckpoint=0")
        db.execute("CREATE TABLE ledger (id INTEGER PRIMARY KEY, amount REAL)")
        db.commit()
        for i in range(200):
            db.execute("INSERT INTO ledger (amount) VALUES (?)", (i,))
            db.commit()
        print("ready", flush=True)
        import time; time.sleep(60)
        """
    )
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    proc.stdout.close()


def _plain_database(path: Path, *statements: str) -> None:
    db = sqlite3.connect(path)
    for statement in statements:
        db.execute(statement)
    db.commit()
    db.close()


FOREIGN = {
    "wal": _wal_database,
    "crashed-wal": _crashed_wal_database,
    "view-only": lambda p: _plain_database(p, "CREATE VIEW totals AS SELECT 1 AS one"),
    "user-version-only": lambda p: _plain_database(p, "PRAGMA user_version = 7"),
    "application-id-only": lambda p: _plain_database(p, "PRAGMA application_id = 1234"),
}


@pytest.mark.parametrize("kind", sorted(FOREIGN))
def test_a_foreign_database_is_refused_byte_for_byte(tmp_path: Path, kind: str) -> None:
    folder = _folder(tmp_path)
    path = folder / "other.sqlite"
    FOREIGN[kind](path)
    if kind == "crashed-wal":
        assert {p.name for p in folder.iterdir()} >= {"other.sqlite-wal", "other.sqlite-shm"}
    before = _digest(folder)
    with pytest.raises(JournalError, match="not a boardwire journal"):
        Journal(path)
    assert _digest(folder) == before  # no new -wal/-shm, the old ones as they were
    with pytest.raises(JournalError, match="not a boardwire journal"):
        Journal(path, readonly=True)  # as `standings` and `export` open it
    assert _digest(folder) == before


def test_an_sqlite_file_with_nothing_in_it_becomes_a_journal(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    _plain_database(path, "CREATE TABLE t (a)", "DROP TABLE t")
    assert path.stat().st_size > 0
    journal = Journal(path)
    assert journal.meta("schema_version") == "2"
    journal.close()


def test_our_journal_crashed_before_its_first_checkpoint_reopens(tmp_path: Path) -> None:
    """Its schema is only in the -wal: the inspection reads a copy, and it is ours."""
    path = tmp_path / "j.sqlite"
    script = textwrap.dedent(
        f"""
        from broadcast.journal.kinds import register_all
        from boards.driver_events import BoardLost
        from broadcast.journal.store import Journal
        register_all()
        j = Journal({str(path)!r})
        j.append([BoardLost(1.0, "01001", "test")], 1.0)
        print("ready", flush=True)
        import time; time.sleep(60)
        """
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, env=os.environ
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    proc.stdout.close()
    from broadcast.journal.kinds import register_all

    register_all()
    journal = Journal(path)
    assert [e.seq for e in journal.read()] == [1]
    journal.close()


# -- a journal boardwire cannot read ----------------------------------------------------------


def _journal_with(tmp_path: Path, kind: str, body: str) -> Path:
    from boards.driver_events import BoardLost
    from broadcast.journal.kinds import register_all

    register_all()
    path = tmp_path / "j.sqlite"
    journal = Journal(path)
    journal.set_meta("event", "Pamplona Masters")
    journal.append([BoardLost(1.0, "01001", "test")], 1.0)
    journal.close()
    db = sqlite3.connect(path)
    db.execute("INSERT INTO events VALUES (2, 2.0, ?, ?)", (kind, body))
    db.commit()
    db.close()
    return path


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(argv)
    err = capsys.readouterr().err
    assert "Traceback" not in err and "internal error" not in err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, lines
    return code, lines[0]


@pytest.mark.parametrize(
    ("kind", "body"),
    [
        ("GameTeleported", '{"game":"x"}'),  # a kind from a newer boardwire
        ("BoardLost", '{"t":1.0,"board":"01001","reason":"x","colour":"red"}'),  # a new field
        ("BoardLost", "{not json"),  # a damaged row
        ("BoardLost", "[1, 2]"),
    ],
)
@pytest.mark.parametrize("command", ["serve", "standings", "export"])
def test_an_unreadable_event_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str, body: str, command: str
) -> None:
    db = _journal_with(tmp_path, kind, body)
    argv = {
        "serve": ["serve", str(EVENT), "--db", str(db), "--port", "1"],
        "standings": ["standings", "--event", str(EVENT), "--db", str(db)],
        "export": ["export", str(EVENT), "--db", str(db), "--pgn", str(tmp_path / "out.pgn")],
    }[command]
    code, line = _run(argv, capsys)
    assert code == 2
    assert "event 2 cannot be read" in line and "newer boardwire" in line


# -- a read-only filesystem ---------------------------------------------------------------------


def _mount(where: Path) -> bool:
    where.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(where)],
        capture_output=True,
        check=False,
    )
    return done.returncode == 0


def test_a_read_only_filesystem_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Needs root to mount a filesystem; elsewhere the check is the same `statvfs` flag."""
    disk = tmp_path / "disk"
    if not _mount(disk):
        pytest.skip("cannot mount a tmpfs here (not root)")
    try:
        Journal(disk / "j.sqlite").close()
        subprocess.run(["mount", "-o", "remount,ro", str(disk)], check=True)
        before = _digest(disk)
        with pytest.raises(JournalError, match="mounted read-only"):
            Journal(disk / "j.sqlite")
        with pytest.raises(JournalError, match="mounted read-only"):
            Journal(disk / "new.sqlite")
        code, line = _run(["serve", str(EVENT), "--db", str(disk / "j.sqlite")], capsys)
        assert code == 2 and "read-only" in line and "cannot read" not in line
        assert _digest(disk) == before
        reader = Journal(disk / "j.sqlite", readonly=True)  # reading it still works
        assert reader.last_seq() == 0
        reader.close()
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)
