"""The one copy of "apply a tournament event, then the games its pairings make": used by
the service's fold (`EventState`), the one fold the arbiter rules read too. Pure."""

from __future__ import annotations

from broadcast.games.book import GameBook
from broadcast.tournament.events import TournamentEvent
from broadcast.tournament.state import TournamentState


def fold_tournament(
    tournament: TournamentState, book: GameBook, event: TournamentEvent
) -> tuple[TournamentState, GameBook]:
    """A tournament event, and the games its pairings make (the one copy of this step).
    The games are synced again only when what they are made of changed (pairings,
    players, play-off games): a result does not change them, and syncing every game of
    the event for each result made the last rounds' replay slow."""
    after = tournament.apply(event)
    if same_games(tournament, after):
        return after, book
    return after, book.synced(after)


def same_games(before: TournamentState, after: TournamentState) -> bool:
    """Do the two states pair the same games with the same players (what `synced` reads)?"""
    if before.sections.keys() != after.sections.keys():
        return False
    for name, new in after.sections.items():
        old = before.sections[name]
        if new is old:
            continue
        if new.players is not old.players or new.rounds.keys() != old.rounds.keys():
            return False
        if any(new.rounds[r].pairings is not old.rounds[r].pairings for r in new.rounds):
            return False
        if new.playoff is not old.playoff and [
            (g.number, g.white, g.black, g.board) for g in new.playoff.values()
        ] != [(g.number, g.white, g.black, g.board) for g in old.playoff.values()]:
            return False
    return True


__all__ = ["fold_tournament", "same_games"]
