"""Bus addresses are 14 bits; DGT serial numbers are 5 digits. A board whose serial is
above 16383 answers at another address, which the driver learns from the board (the bus
ping); a configured address that cannot be one is refused by `check` and `serve` in one
clear line, never a traceback."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from boards.driver_events import BoardConnected
from boards.drivers.bus import BusDriver, BusSettings
from boards.drivers.discovery import probe_port
from boardsim.board import EmulatedBoard
from boardsim.busline import BusLine
from boardsim.pty import PtyHost
from broadcast.cli import main
from tests.support.event_log import EventLog, running
from tests.support.paths import ROOT

EXAMPLE = ROOT / "examples" / "pamplona-masters.toml"


def bus_config(tmp_path: Path, addresses: list[int]) -> Path:
    """The Pamplona example with its four boards on one bus line at `addresses`."""
    text = EXAMPLE.read_text(encoding="utf-8")
    head = text[: text.index("[[board]]")]
    boards = "".join(
        f'[[board]]\nnumber = {n}\nport = "/dev/ttyUSB0"\naddress = {a}\nsection = "Masters"\n\n'
        for n, a in enumerate(addresses, 1)
    )
    path = tmp_path / "bus.toml"
    path.write_text(head + boards, encoding="utf-8")
    return path


@pytest.mark.parametrize("command", ["check", "serve"])
def test_an_address_above_14_bits_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    # The old loader took it; `serve --sim` then died building a board for it:
    # ValueError: serial 24317 does not fit a 14-bit bus address.
    config = bus_config(tmp_path, [24317, 1002, 1003, 1004])
    argv = [command, str(config)]
    if command == "serve":
        argv += ["--sim", "--db", str(tmp_path / "j.sqlite"), "--port", "18599"]
    code = main(argv)
    out = capsys.readouterr()
    text = out.out + out.err
    assert code in (1, 2) and "Traceback" not in text
    problems = [line for line in text.splitlines() if "24317" in line]
    assert len(problems) == 1, text
    assert "does not fit a bus address (14 bits: 1..16383)" in problems[0]
    assert "boardwire boards --port PORT" in problems[0]
    assert "needs its bus address" not in text  # refused once, not reported missing too


async def test_a_board_with_serial_24317_is_found_at_the_address_it_answers_to(
    tmp_path: Path, event_log: EventLog
) -> None:
    line = BusLine([EmulatedBoard("24317", seed=1), EmulatedBoard("01002", seed=2)])
    settings = BusSettings(reply_timeout=0.15, retry_lost_every=0.2, min_cycle=0.02)
    async with PtyHost(line, tmp_path / "bus-1") as host:
        result = await probe_port(str(host.path), bus_settings=replace(settings, reply_timeout=0.3))
        assert result.mode == "bus"
        assert sorted(b.bus_address or 0 for b in result.boards) == [1002, 7933]
        async with running(BusDriver(str(host.path), event_log, settings=settings)):
            await event_log.wait_for(
                lambda: len(event_log.of(BoardConnected)) == 2, what="both boards", timeout=10
            )
    found = {e.info.bus_address: e.board for e in event_log.of(BoardConnected)}
    assert found == {7933: "07933", 1002: "01002"}
