"""The service turns what a driver says of its own troubles into desk alerts: a
`DriverFault` into a critical `driver-fault` alert naming the board, the port and the
error; a `LogGap` into `moves-to-check` naming the last move known before the gap. Both
are journaled and read back."""

from __future__ import annotations

from pathlib import Path

from boards.driver_events import BoardConnected, BoardInfo, DriverFault, LogGap
from broadcast.arbiter import Alert
from broadcast.config import load_event
from broadcast.journal.store import Journal
from broadcast.service.event_service import EventService
from clocks.timesource import ManualTime
from tests.support.paths import ROOT

EVENT = load_event(ROOT / "examples" / "pamplona-masters.toml")


def test_driver_faults_and_log_gaps_become_alerts_in_the_journal(tmp_path: Path) -> None:
    now = 1.9e9
    service = EventService(
        EVENT, Journal(tmp_path / "j.sqlite"), time_source=ManualTime(now), live_round=1
    )
    service.load()
    port = service.hall[1].config.port
    info = BoardInfo(port, "10001", (1, 7), "single")
    service.on_driver_event(port, BoardConnected(now + 1, "10001", info))
    service.on_driver_event(port, DriverFault(now + 2, "10001", port, "IndexError: boom"))
    service.on_driver_event(
        port, LogGap(now + 3, "10001", port, "what it showed last is not in its log")
    )
    stored = [e.event for e in Journal(tmp_path / "j.sqlite").read()]
    assert DriverFault(now + 2, "10001", port, "IndexError: boom") in stored
    alerts = {a.kind: a for a in stored if isinstance(a, Alert)}
    fault = alerts["driver-fault"]
    assert fault.severity == "critical" and fault.hall_board == "10001"
    assert port in fault.message and "IndexError: boom" in fault.message
    assert fault.game == "masters-r1-b1"
    gap = alerts["moves-to-check"]
    assert gap.game == "masters-r1-b1" and "the game from its first move" in gap.message
