"""Inspecting a journal file before anything opens it: decide first, then write.

Opening never changes a file that is not ours, nor one of ours that is refused. The
header is checked first; an SQLite file is then read with `immutable=1` (no -wal, no -shm
created or rewritten, no lock). A boardwire journal has our tables (`meta`, `events`, and
from schema 2 `snapshots`), our schema version and nothing else; a new journal is an
absent or empty file, or an SQLite file with no schema objects at all and user_version 0
and no application id. Anything else is refused untouched, and so is a journal of
another event (`event`), and one that is damaged (SQLite's `quick_check`, a file cut
short), in words that say which: a damaged journal is never called "not a boardwire
journal". What SQLite recovers is not refused: a file cut short or unreadable alone, with
a -wal beside it (a crash during a checkpoint), is judged from a copy of the two files,
as SQLite will read them. An absent journal with a -wal beside it is refused (SQLite
would lay that -wal over the new, empty one). Permission problems and read-only
filesystems are named as such.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import tempfile
from dataclasses import dataclass
from pathlib import Path

from broadcast.journal.errors import JournalDamaged, JournalError

READABLE_VERSIONS = ("1", "2")  # 1 is migrated on opening (it lacks the snapshots table)
SCHEMA_VERSION = 2
OUR_TABLES = {"meta", "events", "snapshots"}
OUR_TABLES_V1 = {"meta", "events"}
OUR_INDEXES = {"sqlite_autoindex_meta_1"}  # meta's TEXT PRIMARY KEY
EVENT_COLUMNS = ["seq", "t", "kind", "body"]
SQLITE_MAGIC = b"SQLite format 3\x00"
QUICK_CHECK_LINES = 3  # problems named in the one line (SQLite can list thousands)


def read_only_filesystem(folder: Path) -> bool:
    """True if `folder` is on a filesystem mounted read-only."""
    try:
        return bool(os.statvfs(folder).f_flag & os.ST_RDONLY)
    except OSError:
        return False


def _siblings(path: Path) -> list[Path]:
    return [path.with_name(path.name + s) for s in ("-wal", "-shm", "-journal")]


def _nonempty(path: Path) -> bool:
    try:
        return path.stat().st_size > 0
    except OSError:
        return False


@dataclass(frozen=True, slots=True)
class _Schema:
    tables: frozenset[str]
    others: frozenset[str]  # views, triggers, indexes other than our own
    user_version: int
    application_id: int
    columns: tuple[str, ...]
    version: str | None
    event: str | None = None  # the event the journal belongs to (meta 'event')
    problems: tuple[str, ...] = ()  # what quick_check found (nothing: it is sound)


def _schema(problems: tuple[str, ...]) -> _Schema:
    return _Schema(frozenset(), frozenset(), 0, 0, (), None, None, problems)


def _read_schema(uri: str) -> _Schema:
    probe = sqlite3.connect(uri, uri=True)
    try:
        objects = probe.execute("SELECT type, name FROM sqlite_master").fetchall()
        tables = frozenset(str(n) for kind, n in objects if kind == "table")
        others = frozenset(
            f"{kind} {n}"
            for kind, n in objects
            if kind != "table" and not (kind == "index" and n in OUR_INDEXES)
        )
        user_version = int(probe.execute("PRAGMA user_version").fetchone()[0])
        application_id = int(probe.execute("PRAGMA application_id").fetchone()[0])
        columns: tuple[str, ...] = ()
        version = event = None
        problems: tuple[str, ...] = ()
        if tables in (OUR_TABLES, OUR_TABLES_V1) and not others:
            columns = tuple(str(r[1]) for r in probe.execute("PRAGMA table_info(events)"))
            meta = dict(probe.execute("SELECT key, value FROM meta").fetchall())
            version = None if meta.get("schema_version") is None else str(meta["schema_version"])
            event = None if meta.get("event") is None else str(meta["event"])
            # Ours: is every page of it sound? (0.1 s for 160 MB: every start can afford it)
            try:
                found = [
                    str(r[0]) for r in probe.execute(f"PRAGMA quick_check({QUICK_CHECK_LINES + 1})")
                ]
            except sqlite3.DatabaseError as exc:
                found = [str(exc)]
            problems = tuple(p for p in found if p != "ok" and not p.startswith("*** in database"))
        return _Schema(
            tables, others, user_version, application_id, columns, version, event, problems
        )
    finally:
        probe.close()


def _schema_of_copy(path: Path) -> _Schema:
    """The schema of a crashed WAL database as SQLite would recover it, read from a copy
    (the database and its -wal) so that nothing of the original is touched."""
    with tempfile.TemporaryDirectory(prefix="boardwire-inspect-") as tmp:
        copy = Path(tmp) / "copy.sqlite"
        shutil.copyfile(path, copy)
        wal = path.with_name(path.name + "-wal")
        if wal.exists():
            shutil.copyfile(wal, Path(tmp) / "copy.sqlite-wal")
        return _read_schema(copy.as_uri())


def cut_short(path: Path, header: bytes) -> str | None:
    """'cut short: N of the M bytes its header says' when the file is shorter than the
    database its header describes (a copy or a disk that stopped part way), else None."""
    if len(header) < 100:
        return None
    page_size = int.from_bytes(header[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    pages = int.from_bytes(header[28:32], "big")
    # The page count is valid only if written by the same change as the change counter.
    if header[92:96] != header[24:28] or not pages or not page_size:
        return None
    try:
        size = path.stat().st_size
    except OSError:
        return None
    expected = pages * page_size
    if size >= expected:
        return None
    return f"cut short: {size} of the {expected} bytes its header says"


def _damaged(where: str, what: str) -> JournalDamaged:
    return JournalDamaged(
        f"{where}: the journal is damaged ({what}); it was left untouched: start from a copy "
        "made before the damage (your backup, or a .rescued- copy boardwire wrote beside "
        "it), or give another --db"
    )


def inspect_journal(path: Path, *, readonly: bool = False, event: str | None = None) -> str | None:
    """Inspect `path` without changing it (or its -wal/-shm): None if it is new (absent,
    empty, or an SQLite file with nothing in it), our schema version if it is a boardwire
    journal we can use (of `event`, when given); JournalError otherwise, with one line for
    the user (JournalDamaged when it is damaged)."""
    where = str(path)
    if path.is_dir():
        raise JournalError(f"{where} is a folder: give a journal file, e.g. event.sqlite")
    folder = path.parent if str(path.parent) else Path(".")
    if not path.exists():
        if not folder.is_dir():
            raise JournalError(f"{where}: the folder {folder} does not exist")
        if readonly:
            raise JournalError(f"{where}: no journal there")
        if _nonempty(_siblings(path)[0]):
            # SQLite would lay that -wal's pages over the new, empty journal.
            raise JournalError(
                f"{where} does not exist, but its -wal does (the journal deleted or moved "
                "after a crash?); both were left untouched: put the journal back, or give "
                "another --db"
            )
        _check_writable(path, folder, exists=False)
        return None
    if not os.access(path, os.R_OK):
        raise JournalError(f"{where}: permission denied: cannot read the journal")
    try:
        with path.open("rb") as f:
            header = f.read(100)
    except OSError as exc:
        raise JournalError(f"{where}: cannot read it ({exc.strerror or exc})") from None
    if not header:
        if any(_nonempty(s) for s in _siblings(path)):
            raise JournalError(
                f"{where} is empty but has a -wal or -journal file beside it (another "
                "program's database that crashed?); it was left untouched: give another --db"
            )
        if not readonly:
            _check_writable(path, folder, exists=True)
        return None
    if len(header) < 100 or not header.startswith(SQLITE_MAGIC):
        raise JournalError(
            f"{where} is not a boardwire journal (not an SQLite database; it was left "
            "untouched): give another --db"
        )
    short = cut_short(path, header)
    wal = _nonempty(_siblings(path)[0])
    try:
        if wal and short:
            # A crash during a checkpoint: the -wal holds what the file does not yet.
            schema, short = _schema_of_copy(path), None
        else:
            try:
                schema = _read_schema(f"{path.resolve().as_uri()}?mode=ro&immutable=1")
            except sqlite3.DatabaseError:
                if not wal:
                    raise
                schema = _schema(problems=("unreadable without its -wal",))
            if wal and (schema.problems or (not schema.tables and not schema.others)):
                schema = _schema_of_copy(path)  # what SQLite recovers with the -wal
    except sqlite3.DatabaseError as exc:
        # An SQLite file whose schema cannot be read: damaged, whoever's it is.
        raise JournalDamaged(
            f"{where} is a damaged SQLite database ({exc}{'; ' + short if short else ''}); "
            "it was left untouched: if it is this event's journal, start from a copy made "
            "before the damage (your backup, or a .rescued- copy boardwire wrote beside it); "
            "else give another --db"
        ) from None
    except OSError as exc:
        raise JournalError(f"{where}: cannot read it ({exc.strerror or exc})") from None
    empty = (
        not schema.tables
        and not schema.others
        and schema.user_version == 0
        and schema.application_id == 0
    )
    if empty:
        if short:
            raise _damaged(where, short)
        if not readonly:
            _check_writable(path, folder, exists=True)
        return None
    if schema.tables not in (OUR_TABLES, OUR_TABLES_V1) or schema.others:
        held = sorted(schema.tables) + sorted(schema.others)
        what = (
            f"it holds {', '.join(held)}"
            if held
            else f"it has user_version {schema.user_version}, application_id "
            f"{schema.application_id}"
        )
        raise JournalError(
            f"{where} is not a boardwire journal ({what}; it was left untouched): give another --db"
        )
    if list(schema.columns) != EVENT_COLUMNS or schema.version is None:
        raise JournalError(
            f"{where} holds tables but no boardwire schema version (left untouched): "
            "give another --db"
        )
    if schema.version not in READABLE_VERSIONS:
        raise JournalError(
            f"{where} has journal schema {schema.version}, this boardwire reads "
            f"{SCHEMA_VERSION}; use the matching boardwire version or start a new journal "
            "with --db"
        )
    if event is not None and schema.event is not None and schema.event != event:
        raise JournalError(
            f"the journal {where} belongs to the event {schema.event!r}, not {event!r}: "
            "give this event its own journal with --db"
        )
    if schema.problems or short:
        found = list(schema.problems[:QUICK_CHECK_LINES]) + ([short] if short else [])
        raise _damaged(where, "; ".join(found))
    if not readonly:
        _check_writable(path, folder, exists=True)
    return schema.version


def _check_writable(path: Path, folder: Path, *, exists: bool) -> None:
    if read_only_filesystem(folder):
        raise JournalError(
            f"{path}: the filesystem holding {folder} is mounted read-only, so boardwire "
            "cannot write its journal there: remount it read-write, or give --db on a "
            "writable disk"
        )
    if exists and not os.access(path, os.W_OK):
        raise JournalError(f"{path}: permission denied: the journal is read-only")
    if not os.access(folder, os.W_OK | os.X_OK):
        # WAL mode keeps two files next to the journal (-wal, -shm), and the lock file.
        raise JournalError(f"{path}: permission denied: cannot create files in {folder}")


__all__ = [
    "EVENT_COLUMNS",
    "OUR_INDEXES",
    "OUR_TABLES",
    "OUR_TABLES_V1",
    "READABLE_VERSIONS",
    "SCHEMA_VERSION",
    "SQLITE_MAGIC",
    "cut_short",
    "inspect_journal",
    "read_only_filesystem",
]
