"""Test helper: an `EventService` on emulated boards, its journal in the test's folder,
running for the length of a `with` block and stopped cleanly after it."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from broadcast.config.model import EventConfig
from broadcast.journal.store import Journal
from broadcast.service.event_service import EventService
from clocks.timesource import EpochTimeSource


@contextlib.asynccontextmanager
async def running_service(
    config: EventConfig,
    folder: Path,
    time_source: EpochTimeSource,
    ports: dict[int, str],
    *,
    journal: Journal | None = None,
    **options: Any,
) -> AsyncIterator[EventService]:
    """The service of round 1 with no broadcast delay unless `options` say otherwise."""
    settings: dict[str, Any] = {"live_round": 1, "delay": 0, **options}
    service = EventService(
        config,
        journal if journal is not None else Journal(folder / "j.sqlite"),
        time_source=time_source,
        port_overrides=ports,
        **settings,
    )
    service.load()
    runner = asyncio.ensure_future(service.run())
    try:
        yield service
    finally:
        service.stop()
        await runner
