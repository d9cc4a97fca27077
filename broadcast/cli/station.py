"""`boardwire station --redis URL --event NAME --name east-1`: a capture station.

It needs no config file: the central `serve --stations` writes the venue to Redis (the
boards on each station, the venue clock), and the station waits for it (saying so once).
It claims its name (a second live station with the same name is refused, exit 2), reads
its boards through its own serial ports, keeps every event in its outbox
(`--outbox`, default boardwire-station-NAME.sqlite here) and sends them to its stream.
A fresh outbox (a replacement computer) gives its drivers what the central serve knows
of its boards (`StationKeys.known`), so their first connection reads the boards' logs.
It exits with code 3 when the venue gives it another list of boards (restart it).
Boards the config gives by serial number only are looked for on the ports `--probe`
names (globs; by default the serial ports that look like DGT boards'), and read where
they are found.
`--sim`: its boards are emulated on pseudo-terminals and play the sample games (or
`--games`) at the venue's speed: a rehearsal of a venue of several computers on one. The
boards found by serial number that the config gives to this station are emulated too,
each on a port of its own, and found there.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import glob
import logging
import os
import signal
import socket
import sys
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from redis.exceptions import RedisError

from boards.drivers.discovery import list_serial_ports
from boards.drivers.link import open_serial
from boards.recovery import KnownBoard
from broadcast.cli.args import add_emulation_arguments, emulation_problem
from broadcast.cli.stream_link import add_password_argument
from broadcast.config.stations import NAME_RULE, valid_name
from broadcast.publish.redis_link import (
    PublishUrlError,
    RedisPasswordError,
    RedisTarget,
    check_redis_url,
    cli_url_warning,
    redis_password,
    redis_problem,
)
from broadcast.service.health import Health
from broadcast.service.supervisor import Supervisor
from broadcast.stations.outbox import Outbox, OutboxError
from broadcast.stations.sender import NameClaim, Sender, claim_name
from broadcast.stations.station import Station, VenueClock
from broadcast.stations.wire import (
    Refused,
    StationKeys,
    Venue,
    VenueBoard,
    decode_known,
    decode_venue,
)

__all__ = ["add_parser", "run", "station", "wait_venue"]

log = logging.getLogger(__name__)

VENUE_POLL = 0.5  # real seconds between looks for the venue


def add_parser(sub: Any) -> None:
    parser = sub.add_parser(
        "station",
        help="a capture station: read this computer's boards and send them to the venue "
        "through Redis (the central `serve --stations` keeps the record)",
    )
    parser.add_argument(
        "--redis",
        required=True,
        metavar="URL",
        help="the venue's Redis, e.g. redis://HOST:6379/0 (its password: "
        "BOARDWIRE_REDIS_PASSWORD or --redis-password-file, not the URL, which `ps` shows)",
    )
    add_password_argument(parser)
    parser.add_argument(
        "--event", required=True, metavar="NAME", help="the event's name, as in its [event]"
    )
    parser.add_argument(
        "--name",
        required=True,
        metavar="NAME",
        help="this station's name, as in the boards' `station = ...` of the event's config",
    )
    parser.add_argument(
        "--outbox",
        type=Path,
        metavar="PATH",
        help="the station's durable outbox (default boardwire-station-NAME.sqlite in the "
        "working folder); keep it across restarts",
    )
    parser.add_argument(
        "--probe",
        action="append",
        metavar="PORT",
        help="where to look for the boards the config gives by serial number only (a "
        "path or a glob such as '/dev/ttyACM*'; repeat it for more); default: the serial "
        "ports that look like DGT boards'",
    )
    parser.add_argument(
        "--sim",
        action="store_true",
        help="a rehearsal: this station's boards emulated, playing the sample games at the "
        "venue's speed",
    )
    add_emulation_arguments(parser)
    parser.set_defaults(handler=run)


async def found_known(target: RedisTarget, keys: StationKeys) -> dict[int, KnownBoard]:
    """What the central serve knows of the boards found by their serial numbers (empty
    when Redis cannot say: the board is then read from its first connection on)."""
    # Briefly: the boards wait for it, and their logs are read at a later reconnection.
    client = target.client(socket_timeout=2.0, socket_connect_timeout=1.0)
    try:
        known, refused = decode_known(await client.hgetall(keys.found))
    except (RedisError, OSError) as exc:
        log.warning("the boards found by serial number: %s: their logs are not read", exc)
        return {}
    finally:
        await client.aclose()
    for reason in refused[:1]:
        log.warning("what the central serve knows of a found board is left out: %s", reason)
    return known


def ports_to_probe(patterns: Sequence[str] | None) -> list[str]:
    """The ports `--probe` names now (globs expanded at each look: a board plugged in
    later makes a new device), or the serial ports that look like DGT boards'."""
    if not patterns:
        return [p.path for p in list_serial_ports() if p.likely_dgt]
    out: list[str] = []
    for pattern in patterns:
        out += sorted(glob.glob(pattern)) if glob.has_magic(pattern) else [pattern]
    return out


def _check(args: argparse.Namespace) -> str | None:
    if not valid_name(args.name):
        return f"--name {args.name!r}: {NAME_RULE}"
    return emulation_problem(args)


async def wait_venue(
    target: RedisTarget, keys: StationKeys, stop: asyncio.Event, say: Callable[[str], None]
) -> Venue | Refused | None:
    """The venue the central serve wrote, once it has (None: stopped meanwhile). Says
    once that it waits, and once that Redis cannot be reached."""
    said: set[str] = set()
    client = target.client(socket_timeout=5.0, socket_connect_timeout=2.0)
    try:
        while not stop.is_set():
            try:
                fields = await client.hgetall(keys.venue)
            except (RedisError, OSError) as exc:
                if "down" not in said:
                    problem = redis_problem(exc, target.where)
                    say(
                        problem or f"Redis at {target.where} cannot be reached yet ({exc}); waiting"
                    )
                    said.add("down")
            else:
                if fields:
                    return decode_venue(fields)
                if "venue" not in said:
                    say(
                        f"waiting for the central serve (serve --stations) to write the venue "
                        f"to {target.where} ({keys.venue})"
                    )
                    said.add("venue")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), VENUE_POLL)
        return None
    finally:
        await client.aclose()


async def station(args: argparse.Namespace, *, stop: asyncio.Event | None = None) -> int:
    """Run the station until `stop` is set (or a signal)."""
    me = f"boardwire station {args.name}"

    def said(text: str) -> None:
        print(f"{me}: {text}", flush=True)

    problem = _check(args)
    if problem is not None:
        print(f"{me}: {problem}", file=sys.stderr)
        return 2
    try:
        url = check_redis_url(args.redis)
        password = redis_password(args.redis_password_file)
    except (PublishUrlError, RedisPasswordError) as exc:
        print(f"{me}: --redis: {exc}", file=sys.stderr)
        return 2
    warning = cli_url_warning(url, "--redis")
    if warning is not None:
        print(f"{me}: warning: {warning}", file=sys.stderr)
    target = RedisTarget(url, password)
    keys = StationKeys.of(args.event)
    stop = stop or asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, stop.set)
    path = args.outbox or Path(f"boardwire-station-{args.name}.sqlite")
    try:
        outbox = Outbox.open(path)
    except OutboxError as exc:
        print(f"{me}: {exc}", file=sys.stderr)
        return 2
    try:
        return await _run(args, me, said, target, keys, outbox, stop)
    finally:
        outbox.close()


async def _run(
    args: argparse.Namespace,
    me: str,
    said: Callable[[str], None],
    target: RedisTarget,
    keys: StationKeys,
    outbox: Outbox,
    stop: asyncio.Event,
) -> int:
    venue = await wait_venue(target, keys, stop, said)
    if venue is None:
        return 0
    if isinstance(venue, Refused):
        print(
            f"{me}: the venue in Redis cannot be read ({venue.reason}): are the central "
            "serve and this station the same version of boardwire?",
            file=sys.stderr,
        )
        return 2
    boards = venue.boards_of(args.name)
    wanted = venue.wanted_by(args.name)
    if not boards and not wanted:
        names = sorted({b.station for b in venue.boards})
        print(
            f"{me}: the venue {venue.name!r} has no boards on a station named {args.name!r} "
            f"(its stations: {', '.join(names) or 'none'}) and none to find by serial "
            "number: check --name against the `station = ...` of the event's config",
            file=sys.stderr,
        )
        return 2
    claim = NameClaim(outbox.incarnation, socket.gethostname(), os.getpid())
    client = target.client(socket_timeout=5.0, socket_connect_timeout=2.0)
    try:
        held = await claim_name(client, keys.owner(args.name), claim)
        central, refused = decode_known(await client.hgetall(keys.known(args.name)))
    except (RedisError, OSError) as exc:
        print(
            f"{me}: Redis at {target.where}: {redis_problem(exc, target.where) or exc}",
            file=sys.stderr,
        )
        return 1
    finally:
        await client.aclose()
    if held is not None:
        print(
            f"{me}: another station named {args.name!r} is running (on {held.host}, pid "
            f"{held.pid}): stop it first, or give this one the name of its own boards",
            file=sys.stderr,
        )
        return 2
    for reason in refused[:1]:
        log.warning(
            "station %s: what the central serve knows of a board cannot be read (%s): "
            "such boards start as never seen",
            args.name,
            reason,
        )
    clock = VenueClock(venue)
    supervisor = Supervisor(Health(), now=clock.now)
    sender = Sender(
        partial(target.client, socket_timeout=5.0, socket_connect_timeout=2.0),
        target.where,
        keys,
        args.name,
        outbox,
        clock,
        boards=tuple(b.number for b in boards),
        connected=lambda: running.connected(),
        claim=claim,
        problem=partial(redis_problem, target=target.where),
        venue_seen=lambda seen: running.venue_seen(seen),
    )
    devices: dict[str, str] = {}
    probe_paths = partial(ports_to_probe, args.probe)
    sim = None
    if args.sim:
        from boardsim.sim import load_games  # only the CLI layer imports the simulator
        from broadcast.cli.demo import SAMPLE
        from broadcast.cli.simboards import start_emulated_boards

        # Each board found by its serial number here gets a port of its own, found there.
        mine = [
            VenueBoard(w.number, args.name, f"(found {w.number})", None)
            for w in wanted.values()
            if w.station == args.name
        ]
        serials = {w.number: w.serial for w in wanted.values()}
        sim, paths = await start_emulated_boards(
            [*boards, *mine],
            clock,
            speed=venue.speed,
            firmware=args.firmware or "classic",
            serials=serials,
        )
        devices = {b.port: paths[b.number] for b in boards}
        emulated = [paths[b.number] for b in mine]
        probe_paths = partial(list, emulated)  # the rehearsal's ports, found there
    running = Station(
        args.name,
        venue,
        outbox,
        sender,
        supervisor,
        clock=clock,
        opener=open_serial,
        devices=devices,
        central=central,
        probe_paths=probe_paths,
        found_known=partial(found_known, target, keys),
    )
    ports = len(running.ports())
    said(
        f"{len(boards)} boards on {ports} ports ({'emulated' if sim else 'serial'}), outbox "
        f"{outbox.path} (incarnation {outbox.incarnation}, {outbox.last_seq} events so far), "
        f"venue {venue.name!r} at speed {venue.speed:g}"
    )
    task = asyncio.ensure_future(running.run())
    try:
        if sim is not None:
            # The players wait until the drivers hold every board (see start_games).
            supervisor.start(
                "the emulated players' start",
                partial(
                    sim.start_games,
                    load_games(args.games or SAMPLE),
                    clock,
                    speed=venue.speed,
                    followed=running.all_connected,
                    supervisor=supervisor,
                ),
                restart=False,
            )
        stopping = asyncio.ensure_future(stop.wait())
        await asyncio.wait({task, stopping}, return_when=asyncio.FIRST_COMPLETED)
        stopping.cancel()
    finally:
        running.stop()
        await task
        if sim is not None:
            await sim.stop()
    if running.exit_code:
        print(
            f"{me}: stopped: the venue changed this station's boards; start it again",
            file=sys.stderr,
        )
    return running.exit_code


def run(args: argparse.Namespace) -> int:
    try:
        return asyncio.run(station(args))
    except KeyboardInterrupt:
        return 130
