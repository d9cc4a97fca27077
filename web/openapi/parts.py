"""The building blocks of the OpenAPI document: references, answers, the errors every
route may give, the path and query parameters, and the public and arbiter route shapes
(an arbiter action goes through the door: 422 refused, 409 until confirmed). Pure.
"""

from __future__ import annotations

from typing import Any

NULLABLE_STR = {"type": "string", "nullable": True}
NULLABLE_INT = {"type": "integer", "nullable": True}


# Pairs of numbers given by hand: players (White, Black) or teams (the first named first).
PAIR_LIST: dict[str, Any] = {
    "type": "array",
    "items": {"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 2},
}


def ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def json_answer(schema: dict[str, Any], description: str = "OK") -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


ERRORS = {
    "400": json_answer(ref("Error"), "Malformed request"),
    "404": json_answer(ref("Error"), "Not found"),
    "503": json_answer(
        ref("Error"),
        "Busy: spectators' requests have had their share of the server for now; try again "
        "after Retry-After seconds (arbiter routes: the journal cannot be written, so "
        "nothing was done)",
    ),
}
AUTH_ERRORS = {
    "401": json_answer(ref("Error"), "Login required"),
    "403": json_answer(ref("Error"), "Disabled, or CSRF token missing"),
    "408": json_answer(ref("Error"), "The request body did not arrive in time"),
    "415": json_answer(
        ref("Error"), "A body must be application/json (a route without one: no body)"
    ),
    "422": json_answer(ref("Error"), "The action cannot be done; the message says why"),
    "429": json_answer(
        ref("Error"), "Too many failed password checks from this client: wait Retry-After"
    ),
}

SECTION_PATH = {
    "name": "section",
    "in": "path",
    "required": True,
    "description": "section name or slug",
    "schema": {"type": "string"},
}
ROUND_PATH = {
    "name": "round",
    "in": "path",
    "required": True,
    "description": "a round number: 1 to 6 digits",
    "schema": {"type": "integer", "minimum": 1, "maximum": 999_999},
}
GAME_PATH = {
    "name": "game",
    "in": "path",
    "required": True,
    "description": "game id, e.g. masters-r3-b2",
    "schema": {"type": "string"},
}
SECTION_QUERY = {
    "name": "section",
    "in": "query",
    "required": False,
    "description": "section name or slug (default: the first section)",
    "schema": {"type": "string"},
}
EVAL_QUERY = {
    "name": "eval",
    "in": "query",
    "required": False,
    "description": "1: add the engine's [%eval] after each move it has evaluated (a server "
    "started with --eval; otherwise the plain feed)",
    "schema": {"type": "string", "enum": ["0", "1"]},
}
PGN_ANSWER = {
    "description": "PGN text (the delayed state)",
    "content": {"application/x-chess-pgn": {"schema": {"type": "string"}}},
}
PNG_ANSWER = {
    "description": "the position as a 480x480 PNG (the delayed state; ?flip=1 from Black's side)",
    "content": {"image/png": {"schema": {"type": "string", "format": "binary"}}},
}
SVG_ANSWER = {
    "description": "the position as an SVG picture (the delayed state; ?flip=1 from Black's side)",
    "content": {"image/svg+xml": {"schema": {"type": "string"}}},
}


def public_get(summary: str, ok: dict[str, Any], params: list[dict[str, Any]] | None = None) -> Any:
    return {
        "get": {"summary": summary, "parameters": params or [], "responses": {"200": ok, **ERRORS}}
    }


SPARE_TIMES: dict[str, Any] = {
    # A spare without a clock: the times each player has left, in seconds.
    "white_seconds": {"type": "integer", "minimum": 0},
    "black_seconds": {"type": "integer", "minimum": 0},
}
MOVED: dict[str, Any] = {
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


CONFIRM_FIELD: dict[str, Any] = {
    "description": "the token from the 409 that said what the action removes (true: "
    "whatever it removes, for scripts)",
    "oneOf": [{"type": "string"}, {"type": "boolean"}],
}
CONFIRM_QUERY = {
    "name": "confirm",
    "in": "query",
    "required": False,
    "description": "a bare POST's confirmation: the token from the 409, or true",
    "schema": {"type": "string"},
}
NEEDS_CONFIRMATION = json_answer(
    ref("ConfirmationNeeded"),
    "The action removes something (moves, a result, pairings, a player's participation, a "
    "game's board, a prize): nothing was done. Send it again with the token as `confirm`",
)
PLAYER_FIELD: dict[str, Any] = {
    "description": "a starting number, or the player's name (as the desk's picker gives it)",
    "oneOf": [{"type": "integer"}, {"type": "string"}],
}


def with_action(ok: dict[str, Any]) -> dict[str, Any]:
    """An action's answer: what the route says, and the action's record (`action`)."""
    schema = ok["content"]["application/json"]["schema"]
    both = {"allOf": [schema, obj({"action": ref("Action")})]}
    return json_answer(both, ok["description"])


def arbiter_post(
    summary: str, body: dict[str, Any] | None, ok: dict[str, Any], params: list[dict[str, Any]]
) -> Any:
    """An action route: it goes through the door (422 refused, 409 until confirmed), and
    its answer carries the action's record."""
    op: dict[str, Any] = {
        "summary": summary,
        "security": [{"basic": []}, {"session": []}],
        "parameters": params if body is not None else [*params, CONFIRM_QUERY],
        "responses": {
            "200": with_action(ok),
            "409": NEEDS_CONFIRMATION,
            **ERRORS,
            **AUTH_ERRORS,
        },
    }
    if body is not None:
        schema = dict(body)
        schema["properties"] = {**body.get("properties", {}), "confirm": CONFIRM_FIELD}
        op["requestBody"] = {"required": True, "content": {"application/json": {"schema": schema}}}
    return {"post": op}


def arbiter_get(summary: str, ok: dict[str, Any], params: list[dict[str, Any]]) -> Any:
    return {
        "get": {
            "summary": summary,
            "security": [{"basic": []}, {"session": []}],
            "parameters": params,
            "responses": {"200": ok, **ERRORS, **AUTH_ERRORS},
        }
    }


def obj(props: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "object", "properties": props}
    if required:
        out["required"] = required
    return out


WORD_LIST: dict[str, Any] = {"type": "array", "items": {"type": "string"}}


__all__ = [
    "AUTH_ERRORS",
    "CONFIRM_FIELD",
    "CONFIRM_QUERY",
    "ERRORS",
    "EVAL_QUERY",
    "GAME_PATH",
    "MOVED",
    "NEEDS_CONFIRMATION",
    "NULLABLE_INT",
    "NULLABLE_STR",
    "PAIR_LIST",
    "PGN_ANSWER",
    "PLAYER_FIELD",
    "PNG_ANSWER",
    "ROUND_PATH",
    "SECTION_PATH",
    "SECTION_QUERY",
    "SPARE_TIMES",
    "SVG_ANSWER",
    "WORD_LIST",
    "arbiter_get",
    "arbiter_post",
    "json_answer",
    "obj",
    "public_get",
    "ref",
    "with_action",
]
