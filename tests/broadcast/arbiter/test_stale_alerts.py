"""Alerts and notes whose condition has passed close (audit D6).

Sestao art. 6: an absence disqualifies "unless the player requests to continue in writing
before the pairing for the next round". Once that round is paired without the request,
the `absence-disqualifies` alert no longer offers a way back: it closes, saying the player
is disqualified (and an undone pairing opens it again). Donostia art. 10: after a
play-off league, only the players still in it are "play-off for 1st pending"."""

from __future__ import annotations

from pathlib import Path

from broadcast.arbiter.alerts import AlertResolved
from broadcast.fide.pairing import Pairing
from broadcast.games.ids import GameKey
from broadcast.service.event_service import EventService
from broadcast.tournament.playoff import OUT, PENDING, WON, playoff_note, playoff_status
from tests.broadcast.tournament.test_absence_continuation import OPEN, _round_one_played
from tests.broadcast.tournament.test_playoff import RULES, games
from tests.broadcast.tournament.test_playoff_leagues import NAME, _tie_three
from tests.broadcast.tournament.test_regulations_applied import (
    ARBITER,
    at,
    service_for,
    standings_of,
)
from tests.rehearsals.test_regulations_everywhere import _sestao_round
from tests.support import acting


def _paired(service: EventService, number: int) -> acting.Done:
    """Round `number` paired by hand (as `_sestao_round`), the action's record kept."""
    state = service.tournament.section(OPEN)
    players = sorted(set(state.players) - state.absent_for(number))
    alone = players.pop() if len(players) % 2 else None
    pairs = [
        Pairing(i, w, b)
        for i, (w, b) in enumerate(zip(players[::2], players[1::2], strict=True), 1)
    ]
    if alone is not None:
        pairs.append(Pairing(0, alone, None))
    return acting.publish_pairings(service, OPEN, number, pairs, "arbiter", ARBITER)


def _absence_alerts(service: EventService, name: str) -> list[str]:
    return [
        a.id for a in service.alerts() if a.kind == "absence-disqualifies" and name in a.players
    ]


def test_the_absence_alert_closes_once_the_next_round_is_paired(tmp_path: Path) -> None:
    service, time, _ = _round_one_played(tmp_path)
    round2 = _sestao_round(service, 2)
    time.set(at("2025-09-13T10:40:00"))
    absent = round2[0].white
    name = service.tournament.section(OPEN).players[absent].name
    acting.set_result(service, GameKey(OPEN, 2, 1).id, "-/+", ARBITER, "forfeit")
    [alert] = _absence_alerts(service, name)
    for board in range(2, len(round2) + 1):
        if round2[board - 1].black is not None:
            acting.set_result(service, GameKey(OPEN, 2, board).id, "1-0", ARBITER, "resignation")

    paired = _paired(service, 3)
    round3 = service.tournament.section(OPEN).rounds[3].pairings
    assert absent not in {p for pair in round3 for p in pair.players()}
    assert _absence_alerts(service, name) == []  # no "unless they ask ... before round 3"
    [closing] = [
        e.event
        for e in service.journal.read()
        if isinstance(e.event, AlertResolved) and e.event.alert == alert
    ]
    assert closing.why == (
        f"{name} was absent in round 2 and round 3 was paired without a written request to "
        "continue: disqualified (no longer paired)"
    )
    assert closing.phrase is not None

    # The pairing undone, the request is possible again: so is the alert.
    acting.undo(service, paired)
    assert _absence_alerts(service, name) == [alert]


def test_a_forfeit_entered_after_the_next_round_is_paired_offers_no_way_back(
    tmp_path: Path,
) -> None:
    service, time, _ = _round_one_played(tmp_path)
    round2 = _sestao_round(service, 2)
    time.set(at("2025-09-13T16:00:00"))
    for board in range(2, len(round2) + 1):
        if round2[board - 1].black is not None:
            acting.set_result(service, GameKey(OPEN, 2, board).id, "1-0", ARBITER, "resignation")
    acting.set_result(service, GameKey(OPEN, 2, 1).id, "1-0", ARBITER, "resignation")
    _sestao_round(service, 3)
    # Round 2 board 1 corrected to a forfeit once round 3 is paired.
    absent = round2[0].white
    name = service.tournament.section(OPEN).players[absent].name
    acting.set_result(service, GameKey(OPEN, 2, 1).id, "-/+", ARBITER, "forfeit")
    [alert] = [a for a in service.alerts() if a.kind == "absence-disqualifies"]
    assert name in alert.players and "unless" not in alert.message
    assert "round 3 was paired without a written request to continue" in alert.message


def test_only_players_still_in_the_playoff_are_pending() -> None:
    # A league among 1, 2, 3: 1-2 1-0, 2-3 0-1, 3-1 draw: 1 and 3 lead, 2 is out.
    league = games((1, 2, "1-0"), (2, 3, "0-1"), (3, 1, "1/2-1/2"))
    status = playoff_status(RULES, [1, 2, 3], league)
    assert status.remaining == (1, 3) and status.winner is None
    assert [playoff_note(status, p) for p in (1, 2, 3, 4)] == [PENDING, OUT, PENDING, ""]
    decided = playoff_status(RULES, [1, 2, 3], [*league, *games((1, 3, "0-1"))])
    assert [playoff_note(decided, p) for p in (1, 2, 3)] == ["", "", WON]


def test_the_standings_note_a_player_a_league_left_out(tmp_path: Path) -> None:
    service, _ = service_for(tmp_path, "donostia-2009-round-robin.toml", "2009-07-16T20:00:00")
    _tie_three(service)
    for number, (white, black, result) in enumerate(
        ((1, 2, "1-0"), (2, 3, "0-1"), (3, 1, "1/2-1/2")), 1
    ):
        acting.pair_playoff_game(service, NAME, white, black, ARBITER)
        acting.set_result(service, acting.playoff_game(service, NAME, number), result, ARBITER)
    notes = {r.start: r.note for r in standings_of(service.tournament, NAME).rows if r.start <= 3}
    assert notes == {1: PENDING, 2: OUT, 3: PENDING}
