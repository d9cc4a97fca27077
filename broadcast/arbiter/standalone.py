"""`StandaloneRules`: the arbiter rules with the state they read, for callers that run no
service (a capture replay, a benchmark, the tests).

    rules = StandaloneRules(ArbiterRules(event, state=start), start)
    new = rules.observe(event)   # folds `event`, asks the rules, folds what they raise
    new = rules.tick(now)

It does what the service's commit does, minus the journal: the state's own fold
(`EventView.apply`, the service's `EventState.apply`) is the only fold; the rules only
read it.
"""

from __future__ import annotations

from collections.abc import Iterable

from broadcast.arbiter.alerts import Alert
from broadcast.arbiter.context import EventView, Observable, RulesConfig
from broadcast.arbiter.dispatch import ArbiterRules, RulesMemory
from broadcast.games.book import GameBook
from broadcast.games.game_state import GameError
from broadcast.tournament.section import StateError
from broadcast.tournament.tournament_state import TournamentState

__all__ = ["StandaloneRules"]


class StandaloneRules:
    """`ArbiterRules` over a state folded here, event by event (see the module docstring)."""

    def __init__(self, rules: ArbiterRules, state: EventView) -> None:
        self.rules = rules
        self.state = state

    def observe(self, event: Observable, *, game: str | None = None) -> list[Observable]:
        """Fold `event`, then the rules' answer to it (folded too), which is returned."""
        self._fold(event)
        raised = self.rules.observe(event, self.state, game=game)
        for new in raised:
            self._fold(new)
        return raised

    def tick(self, now: float) -> list[Observable]:
        raised = self.rules.tick(now, self.state)
        for new in raised:
            self._fold(new)
        return raised

    def restore(self, events: Iterable[Observable]) -> None:
        """Fold a journal, the rules raising nothing (as after a restart)."""
        for event in events:
            self._fold(event)
            self.rules.restore(event, self.state)

    def _fold(self, event: Observable) -> None:
        try:
            self.state = self.state.apply(event)
        except (GameError, StateError):
            # What does not fit is left out, as the service refuses it; the rules ignore
            # events about games that are not paired.
            pass

    # -- what the rules know ----------------------------------------------------------------
    @property
    def config(self) -> RulesConfig:
        return self.rules.config

    @property
    def tournament(self) -> TournamentState:
        return self.state.tournament

    @property
    def book(self) -> GameBook:
        return self.state.book

    @property
    def alerts(self) -> dict[str, Alert]:
        return self.rules.alerts

    def open_alerts(self) -> list[Alert]:
        return self.rules.open_alerts()

    def memory(self) -> RulesMemory:
        return self.rules.memory()
