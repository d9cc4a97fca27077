"""The typed keys of the application (its parts) and of a request (who is logged in).

`build_app` fills the app's keys once; every route reads its parts through them. The
arbiter desk's key is `web.arbiter.actions.DESK`, beside the desk (the arbiter routes
stand above these keys).
"""

from __future__ import annotations

from aiohttp import web

from broadcast.service.event_service import EventService
from web.answers import Answers
from web.auth import Auth
from web.hub import Hub
from web.pairing_worker import PairingWorker

__all__ = ["ANSWERS", "ARBITER", "AUTH", "HUB", "PAIRER", "SERVICE", "service_of"]

SERVICE = web.AppKey("service", EventService)
HUB = web.AppKey("hub", Hub)
AUTH = web.AppKey("auth", Auth)
ANSWERS = web.AppKey("answers", Answers)
PAIRER = web.AppKey("pairer", PairingWorker)
ARBITER = web.RequestKey("arbiter", str)  # the logged-in arbiter's user name


def service_of(request: web.Request) -> EventService:
    """The event's service, which every route reads (public routes: its delayed state)."""
    return request.app[SERVICE]
