"""The OpenAPI part of a team section's arbiter routes (`web.arbiter.teams`): a round's
lineups and matches, a lineup sent or taken back, the teams paired (with a preview) and the boards paired
from the lineups. Pure."""

from __future__ import annotations

from typing import Any

from web.openapi.parts import (
    PAIR_LIST,
    ROUND_PATH,
    SECTION_PATH,
    arbiter_get,
    arbiter_post,
    json_answer,
    obj,
)

__all__ = ["arbiter_team_paths"]

_ROUND = "/api/v1/arbiter/sections/{section}/rounds/{round}"
_PARAMS = [SECTION_PATH, ROUND_PATH]
_TEAM_PATH = {
    "name": "team",
    "in": "path",
    "required": True,
    "schema": {"type": "integer", "minimum": 1},
    "description": "the team's number in the section",
}

_MATCH = obj(
    {
        "number": {"type": "integer", "description": "its place in the round (board order)"},
        "first": {"type": "integer", "description": "the team named first"},
        "second": {"type": "integer", "nullable": True, "description": "null: the team bye"},
    },
    ["number", "first", "second"],
)
_LINEUP = obj(
    {
        "team": {"type": "integer"},
        "players": {
            "type": "array",
            "items": {"type": "integer", "nullable": True},
            "description": "starting numbers in board order; null: an empty board",
        },
        "at": {"type": "string", "format": "date-time"},
        "by": {"type": "string"},
        "fallback": {"type": "string", "description": "the rule that made it (none sent)"},
        "override": {"type": "string", "description": "the arbiter's words for a late one"},
    },
    ["team", "players"],
)
_ROUND_LINEUPS = obj(
    {
        "section": {"type": "string"},
        "round": {"type": "integer"},
        "paired": {
            "type": "boolean",
            "description": "the boards are paired: the lineups are public with them",
        },
        "matches": {"type": "array", "items": _MATCH},
        "lineups": {"type": "array", "items": _LINEUP},
    },
    ["section", "round", "paired", "matches", "lineups"],
)
_PAIRING = obj(
    {
        "board": {"type": "integer"},
        "white": {"type": "integer"},
        "black": {"type": "integer", "description": "0: nobody (an empty board)"},
    }
)


def arbiter_team_paths() -> dict[str, Any]:
    """The paths of `web.arbiter.teams`."""
    lineups = arbiter_get(
        "A team round's matches and the lineups in (public once the boards are paired)",
        json_answer(_ROUND_LINEUPS),
        _PARAMS,
    )
    lineups.update(
        arbiter_post(
            "A team's lineup for the round (422 with the rule it breaks: roster order, "
            "another team's player, too many players, late; `override` lets a late one in; "
            "409 when it replaces one)",
            obj(
                {
                    "team": {"type": "integer"},
                    "players": _LINEUP["properties"]["players"],
                    "override": {"type": "string"},
                },
                ["team", "players"],
            ),
            json_answer(_ROUND_LINEUPS),
            _PARAMS,
        )
    )
    return {
        f"{_ROUND}/lineups": lineups,
        f"{_ROUND}/lineups/{{team}}/withdraw": arbiter_post(
            "Take a team's lineup for the round back while the round's boards are not "
            "paired: the team has sent none again (409 until confirmed: it removes the "
            "lineup; 422 when the team has none, or the boards are paired: undo them first)",
            None,
            json_answer(_ROUND_LINEUPS),
            [*_PARAMS, _TEAM_PATH],
        ),
        f"{_ROUND}/matches": arbiter_post(
            "Pair a team round's matches: the team Berger table (a round robin), the team "
            "Swiss, or `matches` as given ([first, second] team numbers, 0: the bye). "
            "`preview` answers the matches in words and does nothing; `override` pairs a "
            "Swiss round while results before it are missing",
            obj(
                {
                    "preview": {"type": "boolean"},
                    "override": {"type": "boolean"},
                    "matches": PAIR_LIST,
                }
            ),
            json_answer(
                {
                    "oneOf": [
                        _ROUND_LINEUPS,
                        obj(
                            {
                                "preview": {"type": "object"},
                                "matches": {"type": "array", "items": _MATCH},
                            },
                            ["preview", "matches"],
                        ),
                    ]
                }
            ),
            _PARAMS,
        ),
        f"{_ROUND}/boards": arbiter_post(
            "Pair a team round board by board from its lineups (a team that sent none plays "
            "the section's fallback); its lineups are public from then on",
            None,
            json_answer(
                {
                    "allOf": [
                        _ROUND_LINEUPS,
                        obj({"pairings": {"type": "array", "items": _PAIRING}}),
                    ]
                }
            ),
            _PARAMS,
        ),
    }
