"""What every route module shares: app keys, JSON responses, request parsing."""

from __future__ import annotations

import json
import re
from typing import Any

from aiohttp import web

from broadcast.config.model import SectionConfig
from broadcast.games.ids import slug
from broadcast.service.event_service import EventService
from web import views
from web.answers import Answers
from web.arbiter.actions import Desk
from web.auth import Auth
from web.hub import Hub
from web.pairing_worker import PairingWorker

SERVICE = web.AppKey("service", EventService)
HUB = web.AppKey("hub", Hub)
AUTH = web.AppKey("auth", Auth)
DESK = web.AppKey("desk", Desk)
ANSWERS = web.AppKey("answers", Answers)
PAIRER = web.AppKey("pairer", PairingWorker)
ARBITER = web.RequestKey("arbiter", str)  # the logged-in arbiter's user name

_NUMBER = re.compile(r"[0-9]{1,6}")


def json_response(data: Any, status: int = 200) -> web.Response:
    return web.json_response(data, status=status, dumps=lambda d: json.dumps(d, ensure_ascii=False))


def error(status: int, message: str) -> web.Response:
    return json_response({"error": message}, status=status)


def http_error(kind: type[web.HTTPError], message: str) -> web.HTTPError:
    return kind(text=json.dumps({"error": message}), content_type="application/json")


def service_of(request: web.Request) -> EventService:
    return request.app[SERVICE]


def section_of(request: web.Request) -> SectionConfig:
    """The section named in the path or in `?section=` (default: the first)."""
    config = service_of(request).config
    wanted = request.match_info.get("section") or request.query.get("section")
    section = views.section_by_name(config, wanted)
    if section is None:
        names = [slug(s.name) for s in config.sections]
        raise http_error(web.HTTPNotFound, f"no section {wanted!r}; sections: {names}")
    return section


def round_of(request: web.Request) -> int:
    """A positive round number from the path; 400 otherwise (ASCII digits only)."""
    text = request.match_info["round"]
    if not _NUMBER.fullmatch(text) or int(text) < 1:
        raise http_error(web.HTTPBadRequest, f"round must be a positive number, not {text!r}")
    return int(text)
