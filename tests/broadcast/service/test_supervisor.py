"""The supervision of long-running tasks (broadcast/service/supervisor.py): an unexpected
exception is logged once with its traceback, the desk gets a critical alert naming the
task, and the task starts again after a back-off; cancellation stops it cleanly."""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections.abc import Callable

import pytest

from broadcast.service.health import SYSTEM_PREFIX, Health
from broadcast.service.supervisor import Backoff, Supervisor, task_key

FAST = Backoff(first=0.02, longest=0.08, healthy_after=0.3)


async def until(predicate: Callable[[], bool], timeout: float = 10.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        assert loop.time() < deadline, "timed out"
        await asyncio.sleep(0.01)


def errors_of(caplog: pytest.LogCaptureFixture, name: str) -> list[logging.LogRecord]:
    return [
        r for r in caplog.records if r.name == "broadcast.service.supervisor" and name in r.message
    ]


@pytest.mark.expected_log(r"the tally stopped: ZeroDivisionError")
async def test_a_failing_task_is_logged_once_alerted_and_restarted(
    caplog: pytest.LogCaptureFixture,
) -> None:
    health = Health()
    supervisor = Supervisor(health, now=lambda: 1_766_419_000.0, backoff=FAST)
    runs: list[int] = []

    async def tally() -> None:
        runs.append(len(runs))
        if len(runs) == 1:
            raise ZeroDivisionError("division by zero")
        await asyncio.sleep(3600)

    task = supervisor.start("the tally", tally, stops="Nothing is counted meanwhile.")
    await until(lambda: len(runs) == 2)
    records = errors_of(caplog, "the tally")
    assert len(records) == 1 and records[0].levelno == logging.ERROR
    assert records[0].exc_info is not None and records[0].exc_info[0] is ZeroDivisionError
    [alert] = health.alerts(None, 0.0)
    assert alert.id == SYSTEM_PREFIX + task_key("the tally") == "system-task-the-tally"
    assert alert.kind == "task-failed" and alert.severity == "critical"
    assert "the tally stopped" in alert.message and "ZeroDivisionError" in alert.message
    assert "Nothing is counted meanwhile." in alert.message
    assert task.running and task.failures == 1 and task.starts == 2
    # Running fine for `healthy_after`: a warning to check stays until acknowledged.
    await until(lambda: not task.failing)
    [note] = health.alerts(None, 0.0)
    assert note.severity == "warning" and "was restarted" in note.message
    assert health.acknowledge(note.id) and health.alerts(None, 0.0) == []
    await supervisor.stop()
    assert task.task.cancelled()


@pytest.mark.expected_log(r"the flaky one stopped: ValueError: bad")
async def test_a_repeating_failure_backs_off_and_logs_its_traceback_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    supervisor = Supervisor(backoff=FAST)
    loop = asyncio.get_running_loop()
    starts: list[float] = []

    async def flaky() -> None:
        starts.append(loop.time())
        raise ValueError("bad")

    task = supervisor.start("the flaky one", flaky)
    await until(lambda: len(starts) >= 5)
    await supervisor.stop()
    records = errors_of(caplog, "the flaky one")
    assert [r.levelno for r in records][:1] == [logging.ERROR]
    assert sum(r.exc_info is not None for r in records) == 1  # one traceback, then one line each
    assert all(r.levelno == logging.WARNING for r in records[1:])
    gaps = [b - a for a, b in itertools.pairwise(starts)]
    assert gaps[0] >= FAST.first * 0.9 and gaps[-1] >= FAST.longest * 0.9  # doubling, capped
    assert task.failures == len(task.errors) == len(starts)


@pytest.mark.expected_log(r"the player stopped: RuntimeError")
async def test_a_one_shot_task_is_not_restarted_and_its_alert_stays() -> None:
    health = Health()
    supervisor = Supervisor(health, backoff=FAST)
    runs: list[int] = []

    async def player() -> None:
        runs.append(1)
        raise RuntimeError("script bug")

    task = supervisor.start("the player", player, restart=False)
    await until(lambda: not task.running)
    await asyncio.sleep(FAST.longest * 2)
    assert runs == [1] and task.failing
    [alert] = health.alerts(None, 0.0)
    assert alert.severity == "critical" and "not restarted" in alert.message
    assert [(name, str(exc)) for name, exc in supervisor.failures()] == [
        ("the player", "script bug")
    ]
    await supervisor.stop()


async def test_a_task_that_returns_is_done_and_cancellation_is_no_failure() -> None:
    health = Health()
    supervisor = Supervisor(health, backoff=FAST)
    done: list[int] = []

    async def short() -> None:
        done.append(1)

    async def forever() -> None:
        await asyncio.Event().wait()

    first = supervisor.start("the short one", short)
    second = supervisor.start("the long one", forever)
    await until(lambda: first.finished)
    assert done == [1] and first.failures == 0
    twin = supervisor.start("the long one", forever)  # e.g. a second web app on one service
    assert twin.name == "the long one (2)" and twin.key != second.key
    await supervisor.stop()
    assert second.task.cancelled() and second.failures == 0 and health.alerts(None, 0.0) == []


@pytest.mark.expected_log(r"the stubborn one stopped")
async def test_stop_from_a_cancelled_task_still_waits_for_the_supervised_one() -> None:
    """A command's `finally` stops its tasks while it is itself being cancelled."""
    supervisor = Supervisor(backoff=FAST)
    cleaned: list[str] = []

    async def stubborn() -> None:
        try:
            await asyncio.Event().wait()
        finally:
            await asyncio.sleep(0.05)  # a driver closing its port
            cleaned.append("port closed")

    task = supervisor.start("the stubborn one", stubborn)

    async def command() -> None:
        try:
            await asyncio.Event().wait()
        finally:
            await task.stop()
            cleaned.append("after stop")

    outer = asyncio.ensure_future(command())
    await asyncio.sleep(0.02)
    outer.cancel()
    with pytest.raises(asyncio.CancelledError):
        await outer
    assert cleaned == ["port closed", "after stop"]
    assert not task.running
    # A failure in a supervised task's own handler is logged and counted too.
    calls: list[Exception] = []

    async def failing() -> None:
        raise OSError("gone")

    other = supervisor.start("the stubborn one", failing, on_failure=calls.append)
    await until(lambda: other.failures >= 1)
    await supervisor.stop()
    assert isinstance(calls[0], OSError)


def test_backoff_must_make_sense() -> None:
    with pytest.raises(ValueError, match="back-off"):
        Backoff(first=2.0, longest=1.0)
    assert task_key("the driver for /dev/ttyACM0") == "task-the-driver-for-dev-ttyacm0"
