"""The arbiter's answers to the desk's alerts that are not results: seen, and present.

- `Acknowledge`: the arbiter has seen a rules' alert (the system's own alerts, a full disk
  or a failing task, are acknowledged in the service's memory, never journaled: the web
  does that before it comes here). A proposed result is answered by confirming, setting
  another or rejecting it, not by acknowledging it.
- `MarkPresent`: the arbiter saw a player at the board: no default-time forfeit for them,
  and a default-time forfeit already proposed against them is withdrawn.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, cast

from broadcast.actions.door import ActionHost, Plan, game_state
from broadcast.actions.words import game_words, result_words
from broadcast.arbiter.alerts import AlertAcknowledged, PlayerMarkedPresent
from broadcast.arbiter.presence import no_show_colours
from broadcast.games.events import Colour, ProposalWithdrawn
from broadcast.journal.kinds import JournalEvent
from broadcast.service.committer import ActionError

__all__ = ["Acknowledge", "MarkPresent"]


@dataclass(frozen=True, slots=True)
class Acknowledge:
    """The arbiter has seen alert `alert` (a rules' alert, by id)."""

    alert: str
    kind: ClassVar[str] = "acknowledge"

    def plan(self, host: ActionHost, by: str) -> Plan:
        alert = host.rules.alerts.get(self.alert)
        if alert is None:
            raise ActionError(f"no alert {self.alert!r}")
        if not host.rules.is_open(self.alert):
            raise ActionError(f"the alert {self.alert!r} is closed already")
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
        event = AlertAcknowledged(self.alert, host.time.now(), by=by)
        return Plan(self.kind, f"{where}alert seen: {alert.message[:120]}", (event,))


@dataclass(frozen=True, slots=True)
class MarkPresent:
    """`colour` ("white" or "black") of `game` is at the board."""

    game: str
    colour: str
    kind: ClassVar[str] = "present"

    def plan(self, host: ActionHost, by: str) -> Plan:
        game = game_state(host, self.game)
        if self.colour not in ("white", "black"):
            raise ActionError(f"colour must be 'white' or 'black', not {self.colour!r}")
        colour = cast(Colour, self.colour)
        player = game.white if colour == "white" else game.black
        who = f"{player.name} ({colour})" if player is not None else colour
        where = game_words(host.tournament, game)
        now = host.time.now()
        events: list[JournalEvent] = [PlayerMarkedPresent(game.id, colour, now, by=by)]
        notes: tuple[str, ...] = ()
        proposal = game.proposal if game.result is None else None
        if (
            proposal is not None
            and proposal.reason == "default-time"
            and colour in no_show_colours(proposal.result)
        ):
            why = (
                f"{colour} marked present by {by}: the default-time forfeit "
                f"{proposal.result} is withdrawn"
            )
            events.append(ProposalWithdrawn(game.id, now, by=by, why=why))
            notes = (
                f"the proposed {result_words(proposal.result, proposal.reason)} is withdrawn: "
                "the game goes on",
            )
        return Plan(self.kind, f"{where}: {who} marked present", tuple(events), notes=notes)
