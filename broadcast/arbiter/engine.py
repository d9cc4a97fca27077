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

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, cast

from boards.events import (
    BatterySeen,
    BoardConnected,
    BoardHealth,
    BoardLost,
    ClockSeen,
    DriverFault,
    LogGap,
)
from broadcast.arbiter.alerts import (
    Alert,
    AlertAcknowledged,
    AlertKind,
    AlertResolved,
    PlayerMarkedPresent,
    Severity,
)
from broadcast.arbiter.flag import flag_fall_result
from broadcast.arbiter.presence import (
    DEFAULT_WARNINGS,
    Presence,
    absent_colours,
    deadline,
    forfeit_result,
    no_show_colours,
    warning_marks,
)
from broadcast.arbiter.results import early_draw_breach, position_result
from broadcast.arbiter.trouble import (
    TroubleConfig,
    battery_severity,
    move_label,
    polls_missed,
    too_long,
)
from broadcast.arbiter.watch import BoardWatch, BoardWatchMemory, Watch, WatchMemory
from broadcast.arbiter.withdrawal import withdrawal_events
from broadcast.config.model import EventConfig, ResultsMode, SectionConfig
from broadcast.games.book import GameBook, hall_board_for
from broadcast.games.events import (
    REASON_TEXT,
    BoardAttached,
    Colour,
    GameClock,
    GameFlag,
    GameMove,
    GameMoveClocked,
    GameResultText,
    GameSync,
    GameTakeback,
    LineCorrected,
    ResultConfirmed,
    ResultProposed,
    ResultReason,
    StartPositionSet,
)
from broadcast.games.fold import fold_tournament
from broadcast.games.state import GameState
from broadcast.tournament.events import (
    ByeCancelled,
    ByeGranted,
    ByeRefused,
    ByeRequested,
    NoShowCounted,
    PairingEdited,
    PlayerWithdrawn,
    ResultRecorded,
)
from broadcast.tournament.live_round import RoundStartMoved
from broadcast.tournament.state import TournamentState, registration_events
from clocks.clocktimes import FlagFell
from clocks.reading import ClockReading, NoClock

POSITION_REASONS: frozenset[str] = frozenset(
    {"checkmate", "stalemate", "dead-position", "repetition", "75-moves"}
)
AUTOMATIC_REASONS: frozenset[str] = POSITION_REASONS | {"kings-signal", "flag-fall"}
"""Results the event may apply at once ("apply"). Default-time forfeits are never among
them: Laws 6.7.1 leaves the arbiter room to decide otherwise, so they wait for a word."""

DRAW_BY_AGREEMENT: frozenset[str] = frozenset({"kings-signal", "agreement"})

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

# Alerts about a game whose cause ends with the game: once its result stands they close.
ENDS_WITH_THE_GAME: frozenset[str] = frozenset(
    {"late", "check-presence", "out-of-sync", "illegal-move-stood", "result-proposed", "both-flags"}
)
PRESENCE_KINDS: frozenset[str] = frozenset({"late", "check-presence"})


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


Observable = Any  # any journal event: game, tournament, driver, reconstruction, arbiter


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
        self._watch: dict[str, Watch] = {}
        self._boards: dict[str, BoardWatch] = {}
        self._closed: set[str] = set()  # games whose result stands: never watched again
        # no-shows already emitted: (section, round, player)
        self._counted: set[tuple[str, int, int]] = set()
        self._next_due = -math.inf  # earliest moment a time rule may fire; -inf: rescan
        self._muted = False
        self._start_overrides: dict[tuple[str, int], float] = {}
        # Open alerts (neither acknowledged nor resolved), in the order raised, and by the
        # game, hall board and kind they are about: closing the alerts of one game or board
        # looks at those alone, not at every alert of the event (that made a restart on a
        # long journal quadratic).
        self._open: dict[str, None] = {}
        self._open_by: dict[tuple[str, str], dict[str, None]] = {}
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
        out: list[Observable] = []
        next_due = math.inf
        current = self._current_rounds(now)
        for game_id in list(self._watch):
            game = self.book.games.get(game_id)
            if game is None or game.finished:
                continue
            if current.get(game.key.section) != game.key.round:
                # Not the round being played: nobody is expected at those boards yet. Wake
                # up when it starts (a round whose start has passed is not coming back).
                start = self._round_start(self._section(game.key.section), game.key.round)
                if start is not None and start > now:
                    next_due = min(next_due, start)
                continue
            out += self._presence_rules(game, now)
            next_due = min(next_due, self._presence_due(game))
            out += self._sync_rules(game, now)
            out += self._illegal_rule(game, now)
            watch = self._watch.get(game_id)
            if watch is not None and watch.press_out is not None:
                next_due = min(
                    next_due, watch.press_out[0] + self.config.trouble.illegal_move_after
                )
            if not game.in_sync and game.out_since is not None:
                next_due = min(next_due, game.out_since + self.config.trouble.out_of_sync_after)
        for name, board in self._boards.items():
            out += self._silence_rule(name, board, now)
            if board.has_clock and board.last_seen is not None and not board.silent:
                next_due = min(next_due, board.last_seen + self.config.trouble.silent_after)
            out += self._fault_cleared(name, board, now)
            if board.fault_alert is not None and board.back_since is not None:
                next_due = min(next_due, board.back_since + self.config.trouble.fault_cleared_after)
        self._next_due = next_due
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
            watch={g: w.memory() for g, w in self._watch.items()},
            boards={n: b.memory() for n, b in self._boards.items()},
            closed=frozenset(self._closed),
            counted=frozenset(self._counted),
            start_overrides=dict(self._start_overrides),
        )

    def recall(self, memory: RulesMemory) -> None:
        """Know exactly what `memory` knew (and nothing since)."""
        self.tournament, self.book, self.now = memory.tournament, memory.book, memory.now
        self.alerts = {a.id: a for a in memory.alerts}
        self.acknowledged = set(memory.acknowledged)
        self.resolved = set(memory.resolved)
        self._watch = {g: Watch.recalled(w) for g, w in memory.watch.items()}
        self._boards = {n: BoardWatch.recalled(b) for n, b in memory.boards.items()}
        self._closed = set(memory.closed)
        self._counted = set(memory.counted)
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

    def _open_about(self, what: str, value: str) -> list[Alert]:
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
            case PlayerMarkedPresent():
                return self._mark_present(event.game, event.colour, event.t)
            case ByeRequested():
                return self._bye(event)
            case NoShowCounted():
                self._fold_tournament(event)
                return self._no_show_limit(event.section, event.player, event.round)
            case ResultRecorded():
                self._fold_tournament(event)
                return []
            case ByeGranted() | ByeCancelled() if event.override:
                self._fold_tournament(event)
                return self._override_alert(event)
            case PlayerWithdrawn():
                return self._withdrawn(event)
            case RoundStartMoved():
                # `serve --round R` or a delayed round: presence counts from the new start.
                self._start_overrides[(event.section, event.round)] = event.at.timestamp()
                self._next_due = -math.inf
                return []
            case FlagFell():
                return self._flag(event, game)
            case (
                BoardConnected()
                | BoardLost()
                | BoardHealth()
                | BatterySeen()
                | ClockSeen()
                | DriverFault()
                | LogGap()
            ):
                return self._board_event(event, game)
            case GameMoveClocked() | GameFlag():
                # Nothing to decide, but folded too: the engine's games stay the service's
                # (and a snapshot stores them once for both).
                if event.game in self.book.games:
                    self.book = self.book.apply(event)
                return []
            case (
                BoardAttached()
                | GameMove()
                | GameTakeback()
                | GameClock()
                | GameSync()
                | ResultProposed()
                | ResultConfirmed()
                | LineCorrected()
                | StartPositionSet()
            ):
                return self._game_event(event)
        if _is_tournament_event(event):
            self._fold_tournament(event)
            return self._tournament_resolutions(event)
        return []

    # -- tournament ------------------------------------------------------------------------
    def _fold_tournament(self, event: Any) -> None:
        before = self.book
        self.tournament, self.book = fold_tournament(self.tournament, self.book, event)
        if self.book is not before:
            self._watch_new_games()
        if isinstance(event, ResultRecorded):
            self._close_by_pairing(event)

    def _close(self, game_id: str) -> None:
        self._watch.pop(game_id, None)
        self._closed.add(game_id)

    def _watch_new_games(self) -> None:
        for game_id, game in self.book.games.items():
            if game_id not in self._watch and game_id not in self._closed and not game.finished:
                self._watch[game_id] = Watch()
                self._next_due = -math.inf

    def _close_by_pairing(self, event: ResultRecorded) -> None:
        """A result recorded on the tournament side ends the game's watch too."""
        section = self.tournament.sections.get(event.section)
        rnd = section.rounds.get(event.round) if section else None
        pairing = rnd.game_of(event.player) if rnd else None
        if pairing is None or pairing.black is None:
            return
        for game in self.book.round_games(event.section, event.round):
            if game.key.board == pairing.board:
                self._close(game.id)

    def _bye(self, request: ByeRequested) -> list[Observable]:
        self._fold_tournament(request)
        decision = self.tournament.section(request.section).decide_bye(request)
        out: list[Observable] = [decision]
        self._fold_tournament(decision)
        if isinstance(decision, ByeRefused):
            name = self._player_name(request.section, request.player)
            out += self._alert(
                f"bye-refused:{request.section}:{request.round}:{request.player}:{request.at.timestamp()}",
                "bye-refused",
                request.at.timestamp(),
                f"bye for round {request.round} refused for {name}: {decision.reason}; "
                "grant it by hand if the chief arbiter allows it",
                section=request.section,
                round_number=request.round,
                players=(name,),
            )
        return self._emit(out)

    def _no_show_limit(self, section_name: str, player: int, round_number: int) -> list[Observable]:
        section = self.tournament.section(section_name)
        limit = section.config.no_show_limit
        rounds = section.no_shows.get(player, ())
        if limit is None or len(rounds) < limit:
            return []
        name = self._player_name(section_name, player)
        listed = ", ".join(str(r) for r in rounds)
        eliminate = section.config.no_shows.on_limit == "withdraw"
        what = (
            "eliminated (regulations); their remaining games follow [section.withdrawal]"
            if eliminate
            else "withdraw them from the pairing (PlayerWithdrawn) unless you decide otherwise"
        )
        out = self._alert(
            f"withdraw-from-pairing:{section_name}:{player}",
            "withdraw-from-pairing",
            self.now,
            f"{name} has {len(rounds)} no-shows (rounds {listed}), the section's limit is "
            f"{limit}: {what}",
            section=section_name,
            round_number=round_number,
            players=(name,),
        )
        if eliminate:
            out += self._withdraw(section_name, player, round_number + 1, f"{len(rounds)} no-shows")
        return out

    # -- games -----------------------------------------------------------------------------
    def _game_event(self, event: Any) -> list[Observable]:
        before = self.book.games.get(event.game)
        if before is None:
            return []  # not a paired game (yet): nothing to watch
        self.book = self.book.apply(event)
        game = self.book.get(event.game)
        watch = self._watch.get(game.id)
        match event:
            case BoardAttached(board=board):
                self._boards.setdefault(board, BoardWatch()).game = game.id
                return []
            case ResultConfirmed():
                return self._finish(game, event) + self._confirmed(game, event)
            case ResultProposed():
                return self._proposed(game, event)
            case GameSync(in_sync=True):
                if watch is not None:
                    watch.press_out = None
                return self._resolve(
                    self._open_about("game", game.id),
                    lambda a: a.kind in ("out-of-sync", "illegal-move-stood"),
                    event.t,
                    "the board matches the game again",
                )
        if watch is None or game.finished:
            return []
        out: list[Observable] = []
        match event:
            case GameMove():
                colour: Colour = "white" if event.ply % 2 == 1 else "black"
                out += self._mark_present(game.id, colour, event.t)
                if event.ply == game.ply:
                    out += self._position_rules(game, event.t, "")
            case GameClock():
                pressed = _pressed_by(before.running, event.running)
                if pressed is not None:
                    out += self._mark_present(game.id, pressed, event.t)
                    if not game.in_sync and watch.press_out is None:
                        watch.press_out = (event.t, pressed, watch.out_episode)
                        self._next_due = min(
                            self._next_due, event.t + self.config.trouble.illegal_move_after
                        )
                if event.running is None and before.running is not None:
                    out += self._position_rules(game, event.t, " (clock stopped)")
            case GameSync(in_sync=False):
                self._next_due = -math.inf
                if before.in_sync:
                    watch.out_episode += 1
            case LineCorrected() | GameTakeback() | StartPositionSet():
                # A changed line may end in a final position or leave one.
                out += self._position_rules(game, event.t, " (corrected line)")
        return out

    def _mark_present(self, game_id: str, colour: Colour, t: float) -> list[Observable]:
        """`colour` is at the board from `t`; presence alerts about nobody still missing close."""
        watch = self._watch.get(game_id)
        game = self.book.games.get(game_id)
        if watch is None or game is None or watch.presence.of(colour) is not None:
            return []
        p = watch.presence
        watch.presence = Presence(t, p.black) if colour == "white" else Presence(p.white, t)
        missing = {self._name_of(game, c) for c in absent_colours(watch.presence, math.inf)}
        return self._resolve(
            self._open_about("game", game_id),
            lambda a: a.kind in PRESENCE_KINDS and not missing.intersection(a.players),
            t,
            "the players are at the board",
        )

    def _finish(self, game: GameState, confirmed: ResultConfirmed) -> list[Observable]:
        """The game's result stands: stop watching it, close the alerts it ends."""
        self._close(game.id)
        return self._resolve(
            self._open_about("game", game.id),
            lambda a: a.kind in ENDS_WITH_THE_GAME,
            confirmed.t,
            f"result {confirmed.result} ({confirmed.by})",
        )

    def _resolve(
        self, among: Iterable[Alert], which: Callable[[Alert], bool], t: float, why: str
    ) -> list[Observable]:
        """Close the open alerts `among` that `which` selects: their cause has ended."""
        out: list[Observable] = []
        for alert in among:
            if which(alert):
                self.resolved.add(alert.id)
                self._unindex(alert.id)
                out.append(AlertResolved(alert.id, t, why))
        return self._emit(out)

    def _tournament_resolutions(self, event: Any) -> list[Observable]:
        if isinstance(event, PlayerWithdrawn):
            wanted = f"withdraw-from-pairing:{event.section}:{event.player}"
            among = [self.alerts[wanted]] if wanted in self._open else []
            return self._resolve(among, lambda a: True, self.now, "player withdrawn")
        if isinstance(event, ByeGranted):
            prefix = f"bye-refused:{event.section}:{event.round}:{event.player}:"
            return self._resolve(
                self._open_about("kind", "bye-refused"),
                lambda a: a.id.startswith(prefix),
                event.at.timestamp(),
                "bye granted",
            )
        return []

    def _proposal_alert(self, game: GameState, proposal: ResultProposed) -> list[Observable]:
        """A result waiting for the arbiter: one alert per proposal, the older ones of the
        game superseded."""
        key = game.ply if proposal.reason in POSITION_REASONS else 0
        alert_id = f"result-proposed:{game.id}:{proposal.reason}:{proposal.result}:{key}"
        out = self._resolve(
            self._open_about("game", game.id),
            lambda a: a.kind == "result-proposed" and a.id != alert_id,
            proposal.t,
            f"superseded by {proposal.result} ({proposal.reason})",
        )
        words = REASON_TEXT.get(proposal.reason, proposal.reason)
        detail = f": {proposal.detail}" if proposal.detail else ""
        return out + self._alert(
            alert_id,
            "result-proposed",
            proposal.t,
            f"proposed result {proposal.result} by {words}{detail}; "
            "confirm it, or set another result",
            game=game,
            result=proposal.result,
            reason=proposal.reason,
        )

    def _position_rules(self, game: GameState, t: float, note: str) -> list[Observable]:
        history = [game.start_fen, *(m.fen_after for m in game.moves[:-1])]
        found = position_result(game.fen, history if game.moves else ())
        if found is None:
            return []
        return self._propose(game, found.result, found.reason, t, found.detail + note)

    def _propose(
        self, game: GameState, result: GameResultText, reason: ResultReason, t: float, detail: str
    ) -> list[Observable]:
        watch = self._watch.get(game.id)
        if watch is None or game.finished:
            return []
        key = (reason, result, game.ply if reason in POSITION_REASONS else 0)
        if key in watch.proposed:
            return []
        watch.proposed.add(key)
        proposal = ResultProposed(game.id, result, reason, t, detail)
        self.book = self.book.apply(proposal)
        out: list[Observable] = self._emit([proposal])
        if self.mode == "apply" and reason in AUTOMATIC_REASONS:
            confirmed = ResultConfirmed(game.id, result, reason, t, by="rules")
            self.book = self.book.apply(confirmed)
            out += self._emit([confirmed])
            out += self._finish(self.book.get(game.id), confirmed)
        else:
            out += self._proposal_alert(self.book.get(game.id), proposal)
        return out

    def _proposed(self, game: GameState, event: ResultProposed) -> list[Observable]:
        """A proposal from outside the engine (the kings signal) or our own fed back."""
        watch = self._watch.get(game.id)
        if watch is None:
            return []
        key = (event.reason, event.result, game.ply if event.reason in POSITION_REASONS else 0)
        ours = key in watch.proposed
        watch.proposed.add(key)
        out: list[Observable] = []
        if event.result == "1/2-1/2" and event.reason in DRAW_BY_AGREEMENT:
            out += self._early_draw(game, event.t)
        if ours:
            return out
        if self.mode == "apply" and event.reason in AUTOMATIC_REASONS:
            confirmed = ResultConfirmed(game.id, event.result, event.reason, event.t, by="rules")
            self.book = self.book.apply(confirmed)
            out += self._emit([confirmed])
            out += self._finish(self.book.get(game.id), confirmed)
        else:
            out += self._proposal_alert(game, event)
        return out

    def _confirmed(self, game: GameState, event: ResultConfirmed) -> list[Observable]:
        out: list[Observable] = []
        if event.result == "1/2-1/2" and event.reason in DRAW_BY_AGREEMENT:
            out += self._early_draw(game, event.t)
        if event.reason == "withdrawal" or not no_show_colours(event.result):
            return out  # only a missed game counts, whoever entered it (board, desk, rules)
        section = self.tournament.section(game.key.section)
        if game.key.round > section.config.rounds:
            return out  # a play-off game
        rnd = section.rounds.get(game.key.round)
        pairing = (
            next((p for p in rnd.pairings if p.board == game.key.board), None) if rnd else None
        )
        if pairing is None or pairing.black is None:
            return out
        for colour in no_show_colours(event.result):
            player = pairing.white if colour == "white" else pairing.black
            marker = (game.key.section, game.key.round, player)
            if marker in self._counted or game.key.round in section.no_shows.get(player, ()):
                continue
            self._counted.add(marker)
            counted = NoShowCounted(game.key.section, game.key.round, player)
            self._fold_tournament(counted)
            out += self._emit([counted])
            out += self._after_no_show(game.key.section, player, game.key.round)
        return out

    def _after_no_show(self, section_name: str, player: int, round_number: int) -> list[Observable]:
        """The section's no-show rules: round-1 exclusion, single absence, the limit."""
        config = self._section(section_name)
        rules = config.no_shows
        name = self._player_name(section_name, player)
        if round_number == 1 and rules.first_round == "exclude":
            out = self._alert(
                f"withdraw-from-pairing:{section_name}:{player}",
                "withdraw-from-pairing",
                self.now,
                f"{name} did not show up in round 1: excluded from the event (regulations); "
                "they are no longer paired",
                section=section_name,
                round_number=1,
                players=(name,),
            )
            return out + self._withdraw(section_name, player, 2, "absent in round 1")
        out = self._no_show_limit(section_name, player, round_number)
        if out or rules.single_absence != "disqualify-unless-continue":
            return out
        return self._alert(
            f"absence-disqualifies:{section_name}:{player}:{round_number}",
            "absence-disqualifies",
            self.now,
            f"{name} was absent in round {round_number}: disqualified unless they ask in "
            f"writing to continue before round {round_number + 1} is paired (record it "
            "with 'continue'); until then they are not paired",
            section=section_name,
            round_number=round_number,
            players=(name,),
        )

    def _withdraw(
        self, section_name: str, player: int, from_round: int, reason: str
    ) -> list[Observable]:
        """The rules withdraw a player: the event and its consequences for the games."""
        state = self.tournament.section(section_name)
        if player in state.withdrawn:
            return []
        limit = state.config.rounds + 1
        withdrawn = PlayerWithdrawn(
            section_name,
            player,
            min(from_round, limit),
            reason,
            "rules",
            self.now if math.isfinite(self.now) else None,
        )
        return self._emit([withdrawn, *self._withdrawal_consequences(withdrawn)])

    def _withdrawn(self, event: PlayerWithdrawn) -> list[Observable]:
        """A withdrawal from the desk (or our own fed back): its games follow it."""
        self._fold_tournament(event)
        if event.by == "rules":
            return []  # ours: the consequences went out with it
        return self._emit(self._withdrawal_consequences(event, fold_first=False))

    def _withdrawal_consequences(
        self, withdrawn: PlayerWithdrawn, *, fold_first: bool = True
    ) -> list[Observable]:
        if fold_first:
            self._fold_tournament(withdrawn)
        section = self.tournament.section(withdrawn.section)
        out: list[Observable] = []
        t = withdrawn.t if withdrawn.t is not None else self.now
        t = t if math.isfinite(t) else 0.0  # no time known yet: nothing better to stamp
        for event in withdrawal_events(section, withdrawn, t):
            if isinstance(event, PairingEdited):
                self._fold_tournament(event)
            elif event.game in self.book.games and not self.book.get(event.game).finished:
                self.book = self.book.apply(event)
                self._close(event.game)
            else:
                continue
            out.append(event)
        return out

    def _override_alert(self, event: ByeGranted | ByeCancelled) -> list[Observable]:
        name = self._player_name(event.section, event.player)
        what = "granted" if isinstance(event, ByeGranted) else "cancelled"
        return self._alert(
            f"arbiter-override:{event.section}:{event.round}:{event.player}:{what}:{event.at.timestamp()}",
            "arbiter-override",
            event.at.timestamp(),
            f"bye for round {event.round} {what} for {name} by {event.by} against the "
            f"regulations ({event.override})",
            section=event.section,
            round_number=event.round,
            players=(name,),
        )

    def _early_draw(self, game: GameState, t: float) -> list[Observable]:
        config = self._section(game.key.section)
        start = self._round_start(config, game.key.round)
        began = start if start is not None else (game.first_activity or t)
        why = early_draw_breach(config.early_draw, plies=game.ply, elapsed_seconds=t - began)
        if why is None:
            return []
        minutes = int(max(0.0, t - began) // 60)
        return self._alert(
            f"early-draw:{game.id}",
            "early-draw",
            t,
            f"draw by agreement after {game.ply // 2} moves and {minutes} minutes: {why}; "
            "confirm only if the chief arbiter authorised it",
            game=game,
        )

    def _flag(self, event: FlagFell, game_id: str | None) -> list[Observable]:
        if game_id is None:
            return []
        game = self.book.games.get(game_id)
        watch = self._watch.get(game_id)
        if game is None or watch is None or game.finished:
            return []
        if event.colour in watch.flagged:
            return []
        watch.flagged.add(event.colour)
        pending = game.proposal
        if pending is not None and pending.reason != "flag-fall":
            # Something ended the game first (a mate, the kings signal, the default time:
            # an absent player's clock runs out too); the flag adds nothing.
            return []
        if pending is not None and pending.reason == "flag-fall":
            return self._alert(
                f"both-flags:{game.id}",
                "both-flags",
                event.t,
                f"both flags have fallen ({event.colour} second); decide the result "
                "(Laws 6.9 and III.3.1.1: a draw if it cannot be established who fell first)",
                game=game,
            )
        result, detail = flag_fall_result(game.board_now(), event.colour)
        return self._propose(game, result, "flag-fall", event.t, detail)

    def _illegal_rule(self, game: GameState, now: float) -> list[Observable]:
        """A press made while the board was out of sync, and the board still out of step
        (the same episode) `illegal_move_after` seconds later: the move stood."""
        watch = self._watch.get(game.id)
        if watch is None or watch.press_out is None:
            return []
        t, pressed, episode = watch.press_out
        if game.in_sync or episode != watch.out_episode:
            watch.press_out = None
            return []
        due = t + self.config.trouble.illegal_move_after
        if now < due:
            return []
        watch.press_out = None
        return self._illegal_stood(game, due, pressed)

    def _illegal_stood(self, game: GameState, t: float, pressed: Colour) -> list[Observable]:
        watch = self._watch[game.id]
        return self._alert(
            f"illegal-move-stood:{game.id}:{watch.out_episode}",
            "illegal-move-stood",
            t,
            f"{pressed} pressed the clock while the board showed a position that is not in the "
            f"game, and it still does {self.config.trouble.illegal_move_after:g} s later "
            f"({game.board_fen or '?'}, after ply {game.ply}): an illegal move may stand; "
            "stop the clocks and reconstruct (Laws 7.5)",
            game=game,
        )

    # -- time rules ------------------------------------------------------------------------
    def _presence_due(self, game: GameState) -> float:
        watch = self._watch.get(game.id)
        config = self._section(game.key.section)
        start = self._round_start(config, game.key.round)
        if watch is None or start is None:
            return math.inf
        due = deadline(start, config.default_time_minutes)
        if watch.presence.white is not None and watch.presence.black is not None:
            return math.inf
        if config.default_time_minutes == 0:
            check = start + self.config.zero_default_check_after
            return check if check > self.now else math.inf
        for mark in [*warning_marks(start, due, self.config.warn_before), due]:
            if mark > self.now:
                return mark
        return math.inf

    def _presence_rules(self, game: GameState, now: float) -> list[Observable]:
        watch = self._watch.get(game.id)
        config = self._section(game.key.section)
        start = self._round_start(config, game.key.round)
        if watch is None or start is None or now < start:
            return []
        due = deadline(start, config.default_time_minutes)
        out: list[Observable] = []
        if config.default_time_minutes == 0:
            return self._zero_default_check(game, watch, start, now)
        for mark in warning_marks(start, due, self.config.warn_before):
            if mark > now:
                break
            absent = absent_colours(watch.presence, mark)
            if not absent:
                continue
            left = int(due - mark)
            who = " and ".join(f"{c} ({self._name_of(game, c)})" for c in absent)
            out += self._alert(
                f"late:{game.id}:{int(due - mark)}",
                "late",
                mark,
                f"{who} not at the board; default time in {left // 60} min {left % 60:02d} s "
                f"(at {config.default_time_minutes} min); mark them present if they are there",
                game=game,
                players=tuple(self._name_of(game, c) for c in absent),
            )
        if now >= due:
            absent = absent_colours(watch.presence, due)
            result = forfeit_result(absent)
            if result is not None:
                who = " and ".join(f"{c} ({self._name_of(game, c)})" for c in absent)
                out += self._propose(
                    game,
                    result,
                    "default-time",
                    due,
                    f"{who} absent at the default time ({config.default_time_minutes} min)",
                )
        return out

    def _zero_default_check(
        self, game: GameState, watch: Watch, start: float, now: float
    ) -> list[Observable]:
        check = start + self.config.zero_default_check_after
        if now < check:
            return []
        absent = absent_colours(watch.presence, check)
        if not absent:
            return []
        who = " and ".join(f"{c} ({self._name_of(game, c)})" for c in absent)
        minutes = self.config.zero_default_check_after // 60
        return self._alert(
            f"check-presence:{game.id}",
            "check-presence",
            check,
            f"no sign of {who} {minutes} min after the start; the default time is 0, so a "
            "player who was not at the board at the start loses: mark them present, or record the forfeit",
            game=game,
            players=tuple(self._name_of(game, c) for c in absent),
        )

    def _sync_rules(self, game: GameState, now: float) -> list[Observable]:
        limit = self.config.trouble.out_of_sync_after
        if game.in_sync or not too_long(game.out_since, now, limit):
            return []
        watch = self._watch[game.id]
        since = game.out_since or now
        return self._alert(
            f"out-of-sync:{game.id}:{watch.out_episode}",
            "out-of-sync",
            now,
            f"the board has not matched the game for {int(now - since)} s (after ply "
            f"{game.ply}); it shows {game.board_fen or '?'}: check the pieces",
            game=game,
        )

    def _silence_rule(self, name: str, board: BoardWatch, now: float) -> list[Observable]:
        limit = self.config.trouble.silent_after
        if board.silent or not board.has_clock or not too_long(board.last_seen, now, limit):
            return []
        game = self._open_game(board)
        if game is None:
            return []
        board.silent = True
        last = board.last_seen or now
        return self._alert(
            f"board-not-responding:{name}:{last}",
            "board-not-responding",
            now,
            f"board {name} has sent nothing for {int(now - last)} s while its clock was "
            "connected: check its cable and power",
            game=game,
            hall_board=name,
        )

    # -- boards ----------------------------------------------------------------------------
    def _board_event(self, event: Any, game_id: str | None) -> list[Observable]:
        board = self._boards.setdefault(event.board, BoardWatch())
        if game_id is not None:
            board.game = game_id
        # The driver speaks for itself in these, not for the board: they prove no life.
        from_driver = isinstance(event, BoardLost | DriverFault | LogGap)
        out = [] if from_driver else self._board_back(event)
        if not from_driver:
            board.last_seen = event.t
            board.silent = False
        game = self._open_game(board)
        return out + self._board_trouble(event, board, game)

    def _board_back(self, event: Any) -> list[Observable]:
        """Board trouble alerts whose cause this message from the board ends."""
        cfg = self.config.trouble
        ended: set[str] = set()
        if not (isinstance(event, BoardHealth) and polls_missed(event.missed_polls, cfg)):
            ended.add("board-not-responding")  # it talks again
        if (
            isinstance(event, BatterySeen)
            and battery_severity(event.percent, event.charging, cfg) is None
        ):
            ended.add("battery-low")
        if isinstance(event, ClockSeen) and isinstance(event.reading, ClockReading):
            ended.add("clock-not-connected")
        if isinstance(event, BoardHealth) and not polls_missed(event.missed_polls, cfg):
            ended.add("bus-polls-missed")
        return self._resolve(
            self._open_about("board", event.board) if ended else [],
            lambda a: a.kind in ended,
            event.t,
            f"board {event.board} is back",
        )

    def _board_trouble(
        self, event: Any, board: BoardWatch, game: GameState | None
    ) -> list[Observable]:
        cfg = self.config.trouble
        match event:
            case DriverFault():
                return self._driver_fault(event, board, game)
            case LogGap():
                return self._log_gap(event, board, game)
            case BoardConnected():
                if board.fault_alert is not None:
                    board.back_since = event.t
                    self._next_due = min(self._next_due, event.t + cfg.fault_cleared_after)
                return []
            case BoardLost():
                board.lost_episode += 1
                board.back_since = None
                if game is None or board.fault_alert is not None:
                    return []  # no game to worry about, or the fault alert says it all
                return self._alert(
                    f"board-not-responding:{event.board}:lost:{board.lost_episode}",
                    "board-not-responding",
                    event.t,
                    f"board {event.board} lost ({event.reason}); the driver is reconnecting; "
                    "if it does not come back, check the cable and power",
                    game=game,
                    hall_board=event.board,
                )
            case BoardHealth() if polls_missed(event.missed_polls, cfg) and game is not None:
                return self._alert(
                    f"bus-polls-missed:{event.board}:{int(event.t)}",
                    "bus-polls-missed",
                    event.t,
                    f"board {event.board} missed {event.missed_polls} bus polls "
                    f"({event.bad_checksums} bad checksums): check the bus cable and its joints",
                    game=game,
                    hall_board=event.board,
                )
            case BatterySeen():
                severity = battery_severity(event.percent, event.charging, cfg)
                if severity is None or game is None:
                    return []
                return self._alert(
                    f"battery-low:{event.board}:{severity}",
                    "battery-low",
                    event.t,
                    f"board {event.board} battery at {event.percent}%: plug in its charger",
                    game=game,
                    hall_board=event.board,
                    severity=severity,
                )
            case ClockSeen(reading=NoClock()):
                if board.clock_missing:
                    return []
                board.clock_missing = True
                board.no_clock_episode += 1
                if game is None:
                    return []
                return self._alert(
                    f"clock-not-connected:{event.board}:{board.no_clock_episode}",
                    "clock-not-connected",
                    event.t,
                    f"board {event.board} reports no clock: check the clock cable "
                    "(times are missing from the broadcast until it is back)",
                    game=game,
                    hall_board=event.board,
                )
            case ClockSeen():
                # A running DGT clock reports every second; a stopped one only on change.
                board.has_clock = bool(getattr(event.reading, "running", False))
                board.clock_missing = False
                if board.last_seen is not None:
                    self._next_due = min(self._next_due, board.last_seen + cfg.silent_after)
        return []

    def _driver_fault(
        self, event: DriverFault, board: BoardWatch, game: GameState | None
    ) -> list[Observable]:
        """A software error stopped the board's driver: one critical alert per episode,
        closed once the board has been back for a while with no new error."""
        board.back_since = None
        if board.fault_alert is not None:
            return []  # the same episode: the alert is up
        board.fault_episode += 1
        board.fault_alert = f"driver-fault:{event.board}:{board.fault_episode}"
        return self._alert(
            board.fault_alert,
            "driver-fault",
            event.t,
            f"the driver of board {event.board} on {event.port} stopped on a software error "
            f"({event.error}); it is restarting and the board's moves may arrive late. If this "
            "repeats, keep the server's log for the developers",
            game=game,
            hall_board=event.board,
        )

    def _fault_cleared(self, name: str, board: BoardWatch, now: float) -> list[Observable]:
        alert = board.fault_alert
        if alert is None or board.back_since is None:
            return []
        if now - board.back_since < self.config.trouble.fault_cleared_after:
            return []
        board.fault_alert, board.back_since = None, None
        return self._resolve(
            self._open_about("board", name),
            lambda a: a.id == alert,
            now,
            f"board {name} has run without a software error since",
        )

    def _log_gap(
        self, event: LogGap, board: BoardWatch, game: GameState | None
    ) -> list[Observable]:
        """The board's log could not fill an outage: the arbiter checks the moves made in
        the gap, after the last one known before it."""
        if game is None:
            return []
        board.gap_episode += 1
        if game.moves:
            last = game.moves[-1]
            where = (
                f"the moves after {move_label(last.fen_after, last.san)} (ply {len(game.moves)}, "
                "the last one known before the gap)"
            )
        else:
            where = "the game from its first move"
        return self._alert(
            f"moves-to-check:{event.board}:{board.gap_episode}",
            "moves-to-check",
            event.t,
            f"board {event.board} on {event.port}: {event.reason}; the game goes on from the "
            f"board as it stands. Moves made meanwhile may be missing or wrong: check {where} "
            "against the scoresheets",
            game=game,
            hall_board=event.board,
        )

    def _open_game(self, board: BoardWatch) -> GameState | None:
        if board.game is None or board.game not in self._watch:
            return None
        game = self.book.games.get(board.game)
        return None if game is None or game.finished else game

    # -- helpers ---------------------------------------------------------------------------
    def _alert(
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
                players = (self._name_of(game, "white"), self._name_of(game, "black"))
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
        return self._emit([alert])

    def _emit(self, events: list[Observable]) -> list[Observable]:
        return [] if self._muted else events

    def _section(self, name: str) -> SectionConfig:
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
                if (start := self._round_start(section.config, r)) is not None and start <= now
            ]
            if started:
                current[name] = max(started)[1]
        return current

    def _round_start(self, config: SectionConfig, round_number: int) -> float | None:
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

    def _name_of(self, game: GameState, colour: Colour) -> str:
        ref = game.white if colour == "white" else game.black
        return ref.name if ref is not None else colour

    def _player_name(self, section: str, player: int) -> str:
        entry = self.tournament.section(section).players.get(player)
        return entry.name if entry is not None else f"player {player}"


def _pressed_by(before: Colour | None, after: Colour | None) -> Colour | None:
    """Who pressed the clock: the running side changing from X to the other means X
    pressed. Starting or stopping the clock (None on either side) is nobody's press:
    the arbiter starts clocks at the scheduled time."""
    if before is None or after is None or before == after:
        return None
    return before


def _time_of(event: Any) -> float | None:
    t = getattr(event, "t", None)
    if isinstance(t, int | float):
        return float(t)
    at = getattr(event, "at", None)
    if at is not None and hasattr(at, "timestamp"):
        return cast(float, at.timestamp())
    return None


def _index_keys(alert: Alert) -> list[tuple[str, str]]:
    keys: list[tuple[str, str]] = [("kind", alert.kind)]
    if alert.game:
        keys.append(("game", alert.game))
    if alert.hall_board:
        keys.append(("board", alert.hall_board))
    return keys


def _is_tournament_event(event: Any) -> bool:
    from broadcast.tournament import events as tournament_events

    return isinstance(
        event,
        tournament_events.PlayersRegistered
        | tournament_events.RoundPaired
        | tournament_events.PairingEdited
        | tournament_events.BoardAssigned
        | tournament_events.ByeGranted
        | tournament_events.ByeRefused
        | tournament_events.ByeCancelled
        | tournament_events.PlayerWithdrawn
        | tournament_events.ContinuationRequested
        | tournament_events.PlayoffGamePaired,
    )
