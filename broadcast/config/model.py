"""The loaded event config: frozen dataclasses, valid by construction of the loader.

Nothing here reads files; `broadcast.config.loader.load_event` builds these from a
TOML file after checking everything, so code holding an `EventConfig` may trust it.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path
from typing import Literal
from zoneinfo import ZoneInfo

from clocks.timecontrol import TimeControl

System = Literal["round-robin", "double-round-robin", "swiss"]
PairingKind = Literal["berger", "dutch", "import"]
ResultsMode = Literal["apply", "confirm"]
ByeDeadline = Literal["before-previous-round", "before-round"]
TiebreakEdition = Literal[2024, 2026]

SYSTEMS: tuple[System, ...] = ("round-robin", "double-round-robin", "swiss")
PAIRING_KINDS: tuple[PairingKind, ...] = ("berger", "dutch", "import")
BYE_DEADLINES: tuple[ByeDeadline, ...] = ("before-previous-round", "before-round")


@dataclass(frozen=True, slots=True)
class RoundStart:
    """When one round starts: a wall-clock date and time in a named timezone."""

    round: int
    date: dt.date
    time: dt.time
    timezone: str

    @property
    def start(self) -> dt.datetime:
        """The start as an aware datetime (DST handled by the zone)."""
        return dt.datetime.combine(self.date, self.time, tzinfo=ZoneInfo(self.timezone))


@dataclass(frozen=True, slots=True)
class ByePolicy:
    """Requested half-point (or other) byes: how many, where, and until when.

    `deadline` "before-previous-round": a bye for round r must be asked before round
    r-1 starts (round 1: before round 1 starts). "before-round": before round r starts.
    """

    max_byes: int = 0
    points: float = 0.5
    excluded_rounds: frozenset[int] = frozenset()
    deadline: ByeDeadline = "before-round"

    @property
    def allowed(self) -> bool:
        return self.max_byes > 0


@dataclass(frozen=True, slots=True)
class EarlyDrawRule:
    """No draw by agreement before `min_moves` moves or `min_minutes` of play."""

    min_moves: int = 0
    min_minutes: int = 0


@dataclass(frozen=True, slots=True)
class PairingSource:
    """Where pairings come from: Berger tables, our own Dutch engine, or a TRF that
    the event's pairing program (`program`, e.g. Vega or Swiss-Manager) writes."""

    kind: PairingKind
    program: str | None = None


@dataclass(frozen=True, slots=True)
class PlayerEntry:
    """One registered player. `number` is the starting (pairing) number; in a round
    robin it is the number drawn by lot that the Berger table uses."""

    number: int
    name: str
    rating: int = 0
    fide_id: str = ""
    federation: str = ""
    title: str = ""
    sex: str = ""
    birth: str = ""


@dataclass(frozen=True, slots=True)
class SectionConfig:
    """One section (group) of the event with its own system, rounds and players."""

    name: str
    system: System
    rounds: int
    schedule: tuple[RoundStart, ...]
    time_control: TimeControl
    default_time_minutes: int
    tiebreaks: tuple[str, ...]
    byes: ByePolicy
    no_show_limit: int | None
    early_draw: EarlyDrawRule | None
    pairing: PairingSource
    players: tuple[PlayerEntry, ...]

    def round_start(self, round_number: int) -> RoundStart:
        for start in self.schedule:
            if start.round == round_number:
                return start
        raise KeyError(f"section {self.name!r} has no round {round_number}")

    @property
    def default_time(self) -> dt.timedelta:
        return dt.timedelta(minutes=self.default_time_minutes)


@dataclass(frozen=True, slots=True)
class BoardConfig:
    """A physical board: its number in the hall, where it is wired, which section."""

    number: int
    port: str
    address: int | None
    section: str


@dataclass(frozen=True, slots=True)
class EventConfig:
    """A whole event as loaded from one TOML file."""

    name: str
    site: str
    timezone: str
    broadcast_delay_seconds: int
    tiebreak_edition: TiebreakEdition
    automatic_results: ResultsMode
    sections: tuple[SectionConfig, ...]
    boards: tuple[BoardConfig, ...]
    source: Path | None = None

    @property
    def zone(self) -> ZoneInfo:
        return ZoneInfo(self.timezone)

    def section(self, name: str) -> SectionConfig:
        for section in self.sections:
            if section.name == name:
                return section
        known = ", ".join(s.name for s in self.sections)
        raise KeyError(f"no section {name!r}; sections: {known}")
