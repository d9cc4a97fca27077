"""A team section for spectators: the JSON (teams, matches with their score, team
standings and crosstable, the round's games with their match and teams) and the pages
(the round by match, the match, the team standings and crosstable), from the delayed
state, through the app in-process; and the desk's hall, which names each match's teams
in the match's order whichever boards the first team has White on.

The event is the league of tests/data/teams-league.toml (tests/support/team_event.py):
round 1 is match 1, FIRST - FOURTH (boards 1-4), and match 2, SECOND - THIRD (5-8).
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp import ClientWebSocketResponse
from aiohttp.test_utils import TestClient, TestServer

from broadcast.config.model import TeamColours
from broadcast.games.game_events import GameResultText, ResultConfirmed, ResultReason
from broadcast.service.event_service import EventService
from clocks.timesource import ManualTime
from tests.support.played_league import play_league
from tests.support.team_event import (
    FIRST,
    FOURTH,
    SECOND,
    SLUG,
    THIRD,
    game_id,
    pair_round,
    team_service,
)
from tests.support.web_app import CREDENTIALS
from web.app import build_app
from web.arbiter.hall import hall_of
from web.keys import HUB
from web.teams_json import points_text

Env = tuple[TestClient, EventService, ManualTime]  # type: ignore[type-arg]


@pytest.fixture
async def teams(tmp_path: Path) -> AsyncIterator[Env]:
    service, clock = team_service(tmp_path)
    client = TestClient(TestServer(build_app(service, CREDENTIALS)))
    await client.start_server()
    yield client, service, clock
    await client.close()


def _result(service: EventService, clock: ManualTime, board: int, result: GameResultText) -> None:
    reason: ResultReason = "agreement" if result == "1/2-1/2" else "resignation"
    service.commit([ResultConfirmed(game_id(board), result, reason, clock.now())])


def test_points_read_as_people_write_them() -> None:
    assert [points_text(p) for p in (0, 0.5, 1, 2.5, 3)] == ["0", "½", "1", "2½", "3"]


async def test_the_match_score_follows_the_results(teams: Env) -> None:
    client, service, clock = teams
    rounds = await (await client.get(f"/api/v1/sections/{SLUG}/matches")).json()
    first, second = rounds[0]["matches"]
    assert (first["first"]["name"], first["second"]["name"]) == (FIRST, FOURTH)
    assert (second["first"]["name"], second["second"]["name"]) == (SECOND, THIRD)
    assert first["score"] == {"first": 0, "second": 0, "complete": False, "text": "0–0"}
    assert [b["first_is_white"] for b in first["boards"]] == [True, False, True, False]
    assert [b["section_board"] for b in second["boards"]] == [5, 6, 7, 8]
    # Board 2: the first team has Black, so a Black win is the first team's point.
    _result(service, clock, 1, "1/2-1/2")
    _result(service, clock, 2, "0-1")
    rounds = await (await client.get(f"/api/v1/matches?section={SLUG}")).json()
    score = rounds[0]["matches"][0]["score"]
    assert (score["text"], score["complete"]) == ("1½–½", False)
    # Board 4: the fourth team has White; its win is the second team's point.
    _result(service, clock, 3, "1-0")
    _result(service, clock, 4, "1-0")
    match = (await (await client.get("/api/v1/matches")).json())[0]["matches"][0]
    assert match["score"]["text"] == "2½–1½" and match["match_points"] == [2, 0]
    assert rounds[0]["matches"][1]["score"]["text"] == "0–0"  # the other match untouched
    # The standings count finished rounds: match 2 drawn 2-2 finishes round 1.
    for board in range(5, 9):
        _result(service, clock, board, "1/2-1/2")
    standings = await (await client.get(f"/api/v1/sections/{SLUG}/team-standings")).json()
    by_team = {r["team"]["name"]: r for r in standings}
    assert standings[0]["team"]["name"] == FIRST and standings[0]["rank"] == 1
    assert (by_team[FIRST]["match_points"], by_team[FIRST]["game_points"]) == (2, 2.5)
    assert (by_team[FOURTH]["match_points"], by_team[FOURTH]["game_points"]) == (0, 1.5)
    assert [by_team[name]["match_points"] for name in (SECOND, THIRD)] == [1, 1]
    assert standings[-1]["team"]["name"] == FOURTH
    table = await (await client.get("/api/v1/team-crosstable")).json()
    assert table["rows"][0]["team"]["number"] == 1
    meetings = table["rows"][0]["meetings"]["4"]
    assert [(m["game_points"], m["opponent_game_points"]) for m in meetings] == [(2.5, 1.5)]


async def test_the_round_json_names_each_games_match_and_teams(teams: Env) -> None:
    client, _, _ = teams
    games = (await (await client.get("/api/v1/rounds/1")).json())["games"]
    second = next(g for g in games if g["board"] == 2)
    assert (second["match"], second["match_board"], second["first_is_white"]) == (1, 2, False)
    assert (second["white_team"]["name"], second["black_team"]["name"]) == (FOURTH, FIRST)
    seventh = next(g for g in games if g["board"] == 7)
    assert (seventh["match"], seventh["match_board"], seventh["first_is_white"]) == (2, 3, True)
    assert (seventh["white_team"]["name"], seventh["black_team"]["name"]) == (SECOND, THIRD)
    teams_json = await (await client.get("/api/v1/teams")).json()
    assert [p["start"] for p in teams_json[0]["roster"]] == [1, 2, 3, 4, 5]
    assert teams_json[0]["roster"][0]["name"] == "Agirre, Jon"


async def test_the_pages_show_the_matches_and_the_teams(teams: Env) -> None:
    client, service, clock = teams
    _result(service, clock, 1, "1-0")
    page = await (await client.get("/round/1")).text()
    for name in (FIRST, SECOND, THIRD, FOURTH):
        assert name in page, name
    assert page.count('class="mscore"') == 2
    assert f'data-board-game="{game_id(2)}" data-first-white="0"' in page
    assert "1–0" in page and "/static/teams.js" in page
    match = await client.get("/match/1/2")
    text = await match.text()
    assert match.status == 200 and f'href="/game/{game_id(8)}"' in text
    assert f'href="/game/{game_id(1)}"' not in text  # match 1's boards are not match 2's
    for path in ("/match/1/3", "/match/1/x", "/match/9/1"):
        assert (await client.get(path)).status == 404, path
    standings = await (await client.get("/teams")).text()
    assert FIRST in standings and "Agirre, Jon" in standings
    crosstable = await client.get("/team-crosstable")
    assert crosstable.status == 200 and FOURTH in await crosstable.text()
    home = await (await client.get("/")).text()
    assert f'href="/teams?section={SLUG}"' in home


async def test_an_individual_section_has_no_team_pages(env: Env) -> None:
    client, _, _ = env
    assert (await client.get("/api/v1/teams")).status == 404
    assert (await client.get("/teams")).status == 404
    games = (await (await client.get("/api/v1/rounds/1")).json())["games"]
    assert "match" not in games[0] and "first_is_white" not in games[0]


@pytest.mark.parametrize(("colours", "white_on_first"), [("odd", True), ("even", False)])
def test_the_hall_says_which_team_is_named_first(
    tmp_path: Path, colours: TeamColours, white_on_first: bool
) -> None:
    """With the first team White on the even boards, board 1's White is the second team:
    the hall says so (`first_is_white`), and its heading names the match's teams in order
    from it (web/static/hall.js; tests/browser/test_team_pages.py reads the heading)."""
    service, _ = team_service(tmp_path, colours=colours)
    tables = {t["game"]: t for t in hall_of(service, service.alerts(), lambda s: s)["tables"]}
    for board in range(1, 5):
        table = tables[game_id(board)]
        odd = board % 2 == 1
        assert table["first_is_white"] is (odd == white_on_first), board
        first = table["white_team"] if table["first_is_white"] else table["black_team"]
        second = table["black_team"] if table["first_is_white"] else table["white_team"]
        assert (first["name"], second["name"]) == (FIRST, FOURTH), board


# -- board prizes ---------------------------------------------------------------------------

# FIDE's rating difference dp for a percentage score (B.02 table 8.1a), the two used below.
DP = {67: 125, 33: -125}


def _performance(opponents: list[int], points: float) -> int:
    """By hand: the opponents' average rating (rounded half up) plus dp of the percentage."""
    average = int(sum(opponents) / len(opponents) + 0.5)
    return average + DP[int(100 * points / len(opponents) + 0.5)]


@pytest.fixture
async def played(tmp_path: Path) -> AsyncIterator[Env]:
    """The league played to its end (tests/support/played_league.py), White winning every
    game; round 3's board 5 (Aranburu, White, against Agirre) a forfeit; 3 games needed."""
    service, clock = team_service(tmp_path, min_games=3)
    play_league(service, clock, {(3, 5): "+/-"})
    client = TestClient(TestServer(build_app(service, CREDENTIALS)))
    await client.start_server()
    yield client, service, clock
    await client.close()


async def test_board_prizes_rank_each_board_by_performance(played: Env) -> None:
    client, _, _ = played
    prizes = await (await client.get(f"/api/v1/sections/{SLUG}/board-prizes")).json()
    assert (prizes["rounds"], prizes["min_games"]) == (3, 3)
    assert [b["board"] for b in prizes["boards"]] == [1, 2, 3, 4]
    top = prizes["boards"][0]["players"]
    # Board 1: Larrañaga (6) beat Aranburu (2320) with White, lost to Agirre (2400) with
    # Black, beat Lasa (2280) with White: 2 of 3. Lasa (16) lost to Agirre, beat Aranburu
    # with White, lost to Larrañaga: 1 of 3. Agirre and Aranburu played 2 games over the
    # board (their round 3 game a forfeit), fewer than 3: not ranked.
    assert [(r["rank"], r["player"]["start"], r["team"]["name"]) for r in top] == [
        (1, 6, SECOND),
        (2, 16, FOURTH),
    ]
    assert (top[0]["games"], top[0]["points"]) == (3, 2)
    assert top[0]["performance"] == _performance([2320, 2400, 2280], 2) == 2458
    assert (top[1]["games"], top[1]["points"]) == (3, 1)
    assert top[1]["performance"] == _performance([2400, 2320, 2360], 1) == 2235
    # Board 2 had no forfeit: its four players ranked, two of 2 points above two of 1.
    second = prizes["boards"][1]["players"]
    assert [r["points"] for r in second] == [2, 2, 1, 1]
    assert [r["rank"] for r in second] == [1, 2, 3, 4]
    same = await (await client.get(f"/api/v1/board-prizes?section={SLUG}")).json()
    assert same == prizes


async def test_the_team_standings_page_shows_the_board_prizes(played: Env) -> None:
    client, _, _ = played
    page = await (await client.get(f"/teams?section={SLUG}")).text()
    prizes = page[page.index('id="board-prizes"') : page.index('id="team-1"')]
    assert "at least 3 such games" in prizes
    assert prizes.count('class="standings board-prize"') == 4
    board1 = prizes[: prizes.index('data-board="2"')]
    assert "Larrañaga, Unai" in board1 and "2458" in board1 and "2235" in board1
    assert "Agirre, Jon" not in board1  # two games over the board: below the minimum
    assert "Agirre, Jon" in page  # still on his team's roster


async def test_board_prizes_before_a_round_is_complete(teams: Env) -> None:
    client, _, _ = teams
    prizes = await (await client.get("/api/v1/board-prizes")).json()
    assert prizes["rounds"] == 0 and prizes["min_games"] == 1
    assert all(b["players"] == [] for b in prizes["boards"])
    page = await (await client.get("/teams")).text()
    assert page.count("Nobody is ranked on this board yet.") == 4


async def test_an_individual_section_has_no_board_prizes(env: Env) -> None:
    client, _, _ = env
    answer = await client.get("/api/v1/board-prizes")
    assert answer.status == 404 and "not a team section" in (await answer.json())["error"]


async def test_the_printed_board_prizes_sheet(played: Env) -> None:
    client, _, _ = played
    index = await (await client.get(f"/print?section={SLUG}")).text()
    assert f'href="/print/board-prizes?section={SLUG}"' in index
    answer = await client.get(f"/print/board-prizes?section={SLUG}")
    sheet = await answer.text()
    assert answer.status == 200
    assert sheet.count('class="grid standings-sheet board-prize"') == 4
    board1 = sheet[sheet.index('data-board="1"') : sheet.index('data-board="2"')]
    assert "Larrañaga, Unai" in board1 and "2458" in board1 and "Agirre" not in board1
    assert "After round 3" in sheet and "at least 3 such games" in sheet
    # The desk's copy (live) is behind the arbiter's login, as every desk sheet.
    desk = await client.get(f"/arbiter/print/board-prizes?section={SLUG}", allow_redirects=False)
    assert desk.status == 303


async def test_a_section_of_individuals_prints_no_board_prizes(env: Env) -> None:
    client, _, _ = env
    assert (await client.get("/print/board-prizes")).status == 404
    assert "board-prizes" not in await (await client.get("/print")).text()


# -- the embeds and the websocket carry the teams ------------------------------------------


def _words(html: str) -> str:
    """The page's text, tags dropped and spaces folded (what a reader of the frame sees)."""
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


async def test_the_embeds_name_each_games_match_and_teams(teams: Env) -> None:
    client, _, _ = teams
    # Board 2 of match 1: the first team has Black there, and is still named first.
    game = _words(await (await client.get(f"/embed/game/{game_id(2)}")).text())
    assert f"{FIRST} – {FOURTH} , board 2" in game
    seventh = _words(await (await client.get(f"/embed/game/{game_id(7)}")).text())
    assert f"{SECOND} – {THIRD} , board 3" in seventh
    page = await (await client.get(f"/embed/round/1?section={SLUG}")).text()
    heads = [_words(h) for h in re.findall(r'<h2 class="embedteams"[^>]*>(.*?)</h2>', page)]
    assert heads == [f"{FIRST} – {FOURTH}", f"{SECOND} – {THIRD}"]
    # Each match's boards under its head: match 2's games after match 2's head only.
    second = page.index('data-match="2"')
    assert page.index(f'data-game="{game_id(4)}"') < second
    assert second < page.index(f'data-game="{game_id(5)}"')


async def test_the_embeds_of_individuals_name_no_teams(env: Env) -> None:
    client, _, _ = env
    for path in ("/embed/round/1", "/embed/game/masters-r1-b1"):
        answer = await client.get(path)
        text = await answer.text()
        assert answer.status == 200 and 'class="mini"' in text and "embedteams" not in text


async def _ws_message(ws: ClientWebSocketResponse) -> dict[str, Any]:
    message: dict[str, Any] = json.loads(await ws.receive_str(timeout=5))
    return message


async def test_the_websocket_games_carry_their_match_and_teams(teams: Env) -> None:
    client, service, _ = teams
    async with client.ws_connect("/ws") as ws:
        await ws.send_json({"type": "subscribe", "scope": "game", "game": game_id(2)})
        snap = (await _ws_message(ws))["data"]["game"]
        assert (snap["match"], snap["match_board"], snap["first_is_white"]) == (1, 2, False)
        assert (snap["white_team"]["name"], snap["black_team"]["name"]) == (FOURTH, FIRST)
    async with client.ws_connect("/ws") as ws:
        await ws.send_json({"type": "subscribe", "scope": "round", "section": SLUG, "round": 1})
        games = (await _ws_message(ws))["data"]["games"]
        assert {(g["board"], g["match"], g["white_team"]["number"]) for g in games} >= {
            (1, 1, 1),
            (6, 2, 3),  # match 2 (SECOND - THIRD), board 2: the third team has White
        }
        # Round 2 paired: each new game reaches the round's subscribers with its teams.
        await ws.send_json({"type": "subscribe", "scope": "event"})
        assert (await _ws_message(ws))["type"] == "snapshot"
        pair_round(service, 2)
        app = client.app
        assert app is not None
        app[HUB].pump()
        new: dict[str, Any] = {}
        while len(new) < 8:
            message = await _ws_message(ws)
            if message["type"] == "game":
                new[message["game"]["id"]] = message["game"]
        # Round 2 (Berger): 4-3 on boards 1-4, 1-2 on boards 5-8; board 5 is 1's White.
        fifth = new[game_id(5, 2)]
        assert (fifth["match"], fifth["match_board"]) == (2, 1)
        assert (fifth["white_team"]["name"], fifth["black_team"]["name"]) == (FIRST, SECOND)
        assert all(g["white_team"] and g["black_team"] for g in new.values())
