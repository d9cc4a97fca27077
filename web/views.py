"""JSON views of the event: plain dicts built from immutable state. Pure.

Public routes pass the delayed state, arbiter routes the live one; the functions do not
know which, so the same shape serves both.
"""

from __future__ import annotations

from typing import Any

from broadcast.config.model import EventConfig, SectionConfig
from broadcast.games.ids import slug
from broadcast.games.state import GameState, PlayerRef
from broadcast.service import HallBoard
from broadcast.tournament.standings import compute_standings
from broadcast.tournament.state import TournamentState


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


def game_summary(game: GameState) -> dict[str, Any]:
    last = game.moves[-1] if game.moves else None
    return {
        "id": game.id,
        "section": game.key.section,
        "round": game.key.round,
        "board": game.key.board,
        "white": player_json(game.white),
        "black": player_json(game.black),
        "result": game.result,
        "ply": game.ply,
        "fen": game.fen,
        "last_move": None if last is None else {"san": last.san, "uci": last.uci},
        "clock": {"white": game.white_clock, "black": game.black_clock, "running": game.running},
        "in_sync": game.in_sync,
    }


def game_json(game: GameState) -> dict[str, Any]:
    out = game_summary(game)
    out["start_fen"] = game.start_fen
    out["result_reason"] = game.result_reason
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
    config: EventConfig, tournament: TournamentState, live: dict[str, int | None]
) -> dict[str, Any]:
    return {
        "name": config.name,
        "site": config.site,
        "timezone": config.timezone,
        "broadcast_delay_seconds": config.broadcast_delay_seconds,
        "sections": [section_json(s, tournament, live.get(s.name)) for s in config.sections],
    }


def standings_json(
    config: EventConfig, tournament: TournamentState, section: SectionConfig
) -> list[dict[str, object]]:
    crosstable = tournament.section(section.name).to_crosstable()
    standings = compute_standings(
        crosstable, list(section.tiebreaks), edition=config.tiebreak_edition
    )
    return standings.as_json()


def board_json(board: HallBoard) -> dict[str, Any]:
    return {
        "number": board.number,
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
