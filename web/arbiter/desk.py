"""The desk: its page (/arbiter), its websocket and its forms.

Each form posts to /arbiter/act/<action> or /arbiter/regs/<action> (regulations: byes,
withdrawals, absences, late entries and replacements, the play-off) and is answered Post/Redirect/Get, with what was
done (or "Not done: " and why) as the page's message. The guard has checked the session
and the CSRF token, and read the form (`FORM`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from urllib.parse import quote

from aiohttp import web

from broadcast.games.events import RESULTS, BoardReplaced
from broadcast.games.ids import slug
from broadcast.service import actions as regs
from broadcast.service.actions import DESK_REASONS
from broadcast.service.event_service import ActionError, EventService
from broadcast.tournament.newcomer import NEWCOMER_FIELDS
from web import json_views
from web.arbiter.actions import DESK, Desk, Dutch, FromTrf, PairingSource, pair_round
from web.arbiter.guard import FORM, SESSION, acting, desk_html
from web.arbiter.history import closed_alerts
from web.arbiter.moves import split_moves
from web.auth import same_origin
from web.board_svg import board_svg, piece_defs
from web.http_json import error, json_response
from web.i18n import Gettext, gettext_of, translations
from web.keys import ARBITER, HUB, PAIRER, lang_of, service_of
from web.pages import ENV, chrome
from web.sections import section_by_name

__all__ = ["desk_page", "desk_ws", "routes"]

routes = web.RouteTableDef()


@routes.get("/arbiter")
async def desk_page(request: web.Request) -> web.Response:
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
        games = [
            json_views.arbiter_game_json(g) for g in service.book.round_games(section.name, number)
        ]
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
        json_views.desk_board_json(b, service.book)
        for b in sorted(service.hall.values(), key=lambda b: b.number)
    ]
    spares = [
        {
            "number": b.number,
            "serial": b.name or "",
            "game": b.game or "",
            "free": b.game is None
            or b.game not in service.book.games
            or service.book.games[b.game].finished,
        }
        for b in desk.spares()
    ]
    # The boards to set up: the same entries the desk's socket sends as they change.
    waiting = [
        {**w, "picture": board_svg(w["must_show"], differ=w["differs"])}
        for w in json_views.waiting_json(service.hall.values(), service.book)
    ]
    text = ENV.get_template("arbiter.html").render(
        spares=spares,
        waiting=waiting,
        **chrome(lang, "/arbiter"),
        event=service.config,
        defs=piece_defs(),
        user=request[ARBITER],
        csrf=session.csrf,
        boards=boards,
        alerts=json_views.alerts_json(desk.alerts(), service.book),
        closed=closed_alerts(service),
        links=desk.health.links(),
        rounds=rounds,
        results=RESULTS,
        reasons=DESK_REASONS,
        now=service.time.now(),
        message=request.query.get("m", ""),
        sections=[{"name": s.name, "slug": slug(s.name)} for s in service.config.sections],
        config_changes=service.config_changes(),
        unpaired=[
            {"section": s, "slug": slug(s), "round": n}
            for s, n in service.unpaired_rounds().items()
        ],
        playoffs=_playoffs(service, _),
    )
    return desk_html(text)


def _playoffs(service: EventService, _: Gettext) -> list[dict[str, str]]:
    """Each section's play-off for first, as the desk's "Pair play-off game" needs it:
    who is still in and what the next game is."""
    out: list[dict[str, str]] = []
    for section in service.config.sections:
        status = regs.playoff(service.tournament, section.name)
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
    """One posted desk form: its fields, the desk, and who acts."""

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
            raise ActionError(f"{label or name} must be a number")
        return int(text)

    def checked(self, name: str) -> bool:
        return self[name] in ("on", "1", "yes", "true")

    def round_player(self) -> tuple[int, int]:
        return self.number("round"), self.number("player")


FormAction = Callable[[Form], "str | Awaitable[str]"]


async def _answer(request: web.Request, actions: dict[str, FormAction]) -> web.StreamResponse:
    """Run the form's action; Post/Redirect/Get with the outcome as the page's message."""
    name = request.match_info["action"]
    action = actions.get(name)
    if action is None:
        return error(404, f"no action {name!r}")
    try:
        done = action(Form(request))
        if not isinstance(done, str):
            done = await done
    except ActionError as exc:
        done = Form(request)._("Not done: %(why)s") % {"why": exc}
    raise web.HTTPSeeOther("/arbiter?m=" + quote(done))


def _result(f: Form) -> str:
    raised = f.desk.set_result(f["game"], f["result"], f.by, f["reason"] or None)
    done = f._("%(game)s: result %(result)s") % {"game": f["game"], "result": f["result"]}
    return done + "".join(
        f" ({f._('alert: %(message)s') % {'message': a.message}})" for a in raised
    )


def _confirm(f: Form) -> str:
    f.desk.confirm(f["game"], f.by)
    return f._("%(game)s: result confirmed") % {"game": f["game"]}


def _reject(f: Form) -> str:
    f.desk.reject(f["game"], f.by)
    return f._("%(game)s: proposed result rejected, the game goes on") % {"game": f["game"]}


def _line(f: Form) -> str:
    f.desk.correct_line(f["game"], split_moves(f["moves"]), f.by)
    return f._("%(game)s: line corrected") % {"game": f["game"]}


def _start_fen(f: Form) -> str:
    f.desk.set_start_fen(f["game"], f["fen"], f.by)
    return f._("%(game)s: start position set") % {"game": f["game"]}


def _present(f: Form) -> str:
    f.desk.mark_present(f["game"], f["colour"], f.by)
    colour = f._("white") if f["colour"] == "white" else f._("black")
    return f._("%(game)s: %(colour)s marked present") % {"game": f["game"], "colour": colour}


def _ack(f: Form) -> str:
    f.desk.acknowledge(f["alert"], f.by)
    return f._("alert acknowledged")


async def _pair(f: Form) -> str:
    """Pair a round: the pairing program's TRF when pasted, else FIDE Dutch."""
    service = service_of(f.request)
    section = section_by_name(service.config, f["section"])
    if section is None:
        raise ActionError(f"no section {f['section']!r}")
    number = f.number("round")
    source: PairingSource = (
        FromTrf(f["trf"], override=f.checked("override"))
        if f["trf"]
        else Dutch(f.request.app[PAIRER])
    )
    pairings = await pair_round(service, section.name, number, source, f.by)
    games = sum(1 for p in pairings if p.black is not None)
    return f._("%(section)s round %(number)s paired (%(source)s, %(games)s games)") % {
        "section": section.name,
        "number": number,
        "source": source.kind,
        "games": games,
    }


def _board(f: Form) -> str:
    moved = f.desk.assign_board(
        f["section"], f.number("round"), f.number("white"), f.number("board"), f.by
    )
    return _moved(f, moved) if moved else f._("board reassigned")


def _seconds(text: str, label: str) -> float | None:
    """A time typed at the desk: h:mm:ss, m:ss or seconds; None when left empty."""
    if not text:
        return None
    parts = text.split(":")
    if len(parts) > 3 or not all(p.isascii() and p.isdigit() and len(p) <= 5 for p in parts):
        raise ActionError(f"{label} must be a time like 1:25:00 or 85:00")
    seconds = 0
    for part in parts:
        seconds = seconds * 60 + int(part)
    return float(seconds)


def _moved(f: Form, moved: list[BoardReplaced]) -> str:
    text = "; ".join(
        f._("%(game)s moved from board %(old)s to board %(new)s")
        % {"game": m.game, "old": m.old_board, "new": m.new_board}
        for m in moved
    )
    return text + f._(": set up the position shown under Spare boards")


def _replace_board(f: Form) -> str:
    spare = f["spare"]
    board, serial = (int(spare), None) if spare.isascii() and spare.isdigit() else (None, spare)
    moved = f.desk.replace_board(
        f["game"],
        board,
        f.by,
        serial=serial or None,
        white_seconds=_seconds(f["white_time"], "White's time"),
        black_seconds=_seconds(f["black_time"], "Black's time"),
    )
    return _moved(f, moved)


_ACTIONS: dict[str, FormAction] = {
    "result": _result,
    "confirm": _confirm,
    "reject": _reject,
    "line": _line,
    "start-fen": _start_fen,
    "present": _present,
    "ack": _ack,
    "pair": _pair,
    "board": _board,
    "replace": _replace_board,
}


@routes.get("/arbiter/links.json")
async def links_json(request: web.Request) -> web.Response:
    """The links the venue depends on and their state (the desk refreshes it)."""
    return json_response(
        [{"name": name, "state": state} for name, state in request.app[DESK].health.links()]
    )


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
    rnd, player = f.round_player()
    granted = f.desk.request_bye(f["section"], rnd, player, f.by, override=f.checked("override"))
    done = f._("bye for round %(round)s granted to player %(player)s") % {
        "round": rnd,
        "player": player,
    }
    if granted.override:
        done += f._(" against the regulations (%(why)s): flagged") % {"why": granted.override}
    return done


def _bye_cancel(f: Form) -> str:
    rnd, player = f.round_player()
    f.desk.cancel_bye(f["section"], rnd, player, f.by, override=f.checked("override"))
    return f._("bye for round %(round)s of player %(player)s cancelled") % {
        "round": rnd,
        "player": player,
    }


def _withdraw(f: Form) -> str:
    player = f.number("player")
    start = f.number("from_round", "from round") if f["from_round"] else None
    event = f.desk.withdraw(f["section"], player, f.by, from_round=start, reason=f["reason"])
    return f._("player %(player)s withdrawn from round %(round)s") % {
        "player": player,
        "round": event.from_round,
    }


def _continue(f: Form) -> str:
    rnd, player = f.round_player()
    f.desk.continue_after_absence(f["section"], rnd, player, f.by)
    return f._("player %(player)s continues after the absence in round %(round)s") % {
        "player": player,
        "round": rnd,
    }


def _playoff(f: Form) -> str:
    white, black = f.number("white"), f.number("black")
    board = f.number("board") if f["board"] else 1
    paired = f.desk.pair_playoff_game(f["section"], white, black, f.by, board=board)
    return f._("play-off game %(number)s (%(kind)s) paired") % {
        "number": paired.number,
        "kind": f._(paired.kind),
    }


def _withhold_prize(f: Form) -> str:
    player = f.number("player")
    f.desk.withhold_prize(f["section"], player, f.by, f["reason"])
    return f._("prize of player %(player)s withheld: it passes to the next eligible player") % {
        "player": player
    }


def _restore_prize(f: Form) -> str:
    player = f.number("player")
    f.desk.restore_prize(f["section"], player, f.by, f["reason"])
    return f._("prize of player %(player)s restored") % {"player": player}


def _newcomer(f: Form) -> dict[str, object]:
    return {k: f[k] for k in NEWCOMER_FIELDS if f[k]}


def _missed(f: Form) -> float | None:
    """The form's points per missed round: "" for the section's setting, 0 or 0.5."""
    choice = f["missed_round_points"]
    if not choice:
        return None
    if choice not in ("0", "0.5"):
        raise ActionError("points per missed round must be 0 or 0.5")
    return float(choice)


def _late_entry(f: Form) -> str:
    config_player = f.number("config_player", "config player") if f["config_player"] else None
    start = f.number("from_round", "from round") if f["from_round"] else None
    event = f.desk.enter_late(
        f["section"],
        _newcomer(f),
        f.by,
        config_player=config_player,
        from_round=start,
        missed_points=_missed(f),
    )
    points = event.missed_points * (event.from_round - 1)
    # The plural of a whole number of points is its own; half points take the "other" form.
    count = int(points) if points == int(points) else 2
    return f.ngettext(
        "late entry: player %(player)s %(name)s, paired from round %(round)s, starts with "
        "%(points)s point",
        "late entry: player %(player)s %(name)s, paired from round %(round)s, starts with "
        "%(points)s points",
        count,
    ) % {
        "player": event.player.number,
        "name": event.player.name,
        "round": event.from_round,
        "points": f"{points:g}",
    }


def _replace_player(f: Form) -> str:
    player = f.number("player")
    event = f.desk.replace_player(
        f["section"], player, _newcomer(f), f.by, override=f["override"], missed_points=_missed(f)
    )
    done = f._("player %(player)s %(name)s replaced by %(newcomer)s from round %(round)s") % {
        "player": player,
        "name": event.original.name,
        "newcomer": event.newcomer.name,
        "round": event.from_round,
    }
    if event.newcomer.number != player:
        done += f._(" (starting number %(number)s; the games played stay with %(player)s)") % {
            "number": event.newcomer.number,
            "player": player,
        }
    return done


_REGULATION_ACTIONS: dict[str, FormAction] = {
    "late-entry": _late_entry,
    "replace": _replace_player,
    "bye-request": _bye_request,
    "bye-cancel": _bye_cancel,
    "withdraw": _withdraw,
    "continue": _continue,
    "playoff": _playoff,
    "withhold-prize": _withhold_prize,
    "restore-prize": _restore_prize,
}


@routes.post("/arbiter/regs/{action}")
async def desk_regulation_action(request: web.Request) -> web.StreamResponse:
    """The desk's regulation forms (a refusal gives the regulation's reason)."""
    return await _answer(request, _REGULATION_ACTIONS)
