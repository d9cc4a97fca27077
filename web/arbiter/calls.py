"""The steps every action route of the arbiter API shares, written once: the game in the
path (404 when there is none), the JSON body and its typed fields (400), the command
through the desk's door (422 with the refusal's message; 409 with what the action would
remove, until it is confirmed), and the answer with the action's record
(`action_json`). `Actions(routes)` is the decorator the routes are declared with
(`web.arbiter.api`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from broadcast.actions import Command, ConfirmationNeeded, Done
from broadcast.games.game_state import GameError
from broadcast.service.event_service import ActionError, EventService
from web import json_views
from web.arbiter.actions import DESK, Desk
from web.arbiter.guard import acting
from web.http_json import http_error, json_response
from web.keys import service_of


async def request_body(request: web.Request) -> dict[str, Any]:
    """The request's JSON object (400 otherwise)."""
    try:
        data = await request.json()
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise http_error(web.HTTPBadRequest, "the body must be a JSON object") from None
    if not isinstance(data, dict):
        raise http_error(web.HTTPBadRequest, "the body must be a JSON object")
    return data


def body_field(data: dict[str, Any], name: str, kind: type) -> Any:
    """The field `name` of `data`, of type `kind` (400 otherwise)."""
    value = data.get(name)
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise http_error(web.HTTPBadRequest, f"field {name!r} must be a {kind.__name__}")
    return value


def live_game(request: web.Request, game_id: str) -> dict[str, Any] | None:
    """The game as the arbiter's view shows it now (None when there is none)."""
    try:
        service = service_of(request)
        return json_views.arbiter_game_json(service.book.get(game_id), service.config)
    except GameError:
        return None


def _path_game(request: web.Request) -> str:
    """The game named in the path; 404 when there is none (not 422: the resource is
    missing, not the action refused)."""
    game_id = request.match_info["game"]
    if game_id not in service_of(request).book.games:
        raise http_error(web.HTTPNotFound, f"no game {game_id[:80]!r}")
    return game_id


def action_json(done: Done) -> dict[str, Any]:
    """What an answer says of the action done: its record's number (for an undo) and
    its words."""
    return {
        "seq": done.seq,
        "kind": done.plan.kind,
        "summary": done.plan.summary,
        "removes": list(done.plan.removes),
        "notes": list(done.plan.notes),
    }


def confirmation_needed(exc: ConfirmationNeeded) -> web.HTTPError:
    """409 with what the action would do, and the token that confirms it."""
    body = {"error": str(exc), "confirm": exc.plan.words()}
    return web.HTTPConflict(
        text=json.dumps(body, ensure_ascii=False), content_type="application/json"
    )


@dataclass
class Call:
    """One action request: its JSON body (empty for a bare POST), the game in its path
    ("" when none), the desk and who acts. `done` is the action, once done."""

    request: web.Request
    data: dict[str, Any]
    game: str
    desk: Desk
    by: str
    done: Done | None = None

    @property
    def service(self) -> EventService:
        return service_of(self.request)

    def field(self, name: str, kind: type) -> Any:
        """A field of type `kind` (400 otherwise)."""
        return body_field(self.data, name, kind)

    def optional(self, name: str, kind: type) -> Any:
        """A field that may be left out (None then), of type `kind` when given."""
        return body_field(self.data, name, kind) if name in self.data else None

    def optional_int(self, name: str) -> int | None:
        """A number that may be left out or null."""
        return body_field(self.data, name, int) if self.data.get(name) is not None else None

    def flag(self, name: str) -> bool:
        """A true/false field that may be left out (false)."""
        return bool(self.optional(name, bool))

    def section(self) -> str:
        """The body's `section`, by name or slug (422 naming it otherwise)."""
        return self.desk.section(self.field("section", str))

    def player(self, section: str, name: str = "player") -> int:
        """A player by starting number, or by name (a string)."""
        value = self.data.get(name)
        if isinstance(value, str):
            return self.desk.player(section, value)
        return int(self.field(name, int))

    def _confirm(self) -> bool | str:
        value = self.data.get("confirm", self.request.query.get("confirm", False))
        if value in ("true", "1"):
            return True
        if not isinstance(value, bool | str):
            raise http_error(web.HTTPBadRequest, "confirm must be the token from the 409, or true")
        return value

    def act(self, command: Command) -> Done:
        """Do `command` through the door (409 until confirmed when it removes something)."""
        self.done = self.desk.act(command, self.by, confirm=self._confirm())
        return self.done


Act = Callable[[Call], Any]


class Actions:
    """The action routes of a route table: `@actions(path, ...)` registers a route."""

    def __init__(self, routes: web.RouteTableDef) -> None:
        self.routes = routes

    def __call__(
        self, path: str, *, game: bool = False, body: bool = True
    ) -> Callable[[Act], Callable[[web.Request], Any]]:
        """Register `act` as POST `path`. With `game`, the path names a game and the answer
        is that game as it is now; else the answer is what `act` returns. Either way it
        carries `action`: the action's record (number and words). Without `body`, a bare
        POST may come (no body read unless one is sent)."""

        def register(act: Act) -> Callable[[web.Request], Any]:
            async def handler(request: web.Request) -> web.Response:
                game_id = _path_game(request) if game else ""
                data = await request_body(request) if body or request.body_exists else {}
                call = Call(request, data, game_id, request.app[DESK], acting(request))
                try:
                    answer = act(call)
                except ConfirmationNeeded as exc:
                    raise confirmation_needed(exc) from None
                except ActionError as exc:
                    raise http_error(web.HTTPUnprocessableEntity, str(exc)) from None
                if game:
                    answer = live_game(request, game_id) or {}
                if isinstance(answer, dict) and call.done is not None:
                    answer = {**answer, "action": action_json(call.done)}
                return json_response(answer)

            handler.__name__ = handler.__qualname__ = act.__name__
            handler.__doc__ = act.__doc__
            self.routes.post(path)(handler)
            return handler

        return register


__all__ = [
    "Act",
    "Actions",
    "Call",
    "action_json",
    "body_field",
    "confirmation_needed",
    "live_game",
    "request_body",
]
