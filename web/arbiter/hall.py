"""The hall at a glance (/arbiter/hall) and the results table (/arbiter/results).

Both read one JSON, `hall_json`: every table of the live round(s) in table order (one
number names a table everywhere: `broadcast.config.tables.table_of`), each with its
state at a glance, the players, the result or the proposal waiting for a word, presence,
the open alerts about it, and for a table with a hall board its clocks, the side to move
and the position. It is a pure function of the service's state (`hall_of` gathers what
it reads), served at GET /api/v1/arbiter/hall.

A table's `state`, the first that holds:

- `finished`: the game has its result;
- `pending`: a result was proposed (the board, the rules) and waits for the arbiter;
- `trouble`: an open alert about its board (not responding, out of sync, ...);
- `absent`: an open presence alert (late, check presence): a player is not at the board;
- `playing`: otherwise.

`needs_me`: pending, trouble, absent, or any other open alert about the table (an early
draw to look at). The pages live on the desk's websocket (`/arbiter/ws`, live.js): the
moves and clocks of a wired table are drawn in place by live.js itself, and a message
that can change a table's state (a result, the alerts, a new game) makes the page read
this JSON again. The results table enters results through the arbiter API (the door).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from broadcast.arbiter.alerts import Alert
from broadcast.arbiter.presence import GamePresence, Presence, deadline
from broadcast.arbiter.presence_rules import game_presence, unchecked_tables
from broadcast.config.model import EventConfig
from broadcast.config.tables import table_of
from broadcast.fide.results import Result
from broadcast.games.book import GameBook
from broadcast.games.game_state import GameState
from broadcast.service.event_service import EventService
from web import json_views
from web.alert_titles import alert_title, by_urgency
from web.arbiter.actions import DESK
from web.arbiter.guard import SESSION, desk_html
from web.board_svg import piece_defs
from web.game_teams import game_teams
from web.http_json import json_response
from web.i18n import Gettext, gettext_of
from web.keys import ARBITER, lang_of, service_of
from web.pages import ENV, chrome
from web.words import N_

__all__ = [
    "HALL_TEXTS",
    "PRESENCE_KINDS",
    "RESULT_KEYS",
    "RESULT_KINDS",
    "STATES",
    "Wired",
    "hall_json",
    "hall_of",
    "hall_texts",
    "routes",
    "table_state",
]

routes = web.RouteTableDef()

STATES = ("playing", "pending", "finished", "absent", "trouble")
# Alerts that say a player is not at the board (broadcast/arbiter/presence_rules.py).
PRESENCE_KINDS = frozenset({"late", "check-presence", "absence-disqualifies"})
# Alerts about the result (handled by the result itself): not the board's trouble.
RESULT_KINDS = frozenset({"result-proposed", "both-flags", "early-draw"})
# Every other alert naming a game or a hall board is the board's trouble (the trouble
# helper's new kinds included, without a list to keep in step here).

# The results table's keys (documented on the page and in docs/arbiter.md): the result
# each key enters once a table is chosen.
RESULT_KEYS: dict[str, str] = {
    "1": "1-0",
    "=": "1/2-1/2",
    "5": "1/2-1/2",
    "0": "0-1",
    "+": "+/-",
    "-": "-/+",
    "*": "-/-",
    "x": "-/-",
}


@dataclass(frozen=True, slots=True)
class Wired:
    """A hall board as the hall view needs it: its number, its DGT serial, the game it
    follows and whether it is connected."""

    number: int
    name: str | None
    game: str | None
    connected: bool


def _player(p: Any) -> dict[str, Any] | None:
    if p is None:
        return None
    return {"start": p.start, "name": p.name, "rating": p.rating or None}


def _to_move(game: GameState) -> str:
    return "black" if game.fen.split(" ")[1:2] == ["b"] else "white"


def _alerts_by_game(alerts: Iterable[Alert], boards: Sequence[Wired]) -> dict[str, list[Alert]]:
    """The open alerts about each game: named by the alert, or through its hall board
    (a board alert raised before the board knew its game)."""
    by_name = {b.name: b.game for b in boards if b.name and b.game}
    out: dict[str, list[Alert]] = {}
    for alert in alerts:
        game = alert.game or by_name.get(alert.hall_board or "")
        if game:
            out.setdefault(game, []).append(alert)
    return out


def table_state(
    game: GameState, alerts: Sequence[Alert], *, marked_absent: bool = False, to_check: bool = False
) -> tuple[str, bool]:
    """The table's state at a glance and whether it needs the arbiter (module docstring):
    `marked_absent`, a player is known absent (the hall walk, the board at the default
    time); `to_check`, the default time has passed and nobody has said who is there.
    Pure."""
    kinds = {a.kind for a in alerts}
    trouble = any(k not in PRESENCE_KINDS and k not in RESULT_KINDS for k in kinds)
    absent = bool(kinds & PRESENCE_KINDS) or marked_absent
    pending = game.result is None and game.proposal is not None
    if game.result is not None:
        state = "finished"
    elif pending:
        state = "pending"
    elif trouble:
        state = "trouble"
    elif absent:
        state = "absent"
    else:
        state = "playing"
    open_table = game.result is None
    return state, bool(pending or alerts or (open_table and (marked_absent or to_check)))


def _table_json(
    config: EventConfig,
    game: GameState,
    alerts: Sequence[Alert],
    board: Wired | None,
    presence: Presence | None,
    walk: GamePresence | None,
    to_check: bool,
    book: GameBook,
    gettext: Gettext,
) -> dict[str, Any]:
    seen = presence or Presence()
    # The arbiter's own absent marks (the hall walk); what a board saw at the default
    # time is the rules' to judge, and shows through their presence alerts.
    marked_absent = walk is not None and any(
        p.state == "absent" and p.how == "arbiter" for p in (walk.white, walk.black)
    )
    state, needs = table_state(game, alerts, marked_absent=marked_absent, to_check=to_check)
    last = game.moves[-1] if game.moves else None
    proposal = json_views.proposal_json(game)
    out: dict[str, Any] = {
        "table": table_of(config, game.key.section, game.key.board),
        "section": game.key.section,
        "round": game.key.round,
        "board": game.key.board,
        "game": game.id,
        "white": _player(game.white),
        "black": _player(game.black),
        "state": state,
        "needs_me": needs,
        "result": game.result,
        "result_reason": json_views.reason_text(game.result_reason, game.result),
        "proposal": None
        if proposal is None
        else {
            "result": proposal["result"],
            "reason": json_views.reason_text(proposal["reason"], proposal["result"]),
        },
        "presence": {
            "white": seen.white is not None or bool(game.moves),
            "black": seen.black is not None or len(game.moves) > 1,
        },
        # The hall walk: each player present, absent or unknown, and how it is known
        # (board, check-in, arbiter); `to_check`, the default time passed unanswered.
        "walk": None
        if walk is None
        else {
            c: {"state": p.state, "how": p.how}
            for c, p in (("white", walk.white), ("black", walk.black))
        },
        "to_check": to_check,
        "alerts": [
            {
                "id": a.id,
                "kind": a.kind,
                "severity": a.severity,
                "title": alert_title(a, book, gettext),
            }
            for a in by_urgency(list(alerts))
        ],
        "wired": board is not None,
        "hall_board": None if board is None else board.number,
        "connected": None if board is None else board.connected,
        "ply": game.ply,
        "to_move": _to_move(game),
        "fen": game.fen,
        "last_move": None if last is None else {"san": last.san, "uci": last.uci},
        "clock": None,
        "flag": game.flag,
        # A team round's table: its match and the teams (the hall groups tables by match).
        **game_teams(config, game.key, *(p.start if p else None for p in (game.white, game.black))),
    }
    if board is not None:
        out["clock"] = {
            "white": game.white_clock,
            "black": game.black_clock,
            "running": game.running,
        }
    return out


def hall_json(
    config: EventConfig,
    book: GameBook,
    live: Mapping[str, int | None],
    alerts: Sequence[Alert],
    boards: Sequence[Wired] = (),
    presence: Mapping[str, Presence] | None = None,
    gettext: Gettext = lambda s: s,
    walk: Mapping[str, GamePresence] | None = None,
    to_check: Collection[str] = (),
) -> dict[str, Any]:
    """Every table of the live round(s), in table order, with the counts (module
    docstring). `live`: each section's live round (None: none); `alerts`: the open
    alerts; `boards`: the hall boards; `presence`: when each player of a game was first
    seen (the rules' watches); `gettext`: the alert titles' language. Pure."""
    by_game = {b.game: b for b in boards if b.game}
    about = _alerts_by_game(alerts, boards)
    seen = presence or {}
    rounds: list[dict[str, Any]] = []
    tables: list[dict[str, Any]] = []
    for section in config.sections:
        number = live.get(section.name)
        if number is None:
            continue
        rounds.append({"section": section.name, "round": number})
        for game in book.round_games(section.name, number):
            tables.append(
                _table_json(
                    config,
                    game,
                    about.get(game.id, []),
                    by_game.get(game.id),
                    seen.get(game.id),
                    (walk or {}).get(game.id),
                    game.id in to_check,
                    book,
                    gettext,
                )
            )
    tables.sort(key=lambda t: (t["table"], t["section"], t["board"]))
    counts = {"tables": len(tables), **{s: 0 for s in STATES}, "needs_me": 0}
    for t in tables:
        counts[t["state"]] += 1
        counts["needs_me"] += t["needs_me"]
    return {
        "rounds": rounds,
        "counts": counts,
        "tables": tables,
        "results": [r.value for r in Result],
    }


def hall_of(service: EventService, alerts: Sequence[Alert], gettext: Gettext) -> dict[str, Any]:
    """`hall_json` of the running service (its live state: the arbiter's)."""
    boards = [
        Wired(b.number, b.name, b.game, b.connected)
        for b in sorted(service.hall.values(), key=lambda b: b.number)
    ]
    rules = service.rules
    presence = {g: w.presence for g, w in rules.watches.items()}
    live = service.live_rounds()
    walk: dict[str, GamePresence] = {}
    to_check: set[str] = set()
    for section, number in live.items():
        if number is None:
            continue
        games = service.book.round_games(section, number)
        walk.update((g.id, game_presence(rules, g)) for g in games)
        config = rules.section(section)
        start = rules.round_start(config, number)
        if start is not None and rules.now >= deadline(start, config.default_time_minutes):
            tables = set(unchecked_tables(rules, section, number))
            to_check.update(
                g.id for g in games if table_of(service.config, section, g.key.board) in tables
            )
    return hall_json(
        service.config,
        service.book,
        live,
        alerts,
        boards,
        presence,
        gettext,
        walk,
        to_check,
    )


# -- the pages' words -------------------------------------------------------------------------

# The texts hall.js and results_table.js build in the browser, by key (`%(name)s` filled
# in by the script), carried translated in the page's JSON block beside live.js's.
HALL_TEXTS = {
    "state_playing": N_("playing"),
    "state_pending": N_("result pending"),
    "state_finished": N_("finished"),
    "state_absent": N_("player absent"),
    "state_trouble": N_("board in trouble"),
    "table": N_("Table %(table)s"),
    "finished_of": N_("%(finished)s of %(tables)s finished"),
    "needs_me_count": N_("%(count)s need you"),
    "proposed": N_("proposed %(result)s"),
    "to_move": N_("to move"),
    "not_seen": N_("not seen yet: %(who)s"),
    "white": N_("White"),
    "black": N_("Black"),
    "board_n": N_("board %(board)s"),
    "no_tables": N_("No round is being played."),
    "no_match": N_("No table matches the filter."),
    "no_table": N_("There is no table %(table)s."),
    "choose_table": N_("Type a table number, or tap a table."),
    "chosen": N_("Table %(table)s: choose the result."),
    "sending": N_("Sending…"),
    "done": N_("Table %(table)s: %(result)s"),
    "undo": N_("Undo"),
    "undone": N_("undone"),
    "confirm": N_("Confirm"),
    "cancel": N_("Cancel"),
    "this_removes": N_("This removes:"),
    "also": N_("Also:"),
    "not_done": N_("Not done: %(why)s"),
    "no_connection": N_("No answer from the server: the result may not be set. Try again."),
    # the hall walk
    "walk_here": N_("%(who)s here"),
    "walk_absent": N_("%(who)s absent"),
    "walk_both": N_("Both here"),
    "walk_to_check": N_("Default time passed: who is here?"),
    "walk_present": N_("here"),
    "walk_away": N_("absent"),
    "walk_unknown": N_("not known"),
    # how a player's presence is known
    "how_board": N_("the board"),
    "how_check-in": N_("the player checked in"),
    "how_arbiter": N_("arbiter"),
}


def hall_texts(gettext: Gettext) -> dict[str, str]:
    """The hall's and the results table's script texts in one language."""
    return {key: gettext(text) for key, text in HALL_TEXTS.items()}


# -- the routes -------------------------------------------------------------------------------


def _page(request: web.Request, template: str, here: str) -> web.Response:
    service = service_of(request)
    lang = lang_of(request)
    _ = gettext_of(lang)
    frame = chrome(lang, here)
    frame["texts"] = {**frame["texts"], **hall_texts(_)}
    hall = hall_of(service, request.app[DESK].alerts(), _)
    text = ENV.get_template(template).render(
        **frame,
        event=service.config,
        defs=piece_defs(),
        user=request[ARBITER],
        csrf=request[SESSION].csrf,
        now=service.time_source.now(),
        hall=hall,
        keys=RESULT_KEYS,
    )
    return desk_html(text)


@routes.get("/arbiter/hall")
async def hall_page(request: web.Request) -> web.Response:
    return _page(request, "hall.html", "/arbiter/hall")


@routes.get("/arbiter/results")
async def results_page(request: web.Request) -> web.Response:
    return _page(request, "results_table.html", "/arbiter/results")


@routes.get("/api/v1/arbiter/hall")
async def hall_route(request: web.Request) -> web.Response:
    """Every table of the live round(s) in table order, each with its state at a glance,
    and the counts (live)."""
    _ = gettext_of(lang_of(request))
    return json_response(hall_of(service_of(request), request.app[DESK].alerts(), _))
