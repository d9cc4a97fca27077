"""A spare board takes over a game whose board failed (issue 20), through the service on
the Pamplona example with emulated people at emulated boards: board 1 plays 24 plies and
dies, spare board 4 is set up in that position, the arbiter moves the game there, and the
players go on. The game keeps its id, players, moves and clocks; the spare is followed
from the game's position once it shows it; the left board never touches the game again;
the PGN says where the game changed boards, and nothing else."""

from __future__ import annotations

import heapq
import io
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import chess
import chess.pgn
import pytest

from boards.events import (
    BoardConnected,
    BoardInfo,
    BoardLost,
    ClockSeen,
    DriverEvent,
    PositionSeen,
)
from boards.position import BoardPosition
from boardsim.humans import Habits, board_scans, clock_readings, perform
from broadcast.config.loader import load_event
from broadcast.export.pgn import round_pgn
from broadcast.games.events import BoardReplaced, GameMove
from broadcast.games.squares import differing_squares
from broadcast.journal.store import Journal
from broadcast.service.committer import ActionError
from broadcast.service.event_service import EventService
from clocks.timesource import ManualTime
from service_feed import PAMPLONA, load_games

ROOT = Path(__file__).resolve().parent.parent
GAMES = ROOT / "examples" / "games" / "worldcup2025-sample.pgn"
T0 = 1_800_000_000.0
TICK = 0.5
GAME = "masters-r1-b1"


def start(tmp: Path, time: ManualTime, name: str = "j.sqlite") -> EventService:
    service = EventService(
        load_event(PAMPLONA), Journal(tmp / name), time=time, live_round=1, delay=0
    )
    service.load()
    return service


def port(service: EventService, board: int) -> str:
    return service.hall[board].config.port


def feed(service: EventService, time: ManualTime, events: Iterable[tuple[str, DriverEvent]]) -> None:
    """Driver events in time order, the service ticking every half second between them,
    and 30 s more after the last."""
    queue: list[tuple[float, int, str, Any]] = []
    for n, (where, event) in enumerate(events):
        heapq.heappush(queue, (event.t, n, where, event))
    next_tick = time.now() + TICK
    last = time.now()
    while queue:
        t, _, where, event = heapq.heappop(queue)
        while next_tick <= t:
            time.set(next_tick)
            service.tick()
            next_tick += TICK
        time.set(max(t, time.now()))
        service.on_driver_event(where, event)
        last = max(last, t)
    while next_tick <= last + 30.0:
        time.set(next_tick)
        service.tick()
        next_tick += TICK


def played(
    serial: str,
    where: str,
    moves: Sequence[chess.Move],
    t0: float,
    *,
    start_fen: str = chess.STARTING_FEN,
    seconds: tuple[int, int] = (7200, 7200),
    clock: bool = True,
    seed: int = 1,
    connect: bool = True,
) -> list[tuple[str, DriverEvent]]:
    """What a board reports while people play `moves` on it from `start_fen`."""
    perf = perform(
        moves,
        start_fen=start_fen,
        habits=Habits.none(),
        seed=seed,
        think=[6.0] * len(moves),
        initial_seconds=seconds,
        clock=clock,
    )
    out: list[tuple[str, DriverEvent]] = []
    if connect:
        info = BoardInfo(where, serial, (1, 7), "single", battery_percent=90, clock_present=clock)
        out.append((where, BoardConnected(t0 - 1.0, serial, info)))
    out += [(where, PositionSeen(t0 + t, serial, p)) for t, p in board_scans(perf, seed=seed)]
    if clock:
        readings = clock_readings(perf, increment=30)
        out += [(where, ClockSeen(t0 + t, serial, r)) for t, r in readings]
    return out


def shows(serial: str, where: str, fen: str, t: float) -> tuple[str, DriverEvent]:
    return where, PositionSeen(t, serial, BoardPosition.from_fen(fen))


@pytest.fixture(scope="module")
def game() -> chess.pgn.Game:
    return load_games(GAMES, 1, min_plies=40)[0]


def fen_after(game: chess.pgn.Game, plies: int) -> str:
    board = game.board()
    for move in list(game.mainline_moves())[:plies]:
        board.push(move)
    return board.fen()


def board_one_dies(
    service: EventService, time: ManualTime, game: chess.pgn.Game, plies: int = 24
) -> None:
    """Board 1 (DGT 10001) plays `plies` plies of `game`, then its driver loses it."""
    moves = list(game.mainline_moves())[:plies]
    events = played("10001", port(service, 1), moves, time.now() + 5.0)
    end = max(e.t for _, e in events)
    events.append((port(service, 1), BoardLost(end + 5.0, "10001", "battery")))
    feed(service, time, events)
    assert service.book.get(GAME).ply == plies


def ucis(service: EventService, game_id: str = GAME) -> list[str]:
    return [m.uci for m in service.book.get(game_id).moves]


def test_the_pamplona_scenario_a_spare_takes_over_after_24_plies(
    tmp_path: Path, game: chess.pgn.Game
) -> None:
    time = ManualTime(T0)
    service = start(tmp_path, time)
    before = service.book.get(GAME)
    other = service.book.get("masters-r1-b4")
    board_one_dies(service, time, game)
    moves = list(game.mainline_moves())
    fen24 = fen_after(game, 24)
    # The spare stands in the game's position; the arbiter moves the game there.
    spare = port(service, 4)
    info = BoardInfo(spare, "10004", (1, 7), "single", battery_percent=90, clock_present=True)
    feed(
        service,
        time,
        [(spare, BoardConnected(time.now() + 1, "10004", info)), shows("10004", spare, fen24, time.now() + 2)],
    )
    done = service.replace_board(GAME, 4, "arbiter:test")
    assert done[0] == BoardReplaced(GAME, 1, 4, 24, time.now(), "arbiter:test")
    moved = service.book.get(GAME)
    assert (moved.white, moved.black) == (before.white, before.black)  # the pairing stays
    assert moved.ply == 24 and moved.in_sync and moved.hall_board == 4 and moved.board == "10004"
    assert service.hall[4].game == GAME
    # The game the spare carried takes the failed board, with its players.
    assert service.hall[1].game == "masters-r1-b4"
    assert service.book.get("masters-r1-b4").white == other.white
    # Six more moves (12 square changes) on the spare, with its clock.
    feed(
        service,
        time,
        played(
            "10004", spare, moves[24:30], time.now() + 3, start_fen=fen24, seconds=(6000, 6100), connect=False
        ),
    )
    assert ucis(service) == [m.uci() for m in moves[:30]]
    last = service.book.get(GAME).moves[-1]
    assert last.remaining is not None and not last.software_clock
    assert service.book.get("masters-r1-b4").ply == 0  # nothing leaked to the other game
    # The PGN: one game, one move list, one comment where the game changed boards.
    pgn = round_pgn(service.book, service.config, "Masters", 1, tournament=service.tournament)
    text = pgn[pgn.index(f'[White "{before.white.name if before.white else ""}"]') :]
    parsed = chess.pgn.read_game(io.StringIO(pgn))
    assert parsed is not None
    nodes = list(parsed.mainline())
    assert [n.move.uci() for n in nodes] == [m.uci() for m in moves[:30]]
    assert "board 1 replaced by board 4" in nodes[23].comment
    assert sum("replaced" in n.comment for n in nodes) == 1
    assert text[: text.index("[Event", 1)].count("replaced") == 1
    # The game that took the failed board says so before its first move.
    assert "{board 4 replaced by board 1} *" in text
