"""PGN of a team section: every game carries WhiteTeam and BlackTeam, the names of the
rosters its players are on; a section of individuals carries neither."""

from __future__ import annotations

import dataclasses

from broadcast.config.model import EventConfig, TeamEntry, TeamRules
from broadcast.export.pgn import game_headers, round_pgn
from broadcast.export.pgn_teams import team_tags
from broadcast.fide.pairing import Pairing
from broadcast.games.book import GameBook
from broadcast.games.game_state import GameState, PlayerRef
from broadcast.games.ids import GameKey
from tests.support.export import event, paired, read_all

MASTERS = "Masters"
TEAMS = (
    TeamEntry(1, "Irunea", (1, 2)),
    TeamEntry(2, "Txantrea", (3, 4)),
    TeamEntry(3, "Ansoain", (5, 6)),
    TeamEntry(4, "Zaldi; Burlada", (7, 8)),
)
# Round 1, 2 boards a match, the team named first White on the odd boards:
# match 1 Irunea - Txantrea (boards 1, 2), match 2 Ansoain - Zaldi (boards 3, 4).
ROUND1 = [Pairing(1, 1, 3), Pairing(2, 4, 2), Pairing(3, 5, 7), Pairing(4, 8, 6)]


def team_event() -> EventConfig:
    cfg = event()
    sections = tuple(
        dataclasses.replace(s, team_rules=TeamRules(boards=2), teams=TEAMS)
        if s.name == MASTERS
        else s
        for s in cfg.sections
    )
    return dataclasses.replace(cfg, sections=sections)


def test_every_game_of_a_team_round_names_both_teams() -> None:
    cfg = team_event()
    book = GameBook().synced(paired(cfg, MASTERS, 1, ROUND1))
    games = read_all(round_pgn(book, cfg, MASTERS, 1))
    assert [(g.headers["WhiteTeam"], g.headers["BlackTeam"]) for g in games] == [
        ("Irunea", "Txantrea"),
        ("Txantrea", "Irunea"),
        ("Ansoain", "Zaldi; Burlada"),
        ("Zaldi; Burlada", "Ansoain"),
    ]


def test_team_names_are_escaped_as_tag_values() -> None:
    cfg = team_event()
    teams = (*TEAMS[:3], dataclasses.replace(TEAMS[3], name='Club "Zaldi" \\ B'))
    sections = tuple(dataclasses.replace(s, teams=teams) for s in cfg.sections)
    cfg = dataclasses.replace(cfg, sections=sections)
    book = GameBook().synced(paired(cfg, MASTERS, 1, ROUND1))
    text = round_pgn(book, cfg, MASTERS, 1)
    assert '[BlackTeam "Club \\"Zaldi\\" \\\\ B"]' in text


def test_team_tags_follow_the_players_tags() -> None:
    cfg = team_event()
    book = GameBook().synced(paired(cfg, MASTERS, 1, ROUND1))
    game = book.games[GameKey(MASTERS, 1, 1).id]
    names = [name for name, _ in game_headers(game, cfg)]
    assert names.index("WhiteTeam") == names.index("BlackTeam") - 1
    assert names.index("WhiteTeam") > names.index("White")
    assert names.index("BlackTeam") < names.index("TimeControl")


def test_a_section_of_individuals_has_no_team_tags() -> None:
    cfg = event()
    book = GameBook().synced(paired(cfg, MASTERS, 1, ROUND1))
    for game in read_all(round_pgn(book, cfg, MASTERS, 1)):
        assert "WhiteTeam" not in game.headers and "BlackTeam" not in game.headers


def test_a_side_without_a_player_or_a_roster_has_no_tag() -> None:
    section = team_event().section(MASTERS)
    key = GameKey(MASTERS, 1, 1)
    nobody = GameState(key=key, white=PlayerRef(1, "A"), black=None)
    assert team_tags(section, nobody) == [("WhiteTeam", "Irunea")]
    stranger = GameState(key=key, white=PlayerRef(99, "X"), black=PlayerRef(6, "Y"))
    assert team_tags(section, stranger) == [("BlackTeam", "Ansoain")]
