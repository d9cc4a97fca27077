"""Engine evaluation for spectators (`--eval`), with the real Stockfish.

The engine gives a mate for a mate in one and a sensible score for the start position;
its process runs at low priority. Through the service: a position the broadcast delay
hides is never evaluated before the delay passes; the cache spares the engine a position
it has seen; the queue's bound holds when 64 games move at once, and every game is
evaluated in the end; an engine killed mid-event is restarted by the supervisor, with an
alert. Stockfish is installed by .ci/run: when it is missing these tests fail, never skip.
"""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import chess
import pytest

from broadcast.actions.pairings import pair_unpaired
from broadcast.analysis.cache import EvalCache
from broadcast.analysis.engine import NICE, Engine, EngineSettings, find_engine
from broadcast.analysis.evaluator import Evaluator
from broadcast.analysis.queue import PositionQueue
from broadcast.games.evaluation import Evaluation, position_key
from broadcast.games.game_events import GameMove
from broadcast.journal.store import Journal
from broadcast.service.event_service import EventService
from broadcast.service.supervisor import Backoff, task_key
from clocks.timesource import ManualTime
from tests.support.big_event import T0, swiss_config
from tests.support.web_app import make_service, play_moves

GAME = "masters-r1-b1"
OTHER = "masters-r1-b2"
FAST = Backoff(first=0.05, longest=0.2, healthy_after=60.0)
MATE_IN_ONE_WHITE = "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1"  # Rd8#
MATE_IN_ONE_BLACK = "3r2k1/5ppp/8/8/8/8/5PPP/6K1 b - - 0 1"  # ...Rd1#


@pytest.fixture(scope="module")
def stockfish() -> str:
    path = find_engine()
    if path is None:
        pytest.fail(
            "Stockfish is missing: apt-get install stockfish (.ci/run installs it)",
            pytrace=False,
        )
    return path


async def until(check: Callable[[], bool], what: str, timeout: float = 30.0) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not check():
        if loop.time() > end:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.02)


@pytest.fixture
async def engine(stockfish: str) -> AsyncIterator[Engine]:
    e = Engine(EngineSettings(stockfish, depth=12))
    await e.start()
    try:
        yield e
    finally:
        await e.close()


# -- the engine ------------------------------------------------------------------------------


async def test_a_mate_in_one_is_a_mate_score(engine: Engine) -> None:
    white = await engine.evaluate(MATE_IN_ONE_WHITE)
    assert white.mate == 1 and white.cp is None
    assert white.pv[0] == "Rd8#"
    black = await engine.evaluate(MATE_IN_ONE_BLACK)
    assert black.mate == -1  # from White's side: Black mates
    assert black.pv[0] == "Rd1#"


async def test_the_start_position_is_about_level(engine: Engine) -> None:
    ev = await engine.evaluate(chess.STARTING_FEN)
    assert ev.mate is None and ev.cp is not None
    assert -50 <= ev.cp <= 100, ev  # White's small edge, never a winning score
    assert ev.depth >= 12
    assert 1 <= len(ev.pv) <= 6
    board = chess.Board()
    for san in ev.pv:  # a legal line from the position
        board.push_san(san)


async def test_the_engine_runs_at_low_priority_in_its_own_process(engine: Engine) -> None:
    assert engine.pid is not None and engine.pid != os.getpid()
    assert os.getpriority(os.PRIO_PROCESS, engine.pid) >= NICE


def test_the_time_limit_alone_or_with_a_depth() -> None:
    assert EngineSettings("sf").limit().depth == 16
    timed = EngineSettings("sf", depth=None, seconds=0.5).limit()
    assert timed.depth is None and timed.time == 0.5
    both = EngineSettings("sf", depth=20, seconds=1.0).limit()
    assert (both.depth, both.time) == (20, 1.0)
    with pytest.raises(ValueError):
        EngineSettings("sf", depth=0)


# -- the cache and the queue ---------------------------------------------------------------


def test_the_cache_is_bounded_and_keyed_by_position() -> None:
    cache = EvalCache(limit=2)
    a = Evaluation("8/8/8/8/8/8/8/K6k w - - 0 1", 10, cp=0)
    cache.put(a)
    assert cache.get("8/8/8/8/8/8/8/K6k w - - 12 40") is a  # the move counters do not count
    cache.put(Evaluation("8/8/8/8/8/8/8/K6k b - - 0 1", 10, cp=0))
    cache.get(a.fen)  # used: the other one is now the oldest
    cache.put(Evaluation("8/8/8/8/8/8/K7/7k w - - 0 1", 10, cp=0))
    assert len(cache) == 2
    assert cache.peek(a.fen) is a
    assert cache.peek("8/8/8/8/8/8/8/K6k b - - 0 1") is None


def test_the_queue_keeps_one_position_per_game_and_its_bound() -> None:
    queue = PositionQueue(limit=2)
    assert queue.offer("g1", "fen-a")
    assert queue.offer("g2", "fen-b")
    assert queue.offer("g1", "fen-c")  # g1 moved again: its newer position, same place
    assert not queue.offer("g3", "fen-d")  # full
    assert len(queue) == 2 and queue.replaced == 1
    assert queue.take() == ("g1", "fen-c")
    assert queue.take() == ("g2", "fen-b")
    assert queue.take() is None
    assert queue.longest == 2


# -- through the service ---------------------------------------------------------------------


async def test_a_delayed_position_is_not_evaluated_before_the_delay_passes(
    tmp_path: Path, stockfish: str
) -> None:
    service, clock = make_service(tmp_path, delay=60.0)
    evaluator = Evaluator(service.public_state, EngineSettings(stockfish, depth=8), poll=0.02)
    heard: list[tuple[str, Evaluation]] = []
    evaluator.listeners.append(lambda game, ev: heard.append((game, ev)))
    task = service.supervisor.start("the engine evaluation", evaluator.run)
    try:
        start = service.book.get(GAME).fen
        await until(lambda: position_key(start) in map(position_key, evaluator.asked), "start")
        play_moves(service, GAME, ["e4", "e5", "Nf3"])
        live = service.book.get(GAME).fen
        assert service.public_state().book.get(GAME).fen == start  # the delay hides it
        for _ in range(20):  # many looks at the public state: never the hidden position
            await asyncio.sleep(0.03)
        assert all(position_key(f) != position_key(live) for f in evaluator.asked)
        assert all(position_key(ev.fen) != position_key(live) for _, ev in heard)
        assert evaluator.lookup(live) is None
        clock.advance(61.0)  # the delay passes: the moves are public now
        await until(lambda: evaluator.lookup(live) is not None, "the released position")
        ev = evaluator.lookup(live)
        assert ev is not None and (GAME, ev) in heard
        assert service.public_state().book.get(GAME).fen == live
    finally:
        await task.stop()


async def test_the_cache_spares_the_engine_a_position_it_has_seen(
    tmp_path: Path, stockfish: str
) -> None:
    service, _ = make_service(tmp_path, delay=0.0)
    evaluator = Evaluator(service.public_state, EngineSettings(stockfish, depth=8), poll=0.02)
    heard: list[tuple[str, Evaluation]] = []
    evaluator.listeners.append(lambda game, ev: heard.append((game, ev)))
    task = service.supervisor.start("the engine evaluation", evaluator.run)
    try:
        play_moves(service, GAME, ["Nf3"])
        after_nf3 = service.book.get(GAME).fen
        await until(lambda: evaluator.lookup(after_nf3) is not None, "1. Nf3")
        # The same position in another game (a transposition of the same first move), and
        # in the same game again after a repetition (other move counters, same position).
        play_moves(service, OTHER, ["Nf3"])
        play_moves(service, GAME, ["Nf6", "Ng1", "Ng8", "Nf3"])
        again = service.book.get(GAME).fen
        assert again != after_nf3 and position_key(again) == position_key(after_nf3)
        await until(lambda: sum(1 for g, _ in heard if g == OTHER) >= 1, "the other game")
        await until(lambda: evaluator.lookup(again) is not None and len(heard) >= 4, "the rest")
        await asyncio.sleep(0.2)
        asked = [position_key(f) for f in evaluator.asked]
        assert asked.count(position_key(after_nf3)) == 1  # the engine saw it once
        assert evaluator.cache.hits >= 2
        assert (OTHER, evaluator.lookup(after_nf3)) in heard  # announced without the engine
    finally:
        await task.stop()


def _sixty_four_boards(tmp: Path) -> EventService:
    """A service on a round of 64 games (the 128-player Sestao Swiss, FIDE Dutch)."""
    service = EventService(
        swiss_config(128),
        Journal(tmp / "big.sqlite"),
        time_source=ManualTime(T0),
        live_round=1,
        delay=0.0,
    )
    service.load()
    pair_unpaired(service, "test")
    assert len(service.book.games) == 64
    return service


def _all_move_at_once(service: EventService, pick: Callable[[int, int], int]) -> None:
    """Every game makes one move, all in one board batch (`pick(game, ply)`: which legal
    move, by index, so that the games' positions differ)."""
    events = []
    for i, gid in enumerate(sorted(service.book.games)):
        game = service.book.get(gid)
        board = game.board_now()
        moves = sorted(board.legal_moves, key=lambda m: m.uci())
        move = moves[pick(i, game.ply) % len(moves)]
        san = board.san(move)
        board.push(move)
        events.append(
            GameMove(
                gid, game.ply + 1, san, move.uci(), board.fen(), service.time_source.now(), 5400.0
            )
        )
    with service.batch():
        service.commit(events)


async def test_the_queue_bound_holds_when_sixty_four_games_move_at_once(
    tmp_path: Path, stockfish: str
) -> None:
    service = _sixty_four_boards(tmp_path)
    evaluator = Evaluator(
        service.public_state, EngineSettings(stockfish, depth=4), queue_limit=16, poll=0.02
    )
    _all_move_at_once(service, lambda game, ply: game % 20)
    evaluator.scan()  # 64 games moved at once
    assert len(evaluator.queue) == 16
    first = {gid: g.fen for gid, g in service.public_state().book.games.items()}
    _all_move_at_once(service, lambda game, ply: game // 20 + game)  # all again, engine idle
    evaluator.scan()
    assert len(evaluator.queue) == 16  # the waiting ones replaced by their newer position
    assert evaluator.queue.replaced == 16
    task = service.supervisor.start("the engine evaluation", evaluator.run)
    try:
        fens = [g.fen for g in service.public_state().book.games.values()]
        assert len({position_key(f) for f in fens}) == 64
        await until(
            lambda: all(evaluator.lookup(f) is not None for f in fens), "all 64", timeout=60
        )
        assert evaluator.queue.longest <= 16
        # Only the newest position of each game went to the engine.
        asked = {position_key(f) for f in evaluator.asked}
        assert not asked & {position_key(f) for f in first.values()}
        assert evaluator.evaluated == 64
    finally:
        await task.stop()


@pytest.mark.expected_log(r"the engine evaluation stopped: EngineTerminatedError")
async def test_a_killed_engine_is_restarted_with_an_alert(tmp_path: Path, stockfish: str) -> None:
    service, _ = make_service(tmp_path, delay=0.0)
    service.supervisor.backoff = FAST
    evaluator = Evaluator(service.public_state, EngineSettings(stockfish, depth=8), poll=0.02)
    task = service.supervisor.start("the engine evaluation", evaluator.run)
    try:
        play_moves(service, GAME, ["d4"])
        first = service.book.get(GAME).fen
        await until(lambda: evaluator.lookup(first) is not None, "a first evaluation")
        engine = evaluator.engine
        assert engine is not None and engine.pid is not None
        dead = engine.pid
        os.kill(dead, signal.SIGKILL)
        play_moves(service, GAME, ["d5"])  # the next position meets the dead engine
        second = service.book.get(GAME).fen
        await until(lambda: task.failures >= 1, "the failure")
        condition = service.health.conditions[task_key("the engine evaluation")]
        assert condition.kind == "task-failed" and condition.severity == "critical"
        assert "engine evaluation" in condition.message
        await until(lambda: evaluator.lookup(second) is not None, "an evaluation after restart")
        assert evaluator.engine is not None and evaluator.engine.pid not in (None, dead)
        assert task.starts >= 2 and task.running
    finally:
        await task.stop()
    assert evaluator.engine is not None and evaluator.engine.pid is not None
    with pytest.raises(ProcessLookupError):  # stopping the task ends its engine too
        for _ in range(100):
            os.kill(evaluator.engine.pid, 0)
            await asyncio.sleep(0.02)


def test_game_over_positions_are_not_evaluated() -> None:
    from broadcast.games.evaluation import evaluable

    assert evaluable(chess.STARTING_FEN)
    assert not evaluable("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3")  # mate
    assert not evaluable("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1")  # stalemate
    assert not evaluable("not a fen")
