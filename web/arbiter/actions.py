"""The arbiter's actions as the desk and the API send them: commands through the one door
(`broadcast.actions.act`), and what both read back (the open alerts, the recent actions).

The web adds only what a person at a desk needs: sections named by slug, players named
by name or number, pairings from a pasted TRF or the FIDE Dutch engine (run in the
service's worker process), and a system alert acknowledged in memory (a full disk must
not stop it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from aiohttp import web

from broadcast.actions import Command, Done, PublishPairings, act
from broadcast.actions.pairings import dutch_off_loop, imported_round
from broadcast.actions.players import find_player
from broadcast.actions.team_import import ImportTeamRound
from broadcast.arbiter.alerts import Alert
from broadcast.fide.pairing import Pairing
from broadcast.service.event_service import ActionError, EventService
from broadcast.service.health import Health
from web.sections import section_by_name

__all__ = [
    "DESK",
    "ByHand",
    "Desk",
    "Dutch",
    "FromTrf",
    "PairingSource",
    "pairing_command",
]


class Desk:
    """The arbiter's side of one service: the door, the alerts, the recent actions."""

    def __init__(self, service: EventService, health: Health | None = None) -> None:
        self.service = service
        self.health = health if health is not None else service.health

    def alerts(self) -> list[Alert]:
        """The system's own alerts (journal, export) first, then the rules' alerts."""
        system = self.health.alerts(self.service.journal, self.service.time_source.now())
        return system + self.service.alerts()

    def act(self, command: Command, by: str, *, confirm: bool | str = False) -> Done:
        """`command` through the door (ConfirmationNeeded, ActionError, NotDurable)."""
        return act(self.service, command, by, confirm=confirm)

    def section(self, wanted: str) -> str:
        """A section by name or slug; ActionError naming it otherwise."""
        section = section_by_name(self.service.config, wanted)
        if section is None or not wanted:
            raise ActionError(f"no section {wanted!r}")
        return section.name

    def player(self, section: str, text: str) -> int:
        """A player of `section` by number or name (the desk's picker)."""
        return find_player(self.service.tournament.section(section), text)

    def recent(self, limit: int = 20) -> list[dict[str, Any]]:
        """The newest actions first, each with what undid it (0: in force)."""
        log = self.service.action_log
        return [
            {
                "seq": a.seq,
                "t": a.t,
                "kind": a.kind,
                "summary": a.summary,
                "by": a.by,
                "removes": list(a.removes),
                "undoes": a.undoes,
                "undone_by": log.undone_by(a.seq),
            }
            for a in log.recent(limit)
        ]


# -- pairing a round -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class FromTrf:
    """The round as the event's pairing program (Vega, Swiss-Manager) wrote it in a TRF."""

    text: str
    # Accept the byes the file gives as they are, even against the bye policy (journaled
    # as the arbiter's override, flagged).
    override: bool = False
    kind = "import"  # the source the journal records


@dataclass(frozen=True, slots=True)
class ByHand:
    """Pairs set by the arbiter: (white, black) starting numbers, black 0 for the bye."""

    pairs: tuple[tuple[int, int], ...]
    kind = "arbiter"


@dataclass(frozen=True, slots=True)
class Dutch:
    """FIDE Dutch, in the service's worker process (it can take a minute on a large
    Swiss); `override` pairs while results of the rounds before are missing."""

    override: bool = False
    kind = "dutch"


PairingSource = FromTrf | ByHand | Dutch


async def pairing_command(
    service: EventService, section: str, number: int, source: PairingSource
) -> PublishPairings | ImportTeamRound:
    """The pairings of round `number` of `section` (a section's name) from `source`, as
    the command that publishes them; ActionError (PairingBusy while that round is being
    paired) with a message to show. A team section's TRF brings its matches and lineups
    too (`ImportTeamRound`)."""
    pairings: tuple[Pairing, ...]
    byes: tuple[tuple[int, str], ...] = ()
    if isinstance(source, FromTrf) and service.config.section(section).is_team:
        return ImportTeamRound(section, number, source.text)
    if isinstance(source, FromTrf):
        pairings, byes = imported_round(source.text, number)
        return PublishPairings(
            section, number, pairings, source.kind, byes, accept_byes=source.override
        )
    if isinstance(source, ByHand):
        games = [p for p in source.pairs if p[1] != 0]
        pairings = tuple(
            [Pairing(i, w, b) for i, (w, b) in enumerate(games, 1)]
            + [Pairing(0, w, None) for w, b in source.pairs if b == 0]
        )
        return PublishPairings(section, number, pairings, source.kind)
    pairings = await dutch_off_loop(service, section, number, override=source.override)
    return PublishPairings(section, number, pairings, source.kind, override=source.override)


DESK = web.AppKey("desk", Desk)
