"""Public routes: pages, JSON, PGN feeds and the spectators' websocket.

Everything here reads `service.public_state()` (the delayed state) and never the live
one; the only live facts used are the schedule (which round is live) and the
configuration, which the delay does not hide.
"""

from __future__ import annotations

import json

from aiohttp import web

from broadcast.export.pgn import event_pgn, game_pgn, round_pgn
from broadcast.games.state import GameError
from web import pages, views
from web.common import (
    HUB,
    error,
    json_response,
    round_of,
    section_of,
    service_of,
)

routes = web.RouteTableDef()

PGN_TYPE = "application/x-chess-pgn"


# -- JSON ----------------------------------------------------------------------------------------


@routes.get("/api/v1/event")
async def event_route(request: web.Request) -> web.Response:
    service = service_of(request)
    public = service.public_state()
    return json_response(views.event_json(service.config, public.tournament, service.live_rounds()))


async def round_route(request: web.Request) -> web.Response:
    section, number = section_of(request), round_of(request)
    public = service_of(request).public_state()
    if not views.round_exists(public.tournament, section, number):
        return error(404, f"round {number} of {section.name} is not paired (yet)")
    return json_response(views.round_json(public.book, section.name, number))


async def game_route(request: web.Request) -> web.Response:
    game_id = request.match_info["game"]
    try:
        game = service_of(request).public_state().book.get(game_id)
    except GameError:
        return error(404, f"no game {game_id!r}")
    return json_response(views.game_json(game))


async def standings_route(request: web.Request) -> web.Response:
    service = service_of(request)
    section = section_of(request)
    return json_response(
        views.standings_json(service.config, service.public_state().tournament, section)
    )


async def prizes_route(request: web.Request) -> web.Response:
    """The prize list from the standings ([section.prizes]); 404 for a section without."""
    service = service_of(request)
    section = section_of(request)
    prizes = views.prizes_json(service.config, service.public_state().tournament, section)
    if prizes is None:
        return error(404, f"section {section.name!r} has no [section.prizes] in its config")
    return json_response(prizes)


async def pairings_route(request: web.Request) -> web.Response:
    section = section_of(request)
    return json_response(
        views.pairings_json(service_of(request).public_state().tournament, section)
    )


# -- PGN feeds (delayed book; the delayed tournament only for play-off time controls) -------------


def _pgn(text: str) -> web.Response:
    return web.Response(
        text=text,
        content_type=PGN_TYPE,
        charset="utf-8",
        headers={"Cache-Control": "no-cache"},  # relays poll: always the current delayed text
    )


async def round_pgn_route(request: web.Request) -> web.Response:
    section, number = section_of(request), round_of(request)
    service = service_of(request)
    public = service.public_state()
    if not views.round_exists(public.tournament, section, number):
        return error(404, f"round {number} of {section.name} is not paired (yet)")
    return _pgn(
        round_pgn(public.book, service.config, section.name, number, pairings=public.tournament)
    )


async def game_pgn_route(request: web.Request) -> web.Response:
    game_id = request.match_info["game"]
    service = service_of(request)
    public = service.public_state()
    try:
        game = public.book.get(game_id)
    except GameError:
        return error(404, f"no game {game_id!r}")
    return _pgn(game_pgn(game, service.config, pairings=public.tournament))


@routes.get("/api/v1/event.pgn")
async def event_pgn_route(request: web.Request) -> web.Response:
    service = service_of(request)
    public = service.public_state()
    return _pgn(event_pgn(public.book, service.config, pairings=public.tournament))


# The .pgn routes are registered before their JSON twins: `{round}` would match "1.pgn".
routes.get(r"/api/v1/games/{game:[^/]+}.pgn")(game_pgn_route)
routes.get("/api/v1/games/{game}")(game_route)
routes.get(r"/api/v1/rounds/{round:[^/]+}.pgn")(round_pgn_route)
routes.get(r"/api/v1/sections/{section}/rounds/{round:[^/]+}.pgn")(round_pgn_route)
routes.get("/api/v1/rounds/{round}")(round_route)
routes.get("/api/v1/sections/{section}/rounds/{round}")(round_route)
routes.get("/api/v1/standings")(standings_route)
routes.get("/api/v1/sections/{section}/standings")(standings_route)
routes.get("/api/v1/prizes")(prizes_route)
routes.get("/api/v1/sections/{section}/prizes")(prizes_route)
routes.get("/api/v1/pairings")(pairings_route)
routes.get("/api/v1/sections/{section}/pairings")(pairings_route)


# -- pages ---------------------------------------------------------------------------------------


def _html(text: str, status: int = 200) -> web.Response:
    return web.Response(text=text, content_type="text/html", charset="utf-8", status=status)


def _page_error(request: web.Request, status: int, message: str) -> web.Response:
    try:  # section_of/round_of raise with a JSON body: show its message
        message = str(json.loads(message)["error"])
    except (ValueError, KeyError, TypeError):
        pass
    return _html(pages.error_page(service_of(request).config, status, message), status)


@routes.get("/")
async def home_page(request: web.Request) -> web.Response:
    service = service_of(request)
    return _html(
        pages.home_page(
            service.config,
            service.public_state(),
            service.live_rounds(),
            service.delay,
            speed=views.speed_of(service),
            unpaired=service.unpaired_rounds(),
        )
    )


@routes.get("/round/{round}")
async def round_page(request: web.Request) -> web.Response:
    try:
        section, number = section_of(request), round_of(request)
    except web.HTTPException as exc:
        return _page_error(request, exc.status, exc.text or "")
    service = service_of(request)
    return _html(
        pages.round_page(
            service.config,
            service.public_state(),
            section,
            number,
            service.delay,
            speed=views.speed_of(service),
        )
    )


@routes.get("/game/{game}")
async def game_page(request: web.Request) -> web.Response:
    service = service_of(request)
    game_id = request.match_info["game"]
    public = service.public_state()
    try:
        game = public.book.get(game_id)
    except GameError:
        return _page_error(request, 404, f"There is no game {game_id!r} in this event.")
    flipped = request.query.get("flip") == "1"
    return _html(
        pages.game_page(
            service.config,
            game,
            service.delay,
            flipped=flipped,
            speed=views.speed_of(service),
            pairings=public.tournament,
        )
    )


@routes.get("/standings")
async def standings_page(request: web.Request) -> web.Response:
    try:
        section = section_of(request)
    except web.HTTPException as exc:
        return _page_error(request, exc.status, exc.text or "")
    service = service_of(request)
    return _html(
        pages.standings_page(
            service.config,
            service.public_state(),
            section,
            service.delay,
            speed=views.speed_of(service),
        )
    )


# -- websocket -----------------------------------------------------------------------------------


@routes.get("/ws")
async def websocket(request: web.Request) -> web.StreamResponse:
    return await request.app[HUB].serve(request, arbiter=False)
