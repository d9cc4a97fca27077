"""How each capture station is doing, as the central serve sees it. Pure: time comes in.

`StationHealth` is told what the stations' streams carry (`hello`, `beat`) and when
(the central serve's event time), and says at any moment:

- each station's view (`views`): up or lost, lag (central now minus its last beat's
  event time), clock offset (its offset to Redis's TIME minus the central serve's own,
  measured the same way), the hall boards it holds connected, events waiting in its
  outbox;
- the conditions the desk must show (`conditions`): one critical `station-lost` per
  station that sends no heartbeat for `LOST_AFTER` seconds (scaled by the event's speed),
  naming its boards (not one alert per board); a `station-clock` warning while its
  offset passes `OFFSET_LIMIT`; a critical `board-claimed-twice` when a station claims
  (greeting or heartbeat) a board the venue gives another station, or holds a board
  found by its serial number that another station reads already (`place`). Such a
  second claimant's events for that board are refused (`refuses`); a critical `board-missing`
  for a board a live station has not held connected since `MISSING_AFTER` (a lost
  station's boards are its one alert, never one each).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from broadcast.arbiter.alerts import AlertKind, Severity
from broadcast.phrases import Phrase, say
from broadcast.stations.wire import StationBeat, StationHello

__all__ = [
    "LOST_AFTER",
    "MISSING_AFTER",
    "MISSING_AFTER_REAL",
    "OFFSET_LIMIT",
    "StationCondition",
    "StationHealth",
    "StationView",
]

LOST_AFTER = 5.0  # seconds without a heartbeat at speed 1: the station is lost
# event seconds a station is up before a board it does not hold connected is missing, and
# never sooner than these real seconds (as `broadcast.service.runtime`'s own boards)
MISSING_AFTER = 20.0
MISSING_AFTER_REAL = 5.0
OFFSET_LIMIT = 0.5  # seconds of clock offset against the central serve: a warning


@dataclass(frozen=True, slots=True)
class StationCondition:
    """One alert the desk should show now (its key in `Health`)."""

    kind: AlertKind
    severity: Severity
    message: Phrase


@dataclass(frozen=True, slots=True)
class StationView:
    """One station on the desk."""

    name: str
    boards: tuple[int, ...]  # the hall boards the venue gives it
    up: bool
    seen: bool  # it has sent a heartbeat or a greeting since the serve started
    lag: float | None  # seconds: central event time minus its last beat's
    offset: float | None  # seconds: its clock minus the central serve's
    connected: tuple[int, ...]  # hall boards its drivers hold connected
    waiting: int  # events in its outbox not yet sent
    host: str

    def json(self) -> dict[str, object]:
        return {
            "name": self.name,
            "up": self.up,
            "seen": self.seen,
            "lag": None if self.lag is None else round(self.lag, 3),
            "offset": None if self.offset is None else round(self.offset, 3),
            "boards": list(self.boards),
            "connected": list(self.connected),
            "waiting": self.waiting,
            "host": self.host,
        }


@dataclass
class _Station:
    boards: tuple[int, ...]
    heard: float | None = None  # central event time of its last beat or greeting
    up_since: float | None = None  # central event time it was last heard after silence
    beat: StationBeat | None = None
    host: str = ""
    greeted: frozenset[int] = frozenset()  # the boards its last greeting said it reads
    claims: frozenset[int] = frozenset()  # ...and those its last heartbeat holds connected


@dataclass
class StationHealth:
    """The stations of one venue: `assigned` is station -> its hall boards (the venue),
    `speed` the event's (lost after `LOST_AFTER` x speed event seconds), `since` the
    central event time the serve started reading (a station never heard from is lost
    once the same wait has passed)."""

    assigned: Mapping[str, tuple[int, ...]]
    speed: float
    since: float
    own_offset: float = 0.0  # the central serve's wall clock minus Redis's TIME
    lost_after: float = LOST_AFTER
    offset_limit: float = OFFSET_LIMIT
    _stations: dict[str, _Station] = field(init=False)
    _owner: dict[int, str] = field(init=False)
    _found: set[int] = field(init=False)  # boards placed where a station found them
    _unplaced: dict[int, str] = field(init=False)  # board -> serial, to be found yet

    def __post_init__(self) -> None:
        self._stations = {name: _Station(tuple(b)) for name, b in self.assigned.items()}
        self._owner = {n: name for name, boards in self.assigned.items() for n in boards}
        self._found = set()
        self._unplaced = {}

    def want(self, board: int, serial: str) -> None:
        """Hall board `board` is found by its serial number: missing until a station has it."""
        if board not in self._found:
            self._unplaced[board] = serial

    # -- boards found by their serial numbers ------------------------------------------------

    def add(self, station: str) -> None:
        """A station the config does not name (it may find boards by their serials)."""
        self._stations.setdefault(station, _Station(()))

    def place(self, board: int, station: str) -> None:
        """Hall board `board` was found on `station`: its events come from there now."""
        self.add(station)
        old = self._owner.get(board)
        if old is not None and old in self._stations:
            s = self._stations[old]
            s.boards = tuple(n for n in s.boards if n != board)
        self._owner[board] = station
        self._found.add(board)
        self._unplaced.pop(board, None)
        mine = self._stations[station]
        if board not in mine.boards:
            mine.boards = (*mine.boards, board)

    def holds(self, station: str, board: int, *, now: float) -> bool:
        """`station` is up and its last heartbeat holds `board` connected."""
        s = self._stations.get(station)
        return (
            s is not None and self._up(s, now) and s.beat is not None and board in s.beat.connected
        )

    # -- what the streams say ------------------------------------------------------------------

    def _heard(self, station: _Station, now: float) -> None:
        if not self._up(station, now):
            station.up_since = now
        station.heard = now

    def hello(self, hello: StationHello, now: float) -> None:
        station = self._stations.get(hello.station)
        if station is None:
            return
        self._heard(station, now)
        station.host = hello.host
        station.greeted = station.claims = frozenset(hello.boards)

    def beat(self, beat: StationBeat, now: float) -> None:
        station = self._stations.get(beat.station)
        if station is None:
            return
        self._heard(station, now)
        station.beat = beat
        station.claims = station.greeted | frozenset(beat.connected)

    def refuses(self, station: str, board: int) -> bool:
        """`station`'s events for hall board `board` are refused: the venue gives the
        board to another station (or to none)."""
        return self._owner.get(board) != station

    # -- what the desk shows -------------------------------------------------------------------

    def _wait(self) -> float:
        return self.lost_after * self.speed

    def _up(self, station: _Station, now: float) -> bool:
        return station.heard is not None and now - station.heard <= self._wait()

    def views(self, now: float) -> list[StationView]:
        out = []
        for name, s in self._stations.items():
            beat = s.beat
            out.append(
                StationView(
                    name,
                    s.boards,
                    self._up(s, now),
                    s.heard is not None,
                    None if beat is None else now - beat.t,
                    None if beat is None else beat.offset - self.own_offset,
                    () if beat is None else beat.connected,
                    0 if beat is None else beat.waiting,
                    s.host,
                )
            )
        return out

    def conditions(self, now: float) -> dict[str, StationCondition]:
        """The alerts that hold now, by key (the caller reports these and clears the
        station keys it reported before and that are not here)."""
        out: dict[str, StationCondition] = {}
        missing_after = max(MISSING_AFTER, MISSING_AFTER_REAL * self.speed)
        if now - self.since >= missing_after:
            for board, serial in sorted(self._unplaced.items()):
                out[f"board-missing-{board}"] = StationCondition(
                    "board-missing",
                    "critical",
                    say(
                        "Board %(board)s (serial number %(serial)s) is not found on any "
                        "capture station: plug it into one (its USB cable, its power), or "
                        "check its serial number in the event's config",
                        board=board,
                        serial=serial,
                    ),
                )
        for name, s in self._stations.items():
            boards = ", ".join(str(n) for n in s.boards) or "-"
            # A station that reads no board (it only looks for boards by their serials)
            # is nobody's loss.
            if (
                s.boards
                and not self._up(s, now)
                and (s.heard is not None or now - self.since > self._wait())
            ):
                out[f"station-lost-{name}"] = StationCondition(
                    "station-lost",
                    "critical",
                    say(
                        "Capture station %(station)s sends nothing (no heartbeat for over "
                        "%(seconds)s s): boards %(boards)s are not read meanwhile. Check "
                        "that computer, its network and `boardwire station` on it; its "
                        "events are kept there and arrive when it is back",
                        station=name,
                        seconds=f"{self.lost_after:g}",
                        boards=boards,
                    ),
                )
            view_offset = None if s.beat is None else s.beat.offset - self.own_offset
            if view_offset is not None and abs(view_offset) > self.offset_limit:
                out[f"station-clock-{name}"] = StationCondition(
                    "station-clock",
                    "warning",
                    say(
                        "Capture station %(station)s's clock is %(offset)s s off the central "
                        "serve's: its move times and lateness are off by as much. Set both "
                        "computers to synchronise their clocks (NTP, e.g. chrony)",
                        station=name,
                        offset=f"{view_offset:+.2f}",
                    ),
                )
            if (
                self._up(s, now)
                and s.beat is not None
                and s.up_since is not None
                and now - s.up_since >= missing_after
            ):
                for board in s.boards:
                    if board in s.beat.connected:
                        continue
                    out[f"board-missing-{board}"] = StationCondition(
                        "board-missing",
                        "critical",
                        say(
                            "Board %(board)s on capture station %(station)s is not "
                            "connected: check its USB cable and power on that computer, "
                            "or its port in the event's config",
                            board=board,
                            station=name,
                        ),
                    )
            for board in sorted(s.claims):
                owner = self._owner.get(board)
                if owner == name:
                    continue
                if board in self._found and owner is not None:
                    out[f"board-claimed-{board}-{name}"] = StationCondition(
                        "board-claimed-twice",
                        "critical",
                        say(
                            "Capture station %(station)s has board %(board)s plugged in, "
                            "which station %(owner)s reads already: its events for that "
                            "board are refused. Unplug the board from one of the two "
                            "computers",
                            station=name,
                            board=board,
                            owner=owner,
                        ),
                    )
                    continue
                out[f"board-claimed-{board}-{name}"] = StationCondition(
                    "board-claimed-twice",
                    "critical",
                    say(
                        "Capture station %(station)s claims board %(board)s, which the "
                        "event's config gives to %(owner)s: its events for that board are "
                        "refused. Unplug the board from the wrong computer, or fix "
                        "`station` for board %(board)s in the config",
                        station=name,
                        board=board,
                        owner=owner or "no station",
                    ),
                )
        return out
