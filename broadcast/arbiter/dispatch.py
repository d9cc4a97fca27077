"""`ArbiterRules`: the rules engine the service drives, events and time in, events out.

    rules = ArbiterRules(event_config, state=state)
    new = rules.observe(event, state)            # every event, in journal order
    new = rules.observe(flag, state, game=gid)   # reconstruction events carry no game
    new = rules.tick(now, state)                 # as time passes (epoch seconds)
    rules.restore(event, state)                  # after a restart: emit nothing
    memory = rules.memory()                      # an immutable copy of what it remembers
    rules.recall(memory, state)                  # back to it (an action undone, a snapshot)

`state` is the service's one fold of the journal (`EventState`, seen here through the
`EventView` protocol) with `event` already in it: the rules fold nothing of their own.
What they raise within one call they see at once (folded onto `state` with its own
`apply`) until the service has stored it.

Everything returned is a new event for the journal: `Alert`, `ResultProposed`,
`ResultConfirmed` (automatic results when the event applies them at once),
`NoShowCounted`, `ByeGranted`/`ByeRefused`. Feeding it back through `observe` is
harmless (idempotent) but not needed.

The engine dispatches; the rules are in one module per family, each with `observe(event,
ctx)` and (for time rules) `tick(now, ctx)`, `ctx` being the engine: `presence_rules`,
`board_rules`, `result_rules`, `tournament_rules`, `team_rules`. The per-game and
per-board memory is `watch.py`.

Deterministic: no wall clock. `observe` first advances time to the event's `t`, so a
rule due before the event fires before it (on the state before it), whatever the
service's tick cadence; time never goes back (an event stamped earlier than `now` is
handled at `now`). Time-based results and alerts are stamped with the moment the rule
says (a warning mark, the default time), not with when the tick happened to run.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace

from broadcast.arbiter import (
    board_rules,
    presence_rules,
    result_rules,
    team_rules,
    tournament_rules,
)
from broadcast.arbiter.alerts import (
    Alert,
    AlertAcknowledged,
    AlertKind,
    AlertReopened,
    AlertResolved,
    AlertUpdated,
    Severity,
)
from broadcast.arbiter.context import EventView, Observable, RulesConfig, RulesContext
from broadcast.arbiter.decisions import ActionTaken, ActionUndone
from broadcast.arbiter.memory import BoardWatch, BoardWatchMemory, Watch, WatchMemory
from broadcast.arbiter.presence import Presence
from broadcast.arbiter.readers import BoardsUnheard
from broadcast.config.model import EventConfig, ResultsMode, SectionConfig
from broadcast.games.book import GameBook, hall_board_for
from broadcast.games.game_events import Colour, GameEvent, ResultCleared
from broadcast.games.game_state import GameState
from broadcast.phrases import Phrase, english
from broadcast.tournament import schedule
from broadcast.tournament.live_round import RoundStartMoved
from broadcast.tournament.tournament_state import TournamentState

_SEVERITY: dict[AlertKind, Severity] = {
    "late": "warning",
    "check-presence": "warning",
    "check-tables": "warning",
    "withdraw-from-pairing": "critical",
    "early-draw": "warning",
    "board-not-responding": "critical",
    "driver-fault": "critical",
    "moves-to-check": "critical",
    "bus-polls-missed": "warning",
    "service-overloaded": "critical",
    "board-missing": "critical",
    "battery-low": "warning",
    "clock-not-connected": "warning",
    "out-of-sync": "warning",
    "illegal-move-stood": "critical",
    "bye-refused": "info",
    "both-flags": "critical",
    "result-proposed": "warning",
    "absence-disqualifies": "critical",
    "arbiter-override": "warning",
    "team-forfeit": "critical",
    "station-lost": "critical",
    "station-clock": "warning",
    "board-claimed-twice": "critical",
    "station-refused": "warning",
    "stations-unreachable": "warning",
}


@dataclass(frozen=True)
class RulesMemory:
    """Everything an `ArbiterRules` knows, as an immutable value (`memory()`/`recall()`):
    an action that cannot be made durable puts it back, and snapshots store it."""

    now: float
    alerts: tuple[Alert, ...]  # in the order raised
    acknowledged: frozenset[str]
    resolved: frozenset[str]
    watch: Mapping[str, WatchMemory]
    boards: Mapping[str, BoardWatchMemory]
    closed: Mapping[str, WatchMemory]  # games whose result stands, with their watch then
    counted: frozenset[tuple[str, int, int]]
    # The watches of games a pairing edit gave to other players, by "game#white-black":
    # an edit undone brings the game back, and what was seen of its players with it.
    replaced: Mapping[str, WatchMemory]


class ArbiterRules:
    """The arbiter's rules over one event. See the module docstring for the contract."""

    def __init__(
        self,
        event: EventConfig,
        config: RulesConfig | None = None,
        *,
        state: EventView,
        now: float = -math.inf,
    ) -> None:
        self.event = event
        self.config = config or RulesConfig()
        self.mode: ResultsMode = self.config.automatic_results or event.automatic_results
        # The service's state as of the event being handled, plus what the rules raised
        # since (not folded by the service yet): the rules keep no fold of their own.
        self._view: EventView = state
        self.now = now
        self.alerts: dict[str, Alert] = {}
        self.acknowledged: set[str] = set()
        self.resolved: set[str] = set()
        self.watches: dict[str, Watch] = {}
        self.boards: dict[str, BoardWatch] = {}
        # Games whose result stands: not watched while it does, their watch kept for a
        # result that is undone (who was seen at the board, what was proposed).
        self._closed: dict[str, Watch] = {}
        self._replaced: dict[str, Watch] = {}
        # no-shows already emitted: (section, round, player)
        self.counted: set[tuple[str, int, int]] = set()
        self._next_due = -math.inf  # earliest moment a time rule may fire; -inf: rescan
        self._muted = False
        # Open alerts (neither acknowledged nor resolved), in the order raised, and by the
        # game, hall board and kind they are about: closing the alerts of one game or board
        # looks at those alone, not at every alert of the event (that made a restart on a
        # long journal quadratic).
        self._open: dict[str, None] = {}
        self._open_by: dict[tuple[str, str], dict[str, None]] = {}
        # The rule families, in the order they answer an event and a tick.
        self._families: tuple[Callable[[Observable, RulesContext], list[Observable]], ...] = (
            presence_rules.observe,
            board_rules.observe,
            result_rules.observe,
            tournament_rules.observe,
            team_rules.observe,
        )
        self._timers: tuple[Callable[[float, RulesContext], list[Observable]], ...] = (
            presence_rules.tick,
            board_rules.tick,
            team_rules.tick,
        )
        # While an event is handled: the game it is about when it names none (a flag fall
        # from a board's clock), and the games as they were before it.
        self.named_game: str | None = None
        self.before = self.book
        self.playing: list[GameState] = []  # while ticking: the games of the rounds in play
        self._scan = math.inf
        self._watch_new_games()

    # -- public API ------------------------------------------------------------------------
    @property
    def tournament(self) -> TournamentState:
        return self._view.tournament

    @property
    def book(self) -> GameBook:
        return self._view.book

    def observe(
        self, event: Observable, state: EventView, *, game: str | None = None
    ) -> list[Observable]:
        """The new events the rules raise because of `event` (and of the time that passed
        until it). `state` is the event's state with `event` folded in (and the events the
        rules raised before, if the caller has not folded them yet). `game` names the game
        of an event that carries none (a `FlagFell` from the board's clock)."""
        if isinstance(event, ActionTaken):
            return []  # an action's record: its events were seen one by one
        # `at` of a RoundStartMoved is the new schedule, not when this happened: no time
        # passes for it. Rules due before the event fire first, on the state before it.
        t = None if isinstance(event, RoundStartMoved) else _time_of(event)
        out = self._tick(t) if t is not None else []
        self.before = self.book
        self._see(state, out)
        out += self._handle(event, game)
        return out

    def tick(self, now: float, state: EventView) -> list[Observable]:
        """Time-based rules up to `now`: warnings, default time, silent boards, boards
        out of sync too long."""
        self._see(state, [])
        return self._tick(now)

    def _see(self, state: EventView, raised: list[Observable]) -> None:
        """`state` is the event's state now; `raised`, what the rules raised on the state
        before it, is not folded into it yet."""
        for event in raised:
            state = state.apply(event)
        new_games = state.tournament is not self._view.tournament
        old = self._view.book
        self._view = state
        if new_games:
            self._forget_replaced_games(old)
            self._watch_new_games()

    def _tick(self, now: float) -> list[Observable]:
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

    def restore(self, event: Observable, state: EventView) -> None:
        """`observe` a journal's event after a restart without raising anything again:
        what was raised is in the journal and comes back as those events are replayed."""
        self._muted = True
        try:
            self.observe(event, state)
        finally:
            self._muted = False

    def open_alerts(self) -> list[Alert]:
        """Alerts not acknowledged yet and whose cause has not ended, oldest first."""
        return [self.alerts[i] for i in self._open]

    def memory(self) -> RulesMemory:
        """What the engine knows now, as an immutable value."""
        return RulesMemory(
            now=self.now,
            alerts=tuple(self.alerts.values()),
            acknowledged=frozenset(self.acknowledged),
            resolved=frozenset(self.resolved),
            watch={g: w.memory() for g, w in self.watches.items()},
            boards={n: b.memory() for n, b in self.boards.items()},
            closed={g: w.memory() for g, w in self._closed.items()},
            counted=frozenset(self.counted),
            replaced={k: w.memory() for k, w in self._replaced.items()},
        )

    def recall(self, memory: RulesMemory, state: EventView) -> None:
        """Know exactly what `memory` knew (and nothing since), over `state`: the event's
        state as of that memory."""
        self._view, self.now = state, memory.now
        self.alerts = {a.id: a for a in memory.alerts}
        self.acknowledged = set(memory.acknowledged)
        self.resolved = set(memory.resolved)
        self.watches = {g: Watch.recalled(w) for g, w in memory.watch.items()}
        self.boards = {n: BoardWatch.recalled(b) for n, b in memory.boards.items()}
        self._closed = {g: Watch.recalled(w) for g, w in memory.closed.items()}
        self._replaced = {k: Watch.recalled(w) for k, w in memory.replaced.items()}
        self.counted = set(memory.counted)
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
            case AlertUpdated():
                self.update_alert(event)
                return []
            case AlertReopened():
                self.acknowledged.discard(event.alert)
                self.resolved.discard(event.alert)
                alert = self.alerts.get(event.alert)
                if alert is not None and alert.id not in self._open:
                    self._index(alert)
                    # Oldest first, as raised: a reopened alert takes its place again.
                    self._open = {i: None for i in self.alerts if i in self._open}
                return []
            case RoundStartMoved():
                # `serve --round R` or a delayed round: presence counts from the new start.
                self.rescan()
                return []
            case BoardsUnheard():
                # A lost station's boards are unheard, not silent: no alarm per board
                # (the station's alert names them); once back, silence counts from now.
                for name in event.boards:
                    watch = self.boards.setdefault(name, BoardWatch())
                    watch.silent = event.unheard
                    if not event.unheard:
                        watch.last_seen = event.t
                self.rescan()  # the silence rule has new times to look at
                return []
        if isinstance(event, GameEvent) and event.game not in self.book.games:
            return []  # not a paired game (yet): nothing to watch
        if isinstance(event, ActionUndone | ResultCleared):
            self._follow_results()
        self.named_game = game
        out: list[Observable] = []
        for family in self._families:
            out += family(event, self)
        return out

    # -- the families' context: what the rules know and the helpers they share -------------
    def fold(self, event: Observable) -> None:
        """An event the rules raise, folded into their view at once (the rules that follow
        it see it); the service folds it for good once it has stored it."""
        self._see(self._view.apply(event), [])

    def close(self, game_id: str) -> None:
        """The game's result stands: not watched while it does."""
        watch = self.watches.pop(game_id, None)
        if game_id not in self._closed:
            self._closed[game_id] = watch if watch is not None else Watch()

    def reopen(self, game_id: str) -> None:
        """The game's result was taken back (the rules' own doing): watch it again."""
        watch = self._closed.get(game_id)
        game = self.book.games.get(game_id)
        # The game's own result is what the rules took back; its pairing's follows when
        # the service stores it.
        if watch is not None and game is not None and not game.finished:
            del self._closed[game_id]
            self.watches[game_id] = watch
            self.rescan()

    def _follow_results(self) -> None:
        """A game whose result was taken back (an undone confirmation, a withdrawal's
        forfeit taken back) is watched again, from what its watch knew then; one whose
        result came back (an undone correction of it) is not watched any more."""
        for game_id in [g for g in self._closed if g in self.book.games]:
            if not self._result_stands(self.book.games[game_id]):
                self.watches[game_id] = self._closed.pop(game_id)
                self.rescan()
        for game_id in list(self.watches):
            game = self.book.games.get(game_id)
            if game is not None and self._result_stands(game):
                self.close(game_id)

    def _result_stands(self, game: GameState) -> bool:
        """The game has a result: its own, or one recorded on its pairing."""
        if game.finished:
            return True
        section = self.tournament.sections.get(game.key.section)
        rnd = section.rounds.get(game.key.round) if section is not None else None
        if rnd is None:
            return False
        pairing = next((p for p in rnd.pairings if p.board == game.key.board), None)
        return pairing is not None and pairing.white in rnd.results

    def _forget_replaced_games(self, old: GameBook) -> None:
        """A board whose game a pairing edit gave to other players has a new game: what
        was seen of the old one's players says nothing of the new ones. It is kept aside
        for the old game, which comes back if the edit is undone."""
        for game_id in [g for g in (*self.watches, *self._closed)]:
            was, now = old.games.get(game_id), self.book.games.get(game_id)
            if was is None or now is None or was is now or _starts(was) == _starts(now):
                continue
            watch = self.watches.pop(game_id, None) or self._closed.pop(game_id, None)
            if watch is not None:
                self._replaced[_pair_key(game_id, was)] = watch
            back = self._replaced.pop(_pair_key(game_id, now), None)
            if back is not None:
                if now.finished:
                    self._closed[game_id] = back
                else:
                    self.watches[game_id] = back

    def _watch_new_games(self) -> None:
        for game_id, game in self.book.games.items():
            if game_id in self.watches or game.finished:
                continue
            closed = self._closed.get(game_id)
            if closed is not None:
                if self._result_stands(game):
                    continue
                del self._closed[game_id]
            self.watches[game_id] = closed if closed is not None else Watch.of(game)
            self.rescan()

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
        self,
        among: Iterable[Alert],
        which: Callable[[Alert], bool],
        t: float,
        why: str | Phrase,
    ) -> list[Observable]:
        """Close the open alerts `among` that `which` selects: their cause has ended
        (`why` in English, or as a phrase the desk translates)."""
        out: list[Observable] = []
        phrase = why if isinstance(why, Phrase) else None
        for alert in among:
            if which(alert):
                self.resolved.add(alert.id)
                self._unindex(alert.id)
                out.append(AlertResolved(alert.id, t, english(why), phrase))
        return self.emit(out)

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
        message: str | Phrase,
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
            message=english(message),
            t=t,
            hall_board=hall_board,
            result=result,
            reason=reason,
            phrase=message if isinstance(message, Phrase) else None,
        )
        self.alerts[alert_id] = alert
        self._index(alert)
        return self.emit([alert])

    def emit(self, events: list[Observable]) -> list[Observable]:
        return [] if self._muted else events

    def update_alert(self, update: AlertUpdated) -> list[Observable]:
        """The alert says `update`'s words from now on (what it is about stays: kind, game,
        board, so the index of the open alerts holds)."""
        alert = self.alerts.get(update.alert)
        if alert is None or (alert.message, alert.players) == (update.message, update.players):
            return []
        self.alerts[alert.id] = replace(
            alert, message=update.message, players=update.players, phrase=update.phrase
        )
        return self.emit([update])

    def presence_of(self, game_id: str) -> Presence | None:
        """What the rules know of who is at the game's board: while it is watched, and
        after its result (None: a game the rules have never watched)."""
        watch = self.watches.get(game_id) or self._closed.get(game_id)
        return watch.presence if watch is not None else None

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

    @property
    def start_overrides(self) -> Mapping[tuple[str, int], dt.datetime]:
        """Round starts moved from the schedule (`RoundStartMoved`), by (section, round)."""
        return self._view.start_overrides

    def round_start(self, config: SectionConfig, round_number: int) -> float | None:
        moved = self._view.start_overrides
        if (config.name, round_number) not in moved and round_number > config.rounds:
            # A play-off game: from its pairing.
            game = self.tournament.section(config.name).playoff.get(round_number - config.rounds)
            return game.at.timestamp() if game is not None else None
        try:
            return schedule.round_start(config, round_number, moved).timestamp()
        except KeyError:
            return None

    def name_of(self, game: GameState, colour: Colour) -> str:
        ref = game.white if colour == "white" else game.black
        return ref.name if ref is not None else colour

    def player_name(self, section: str, player: int) -> str:
        entry = self.tournament.section(section).players.get(player)
        return entry.name if entry is not None else f"player {player}"


def _pair_key(game_id: str, game: GameState) -> str:
    white, black = _starts(game)
    return f"{game_id}#{white}-{black}"


def _starts(game: GameState) -> tuple[int | None, int | None]:
    return (
        game.white.start if game.white is not None else None,
        game.black.start if game.black is not None else None,
    )


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


__all__ = ["ArbiterRules", "EventView", "Observable", "RulesConfig", "RulesMemory"]
