"""The web's limits (web.limits): token buckets, quiet logs, and the loop budget that keeps
spectators' work to its share of the event loop."""

from __future__ import annotations

import asyncio
import logging
import time
from base64 import b64encode
from pathlib import Path

import pytest
from aiohttp.test_utils import TestClient, TestServer

from tests.support.web_app import CREDENTIALS, make_service
from web.app import BUDGET, build_app
from web.limits import Busy, LoopBudget, QuietLog, Timed, TokenBucket

BASIC = {"Authorization": "Basic " + b64encode(":".join(CREDENTIALS).encode()).decode()}


class Clock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def test_a_token_bucket_allows_its_burst_then_its_rate() -> None:
    clock = Clock()
    bucket = TokenBucket(2.0, 3, clock)
    assert [bucket.take() for _ in range(4)] == [True, True, True, False]
    assert bucket.wait() == pytest.approx(0.5)
    clock.t += 0.5
    assert bucket.take() and not bucket.take()
    clock.t += 100
    assert bucket.full


def test_reservations_are_served_in_order_at_the_rate() -> None:
    clock = Clock()
    bucket = TokenBucket(10.0, 1, clock)
    assert bucket.reserve(1.0) == 0.0
    waits = [bucket.reserve(1.0) for _ in range(3)]
    assert waits == pytest.approx([0.1, 0.2, 0.3])
    assert bucket.reserve(0.35) is None  # would wait 0.4 s: nothing taken
    assert bucket.reserve(0.45) == pytest.approx(0.4)


def test_a_quiet_log_writes_one_line_per_interval_with_a_count(
    caplog: pytest.LogCaptureFixture,
) -> None:
    clock = Clock()
    quiet = QuietLog(60.0, clock)
    caplog.set_level(logging.WARNING)
    for _ in range(5):
        quiet.warning("bad thing")
    clock.t += 61
    quiet.warning("bad thing")
    assert [r.getMessage() for r in caplog.records] == [
        "bad thing",
        "bad thing (4 more since the last report)",
    ]


async def test_timed_counts_the_steps_not_the_waits() -> None:
    async def sleeper() -> str:
        await asyncio.sleep(0.2)
        return "slept"

    async def worker() -> str:
        end = time.perf_counter() + 0.05
        while time.perf_counter() < end:
            pass
        return "worked"

    slept, worked = Timed(sleeper()), Timed(worker())
    assert await slept == "slept" and slept.spent < 0.05
    assert await worked == "worked" and worked.spent >= 0.045


async def test_timed_passes_exceptions_and_cancellation_through() -> None:
    async def fails() -> None:
        await asyncio.sleep(0)
        raise KeyError("x")

    with pytest.raises(KeyError):
        await Timed(fails())

    async def waits() -> None:
        await Timed(asyncio.sleep(10))

    task = asyncio.ensure_future(waits())
    await asyncio.sleep(0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


async def test_web_work_beyond_its_share_waits_its_turn() -> None:
    budget = LoopBudget(share=0.5, burst=0.01, overhead=0.0)
    await budget.turn()  # within the share: at once
    assert budget.waited == 0
    budget.charge(0.05)  # spent 50 ms: 40 ms over, 80 ms of loop time to earn it back
    start = time.perf_counter()
    await budget.turn()
    assert time.perf_counter() - start >= 0.06
    assert budget.waited == 1


async def test_a_long_queue_is_answered_busy_at_once() -> None:
    budget = LoopBudget(share=0.5, burst=0.01, max_waiting=2)
    budget.charge(10.0)
    waiting = [asyncio.ensure_future(budget.turn()) for _ in range(2)]
    await asyncio.sleep(0)
    with pytest.raises(Busy):
        await budget.turn()
    assert budget.refused == 1
    for task in waiting:
        task.cancel()
    await asyncio.gather(*waiting, return_exceptions=True)
    assert budget.waiting == 0


async def test_spectators_wait_for_the_web_share_the_arbiters_do_not(tmp_path: Path) -> None:
    service, _ = make_service(tmp_path)
    app = build_app(service, CREDENTIALS)
    client = TestClient(TestServer(app))
    await client.start_server()
    try:
        budget = app[BUDGET]
        budget.max_waiting = 0
        budget.charge(30.0)  # the web has used far more than its share just now
        busy = await client.get("/api/v1/standings")
        assert busy.status == 503 and busy.headers["Retry-After"]
        assert busy.headers["X-Content-Type-Options"] == "nosniff"
        desk = await client.get("/api/v1/arbiter/boards", headers=BASIC)
        assert desk.status == 200
    finally:
        await client.close()
