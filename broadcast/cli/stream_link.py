"""`serve --publish`: the venue's hub wired to the Redis publisher, as a supervised task."""

from __future__ import annotations

from typing import TYPE_CHECKING

from broadcast.publish.redis_publisher import RedisPublisher
from broadcast.service.state import PublicState
from broadcast.service.supervisor import SupervisedTask

if TYPE_CHECKING:
    from broadcast.cli.run_event import Running

__all__ = ["start_stream_publisher"]


def start_stream_publisher(running: Running, url: str) -> tuple[RedisPublisher, SupervisedTask]:
    """Tap the hub's public channel (every delta it sends spectators, already delayed) and
    start the task that writes them to Redis at `url`."""
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
        service.time,
        service.health,
        delay=service.delay,
        current=current,
        live=service.live_rounds,
        unpaired=service.unpaired_rounds,
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
