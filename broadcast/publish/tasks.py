"""Keeping organisers' outputs current: the broadcast folder and the Lichess relay.

Both read the delayed public state only (never the live one) and act when it changed:
each is its own background task, told by the commit path when the public state may have
changed (`broadcast.publish.public_changes`: at a commit, and once the broadcast delay has
passed over it), never polling. A burst of moves while an export runs costs one export
more, a slow Lichess answer never holds up the boards, and a Lichess outage (minutes of
retries) never holds up the folder export. Each task runs on the service's supervisor:
an unexpected error is logged, alerted and the task restarted.

An export folder that cannot be written (unmounted, full, permissions) does not stop
the task: it retries with back-off (EXPORT_RETRY_FIRST doubling to EXPORT_RETRY_MAX),
tells the arbiter through a system alert and one log line, and catches up with the
current state as soon as a write succeeds.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from broadcast.export.pgn import round_game_texts
from broadcast.phrases import say
from broadcast.publish.folder import export_round_folder
from broadcast.publish.lichess import LichessPusher, LichessPushError, LichessRelayConfig
from broadcast.publish.public_changes import PublicChanges
from broadcast.service.event_service import EventService
from broadcast.service.health import Health
from broadcast.service.supervisor import SupervisedTask

log = logging.getLogger(__name__)

EXPORT_RETRY_FIRST = 2.0
EXPORT_RETRY_MAX = 60.0
EXPORT_ALERT = "export"


@dataclass(frozen=True, slots=True)
class PublishSettings:
    folder: Path | None = None
    lichess: LichessRelayConfig | None = None
    lichess_section: str | None = None  # a Lichess round is one section's round


class FolderExporter:
    """The export folder's side of publishing: what was exported, and the retry state."""

    def __init__(self, service: EventService, folder: Path, health: Health) -> None:
        self.service = service
        self.folder = folder
        self.health = health
        self.done_seq = -1
        self.retry_at = 0.0
        self.wait = EXPORT_RETRY_FIRST

    def due(self, seq: int, now: float) -> bool:
        return seq != self.done_seq and now >= self.retry_at

    def export(self, seq: int, now: float) -> bool:
        """Export every live round of the public state; True if it all was written."""
        public = self.service.public_state()
        try:
            for section, number in self.service.public_view.live_rounds().items():
                if number is None:
                    continue
                update = export_round_folder(
                    self.folder,
                    public.book,
                    self.service.config,
                    section,
                    number,
                    pairings=public.tournament,  # a play-off game's time control
                )
                if update.written:
                    log.info(
                        "exported %d file(s) of %s round %d", len(update.written), section, number
                    )
        except OSError as exc:
            self._failed(exc, now)
            return False
        if self.health.clear(EXPORT_ALERT):
            log.warning("export folder %s writable again: caught up", self.folder)
        self.done_seq, self.wait, self.retry_at = seq, EXPORT_RETRY_FIRST, 0.0
        return True

    def _failed(self, exc: OSError, now: float) -> None:
        reason = exc.strerror or str(exc)
        where = exc.filename or self.folder
        message = say(
            "the export folder cannot be written (%(where)s: %(reason)s); uploaders see old "
            "files until it works again. Retrying with back-off; it catches up by itself",
            where=str(where),
            reason=reason,
        )
        if self.health.report(
            EXPORT_ALERT, "export-failing", "warning", message, self.service.time_source.now()
        ):
            log.warning("%s", message)  # once per outage
        self.retry_at = now + self.wait
        self.wait = min(self.wait * 2, EXPORT_RETRY_MAX)


async def export_forever(service: EventService, folder: Path) -> None:
    """Keep `folder` current with the live rounds of the public state, until cancelled:
    exported at the start, then each time the public state changed. An unwritable folder
    is retried here at its back-off time (with an `export-failing` alert); anything else
    raised ends the task, for its supervisor to log, alert and restart."""
    loop = asyncio.get_running_loop()
    exporter = FolderExporter(service, folder, service.health)
    with PublicChanges(service) as changes:
        while True:
            seq = service.public_state().seq
            if exporter.due(seq, loop.time()):
                exporter.export(seq, loop.time())
            failed = exporter.done_seq != seq
            await changes.changed(seq, until=exporter.retry_at if failed else None)


async def push_forever(
    service: EventService, lichess: LichessRelayConfig, section: str | None
) -> None:
    """Push the live round of `section` (default: the first) to Lichess at the start and
    whenever the public state changed, until cancelled. A push Lichess refuses is logged
    and tried again on the next change; anything else raised ends the task, for its
    supervisor."""
    name = section or service.config.sections[0].name
    last_seq = -1
    warn_if_delays_add_up(service, lichess)
    async with LichessPusher(lichess) as pusher:
        with PublicChanges(service) as changes:
            while True:
                await changes.changed(last_seq)
                public = service.public_state()
                last_seq = public.seq
                number = service.public_view.live_rounds().get(name)
                if number is not None:
                    texts = round_game_texts(
                        public.book, service.config, name, number, pairings=public.tournament
                    )
                    try:
                        report = await pusher.push(texts)
                    except LichessPushError as exc:
                        log.warning("Lichess push failed, will retry on the next change: %s", exc)
                    else:
                        for answer in report.errors:
                            log.warning("Lichess refused %s: %s", answer.game_id, answer.error)


DELAYS_ALERT = "lichess-delay"


def delays_add_up(event_delay: float, lichess_delay: float) -> float | None:
    """How late a Lichess spectator sees a move when both delays apply (None: only one
    does). The push carries the delayed public state, never the live one: the event's
    delay is the guarantee boardwire keeps, whatever a third party does; so a Lichess
    round with a delay of its own adds to it rather than replacing it."""
    if event_delay > 0 and lichess_delay > 0:
        return event_delay + lichess_delay
    return None


def warn_if_delays_add_up(service: EventService, lichess: LichessRelayConfig) -> None:
    """One log line and one desk note when the event's and the Lichess round's delays add
    up, with what to do (the Lichess round's own delay to 0: the event already delays)."""
    total = delays_add_up(service.delay, lichess.round_delay)
    if total is None:
        return
    message = say(
        "Lichess round %(round)s has a delay of its own (%(lichess)s s) on top of the "
        "event's %(event)s s: spectators on Lichess see each move %(total)s s after it is "
        "played. Set the Lichess round's delay to 0 (boardwire already delays what it "
        "pushes) unless both are wanted.",
        round=lichess.round_id,
        lichess=f"{lichess.round_delay:g}",
        event=f"{service.delay:g}",
        total=f"{total:g}",
    )
    if service.health.report(
        DELAYS_ALERT, "delays-add-up", "warning", message, service.time_source.now()
    ):
        log.warning("%s", message)


def start_publishers(service: EventService, settings: PublishSettings) -> list[SupervisedTask]:
    """Each publisher as its own supervised task on the service's supervisor, so that a
    slow or failing Lichess never holds up the export folder (and the other way round)."""
    tasks: list[SupervisedTask] = []
    if settings.folder is not None:
        folder = settings.folder
        tasks.append(
            service.supervisor.start(
                say("the export to %(folder)s", folder=str(folder)),
                partial(export_forever, service, folder),
                stops=say("The export folder is not updated until it runs again."),
            )
        )
    if settings.lichess is not None:
        tasks.append(
            service.supervisor.start(
                say("the Lichess relay"),
                partial(push_forever, service, settings.lichess, settings.lichess_section),
                stops=say("Lichess is not sent new moves until it runs again."),
            )
        )
    return tasks


__all__ = [
    "DELAYS_ALERT",
    "EXPORT_ALERT",
    "EXPORT_RETRY_FIRST",
    "EXPORT_RETRY_MAX",
    "FolderExporter",
    "PublishSettings",
    "delays_add_up",
    "export_forever",
    "push_forever",
    "start_publishers",
    "warn_if_delays_add_up",
]
