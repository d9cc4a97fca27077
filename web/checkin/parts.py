"""What an app holds for the table pages (its keys: the codes, the wrong-code limits, the
origin the hall reaches), whether a section's tables have a page, and a table's QR code
for the printed pairing sheet (`web.print.routes` asks here).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from aiohttp import web
from markupsafe import Markup, escape

from broadcast.actions.table import players_enter_results
from broadcast.config.model import EventConfig
from broadcast.journal.errors import JournalError
from web.checkin.codes import RoundCodes
from web.checkin.limits import CodeLimits
from web.checkin.qr import OriginMemory, qr_svg, table_url
from web.keys import ARBITER, SERVICE

__all__ = [
    "CODES",
    "LIMITS",
    "ORIGIN",
    "checkin_on",
    "remember_origin",
    "table_pages_on",
    "table_qr",
]

CODES = web.AppKey("checkin_codes", RoundCodes)
LIMITS = web.AppKey("checkin_limits", CodeLimits)
ORIGIN = web.AppKey("checkin_origin", OriginMemory)

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def checkin_on(config: EventConfig, section: str) -> bool:
    """The section's players check in at their table (`check_in` optional or required)."""
    return config.check_in_of(section) != "off"


def table_pages_on(config: EventConfig, section: str) -> bool:
    """The section's tables have a page (and the pairing sheet their QR codes): its
    players check in, or enter results."""
    return checkin_on(config, section) or players_enter_results(config, section)


@web.middleware
async def remember_origin(request: web.Request, handler: Handler) -> web.StreamResponse:
    """The origin a logged-in arbiter reaches the server at (the sheets' QR codes point
    there; a stranger's Host header never counts). Inside the arbiter's guard, which has
    named the arbiter by now."""
    if request.get(ARBITER) and ORIGIN in request.app:
        request.app[ORIGIN].remember(request.scheme, request.host)
    return await handler(request)


def table_qr(app: web.Application, section: str, round_number: int, table: int) -> Markup | None:
    """The QR code of `table` (its page's address with the round's code) and the code
    beneath it, as markup for the pairing sheet; None where the section's tables have no
    page, or no code can be made (the journal cannot keep the key)."""
    service = app.get(SERVICE)
    if service is None or CODES not in app or not table_pages_on(service.config, section):
        return None
    try:
        code = app[CODES].code(section, round_number)
    except JournalError:
        return None
    origin = app[ORIGIN].origin() or "http://localhost:8080"
    svg = qr_svg(table_url(origin, table, code), title=f"Table {table}")
    return Markup('<figure class="table-qr">{}<figcaption>{}</figcaption></figure>').format(
        svg, escape(code)
    )
