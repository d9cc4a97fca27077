"""Typed access to a parsed TOML document, each mistake recorded with its line.

`TomlReader` turns a value into the type a config needs, or into a `ConfigIssue`
(file, line, message, hint) and a safe default, so that a check goes on and every
mistake of a file is reported in one pass. The checks of an event (`loader`), its
sections (`sections`), player lists (`players`) and regulation tables
(`regulations`) all read through it.
"""

from __future__ import annotations

import difflib
import zoneinfo
from collections.abc import Mapping
from pathlib import Path
from typing import Any, cast

from broadcast.config.errors import ConfigIssue
from broadcast.config.locate import KeyPath, key_lines, line_of
from broadcast.text import clean_text

__all__ = ["MAX_ENTRIES", "MAX_STRING", "TomlReader", "choices_text"]

# Sane limits: a config is a few kilobytes and an event has at most a few thousand
# players; anything far beyond is a mistake (or an attack) and must not reach memory.
MAX_STRING = 200  # characters in any string value (a name, a port, a path)
MAX_ENTRIES = 5000  # entries in any list: sections, players, boards, schedule rows

_MISSING = object()


def choices_text(options: tuple[str, ...] | list[str]) -> str:
    """The valid values for a hint: 'swiss', 'round-robin', ..."""
    return ", ".join(repr(o) if isinstance(o, str) else str(o) for o in options)


class TomlReader:
    """Reads values out of one parsed TOML file; collects the issues in `issues`.

    `path` names the file in every issue; `base` (its folder) anchors the relative
    paths it names; `lines` maps key paths to their lines.
    """

    def __init__(self, path: Path, text: str) -> None:
        self.path = path
        self.base = path.parent
        self.lines = key_lines(text)
        self.issues: list[ConfigIssue] = []

    # -- reporting ------------------------------------------------------------
    def error(self, at: KeyPath, message: str, hint: str = "") -> None:
        """Record a mistake on the line of `at` (or of the nearest table above it)."""
        self.issues.append(ConfigIssue(self.path, line_of(self.lines, at), message, hint))

    def where(self, at: KeyPath) -> str:
        """A readable key path: section[2].byes.max (1-based element numbers)."""
        out = ""
        for part in at:
            if isinstance(part, int):
                out += f"[{part + 1}]"
            else:
                out += ("." if out else "") + part
        return out

    def unknown_keys(self, table: Mapping[str, Any], allowed: tuple[str, ...], at: KeyPath) -> None:
        """Report each key of `table` that is not in `allowed`, naming the closest one."""
        for key in table:
            if key not in allowed:
                close = difflib.get_close_matches(key, allowed, n=1)
                hint = (
                    f"did you mean {close[0]!r}?"
                    if close
                    else f"known keys: {choices_text(allowed)}"
                )
                self.error((*at, key), f"unknown key {self.where((*at, key))!r}", hint)

    # -- typed getters -----------------------------------------------------------
    def get_str(
        self,
        table: Mapping[str, Any],
        key: str,
        at: KeyPath,
        *,
        required: bool = False,
        default: str = "",
        example: str = "",
    ) -> str:
        """A string (control characters removed), or `default` after reporting why not."""
        value = table.get(key, _MISSING)
        if value is _MISSING:
            if required:
                self.error(
                    at,
                    f"{self.where((*at, key))} is missing",
                    f'add {key} = "{example}"' if example else f"add {key} = ...",
                )
            return default
        if not isinstance(value, str) or (required and not value.strip()):
            self.error(
                (*at, key),
                f"{self.where((*at, key))} must be a non-empty string, got {value!r}",
                f'write {key} = "{example}"' if example else "quote the value",
            )
            return default
        if len(value) > MAX_STRING:
            self.error(
                (*at, key),
                f"{self.where((*at, key))} is {len(value)} characters long",
                f"at most {MAX_STRING} characters",
            )
            return default
        return clean_text(value)

    def get_int(
        self,
        table: Mapping[str, Any],
        key: str,
        at: KeyPath,
        *,
        required: bool = False,
        default: int | None = None,
        minimum: int | None = None,
        maximum: int | None = None,
        example: int = 1,
    ) -> int | None:
        """A whole number within the bounds, or `default` after reporting why not."""
        value = table.get(key, _MISSING)
        if value is _MISSING:
            if required:
                self.error(at, f"{self.where((*at, key))} is missing", f"add {key} = {example}")
            return default
        if isinstance(value, bool) or not isinstance(value, int):
            self.error(
                (*at, key),
                f"{self.where((*at, key))} must be a whole number, got {value!r}",
                f"write {key} = {example} (no quotes)",
            )
            return default
        low_ok = minimum is None or value >= minimum
        high_ok = maximum is None or value <= maximum
        if not (low_ok and high_ok):
            if maximum is None:
                bounds = f"at least {minimum}"
            elif minimum is None:
                bounds = f"at most {maximum}"
            else:
                bounds = f"between {minimum} and {maximum}"
            self.error(
                (*at, key),
                f"{self.where((*at, key))} = {value} is out of range",
                f"use a number {bounds}",
            )
            return default
        return value

    def get_flag(self, table: Mapping[str, Any], key: str, at: KeyPath) -> bool | None:
        """true or false; None when the key is absent (or reported as neither)."""
        value = table.get(key, _MISSING)
        if value is _MISSING:
            return None
        if not isinstance(value, bool):
            self.error(
                (*at, key),
                f"{self.where((*at, key))} must be true or false, got {value!r}",
                f"write {key} = true (no quotes)",
            )
            return None
        return value

    def get_choice(
        self,
        table: Mapping[str, Any],
        key: str,
        at: KeyPath,
        choices: tuple[str, ...],
        *,
        default: str | None = None,
    ) -> str | None:
        """One of `choices`; missing is an error only when there is no `default`."""
        value = table.get(key, _MISSING)
        if value is _MISSING:
            if default is None:
                self.error(
                    at,
                    f"{self.where((*at, key))} is missing",
                    f"add {key} = one of {choices_text(choices)}",
                )
            return default
        if value not in choices:
            close = difflib.get_close_matches(str(value), choices, n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            self.error(
                (*at, key),
                f"{self.where((*at, key))} = {value!r} is not valid",
                f"{hint}valid: {choices_text(choices)}",
            )
            return default
        return cast(str, value)

    def get_table(self, table: Mapping[str, Any], key: str, at: KeyPath) -> dict[str, Any] | None:
        """A sub-table, or None if it is absent (or reported as not a table)."""
        value = table.get(key, _MISSING)
        if value is _MISSING:
            return None
        if not isinstance(value, dict):
            self.error(
                (*at, key),
                f"{self.where((*at, key))} must be a table",
                f"write it as [{self.where((*at, key))}] with keys below it",
            )
            return None
        return value

    def get_array_of_tables(
        self, table: Mapping[str, Any], key: str, at: KeyPath
    ) -> list[dict[str, Any]]:
        """An array of tables (`[[key]]`), empty if absent, malformed or too long."""
        value = table.get(key, _MISSING)
        if value is _MISSING:
            return []
        if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
            self.error(
                (*at, key),
                f"{self.where((*at, key))} must be a list of tables",
                f"write each entry under its own [[{self.where((*at, key))}]] header",
            )
            return []
        if len(value) > MAX_ENTRIES:
            self.error(
                (*at, key),
                f"{self.where((*at, key))} has {len(value)} entries",
                f"at most {MAX_ENTRIES}",
            )
            return []
        return value

    def check_zone(self, name: str, at: KeyPath) -> bool:
        """Whether `name` is a timezone this system knows; reported with the closest one if not."""
        try:
            zoneinfo.ZoneInfo(name)
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            close = difflib.get_close_matches(name, sorted(zoneinfo.available_timezones()), n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            self.error(
                at,
                f"unknown timezone {name!r}",
                f"{hint}use an IANA name such as 'Europe/Madrid' (needs the system tzdata)",
            )
            return False
        return True
