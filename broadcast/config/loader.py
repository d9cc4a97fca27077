"""Load and check an event config (one TOML file, see docs/config.md).

Every mistake is collected with the line it sits on and a hint; `load_event` raises
one `ConfigError` listing all of them, so an arbiter fixes a file in one pass and
nothing ever starts from a half-valid config. The only I/O is reading the TOML file
and the player lists (CSV or TRF) it names.
"""

from __future__ import annotations

import datetime as dt
import difflib
import itertools
import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, cast

from boards.dgt.bus import MAX_ADDRESS as MAX_BUS_ADDRESS
from broadcast.config.errors import ConfigError, ConfigIssue
from broadcast.config.locate import KeyPath
from broadcast.config.model import (
    BYE_DEADLINES,
    PAIRING_KINDS,
    SYSTEMS,
    BoardConfig,
    ByeDeadline,
    ByePolicy,
    EarlyDrawRule,
    EventConfig,
    PairingKind,
    PairingSource,
    ResultsMode,
    RoundStart,
    SectionConfig,
    System,
    TiebreakEdition,
)
from broadcast.config.players import read_limited, section_players
from broadcast.config.reader import TomlReader, choices_text
from broadcast.config.regulations import (
    REGULATION_SECTION_KEYS,
    no_show_rules,
    playoff_rules,
    prize_rules,
    withdrawal_rules,
)
from broadcast.config.tiebreaks import check_tiebreak
from clocks.timecontrol import TimeControl, parse_time_control

EVENT_KEYS = (
    "name",
    "site",
    "timezone",
    "broadcast_delay_seconds",
    "tiebreak_edition",
    "automatic_results",
)
SECTION_KEYS = (
    "name",
    "system",
    "rounds",
    "timezone",
    "time_control",
    "default_time_minutes",
    "tiebreaks",
    "no_show_limit",
    "pairing",
    "pairing_program",
    "players_csv",
    "players_trf",
    "player",
    "schedule",
    "byes",
    "early_draw",
    *REGULATION_SECTION_KEYS,
)
SCHEDULE_KEYS = ("round", "date", "time", "timezone")
BYE_KEYS = ("max", "points", "excluded_rounds", "not_in_last_rounds", "request_deadline")
EARLY_DRAW_KEYS = ("min_moves", "min_minutes")
BOARD_KEYS = ("number", "port", "address", "section")
TOP_KEYS = ("event", "section", "board")


class _Checker(TomlReader):
    """Walks the parsed document, turning each value into config data or an issue."""

    # -- event -------------------------------------------------------------------
    def event(self, doc: dict[str, Any]) -> EventConfig | None:
        self.unknown_keys(doc, TOP_KEYS, ())
        raw_event = self.get_table(doc, "event", ())
        if raw_event is None:
            self.error(
                (), "the [event] table is missing", "start the file with [event] and its name"
            )
            raw_event = {}
        at: KeyPath = ("event",)
        self.unknown_keys(raw_event, EVENT_KEYS, at)
        name = self.get_str(raw_event, "name", at, required=True, example="Sestao Open 2025")
        site = self.get_str(raw_event, "site", at)
        timezone = self.get_str(
            raw_event, "timezone", at, required=True, default="UTC", example="Europe/Madrid"
        )
        zone_ok = bool(timezone) and self.check_zone(timezone, (*at, "timezone"))
        delay = self.get_int(
            raw_event, "broadcast_delay_seconds", at, default=0, minimum=0, example=900
        )
        edition = self.get_int(raw_event, "tiebreak_edition", at, default=2024)
        if edition not in (2024, 2026):
            self.error(
                (*at, "tiebreak_edition"),
                f"tiebreak_edition = {edition} is not a FIDE C.07 edition boardwire knows",
                "use 2024 (the 2024-08 rules, 'Baku 2023' regulations) or 2026 (2026-03)",
            )
            edition = 2024
        results = self.get_choice(
            raw_event, "automatic_results", at, ("apply", "confirm"), default="confirm"
        )

        raw_sections = self.get_array_of_tables(doc, "section", ())
        if not raw_sections and "section" not in doc:
            self.error(
                (), "no [[section]] is defined", "add at least one [[section]] with its name"
            )
        sections: list[SectionConfig] = []
        seen: dict[str, int] = {}
        for index, raw in enumerate(raw_sections):
            section = self.section(raw, index, timezone if zone_ok else "UTC")
            if section is None:
                continue
            if section.name in seen:
                self.error(
                    ("section", index, "name"),
                    f"section name {section.name!r} is used twice",
                    f"section [{seen[section.name] + 1}] already has it; give each a unique name",
                )
            seen.setdefault(section.name, index)
            sections.append(section)

        boards = self.boards(doc, {s.name for s in sections})
        if self.issues:
            return None
        return EventConfig(
            name=name,
            site=site,
            timezone=timezone,
            broadcast_delay_seconds=delay or 0,
            tiebreak_edition=cast(TiebreakEdition, edition),
            automatic_results=cast(ResultsMode, results),
            sections=tuple(sections),
            boards=tuple(boards),
            source=self.path,
        )

    # -- sections ------------------------------------------------------------------
    def section(self, raw: dict[str, Any], index: int, event_zone: str) -> SectionConfig | None:
        at: KeyPath = ("section", index)
        before = len(self.issues)
        self.unknown_keys(raw, SECTION_KEYS, at)
        name = self.get_str(raw, "name", at, required=True, default=f"#{index + 1}", example="Open")
        system = cast(System | None, self.get_choice(raw, "system", at, SYSTEMS))
        rounds = self.get_int(raw, "rounds", at, required=True, minimum=1, maximum=99, example=9)
        zone = event_zone
        if "timezone" in raw:
            zone = self.get_str(raw, "timezone", at, default=event_zone)
            if not self.check_zone(zone, (*at, "timezone")):
                zone = event_zone

        tc_text = self.get_str(raw, "time_control", at, required=True, example="5400+30")
        time_control: TimeControl | None = None
        if tc_text:
            try:
                time_control = parse_time_control(tc_text)
            except ValueError as exc:
                self.error(
                    (*at, "time_control"),
                    str(exc),
                    "e.g. 5400+30 (90 min + 30 s), 40/5400+30:1800+30, 7200+30",
                )
        default_time = self.get_int(
            raw, "default_time_minutes", at, default=0, minimum=0, maximum=24 * 60, example=30
        )
        tiebreaks = self.tiebreaks(raw, at, system)
        no_show_limit = self.get_int(raw, "no_show_limit", at, minimum=1, example=2)
        players = section_players(self, raw, at)
        pairing = self.pairing(raw, at, system)
        schedule = self.schedule(raw, at, rounds, zone)
        byes = self.byes(raw, at, rounds, system)
        early = self.early_draw(raw, at)
        no_shows, no_show_limit = no_show_rules(self, raw, at, no_show_limit)
        withdrawal = withdrawal_rules(self, raw, at)
        playoff = playoff_rules(self, raw, at, system)
        prizes = prize_rules(self, raw, at)

        if system in ("round-robin", "double-round-robin") and rounds is not None and players:
            n = len(players)
            per_cycle = n - 1 if n % 2 == 0 else n
            expected = per_cycle * (2 if system == "double-round-robin" else 1)
            if rounds != expected:
                self.error(
                    (*at, "rounds"),
                    f"a {system} of {n} players has {expected} rounds, not {rounds}",
                    f"set rounds = {expected}, or check the player list",
                )
        if system in ("round-robin", "double-round-robin") and not players:
            self.error(
                at,
                f"round-robin section {name!r} has no players",
                "its Berger pairings need the players and their drawn numbers: "
                "add [[section.player]] entries, players_csv or players_trf",
            )
        if len(self.issues) != before or system is None or rounds is None or time_control is None:
            return None
        return SectionConfig(
            name=name,
            system=system,
            rounds=rounds,
            schedule=schedule,
            time_control=time_control,
            default_time_minutes=default_time or 0,
            tiebreaks=tiebreaks,
            byes=byes,
            no_show_limit=no_show_limit,
            early_draw=early,
            pairing=pairing,
            players=players,
            no_shows=no_shows,
            withdrawal=withdrawal,
            playoff=playoff,
            prizes=prizes,
        )

    def tiebreaks(self, raw: dict[str, Any], at: KeyPath, system: System | None) -> tuple[str, ...]:
        value = raw.get("tiebreaks", [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            self.error(
                (*at, "tiebreaks"),
                "tiebreaks must be a list of FIDE codes",
                'write tiebreaks = ["BH-C1", "SB", "PS", "DE", "APRO"]',
            )
            return ()
        out: list[str] = []
        for i, code in enumerate(value):
            normal = code.strip().upper()
            problem = check_tiebreak(normal, swiss=system == "swiss")
            if problem:
                self.error((*at, "tiebreaks", i), f"tie-break {code!r}: {problem[0]}", problem[1])
            elif normal in out:
                self.error(
                    (*at, "tiebreaks", i), f"tie-break {code!r} is listed twice", "remove one"
                )
            else:
                out.append(normal)
        return tuple(out)

    def pairing(self, raw: dict[str, Any], at: KeyPath, system: System | None) -> PairingSource:
        default = "dutch" if system == "swiss" else "berger"
        kind = cast(
            PairingKind, self.get_choice(raw, "pairing", at, PAIRING_KINDS, default=default)
        )
        program = self.get_str(raw, "pairing_program", at) or None
        if system in ("round-robin", "double-round-robin") and kind != "berger":
            self.error(
                (*at, "pairing"),
                f"a {system} is paired from the Berger tables, not {kind!r}",
                'remove pairing or write pairing = "berger"',
            )
        if system == "swiss" and kind == "berger":
            self.error(
                (*at, "pairing"),
                "a Swiss cannot use Berger tables",
                'use pairing = "dutch" (boardwire pairs) or "import" (TRF from Vega/Swiss-Manager)',
            )
        if kind == "import" and program is None:
            self.error(
                at,
                "pairing = 'import' needs the program that writes the TRF",
                'add pairing_program = "Vega" (or "Swiss-Manager", "JaVaFo", ...)',
            )
        if kind != "import" and program is not None:
            self.error(
                (*at, "pairing_program"),
                f"pairing_program is only used with pairing = 'import' (this section uses {kind!r})",
                'remove it, or set pairing = "import"',
            )
        return PairingSource(kind, program)

    def schedule(
        self, raw: dict[str, Any], at: KeyPath, rounds: int | None, zone: str
    ) -> tuple[RoundStart, ...]:
        entries = self.get_array_of_tables(raw, "schedule", at)
        if not entries:
            if "schedule" not in raw:
                self.error(
                    at,
                    "the section has no schedule",
                    "add one [[section.schedule]] per round: round = 1, date = 2025-09-12, time = 17:00:00",
                )
            return ()
        starts: list[RoundStart] = []
        for i, entry in enumerate(entries):
            here: KeyPath = (*at, "schedule", i)
            self.unknown_keys(entry, SCHEDULE_KEYS, here)
            number = self.get_int(entry, "round", here, required=True, minimum=1, example=i + 1)
            date = entry.get("date")
            time = entry.get("time")
            if isinstance(date, dt.datetime) or not isinstance(date, dt.date):
                self.error(
                    (*here, "date") if "date" in entry else here,
                    "each round needs a date" if date is None else f"date {date!r} is not a date",
                    "write date = 2025-09-12 (a TOML date, no quotes)",
                )
                date = None
            if not isinstance(time, dt.time):
                self.error(
                    (*here, "time") if "time" in entry else here,
                    "each round needs a start time"
                    if time is None
                    else f"time {time!r} is not a time",
                    "write time = 17:00:00 (a TOML local time, no quotes)",
                )
                time = None
            elif time.tzinfo is not None:
                self.error(
                    (*here, "time"), "the time must not carry an offset", "use timezone = ..."
                )
                time = None
            entry_zone = zone
            if "timezone" in entry:
                entry_zone = self.get_str(entry, "timezone", here, default=zone)
                if not self.check_zone(entry_zone, (*here, "timezone")):
                    entry_zone = zone
            if number is None or date is None or time is None:
                continue
            if rounds is not None and number > rounds:
                self.error(
                    (*here, "round"),
                    f"round {number} is scheduled but the section has {rounds} rounds",
                    f"use rounds 1..{rounds}, or raise rounds",
                )
                continue
            if any(s.round == number for s in starts):
                self.error((*here, "round"), f"round {number} is scheduled twice", "keep one entry")
                continue
            starts.append(RoundStart(number, date, time, entry_zone))
        starts.sort(key=lambda s: s.round)
        if rounds is not None:
            missing = sorted(set(range(1, rounds + 1)) - {s.round for s in starts})
            if missing and len(starts) == len(entries):
                self.error(
                    (*at, "schedule"),
                    f"no start time for round(s) {', '.join(map(str, missing))}",
                    "add a [[section.schedule]] entry for each",
                )
        for earlier, later in itertools.pairwise(starts):
            if later.start <= earlier.start:
                index = next(i for i, e in enumerate(entries) if e.get("round") == later.round)
                self.error(
                    (*at, "schedule", index),
                    f"round {later.round} starts at {later.start:%Y-%m-%d %H:%M %Z}, not after "
                    f"round {earlier.round} ({earlier.start:%Y-%m-%d %H:%M %Z})",
                    "check the date and time",
                )
        return tuple(starts)

    def byes(
        self, raw: dict[str, Any], at: KeyPath, rounds: int | None, system: System | None
    ) -> ByePolicy:
        table = self.get_table(raw, "byes", at)
        if table is None:
            return ByePolicy()
        here: KeyPath = (*at, "byes")
        self.unknown_keys(table, BYE_KEYS, here)
        max_byes = self.get_int(table, "max", here, required=True, minimum=0, example=3) or 0
        points = table.get("points", 0.5)
        if isinstance(points, bool) or points not in (0, 0.5, 1):
            self.error(
                (*here, "points"),
                f"bye points {points!r} are not a FIDE bye value",
                "use 0.5 (half-point bye H), 1 (full-point bye F) or 0 (zero-point bye Z)",
            )
            points = 0.5
        excluded: set[int] = set()
        if "excluded_rounds" in table:
            value = table["excluded_rounds"]
            if not isinstance(value, list) or not all(
                isinstance(v, int) and not isinstance(v, bool) for v in value
            ):
                self.error(
                    (*here, "excluded_rounds"),
                    "excluded_rounds must be a list of round numbers",
                    "write excluded_rounds = [8, 9]",
                )
            else:
                for i, r in enumerate(value):
                    if rounds is not None and not 1 <= r <= rounds:
                        self.error(
                            (*here, "excluded_rounds", i),
                            f"round {r} does not exist",
                            f"rounds are 1..{rounds}",
                        )
                    excluded.add(r)
        last = self.get_int(table, "not_in_last_rounds", here, minimum=0, example=2)
        if last is not None and rounds is not None:
            if last > rounds:
                self.error(
                    (*here, "not_in_last_rounds"),
                    f"not_in_last_rounds = {last} exceeds the {rounds} rounds",
                    f"use 0..{rounds}",
                )
            else:
                excluded.update(range(rounds - last + 1, rounds + 1))
        deadline = cast(
            ByeDeadline,
            self.get_choice(table, "request_deadline", here, BYE_DEADLINES, default="before-round"),
        )
        if max_byes and system in ("round-robin", "double-round-robin"):
            self.error(
                (*here, "max"),
                "requested byes are a Swiss rule; a round robin has no byes to grant",
                "remove the [section.byes] table",
            )
        return ByePolicy(max_byes, float(points), frozenset(excluded), deadline)

    def early_draw(self, raw: dict[str, Any], at: KeyPath) -> EarlyDrawRule | None:
        table = self.get_table(raw, "early_draw", at)
        if table is None:
            return None
        here: KeyPath = (*at, "early_draw")
        self.unknown_keys(table, EARLY_DRAW_KEYS, here)
        moves = self.get_int(
            table, "min_moves", here, default=0, minimum=0, maximum=200, example=30
        )
        minutes = self.get_int(
            table, "min_minutes", here, default=0, minimum=0, maximum=24 * 60, example=60
        )
        if not moves and not minutes:
            self.error(
                here,
                "an early-draw rule needs min_moves or min_minutes",
                "e.g. min_moves = 30 and min_minutes = 60, or remove the table",
            )
        return EarlyDrawRule(moves or 0, minutes or 0)

    # -- boards --------------------------------------------------------------------
    def bus_address(self, raw: Mapping[str, Any], at: KeyPath) -> int | None:
        """A board's bus address: 14 bits (1..16383; 0 calls every board). A 5-digit
        serial number above 16383 cannot be one, whatever the label on the board says."""
        address = self.get_int(raw, "address", at, example=1234)
        if address is None or 1 <= address <= MAX_BUS_ADDRESS:
            return address
        if address > MAX_BUS_ADDRESS:
            message = (
                f"{self.where((*at, 'address'))} = {address} does not fit a bus address "
                f"(14 bits: 1..{MAX_BUS_ADDRESS})"
            )
            hint = (
                "a bus board answers at the address `boardwire boards --port PORT` shows for "
                "it, which is not its serial number when the serial is above 16383"
            )
        else:
            message = f"{self.where((*at, 'address'))} = {address} is not a bus address"
            hint = f"use the board's address, 1..{MAX_BUS_ADDRESS} (0 calls every board at once)"
        self.error((*at, "address"), message, hint)
        return address  # refused above; kept so that no other check reports it as missing

    def boards(self, doc: dict[str, Any], sections: set[str]) -> list[BoardConfig]:
        boards: list[BoardConfig] = []
        numbers: dict[int, int] = {}
        ports: dict[str, list[tuple[int, int | None]]] = {}
        for i, raw in enumerate(self.get_array_of_tables(doc, "board", ())):
            at: KeyPath = ("board", i)
            self.unknown_keys(raw, BOARD_KEYS, at)
            number = self.get_int(raw, "number", at, required=True, minimum=1, example=i + 1)
            port = self.get_str(raw, "port", at, required=True, example="/dev/ttyACM0")
            address = self.bus_address(raw, at)
            section = self.get_str(raw, "section", at, required=True, example="Open")
            if section and sections and section not in sections:
                close = difflib.get_close_matches(section, sorted(sections), n=1)
                self.error(
                    (*at, "section"),
                    f"board {number}: no section named {section!r}",
                    f"did you mean {close[0]!r}?"
                    if close
                    else f"sections: {choices_text(sorted(sections))}",
                )
            if number is None or not port:
                continue
            if number in numbers:
                self.error(
                    (*at, "number"),
                    f"board number {number} is used twice",
                    f"board [{numbers[number] + 1}] already has it",
                )
                continue
            numbers[number] = i
            ports.setdefault(port, []).append((i, address))
            boards.append(BoardConfig(number, port, address, section))
        for port, users in ports.items():
            if len(users) < 2:
                continue
            addresses = [a for _, a in users]
            for i, address in users:
                if address is None:
                    self.error(
                        ("board", i, "port"),
                        f"port {port} carries {len(users)} boards, so each needs its bus address",
                        "add address = the board's bus address (`boardwire boards` lists it; "
                        "up to 16383 it is the board's serial number)",
                    )
                elif addresses.count(address) > 1:
                    self.error(
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
    checker = _Checker(file, text)
    config = checker.event(doc)
    if checker.issues or config is None:
        raise ConfigError(checker.issues or [ConfigIssue(file, None, "invalid config")])
    return config
