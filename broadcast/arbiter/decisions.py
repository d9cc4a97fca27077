"""The arbiter's actions as the journal records them: what each did, and its undoing.

Every arbiter action goes through one door (`broadcast.actions`), which journals the
action's events and, last in the same transaction, an `ActionTaken`: what it did in words,
who did it and when, and every part of the event it changed with its value before and
after (`broadcast.games.changes`), the alerts it raised and closed, and the players it
marked present. That record is what an undo needs, whatever came after it.

An undo is an action too (its own `ActionTaken`, with `undoes`): its counter-event
`ActionUndone` carries the parts to put back, and the fold puts them back
(`broadcast.games.changes.put_back`); the alerts the action raised are resolved, those it
closed reopened (`AlertReopened`), the presence it marked unmarked (`PresenceUnmarked`).
The journal keeps the action and its undoing; the state after both is the state before
the action.
"""

from __future__ import annotations

from dataclasses import dataclass

from broadcast.games.changes import Change

__all__ = ["ActionTaken", "ActionUndone", "PresenceMark"]

PresenceMark = tuple[str, str, float]
"""A player the action marked present: (game, colour, when)."""


@dataclass(frozen=True, slots=True)
class ActionTaken:
    """One arbiter action, recorded after its events (a fold and the rules ignore it).

    `kind` names the command ("result", "withdraw", ...), `summary` says what it did and
    `removes` what it took away (the arbiter confirmed those), `by` who did it at `t`.
    `changes` is every part of the event it changed (before and after), `raised` the
    alerts it raised (or reopened) and `closed` those it closed, `present` the presence it marked and
    `unmarked` the presence it took back (an undo of a mark). `undoes` is the journal
    number of the `ActionTaken` this action undid (0: none)."""

    kind: str
    summary: str
    by: str
    t: float
    removes: tuple[str, ...] = ()
    changes: tuple[Change, ...] = ()
    raised: tuple[str, ...] = ()
    closed: tuple[str, ...] = ()
    present: tuple[PresenceMark, ...] = ()
    undoes: int = 0
    unmarked: tuple[PresenceMark, ...] = ()
    # The players it marked absent, and the absences it took back (an undo of a mark, a
    # player marked present who had been marked absent).
    absent: tuple[PresenceMark, ...] = ()
    unabsent: tuple[PresenceMark, ...] = ()


@dataclass(frozen=True, slots=True)
class ActionUndone:
    """The counter-event of the action recorded at journal number `action`: `parts` are
    put back as they were before it (each must still hold what the action left)."""

    action: int
    parts: tuple[Change, ...]
    t: float
    by: str = ""
