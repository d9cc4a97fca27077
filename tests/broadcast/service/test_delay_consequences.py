"""Every public consequence of a hidden result waits for that result (issue 29, F6).

News the broadcast delay lets through early (pairings, withdrawals, play-off games) must
not give away a result the delay still hides: the rules' withdrawal after a second
no-show, the prize list that follows it, the play-off pairing that names the leaders, a
Swiss round paired from results still hidden. Each is checked on the public view (what
every page, feed and the mirror are built from) before and after the delay, and across
a restart. An arbiter who publishes a round early on purpose is told what it reveals."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from broadcast.actions import ConfirmationNeeded, ReleasePairings, act, plan_of
from broadcast.config import load_event
from broadcast.games.ids import GameKey
from broadcast.journal.store import Journal
from broadcast.service.event_service import ActionError, EventService
from broadcast.tournament.final_standings import section_prizes, section_standings
from broadcast.tournament.tournament_state import TournamentState
from clocks.timesource import ManualTime
from tests.support import acting
from tests.support.paths import ROOT

MADRID = ZoneInfo("Europe/Madrid")
ARBITER = "arbiter:ana"
DELAY = 900.0


def at(text: str) -> float:
    return dt.datetime.fromisoformat(text).replace(tzinfo=MADRID).timestamp()


def service_for(
    tmp_path: Path, name: str, start: str, delay: float = DELAY
) -> tuple[EventService, ManualTime]:
    config = load_event(ROOT / "examples" / name)
    time_source = ManualTime(at(start))
    service = EventService(
        config, Journal(tmp_path / "j.sqlite"), time_source=time_source, delay=delay
    )
    service.load()
    return service, time_source


def public(service: EventService) -> TournamentState:
    return service.public_state().tournament


def note_of(tournament: TournamentState, section: str, start: int) -> str:
    rows = section_standings(tournament.section(section), tournament.event.tiebreak_edition)
    return next(r.note for r in rows.rows if r.start == start)


def prize_list(tournament: TournamentState, section: str) -> dict[str, object]:
    prizes = section_prizes(tournament.section(section), tournament.event.tiebreak_edition)
    assert prizes is not None
    return prizes.as_json()


# -- a withdrawal for no-shows ------------------------------------------------------------


def _two_no_shows(service: EventService, time_source: ManualTime) -> float:
    """Player 5 misses rounds 1 and 2 of Pamplona: the rules withdraw them from round 3.
    Returns when the second forfeit was entered."""
    masters = "Masters"
    time_source.set(at("2025-12-22T17:06:00"))
    acting.set_result(service, GameKey(masters, 1, 4).id, "+/-", ARBITER)
    time_source.set(at("2025-12-23T16:10:00"))
    acting.set_result(service, GameKey(masters, 2, 1).id, "+/-", ARBITER, "forfeit")
    assert service.tournament.section(masters).withdrawn == {5: 3}
    return time_source.now()


def test_a_withdrawal_for_no_shows_waits_for_the_forfeit_it_follows_from(
    tmp_path: Path,
) -> None:
    service, time_source = service_for(tmp_path, "pamplona-masters.toml", "2025-12-22T16:00:00")
    masters = "Masters"
    second = _two_no_shows(service, time_source)
    before_prizes = prize_list(public(service), masters)

    time_source.set(second + 10)  # the audit's moment: 10 s after the second forfeit
    shown = public(service).section(masters)
    assert shown.withdrawn == {}
    assert shown.rounds[2].results == {}  # the forfeit itself is hidden...
    assert note_of(public(service), masters, 5) == ""  # ...and so is its consequence
    # eliminated_lose_prizes: the prize list does not change ahead of the results.
    assert prize_list(public(service), masters) == before_prizes

    # A restart within the delay replays the journal into the same public view.
    again = EventService(service.config, service.journal, time_source=time_source, delay=DELAY)
    again.load()
    assert public(again).section(masters).withdrawn == {}

    time_source.set(second + DELAY - 1)
    assert public(service).section(masters).withdrawn == {}
    time_source.set(second + DELAY)  # the forfeit is public, and with it the withdrawal
    shown = public(service).section(masters)
    assert shown.rounds[2].results and shown.withdrawn == {5: 3}
    assert note_of(public(service), masters, 5) == (
        "withdrawn from round 3 (2 no-shows); "
        "results left out: 0 of 7 games played, under half (FIDE withdrawal rule)"
    )  # and with it FIDE's withdrawal rule (no game played), not before
    assert public(again).section(masters).withdrawn == {5: 3}


def test_an_arbiters_withdrawal_between_rounds_is_public_at_once(tmp_path: Path) -> None:
    service, time_source = service_for(tmp_path, "pamplona-masters.toml", "2025-12-22T16:00:00")
    masters = "Masters"
    time_source.set(at("2025-12-22T20:00:00"))
    for board, result in ((1, "1-0"), (2, "0-1"), (3, "1-0"), (4, "1/2-1/2")):
        acting.set_result(service, GameKey(masters, 1, board).id, result, ARBITER)
    time_source.advance(DELAY)  # round 1 is public
    acting.withdraw(service, masters, 7, ARBITER, from_round=2, reason="illness")
    assert public(service).section(masters).withdrawn == {7: 2}


def test_an_arbiters_withdrawal_right_after_a_hidden_result_waits_for_it(
    tmp_path: Path,
) -> None:
    service, time_source = service_for(tmp_path, "pamplona-masters.toml", "2025-12-22T16:00:00")
    masters = "Masters"
    time_source.set(at("2025-12-22T20:00:00"))
    acting.set_result(service, GameKey(masters, 1, 1).id, "1-0", ARBITER)  # 1 beats 8
    time_source.advance(60)
    acting.withdraw(service, masters, 8, ARBITER, from_round=2, reason="left the event")
    assert public(service).section(masters).withdrawn == {}
    time_source.advance(DELAY - 60)
    assert public(service).section(masters).withdrawn == {8: 2}


# -- the play-off -------------------------------------------------------------------------


def _tie_one_and_two(service: EventService, name: str) -> None:
    section = service.tournament.section(name)
    for number in range(1, section.config.rounds + 1):
        for pairing in section.rounds[number].pairings:
            top = {1, 2} & set(pairing.players())
            result = "1/2-1/2"
            if len(top) == 1:
                result = "1-0" if pairing.white in top else "0-1"
            acting.set_result(service, GameKey(name, number, pairing.board).id, result, ARBITER)


def test_a_playoff_pairing_waits_for_the_results_that_make_the_tie(tmp_path: Path) -> None:
    service, time_source = service_for(
        tmp_path, "donostia-2009-round-robin.toml", "2009-07-16T20:00:00", delay=600
    )
    name = "Diputacion Foral"
    _tie_one_and_two(service, name)
    last = time_source.now()
    time_source.advance(5)
    first = acting.pair_playoff_game(service, name, 1, 2, ARBITER)
    game = acting.playoff_game(service, name, 1)
    assert public(service).section(name).playoff == {}
    assert game not in service.public_state().book.games
    time_source.set(last + 600)  # every result is public: so is the play-off game
    assert set(public(service).section(name).playoff) == {1}
    assert game in service.public_state().book.games
    assert first.seq > 0


# -- a Swiss round paired inside the delay -----------------------------------------------


def _sestao_round_one(service: EventService, time_source: ManualTime) -> tuple[str, float]:
    open_ = "Open"
    time_source.set(at("2025-09-12T16:00:00"))
    acting.publish_pairings(service, open_, 1, acting.dutch_pairings(service, open_, 1))
    assert 1 in public(service).section(open_).rounds  # round 1 follows from nothing
    time_source.set(at("2025-09-12T20:00:00"))
    for pairing in service.tournament.section(open_).rounds[1].pairings:
        if pairing.black is not None:
            result = "1-0" if pairing.board % 2 else "0-1"
            acting.set_result(service, GameKey(open_, 1, pairing.board).id, result, ARBITER)
    return open_, time_source.now()


def test_a_swiss_round_paired_inside_the_delay_waits_for_the_results_before_it(
    tmp_path: Path,
) -> None:
    service, time_source = service_for(tmp_path, "sestao-2025-swiss.toml", "2025-09-10T12:00:00")
    open_, last = _sestao_round_one(service, time_source)
    time_source.advance(120)
    pairings = acting.dutch_pairings(service, open_, 2)
    done = acting.publish_pairings(service, open_, 2, pairings, "dutch")
    # The desk was told when the public sees them, and why.
    assert any("public" in note and "delay" in note for note in done.plan.notes)
    assert 2 not in public(service).section(open_).rounds
    # A board moved meanwhile waits with its round.
    games = [p for p in pairings if p.black is not None]
    acting.assign_board(service, open_, 2, games[0].white, games[1].board)
    assert 2 not in public(service).section(open_).rounds
    time_source.set(last + DELAY)
    shown = public(service).section(open_)
    assert shown.rounds[1].results == service.tournament.section(open_).rounds[1].results
    assert shown.rounds[2].pairings == service.tournament.section(open_).rounds[2].pairings


def test_releasing_a_round_early_says_what_it_reveals_and_shows_it_at_once(
    tmp_path: Path,
) -> None:
    service, time_source = service_for(tmp_path, "sestao-2025-swiss.toml", "2025-09-10T12:00:00")
    open_, _ = _sestao_round_one(service, time_source)
    time_source.advance(60)
    acting.publish_pairings(service, open_, 2, acting.dutch_pairings(service, open_, 2), "dutch")
    games = sum(1 for p in service.tournament.section(open_).rounds[1].pairings if p.black)

    release = ReleasePairings(open_, 2)
    plan = plan_of(service, release, ARBITER)
    assert plan.asks
    reveal = " ".join(plan.notes)
    assert f"{games} results" in reveal and "round 1 board 1" in reveal
    with pytest.raises(ConfirmationNeeded):
        act(service, release, ARBITER)
    act(service, release, ARBITER, confirm=plan.token)
    shown = public(service).section(open_)
    assert shown.rounds[2].pairings == service.tournament.section(open_).rounds[2].pairings
    assert shown.rounds[1].results == {}  # the results themselves stay hidden
    # Released is released: after a restart too, and it cannot be taken back.
    again = EventService(service.config, service.journal, time_source=time_source, delay=DELAY)
    again.load()
    assert 2 in public(again).section(open_).rounds
    with pytest.raises(ActionError, match="cannot be taken back"):
        acting.undo(service, service.action_log.recent(1)[0].seq)
    with pytest.raises(ActionError, match="already public"):
        plan_of(service, release, ARBITER)


def test_a_round_robins_rounds_follow_from_nothing(tmp_path: Path) -> None:
    service, time_source = service_for(tmp_path, "pamplona-masters.toml", "2025-12-22T16:00:00")
    masters = "Masters"
    time_source.set(at("2025-12-22T20:00:00"))
    acting.set_result(service, GameKey(masters, 1, 1).id, "1-0", ARBITER)
    # A board moved in round 2 of a round robin says nothing of round 1's results.
    pairing = service.tournament.section(masters).rounds[2].pairings[0]
    acting.assign_board(service, masters, 2, pairing.white, 4)
    moved = public(service).section(masters).rounds[2].game_of(pairing.white)
    assert moved is not None and moved.board == 4


# -- under random play: the public never shows a withdrawal without its no-shows ----------

_STEP = st.tuples(
    st.integers(1, 3),  # round
    st.integers(1, 4),  # board
    st.sampled_from(["+/-", "-/+", "1-0", "0-1", "1/2-1/2"]),
    st.floats(0, 1200),  # event seconds before it
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_STEP, min_size=1, max_size=12))
def test_the_public_never_shows_a_withdrawal_ahead_of_its_no_shows(
    tmp_path_factory: pytest.TempPathFactory, steps: list[tuple[int, int, str, float]]
) -> None:
    """Forfeits, results and corrections in any order and at any pace (the rules withdraw
    at two no-shows, and reinstate when a forfeit is corrected): at every moment, a
    withdrawal by the rules that the public sees comes with the two forfeits it follows
    from, also public."""
    folder = tmp_path_factory.mktemp("pamplona")
    service, time_source = service_for(folder, "pamplona-masters.toml", "2025-12-22T20:00:00")
    masters = "Masters"
    for round_number, board, result, gap in steps:
        time_source.advance(gap)
        game = GameKey(masters, round_number, board).id
        if service.book.get(game).result != result:
            reason = "forfeit" if "/" in result and "1/2" not in result else "resignation"
            acting.set_result(service, game, result, ARBITER, reason)
        for _ in range(3):  # now, and as the delay passes
            shown = public(service).section(masters)
            for player, by in shown.withdrawn_by.items():
                if by == "rules":
                    assert len(shown.no_shows.get(player, ())) >= 2, (player, shown.no_shows)
            time_source.advance(300)


def test_the_public_does_not_see_a_held_playoff_as_the_live_round(tmp_path: Path) -> None:
    service, time_source = service_for(
        tmp_path, "donostia-2009-round-robin.toml", "2009-07-16T20:00:00", delay=600
    )
    name = "Diputacion Foral"
    _tie_one_and_two(service, name)
    last = time_source.now()
    time_source.advance(5)
    acting.pair_playoff_game(service, name, 1, 2, ARBITER)
    playoff_round = service.tournament.section(name).playoff_round(1)
    assert service.live_rounds()[name] == playoff_round  # the hall and the desk
    assert service.public_view.live_rounds()[name] == 9  # the public: the last round
    time_source.set(last + 600)
    assert service.public_view.live_rounds()[name] == playoff_round
