"""JSON views of the event: plain dicts built from immutable state. Pure.

What the JSON API, the websocket hub and the pages' templates are made of (the journal's
encoding, exact and round-tripping, is `broadcast.journal.codec`'s: another shape for
another job). Public routes pass the delayed state, arbiter routes the live one; the
functions do not know which, so the same shape serves both.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from broadcast.arbiter.alerts import Alert
from broadcast.config.model import EventConfig, SectionConfig
from broadcast.config.tables import board_table, table_of
from broadcast.fide.results import REASON_TEXT, Result
from broadcast.games.book import GameBook
from broadcast.games.game_state import GameState, PlayerRef
from broadcast.games.ids import GameKey, slug
from broadcast.games.squares import differing_squares
from broadcast.service.event_service import HallBoard
from broadcast.tournament.final_standings import section_prizes, section_standings
from broadcast.tournament.tournament_state import TournamentState
from web.alert_titles import alert_title, by_urgency
from web.game_teams import game_teams
from web.i18n import DEFAULT, gettext_of, languages
from web.public_source import PublicSource
from web.words import said

__all__ = [
    "RESULT_TEXT",
    "alert_json",
    "alerts_json",
    "arbiter_game_json",
    "board_json",
    "crosstable_json",
    "desk_board_json",
    "event_json",
    "game_json",
    "game_summary",
    "game_table",
    "live_json",
    "pairings_json",
    "player_json",
    "playoff_json",
    "prizes_json",
    "proposal_json",
    "reason_text",
    "result_json",
    "round_exists",
    "round_json",
    "section_json",
    "speed_of",
    "standings_json",
    "waiting_json",
]


def player_json(p: PlayerRef | None) -> dict[str, Any] | None:
    if p is None:
        return None
    return {
        "start": p.start,
        "name": p.name,
        "rating": p.rating or None,
        "title": p.title or None,
        "federation": p.federation or None,
        "fide_id": p.fide_id or None,
    }


def reason_text(reason: str | None, result: str | None = None) -> str | None:
    """The short human words for a result reason ("time forfeit", "kings signal")."""
    if reason is None:
        return None
    if reason == "flag-fall" and result == "1/2-1/2":
        return "flag fall, no mating material"  # the opponent could not have mated
    return REASON_TEXT.get(reason, reason.replace("-", " "))


def result_json(game: GameState) -> dict[str, Any]:
    """The public result contract: `result` as in PGN ("*" while open; "0-0" for a double
    forfeit), `result_reason`, `flag` (whose flag fell), and `pending_result` (proposed,
    not confirmed yet). Built from whatever state is passed: the delayed one for the public."""
    proposal = game.proposal if game.result is None else None
    return {
        "result": "*" if game.result is None else Result(game.result).pgn_tag,
        "result_reason": reason_text(game.result_reason, game.result),
        "flag": game.flag,
        "pending_result": None
        if proposal is None
        else {
            "result": proposal.result,  # a forfeit as a forfeit: "+/-", not "1-0"
            "reason": reason_text(proposal.reason, proposal.result),
        },
    }


def proposal_json(game: GameState) -> dict[str, Any] | None:
    """For the arbiter: the proposal waiting for a word, in the broadcast notation."""
    p = game.proposal if game.result is None else None
    if p is None:
        return None
    return {"result": p.result, "reason": p.reason, "detail": p.detail or None, "t": p.t}


def game_table(game: GameState, event: EventConfig | None) -> int:
    """The hall table of a game (`broadcast.config.tables`); without the event's config,
    its pairing board (a single section's tables are its boards)."""
    key = game.key
    return key.board if event is None else table_of(event, key.section, key.board)


def game_summary(game: GameState, event: EventConfig | None = None) -> dict[str, Any]:
    """A game at a glance: `board` is its pairing board in its section, `table` the hall's
    table it is played on (one number across sections)."""
    last = game.moves[-1] if game.moves else None
    return {
        "id": game.id,
        "section": game.key.section,
        "round": game.key.round,
        "board": game.key.board,
        "table": game_table(game, event),
        "white": player_json(game.white),
        "black": player_json(game.black),
        **result_json(game),
        "ply": game.ply,
        "fen": game.fen,
        "last_move": None if last is None else {"san": last.san, "uci": last.uci},
        "clock": {"white": game.white_clock, "black": game.black_clock, "running": game.running},
        "in_sync": game.in_sync,
        **game_teams(event, game.key, *(p.start if p else None for p in (game.white, game.black))),
    }


def game_json(game: GameState, event: EventConfig | None = None) -> dict[str, Any]:
    out = game_summary(game, event)
    out["start_fen"] = game.start_fen
    out["moves"] = [
        {
            "ply": i,
            "san": m.san,
            "uci": m.uci,
            "fen": m.fen_after,
            "clock": m.remaining,
            "emt": m.spent,
            "software_clock": m.software_clock,
        }
        for i, m in enumerate(game.moves, 1)
    ]
    return out


def arbiter_game_json(game: GameState, event: EventConfig | None = None) -> dict[str, Any]:
    """The live game for the arbiter: the public shape plus the proposal in the broadcast
    notation (+/- etc.) with its reason code and detail, and the raw result code."""
    out = game_json(game, event)
    out["proposal"] = proposal_json(game)
    out["result_code"] = game.result
    out["hall_board"] = game.hall_board
    out["awaiting_board"] = game.awaiting_board
    out["awaiting_correction"] = game.awaiting_correction  # the wait is for a correction
    # What the board must show before the game goes on there, and where it differs now.
    out["must_show"] = game.fen
    out["differs"] = list(differing_squares(game.fen, game.board_fen))
    return out


def section_json(
    section: SectionConfig, tournament: TournamentState, live_round: int | None
) -> dict[str, Any]:
    state = tournament.section(section.name)
    return {
        "name": section.name,
        "slug": slug(section.name),
        "system": section.system,
        "rounds": section.rounds,
        "paired_rounds": sorted(state.rounds),
        "live_round": live_round,
        "time_control": str(section.time_control),
        "tiebreaks": list(section.tiebreaks),
        "schedule": [{"round": s.round, "start": s.start.isoformat()} for s in section.schedule],
    }


def event_json(
    config: EventConfig,
    tournament: TournamentState,
    live: dict[str, int | None],
    *,
    delay: float,
) -> dict[str, Any]:
    """The event's summary. `delay`: the broadcast delay in force (`serve --delay`
    overrides the config's), which is what spectators need to know."""
    return {
        "name": config.name,
        "site": config.site,
        "timezone": config.timezone,
        "broadcast_delay_seconds": int(delay) if float(delay).is_integer() else delay,
        "sections": [section_json(s, tournament, live.get(s.name)) for s in config.sections],
    }


def standings_json(
    config: EventConfig, tournament: TournamentState, section: SectionConfig
) -> list[dict[str, object]]:
    # As the regulations rank: a tie for first a play-off decides stays undecided until
    # then; withdrawn or disqualified players carry a note.
    standings = section_standings(tournament.section(section.name), config.tiebreak_edition)
    return standings.as_json()


def prizes_json(
    config: EventConfig, tournament: TournamentState, section: SectionConfig
) -> dict[str, object] | None:
    """The section's prize list from its standings ([section.prizes]), or None."""
    prizes = section_prizes(tournament.section(section.name), config.tiebreak_edition)
    return prizes.as_json() if prizes is not None else None


def round_exists(tournament: TournamentState, section: SectionConfig, number: int) -> bool:
    """A paired round, or the round of a paired play-off game (after the last round)."""
    state = tournament.section(section.name)
    return number in state.rounds or number - section.rounds in state.playoff


def playoff_json(tournament: TournamentState, section: SectionConfig) -> list[dict[str, Any]]:
    """The play-off games for first place, in order, with their game ids."""
    state = tournament.section(section.name)
    out: list[dict[str, Any]] = []
    for number, game in sorted(state.playoff.items()):
        white, black = state.players.get(game.white), state.players.get(game.black)
        out.append(
            {
                "number": number,
                "kind": game.kind,
                "game": GameKey(section.name, state.playoff_round(number), game.board).id,
                "white": white.name if white else str(game.white),
                "black": black.name if black else str(game.black),
                "result": game.result,
            }
        )
    return out


def board_json(board: HallBoard, event: EventConfig | None = None) -> dict[str, Any]:
    """A hall board: `number` names the e-board, `table` where it stands."""
    config = board.config
    return {
        "number": board.number,
        "table": board_table(event, config) if event is not None else config.table or board.number,
        "port": board.config.port,
        "address": board.config.address,
        "section": board.config.section,
        "serial": board.name,
        "connected": board.connected,
        "battery": board.battery,
        "clock_present": board.clock_present,
        "last_seen": board.last_seen,
        "missed_polls": board.missed_polls,
        "game": board.game,
    }


# -- additions for pages, the hub and the desk ---------------------------------------------------


def round_json(
    book: GameBook, section: str, number: int, event: EventConfig | None = None
) -> dict[str, Any]:
    return {
        "section": section,
        "round": number,
        "games": [game_summary(g, event) for g in book.round_games(section, number)],
    }


RESULT_TEXT = {
    # the recorded (tournament) codes in the game notation, a draw as "½-½"
    **{r.tournament_code: "½-½" if r is Result.DRAW else r.value for r in Result},
    # the bye codes of the pairings: the pairing bye, and a bye worth 1, ½ or 0
    **{"U": "bye", "F": "bye (1)", "H": "bye (½)", "Z": "bye (0)"},
}


def pairings_json(tournament: TournamentState, section: SectionConfig) -> list[dict[str, Any]]:
    """Every paired round of the section: its games with the recorded results (`board`
    in the section, `table` in the hall), then each bye once (the pairing bye, the pairing
    program's, those granted here: no board, no table)."""
    state = tournament.section(section.name)
    out: list[dict[str, Any]] = []
    for number in sorted(state.rounds):
        rnd = state.rounds[number]
        rows: list[dict[str, Any]] = []
        for p in sorted(rnd.pairings, key=lambda p: p.board):
            if p.black is None:
                continue  # the pairing bye: listed with the other byes below
            result = rnd.results.get(p.white)
            rows.append(
                {
                    "board": p.board,
                    "table": table_of(tournament.event, section.name, p.board),
                    "white": _name(state.players, p.white),
                    "black": _name(state.players, p.black),
                    "result": None if result is None else result.result,
                    "bye": False,
                }
            )
        for player, code in state.round_byes(number).items():
            rows.append(
                {
                    "board": 0,
                    "table": None,
                    "white": _name(state.players, player),
                    "black": None,
                    "result": code,
                    "bye": True,
                }
            )
        out.append({"round": number, "pairings": rows})
    return out


def _name(players: Any, number: int) -> dict[str, Any]:
    entry = players.get(number)
    return {
        "start": number,
        "name": entry.name if entry is not None else f"Player {number}",
        "rating": (entry.rating or None) if entry is not None else None,
        "title": (entry.title or None) if entry is not None else None,
        "federation": (entry.federation or None) if entry is not None else None,
    }


def crosstable_json(tournament: TournamentState, section: SectionConfig) -> dict[str, Any] | None:
    """A round robin's crosstable: per player, the score against each opponent (None for a
    Swiss, where a crosstable by opponent is not the customary view)."""
    if section.system == "swiss":
        return None
    state = tournament.section(section.name)
    starts = sorted(state.players)
    cells: dict[int, dict[int, list[str]]] = {s: {} for s in starts}
    for rnd in state.rounds.values():
        for p in rnd.pairings:
            if p.black is None:
                continue
            res = rnd.results.get(p.white)
            if res is None:
                continue
            white, black = _scores(res.result)
            cells.setdefault(p.white, {}).setdefault(p.black, []).append(white)
            cells.setdefault(p.black, {}).setdefault(p.white, []).append(black)
    rows = []
    for s in starts:
        entry = state.players[s]
        rows.append(
            {
                "start": s,
                "name": entry.name,
                "cells": [
                    None if o == s else " ".join(cells.get(s, {}).get(o, [])) or "" for o in starts
                ],
            }
        )
    return {"players": starts, "rows": rows}


def _scores(code: str) -> tuple[str, str]:
    """White's and Black's scores in a crosstable cell: "1", "½", "0"; "+", "-" forfeits."""
    try:
        result = Result.from_tournament(code)
    except ValueError:
        return ("?", "?")

    def score(points: float) -> str:
        if result.is_forfeit:
            return "+" if points else "-"
        return "½" if points == 0.5 else str(int(points))

    return score(result.white_points), score(result.black_points)


def alert_json(
    alert: Alert, book: GameBook | None = None, event: EventConfig | None = None
) -> dict[str, Any]:
    """An alert: its codes for programs, `title` in words for the arbiter (board, players,
    what happened; the players come from `book` when given), in English, and `titles` the
    same in the desk's other languages (by code), so one message serves every desk."""
    return {
        "id": alert.id,
        "title": alert_title(alert, book, event=event),
        "titles": {
            lang: alert_title(alert, book, gettext_of(lang), event=event)
            for lang in languages()
            if lang != DEFAULT
        },
        "kind": alert.kind,
        "severity": alert.severity,
        "section": alert.section,
        "round": alert.round,
        "board": alert.board,
        "table": _alert_table(alert, event),
        "game": alert.game or None,
        "players": list(alert.players),
        "message": alert.message,
        # the message in the desk's other languages, as `titles` (English: `message`)
        "messages": {
            lang: said(alert.phrase, gettext_of(lang), alert.message)
            for lang in languages()
            if lang != DEFAULT
        },
        "t": alert.t,
        "hall_board": alert.hall_board or None,
        "result": alert.result or None,
        "reason": alert.reason or None,
        "reason_text": reason_text(alert.reason or None, alert.result or None),
    }


def _alert_table(alert: Alert, event: EventConfig | None) -> int | None:
    """The table of the game an alert is about (None: about no game)."""
    if not alert.game or alert.board < 1:
        return None
    return alert.board if event is None else table_of(event, alert.section, alert.board)


def alerts_json(
    alerts: tuple[Alert, ...] | list[Alert], book: GameBook, event: EventConfig | None = None
) -> list[dict[str, Any]]:
    """Open alerts for the desk, most urgent first (critical, warning, info), then by time."""
    return [alert_json(a, book, event) for a in by_urgency(alerts, event)]


def live_json(
    book: GameBook, config: EventConfig, live: dict[str, int | None]
) -> list[dict[str, Any]]:
    """The live round of every section at a glance (mini-boards on the home page)."""
    out = []
    for s in config.sections:
        number = live.get(s.name)
        if number is not None:
            out.append(round_json(book, s.name, number, config))
    return out


def desk_board_json(
    board: HallBoard, book: GameBook, event: EventConfig | None = None
) -> dict[str, Any]:
    """A hall board for the arbiter desk: its health and its game's sync state."""
    out = board_json(board, event)
    game = book.games.get(board.game) if board.game else None
    out["in_sync"] = None if game is None else game.in_sync
    out["out_since"] = None if game is None else game.out_since
    out["players"] = (
        None
        if game is None
        else [p.name if p is not None else "?" for p in (game.white, game.black)]
    )
    return out


def waiting_json(
    boards: Iterable[HallBoard], book: GameBook, event: EventConfig | None = None
) -> list[dict[str, Any]]:
    """The games whose hall board must show their position before play goes on there (a
    spare that took a game over, or a board after the arbiter's correction), by hall
    board: the desk's "Spare boards" section, on the page and live on its socket. Each:
    the game and its players, the hall board, why it waits (`why`: "replaced", with the
    board it left, or "corrected"), the FEN to set up (`must_show`), the squares where the
    board shows something else (`differs`) and whether it has shown anything (`shown`)."""
    out: list[dict[str, Any]] = []
    for board in sorted(boards, key=lambda b: b.number):
        game = book.games.get(board.game) if board.game else None
        if game is None or not game.awaiting_board or game.finished:
            continue
        replaced = not game.awaiting_correction and bool(game.board_changes)
        out.append(
            {
                "game": game.id,
                "board": board.number,
                "table": game_table(game, event),  # the game's table (it may stand elsewhere)
                "white": game.white.name if game.white else "?",
                "black": game.black.name if game.black else "?",
                "ply": game.ply,
                "why": "replaced" if replaced else "corrected",
                "from_board": game.board_changes[-1].old_board if replaced else None,
                "must_show": game.fen,
                "differs": list(differing_squares(game.fen, game.board_fen)),
                "shown": game.board_fen is not None,
            }
        )
    return out


def speed_of(service: PublicSource) -> float:
    """How much faster than the wall clock event time runs (1 at a real event; the demo and
    `serve --sim --speed` run faster)."""
    return service.time_source.speed
