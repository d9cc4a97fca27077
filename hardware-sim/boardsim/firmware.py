"""Firmware variants of the emulated board: one for each reading of DGT's description.

DGT documents the log's records and tags, not which firmware writes which when. Every
choice below is one a real board may make; the simulator models each, so that the
product is tested against all of them (`EmulatedBoard(firmware=...)`, `boardwire sim
--firmware`, `serve --sim --firmware`). Written from the protocol reference, not from
`boards/dgt/`.

- `classic` (the default): at power-up 3 NOPs, POWERUP, one piece change per occupied
  square, then the position's tag (BEGINPOS for the start position).
- `no-beginpos`: the same power-up without the position tag after the dump.
- `start-tag`: POWERUP, START_TAG, then the pieces, no tag after them (a board that marks
  every power-up as a game start; on the bus, SEND_FROM_START then begins there).
- `nop-padding`: NOP bytes (7F and 00) between records: before every record it appends,
  the board writes 7F, then 00, then 7F 00, then 00 00 7F, and round again.
- `downloaded`: a DOWNLOADED tag (6E) written to the log after every log download.
- `watchdog`: the board's watchdog resets it now and then (every `watchdog_every`
  simulated seconds on average, seeded): it logs WATCHDOG and its pieces, comes back in
  bus mode and idle (a single-mode host's update mode is gone), deaf for a moment, and
  its bus change buffer is lost.

Power loss is not firmware but a fault any board can suffer: `EmulatedBoard.lose_power`.
"""

from __future__ import annotations

from dataclasses import dataclass

# The NOP runs written before each appended record by `nop-padding`, in turn.
PADDING_CYCLE: tuple[bytes, ...] = (b"\x7f", b"\x00", b"\x7f\x00", b"\x00\x00\x7f")
WATCHDOG_EVERY = 90.0  # simulated seconds between watchdog resets, on average
WATCHDOG_MIN = 20.0  # never sooner than this after the previous one (or the power-up)
WATCHDOG_DEAF = 0.3  # seconds a board takes to restart after a watchdog reset


@dataclass(frozen=True, slots=True)
class Firmware:
    """What one firmware does where the protocol leaves room."""

    name: str
    start_tag_at_power_up: bool = False  # POWERUP, START_TAG, then the pieces
    tag_after_dump: bool = True  # the position's tag (BEGINPOS...) after the power-up dump
    padding: bool = False  # NOP bytes between records
    downloaded_tag: bool = False  # DOWNLOADED after every log download
    watchdog_every: float | None = None  # mean seconds between watchdog resets


FIRMWARE: dict[str, Firmware] = {
    f.name: f
    for f in (
        Firmware("classic"),
        Firmware("no-beginpos", tag_after_dump=False),
        Firmware("start-tag", start_tag_at_power_up=True, tag_after_dump=False),
        Firmware("nop-padding", padding=True),
        Firmware("downloaded", downloaded_tag=True),
        Firmware("watchdog", watchdog_every=WATCHDOG_EVERY),
    )
}
DEFAULT_FIRMWARE = "classic"
FIRMWARE_NAMES: tuple[str, ...] = tuple(FIRMWARE)


def firmware_named(name: str | Firmware) -> Firmware:
    """The variant called `name`; ValueError naming the choices otherwise."""
    if isinstance(name, Firmware):
        return name
    try:
        return FIRMWARE[name]
    except KeyError:
        raise ValueError(
            f"no firmware variant {name!r}; choose from {', '.join(FIRMWARE_NAMES)}"
        ) from None


def firmware_list(spec: str) -> list[Firmware]:
    """`classic` or `classic,start-tag,...` (one per board, in turn) as variants."""
    names = [part.strip() for part in spec.split(",") if part.strip()]
    if not names:
        raise ValueError("--firmware needs at least one variant name")
    return [firmware_named(n) for n in names]


__all__ = [
    "DEFAULT_FIRMWARE",
    "FIRMWARE",
    "FIRMWARE_NAMES",
    "PADDING_CYCLE",
    "WATCHDOG_DEAF",
    "WATCHDOG_EVERY",
    "WATCHDOG_MIN",
    "Firmware",
    "firmware_list",
    "firmware_named",
]
