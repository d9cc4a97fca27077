"""What a rule family sees of the engine: the context protocol, the events the rules
observe and raise, the view of the folded state, and the rules' settings.

The families (`presence_rules`, `board_rules`, `result_rules`, `tournament_rules`) take
a `RulesContext`; the engine (`ArbiterRules`) is one, and imports the families. So the
families stand below the engine and import only this module from above their own
helpers: no loop between the engine and its rules.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Protocol, Self

from boards.driver_events import DriverEvent
from broadcast.arbiter.alerts import (
    AbsenceUnmarked,
    Alert,
    AlertAcknowledged,
    AlertKind,
    AlertReopened,
    AlertResolved,
    AlertUpdated,
    PlayerMarkedAbsent,
    PlayerMarkedPresent,
    PresenceUnmarked,
    Severity,
)
from broadcast.arbiter.decisions import ActionTaken, ActionUndone
from broadcast.arbiter.memory import BoardWatch, Watch
from broadcast.arbiter.presence import DEFAULT_WARNINGS
from broadcast.arbiter.readers import BoardsUnheard
from broadcast.arbiter.trouble import TroubleConfig
from broadcast.config.model import EventConfig, ResultsMode, SectionConfig
from broadcast.games.book import GameBook
from broadcast.games.game_events import Colour, GameEvent
from broadcast.games.game_state import GameState
from broadcast.phrases import Phrase
from broadcast.tournament.live_round import RoundStartMoved
from broadcast.tournament.tournament_events import TournamentEvent
from broadcast.tournament.tournament_state import TournamentState
from clocks.move_times import FlagFell

__all__ = ["EventView", "Observable", "RulesConfig", "RulesContext"]


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
    | BoardsUnheard
    | Alert
    | AlertAcknowledged
    | AlertResolved
    | AlertReopened
    | AlertUpdated
    | PlayerMarkedPresent
    | PlayerMarkedAbsent
    | PresenceUnmarked
    | AbsenceUnmarked
    | FlagFell
    | ActionTaken
    | ActionUndone
)
"""What the rules observe and raise: every kind of journal event (the same union as
`broadcast.journal.kinds.JournalEvent`, which sits above the arbiter and cannot be
imported here)."""


class EventView(Protocol):
    """What the rules read of the event's folded state: the service's `EventState`
    satisfies it (the arbiter sits below the service and cannot import it). `apply` is
    the one fold: the rules use it only for the events they raise themselves, until the
    service has stored and folded those too."""

    @property
    def tournament(self) -> TournamentState: ...

    @property
    def book(self) -> GameBook: ...

    @property
    def start_overrides(self) -> Mapping[tuple[str, int], dt.datetime]: ...

    def apply(self, event: Observable, seq: int | None = None) -> Self: ...


class RulesContext(Protocol):
    """What the rule families read and call on the engine (`ArbiterRules`)."""

    event: EventConfig
    config: RulesConfig
    mode: ResultsMode
    now: float
    alerts: dict[str, Alert]
    acknowledged: set[str]
    watches: dict[str, Watch]
    boards: dict[str, BoardWatch]
    counted: set[tuple[str, int, int]]
    named_game: str | None
    before: GameBook
    playing: list[GameState]

    @property
    def tournament(self) -> TournamentState: ...

    @property
    def book(self) -> GameBook: ...

    def open_about(self, what: str, value: str) -> list[Alert]: ...

    def fold(self, event: Observable) -> None: ...

    def close(self, game_id: str) -> None: ...

    def reopen(self, game_id: str) -> None: ...

    def is_open(self, alert_id: str) -> bool: ...

    def watched(self, game_id: str) -> GameState | None: ...

    def resolve(
        self,
        among: Iterable[Alert],
        which: Callable[[Alert], bool],
        t: float,
        why: str | Phrase,
    ) -> list[Observable]: ...

    def wake(self, t: float) -> None: ...

    def rescan(self) -> None: ...

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
    ) -> list[Observable]: ...

    def emit(self, events: list[Observable]) -> list[Observable]: ...

    def update_alert(self, update: AlertUpdated) -> list[Observable]: ...

    def section(self, name: str) -> SectionConfig: ...

    def round_start(self, config: SectionConfig, round_number: int) -> float | None: ...

    @property
    def start_overrides(self) -> Mapping[tuple[str, int], dt.datetime]: ...

    def name_of(self, game: GameState, colour: Colour) -> str: ...

    def player_name(self, section: str, player: int) -> str: ...
