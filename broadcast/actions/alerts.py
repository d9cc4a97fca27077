"""The arbiter's answers to the desk's alerts that are not results: seen, present, absent.

- `Acknowledge`: the arbiter has seen a rules' alert (the system's own alerts, a full disk
  or a failing task, are acknowledged in the service's memory, never journaled: the web
  does that before it comes here). A proposed result is answered by confirming, setting
  another or rejecting it, not by acknowledging it.
- `MarkPresent`: the arbiter saw a player at the board: no default-time forfeit for them,
  and a default-time forfeit already proposed against them is withdrawn. The same action
  is a player's check-in at the table (`check_in`, `by` naming the player).
- `MarkAbsent`: the arbiter says a player is not at the board (a hall walk): at the
  default time they lose by forfeit (proposed).

Both name the table as the hall does (`broadcast.config.tables.table_of`), both players
at once with colour "both", and are undone like any action (the marks taken back).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from broadcast.actions.door import ActionHost, Plan, game_state
from broadcast.actions.words import game_words, result_words
from broadcast.arbiter.alerts import AlertAcknowledged, PlayerMarkedAbsent, PlayerMarkedPresent
from broadcast.arbiter.presence import deadline, forfeit_result, no_show_colours
from broadcast.config.tables import table_of
from broadcast.games.game_events import Colour, ProposalWithdrawn
from broadcast.games.game_state import GameState
from broadcast.journal.kinds import JournalEvent
from broadcast.phrases import say
from broadcast.service.committer import ActionError
from broadcast.service.hall import utc

__all__ = ["Acknowledge", "MarkAbsent", "MarkPresent"]


@dataclass(frozen=True, slots=True)
class Acknowledge:
    """The arbiter has seen alert `alert` (a rules' alert, by id)."""

    alert: str
    kind: ClassVar[str] = "acknowledge"

    def plan(self, host: ActionHost, by: str) -> Plan:
        alert = host.rules.alerts.get(self.alert)
        if alert is None:
            raise ActionError(say("no alert %(alert)s", alert=repr(self.alert)))
        if not host.rules.is_open(self.alert):
            raise ActionError(say("the alert %(alert)s is closed already", alert=repr(self.alert)))
        game = host.book.games.get(alert.game) if alert.game else None
        if (
            alert.kind == "result-proposed"
            and game is not None
            and game.result is None
            and game.proposal
        ):
            # "Seen" is no answer to a proposal: the result would stay pending for ever, and
            # spectators would read "awaiting the arbiter". Nor is it a rejection: one
            # careless click would drop a right result (a flag fall) without a word.
            raise ActionError(
                f"a proposed result ({alert.result}) is not acknowledged: confirm it, set "
                "another result, or reject it (the game goes on)"
            )
        where = f"{game_words(host.tournament, game)}: " if game is not None else ""
        event = AlertAcknowledged(self.alert, host.time_source.now(), by=by)
        return Plan(self.kind, f"{where}alert seen: {alert.message[:120]}", (event,))


COLOURS: dict[str, tuple[Colour, ...]] = {
    "white": ("white",),
    "black": ("black",),
    "both": ("white", "black"),
}


def _colours(colour: str) -> tuple[Colour, ...]:
    colours = COLOURS.get(colour)
    if colours is None:
        raise ActionError(
            say(
                "colour must be 'white', 'black' or 'both', not %(colour)s",
                colour=repr(colour),
            )
        )
    return colours


def _table(host: ActionHost, game: GameState) -> str:
    """ "table 17, round 3": where the players sit, in the hall's numbers."""
    table = table_of(host.config, game.key.section, game.key.board)
    return f"table {table}, round {game.key.round}"


def _player(game: GameState, colour: Colour) -> str:
    player = game.white if colour == "white" else game.black
    return f"{player.name} ({colour})" if player is not None else colour


def _at(t: float) -> str:
    return utc(t).strftime("%H:%M:%S UTC")


def _due(host: ActionHost, game: GameState) -> float | None:
    """The game's default time (epoch seconds), None when its round has no start."""
    config = host.rules.section(game.key.section)
    start = host.rules.round_start(config, game.key.round)
    return deadline(start, config.default_time_minutes) if start is not None else None


@dataclass(frozen=True, slots=True)
class MarkPresent:
    """`colour` ("white", "black" or "both") of `game` is at the board.

    The arbiter's word by default: it counts whenever given, and a default-time forfeit
    already proposed against them is withdrawn. With `check_in`, the player's own word at
    the table (the table page; `by` names them, e.g. "player:Open:23"): only where the
    event has check-in, and it counts from its time (a check-in after the default time
    leaves a proposed forfeit to the arbiter)."""

    game: str
    colour: str
    check_in: bool = False
    kind: ClassVar[str] = "present"

    def plan(self, host: ActionHost, by: str) -> Plan:
        game = game_state(host, self.game)
        colours = _colours(self.colour)
        where = _table(host, game)
        if self.check_in:
            _check_in_allowed(host, game, colours, where)
        now = host.time_source.now()
        how = "check-in" if self.check_in else "arbiter"
        events: list[JournalEvent] = [
            PlayerMarkedPresent(game.id, c, now, by=by, how=how) for c in colours
        ]
        notes: list[str] = []
        presence = host.rules.presence_of(game.id)
        for c in colours:
            if presence is not None and presence.absent_since(c) is not None:
                notes.append(
                    f"{_player(game, c)} was marked absent at {_at(presence.absent_since(c) or now)}: no longer"
                )
        proposal = game.proposal if game.result is None else None
        forfeited = [
            c for c in colours if proposal is not None and c in no_show_colours(proposal.result)
        ]
        if proposal is not None and proposal.reason == "default-time" and forfeited:
            if self.check_in:
                notes.append(
                    f"checked in after the default time: the proposed "
                    f"{result_words(proposal.result, proposal.reason)} stays for the arbiter"
                )
            else:
                who = " and ".join(forfeited)
                why = (
                    f"{who} marked present by {by}: the default-time forfeit "
                    f"{proposal.result} is withdrawn"
                )
                events.append(ProposalWithdrawn(game.id, now, by=by, why=why))
                notes.append(
                    f"the proposed {result_words(proposal.result, proposal.reason)} is "
                    "withdrawn: the game goes on"
                )
        who = " and ".join(_player(game, c) for c in colours)
        verb = "checked in" if self.check_in else "marked present"
        return Plan(self.kind, f"{where}: {who} {verb}", tuple(events), notes=tuple(notes))


def _check_in_allowed(
    host: ActionHost, game: GameState, colours: tuple[Colour, ...], where: str
) -> None:
    if host.config.check_in_of(game.key.section) == "off":
        raise ActionError(say("this event has no check-in: ask the arbiter at your table"))
    if game.finished:
        raise ActionError(
            say("the game at %(where)s has a result already: no check-in", where=where)
        )
    presence = host.rules.presence_of(game.id)
    if presence is not None and all(presence.of(c) is not None for c in colours):
        raise ActionError(
            say(
                "%(who)s at %(where)s is present already",
                who=" and ".join(_player(game, c) for c in colours),
                where=where,
            )
        )


@dataclass(frozen=True, slots=True)
class MarkAbsent:
    """`colour` ("white", "black" or "both") of `game` is not at the board: the arbiter's
    word (a hall walk at the default time). At the default time the player loses by
    forfeit (proposed); after it, at once. An absent player the board has seen play (a
    move, a clock press) cannot be marked so; one marked present before is asked about
    (the mark goes)."""

    game: str
    colour: str
    kind: ClassVar[str] = "absent"

    def plan(self, host: ActionHost, by: str) -> Plan:
        game = game_state(host, self.game)
        colours = _colours(self.colour)
        where = _table(host, game)
        if game.finished:
            raise ActionError(
                say(
                    "the game at %(where)s has the result %(result)s already: set another "
                    "result instead",
                    where=where,
                    result=game.result or "?",
                )
            )
        presence = host.rules.presence_of(game.id)
        removes: list[str] = []
        for c in colours:
            if presence is None:
                break
            seen = presence.of(c)
            if seen is not None and presence.how(c) == "board":
                raise ActionError(
                    say(
                        "the board saw %(who)s play at %(where)s (at %(at)s): they were at the "
                        "board; correct the game if that was not them",
                        who=_player(game, c),
                        where=where,
                        at=_at(seen),
                    )
                )
            if presence.absent_since(c) is not None:
                raise ActionError(
                    say(
                        "%(who)s at %(where)s is marked absent already",
                        who=_player(game, c),
                        where=where,
                    )
                )
            if seen is not None:
                words = "checked in" if presence.how(c) == "check-in" else "marked present"
                removes.append(f"{_player(game, c)} {words} at {_at(seen)}")
        now = host.time_source.now()
        events = tuple(PlayerMarkedAbsent(game.id, c, now, by=by) for c in colours)
        due = _due(host, game)
        others: tuple[Colour, ...] = ("white", "black")
        absent = [
            c
            for c in others
            if c in colours or (presence is not None and presence.absent_since(c) is not None)
        ]
        result = forfeit_result(absent)
        notes: tuple[str, ...] = ()
        if result is not None and due is not None:
            when = "at once" if now >= due else f"at the default time ({_at(due)})"
            notes = (f"the forfeit {result} will be proposed {when}, unless they come before",)
        who = " and ".join(_player(game, c) for c in colours)
        return Plan(
            self.kind, f"{where}: {who} marked absent", events, removes=tuple(removes), notes=notes
        )
