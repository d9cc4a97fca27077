"""`serve --publish`: the venue's hub wired to the Redis publisher, as a supervised task;
the Redis password option `serve` and `mirror` share."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from broadcast.publish.redis_publisher import RedisPublisher
from broadcast.service.event_state import PublicState
from broadcast.service.supervisor import SupervisedTask

if TYPE_CHECKING:
    from broadcast.cli.run_event import Running

__all__ = ["add_password_argument", "start_stream_publisher"]


def start_stream_publisher(
    running: Running, url: str, password: str | None = None
) -> tuple[RedisPublisher, SupervisedTask]:
    """Tap the hub's public channel (every delta it sends spectators, already delayed) and
    start the task that writes them to Redis at `url` (with `password` if the URL has none)."""
    from web.keys import HUB  # only the CLI layer imports the web

    assert running.web is not None
    hub = running.web.app[HUB]
    service = running.service
    channel = hub.public

    def current() -> tuple[str, int, PublicState]:
        frame = channel.frame
        return hub.epoch, channel.seq, PublicState(frame.tournament, frame.book, channel.seq)

    publisher = RedisPublisher(
        url,
        service.config,
        service.time_source,
        service.health,
        delay=service.delay,
        current=current,
        live=service.public_view.live_rounds,  # the public's: a held play-off is not live
        unpaired=service.public_view.unpaired_rounds,
        password=password,
    )
    channel.taps.append(
        lambda seq, keys, text, frame: publisher.offer(
            hub.epoch, seq, keys, text, PublicState(frame.tournament, frame.book, seq)
        )
    )
    task = service.supervisor.start(
        "the public stream to Redis",
        publisher.run,
        stops="Mirrors do not get new moves until it runs again; nothing is lost meanwhile.",
    )
    return publisher, task


def add_password_argument(parser: argparse.ArgumentParser) -> None:
    """--redis-password-file, for `mirror` and `serve --publish`."""
    parser.add_argument(
        "--redis-password-file",
        type=Path,
        metavar="PATH",
        help="read the Redis password from the first line of this file (else from "
        "BOARDWIRE_REDIS_PASSWORD); keeps it out of the process list",
    )
