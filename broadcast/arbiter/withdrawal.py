"""What a withdrawal (or an elimination) does to the games not yet played, per the
section's `[section.withdrawal]`: pure, the caller journals what comes back.

Round robin: each later game of the player without a result becomes a forfeit won by the
opponent ("forfeit", reason "withdrawal": not a no-show) or leaves the pairings
("remove"). Swiss: nothing here; the state no longer pairs the player.
"""

from __future__ import annotations

from broadcast.games.events import GameResultText, ResultConfirmed
from broadcast.games.ids import GameKey
from broadcast.tournament.events import PairingEdited, PlayerWithdrawn
from broadcast.tournament.state import SectionState


def first_open_round(state: SectionState, player: int) -> int:
    """The first round in which the player has no result yet (a bye counts as a result):
    where a withdrawal decided now takes effect."""
    for number in sorted(state.rounds):
        rnd = state.rounds[number]
        game = rnd.game_of(player)
        if game is not None and game.black is not None and game.white not in rnd.results:
            return number
    return min(state.last_paired_round + 1, state.config.rounds + 1)


def withdrawal_events(
    state: SectionState, withdrawn: PlayerWithdrawn, t: float
) -> list[ResultConfirmed | PairingEdited]:
    """The consequences of `withdrawn` (already valid for `state`) for paired rounds."""
    if state.config.system == "swiss":
        return []
    out: list[ResultConfirmed | PairingEdited] = []
    player = withdrawn.player
    by = withdrawn.by or "rules"
    for number in sorted(state.rounds):
        if number < withdrawn.from_round:
            continue
        rnd = state.rounds[number]
        game = rnd.game_of(player)
        if game is None or game.black is None or game.white in rnd.results:
            continue
        if state.config.withdrawal.remaining_games == "remove":
            kept = tuple(p for p in rnd.pairings if p is not game)
            reason = f"player {player} withdrew; game removed"
            out.append(PairingEdited(state.name, number, kept, reason=reason, by=by))
            continue
        result: GameResultText = "-/+" if game.white == player else "+/-"
        game_id = GameKey(state.name, number, game.board).id
        out.append(ResultConfirmed(game_id, result, "withdrawal", t, by=by))
    return out


__all__ = ["first_open_round", "withdrawal_events"]
