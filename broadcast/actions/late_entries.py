"""Late entries and replacements: the arbiter's two ways of changing who plays once the
event has started, each one tournament event folded by the one fold.

- `LateEntry`: a player joins a Swiss with the next free starting number (nobody is
  renumbered) and is paired from the round they join; each round they missed is worth
  the section's `[section.late_entries] missed_round_points` (0 or 0.5) unless the
  arbiter says otherwise for this entry. The particulars, or a player the config lists
  (added after the start).
- `ReplacePlayer`: another participant takes a registered player's place in the
  pairings not yet played (Sestao art. 6). A player with no result yet gives the
  newcomer their starting number; otherwise the games stay with whoever played them,
  the newcomer gets the next free number and the original is out from then on (a player
  who has played over the board only with the arbiter's override, once withdrawn). Asks
  first: it removes a player's place.

Both refuse with an `ActionError` that says what to do instead.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from broadcast.actions.door import ActionHost, Plan, section_state
from broadcast.actions.players import player_of
from broadcast.config.model import PlayerEntry
from broadcast.games.ids import GameKey
from broadcast.phrases import phrase_of, say
from broadcast.service.committer import ActionError
from broadcast.tournament.newcomer import NewcomerError, newcomer_entry
from broadcast.tournament.tournament_events import PlayerEntered, PlayerReplaced
from broadcast.tournament.tournament_state import SectionState

__all__ = ["LateEntry", "Particulars", "ReplacePlayer", "particulars", "replacement_round"]

Particulars = tuple[tuple[str, object], ...]
"""A newcomer's particulars as given (name, rating, fide_id, ...), as pairs."""


def particulars(fields: Mapping[str, object]) -> Particulars:
    """The particulars as a command carries them."""
    return tuple(sorted(fields.items()))


def _newcomer(state: SectionState, number: int, fields: Particulars) -> PlayerEntry:
    """The newcomer's entry, refused when it is not valid or is a player already in the
    section (the same FIDE id, or the same name)."""
    try:
        entry = newcomer_entry(number, dict(fields))
    except NewcomerError as exc:
        raise ActionError(phrase_of(exc)) from None
    for other in state.players.values():
        if other.number == number:
            continue
        same_id = entry.fide_id and entry.fide_id == other.fide_id
        if same_id or entry.name.casefold() == other.name.casefold():
            raise ActionError(
                say(
                    "%(name)s has the FIDE id %(fide_id)s of player %(number)s (%(other)s), "
                    "who is already in the section",
                    name=entry.name,
                    fide_id=str(entry.fide_id),
                    number=other.number,
                    other=other.name,
                )
                if same_id
                else say(
                    "%(name)s has the name of player %(number)s (%(other)s), who is already "
                    "in the section",
                    name=entry.name,
                    number=other.number,
                    other=other.name,
                )
            )
    return entry


def _missed_points(state: SectionState, given: float | None) -> float:
    points = state.config.late_entries.missed_round_points if given is None else given
    if points not in (0, 0.5):
        raise ActionError(
            say(
                "%(points)s points per missed round: FIDE gives a late entry 0 or 0.5 "
                "(half-point byes) per missed round",
                points=repr(points),
            )
        )
    return float(points)


def _swiss(host: ActionHost, section: str) -> SectionState:
    state = section_state(host, section)
    if state.config.system != "swiss":
        raise ActionError(
            say(
                "%(section)s is a round robin: its Berger tables are fixed, so nobody can "
                "join it late; a player who has not played yet can be replaced instead",
                section=state.name,
            )
        )
    return state


@dataclass(frozen=True, slots=True)
class LateEntry:
    """A late entry with the particulars `fields`, or the config's player `config_player`
    (added to the config after the start), paired from `from_round` (default: the next
    round not paired yet)."""

    section: str
    fields: Particulars = ()
    config_player: int | None = None
    from_round: int | None = None
    missed_points: float | None = None
    kind: ClassVar[str] = "late-entry"

    def plan(self, host: ActionHost, by: str) -> Plan:
        state = _swiss(host, self.section)
        if self.config_player is not None:
            if self.fields:
                raise ActionError(
                    say(
                        "give either the newcomer's particulars or their number in the "
                        "config, not both"
                    )
                )
            entry = self._from_config(host, state, self.config_player)
        else:
            entry = _newcomer(state, state.next_number, self.fields)
        start = state.last_paired_round + 1 if self.from_round is None else self.from_round
        points = _missed_points(state, self.missed_points)
        event = PlayerEntered(state.name, entry, start, points, by)
        state.apply(event)  # refused here, in its words, when it does not fit
        missed = points * (start - 1)
        return Plan(
            self.kind,
            f"late entry: {entry.name} ({entry.number}), paired from round {start}, "
            f"starts with {missed:g} point{'s' if missed != 1 else ''}",
            (event,),
        )

    def _from_config(self, host: ActionHost, state: SectionState, number: int) -> PlayerEntry:
        entry = {p.number: p for p in host.config.section(state.name).players}.get(number)
        if entry is None:
            raise ActionError(
                say(
                    "the config lists no player %(number)s in %(section)s",
                    number=number,
                    section=state.name,
                )
            )
        if number in state.players:
            raise ActionError(
                say(
                    "player %(number)s of the config is already in the event (%(name)s)",
                    number=number,
                    name=state.players[number].name,
                )
            )
        if number != state.next_number:
            raise ActionError(
                say(
                    "the config numbers %(name)s %(number)s, but a late entry gets the next "
                    "free starting number, %(next)s: renumber them in the config, or enter "
                    "them with their particulars",
                    name=entry.name,
                    number=number,
                    next=state.next_number,
                )
            )
        return entry


def replacement_round(state: SectionState, player: int) -> int:
    """The first round the newcomer replacing `player` plays: the first round after the
    player's last result in which they are paired, else the next round not paired yet."""
    recorded = state.recorded_rounds(player)
    after = recorded[-1] if recorded else 0
    paired = [
        number
        for number, rnd in state.rounds.items()
        if number > after and rnd.game_of(player) is not None
    ]
    return min(paired, default=max(state.last_paired_round, after) + 1)


@dataclass(frozen=True, slots=True)
class ReplacePlayer:
    """Another participant (particulars `fields`) takes the place of `player` in the
    pairings not yet played. `override` is the arbiter's reason for replacing a player
    who has played (required then, and they must have withdrawn)."""

    section: str
    player: int
    fields: Particulars
    override: str = ""
    missed_points: float | None = None
    kind: ClassVar[str] = "replace-player"

    def plan(self, host: ActionHost, by: str) -> Plan:
        state = section_state(host, self.section)
        who = player_of(state, self.player)
        original = state.players[self.player]
        recorded = state.recorded_rounds(self.player)
        number = state.next_number if recorded else self.player
        start = replacement_round(state, self.player)
        if start > state.config.rounds:
            raise ActionError(
                say(
                    "%(player)s has a result in every round of %(section)s: there is no "
                    "round left for a newcomer to play",
                    player=who,
                    section=state.name,
                )
            )
        for number_ in sorted(r for r in state.rounds if r >= start):
            pairing = state.rounds[number_].game_of(self.player)
            if pairing is None or pairing.black is None:
                continue
            game = host.book.games.get(GameKey(state.name, number_, pairing.board).id)
            if game is not None and game.moves:
                raise ActionError(
                    say(
                        "%(player)s's game in round %(round)s (board %(board)s) has "
                        "started (%(plies)s plies): a newcomer cannot take over a game in "
                        "progress; record its result first",
                        player=who,
                        round=number_,
                        board=pairing.board,
                        plies=len(game.moves),
                    )
                )
        entry = _newcomer(state, number, self.fields)
        event = PlayerReplaced(
            state.name,
            self.player,
            original,
            entry,
            start,
            _missed_points(state, self.missed_points),
            self.override.strip(),
            by,
        )
        state.apply(event)
        summary = f"{who} replaced by {entry.name} from round {start}"
        if entry.number != self.player:
            summary += (
                f" (starting number {entry.number}; the games played stay with {original.name})"
            )
        return Plan(
            self.kind,
            summary,
            (event,),
            removes=(f"{who}'s place in the pairings from round {start} on",),
        )
