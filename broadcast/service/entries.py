"""Late entries and replacements: the arbiter's two ways of changing who plays once the
event has started, each journaled as one tournament event and folded by the one fold,
so a restart replays it.

- `enter_late`: a player joins a Swiss with the next free starting number (nobody is
  renumbered) and is paired from the round they join; each round they missed is worth
  the section's `[section.late_entries] missed_round_points` (0 or 0.5) unless the
  arbiter says otherwise for this entry.
- `replace_player`: another participant takes a registered player's place in the
  pairings not yet played (Sestao art. 6). A player with no result yet gives the
  newcomer their starting number; otherwise the games stay with whoever played them,
  the newcomer gets the next free number and the original is out from then on (a player
  who has played over the board only with the arbiter's override, once withdrawn).

Both refuse with an `ActionError` that says what to do instead.
"""

from __future__ import annotations

from collections.abc import Mapping

from broadcast.config.model import PlayerEntry
from broadcast.games.ids import GameKey
from broadcast.service.actions import ActionHost, section_state, tournament_event
from broadcast.service.committer import ActionError
from broadcast.tournament.events import PlayerEntered, PlayerReplaced
from broadcast.tournament.newcomer import NewcomerError, newcomer_entry
from broadcast.tournament.state import SectionState

__all__ = ["enter_from_config", "enter_late", "replace_player", "replacement_round"]


def _newcomer(state: SectionState, number: int, fields: Mapping[str, object]) -> PlayerEntry:
    """The newcomer's entry, refused when it is not valid or is a player already in the
    section (the same FIDE id, or the same name)."""
    try:
        entry = newcomer_entry(number, fields)
    except NewcomerError as exc:
        raise ActionError(str(exc)) from None
    for other in state.players.values():
        if other.number == number:
            continue
        same_id = entry.fide_id and entry.fide_id == other.fide_id
        if same_id or entry.name.casefold() == other.name.casefold():
            what = f"FIDE id {entry.fide_id}" if same_id else "name"
            raise ActionError(
                f"{entry.name} has the {what} of player {other.number} ({other.name}), "
                "who is already in the section"
            )
    return entry


def _missed_points(state: SectionState, given: float | None) -> float:
    points = state.config.late_entries.missed_round_points if given is None else given
    if points not in (0, 0.5):
        raise ActionError(
            f"{points!r} points per missed round: FIDE gives a late entry 0 or 0.5 "
            "(half-point byes) per missed round"
        )
    return float(points)


def enter_late(
    service: ActionHost,
    section: str,
    fields: Mapping[str, object],
    by: str,
    *,
    from_round: int | None = None,
    missed_points: float | None = None,
) -> PlayerEntered:
    """A late entry with the particulars in `fields` (see `newcomer_entry`), paired from
    `from_round` (default: the next round not paired yet)."""
    state = _swiss(service, section)
    entry = _newcomer(state, state.next_number, fields)
    return _enter(service, state, entry, by, from_round, missed_points)


def enter_from_config(
    service: ActionHost,
    section: str,
    number: int,
    by: str,
    *,
    from_round: int | None = None,
    missed_points: float | None = None,
) -> PlayerEntered:
    """A late entry of player `number` as the config (reloaded after the start) lists
    them: the config's player must carry the next free starting number."""
    state = _swiss(service, section)
    entry = {p.number: p for p in service.config.section(state.name).players}.get(number)
    if entry is None:
        raise ActionError(f"the config lists no player {number} in {state.name}")
    if number in state.players:
        raise ActionError(
            f"player {number} of the config is already in the event ({state.players[number].name})"
        )
    if number != state.next_number:
        raise ActionError(
            f"the config numbers {entry.name} {number}, but a late entry gets the next free "
            f"starting number, {state.next_number}: renumber them in the config, or enter "
            "them with their particulars"
        )
    return _enter(service, state, entry, by, from_round, missed_points)


def _swiss(service: ActionHost, section: str) -> SectionState:
    state = section_state(service, section)
    if state.config.system != "swiss":
        raise ActionError(
            f"{state.name} is a round robin: its Berger tables are fixed, so nobody can "
            "join it late; a player who has not played yet can be replaced instead"
        )
    return state


def _enter(
    service: ActionHost,
    state: SectionState,
    entry: PlayerEntry,
    by: str,
    from_round: int | None,
    missed_points: float | None,
) -> PlayerEntered:
    start = state.last_paired_round + 1 if from_round is None else from_round
    event = PlayerEntered(state.name, entry, start, _missed_points(state, missed_points), by)
    tournament_event(service, event)
    return event


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


def replace_player(
    service: ActionHost,
    section: str,
    player: int,
    fields: Mapping[str, object],
    by: str,
    *,
    override: str = "",
    missed_points: float | None = None,
) -> PlayerReplaced:
    """Another participant (particulars in `fields`) takes the place of `player` in the
    pairings not yet played. `override` is the arbiter's reason for replacing a player
    who has played (required then, and they must have withdrawn)."""
    state = section_state(service, section)
    original = state.players.get(player)
    if original is None:
        raise ActionError(f"section {state.name!r} has no player {player}")
    recorded = state.recorded_rounds(player)
    number = state.next_number if recorded else player
    start = replacement_round(state, player)
    if start > state.config.rounds:
        raise ActionError(
            f"player {player} has a result in every round of {state.name}: there is no "
            "round left for a newcomer to play"
        )
    for number_ in sorted(r for r in state.rounds if r >= start):
        pairing = state.rounds[number_].game_of(player)
        if pairing is None or pairing.black is None:
            continue
        game = service.book.games.get(GameKey(state.name, number_, pairing.board).id)
        if game is not None and game.moves:
            raise ActionError(
                f"player {player}'s game in round {number_} (board {pairing.board}) has "
                f"started ({len(game.moves)} plies): a newcomer cannot take over a game in "
                "progress; record its result first"
            )
    entry = _newcomer(state, number, fields)
    event = PlayerReplaced(
        state.name,
        player,
        original,
        entry,
        start,
        _missed_points(state, missed_points),
        override.strip(),
        by,
    )
    tournament_event(service, event)
    return event
