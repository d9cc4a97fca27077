"""`ArbiterRules`: the rules engine the service drives, events and time in, events out.

    rules = ArbiterRules(event_config)
    new = rules.observe(event)            # every event, in journal order
    new = rules.observe(flag, game=gid)   # reconstruction events carry no game: name it
    new = rules.tick(now)                 # as time passes (epoch seconds)
    rules.restore(journal)                # after a restart: fold, emit nothing
    memory = rules.memory()               # an immutable copy of what the engine knows
    rules.recall(memory)                  # back to it (an action undone, a snapshot)

Everything returned is a new event for the journal: `Alert`, `ResultProposed`,
`ResultConfirmed` (automatic results when the event applies them at once),
`NoShowCounted`, `ByeGranted`/`ByeRefused`. The engine has already folded what it
returns; feeding it back through `observe` is harmless (idempotent) but not needed.

Deterministic: no wall clock. `observe` first advances time to the event's `t`, so a
rule due before the event fires before it, whatever the service's tick cadence; time
never goes back (an event stamped earlier than `now` is folded at `now`). Time-based
results and alerts are stamped with the moment the rule says (a warning mark, the
default time), not with when the tick happened to run.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from boards.events import DriverEvent
from broadcast.arbiter import board_rules, presence_rules, result_rules, tournament_rules
from broadcast.arbiter.alerts import (
    Alert,
    AlertAcknowledged,
    AlertKind,
    AlertResolved,
    PlayerMarkedPresent,
    Severity,
)
from broadcast.arbiter.presence import (
    DEFAULT_WARNINGS,
)
from broadcast.arbiter.trouble import (
    TroubleConfig,
)
from broadcast.arbiter.watch import BoardWatch, BoardWatchMemory, Watch, WatchMemory
from broadcast.config.model import EventConfig, ResultsMode, SectionConfig
from broadcast.games.book import GameBook, hall_board_for
from broadcast.games.events import (
    Colour,
    GameEvent,
)
from broadcast.games.fold import fold_tournament
from broadcast.games.state import GameState
from broadcast.tournament.events import (
    TournamentEvent,
)
from broadcast.tournament.live_round import RoundStartMoved
from broadcast.tournament.state import TournamentState, registration_events
from clocks.clocktimes import FlagFell

_SEVERITY: dict[AlertKind, Severity] = {
    "late": "warning",
    "check-presence": "warning",
    "withdraw-from-pairing": "critical",
    "early-draw": "warning",
    "board-not-responding": "critical",
    "driver-fault": "critical",
    "moves-to-check": "critical",
    "bus-polls-missed": "warning",
    "service-overloaded": "critical",
    "battery-low": "warning",
    "clock-not-connected": "warning",
    "out-of-sync": "warning",
    "illegal-move-stood": "critical",
    "bye-refused": "info",
    "both-flags": "critical",
    "result-proposed": "warning",
    "absence-disqualifies": "critical",
    "arbiter-override": "warning",
}


@dataclass(frozen=True, slots=True)
class RulesConfig:
    """Knobs of the rules beyond the event config. `automatic_results` None: the event's."""

    warn_before: tuple[int, ...] = DEFAULT_WARNINGS
    trouble: TroubleConfig = field(default_factory=TroubleConfig)
    automatic_results: ResultsMode | None = None
    # With a zero default time a player must be at the board at the start; the board
    # cannot see a player who is seated and thinking, so after this many seconds the
    # arbiter is asked to check, instead of forfeits being proposed at the start second.
    zero_default_check_after: int = 300


Observable = (
    DriverEvent
    | GameEvent
    | TournamentEvent
    | RoundStartMoved
    | Alert
    | AlertAcknowledged
    | AlertResolved
    | PlayerMarkedPresent
    | FlagFell
)
"""What the rules observe and raise: every kind of journal event (the same union as
`broadcast.journal.kinds.JournalEvent`, which sits above the arbiter and cannot be
imported here)."""


@dataclass(frozen=True)
class RulesMemory:
    """Everything an `ArbiterRules` knows, as an immutable value (`memory()`/`recall()`):
    an action that cannot be made durable puts it back, and snapshots store it."""

    tournament: TournamentState
    book: GameBook
    now: float
    alerts: tuple[Alert, ...]  # in the order raised
    acknowledged: frozenset[str]
    resolved: frozenset[str]
    watch: Mapping[str, WatchMemory]
    boards: Mapping[str, BoardWatchMemory]
    closed: frozenset[str]
    counted: frozenset[tuple[str, int, int]]
    start_overrides: Mapping[tuple[str, int], float]


class ArbiterRules:
    """The arbiter's rules over one event. See the module docstring for the contract."""

    def __init__(
        self,
        event: EventConfig,
        config: RulesConfig | None = None,
        *,
        tournament: TournamentState | None = None,
        now: float = -math.inf,
    ) -> None:
        self.event = event
        self.config = config or RulesConfig()
        self.mode: ResultsMode = self.config.automatic_results or event.automatic_results
        if tournament is None:
            tournament = TournamentState.new(event)
            for registered in registration_events(event):
                tournament = tournament.apply(registered)
        self.tournament = tournament
        self.book = GameBook().synced(tournament)
        self.now = now
        self.alerts: dict[str, Alert] = {}
        self.acknowledged: set[str] = set()
        self.resolved: set[str] = set()
        self.watches: dict[str, Watch] = {}
        self.boards: dict[str, BoardWatch] = {}
        self._closed: set[str] = set()  # games whose result stands: never watched again
        # no-shows already emitted: (section, round, player)
        self.counted: set[tuple[str, int, int]] = set()
        self._next_due = -math.inf  # earliest moment a time rule may fire; -inf: rescan
        self._muted = False
        self._start_overrides: dict[tuple[str, int], float] = {}
        # Open alerts (neither acknowledged nor resolved), in the order raised, and by the
        # game, hall board and kind they are about: closing the alerts of one game or board
        # looks at those alone, not at every alert of the event (that made a restart on a
        # long journal quadratic).
        self._open: dict[str, None] = {}
        self._open_by: dict[tuple[str, str], dict[str, None]] = {}
        # The rule families, in the order they answer an event and a tick.
        self._families: tuple[Callable[[Observable, ArbiterRules], list[Observable]], ...] = (
            presence_rules.observe,
            board_rules.observe,
            result_rules.observe,
            tournament_rules.observe,
        )
        self._timers: tuple[Callable[[float, ArbiterRules], list[Observable]], ...] = (
            presence_rules.tick,
            board_rules.tick,
        )
        # While an event is handled: the game it is about when it names none (a flag fall
        # from a board's clock), and the games as they were before it.
        self.named_game: str | None = None
        self.before = self.book
        self.playing: list[GameState] = []  # while ticking: the games of the rounds in play
        self._scan = math.inf
        self._watch_new_games()

    # -- public API ------------------------------------------------------------------------
    def observe(self, event: Observable, *, game: str | None = None) -> list[Observable]:
        """Fold `event` and return the new events the rules raise because of it (and of
        the time that passed until it). `game` names the game of an event that carries
        none (a `FlagFell` from the board's clock)."""
        if isinstance(event, RoundStartMoved):
            # `at` is the new schedule, not when this happened: no time passes for it.
            return self._handle(event, game)
        t = _time_of(event)
        out = self.tick(t) if t is not None else []
        out += self._handle(event, game)
        return out

    def tick(self, now: float) -> list[Observable]:
        """Time-based rules up to `now`: warnings, default time, silent boards, boards
        out of sync too long."""
        if now <= self.now:
            return []
        self.now = now
        if now < self._next_due:
            return []
        self._scan = math.inf  # the families say when they want to look again (`wake`)
        current = self._current_rounds(now)
        self.playing = []
        for game_id in list(self.watches):
            game = self.book.games.get(game_id)
            if game is None or game.finished:
                continue
            if current.get(game.key.section) != game.key.round:
                # Not the round being played: nobody is expected at those boards yet. Wake
                # up when it starts (a round whose start has passed is not coming back).
                start = self.round_start(self.section(game.key.section), game.key.round)
                if start is not None and start > now:
                    self.wake(start)
                continue
            self.playing.append(game)
        out: list[Observable] = []
        for family in self._timers:
            out += family(now, self)
        self._next_due = self._scan
        # Rules due at different moments within one tick come out in time order, as if
        # the service had ticked at each of those moments (stable: game order on ties).
        out.sort(key=lambda e: _time_of(e) or now)
        return out

    def restore(self, events: Iterable[Observable]) -> None:
        """Fold a journal after a restart without raising anything again: what was raised
        is in the journal and comes back as those events are folded."""
        self._muted = True
        try:
            for event in events:
                self.observe(event)
        finally:
            self._muted = False

    def open_alerts(self) -> list[Alert]:
        """Alerts not acknowledged yet and whose cause has not ended, oldest first."""
        return [self.alerts[i] for i in self._open]

    def memory(self) -> RulesMemory:
        """What the engine knows now, as an immutable value."""
        return RulesMemory(
            tournament=self.tournament,
            book=self.book,
            now=self.now,
            alerts=tuple(self.alerts.values()),
            acknowledged=frozenset(self.acknowledged),
            resolved=frozenset(self.resolved),
            watch={g: w.memory() for g, w in self.watches.items()},
            boards={n: b.memory() for n, b in self.boards.items()},
            closed=frozenset(self._closed),
            counted=frozenset(self.counted),
            start_overrides=dict(self._start_overrides),
        )

    def recall(self, memory: RulesMemory) -> None:
        """Know exactly what `memory` knew (and nothing since)."""
        self.tournament, self.book, self.now = memory.tournament, memory.book, memory.now
        self.alerts = {a.id: a for a in memory.alerts}
        self.acknowledged = set(memory.acknowledged)
        self.resolved = set(memory.resolved)
        self.watches = {g: Watch.recalled(w) for g, w in memory.watch.items()}
        self.boards = {n: BoardWatch.recalled(b) for n, b in memory.boards.items()}
        self._closed = set(memory.closed)
        self.counted = set(memory.counted)
        self._start_overrides = dict(memory.start_overrides)
        self._next_due = -math.inf  # rescan the time rules
        self._open, self._open_by = {}, {}
        for alert in memory.alerts:
            self._index(alert)

    # -- the open alerts' index ------------------------------------------------------------
    def _index(self, alert: Alert) -> None:
        if alert.id in self.acknowledged or alert.id in self.resolved:
            return
        self._open[alert.id] = None
        for key in _index_keys(alert):
            self._open_by.setdefault(key, {})[alert.id] = None

    def _unindex(self, alert_id: str) -> None:
        if self._open.pop(alert_id, 0) is None:
            for key in _index_keys(self.alerts[alert_id]):
                bucket = self._open_by.get(key)
                if bucket is not None:
                    bucket.pop(alert_id, None)
                    if not bucket:
                        del self._open_by[key]

    def open_about(self, what: str, value: str) -> list[Alert]:
        """Open alerts whose `what` (game, hall board, kind) is `value`, oldest first."""
        return [self.alerts[i] for i in self._open_by.get((what, value), {})]

    # -- dispatch --------------------------------------------------------------------------
    def _handle(self, event: Observable, game: str | None) -> list[Observable]:
        match event:
            case Alert():
                if event.id not in self.alerts:
                    self.alerts[event.id] = event
                    self._index(event)
                return []
            case AlertAcknowledged():
                self.acknowledged.add(event.alert)
                if event.alert in self.alerts:
                    self._unindex(event.alert)
                return []
            case AlertResolved():
                self.resolved.add(event.alert)
                if event.alert in self.alerts:
                    self._unindex(event.alert)
                return []
            case RoundStartMoved():
                # `serve --round R` or a delayed round: presence counts from the new start.
                self._start_overrides[(event.section, event.round)] = event.at.timestamp()
                self.rescan()
                return []
        if isinstance(event, GameEvent) and event.game not in self.book.games:
            return []  # not a paired game (yet): nothing to watch
        self.named_game = game
        self.before = self.book
        self.fold(event)
        out: list[Observable] = []
        for family in self._families:
            out += family(event, self)
        return out

    # -- tournament ------------------------------------------------------------------------
    def fold(self, event: Observable) -> None:
        """What the rules know after `event`: the tournament and the games (events of
        games not paired are none of their business)."""
        if isinstance(event, TournamentEvent):
            before = self.book
            self.tournament, self.book = fold_tournament(self.tournament, self.book, event)
            if self.book is not before:
                self._watch_new_games()
        elif isinstance(event, GameEvent) and event.game in self.book.games:
            self.book = self.book.apply(event)

    def close(self, game_id: str) -> None:
        self.watches.pop(game_id, None)
        self._closed.add(game_id)

    def _watch_new_games(self) -> None:
        for game_id, game in self.book.games.items():
            if game_id not in self.watches and game_id not in self._closed and not game.finished:
                self.watches[game_id] = Watch()
                self.rescan()

    # -- games -----------------------------------------------------------------------------

    def is_open(self, alert_id: str) -> bool:
        """The alert is up: neither acknowledged nor resolved."""
        return alert_id in self._open

    def watched(self, game_id: str) -> GameState | None:
        """The game `game_id` if the rules still watch it (paired, no result yet)."""
        game = self.book.games.get(game_id)
        if game is None or game.finished or game_id not in self.watches:
            return None
        return game

    def resolve(
        self, among: Iterable[Alert], which: Callable[[Alert], bool], t: float, why: str
    ) -> list[Observable]:
        """Close the open alerts `among` that `which` selects: their cause has ended."""
        out: list[Observable] = []
        for alert in among:
            if which(alert):
                self.resolved.add(alert.id)
                self._unindex(alert.id)
                out.append(AlertResolved(alert.id, t, why))
        return self.emit(out)

    # -- time rules ------------------------------------------------------------------------

    # -- boards ----------------------------------------------------------------------------

    # -- helpers ---------------------------------------------------------------------------
    def wake(self, t: float) -> None:
        """A rule wants to look again at `t` (a time rule may fire then)."""
        self._next_due = min(self._next_due, t)
        self._scan = min(self._scan, t)

    def rescan(self) -> None:
        """Something changed that time rules depend on: look at all of them next tick."""
        self.wake(-math.inf)

    def alert(
        self,
        alert_id: str,
        kind: AlertKind,
        t: float,
        message: str,
        *,
        game: GameState | None = None,
        section: str = "",
        round_number: int = 0,
        players: tuple[str, ...] | None = None,
        hall_board: str = "",
        severity: Severity | None = None,
        result: str = "",
        reason: str = "",
    ) -> list[Observable]:
        if alert_id in self.alerts:
            return []
        if game is not None:
            section, round_number = game.key.section, game.key.round
            if players is None:
                players = (self.name_of(game, "white"), self.name_of(game, "black"))
            if not hall_board:
                hall = hall_board_for(self.event, game.key)
                hall_board = game.board or (str(hall.number) if hall else "")
        alert = Alert(
            id=alert_id,
            kind=kind,
            severity=severity or _SEVERITY[kind],
            section=section,
            round=round_number,
            board=game.key.board if game is not None else 0,
            game=game.id if game is not None else "",
            players=players or (),
            message=message,
            t=t,
            hall_board=hall_board,
            result=result,
            reason=reason,
        )
        self.alerts[alert_id] = alert
        self._index(alert)
        return self.emit([alert])

    def emit(self, events: list[Observable]) -> list[Observable]:
        return [] if self._muted else events

    def section(self, name: str) -> SectionConfig:
        return self.tournament.section(name).config

    def _current_rounds(self, now: float) -> dict[str, int]:
        """Per section, the round being played at `now`: the paired round whose start (as
        scheduled, or as moved) is the latest one not after `now`."""
        current: dict[str, int] = {}
        for name, section in self.tournament.sections.items():
            # A play-off game for first place is a round of its own, started when paired.
            playoff = (section.playoff_round(n) for n in section.playoff)
            started = [
                (start, r)
                for r in (*section.rounds, *playoff)
                if (start := self.round_start(section.config, r)) is not None and start <= now
            ]
            if started:
                current[name] = max(started)[1]
        return current

    def round_start(self, config: SectionConfig, round_number: int) -> float | None:
        moved = self._start_overrides.get((config.name, round_number))
        if moved is not None:
            return moved
        if round_number > config.rounds:  # a play-off game: from its pairing
            game = self.tournament.section(config.name).playoff.get(round_number - config.rounds)
            return game.at.timestamp() if game is not None else None
        try:
            return config.round_start(round_number).start.timestamp()
        except KeyError:
            return None

    def name_of(self, game: GameState, colour: Colour) -> str:
        ref = game.white if colour == "white" else game.black
        return ref.name if ref is not None else colour

    def player_name(self, section: str, player: int) -> str:
        entry = self.tournament.section(section).players.get(player)
        return entry.name if entry is not None else f"player {player}"


def _time_of(event: Observable) -> float | None:
    """When `event` happened; None for the tournament events that carry no time."""
    t = getattr(event, "t", None)
    if isinstance(t, int | float):
        return float(t)
    at = getattr(event, "at", None)
    if isinstance(at, dt.datetime):
        return at.timestamp()
    return None


def _index_keys(alert: Alert) -> list[tuple[str, str]]:
    keys: list[tuple[str, str]] = [("kind", alert.kind)]
    if alert.game:
        keys.append(("game", alert.game))
    if alert.hall_board:
        keys.append(("board", alert.hall_board))
    return keys
