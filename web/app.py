"""The aiohttp application: public JSON and PGN feeds, and the arbiter's API.

Public routes read `service.public_state()` (the delayed state) only; arbiter routes
need HTTP Basic credentials from the environment or the config and act on the live
service. Malformed requests get a 4xx with a message; nothing here changes state except
through the service's actions, which journal every change with who made it.
"""

from __future__ import annotations

import hmac
import json
import logging
from base64 import b64decode
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web

from broadcast.config.model import SectionConfig
from broadcast.games.ids import slug
from broadcast.games.state import GameError
from broadcast.service import ActionError, EventService
from web import views

log = logging.getLogger(__name__)

SERVICE = web.AppKey("service", EventService)
CREDENTIALS = web.AppKey("credentials", object)

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def _json(data: Any, status: int = 200) -> web.Response:
    return web.json_response(data, status=status, dumps=lambda d: json.dumps(d, ensure_ascii=False))


def _error(status: int, message: str) -> web.Response:
    return _json({"error": message}, status=status)


def _service(request: web.Request) -> EventService:
    return request.app[SERVICE]


def _section(request: web.Request) -> SectionConfig:
    service = _service(request)
    wanted = request.match_info.get("section") or request.query.get("section")
    sections = service.config.sections
    if not wanted:
        return sections[0]
    for s in sections:
        if wanted in (s.name, slug(s.name)):
            return s
    raise web.HTTPNotFound(
        text=json.dumps(
            {"error": f"no section {wanted!r}; sections: {[slug(s.name) for s in sections]}"}
        ),
        content_type="application/json",
    )


def _round_number(request: web.Request) -> int:
    text = request.match_info["round"]
    if not text.isdigit() or int(text) < 1:
        raise web.HTTPBadRequest(
            text=json.dumps({"error": f"round must be a positive number, not {text!r}"}),
            content_type="application/json",
        )
    return int(text)


# -- public JSON --------------------------------------------------------------------------------


async def event_route(request: web.Request) -> web.Response:
    service = _service(request)
    public = service.public_state()
    return _json(views.event_json(service.config, public.tournament, service.live_rounds()))


async def round_route(request: web.Request) -> web.Response:
    section, number = _section(request), _round_number(request)
    public = _service(request).public_state()
    games = public.book.round_games(section.name, number)
    if number not in public.tournament.section(section.name).rounds:
        return _error(404, f"round {number} of {section.name} is not paired (yet)")
    return _json(
        {"section": section.name, "round": number, "games": [views.game_summary(g) for g in games]}
    )


async def game_route(request: web.Request) -> web.Response:
    game_id = request.match_info["game"]
    try:
        game = _service(request).public_state().book.get(game_id)
    except GameError:
        return _error(404, f"no game {game_id!r}")
    return _json(views.game_json(game))


async def standings_route(request: web.Request) -> web.Response:
    service = _service(request)
    section = _section(request)
    return _json(views.standings_json(service.config, service.public_state().tournament, section))


# -- arbiter ------------------------------------------------------------------------------------------


def _user(request: web.Request) -> str | None:
    expected = request.app[CREDENTIALS]
    if not isinstance(expected, tuple):
        return None
    header = request.headers.get("Authorization", "")
    if not header.startswith("Basic "):
        return None
    try:
        user, _, password = b64decode(header[6:]).decode("utf-8").partition(":")
    except (ValueError, UnicodeDecodeError):
        return None
    ok_user = hmac.compare_digest(user.encode(), str(expected[0]).encode())
    ok_password = hmac.compare_digest(password.encode(), str(expected[1]).encode())
    return user if ok_user and ok_password else None


@web.middleware
async def arbiter_auth(request: web.Request, handler: Handler) -> web.StreamResponse:
    if request.path.startswith("/api/v1/arbiter"):
        if not isinstance(request.app[CREDENTIALS], tuple):
            return _error(
                403,
                "the arbiter API is disabled: start boardwire with BOARDWIRE_ARBITER_PASSWORD set",
            )
        user = _user(request)
        if user is None:
            response = _error(401, "arbiter login required")
            response.headers["WWW-Authenticate"] = 'Basic realm="boardwire arbiter"'
            return response
        request["arbiter"] = user
    return await handler(request)


async def _body(request: web.Request) -> dict[str, Any]:
    try:
        data = await request.json()
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise web.HTTPBadRequest(
            text=json.dumps({"error": "the body must be a JSON object"}),
            content_type="application/json",
        ) from None
    if not isinstance(data, dict):
        raise web.HTTPBadRequest(
            text=json.dumps({"error": "the body must be a JSON object"}),
            content_type="application/json",
        )
    return data


def _field(data: dict[str, Any], name: str, kind: type) -> Any:
    value = data.get(name)
    if not isinstance(value, kind):
        raise web.HTTPBadRequest(
            text=json.dumps({"error": f"field {name!r} must be a {kind.__name__}"}),
            content_type="application/json",
        )
    return value


def _by(request: web.Request) -> str:
    return f"arbiter:{request['arbiter']}"


async def boards_route(request: web.Request) -> web.Response:
    service = _service(request)
    return _json(
        [views.board_json(b) for b in sorted(service.hall.values(), key=lambda b: b.number)]
    )


async def live_game_route(request: web.Request) -> web.Response:
    game_id = request.match_info["game"]
    try:
        game = _service(request).book.get(game_id)
    except GameError:
        return _error(404, f"no game {game_id!r}")
    return _json(views.game_json(game))


async def result_route(request: web.Request) -> web.Response:
    data = await _body(request)
    game_id = request.match_info["game"]
    try:
        _service(request).set_result(game_id, _field(data, "result", str), _by(request))
    except ActionError as exc:
        return _error(422, str(exc))
    return _json(views.game_json(_service(request).book.get(game_id)))


async def confirm_route(request: web.Request) -> web.Response:
    game_id = request.match_info["game"]
    try:
        _service(request).confirm_proposal(game_id, _by(request))
    except ActionError as exc:
        return _error(422, str(exc))
    return _json(views.game_json(_service(request).book.get(game_id)))


async def line_route(request: web.Request) -> web.Response:
    data = await _body(request)
    game_id = request.match_info["game"]
    moves = _field(data, "moves", list)
    if not all(isinstance(m, str) for m in moves):
        return _error(400, 'moves must be a list of UCI strings like ["e2e4", "e7e5"]')
    try:
        _service(request).correct_line(game_id, moves, _by(request))
    except ActionError as exc:
        return _error(422, str(exc))
    return _json(views.game_json(_service(request).book.get(game_id)))


async def start_fen_route(request: web.Request) -> web.Response:
    data = await _body(request)
    game_id = request.match_info["game"]
    try:
        _service(request).set_start_fen(game_id, _field(data, "fen", str), _by(request))
    except ActionError as exc:
        return _error(422, str(exc))
    return _json(views.game_json(_service(request).book.get(game_id)))


def build_app(service: EventService, credentials: tuple[str, str] | None) -> web.Application:
    app = web.Application(middlewares=[arbiter_auth], client_max_size=1024 * 1024)
    app[SERVICE] = service
    app[CREDENTIALS] = credentials
    app.add_routes(
        [
            web.get("/api/v1/event", event_route),
            web.get("/api/v1/rounds/{round}", round_route),
            web.get("/api/v1/sections/{section}/rounds/{round}", round_route),
            web.get("/api/v1/games/{game}", game_route),
            web.get("/api/v1/standings", standings_route),
            web.get("/api/v1/sections/{section}/standings", standings_route),
            web.get("/api/v1/arbiter/boards", boards_route),
            web.get("/api/v1/arbiter/games/{game}", live_game_route),
            web.post("/api/v1/arbiter/games/{game}/result", result_route),
            web.post("/api/v1/arbiter/games/{game}/confirm", confirm_route),
            web.post("/api/v1/arbiter/games/{game}/line", line_route),
            web.post("/api/v1/arbiter/games/{game}/start-fen", start_fen_route),
        ]
    )
    return app


async def start_web(
    service: EventService, *, host: str, port: int, credentials: tuple[str, str] | None
) -> web.AppRunner:
    runner = web.AppRunner(build_app(service, credentials), access_log=None)
    await runner.setup()
    await web.TCPSite(runner, host, port).start()
    return runner
