"""The OpenAPI 3.0 document of the JSON API (served at /api/v1/openapi.json). Pure.

Written by hand next to the routes rather than generated: the routes are few, and the
document is a contract (tests/test_web_api.py checks every JSON route is in it, and the
schemathesis fuzz drives the server from it).
"""

from __future__ import annotations

from typing import Any

from broadcast.actions.results import DESK_REASONS

_NULLABLE_STR = {"type": "string", "nullable": True}
_NULLABLE_INT = {"type": "integer", "nullable": True}


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _json(schema: dict[str, Any], description: str = "OK") -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


_ERRORS = {
    "400": _json(_ref("Error"), "Malformed request"),
    "404": _json(_ref("Error"), "Not found"),
    "503": _json(
        _ref("Error"),
        "Busy: spectators' requests have had their share of the server for now; try again "
        "after Retry-After seconds (arbiter routes: the journal cannot be written, so "
        "nothing was done)",
    ),
}
_AUTH_ERRORS = {
    "401": _json(_ref("Error"), "Login required"),
    "403": _json(_ref("Error"), "Disabled, or CSRF token missing"),
    "408": _json(_ref("Error"), "The request body did not arrive in time"),
    "415": _json(_ref("Error"), "A body must be application/json (a route without one: no body)"),
    "422": _json(_ref("Error"), "The action cannot be done; the message says why"),
    "429": _json(
        _ref("Error"), "Too many failed password checks from this client: wait Retry-After"
    ),
}

_SECTION = {
    "name": "section",
    "in": "path",
    "required": True,
    "description": "section name or slug",
    "schema": {"type": "string"},
}
_ROUND = {
    "name": "round",
    "in": "path",
    "required": True,
    "description": "a round number: 1 to 6 digits",
    "schema": {"type": "integer", "minimum": 1, "maximum": 999_999},
}
_GAME = {
    "name": "game",
    "in": "path",
    "required": True,
    "description": "game id, e.g. masters-r3-b2",
    "schema": {"type": "string"},
}
_SECTION_QUERY = {
    "name": "section",
    "in": "query",
    "required": False,
    "description": "section name or slug (default: the first section)",
    "schema": {"type": "string"},
}
_EVAL_QUERY = {
    "name": "eval",
    "in": "query",
    "required": False,
    "description": "1: add the engine's [%eval] after each move it has evaluated (a server "
    "started with --eval; otherwise the plain feed)",
    "schema": {"type": "string", "enum": ["0", "1"]},
}
_PGN = {
    "description": "PGN text (the delayed state)",
    "content": {"application/x-chess-pgn": {"schema": {"type": "string"}}},
}
_PNG = {
    "description": "the position as a 480x480 PNG (the delayed state; ?flip=1 from Black's side)",
    "content": {"image/png": {"schema": {"type": "string", "format": "binary"}}},
}
_SVG = {
    "description": "the position as an SVG picture (the delayed state; ?flip=1 from Black's side)",
    "content": {"image/svg+xml": {"schema": {"type": "string"}}},
}


def _get(summary: str, ok: dict[str, Any], params: list[dict[str, Any]] | None = None) -> Any:
    return {
        "get": {"summary": summary, "parameters": params or [], "responses": {"200": ok, **_ERRORS}}
    }


_SPARE_TIMES: dict[str, Any] = {
    # A spare without a clock: the times each player has left, in seconds.
    "white_seconds": {"type": "integer", "minimum": 0},
    "black_seconds": {"type": "integer", "minimum": 0},
}
_MOVED: dict[str, Any] = {
    "type": "array",
    "items": {
        "type": "object",
        "properties": {
            "game": {"type": "string"},
            "from": {"type": "integer"},
            "to": {"type": "integer"},
            "ply": {"type": "integer"},
            "in_sync": {"type": "boolean"},
            "must_show": {"type": "string", "description": "the FEN the new board must show"},
            "differs": {"type": "array", "items": {"type": "string"}},
        },
    },
}


_CONFIRM_FIELD: dict[str, Any] = {
    "description": "the token from the 409 that said what the action removes (true: "
    "whatever it removes, for scripts)",
    "oneOf": [{"type": "string"}, {"type": "boolean"}],
}
_CONFIRM_QUERY = {
    "name": "confirm",
    "in": "query",
    "required": False,
    "description": "a bare POST's confirmation: the token from the 409, or true",
    "schema": {"type": "string"},
}
_NEEDS_CONFIRMATION = _json(
    _ref("ConfirmationNeeded"),
    "The action removes something (moves, a result, pairings, a player's participation, a "
    "game's board, a prize): nothing was done. Send it again with the token as `confirm`",
)
_PLAYER_FIELD: dict[str, Any] = {
    "description": "a starting number, or the player's name (as the desk's picker gives it)",
    "oneOf": [{"type": "integer"}, {"type": "string"}],
}


def _with_action(ok: dict[str, Any]) -> dict[str, Any]:
    """An action's answer: what the route says, and the action's record (`action`)."""
    schema = ok["content"]["application/json"]["schema"]
    both = {"allOf": [schema, _obj({"action": _ref("Action")})]}
    return _json(both, ok["description"])


def _arbiter_post(
    summary: str, body: dict[str, Any] | None, ok: dict[str, Any], params: list[dict[str, Any]]
) -> Any:
    """An action route: it goes through the door (422 refused, 409 until confirmed), and
    its answer carries the action's record."""
    op: dict[str, Any] = {
        "summary": summary,
        "security": [{"basic": []}, {"session": []}],
        "parameters": params if body is not None else [*params, _CONFIRM_QUERY],
        "responses": {
            "200": _with_action(ok),
            "409": _NEEDS_CONFIRMATION,
            **_ERRORS,
            **_AUTH_ERRORS,
        },
    }
    if body is not None:
        schema = dict(body)
        schema["properties"] = {**body.get("properties", {}), "confirm": _CONFIRM_FIELD}
        op["requestBody"] = {"required": True, "content": {"application/json": {"schema": schema}}}
    return {"post": op}


def _arbiter_get(summary: str, ok: dict[str, Any], params: list[dict[str, Any]]) -> Any:
    return {
        "get": {
            "summary": summary,
            "security": [{"basic": []}, {"session": []}],
            "parameters": params,
            "responses": {"200": ok, **_ERRORS, **_AUTH_ERRORS},
        }
    }


def _obj(props: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "object", "properties": props}
    if required:
        out["required"] = required
    return out


_WORDS: dict[str, Any] = {"type": "array", "items": {"type": "string"}}

SCHEMAS: dict[str, Any] = {
    "Error": _obj({"error": {"type": "string"}}, ["error"]),
    "Action": _obj(
        {
            "seq": {"type": "integer", "description": "its record's number: what an undo names"},
            "kind": {"type": "string"},
            "summary": {"type": "string"},
            "removes": _WORDS,
            "notes": _WORDS,
        },
        ["seq", "kind", "summary"],
    ),
    "ConfirmationNeeded": _obj(
        {
            "error": {"type": "string"},
            "confirm": _obj(
                {
                    "kind": {"type": "string"},
                    "summary": {"type": "string"},
                    "removes": _WORDS,
                    "notes": _WORDS,
                    "token": {"type": "string", "description": "send it back as `confirm`"},
                },
                ["summary", "removes", "token"],
            ),
        },
        ["error", "confirm"],
    ),
    "LoggedAction": _obj(
        {
            "seq": {"type": "integer"},
            "t": {"type": "number"},
            "kind": {"type": "string"},
            "summary": {"type": "string"},
            "by": {"type": "string"},
            "removes": _WORDS,
            "undoes": {"type": "integer", "description": "the action it undid (0: none)"},
            "undone_by": {"type": "integer", "description": "the undo in force (0: in force)"},
        },
        ["seq", "kind", "summary", "by", "undone_by"],
    ),
    "Player": {
        **_obj(
            {
                "start": {"type": "integer"},
                "name": {"type": "string"},
                "rating": _NULLABLE_INT,
                "title": _NULLABLE_STR,
                "federation": _NULLABLE_STR,
                "fide_id": _NULLABLE_STR,
            },
            ["start", "name"],
        ),
        "nullable": True,
    },
    "Clock": _obj(
        {
            "white": _NULLABLE_INT,
            "black": _NULLABLE_INT,
            "running": {"type": "string", "enum": ["white", "black"], "nullable": True},
        }
    ),
    "GameSummary": _obj(
        {
            "id": {"type": "string"},
            "section": {"type": "string"},
            "round": {"type": "integer"},
            "board": {"type": "integer", "description": "the section's pairing board"},
            "table": {
                "type": "integer",
                "description": "the hall's table, one number across sections (docs/config.md, "
                "first_table); a single section's tables are its boards",
            },
            "white": _ref("Player"),
            "black": _ref("Player"),
            "result": {
                "type": "string",
                "enum": ["1-0", "0-1", "1/2-1/2", "0-0", "*"],
                "description": "as in PGN: '*' while undecided, '0-0' a double forfeit",
            },
            "result_reason": {
                "type": "string",
                "nullable": True,
                "description": "why: 'checkmate', 'time forfeit', 'kings signal', "
                "'default time', 'agreement', 'arbiter', ...",
            },
            "flag": {
                "type": "string",
                "enum": ["white", "black"],
                "nullable": True,
                "description": "whose flag fell (first)",
            },
            "pending_result": {
                **_obj(
                    {"result": {"type": "string"}, "reason": {"type": "string"}},
                    ["result", "reason"],
                ),
                "nullable": True,
                "description": "a result proposed (by the rules or the board) that the "
                "arbiter has not confirmed yet",
            },
            "ply": {"type": "integer"},
            "fen": {"type": "string"},
            "last_move": {
                **_obj({"san": {"type": "string"}, "uci": {"type": "string"}}),
                "nullable": True,
            },
            "clock": _ref("Clock"),
            "in_sync": {"type": "boolean"},
        },
        [
            *("id", "section", "round", "board", "table", "ply", "fen"),
            *("result", "result_reason", "flag", "pending_result"),
        ],
    ),
    "Game": {
        "allOf": [
            _ref("GameSummary"),
            _obj(
                {
                    "start_fen": {"type": "string"},
                    "moves": {
                        "type": "array",
                        "items": _obj(
                            {
                                "ply": {"type": "integer"},
                                "san": {"type": "string"},
                                "uci": {"type": "string"},
                                "fen": {"type": "string"},
                                "clock": {"type": "number", "nullable": True},
                                "emt": {"type": "number", "nullable": True},
                                "software_clock": {"type": "boolean"},
                            }
                        ),
                    },
                    "eval": _ref("Evaluation"),
                }
            ),
        ]
    },
    "Evaluation": {
        **_obj(
            {
                "fen": {"type": "string", "description": "the position evaluated"},
                "depth": {"type": "integer", "minimum": 0},
                "cp": {
                    "type": "integer",
                    "description": "centipawns from White's side (absent when `mate`)",
                },
                "mate": {
                    "type": "integer",
                    "description": "mate in N moves: > 0 White mates, < 0 Black mates "
                    "(absent when `cp`)",
                },
                "pv": {
                    "type": "array",
                    "items": {"type": "string"},
                    "description": "the engine's best line in SAN, a few plies",
                },
            },
            ["fen", "depth", "pv"],
        ),
        "nullable": True,
        "description": "Stockfish's evaluation of the game's (public) position, when the "
        "server evaluates (`--eval`) and has reached it; null otherwise",
    },
    "Round": _obj(
        {
            "section": {"type": "string"},
            "round": {"type": "integer"},
            "games": {"type": "array", "items": _ref("GameSummary")},
        },
        ["section", "round", "games"],
    ),
    "Section": _obj(
        {
            "name": {"type": "string"},
            "slug": {"type": "string"},
            "system": {"type": "string"},
            "rounds": {"type": "integer"},
            "paired_rounds": {"type": "array", "items": {"type": "integer"}},
            "live_round": _NULLABLE_INT,
            "time_control": {"type": "string"},
            "tiebreaks": {"type": "array", "items": {"type": "string"}},
            "schedule": {
                "type": "array",
                "items": _obj({"round": {"type": "integer"}, "start": {"type": "string"}}),
            },
        }
    ),
    "Event": _obj(
        {
            "name": {"type": "string"},
            "site": {"type": "string"},
            "timezone": {"type": "string"},
            "broadcast_delay_seconds": {"type": "number"},
            "sections": {"type": "array", "items": _ref("Section")},
        },
        ["name", "sections"],
    ),
    "Standings": {
        "type": "array",
        "items": _obj(
            {
                "rank": {"type": "integer"},
                "start": {"type": "integer"},
                "name": {"type": "string"},
                "points": {"type": "number"},
                "rating": _NULLABLE_INT,
                "federation": {"type": "string"},
                "title": {"type": "string"},
                "tiebreaks": {
                    "type": "object",
                    "additionalProperties": {"type": "number", "nullable": True},
                },
                "note": {
                    "type": "string",
                    "description": (
                        "withdrawn, disqualified, play-off pending or won, results or games "
                        "left out by the withdrawal rule; else empty"
                    ),
                },
                "undecided": {
                    "type": "boolean",
                    "description": "level for first place, which a play-off not yet played decides",
                },
                "excluded": {
                    "type": "boolean",
                    "description": (
                        "left out of the ranking by FIDE's round-robin withdrawal rule "
                        "(under half of the games played): listed last, tie-breaks null, "
                        "no prize; the note says why"
                    ),
                },
            }
        ),
    },
    "Prizes": _obj(
        {
            "currency": {"type": "string"},
            "provisional": {"type": "boolean"},
            "retention_stated": {"type": "boolean"},
            "prizes": {
                "type": "array",
                "items": _obj(
                    {
                        "start": {"type": "integer"},
                        "name": {"type": "string"},
                        "rank": {"type": "integer"},
                        "place": {"type": "number"},
                        "pool": {"type": "number"},
                        "category": {"type": "number"},
                        "category_name": {"type": "string"},
                        "total": {"type": "number"},
                        "retention": {"type": "number"},
                        "net": {"type": "number"},
                    }
                ),
            },
            "withheld": {
                "type": "array",
                "items": _obj(
                    {
                        "start": {"type": "integer"},
                        "name": {"type": "string"},
                        "reason": {"type": "string"},
                        "not_paid": {
                            "type": "number",
                            "description": "the prize nobody is paid (withheld = "
                            '"not-awarded"); 0 when it passed to the next player',
                        },
                    }
                ),
            },
        }
    ),
    "Pairings": {
        "type": "array",
        "items": _obj(
            {
                "round": {"type": "integer"},
                "pairings": {
                    "type": "array",
                    "items": _obj(
                        {
                            "board": {"type": "integer", "description": "0 for a bye"},
                            "table": {**_NULLABLE_INT, "description": "null for a bye"},
                            "white": _ref("Player"),
                            "black": _ref("Player"),
                            "result": _NULLABLE_STR,
                            "bye": {"type": "boolean"},
                        }
                    ),
                },
            }
        ),
    },
    "Board": _obj(
        {
            "number": {"type": "integer", "description": "the e-board's number in the config"},
            "table": {"type": "integer", "description": "the hall's table it stands on"},
            "port": {"type": "string"},
            "address": _NULLABLE_INT,
            "section": {"type": "string"},
            "serial": _NULLABLE_STR,
            "connected": {"type": "boolean"},
            "battery": _NULLABLE_INT,
            "clock_present": {"type": "boolean", "nullable": True},
            "last_seen": {"type": "number", "nullable": True},
            "missed_polls": {"type": "integer"},
            "game": _NULLABLE_STR,
            "in_sync": {"type": "boolean", "nullable": True},
            "out_since": {"type": "number", "nullable": True},
            "players": {"type": "array", "items": {"type": "string"}, "nullable": True},
        }
    ),
    # The hall view and the results table (web/arbiter/hall.py).
    "Hall": _obj(
        {
            "rounds": {
                "type": "array",
                "items": _obj({"section": {"type": "string"}, "round": {"type": "integer"}}),
            },
            "counts": {
                "type": "object",
                "additionalProperties": {"type": "integer"},
                "description": "tables, and how many are playing, pending, finished, absent, "
                "trouble, needs_me",
            },
            "results": _WORDS,
            "tables": {
                "type": "array",
                "description": "every table of the live round(s), in table order",
                "items": _obj(
                    {
                        "table": {"type": "integer", "description": "the hall's table number"},
                        "section": {"type": "string"},
                        "round": {"type": "integer"},
                        "board": {"type": "integer", "description": "the section's pairing board"},
                        "game": {"type": "string"},
                        "white": {"type": "object", "nullable": True},
                        "black": {"type": "object", "nullable": True},
                        "state": {
                            "type": "string",
                            "enum": ["playing", "pending", "finished", "absent", "trouble"],
                        },
                        "needs_me": {"type": "boolean"},
                        "result": {**_NULLABLE_STR, "description": "1-0, 1/2-1/2, +/-, ..."},
                        "result_reason": _NULLABLE_STR,
                        "proposal": {"type": "object", "nullable": True},
                        "presence": _obj(
                            {"white": {"type": "boolean"}, "black": {"type": "boolean"}}
                        ),
                        "alerts": {"type": "array", "items": {"type": "object"}},
                        "wired": {"type": "boolean"},
                        "hall_board": _NULLABLE_INT,
                        "connected": {"type": "boolean", "nullable": True},
                        "ply": {"type": "integer"},
                        "to_move": {"type": "string", "enum": ["white", "black"]},
                        "fen": {"type": "string"},
                        "last_move": {"type": "object", "nullable": True},
                        "clock": {"type": "object", "nullable": True},
                        "flag": _NULLABLE_STR,
                    }
                ),
            },
        },
        ["rounds", "counts", "tables"],
    ),
    "Alert": _obj(
        {
            "id": {"type": "string"},
            "title": {
                "type": "string",
                "description": "in words: the table, both players, what happened (English)",
            },
            "titles": {
                "type": "object",
                "additionalProperties": {"type": "string"},
                "description": "the title in each of the desk's other languages, by code",
            },
            "kind": {"type": "string"},
            "severity": {"type": "string", "enum": ["info", "warning", "critical"]},
            "section": {"type": "string"},
            "round": {"type": "integer"},
            "board": {"type": "integer", "description": "the game's pairing board (0: none)"},
            "table": {**_NULLABLE_INT, "description": "the game's hall table (null: no game)"},
            "game": _NULLABLE_STR,
            "players": {"type": "array", "items": {"type": "string"}},
            "message": {"type": "string", "description": "what to do (English)"},
            "messages": {
                "type": "object",
                "additionalProperties": {"type": "string"},
                "description": "the message in each of the desk's other languages, by code",
            },
            "t": {"type": "number"},
            "hall_board": _NULLABLE_STR,
            "result": {
                **_NULLABLE_STR,
                "description": "result-proposed: the proposed result (+/- etc. for forfeits)",
            },
            "reason": {**_NULLABLE_STR, "description": "result-proposed: the reason code"},
            "reason_text": _NULLABLE_STR,
        }
    ),
    "ArbiterGame": {
        "allOf": [
            _ref("Game"),
            _obj(
                {
                    "result_code": {
                        **_NULLABLE_STR,
                        "description": "the result in the broadcast notation (+/-, -/+, -/-)",
                    },
                    "proposal": {
                        **_obj(
                            {
                                "result": {"type": "string"},
                                "reason": {"type": "string"},
                                "detail": _NULLABLE_STR,
                                "t": {"type": "number"},
                            }
                        ),
                        "nullable": True,
                    },
                }
            ),
        ]
    },
}


def _regulation_paths() -> dict[str, Any]:
    """Byes through the policy, withdrawals, absences, late entries and replacements,
    play-off games, prizes."""
    bye = {
        "section": {"type": "string"},
        "round": {"type": "integer"},
        "player": _PLAYER_FIELD,
        "override": {
            "type": "boolean",
            "description": "grant (cancel) even if the regulations refuse: journaled, flagged",
        },
    }
    done = {"type": "object"}
    override = {"type": "string", "description": "the refusal overridden, or empty"}
    newcomer = {
        "name": {"type": "string", "description": "the newcomer's name, Surname, Given"},
        "rating": {"type": "integer", "description": "FIDE rating, 0 when unrated"},
        "fide_id": {"type": "string"},
        "federation": {"type": "string", "description": "three letters, e.g. ESP"},
        "title": {"type": "string"},
        "sex": {"type": "string", "description": "M or F"},
        "birth": {"type": "string", "description": "year of birth, e.g. 1998"},
    }
    missed = {
        "type": "number",
        "enum": [0, 0.5, None],
        "nullable": True,
        "description": "points per missed round (default: the section's setting)",
    }
    return {
        "/api/v1/prizes": _get(
            "The prize list from the standings (first section, or ?section=)",
            _json(_ref("Prizes")),
            [_SECTION_QUERY],
        ),
        "/api/v1/sections/{section}/prizes": _get(
            "The prize list from the standings", _json(_ref("Prizes")), [_SECTION]
        ),
        "/api/v1/arbiter/bye-requests": _arbiter_post(
            "Request a bye: granted, or refused (422) with the regulation's reason",
            _obj(bye, ["section", "round", "player"]),
            _json(_obj({"granted": done, "override": override})),
            [],
        ),
        "/api/v1/arbiter/bye-cancellations": _arbiter_post(
            "Cancel a granted bye (until the request deadline, unless overridden)",
            _obj(bye, ["section", "round", "player"]),
            _json(_obj({"cancelled": done, "override": override})),
            [],
        ),
        "/api/v1/arbiter/withdrawals": _arbiter_post(
            "Withdraw or eliminate a player: their games not yet played follow the config "
            "(a Swiss game paired and not begun: a forfeit won by the opponent). Without "
            "`from_round`: from the next round to be paired (a round robin: the first round "
            "not begun); earlier rounds keep their games. Asks first",
            _obj(
                {
                    "section": {"type": "string"},
                    "player": _PLAYER_FIELD,
                    "from_round": {"type": "integer", "nullable": True},
                    "reason": {"type": "string"},
                },
                ["section", "player"],
            ),
            _json(_obj({"withdrawn": done})),
            [],
        ),
        "/api/v1/arbiter/reinstatements": _arbiter_post(
            "Reinstate a withdrawn player: the forfeits their withdrawal entered, not changed "
            "since, are taken back (asks first when there are any)",
            _obj(
                {
                    "section": {"type": "string"},
                    "player": _PLAYER_FIELD,
                    "reason": {"type": "string"},
                },
                ["section", "player"],
            ),
            _json(_obj({"reinstated": done})),
            [],
        ),
        "/api/v1/arbiter/prizes/withheld": _arbiter_post(
            "Withhold a player's prize, with the reason (it passes to the next eligible player)",
            _obj(
                {
                    "section": {"type": "string"},
                    "player": _PLAYER_FIELD,
                    "reason": {"type": "string"},
                },
                ["section", "player", "reason"],
            ),
            _json(_obj({"withheld": done})),
            [],
        ),
        "/api/v1/arbiter/prizes/restored": _arbiter_post(
            "Give back a withheld prize (the arbiter's, or an elimination's)",
            _obj(
                {
                    "section": {"type": "string"},
                    "player": _PLAYER_FIELD,
                    "reason": {"type": "string"},
                },
                ["section", "player"],
            ),
            _json(_obj({"restored": done})),
            [],
        ),
        "/api/v1/arbiter/continuations": _arbiter_post(
            "Record a player's written request to continue after an absence",
            _obj(
                {k: bye[k] for k in ("section", "round", "player")}, ["section", "round", "player"]
            ),
            _json(_obj({"continues": done})),
            [],
        ),
        "/api/v1/arbiter/late-entries": _arbiter_post(
            "A late entry in a Swiss: the next free starting number, paired from the round "
            "they join; refused (422) in a round robin",
            _obj(
                {
                    "section": {"type": "string"},
                    **newcomer,
                    "config_player": {
                        "type": "integer",
                        "nullable": True,
                        "description": "instead of the particulars: the config's player (added "
                        "to the config after the start)",
                    },
                    "from_round": {
                        "type": "integer",
                        "nullable": True,
                        "description": "the round they join (default: the next not paired)",
                    },
                    "missed_round_points": missed,
                },
                ["section"],
            ),
            _json(_obj({"entered": done})),
            [],
        ),
        "/api/v1/arbiter/replacements": _arbiter_post(
            "Another participant takes a player's place in the pairings not yet played",
            _obj(
                {
                    "section": {"type": "string"},
                    "player": {**_PLAYER_FIELD, "description": "the player replaced"},
                    **newcomer,
                    "override": {
                        "type": "string",
                        "description": "the arbiter's reason, to replace a withdrawn player "
                        "who has played",
                    },
                    "missed_round_points": missed,
                },
                ["section", "player", "name"],
            ),
            _json(_obj({"replaced": done})),
            [],
        ),
        "/api/v1/arbiter/playoff-games": _arbiter_post(
            "Pair the next play-off game for first place (blitz or Armageddon)",
            _obj(
                {
                    "section": {"type": "string"},
                    "white": _PLAYER_FIELD,
                    "black": _PLAYER_FIELD,
                    "board": {"type": "integer", "nullable": True},
                },
                ["section", "white", "black"],
            ),
            _json(
                _obj(
                    {
                        "number": {"type": "integer"},
                        "kind": {"type": "string"},
                        "game": {"type": "string"},
                        "white": {"type": "integer"},
                        "black": {"type": "integer"},
                    }
                )
            ),
            [],
        ),
    }


def document() -> dict[str, Any]:
    """The whole OpenAPI document."""
    game = _json(_ref("Game"))
    paths: dict[str, Any] = {
        "/api/v1/event": _get("The event: sections, schedule, live rounds", _json(_ref("Event"))),
        "/api/v1/rounds/{round}": _get(
            "A round's games (first section, or ?section=)",
            _json(_ref("Round")),
            [_ROUND, _SECTION_QUERY],
        ),
        "/api/v1/sections/{section}/rounds/{round}": _get(
            "A round's games", _json(_ref("Round")), [_SECTION, _ROUND]
        ),
        "/api/v1/games/{game}": _get("One game with its moves", game, [_GAME]),
        "/api/v1/standings": _get(
            "Standings with the section's tie-breaks", _json(_ref("Standings")), [_SECTION_QUERY]
        ),
        "/api/v1/sections/{section}/standings": _get(
            "Standings with the section's tie-breaks", _json(_ref("Standings")), [_SECTION]
        ),
        "/api/v1/pairings": _get(
            "Pairings and results of every paired round", _json(_ref("Pairings")), [_SECTION_QUERY]
        ),
        "/api/v1/sections/{section}/pairings": _get(
            "Pairings and results of every paired round", _json(_ref("Pairings")), [_SECTION]
        ),
        "/api/v1/rounds/{round}.pgn": _get(
            "A round as PGN (Lichess relay polling format)",
            _PGN,
            [_ROUND, _SECTION_QUERY, _EVAL_QUERY],
        ),
        "/api/v1/sections/{section}/rounds/{round}.pgn": _get(
            "A round as PGN", _PGN, [_SECTION, _ROUND, _EVAL_QUERY]
        ),
        "/api/v1/games/{game}.pgn": _get("One game as PGN", _PGN, [_GAME, _EVAL_QUERY]),
        "/api/v1/games/{game}.svg": _get("One game's position as a picture", _SVG, [_GAME]),
        "/api/v1/games/{game}.png": _get(
            "One game's position as a PNG picture (the link preview's image; 404 where "
            "the cairo library is missing)",
            _PNG,
            [_GAME],
        ),
        "/api/v1/event.pgn": _get("Every game of the event as PGN", _PGN, [_EVAL_QUERY]),
        "/api/v1/arbiter/boards": _arbiter_get(
            "Every hall board's health (live)", _json({"type": "array", "items": _ref("Board")}), []
        ),
        "/api/v1/arbiter/alerts": _arbiter_get(
            "Open alerts (live)", _json({"type": "array", "items": _ref("Alert")}), []
        ),
        "/api/v1/arbiter/hall": _arbiter_get(
            "Every table of the live round(s) in table order, its state at a glance, and "
            "the counts (live)",
            _json(_ref("Hall")),
            [],
        ),
        "/api/v1/arbiter/games/{game}": _arbiter_get(
            "One game, live, with the proposal waiting for a word",
            _json(_ref("ArbiterGame")),
            [_GAME],
        ),
        "/api/v1/arbiter/games/{game}/result": _arbiter_post(
            "Set or override the result",
            _obj(
                {
                    "result": {
                        "type": "string",
                        "enum": ["1-0", "0-1", "1/2-1/2", "+/-", "-/+", "-/-"],
                    },
                    "reason": {
                        "type": "string",
                        "enum": list(DESK_REASONS),
                        "description": "default: forfeit for a forfeit, agreement for a draw "
                        "(checked against the early-draw rule), else arbiter",
                    },
                },
                ["result"],
            ),
            game,
            [_GAME],
        ),
        "/api/v1/arbiter/games/{game}/confirm": _arbiter_post(
            "Confirm the proposed result", None, game, [_GAME]
        ),
        "/api/v1/arbiter/games/{game}/reject": _arbiter_post(
            "Reject the proposed result: the game goes on (422 when none is waiting; asks first)",
            None,
            game,
            [_GAME],
        ),
        "/api/v1/arbiter/games/{game}/line": _arbiter_post(
            "Replace the game's line (UCI or SAN moves from the start position; an empty "
            "line on a game with moves is refused; removing plies asks first)",
            _obj({"moves": {"type": "array", "items": {"type": "string"}}}, ["moves"]),
            game,
            [_GAME],
        ),
        "/api/v1/arbiter/games/{game}/scoresheet": _arbiter_post(
            "Enter the moves of the game's scoresheet (PGN movetext or SAN; the game's "
            "result stays; an illegal move is refused naming its move number; replacing "
            "moves asks first)",
            _obj({"text": {"type": "string", "maxLength": 20000}}, ["text"]),
            game,
            [_GAME],
        ),
        "/api/v1/arbiter/games/{game}/takeback": _arbiter_post(
            "Take back the last plies (asks first)",
            _obj({"plies": {"type": "integer", "minimum": 1, "description": "default 1"}}),
            game,
            [_GAME],
        ),
        "/api/v1/arbiter/games/{game}/move": _arbiter_post(
            "Replace ply `ply` with a move (SAN or UCI; the ply after the last adds one); "
            "the later plies stay while legal (removing any asks first)",
            _obj(
                {"ply": {"type": "integer", "minimum": 1}, "move": {"type": "string"}},
                ["ply", "move"],
            ),
            game,
            [_GAME],
        ),
        "/api/v1/arbiter/games/{game}/start-fen": _arbiter_post(
            "Set the game's start position (a game with moves: only `on_purpose`, and it "
            "asks first)",
            _obj(
                {
                    "fen": {"type": "string"},
                    "on_purpose": {
                        "type": "boolean",
                        "description": "Chess960 or an adjourned game: the moves go",
                    },
                },
                ["fen"],
            ),
            game,
            [_GAME],
        ),
        "/api/v1/arbiter/games/{game}/present": _arbiter_post(
            "Mark a player present (both: the whole table)",
            _obj({"colour": {"type": "string", "enum": ["white", "black", "both"]}}, ["colour"]),
            game,
            [_GAME],
        ),
        "/api/v1/arbiter/games/{game}/absent": _arbiter_post(
            "Mark a player absent (a hall walk; the forfeit follows at the default time)",
            _obj({"colour": {"type": "string", "enum": ["white", "black", "both"]}}, ["colour"]),
            game,
            [_GAME],
        ),
        "/api/v1/arbiter/alerts/{alert}/ack": _arbiter_post(
            "Acknowledge an alert",
            None,
            _json(_obj({"acknowledged": {"type": "string"}})),
            [{"name": "alert", "in": "path", "required": True, "schema": {"type": "string"}}],
        ),
        "/api/v1/arbiter/byes": _arbiter_post(
            "Request a bye through the section's policy (422 with the reason if refused)",
            _obj(
                {
                    "section": {"type": "string"},
                    "round": {"type": "integer"},
                    "player": _PLAYER_FIELD,
                },
                ["section", "round", "player"],
            ),
            _json(_obj({"granted": {"type": "object"}})),
            [],
        ),
        "/api/v1/arbiter/actions": _arbiter_get(
            "The newest actions first: number, words, who, and what undid each",
            _json({"type": "array", "items": _ref("LoggedAction")}),
            [
                {
                    "name": "limit",
                    "in": "query",
                    "required": False,
                    "schema": {"type": "integer", "minimum": 1, "maximum": 1000},
                }
            ],
        ),
        "/api/v1/arbiter/held": _arbiter_get(
            "News the public does not see yet: it follows from results the delay still hides",
            _json(
                {
                    "type": "array",
                    "items": _obj(
                        {
                            "section": {"type": "string"},
                            "kind": {
                                "type": "string",
                                "enum": [
                                    "pairings",
                                    "withdrawal",
                                    "reinstatement",
                                    "play-off game",
                                ],
                            },
                            "round": {"type": "integer"},
                            "player": {"type": "integer", "nullable": True},
                            "hidden_results": {"type": "array", "items": {"type": "object"}},
                            "public_at": {"type": "number", "nullable": True},
                        }
                    ),
                }
            ),
            [],
        ),
        "/api/v1/arbiter/sections/{section}/rounds/{round}/release": _arbiter_post(
            "Show a round's pairings to the public now, before the results they follow "
            "from are public (asks first: 409 names what it reveals; cannot be undone)",
            None,
            _json(
                _obj(
                    {
                        "section": {"type": "string"},
                        "round": {"type": "integer"},
                        "released": {"type": "boolean"},
                    }
                )
            ),
            [
                {"name": "section", "in": "path", "required": True, "schema": {"type": "string"}},
                _ROUND,
            ],
        ),
        "/api/v1/arbiter/actions/{seq}/undo": _arbiter_post(
            "Undo an action (asks first: 409 with what goes and what comes back)",
            None,
            _json(_obj({"undone": {"type": "integer"}})),
            [{"name": "seq", "in": "path", "required": True, "schema": {"type": "integer"}}],
        ),
        "/api/v1/arbiter/boards/assign": _arbiter_post(
            "Move a game (by its White) to another hall board, moves and all (a spare)",
            _obj(
                {
                    "section": {"type": "string"},
                    "round": {"type": "integer"},
                    "white": _PLAYER_FIELD,
                    "board": {"type": "integer"},
                    "swap": {
                        "type": "boolean",
                        "description": "a board whose game is in play: the games exchange",
                    },
                    **_SPARE_TIMES,
                },
                ["section", "round", "white", "board"],
            ),
            _json(_obj({"assigned": {"type": "object"}, "moved": _MOVED})),
            [],
        ),
        "/api/v1/arbiter/games/{game}/replace-board": _arbiter_post(
            "Move the game to a spare: a hall board, or the board with a DGT serial",
            _obj(
                {
                    "board": {"type": "integer"},
                    "serial": {"type": "string"},
                    "swap": {
                        "type": "boolean",
                        "description": "a board whose game is in play: the games exchange",
                    },
                    **_SPARE_TIMES,
                },
                [],
            ),
            game,
            [_GAME],
        ),
        "/api/v1/arbiter/sections/{section}/rounds/{round}/pairings": _arbiter_post(
            "Pair a round: import the pairing program's TRF, FIDE Dutch, or pairs by hand",
            _obj(
                {
                    "trf": {"type": "string"},
                    "engine": {"type": "string", "enum": ["dutch"]},
                    "override": {
                        "type": "boolean",
                        "description": "TRF: accept its byes as they are; Dutch: pair while "
                        "results of the rounds before are missing",
                    },
                    "pairs": {
                        "type": "array",
                        "items": {
                            "type": "array",
                            "items": {"type": "integer"},
                            "minItems": 2,
                            "maxItems": 2,
                        },
                    },
                }
            ),
            _json(
                _obj(
                    {
                        "section": {"type": "string"},
                        "round": {"type": "integer"},
                        "source": {"type": "string"},
                        "pairings": {"type": "array", "items": {"type": "object"}},
                    }
                )
            ),
            [
                {"name": "section", "in": "path", "required": True, "schema": {"type": "string"}},
                _ROUND,
            ],
        ),
    }
    paths.update(_regulation_paths())
    pairing = paths["/api/v1/arbiter/sections/{section}/rounds/{round}/pairings"]["post"]
    pairing["description"] = (
        "FIDE Dutch runs in a worker process: a big Swiss can take a minute, the answer "
        "comes when the pairings are published; the boards and pages are served meanwhile."
    )
    pairing["responses"]["409"] = _json(
        {"oneOf": [_ref("ConfirmationNeeded"), _ref("Error")]},
        "A round already paired: the difference, and what it drops, to confirm (`confirm`); "
        "or that round is being paired already, or the section changed while it was",
    )
    return {
        "openapi": "3.0.3",
        "info": {
            "title": "boardwire API",
            "version": "1",
            "description": "Public routes serve the delayed state; /api/v1/arbiter needs a login.",
        },
        "paths": paths,
        "components": {
            "schemas": SCHEMAS,
            "securitySchemes": {
                "basic": {"type": "http", "scheme": "basic"},
                "session": {"type": "apiKey", "in": "cookie", "name": "bw_session"},
            },
        },
    }


__all__ = ["SCHEMAS", "document"]
