"""Keeping organisers' outputs current: the broadcast folder and the Lichess relay.

Both read the delayed public state only (never the live one) and act when it changed:
a background task polls the service's public snapshot, so a burst of moves costs one
export, and a slow Lichess answer never holds up the boards.

An export folder that cannot be written (unmounted, full, permissions) does not stop
the task: it retries with back-off (EXPORT_RETRY_FIRST doubling to EXPORT_RETRY_MAX),
tells the arbiter through a system alert and one log line, and catches up with the
current state as soon as a write succeeds.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from pathlib import Path

from broadcast.export.folder import export_round_folder
from broadcast.export.pgn import round_game_texts
from broadcast.health import Health
from broadcast.relay.lichess import LichessPusher, LichessPushError, LichessRelayConfig
from broadcast.service import EventService

log = logging.getLogger(__name__)

EXPORT_RETRY_FIRST = 2.0
EXPORT_RETRY_MAX = 60.0
EXPORT_ALERT = "export"


@dataclass(frozen=True, slots=True)
class PublishSettings:
    folder: Path | None = None
    lichess: LichessRelayConfig | None = None
    lichess_section: str | None = None  # a Lichess round is one section's round
    every: float = 2.0  # seconds between checks of the public state


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
            for section, number in self.service.live_rounds().items():
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
        message = (
            f"the export folder cannot be written ({where}: {reason}); uploaders see old "
            "files until it works again. Retrying with back-off; it catches up by itself"
        )
        if self.health.report(
            EXPORT_ALERT, "export-failing", "warning", message, self.service.time.now()
        ):
            log.warning("%s", message)  # once per outage
        self.retry_at = now + self.wait
        self.wait = min(self.wait * 2, EXPORT_RETRY_MAX)


async def publish_forever(
    service: EventService, settings: PublishSettings, health: Health | None = None
) -> None:
    """Export the live rounds' games as the public state changes, until cancelled."""
    last_seq = -1
    loop = asyncio.get_running_loop()
    exporter = (
        FolderExporter(service, settings.folder, health or Health())
        if settings.folder is not None
        else None
    )
    pusher = LichessPusher(settings.lichess) if settings.lichess is not None else None
    try:
        while True:
            public = service.public_state()
            if exporter is not None and exporter.due(public.seq, loop.time()):
                exporter.export(public.seq, loop.time())
            if pusher is not None and public.seq != last_seq:
                last_seq = public.seq
                section = settings.lichess_section or service.config.sections[0].name
                number = service.live_rounds().get(section)
                if number is not None:
                    texts = round_game_texts(
                        public.book, service.config, section, number, pairings=public.tournament
                    )
                    try:
                        report = await pusher.push(texts)
                    except LichessPushError as exc:
                        log.warning("Lichess push failed, will retry on the next change: %s", exc)
                    else:
                        for answer in report.errors:
                            log.warning("Lichess refused %s: %s", answer.game_id, answer.error)
            await asyncio.sleep(settings.every)
    finally:
        if pusher is not None:
            await pusher.close()
