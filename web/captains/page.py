"""A team captain's lineup page `/captain/{section}/{team}`, behind the team's captain code
(`web.captains.codes`: from the link's `?c=`, or typed).

With the code it shows the team's roster in board order, the round's match, when the
lineups are due, the lineup the team has in for the round (the captain's own, or the
arbiter's), and a form a board a select that sends a lineup through the one door as the
desk does (`SubmitLineup`, journaled with `by` "captain:<team>"), refused with the same
words. A new lineup replaces the one in without asking again: the page shows the lineup
it replaces next to the form, and the arbiter sees both (and can undo) at the desk.

The code opens its own team's page and nothing else: another team's page refuses it like
any wrong code, and the lineup the form sends is the URL's team's (the lineup rules refuse
another team's players). Wrong codes count against the client with the table pages'
limits (`web.checkin.limits`, one allowance for both). A lineup is the team's and the
arbiter's until the round's boards are paired: without the code the page shows none, and
the public pages show a round's lineups only with its pairings. The answers are never
cached, and the address (which carries the code) goes to no other site.
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

from broadcast.actions.door import ConfirmationNeeded, act
from broadcast.actions.teams import SubmitLineup
from broadcast.actions.words import player_words
from broadcast.config.model import SectionConfig, TeamEntry
from broadcast.service.event_service import ActionError, EventService, NotDurable
from broadcast.tournament.lineups import lineup_deadline
from broadcast.tournament.tournament_state import SectionState
from web.auth import same_origin
from web.captains.codes import CaptainCodes
from web.captains.parts import CAPTAIN_CODES, captain_path
from web.checkin.gate import Refused, checked_code, field, page_answer
from web.checkin.limits import CodeLimits
from web.checkin.parts import LIMITS
from web.i18n import Gettext, gettext_of
from web.keys import SERVICE, lang_of
from web.sections import section_by_name
from web.words import said

__all__ = ["captain_by", "routes", "setup"]

routes = web.RouteTableDef()

MAX_TEAM = 999
MAX_PLAYER_TEXT = 6


def setup(app: web.Application) -> None:
    """Add the captains' pages to `app` (after `web.checkin.page.setup`, whose wrong-code
    limits they share; their own when there are none)."""
    service = app[SERVICE]
    app[CAPTAIN_CODES] = CaptainCodes(service.journal)
    if LIMITS not in app:
        app[LIMITS] = CodeLimits()
    app.add_routes(routes)


def captain_by(entry: TeamEntry) -> str:
    """Who the journal says sent a captain's lineup: "captain:<team's name>"."""
    return f"captain:{entry.name}"


def _team(
    service: EventService, request: web.Request, _: Gettext
) -> tuple[SectionConfig, TeamEntry]:
    """The path's team section and team; Refused 404 otherwise."""
    wanted = request.match_info.get("section", "")[:200]
    section = section_by_name(service.config, wanted) if wanted else None
    text = request.match_info.get("team", "")
    if section is None or not section.is_team or not (text.isascii() and text.isdigit()):
        raise Refused(404, _("There is no such team in this event."))
    number = int(text[:4]) if len(text) <= 4 else MAX_TEAM + 1
    entry = next((t for t in section.teams if t.number == number), None)
    if entry is None:
        raise Refused(404, _("There is no such team in this event."))
    return section, entry


def _checked(
    request: web.Request, section: SectionConfig, entry: TeamEntry, typed: str, _: Gettext
) -> str:
    """The code if it opens the team's page; Refused otherwise (a wrong one counted)."""
    return checked_code(
        request,
        typed,
        lambda text: request.app[CAPTAIN_CODES].verdict(section.name, entry.number, text),
        lambda _verdict: _("Wrong code: check the captain code the arbiter gave you."),
        _,
    )


def _round(section: SectionConfig, state: SectionState, text: str) -> int:
    """The round asked for, else the first whose boards are not paired yet."""
    if text.isascii() and text.isdigit() and len(text) < 4 and 1 <= int(text) <= section.rounds:
        return int(text)
    return min(
        (r for r in range(1, section.rounds + 1) if r not in state.rounds),
        default=section.rounds,
    )


def _view(
    service: EventService, section: SectionConfig, entry: TeamEntry, number: int
) -> dict[str, Any]:
    """What the captain sees: the roster, the round's match, the deadline, the lineup in."""
    state = service.tournament.section(section.name)
    rules = section.team_rules
    boards = rules.boards if rules is not None else 0
    rounds = state.team_rounds
    match = rounds.match_of(number, entry.number)
    names = {t.number: t.name for t in section.teams}
    opponent = ""
    bye = False
    if match is not None:
        if match.second is None:
            bye = True
        else:
            other = match.second if match.first == entry.number else match.first
            opponent = names.get(other, "")
    lineup = rounds.lineup(number, entry.number)
    chosen: list[int | None] = list(lineup.players) if lineup is not None else []
    chosen = (chosen + [None] * boards)[:boards]
    due = lineup_deadline(section, number, service.state.start_overrides)
    return {
        "section": section.name,
        "team": entry.name,
        "round": number,
        "rounds": list(range(1, section.rounds + 1)),
        "boards": list(range(1, boards + 1)),
        "roster": [(p, player_words(state, p)) for p in entry.roster],
        "paired": match is not None,
        "opponent": opponent,
        "bye": bye,
        "composed": number in state.rounds,
        "due": due.strftime("%Y-%m-%d %H:%M"),
        "lineup": (
            [
                (board, player_words(state, p) if p is not None else "")
                for board, p in enumerate(lineup.players, start=1)
            ]
            if lineup is not None
            else None
        ),
        "by": lineup.by if lineup is not None else "",
        "fallback": lineup.fallback if lineup is not None else "",
        "chosen": chosen,
    }


def _render(
    request: web.Request,
    *,
    view: dict[str, Any] | None = None,
    code: str = "",
    message: str = "",
    error: str = "",
    status: int = 200,
    retry: int = 0,
) -> web.Response:
    return page_answer(
        request,
        "captain_page.html",
        request.path,
        status=status,
        retry=retry,
        view=view,
        code=code,
        message=message,
        error=error,
        action=request.path,
    )


def _lineup_of(form: Any, boards: int) -> tuple[int | None, ...]:
    """The form's board selects in order ("" an empty board; the empty bottom boards
    left out, as the desk sends it)."""
    players: list[int | None] = []
    for board in range(1, boards + 1):
        text = field(form, f"board{board}", 16).strip()
        ok = text.isascii() and text.isdigit() and len(text) <= MAX_PLAYER_TEXT
        players.append(int(text) if ok else None)
    while players and players[-1] is None:
        players.pop()
    return tuple(players)


@routes.get("/captain/{section}/{team}")
async def captain_page(request: web.Request) -> web.Response:
    """The code's form, or the team's lineup page once the code opens it."""
    _ = gettext_of(lang_of(request))
    service = request.app[SERVICE]
    try:
        section, entry = _team(service, request, _)
        code = _checked(request, section, entry, request.query.get("c", "")[:64], _)
    except Refused as refused:
        return _render(request, error=refused.message, status=refused.status, retry=refused.retry)
    state = service.tournament.section(section.name)
    number = _round(section, state, request.query.get("r", "")[:4])
    message = _("Lineup sent. The arbiter has it.") if request.query.get("m") == "sent" else ""
    return _render(request, view=_view(service, section, entry, number), code=code, message=message)


@routes.post("/captain/{section}/{team}")
async def captain_lineup(request: web.Request) -> web.Response:
    """A captain's lineup for a round, through the door as the desk's."""
    _ = gettext_of(lang_of(request))
    service = request.app[SERVICE]
    code = ""
    view: dict[str, Any] | None = None
    try:
        if not same_origin(request):
            raise Refused(403, _("This form is not from this server's page."))
        form = await request.post()
        section, entry = _team(service, request, _)
        code = _checked(request, section, entry, field(form, "c"), _)
        state = service.tournament.section(section.name)
        number = _round(section, state, field(form, "round", 4))
        view = _view(service, section, entry, number)
        boards = section.team_rules.boards if section.team_rules is not None else 0
        command = SubmitLineup(section.name, number, entry.number, _lineup_of(form, boards))
        if service.journal.problem is not None:
            raise Refused(503, _("Nothing can be recorded now: tell the arbiter."))
        try:
            # The page shows the lineup in next to the form: sending another replaces it.
            act(service, command, captain_by(entry), confirm=True)
        except ConfirmationNeeded as exc:  # pragma: no cover - confirm=True never asks
            raise Refused(409, _("Not done: %(why)s") % {"why": exc.plan.summary}) from None
        except ActionError as exc:
            why = said(exc.phrase, _, str(exc))
            raise Refused(422, _("Not done: %(why)s") % {"why": why}) from None
        except NotDurable:
            raise Refused(503, _("Nothing can be recorded now: tell the arbiter.")) from None
    except Refused as refused:
        return _render(
            request,
            view=view,
            code=code,
            error=refused.message,
            status=refused.status,
            retry=refused.retry,
        )
    where = captain_path(section.name, entry.number, code)
    raise web.HTTPSeeOther(f"{where}&r={number}&m=sent")
