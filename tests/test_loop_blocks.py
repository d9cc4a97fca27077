"""The suite's own check that no step holds an event loop past BLOCKING_LIMIT
(tests/conftest.py): a step that holds its thread is caught, however it holds it (here a
sleep); the time its thread only waited for a CPU (other processes' work) is not held
against it."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator

import pytest

from tests import conftest


class _Waits:
    """A schedstat that says the thread waited `seconds` for a CPU during the step."""

    def __init__(self, seconds: float) -> None:
        self.readings = iter([0, int(seconds * 1e9)])

    def waited(self) -> int:
        return next(self.readings)


@pytest.fixture
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    made = asyncio.new_event_loop()
    yield made
    made.close()


def step(loop: asyncio.AbstractEventLoop, seconds: float) -> list[tuple[str, float]]:
    """Run one handle that holds its thread `seconds`; what the check recorded of it."""
    before = len(conftest._blocked)
    conftest._run_queue.at = float("-inf")  # read the run queue before this step
    conftest._timed_run(asyncio.Handle(time.sleep, (seconds,), loop))
    got = conftest._blocked[before:]
    del conftest._blocked[before:]  # this test's blocks are its subject, not its fault
    return got


def test_a_step_that_holds_its_thread_is_caught(loop: asyncio.AbstractEventLoop) -> None:
    held = conftest.BLOCKING_LIMIT + 0.1
    [(what, seconds)] = step(loop, held)
    assert "sleep" in what and seconds >= held - 0.01  # a sleep is no wait for a CPU


def test_time_spent_waiting_for_a_cpu_is_not_held_against_a_step(
    loop: asyncio.AbstractEventLoop, monkeypatch: pytest.MonkeyPatch
) -> None:
    held = conftest.BLOCKING_LIMIT + 0.1
    monkeypatch.setattr(conftest._run_queue, "stat", _Waits(0.3))
    assert step(loop, held) == []  # 1.1 s, 0.3 of it waiting for a CPU: 0.8 s held
    monkeypatch.setattr(conftest._run_queue, "stat", _Waits(0.05))
    [(_what, seconds)] = step(loop, held)
    assert held - 0.06 <= seconds <= held
