"""The publishers are told, not polling: a change reaches the export folder as soon as it
is committed (no delay) or as soon as the broadcast delay has passed over it, without a
poll period in between (`broadcast.publish.public_changes`)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from broadcast.publish.tasks import export_forever
from clocks.timesource import EpochTime
from tests.support.web_app import make_service, play_moves

GAME = "masters-r1-b1"


def _game_file(folder: Path) -> str:
    path = folder / "round-1" / "game-1.pgn"
    return path.read_text(encoding="utf-8") if path.exists() else ""


async def _turns(n: int = 20) -> None:
    """Let the loop run its ready callbacks, without any time passing."""
    for _ in range(n):
        await asyncio.sleep(0)


async def test_a_commit_reaches_the_folder_at_once(tmp_path: Path) -> None:
    service, clock = make_service(tmp_path, delay=0.0)
    folder = tmp_path / "export"
    task = asyncio.ensure_future(export_forever(service, folder))
    try:
        await _turns()
        assert "[Result" in _game_file(folder)  # the start's export
        listeners = len(service.listeners)
        play_moves(service, GAME, ["e4", "c5"])
        clock.advance(0.5)  # well under the old poll's 2 s: and no real time either
        await _turns()
        assert "1... c5" in _game_file(folder)
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
    assert len(service.listeners) == listeners - 1  # unsubscribed when it ends


async def test_a_delayed_change_reaches_the_folder_when_the_delay_has_passed(
    tmp_path: Path,
) -> None:
    # A rehearsal clock running 600 times real time: the 60 s delay is 0.1 s of ours.
    service, _ = make_service(tmp_path, delay=60.0, time_source=EpochTime(speed=600.0))
    folder = tmp_path / "export"
    task = asyncio.ensure_future(export_forever(service, folder))
    try:
        await _turns()
        play_moves(service, GAME, ["d4"])
        await _turns()
        assert "1. d4" not in _game_file(folder)  # the delay hides it
        loop = asyncio.get_running_loop()
        start = loop.time()
        while "1. d4" not in _game_file(folder):
            assert loop.time() - start < 1.5, "not exported when the delay had passed"
            await asyncio.sleep(0.01)
        assert loop.time() - start >= 0.09  # not before the delay either
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
