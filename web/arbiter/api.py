"""The arbiter JSON API (/api/v1/arbiter/...): boards, alerts, live games and actions.

Every action route is the same few steps: the game in the path (404 when there is none),
the JSON body and its typed fields (400), the command they make, the door (422 with the
refusal's message; 409 with what the action would remove, until it is confirmed), and
the answer (the game as it is now, or what was done) with the action's record number,
which `POST /api/v1/arbiter/actions/N/undo` takes back. `action(...)`
(`web.arbiter.calls`) writes those steps once; a route gives only its command and its
answer. The guard has checked the session and its `X-CSRF-Token`, or HTTP Basic.

An action that removes something (moves, a result, pairings, a player's participation,
a game's board, a prize) answers 409 `{"error", "confirm": {"summary", "removes",
"notes", "token"}}`; sent again with `"confirm": "<token>"` (or `?confirm=<token>` on a
bare POST) it is done, as long as the words still hold; `"confirm": true` confirms
whatever it removes (for scripts).
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

from broadcast.actions import (
    Acknowledge,
    AssignBoard,
    CancelBye,
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
from broadcast.actions.late_entries import particulars
from broadcast.actions.scoresheet import EnterScoresheet
from broadcast.games.game_events import BoardReplaced
from broadcast.games.ids import GameKey
from broadcast.games.squares import differing_squares
from broadcast.service.event_service import ActionError
from broadcast.service.pairing_worker import PairingBusy
from broadcast.tournament.newcomer import NEWCOMER_FIELDS
from broadcast.tournament.tournament_events import (
    ByeCancelled,
    ByeGranted,
    PlayerEntered,
    PlayerReinstated,
    PlayerReplaced,
    PlayerWithdrawn,
    PlayoffGamePaired,
    PrizeRestored,
    PrizeWithheld,
)
from web import json_views
from web.arbiter.actions import DESK, ByHand, Dutch, FromTrf, PairingSource, pairing_command
from web.arbiter.calls import (
    Actions,
    Call,
    action_json,
    body_field,
    confirmation_needed,
    live_game,
    request_body,
)
from web.arbiter.guard import acting
from web.http_json import error, http_error, json_response, round_of
from web.keys import service_of
from web.sections import section_by_name

__all__ = ["action", "routes"]

routes = web.RouteTableDef()


action = Actions(routes)


@action("/api/v1/arbiter/games/{game}/result", game=True)
def result_route(call: Call) -> None:
    result = call.field("result", str)
    reason = call.optional("reason", str)
    call.act(SetResult(call.game, result, reason))


@action("/api/v1/arbiter/games/{game}/confirm", game=True, body=False)
def confirm_route(call: Call) -> None:
    call.act(ConfirmProposal(call.game))


@action("/api/v1/arbiter/games/{game}/reject", game=True, body=False)
def reject_route(call: Call) -> None:
    """Asks first (409): a rejected flag fall is a right result lost."""
    call.act(RejectProposal(call.game))


@action("/api/v1/arbiter/games/{game}/line", game=True)
def line_route(call: Call) -> None:
    """The whole line, as on the scoresheet (an empty one on a game with moves: 422)."""
    moves = call.field("moves", list)
    if not all(isinstance(m, str) for m in moves):
        raise http_error(
            web.HTTPBadRequest,
            'moves must be a list of moves like ["e2e4", "e7e5"] or ["e4", "e5"]',
        )
    call.act(CorrectLine(call.game, tuple(moves)))


@action("/api/v1/arbiter/games/{game}/scoresheet", game=True)
def scoresheet_route(call: Call) -> None:
    """The moves of the game's scoresheet, as PGN or SAN text; the result stays (an
    illegal move: 422 naming it; replacing moves asks first)."""
    call.act(EnterScoresheet(call.game, call.field("text", str)))


@action("/api/v1/arbiter/games/{game}/takeback", game=True)
def takeback_route(call: Call) -> None:
    """The last `plies` plies go (default 1)."""
    plies = call.optional_int("plies")
    call.act(TakeBack(call.game, 1 if plies is None else plies))


@action("/api/v1/arbiter/games/{game}/move", game=True)
def move_route(call: Call) -> None:
    """Ply `ply` becomes `move` (SAN or UCI); the later plies stay while legal."""
    call.act(ReplaceMove(call.game, call.field("ply", int), call.field("move", str)))


@action("/api/v1/arbiter/games/{game}/start-fen", game=True)
def start_fen_route(call: Call) -> None:
    """A game with moves takes a start position only `on_purpose` (Chess960, adjourned)."""
    call.act(SetStartPosition(call.game, call.field("fen", str), call.flag("on_purpose")))


@action("/api/v1/arbiter/games/{game}/present", game=True)
def present_route(call: Call) -> None:
    """`colour`: white, black or both (a hall walk's one tap for a table)."""
    call.act(MarkPresent(call.game, call.field("colour", str)))


@action("/api/v1/arbiter/games/{game}/absent", game=True)
def absent_route(call: Call) -> None:
    """Not at the table (a hall walk): `colour` white, black or both. Replacing a present
    mark asks first (409); the forfeit follows at the default time."""
    call.act(MarkAbsent(call.game, call.field("colour", str)))


@action("/api/v1/arbiter/alerts/{alert}/ack", body=False)
def ack_route(call: Call) -> dict[str, Any]:
    alert_id = call.request.match_info["alert"]
    if not call.desk.health.acknowledge(alert_id):  # a system alert: not journaled
        call.act(Acknowledge(alert_id))
    return {"acknowledged": alert_id}


@action("/api/v1/arbiter/byes")
def bye_route(call: Call) -> dict[str, Any]:
    """The older bye route: a request through the policy without override (as
    /api/v1/arbiter/bye-requests; refused: 422 with the regulation's reason)."""
    section, rnd = call.section(), call.field("round", int)
    player = call.player(section)
    call.act(RequestBye(section, rnd, player))
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
    """The game whose White is `white` plays on board `board` from now on: with its
    moves, clocks and alerts (a spare takes over); a board whose game is in play only
    with `swap` (the two games exchange boards). `white_seconds`/`black_seconds`: times
    for a spare without a clock."""
    section, rnd = call.section(), call.field("round", int)
    white, board = call.player(section, "white"), call.field("board", int)
    done = call.act(
        AssignBoard(
            section,
            rnd,
            white,
            board,
            swap=call.flag("swap"),
            white_seconds=_seconds(call, "white_seconds"),
            black_seconds=_seconds(call, "black_seconds"),
        )
    )
    moves = [e for e in done.plan.events if isinstance(e, BoardReplaced)]
    assigned = {"section": section, "round": rnd, "white": white, "board": board}
    return {"assigned": assigned, "moved": _replaced(call, moves)}


@action("/api/v1/arbiter/games/{game}/replace-board", game=True)
def replace_board_route(call: Call) -> None:
    """The game moves to a spare: hall board `board`, or the hall board where the DGT
    board `serial` is connected; a board whose game is in play only with `swap`. The
    answer is the game (`hall_board`, `must_show`, `differs`), as for the other game
    actions."""
    call.act(
        ReplaceBoard(
            call.game,
            call.optional_int("board"),
            serial=call.optional("serial", str),
            swap=call.flag("swap"),
            white_seconds=_seconds(call, "white_seconds"),
            black_seconds=_seconds(call, "black_seconds"),
        )
    )


# -- regulations: byes, withdrawals, absences, play-off ----------------------------------------


def _event(done: Done, kind: type) -> Any:
    return next(e for e in done.plan.events if isinstance(e, kind))


def _bye(call: Call, *, cancel: bool) -> dict[str, Any]:
    section, rnd = call.section(), call.field("round", int)
    player, override = call.player(section), call.flag("override")
    command = (CancelBye if cancel else RequestBye)(section, rnd, player, override)
    done = call.act(command)
    granted = [e for e in done.plan.events if isinstance(e, ByeGranted | ByeCancelled)]
    flagged = granted[-1].override if granted else ""
    return {
        "cancelled" if cancel else "granted": {"section": section, "round": rnd, "player": player},
        "override": flagged,
    }


@action("/api/v1/arbiter/bye-requests")
def bye_request_route(call: Call) -> dict[str, Any]:
    """A bye through the section's policy: 200 granted, 422 refused with the regulation's
    reason; `"override": true` grants anyway (journaled and flagged with an alert)."""
    return _bye(call, cancel=False)


@action("/api/v1/arbiter/bye-cancellations")
def bye_cancel_route(call: Call) -> dict[str, Any]:
    """Cancel a granted bye: until the request deadline, later only with `override`.
    Asks first (409)."""
    return _bye(call, cancel=True)


@action("/api/v1/arbiter/withdrawals")
def withdraw_route(call: Call) -> dict[str, Any]:
    """Withdraw (eliminate) a player; their games not yet played follow the config.
    Asks first (409), with what happens to their games."""
    section, player = call.section(), call.player(call.section())
    start = call.optional_int("from_round")
    reason = call.optional("reason", str) or ""
    event = _event(call.act(Withdraw(section, player, start, reason)), PlayerWithdrawn)
    return {
        "withdrawn": {
            "section": event.section,
            "player": player,
            "from_round": event.from_round,
            "reason": event.reason,
        }
    }


@action("/api/v1/arbiter/reinstatements")
def reinstate_route(call: Call) -> dict[str, Any]:
    """A withdrawn player is in again; the forfeits their withdrawal entered (and nobody
    changed since) are taken back (409 lists them first)."""
    section, player = call.section(), call.player(call.section())
    reason = call.optional("reason", str) or ""
    event = _event(call.act(Reinstate(section, player, reason)), PlayerReinstated)
    return {"reinstated": {"section": event.section, "player": player, "reason": event.reason}}


@action("/api/v1/arbiter/continuations")
def continuation_route(call: Call) -> dict[str, Any]:
    """The player's written request to go on after an absence (before the next pairing)."""
    section, rnd = call.section(), call.field("round", int)
    player = call.player(section)
    call.act(ContinueAfterAbsence(section, rnd, player))
    return {"continues": {"section": section, "round": rnd, "player": player}}


@action("/api/v1/arbiter/prizes/withheld")
def withhold_prize_route(call: Call) -> dict[str, Any]:
    """Withhold a player's prize with the reason (it passes to the next eligible
    player). Asks first (409)."""
    section = call.section()
    player = call.player(section)
    done = call.act(WithholdPrize(section, player, call.field("reason", str)))
    event = _event(done, PrizeWithheld)
    return {"withheld": {"section": event.section, "player": player, "reason": event.reason}}


@action("/api/v1/arbiter/prizes/restored")
def restore_prize_route(call: Call) -> dict[str, Any]:
    """Give back a withheld prize (the arbiter's or an elimination's)."""
    section = call.section()
    player = call.player(section)
    reason = call.optional("reason", str) or ""
    event = _event(call.act(RestorePrize(section, player, reason)), PrizeRestored)
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
    section = call.section()
    done = call.act(
        LateEntry(
            section,
            particulars(_newcomer_fields(call)),
            config_player=call.optional_int("config_player"),
            from_round=call.optional_int("from_round"),
            missed_points=_missed_points(call),
        )
    )
    event = _event(done, PlayerEntered)
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
    (Sestao art. 6); `override` (the arbiter's reason) for a withdrawn player who played.
    Asks first (409)."""
    section = call.section()
    player = call.player(section)
    done = call.act(
        ReplacePlayer(
            section,
            player,
            particulars(_newcomer_fields(call)),
            override=call.optional("override", str) or "",
            missed_points=_missed_points(call),
        )
    )
    event = _event(done, PlayerReplaced)
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
    section = call.section()
    white, black = call.player(section, "white"), call.player(section, "black")
    board = call.optional_int("board") or 1
    event = _event(call.act(PairPlayoffGame(section, white, black, board)), PlayoffGamePaired)
    rounds = call.service.config.section(event.section).rounds
    game = GameKey(event.section, event.number + rounds, event.board)
    return {
        "number": event.number,
        "kind": event.kind,
        "game": game.id,
        "white": white,
        "black": black,
    }


@action("/api/v1/arbiter/sections/{section}/rounds/{round}/release", body=False)
def release_route(call: Call) -> dict[str, Any]:
    """Show a round's pairings to the public now, before the results they follow from are
    public (409 names the results it reveals, until confirmed; it cannot be undone)."""
    section = call.desk.section(call.request.match_info["section"])
    number = round_of(call.request)
    call.act(ReleasePairings(section, number))
    return {"section": section, "round": number, "released": True}


@routes.get("/api/v1/arbiter/held")
async def held_route(request: web.Request) -> web.Response:
    """The news the public does not see yet because it follows from results the broadcast
    delay still hides, each with those results and when it becomes public."""
    service = service_of(request)
    return json_response(
        [
            {
                "section": item.section,
                "kind": item.kind,
                "round": item.round,
                "player": item.player or None,
                "hidden_results": [
                    {
                        "round": g.round,
                        "board": g.board,
                        "white": g.white,
                        "black": g.black,
                        "playoff": g.playoff or None,
                    }
                    for g in item.grounds
                ],
                "public_at": when,
            }
            for item, when in service.held_news()
        ]
    )


# -- the actions so far, and undo ------------------------------------------------------------


@routes.get("/api/v1/arbiter/actions")
async def actions_route(request: web.Request) -> web.Response:
    """The newest actions first (`?limit=`, default 50): each with its number, words, who
    did it and what undid it (`undone_by`, 0: in force)."""
    text = request.query.get("limit", "50")
    if not (text.isascii() and text.isdigit()) or not 1 <= int(text) <= 1000:
        return error(400, "limit must be a number from 1 to 1000")
    return json_response(request.app[DESK].recent(int(text)))


@action("/api/v1/arbiter/actions/{seq}/undo", body=False)
def undo_route(call: Call) -> dict[str, Any]:
    """Take back action `seq` (409 with what goes and what comes back, until confirmed)."""
    text = call.request.match_info["seq"]
    if not (text.isascii() and text.isdigit() and len(text) <= 12):
        raise http_error(web.HTTPBadRequest, f"an action is named by its number, not {text[:20]!r}")
    call.act(Undo(int(text)))
    return {"undone": int(text)}


# -- reading and pairing ---------------------------------------------------------------------


@routes.get("/api/v1/arbiter/boards")
async def boards_route(request: web.Request) -> web.Response:
    service = service_of(request)
    return json_response(
        [
            json_views.desk_board_json(b, service.book, service.config)
            for b in sorted(service.hall.values(), key=lambda b: b.number)
        ]
    )


@routes.get("/api/v1/arbiter/alerts")
async def alerts_route(request: web.Request) -> web.Response:
    service = service_of(request)
    alerts = request.app[DESK].alerts()
    return json_response(json_views.alerts_json(alerts, service.book, service.config))


@routes.get("/api/v1/arbiter/games/{game}")
async def live_game_route(request: web.Request) -> web.Response:
    game = live_game(request, request.match_info["game"])
    if game is None:
        return error(404, f"no game {request.match_info['game'][:80]!r}")
    return json_response(game)


def _pairing_source(request: web.Request, data: dict[str, Any]) -> PairingSource | web.Response:
    """Where the round's pairings come from, or the 400 that says what to send."""
    override = body_field(data, "override", bool) if "override" in data else False
    if "trf" in data:
        return FromTrf(body_field(data, "trf", str), override=override)
    if "pairs" in data:
        pairs = body_field(data, "pairs", list)
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
        return Dutch(override=override)
    return error(400, 'give "trf" (the pairing program\'s file), "pairs", or "engine": "dutch"')


@routes.post("/api/v1/arbiter/sections/{section}/rounds/{round}/pairings")
async def pairings_route(request: web.Request) -> web.Response:
    """Pair a round: import it from the pairing program's TRF (`override`: accept its byes
    as they are), pair it with FIDE Dutch (`override`: while results before it are
    missing), or set it by hand (`pairs`: [white, black] with 0 for the bye). A round
    already paired is replaced only once confirmed: 409 lists the difference and what it
    drops (games with moves or results), send it again with `"confirm": "<token>"`."""
    service = service_of(request)
    data = await request_body(request)
    wanted = request.match_info["section"]
    number = round_of(request)
    section = section_by_name(service.config, wanted)
    if section is None:
        return error(404, f"no section {wanted!r}")
    source = _pairing_source(request, data)
    if isinstance(source, web.Response):
        return source
    call = Call(request, data, "", request.app[DESK], acting(request))
    try:
        command = await pairing_command(service, section.name, number, source)
        done = call.act(command)
    except PairingBusy as exc:
        return error(409, str(exc))
    except ConfirmationNeeded as exc:
        raise confirmation_needed(exc) from None
    except ActionError as exc:
        return error(422, str(exc))
    return json_response(
        {
            "section": section.name,
            "round": number,
            "source": source.kind,
            "pairings": [
                {"board": p.board, "white": p.white, "black": p.black or 0}
                for p in service.tournament.section(section.name).rounds[number].pairings
            ],
            "action": action_json(done),
        }
    )
