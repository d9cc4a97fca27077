"""Opening a journal changes nothing that is not ours: a foreign SQLite file (even one
with a `meta` table) is refused byte for byte untouched, and permission problems say so."""

from __future__ import annotations

import hashlib
import os
import sqlite3
from pathlib import Path

import pytest

from broadcast.journal.store import Journal, JournalError


def _digest(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


def _foreign(path: Path, *tables: str) -> None:
    db = sqlite3.connect(path)
    for table in tables:
        db.execute(f"CREATE TABLE {table} (key TEXT, value TEXT)")
    db.execute(f"INSERT INTO {tables[0]} VALUES ('owner', 'accounting')")
    db.commit()
    db.close()


@pytest.mark.parametrize("tables", [("customers",), ("meta",), ("meta", "events")])
def test_a_foreign_database_is_left_untouched(tmp_path: Path, tables: tuple[str, ...]) -> None:
    folder = tmp_path / "db"
    folder.mkdir()
    path = folder / "other.sqlite"
    _foreign(path, *tables)
    before = _digest(folder)
    with pytest.raises(JournalError, match="boardwire"):
        Journal(path)
    assert _digest(folder) == before  # no WAL switch, no table, no -wal/-shm files
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    db.close()


def test_a_file_that_is_not_sqlite_is_untouched(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_bytes(b"shopping list\n" * 200)
    with pytest.raises(JournalError, match="not a boardwire journal"):
        Journal(path)
    assert path.read_bytes() == b"shopping list\n" * 200


def test_our_journal_reopens_with_its_events(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    journal = Journal(path)
    journal.set_meta("event", "Test Open")
    journal.close()
    again = Journal(path)
    assert again.meta("event") == "Test Open"
    again.close()


def test_an_empty_file_becomes_a_journal(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    path.touch()
    Journal(path).close()
    assert Journal(path).last_seq() == 0


def test_a_read_only_journal_says_permission_denied(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "j.sqlite"
    Journal(path).close()
    os.chmod(path, 0o444)
    real_access = os.access

    def access(target: object, mode: int, **kw: object) -> bool:
        # As root (CI containers) chmod alone does not bite: deny writing like a user's would.
        if Path(str(target)) == path and mode & os.W_OK:
            return False
        return real_access(target, mode)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "access", access)
    with pytest.raises(JournalError, match="permission denied"):
        Journal(path)


def test_a_folder_or_missing_folder_is_named(tmp_path: Path) -> None:
    with pytest.raises(JournalError, match="is a folder"):
        Journal(tmp_path)
    with pytest.raises(JournalError, match="does not exist"):
        Journal(tmp_path / "nope" / "j.sqlite")
