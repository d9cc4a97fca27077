"""Long-running asyncio tasks that never die silently.

`Supervisor.start(name, run)` runs `run()` as a task and watches it. When it raises
(anything but its cancellation):

- the exception is logged once, with its traceback and the task's name (a failure that
  repeats while the task keeps failing gets one short line per restart instead);
- a critical system alert for the arbiter desk (`Health`, kind `task-failed`) says what
  stopped, why, and what does not happen meanwhile;
- the task is started again after a back-off (1 s doubling to 60 s), unless it is a
  one-shot task (`restart=False`, e.g. an emulated player's scripted game).

Once a restarted task has run `healthy_after` seconds without failing, the back-off
starts over and the alert becomes a warning that stays on the desk until acknowledged
("... stopped at 14:02:11 and was restarted; running normally since 14:02:12"): what it
did not do meanwhile (an export, a flag fall) may need a look.

A task whose `run()` returns has done its work and is not restarted. `stop()` cancels
every task and waits for them; nothing a task raised is ever dropped (each failure is
logged when it happens, and kept in `SupervisedTask.errors`).

Self-contained on purpose (it needs only `Health`): the service's drivers and tick loop,
the publishers, the web hub and the emulated players all run through it.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from broadcast.phrases import Phrase, english, say
from broadcast.service.health import Health

log = logging.getLogger(__name__)

TASK_ALERT_PREFIX = "task-"  # Health keys of task alerts (alert ids "system-task-...")
KEPT_ERRORS = 20  # the last errors each task keeps (for tests and the log's context)


@dataclass(frozen=True, slots=True)
class Backoff:
    """Real seconds: the first wait before a restart, the longest, and how long a task must
    run without failing to count as healthy again (back-off reset, alert downgraded)."""

    first: float = 1.0
    longest: float = 60.0
    healthy_after: float = 30.0

    def __post_init__(self) -> None:
        if not 0 < self.first <= self.longest or self.healthy_after <= 0:
            raise ValueError(f"back-off needs 0 < first <= longest and healthy_after > 0: {self}")


def task_key(name: str) -> str:
    """The Health key (and, prefixed, the alert id) of a task: URL-safe, from its name."""
    return TASK_ALERT_PREFIX + (re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "task")


def _clock(t: float) -> str:
    return dt.datetime.fromtimestamp(t, dt.UTC).strftime("%H:%M:%S UTC")


def _reason(exc: BaseException) -> str:
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class SupervisedTask:
    """One supervised task: its name, its failures, and the asyncio task running it."""

    def __init__(
        self,
        supervisor: Supervisor,
        name: str | Phrase,
        run: Callable[[], Awaitable[None]],
        *,
        stops: str | Phrase,
        restart: bool,
        on_failure: Callable[[Exception], None] | None,
    ) -> None:
        self.supervisor = supervisor
        self.name = english(name)  # the log's words (and the key's)
        self.key = task_key(self.name)
        self.stops = english(stops)
        # as said, for the desk's languages
        self._said_name: str | Phrase = name
        self._said_stops: str | Phrase = stops
        self.restart = restart
        self._run = run
        self._on_failure = on_failure
        self.failures = 0  # how many times `run()` raised
        self.starts = 0  # how many times `run()` was started
        self.errors: list[Exception] = []  # the last KEPT_ERRORS failures, oldest first
        self.finished = False  # `run()` returned: its work is done
        self._failing_since: float | None = None  # event time of the streak's first failure
        self._last_reason: str | None = None  # the streak's last logged error
        self._recovery: asyncio.TimerHandle | None = None
        self.task: asyncio.Task[None] = asyncio.get_running_loop().create_task(
            self._keep(), name=self.name
        )

    @property
    def running(self) -> bool:
        return not self.task.done()

    @property
    def failing(self) -> bool:
        """It failed and has not run `healthy_after` seconds without failing since."""
        return self._failing_since is not None

    async def _keep(self) -> None:
        backoff = self.supervisor.backoff
        loop = asyncio.get_running_loop()
        delay = backoff.first
        while True:
            started = loop.time()
            self.starts += 1
            try:
                await self._run()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                if loop.time() - started >= backoff.healthy_after:
                    delay = backoff.first  # it had run fine for a while: a new episode
                self._failed(exc, delay)
                if not self.restart:
                    return
                await asyncio.sleep(delay)
                delay = min(delay * 2, backoff.longest)
                self._watch_recovery(loop)
            else:
                self.finished = True
                if self.failing:
                    self._recovered()
                return

    def _failed(self, exc: Exception, delay: float) -> None:
        self.failures += 1
        self.errors = [*self.errors[-(KEPT_ERRORS - 1) :], exc]
        if self._recovery is not None:
            self._recovery.cancel()
            self._recovery = None
        now = self.supervisor.now()
        reason = _reason(exc)
        then = f"restarting in {delay:g} s" if self.restart else "not restarted"
        if reason != self._last_reason or not self.failing:
            log.error("%s stopped: %s (%s)", self.name, reason, then, exc_info=exc)
        else:
            log.warning("%s stopped again: %s (%s)", self.name, reason, then)
        self._last_reason = reason
        health = self.supervisor.health
        if not self.failing:
            health.clear(self.key)  # a new episode: shown again even if an old one was acknowledged
            self._failing_since = now
        name = self._said_name
        then_said = (
            say("restarting in %(seconds)s s", seconds=f"{delay:g}")
            if self.restart
            else say("not restarted")
        )
        health.report(
            self.key,
            "task-failed",
            "critical",
            say(
                "%(task)s stopped on a software error (%(reason)s); %(then)s. %(stops)s "
                "The log has the traceback.",
                task=name,
                reason=reason,
                then=then_said,
                stops=self._said_stops,
            )
            if self.stops
            else say(
                "%(task)s stopped on a software error (%(reason)s); %(then)s. "
                "The log has the traceback.",
                task=name,
                reason=reason,
                then=then_said,
            ),
            now,
        )
        if self._on_failure is not None:
            try:
                self._on_failure(exc)
            except Exception:
                log.exception("what %s does on a failure failed too", self.name)

    def _watch_recovery(self, loop: asyncio.AbstractEventLoop) -> None:
        self._recovery = loop.call_later(self.supervisor.backoff.healthy_after, self._recovered)

    def _recovered(self) -> None:
        """It has run fine for a while (or finished): the alert becomes a note to check."""
        self._recovery = None
        if self._failing_since is None:
            return
        since, self._failing_since = self._failing_since, None
        log.warning("%s running normally again", self.name)
        self.supervisor.health.report(
            self.key,
            "task-failed",
            "warning",
            say(
                "%(task)s stopped at %(time)s on a software error (%(reason)s) and was "
                "restarted; it has run normally since. What it does may have waited meanwhile.",
                task=self._said_name,
                time_source=_clock(since),
                reason=self._last_reason or "",
            ),
            since,
        )
        self._last_reason = None

    def cancel(self) -> None:
        if self._recovery is not None:
            self._recovery.cancel()
        self.task.cancel()

    async def stop(self) -> None:
        """Cancel it and wait until it is gone (also from the `finally` of a task being
        cancelled itself: only a new cancellation of the caller interrupts the wait)."""
        self.cancel()
        await asyncio.wait({self.task})
        if not self.task.cancelled() and (exc := self.task.exception()) is not None:
            raise exc  # not a failure of `run()` (those are caught): e.g. KeyboardInterrupt


class Supervisor:
    """The supervised tasks of one service (or one command), and where they report.

    `now` gives the event time stamped on alerts; `backoff` is in real seconds."""

    def __init__(
        self,
        health: Health | None = None,
        *,
        now: Callable[[], float] = time.time,
        backoff: Backoff | None = None,
    ) -> None:
        self.health = health if health is not None else Health()
        self.now = now
        self.backoff = backoff or Backoff()
        self.tasks: list[SupervisedTask] = []

    def start(
        self,
        name: str | Phrase,
        run: Callable[[], Awaitable[None]],
        *,
        stops: str | Phrase = "",
        restart: bool = True,
        on_failure: Callable[[Exception], None] | None = None,
    ) -> SupervisedTask:
        """Run `run()` (called again for each restart) as the task `name` (a phrase for the
        arbiter: "the clock tick", "the driver for /dev/ttyACM0"). `stops` says in a
        sentence what does not happen while it is down; `on_failure` is told each error
        (e.g. to mark a driver's boards as lost). A second running task of the same name
        is told apart by a number ("... (2)"), so that each has its own alert. Needs a
        running loop."""
        self.tasks = [t for t in self.tasks if t.running or t.failures]
        taken = {t.key for t in self.tasks if t.running}
        base, n = name, 1
        while task_key(english(name)) in taken:
            n += 1
            # no words to translate: not said with `say`
            name = Phrase("%(task)s (%(n)s)", (("task", base), ("n", n)))
        task = SupervisedTask(self, name, run, stops=stops, restart=restart, on_failure=on_failure)
        self.tasks.append(task)
        return task

    def failures(self) -> list[tuple[str, Exception]]:
        """Every kept failure as (task name, exception), task by task."""
        return [(t.name, e) for t in self.tasks for e in t.errors]

    async def stop(self) -> None:
        """Cancel every task and wait for all of them to end."""
        tasks = list(self.tasks)
        for task in tasks:
            task.cancel()
        for task in tasks:
            await task.stop()


__all__ = ["Backoff", "SupervisedTask", "Supervisor", "task_key"]
