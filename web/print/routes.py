"""The printed sheets' routes: the same sheets for two audiences, one code path.

`/print/...` is the public's: built from the delayed public state (what every public
output shows), shared and kept like the public pages (`web.answers`). `/arbiter/print/...`
is the desk's: the live state, behind the arbiter's login (the guard in front of
`/arbiter`), never kept, with each table's QR code on the pairing sheet where the event
has one (`web.checkin.parts.table_qr`: a per-round code is for the hall, not for the web).

    /print?section=S                      the section's sheets, to choose one
    /print/round/N/pairings?section=S     pairings by table (result column to fill in)
    /print/round/N/names?section=S        pairings by name (players look for their name)
    /print/round/N/results?section=S      results by table
    /print/standings?section=S            standings with the section's tie-breaks
    /print/crosstable?section=S           the crosstable
    /print/board-prizes?section=S         a team section's board prizes
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Awaitable, Callable

from aiohttp import web
from markupsafe import Markup

from broadcast.config.model import EventConfig, SectionConfig
from broadcast.tournament.tournament_state import TournamentState
from web import pages
from web.answers import tournament_only
from web.checkin.parts import table_qr
from web.http_json import round_of, section_of
from web.i18n import gettext_of
from web.keys import ANSWERS, lang_of, public_of, service_of
from web.print import render
from web.print.render import Frame, RoundKind
from web.print.sheets import round_sheet

__all__ = ["ARBITER_PREFIX", "PUBLIC_PREFIX", "arbiter_routes", "public_routes"]

PUBLIC_PREFIX = "/print"
ARBITER_PREFIX = "/arbiter/print"

public_routes = web.RouteTableDef()
arbiter_routes = web.RouteTableDef()

# A sheet from the tournament state the route chose, and whose it is.
Make = Callable[[TournamentState, Frame], str]
Handler = Callable[[web.Request], Awaitable[web.Response]]

VARY = "Accept-Language, Cookie"  # a sheet is in the reader's language


def _live(request: web.Request) -> bool:
    return request.path.startswith(ARBITER_PREFIX)


def _html(text: str, status: int = 200) -> web.Response:
    response = web.Response(text=text, content_type="text/html", charset="utf-8", status=status)
    response.headers["Vary"] = VARY
    return response


def _error(request: web.Request, status: int, message: str) -> web.Response:
    try:  # section_of/round_of raise with a JSON body: show its message
        message = str(json.loads(message)["error"])
    except (ValueError, KeyError, TypeError):
        pass
    config = public_of(request).config
    return _html(
        pages.error_page(config, status, message, lang=lang_of(request), here=request.path),
        status,
    )


def _tournament(request: web.Request) -> TournamentState:
    """The state the route shows: live at the desk, the delayed public one elsewhere."""
    if _live(request):
        return service_of(request).tournament
    return public_of(request).public_state().tournament


async def _send(request: web.Request, name: str, make: Make) -> web.Response:
    lang = lang_of(request)
    if _live(request):
        service = service_of(request)
        frame = Frame(
            ARBITER_PREFIX,
            live=True,
            printed=dt.datetime.fromtimestamp(service.time_source.now(), dt.UTC),
        )
        return _html(make(service.tournament, frame))
    public = public_of(request)
    frame = Frame(PUBLIC_PREFIX, live=False, delay=public.delay)
    answer = await request.app[ANSWERS].text(
        f"print:{name}:{public.delay}:{lang}",
        lambda state: make(state.tournament, frame),
        "text/html",
        tournament_only,
    )
    headers = {"ETag": answer.etag, "Cache-Control": "no-cache", "Vary": VARY}
    wanted = request.headers.get("If-None-Match", "")
    if answer.etag in (tag.strip() for tag in wanted.split(",")):
        return web.Response(status=304, headers=headers)
    return web.Response(
        body=answer.body, content_type="text/html", charset="utf-8", headers=headers
    )


def _sheet(path: str) -> Callable[[Handler], Handler]:
    """Register a sheet at `/print{path}` and `/arbiter/print{path}`; a section or round
    the request names wrongly is answered with an error page."""

    def register(handler: Handler) -> Handler:
        async def sheet(request: web.Request) -> web.Response:
            try:
                return await handler(request)
            except web.HTTPException as exc:
                return _error(request, exc.status, exc.text or "")

        sheet.__name__ = sheet.__qualname__ = handler.__name__
        sheet.__doc__ = handler.__doc__
        public_routes.get(PUBLIC_PREFIX + path)(sheet)
        arbiter_routes.get(ARBITER_PREFIX + path)(sheet)
        return sheet

    return register


SectionDraw = Callable[[EventConfig, TournamentState, SectionConfig, Frame, str], str]


def _section_sheet(kind: str, draw: SectionDraw) -> Handler:
    """A sheet of the whole section (`draw`: the index, standings, crosstable), kept per
    section like the public pages."""

    async def handler(request: web.Request) -> web.Response:
        config, section, lang = public_of(request).config, section_of(request), lang_of(request)
        return await _send(
            request,
            f"{kind}:{section.name}",
            lambda tournament, frame: draw(config, tournament, section, frame, lang),
        )

    handler.__name__ = f"{kind}_sheet"
    handler.__doc__ = draw.__doc__
    return handler


_sheet("")(_section_sheet("index", render.index_html))


def _round_sheet(kind: RoundKind) -> Handler:
    async def handler(request: web.Request) -> web.Response:
        config, section, number = public_of(request).config, section_of(request), round_of(request)
        lang = lang_of(request)
        if (
            number > section.rounds
            or number not in _tournament(request).section(section.name).rounds
        ):
            return _not_paired(request, config, section, number)
        app = request.app

        def qr(table: int) -> Markup | None:
            return table_qr(app, section.name, number, table)

        def make(tournament: TournamentState, frame: Frame) -> str:
            # The QR codes: on the desk's pairing sheet only (see the module docstring).
            codes = qr if frame.live and kind == "pairings" else None
            sheet = round_sheet(config, tournament, section, number, codes)
            if sheet is None:  # unpaired since the check (an undo): said the same way
                return _render_not_paired(config, section, number, lang)
            return render.round_html(kind, config, section, sheet, frame, lang)

        return await _send(request, f"{kind}:{section.name}:{number}", make)

    handler.__name__ = f"{kind}_sheet"
    return handler


def _render_not_paired(config: EventConfig, section: SectionConfig, number: int, lang: str) -> str:
    return pages.error_page(config, 404, _not_paired_text(section, number, lang), lang=lang)


def _not_paired_text(section: SectionConfig, number: int, lang: str) -> str:
    _ = gettext_of(lang)
    if number > section.rounds:
        return _("%(section)s has %(rounds)s rounds: there is no round %(number)s.") % {
            "section": section.name,
            "rounds": section.rounds,
            "number": number,
        }
    return _("Round %(number)s of %(section)s is not paired yet.") % {
        "number": number,
        "section": section.name,
    }


def _not_paired(
    request: web.Request, config: EventConfig, section: SectionConfig, number: int
) -> web.Response:
    return _error(request, 404, _not_paired_text(section, number, lang_of(request)))


for _kind in render.ROUND_SHEETS:
    _sheet(f"/round/{{round}}/{_kind}")(_round_sheet(_kind))


_sheet("/standings")(_section_sheet("standings", render.standings_html))
_sheet("/crosstable")(_section_sheet("crosstable", render.crosstable_html))


@_sheet("/board-prizes")
async def board_prizes_sheet(request: web.Request) -> web.Response:
    """A team section's board prizes; a section of individuals has none (404)."""
    section = section_of(request)
    if not section.is_team:
        _ = gettext_of(lang_of(request))
        text = _("%(section)s is not a team section.") % {"section": section.name}
        return _error(request, 404, text)
    return await _section_sheet("board_prizes", render.board_prizes_html)(request)
