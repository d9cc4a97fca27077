"""The players of a section, from its config entries or the player list it names.

A list is a CSV file (a header line naming the columns) or a TRF-16 file as Vega or
Swiss-Manager export it (only its 001 player lines are used, not the rounds). Every
row is checked, and each mistake is reported with the line of the file it is on.
"""

from __future__ import annotations

import csv
import difflib
import io
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from broadcast.config.errors import ConfigIssue
from broadcast.config.locate import KeyPath, line_of
from broadcast.config.model import PlayerEntry
from broadcast.config.reader import MAX_ENTRIES, MAX_STRING, TomlReader, choices_text
from broadcast.fide.trf import read_trf
from broadcast.text import clean_text

__all__ = [
    "CSV_COLUMNS",
    "MAX_FILE_BYTES",
    "PLAYER_KEYS",
    "csv_rows",
    "decode_list",
    "player_entries",
    "read_limited",
    "read_trf_players",
    "resolve_file",
    "section_players",
    "trf_rows",
]

PLAYER_KEYS = ("number", "name", "rating", "fide_id", "federation", "title", "sex", "birth")
CSV_COLUMNS = PLAYER_KEYS
# A config is a few kilobytes, a player list of a few thousand players well under a
# megabyte; a far bigger file is a mistake and must not reach memory.
MAX_FILE_BYTES = 8 * 1024 * 1024  # the TOML file and each player list


def decode_list(data: bytes) -> tuple[str, str]:
    """A player list's text and its encoding: UTF-8 (with or without BOM) is expected;
    Windows-1252/Latin-1, as older pairing programs export, is recognised."""
    try:
        return data.decode("utf-8-sig"), "utf-8"
    except UnicodeDecodeError:
        pass
    try:
        return data.decode("cp1252"), "windows-1252"
    except UnicodeDecodeError:
        return data.decode("latin-1"), "latin-1"


def read_limited(file: Path) -> bytes:
    """A file's bytes; ValueError with a plain message if it is too large or unreadable."""
    try:
        with file.open("rb") as handle:
            data = handle.read(MAX_FILE_BYTES + 1)
    except FileNotFoundError:
        raise
    except IsADirectoryError:
        raise ValueError("is a folder, not a file") from None
    except PermissionError:
        raise ValueError("permission denied") from None
    except OSError as exc:
        raise ValueError(exc.strerror or str(exc)) from None
    if len(data) > MAX_FILE_BYTES:
        raise ValueError(f"larger than {MAX_FILE_BYTES // (1024 * 1024)} MB")
    return data


def section_players(
    reader: TomlReader, raw: dict[str, Any], at: KeyPath
) -> tuple[PlayerEntry, ...]:
    """A section's players, from its one source: `[[section.player]]` entries,
    `players_csv` or `players_trf` (paths relative to the config file)."""
    sources = [k for k in ("player", "players_csv", "players_trf") if k in raw]
    if len(sources) > 1:
        reader.error(
            (*at, sources[1]),
            f"players are given twice ({' and '.join(sources)})",
            "use one source: [[section.player]] entries, players_csv or players_trf",
        )
        return ()
    rows: list[tuple[dict[str, Any], ConfigIssue]] = []
    # (row index, key) -> line, for players given inline (CSV and TRF rows have one
    # line each); per section, so that no other section's lines name these rows.
    key_lines: dict[tuple[int, str], int | None] = {}
    if "player" in raw:
        for i, entry in enumerate(reader.get_array_of_tables(raw, "player", at)):
            here: KeyPath = (*at, "player", i)
            reader.unknown_keys(entry, PLAYER_KEYS, here)
            rows.append((entry, ConfigIssue(reader.path, line_of(reader.lines, here), "")))
            for key in entry:
                key_lines[(len(rows) - 1, key)] = line_of(reader.lines, (*here, key))
    elif "players_csv" in raw:
        rows = csv_rows(reader, raw, at)
    elif "players_trf" in raw:
        rows = trf_rows(reader, raw, at)
    return player_entries(reader, rows, key_lines)


def resolve_file(reader: TomlReader, raw: dict[str, Any], key: str, at: KeyPath) -> Path | None:
    """The player file `raw[key]` names, resolved against the config's folder; None
    (reported) if it is not given or not a file."""
    name = reader.get_str(raw, key, at, required=True, example="players/open.csv")
    if not name:
        return None
    file = (reader.base / name).resolve()
    if not file.is_file():
        reader.error(
            (*at, key),
            f"{key} file {name!r} not found (looked at {file})",
            "paths are relative to the config file",
        )
        return None
    return file


def csv_rows(
    reader: TomlReader, raw: dict[str, Any], at: KeyPath
) -> list[tuple[dict[str, Any], ConfigIssue]]:
    """(fields, where) for each row of the `players_csv` file; its mistakes reported."""
    file = resolve_file(reader, raw, "players_csv", at)
    if file is None:
        return []
    try:
        text, _encoding = decode_list(read_limited(file))
    except ValueError as exc:
        reader.issues.append(ConfigIssue(file, None, f"cannot read the player list: {exc}"))
        return []
    try:
        return _csv_records(reader, file, text)
    except csv.Error as exc:
        reader.issues.append(
            ConfigIssue(file, None, f"not a readable CSV file: {exc}", "save it as CSV (UTF-8)")
        )
        return []


def _csv_records(
    reader: TomlReader, file: Path, text: str
) -> list[tuple[dict[str, Any], ConfigIssue]]:
    records = csv.DictReader(io.StringIO(text))
    header = [h.strip() for h in records.fieldnames or []]
    if "name" not in header:
        reader.issues.append(
            ConfigIssue(
                file,
                1,
                "the player list has no 'name' column",
                f"first line must name the columns, e.g. number,name,rating,fide_id,federation,title ({choices_text(CSV_COLUMNS)})",
            )
        )
        return []
    for column in header:
        if column not in CSV_COLUMNS:
            close = difflib.get_close_matches(column, CSV_COLUMNS, n=1)
            reader.issues.append(
                ConfigIssue(
                    file,
                    1,
                    f"unknown column {column!r}",
                    f"did you mean {close[0]!r}?"
                    if close
                    else f"columns: {choices_text(CSV_COLUMNS)}",
                )
            )
    rows: list[tuple[dict[str, Any], ConfigIssue]] = []
    for record in records:
        line = records.line_num
        if len(rows) >= MAX_ENTRIES:
            reader.issues.append(
                ConfigIssue(file, line, f"more than {MAX_ENTRIES} players", "split the list")
            )
            break
        values: dict[str, Any] = {}
        for key, value in record.items():
            if key is None or not isinstance(value, str):
                continue
            key = key.strip()
            value = clean_text(value)
            if not value:
                continue
            if len(value) > MAX_STRING:
                reader.issues.append(
                    ConfigIssue(
                        file,
                        line,
                        f"{key} is {len(value)} characters long",
                        f"at most {MAX_STRING} characters",
                    )
                )
                continue
            if key in ("number", "rating"):
                if not (value.isascii() and value.isdigit() and len(value) <= 9):
                    reader.issues.append(
                        ConfigIssue(
                            file, line, f"{key} {value!r} is not a whole number", "e.g. 2450"
                        )
                    )
                    continue
                values[key] = int(value)
            else:
                values[key] = value
        if not values:
            continue  # blank line
        rows.append((values, ConfigIssue(file, line, "")))
    return rows


def read_trf_players(text: str) -> list[tuple[int | None, dict[str, Any]]]:
    """(line, player fields) for every 001 line; raises ValueError (TrfError) if the
    file cannot be read."""
    file = read_trf(text)
    lines = [i for i, line in enumerate(text.splitlines(), start=1) if line.startswith("001")]
    out: list[tuple[int | None, dict[str, Any]]] = []
    for index, player in enumerate(file.crosstable.players):
        values: dict[str, Any] = {"number": player.start, "name": player.name}
        if player.rating:
            values["rating"] = player.rating
        if player.fide_id:
            values["fide_id"] = str(player.fide_id)
        for key in ("federation", "title", "sex", "birth"):
            value = getattr(player, key)
            if value:
                values[key] = value
        out.append((lines[index] if index < len(lines) else None, values))
    return out


def trf_rows(
    reader: TomlReader, raw: dict[str, Any], at: KeyPath
) -> list[tuple[dict[str, Any], ConfigIssue]]:
    """(fields, where) for each 001 line of the `players_trf` file; its mistakes reported."""
    file = resolve_file(reader, raw, "players_trf", at)
    if file is None:
        return []
    rows: list[tuple[dict[str, Any], ConfigIssue]] = []
    try:
        found = read_trf_players(decode_list(read_limited(file))[0])
    except ValueError as exc:
        reader.issues.append(
            ConfigIssue(
                file,
                None,
                f"cannot read the TRF player list: {exc}",
                "export TRF-16 from the pairing program",
            )
        )
        return []
    for line, values in found[: MAX_ENTRIES + 1]:
        values = {k: clean_text(v) if isinstance(v, str) else v for k, v in values.items()}
        rows.append((values, ConfigIssue(file, line, "")))
    if len(rows) > MAX_ENTRIES:
        reader.issues.append(ConfigIssue(file, None, f"more than {MAX_ENTRIES} players"))
        return []
    return rows


def player_entries(
    reader: TomlReader,
    rows: list[tuple[dict[str, Any], ConfigIssue]],
    key_lines: Mapping[tuple[int, str], int | None],
) -> tuple[PlayerEntry, ...]:
    """The checked players of `rows` (fields, and where the row is), sorted by number;
    `key_lines` gives the line of a key where a row spans several (inline entries)."""
    entries: list[PlayerEntry] = []
    numbers: dict[int, ConfigIssue] = {}
    # The same player listed twice (a copied CSV line, a second registration): by name
    # (case and spacing aside) and by FIDE id, each with the line it was first seen on.
    names: dict[str, tuple[str, int | None]] = {}
    fide_ids: dict[str, tuple[str, int | None]] = {}
    explicit = [values for values, _ in rows if "number" in values]
    if explicit and len(explicit) != len(rows):
        first = next(where for values, where in rows if "number" not in values)
        reader.issues.append(
            ConfigIssue(
                first.file,
                first.line,
                "some players have a number and some do not",
                "give every player a starting number, or none (list order is then used)",
            )
        )
        return ()
    for position, (values, row) in enumerate(rows, start=1):

        def at_key(key: str, row: ConfigIssue = row, index: int = position - 1) -> ConfigIssue:
            line = key_lines.get((index, key), row.line)
            return ConfigIssue(row.file, line, "")

        where = row
        name = values.get("name")
        if not isinstance(name, str) or not name.strip():
            reader.issues.append(
                ConfigIssue(
                    where.file,
                    where.line,
                    "a player has no name",
                    'add name = "Surname, Given"',
                )
            )
            continue
        name = clean_text(name)
        if len(name) > MAX_STRING or not name:
            reader.issues.append(
                ConfigIssue(
                    where.file,
                    at_key("name").line,
                    f"a player's name is {len(name)} characters long"
                    if name
                    else "a player's name is only control characters",
                    f"at most {MAX_STRING} characters",
                )
            )
            continue
        number = values.get("number", position)
        rating = values.get("rating", 0)
        if isinstance(number, bool) or not isinstance(number, int) or number < 1:
            reader.issues.append(
                ConfigIssue(
                    where.file,
                    at_key("number").line,
                    f"{name}: number {number!r} is not a starting number",
                    "use 1, 2, 3, ...",
                )
            )
            continue
        if isinstance(rating, bool) or not isinstance(rating, int) or not 0 <= rating <= 4000:
            reader.issues.append(
                ConfigIssue(
                    where.file,
                    at_key("rating").line,
                    f"{name}: rating {rating!r} is not valid",
                    "a whole number such as 2450, or 0 if unrated",
                )
            )
            continue
        if number in numbers:
            reader.issues.append(
                ConfigIssue(
                    where.file,
                    at_key("number").line,
                    f"{name}: starting number {number} is already used (line {numbers[number].line})",
                    "each player needs a unique number",
                )
            )
            continue
        numbers[number] = where
        fields = {
            k: clean_text(str(values.get(k, "")))[:MAX_STRING]
            for k in ("fide_id", "federation", "title", "sex", "birth")
        }
        if fields["fide_id"] and not fields["fide_id"].isdigit():
            reader.issues.append(
                ConfigIssue(
                    where.file,
                    at_key("fide_id").line,
                    f"{name}: FIDE id {fields['fide_id']!r} is not a number",
                    "e.g. 2200140",
                )
            )
            continue
        line = at_key("name").line
        twice = _listed_twice(name, fields["fide_id"], line, names, fide_ids)
        if twice:
            reader.issues.append(
                ConfigIssue(
                    where.file,
                    line,
                    twice,
                    "remove the duplicate entry; two different players need different names "
                    "and FIDE ids",
                )
            )
            continue
        entries.append(PlayerEntry(number=number, name=name.strip(), rating=rating, **fields))
    if entries:
        expected = set(range(1, len(entries) + 1))
        if {e.number for e in entries} != expected and len(entries) == len(rows):
            last = rows[-1][1]
            reader.issues.append(
                ConfigIssue(
                    last.file,
                    last.line,
                    "starting numbers must run 1.." + str(len(entries)) + " without gaps",
                    "renumber the players",
                )
            )
    return tuple(sorted(entries, key=lambda e: e.number))


def _listed_twice(
    name: str,
    fide_id: str,
    line: int | None,
    names: dict[str, tuple[str, int | None]],
    fide_ids: dict[str, tuple[str, int | None]],
) -> str:
    """Why this entry repeats an earlier one, naming both lines ("" when it does not);
    remembers it otherwise."""
    key = " ".join(name.casefold().split())
    here = f"line {line}" if line is not None else "here"
    if key in names:
        _, first = names[key]
        return f"{name.strip()} is listed twice (lines {first} and {line}): the same name"
    if fide_id and fide_id in fide_ids:
        other, first = fide_ids[fide_id]
        return (
            f"{name.strip()} ({here}) has FIDE id {fide_id}, as {other} on line {first}: "
            f"the same player listed twice (lines {first} and {line})?"
        )
    names[key] = (name.strip(), line)
    if fide_id:
        fide_ids[fide_id] = (name.strip(), line)
    return ""
