"""The one door for every arbiter action: checked, said in words, confirmed when it
removes something, journaled with who did it, recorded part by part so that it can be
undone.

    done = act(service, SetResult("open-r2-b3", "0-1", "resignation"), "arbiter:ana")
    act(service, Withdraw("Open", 23), "arbiter:ana")            # ConfirmationNeeded
    act(service, Withdraw("Open", 23), "arbiter:ana", confirm=token)
    act(service, Undo(done.seq), "arbiter:ana", confirm=True)

An action is a value (a command): `plan(host, by)` checks it against the state and the
regulations (`ActionError` with the reason, shown to the arbiter) and returns a `Plan`:
what it does in words, what it removes, what else to know, and the events it journals.
`act` runs it:

1. A plan that removes something (moves, a result, pairings, a player's participation, a
   game's board, a prize) or asks on purpose is done only once confirmed: `confirm` is the
   plan's `token` (the words the arbiter saw: if the state changed meanwhile, so do the
   words, and the arbiter is asked again) or True (a script that has read them).
2. Its events are committed one after the other in one action transaction (the rules
   react to each as to any event), the hall boards follow what changed, and last an
   `ActionTaken` records what the action changed part by part, the alerts it raised and
   closed, and the presence it marked. Durable before `act` returns, or nothing of it is
   applied (`NotDurable`, answered 503).

The desk, the arbiter API and the command line all come through here.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

from broadcast.arbiter.alerts import (
    AbsenceUnmarked,
    Alert,
    AlertAcknowledged,
    AlertReopened,
    AlertResolved,
    PlayerMarkedAbsent,
    PlayerMarkedPresent,
    PresenceUnmarked,
)
from broadcast.arbiter.decisions import ActionTaken, PresenceMark
from broadcast.arbiter.dispatch import ArbiterRules
from broadcast.arbiter.presence import Presence
from broadcast.config.model import EventConfig
from broadcast.games.book import GameBook
from broadcast.games.changes import GamePart, book_changes, event_changes
from broadcast.games.game_state import GameError, GameState
from broadcast.journal.kinds import JournalEvent
from broadcast.journal.store import Entry, Journal
from broadcast.phrases import phrase_of
from broadcast.service.action_log import ActionLog
from broadcast.service.committer import ActionError
from broadcast.service.delayed import DelayedView
from broadcast.service.event_state import EventState, PublicState
from broadcast.service.hall import HallBoard
from broadcast.service.health import Health
from broadcast.tournament.section import StateError
from broadcast.tournament.tournament_state import SectionState, TournamentState
from clocks.timesource import EpochTimeSource

__all__ = [
    "ActionHost",
    "Command",
    "ConfirmationNeeded",
    "Done",
    "Plan",
    "act",
    "game_state",
    "plan_of",
    "section_state",
]


class ActionHost(Protocol):
    """What the actions act on: the running event (`EventService`)."""

    @property
    def config(self) -> EventConfig: ...
    @property
    def time_source(self) -> EpochTimeSource: ...
    @property
    def state(self) -> EventState: ...
    @property
    def tournament(self) -> TournamentState: ...
    @property
    def book(self) -> GameBook: ...
    @property
    def rules(self) -> ArbiterRules: ...
    @property
    def health(self) -> Health: ...
    @property
    def journal(self) -> Journal: ...
    @property
    def action_log(self) -> ActionLog: ...
    @property
    def hall(self) -> Mapping[int, HallBoard]: ...
    @property
    def public(self) -> DelayedView[PublicState]: ...
    def public_state(self) -> PublicState: ...
    def commit(self, events: Sequence[JournalEvent], *, game: str | None = None) -> list[Entry]: ...
    def action(self) -> AbstractContextManager[None]: ...
    def action_entries(self) -> list[Entry]: ...
    def rules_until_now(self) -> None: ...
    def attach_boards(self) -> None: ...
    def refollow(self, game_id: str) -> None: ...


@dataclass(frozen=True)
class Plan:
    """What an action will do, before it is done.

    `summary` says it in a line; `removes` lists what it takes away (each asks the
    arbiter to confirm); `notes` what else follows from it; `events` what it journals.
    `ask` asks for a confirmation though nothing is removed (replacing published
    pairings, an undo). `undoes`: the journal number of the action an undo takes back."""

    kind: str
    summary: str
    events: tuple[JournalEvent, ...] = ()
    removes: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    ask: bool = False
    undoes: int = 0

    @property
    def asks(self) -> bool:
        """The arbiter must confirm it."""
        return bool(self.removes) or self.ask

    @property
    def token(self) -> str:
        """The words the arbiter confirms, as a short digest: a confirmation given for
        other words (the state changed meanwhile) is no confirmation."""
        text = "\n".join((self.kind, self.summary, *self.removes, *self.notes))
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]

    def words(self) -> dict[str, Any]:
        """The plan as the desk and the API show it."""
        return {
            "kind": self.kind,
            "summary": self.summary,
            "removes": list(self.removes),
            "notes": list(self.notes),
            "token": self.token,
        }


class Command(Protocol):
    """An arbiter action as a value: `plan` checks it and says what it will do."""

    kind: ClassVar[str]

    def plan(self, host: ActionHost, by: str) -> Plan: ...


class ConfirmationNeeded(ActionError):
    """The action removes something (or asks on purpose): nothing was done. `plan` says
    what it would do; act again with `confirm=plan.token` to go ahead. `stale`: a
    confirmation was given, for words that no longer hold."""

    def __init__(self, plan: Plan, *, stale: bool = False) -> None:
        self.plan = plan
        self.stale = stale
        what = "; ".join(plan.removes) or "it replaces what stands"
        again = "what it does has changed since you confirmed: " if stale else ""
        super().__init__(
            f"{again}{plan.summary}: this removes {what}. Confirm to go ahead"
            if plan.removes
            else f"{again}{plan.summary}: confirm to go ahead"
        )


@dataclass(frozen=True)
class Done:
    """An action done: its record's journal number (`seq`, what an undo names), the plan
    it followed, and the alerts it raised (an early draw)."""

    seq: int
    plan: Plan
    record: ActionTaken
    raised: tuple[Alert, ...] = field(default=())

    @property
    def summary(self) -> str:
        return self.plan.summary


def plan_of(host: ActionHost, command: Command, by: str) -> Plan:
    """The command's plan (ActionError when it is refused), without doing anything."""
    try:
        return command.plan(host, by)
    except (StateError, GameError) as exc:
        raise ActionError(phrase_of(exc)) from None


def _confirmed(plan: Plan, confirm: bool | str) -> bool:
    if confirm is True:
        return True
    return isinstance(confirm, str) and bool(confirm) and confirm == plan.token


def act(host: ActionHost, command: Command, by: str, *, confirm: bool | str = False) -> Done:
    """Do `command` as `by` (see the module docstring): ConfirmationNeeded while it asks
    and is not confirmed, ActionError when refused, NotDurable when it could not be made
    durable; nothing is applied in those cases."""
    plan = plan_of(host, command, by)
    if plan.asks and not _confirmed(plan, confirm):
        raise ConfirmationNeeded(plan, stale=isinstance(confirm, str) and bool(confirm))
    try:
        with host.action():
            host.rules_until_now()
            start = len(host.action_entries())
            before = host.state
            seen = {g: w.presence for g, w in host.rules.watches.items()}
            for event in plan.events:
                host.commit([event])
            host.attach_boards()
            _follow_changed_games(host, before.book)
            after = host.state
            entries = host.action_entries()[start:]
            raised, reopened, closed, present, unmarked = _alerts_and_presence(entries, seen)
            absent, unabsent = _absences(entries, seen)
            record = ActionTaken(
                plan.kind,
                plan.summary,
                by,
                host.time_source.now(),
                plan.removes,
                event_changes(before.tournament, before.book, after.tournament, after.book),
                (*(a.id for a in raised), *reopened),
                closed,
                present,
                plan.undoes,
                unmarked,
                absent,
                unabsent,
            )
            stored = host.commit([record])
    except (StateError, GameError) as exc:
        # The plan was checked against the state; the rules' reactions were not.
        raise ActionError(phrase_of(exc)) from None
    return Done(stored[0].seq, plan, record, tuple(raised))


def _follow_changed_games(host: ActionHost, before: GameBook) -> None:
    """The boards follow the games whose line or result the action changed (a corrected
    line waits for its board to show it; a result taken back is followed again)."""
    changed = {p.game for p in book_changes(before, host.book) if _followed_anew(p)}
    for game_id in sorted(changed):
        if any(b.game == game_id for b in host.hall.values()):
            host.refollow(game_id)


def _followed_anew(part: GamePart) -> bool:
    """A game whose board must follow it anew: its line or result changed, or it waits
    for its own board to show it again (the same line after a knocked-over piece). A game
    moved to another board is followed there by the hall's placement."""
    if part.slot != "games":
        return False
    if part.group in ("line", "result"):
        return True
    return part.group == "board" and part.before[:2] == part.after[:2]


def _alerts_and_presence(
    entries: Sequence[Entry], seen: Mapping[str, Presence]
) -> tuple[
    list[Alert], list[str], tuple[str, ...], tuple[PresenceMark, ...], tuple[PresenceMark, ...]
]:
    """The alerts the action raised, reopened and closed, the players it marked present
    who had not been seen before it, and the marks it took back that stood (a mark that
    changed nothing is nothing to undo)."""
    raised: list[Alert] = []
    reopened: list[str] = []
    closed: list[str] = []
    present: list[PresenceMark] = []
    unmarked: list[PresenceMark] = []
    for entry in entries:
        event = entry.event
        if isinstance(event, Alert):
            raised.append(event)
        elif isinstance(event, AlertReopened):
            reopened.append(event.alert)  # open again: its undoing closes it again
        elif isinstance(event, AlertResolved | AlertAcknowledged):
            if event.alert not in closed:
                closed.append(event.alert)
        elif isinstance(event, PlayerMarkedPresent):
            before = seen.get(event.game)
            if before is not None and before.of(event.colour) is None:
                present.append((event.game, event.colour, event.t))
        elif isinstance(event, PresenceUnmarked):
            before = seen.get(event.game)
            if before is not None and before.of(event.colour) == event.since:
                unmarked.append((event.game, event.colour, event.since))
        elif isinstance(event, PlayerMarkedAbsent):
            # An absence replaces a present mark (not what the board saw): taken back.
            before = seen.get(event.game)
            was = before.of(event.colour) if before is not None else None
            if before is not None and was is not None and before.how(event.colour) != "board":
                unmarked.append((event.game, event.colour, was))
    return raised, reopened, tuple(closed), tuple(present), tuple(unmarked)


def _absences(
    entries: Sequence[Entry], seen: Mapping[str, Presence]
) -> tuple[tuple[PresenceMark, ...], tuple[PresenceMark, ...]]:
    """The players the action marked absent, and the absences it took back (by a mark
    present, or an undo), as they stood before it: what its undoing puts back. A present
    mark an absence replaced is among the marks it took back (`unmarked`)."""
    absent: list[PresenceMark] = []
    unabsent: list[PresenceMark] = []
    for entry in entries:
        event = entry.event
        before = seen.get(getattr(event, "game", ""))
        if before is None:
            continue
        if isinstance(event, PlayerMarkedAbsent):
            if before.absent_since(event.colour) is None and before.how(event.colour) != "board":
                absent.append((event.game, event.colour, event.t))
        elif isinstance(event, AbsenceUnmarked):
            if before.absent_since(event.colour) == event.since:
                unabsent.append((event.game, event.colour, event.since))
        elif isinstance(event, PlayerMarkedPresent):
            since = before.absent_since(event.colour)
            if since is not None:
                unabsent.append((event.game, event.colour, since))
    return tuple(absent), tuple(unabsent)


def section_state(host: ActionHost, section: str) -> SectionState:
    """The section's state; ActionError for a section the event does not have."""
    try:
        return host.tournament.section(section)
    except StateError as exc:
        raise ActionError(phrase_of(exc)) from None


def game_state(host: ActionHost, game_id: str) -> GameState:
    """The game's state; ActionError for a game the book does not have."""
    try:
        return host.book.get(game_id)
    except GameError as exc:
        raise ActionError(phrase_of(exc)) from None
