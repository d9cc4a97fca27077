"""The three regulations applied at runtime, each played through the service: imports,
desk actions and board events, asserting standings, pairing eligibility, alerts and
exports (Sestao: byes and no-shows; Pamplona: elimination; Donostia: play-off)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from broadcast import regulation_actions as acts
from broadcast.config import load_event
from broadcast.config.model import EventConfig
from broadcast.export.trf import section_trf
from broadcast.games.ids import GameKey
from broadcast.journal import Journal
from broadcast.service import ActionError, EventService
from broadcast.tournament.crosstable import Bye, Game, Player, ResultCode, build_crosstable
from broadcast.tournament.pairing import Pairing
from broadcast.tournament.trf import write_trf
from clocks.timesource import ManualTime

ROOT = Path(__file__).resolve().parent.parent
MADRID = ZoneInfo("Europe/Madrid")
ARBITER = "arbiter:ana"


def at(text: str) -> float:
    """Epoch seconds of a Madrid wall-clock time."""
    return dt.datetime.fromisoformat(text).replace(tzinfo=MADRID).timestamp()


def service_for(tmp_path: Path, name: str, start: str) -> tuple[EventService, ManualTime]:
    config = load_event(ROOT / "examples" / name)
    time = ManualTime(at(start))
    service = EventService(config, Journal(tmp_path / "j.sqlite"), time=time, delay=0)
    service.load()
    return service, time


def alert_kinds(service: EventService) -> list[str]:
    return [a.kind for a in service.alerts()]


def row_of(service: EventService, section: str, start: int) -> dict[str, object]:
    rows = acts.standings(service.tournament, section).as_json()
    return next(r for r in rows if r["start"] == start)


# -- Sestao (Swiss, Vega) ----------------------------------------------------------------


def vega_round1(config: EventConfig) -> str:
    """Vega's TRF after pairing round 1: players 1-22 paired in order, 23 asked for a
    half-point bye (H), 24 not paired (Z)."""
    section = config.sections[0]
    players = [Player(p.number, p.name) for p in section.players]
    games = [Game(1, w, w + 1, None) for w in range(1, 22, 2)]
    byes = [Bye(1, 23, ResultCode.HALF_BYE), Bye(1, 24, ResultCode.ZERO_BYE)]
    return write_trf(build_crosstable(players, 9, games, byes))


def test_sestao_byes_no_shows_and_the_draw_rule(tmp_path: Path) -> None:
    service, time = service_for(tmp_path, "sestao-2025-swiss.toml", "2025-09-10T12:00:00")
    open_ = "Open"

    # Art. 5: byes through the policy. Up to 3, before the previous round's start.
    for rnd in (3, 4, 5):
        acts.request_bye(service, open_, rnd, 5, ARBITER)
    with pytest.raises(ActionError, match="already has 3 of the 3"):
        acts.request_bye(service, open_, 6, 5, ARBITER)
    with pytest.raises(ActionError, match="no byes in round 8"):
        acts.request_bye(service, open_, 8, 6, ARBITER)
    with pytest.raises(ActionError, match="no byes in round 9"):
        acts.request_bye(service, open_, 9, 6, ARBITER)
    assert "bye-refused" in alert_kinds(service)
    # The chief arbiter may still decide otherwise: journaled and flagged.
    granted = acts.request_bye(service, open_, 6, 5, ARBITER, override=True)
    assert granted.override.startswith("the player already has 3")
    assert "arbiter-override" in alert_kinds(service)
    assert service.tournament.section(open_).byes_of(5) == {3, 4, 5, 6}
    # A cancellation before the deadline frees the round.
    acts.cancel_bye(service, open_, 6, 5, ARBITER)
    assert 6 not in service.tournament.section(open_).byes_of(5)

    # Round 1 as Vega paired it: the H bye scores half a point.
    pairings = service.imported_pairings(open_, 1, vega_round1(service.config))
    service.publish_pairings(open_, 1, pairings, "import", ARBITER)
    assert service.tournament.section(open_).rounds[1].bye_codes[23] == "H"
    # ...and counts towards the maximum of 3.
    assert 1 in service.tournament.section(open_).byes_of(23)

    # Round 1 is played. A late bye request (round 2 closes at round 1's start) is refused.
    time.set(at("2025-09-12T17:00:00"))
    with pytest.raises(ActionError, match="too late"):
        acts.request_bye(service, open_, 2, 7, ARBITER)

    # An early draw entered at the desk is checked like one from the board.
    early = acts.set_result(service, GameKey(open_, 1, 1).id, "1/2-1/2", ARBITER)
    assert [a.kind for a in early] == ["early-draw"]
    # A draw the arbiter gives for another reason (a claim) is not an agreement.
    assert acts.set_result(service, GameKey(open_, 1, 2).id, "1/2-1/2", ARBITER, "arbiter") == []
    with pytest.raises(ActionError, match="needs the reason forfeit"):
        acts.set_result(service, GameKey(open_, 1, 3).id, "+/-", ARBITER, "arbiter")

    # Art. 6: absent at the start of round 1 (Black of board 3 is player 6): excluded.
    acts.set_result(service, GameKey(open_, 1, 3).id, "+/-", ARBITER)
    section = service.tournament.section(open_)
    assert section.no_shows[6] == (1,) and section.withdrawn[6] == 2
    assert "withdraw-from-pairing" in alert_kinds(service)
    assert 6 not in {p for pair in service.dutch_pairings(open_, 2) for p in pair.players()}

    # The rest of round 1: board results from the board's own signal and the desk.
    time.advance(3 * 3600)
    for board in range(4, 12):
        acts.set_result(service, GameKey(open_, 1, board).id, "1-0", ARBITER, "resignation")
    rows = acts.standings(service.tournament, open_).as_json()
    assert next(r for r in rows if r["start"] == 23)["points"] == 0.5
    assert (
        next(r for r in rows if r["start"] == 6)["note"]
        == "withdrawn from round 2 (absent in round 1)"
    )

    # Round 2, paired by hand; a single absence disqualifies unless the player asks to go on.
    players = sorted(set(section.players) - {5, 6})
    pairs = [
        Pairing(i, w, b)
        for i, (w, b) in enumerate(zip(players[::2], players[1::2], strict=True), 1)
    ]
    with pytest.raises(ActionError, match="cannot be paired"):
        service.publish_pairings(open_, 2, [Pairing(1, 6, 1)], "arbiter", ARBITER)
    service.publish_pairings(open_, 2, pairs, "arbiter", ARBITER)
    time.set(at("2025-09-13T10:00:00"))
    # Round 3's byes closed at round 2's start: cancelling one is too late now.
    with pytest.raises(ActionError, match="too late to cancel"):
        acts.cancel_bye(service, open_, 3, 5, ARBITER)
    absent_white = pairs[0].white
    acts.set_result(service, GameKey(open_, 2, 1).id, "-/+", ARBITER, "forfeit")
    assert "absence-disqualifies" in alert_kinds(service)
    assert absent_white in service.tournament.section(open_).absent_for(3)
    acts.continue_after_absence(service, open_, 2, absent_white, ARBITER)
    assert absent_white not in service.tournament.section(open_).absent_for(3)
    # Player 2 also forfeits in round 2 and does not ask in time.
    other = pairs[1]
    acts.set_result(service, GameKey(open_, 2, 2).id, "+/-", ARBITER, "forfeit")
    for board in range(3, len(pairs) + 1):
        acts.set_result(service, GameKey(open_, 2, board).id, "0-1", ARBITER, "resignation")
    round3 = service.dutch_pairings(open_, 3)
    assert other.black not in {p for pair in round3 for p in pair.players()}
    service.publish_pairings(open_, 3, round3, "dutch", ARBITER)
    with pytest.raises(ActionError, match="already paired"):
        acts.continue_after_absence(service, open_, 2, other.black, ARBITER)
    assert row_of(service, open_, other.black)["note"] == "disqualified: absent in round 2"

    # Exports: the TRF carries the H bye, the forfeits and who is out.
    trf = section_trf(service.tournament, service.config, open_)
    line23 = next(line for line in trf.splitlines() if line.startswith("001   23"))
    assert line23[91:99] == "0000 - H"
    line6 = next(line for line in trf.splitlines() if line.startswith("001    6"))
    assert line6[91:99].endswith("-")
    assert "###    6 withdrawn from round 2 (absent in round 1)" in trf.splitlines()

    # A restart replays the journal into the same state and raises nothing twice.
    again = EventService(service.config, service.journal, time=time, delay=0)
    again.load()
    assert again.tournament.section(open_).withdrawn == {6: 2}
    assert len(again.alerts()) == len(service.rules.open_alerts())
