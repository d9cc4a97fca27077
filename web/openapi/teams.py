"""The OpenAPI part of a team section's public routes (`web.routes_teams`): the paths and
the schemas of its teams, matches, team standings, team crosstable and board prizes.
Pure."""

from __future__ import annotations

from typing import Any

from web.openapi.parts import NULLABLE_STR, SECTION_PATH, SECTION_QUERY, json_answer, obj, ref
from web.openapi.parts import public_get as get

__all__ = ["TEAM_SCHEMAS", "team_paths"]

POINTS = {"type": "number", "nullable": True}

TEAM_SCHEMAS: dict[str, Any] = {
    "Team": {
        **obj(
            {
                "number": {"type": "integer", "description": "the team's starting number"},
                "name": {"type": "string"},
                "federation": NULLABLE_STR,
            },
            ["number", "name"],
        ),
        "nullable": True,
    },
    "TeamRoster": {
        "allOf": [
            ref("Team"),
            obj(
                {
                    "club": NULLABLE_STR,
                    "captain": NULLABLE_STR,
                    "roster": {
                        "type": "array",
                        "items": ref("Player"),
                        "description": "in board order, the reserves after the regulars",
                    },
                }
            ),
        ]
    },
    "Match": obj(
        {
            "round": {"type": "integer"},
            "match": {"type": "integer", "description": "its place in the round (1: top)"},
            "first": ref("Team"),
            "second": ref("Team"),
            "bye": {"type": "boolean", "description": "the first team has no opponent"},
            "score": {
                **obj(
                    {
                        "first": {"type": "number"},
                        "second": {"type": "number"},
                        "complete": {"type": "boolean"},
                        "text": {"type": "string", "description": "e.g. 2½–1½"},
                    }
                ),
                "nullable": True,
                "description": "game points so far (null: a bye, or no lineups yet)",
            },
            "match_points": {
                "type": "array",
                "items": {"type": "number"},
                "nullable": True,
                "description": "each team's, once every board has its result",
            },
            "boards": {
                "type": "array",
                "items": obj(
                    {
                        "board": {"type": "integer", "description": "the board in the match"},
                        "section_board": {"type": "integer"},
                        "game": NULLABLE_STR,
                        "first_is_white": {"type": "boolean"},
                        "first": ref("Player"),
                        "second": ref("Player"),
                        "played": {"type": "boolean"},
                        "first_points": POINTS,
                        "second_points": POINTS,
                    }
                ),
            },
        },
        ["round", "match", "first", "second", "boards", "score"],
    ),
    "TeamStanding": obj(
        {
            "rank": {"type": "integer"},
            "team": ref("Team"),
            "match_points": {"type": "number"},
            "game_points": {"type": "number"},
            "played": {"type": "integer"},
            "won": {"type": "integer"},
            "drawn": {"type": "integer"},
            "lost": {"type": "integer"},
            "tiebreaks": {"type": "object", "additionalProperties": {"type": "number"}},
        },
        ["rank", "team", "match_points", "game_points"],
    ),
    "BoardPrizes": obj(
        {
            "rounds": {"type": "integer", "description": "the complete rounds counted"},
            "min_games": {
                "type": "integer",
                "description": "games over the board a player needs to be ranked",
            },
            "boards": {
                "type": "array",
                "items": obj(
                    {
                        "board": {"type": "integer", "description": "1: the top board"},
                        "players": {
                            "type": "array",
                            "description": "best performance first",
                            "items": obj(
                                {
                                    "rank": {"type": "integer"},
                                    "player": ref("Player"),
                                    "team": ref("Team"),
                                    "games": {
                                        "type": "integer",
                                        "description": "played over the board, rated opponent",
                                    },
                                    "points": {"type": "number"},
                                    "performance": {"type": "integer"},
                                },
                                ["rank", "player", "team", "games", "points", "performance"],
                            ),
                        },
                    },
                    ["board", "players"],
                ),
            },
        },
        ["rounds", "min_games", "boards"],
    ),
    "TeamCrosstable": obj(
        {
            "order": {"type": "array", "items": {"type": "integer"}},
            "rows": {"type": "array", "items": {"type": "object"}},
        }
    ),
}


def _array(name: str) -> dict[str, Any]:
    return json_answer({"type": "array", "items": ref(name)})


def team_paths() -> dict[str, Any]:
    """The team routes, each by ?section= and under /sections/{section}/."""
    answers = {
        "teams": ("A team section's teams and rosters", _array("TeamRoster")),
        "matches": (
            "Every paired round's matches: teams, score, boards",
            json_answer(
                {
                    "type": "array",
                    "items": obj(
                        {
                            "round": {"type": "integer"},
                            "matches": {"type": "array", "items": ref("Match")},
                        }
                    ),
                }
            ),
        ),
        "team-standings": ("Team standings with their tie-breaks", _array("TeamStanding")),
        "team-crosstable": ("The team crosstable", json_answer(ref("TeamCrosstable"))),
        "board-prizes": (
            "Board prizes: each board's players by rating performance",
            json_answer(ref("BoardPrizes")),
        ),
    }
    out: dict[str, Any] = {}
    for path, (summary, ok) in answers.items():
        out[f"/api/v1/{path}"] = get(summary, ok, [SECTION_QUERY])
        out[f"/api/v1/sections/{{section}}/{path}"] = get(summary, ok, [SECTION_PATH])
    return out
