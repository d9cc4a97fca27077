"""The typed keys of the application (its parts) and of a request (who is logged in).

`build_app` fills the app's keys once; every route reads its parts through them. The
arbiter desk's key is `web.arbiter.actions.DESK`, beside the desk (the arbiter routes
stand above these keys).
"""

from __future__ import annotations

from aiohttp import web

from broadcast.analysis.evaluator import Evaluator
from broadcast.service.event_service import EventService
from web.answers import Answers
from web.auth import Auth
from web.board_png import Previews
from web.hub import Hub
from web.i18n import DEFAULT
from web.public_source import PublicSource

__all__ = [
    "ANSWERS",
    "ARBITER",
    "AUTH",
    "EVALS",
    "HUB",
    "LANG",
    "PREVIEWS",
    "PUBLIC",
    "SERVICE",
    "evals_of",
    "lang_of",
    "public_of",
    "service_of",
]

SERVICE = web.AppKey("service", EventService)
# What the public routes read: the venue's service, or a mirror's state (`boardwire mirror`).
PUBLIC: web.AppKey[PublicSource] = web.AppKey("public")
HUB = web.AppKey("hub", Hub)
AUTH = web.AppKey("auth", Auth)
ANSWERS = web.AppKey("answers", Answers)
PREVIEWS = web.AppKey("previews", Previews)  # the PNG link previews (web.board_png)
# The engine's evaluations of public positions (`--eval`); absent when evaluation is off.
EVALS = web.AppKey("evals", Evaluator)
ARBITER = web.RequestKey("arbiter", str)  # the logged-in arbiter's user name
LANG = web.RequestKey("lang", str)  # the reader's language (web.app's `language` middleware)


def service_of(request: web.Request) -> EventService:
    """The event's service, which every route reads (public routes: its delayed state)."""
    return request.app[SERVICE]


def lang_of(request: web.Request) -> str:
    """The language the request is answered in (`web.i18n.choose`; English by default)."""
    lang = request.get(LANG)
    return lang if isinstance(lang, str) else DEFAULT


def public_of(request: web.Request) -> PublicSource:
    """The delayed public view every public route reads (the venue's or a mirror's)."""
    return request.app[PUBLIC]


def evals_of(request: web.Request) -> Evaluator | None:
    """The evaluator of the public positions, or None when this process does not evaluate."""
    return request.app.get(EVALS)
