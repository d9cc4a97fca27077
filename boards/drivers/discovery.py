"""Finding boards: which serial ports exist, and which DGT boards answer on a port."""

from __future__ import annotations

import asyncio
import glob
from dataclasses import dataclass, field

from serial.tools import list_ports

from boards.driver_events import BoardInfo
from boards.drivers.bus import BusDriver, BusSettings
from boards.drivers.link import LinkError, Opener, open_serial
from boards.drivers.single import BoardError, DriverSettings, SingleBoardDriver

# USB ids reported for DGT boards: the board's own CDC-ACM chip, and FTDI serial adapters.
DGT_USB_IDS = frozenset({(0x04D8, 0x000A), (0x0403, 0x6001)})


@dataclass(frozen=True, slots=True)
class SerialPort:
    path: str
    description: str
    usb_id: tuple[int, int] | None = None
    likely_dgt: bool = False


def list_serial_ports() -> list[SerialPort]:
    """Serial ports on this machine, DGT-looking ones first (USB ids, Bluetooth RFCOMM)."""
    ports: dict[str, SerialPort] = {}
    for info in list_ports.comports():
        usb = (info.vid, info.pid) if info.vid is not None and info.pid is not None else None
        likely = usb in DGT_USB_IDS or "ACM" in info.device or "USB" in info.device
        ports[info.device] = SerialPort(info.device, info.description or "", usb, likely)
    for path in sorted(glob.glob("/dev/rfcomm*")):
        ports.setdefault(path, SerialPort(path, "Bluetooth RFCOMM", None, True))
    return sorted(ports.values(), key=lambda p: (not p.likely_dgt, p.path))


@dataclass(frozen=True, slots=True)
class ProbeResult:
    port: str
    mode: str | None  # "single", "bus", or None when no board answered
    boards: tuple[BoardInfo, ...] = field(default_factory=tuple)
    error: str | None = None


async def probe_port(
    path: str,
    *,
    opener: Opener = open_serial,
    single_settings: DriverSettings | None = None,
    bus_settings: BusSettings | None = None,
) -> ProbeResult:
    """Who is on `path`: one board in single-board mode, or every board of a bus.

    A broadcast bus ping comes first because single-board commands sent to a bus line
    would make every board answer at once. Two or more answers: a bus. None or one: the
    port is probed as a single board (a lone board answers both ways; single-board mode
    is how a USB or Bluetooth board is used).
    """

    def ignore(_event: object) -> None:
        return None

    bus_boards: list[BoardInfo] = []
    try:
        bus_boards = await BusDriver(path, ignore, opener=opener, settings=bus_settings).probe()
    except LinkError as exc:
        return ProbeResult(path, None, (), str(exc))
    if len(bus_boards) >= 2:
        return ProbeResult(path, "bus", tuple(bus_boards))
    single = SingleBoardDriver(
        path, ignore, opener=opener, settings=single_settings or DriverSettings(reply_timeout=1.0)
    )
    try:
        info = await single.probe()
    except (BoardError, LinkError) as exc:
        if bus_boards:
            return ProbeResult(path, "bus", tuple(bus_boards))
        return ProbeResult(path, None, (), f"no DGT board answered ({exc})")
    address = bus_boards[0].bus_address if bus_boards else None
    info = BoardInfo(
        port=info.port,
        serial=info.serial,
        version=info.version,
        mode="single",
        bus_address=address,
        long_serial=info.long_serial,
        battery_percent=info.battery_percent,
        clock_present=info.clock_present,
    )
    return ProbeResult(path, "single", (info,))


async def probe_ports(paths: list[str], *, opener: Opener = open_serial) -> list[ProbeResult]:
    """Probe several ports at once (each port is its own line)."""
    return list(await asyncio.gather(*(probe_port(p, opener=opener) for p in paths)))


__all__ = [
    "DGT_USB_IDS",
    "ProbeResult",
    "SerialPort",
    "list_serial_ports",
    "probe_port",
    "probe_ports",
]
