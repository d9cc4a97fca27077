"""The live state as LiveChess's JSON: e-boards, their sources, and the REST resources
(tournaments are the event's sections, by slug; games by boardwire's game id).

Read from the service's live state (never the delayed public one: this API is the
venue's live view). `now` is event time in seconds, passed in.
"""

from __future__ import annotations

from typing import Any

import chess

from broadcast.games.game_state import GameState
from broadcast.games.ids import slug
from broadcast.service.event_service import EventService
from broadcast.service.hall import HallBoard
from web.livechess.feed import BoardView, ClockView, placement

__all__ = [
    "EMPTY",
    "board_view",
    "board_views",
    "eboard_json",
    "game_json",
    "result_word",
    "round_json",
    "sources_json",
    "tournament_json",
    "tournaments_json",
]

EMPTY = "8/8/8/8/8/8/8/8"
RESULT_WORDS = {
    "1-0": "WHITEWIN",
    "0-1": "BLACKWIN",
    "1/2-1/2": "DRAW",
    # LiveChess's clients read these as the named side winning by forfeit
    "+/-": "WHITEFORFAIT",
    "-/+": "BLACKFORFAIT",
}


def result_word(result: str | None) -> str | None:
    """A result as LiveChess says it; None while open (and for a double forfeit, which
    LiveChess has no word for)."""
    return None if result is None else RESULT_WORDS.get(result)


def _clock(game: GameState | None, now: float) -> ClockView | None:
    if game is None or game.white_clock is None or game.black_clock is None:
        return None
    return ClockView(
        game.white_clock,
        game.black_clock,
        game.running is not None,
        # LiveChess's `time` is when the clock showed these times: the reading's own moment.
        int((game.clock_t if game.clock_t is not None else now) * 1000),
    )


def board_view(service: EventService, board: HallBoard, now: float) -> BoardView | None:
    """What a subscriber of `board` is told; None for a board that never connected (it
    has no serial number yet)."""
    name = board.name
    if name is None:
        return None
    follower = board.to_game
    orientation = (follower.reconstructor.orientation if follower is not None else None) or (
        "normal"
    )
    memory = service.state.memory.get(name)
    shown = EMPTY if memory is None else memory.position.board_fen(orientation)
    game = service.book.games.get(board.game) if board.game is not None else None
    start = chess.STARTING_FEN if game is None else game.start_fen
    line = () if game is None else tuple((m.san, placement(m.fen_after)) for m in game.moves)
    return BoardView(name, orientation == "rotated", shown, _clock(game, now), start, line)


def board_views(service: EventService, now: float) -> dict[str, tuple[HallBoard, BoardView]]:
    """Every e-board with a serial number, by it."""
    out: dict[str, tuple[HallBoard, BoardView]] = {}
    for board in service.hall.values():
        view = board_view(service, board, now)
        if view is not None:
            out[view.serialnr] = (board, view)
    return out


def _state(board: HallBoard) -> str:
    if board.connected:
        return "DELAYED" if board.missed_polls > 0 else "ACTIVE"
    return "NOTRESPONDING" if board.last_seen is not None else "INACTIVE"


def _comment(service: EventService, board: HallBoard) -> str:
    game = service.book.games.get(board.game) if board.game is not None else None
    if game is None:
        return f"hall board {board.number}: no game"
    names = " - ".join(p.name if p is not None else "?" for p in (game.white, game.black))
    return f"hall board {board.number}: {game.id} {names}"


def eboard_json(service: EventService, board: HallBoard, view: BoardView) -> dict[str, Any]:
    return {
        "serialnr": view.serialnr,
        "source": board.config.port,
        "state": _state(board),
        "battery": board.battery,
        "comment": _comment(service, board),
        "board": view.board,
        "flipped": view.flipped,
        "clock": None if view.clock is None else view.clock.json(),
    }


def sources_json(service: EventService) -> list[dict[str, Any]]:
    """The ports the boards are on: each with its boards' serial numbers."""
    out: dict[str, dict[str, Any]] = {}
    for board in service.hall.values():
        port = board.config.port
        entry = out.setdefault(port, {"source": port, "bus": False, "serialnrs": []})
        entry["bus"] = entry["bus"] or board.config.address is not None
        if board.name is not None:
            entry["serialnrs"].append(board.name)
    return list(out.values())


# -- REST ---------------------------------------------------------------------------------------


def _ids(service: EventService) -> dict[str, tuple[Any, str]]:
    """Tournament id -> (section, name), as the LiveChess folder names them: one section
    is the event (its slug, its name); several are one tournament each (the section's
    slug, "<event> - <section>")."""
    config = service.config
    if len(config.sections) == 1:
        return {slug(config.name): (config.sections[0], config.name)}
    return {slug(s.name): (s, f"{config.name} - {s.name}") for s in config.sections}


def _section(service: EventService, tid: str) -> Any:
    found = _ids(service).get(tid)
    return None if found is None else found[0]


def tournaments_json(service: EventService) -> list[dict[str, Any]]:
    return [{"id": tid, "name": name} for tid, (_, name) in _ids(service).items()]


def _live(service: EventService, game: GameState) -> bool:
    """Played now on an e-board that follows it."""
    if game.finished:
        return False
    return any(b.game == game.id and b.to_game is not None for b in service.hall.values())


def tournament_json(service: EventService, tid: str) -> dict[str, Any] | None:
    section = _section(service, tid)
    if section is None:
        return None
    rounds = []
    for n in range(1, section.rounds + 1):
        games = service.book.round_games(section.name, n)
        rounds.append({"count": len(games), "live": sum(_live(service, g) for g in games)})
    return {
        "id": tid,
        "name": _ids(service)[tid][1],
        "location": service.config.site,
        "rounds": rounds,
    }


def _player(p: Any) -> dict[str, Any] | None:
    if p is None:
        return None
    last, _, first = p.name.partition(", ")
    return {
        "fname": first or None,
        "lname": last,
        "title": p.title or None,
        "federation": p.federation or None,
        "fideid": int(p.fide_id) if str(p.fide_id).isdigit() else None,
    }


def round_json(service: EventService, tid: str, number: int) -> dict[str, Any] | None:
    section = _section(service, tid)
    if section is None or not 1 <= number <= section.rounds:
        return None
    games = sorted(service.book.round_games(section.name, number), key=lambda g: g.key.board)
    return {
        "pairings": [
            {
                "game": g.id,
                "white": _player(g.white),
                "black": _player(g.black),
                "result": result_word(g.result),
                "live": _live(service, g),
            }
            for g in games
        ]
    }


def _chess960(start: str) -> bool:
    if start == chess.STARTING_FEN:
        return False
    try:
        return chess.Board(start, chess960=True).chess960_pos() is not None
    except ValueError:
        return False


def game_json(service: EventService, game_id: str, now: float) -> dict[str, Any] | None:
    game = service.book.games.get(game_id)
    if game is None:
        return None
    moves = [m.san if m.remaining is None else f"{m.san} {round(m.remaining)}" for m in game.moves]
    clock = _clock(game, now)
    return {
        "id": game.id,
        "start": game.start_fen,
        "moves": moves,
        "clock": None if clock is None else clock.json(),
        "result": result_word(game.result),
        "chess960": _chess960(game.start_fen),
        "live": _live(service, game),
    }
