"""What the pages behind a code share (a table's page, `web.checkin.page`, and a team
captain's, `web.captains.page`): the refusal in the reader's words, the wrong-code
allowance both count against (`web.checkin.limits`), the form's fields, and the answer
that is never cached and sends its address (which carries the code) to no other site.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from aiohttp import web

from broadcast.journal.errors import JournalError
from clocks.errors import BoardwireError
from web.checkin.codes import Verdict, normalized
from web.checkin.parts import LIMITS
from web.i18n import Gettext
from web.keys import SERVICE, lang_of
from web.pages import ENV, chrome

__all__ = ["Refused", "checked_code", "field", "html_answer", "page_answer"]


class Refused(BoardwireError):
    """The page cannot do what was asked: the status and the reason in the reader's words."""

    def __init__(self, status: int, message: str, *, retry: int = 0) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.retry = retry


def _client(request: web.Request) -> str:
    return request.remote or "unknown"


def checked_code(
    request: web.Request,
    typed: str,
    verdict: Callable[[str], Verdict],
    wrong: Callable[[Verdict], str],
    _: Gettext,
) -> str:
    """The typed code (as the sheet prints it) if `verdict` says it opens the page;
    Refused otherwise: 429 while the client is held (even the right code: no guess is
    confirmed to a held party), 200 without words when nothing was typed, 503 when the
    journal cannot give the key, 403 with `wrong`'s words (counted against the client)."""
    limits = request.app[LIMITS]
    wait = limits.wait(_client(request))
    if wait > 0:
        seconds = int(wait) + 1
        raise Refused(
            429,
            _("Too many wrong codes: try again in %(seconds)s s.") % {"seconds": seconds},
            retry=seconds,
        )
    try:
        said = verdict(typed)
    except JournalError:
        raise Refused(503, _("The server cannot check codes now: tell the arbiter.")) from None
    if said.ok:
        return normalized(typed)
    if said.outcome == "empty":
        raise Refused(200, "")
    limits.wrong(_client(request))
    raise Refused(403, wrong(said))


def field(form: Any, name: str, limit: int = 64) -> str:
    """A form's text field, at most `limit` characters ("" when missing or not text)."""
    value = form.get(name) if form is not None else None
    return value[:limit] if isinstance(value, str) else ""


def html_answer(text: str, status: int = 200, retry: int = 0) -> web.Response:
    """A page never cached, whose address goes to no other site (Retry-After when held)."""
    response = web.Response(text=text, content_type="text/html", charset="utf-8", status=status)
    response.headers["Cache-Control"] = "no-store"
    response.headers["Referrer-Policy"] = "same-origin"
    if retry:
        response.headers["Retry-After"] = str(retry)
    return response


def page_answer(
    request: web.Request,
    template: str,
    here: str,
    *,
    status: int = 200,
    retry: int = 0,
    **context: Any,
) -> web.Response:
    """`template` in the request's language (`here`: the page's own address), with the
    event and `context`, as `html_answer`."""
    text = ENV.get_template(template).render(
        **chrome(lang_of(request), here), event=request.app[SERVICE].config, **context
    )
    return html_answer(text, status, retry)
