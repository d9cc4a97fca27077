"""Public routes: pages, JSON, PGN feeds and the spectators' websocket.

Everything here reads `service.public_state()` (the delayed state) and never the live
one; the only live facts used are the schedule (which round is live) and the
configuration, which the delay does not hide.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable

from aiohttp import web

from broadcast.config.model import EventConfig, SectionConfig
from broadcast.export.pgn import event_games, game_pgn
from broadcast.games.evaluation import eval_json
from broadcast.games.game_state import GameError, GameState
from broadcast.service.event_state import PublicState
from web import json_views, pages, team_pages
from web.answers import Answer, Answers, Key, tournament_only, whole
from web.board_png import PNG_TYPE, PreviewsBusy, png_available
from web.board_svg import board_image
from web.flags import flag_svg
from web.http_json import error, json_response, round_of, section_of
from web.i18n import gettext_of
from web.keys import ANSWERS, HUB, PREVIEWS, evals_of, lang_of, public_of
from web.proxy import PROXY

__all__ = [
    "EVENT_EVAL_SECONDS",
    "PGN_TYPE",
    "ROUND_EVAL_SECONDS",
    "SVG_TYPE",
    "VARY",
    "PageMaker",
    "answer_page",
    "answers_of",
    "not_found_page",
    "page_error",
    "routes",
    "send_answer",
]

routes = web.RouteTableDef()

PGN_TYPE = "application/x-chess-pgn"


# -- answers: built once per public state, shared, with an ETag ---------------------------


def send_answer(request: web.Request, answer: Answer, *, pgn: bool = False) -> web.Response:
    """The answer as JSON (or PGN), or 304 when the client has it already (its ETag)."""
    headers = {"ETag": answer.etag}
    if pgn:
        headers["Cache-Control"] = "no-cache"  # relays poll: always the current delayed text
    wanted = request.headers.get("If-None-Match", "")
    if answer.etag in (tag.strip() for tag in wanted.split(",")):
        return web.Response(status=304, headers=headers)
    content_type = PGN_TYPE if pgn else "application/json"
    return web.Response(
        body=answer.body, content_type=content_type, charset="utf-8", headers=headers
    )


def answers_of(request: web.Request) -> Answers:
    """The app's shared answers (built once per public state)."""
    return request.app[ANSWERS]


# -- JSON ----------------------------------------------------------------------------------------


@routes.get("/api/v1/event")
async def event_route(request: web.Request) -> web.Response:
    service = public_of(request)
    live = service.live_rounds()  # the schedule moves with time: part of the answer's name
    answer = await answers_of(request).json(
        f"event:{sorted(live.items())}",
        lambda public: json_views.event_json(
            service.config, public.tournament, live, delay=service.delay
        ),
        tournament_only,
    )
    return send_answer(request, answer)


async def round_route(request: web.Request) -> web.Response:
    section, number = section_of(request), round_of(request)
    public = public_of(request).public_state()
    if not json_views.round_exists(public.tournament, section, number):
        return error(404, f"round {number} of {section.name} is not paired (yet)")
    answer = await answers_of(request).json(
        f"round:{section.name}:{number}",
        lambda public: json_views.round_json(
            public.book, section.name, number, public_of(request).config
        ),
    )
    return send_answer(request, answer)


async def game_route(request: web.Request) -> web.Response:
    game_id = request.match_info["game"]
    try:
        game = public_of(request).public_state().book.get(game_id)
    except GameError:
        return error(404, f"no game {game_id!r}")
    # The engine's evaluation of the game's (public) position, when this server evaluates
    # (`--eval`) and has reached it; null otherwise.
    evals = evals_of(request)
    ev = evals.current(game) if evals is not None else None
    config = public_of(request).config
    body = json_views.game_json(game, config)
    return json_response({**body, "eval": eval_json(ev) if ev else None})


async def standings_route(request: web.Request) -> web.Response:
    config = public_of(request).config
    section = section_of(request)
    answer = await answers_of(request).json(
        f"standings:{section.name}",
        lambda public: json_views.standings_json(config, public.tournament, section),
        tournament_only,
    )
    return send_answer(request, answer)


async def prizes_route(request: web.Request) -> web.Response:
    """The prize list from the standings ([section.prizes]); 404 for a section without."""
    service = public_of(request)
    section = section_of(request)
    if section.prizes is None:
        return error(404, f"section {section.name!r} has no [section.prizes] in its config")
    answer = await answers_of(request).json(
        f"prizes:{section.name}",
        lambda public: json_views.prizes_json(service.config, public.tournament, section),
        tournament_only,
    )
    return send_answer(request, answer)


async def pairings_route(request: web.Request) -> web.Response:
    section = section_of(request)
    answer = await answers_of(request).json(
        f"pairings:{section.name}",
        lambda public: json_views.pairings_json(public.tournament, section),
        tournament_only,
    )
    return send_answer(request, answer)


# -- PGN feeds (delayed book; the delayed tournament only for play-off time controls) -------------


def _with_evals(request: web.Request) -> bool:
    """`?eval=1`: the feed carries the engine's `[%eval]` where this server evaluates
    (`?eval=0` or none: the plain feed; anything else is a 400, as OpenAPI says)."""
    asked = request.query.get("eval", "0")
    if asked not in ("0", "1"):
        raise web.HTTPBadRequest(reason="eval must be 0 or 1")
    return asked == "1" and evals_of(request) is not None


# How often a feed with evaluations is written again at most: each evaluation changes it,
# and rewriting a round (or, worse, the event) after every one would keep the web's
# worker busy for spectators' downloads. Relays poll a round every few seconds.
ROUND_EVAL_SECONDS = 2.0
EVENT_EVAL_SECONDS = 30.0


async def _annotated(
    request: web.Request,
    name: str,
    games_of: Callable[[PublicState], list[GameState]],
    fresh_for: float,
) -> web.Response:
    """A PGN feed with `[%eval]` comments: built from a copy of the evaluations taken here
    on the loop, once per public state and evaluation generation, at most every
    `fresh_for` seconds."""
    evals = evals_of(request)
    assert evals is not None
    answers = answers_of(request)

    async def build(state: PublicState) -> Answer:
        return await answers.annotated_pgn(games_of(state), state, evals.cache.snapshot(), PGN_TYPE)

    answer = await answers.get(
        name,
        build,
        on=lambda state: (state.tournament, state.book, evals.generation),
        fresh_for=fresh_for,
    )
    return send_answer(request, answer, pgn=True)


async def round_pgn_route(request: web.Request) -> web.Response:
    section, number = section_of(request), round_of(request)
    public = public_of(request).public_state()
    if not json_views.round_exists(public.tournament, section, number):
        return error(404, f"round {number} of {section.name} is not paired (yet)")
    if _with_evals(request):
        return await _annotated(
            request,
            f"round.pgn+eval:{section.name}:{number}",
            lambda state: state.book.round_games(section.name, number),
            ROUND_EVAL_SECONDS,
        )
    answers = answers_of(request)

    async def build(state: PublicState) -> Answer:
        return await answers.round_pgn(state, section.name, number, PGN_TYPE)

    answer = await answers.get(f"round.pgn:{section.name}:{number}", build)
    return send_answer(request, answer, pgn=True)


async def game_pgn_route(request: web.Request) -> web.Response:
    game_id = request.match_info["game"]
    public = public_of(request).public_state()
    try:
        game = public.book.get(game_id)
    except GameError:
        return error(404, f"no game {game_id!r}")
    evals = evals_of(request)
    if _with_evals(request) and evals is not None:  # one game: written now, never kept
        config = public_of(request).config
        text = game_pgn(game, config, pairings=public.tournament, evals=evals.lookup)
        return send_answer(request, Answer.of(text, PGN_TYPE), pgn=True)
    text = answers_of(request).texts.text(game, public.tournament)
    return send_answer(request, Answer.of(text, PGN_TYPE), pgn=True)


@routes.get("/api/v1/event.pgn")
async def event_pgn_route(request: web.Request) -> web.Response:
    answers = answers_of(request)
    live = public_of(request).live_rounds()  # a round that starts brings its games
    if _with_evals(request):
        config = public_of(request).config
        return await _annotated(
            request,
            f"event.pgn+eval:{sorted(live.items())}",
            lambda state: event_games(state.book, config, live=live),
            EVENT_EVAL_SECONDS,
        )

    async def build(state: PublicState) -> Answer:
        return await answers.event_pgn(state, PGN_TYPE, live)

    answer = await answers.get(f"event.pgn:{sorted(live.items())}", build)
    return send_answer(request, answer, pgn=True)


SVG_TYPE = "image/svg+xml"


def _game_picture(request: web.Request) -> tuple[str, str | None, bool] | web.Response:
    """The game's (delayed) position as what its picture is drawn from (FEN, last move,
    flipped), or the 404 to answer."""
    game_id = request.match_info["game"]
    try:
        game = public_of(request).public_state().book.get(game_id)
    except GameError:
        return error(404, f"no game {game_id!r}")
    last = game.moves[-1].uci if game.moves else None
    return game.fen, last, request.query.get("flip") == "1"


async def game_svg_route(request: web.Request) -> web.Response:
    """The game's (delayed) position as an SVG picture. `?flip=1` shows it from Black's
    side."""
    picture = _game_picture(request)
    if isinstance(picture, web.Response):
        return picture
    fen, last, flipped = picture
    return web.Response(
        text=board_image(fen, last, flipped=flipped),
        content_type=SVG_TYPE,
        charset="utf-8",
        headers={"Cache-Control": "no-cache"},
    )


async def game_png_route(request: web.Request) -> web.Response:
    """The same picture as PNG, the link preview's image (chat apps show PNG, not SVG);
    404 where the cairo library is missing (the previews then point at the SVG). Drawn
    once per position by the previews' own worker (`web.board_png.Previews`); 503 with
    Retry-After while too many pictures wait to be drawn."""
    picture = _game_picture(request)
    if isinstance(picture, web.Response):
        return picture
    if not png_available():
        return error(404, "PNG pictures need the cairo library here; the SVG is at .svg")
    fen, last, flipped = picture
    try:
        png = await request.app[PREVIEWS].png(
            picture, lambda: board_image(fen, last, flipped=flipped)
        )
    except PreviewsBusy as exc:
        busy = error(503, str(exc))
        busy.headers["Retry-After"] = str(exc.retry_after)
        return busy
    assert png is not None
    return web.Response(body=png, content_type=PNG_TYPE, headers={"Cache-Control": "no-cache"})


@routes.get("/flags/{code}.svg")
async def flag_route(request: web.Request) -> web.Response:
    """A federation's flag (`web.flags`); the same code always draws the same flag."""
    image = flag_svg(request.match_info["code"])
    if image is None:
        return error(404, "a federation code is three letters, e.g. /flags/ESP.svg")
    return web.Response(
        text=image,
        content_type=SVG_TYPE,
        charset="utf-8",
        headers={"Cache-Control": "max-age=86400"},
    )


# The .pgn routes are registered before their JSON twins: `{round}` would match "1.pgn".
routes.get(r"/api/v1/games/{game:[^/]+}.svg")(game_svg_route)
routes.get(r"/api/v1/games/{game:[^/]+}.png")(game_png_route)
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


# A page is in the reader's language: from the browser's preference or the switcher's cookie.
VARY = "Accept-Language, Cookie"


def _send_page(request: web.Request, answer: Answer) -> web.Response:
    wanted = request.headers.get("If-None-Match", "")
    if answer.etag in (tag.strip() for tag in wanted.split(",")):
        return web.Response(status=304, headers={"ETag": answer.etag, "Vary": VARY})
    return web.Response(
        body=answer.body,
        content_type="text/html",
        charset="utf-8",
        headers={"ETag": answer.etag, "Cache-Control": "no-cache", "Vary": VARY},
    )


def page_error(request: web.Request, status: int, message: str) -> web.Response:
    """The branded error page with `message` (a JSON error's text unwrapped)."""
    try:  # section_of/round_of raise with a JSON body: show its message
        message = str(json.loads(message)["error"])
    except (ValueError, KeyError, TypeError):
        pass
    page = pages.error_page(
        public_of(request).config, status, message, lang=lang_of(request), here=request.path
    )
    response = _html(page, status)
    response.headers["Vary"] = VARY
    return response


def _no_game(request: web.Request, game_id: str) -> web.Response:
    _ = gettext_of(lang_of(request))
    return page_error(
        request, 404, _("There is no game %(game)s in this event.") % {"game": repr(game_id)}
    )


def _no_round(request: web.Request, section: SectionConfig, number: int) -> web.Response:
    _ = gettext_of(lang_of(request))
    return page_error(
        request,
        404,
        _("%(section)s has %(rounds)s rounds: there is no round %(number)s.")
        % {"section": section.name, "rounds": section.rounds, "number": number},
    )


def not_found_page(request: web.Request) -> web.Response:
    """The branded 404 for a URL no route knows (the app's `safety` middleware calls it for
    every page path, so no spectator meets aiohttp's bare "404: Not Found")."""
    _ = gettext_of(lang_of(request))
    return page_error(
        request, 404, _("There is no page %(path)s in this event.") % {"path": repr(request.path)}
    )


HTML = "text/html"

# A page from the event's configuration, the public state, the delay, the clock rate and
# the reader's language.
PageMaker = Callable[[EventConfig, PublicState, float, float, str], str]
PageHandler = Callable[[web.Request], Awaitable[web.Response]]


def _page_route(path: str) -> Callable[[PageHandler], PageHandler]:
    """Register a page at GET `path`; a section or round the path or query names wrongly
    (`section_of`, `round_of`: a JSON error) is shown as an error page instead."""

    def register(handler: PageHandler) -> PageHandler:
        async def page(request: web.Request) -> web.Response:
            try:
                return await handler(request)
            except web.HTTPException as exc:
                return page_error(request, exc.status, exc.text or "")

        page.__name__ = page.__qualname__ = handler.__name__
        page.__doc__ = handler.__doc__
        routes.get(path)(page)
        return page

    return register


async def answer_page(
    request: web.Request, name: str, make: PageMaker, on: Key = whole
) -> web.Response:
    """The page `name`, made by `make` once per public state (and delay, clock rate and
    language, which are part of its name) and shared, with an ETag."""
    service = public_of(request)
    speed = json_views.speed_of(service)
    lang = lang_of(request)
    answer = await answers_of(request).text(
        f"page:{name}:{service.delay}:{speed}:{lang}",
        lambda public: make(service.config, public, service.delay, speed, lang),
        HTML,
        on,
    )
    return _send_page(request, answer)


@_page_route("/")
async def home_page(request: web.Request) -> web.Response:
    service = public_of(request)
    live, unpaired = service.live_rounds(), service.unpaired_rounds()
    return await answer_page(
        request,
        f"home:{sorted(live.items())}:{sorted(unpaired.items())}",
        lambda config, public, delay, speed, lang: pages.home_page(
            config, public, live, delay, speed=speed, unpaired=unpaired, lang=lang
        ),
    )


@_page_route("/round/{round}")
async def round_page(request: web.Request) -> web.Response:
    section, number = section_of(request), round_of(request)
    if number > section.rounds:
        return _no_round(request, section, number)
    return await answer_page(
        request,
        f"round:{section.name}:{number}",
        lambda config, public, delay, speed, lang: (
            team_pages.team_round_page if section.is_team else pages.round_page
        )(config, public, section, number, delay, speed=speed, lang=lang),
    )


@_page_route("/game/{game}")
async def game_page(request: web.Request) -> web.Response:
    game_id = request.match_info["game"]
    if game_id not in public_of(request).public_state().book.games:
        return _no_game(request, game_id)
    flipped = request.query.get("flip") == "1"
    # Link previews need absolute URLs: the configured public URL, never the Host header
    # (the client's to choose, and the page is shared by every client).
    settings = request.app.get(PROXY)
    origin = (settings.public_origin if settings else None) or ""
    # `?eval=0` (the venue's own screens): no evaluation bar, no evaluation line.
    evaluating = evals_of(request) is not None and request.query.get("eval") != "0"
    return await answer_page(
        request,
        f"game:{game_id}:{flipped}:{evaluating}",
        lambda config, public, delay, speed, lang: pages.game_page(
            config,
            public.book.get(game_id),
            delay,
            flipped=flipped,
            speed=speed,
            pairings=public.tournament,
            origin=origin,
            public=public,
            lang=lang,
            evaluating=evaluating,
        ),
        on=lambda public: (public.book.games.get(game_id), public.tournament),
    )


# -- embeds: compact live pages other sites may frame (web.app sets their frame-ancestors) ----


@_page_route("/embed/game/{game}")
async def embed_game_page(request: web.Request) -> web.Response:
    game_id = request.match_info["game"]
    if game_id not in public_of(request).public_state().book.games:
        return _no_game(request, game_id)
    return await answer_page(
        request,
        f"embed-game:{game_id}",
        lambda config, public, delay, speed, lang: pages.embed_game_page(
            config, public, game_id, delay, speed=speed, lang=lang
        ),
        on=lambda public: (public.book.games.get(game_id),),
    )


@_page_route("/embed/round/{round}")
async def embed_round_page(request: web.Request) -> web.Response:
    section, number = section_of(request), round_of(request)
    if number > section.rounds:
        return _no_round(request, section, number)
    return await answer_page(
        request,
        f"embed-round:{section.name}:{number}",
        lambda config, public, delay, speed, lang: pages.embed_round_page(
            config, public, section, number, delay, speed=speed, lang=lang
        ),
    )


@_page_route("/standings")
async def standings_page(request: web.Request) -> web.Response:
    section = section_of(request)
    return await answer_page(
        request,
        f"standings:{section.name}",
        lambda config, public, delay, speed, lang: pages.standings_page(
            config, public, section, delay, speed=speed, lang=lang
        ),
        tournament_only,
    )


# -- websocket -----------------------------------------------------------------------------------


@routes.get("/ws")
async def websocket(request: web.Request) -> web.StreamResponse:
    return await request.app[HUB].serve(request, arbiter=False)
