"""A serial port whose file descriptor is 1024 or more still reads and writes.

`serve` raises its open-file limit for thousands of spectators, so a board that reconnects
during the event can be given such a descriptor; pyserial's own read waits in `select()`,
which refuses it ("filedescriptor out of range in select()", on every byte, in the
loop's callback). A real pseudo-terminal stands in for the port."""

from __future__ import annotations

import asyncio
import os
import resource
from collections.abc import Iterator

import pytest

from boards.drivers.link import open_serial

HIGH = 1100


@pytest.fixture
def crowded() -> Iterator[None]:
    """Descriptors up to HIGH taken, so the next one opened is above select()'s range."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = HIGH + 64
    if soft < wanted:
        new_hard = hard if hard == resource.RLIM_INFINITY or hard >= wanted else wanted
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, new_hard))
        except (ValueError, OSError) as exc:  # an unprivileged user under a low hard limit
            pytest.skip(f"cannot open {wanted} files here ({exc}): no descriptor above 1024")
    base = os.open(os.devnull, os.O_RDONLY)
    taken = [base]
    try:
        while taken[-1] < HIGH:
            taken.append(os.dup(base))
        yield
    finally:
        for fd in taken:
            os.close(fd)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


async def test_a_port_above_selects_range_reads_and_writes(crowded: None) -> None:
    master, slave = os.openpty()
    try:
        link = await open_serial(os.ttyname(slave))
        try:
            fd = link._writer.transport.get_extra_info("serial").fileno()  # type: ignore[attr-defined]
            assert fd > 1024, fd
            os.write(master, b"\x8d\x00\x03")
            assert await asyncio.wait_for(link.read(), 5) == b"\x8d\x00\x03"
            link.write(b"\x45")
            await asyncio.sleep(0.05)
            assert os.read(master, 16) == b"\x45"
        finally:
            await link.close()
    finally:
        os.close(master)
        os.close(slave)
