"""A spare board takes over a game whose board failed (issue 20), through the service on
the Pamplona example with emulated people at emulated boards: board 1 plays 24 plies and
dies, spare board 4 is set up in that position, the arbiter moves the game there, and the
players go on. The game keeps its id, players, moves and clocks; the spare is followed
from the game's position once it shows it; the left board never touches the game again;
the PGN says where the game changed boards, and nothing else."""

from __future__ import annotations

import heapq
import io
from base64 import b64encode
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import chess
import chess.pgn
import pytest
from aiohttp.test_utils import TestClient, TestServer
from hypothesis import given, settings
from hypothesis import strategies as st

from boards.driver_events import (
    BoardConnected,
    BoardInfo,
    BoardLost,
    ClockSeen,
    DriverEvent,
    PositionSeen,
)
from boards.position import BoardPosition
from boards.reconstruction import Reconstructor
from boardsim.humans import Habits, perform
from boardsim.readout import board_scans, clock_readings
from broadcast.config.loader import load_event
from broadcast.export.pgn import round_pgn
from broadcast.games.from_board import BoardToGame
from broadcast.games.game_events import BoardReplaced, GameMove
from broadcast.games.squares import differing_squares
from broadcast.journal.store import Journal
from broadcast.service.committer import ActionError
from broadcast.service.event_service import EventService
from clocks.timecontrol import parse_time_control
from clocks.timesource import ManualTime
from tests.support import acting
from tests.support.paths import ROOT
from tests.support.service_feed import PAMPLONA, load_games
from tests.support.web_app import CREDENTIALS
from tests.web.test_regulations_pages import _confirmed
from web.app import build_app

GAMES = ROOT / "examples" / "games" / "worldcup2025-sample.pgn"
T0 = 1_800_000_000.0
TICK = 0.5
GAME = "masters-r1-b1"
BASIC = {"Authorization": "Basic " + b64encode(":".join(CREDENTIALS).encode()).decode()}


def start(tmp: Path, time_source: ManualTime, name: str = "j.sqlite") -> EventService:
    service = EventService(
        load_event(PAMPLONA), Journal(tmp / name), time_source=time_source, live_round=1, delay=0
    )
    service.load()
    return service


def port(service: EventService, board: int) -> str:
    return service.hall[board].config.port


def feed(
    service: EventService, time_source: ManualTime, events: Iterable[tuple[str, DriverEvent]]
) -> None:
    """Driver events in time order, the service ticking every half second between them,
    and 30 s more after the last."""
    queue: list[tuple[float, int, str, Any]] = []
    for n, (where, event) in enumerate(events):
        heapq.heappush(queue, (event.t, n, where, event))
    next_tick = time_source.now() + TICK
    last = time_source.now()
    while queue:
        t, _, where, event = heapq.heappop(queue)
        while next_tick <= t:
            time_source.set(next_tick)
            service.tick()
            next_tick += TICK
        time_source.set(max(t, time_source.now()))
        service.on_driver_event(where, event)
        last = max(last, t)
    while next_tick <= last + 30.0:
        time_source.set(next_tick)
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
    service: EventService, time_source: ManualTime, game: chess.pgn.Game, plies: int = 24
) -> None:
    """Board 1 (DGT 10001) plays `plies` plies of `game`, then its driver loses it."""
    moves = list(game.mainline_moves())[:plies]
    events = played("10001", port(service, 1), moves, time_source.now() + 5.0)
    end = max(e.t for _, e in events)
    events.append((port(service, 1), BoardLost(end + 5.0, "10001", "battery")))
    feed(service, time_source, events)
    assert service.book.get(GAME).ply == plies


def ucis(service: EventService, game_id: str = GAME) -> list[str]:
    return [m.uci for m in service.book.get(game_id).moves]


def test_the_pamplona_scenario_a_spare_takes_over_after_24_plies(
    tmp_path: Path, game: chess.pgn.Game
) -> None:
    time_source = ManualTime(T0)
    service = start(tmp_path, time_source)
    before = service.book.get(GAME)
    other = service.book.get("masters-r1-b4")
    board_one_dies(service, time_source, game)
    moves = list(game.mainline_moves())
    fen24 = fen_after(game, 24)
    # The spare stands in the game's position; the arbiter moves the game there.
    spare = port(service, 4)
    info = BoardInfo(spare, "10004", (1, 7), "single", battery_percent=90, clock_present=True)
    feed(
        service,
        time_source,
        [
            (spare, BoardConnected(time_source.now() + 1, "10004", info)),
            shows("10004", spare, fen24, time_source.now() + 2),
        ],
    )
    done = acting.replace_board(service, GAME, 4, "arbiter:test")
    assert done[0] == BoardReplaced(GAME, 1, 4, 24, time_source.now(), "arbiter:test")
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
        time_source,
        played(
            "10004",
            spare,
            moves[24:30],
            time_source.now() + 3,
            start_fen=fen24,
            seconds=(6000, 6100),
            connect=False,
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


def wrong(fen: str) -> str:
    """`fen` with one piece knocked to an empty square: a spare set up wrong."""
    board = chess.Board(fen)
    square = next(s for s in chess.SQUARES if board.piece_type_at(s) == chess.ROOK)
    empty = next(s for s in chess.SQUARES if board.piece_at(s) is None)
    board.set_piece_at(empty, board.remove_piece_at(square))
    return board.fen()


def test_a_spare_set_up_wrong_keeps_the_game_out_of_sync_and_names_the_squares(
    tmp_path: Path, game: chess.pgn.Game
) -> None:
    time_source = ManualTime(T0)
    service = start(tmp_path, time_source)
    board_one_dies(service, time_source, game)
    moves = list(game.mainline_moves())
    fen24, fen23 = fen_after(game, 24), fen_after(game, 23)
    spare = port(service, 4)
    info = BoardInfo(spare, "10004", (1, 7), "single", clock_present=True)
    bad = wrong(fen24)
    feed(
        service,
        time_source,
        [
            (spare, BoardConnected(time_source.now() + 1, "10004", info)),
            shows("10004", spare, bad, time_source.now() + 2),
        ],
    )
    acting.replace_board(service, GAME, 4, "arbiter:test")
    moved = service.book.get(GAME)
    assert not moved.in_sync and moved.awaiting_board
    differ = differing_squares(moved.fen, moved.board_fen)
    assert len(differ) == 2
    feed(service, time_source, [])  # the rules look at it on the next tick
    alert = next(a for a in service.alerts() if a.kind == "out-of-sync" and a.game == GAME)
    assert all(square in alert.message for square in differ) and "board 4" in alert.message
    # One move behind is not a takeback, and a legal move ahead is not a move: the spare
    # is not the game until it shows the game's position.
    feed(service, time_source, [shows("10004", spare, fen23, time_source.now() + 1)])
    later = moves[24]
    board = chess.Board(fen24)
    board.push(later)
    feed(service, time_source, [shows("10004", spare, board.fen(), time_source.now() + 1)])
    assert service.book.get(GAME).ply == 24 and not service.book.get(GAME).in_sync
    # Set up right: in sync, the alert closes, and play goes on from the game's position.
    feed(service, time_source, [shows("10004", spare, fen24, time_source.now() + 1)])
    assert service.book.get(GAME).in_sync and not service.book.get(GAME).awaiting_board
    assert not any(a.kind == "out-of-sync" and a.game == GAME for a in service.alerts())
    feed(
        service,
        time_source,
        played("10004", spare, moves[24:28], time_source.now() + 3, start_fen=fen24, connect=False),
    )
    assert ucis(service) == [m.uci() for m in moves[:28]]


def six_plies_on_a_clockless_spare(
    service: EventService, time_source: ManualTime, game: chess.pgn.Game
) -> list[chess.Move]:
    """Board 1 died: the game moves to board 4, which has no clock (White 3000 s, Black
    3100 s entered), and plies 25-30 are played there. Returns the game's moves."""
    moves = list(game.mainline_moves())
    acting.replace_board(service, GAME, 4, "arbiter:test", white_seconds=3000, black_seconds=3100)
    spare, fen24 = port(service, 4), fen_after(game, 24)
    feed(
        service,
        time_source,
        played("10004", spare, moves[24:30], time_source.now() + 3, start_fen=fen24, clock=False),
    )
    return moves


def test_a_spare_without_a_clock_runs_the_times_the_arbiter_entered(
    tmp_path: Path, game: chess.pgn.Game
) -> None:
    time_source = ManualTime(T0)
    service = start(tmp_path, time_source)
    board_one_dies(service, time_source, game)
    with pytest.raises(ActionError, match="both"):
        acting.replace_board(service, GAME, 4, "arbiter:test", white_seconds=3000)
    moves = six_plies_on_a_clockless_spare(service, time_source, game)
    recorded = service.book.get(GAME).moves
    assert [m.uci for m in recorded] == [m.uci() for m in moves[:30]]
    spare_moves = recorded[24:]
    assert all(m.software_clock and m.remaining is not None for m in spare_moves)
    # White to move at ply 24 had 3000 s; each move took about 6 s, and 30 s come back.
    white = spare_moves[0]
    assert 3000 - 15 + 30 <= (white.remaining or 0) <= 3000 + 30
    black = spare_moves[1]
    assert 3100 - 15 + 30 <= (black.remaining or 0) <= 3100 + 30


def test_a_clockless_spare_keeps_its_software_clock_across_a_restart(
    tmp_path: Path, game: chess.pgn.Game
) -> None:
    """The spare without a clock took the game over and 6 plies were played on it; `serve`
    restarts; the moves after it still get their times from the software clock, going on
    from what each side had left (not from the times entered at the takeover)."""
    time_source = ManualTime(T0)
    service = start(tmp_path, time_source)
    board_one_dies(service, time_source, game)
    moves = six_plies_on_a_clockless_spare(service, time_source, game)
    spare = port(service, 4)
    before = service.book.get(GAME).moves
    assert len(before) == 30 and all(m.software_clock for m in before[24:])
    service.journal.close()
    again = start(tmp_path, time_source)
    feed(
        again,
        time_source,
        played(
            "10004",
            spare,
            moves[30:34],
            time_source.now() + 3,
            start_fen=fen_after(game, 30),
            clock=False,
            connect=False,
        ),
    )
    after = again.book.get(GAME).moves
    assert [m.uci for m in after] == [m.uci() for m in moves[:34]]
    new = after[30:]
    assert all(m.software_clock and m.remaining is not None for m in new), new
    # Each side goes on from its own last time on the spare: a move costs its think time
    # (about 6 s here, with the restart's pause on the first) and brings back 30.
    for mine, last, entered in ((new[0], before[28], 3000), (new[1], before[29], 3100)):
        assert last.remaining is not None and mine.remaining is not None
        assert last.remaining - 60 <= mine.remaining <= last.remaining + 30
        # Not started again from the times entered at the takeover (which would give
        # about entered - 40 + 30 here): the increments earned on the spare are kept.
        assert mine.remaining >= entered + 30
    again.journal.close()


def test_a_board_replacement_survives_a_restart_of_the_service(
    tmp_path: Path, game: chess.pgn.Game
) -> None:
    time_source = ManualTime(T0)
    service = start(tmp_path, time_source)
    board_one_dies(service, time_source, game)
    moves = list(game.mainline_moves())
    fen24 = fen_after(game, 24)
    spare = port(service, 4)
    info = BoardInfo(spare, "10004", (1, 7), "single", clock_present=True)
    feed(
        service,
        time_source,
        [
            (spare, BoardConnected(time_source.now() + 1, "10004", info)),
            shows("10004", spare, wrong(fen24), time_source.now() + 2),
        ],
    )
    acting.replace_board(service, GAME, 4, "arbiter:test")
    service.journal.close()
    # `serve` restarted on the same journal: the game is still waiting on board 4.
    again = start(tmp_path, time_source)
    assert again.hall[4].game == GAME and again.hall[1].game == "masters-r1-b4"
    restored = again.book.get(GAME)
    assert restored.awaiting_board and restored.ply == 24 and restored.hall_board == 4
    feed(again, time_source, [shows("10004", spare, fen24, time_source.now() + 1)])
    assert again.book.get(GAME).in_sync
    feed(
        again,
        time_source,
        played("10004", spare, moves[24:30], time_source.now() + 3, start_fen=fen24, connect=False),
    )
    assert ucis(again) == [m.uci() for m in moves[:30]]
    again.journal.close()
    # And once more, after the spare took over: it goes on being followed there.
    third = start(tmp_path, time_source)
    assert third.hall[4].game == GAME and not third.book.get(GAME).awaiting_board
    feed(
        third,
        time_source,
        played(
            "10004",
            spare,
            moves[30:32],
            time_source.now() + 3,
            start_fen=fen_after(game, 30),
            connect=False,
        ),
    )
    assert ucis(third) == [m.uci() for m in moves[:32]]


def test_the_failed_board_lets_go_of_the_game(tmp_path: Path, game: chess.pgn.Game) -> None:
    time_source = ManualTime(T0)
    service = start(tmp_path, time_source)
    board_one_dies(service, time_source, game)
    moves = list(game.mainline_moves())
    fen24 = fen_after(game, 24)
    acting.replace_board(service, GAME, 4, "arbiter:test")
    spare, old = port(service, 4), port(service, 1)
    feed(
        service,
        time_source,
        played("10004", spare, moves[24:26], time_source.now() + 3, start_fen=fen24),
    )
    # Board 1 is plugged back in, showing where the game was, and someone plays on it.
    feed(
        service,
        time_source,
        played("10001", old, moves[24:28], time_source.now() + 3, start_fen=fen24, seed=5),
    )
    assert ucis(service) == [m.uci() for m in moves[:26]]
    # ... or sets up a new game there: that is the other game's board now, not this one's.
    feed(
        service,
        time_source,
        played("10001", old, moves[:4], time_source.now() + 3, seed=6, connect=False),
    )
    assert ucis(service) == [m.uci() for m in moves[:26]]
    assert service.book.get(GAME).board == "10004"


def test_two_games_swap_boards_at_once(tmp_path: Path) -> None:
    first, second = load_games(GAMES, 2, min_plies=40)
    time_source = ManualTime(T0)
    service = start(tmp_path, time_source)
    one, two = port(service, 1), port(service, 2)
    a, b = list(first.mainline_moves()), list(second.mainline_moves())
    feed(
        service,
        time_source,
        played("10001", one, a[:10], time_source.now() + 5)
        + played("10002", two, b[:12], time_source.now() + 5, seed=2),
    )
    assert service.book.get(GAME).ply == 10 and service.book.get("masters-r1-b2").ply == 12
    done = acting.replace_board(service, GAME, 2, "arbiter:test")
    assert [(d.game, d.old_board, d.new_board) for d in done] == [
        (GAME, 1, 2),
        ("masters-r1-b2", 2, 1),
    ]
    assert not service.book.get(GAME).in_sync and not service.book.get("masters-r1-b2").in_sync
    # Each board is set up with the other game's position, and both games go on.
    fa, fb = fen_after(first, 10), fen_after(second, 12)
    feed(
        service,
        time_source,
        played("10002", two, a[10:14], time_source.now() + 3, start_fen=fa, connect=False, seed=3)
        + played(
            "10001", one, b[12:16], time_source.now() + 3, start_fen=fb, connect=False, seed=4
        ),
    )
    assert ucis(service) == [m.uci() for m in a[:14]]
    assert ucis(service, "masters-r1-b2") == [m.uci() for m in b[:16]]
    assert service.book.get(GAME).board == "10002"


def test_what_cannot_be_replaced_is_refused_with_a_reason(tmp_path: Path) -> None:
    time_source = ManualTime(T0)
    service = start(tmp_path, time_source)
    with pytest.raises(ActionError, match="already"):
        acting.replace_board(service, GAME, 1, "arbiter:test")
    with pytest.raises(ActionError, match="no hall board 9"):
        acting.replace_board(service, GAME, 9, "arbiter:test")
    with pytest.raises(ActionError, match="no game"):
        acting.replace_board(service, "masters-r1-b9", 2, "arbiter:test")
    with pytest.raises(ActionError, match="on no hall board"):
        acting.replace_board(service, "masters-r2-b1", 2, "arbiter:test")
    acting.set_result(service, GAME, "1-0", "arbiter:test")
    with pytest.raises(ActionError, match="finished"):
        acting.replace_board(service, GAME, 2, "arbiter:test")
    assert not any(isinstance(e.event, BoardReplaced) for e in service.journal.read())


@settings(max_examples=200, deadline=None)
@given(text=st.text(max_size=90) | st.sampled_from(["", "8/8/8/8/8/8/8/8", "x" * 64]))
def test_the_squares_that_differ_never_raise_on_anything_shown(text: str) -> None:
    squares = differing_squares(chess.STARTING_FEN, text)
    assert all(square in chess.SQUARE_NAMES for square in squares)
    if text == "8/8/8/8/8/8/8/8":  # an empty board differs on every occupied square
        assert len(squares) == 32


@settings(max_examples=100, deadline=None)
@given(
    codes=st.lists(st.lists(st.integers(0, 255), min_size=64, max_size=64), max_size=6),
    times=st.none() | st.tuples(st.floats(0, 10_000), st.floats(0, 10_000)),
)
def test_a_follower_waiting_for_its_spare_takes_any_position_without_raising(
    codes: list[list[int]], times: tuple[float, float] | None
) -> None:
    reconstructor = Reconstructor(time_control=parse_time_control("7200+30"))
    reconstructor.resume(["e2e4", "e7e5"])
    follower = BoardToGame("10004", GAME, reconstructor, awaiting=True, entered_times=times)
    t = T0
    for shown in [*codes, list(BoardPosition.from_fen(reconstructor.board.fen()).codes)]:
        t += 1.0
        games, _ = follower.handle(PositionSeen(t, "10004", BoardPosition(tuple(shown))))
        assert all(getattr(g, "game", GAME) == GAME for g in games)
        assert not any(isinstance(g, GameMove) for g in games)
    assert not follower.awaiting  # the game's own position ends the wait


@pytest.fixture
def board_one_died(tmp_path: Path, game: chess.pgn.Game) -> EventService:
    """Board 1 died after 24 plies (fed outside the test's event loop, as in the others)."""
    time_source = ManualTime(T0)
    service = start(tmp_path, time_source)
    board_one_dies(service, time_source, game)
    return service


async def test_the_api_moves_the_game_and_says_what_the_spare_must_show(
    board_one_died: EventService, game: chess.pgn.Game
) -> None:
    service = board_one_died
    client = TestClient(TestServer(build_app(service, CREDENTIALS)))
    await client.start_server()
    try:
        white = service.book.get(GAME).white
        assert white is not None
        body = {"section": "Masters", "round": 1, "white": white.start, "board": 4}
        # Board 4's game is in play: the two games swap boards only on purpose.
        response = await client.post("/api/v1/arbiter/boards/assign", json=body, headers=BASIC)
        assert response.status == 422
        assert "a swap moves both games" in (await response.json())["error"]
        swap = {**body, "swap": True}
        response = await _confirmed(client, "/api/v1/arbiter/boards/assign", swap)
        assert response.status == 200, await response.text()
        answer = await response.json()
        assert answer["assigned"] == body
        first = answer["moved"][0]
        assert (first["game"], first["from"], first["to"], first["ply"]) == (GAME, 1, 4, 24)
        assert first["must_show"] == fen_after(game, 24) and not first["in_sync"]
        # A spare named by a serial no hall port has seen is refused, with those seen.
        response = await client.post(
            f"/api/v1/arbiter/games/{GAME}/replace-board", json={"serial": "99999"}, headers=BASIC
        )
        assert response.status == 422
        assert "no DGT board '99999' is connected" in (await response.json())["error"]
        response = await _confirmed(
            client, f"/api/v1/arbiter/games/{GAME}/replace-board", {"board": 2, "swap": True}
        )
        assert response.status == 200
        shown = await response.json()  # the game, as the other game actions answer
        assert shown["hall_board"] == 2 and shown["awaiting_board"] and shown["ply"] == 24
        assert shown["must_show"] == fen_after(game, 24)
        assert service.hall[4].game == "masters-r1-b2"  # board 2's game took board 4
    finally:
        await client.close()
