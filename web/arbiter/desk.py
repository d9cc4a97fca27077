"""The desk: its page (/arbiter), its websocket and its forms.

Each form posts to /arbiter/act/<action> or /arbiter/regs/<action> (regulations: byes,
withdrawals, absences, late entries and replacements, the play-off), builds the action's
command and takes it through the one door. Done, or refused: Post/Redirect/Get with what
was done (`?m=`) or why not (`?e=`) as the page's message. An action that removes
something answers with the desk and, on top, what it would do and remove, and a Confirm
that posts the same form again with the words' token (a stale token asks again). The
guard has checked the session and the CSRF token, and read the form (`FORM`).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import quote

from aiohttp import web

from broadcast.actions import (
    Acknowledge,
    AssignBoard,
    CancelBye,
    Command,
    ConfirmationNeeded,
    ConfirmProposal,
    ContinueAfterAbsence,
    CorrectLine,
    Done,
    LateEntry,
    MarkAbsent,
    MarkPresent,
    PairPlayoffGame,
    Reinstate,
    RejectProposal,
    ReleasePairings,
    ReplaceBoard,
    ReplaceMove,
    ReplacePlayer,
    RequestBye,
    RestorePrize,
    SetResult,
    SetStartPosition,
    TakeBack,
    Undo,
    Withdraw,
    WithholdPrize,
)
from broadcast.actions.boards import board_choices
from broadcast.actions.late_entries import particulars
from broadcast.actions.moves import split_moves
from broadcast.actions.results import DESK_REASONS
from broadcast.actions.scoresheet import EnterScoresheet
from broadcast.actions.words import game_words, hidden_words, player_words
from broadcast.fide.results import Result
from broadcast.games.game_events import BoardReplaced
from broadcast.games.ids import slug
from broadcast.service.event_service import ActionError, EventService
from broadcast.service.hall import utc
from broadcast.tournament.final_standings import playoff_now
from broadcast.tournament.newcomer import NEWCOMER_FIELDS
from web import json_views
from web.arbiter.actions import DESK, Desk, Dutch, FromTrf, PairingSource, pairing_command
from web.arbiter.guard import FORM, SESSION, acting, desk_html
from web.arbiter.history import closed_alerts
from web.auth import same_origin
from web.board_svg import board_svg, piece_defs
from web.checkin.parts import table_pages_on
from web.http_json import error, json_response
from web.i18n import Gettext, gettext_of, time_text, translations
from web.keys import ARBITER, HUB, lang_of, service_of
from web.pages import ENV, chrome
from web.sections import section_by_name
from web.words import said

__all__ = ["desk_page", "desk_ws", "routes"]

routes = web.RouteTableDef()

RECENT = 15  # the newest actions the desk lists with an Undo


@routes.get("/arbiter")
async def desk_page(request: web.Request) -> web.Response:
    return desk_html(_render(request))


def _players(service: EventService) -> list[dict[str, Any]]:
    """Each section's players as the pickers offer them: "23 · Zubizarreta, Mikel"."""
    return [
        {
            "slug": slug(name),
            "options": [f"{n} · {p.name}" for n, p in sorted(state.players.items())],
        }
        for name, state in service.tournament.sections.items()
    ]


def _recent(desk: Desk, zone: dt.tzinfo) -> list[dict[str, Any]]:
    out = []
    for action in desk.recent(RECENT):
        at = dt.datetime.fromtimestamp(action["t"], zone).strftime("%H:%M:%S")
        out.append({**action, "at": at})
    return out


def _render(
    request: web.Request,
    *,
    pending: dict[str, Any] | None = None,
    message: str | None = None,
    failure: str | None = None,
) -> str:
    """The desk page; `pending`: an action waiting for the arbiter's confirmation;
    `message` / `failure`: what was done or why not (else the page's `?m=` / `?e=`)."""
    service = service_of(request)
    desk = request.app[DESK]
    session = request[SESSION]
    lang = lang_of(request)
    _ = gettext_of(lang)
    live = service.live_rounds()
    rounds = []
    for section in service.config.sections:
        number = live.get(section.name)
        if number is None:
            continue
        games = []
        for g in service.book.round_games(section.name, number):
            free, busy = board_choices(service, g.id)
            games.append(
                {
                    **json_views.arbiter_game_json(g, service.config),
                    "free": [{"number": b.number, "serial": b.name or ""} for b in free],
                    "busy": [
                        {"number": b.number, "serial": b.name or "", "game": b.game or ""}
                        for b in busy
                    ],
                }
            )
        playoff = service.tournament.section(section.name).playoff.get(number - section.rounds)
        rounds.append(
            {
                "section": section.name,
                "slug": slug(section.name),
                "round": number,
                "games": games,
                # A round after the last one is a play-off game: say which.
                "playoff": _("play-off game %(number)s (%(kind)s)")
                % {"number": playoff.number, "kind": _(playoff.kind)}
                if playoff
                else "",
            }
        )
    boards = [
        json_views.desk_board_json(b, service.book, service.config)
        for b in sorted(service.hall.values(), key=lambda b: b.number)
    ]
    # The boards to set up: the same entries the desk's socket sends as they change.
    waiting = [
        {**w, "picture": board_svg(w["must_show"], differ=w["differs"])}
        for w in json_views.waiting_json(service.hall.values(), service.book, service.config)
    ]
    return ENV.get_template("arbiter.html").render(
        waiting=waiting,
        **chrome(lang, "/arbiter"),
        event=service.config,
        defs=piece_defs(),
        user=request[ARBITER],
        csrf=session.csrf,
        boards=boards,
        alerts=json_views.alerts_json(desk.alerts(), service.book, service.config),
        closed=closed_alerts(service),
        links=desk.health.links(),
        stations=desk.health.stations(),
        rounds=rounds,
        results=tuple(r.value for r in Result),
        reasons=DESK_REASONS,
        now=service.time_source.now(),
        message=_said(message, request.query.get("m", ""), pending),
        failure=_said(failure, request.query.get("e", ""), pending),
        pending=pending,
        recent=_recent(desk, service.config.zone),
        players=_players(service),
        sections=[{"name": s.name, "slug": slug(s.name)} for s in service.config.sections],
        table_pages=any(table_pages_on(service.config, s.name) for s in service.config.sections),
        config_changes=service.config_changes(),
        unpaired=[
            {"section": s, "slug": slug(s), "round": n}
            for s, n in service.unpaired_rounds().items()
        ],
        playoffs=_playoffs(service, _),
        held=_held(service, lang),
    )


def _said(given: str | None, query: str, pending: dict[str, Any] | None) -> str:
    """The page's message: the one given, else the redirect's (none under a confirmation)."""
    if given is not None:
        return given
    return query if pending is None else ""


def _held(service: EventService, lang: str) -> list[dict[str, Any]]:
    """The news the public does not see yet because it follows from results the delay
    still hides: what, which results (the arbiter's words), when it is public, and for a
    round's pairings the release form's fields."""
    _ = gettext_of(lang)
    ngettext = translations(lang).ngettext
    out: list[dict[str, Any]] = []
    tournament = service.tournament
    for item, when in service.held_news():
        section = tournament.section(item.section)
        who = player_words(section, item.player)
        what = {
            "pairings": _("%(section)s: round %(round)s pairings"),
            "withdrawal": _("%(section)s: withdrawal of %(player)s"),
            "reinstatement": _("%(section)s: %(player)s reinstated"),
        }.get(item.kind, _("%(section)s: play-off game %(number)s"))
        count = len(item.grounds)
        why = ngettext(
            "not public yet: it follows from %(num)d result the broadcast delay still hides",
            "not public yet: it follows from %(num)d results the broadcast delay still hides",
            count,
        ) % {"num": count}
        out.append(
            {
                "what": what
                % {
                    "section": item.section,
                    "round": item.round,
                    "player": who,
                    "number": item.round,
                },
                "why": why,
                "results": hidden_words(tournament, item.grounds),
                "when": time_text(utc(when), lang, service.config.zone) if when else "",
                "release": item.kind == "pairings",
                "slug": slug(item.section),
                "round": item.round,
            }
        )
    return out


def _playoffs(service: EventService, _: Gettext) -> list[dict[str, str]]:
    """Each section's play-off for first, as the desk's "Pair play-off game" needs it:
    who is still in and what the next game is."""
    out: list[dict[str, str]] = []
    for section in service.config.sections:
        status = playoff_now(
            service.tournament.section(section.name), service.config.tiebreak_edition
        )
        if status is None:
            continue
        players = service.tournament.section(section.name).players
        names = {p: f"{p} {entry.name}" for p, entry in players.items()}
        if status.winner is not None:
            state = _("decided: %(player)s is first") % {"player": names[status.winner]}
        elif status.next_kind is None:
            state = _("a play-off game is being played: record its result")
        else:
            between = ", ".join(names[p] for p in status.remaining)
            state = _("next game: %(kind)s, between %(players)s") % {
                "kind": _(status.next_kind),
                "players": between,
            }
        tied = ", ".join(names[p] for p in status.tied)
        out.append({"section": section.name, "tied": tied, "state": state})
    return out


@routes.get("/arbiter/ws")
async def desk_ws(request: web.Request) -> web.StreamResponse:
    if not same_origin(request):
        return error(403, "cross-site websocket refused")
    return await request.app[HUB].serve(request, arbiter=True)


# -- the forms -------------------------------------------------------------------------------


class Form:
    """One posted desk form: its fields, the desk, who acts, and the confirmation token
    when the arbiter confirmed what it does."""

    def __init__(self, request: web.Request) -> None:
        self.request = request
        self.desk: Desk = request.app[DESK]
        self.by = acting(request)
        lang = lang_of(request)
        self._: Gettext = gettext_of(lang)  # what was done, in the arbiter's words
        self.ngettext = translations(lang).ngettext

    def __getitem__(self, name: str) -> str:
        """A field, stripped; "" when missing."""
        value = self.request[FORM].get(name)
        return value.strip() if isinstance(value, str) else ""

    def number(self, name: str, label: str | None = None) -> int:
        """A field that must be a number (ActionError naming `label` otherwise)."""
        text = self[name]
        if not text.isascii() or not text.isdigit() or len(text) > 6:
            raise ActionError(self._("%(label)s must be a number") % {"label": label or name})
        return int(text)

    def checked(self, name: str) -> bool:
        return self[name] in ("on", "1", "yes", "true")

    def section(self) -> str:
        return self.desk.section(self["section"])

    def player(self, section: str, name: str = "player") -> int:
        """A player picked by name or number (the desk's picker)."""
        return self.desk.player(section, self[name])

    def act(self, command: Command) -> Done:
        """The command through the door, confirmed if the form carries the token."""
        return self.desk.act(command, self.by, confirm=self["confirm"] or False)

    def done(self, done: Done) -> str:
        """What the flash says: the action's words, and the alerts it raised."""
        raised = "".join(
            f" ({self._('alert: %(message)s') % {'message': said(a.phrase, self._, a.message)}})"
            for a in done.raised
        )
        return done.summary + raised


FormAction = Callable[[Form], "str | Awaitable[str]"]


def _pending(request: web.Request, exc: ConfirmationNeeded) -> dict[str, Any]:
    """The confirmation box: what the action does and removes, and the same form again."""
    fields = [
        (k, v)
        for k, v in request[FORM].items()
        if isinstance(v, str) and k not in ("csrf", "confirm")
    ]
    return {"action": request.path, "fields": fields, "plan": exc.plan.words(), "stale": exc.stale}


IN_PLACE = "X-Desk"  # the desk's script acts in place: answer the page, not a redirect


async def _answer(request: web.Request, actions: dict[str, FormAction]) -> web.StreamResponse:
    """Run the form's action; Post/Redirect/Get with the outcome as the page's message, or
    the page with the confirmation the action needs. The desk's script (header `X-Desk`)
    gets the page itself, with the outcome on it, and swaps it in where the arbiter is:
    200 done, 409 a confirmation to give, 422 refused."""
    name = request.match_info["action"]
    action = actions.get(name)
    if action is None:
        return error(404, f"no action {name!r}")
    in_place = request.headers.get(IN_PLACE) == "in-place"
    try:
        done = action(Form(request))
        if not isinstance(done, str):
            done = await done
    except ConfirmationNeeded as exc:
        return desk_html(_render(request, pending=_pending(request, exc)), 409 if in_place else 200)
    except ActionError as exc:
        _ = Form(request)._
        why = _("Not done: %(why)s") % {"why": said(exc.phrase, _, str(exc))}
        if in_place:
            return desk_html(_render(request, failure=why), 422)
        raise web.HTTPSeeOther("/arbiter?e=" + quote(why)) from None
    if in_place:
        return desk_html(_render(request, message=done))
    raise web.HTTPSeeOther("/arbiter?m=" + quote(done))


def _result(f: Form) -> str:
    return f.done(f.act(SetResult(f["game"], f["result"], f["reason"] or None)))


def _confirm(f: Form) -> str:
    return f.done(f.act(ConfirmProposal(f["game"])))


def _reject(f: Form) -> str:
    return f.done(f.act(RejectProposal(f["game"])))


def _line(f: Form) -> str:
    return f.done(f.act(CorrectLine(f["game"], tuple(split_moves(f["moves"])))))


def _scoresheet(f: Form) -> str:
    return f.done(f.act(EnterScoresheet(f["game"], f["text"])))


def _takeback(f: Form) -> str:
    plies = f.number("plies", f._("plies")) if f["plies"] else 1
    return f.done(f.act(TakeBack(f["game"], plies)))


def _move(f: Form) -> str:
    """A move by its number and colour, as the scoresheet has it (or by ply)."""
    if f["move_no"]:
        number = f.number("move_no", f._("move number"))
        ply = 2 * number - (1 if f["colour"] != "black" else 0)
    else:
        ply = f.number("ply", f._("ply"))
    return f.done(f.act(ReplaceMove(f["game"], ply, f["move"])))


def _start_fen(f: Form) -> str:
    return f.done(f.act(SetStartPosition(f["game"], f["fen"], f.checked("on_purpose"))))


def _present(f: Form) -> str:
    return f.done(f.act(MarkPresent(f["game"], f["colour"])))


def _absent(f: Form) -> str:
    return f.done(f.act(MarkAbsent(f["game"], f["colour"])))


def _ack(f: Form) -> str:
    if f.desk.health.acknowledge(f["alert"]):  # a system alert: not journaled
        return f._("alert acknowledged")
    f.act(Acknowledge(f["alert"]))
    return f._("alert acknowledged")


async def _pair(f: Form) -> str:
    """Pair a round: the pairing program's TRF when pasted, else FIDE Dutch."""
    service = service_of(f.request)
    section = section_by_name(service.config, f["section"])
    if section is None:
        raise ActionError(f._("no section %(section)s") % {"section": repr(f["section"])})
    number = f.number("round", f._("round"))
    source: PairingSource = (
        FromTrf(f["trf"], override=f.checked("override"))
        if f["trf"]
        else Dutch(override=f.checked("missing_results"))
    )
    command = await pairing_command(service, section.name, number, source)
    return f.done(f.act(command))


def _board(f: Form) -> str:
    section = f.section()
    command = AssignBoard(
        section,
        f.number("round", f._("round")),
        f.player(section, "white"),
        f.number("board", f._("board")),
        swap=f.checked("swap"),
    )
    return _moved(f, f.act(command))


def _seconds(f: Form, text: str, label: str) -> float | None:
    """A time typed at the desk: h:mm:ss, m:ss or seconds; None when left empty (`label`
    in the desk's language)."""
    if not text:
        return None
    parts = text.split(":")
    if len(parts) > 3 or not all(p.isascii() and p.isdigit() and len(p) <= 5 for p in parts):
        raise ActionError(f._("%(label)s must be a time like 1:25:00 or 85:00") % {"label": label})
    seconds = 0
    for part in parts:
        seconds = seconds * 60 + int(part)
    return float(seconds)


def _moved(f: Form, done: Done) -> str:
    """The games moved, each by its board and players, in the desk's language."""
    moved = [e for e in done.plan.events if isinstance(e, BoardReplaced)]
    if not moved:
        return f.done(done)
    book, tournament = f.desk.service.book, f.desk.service.tournament
    text = "; ".join(
        f._("%(game)s moved from board %(old)s to board %(new)s")
        % {"game": game_words(tournament, book.get(m.game)), "old": m.old_board, "new": m.new_board}
        for m in moved
    )
    return text + f._(": set up the position shown under Spare boards")


def _replace_board(f: Form) -> str:
    """A free board (`spare`: a number, or a DGT serial), or one in play (`swap_with`)."""
    spare, swap_with = f["spare"], f["swap_with"]
    if spare and swap_with:
        raise ActionError(f._("choose a free board or a board to swap with, not both"))
    chosen = spare or swap_with
    number = int(chosen) if chosen.isascii() and chosen.isdigit() else None
    command = ReplaceBoard(
        f["game"],
        number,
        serial=None if number is not None or not chosen else chosen,
        swap=bool(swap_with),
        white_seconds=_seconds(f, f["white_time"], f._("White's time")),
        black_seconds=_seconds(f, f["black_time"], f._("Black's time")),
    )
    return _moved(f, f.act(command))


def _release(f: Form) -> str:
    """Publish a round's pairings before the results they follow from are public."""
    section = f.section()
    return f.done(f.act(ReleasePairings(section, f.number("round", f._("round")))))


def _undo(f: Form) -> str:
    return f.done(f.act(Undo(f.number("action", f._("action")))))


_ACTIONS: dict[str, FormAction] = {
    "result": _result,
    "confirm": _confirm,
    "reject": _reject,
    "line": _line,
    "scoresheet": _scoresheet,
    "takeback": _takeback,
    "move": _move,
    "start-fen": _start_fen,
    "present": _present,
    "absent": _absent,
    "ack": _ack,
    "pair": _pair,
    "board": _board,
    "replace": _replace_board,
    "undo": _undo,
    "release": _release,
}


@routes.get("/arbiter/links.json")
async def links_json(request: web.Request) -> web.Response:
    """The links the venue depends on and their state (the desk refreshes it)."""
    return json_response(
        [{"name": name, "state": state} for name, state in request.app[DESK].health.links()]
    )


@routes.get("/api/v1/arbiter/stations")
async def stations_json(request: web.Request) -> web.Response:
    """The capture stations (`serve --stations`): up, lag, clock offset, boards, waiting."""
    return json_response(request.app[DESK].health.stations())


@routes.get("/arbiter/closed.json")
async def closed_alerts_json(request: web.Request) -> web.Response:
    """The desk's "Closed" section, refreshed by its script when the open alerts change."""
    return json_response(closed_alerts(service_of(request)))


@routes.post("/arbiter/act/{action}")
async def desk_action(request: web.Request) -> web.StreamResponse:
    """One form of the desk (results, lines, presence, alerts, pairing, boards)."""
    return await _answer(request, _ACTIONS)


# -- the regulation forms: byes, withdrawals, absences, play-off --------------------------------


def _bye_request(f: Form) -> str:
    section = f.section()
    command = RequestBye(
        section, f.number("round", f._("round")), f.player(section), f.checked("override")
    )
    return f.done(f.act(command))


def _bye_cancel(f: Form) -> str:
    section = f.section()
    command = CancelBye(
        section, f.number("round", f._("round")), f.player(section), f.checked("override")
    )
    return f.done(f.act(command))


def _withdraw(f: Form) -> str:
    section = f.section()
    start = f.number("from_round", f._("from round")) if f["from_round"] else None
    return f.done(f.act(Withdraw(section, f.player(section), start, f["reason"])))


def _reinstate(f: Form) -> str:
    section = f.section()
    return f.done(f.act(Reinstate(section, f.player(section), f["reason"])))


def _continue(f: Form) -> str:
    section = f.section()
    command = ContinueAfterAbsence(section, f.number("round", f._("round")), f.player(section))
    return f.done(f.act(command))


def _playoff(f: Form) -> str:
    section = f.section()
    board = f.number("board", f._("board")) if f["board"] else 1
    command = PairPlayoffGame(
        section, f.player(section, "white"), f.player(section, "black"), board
    )
    return f.done(f.act(command))


def _withhold_prize(f: Form) -> str:
    section = f.section()
    return f.done(f.act(WithholdPrize(section, f.player(section), f["reason"])))


def _restore_prize(f: Form) -> str:
    section = f.section()
    return f.done(f.act(RestorePrize(section, f.player(section), f["reason"])))


def _newcomer(f: Form) -> dict[str, object]:
    return {k: f[k] for k in NEWCOMER_FIELDS if f[k]}


def _missed(f: Form) -> float | None:
    """The form's points per missed round: "" for the section's setting, 0 or 0.5."""
    choice = f["missed_round_points"]
    if not choice:
        return None
    if choice not in ("0", "0.5"):
        raise ActionError(f._("points per missed round must be 0 or 0.5"))
    return float(choice)


def _late_entry(f: Form) -> str:
    config_player = f.number("config_player", f._("config player")) if f["config_player"] else None
    start = f.number("from_round", f._("from round")) if f["from_round"] else None
    command = LateEntry(
        f.section(),
        particulars(_newcomer(f)),
        config_player=config_player,
        from_round=start,
        missed_points=_missed(f),
    )
    return f.done(f.act(command))


def _replace_player(f: Form) -> str:
    section = f.section()
    command = ReplacePlayer(
        section,
        f.player(section),
        particulars(_newcomer(f)),
        override=f["override"],
        missed_points=_missed(f),
    )
    return f.done(f.act(command))


_REGULATION_ACTIONS: dict[str, FormAction] = {
    "late-entry": _late_entry,
    "replace": _replace_player,
    "bye-request": _bye_request,
    "bye-cancel": _bye_cancel,
    "withdraw": _withdraw,
    "reinstate": _reinstate,
    "continue": _continue,
    "playoff": _playoff,
    "withhold-prize": _withhold_prize,
    "restore-prize": _restore_prize,
}


@routes.post("/arbiter/regs/{action}")
async def desk_regulation_action(request: web.Request) -> web.StreamResponse:
    """The desk's regulation forms (a refusal gives the regulation's reason)."""
    return await _answer(request, _REGULATION_ACTIONS)
