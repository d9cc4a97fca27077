"""Prizes and the play-off for first place.

- `WithholdPrize`: the player's prize is withheld, with the reason (Pamplona art. 9: an
  unjustified missed game); it passes to the next eligible player. Asks first.
- `RestorePrize`: a prize withheld by the arbiter, or by an elimination (the config's
  `eliminated_lose_prizes`), is given back.
- `PairPlayoffGame`: the next play-off game between two players still in it; its kind
  (blitz or Armageddon) follows the play-off's state.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import ClassVar

from broadcast.actions.door import ActionHost, Plan, section_state
from broadcast.actions.players import player_of
from broadcast.phrases import say
from broadcast.service.committer import ActionError
from broadcast.service.hall import utc
from broadcast.tournament.eligibility import prize_withheld
from broadcast.tournament.final_standings import playoff_now
from broadcast.tournament.tournament_events import PlayoffGamePaired, PrizeRestored, PrizeWithheld

__all__ = ["PairPlayoffGame", "RestorePrize", "WithholdPrize"]


@dataclass(frozen=True, slots=True)
class WithholdPrize:
    """Withhold `player`'s prize for `reason` (required: it is on the prize list)."""

    section: str
    player: int
    reason: str
    kind: ClassVar[str] = "withhold-prize"

    def plan(self, host: ActionHost, by: str) -> Plan:
        state = section_state(host, self.section)
        if state.config.prizes is None:
            raise ActionError(
                say("section %(name)s has no [section.prizes] in its config", name=repr(state.name))
            )
        who = player_of(state, self.player)
        why = self.reason.strip()
        if not why:
            raise ActionError(
                say("give the reason the prize is withheld (e.g. 'art. 9: round 3 missed')")
            )
        if self.player in state.prizes_withheld:
            raise ActionError(
                say(
                    "%(who)s's prize is already withheld (%(why)s)",
                    who=who,
                    why=state.prizes_withheld[self.player],
                )
            )
        return Plan(
            self.kind,
            f"prize of {who} withheld ({why}): it passes to the next eligible player",
            (PrizeWithheld(state.name, self.player, why, by),),
            removes=(f"{who}'s prize",),
        )


@dataclass(frozen=True, slots=True)
class RestorePrize:
    """Give back `player`'s withheld prize."""

    section: str
    player: int
    reason: str = ""
    kind: ClassVar[str] = "restore-prize"

    def plan(self, host: ActionHost, by: str) -> Plan:
        state = section_state(host, self.section)
        who = player_of(state, self.player)
        if not prize_withheld(state, self.player):
            raise ActionError(say("%(who)s's prize is not withheld", who=who))
        return Plan(
            self.kind,
            f"prize of {who} restored",
            (PrizeRestored(state.name, self.player, self.reason.strip(), by),),
        )


@dataclass(frozen=True, slots=True)
class PairPlayoffGame:
    """The next play-off game for first place, `white` against `black`, on the section's
    pairing board `board`, starting at `at` (default: now)."""

    section: str
    white: int
    black: int
    board: int = 1
    at: dt.datetime | None = None
    kind: ClassVar[str] = "playoff"

    def plan(self, host: ActionHost, by: str) -> Plan:
        state = section_state(host, self.section)
        status = playoff_now(state, host.tournament.event.tiebreak_edition)
        if status is None:
            raise ActionError(
                say("section %(name)s has no tie for first to play off", name=repr(state.name))
            )
        if status.decided:
            raise ActionError(
                say(
                    "the play-off is decided: player %(winner)s is first", winner=str(status.winner)
                )
            )
        if status.next_kind is None:
            raise ActionError(say("a play-off game is still being played: record its result first"))
        if not {self.white, self.black} <= set(status.remaining):
            still = ", ".join(str(p) for p in status.remaining)
            raise ActionError(
                say("only players still in the play-off (%(still)s) can be paired", still=still)
            )
        if (min(self.white, self.black), max(self.white, self.black)) in status.met:
            # Donostia art. 10: a league is everyone against everyone once.
            left = ", ".join(f"{a}-{b}" for a, b in status.missing)
            raise ActionError(
                say(
                    "players %(white)s and %(black)s have already met in this play-off "
                    "league: each pair plays once; still to play: %(left)s",
                    white=self.white,
                    black=self.black,
                    left=left,
                )
            )
        number = len(state.playoff) + 1
        event = PlayoffGamePaired(
            state.name,
            number,
            self.white,
            self.black,
            status.next_kind,
            self.at or utc(host.time_source.now()),
            self.board,
            by,
        )
        return Plan(
            self.kind,
            f"play-off game {number} ({status.next_kind}): {player_of(state, self.white)} – "
            f"{player_of(state, self.black)}",
            (event,),
        )
