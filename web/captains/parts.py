"""What an app holds for the captains' pages (the codes), and a team's page address, for
the desk's lineup page that hands the codes out (`web.arbiter.teams`)."""

from __future__ import annotations

from urllib.parse import quote

from aiohttp import web

from broadcast.games.ids import slug
from web.captains.codes import CaptainCodes

__all__ = ["CAPTAIN_CODES", "captain_path"]

CAPTAIN_CODES = web.AppKey("captain_codes", CaptainCodes)


def captain_path(section: str, team: int, code: str | None = None) -> str:
    """ "/captain/league/3?c=ABC234" (without `?c=` when `code` is None)."""
    path = f"/captain/{slug(section)}/{team}"
    return path if code is None else f"{path}?c={quote(code)}"
