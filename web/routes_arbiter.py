"""The arbiter desk (/arbiter), its login, its websocket, and the arbiter JSON API.

Everything here acts on the live state through `Desk`, which goes through the service
(journaled, with who did it as `arbiter:<user>`). See `web.auth` for the session, CSRF,
Basic and rate-limit rules.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar
from urllib.parse import quote

from aiohttp import web
from multidict import MultiDictProxy

from broadcast.fide.pairing import Pairing
from broadcast.games.events import RESULTS
from broadcast.games.ids import GameKey, slug
from broadcast.games.state import GameError
from broadcast.service import actions as regs
from broadcast.service.actions import DESK_REASONS
from broadcast.service.event_service import ActionError, EventService
from web import views
from web.auth import (
    AUTH_FAILED_MESSAGE,
    LOGIN_COOKIE,
    SESSION_COOKIE,
    Session,
    csrf_ok,
    same_origin,
    set_cookie,
)
from web.board_svg import piece_defs
from web.common import (
    ARBITER,
    AUTH,
    DESK,
    HUB,
    PAIRER,
    error,
    http_error,
    json_response,
    round_of,
    service_of,
)
from web.desk import split_moves
from web.pages import ENV
from web.pairing_worker import PairingBusy

routes = web.RouteTableDef()

SESSION = web.RequestKey("session", Session)
FORM = web.RequestKey("form", MultiDictProxy)

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
T = TypeVar("T")


def _by(request: web.Request) -> str:
    return f"arbiter:{request[ARBITER]}"


def _client(request: web.Request) -> str:
    return request.remote or "unknown"


# -- middleware: who may enter -------------------------------------------------------------------


@web.middleware
async def arbiter_guard(request: web.Request, handler: Handler) -> web.StreamResponse:
    path = request.path
    if isinstance(request.match_info.http_exception, web.HTTPMethodNotAllowed):
        return await handler(request)  # 405 with Allow, whoever asks (TRACE, ...)
    if path.startswith("/api/v1/arbiter"):
        return await _guard_api(request, handler)
    if path == "/arbiter" or (path.startswith("/arbiter/") and path != "/arbiter/login"):
        return await _guard_desk(request, handler)
    return await handler(request)


async def _guard_api(request: web.Request, handler: Handler) -> web.StreamResponse:
    auth = request.app[AUTH]
    if not auth.enabled:
        return error(
            403, "the arbiter API is disabled: start boardwire with BOARDWIRE_ARBITER_PASSWORD set"
        )
    session = auth.session(request)
    unsafe = request.method not in ("GET", "HEAD", "OPTIONS")
    if session is not None:
        if unsafe and not (
            same_origin(request) and csrf_ok(session, request.headers.get("X-CSRF-Token"))
        ):
            return error(403, "missing or wrong X-CSRF-Token header")
        request[ARBITER] = session.user
        return await handler(request)
    user = auth.basic_user(request)
    if user is None:
        response = error(401, "arbiter login required")
        response.headers["WWW-Authenticate"] = 'Basic realm="boardwire arbiter"'
        return response
    if unsafe and request.content_type != "application/json" and not _bare_post(request):
        # Browsers cache Basic credentials; only a JSON body proves this is no cross-site form.
        return error(415, "send the body as application/json")
    request[ARBITER] = user
    return await handler(request)


# What a cross-site form (or a script from another site, without asking first) can send.
_FORM_TYPES = frozenset({"application/x-www-form-urlencoded", "multipart/form-data", "text/plain"})


def _bare_post(request: web.Request) -> bool:
    """A POST without a body (confirm, acknowledge), not of a type a cross-site form or a
    no-cors script could send, and not from another site's page (its Origin)."""
    return (
        not request.body_exists and request.content_type not in _FORM_TYPES and same_origin(request)
    )


async def _guard_desk(request: web.Request, handler: Handler) -> web.StreamResponse:
    auth = request.app[AUTH]
    if not auth.enabled:
        return _desk_html(
            ENV.get_template("arbiter_off.html").render(event=service_of(request).config),
            status=403,
        )
    session = auth.session(request)
    if session is None:
        if request.method == "GET" and request.path != "/arbiter/ws":
            raise web.HTTPSeeOther("/arbiter/login")
        return error(401, "arbiter login required")
    if request.method == "POST":
        form = await request.post()
        supplied = form.get("csrf")
        if not same_origin(request) or not csrf_ok(
            session, supplied if isinstance(supplied, str) else None
        ):
            return error(403, "the form is stale or not from this desk: reload the page")
        request[FORM] = form
    request[ARBITER] = session.user
    request[SESSION] = session
    return await handler(request)


def _desk_html(text: str, status: int = 200) -> web.Response:
    response = web.Response(text=text, content_type="text/html", charset="utf-8", status=status)
    response.headers["Cache-Control"] = "no-store"  # the desk's CSRF token is not for caches
    return response


# -- login / logout ------------------------------------------------------------------------------


@routes.get("/arbiter/login")
async def login_form(request: web.Request) -> web.Response:
    auth = request.app[AUTH]
    token = secrets.token_urlsafe(24)
    response = _desk_html(
        ENV.get_template("arbiter_login.html").render(
            event=service_of(request).config,
            login_token=token,
            enabled=auth.enabled,
            message=request.query.get("m", ""),
        )
    )
    set_cookie(response, request, LOGIN_COOKIE, token)
    return response


@routes.post("/arbiter/login")
async def login(request: web.Request) -> web.StreamResponse:
    auth = request.app[AUTH]
    who = _client(request)
    wait = auth.retry_after(who)
    if wait > 0:
        response = web.Response(
            text=f"too many failed logins: try again in {int(wait) + 1} s", status=429
        )
        response.headers["Retry-After"] = str(int(wait) + 1)
        return response
    form = await request.post()
    token = request.cookies.get(LOGIN_COOKIE, "")
    supplied = form.get("login_token")
    if (
        not token
        or not isinstance(supplied, str)
        or not secrets.compare_digest(token, supplied)
        or not same_origin(request)
    ):
        raise web.HTTPSeeOther("/arbiter/login?m=" + quote("The form expired: try again."))
    user, password = form.get("user"), form.get("password")
    if not isinstance(user, str) or not isinstance(password, str):
        user, password = "", ""  # counted as a failed guess like any other
    # The same check as HTTP Basic: a failure counts, a success clears the client's strikes.
    if not auth.check_guess(who, user, password):
        raise web.HTTPSeeOther("/arbiter/login?m=" + quote(AUTH_FAILED_MESSAGE))
    session_token, _session = auth.open_session(user)
    response = web.HTTPSeeOther("/arbiter")
    set_cookie(response, request, SESSION_COOKIE, session_token)
    response.del_cookie(LOGIN_COOKIE, path="/")
    raise response


@routes.post("/arbiter/logout")
async def logout(request: web.Request) -> web.StreamResponse:
    request.app[AUTH].close_session(request)
    response = web.HTTPSeeOther("/arbiter/login")
    response.del_cookie(SESSION_COOKIE, path="/")
    raise response


# -- the desk page -------------------------------------------------------------------------------


@routes.get("/arbiter")
async def desk_page(request: web.Request) -> web.Response:
    service = service_of(request)
    desk = request.app[DESK]
    session = request[SESSION]
    live = service.live_rounds()
    rounds = []
    for section in service.config.sections:
        number = live.get(section.name)
        if number is None:
            continue
        games = [views.arbiter_game_json(g) for g in service.book.round_games(section.name, number)]
        playoff = service.tournament.section(section.name).playoff.get(number - section.rounds)
        rounds.append(
            {
                "section": section.name,
                "slug": slug(section.name),
                "round": number,
                "games": games,
                # A round after the last one is a play-off game: say which.
                "playoff": f"play-off game {playoff.number} ({playoff.kind})" if playoff else "",
            }
        )
    boards = [
        views.desk_board_json(b, service.book)
        for b in sorted(service.hall.values(), key=lambda b: b.number)
    ]
    text = ENV.get_template("arbiter.html").render(
        event=service.config,
        defs=piece_defs(),
        user=request[ARBITER],
        csrf=session.csrf,
        boards=boards,
        alerts=[views.alert_json(a) for a in desk.alerts()],
        rounds=rounds,
        results=RESULTS,
        reasons=DESK_REASONS,
        now=service.time.now(),
        message=request.query.get("m", ""),
        sections=[{"name": s.name, "slug": slug(s.name)} for s in service.config.sections],
        unpaired=[
            {"section": s, "slug": slug(s), "round": n}
            for s, n in service.unpaired_rounds().items()
        ],
        playoffs=_playoffs(service),
    )
    return _desk_html(text)


def _playoffs(service: EventService) -> list[dict[str, str]]:
    """Each section's play-off for first, as the desk's "Pair play-off game" needs it:
    who is still in and what the next game is."""
    out: list[dict[str, str]] = []
    for section in service.config.sections:
        status = regs.playoff(service.tournament, section.name)
        if status is None:
            continue
        players = service.tournament.section(section.name).players
        names = {p: f"{p} {entry.name}" for p, entry in players.items()}
        if status.winner is not None:
            state = f"decided: {names[status.winner]} is first"
        elif status.next_kind is None:
            state = "a play-off game is being played: record its result"
        else:
            between = ", ".join(names[p] for p in status.remaining)
            state = f"next game: {status.next_kind}, between {between}"
        tied = ", ".join(names[p] for p in status.tied)
        out.append({"section": section.name, "tied": tied, "state": state})
    return out


@routes.get("/arbiter/ws")
async def desk_ws(request: web.Request) -> web.StreamResponse:
    if not same_origin(request):
        return error(403, "cross-site websocket refused")
    return await request.app[HUB].serve(request, arbiter=True)


def _form(request: web.Request, name: str) -> str:
    value = request[FORM].get(name)
    return value.strip() if isinstance(value, str) else ""


def _int(text: str, name: str) -> int:
    if not text.isascii() or not text.isdigit() or len(text) > 6:
        raise ActionError(f"{name} must be a number")
    return int(text)


@routes.post("/arbiter/act/{action}")
async def desk_action(request: web.Request) -> web.StreamResponse:
    """One form of the desk; Post/Redirect/Get with the outcome as the page's message."""
    action = request.match_info["action"]
    desk = request.app[DESK]
    by = _by(request)
    game = _form(request, "game")
    try:
        if action == "result":
            raised = desk.set_result(
                game, _form(request, "result"), by, _form(request, "reason") or None
            )
            done = f"{game}: result {_form(request, 'result')}"
            done += "".join(f" (alert: {a.message})" for a in raised)
        elif action == "confirm":
            desk.confirm(game, by)
            done = f"{game}: result confirmed"
        elif action == "line":
            desk.correct_line(game, split_moves(_form(request, "moves")), by)
            done = f"{game}: line corrected"
        elif action == "start-fen":
            desk.set_start_fen(game, _form(request, "fen"), by)
            done = f"{game}: start position set"
        elif action == "present":
            desk.mark_present(game, _form(request, "colour"), by)
            done = f"{game}: {_form(request, 'colour')} marked present"
        elif action == "ack":
            desk.acknowledge(_form(request, "alert"), by)
            done = "alert acknowledged"
        elif action == "pair":
            done = await _pair(request, by)
        elif action == "board":
            desk.assign_board(
                _form(request, "section"),
                _int(_form(request, "round"), "round"),
                _int(_form(request, "white"), "white"),
                _int(_form(request, "board"), "board"),
                by,
            )
            done = "board reassigned"
        else:
            return error(404, f"no action {action!r}")
    except ActionError as exc:
        done = f"Not done: {exc}"
    raise web.HTTPSeeOther("/arbiter?m=" + quote(done))


async def _pair(request: web.Request, by: str) -> str:
    """Pair a round from the desk: the pairing program's TRF when pasted, else FIDE Dutch."""
    service = service_of(request)
    section = views.section_by_name(service.config, _form(request, "section"))
    if section is None:
        raise ActionError(f"no section {_form(request, 'section')!r}")
    number = _int(_form(request, "round"), "round")
    trf = _form(request, "trf")
    if trf:
        pairings = service.imported_pairings(section.name, number, trf)
        source = "import"
    else:
        # The Dutch engine can take a minute on a large Swiss: in the worker process.
        pairings = await request.app[PAIRER].dutch(service, section.name, number)
        source = "dutch"
    service.publish_pairings(section.name, number, pairings, source, by)
    games = sum(1 for p in pairings if p.black is not None)
    return f"{section.name} round {number} paired ({source}, {games} games)"


# -- JSON API ------------------------------------------------------------------------------------


async def _body(request: web.Request) -> dict[str, Any]:
    try:
        data = await request.json()
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise http_error(web.HTTPBadRequest, "the body must be a JSON object") from None
    if not isinstance(data, dict):
        raise http_error(web.HTTPBadRequest, "the body must be a JSON object")
    return data


def _field(data: dict[str, Any], name: str, kind: type) -> Any:
    value = data.get(name)
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise http_error(web.HTTPBadRequest, f"field {name!r} must be a {kind.__name__}")
    return value


def _live_game(request: web.Request, game_id: str) -> web.Response:
    try:
        return json_response(views.arbiter_game_json(service_of(request).book.get(game_id)))
    except GameError:
        return error(404, f"no game {game_id!r}")


@routes.get("/api/v1/arbiter/boards")
async def boards_route(request: web.Request) -> web.Response:
    service = service_of(request)
    return json_response(
        [
            views.desk_board_json(b, service.book)
            for b in sorted(service.hall.values(), key=lambda b: b.number)
        ]
    )


@routes.get("/api/v1/arbiter/alerts")
async def alerts_route(request: web.Request) -> web.Response:
    return json_response([views.alert_json(a) for a in request.app[DESK].alerts()])


@routes.get("/api/v1/arbiter/games/{game}")
async def live_game_route(request: web.Request) -> web.Response:
    return _live_game(request, request.match_info["game"])


def _path_game(request: web.Request) -> str:
    """The game named in the path; 404 when there is none (not 422: the resource is
    missing, not the action refused)."""
    game_id = request.match_info["game"]
    if game_id not in service_of(request).book.games:
        raise http_error(web.HTTPNotFound, f"no game {game_id[:80]!r}")
    return game_id


async def _act(request: web.Request, action: Callable[[], T]) -> T:
    try:
        return action()
    except ActionError as exc:
        raise http_error(web.HTTPUnprocessableEntity, str(exc)) from None


@routes.post("/api/v1/arbiter/games/{game}/result")
async def result_route(request: web.Request) -> web.Response:
    game_id = _path_game(request)
    data = await _body(request)
    result = _field(data, "result", str)
    reason = _field(data, "reason", str) if "reason" in data else None
    await _act(request, lambda: request.app[DESK].set_result(game_id, result, _by(request), reason))
    return _live_game(request, game_id)


@routes.post("/api/v1/arbiter/games/{game}/confirm")
async def confirm_route(request: web.Request) -> web.Response:
    game_id = _path_game(request)
    await _act(request, lambda: request.app[DESK].confirm(game_id, _by(request)))
    return _live_game(request, game_id)


@routes.post("/api/v1/arbiter/games/{game}/line")
async def line_route(request: web.Request) -> web.Response:
    game_id = _path_game(request)
    data = await _body(request)
    moves = _field(data, "moves", list)
    if not all(isinstance(m, str) for m in moves):
        return error(400, 'moves must be a list of moves like ["e2e4", "e7e5"] or ["e4", "e5"]')
    await _act(request, lambda: request.app[DESK].correct_line(game_id, moves, _by(request)))
    return _live_game(request, game_id)


@routes.post("/api/v1/arbiter/games/{game}/start-fen")
async def start_fen_route(request: web.Request) -> web.Response:
    game_id = _path_game(request)
    data = await _body(request)
    fen = _field(data, "fen", str)
    await _act(request, lambda: request.app[DESK].set_start_fen(game_id, fen, _by(request)))
    return _live_game(request, game_id)


@routes.post("/api/v1/arbiter/games/{game}/present")
async def present_route(request: web.Request) -> web.Response:
    game_id = _path_game(request)
    data = await _body(request)
    colour = _field(data, "colour", str)
    await _act(request, lambda: request.app[DESK].mark_present(game_id, colour, _by(request)))
    return _live_game(request, game_id)


@routes.post("/api/v1/arbiter/alerts/{alert}/ack")
async def ack_route(request: web.Request) -> web.Response:
    alert_id = request.match_info["alert"]
    await _act(request, lambda: request.app[DESK].acknowledge(alert_id, _by(request)))
    return json_response({"acknowledged": alert_id})


@routes.post("/api/v1/arbiter/byes")
async def bye_route(request: web.Request) -> web.Response:
    """The older bye route: a request through the policy without override (as
    /api/v1/arbiter/bye-requests; refused: 422 with the regulation's reason)."""
    data = await _body(request)
    section, rnd = _field(data, "section", str), _field(data, "round", int)
    player = _field(data, "player", int)
    await _act(request, lambda: request.app[DESK].grant_bye(section, rnd, player, _by(request)))
    return json_response({"granted": {"section": section, "round": rnd, "player": player}})


@routes.post("/api/v1/arbiter/boards/assign")
async def assign_route(request: web.Request) -> web.Response:
    data = await _body(request)
    section, rnd = _field(data, "section", str), _field(data, "round", int)
    white, board = _field(data, "white", int), _field(data, "board", int)
    await _act(
        request,
        lambda: request.app[DESK].assign_board(section, rnd, white, board, _by(request)),
    )
    return json_response(
        {"assigned": {"section": section, "round": rnd, "white": white, "board": board}}
    )


@routes.post("/api/v1/arbiter/sections/{section}/rounds/{round}/pairings")
async def pairings_route(request: web.Request) -> web.Response:
    """Pair a round: import it from the pairing program's TRF, pair it with FIDE Dutch, or
    set it by hand (`pairs`: [white, black] with 0 for the bye). A paired round is edited."""
    service = service_of(request)
    data = await _body(request)
    section = request.match_info["section"]
    number = round_of(request)
    by = _by(request)
    names = {s.name: s.name for s in service.config.sections} | {
        slug(s.name): s.name for s in service.config.sections
    }
    if section not in names:
        return error(404, f"no section {section!r}")
    section = names[section]
    try:
        if "trf" in data:
            pairings = service.imported_pairings(section, number, _field(data, "trf", str))
            source = "import"
        elif "pairs" in data:
            pairs = _field(data, "pairs", list)
            if not all(
                isinstance(p, list)
                and len(p) == 2
                and all(isinstance(x, int) and not isinstance(x, bool) for x in p)
                for p in pairs
            ):
                return error(
                    400, "pairs must be a list of [white, black] starting numbers (0 for the bye)"
                )
            games = [p for p in pairs if p[1] != 0]
            pairings = tuple(
                [Pairing(i, w, b) for i, (w, b) in enumerate(games, 1)]
                + [Pairing(0, w, None) for w, b in pairs if b == 0]
            )
            source = "arbiter"
        elif data.get("engine") == "dutch":
            # The Dutch engine can take a minute on a large Swiss: in the worker process.
            pairings = await request.app[PAIRER].dutch(service, section, number)
            source = "dutch"
        else:
            return error(
                400, 'give "trf" (the pairing program\'s file), "pairs", or "engine": "dutch"'
            )
        service.publish_pairings(section, number, pairings, source, by)
    except PairingBusy as exc:
        return error(409, str(exc))
    except ActionError as exc:
        return error(422, str(exc))
    return json_response(
        {
            "section": section,
            "round": number,
            "source": source,
            "pairings": [
                {"board": p.board, "white": p.white, "black": p.black or 0} for p in pairings
            ],
        }
    )


# -- regulations: byes, withdrawals, absences, play-off (desk forms and JSON API) -------------


def _round_player(request: web.Request) -> tuple[int, int]:
    return _int(_form(request, "round"), "round"), _int(_form(request, "player"), "player")


def _checked(request: web.Request, name: str) -> bool:
    return _form(request, name) in ("on", "1", "yes", "true")


@routes.post("/arbiter/regs/{action}")
async def desk_regulation_action(request: web.Request) -> web.StreamResponse:
    """The desk's regulation forms; Post/Redirect/Get with the outcome (or the
    regulation's refusal) as the page's message."""
    action = request.match_info["action"]
    desk = request.app[DESK]
    by = _by(request)
    section = _form(request, "section")
    try:
        if action == "bye-request":
            rnd, player = _round_player(request)
            granted = desk.request_bye(
                section, rnd, player, by, override=_checked(request, "override")
            )
            done = f"bye for round {rnd} granted to player {player}"
            if granted.override:
                done += f" against the regulations ({granted.override}): flagged"
        elif action == "bye-cancel":
            rnd, player = _round_player(request)
            desk.cancel_bye(section, rnd, player, by, override=_checked(request, "override"))
            done = f"bye for round {rnd} of player {player} cancelled"
        elif action == "withdraw":
            player = _int(_form(request, "player"), "player")
            text = _form(request, "from_round")
            start = _int(text, "from round") if text else None
            event = desk.withdraw(
                section, player, by, from_round=start, reason=_form(request, "reason")
            )
            done = f"player {player} withdrawn from round {event.from_round}"
        elif action == "continue":
            rnd, player = _round_player(request)
            desk.continue_after_absence(section, rnd, player, by)
            done = f"player {player} continues after the absence in round {rnd}"
        elif action == "playoff":
            white, black = (
                _int(_form(request, "white"), "white"),
                _int(_form(request, "black"), "black"),
            )
            text = _form(request, "board")
            paired = desk.pair_playoff_game(
                section, white, black, by, board=_int(text, "board") if text else 1
            )
            done = f"play-off game {paired.number} ({paired.kind}) paired"
        else:
            return error(404, f"no action {action!r}")
    except ActionError as exc:
        done = f"Not done: {exc}"
    raise web.HTTPSeeOther("/arbiter?m=" + quote(done))


def _optional_int(data: dict[str, Any], name: str) -> int | None:
    return _field(data, name, int) if data.get(name) is not None else None


def _override(data: dict[str, Any]) -> bool:
    return _field(data, "override", bool) if "override" in data else False


async def _bye_action(request: web.Request, *, cancel: bool) -> web.Response:
    data = await _body(request)
    section, rnd = _field(data, "section", str), _field(data, "round", int)
    player, override = _field(data, "player", int), _override(data)
    desk = request.app[DESK]
    act = desk.cancel_bye if cancel else desk.request_bye
    event = await _act(request, lambda: act(section, rnd, player, _by(request), override=override))
    done = {"section": event.section, "round": rnd, "player": player}
    return json_response({"cancelled" if cancel else "granted": done, "override": event.override})


@routes.post("/api/v1/arbiter/bye-requests")
async def bye_request_route(request: web.Request) -> web.Response:
    """A bye through the section's policy: 200 granted, 422 refused with the regulation's
    reason; `"override": true` grants anyway (journaled and flagged with an alert)."""
    return await _bye_action(request, cancel=False)


@routes.post("/api/v1/arbiter/bye-cancellations")
async def bye_cancel_route(request: web.Request) -> web.Response:
    """Cancel a granted bye: until the request deadline, later only with `override`."""
    return await _bye_action(request, cancel=True)


@routes.post("/api/v1/arbiter/withdrawals")
async def withdraw_route(request: web.Request) -> web.Response:
    """Withdraw (eliminate) a player; round robin: their later games follow the config."""
    data = await _body(request)
    section, player = _field(data, "section", str), _field(data, "player", int)
    start = _optional_int(data, "from_round")
    reason = _field(data, "reason", str) if "reason" in data else ""
    desk = request.app[DESK]
    event = await _act(
        request,
        lambda: desk.withdraw(section, player, _by(request), from_round=start, reason=reason),
    )
    return json_response(
        {
            "withdrawn": {
                "section": event.section,
                "player": player,
                "from_round": event.from_round,
                "reason": event.reason,
            }
        }
    )


@routes.post("/api/v1/arbiter/continuations")
async def continuation_route(request: web.Request) -> web.Response:
    """The player's written request to go on after an absence (before the next pairing)."""
    data = await _body(request)
    section, rnd = _field(data, "section", str), _field(data, "round", int)
    player = _field(data, "player", int)
    desk = request.app[DESK]
    await _act(request, lambda: desk.continue_after_absence(section, rnd, player, _by(request)))
    return json_response({"continues": {"section": section, "round": rnd, "player": player}})


@routes.post("/api/v1/arbiter/playoff-games")
async def playoff_route(request: web.Request) -> web.Response:
    """Pair the next play-off game for first place (its kind follows the play-off)."""
    data = await _body(request)
    section = _field(data, "section", str)
    white, black = _field(data, "white", int), _field(data, "black", int)
    board = _optional_int(data, "board") or 1
    desk = request.app[DESK]
    event = await _act(
        request, lambda: desk.pair_playoff_game(section, white, black, _by(request), board=board)
    )
    game = GameKey(
        event.section,
        event.number + service_of(request).config.section(event.section).rounds,
        event.board,
    )
    return json_response(
        {
            "number": event.number,
            "kind": event.kind,
            "game": game.id,
            "white": white,
            "black": black,
        }
    )
