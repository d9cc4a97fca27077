"""The one tournament fold: skipping the games' re-sync when a tournament event does not
change what they are made of gives the same games as re-syncing after every event."""

from __future__ import annotations

from pathlib import Path

import acting
from service_feed import load_games, run_round

from broadcast.games.book import GameBook
from broadcast.games.fold import fold_tournament
from broadcast.tournament.events import TournamentEvent
from broadcast.tournament.state import TournamentState

GAMES = Path(__file__).resolve().parent.parent / "examples" / "games" / "worldcup2025-sample.pgn"


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
