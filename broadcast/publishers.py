"""Keeping organisers' outputs current: the broadcast folder and the Lichess relay.

Both read the delayed public state only (never the live one) and act when it changed:
a background task polls the service's public snapshot, so a burst of moves costs one
export, and a slow Lichess answer never holds up the boards.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from pathlib import Path

from broadcast.export.folder import export_round_folder
from broadcast.export.pgn import round_game_texts
from broadcast.relay.lichess import LichessPusher, LichessPushError, LichessRelayConfig
from broadcast.service import EventService

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class PublishSettings:
    folder: Path | None = None
    lichess: LichessRelayConfig | None = None
    lichess_section: str | None = None  # a Lichess round is one section's round
    every: float = 2.0  # seconds between checks of the public state


async def publish_forever(service: EventService, settings: PublishSettings) -> None:
    """Export the live rounds' games as the public state changes, until cancelled."""
    last_seq = -1
    pusher = LichessPusher(settings.lichess) if settings.lichess is not None else None
    try:
        while True:
            public = service.public_state()
            if public.seq != last_seq:
                last_seq = public.seq
                for section, number in service.live_rounds().items():
                    if number is None:
                        continue
                    if settings.folder is not None:
                        update = export_round_folder(
                            settings.folder,
                            public.book,
                            service.config,
                            section,
                            number,
                            pairings=public.tournament,  # a play-off game's time control
                        )
                        if update.written:
                            log.info(
                                "exported %d file(s) of %s round %d",
                                len(update.written),
                                section,
                                number,
                            )
                    if pusher is not None and section == (
                        settings.lichess_section or service.config.sections[0].name
                    ):
                        texts = round_game_texts(
                            public.book,
                            service.config,
                            section,
                            number,
                            pairings=public.tournament,
                        )
                        try:
                            report = await pusher.push(texts)
                        except LichessPushError as exc:
                            log.warning(
                                "Lichess push failed, will retry on the next change: %s", exc
                            )
                        else:
                            for answer in report.errors:
                                log.warning("Lichess refused %s: %s", answer.game_id, answer.error)
            await asyncio.sleep(settings.every)
    finally:
        if pusher is not None:
            await pusher.close()
