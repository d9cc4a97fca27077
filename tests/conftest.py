"""Shared fixtures, and the rule that nothing fails silently in a test run.

Every test fails on an ERROR (or CRITICAL) log record it did not declare, and on an
asyncio loop error (above all "Task exception was never retrieved"), so that an exception
a task swallowed or dropped becomes a failure of the test that caused it. A test that
provokes an error on purpose declares it:

    @pytest.mark.expected_log(r"tick loop .* stopped", r"journal write failed")

each pattern a regular expression searched in the record's message (or in the loop
error's message and exception). Child processes are checked by their tests (stderr).
"""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import re
import tempfile
import traceback
from collections.abc import Iterator
from typing import Any

import pytest
from support import EventLog

# Each test process registers its simulators in a runtime folder of its own: a port
# listing must not see another process's boards (a parallel worker's, or a developer's
# own `boardwire sim`). Subprocesses inherit it.
os.environ["XDG_RUNTIME_DIR"] = tempfile.mkdtemp(prefix="boardwire-tests-")

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
    """Fail the test on an undeclared ERROR log record or asyncio loop error."""
    global _loops_made
    patterns = [
        re.compile(p) for mark in request.node.iter_markers("expected_log") for p in mark.args
    ]
    handler = _ErrorRecords()
    root = logging.getLogger()
    root.addHandler(handler)
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

    def expected(text: str) -> bool:
        return any(p.search(text) for p in patterns)

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
    if problems:
        pytest.fail(
            "unexpected errors (declare deliberate ones with @pytest.mark.expected_log):\n\n"
            + "\n\n".join(problems),
            pytrace=False,
        )


@pytest.fixture
def event_log() -> EventLog:
    return EventLog()
