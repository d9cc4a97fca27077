"""Shared fixtures, and the rule that nothing fails silently in a test run.

Every test fails on an ERROR (or CRITICAL) log record it did not declare, and on an
asyncio loop error (above all "Task exception was never retrieved"), so that an exception
a task swallowed or dropped becomes a failure of the test that caused it. A test that
provokes an error on purpose declares it:

    @pytest.mark.expected_log(r"tick loop .* stopped", r"journal write failed")

each pattern a regular expression searched in the record's message (or in the loop
error's message and exception). A declared pattern that nothing matched fails the test too:
the fault it names was never reached. Child processes are checked by their tests (stderr).

A callback or task step that holds the event loop for more than BLOCKING_LIMIT seconds
fails its test (what asyncio's debug mode reports as "Executing <handle> took N seconds",
timed here without debug mode's cost, and without the time the loop's thread only waited
for a CPU that other processes had); a test that may block longer on purpose says how
long with `@pytest.mark.blocks_loop(seconds)`.

Tiers: the tests listed in SLOW get the `slow` marker; `make check` runs the others
(`-m "not slow"`), `make test` everything.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import re
import tempfile
import threading
import time
import traceback
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from broadcast.journal.store import Journal
from tests.support.event_log import EventLog

# Each test process registers its simulators in a runtime folder of its own: a port
# listing must not see another process's boards (a parallel worker's, or a developer's
# own `boardwire sim`). Subprocesses inherit it.
os.environ["XDG_RUNTIME_DIR"] = tempfile.mkdtemp(prefix="boardwire-tests-")

# A callback or task step that holds the loop this long fails its test: work that belongs
# in an executor, a thread or a sync fixture. Generous, so that a busy two-core machine
# (asyncio's debug mode on, a browser beside) does not fail a correct test.
BLOCKING_LIMIT = 1.0

# The slow tier, by folder or file (its path under tests/) or file::test, with
# why (pytest --durations). `make check` leaves these out to stay under 3 minutes on two
# cores; `make test` runs them. A name that no longer exists is an error.
SLOW = {
    "browser": "a real Chromium",
    "broadcast/cli/test_mirror.py": "redis-server",
    "broadcast/publish/test_mirror_evaluation.py": "redis-server and Stockfish",
    "broadcast/publish/test_mirror_junk.py": "redis-server",
    "broadcast/publish/test_redis_publisher.py": "redis-server",
    "broadcast/publish/test_redis_link.py": "redis-server",
    "broadcast/publish/test_redis_password.py": "redis-server, serve subprocesses",
    "broadcast/cli/test_evaluation.py": "Stockfish",
    "broadcast/analysis/test_evaluator.py": "Stockfish",
    "web/test_evaluation_feed.py": "Stockfish",
    "web/livechess/test_server.py::test_serve_sim_serves_the_api_and_follows_its_games": (
        "a serve --sim subprocess"
    ),
    "broadcast/cli/test_serve_crash.py": "serve subprocesses killed and restarted",
    "broadcast/cli/test_station_faults.py": "stations, serve and redis-server killed and cut",
    "broadcast/cli/test_station_cli.py": "redis-server, station subprocesses",
    "broadcast/cli/test_serve_stations.py": "redis-server",
    "broadcast/stations/test_intake.py": "redis-server",
    "broadcast/stations/test_sender.py": "redis-server",
    "broadcast/stations/test_found_boards.py": "redis-server",
    "broadcast/stations/test_station.py::test_boards_wanted_by_serial_are_found_on_free_ports_and_read_there": (
        "PTY boards probed, 8 s"
    ),
    "web/arbiter/test_stations_desk.py": "redis-server",
    "broadcast/cli/test_serve_fast.py": "serve --sim run",
    "broadcast/cli/test_serve_exit.py": "serve runs",
    "broadcast/cli/test_demo.py": "demo subprocesses",
    "broadcast/cli/test_demo_teams.py": "a demo --teams subprocess",
    "broadcast/service/test_faults.py": "serve subprocesses",
    "web/test_http_server.py": "serve subprocesses",
    "broadcast/cli/test_unpaired_round.py": "serve subprocesses",
    "rehearsals/test_team_rehearsal.py": "a serve --sim run of 80 emulated boards",
    "web/arbiter/test_reachable.py": "serve subprocesses",
    "test_event_day_doc.py": "the event-day walk-through as subprocesses",
    "boardsim/test_sim.py": "simulator subprocesses",
    "boardsim/test_stale.py": "simulator subprocesses",
    "boardsim/test_pty.py": "PTY simulator runs",
    "boards/drivers/test_driver_faults.py": "PTY simulator runs, 3-5 s each",
    "boards/drivers/test_bus.py": "PTY bus runs, 2-5 s each",
    "broadcast/service/test_supervision.py": "a whole event with faults injected",
    "broadcast/fide/test_dutch_corpus.py": "the Dutch corpus",
    "boards/reconstruction/test_corpus.py": "the reconstruction corpus",
    "broadcast/arbiter/test_no_false_alerts.py": "soak: corpora played through the service",
    "broadcast/arbiter/test_trouble_storm.py": "soak",
    "rehearsals/test_sestao_hall.py": "soak: the 60-table hall",
    "web/hub/test_hostile_costs.py": "soak: hostile websocket clients",
    "web/arbiter/test_login_spray.py": "soak",
    "web/test_fuzz.py": "schemathesis over the whole API",
    "boards/reconstruction/test_properties.py": "hypothesis: whole games",
    "boards/reconstruction/test_hesitation.py": "the World Cup games at every rest length, 1 s each",
    "broadcast/service/test_event_service.py::test_a_game_flows_from_the_board_to_the_journal_and_the_delayed_view": (
        "a whole game at board speed, 14 s"
    ),
    "broadcast/service/test_overload.py::test_a_slow_journal_raises_an_alert_with_the_lag_and_loses_no_move": (
        "8 s of overload"
    ),
    "broadcast/arbiter/test_board_missing.py::test_a_board_on_a_port_that_does_not_exist_is_a_critical_alert": (
        "8 s of reconnect attempts"
    ),
}


# The waiting lane (marker `waits`, slow too): tests that spend minutes waiting on
# subprocesses or boards playing at a fixed pace, not computing (a fast-forward run
# computes: it stays in the main lane). `make test` (scripts/test-lanes)
# runs them one after another beside the rest, which keeps both cores busy meanwhile.
REALTIME = {
    "broadcast/cli/test_serve_crash.py": "serve killed and restarted mid-round, 25 s each",
    "broadcast/cli/test_station_faults.py": "a venue of stations under faults, 25-70 s each",
    "broadcast/cli/test_station_cli.py": "station subprocesses on emulated boards",
    "broadcast/cli/test_mirror.py": "serve, mirror and redis-server killed and restarted",
    "broadcast/cli/test_demo.py": "demo subprocesses",
    "broadcast/cli/test_demo_teams.py": "a demo --teams subprocess",
    "broadcast/cli/test_finished_games.py": "serve subprocesses",
    "boards/drivers/test_driver_faults.py": "PTY boards at a fixed pace, 3-5 s each",
    "boards/drivers/test_bus.py": "PTY bus lines at a fixed pace, 2-5 s each",
    "rehearsals/test_result_flow.py": "a serve --sim run to the results",
}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    stale = [key for key in [*SLOW, *REALTIME] if not (here / key.split("::")[0]).exists()]
    if stale:
        raise pytest.UsageError(f"tests/conftest.py SLOW names no test file or folder: {stale}")
    for item in items:
        if not item.path.is_relative_to(here):
            continue
        path = item.path.relative_to(here)
        name = item.nodeid.split("::", 1)[-1].split("[")[0]
        keys = {path.parents[i].as_posix() for i in range(len(path.parents) - 1)}
        names = {path.as_posix(), f"{path.as_posix()}::{name}"}
        if keys & SLOW.keys() or names & SLOW.keys():
            item.add_marker(pytest.mark.slow)
        if keys & REALTIME.keys() or names & REALTIME.keys():
            item.add_marker(pytest.mark.waits)
            item.add_marker(pytest.mark.slow)


# Whether the test's call passed, for its own fixtures' teardown.
_call_passed = pytest.StashKey[bool]()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    report = yield
    if report.when == "call":
        item.stash[_call_passed] = report.passed
    return report


# Loop errors of the running test: asyncio hands them to the loop's exception handler
# (a task's unretrieved exception when the task is collected, a callback that raised).
_loop_errors: list[dict[str, Any]] = []
_loops_made = 0


def _record_loop_error(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    _loop_errors.append(context)
    loop.default_exception_handler(context)  # the log line, as without this hook


class _RecordingPolicy(asyncio.DefaultEventLoopPolicy):
    """Every loop of the test run (pytest-asyncio's, `asyncio.run`'s) reports to us."""

    def new_event_loop(self) -> asyncio.AbstractEventLoop:
        global _loops_made
        loop = super().new_event_loop()
        loop.set_exception_handler(_record_loop_error)
        _loops_made += 1
        return loop


asyncio.set_event_loop_policy(_RecordingPolicy())


class _ErrorRecords(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


# Callbacks and task steps that held their loop over BLOCKING_LIMIT: (what, seconds).
# asyncio's debug mode times them too (loop.slow_callback_duration), but it also records a
# stack for every callback scheduled, which costs this suite 40 % more CPU; timing the
# one method every loop runs each callback through costs nothing measurable.
_blocked: list[tuple[str, float]] = []
_run_handle = asyncio.Handle._run

# What counts is the time the loop's thread was held, not the time other processes had
# the CPU: on a busy machine (two cores, two workers, the waiting lane's subprocesses) a
# 0.8 s step can take 1.2 s of wall time. Linux says how long a thread was runnable but
# waiting for a CPU (/proc/thread-self/schedstat, second field, ns); that wait is taken
# off a step's time. Read at most every RUN_QUEUE_SAMPLE seconds before a step (the
# reading may be that much older than the step: the deduction can be as much too big),
# and after a step only when it was over the limit. Waiting on I/O, a lock or the GIL is
# not on the run queue: it still counts.
RUN_QUEUE_SAMPLE = 0.05


class _Schedstat:
    """This thread's /proc/thread-self/schedstat, open while the thread lives."""

    def __init__(self) -> None:
        try:
            self.fd: int | None = os.open("/proc/thread-self/schedstat", os.O_RDONLY)
        except OSError:
            self.fd = None  # not Linux: wall time only

    def waited(self) -> int | None:
        """Nanoseconds this thread has spent runnable but not running, so far."""
        if self.fd is None:
            return None
        try:
            return int(os.pread(self.fd, 64, 0).split()[1])
        except (OSError, ValueError, IndexError):
            return None

    def __del__(self) -> None:
        if self.fd is not None:
            os.close(self.fd)


class _RunQueue(threading.local):
    def __init__(self) -> None:
        self.stat = _Schedstat()
        self.at = float("-inf")
        self.waited: int | None = None


_run_queue = _RunQueue()


def _timed_run(handle: asyncio.Handle) -> None:
    start = time.perf_counter()
    queue = _run_queue
    if start - queue.at >= RUN_QUEUE_SAMPLE:
        queue.at, queue.waited = start, queue.stat.waited()
    _run_handle(handle)
    took = time.perf_counter() - start
    if took > BLOCKING_LIMIT:
        before, after = queue.waited, queue.stat.waited()
        if before is not None and after is not None:
            took -= (after - before) / 1e9
    if took > BLOCKING_LIMIT:
        task = getattr(handle._callback, "__self__", None)  # a task's step: name the task
        _blocked.append((repr(task if isinstance(task, asyncio.Task) else handle), took))


asyncio.Handle._run = _timed_run  # type: ignore[method-assign]


def _describe_loop_error(context: dict[str, Any]) -> str:
    text = str(context.get("message", "loop error"))
    exc = context.get("exception")
    if isinstance(exc, BaseException):
        text += "\n" + "".join(traceback.format_exception(exc)).rstrip()
    return text


def _describe_record(record: logging.LogRecord) -> str:
    text = f"{record.levelname} {record.name}: {record.getMessage()}"
    if record.exc_info and record.exc_info[1] is not None:
        text += "\n" + "".join(traceback.format_exception(record.exc_info[1])).rstrip()
    return text


@pytest.fixture(autouse=True)
def no_silent_errors(request: pytest.FixtureRequest) -> Iterator[None]:
    """Fail the test on an undeclared ERROR log record or asyncio loop error, on a declared
    one that never came, and on a call that held the event loop over its limit."""
    global _loops_made
    patterns = [
        re.compile(p) for mark in request.node.iter_markers("expected_log") for p in mark.args
    ]
    limit = max(
        [BLOCKING_LIMIT, *(float(m.args[0]) for m in request.node.iter_markers("blocks_loop"))]
    )
    handler = _ErrorRecords()
    root = logging.getLogger()
    root.addHandler(handler)
    _blocked.clear()
    _loop_errors.clear()
    _loops_made = 0
    try:
        yield
    finally:
        if _loops_made:
            gc.collect()  # a dropped task reports its exception when it is collected
        root.removeHandler(handler)
    loop_errors, records = list(_loop_errors), handler.records
    _loop_errors.clear()
    matched: set[re.Pattern[str]] = set()

    def expected(text: str) -> bool:
        hits = {p for p in patterns if p.search(text)}
        matched.update(hits)
        return bool(hits)

    loop_messages = [str(c.get("message", "")) for c in loop_errors]
    problems = [
        _describe_record(r)
        for r in records
        # The loop's own log line for a loop error is counted once, below.
        if not (r.name == "asyncio" and r.getMessage().startswith(tuple(loop_messages)))
        and not expected(r.getMessage())
    ]
    problems += [
        "asyncio loop error: " + text
        for text in map(_describe_loop_error, loop_errors)
        if not expected(text)
    ]
    problems += [
        f"the event loop was blocked {seconds:.2f} s (limit {limit:g} s; a test that blocks "
        f"on purpose declares @pytest.mark.blocks_loop(seconds)) by {what}"
        for what, seconds in _blocked
        if seconds > limit
    ]
    if request.node.stash.get(_call_passed, False):
        # Only once the test itself passed: a failing test may stop before its fault.
        problems += [
            f"expected_log pattern {p.pattern!r} matched no ERROR record or loop error: "
            "the fault it declares never happened (or the pattern is stale)"
            for p in patterns
            if p not in matched
        ]
    if problems:
        pytest.fail(
            "unexpected errors (declare deliberate ones with @pytest.mark.expected_log), a "
            "blocked event loop, or a declared error that never came:\n\n" + "\n\n".join(problems),
            pytrace=False,
        )


@pytest.fixture
def event_log() -> EventLog:
    return EventLog()


# Journals a test file opened and left open are closed when the file's last test is done
# (module-scoped fixtures share one across a file): each holds its SQLite file and its
# lock, and a worker running a thousand tests would otherwise run out of descriptors
# below 1,024 (select()'s range) for the tests after.
_opened_journals: list[Any] = []
_journal_init = Journal.__init__


def _noting_init(self: Any, *args: Any, **kwargs: Any) -> None:
    _journal_init(self, *args, **kwargs)
    _opened_journals.append(self)


Journal.__init__ = _noting_init  # type: ignore[method-assign]


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Any:
    try:
        return (yield)
    finally:
        if nextitem is None or nextitem.path != item.path:
            while _opened_journals:
                journal = _opened_journals.pop()
                try:
                    journal._db.total_changes  # noqa: B018 (raises once it is closed)
                except Exception:
                    continue
                try:
                    journal.close()
                except Exception:  # hygiene only: the test has had its verdict
                    pass
