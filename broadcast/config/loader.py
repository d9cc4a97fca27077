"""Load and check an event config (one TOML file, see docs/config.md).

Every mistake is collected with the line it sits on and a hint; `load_event` raises
one `ConfigError` listing all of them, so an arbiter fixes a file in one pass and
nothing ever starts from a half-valid config. The only I/O is reading the TOML file
and the player lists (CSV or TRF) it names.

This module checks the `[event]`, the `[[board]]` entries and the hall's tables (no two
boards on one table, sections on tables of their own: `tables.table_problems`); each value
is read through `reader.TomlReader`, each `[[section]]` is checked by `sections` (with its
`players` and its `regulations` tables).
"""

from __future__ import annotations

import difflib
import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, cast

from boards.dgt.bus import MAX_ADDRESS as MAX_BUS_ADDRESS
from broadcast.config.errors import ConfigError, ConfigIssue
from broadcast.config.locate import KeyPath
from broadcast.config.model import (
    CHECK_IN,
    BoardConfig,
    CheckIn,
    EventConfig,
    ResultsMode,
    SectionConfig,
    TiebreakEdition,
)
from broadcast.config.players import read_limited
from broadcast.config.reader import TomlReader, choices_text
from broadcast.config.sections import section_config
from broadcast.config.stations import NAME_RULE, valid_name
from broadcast.config.tables import table_problems

EVENT_KEYS = (
    "name",
    "site",
    "timezone",
    "broadcast_delay_seconds",
    "tiebreak_edition",
    "automatic_results",
    "publish",
    "embed_origins",
    "player_results",
    "check_in",
)
# Engine evaluation is chosen by the process serving spectators (`serve --eval`, and a
# mirror, which has no config file), not by the event: a key for it says where it goes.
EVAL_KEYS = ("eval", "evaluation", "engine")
BOARD_KEYS = ("number", "port", "address", "section", "table", "station", "serial")
# A DGT board's serial number as the board reports it (`boardwire boards` lists it).
SERIAL_PATTERN = re.compile(r"[0-9]{1,10}")
TOP_KEYS = ("event", "section", "board")

__all__ = ["BOARD_KEYS", "EVENT_KEYS", "TOP_KEYS", "load_event", "load_event_text"]


def _event(reader: TomlReader, doc: dict[str, Any]) -> EventConfig | None:
    """The whole document checked: its [event], every [[section]] and [[board]];
    None if anything is wrong (all of it reported in `reader.issues`)."""
    reader.unknown_keys(doc, TOP_KEYS, ())
    raw_event = reader.get_table(doc, "event", ())
    if raw_event is None:
        reader.error((), "the [event] table is missing", "start the file with [event] and its name")
        raw_event = {}
    at: KeyPath = ("event",)
    reader.unknown_keys({k: v for k, v in raw_event.items() if k not in EVAL_KEYS}, EVENT_KEYS, at)
    for key in (k for k in EVAL_KEYS if k in raw_event):
        reader.error(
            (*at, key),
            f"unknown key 'event.{key}'",
            "engine evaluation is chosen when serving, not in the event's file: "
            "`boardwire serve EVENT.toml --eval [--eval-depth N | --eval-time SECONDS]` "
            "(docs/cli.md)",
        )
    name = reader.get_str(raw_event, "name", at, required=True, example="Sestao Open 2025")
    site = reader.get_str(raw_event, "site", at)
    timezone = reader.get_str(
        raw_event, "timezone", at, required=True, default="UTC", example="Europe/Madrid"
    )
    zone_ok = bool(timezone) and reader.check_zone(timezone, (*at, "timezone"))
    delay = reader.get_int(
        raw_event, "broadcast_delay_seconds", at, default=0, minimum=0, example=900
    )
    edition = reader.get_int(raw_event, "tiebreak_edition", at, default=2024)
    if edition not in (2024, 2026):
        reader.error(
            (*at, "tiebreak_edition"),
            f"tiebreak_edition = {edition} is not a FIDE C.07 edition boardwire knows",
            "use 2024 (the 2024-08 rules, 'Baku 2023' regulations) or 2026 (2026-03)",
        )
        edition = 2024
    results = reader.get_choice(
        raw_event, "automatic_results", at, ("apply", "confirm"), default="confirm"
    )
    publish = reader.get_str(raw_event, "publish", at, example="redis://127.0.0.1:6379/0")
    if publish and not publish.startswith(("redis://", "rediss://")):
        reader.error(
            (*at, "publish"),
            f"publish = {publish[:80]!r} is not a Redis URL",
            "write redis://HOST:PORT/DB (see docs/deployment.md), or leave it out",
        )

    embed_origins = _embed_origins(reader, raw_event, at)

    raw_sections = reader.get_array_of_tables(doc, "section", ())
    if not raw_sections and "section" not in doc:
        reader.error((), "no [[section]] is defined", "add at least one [[section]] with its name")
    sections: list[SectionConfig] = []
    seen: dict[str, int] = {}
    for index, raw in enumerate(raw_sections):
        section = section_config(reader, raw, index, timezone if zone_ok else "UTC")
        if section is None:
            continue
        if section.name in seen:
            reader.error(
                ("section", index, "name"),
                f"section name {section.name!r} is used twice",
                f"section [{seen[section.name] + 1}] already has it; give each a unique name",
            )
        seen.setdefault(section.name, index)
        sections.append(section)

    boards = _boards(reader, doc, {s.name for s in sections})
    if reader.issues:
        return None
    config = EventConfig(
        name=name,
        site=site,
        timezone=timezone,
        broadcast_delay_seconds=delay or 0,
        tiebreak_edition=cast(TiebreakEdition, edition),
        automatic_results=cast(ResultsMode, results),
        sections=tuple(sections),
        boards=tuple(boards),
        source=reader.path,
        publish=publish or None,
        embed_origins=embed_origins,
        player_results=bool(reader.get_flag(raw_event, "player_results", at)),
        check_in=cast(
            CheckIn,
            reader.get_choice(raw_event, "check_in", at, CHECK_IN, default="off") or "off",
        ),
    )
    _check_tables(reader, doc, config)
    return None if reader.issues else config


def _check_tables(reader: TomlReader, doc: dict[str, Any], config: EventConfig) -> None:
    """The hall's tables (broadcast.config.tables): no two sections on one table, no two
    boards on one table, every board on one of its section's tables."""
    sections = {s.name: i for i, s in enumerate(config.sections)}
    raw_boards = doc.get("board", [])
    boards = {raw.get("number"): i for i, raw in enumerate(raw_boards) if isinstance(raw, dict)}
    for problem in table_problems(config):
        if problem.section is not None:
            at: KeyPath = ("section", sections[problem.section], problem.key)
        else:
            at = ("board", boards[problem.board], problem.key)
        reader.error(at, problem.message, problem.hint)


_ORIGIN = re.compile(r"^https?://[A-Za-z0-9.-]+(:[0-9]{1,5})?$")


def _embed_origins(reader: TomlReader, raw: Mapping[str, Any], at: KeyPath) -> tuple[str, ...]:
    """`embed_origins`: the sites allowed to frame the /embed/ pages, each an origin
    (scheme and host, no path). Anything else would widen or break the CSP header."""
    value = raw.get("embed_origins", [])
    where = (*at, "embed_origins")
    example = 'embed_origins = ["https://www.fvaxedrez.eus"]'
    if not isinstance(value, list):
        reader.error(where, f"{reader.where(where)} must be a list of site origins", example)
        return ()
    out: list[str] = []
    for item in value:
        text = item.strip().rstrip("/") if isinstance(item, str) else ""
        if not _ORIGIN.match(text):
            reader.error(
                where,
                f"{reader.where(where)}: {item!r} is not a site origin "
                "(scheme and host, with no path)",
                example,
            )
            continue
        out.append(text.lower())
    return tuple(out)


def _bus_address(reader: TomlReader, raw: Mapping[str, Any], at: KeyPath) -> int | None:
    """A board's bus address: 14 bits (1..16383; 0 calls every board). A 5-digit
    serial number above 16383 cannot be one, whatever the label on the board says."""
    address = reader.get_int(raw, "address", at, example=1234)
    if address is None or 1 <= address <= MAX_BUS_ADDRESS:
        return address
    if address > MAX_BUS_ADDRESS:
        message = (
            f"{reader.where((*at, 'address'))} = {address} does not fit a bus address "
            f"(14 bits: 1..{MAX_BUS_ADDRESS})"
        )
        hint = (
            "a bus board answers at the address `boardwire boards --port PORT` shows for "
            "it, which is not its serial number when the serial is above 16383"
        )
    else:
        message = f"{reader.where((*at, 'address'))} = {address} is not a bus address"
        hint = f"use the board's address, 1..{MAX_BUS_ADDRESS} (0 calls every board at once)"
    reader.error((*at, "address"), message, hint)
    return address  # refused above; kept so that no other check reports it as missing


def _boards(reader: TomlReader, doc: dict[str, Any], sections: set[str]) -> list[BoardConfig]:
    """The [[board]] entries, sorted by number; each names one of `sections`, and
    boards that share a port need distinct bus addresses."""
    boards: list[BoardConfig] = []
    numbers: dict[int, int] = {}
    serials: dict[str, int] = {}
    ports: dict[str, list[tuple[int, int | None]]] = {}
    for i, raw in enumerate(reader.get_array_of_tables(doc, "board", ())):
        at: KeyPath = ("board", i)
        reader.unknown_keys(raw, BOARD_KEYS, at)
        number = reader.get_int(raw, "number", at, required=True, minimum=1, example=i + 1)
        serial = reader.get_str(raw, "serial", at, example="12345")
        if serial and not SERIAL_PATTERN.fullmatch(serial):
            reader.error(
                (*at, "serial"),
                f"board {number}: serial {serial[:20]!r} is not a DGT serial number",
                "write the digits the board reports (`boardwire boards` lists them)",
            )
        # With its serial number a board needs no port: a capture station finds it.
        port = reader.get_str(raw, "port", at, required=not serial, example="/dev/ttyACM0")
        address = _bus_address(reader, raw, at)
        if not port and address is not None:
            reader.error(
                (*at, "address"),
                f"board {number}: a bus address without a port",
                "give the port it is on, or leave the address out: a board found by its "
                "serial number is found with its address",
            )
        section = reader.get_str(raw, "section", at, required=True, example="Open")
        table = reader.get_int(raw, "table", at, minimum=1, maximum=9999, example=number or 1)
        station = reader.get_str(raw, "station", at, example="east-1")
        if station and not valid_name(station):
            reader.error(
                (*at, "station"),
                f"board {number}: {station[:40]!r} is not a station's name",
                NAME_RULE,
            )
        if section and sections and section not in sections:
            close = difflib.get_close_matches(section, sorted(sections), n=1)
            reader.error(
                (*at, "section"),
                f"board {number}: no section named {section!r}",
                f"did you mean {close[0]!r}?"
                if close
                else f"sections: {choices_text(sorted(sections))}",
            )
        if number is None or not (port or serial):
            continue
        if number in numbers:
            reader.error(
                (*at, "number"),
                f"board number {number} is used twice",
                f"board [{numbers[number] + 1}] already has it",
            )
            continue
        numbers[number] = i
        if serial:
            if serial in serials:
                reader.error(
                    (*at, "serial"),
                    f"serial number {serial} is given to two boards",
                    f"board [{serials[serial] + 1}] already has it",
                )
            serials.setdefault(serial, i)
        if port:
            # A port is a path on one computer: the serve's own, or a station's.
            where = port if not station else f"{port} on station {station}"
            ports.setdefault(where, []).append((i, address))
        boards.append(
            BoardConfig(number, port, address, section, table, station or None, serial or None)
        )
    for port, users in ports.items():
        if len(users) < 2:
            continue
        addresses = [a for _, a in users]
        for i, address in users:
            if address is None:
                reader.error(
                    ("board", i, "port"),
                    f"port {port} carries {len(users)} boards, so each needs its bus address",
                    "add address = the board's bus address (`boardwire boards` lists it; "
                    "up to 16383 it is the board's serial number)",
                )
            elif addresses.count(address) > 1:
                reader.error(
                    ("board", i, "address"),
                    f"bus address {address} on {port} is used by two boards",
                    "each board on a bus has its own address",
                )
    return sorted(boards, key=lambda b: b.number)


_TOML_POSITION = re.compile(r"\(at line (\d+), column (\d+)\)")


def load_event(path: str | Path) -> EventConfig:
    """Load, check and return an event config; raises `ConfigError` listing every problem."""
    file = Path(path)
    try:
        text = read_limited(file).decode("utf-8")
    except FileNotFoundError:
        raise ConfigError(
            [ConfigIssue(file, None, "file not found", "give the path to an event .toml")]
        ) from None
    except UnicodeDecodeError as exc:
        raise ConfigError(
            [ConfigIssue(file, None, f"not UTF-8 text: {exc}", "save the file as UTF-8")]
        ) from None
    except ValueError as exc:
        raise ConfigError([ConfigIssue(file, None, f"cannot read it: {exc}")]) from None
    return load_event_text(text, file)


def load_event_text(text: str, path: str | Path) -> EventConfig:
    """Check an event config given as text; `path` names it in messages and anchors
    relative player-list paths."""
    file = Path(path)
    try:
        doc = tomllib.loads(text)
    except RecursionError:
        raise ConfigError(
            [ConfigIssue(file, None, "TOML nested too deeply", "an event config is flat tables")]
        ) from None
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        match = _TOML_POSITION.search(message)
        line = int(match.group(1)) if match else None
        message = _TOML_POSITION.sub("", message).strip()
        raise ConfigError(
            [
                ConfigIssue(
                    file,
                    line,
                    f"TOML syntax: {message}",
                    "strings need quotes, dates are written 2025-09-12 and times 17:00:00",
                )
            ]
        ) from None
    reader = TomlReader(file, text)
    config = _event(reader, doc)
    if reader.issues or config is None:
        raise ConfigError(reader.issues or [ConfigIssue(file, None, "invalid config")])
    return config
