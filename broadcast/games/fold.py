"""Games and tournament in step, both ways. Pure.

Down: the one copy of "apply a tournament event, then the games its pairings make", used
by the service's fold (`EventState`), the one fold the arbiter rules read too. Up: a game
result that stands is also the tournament's result (`with_tournament_results`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from broadcast.fide.results import Result
from broadcast.games.book import GameBook
from broadcast.games.game_events import ResultCleared, ResultConfirmed
from broadcast.tournament.tournament_events import ResultRecorded, ResultRemoved, TournamentEvent
from broadcast.tournament.tournament_state import TournamentState


def fold_tournament(
    tournament: TournamentState, book: GameBook, event: TournamentEvent
) -> tuple[TournamentState, GameBook]:
    """A tournament event, and the games its pairings make (the one copy of this step).
    The games are synced again only when what they are made of changed (pairings,
    players, play-off games): a result does not change them, and syncing every game of
    the event for each result made the last rounds' replay slow."""
    after = tournament.apply(event)
    return after, synced(book, tournament, after)


def synced(book: GameBook, before: TournamentState, after: TournamentState) -> GameBook:
    """`book` (in step with `before`) in step with `after`: the rounds whose games changed
    synced again, the others left as they are."""
    rounds = changed_rounds(before, after)
    if rounds is None:
        return book.synced(after)
    return book.synced(after, rounds) if rounds else book


def changed_rounds(
    before: TournamentState, after: TournamentState
) -> frozenset[tuple[str, int]] | None:
    """The (section, round) whose games the two states pair differently (empty: none);
    None when a change reaches every round (the players, the play-off, the sections)."""
    if before.sections.keys() != after.sections.keys():
        return None
    out: set[tuple[str, int]] = set()
    for name, new in after.sections.items():
        old = before.sections[name]
        if new is old:
            continue
        if new.players is not old.players:
            return None
        if new.playoff is not old.playoff and [
            (g.number, g.white, g.black, g.board) for g in new.playoff.values()
        ] != [(g.number, g.white, g.black, g.board) for g in old.playoff.values()]:
            return None
        for number in new.rounds.keys() | old.rounds.keys():
            was, now = old.rounds.get(number), new.rounds.get(number)
            if was is None or now is None or was.pairings is not now.pairings:
                out.add((name, number))
    return frozenset(out)


class SyncedTo:
    """`synced` for many books, each in step with its own tournament, all brought in step
    with one `after` (the public snapshots a broadcast delay keeps, told a pairing): a
    round new to a book gets the same fresh games in each, built once, instead of each
    book placing every game again (5,000 snapshots: 8 s, now a fraction of a second)."""

    def __init__(self, after: TournamentState) -> None:
        self.after = after
        self._fresh: dict[frozenset[tuple[str, int]], GameBook] = {}

    def __call__(self, book: GameBook, before: TournamentState) -> GameBook:
        rounds = changed_rounds(before, self.after)
        if rounds and all(
            r not in before.sections[s].rounds for s, r in rounds if s in before.sections
        ):
            fresh = self._fresh.get(rounds)
            if fresh is None:
                fresh = self._fresh[rounds] = GameBook().synced(self.after, rounds)
            # A book in step with `before` has no game of a round `before` does not pair;
            # one kept aside under the same id is placed back by `synced` below.
            if fresh.games.keys().isdisjoint(book.games) and fresh.games.keys().isdisjoint(
                book.removed
            ):
                return GameBook({**book.games, **fresh.games}, book.removed)
        return synced(book, before, self.after)


def same_games(before: TournamentState, after: TournamentState) -> bool:
    """Do the two states pair the same games with the same players (what `synced` reads)?"""
    return changed_rounds(before, after) == frozenset()


E = TypeVar("E")


def with_tournament_results(
    book: GameBook, events: Sequence[E]
) -> list[E | ResultRecorded | ResultRemoved]:
    """`events`, each game result that stands followed by the tournament's result (by
    White's number), each result cleared by the tournament's result removed. The games
    are looked up in `book` (the state before the events)."""
    out: list[E | ResultRecorded | ResultRemoved] = []
    for event in events:
        out.append(event)
        if isinstance(event, ResultCleared):
            game = book.games.get(event.game)
            if game is not None and game.white is not None:
                out.append(ResultRemoved(game.key.section, game.key.round, game.white.start))
        if isinstance(event, ResultConfirmed):
            game = book.games.get(event.game)
            if game is not None and game.white is not None:
                result = Result(event.result)
                under_one = game.under_one_move and not result.is_forfeit
                out.append(
                    ResultRecorded(
                        game.key.section,
                        game.key.round,
                        game.white.start,
                        result.tournament_code,
                        under_one,
                        reason=event.reason,
                    )
                )
    return out


__all__ = [
    "SyncedTo",
    "changed_rounds",
    "fold_tournament",
    "same_games",
    "synced",
    "with_tournament_results",
]
