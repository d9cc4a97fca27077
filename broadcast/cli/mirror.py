"""`boardwire mirror --redis URL --event NAME`: a stateless public server.

It reads the venue's public stream (`serve --publish`) from Redis and serves the same
public pages, JSON API, PGN feeds and websocket as `serve`, from the same web code, with
no desk, no arbiter API, no journal and no boards. Any number can run behind a load
balancer: the websocket's sequence numbers are the venue's, so a spectator's resume
works against any of them. See docs/deployment.md.

The Redis password is read from `--redis-password-file` or BOARDWIRE_REDIS_PASSWORD, so
that it is not in the process list; a URL on the command line that holds one is warned
about (it still works).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import sys
from typing import Any

from broadcast.analysis.evaluator import Evaluator
from broadcast.cli.args import exposure, listen_host, port_number
from broadcast.cli.evaluation import add_eval_arguments, eval_settings, start_evaluator
from broadcast.cli.run_event import listen_problem
from broadcast.cli.stream_link import add_password_argument
from broadcast.publish.mirror_feed import MirrorFeed
from broadcast.publish.redis_link import (
    PublishUrlError,
    RedisPasswordError,
    check_redis_url,
    cli_url_warning,
    redis_password,
    where,
)
from broadcast.service.health import Health
from broadcast.service.supervisor import Supervisor

__all__ = ["add_parser", "mirror", "run"]


def add_parser(sub: Any) -> None:
    parser = sub.add_parser(
        "mirror", help="serve an event's public pages from its Redis stream (no desk, no boards)"
    )
    parser.add_argument(
        "--redis",
        required=True,
        metavar="URL",
        help="the Redis the venue publishes to, e.g. redis://HOST:6379/0 (its password: "
        "BOARDWIRE_REDIS_PASSWORD or --redis-password-file, not the URL, which `ps` shows)",
    )
    add_password_argument(parser)
    parser.add_argument(
        "--event", required=True, metavar="NAME", help="the event's name, as in its [event]"
    )
    parser.add_argument(
        "--host",
        type=listen_host,
        default="127.0.0.1",
        help="address to listen on (default 127.0.0.1; 0.0.0.0: every interface)",
    )
    parser.add_argument("--port", type=port_number, default=8080, help="HTTP port (default 8080)")
    parser.add_argument(
        "--trusted-proxy",
        action="append",
        default=[],
        metavar="ADDR",
        help="a reverse proxy whose X-Forwarded-* headers are believed; repeatable",
    )
    parser.add_argument(
        "--public-url",
        metavar="URL",
        help="the origin spectators use (e.g. https://live.example.org)",
    )
    add_eval_arguments(parser)
    parser.set_defaults(handler=run)


async def mirror(
    args: argparse.Namespace, *, stop: asyncio.Event | None = None, ready: Any = None
) -> int:
    """Serve until `stop` is set (or a signal); `ready` is told the feed once serving."""
    try:
        url = check_redis_url(args.redis)
        password = redis_password(getattr(args, "redis_password_file", None))
    except (PublishUrlError, RedisPasswordError) as exc:
        print(f"boardwire mirror: --redis: {exc}", file=sys.stderr)
        return 2
    warning = cli_url_warning(url, "--redis")
    if warning is not None:
        print(f"boardwire mirror: warning: {warning}", file=sys.stderr)
    from web.app import start_mirror_web  # only the CLI layer imports the web
    from web.hub.deltas import Frame
    from web.keys import HUB
    from web.proxy import make_settings

    try:
        proxy = make_settings(args.trusted_proxy, args.public_url)
    except ValueError as exc:
        print(f"boardwire mirror: {exc}", file=sys.stderr)
        return 2
    evaluation = eval_settings(args)
    if isinstance(evaluation, str):
        print(f"boardwire mirror: {evaluation}", file=sys.stderr)
        return 2
    stop = stop or asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, stop.set)
    supervisor = Supervisor(Health())
    feed = MirrorFeed(url, args.event, password=password)
    task = supervisor.start(
        "the public stream from Redis",
        feed.run,
        stops="This mirror shows the event as of the last update it read.",
    )
    try:
        print(f"boardwire mirror: waiting for {args.event!r} on {where(url)}", flush=True)
        waiting = asyncio.ensure_future(stop.wait())
        ready_wait = asyncio.ensure_future(feed.ready.wait())
        await asyncio.wait({waiting, ready_wait}, return_when=asyncio.FIRST_COMPLETED)
        waiting.cancel()
        ready_wait.cancel()
        if stop.is_set():
            return 0
        state = feed.state
        assert state is not None
        # `mirror --eval`: this mirror evaluates what it serves (the venue's evaluations,
        # if any, are not in the stream).
        evals = Evaluator(state.public_state, evaluation) if evaluation is not None else None
        try:
            runner = await start_mirror_web(
                state, host=args.host, port=args.port, proxy=proxy, evals=evals
            )
        except (OSError, UnicodeError) as exc:
            print(f"boardwire mirror: {listen_problem(args.host, args.port, exc)}", file=sys.stderr)
            return 2
        evaluating = start_evaluator(evals, supervisor) if evals is not None else None
        try:
            hub = runner.app[HUB]
            hub.relay_state(state.epoch, state.seq, _frame(Frame, state.public_state()))
            feed.on_reset = lambda e: hub.relay_state(e.epoch, e.seq, _frame(Frame, e.state))
            feed.on_delta = lambda e: hub.relay_delta(e.seq, e.keys, e.text, _frame(Frame, e.state))
            print(
                f"boardwire mirror: {state.config.name} at http://{args.host}:{args.port}/ "
                f"(listening on {exposure(runner.addresses)})",
                flush=True,
            )
            if ready is not None:
                ready(feed, runner)
            await stop.wait()
        finally:
            if evaluating is not None:
                await evaluating.stop()
            await runner.cleanup()
    finally:
        await task.stop()
    return 0


def _frame(frame_class: Any, state: Any) -> Any:
    return frame_class(state.tournament, state.book)


def run(args: argparse.Namespace) -> int:
    try:
        return asyncio.run(mirror(args))
    except KeyboardInterrupt:
        return 130
