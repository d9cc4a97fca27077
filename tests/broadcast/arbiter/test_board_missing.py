"""A configured board that never connects (its port does not exist) is a critical alert
on the desk naming the board and the port, raised once and closed when the board
connects (issue 19: the desk said "No open alerts" while the board showed "never")."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from pathlib import Path

from broadcast.arbiter.alerts import Alert
from broadcast.cli.simboards import start_simulated_boards
from broadcast.config import load_event
from clocks.timesource import EpochTime
from tests.support.paths import ROOT
from tests.support.service import running_service

EVENT = load_event(ROOT / "examples" / "pamplona-masters.toml")
SPEED = 20.0


async def wait_for(check: Callable[[], bool], seconds: float = 30.0) -> None:
    for _ in range(int(seconds / 0.05)):
        if check():
            return
        await asyncio.sleep(0.05)
    raise AssertionError("timed out")


async def test_a_board_on_a_port_that_does_not_exist_is_a_critical_alert(
    tmp_path: Path,
) -> None:
    time_source = EpochTime(SPEED)
    hall, ports = await start_simulated_boards(EVENT, time_source)
    real = ports[2]
    missing = str(tmp_path / "ttyUSB-not-plugged")
    ports = {**ports, 2: missing}
    try:
        async with running_service(EVENT, tmp_path, time_source, ports) as service:

            def missing_alerts() -> list[Alert]:
                # The desk's system alerts (the service's own, beside the rules')
                system = service.health.alerts(service.journal, service.time_source.now())
                return [a for a in system if a.kind == "board-missing"]

            def board_alerts() -> list[str]:
                return [a.message for a in missing_alerts()]

            await wait_for(lambda: bool(board_alerts()))
            [message] = board_alerts()
            assert message.startswith(f"Board 2 (port {missing}) has not connected")
            [alert] = missing_alerts()
            assert alert.severity == "critical"
            await asyncio.sleep(0.5)
            assert len(board_alerts()) == 1  # once, not once a tick
            # The cable is plugged in: the port appears, the board connects, the alert closes.
            os.symlink(real, missing)
            await wait_for(lambda: not board_alerts())
            assert service.hall[2].connected
    finally:
        await hall.stop()
