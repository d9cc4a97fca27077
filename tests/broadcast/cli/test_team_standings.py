"""`boardwire standings --event` on a played team league (tests/support/played_league.py):
a team section's final figures are its team standings and board prizes, as text and as
JSON, from the journal.

Every game is a White win except round 1's board 2 (Mujika, White, against Bengoetxea),
won by Black: the first team wins round 1's match 3-1; every other match is 2-2. Round
3's board 5 (Aranburu, White, against Agirre) is a forfeit: with 3 games needed, Agirre
and Aranburu (2 games over the board) are not ranked on board 1.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from broadcast.cli import main
from tests.support.played_league import play_league
from tests.support.team_event import FIRST, FOURTH, SECOND, THIRD, team_service, team_toml

# FIDE's rating difference dp for a percentage score (B.02 table 8.1a), the two used below.
DP = {67: 125, 33: -125}


def _performance(opponents: list[int], points: float) -> int:
    """By hand: the opponents' average rating (rounded half up) plus dp of the percentage."""
    average = int(sum(opponents) / len(opponents) + 0.5)
    return average + DP[int(100 * points / len(opponents) + 0.5)]


@pytest.fixture
def league(tmp_path: Path) -> list[str]:
    """The played league's event file and journal, as the command's arguments."""
    service, clock = team_service(tmp_path, min_games=3)
    play_league(service, clock, {(1, 2): "0-1", (3, 5): "+/-"})
    service.journal.close()
    event = tmp_path / "league.toml"
    event.write_text(team_toml(min_games=3), encoding="utf-8")
    return ["standings", "--event", str(event), "--db", str(tmp_path / "journal.sqlite")]


def test_a_team_sections_standings_are_the_teams_and_the_board_prizes(
    league: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*league, "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["rounds"] == 3
    teams = [
        (r["rank"], r["name"], r["match_points"], r["game_points"])
        for r in figures["team_standings"]
    ]
    # The first team: 3-1, then two draws; the fourth: 1-3, then two draws.
    assert teams == [(1, FIRST, 4, 7), (2, SECOND, 3, 6), (2, THIRD, 3, 6), (4, FOURTH, 2, 5)]
    prizes = figures["board_prizes"]
    assert prizes["min_games"] == 3
    board1, board2 = prizes["boards"][0]["players"], prizes["boards"][1]["players"]
    # Larrañaga (6): beat Aranburu (2320), lost to Agirre (2400), beat Lasa (2280).
    assert [(r["start"], r["games"], r["points"]) for r in board1] == [(6, 3, 2), (16, 3, 1)]
    assert board1[0]["performance"] == _performance([2320, 2400, 2280], 2) == 2458
    # Lasa (16): lost to Agirre (2400), beat Aranburu (2320), lost to Larrañaga (2360).
    assert board1[1]["performance"] == _performance([2400, 2320, 2360], 1) == 2235
    # Bengoetxea (2): beat Mujika (2245) with Black, lost to Mendizabal (2325), beat
    # Beitia (2285).
    bengoetxea = next(r for r in board2 if r["start"] == 2)
    assert bengoetxea["performance"] == _performance([2245, 2325, 2285], 2) == 2410


def test_the_text_says_the_teams_the_boards_and_the_rule(
    league: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(league) == 0
    text = capsys.readouterr().out
    assert text.startswith("== League\nTeam standings\n")
    lines = text.splitlines()
    first = next(line for line in lines if FIRST in line)
    assert first.split()[:2] == ["1", "1"] and first.split()[-5:] == ["4", "7", "1", "2", "0"]
    board1 = lines[lines.index("Board 1") + 3 : lines.index("Board 2")]
    assert [line.split()[:2] for line in board1] == [["1", "6"], ["2", "16"]]
    assert board1[0].split()[-3:] == ["3", "2", "2458"]
    assert "Agirre" not in "\n".join(board1)
    assert "fewer than 3 such games are not ranked" in text
