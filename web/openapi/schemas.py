"""The OpenAPI document's component schemas: what each JSON answer and body holds, by
name (`#/components/schemas/<name>`). Written by hand beside `web.json_views`, which
makes the answers. Pure.
"""

from __future__ import annotations

from typing import Any

from broadcast.fide.results import Result
from web.openapi.parts import NULLABLE_INT, NULLABLE_STR, WORD_LIST, obj, ref

SCHEMAS: dict[str, Any] = {
    "Error": obj({"error": {"type": "string"}}, ["error"]),
    "Action": obj(
        {
            "seq": {"type": "integer", "description": "its record's number: what an undo names"},
            "kind": {"type": "string"},
            "summary": {"type": "string"},
            "removes": WORD_LIST,
            "notes": WORD_LIST,
        },
        ["seq", "kind", "summary"],
    ),
    "ConfirmationNeeded": obj(
        {
            "error": {"type": "string"},
            "confirm": obj(
                {
                    "kind": {"type": "string"},
                    "summary": {"type": "string"},
                    "removes": WORD_LIST,
                    "notes": WORD_LIST,
                    "token": {"type": "string", "description": "send it back as `confirm`"},
                },
                ["summary", "removes", "token"],
            ),
        },
        ["error", "confirm"],
    ),
    "LoggedAction": obj(
        {
            "seq": {"type": "integer"},
            "t": {"type": "number"},
            "kind": {"type": "string"},
            "summary": {"type": "string"},
            "by": {"type": "string"},
            "removes": WORD_LIST,
            "undoes": {"type": "integer", "description": "the action it undid (0: none)"},
            "undone_by": {"type": "integer", "description": "the undo in force (0: in force)"},
        },
        ["seq", "kind", "summary", "by", "undone_by"],
    ),
    "Player": {
        **obj(
            {
                "start": {"type": "integer"},
                "name": {"type": "string"},
                "rating": NULLABLE_INT,
                "title": NULLABLE_STR,
                "federation": NULLABLE_STR,
                "fide_id": NULLABLE_STR,
            },
            ["start", "name"],
        ),
        "nullable": True,
    },
    "Clock": obj(
        {
            "white": NULLABLE_INT,
            "black": NULLABLE_INT,
            "running": {"type": "string", "enum": ["white", "black"], "nullable": True},
        }
    ),
    "GameSummary": obj(
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
            "white": ref("Player"),
            "black": ref("Player"),
            "result": {
                "type": "string",
                "enum": [*dict.fromkeys(r.pgn_tag for r in Result), "*"],
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
                **obj(
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
                **obj({"san": {"type": "string"}, "uci": {"type": "string"}}),
                "nullable": True,
            },
            "clock": ref("Clock"),
            "in_sync": {"type": "boolean"},
            # A team section's game only (web.game_teams): its match and the teams.
            "match": {"type": "integer", "description": "team sections: the match"},
            "match_board": {"type": "integer", "description": "team sections: board in match"},
            "first_is_white": {
                "type": "boolean",
                "description": "team sections: the team named first in the match has White",
            },
            "white_team": ref("Team"),
            "black_team": ref("Team"),
        },
        [
            *("id", "section", "round", "board", "table", "ply", "fen"),
            *("result", "result_reason", "flag", "pending_result"),
        ],
    ),
    "Game": {
        "allOf": [
            ref("GameSummary"),
            obj(
                {
                    "start_fen": {"type": "string"},
                    "moves": {
                        "type": "array",
                        "items": obj(
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
                    "eval": ref("Evaluation"),
                }
            ),
        ]
    },
    "Evaluation": {
        **obj(
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
    "Round": obj(
        {
            "section": {"type": "string"},
            "round": {"type": "integer"},
            "games": {"type": "array", "items": ref("GameSummary")},
        },
        ["section", "round", "games"],
    ),
    "Section": obj(
        {
            "name": {"type": "string"},
            "slug": {"type": "string"},
            "system": {"type": "string"},
            "rounds": {"type": "integer"},
            "paired_rounds": {"type": "array", "items": {"type": "integer"}},
            "live_round": NULLABLE_INT,
            "time_control": {"type": "string"},
            "tiebreaks": {"type": "array", "items": {"type": "string"}},
            "schedule": {
                "type": "array",
                "items": obj({"round": {"type": "integer"}, "start": {"type": "string"}}),
            },
        }
    ),
    "Event": obj(
        {
            "name": {"type": "string"},
            "site": {"type": "string"},
            "timezone": {"type": "string"},
            "broadcast_delay_seconds": {"type": "number"},
            "sections": {"type": "array", "items": ref("Section")},
        },
        ["name", "sections"],
    ),
    "Standings": {
        "type": "array",
        "items": obj(
            {
                "rank": {"type": "integer"},
                "start": {"type": "integer"},
                "name": {"type": "string"},
                "points": {"type": "number"},
                "rating": NULLABLE_INT,
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
    "Prizes": obj(
        {
            "currency": {"type": "string"},
            "provisional": {"type": "boolean"},
            "retention_stated": {"type": "boolean"},
            "prizes": {
                "type": "array",
                "items": obj(
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
                "items": obj(
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
        "items": obj(
            {
                "round": {"type": "integer"},
                "pairings": {
                    "type": "array",
                    "items": obj(
                        {
                            "board": {"type": "integer", "description": "0 for a bye"},
                            "table": {**NULLABLE_INT, "description": "null for a bye"},
                            "white": ref("Player"),
                            "black": ref("Player"),
                            "result": NULLABLE_STR,
                            "bye": {"type": "boolean"},
                        }
                    ),
                },
            }
        ),
    },
    "Board": obj(
        {
            "number": {"type": "integer", "description": "the e-board's number in the config"},
            "table": {"type": "integer", "description": "the hall's table it stands on"},
            "port": {"type": "string"},
            "address": NULLABLE_INT,
            "section": {"type": "string"},
            "serial": NULLABLE_STR,
            "connected": {"type": "boolean"},
            "battery": NULLABLE_INT,
            "clock_present": {"type": "boolean", "nullable": True},
            "last_seen": {"type": "number", "nullable": True},
            "missed_polls": {"type": "integer"},
            "game": NULLABLE_STR,
            "in_sync": {"type": "boolean", "nullable": True},
            "out_since": {"type": "number", "nullable": True},
            "players": {"type": "array", "items": {"type": "string"}, "nullable": True},
        }
    ),
    # A capture station as the central serve sees it (broadcast/stations/station_health.py).
    "Station": obj(
        {
            "name": {"type": "string"},
            "up": {"type": "boolean", "description": "a heartbeat within the last 5 s"},
            "seen": {"type": "boolean", "description": "heard from since the serve started"},
            "lag": {
                "type": "number",
                "nullable": True,
                "description": "seconds: the serve's event time minus its last heartbeat's",
            },
            "offset": {
                "type": "number",
                "nullable": True,
                "description": "seconds: its clock minus the serve's (both against Redis)",
            },
            "boards": {"type": "array", "items": {"type": "integer"}},
            "connected": {"type": "array", "items": {"type": "integer"}},
            "waiting": {"type": "integer", "description": "events in its outbox not yet sent"},
            "host": {"type": "string"},
        },
        ["name", "up", "seen", "lag", "offset", "boards", "connected", "waiting", "host"],
    ),
    # The hall view and the results table (web/arbiter/hall.py).
    "Hall": obj(
        {
            "rounds": {
                "type": "array",
                "items": obj({"section": {"type": "string"}, "round": {"type": "integer"}}),
            },
            "counts": {
                "type": "object",
                "additionalProperties": {"type": "integer"},
                "description": "tables, and how many are playing, pending, finished, absent, "
                "trouble, needs_me",
            },
            "results": WORD_LIST,
            "tables": {
                "type": "array",
                "description": "every table of the live round(s), in table order",
                "items": obj(
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
                        "result": {**NULLABLE_STR, "description": "1-0, 1/2-1/2, +/-, ..."},
                        "result_reason": NULLABLE_STR,
                        "proposal": {"type": "object", "nullable": True},
                        "presence": obj(
                            {"white": {"type": "boolean"}, "black": {"type": "boolean"}}
                        ),
                        "alerts": {"type": "array", "items": {"type": "object"}},
                        "wired": {"type": "boolean"},
                        "hall_board": NULLABLE_INT,
                        "connected": {"type": "boolean", "nullable": True},
                        "ply": {"type": "integer"},
                        "to_move": {"type": "string", "enum": ["white", "black"]},
                        "fen": {"type": "string"},
                        "last_move": {"type": "object", "nullable": True},
                        "clock": {"type": "object", "nullable": True},
                        "flag": NULLABLE_STR,
                    }
                ),
            },
        },
        ["rounds", "counts", "tables"],
    ),
    "Alert": obj(
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
            "table": {**NULLABLE_INT, "description": "the game's hall table (null: no game)"},
            "game": NULLABLE_STR,
            "players": {"type": "array", "items": {"type": "string"}},
            "message": {"type": "string", "description": "what to do (English)"},
            "messages": {
                "type": "object",
                "additionalProperties": {"type": "string"},
                "description": "the message in each of the desk's other languages, by code",
            },
            "t": {"type": "number"},
            "hall_board": NULLABLE_STR,
            "result": {
                **NULLABLE_STR,
                "description": "result-proposed: the proposed result (+/- etc. for forfeits)",
            },
            "reason": {**NULLABLE_STR, "description": "result-proposed: the reason code"},
            "reason_text": NULLABLE_STR,
        }
    ),
    "ArbiterGame": {
        "allOf": [
            ref("Game"),
            obj(
                {
                    "result_code": {
                        **NULLABLE_STR,
                        "description": "the result in the broadcast notation (+/-, -/+, -/-)",
                    },
                    "proposal": {
                        **obj(
                            {
                                "result": {"type": "string"},
                                "reason": {"type": "string"},
                                "detail": NULLABLE_STR,
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


__all__ = ["SCHEMAS"]
