"""Undo: any action taken back by a journaled counter-action.

`Undo(seq)` names the action by its record's journal number (the desk's list, the API's
`action.seq`). Its plan reads that record (`ActionTaken`: every part the action changed,
before and after) and puts back each part that still holds what the action left: one
`ActionUndone` event, folded like any other, so a restart replays it. The alerts the
action raised are resolved, those it closed reopened, the presence it marked unmarked.
What the rules did because of the action in the same transaction goes with it (the
no-show a forfeit counted, the elimination that followed, the forfeits of a withdrawal);
what they did later because of it is taken back by the rules themselves when the cause
is gone (a player the rules withdrew for no-shows that no longer stand is reinstated).

A part changed since by another action is not overwritten: the undo is refused, naming
that action, which can be undone first. The one exception is a line the board went on
with after a correction: the plies played since are listed among what the undo removes.
An undo is an action too, recorded the same way: undoing it is a redo.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import ClassVar

from broadcast.actions.door import ActionHost, Plan
from broadcast.actions.words import change_words, game_words, plies_words
from broadcast.arbiter.alerts import (
    AbsenceUnmarked,
    AlertReopened,
    AlertResolved,
    PlayerMarkedAbsent,
    PlayerMarkedPresent,
    PresenceUnmarked,
)
from broadcast.arbiter.decisions import ActionTaken, ActionUndone
from broadcast.games.changes import Change, GamePart, game_holds
from broadcast.games.game_state import GameError
from broadcast.journal.kinds import JournalEvent
from broadcast.phrases import phrase_of, say
from broadcast.service.committer import ActionError
from broadcast.service.hall import utc
from broadcast.tournament.changes import (
    RoundEntry,
    RoundPairing,
    SectionEntry,
    SectionLog,
    SectionMember,
    TeamPart,
    describe_part,
    holds,
)
from broadcast.tournament.section import StateError

__all__ = ["Undo", "record_of"]

_SHOWN = 12
RELEASED = "release-pairings"  # ReleasePairings.kind: what the public saw stays seen  # parts listed in words; the rest counted


def record_of(host: ActionHost, seq: int) -> ActionTaken:
    """The record of the action numbered `seq`; ActionError when there is none."""
    found = next(iter(host.journal.read_kinds(seq - 1, seq, ("ActionTaken",))), None)
    if found is None or not isinstance(found[1], ActionTaken):
        raise ActionError(say("there is no action %(seq)s in the journal", seq=seq))
    return found[1]


def _part_key(change: Change) -> tuple[object, ...]:
    match change:
        case GamePart():
            return ("game", change.game, change.slot)
        case SectionEntry():
            return ("entry", change.section, change.field, change.key)
        case SectionMember():
            return ("member", change.section, change.field, change.key, change.member)
        case SectionLog():
            return ("log", change.section, change.field)
        case RoundPairing():
            return ("round", change.section, change.round)
        case RoundEntry():
            return ("round-entry", change.section, change.round, change.field, change.key)
        case TeamPart():
            return ("team", change.section, change.round, change.team)
    return ("?",)  # pragma: no cover


def _changed_by(host: ActionHost, seq: int, change: Change) -> str:
    """The later action in force that changed the same part, in words ("" if none is
    found: the board, or the rules on their own)."""
    key = _part_key(change)
    found = ""
    for later, event in host.journal.read_kinds(seq, host.journal.last_seq(), ("ActionTaken",)):
        if not isinstance(event, ActionTaken) or host.action_log.undone_by(later):
            continue
        if any(_part_key(c) == key for c in event.changes):
            found = f"action {later} ({event.summary}, by {event.by})"
    return found


def _holds(host: ActionHost, change: Change) -> bool:
    if isinstance(change, GamePart):
        return game_holds(host.book, change)
    return holds(host.tournament, change)


def _played_since(host: ActionHost, part: GamePart) -> GamePart | None:
    """A corrected line the board went on with: the part, taken as it is now (the plies
    played since go with the undo). None when the line changed otherwise."""
    if part.group != "line" or part.slot != "games" or not part.after:
        return None
    game = host.book.games.get(part.game)
    start, moves = part.after
    if game is None or game.start_fen != start or len(game.moves) <= len(moves):
        return None
    if [m.uci for m in game.moves[: len(moves)]] != [m.uci for m in moves]:
        return None
    return replace(part, after=(game.start_fen, game.moves))


def _check_lineups_unpaired(host: ActionHost, seq: int, summary: str, record: ActionTaken) -> None:
    """A paired round's lineups stay: its boards were paired from them, so a lineup (or
    its withdrawal) is undone only with the boards, or after them."""
    for change in record.changes:
        if not isinstance(change, TeamPart) or not change.team:
            continue
        if any(
            isinstance(c, RoundPairing) and (c.section, c.round) == (change.section, change.round)
            for c in record.changes
        ):
            continue  # the action paired the boards too: both go together
        section = host.tournament.sections.get(change.section)
        if section is None or change.round not in section.rounds:
            continue
        boards = _paired_by(host, seq, change.section, change.round)
        raise ActionError(
            say(
                "cannot undo action %(action)s (%(summary)s): round %(round)s of %(name)s is "
                "paired board by board from its lineups, so they stay. Undo the round's "
                "boards first%(boards)s, then this",
                action=seq,
                summary=summary,
                round=change.round,
                name=change.section,
                boards=say(" (action %(later)s)", later=boards) if boards else "",
            )
        )


def _paired_by(host: ActionHost, seq: int, section: str, round_number: int) -> str:
    """The later action in force that paired the round's boards, in words ("" if none)."""
    found = ""
    for later, event in host.journal.read_kinds(seq, host.journal.last_seq(), ("ActionTaken",)):
        if not isinstance(event, ActionTaken) or host.action_log.undone_by(later):
            continue
        if any(
            isinstance(c, RoundPairing) and (c.section, c.round) == (section, round_number)
            for c in event.changes
        ):
            found = f"{later}, {event.summary}"
    return found


@dataclass(frozen=True, slots=True)
class Undo:
    """Take back the action recorded at journal number `action`."""

    action: int
    kind: ClassVar[str] = "undo"

    def plan(self, host: ActionHost, by: str) -> Plan:
        logged = host.action_log.get(self.action)
        if logged is None:
            raise ActionError(say("there is no action %(action)s to undo", action=self.action))
        undone = host.action_log.undone_by(self.action)
        if undone:
            raise ActionError(
                say(
                    "action %(action)s (%(summary)s) was undone by action %(undone)s",
                    action=self.action,
                    summary=logged.summary,
                    undone=undone,
                )
            )
        if logged.kind == RELEASED:
            raise ActionError(
                say(
                    "action %(action)s (%(summary)s) cannot be taken back: the public "
                    "has seen those pairings",
                    action=self.action,
                    summary=logged.summary,
                )
            )
        record = record_of(host, self.action)
        _check_lineups_unpaired(host, self.action, logged.summary, record)
        parts: list[Change] = []
        removes: list[str] = []
        for change in record.changes:
            if _holds(host, change):
                parts.append(change)
                continue
            since = _played_since(host, change) if isinstance(change, GamePart) else None
            if since is not None and isinstance(change, GamePart):
                game = host.book.get(since.game)
                first = len(change.after[1]) + 1
                removes.append(
                    f"{plies_words(game.moves, first)} of {game_words(host.tournament, game)}, "
                    "played since"
                )
                parts.append(since)
                continue
            what = (
                describe_part(change)
                if not isinstance(change, GamePart)
                else (f"game {change.game} ({change.group})")
            )
            later = _changed_by(host, self.action, change)
            then = say(": %(later)s changed it; undo that first", later=later)
            if not later:
                then = say(": it has changed since")
            raise ActionError(
                say(
                    "cannot undo action %(action)s (%(summary)s): %(what)s%(then)s",
                    action=self.action,
                    summary=logged.summary,
                    what=what,
                    then=then,
                )
            )
        now = host.time_source.now()
        events: list[JournalEvent] = []
        if parts:
            undone_event = ActionUndone(self.action, tuple(parts), now, by)
            try:
                host.state.apply(undone_event)
            except (StateError, GameError) as exc:
                raise ActionError(
                    say(
                        "cannot undo action %(action)s (%(summary)s): %(why)s",
                        action=self.action,
                        summary=logged.summary,
                        why=phrase_of(exc),
                    )
                ) from None
            events.append(undone_event)
        rules = host.rules
        why = f"action {self.action} undone by {by}"
        events += [AlertResolved(a, now, why) for a in record.raised if rules.is_open(a)]
        events += [
            AlertReopened(a, now, by)
            for a in record.closed
            if a in rules.alerts and not rules.is_open(a) and a not in record.raised
        ]
        events += [PresenceUnmarked(g, c, t, now, by) for g, c, t in record.present]  # type: ignore[arg-type]
        events += [AbsenceUnmarked(g, c, t, now, by) for g, c, t in record.absent]  # type: ignore[arg-type]
        # An undone unmarking: the arbiter's word that they were there, from then.
        events += [PlayerMarkedPresent(g, c, t, by) for g, c, t in record.unmarked]  # type: ignore[arg-type]
        events += [PlayerMarkedAbsent(g, c, t, by) for g, c, t in record.unabsent]  # type: ignore[arg-type]
        tournament = host.tournament
        went = [w for c in parts if (w := change_words(tournament, c))]
        back = [w for c in parts if (w := change_words(tournament, c, reverse=True))]
        removes += [f"{w}" for w in went[:_SHOWN]]
        if len(went) > _SHOWN:
            removes.append(f"and {len(went) - _SHOWN} more")
        notes = [f"back: {w}" for w in back[:_SHOWN]]
        if record.present:
            notes.append("the presence it marked is taken back")
        if record.unmarked:
            notes.append("the presence it took back is marked again")
        if record.absent:
            notes.append("the absence it marked is taken back")
        if record.unabsent:
            notes.append("the absence it took back is marked again")
        at = utc(logged.t).strftime("%H:%M:%S UTC")
        return Plan(
            self.kind,
            f"undo action {self.action} ({logged.summary}, by {logged.by} at {at})",
            tuple(events),
            tuple(removes),
            tuple(notes),
            ask=True,
            undoes=self.action,
        )
