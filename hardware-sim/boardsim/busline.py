"""Several emulated boards chained on one serial line (DGT bus mode). Pure, time passed in.

Every board hears every host frame; a board answers frames addressed to it, and a
broadcast ping (address 0) at a seeded random moment within 1.1 s. Delayed answers are
scheduled, not slept for: `tick(t)` returns what is due, `scheduled()` lists what waits.

Single-board commands on a line with several boards: every board obeys them (they all
switch to single mode) and answers at the same time. A real line then carries a garbled
mix; we emulate that by interleaving their answers byte by byte. With exactly one board
on the line the answer is clean, as it is on real hardware.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import zip_longest

from boards.dgt.bus import BusRequest
from boards.dgt.decoder import HostItem
from boardsim.board import EmulatedBoard, ScheduledReply
from boardsim.firmware import DEFAULT_FIRMWARE, Firmware


class BusLine:
    """Boards sharing one line. Build with `BusLine.with_serials([...])` or from boards."""

    def __init__(self, boards: list[EmulatedBoard]) -> None:
        if not boards:
            raise ValueError("a bus line needs at least one board")
        addresses = [b.address for b in boards]
        if len(set(addresses)) != len(addresses):
            raise ValueError(f"two boards on one line share a bus address: {addresses}")
        self.boards = list(boards)

    @classmethod
    def with_serials(
        cls,
        serials: list[str],
        *,
        seed: int = 0,
        t: float = 0.0,
        firmware: Sequence[str | Firmware] = (DEFAULT_FIRMWARE,),
    ) -> BusLine:
        """Boards with a clock each; the seed makes broadcast ping timing reproducible.
        `firmware`: the variants, given to the boards in turn."""
        return cls(
            [
                EmulatedBoard(s, seed=seed * 1000 + i, t=t, firmware=firmware[i % len(firmware)])
                for i, s in enumerate(serials)
            ]
        )

    def board(self, address: int) -> EmulatedBoard:
        for b in self.boards:
            if b.address == address:
                return b
        raise KeyError(f"no board with bus address {address} on this line")

    @property
    def dangerous_commands_received(self) -> int:
        return sum(b.dangerous_commands_received for b in self.boards)

    def handle(self, item: HostItem, t: float) -> bytes:
        """What the line carries back at once for one host item."""
        answers = [b.handle(item, t) for b in self.boards]
        answers = [a for a in answers if a]
        if not answers:
            return b""
        if len(answers) == 1 or isinstance(item, BusRequest):
            return b"".join(answers)
        return _garble(answers)

    def tick(self, t: float) -> bytes:
        """Everything due by `t` from every board, in order of due time."""
        due = sorted((r for b in self.boards for r in b.take_due(t)), key=lambda r: r.due)
        periodic = b"".join(b.periodic_output(t) for b in self.boards)
        return b"".join(r.data for r in due) + periodic

    def scheduled(self) -> list[ScheduledReply]:
        return sorted((r for b in self.boards for r in b.scheduled()), key=lambda r: r.due)

    def next_due(self) -> float | None:
        dues = [d for b in self.boards if (d := b.next_due()) is not None]
        return min(dues) if dues else None


def _garble(answers: list[bytes]) -> bytes:
    """Several boards talking at once: their bytes interleave on the wire."""
    mixed = bytearray()
    for column in zip_longest(*answers):
        mixed.extend(b for b in column if b is not None)
    return bytes(mixed)


__all__ = ["BusLine"]
