"""The one tournament fold: skipping the games' re-sync when a tournament event does not
change what they are made of gives the same games as re-syncing after every event."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from broadcast.fide.pairing import Pairing
from broadcast.games.book import GameBook, player_ref
from broadcast.games.fold import SyncedTo, fold_tournament, synced
from broadcast.games.game_state import GameState
from broadcast.games.ids import GameKey
from broadcast.tournament.tournament_events import PairingEdited, RoundPaired, TournamentEvent
from broadcast.tournament.tournament_state import TournamentState
from tests.support import acting
from tests.support.paths import ROOT
from tests.support.service_feed import load_games, run_round

GAMES = ROOT / "examples" / "games" / "worldcup2025-sample.pgn"


def test_the_fold_syncs_the_games_exactly_when_they_can_change(tmp_path: Path) -> None:
    service, _ = run_round(tmp_path, load_games(GAMES, 4), seed=7)
    for game in service.book.round_games("Masters", 1):
        if game.result is None:
            acting.set_result(service, game.id, "1/2-1/2", "arbiter:test", "agreement")
    acting.publish_pairings(
        service,
        "Masters",
        3,
        tuple(reversed(service.tournament.section("Masters").rounds[3].pairings)),
        "arbiter",
        "ana",
    )
    fast = slow = (TournamentState.new(service.config), GameBook())
    skipped: list[str] = []
    for entry in service.journal.read():
        event = entry.event
        if isinstance(event, TournamentEvent):
            before = fast[1]
            fast = fold_tournament(*fast, event)
            after = slow[0].apply(event)
            slow = (after, slow[1].synced(after))
            if fast[1] is before:
                skipped.append(type(event).__name__)
        elif type(event).__name__ in ("GameMove", "GameClock", "ResultConfirmed"):
            fast = (fast[0], fast[1].apply(event))  # type: ignore[arg-type]
            slow = (slow[0], slow[1].apply(event))  # type: ignore[arg-type]
        assert fast[0] == slow[0] and fast[1] == slow[1]
    assert fast[1].games
    assert set(skipped) == {"ResultRecorded"}  # results: no re-sync; pairings: always


def _before_round(
    tournament: TournamentState, book: GameBook, section: str, number: int
) -> tuple[TournamentState, GameBook]:
    """The moment as if rounds `number` on were not paired yet (and their games not made)."""
    state = tournament.section(section)
    rounds = {r: v for r, v in state.rounds.items() if r < number}
    earlier = replace(tournament, sections={section: replace(state, rounds=rounds)})
    games = {k: g for k, g in book.games.items() if g.key.round < number}
    return earlier, GameBook(games, book.removed)


def test_many_books_told_a_new_round_get_what_each_would_get_alone(tmp_path: Path) -> None:
    """`SyncedTo`: the public snapshots a delay keeps, each in step with its moment, told
    the next round's pairings, end exactly where syncing each alone ends: books with
    moves and results, one that kept a game of that round aside, one whose moment pairs
    the round already (an edit)."""
    service, _ = run_round(tmp_path, load_games(GAMES, 4), seed=7)
    masters, number = "Masters", 3
    moments = [_before_round(service.tournament, service.book, masters, number)]
    for game in service.book.round_games(masters, 1):
        if game.result is None:
            acting.set_result(service, game.id, "1/2-1/2", "arbiter:test", "agreement")
        moments.append(_before_round(service.tournament, service.book, masters, number))
    pairings = tuple(
        Pairing(p.board, p.black, p.white) if p.black is not None else p
        for p in service.tournament.section(masters).rounds[number].pairings
    )
    told_event = RoundPaired(masters, number, pairings, "test")
    aside = GameKey(masters, number, 1)
    kept = GameState(aside, player_ref(None, 1), player_ref(None, 2))
    tournament, book = moments[-1]
    moments.append((tournament, GameBook(book.games, {**book.removed, aside.id: kept})))
    for tournament, book in moments:
        told = tournament.apply(told_event)
        sync = SyncedTo(told)
        assert sync(book, tournament) == synced(book, tournament, told)
        assert sync(book, tournament) == book.synced(told)
        assert sync(book, tournament).round_games(masters, number)
    # A moment that pairs the round already: the edit goes the long way, to the same end.
    tournament, book = moments[0]
    paired = tournament.apply(told_event)
    paired_book = synced(book, tournament, paired)
    edited = paired.apply(PairingEdited(masters, number, tuple(reversed(pairings))))
    assert SyncedTo(edited)(paired_book, paired) == paired_book.synced(edited)
