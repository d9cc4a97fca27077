"""Bus poll cycle: how long one round of SEND_CHANGES to every board takes.

Measured against an emulated line on a real pseudo-terminal (no line-speed throttling),
so the figure is the software's own cost per cycle. Printed next to the 9600-baud
physical limit for the same bytes: a cycle can never be faster than the line carries
them, so the ratio says how much of a real cycle the software would use.
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
from pathlib import Path

from boards.drivers.bus import BusDriver, BusSettings
from boardsim.busline import BusLine
from boardsim.pty import PtyHost

LINE_BYTES_PER_SECOND = 960  # 9600 baud, 8N1
REQUEST = 4  # cmd, address high, address low, checksum
EMPTY_UPDATE = 6  # id, length x2, address x2, checksum


async def measure(boards: int, cycles: int = 40) -> tuple[float, float, float]:
    serials = [f"{1001 + i:05d}" for i in range(boards)]
    settings = BusSettings(
        min_cycle=0.0, clock_every=3600, verify_every=10**9, health_every=3600, ping_window=1.2
    )
    with tempfile.TemporaryDirectory() as tmp:
        async with PtyHost(BusLine.with_serials(serials, seed=1), Path(tmp) / "bus") as host:
            driver = BusDriver(str(host.path), lambda _e: None, settings=settings)
            task = asyncio.ensure_future(driver.run())
            await asyncio.wait_for(driver.discovered.wait(), 30)
            assert len(driver.boards) == boards, f"found {len(driver.boards)} of {boards} boards"
            samples = []
            seen = driver.cycles
            while len(samples) < cycles:
                await asyncio.sleep(0)
                if driver.cycles != seen and driver.last_cycle is not None:
                    seen = driver.cycles
                    samples.append(driver.last_cycle)
            driver.stop()
            await asyncio.gather(task, return_exceptions=True)
    physical = boards * (REQUEST + EMPTY_UPDATE) / LINE_BYTES_PER_SECOND
    return statistics.median(samples), max(samples), physical


async def main() -> None:
    print("bus poll cycle (SEND_CHANGES to every board, no moves), emulated line on a pty:")
    for n in (16, 32):
        median, worst, physical = await measure(n)
        print(
            f"  {n:2d} boards: median {median * 1000:7.1f} ms, worst {worst * 1000:7.1f} ms;"
            f" 9600-baud limit for the same bytes {physical * 1000:6.1f} ms"
            f" -> software uses {median / physical:.0%} of a real cycle"
        )


if __name__ == "__main__":
    asyncio.run(main())
