"""A team section at the arbiter's side: its lineups and matches, in the API and at the desk.

The API (/api/v1/arbiter/sections/{section}/rounds/{round}/...):

- `GET .../lineups`: the round's matches and the lineups in (the arbiter sees them before
  the public does: the public sees a round's lineups once its boards are paired).
- `POST .../lineups` `{"team", "players": [starting number or null, ...], "override"}`: a
  team's lineup (a captain's sheet, sent by the arbiter or by a script in the arbiter's
  name); 422 with the rule it breaks, 409 when it replaces one already in.
- `POST .../lineups/{team}/withdraw`: take a team's lineup back before the boards are
  paired (409 until confirmed: it removes the lineup).
- `POST .../matches` `{"preview", "override", "matches": [[first, second or 0], ...]}`:
  pair the round's teams (Berger table or team Swiss, or as given); `preview` answers the
  matches in words and does nothing.
- `POST .../boards`: pair the round board by board from its lineups (the fallback for a
  team that sent none).

The desk's lineup form (/arbiter/teams) lists a team section's round, its matches and a
lineup form for each team (one select a board, the roster in order; a button to take a
lineup in back), the buttons that pair the teams and then the boards, and each team's
captain code (`web.captains`: the captain sends the lineup from the team's page). Each
form posts to /arbiter/teams/act/<action>, goes through the one door and comes back with
what was done or why not, or the confirmation the action needs.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote, urlencode

from aiohttp import web

from broadcast.actions import (
    Command,
    ComposeTeamRound,
    ConfirmationNeeded,
    PairTeamRound,
    SubmitLineup,
    WithdrawLineup,
    plan_of,
)
from broadcast.actions.words import player_words
from broadcast.config.model import SectionConfig
from broadcast.fide.teams.match import Match
from broadcast.games.ids import slug
from broadcast.journal.errors import JournalError
from broadcast.service.event_service import ActionError
from broadcast.tournament.team_events import MatchesPaired
from broadcast.tournament.tournament_state import SectionState
from web.arbiter.actions import DESK
from web.arbiter.calls import Actions, Call
from web.arbiter.guard import FORM, SESSION, acting, desk_html
from web.captains.parts import CAPTAIN_CODES, captain_path
from web.http_json import http_error, json_response, round_of
from web.i18n import gettext_of
from web.keys import ARBITER, lang_of, service_of
from web.pages import ENV, chrome
from web.sections import section_by_name
from web.words import said

__all__ = ["lineups_json", "routes"]

routes = web.RouteTableDef()
action = Actions(routes)

_ROUND = "/api/v1/arbiter/sections/{section}/rounds/{round}"


# -- what the arbiter reads -------------------------------------------------------------------


def lineups_json(state: SectionState, round_number: int) -> dict[str, Any]:
    """The round's matches and the lineups in, as the API answers them."""
    rounds = state.team_rounds
    return {
        "section": state.name,
        "round": round_number,
        "paired": round_number in state.rounds,  # the boards: the lineups are public
        "matches": [_match_json(m) for m in rounds.round_matches(round_number)],
        "lineups": [
            {
                "team": team,
                "players": list(lineup.players),
                "at": lineup.at.isoformat(),
                "by": lineup.by,
                "fallback": lineup.fallback,
                "override": lineup.override,
            }
            for team, lineup in rounds.round_lineups(round_number).items()
        ],
    }


def _match_json(match: Match) -> dict[str, Any]:
    return {"number": match.number, "first": match.first, "second": match.second}


def _team_section(request: web.Request) -> SectionState:
    """The path's section (404 when there is none, 422 for a section of individuals)."""
    service = service_of(request)
    wanted = request.match_info["section"]
    section = section_by_name(service.config, wanted)
    if section is None:
        raise http_error(web.HTTPNotFound, f"no section {wanted[:80]!r}")
    if not section.is_team:
        raise http_error(
            web.HTTPUnprocessableEntity,
            f"{section.name} is not a team section: it has no teams or lineups",
        )
    return service.tournament.section(section.name)


@routes.get(_ROUND + "/lineups")
async def lineups_route(request: web.Request) -> web.Response:
    """The round's matches and lineups."""
    state = _team_section(request)
    return json_response(lineups_json(state, round_of(request)))


# -- the actions ------------------------------------------------------------------------------


def _players(call: Call) -> tuple[int | None, ...]:
    value = call.data.get("players")
    if not isinstance(value, list) or not all(
        p is None or (isinstance(p, int) and not isinstance(p, bool)) for p in value
    ):
        raise http_error(
            web.HTTPBadRequest,
            "players must be a list of starting numbers in board order (null: an empty board)",
        )
    return tuple(value)


@action(_ROUND + "/lineups")
def lineup_route(call: Call) -> dict[str, Any]:
    """A team's lineup for the round: 422 with the rule it breaks (order, roster, too
    many players, late: `override` with the arbiter's words lets a late one in), 409 when
    it replaces the team's lineup already in."""
    state = _team_section(call.request)
    number = round_of(call.request)
    team = call.field("team", int)
    players = _players(call)
    override = call.optional("override", str) or ""
    call.act(SubmitLineup(state.name, number, team, players, override))
    return lineups_json(service_of(call.request).tournament.section(state.name), number)


def _path_team(request: web.Request) -> int:
    """The team number in the path (400 unless a number)."""
    text = request.match_info["team"]
    if not (text.isascii() and text.isdigit() and len(text) < 4):
        raise http_error(web.HTTPBadRequest, "the team is its number (1, 2, ...)")
    return int(text)


@action(_ROUND + "/lineups/{team}/withdraw", body=False)
def withdraw_lineup_route(call: Call) -> dict[str, Any]:
    """Take a team's lineup for the round back while the round's boards are not paired:
    the team has sent none again (the fallback plays unless another comes). 409 until
    confirmed (it removes the lineup), 422 when there is none or the boards are paired."""
    state = _team_section(call.request)
    number = round_of(call.request)
    call.act(WithdrawLineup(state.name, number, _path_team(call.request)))
    return lineups_json(service_of(call.request).tournament.section(state.name), number)


def _matches(call: Call) -> tuple[Match, ...]:
    value = call.data.get("matches")
    if value is None:
        return ()
    if not isinstance(value, list) or not all(
        isinstance(m, list)
        and len(m) == 2
        and all(isinstance(t, int) and not isinstance(t, bool) for t in m)
        for m in value
    ):
        raise http_error(
            web.HTTPBadRequest, "matches must be a list of [first, second] team numbers (0: bye)"
        )
    return tuple(Match(i, first, second or None) for i, (first, second) in enumerate(value, 1))


@action(_ROUND + "/matches", body=False)
def matches_route(call: Call) -> dict[str, Any]:
    """Pair the round's teams: from the Berger table or the team Swiss, or `matches` as
    given. `preview`: the matches in words, nothing done. `override` pairs a Swiss round
    while results before it are missing."""
    state = _team_section(call.request)
    number = round_of(call.request)
    given = _matches(call)
    command = PairTeamRound(
        state.name, number, given, "arbiter" if given else "", call.flag("override")
    )
    if call.flag("preview"):
        plan = plan_of(call.service, command, call.by)
        matches = [m for e in plan.events if isinstance(e, MatchesPaired) for m in e.matches]
        return {"preview": plan.words(), "matches": [_match_json(m) for m in matches]}
    call.act(command)
    return lineups_json(service_of(call.request).tournament.section(state.name), number)


@action(_ROUND + "/boards", body=False)
def boards_route(call: Call) -> dict[str, Any]:
    """Pair the round board by board from its lineups (a team without one plays the
    fallback): the round's pairings, public as any round's, with its lineups."""
    state = _team_section(call.request)
    number = round_of(call.request)
    call.act(ComposeTeamRound(state.name, number))
    after = service_of(call.request).tournament.section(state.name)
    return {
        **lineups_json(after, number),
        "pairings": [
            {"board": p.board, "white": p.white, "black": p.black or 0}
            for p in after.rounds[number].pairings
        ],
    }


# -- the desk's lineup form -------------------------------------------------------------------


def _form_round(section: SectionConfig, state: SectionState, text: str) -> int:
    """The round the form shows: the one asked for, else the first whose boards are not
    paired yet."""
    if text.isascii() and text.isdigit() and 1 <= int(text) <= section.rounds:
        return int(text)
    return min(
        (r for r in range(1, section.rounds + 1) if r not in state.rounds),
        default=section.rounds,
    )


def _team_forms(state: SectionState, number: int) -> list[dict[str, Any]]:
    rules = state.config.team_rules
    boards = rules.boards if rules is not None else 0
    rounds = state.team_rounds
    names = {t.number: t.name for t in state.config.teams}
    out = []
    for match in rounds.round_matches(number):
        teams = []
        for team in match.teams() if match.second is not None else ():
            entry = next(t for t in state.config.teams if t.number == team)
            lineup = rounds.lineup(number, team)
            chosen = list(lineup.players) if lineup is not None else []
            chosen += [None] * (boards - len(chosen))
            teams.append(
                {
                    "number": team,
                    "name": entry.name,
                    "roster": [(p, player_words(state, p)) for p in entry.roster],
                    "chosen": chosen[:boards],
                    "sent": lineup is not None,
                    "fallback": lineup.fallback if lineup is not None else "",
                    "override": lineup.override if lineup is not None else "",
                }
            )
        out.append(
            {
                "number": match.number,
                "first": names.get(match.first, str(match.first)),
                "second": names.get(match.second, "") if match.second is not None else "",
                "teams": teams,
            }
        )
    return out


def _captain_codes(request: web.Request, section: SectionConfig) -> list[dict[str, str]]:
    """Each team's captain code and page (`web.captains`), handed out once for the event;
    none when the journal cannot keep the codes' key."""
    codes = request.app.get(CAPTAIN_CODES)
    if codes is None:
        return []
    try:
        return [
            {
                "team": t.name,
                "code": (code := codes.code(section.name, t.number)),
                "path": captain_path(section.name, t.number, code),
            }
            for t in section.teams
        ]
    except JournalError:
        return []


def _render(request: web.Request, *, pending: dict[str, Any] | None = None) -> str:
    service = service_of(request)
    lang = lang_of(request)
    sections = [s for s in service.config.sections if s.is_team]
    form = request.get(FORM) or {}
    wanted = str(form.get("section", "")) or request.query.get("section", "")
    section = section_by_name(service.config, wanted) if wanted else None
    if section is None or not section.is_team:
        section = sections[0] if sections else None
    page: dict[str, Any] = {}
    if section is not None:
        state = service.tournament.section(section.name)
        asked = str(form.get("round", "")) or request.query.get("round", "")
        number = _form_round(section, state, asked)
        page = {
            "name": section.name,
            "slug": slug(section.name),
            "round": number,
            "rounds": list(range(1, section.rounds + 1)),
            "boards": list(range(1, (section.team_rules.boards if section.team_rules else 0) + 1)),
            "matches": _team_forms(state, number),
            "paired_teams": bool(state.team_rounds.round_matches(number)),
            "paired_boards": number in state.rounds,
            "captains": _captain_codes(request, section),
        }
    return ENV.get_template("arbiter_teams.html").render(
        **chrome(lang, "/arbiter/teams"),
        event=service.config,
        user=request[ARBITER],
        csrf=request[SESSION].csrf,
        sections=[{"name": s.name, "slug": slug(s.name)} for s in sections],
        section=page,
        message=request.query.get("m", ""),
        failure=request.query.get("e", ""),
        pending=pending,
    )


@routes.get("/arbiter/teams")
async def teams_page(request: web.Request) -> web.Response:
    """The lineups of a team section's round, and the forms that pair it."""
    return desk_html(_render(request))


def _lineup_of(request: web.Request, boards: int) -> tuple[int | None, ...]:
    """The form's board selects in order ("" an empty board)."""
    form = request[FORM]
    players: list[int | None] = []
    for board in range(1, boards + 1):
        text = str(form.get(f"board{board}", "")).strip()
        players.append(int(text) if text.isascii() and text.isdigit() and len(text) < 7 else None)
    while players and players[-1] is None:
        players.pop()
    return tuple(players)


def _command(request: web.Request, name: str) -> tuple[Command, str, int]:
    form = request[FORM]
    desk = request.app[DESK]
    section = desk.section(str(form.get("section", "")))
    config = service_of(request).config.section(section)
    text = str(form.get("round", "")).strip()
    if not (text.isascii() and text.isdigit() and len(text) < 4):
        raise ActionError("choose a round")
    number = int(text)
    team_text = str(form.get("team", "")).strip()
    team = int(team_text) if team_text.isascii() and team_text.isdigit() else 0
    boards = config.team_rules.boards if config.team_rules is not None else 0
    command: Command
    if name == "lineup":
        override = str(form.get("override", "")).strip()
        command = SubmitLineup(section, number, team, _lineup_of(request, boards), override)
    elif name == "withdraw-lineup":
        command = WithdrawLineup(section, number, team)
    elif name == "pair":
        command = PairTeamRound(section, number, override=form.get("override") == "on")
    elif name == "boards":
        command = ComposeTeamRound(section, number)
    else:
        raise web.HTTPNotFound(text=f"no action {name[:40]!r}")
    return command, slug(section), number


@routes.post("/arbiter/teams/act/{action}")
async def teams_action(request: web.Request) -> web.StreamResponse:
    """One form of the lineup page: done, refused (the rule in words) or to confirm."""
    _ = gettext_of(lang_of(request))
    name = request.match_info["action"]
    where = {
        "section": str(request[FORM].get("section", "")),
        "round": str(request[FORM].get("round", "")),
    }
    try:
        command, section, number = _command(request, name)
        where = {"section": section, "round": str(number)}
        confirm = str(request[FORM].get("confirm", "")) or False
        done = request.app[DESK].act(command, acting(request), confirm=confirm)
    except ConfirmationNeeded as exc:
        fields = [
            (k, v)
            for k, v in request[FORM].items()
            if isinstance(v, str) and k not in ("csrf", "confirm")
        ]
        pending = {
            "action": request.path,
            "fields": fields,
            "plan": exc.plan.words(),
            "stale": exc.stale,
        }
        return desk_html(_render(request, pending=pending))
    except ActionError as exc:
        why = _("Not done: %(why)s") % {"why": said(exc.phrase, _, str(exc))}
        raise web.HTTPSeeOther(f"/arbiter/teams?{urlencode(where)}&e={quote(why)}") from None
    raise web.HTTPSeeOther(f"/arbiter/teams?{urlencode(where)}&m={quote(done.summary)}")
