"""The OpenAPI 3.0 document of the JSON API (served at /api/v1/openapi.json): the public
routes, the arbiter's routes and actions, and the regulation actions. Pure.

Written by hand next to the routes rather than generated: the routes are few, and the
document is a contract (tests/web/test_server_in_process.py checks every JSON route is in it, and the
schemathesis fuzz drives the server from it).
"""

from __future__ import annotations

from typing import Any

from broadcast.actions.results import DESK_REASONS
from broadcast.fide.results import Result
from web.openapi.arbiter_teams import arbiter_team_paths
from web.openapi.parts import (
    EVAL_QUERY,
    GAME_PATH,
    MOVED,
    PAIR_LIST,
    PGN_ANSWER,
    PLAYER_FIELD,
    PNG_ANSWER,
    ROUND_PATH,
    SECTION_PATH,
    SECTION_QUERY,
    SPARE_TIMES,
    SVG_ANSWER,
    arbiter_get,
    arbiter_post,
    json_answer,
    obj,
    public_get,
    ref,
)
from web.openapi.schemas import SCHEMAS
from web.openapi.teams import TEAM_SCHEMAS, team_paths


def _regulation_paths() -> dict[str, Any]:
    """Byes through the policy, withdrawals, absences, late entries and replacements,
    play-off games, prizes."""
    bye = {
        "section": {"type": "string"},
        "round": {"type": "integer"},
        "player": PLAYER_FIELD,
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
        "/api/v1/prizes": public_get(
            "The prize list from the standings (first section, or ?section=)",
            json_answer(ref("Prizes")),
            [SECTION_QUERY],
        ),
        "/api/v1/sections/{section}/prizes": public_get(
            "The prize list from the standings", json_answer(ref("Prizes")), [SECTION_PATH]
        ),
        "/api/v1/arbiter/bye-requests": arbiter_post(
            "Request a bye: granted, or refused (422) with the regulation's reason",
            obj(bye, ["section", "round", "player"]),
            json_answer(obj({"granted": done, "override": override})),
            [],
        ),
        "/api/v1/arbiter/bye-cancellations": arbiter_post(
            "Cancel a granted bye (until the request deadline, unless overridden)",
            obj(bye, ["section", "round", "player"]),
            json_answer(obj({"cancelled": done, "override": override})),
            [],
        ),
        "/api/v1/arbiter/withdrawals": arbiter_post(
            "Withdraw or eliminate a player: their games not yet played follow the config "
            "(a Swiss game paired and not begun: a forfeit won by the opponent). Without "
            "`from_round`: from the next round to be paired (a round robin: the first round "
            "not begun); earlier rounds keep their games. Asks first",
            obj(
                {
                    "section": {"type": "string"},
                    "player": PLAYER_FIELD,
                    "from_round": {"type": "integer", "nullable": True},
                    "reason": {"type": "string"},
                },
                ["section", "player"],
            ),
            json_answer(obj({"withdrawn": done})),
            [],
        ),
        "/api/v1/arbiter/reinstatements": arbiter_post(
            "Reinstate a withdrawn player: the forfeits their withdrawal entered, not changed "
            "since, are taken back (asks first when there are any)",
            obj(
                {
                    "section": {"type": "string"},
                    "player": PLAYER_FIELD,
                    "reason": {"type": "string"},
                },
                ["section", "player"],
            ),
            json_answer(obj({"reinstated": done})),
            [],
        ),
        "/api/v1/arbiter/prizes/withheld": arbiter_post(
            "Withhold a player's prize, with the reason (it passes to the next eligible player)",
            obj(
                {
                    "section": {"type": "string"},
                    "player": PLAYER_FIELD,
                    "reason": {"type": "string"},
                },
                ["section", "player", "reason"],
            ),
            json_answer(obj({"withheld": done})),
            [],
        ),
        "/api/v1/arbiter/prizes/restored": arbiter_post(
            "Give back a withheld prize (the arbiter's, or an elimination's)",
            obj(
                {
                    "section": {"type": "string"},
                    "player": PLAYER_FIELD,
                    "reason": {"type": "string"},
                },
                ["section", "player"],
            ),
            json_answer(obj({"restored": done})),
            [],
        ),
        "/api/v1/arbiter/continuations": arbiter_post(
            "Record a player's written request to continue after an absence",
            obj(
                {k: bye[k] for k in ("section", "round", "player")}, ["section", "round", "player"]
            ),
            json_answer(obj({"continues": done})),
            [],
        ),
        "/api/v1/arbiter/late-entries": arbiter_post(
            "A late entry in a Swiss: the next free starting number, paired from the round "
            "they join; refused (422) in a round robin",
            obj(
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
            json_answer(obj({"entered": done})),
            [],
        ),
        "/api/v1/arbiter/replacements": arbiter_post(
            "Another participant takes a player's place in the pairings not yet played",
            obj(
                {
                    "section": {"type": "string"},
                    "player": {**PLAYER_FIELD, "description": "the player replaced"},
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
            json_answer(obj({"replaced": done})),
            [],
        ),
        "/api/v1/arbiter/playoff-games": arbiter_post(
            "Pair the next play-off game for first place (blitz or Armageddon)",
            obj(
                {
                    "section": {"type": "string"},
                    "white": PLAYER_FIELD,
                    "black": PLAYER_FIELD,
                    "board": {"type": "integer", "nullable": True},
                },
                ["section", "white", "black"],
            ),
            json_answer(
                obj(
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
    game = json_answer(ref("Game"))
    paths: dict[str, Any] = {
        "/api/v1/event": public_get(
            "The event: sections, schedule, live rounds", json_answer(ref("Event"))
        ),
        "/api/v1/rounds/{round}": public_get(
            "A round's games (first section, or ?section=)",
            json_answer(ref("Round")),
            [ROUND_PATH, SECTION_QUERY],
        ),
        "/api/v1/sections/{section}/rounds/{round}": public_get(
            "A round's games", json_answer(ref("Round")), [SECTION_PATH, ROUND_PATH]
        ),
        "/api/v1/games/{game}": public_get("One game with its moves", game, [GAME_PATH]),
        "/api/v1/standings": public_get(
            "Standings with the section's tie-breaks",
            json_answer(ref("Standings")),
            [SECTION_QUERY],
        ),
        "/api/v1/sections/{section}/standings": public_get(
            "Standings with the section's tie-breaks", json_answer(ref("Standings")), [SECTION_PATH]
        ),
        "/api/v1/pairings": public_get(
            "Pairings and results of every paired round",
            json_answer(ref("Pairings")),
            [SECTION_QUERY],
        ),
        "/api/v1/sections/{section}/pairings": public_get(
            "Pairings and results of every paired round",
            json_answer(ref("Pairings")),
            [SECTION_PATH],
        ),
        "/api/v1/rounds/{round}.pgn": public_get(
            "A round as PGN (Lichess relay polling format)",
            PGN_ANSWER,
            [ROUND_PATH, SECTION_QUERY, EVAL_QUERY],
        ),
        "/api/v1/sections/{section}/rounds/{round}.pgn": public_get(
            "A round as PGN", PGN_ANSWER, [SECTION_PATH, ROUND_PATH, EVAL_QUERY]
        ),
        "/api/v1/games/{game}.pgn": public_get(
            "One game as PGN", PGN_ANSWER, [GAME_PATH, EVAL_QUERY]
        ),
        "/api/v1/games/{game}.svg": public_get(
            "One game's position as a picture", SVG_ANSWER, [GAME_PATH]
        ),
        "/api/v1/games/{game}.png": public_get(
            "One game's position as a PNG picture (the link preview's image; 404 where "
            "the cairo library is missing)",
            PNG_ANSWER,
            [GAME_PATH],
        ),
        "/api/v1/event.pgn": public_get("Every game of the event as PGN", PGN_ANSWER, [EVAL_QUERY]),
        "/api/v1/arbiter/boards": arbiter_get(
            "Every hall board's health (live)",
            json_answer({"type": "array", "items": ref("Board")}),
            [],
        ),
        "/api/v1/arbiter/alerts": arbiter_get(
            "Open alerts (live)", json_answer({"type": "array", "items": ref("Alert")}), []
        ),
        "/api/v1/arbiter/stations": arbiter_get(
            "The capture stations (`serve --stations`): up, lag, clock offset, boards "
            "(empty: every board on the serve's own ports)",
            json_answer({"type": "array", "items": ref("Station")}),
            [],
        ),
        "/api/v1/arbiter/hall": arbiter_get(
            "Every table of the live round(s) in table order, its state at a glance, and "
            "the counts (live)",
            json_answer(ref("Hall")),
            [],
        ),
        "/api/v1/arbiter/games/{game}": arbiter_get(
            "One game, live, with the proposal waiting for a word",
            json_answer(ref("ArbiterGame")),
            [GAME_PATH],
        ),
        "/api/v1/arbiter/games/{game}/result": arbiter_post(
            "Set or override the result",
            obj(
                {
                    "result": {
                        "type": "string",
                        "enum": [r.value for r in Result],
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
            [GAME_PATH],
        ),
        "/api/v1/arbiter/games/{game}/confirm": arbiter_post(
            "Confirm the proposed result", None, game, [GAME_PATH]
        ),
        "/api/v1/arbiter/games/{game}/reject": arbiter_post(
            "Reject the proposed result: the game goes on (422 when none is waiting; asks first)",
            None,
            game,
            [GAME_PATH],
        ),
        "/api/v1/arbiter/games/{game}/line": arbiter_post(
            "Replace the game's line (UCI or SAN moves from the start position; an empty "
            "line on a game with moves is refused; removing plies asks first)",
            obj({"moves": {"type": "array", "items": {"type": "string"}}}, ["moves"]),
            game,
            [GAME_PATH],
        ),
        "/api/v1/arbiter/games/{game}/scoresheet": arbiter_post(
            "Enter the moves of the game's scoresheet (PGN movetext or SAN; the game's "
            "result stays; an illegal move is refused naming its move number; replacing "
            "moves asks first)",
            obj({"text": {"type": "string", "maxLength": 20000}}, ["text"]),
            game,
            [GAME_PATH],
        ),
        "/api/v1/arbiter/games/{game}/takeback": arbiter_post(
            "Take back the last plies (asks first)",
            obj({"plies": {"type": "integer", "minimum": 1, "description": "default 1"}}),
            game,
            [GAME_PATH],
        ),
        "/api/v1/arbiter/games/{game}/move": arbiter_post(
            "Replace ply `ply` with a move (SAN or UCI; the ply after the last adds one); "
            "the later plies stay while legal (removing any asks first)",
            obj(
                {"ply": {"type": "integer", "minimum": 1}, "move": {"type": "string"}},
                ["ply", "move"],
            ),
            game,
            [GAME_PATH],
        ),
        "/api/v1/arbiter/games/{game}/start-fen": arbiter_post(
            "Set the game's start position (a game with moves: only `on_purpose`, and it "
            "asks first)",
            obj(
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
            [GAME_PATH],
        ),
        "/api/v1/arbiter/games/{game}/present": arbiter_post(
            "Mark a player present (both: the whole table)",
            obj({"colour": {"type": "string", "enum": ["white", "black", "both"]}}, ["colour"]),
            game,
            [GAME_PATH],
        ),
        "/api/v1/arbiter/games/{game}/absent": arbiter_post(
            "Mark a player absent (a hall walk; the forfeit follows at the default time)",
            obj({"colour": {"type": "string", "enum": ["white", "black", "both"]}}, ["colour"]),
            game,
            [GAME_PATH],
        ),
        "/api/v1/arbiter/alerts/{alert}/ack": arbiter_post(
            "Acknowledge an alert",
            None,
            json_answer(obj({"acknowledged": {"type": "string"}})),
            [{"name": "alert", "in": "path", "required": True, "schema": {"type": "string"}}],
        ),
        "/api/v1/arbiter/byes": arbiter_post(
            "Request a bye through the section's policy (422 with the reason if refused)",
            obj(
                {
                    "section": {"type": "string"},
                    "round": {"type": "integer"},
                    "player": PLAYER_FIELD,
                },
                ["section", "round", "player"],
            ),
            json_answer(obj({"granted": {"type": "object"}})),
            [],
        ),
        "/api/v1/arbiter/actions": arbiter_get(
            "The newest actions first: number, words, who, and what undid each",
            json_answer({"type": "array", "items": ref("LoggedAction")}),
            [
                {
                    "name": "limit",
                    "in": "query",
                    "required": False,
                    "schema": {"type": "integer", "minimum": 1, "maximum": 1000},
                }
            ],
        ),
        "/api/v1/arbiter/held": arbiter_get(
            "News the public does not see yet: it follows from results the delay still hides",
            json_answer(
                {
                    "type": "array",
                    "items": obj(
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
        "/api/v1/arbiter/sections/{section}/rounds/{round}/release": arbiter_post(
            "Show a round's pairings to the public now, before the results they follow "
            "from are public (asks first: 409 names what it reveals; cannot be undone)",
            None,
            json_answer(
                obj(
                    {
                        "section": {"type": "string"},
                        "round": {"type": "integer"},
                        "released": {"type": "boolean"},
                    }
                )
            ),
            [
                {"name": "section", "in": "path", "required": True, "schema": {"type": "string"}},
                ROUND_PATH,
            ],
        ),
        "/api/v1/arbiter/actions/{seq}/undo": arbiter_post(
            "Undo an action (asks first: 409 with what goes and what comes back)",
            None,
            json_answer(obj({"undone": {"type": "integer"}})),
            [{"name": "seq", "in": "path", "required": True, "schema": {"type": "integer"}}],
        ),
        "/api/v1/arbiter/boards/assign": arbiter_post(
            "Move a game (by its White) to another hall board, moves and all (a spare)",
            obj(
                {
                    "section": {"type": "string"},
                    "round": {"type": "integer"},
                    "white": PLAYER_FIELD,
                    "board": {"type": "integer"},
                    "swap": {
                        "type": "boolean",
                        "description": "a board whose game is in play: the games exchange",
                    },
                    **SPARE_TIMES,
                },
                ["section", "round", "white", "board"],
            ),
            json_answer(obj({"assigned": {"type": "object"}, "moved": MOVED})),
            [],
        ),
        "/api/v1/arbiter/games/{game}/replace-board": arbiter_post(
            "Move the game to a spare: a hall board, or the board with a DGT serial",
            obj(
                {
                    "board": {"type": "integer"},
                    "serial": {"type": "string"},
                    "swap": {
                        "type": "boolean",
                        "description": "a board whose game is in play: the games exchange",
                    },
                    **SPARE_TIMES,
                },
                [],
            ),
            game,
            [GAME_PATH],
        ),
        "/api/v1/arbiter/sections/{section}/rounds/{round}/pairings": arbiter_post(
            "Pair a round: import the pairing program's TRF, FIDE Dutch, or pairs by hand",
            obj(
                {
                    "trf": {
                        "type": "string",
                        "description": "the pairing program's TRF; for a team section its "
                        "013 team records bring the round's matches and lineups too",
                    },
                    "engine": {"type": "string", "enum": ["dutch"]},
                    "override": {
                        "type": "boolean",
                        "description": "TRF: accept its byes as they are; Dutch: pair while "
                        "results of the rounds before are missing",
                    },
                    "pairs": PAIR_LIST,
                }
            ),
            json_answer(
                obj(
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
                ROUND_PATH,
            ],
        ),
    }
    paths.update(_regulation_paths())
    paths.update(team_paths())
    paths.update(arbiter_team_paths())
    pairing = paths["/api/v1/arbiter/sections/{section}/rounds/{round}/pairings"]["post"]
    pairing["description"] = (
        "FIDE Dutch runs in a worker process: a big Swiss can take a minute, the answer "
        "comes when the pairings are published; the boards and pages are served meanwhile."
    )
    pairing["responses"]["409"] = json_answer(
        {"oneOf": [ref("ConfirmationNeeded"), ref("Error")]},
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
            "schemas": {**SCHEMAS, **TEAM_SCHEMAS},
            "securitySchemes": {
                "basic": {"type": "http", "scheme": "basic"},
                "session": {"type": "apiKey", "in": "cookie", "name": "bw_session"},
            },
        },
    }


__all__ = ["document"]
