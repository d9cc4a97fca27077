"""Under overload the service falls behind visibly (an alert, a log line with the lag) and
keeps every move; the overload watch itself is pure."""

from __future__ import annotations

import asyncio
import logging
import time
from pathlib import Path

import chess.pgn
import pytest

from broadcast.cli.simboards import start_simulated_boards
from broadcast.config import load_event
from broadcast.games.game_events import GameMove
from broadcast.journal.store import Journal
from broadcast.service.event_service import EventService
from broadcast.service.overload import CALM_SAMPLES, LagWatch
from clocks.timesource import EpochTime
from tests.support.paths import ROOT

EVENT = load_event(ROOT / "examples" / "pamplona-masters.toml")
SAMPLE = ROOT / "examples" / "games" / "worldcup2025-sample.pgn"
SPEED = 10.0
DISK_SECONDS = 0.3  # every journal commit: a very slow disk
THRESHOLD = 0.1


class SlowJournal(Journal):
    """A journal on a disk that takes DISK_SECONDS per commit, blocking like a real fsync."""

    def _commit(self) -> None:
        time.sleep(DISK_SECONDS)
        super()._commit()


def opening(plies: int) -> chess.pgn.Game:
    with SAMPLE.open(encoding="utf-8") as f:
        game = chess.pgn.read_game(f)
    assert game is not None
    short = chess.pgn.Game()
    short.headers["TimeControl"] = "900+10"
    short.add_line(list(game.mainline_moves())[:plies])
    return short


async def test_a_slow_journal_raises_an_alert_with_the_lag_and_loses_no_move(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="broadcast.service.committer")
    time_source = EpochTime(SPEED)
    game = opening(12)
    played = [m.uci() for m in game.mainline_moves()]
    hall, ports = await start_simulated_boards(EVENT, time_source)
    journal = SlowJournal(tmp_path / "j.sqlite")
    service = EventService(
        EVENT,
        journal,
        time_source=time_source,
        port_overrides=ports,
        live_round=1,
        delay=0,
        overload_after=THRESHOLD,
    )
    service.load()
    runner = asyncio.ensure_future(service.run())
    board1 = "masters-r1-b1"
    try:
        await hall.start_games(
            [game], time_source, speed=SPEED, followed=lambda: service.hall[1].to_game is not None
        )
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 90  # generous: a loaded machine; not a timing goal
        while [m.uci for m in service.book.get(board1).moves] != played:
            assert loop.time() < deadline, "the moves never all arrived"
            await asyncio.sleep(0.1)
    finally:
        service.stop()
        await runner
        await hall.stop()
    overloaded = [a for a in service.alerts() if a.kind == "service-overloaded"]
    assert len(overloaded) == 1, "one alert per episode, not one per slow commit"
    assert "behind the boards" in overloaded[0].message
    lines = [r.getMessage() for r in caplog.records if "overloaded" in r.getMessage()]
    assert lines and "s behind the boards" in lines[0]
    # Every move is in the journal, in order, once.
    stored = [
        e.event.uci
        for e in Journal(tmp_path / "j.sqlite").read()
        if isinstance(e.event, GameMove) and e.event.game == board1
    ]
    assert stored == played


def test_an_episode_starts_once_and_ends_after_a_calm_run() -> None:
    watch = LagWatch(1.0)
    watch.queue(0.2)
    assert watch.news() is None
    watch.journal(1.5)
    news = watch.news()
    assert news is not None and news.behind and news.episode == 1
    assert "journal commit took 1.50 s" in news.cause
    watch.queue(3.0)
    assert watch.news() is None, "still the same episode"
    for _ in range(CALM_SAMPLES - 1):
        watch.loop(0.01)
    assert watch.news() is None
    watch.queue(0.7)  # not calm (over half the threshold): the calm run starts again
    for _ in range(CALM_SAMPLES):
        watch.loop(0.01)
    news = watch.news()
    assert news is not None and not news.behind and news.episode == 1
    watch.loop(2.0)
    news = watch.news()
    assert news is not None and news.behind and news.episode == 2
    assert watch.worst == 3.0
    for _ in range(CALM_SAMPLES):
        watch.bus(0.2, "/dev/ttyUSB0")
    assert watch.news() is not None and not watch.behind
    watch.bus(4.0, "/dev/ttyUSB0")
    news = watch.news()
    assert news is not None and news.behind and "bus line on /dev/ttyUSB0 took 4.00 s" in news.cause


def test_the_threshold_must_be_positive() -> None:
    with pytest.raises(ValueError, match="positive"):
        LagWatch(0)
