"""Prizes withheld (Pamplona art. 8 and 9), forfeit wins as victories and the tax
retention (art. 6), played through the service and read back after a restart."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest
from aiohttp.test_utils import TestClient, TestServer
from hypothesis import given, settings
from hypothesis import strategies as st

from broadcast.config import load_event
from broadcast.config.errors import ConfigError
from broadcast.config.model import PrizeCategory, PrizePool, PrizeRules
from broadcast.fide.crosstable import Game, Player, build_crosstable
from broadcast.fide.standings import compute_standings
from broadcast.games.ids import GameKey
from broadcast.service.event_service import ActionError, EventService
from broadcast.tournament.prizes import PrizeList, compute_prizes
from clocks.timesource import ManualTime
from tests.broadcast.tournament.test_regulations_applied import ARBITER, at, prizes_of, service_for
from tests.support import acting
from tests.support.paths import ROOT
from tests.support.web_app import CREDENTIALS
from tests.web.test_regulations_pages import BASIC, _desk_confirmed, _login
from web.app import build_app

MASTERS = "Masters"


def keeping(tmp_path: Path, start: str = "2025-12-22T16:00:00") -> tuple[EventService, ManualTime]:
    """The Pamplona service with `[section.withdrawal] under_half = "keep"`. The tests that
    play `play_pamplona` are about art. 8 + 9 (an eliminated player's prize passes on);
    under FIDE's withdrawal rule, the default, 5 (2 of 7 games played) would have every
    result left out, which tests/broadcast/tournament/test_withdrawal_rule.py covers."""
    service, time_source = service_for(tmp_path, "pamplona-masters.toml", start)
    masters = service.config.sections[0]
    rules = dataclasses.replace(masters.withdrawal, under_half="keep")
    config = dataclasses.replace(
        service.config, sections=(dataclasses.replace(masters, withdrawal=rules),)
    )
    kept = EventService(config, service.journal, time_source=time_source, delay=0)
    kept.load()
    return kept, time_source


def play_pamplona(service: EventService, time_source: ManualTime) -> None:
    """Player 5 wins rounds 1 and 2, misses rounds 3 and 4 (eliminated: art. 8) and
    forfeits the rest; every other game is drawn."""
    for number in range(1, 8):
        time_source.set(at(f"2025-12-{21 + number + (number >= 4)}T21:00:00"))
        section = service.tournament.section(MASTERS)
        for pairing in section.rounds[number].pairings:
            game = service.book.get(GameKey(MASTERS, number, pairing.board).id)
            if game.result is not None:
                continue
            five_white = pairing.white == 5
            if 5 in pairing.players() and number <= 2:
                acting.set_result(
                    service, game.id, "1-0" if five_white else "0-1", ARBITER, "resignation"
                )
            elif 5 in pairing.players():
                acting.set_result(
                    service, game.id, "-/+" if five_white else "+/-", ARBITER, "forfeit"
                )
            else:
                acting.set_result(service, game.id, "1/2-1/2", ARBITER, "agreement")


def lines(prizes: PrizeList | None) -> dict[int, tuple[float, float, float]]:
    assert prizes is not None
    return {p.start: (p.place, p.pool, p.net) for p in prizes.lines}


def test_an_eliminated_player_loses_the_prize_and_it_passes_on(tmp_path: Path) -> None:
    service, time_source = keeping(tmp_path)
    play_pamplona(service, time_source)
    state = service.tournament.section(MASTERS)
    assert state.withdrawn[5] == 5 and state.finished
    prizes = prizes_of(service.tournament, MASTERS)
    assert prizes is not None and not prizes.provisional
    # 5 won two games (the only wins over the board) yet gets nothing (art. 8 + 9)...
    assert 5 not in lines(prizes)
    assert [(w.start, w.reason) for w in prizes.withheld] == [
        (5, "eliminated by the no-show rules")
    ]
    # ...and the pool goes to the five forfeit wins of 5's opponents in rounds 3-7
    # (without the rule 5 would have 2 of 7 wins: 1000 EUR).
    pools = {start: pool for start, (_, pool, _) in lines(prizes).items() if pool}
    assert len(pools) == 5 and all(p == 700.0 for p in pools.values())
    assert sum(place for place, _, _ in lines(prizes).values()) == pytest.approx(3500.0)

    # The arbiter gives the prize back (a justification proved): 5 shares the pool again.
    acting.restore_prize(service, MASTERS, 5, ARBITER, "medical certificate for rounds 3-4")
    back = prizes_of(service.tournament, MASTERS)
    assert back is not None and not back.withheld
    assert lines(back)[5][1] == pytest.approx(1000.0)

    # ...and withholds another player's (art. 9): it passes to the next eligible player.
    first = back.lines[0]
    with pytest.raises(ActionError, match="give the reason"):
        acting.withhold_prize(service, MASTERS, first.start, ARBITER, "  ")
    acting.withhold_prize(service, MASTERS, first.start, ARBITER, "art. 9: round 6 not justified")
    with pytest.raises(ActionError, match="already withheld"):
        acting.withhold_prize(service, MASTERS, first.start, ARBITER, "again")
    after = prizes_of(service.tournament, MASTERS)
    assert after is not None and first.start not in lines(after)
    assert [w.reason for w in after.withheld] == ["art. 9: round 6 not justified"]
    assert sum(p.place for p in after.lines) == pytest.approx(3500.0)

    # A restart folds the journal to the same list.
    again = EventService(service.config, service.journal, time_source=time_source, delay=0)
    again.load()
    assert prizes_of(again.tournament, MASTERS) == after


def test_a_withheld_first_prize_goes_to_the_second(tmp_path: Path) -> None:
    """Places pass down the list: the next eligible player takes the withheld place."""
    service, _ = service_for(tmp_path, "pamplona-masters.toml", "2025-12-22T16:00:00")
    for number in range(1, 8):
        section = service.tournament.section(MASTERS)
        for pairing in section.rounds[number].pairings:
            game = service.book.get(GameKey(MASTERS, number, pairing.board).id)
            # The lower number wins every game: 1 > 2 > 3 ... with no ties.
            lower_white = pairing.white < (pairing.black or 0)
            result = "1-0" if lower_white else "0-1"
            acting.set_result(service, game.id, result, ARBITER, "resignation")
    before = lines(prizes_of(service.tournament, MASTERS))
    assert [before[s][0] for s in (1, 2, 3)] == [2000.0, 1000.0, 500.0]
    acting.withhold_prize(service, MASTERS, 1, ARBITER, "art. 9")
    after = lines(prizes_of(service.tournament, MASTERS))
    assert 1 not in after
    assert [after[s][0] for s in (2, 3, 4)] == [2000.0, 1000.0, 500.0]
    # 28 wins in all, 1's seven are out: 21 share 3500 (2 has 6 of them: 1000).
    assert after[2][1] == pytest.approx(1000.0)
    # Retention (art. 6): 2 is Spanish (15%), 3 Nigerian (25%); 8 (ESP) under 500 pays none.
    p2 = 2000 + 1000
    assert after[2][2] == pytest.approx(p2 * 0.85)
    p3 = 1000 + 3500 * 5 / 21
    assert after[3][2] == pytest.approx(round(p3, 2) - round(p3 * 0.25, 2), abs=0.011)


def test_a_prize_not_awarded_moves_nobody_up(tmp_path: Path) -> None:
    """Sestao art. 14's reading (withheld = "not-awarded"): the withheld prize is paid to
    nobody; the other players keep what they won, across a restart."""
    service, time_source = service_for(tmp_path, "pamplona-masters.toml", "2025-12-22T16:00:00")
    masters = service.config.sections[0]
    assert masters.prizes is not None and masters.prizes.withheld == "pass-on"
    rules = dataclasses.replace(masters.prizes, withheld="not-awarded")
    config = dataclasses.replace(
        service.config, sections=(dataclasses.replace(masters, prizes=rules),)
    )
    service = EventService(config, service.journal, time_source=time_source, delay=0)
    service.load()
    for number in range(1, 8):
        for pairing in service.tournament.section(MASTERS).rounds[number].pairings:
            game = service.book.get(GameKey(MASTERS, number, pairing.board).id)
            result = "1-0" if pairing.white < (pairing.black or 0) else "0-1"
            acting.set_result(service, game.id, result, ARBITER, "resignation")
    before = lines(prizes_of(service.tournament, MASTERS))
    acting.withhold_prize(service, MASTERS, 1, ARBITER, "absent from the ceremony")
    again = EventService(config, service.journal, time_source=time_source, delay=0)
    again.load()
    prizes = prizes_of(again.tournament, MASTERS)
    after = lines(prizes)
    assert 1 not in after
    assert {s: v for s, v in before.items() if s != 1} == after
    assert prizes is not None
    [withheld] = prizes.withheld
    gross = 2000.0 + 3500 * 7 / 28
    assert (withheld.start, withheld.reason) == (1, "absent from the ceremony")
    assert withheld.amount == pytest.approx(gross)
    assert prizes.as_json()["withheld"] == [
        {"start": 1, "name": withheld.name, "reason": withheld.reason, "not_paid": withheld.amount}
    ]


def test_forfeit_wins_out_of_the_pool_when_the_config_says_so(tmp_path: Path) -> None:
    service, time_source = keeping(tmp_path)
    masters = service.config.sections[0]
    assert masters.prizes is not None
    rules = dataclasses.replace(masters.prizes, forfeit_wins=False, eliminated_lose_prizes=False)
    config = dataclasses.replace(
        service.config, sections=(dataclasses.replace(masters, prizes=rules),)
    )
    service = EventService(config, service.journal, time_source=time_source, delay=0)
    service.load()
    play_pamplona(service, time_source)
    pools = {s: pool for s, (_, pool, _) in lines(prizes_of(service.tournament, MASTERS)).items()}
    # Only 5's two wins over the board count: 5 takes the whole pool.
    assert pools[5] == pytest.approx(3500.0)
    assert sum(pools.values()) == pytest.approx(3500.0)


def test_the_retention_and_the_prize_switches_are_checked(tmp_path: Path) -> None:
    text = (ROOT / "examples" / "pamplona-masters.toml").read_text(encoding="utf-8")
    bad = text.replace("rate = 15\n", "rate = 150\n").replace(
        "forfeit_wins = true", 'forfeit_wins = "yes"'
    )
    path = tmp_path / "bad.toml"
    path.write_text(bad, encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_event(path)
    message = str(caught.value)
    assert "rate must be a number >= 0 and at most 100" in message
    assert "forfeit_wins must be true or false" in message
    no_home = text.replace('federation = "ESP"\n', "")
    path.write_text(no_home, encoding="utf-8")
    with pytest.raises(ConfigError, match="foreign_rate needs federation"):
        load_event(path)


async def test_prizes_withheld_over_the_api_and_at_the_desk(tmp_path: Path) -> None:
    service, _ = keeping(tmp_path)
    client = TestClient(TestServer(build_app(service, CREDENTIALS)))
    await client.start_server()
    try:
        time_source = service.time_source
        assert isinstance(time_source, ManualTime)
        play_pamplona(service, time_source)
        prizes = await (await client.get("/api/v1/sections/masters/prizes")).json()
        assert prizes["withheld"] == [
            {
                "start": 5,
                "name": "Ferreira, Tomás",
                "reason": "eliminated by the no-show rules",
                "not_paid": 0.0,  # it passed on (Pamplona)
            }
        ]
        assert prizes["retention_stated"] is True
        pooled = [p for p in prizes["prizes"] if p["pool"] == 700.0]
        assert len(pooled) == 5
        body = {"section": "masters", "player": 5, "reason": "certificate"}
        answer = await client.post("/api/v1/arbiter/prizes/restored", json=body, headers=BASIC)
        assert answer.status == 200, await answer.text()
        twice = await client.post("/api/v1/arbiter/prizes/restored", json=body, headers=BASIC)
        assert twice.status == 422 and "is not withheld" in (await twice.json())["error"]
        no_reason = {"section": "masters", "player": 5}
        answer = await client.post("/api/v1/arbiter/prizes/withheld", json=no_reason, headers=BASIC)
        assert answer.status == 400
        page = await (await client.get("/standings")).text()
        assert "<th>Net</th>" in page and 'id="prizes-withheld"' not in page

        assert await _login(client)
        desk = await (await client.get("/arbiter")).text()
        assert 'action="/arbiter/regs/withhold-prize"' in desk
        csrf = re.search(r'name="csrf" value="([^"]+)"', desk)
        assert csrf is not None
        form = {"section": "masters", "player": "5", "reason": "art. 9", "csrf": csrf.group(1)}
        response = await _desk_confirmed(client, "/arbiter/regs/withhold-prize", form)
        assert "withheld" in response.headers["Location"], response.headers["Location"]
        assert service.tournament.section(MASTERS).prizes_withheld == {5: "art. 9"}
        page = await (await client.get("/standings")).text()
        assert 'id="prizes-withheld"' in page and "Ferreira, Tomás (art. 9)" in page
    finally:
        await client.close()


def _with_prizes(service: EventService, time_source: ManualTime, **changes: object) -> EventService:
    """The same journal under the Pamplona config with other [section.prizes] settings."""
    masters = service.config.sections[0]
    assert masters.prizes is not None
    rules = dataclasses.replace(masters.prizes, **changes)  # type: ignore[arg-type]
    config = dataclasses.replace(
        service.config, sections=(dataclasses.replace(masters, prizes=rules),)
    )
    fresh = EventService(config, service.journal, time_source=time_source, delay=0)
    fresh.load()
    return fresh


def _lower_number_wins(service: EventService) -> None:
    for number in range(1, 8):
        for pairing in service.tournament.section(MASTERS).rounds[number].pairings:
            game = service.book.get(GameKey(MASTERS, number, pairing.board).id)
            result = "1-0" if pairing.white < (pairing.black or 0) else "0-1"
            acting.set_result(service, game.id, result, ARBITER, "resignation")


def test_category_prizes_one_per_player_the_larger_one(tmp_path: Path) -> None:
    service, time_source = service_for(tmp_path, "pamplona-masters.toml", "2025-12-22T16:00:00")
    _lower_number_wins(service)  # final order 1, 2, ..., 8
    under = PrizeCategory("Under 2500", (1200.0, 100.0), rating_below=2500)  # 2, 4, 6, 7
    service = _with_prizes(service, time_source, categories=(under,), pools=(), retention=None)

    def paid(s: EventService) -> dict[int, tuple[float, float, str]]:
        prizes = prizes_of(s.tournament, MASTERS)
        assert prizes is not None
        return {p.start: (p.place, p.category, p.category_name) for p in prizes.lines}

    # 2 takes the larger prize (1200 for the best under 2500); the 2nd place passes to
    # 3, 3rd to 4, and the category's 2nd prize to 6 (2 and 4 have theirs).
    assert paid(service) == {
        1: (2000.0, 0.0, ""),
        2: (0.0, 1200.0, "Under 2500"),
        3: (1000.0, 0.0, ""),
        4: (500.0, 0.0, ""),
        6: (0.0, 100.0, "Under 2500"),
    }
    # Several prizes per player: 2 collects both, the category's 2nd goes to 4.
    several = _with_prizes(service, time_source, categories=(under,), one_prize_per_player=False)
    assert paid(several)[2] == (1000.0, 1200.0, "Under 2500")
    assert paid(several)[4] == (0.0, 100.0, "Under 2500")
    # Equal amounts: the configured order decides which prize a player takes.
    equal = PrizeCategory("Under 2500", (1000.0,), rating_below=2500)
    general_first = _with_prizes(service, time_source, categories=(equal,))
    assert paid(general_first)[2] == (1000.0, 0.0, "") and paid(general_first)[4][1] == 1000.0
    category_first = _with_prizes(
        service, time_source, categories=(equal,), order=("Under 2500", "general")
    )
    assert paid(category_first)[2] == (0.0, 1000.0, "Under 2500")
    assert paid(category_first)[3] == (1000.0, 0.0, "")
    # A withheld prize passes on inside the category too.
    acting.withhold_prize(category_first, MASTERS, 2, ARBITER, "art. 9")
    assert paid(category_first)[4] == (0.0, 1000.0, "Under 2500")


def test_a_player_without_a_fide_rating_counts_as_zero() -> None:
    band = PrizeCategory("Under 1800", (50.0,), rating_below=1800)
    assert band.admits(1, 0, "", None, "")  # Sestao art. 14: no FIDE rating = 0
    assert not PrizeCategory("1800-2000", (50.0,), rating_from=1800).admits(1, 0, "", None, "")
    junior = PrizeCategory("Junior", (50.0,), born_from=2007)
    assert junior.admits(1, 1500, "M", 2009, "ESP") and not junior.admits(1, 1500, "M", None, "")
    woman = PrizeCategory("Woman", (50.0,), sex="F")
    assert woman.admits(1, 0, "f", None, "") and not woman.admits(1, 0, "m", None, "")
    # The TRF's player lines write "w" for a woman (Sestao's entries do).
    assert woman.admits(1, 0, "w", None, "") and woman.admits(1, 0, "F", None, "")
    sestao = load_event(ROOT / "examples" / "sestao-2025-swiss.toml").sections[0]
    women = [p for p in sestao.players if p.sex.lower() == "w"]
    assert women and all(woman.admits(p.number, 0, p.sex, None, "") for p in women)


def test_sestao_example_declares_its_rating_bands() -> None:
    config = load_event(ROOT / "examples" / "sestao-2025-swiss.toml")
    prizes = config.sections[0].prizes
    assert prizes is not None and prizes.one_prize_per_player
    bands = [(c.rating_from, c.rating_below) for c in prizes.categories if c.rating_below]
    assert bands and all(low is None or low < high for low, high in bands)


@settings(max_examples=60, deadline=None)
@given(
    results=st.lists(
        st.sampled_from(["1-0", "0-1", "1/2-1/2", "+-", "-+"]), min_size=6, max_size=6
    ),
    withheld=st.sets(st.integers(1, 4), max_size=3),
    ties=st.sampled_from(["share", "share-points", "tiebreak"]),
    one_prize=st.booleans(),
    ratings=st.lists(st.integers(0, 2400), min_size=4, max_size=4),
)
def test_prize_money_is_kept_whatever_is_withheld(
    results: list[str],
    withheld: set[int],
    ties: str,
    one_prize: bool,
    ratings: list[int],
) -> None:
    """Never raises; a withheld player gets nothing; the place, category and pool money
    goes out whole while enough players remain to take it."""
    pairs = [(1, 2, 1), (3, 4, 1), (1, 3, 2), (2, 4, 2), (1, 4, 3), (2, 3, 3)]
    played = [Game(r, w, b, res) for (w, b, r), res in zip(pairs, results, strict=True)]
    players = [Player(n, f"P{n}", rating=ratings[n - 1] or None) for n in range(1, 5)]
    table = build_crosstable(players, 3, played, system="round-robin")
    standings = compute_standings(table, ("SB",))
    band = PrizeCategory("Under 2000", (70.0,), rating_below=2000)
    rules = PrizeRules(
        (300.0, 200.0),
        ties,  # type: ignore[arg-type]
        (PrizePool(90.0),),
        categories=(band,),
        one_prize_per_player=one_prize,
    )
    prizes = compute_prizes(rules, standings, table, withheld={p: "x" for p in withheld})
    paid = {p.start for p in prizes.lines}
    assert not paid & withheld
    assert {w.start for w in prizes.withheld} == withheld
    left = 4 - len(withheld)
    places = sum(p.place for p in prizes.lines)
    if left >= 2:  # the two place prizes are larger than the category's: always paid
        assert places == pytest.approx(500.0, abs=0.02)
    members = [p.start for p in players if p.start not in withheld and (p.rating or 0) < 2000]
    category = sum(p.category for p in prizes.lines)
    if one_prize:
        assert all(not (p.place and p.category) for p in prizes.lines)
        # Paid when a member is left without a place prize.
        placed = {p.start for p in prizes.lines if p.place}
        assert category == (70.0 if set(members) - placed else 0.0)
    else:
        assert category == (70.0 if members else 0.0)
    wins = sum(
        1
        for p, row in table
        if p.start not in withheld
        for e in row
        if e.result is not None and e.result.outcome == "win" and e.opponent is not None
    )
    assert sum(p.pool for p in prizes.lines) == pytest.approx(90.0 if wins else 0.0, abs=0.05)
    assert all(p.net == p.total for p in prizes.lines)  # no retention stated
