"""`run_event`: the one wiring of a running event, for `serve` and `demo`.

config -> journal -> event time -> (emulated boards) -> `EventService` -> web -> the
command's own tasks (publishers, emulated players) -> signals -> run. Each part that is
started is pushed on one `AsyncExitStack`, so whatever ends the run (a refusal at start,
Ctrl-C, a crash) unwinds exactly what was started, in reverse order. A refusal at start
(a journal that is not this event's, damaged, or in use by another `serve`; a port in
use) is one line on stderr and exit 2.

Exit codes: 0 when the event was stopped (a task that failed and was restarted by the
supervisor is on the desk and in the log, not fatal); 1 when something fatal happened:
the service itself raised, or board events could not be written to the journal (they
are not durable: the boards' logs hold them, and the next start reads them back).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import signal
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from broadcast.analysis.engine import EngineSettings
from broadcast.analysis.evaluator import Evaluator
from broadcast.cli.evaluation import start_evaluator
from broadcast.config.model import EventConfig
from broadcast.journal.store import Journal, JournalError
from broadcast.phrases import say
from broadcast.publish.redis_link import RedisTarget, redis_problem
from broadcast.service.committer import ActionError
from broadcast.service.event_service import EventService
from broadcast.service.supervisor import SupervisedTask
from broadcast.stations.intake import Intake, station_ports
from clocks.errors import BoardwireError
from clocks.timesource import EpochTime

if TYPE_CHECKING:
    from aiohttp import web

    from broadcast.cli.simboards import SimulatedHall
    from web.livechess.server import LiveChessSettings
    from web.proxy import ProxySettings

log = logging.getLogger(__name__)


class StartRefused(BoardwireError):
    """The event cannot start; the message is the one line for the user."""


@dataclass
class Running:
    """What `run_event` started, for the command's hooks."""

    config: EventConfig
    db: Path
    journal: Journal
    time_source: EpochTime
    service: EventService
    sim: SimulatedHall | None = None
    ports: dict[int, str] = field(default_factory=dict)  # the emulated boards' ports
    web: web.AppRunner | None = None
    evals: Evaluator | None = None  # `--eval`: the engine's evaluations of public positions
    intake: Intake | None = None  # `--stations`: the capture stations' streams, read


@dataclass(frozen=True)
class EventPlan:
    """How to run the event: what `serve` and `demo` read from their arguments."""

    config: EventConfig
    db: Path
    host: str
    port: int
    credentials: tuple[str, str] | None
    speed: float = 1.0
    sim: bool = False
    firmware: str = "classic"
    port_overrides: dict[int, str] = field(default_factory=dict)
    live_round: int | None = None
    delay: float | None = None
    proxy: ProxySettings | None = None
    tune_gc: bool = False
    stop_after: float | None = None  # real seconds (demo --seconds)
    prog: str = "boardwire"  # how refusals start (demo: "boardwire demo")
    evaluation: EngineSettings | None = None  # `--eval` with an engine found
    spill_dir: Path | None = None  # `--spill-dir`: held board events beyond memory
    # `serve --sim`: a rehearsal, its schedule moved to now (broadcast.cli.rehearsal)
    rehearse: bool = False
    # `serve --livechess-api`: LiveChess's local API on a port of its own (the live view)
    livechess: LiveChessSettings | None = None
    # The commentators' read-only login (BOARDWIRE_COMMENTATOR_PASSWORD): their live channel
    commentator: tuple[str, str] | None = None
    # `serve --stations`: the Redis the capture stations write their boards' events to
    stations: RedisTarget | None = None


# The command's parts: called once the service is loaded (before the web starts), and once
# the web is up (returns the tasks it started, stopped at the end).
Loaded = Callable[[Running], None]
Started = Callable[[Running], Awaitable[Sequence[SupervisedTask]]]


def claim_journal(journal: Journal, config: EventConfig) -> str | None:
    """A journal belongs to one event: refuse another event's (its games and results would
    mix with this one's); a new or unnamed journal takes this event's name."""
    owner = journal.meta("event")
    if owner is None:
        journal.set_meta("event", config.name)
        return None
    if owner != config.name:
        return (
            f"the journal {journal.path} belongs to the event {owner!r}, not {config.name!r}: "
            "give this event its own journal with --db"
        )
    return None


def open_event_journal(
    db: Path, config: EventConfig, *, spill_dir: Path | None = None
) -> Journal | str:
    """The event's journal at `db`, or why not (not a journal, damaged, another event's,
    in use by another boardwire): one line for the user; nothing is left open or changed
    on a refusal. `spill_dir`: where board events held during a disk outage spill."""
    try:
        journal = Journal(db, event=config.name, spill_dir=spill_dir)
    except JournalError as exc:
        return str(exc)
    problem = claim_journal(journal, config)
    if problem is not None:
        journal.close()
        return problem
    return journal


def listen_problem(host: str, port: int, exc: OSError | UnicodeError) -> str:
    import errno

    if isinstance(exc, UnicodeError):  # the resolver's IDNA codec refused the name
        return f"cannot listen on {host[:80]}:{port}: not a valid host name ({exc})"
    if exc.errno == errno.EADDRINUSE:
        return (
            f"cannot listen on {host}:{port}: the port is in use (another boardwire?); use --port"
        )
    if exc.errno == errno.EACCES:
        return f"cannot listen on {host}:{port}: permission denied (ports below 1024 need root)"
    if exc.errno == errno.EADDRNOTAVAIL:
        return f"cannot listen on {host}:{port}: {host} is not an address of this machine"
    reason = exc.strerror or str(exc)
    return f"cannot listen on {host}:{port}: {reason} (check --host)"


async def run_event(
    plan: EventPlan,
    *,
    loaded: Loaded | None = None,
    started: Started | None = None,
) -> int:
    """Run the event of `plan` until stopped (a signal, `stop_after`, `service.stop()`)."""
    async with contextlib.AsyncExitStack() as stack:
        try:
            running = await _start(plan, stack, loaded)
        except StartRefused as exc:
            print(f"{plan.prog}: {exc}", file=sys.stderr)
            return 2
        service = running.service
        if started is not None:
            for task in await started(running):
                stack.push_async_callback(task.stop)  # a failure was logged when it happened
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.add_signal_handler(sig, service.stop)
        if plan.stop_after is not None:
            loop.call_later(plan.stop_after, service.stop)
        try:
            await service.run()
        except Exception as exc:
            log.exception("the event stopped on an error")
            print(f"{plan.prog}: the event stopped on an error: {exc!r}", file=sys.stderr)
            return 1
        lost = running.journal.unwritten
        if lost:
            fix = (
                "start again once the disk is fixed"
                if running.journal.gone is None
                else "start again once the journal's file is sorted out (see the log above)"
            )
            print(
                f"{plan.prog}: {lost} event(s) could not be written to the journal "
                f"{running.db}; the boards' logs hold them: {fix}",
                file=sys.stderr,
            )
            return 1
    return 0


async def _start(
    plan: EventPlan, stack: contextlib.AsyncExitStack, loaded: Loaded | None
) -> Running:
    config = plan.config
    journal = open_event_journal(plan.db, config, spill_dir=plan.spill_dir)
    if isinstance(journal, str):
        raise StartRefused(journal)
    stack.callback(journal.close)
    # Never behind the journal: a fast-forward rehearsal runs ahead of the wall clock, and
    # a restart must not make event time step backwards.
    last = journal.last_t()
    time_source = EpochTime(
        plan.speed, start=max(time.time(), last + 0.001 if last is not None else 0.0)
    )
    if plan.rehearse:
        from broadcast.cli.rehearsal import rehearse

        try:
            config = rehearse(config, journal, time_source.now(), plan.live_round)
        except JournalError as exc:  # the move could not be kept: a full disk
            raise StartRefused(str(exc)) from None
    sim = None
    ports: dict[int, str] = {}
    if plan.sim:
        from broadcast.cli.simboards import (
            start_simulated_boards,  # only the CLI layer imports the simulator
        )

        # A capture station's boards are emulated there (`boardwire station --sim`).
        # A board found by its serial number is emulated by the station that may find it.
        own = dataclasses.replace(
            config,
            boards=tuple(b for b in config.boards if not b.station and not b.found_by_serial),
        )
        sim, ports = await start_simulated_boards(
            own, time_source, speed=plan.speed, firmware=plan.firmware
        )
        stack.push_async_callback(sim.stop)
    try:
        service = EventService(
            config,
            journal,
            time_source=time_source,
            # a station's port is named with its station (two may have a /dev/ttyUSB0)
            port_overrides={**ports, **plan.port_overrides, **station_ports(config)},
            live_round=plan.live_round,
            delay=plan.delay,
        )
        service.load()
    except (ActionError, JournalError) as exc:  # JournalError: an unreadable event, a full disk
        raise StartRefused(str(exc)) from None
    running = Running(config, plan.db, journal, time_source, service, sim, ports)
    if plan.stations is not None:
        running.intake = Intake(service, plan.stations, problem=redis_problem)
        intake_task = service.supervisor.start(
            say("the capture stations' intake"),
            running.intake.run,
            stops=say(
                "The capture stations' boards are not read until it runs again; their "
                "events wait in Redis and on the stations, nothing is lost."
            ),
        )
        stack.push_async_callback(intake_task.stop)
    if loaded is not None:
        loaded(running)
    if plan.evaluation is not None:  # what spectators see, never the live state
        running.evals = Evaluator(service.public_state, plan.evaluation)
    from web.app import start_web  # web imports broadcast, never the other way round

    try:
        runner = await start_web(
            service,
            host=plan.host,
            port=plan.port,
            credentials=plan.credentials,
            proxy=plan.proxy,
            tune_gc=plan.tune_gc,
            evals=running.evals,
            commentator=plan.commentator,
        )
    except (OSError, UnicodeError) as exc:
        raise StartRefused(listen_problem(plan.host, plan.port, exc)) from None
    stack.push_async_callback(runner.cleanup)
    running.web = runner
    if plan.livechess is not None:
        from web.livechess.server import LiveChessApi

        api = LiveChessApi(service, plan.livechess, plan.credentials)
        try:
            await api.start()
        except (OSError, UnicodeError) as exc:
            raise StartRefused(
                listen_problem(plan.livechess.host, plan.livechess.port, exc).replace(
                    "--port", "--livechess-api PORT"
                )
            ) from None
        stack.push_async_callback(api.close)
    if running.evals is not None:
        task = start_evaluator(running.evals, service.supervisor)
        stack.push_async_callback(task.stop)  # stopped before the web it feeds
    return running


__all__ = [
    "EventPlan",
    "Loaded",
    "Running",
    "StartRefused",
    "Started",
    "claim_journal",
    "listen_problem",
    "open_event_journal",
    "run_event",
]
