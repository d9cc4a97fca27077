"""The arbiter JSON API (/api/v1/arbiter/...): boards, alerts, live games and actions.

Every action route is the same few steps: the game in the path (404 when there is none),
the JSON body and its typed fields (400), the desk's action (422 with its message when
refused), and the answer (the game as it is now, or what was done). `action(...)` writes
those steps once; a route gives only its fields and its answer. The guard has checked the
session and its `X-CSRF-Token`, or HTTP Basic.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from aiohttp import web

from broadcast.games.events import BoardReplaced
from broadcast.games.ids import GameKey
from broadcast.games.squares import differing_squares
from broadcast.games.state import GameError
from broadcast.service.event_service import ActionError, EventService
from broadcast.tournament.newcomer import NEWCOMER_FIELDS
from web import json_views
from web.arbiter.actions import DESK, ByHand, Desk, Dutch, FromTrf, PairingSource, pair_round
from web.arbiter.guard import acting
from web.http_json import error, http_error, json_response, round_of
from web.keys import PAIRER, service_of
from web.pairing_worker import PairingBusy
from web.sections import section_by_name

__all__ = ["Call", "action", "routes"]

routes = web.RouteTableDef()

T = TypeVar("T")


async def _body(request: web.Request) -> dict[str, Any]:
    try:
        data = await request.json()
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise http_error(web.HTTPBadRequest, "the body must be a JSON object") from None
    if not isinstance(data, dict):
        raise http_error(web.HTTPBadRequest, "the body must be a JSON object")
    return data


def _field(data: dict[str, Any], name: str, kind: type) -> Any:
    value = data.get(name)
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise http_error(web.HTTPBadRequest, f"field {name!r} must be a {kind.__name__}")
    return value


def _live_game(request: web.Request, game_id: str) -> web.Response:
    try:
        return json_response(json_views.arbiter_game_json(service_of(request).book.get(game_id)))
    except GameError:
        return error(404, f"no game {game_id!r}")


def _path_game(request: web.Request) -> str:
    """The game named in the path; 404 when there is none (not 422: the resource is
    missing, not the action refused)."""
    game_id = request.match_info["game"]
    if game_id not in service_of(request).book.games:
        raise http_error(web.HTTPNotFound, f"no game {game_id[:80]!r}")
    return game_id


def _refused(act: Callable[[], T]) -> T:
    try:
        return act()
    except ActionError as exc:
        raise http_error(web.HTTPUnprocessableEntity, str(exc)) from None


# -- the action routes ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Call:
    """One action request: its JSON body (empty for a bare POST), the game in its path
    ("" when none), the desk and who acts."""

    request: web.Request
    data: dict[str, Any]
    game: str
    desk: Desk
    by: str

    @property
    def service(self) -> EventService:
        return service_of(self.request)

    def field(self, name: str, kind: type) -> Any:
        """A field of type `kind` (400 otherwise)."""
        return _field(self.data, name, kind)

    def optional(self, name: str, kind: type) -> Any:
        """A field that may be left out (None then), of type `kind` when given."""
        return _field(self.data, name, kind) if name in self.data else None

    def optional_int(self, name: str) -> int | None:
        """A number that may be left out or null."""
        return _field(self.data, name, int) if self.data.get(name) is not None else None


Act = Callable[[Call], Any]


def action(
    path: str, *, game: bool = False, body: bool = True
) -> Callable[[Act], Callable[[web.Request], Any]]:
    """Register `act` as POST `path`. With `game`, the path names a game and the answer is
    that game as it is now; else the answer is what `act` returns. Without `body`, a bare
    POST (the body is not read)."""

    def register(act: Act) -> Callable[[web.Request], Any]:
        async def handler(request: web.Request) -> web.Response:
            game_id = _path_game(request) if game else ""
            data = await _body(request) if body else {}
            call = Call(request, data, game_id, request.app[DESK], acting(request))
            done = _refused(lambda: act(call))
            return _live_game(request, game_id) if game else json_response(done)

        handler.__name__ = handler.__qualname__ = act.__name__
        handler.__doc__ = act.__doc__
        routes.post(path)(handler)
        return handler

    return register


@action("/api/v1/arbiter/games/{game}/result", game=True)
def result_route(call: Call) -> None:
    result = call.field("result", str)
    reason = call.optional("reason", str)
    call.desk.set_result(call.game, result, call.by, reason)


@action("/api/v1/arbiter/games/{game}/confirm", game=True, body=False)
def confirm_route(call: Call) -> None:
    call.desk.confirm(call.game, call.by)


@action("/api/v1/arbiter/games/{game}/reject", game=True, body=False)
def reject_route(call: Call) -> None:
    call.desk.reject(call.game, call.by)


@action("/api/v1/arbiter/games/{game}/line", game=True)
def line_route(call: Call) -> None:
    moves = call.field("moves", list)
    if not all(isinstance(m, str) for m in moves):
        raise http_error(
            web.HTTPBadRequest,
            'moves must be a list of moves like ["e2e4", "e7e5"] or ["e4", "e5"]',
        )
    call.desk.correct_line(call.game, moves, call.by)


@action("/api/v1/arbiter/games/{game}/start-fen", game=True)
def start_fen_route(call: Call) -> None:
    call.desk.set_start_fen(call.game, call.field("fen", str), call.by)


@action("/api/v1/arbiter/games/{game}/present", game=True)
def present_route(call: Call) -> None:
    call.desk.mark_present(call.game, call.field("colour", str), call.by)


@action("/api/v1/arbiter/alerts/{alert}/ack", body=False)
def ack_route(call: Call) -> dict[str, Any]:
    alert_id = call.request.match_info["alert"]
    call.desk.acknowledge(alert_id, call.by)
    return {"acknowledged": alert_id}


@action("/api/v1/arbiter/byes")
def bye_route(call: Call) -> dict[str, Any]:
    """The older bye route: a request through the policy without override (as
    /api/v1/arbiter/bye-requests; refused: 422 with the regulation's reason)."""
    section, rnd = call.field("section", str), call.field("round", int)
    player = call.field("player", int)
    call.desk.grant_bye(section, rnd, player, call.by)
    return {"granted": {"section": section, "round": rnd, "player": player}}


def _seconds(call: Call, name: str) -> float | None:
    value = call.optional_int(name)
    return None if value is None else float(value)


def _replaced(call: Call, moves: list[BoardReplaced]) -> list[dict[str, Any]]:
    """Each game moved, and what its new board must show before the game goes on."""
    out: list[dict[str, Any]] = []
    for move in moves:
        game = call.desk.service.book.get(move.game)
        out.append(
            {
                "game": move.game,
                "from": move.old_board,
                "to": move.new_board,
                "ply": move.ply,
                "in_sync": game.in_sync,
                "must_show": game.fen,
                "differs": list(differing_squares(game.fen, game.board_fen)),
            }
        )
    return out


@action("/api/v1/arbiter/boards/assign")
def assign_route(call: Call) -> dict[str, Any]:
    """The game whose White is `white` plays on hall board `board` from now on: with its
    moves, clocks and alerts (a spare takes over; the game the board held moves to the
    left board). `white_seconds`/`black_seconds`: times for a spare without a clock."""
    section, rnd = call.field("section", str), call.field("round", int)
    white, board = call.field("white", int), call.field("board", int)
    moves = call.desk.assign_board(
        section,
        rnd,
        white,
        board,
        call.by,
        white_seconds=_seconds(call, "white_seconds"),
        black_seconds=_seconds(call, "black_seconds"),
    )
    done = {"section": section, "round": rnd, "white": white, "board": board}
    return {"assigned": done, "moved": _replaced(call, moves)}


@action("/api/v1/arbiter/games/{game}/replace-board", game=True)
def replace_board_route(call: Call) -> None:
    """The game moves to a spare: hall board `board`, or the hall board where the DGT
    board `serial` is connected. The answer is the game (`hall_board`, `must_show`,
    `differs`), as for the other game actions."""
    call.desk.replace_board(
        call.game,
        call.optional_int("board"),
        call.by,
        serial=call.optional("serial", str),
        white_seconds=_seconds(call, "white_seconds"),
        black_seconds=_seconds(call, "black_seconds"),
    )


# -- regulations: byes, withdrawals, absences, play-off ----------------------------------------


def _bye(call: Call, *, cancel: bool) -> dict[str, Any]:
    section, rnd = call.field("section", str), call.field("round", int)
    player, override = call.field("player", int), call.optional("override", bool) or False
    act = call.desk.cancel_bye if cancel else call.desk.request_bye
    event = act(section, rnd, player, call.by, override=override)
    done = {"section": event.section, "round": rnd, "player": player}
    return {"cancelled" if cancel else "granted": done, "override": event.override}


@action("/api/v1/arbiter/bye-requests")
def bye_request_route(call: Call) -> dict[str, Any]:
    """A bye through the section's policy: 200 granted, 422 refused with the regulation's
    reason; `"override": true` grants anyway (journaled and flagged with an alert)."""
    return _bye(call, cancel=False)


@action("/api/v1/arbiter/bye-cancellations")
def bye_cancel_route(call: Call) -> dict[str, Any]:
    """Cancel a granted bye: until the request deadline, later only with `override`."""
    return _bye(call, cancel=True)


@action("/api/v1/arbiter/withdrawals")
def withdraw_route(call: Call) -> dict[str, Any]:
    """Withdraw (eliminate) a player; round robin: their later games follow the config."""
    section, player = call.field("section", str), call.field("player", int)
    start = call.optional_int("from_round")
    reason = call.optional("reason", str) or ""
    event = call.desk.withdraw(section, player, call.by, from_round=start, reason=reason)
    return {
        "withdrawn": {
            "section": event.section,
            "player": player,
            "from_round": event.from_round,
            "reason": event.reason,
        }
    }


@action("/api/v1/arbiter/continuations")
def continuation_route(call: Call) -> dict[str, Any]:
    """The player's written request to go on after an absence (before the next pairing)."""
    section, rnd = call.field("section", str), call.field("round", int)
    player = call.field("player", int)
    call.desk.continue_after_absence(section, rnd, player, call.by)
    return {"continues": {"section": section, "round": rnd, "player": player}}


@action("/api/v1/arbiter/prizes/withheld")
def withhold_prize_route(call: Call) -> dict[str, Any]:
    """Withhold a player's prize with the reason (it passes to the next eligible player)."""
    section, player = call.field("section", str), call.field("player", int)
    event = call.desk.withhold_prize(section, player, call.by, call.field("reason", str))
    return {"withheld": {"section": event.section, "player": player, "reason": event.reason}}


@action("/api/v1/arbiter/prizes/restored")
def restore_prize_route(call: Call) -> dict[str, Any]:
    """Give back a withheld prize (the arbiter's or an elimination's)."""
    section, player = call.field("section", str), call.field("player", int)
    reason = call.optional("reason", str) or ""
    event = call.desk.restore_prize(section, player, call.by, reason)
    return {"restored": {"section": event.section, "player": player, "reason": event.reason}}


# -- who plays: late entries and replacements ------------------------------------------------


def _newcomer_fields(call: Call) -> dict[str, object]:
    """The newcomer's particulars as sent, typed as the API describes them (400
    otherwise); the action checks their values (422 with what is wrong)."""
    return {
        k: call.field(k, int if k == "rating" else str) for k in NEWCOMER_FIELDS if k in call.data
    }


def _missed_points(call: Call) -> float | None:
    value = call.data.get("missed_round_points")
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or value not in (0, 0.5):
        raise http_error(
            web.HTTPBadRequest,
            "missed_round_points must be 0 or 0.5 (points for each round a late entry missed)",
        )
    return float(value)


@action("/api/v1/arbiter/late-entries")
def late_entry_route(call: Call) -> dict[str, Any]:
    """A late entry in a Swiss: the next free starting number, paired from `from_round`
    (default: the next round not paired); the particulars, or `config_player` (a player
    added to the config after the start). A round robin refuses (422)."""
    section = call.field("section", str)
    event = call.desk.enter_late(
        section,
        _newcomer_fields(call),
        call.by,
        config_player=call.optional_int("config_player"),
        from_round=call.optional_int("from_round"),
        missed_points=_missed_points(call),
    )
    return {
        "entered": {
            "section": event.section,
            "player": event.player.number,
            "name": event.player.name,
            "from_round": event.from_round,
            "missed_round_points": event.missed_points,
            "start_points": event.missed_points * (event.from_round - 1),
        }
    }


@action("/api/v1/arbiter/replacements")
def replacement_route(call: Call) -> dict[str, Any]:
    """Another participant takes player `player`'s place in the pairings not yet played
    (Sestao art. 6); `override` (the arbiter's reason) for a withdrawn player who played."""
    section, player = call.field("section", str), call.field("player", int)
    event = call.desk.replace_player(
        section,
        player,
        _newcomer_fields(call),
        call.by,
        override=call.optional("override", str) or "",
        missed_points=_missed_points(call),
    )
    return {
        "replaced": {
            "section": event.section,
            "player": event.player,
            "name": event.original.name,
            "newcomer": {"player": event.newcomer.number, "name": event.newcomer.name},
            "from_round": event.from_round,
            "override": event.override,
        }
    }


@action("/api/v1/arbiter/playoff-games")
def playoff_route(call: Call) -> dict[str, Any]:
    """Pair the next play-off game for first place (its kind follows the play-off)."""
    section = call.field("section", str)
    white, black = call.field("white", int), call.field("black", int)
    board = call.optional_int("board") or 1
    event = call.desk.pair_playoff_game(section, white, black, call.by, board=board)
    rounds = call.service.config.section(event.section).rounds
    game = GameKey(event.section, event.number + rounds, event.board)
    return {
        "number": event.number,
        "kind": event.kind,
        "game": game.id,
        "white": white,
        "black": black,
    }


# -- reading and pairing ---------------------------------------------------------------------


@routes.get("/api/v1/arbiter/boards")
async def boards_route(request: web.Request) -> web.Response:
    service = service_of(request)
    return json_response(
        [
            json_views.desk_board_json(b, service.book)
            for b in sorted(service.hall.values(), key=lambda b: b.number)
        ]
    )


@routes.get("/api/v1/arbiter/alerts")
async def alerts_route(request: web.Request) -> web.Response:
    book = service_of(request).book
    return json_response(json_views.alerts_json(request.app[DESK].alerts(), book))


@routes.get("/api/v1/arbiter/games/{game}")
async def live_game_route(request: web.Request) -> web.Response:
    return _live_game(request, request.match_info["game"])


def _pairing_source(request: web.Request, data: dict[str, Any]) -> PairingSource | web.Response:
    """Where the round's pairings come from, or the 400 that says what to send."""
    if "trf" in data:
        override = _field(data, "override", bool) if "override" in data else False
        return FromTrf(_field(data, "trf", str), override=override)
    if "pairs" in data:
        pairs = _field(data, "pairs", list)
        if not all(
            isinstance(p, list)
            and len(p) == 2
            and all(isinstance(x, int) and not isinstance(x, bool) for x in p)
            for p in pairs
        ):
            return error(
                400, "pairs must be a list of [white, black] starting numbers (0 for the bye)"
            )
        return ByHand(tuple((w, b) for w, b in pairs))
    if data.get("engine") == "dutch":
        return Dutch(request.app[PAIRER])
    return error(400, 'give "trf" (the pairing program\'s file), "pairs", or "engine": "dutch"')


@routes.post("/api/v1/arbiter/sections/{section}/rounds/{round}/pairings")
async def pairings_route(request: web.Request) -> web.Response:
    """Pair a round: import it from the pairing program's TRF, pair it with FIDE Dutch, or
    set it by hand (`pairs`: [white, black] with 0 for the bye). A paired round is edited."""
    service = service_of(request)
    data = await _body(request)
    wanted = request.match_info["section"]
    number = round_of(request)
    section = section_by_name(service.config, wanted)
    if section is None:
        return error(404, f"no section {wanted!r}")
    source = _pairing_source(request, data)
    if isinstance(source, web.Response):
        return source
    try:
        pairings = await pair_round(service, section.name, number, source, acting(request))
    except PairingBusy as exc:
        return error(409, str(exc))
    except ActionError as exc:
        return error(422, str(exc))
    return json_response(
        {
            "section": section.name,
            "round": number,
            "source": source.kind,
            "pairings": [
                {"board": p.board, "white": p.white, "black": p.black or 0} for p in pairings
            ],
        }
    )
