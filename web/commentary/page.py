"""The commentators' channel's routes, under `/commentary` on the venue's app only.

- `GET /commentary/login`, `POST /commentary/login`, `POST /commentary/logout`: the
  commentator's own login (`BOARDWIRE_COMMENTATOR_USER`, `BOARDWIRE_COMMENTATOR_PASSWORD`),
  the same form, tokens and guess limits as the arbiter's (`web.auth`); the session is a
  commentator's, in a cookie of its own sent to `/commentary` only, and can act on nothing.
- `GET /commentary`: the live rounds' games as they are played (no broadcast delay),
  each linking to `GET /commentary/game/{game}`: the public game page, live;
  `GET /commentary/api/games/{game}`: one live game's JSON, with the engine's evaluation
  of its live position (`--eval`); `GET /commentary/ws`: the hub's protocol, live.

Who may read it: a commentator's session, the arbiter's session, or HTTP Basic with
either's credentials (scripts; counted like any password guess). Anybody else: the page
sends to the login form, the JSON and the websocket answer 401. Every answer is
`Cache-Control: no-store`: it carries what the delay still hides from the public.

`setup` adds all this to the venue's app when a commentator credential is configured;
`web.app.build_mirror_app` never calls it, so a mirror (which holds only the delayed
stream) has no such route at all.
"""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator, Awaitable, Callable

from aiohttp import web

from broadcast.analysis.evaluator import Evaluator
from broadcast.games.evaluation import eval_json
from broadcast.games.game_state import GameError
from broadcast.games.ids import slug
from broadcast.phrases import say
from broadcast.service.event_service import EventService
from broadcast.service.event_state import PublicState
from broadcast.service.supervisor import SupervisedTask
from web import json_views, pages
from web.answers import Answers
from web.auth import (
    ARBITER_ROLE,
    COMMENTARY_COOKIE,
    COMMENTATOR_ROLE,
    LOGIN_COOKIE,
    Auth,
    basic_credentials,
    same_origin,
    set_cookie,
)
from web.commentary.live_source import LiveSource
from web.http_json import error, json_response
from web.hub import Hub
from web.i18n import gettext_of
from web.keys import AUTH, EVALS, lang_of, service_of
from web.limits import HubLimits, LoopBudget
from web.sections import section_by_name
from web.words import N_

__all__ = ["COMMENTARY", "PREFIX", "Commentary", "routes", "setup"]

PREFIX = "/commentary"

routes = web.RouteTableDef()

_EXPIRED = N_("The form expired: try again.")
_WRONG = N_("Wrong user or password.")
_MESSAGES = {"expired": _EXPIRED, "wrong": _WRONG}

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


class Commentary:
    """The channel's parts: the live source, its own hub (a public-shaped channel fed
    from the live state), its answers and, with `--eval`, an evaluator of the live
    positions (a second engine: the public one never looks past the delay)."""

    def __init__(
        self,
        service: EventService,
        *,
        budget: LoopBudget,
        limits: HubLimits,
        evals: Evaluator | None = None,
    ) -> None:
        self.service = service
        self.source = LiveSource(service)
        self.evals = Evaluator(self.source.public_state, evals.settings) if evals else None
        self.hub = Hub(self.source, limits=limits, budget=budget, evals=self.evals)
        self.answers = Answers(self.source)
        self._task: SupervisedTask | None = None

    def attach(self) -> None:
        """Follow the venue's commits (the live state changes only with them)."""
        self.service.listeners.append(self.hub.on_commit)
        if self.evals is not None:
            self._task = self.service.supervisor.start(
                say("the commentators' engine evaluations"),
                self.evals.run,
                stops=say("Commentators get no new engine evaluations until it runs again."),
            )

    async def close(self) -> None:
        if self.hub.on_commit in self.service.listeners:
            self.service.listeners.remove(self.hub.on_commit)
        if self._task is not None:
            await self._task.stop()
        await self.hub.close()
        self.answers.close()


COMMENTARY = web.AppKey("commentary", Commentary)


def _no_store(response: web.StreamResponse) -> web.StreamResponse:
    if not response.prepared:
        response.headers["Cache-Control"] = "no-store"
    return response


def _reader(request: web.Request, auth: Auth) -> str | None:
    """The role of whoever asks (None: nobody logged in): a session first, then Basic."""
    session = auth.session(request) or auth.commentary_session(request)
    if session is not None:
        return session.role
    given = basic_credentials(request)
    if given is None:
        return None
    user, password = given
    return auth.guess_role(auth.caller(request), user, password, (COMMENTATOR_ROLE, ARBITER_ROLE))


def _readers_only(*, page: bool = False) -> Callable[[Handler], Handler]:
    """Only a commentator or the arbiter gets through; the channel off: 403."""

    def wrap(handler: Handler) -> Handler:
        async def guarded(request: web.Request) -> web.StreamResponse:
            if COMMENTARY not in request.app:
                return _no_store(
                    error(
                        403,
                        "the commentators' channel is off: start boardwire with "
                        "BOARDWIRE_COMMENTATOR_PASSWORD set",
                    )
                )
            try:
                role = _reader(request, request.app[AUTH])
            except web.HTTPException as exc:  # locked out (429)
                exc.headers["Cache-Control"] = "no-store"
                raise
            if role is None:
                if page:
                    raise web.HTTPSeeOther(f"{PREFIX}/login", headers={"Cache-Control": "no-store"})
                response = error(401, "commentator or arbiter login required")
                response.headers["WWW-Authenticate"] = 'Basic realm="boardwire commentary"'
                return _no_store(response)
            return _no_store(await handler(request))

        guarded.__name__ = guarded.__qualname__ = handler.__name__
        guarded.__doc__ = handler.__doc__
        return guarded

    return wrap


# -- the login ------------------------------------------------------------------------------------


@routes.get(f"{PREFIX}/login")
async def login_form(request: web.Request) -> web.StreamResponse:
    token = secrets.token_urlsafe(24)
    lang = lang_of(request)
    text = _MESSAGES.get(request.query.get("m", ""))  # a key, never a text from the link
    enabled = COMMENTARY in request.app
    response = web.Response(
        text=pages.ENV.get_template("login.html").render(
            commentary=True,
            **pages.chrome(lang, f"{PREFIX}/login"),
            event=service_of(request).config,
            login_token=token,
            enabled=enabled,
            message=gettext_of(lang)(text) if text else "",
        ),
        content_type="text/html",
        charset="utf-8",
    )
    set_cookie(response, request, LOGIN_COOKIE, token)
    return _no_store(response)


@routes.post(f"{PREFIX}/login")
async def login(request: web.Request) -> web.StreamResponse:
    auth = request.app[AUTH]
    who = auth.caller(request)
    form = await request.post()
    token = request.cookies.get(LOGIN_COOKIE, "")
    supplied = form.get("login_token")
    if (
        COMMENTARY not in request.app
        or not token
        or not isinstance(supplied, str)
        or not secrets.compare_digest(token, supplied)
        or not same_origin(request)
    ):
        raise web.HTTPSeeOther(f"{PREFIX}/login?m=expired", headers={"Cache-Control": "no-store"})
    user, password = form.get("user"), form.get("password")
    if not isinstance(user, str) or not isinstance(password, str):
        user, password = "", ""  # counted as a failed guess like any other
    # Either login opens a commentator's session here: read-only, whoever logs in.
    if auth.guess_role(who, user, password, (COMMENTATOR_ROLE, ARBITER_ROLE)) is None:
        raise web.HTTPSeeOther(f"{PREFIX}/login?m=wrong", headers={"Cache-Control": "no-store"})
    session_token, _session = auth.open_session(user, COMMENTATOR_ROLE)
    response = web.HTTPSeeOther(PREFIX, headers={"Cache-Control": "no-store"})
    set_cookie(response, request, COMMENTARY_COOKIE, session_token, path=PREFIX)
    response.del_cookie(LOGIN_COOKIE, path="/")
    raise response


@routes.post(f"{PREFIX}/logout")
async def logout(request: web.Request) -> web.StreamResponse:
    request.app[AUTH].close_session(request, COMMENTARY_COOKIE)
    response = web.HTTPSeeOther(f"{PREFIX}/login", headers={"Cache-Control": "no-store"})
    response.del_cookie(COMMENTARY_COOKIE, path=PREFIX)
    raise response


# -- the live page, its JSON and its websocket ------------------------------------------------


@routes.get(PREFIX)
@_readers_only(page=True)
async def live_page(request: web.Request) -> web.StreamResponse:
    """The live rounds' games, undelayed (one page per live state, built in a worker)."""
    commentary = request.app[COMMENTARY]
    source = commentary.source
    live = source.live_rounds()
    lang = lang_of(request)
    speed = json_views.speed_of(source)

    def make(public: PublicState) -> str:
        lives = []
        for name, number in live.items():
            section = section_by_name(source.config, name)
            if number is None or section is None:
                continue
            lives.append(
                {
                    "section": section.name,
                    "slug": slug(section.name),
                    "round": number,
                    "games": pages.round_games(source.config, public, section, number),
                }
            )
        return pages.ENV.get_template("commentary.html").render(
            **pages.page_frame(source.config, 0.0, speed, lang, PREFIX), lives=lives
        )

    answer = await commentary.answers.text(
        f"commentary:{sorted(live.items())}:{speed}:{lang}", make, "text/html"
    )
    return web.Response(body=answer.body, content_type="text/html", charset="utf-8")


@routes.get(PREFIX + "/game/{game}")
@_readers_only(page=True)
async def game_page(request: web.Request) -> web.StreamResponse:
    """One live game's page: the public `/game/{game}` page, undelayed, following the
    commentators' hub (its `game` scope on `/commentary/ws`)."""
    commentary = request.app[COMMENTARY]
    source = commentary.source
    game_id = request.match_info["game"]
    lang = lang_of(request)
    if game_id not in source.public_state().book.games:
        _ = gettext_of(lang)
        text = pages.error_page(
            source.config,
            404,
            _("There is no game %(game)s in this event.") % {"game": repr(game_id)},
            lang=lang,
            here=request.path,
        )
        return web.Response(text=text, status=404, content_type="text/html", charset="utf-8")
    flipped = request.query.get("flip") == "1"
    evaluating = commentary.evals is not None and request.query.get("eval") != "0"
    speed = json_views.speed_of(source)

    def make(public: PublicState) -> str:
        return pages.game_page(
            source.config,
            public.book.get(game_id),
            source.delay,
            flipped=flipped,
            speed=speed,
            pairings=public.tournament,
            public=public,
            lang=lang,
            evaluating=evaluating,
            channel="commentary",
        )

    answer = await commentary.answers.text(
        f"commentary-game:{game_id}:{flipped}:{evaluating}:{speed}:{lang}",
        make,
        "text/html",
        on=lambda public: (public.book.games.get(game_id), public.tournament),
    )
    return web.Response(body=answer.body, content_type="text/html", charset="utf-8")


@routes.get(PREFIX + "/api/games/{game}")
@_readers_only()
async def game_json(request: web.Request) -> web.StreamResponse:
    """One live game, as `/api/v1/games/{game}` shows the delayed one, with the engine's
    evaluation of its live position (null until the engine reaches it, or without one)."""
    commentary = request.app[COMMENTARY]
    game_id = request.match_info["game"]
    try:
        game = commentary.source.public_state().book.get(game_id)
    except GameError:
        return error(404, f"no game {game_id!r}")
    evals = commentary.evals
    ev = evals.current(game) if evals is not None else None
    body = json_views.game_json(game, commentary.source.config)
    return json_response({**body, "eval": eval_json(ev) if ev else None})


@routes.get(PREFIX + "/ws")
@_readers_only()
async def websocket(request: web.Request) -> web.StreamResponse:
    if not same_origin(request):  # a foreign page must not ride a commentator's cookie
        return error(403, "a websocket from another site's page is refused")
    return await request.app[COMMENTARY].hub.serve(request, arbiter=False)


async def _part(app: web.Application) -> AsyncIterator[None]:
    commentary = app[COMMENTARY]
    commentary.attach()
    yield
    await commentary.close()


def setup(
    app: web.Application,
    service: EventService,
    *,
    budget: LoopBudget,
    limits: HubLimits,
) -> None:
    """The commentators' routes on the venue's app; their channel only when a commentator
    credential is configured (`Auth.commentator`): otherwise the routes answer 403."""
    app.add_routes(routes)
    if app[AUTH].commentator is None:
        return
    app[COMMENTARY] = Commentary(service, budget=budget, limits=limits, evals=app.get(EVALS))
    app.cleanup_ctx.append(_part)
