"""What a withdrawal (or an elimination) does to the games not yet played, and what a
reinstatement takes back of it: pure, the caller journals what comes back.

Round robin, per the section's `[section.withdrawal]`: each later game of the player
without a result becomes a forfeit won by the opponent ("forfeit", reason "withdrawal":
not a no-show) or leaves the pairings ("remove"). Swiss: the state no longer pairs the
player; a game already paired for them and not begun becomes a forfeit won by the
opponent (the pairing is published: the opponent came to play). A game already begun is
the arbiter's to decide, and is left as it is.

A withdrawal decided now, without a round (`withdrawal_round`), takes effect at the next
round to be paired: the rounds already paired keep their games, played or not (an
unplayed one is the arbiter's to decide: its result, or a withdrawal from that round). A
round robin is paired in advance by its table: there the next round is the first one not
begun, so its remaining games follow `[section.withdrawal]` and the games of the rounds
under way or played are left alone, results entered or not.

A reinstatement takes those back where they still stand: a withdrawal's forfeit without
moves is cleared, a game taken off the pairings is paired again where its board and its
players are still free.
"""

from __future__ import annotations

from collections.abc import Collection

from broadcast.fide.pairing import Pairing
from broadcast.games.book import GameBook
from broadcast.games.game_events import GameResultText, ResultCleared, ResultConfirmed
from broadcast.games.ids import GameKey
from broadcast.tournament.tournament_events import PairingEdited, PlayerReinstated, PlayerWithdrawn
from broadcast.tournament.tournament_state import SectionState

__all__ = [
    "reinstatement_events",
    "withdrawal_consequences",
    "withdrawal_events",
    "withdrawal_round",
    "withdrawn_from",
]


def withdrawal_round(state: SectionState, begun: Collection[int]) -> int:
    """Where a withdrawal decided now takes effect: the next round to be paired (in a
    round robin, paired in advance, the first round not in `begun`: the rounds whose
    start has come or that have a game under way or finished). Never an earlier round:
    a result not entered yet is not a game the player missed."""
    last = state.config.rounds + 1
    if state.config.system == "swiss":
        return min(state.last_paired_round + 1, last)
    for number in range(1, state.config.rounds + 1):
        if number not in state.rounds or number not in begun:
            return number
    return last


def withdrawn_from(state: SectionState, game_round: int, white: int, black: int) -> int | None:
    """The withdrawn player (white or black) whose withdrawal covers a game of
    `game_round`, or None."""
    for player in (white, black):
        start = state.withdrawn.get(player)
        if start is not None and game_round >= start:
            return player
    return None


def withdrawal_events(
    state: SectionState, withdrawn: PlayerWithdrawn, t: float
) -> list[ResultConfirmed | PairingEdited]:
    """The consequences of `withdrawn` (already valid for `state`) for paired rounds,
    whatever the games' boards say (see `withdrawal_consequences`)."""
    out: list[ResultConfirmed | PairingEdited] = []
    player = withdrawn.player
    by = withdrawn.by or "rules"
    swiss = state.config.system == "swiss"
    for number in sorted(state.rounds):
        if number < withdrawn.from_round:
            continue
        rnd = state.rounds[number]
        game = rnd.game_of(player)
        if game is None or game.black is None or game.white in rnd.results:
            continue
        if not swiss and state.config.withdrawal.remaining_games == "remove":
            kept = tuple(p for p in rnd.pairings if p is not game)
            reason = f"player {player} withdrew; game removed"
            out.append(PairingEdited(state.name, number, kept, reason=reason, by=by))
            continue
        result: GameResultText = "-/+" if game.white == player else "+/-"
        game_id = GameKey(state.name, number, game.board).id
        out.append(ResultConfirmed(game_id, result, "withdrawal", t, by=by))
    return out


def withdrawal_consequences(
    state: SectionState, book: GameBook, withdrawn: PlayerWithdrawn, t: float
) -> list[ResultConfirmed | PairingEdited]:
    """`withdrawal_events` for the games as they are: a finished game keeps its result,
    and in a Swiss a game already begun is left to the arbiter."""
    out: list[ResultConfirmed | PairingEdited] = []
    for event in withdrawal_events(state, withdrawn, t):
        if isinstance(event, ResultConfirmed):
            game = book.games.get(event.game)
            if game is None or game.finished:
                continue
            if state.config.system == "swiss" and game.moves:
                continue
        out.append(event)
    return out


def reinstatement_events(
    state: SectionState, book: GameBook, reinstated: PlayerReinstated, t: float
) -> list[ResultCleared | PairingEdited]:
    """What `reinstated` takes back of the withdrawal's consequences, from its round on:
    the forfeits entered for it (reason withdrawal, no moves) are cleared, and the games
    it took off the pairings are paired again where board and players are still free."""
    out: list[ResultCleared | PairingEdited] = []
    player = reinstated.player
    by = reinstated.by or "rules"
    for number in sorted(state.rounds):
        if number < reinstated.from_round:
            continue
        rnd = state.rounds[number]
        pairing = rnd.game_of(player)
        if pairing is not None and pairing.black is not None:
            game_id = GameKey(state.name, number, pairing.board).id
            game = book.games.get(game_id)
            if game is not None and game.result_reason == "withdrawal" and not game.moves:
                why = f"player {player} reinstated: the withdrawal's forfeit is taken back"
                out.append(ResultCleared(game_id, t, by=by, why=why))
            continue
        if pairing is not None:
            continue  # a bye of theirs: nothing was taken from it
        restored = _removed_game(state, book, number, player)
        if restored is not None:
            reason = f"player {player} reinstated; game paired again"
            pairings = (*rnd.pairings, restored)
            out.append(PairingEdited(state.name, number, pairings, reason=reason, by=by))
    return out


def _removed_game(state: SectionState, book: GameBook, number: int, player: int) -> Pairing | None:
    """The player's game of round `number` that an edit took off the pairings, when its
    board and its other player are still free in that round."""
    rnd = state.rounds[number]
    used = {p.board for p in rnd.pairings if p.black is not None}
    paired = {x for p in rnd.pairings for x in p.players()}
    for game in book.removed.values():
        if (game.key.section, game.key.round) != (state.name, number) or game.moves:
            continue
        if game.white is None or game.black is None or game.result is not None:
            continue
        players = (game.white.start, game.black.start)
        if player not in players:
            continue
        other = players[1] if players[0] == player else players[0]
        if game.key.board in used or other in paired:
            return None
        return Pairing(game.key.board, game.white.start, game.black.start)
    return None
