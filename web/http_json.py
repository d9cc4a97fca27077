"""JSON over HTTP: answers, errors with a message, and the path parameters that every
route parses (a section, a round), refused with such an error."""

from __future__ import annotations

import json
import re
from typing import Any

from aiohttp import web

from broadcast.config.model import SectionConfig
from broadcast.games.ids import slug
from web.keys import public_of
from web.sections import section_by_name

__all__ = ["error", "http_error", "json_response", "round_of", "section_of"]

_NUMBER = re.compile(r"[0-9]{1,6}")


def json_response(data: Any, status: int = 200) -> web.Response:
    """`data` as JSON (UTF-8, not escaped: names are written as they are)."""
    return web.json_response(data, status=status, dumps=lambda d: json.dumps(d, ensure_ascii=False))


def error(status: int, message: str) -> web.Response:
    """An error answer: `{"error": message}`."""
    return json_response({"error": message}, status=status)


def http_error(kind: type[web.HTTPError], message: str) -> web.HTTPError:
    """The same, as an exception to raise from deep in a route."""
    return kind(text=json.dumps({"error": message}), content_type="application/json")


def section_of(request: web.Request) -> SectionConfig:
    """The section named in the path or in `?section=` (default: the first)."""
    config = public_of(request).config
    wanted = request.match_info.get("section") or request.query.get("section")
    section = section_by_name(config, wanted)
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
