"""`boardwire watch` and `boardwire replay`: one board's game, live or from a capture."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Callable, Coroutine
from datetime import UTC, datetime
from functools import partial
from typing import Any

from boards.capture import CaptureError, CaptureWriter, read_capture
from boards.driver_events import BoardConnected, BoardLost, DriverEvent
from boards.drivers.bus import BusDriver
from boards.drivers.link import open_serial, recording_opener
from boards.drivers.single import SingleBoardDriver
from boards.reconstruction import (
    BackInSync,
    MovePlayed,
    MoveRetracted,
    NewGame,
    OutOfSync,
    ReconstructionEvent,
    Reconstructor,
    ResultSignalled,
)
from boards.reconstruction.follow import BoardFollower
from boards.reconstruction.pgn import line_pgn
from boards.replay import replay_capture
from broadcast.cli.event_lines import to_json
from broadcast.publish.files import write_atomically
from broadcast.service.supervisor import Supervisor
from clocks.move_times import FlagFell, format_clock
from clocks.timecontrol import TimeControl, parse_time_control, pgn_time_control
from clocks.timesource import MonotonicTimeSource, SystemTime


def _time_control(text: str | None) -> TimeControl | None:
    if text is None:
        return None
    try:
        return parse_time_control(text)
    except ValueError as exc:
        raise SystemExit(f"boardwire: --time-control: {exc}") from exc


def _headers(
    board: str, tc: TimeControl | None, started: datetime | None = None, *, live: bool = True
) -> dict[str, str]:
    """The PGN tags of a followed board's game. Its date is when the game was played:
    now for `watch` (`live`), the capture's `started_at` for `replay` (unknown, "????.??.??",
    for a capture without one: the day of the replay would be a wrong date)."""
    if live:
        started = datetime.now(UTC)
    headers = {
        "Event": "boardwire watch",
        "Site": f"board {board}",
        "Date": started.strftime("%Y.%m.%d") if started is not None else "????.??.??",
    }
    if started is not None and started.tzinfo is not None:
        utc = started.astimezone(UTC)
        headers["UTCDate"] = utc.strftime("%Y.%m.%d")
        headers["UTCTime"] = utc.strftime("%H:%M:%S")
    if tc is not None:
        headers["TimeControl"] = pgn_time_control(tc)
    return headers


def describe(event: ReconstructionEvent) -> str | None:
    """One human line for the events a watcher cares about."""
    if isinstance(event, MovePlayed):
        number, dots = (event.ply + 1) // 2, "." if event.ply % 2 else "..."
        clock = f"  {{[%clk {format_clock(event.clock.remaining)}]}}" if event.clock else ""
        return f"{number}{dots} {event.san}{clock}"
    if isinstance(event, MoveRetracted):
        return f"takeback: {' '.join(event.sans)} (game now at ply {event.ply})"
    if isinstance(event, OutOfSync):
        return f"out of sync: the board shows {event.fen}"
    if isinstance(event, BackInSync):
        return f"back in sync after {event.out_seconds:.1f} s"
    if isinstance(event, ResultSignalled):
        return f"result signalled with the kings: {event.result}"
    if isinstance(event, NewGame):
        return f"new game ({event.orientation} board)"
    if isinstance(event, FlagFell):
        return f"flag fell: {event}"
    return None


def run_replay(args: argparse.Namespace) -> int:
    try:
        capture = read_capture(args.capture)
    except (OSError, CaptureError) as exc:
        print(f"boardwire: cannot read the capture: {exc}", file=sys.stderr)
        return 2
    if getattr(args, "event", None):
        from broadcast.cli.replay import run_event_replay

        return run_event_replay(args, capture)
    tc = _time_control(args.time_control)
    result = replay_capture(capture, make_reconstructor=partial(Reconstructor, time_control=tc))
    if args.events:
        with open(args.events, "w", encoding="utf-8") as out:
            for board, event in result.events:
                out.write(json.dumps(to_json(event, board=board)) + "\n")
    try:
        line = result.line(args.board)
    except KeyError as exc:
        print(f"boardwire: {exc.args[0]}", file=sys.stderr)
        return 2
    if args.pgn:
        board = args.board or (result.boards[0] if result.boards else "?")
        started = capture.started_at  # checked when the capture was read
        write_atomically(args.pgn, line_pgn(line, _headers(board, tc, started, live=False)))
    print(
        f"{result.mode} capture: {len(capture.chunks)} chunks, boards {', '.join(result.boards) or 'none'}, "
        f"{len(line.sans)} plies, {result.dropped_bytes} bytes dropped"
    )
    return 0


async def _watch(args: argparse.Namespace, time_source: MonotonicTimeSource | None = None) -> int:
    """Follow one board. `time` stamps events (a simulation passes its own clock)."""
    tc = _time_control(args.time_control)
    time_source = time_source or SystemTime()
    capture = CaptureWriter.open(args.record, time_source, port=args.port) if args.record else None
    opener = recording_opener(open_serial, capture)
    follower: BoardFollower | None = None
    wanted = f"{args.address:05d}" if args.address is not None else None

    def save() -> None:
        if args.pgn and follower is not None:
            write_atomically(args.pgn, line_pgn(follower.line, _headers(follower.board, tc)))

    def report(events: list[ReconstructionEvent]) -> None:
        changed = False
        for out in events:
            text = describe(out)
            if text:
                print(text, flush=True)
            changed = True
        if changed:
            save()

    def on_event(event: DriverEvent) -> None:
        nonlocal follower
        if wanted is not None and event.board != wanted:
            return
        if follower is None:
            follower = BoardFollower(event.board, Reconstructor(time_control=tc))
        if isinstance(event, BoardConnected):
            info = event.info
            print(
                f"board {info.serial} ({info.mode}, version {info.version[0]}.{info.version[1]}) on {info.port}"
                f"{', reconnected' if event.reconnect else ''}",
                flush=True,
            )
        elif isinstance(event, BoardLost):
            print(f"board {event.board} lost: {event.reason}; reconnecting", flush=True)
        report(follower.handle(event))

    run: Callable[[], Coroutine[Any, Any, None]]
    if args.address is not None:
        bus = BusDriver(
            args.port, on_event, time_source=time_source, opener=opener, addresses=[args.address]
        )
        run, stop = bus.run, bus.stop
    else:
        single = SingleBoardDriver(args.port, on_event, time_source=time_source, opener=opener)
        run, stop = single.run, single.stop
    # The driver retries its own sessions; a run() that still raises is a bug: logged
    # with its traceback by the supervisor, and the command ends with status 1.
    driver = Supervisor().start(f"the driver for {args.port}", run, restart=False)
    try:
        started = asyncio.get_running_loop().time()
        while driver.running:
            await asyncio.sleep(0.1)
            if follower is not None:
                report(follower.tick(time_source.now()))
            if (
                args.seconds is not None
                and asyncio.get_running_loop().time() - started > args.seconds
            ):
                break
    finally:
        stop()
        await driver.stop()
        save()
        if capture is not None:
            capture.close()
    if driver.errors:
        print(
            f"boardwire: watch stopped: the driver for {args.port} failed "
            f"({type(driver.errors[-1]).__name__}: {driver.errors[-1]}); the traceback "
            "is in the log above",
            file=sys.stderr,
        )
        return 1
    return 0


def run_watch(args: argparse.Namespace) -> int:
    from broadcast.cli.args import serial_port_problem

    problem = serial_port_problem(args.port)
    if problem is not None:
        print(f"boardwire: {problem}", file=sys.stderr)
        return 2
    try:
        return asyncio.run(_watch(args))
    except KeyboardInterrupt:
        return 130


__all__ = ["describe", "run_replay", "run_watch"]
