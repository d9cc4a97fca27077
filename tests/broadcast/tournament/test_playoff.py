"""Pure parts of the regulations: the play-off's progress and the prize arithmetic."""

from __future__ import annotations

import datetime as dt

from broadcast.config.model import PlayoffRules, PrizePool, PrizeRules
from broadcast.fide.crosstable import Crosstable, Game, Player, build_crosstable
from broadcast.fide.standings import compute_standings
from broadcast.tournament.playoff import playoff_status
from broadcast.tournament.prizes import compute_prizes
from broadcast.tournament.section import PlayoffGame
from clocks.timecontrol import parse_time_control

RULES = PlayoffRules(parse_time_control("300"), parse_time_control("w:300,b:240"))
AT = dt.datetime(2009, 7, 16, 21, tzinfo=dt.UTC)


def games(*played: tuple[int, int, str | None], kind: str = "blitz") -> list[PlayoffGame]:
    return [PlayoffGame(i, w, b, kind, AT, 1, r) for i, (w, b, r) in enumerate(played, 1)]


def test_two_players_play_two_games_then_armageddon() -> None:
    assert playoff_status(RULES, [4, 2], []).next_kind == "blitz"
    one = games((2, 4, "1-0"))
    assert playoff_status(RULES, [2, 4], one).next_kind == "blitz"  # two games, not one
    won = games((2, 4, "1-0"), (4, 2, "1/2-1/2"))
    assert playoff_status(RULES, [2, 4], won).winner == 2
    level = games((2, 4, "1-0"), (4, 2, "1-0"))
    assert playoff_status(RULES, [2, 4], level).next_kind == "armageddon"
    playing = [*level, PlayoffGame(3, 4, 2, "armageddon", AT)]
    assert playoff_status(RULES, [2, 4], playing).next_kind is None  # result first
    drawn = [*level, PlayoffGame(3, 4, 2, "armageddon", AT, 1, "1/2-1/2")]
    assert playoff_status(RULES, [2, 4], drawn).winner == 2  # Black wins a drawn Armageddon
    white_wins = [*level, PlayoffGame(3, 4, 2, "armageddon", AT, 1, "1-0")]
    assert playoff_status(RULES, [2, 4], white_wins).winner == 4


def test_three_players_play_leagues_until_one_or_two_remain() -> None:
    league = games((1, 2, "1-0"), (2, 3, "1/2-1/2"), (3, 1, "0-1"))
    assert playoff_status(RULES, [1, 2, 3], league).winner == 1
    level = games((1, 2, "1-0"), (2, 3, "1-0"), (3, 1, "1-0"))  # everyone on 1 point
    status = playoff_status(RULES, [1, 2, 3], level)
    assert status.next_kind == "blitz" and status.remaining == (1, 2, 3)  # another league
    two_lead = games((1, 2, "1/2-1/2"), (2, 3, "1-0"), (3, 1, "0-1"))  # 1 and 2 on 1.5
    status = playoff_status(RULES, [1, 2, 3], two_lead)
    assert status.remaining == (1, 2) and status.next_kind == "armageddon"
    unfinished = games((1, 2, "1-0"), (2, 3, "1-0"))
    assert playoff_status(RULES, [1, 2, 3], unfinished).next_kind == "blitz"


def four_players(*played: Game) -> Crosstable:
    """A 3-round round robin of four players with these games."""
    players = [Player(n, f"P{n}") for n in range(1, 5)]
    return build_crosstable(players, 3, list(played), system="round-robin")


def test_tied_players_share_the_prizes_of_their_places_and_pools_go_by_wins() -> None:
    # 1 beats everyone; 2 and 3 draw each other and beat 4: 2 and 3 level on everything.
    table = four_players(
        Game(1, 1, 4, "1-0"),
        Game(1, 2, 3, "1/2-1/2"),
        Game(2, 1, 3, "1-0"),
        Game(2, 4, 2, "0-1"),
        Game(3, 2, 1, "0-1"),
        Game(3, 3, 4, "1-0"),
    )
    standings = compute_standings(table, ["WIN"])
    assert [(r.start, r.rank) for r in standings.rows] == [(1, 1), (2, 2), (3, 2), (4, 4)]
    rules = PrizeRules((2000, 1000, 500), "share", (PrizePool(500),), "EUR")
    prizes = {p.start: p for p in compute_prizes(rules, standings, table).lines}
    assert prizes[1].place == 2000 and prizes[2].place == prizes[3].place == 750
    # Five wins in all: 100 each; 1 has three, 2 and 3 one each, 4 none (no prize line).
    assert (prizes[1].pool, prizes[2].pool, prizes[3].pool) == (300, 100, 100)
    assert 4 not in prizes
    by_tiebreak = PrizeRules((2000, 1000, 500), "tiebreak")
    split = {p.start: p.place for p in compute_prizes(by_tiebreak, standings, table).lines}
    assert split == {1: 2000, 2: 1000, 3: 500}


def test_players_level_on_points_share_when_the_tiebreaks_only_rank() -> None:
    """ties = "share-points" (a reading of Pamplona art. 6): the tie-breaks rank, the
    players level on points share the money of the places they occupy."""
    # 1 and 2 both on 2 points; SB puts 2 ahead (2 beat the stronger player).
    table = four_players(
        Game(1, 1, 4, "1-0"),
        Game(1, 2, 3, "1-0"),
        Game(2, 1, 3, "1-0"),
        Game(2, 4, 2, "1-0"),
        Game(3, 2, 1, "1-0"),
        Game(3, 3, 4, "1/2-1/2"),
    )
    standings = compute_standings(table, ["SB"])
    assert [r.points for r in standings.rows][:2] == [2.0, 2.0]
    assert standings.rows[0].rank == 1 and standings.rows[1].rank == 2
    shared = PrizeRules((2000, 1000, 500), "share-points")
    places = {p.start: p.place for p in compute_prizes(shared, standings, table).lines}
    assert places[1] == places[2] == 1500
    assert places[4] == 500 and 3 not in places  # 4 (1.5 points) is third alone
    by_rank = PrizeRules((2000, 1000, 500), "share")
    ranked = {p.start: p.place for p in compute_prizes(by_rank, standings, table).lines}
    assert ranked[standings.rows[0].start] == 2000
