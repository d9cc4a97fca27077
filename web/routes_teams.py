"""The public routes of a team section: its teams, matches, team standings, team
crosstable and board prizes as JSON (/api/v1), and the match, team standings and team crosstable pages.
The round page of a team section is `routes_public`'s, drawn by match
(`web.team_pages.team_round_page`).

Like every public route they read the delayed state (`service.public_state()`); a section
that is not a team section answers 404 with the reason.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web

from broadcast.config.model import SectionConfig
from broadcast.service.event_state import PublicState
from broadcast.tournament.tournament_state import TournamentState
from web import team_pages, teams_json
from web.answers import Key, tournament_only, whole
from web.http_json import error, round_of, section_of
from web.i18n import gettext_of
from web.keys import lang_of, public_of
from web.routes_public import answer_page, answers_of, page_error, send_answer

__all__ = ["routes"]

routes = web.RouteTableDef()


def _team_section(request: web.Request) -> SectionConfig | None:
    section = section_of(request)
    return section if section.is_team else None


def _not_team(request: web.Request) -> web.Response:
    return error(404, f"section {section_of(request).name!r} is not a team section")


JsonMaker = Callable[[SectionConfig, PublicState], Any]
TournamentJson = Callable[[TournamentState, SectionConfig], Any]
Handler = Callable[[web.Request], Awaitable[web.Response]]


async def _json(request: web.Request, name: str, make: JsonMaker, whole: bool) -> web.Response:
    section = _team_section(request)
    if section is None:
        return _not_team(request)
    answer = await answers_of(request).json(
        f"{name}:{section.name}",
        lambda public: make(section, public),
        (lambda public: (public.tournament, public.book)) if whole else tournament_only,
    )
    return send_answer(request, answer)


async def teams_route(request: web.Request) -> web.Response:
    config = public_of(request).config
    return await _json(
        request, "teams", lambda section, _: teams_json.teams_json(config, section), False
    )


def _rounds(section: SectionConfig, public: PublicState) -> list[dict[str, Any]]:
    matches = teams_json.matches_json(public.tournament, section, public.book)
    rounds = sorted({m["round"] for m in matches})
    return [{"round": r, "matches": [m for m in matches if m["round"] == r]} for r in rounds]


async def matches_route(request: web.Request) -> web.Response:
    return await _json(request, "matches", _rounds, True)


def _tournament_route(name: str, make: TournamentJson) -> Handler:
    """The route of `name`: `make`'s JSON of the section from the tournament alone."""

    async def route(request: web.Request) -> web.Response:
        return await _json(
            request, name, lambda section, public: make(public.tournament, section), False
        )

    return route


team_standings_route = _tournament_route("team-standings", teams_json.team_standings_json)
team_crosstable_route = _tournament_route("team-crosstable", teams_json.team_crosstable_json)
board_prizes_route = _tournament_route("board-prizes", teams_json.board_prizes_json)


for _path, _handler in (
    ("teams", teams_route),
    ("matches", matches_route),
    ("team-standings", team_standings_route),
    ("team-crosstable", team_crosstable_route),
    ("board-prizes", board_prizes_route),
):
    routes.get(f"/api/v1/{_path}")(_handler)
    routes.get(f"/api/v1/sections/{{section}}/{_path}")(_handler)


# -- pages ---------------------------------------------------------------------------------


def _page_of(request: web.Request) -> SectionConfig | web.Response:
    """The team section the page names, or the error page to answer."""
    try:
        section = section_of(request)
    except web.HTTPException as exc:
        return page_error(request, exc.status, exc.text or "")
    if not section.is_team:
        _ = gettext_of(lang_of(request))
        return page_error(
            request,
            404,
            _("%(section)s is not a team section.") % {"section": section.name},
        )
    return section


@routes.get("/match/{round}/{match}")
async def match_page(request: web.Request) -> web.Response:
    section = _page_of(request)
    if isinstance(section, web.Response):
        return section
    try:
        number = round_of(request)
        match = int(request.match_info["match"])
    except (web.HTTPException, ValueError):
        match = 0
    _ = gettext_of(lang_of(request))
    missing = _("There is no match %(match)s in round %(round)s.") % {
        "match": request.match_info["match"],
        "round": request.match_info["round"],
    }
    if match < 1 or match > 999:
        return page_error(request, 404, missing)
    found = (
        team_pages.match_page(
            public_of(request).config,
            public_of(request).public_state(),
            section,
            number,
            match,
            0.0,
        )
        is not None
    )
    if not found:
        return page_error(request, 404, missing)
    return await answer_page(
        request,
        f"match:{section.name}:{number}:{match}",
        lambda config, public, delay, speed, lang: (
            team_pages.match_page(
                config, public, section, number, match, delay, speed=speed, lang=lang
            )
            or ""
        ),
    )


SectionPage = Callable[..., str]


async def _section_page(
    request: web.Request, name: str, render: SectionPage, on: Key = whole
) -> web.Response:
    """The team section's page `name`, drawn by `render(config, public, section, delay,
    speed=, lang=)` (on `on`: what of the public state it reads)."""
    section = _page_of(request)
    if isinstance(section, web.Response):
        return section
    return await answer_page(
        request,
        f"{name}:{section.name}",
        lambda config, public, delay, speed, lang: render(
            config, public, section, delay, speed=speed, lang=lang
        ),
        on,
    )


@routes.get("/teams")
async def team_standings_page(request: web.Request) -> web.Response:
    return await _section_page(request, "teams", team_pages.team_standings_page, tournament_only)


@routes.get("/team-crosstable")
async def team_crosstable_page(request: web.Request) -> web.Response:
    return await _section_page(request, "team-crosstable", team_pages.team_crosstable_page)
