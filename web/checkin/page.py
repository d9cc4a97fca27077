"""The table page `/t/{table}` the players open from their table's QR code, and the
arbiter's list of the round codes `/arbiter/checkin`.

The table page is public but behind the round's code (`web.checkin.codes`: from the QR
code's `?c=`, or typed): with it, it shows the table's game of the section's latest
paired round (its players and round, what the pairing sheet says) and lets a player
check in (`MarkPresent`, by the player) and, where the event lets players enter results
(`player_results`), enter the result or confirm the one the other player entered
(`broadcast.actions.table`). Everything goes through the one door, journaled with the
player as `by`. It shows nothing of any other game, and of its own only what the players
at the table know: who plays, who checked in, the result they entered (no moves, no
clocks, nothing of the delayed broadcast).

A wrong code counts against the client (`web.checkin.limits`); a code of an earlier round
is refused, saying so. The answers are never cached (`Cache-Control: no-store`), and the
page sends its address (which carries the code) to no other site (`Referrer-Policy:
same-origin`).

`/arbiter/checkin` (behind the arbiter's login, like the desk) lists each section's round
code and renews one (`RenewRoundCode`, asks first, undoable on the desk).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from aiohttp import web

from broadcast.actions.alerts import MarkPresent
from broadcast.actions.door import Command, ConfirmationNeeded, act
from broadcast.actions.table import (
    PLAYER_RESULTS,
    ConfirmAtTable,
    ProposeAtTable,
    RenewRoundCode,
    player_by,
    players_enter_results,
    proposed_by,
)
from broadcast.config.tables import board_at_table, section_tables
from broadcast.games.game_events import Colour
from broadcast.games.game_state import GameState
from broadcast.games.ids import GameKey
from broadcast.journal.errors import JournalError
from broadcast.service.event_service import ActionError, EventService, NotDurable
from web.auth import same_origin
from web.checkin.codes import RoundCodes, Verdict
from web.checkin.gate import Refused, checked_code, field, page_answer
from web.checkin.limits import CodeLimits
from web.checkin.parts import CODES, LIMITS, ORIGIN, checkin_on, remember_origin, table_pages_on
from web.checkin.qr import OriginMemory, table_path, table_url
from web.i18n import Gettext, gettext_of
from web.keys import ARBITER, AUTH, SERVICE, lang_of
from web.proxy import PROXY
from web.words import said

__all__ = ["routes", "setup"]

routes = web.RouteTableDef()

MAX_TABLE = 9999
MESSAGES = ("checked-in", "entered", "confirmed")


def setup(app: web.Application) -> None:
    """Add the table pages to `app` (built by `web.app.build_app`, its service set)."""
    service = app[SERVICE]
    app[CODES] = RoundCodes(service.journal, service.action_log)
    app[LIMITS] = CodeLimits()
    proxy = app.get(PROXY)
    app[ORIGIN] = OriginMemory(proxy.public_origin if proxy is not None else None)
    app.add_routes(routes)
    app.middlewares.append(remember_origin)


# -- the table's game ----------------------------------------------------------------------


@dataclass(frozen=True)
class Seat:
    """What a table holds this round: the section, its round and board, and the game
    (None: a bye, or no pairing at that board)."""

    table: int
    section: str
    round: int
    board: int
    game: GameState | None


def _seat(service: EventService, table: int, _: Gettext) -> Seat:
    config = service.config
    where = board_at_table(config, table) if 1 <= table <= MAX_TABLE else None
    if where is None:
        raise Refused(404, _("There is no table %(table)s in this event.") % {"table": table})
    section, board = where
    if not table_pages_on(config, section):
        raise Refused(404, _("The tables of this event have no page for the players."))
    number = service.live_rounds().get(section) or 0
    if number == 0:
        raise Refused(404, _("No round is paired yet."))
    state = service.tournament.sections.get(section)
    paired = state.rounds.get(number) if state is not None else None
    if paired is None or all(p.board != board for p in paired.pairings):
        raise Refused(404, _("There is no table %(table)s in this event.") % {"table": table})
    game = service.book.games.get(GameKey(section, number, board).id)
    return Seat(table, section, number, board, game)


def _checked(request: web.Request, seat: Seat, typed: str, _: Gettext) -> str:
    """The code if it opens the seat's round; Refused otherwise (a wrong one counted)."""
    return checked_code(
        request,
        typed,
        lambda text: request.app[CODES].check(seat.section, seat.round, text),
        lambda verdict: _verdict_text(verdict, seat, _),
        _,
    )


def _verdict_text(verdict: Verdict, seat: Seat, _: Gettext) -> str:
    if verdict.outcome == "old":
        return _(
            "This is the code of round %(old)s. The pairing sheet of round %(round)s has a new one."
        ) % {"old": verdict.round, "round": seat.round}
    return _("Wrong code: check the code on the pairing sheet.")


def _presence(service: EventService, game: GameState) -> dict[str, bool]:
    presence = service.rules.presence_of(game.id)
    if presence is None:
        return {"white": False, "black": False}
    return {"white": presence.white is not None, "black": presence.black is not None}


def _player(game: GameState, colour: str) -> dict[str, Any] | None:
    player = game.white if colour == "white" else game.black
    if player is None:
        return None
    return {"name": player.name, "title": player.title, "rating": player.rating or None}


def _view(service: EventService, seat: Seat) -> dict[str, Any]:
    """What the page shows of the seat: the pairing, presence and the result as the
    players at the table know them."""
    config = service.config
    game = seat.game
    out: dict[str, Any] = {
        "table": seat.table,
        "section": seat.section if len(config.sections) > 1 else "",
        "round": seat.round,
        "game": None,
    }
    if game is None:
        return out
    proposal = game.proposal if game.result is None else None
    mover = proposed_by(game)
    out["game"] = {
        "white": _player(game, "white"),
        "black": _player(game, "black"),
        "present": _presence(service, game),
        "checkin": checkin_on(config, seat.section),
        "result": game.result,
        "entered": (
            {"by": mover, "result": proposal.result}
            if mover is not None and proposal is not None
            else None
        ),
        "waiting": proposal is not None and mover is None,
        "results": PLAYER_RESULTS if players_enter_results(config, seat.section) else (),
        "finished": game.finished,
    }
    return out


def _render(
    request: web.Request,
    table: int,
    *,
    view: dict[str, Any] | None = None,
    code: str = "",
    message: str = "",
    error: str = "",
    status: int = 200,
    retry: int = 0,
) -> web.Response:
    return page_answer(
        request,
        "table_page.html",
        table_path(table, code or None),
        status=status,
        retry=retry,
        table=table,
        view=view,
        code=code,
        message=message,
        error=error,
        action=f"/t/{table}",
    )


def _table_number(request: web.Request) -> int | None:
    text = request.match_info.get("table", "")
    if not text.isascii() or not text.isdigit() or len(text) > 4:
        return None
    return int(text)


@routes.get("/t/{table}")
async def table_page(request: web.Request) -> web.Response:
    """The table's page: the code's form, or the table's game once the code opens it."""
    _ = gettext_of(lang_of(request))
    table = _table_number(request)
    if table is None:
        raise web.HTTPNotFound()
    service = request.app[SERVICE]
    typed = request.query.get("c", "")[:64]
    try:
        seat = _seat(service, table, _)
        code = _checked(request, seat, typed, _)
    except Refused as refused:
        return _render(
            request, table, error=refused.message, status=refused.status, retry=refused.retry
        )
    shown = request.query.get("m", "")
    message = _message(shown, _) if shown in MESSAGES else ""
    return _render(request, table, view=_view(service, seat), code=code, message=message)


def _message(key: str, _: Gettext) -> str:
    return {
        "checked-in": _("Checked in. Good game!"),
        "entered": _("Result entered: the other player or the arbiter confirms it."),
        "confirmed": _("Result confirmed. Thank you!"),
    }[key]


def _command(
    service: EventService, seat: Seat, game: GameState, form: Any, _: Gettext
) -> tuple[Command, str, str]:
    """The command the form asks for, who does it, and the message after it; Refused
    (with the reason in the reader's words) when the form asks for nothing it may."""
    what = field(form, "do")
    colour_text = field(form, "colour")
    if colour_text not in ("white", "black"):
        raise Refused(400, _("Say who you are: White or Black."))
    colour: Colour = "white" if colour_text == "white" else "black"
    by = player_by(game, colour)
    if what == "checkin":
        if not checkin_on(service.config, seat.section):
            raise Refused(403, _("In this event the arbiter checks who is at the board."))
        if _presence(service, game)[colour]:
            raise Refused(409, _("Checked in already."))
        return MarkPresent(game.id, colour, check_in=True), by, "checked-in"
    if not players_enter_results(service.config, seat.section):
        raise Refused(403, _("In this event the arbiter enters the results."))
    if game.result is not None:
        raise Refused(409, _("This game has its result already."))
    if what == "enter":
        result = field(form, "result", 16)
        if result not in PLAYER_RESULTS:
            raise Refused(400, _("Choose the result: 1-0, ½-½ or 0-1."))
        return ProposeAtTable(game.id, colour, result), by, "entered"
    if what == "confirm":
        mover = proposed_by(game)
        if mover is None:
            raise Refused(409, _("No result is waiting for your confirmation."))
        if mover == colour:
            raise Refused(
                409, _("You entered this result: the other player or the arbiter confirms it.")
            )
        return ConfirmAtTable(game.id, colour), by, "confirmed"
    raise Refused(400, _("Nothing to do: choose check in or a result."))


@routes.post("/t/{table}")
async def table_act(request: web.Request) -> web.Response:
    """A player's check-in, result or confirmation, through the door."""
    _ = gettext_of(lang_of(request))
    table = _table_number(request)
    if table is None:
        raise web.HTTPNotFound()
    service = request.app[SERVICE]
    code = ""
    try:
        if not same_origin(request):
            raise Refused(403, _("This form is not from this server's page."))
        form = await request.post()
        seat = _seat(service, table, _)
        code = _checked(request, seat, field(form, "c"), _)
        if seat.game is None:
            raise Refused(409, _("There is no game at this table in this round."))
        command, by, done = _command(service, seat, seat.game, form, _)
        problem = service.journal.problem
        if problem is not None:
            raise Refused(503, _("Nothing can be recorded now: tell the arbiter."))
        try:
            act(service, command, by)
        except ConfirmationNeeded as exc:
            raise Refused(409, _("Not done: %(why)s") % {"why": exc.plan.summary}) from None
        except ActionError as exc:
            why = said(exc.phrase, _, str(exc))
            raise Refused(409, _("Not done: %(why)s") % {"why": why}) from None
        except NotDurable:
            raise Refused(503, _("Nothing can be recorded now: tell the arbiter.")) from None
    except Refused as refused:
        view = None
        if code:
            try:
                view = _view(service, _seat(service, table, _))
            except Refused:
                view = None
        return _render(
            request,
            table,
            view=view,
            code=code,
            error=refused.message,
            status=refused.status,
            retry=refused.retry,
        )
    raise web.HTTPSeeOther(f"{table_path(table, code)}&m={done}")


# -- the arbiter's list of codes -----------------------------------------------------------


def _round_rows(request: web.Request) -> list[dict[str, Any]]:
    service = request.app[SERVICE]
    codes = request.app[CODES]
    origin = request.app[ORIGIN].origin(f"{request.scheme}://{request.host}") or ""
    rows = []
    live = service.live_rounds()
    for section in service.config.sections:
        state = service.tournament.sections.get(section.name)
        number = live.get(section.name) or 0
        row: dict[str, Any] = {
            "section": section.name,
            "round": number,
            "on": table_pages_on(service.config, section.name),
            "code": "",
        }
        if number and state is not None:
            boards = len(state.rounds[number].pairings)
            tables = section_tables(service.config, section.name, max(boards, 1))
            row["tables"] = f"{tables.start}–{tables.stop - 1}"
            try:
                row["code"] = codes.code(section.name, number)
            except JournalError:
                row["code"] = ""
            if row["code"]:
                row["url"] = table_url(origin, tables.start, row["code"])
        rows.append(row)
    return rows


def _arbiter_page(
    request: web.Request, *, message: str = "", error: str = "", ask: Any = None, status: int = 200
) -> web.Response:
    session = request.app[AUTH].session(request)
    return page_answer(
        request,
        "checkin_codes.html",
        "/arbiter/checkin",
        status=status,
        rows=_round_rows(request),
        csrf=session.csrf if session is not None else "",
        message=message,
        error=error,
        ask=ask,
        unreachable=None if request.app[ORIGIN].reachable else request.app[ORIGIN].origin(),
    )


@routes.get("/arbiter/checkin")
async def codes_page(request: web.Request) -> web.Response:
    """Each section's round code, its tables, and a button for a new code."""
    return _arbiter_page(request, message=request.query.get("m", "")[:200])


@routes.post("/arbiter/checkin/renew")
async def renew_code(request: web.Request) -> web.Response:
    """A new code for a section's round (asks first: the printed sheets stop working)."""
    _ = gettext_of(lang_of(request))
    form = await request.post()
    section = field(form, "section", 200)
    number_text = field(form, "round", 6)
    confirm = field(form, "confirm", 64)
    if not number_text.isascii() or not number_text.isdigit():
        return _arbiter_page(request, error=_("Not done: %(why)s") % {"why": "round"}, status=400)
    command = RenewRoundCode(section, int(number_text))
    try:
        done = act(request.app[SERVICE], command, f"arbiter:{request[ARBITER]}", confirm=confirm)
    except ConfirmationNeeded as exc:
        ask = {"section": section, "round": number_text, "plan": exc.plan.words()}
        return _arbiter_page(request, ask=ask)
    except ActionError as exc:
        return _arbiter_page(request, error=_("Not done: %(why)s") % {"why": str(exc)}, status=422)
    raise web.HTTPSeeOther("/arbiter/checkin?m=" + quote(done.summary))
