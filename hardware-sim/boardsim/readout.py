"""What the hardware reports of a performance (`boardsim.humans.perform`): the positions a
scanning board sends and the readings a DGT clock sends, for pure tests.

`board_scans` samples the physical history the way a scanning board reports it (a scan
every 200-250 ms, squares read one after another, so several changes merge into one
scan and a fast change can be missed); `clock_readings` gives the clock's displays;
`timeline` merges the two. Nothing here does I/O or reads the wall clock: the same seed
gives the same output.
"""

from __future__ import annotations

import random

from boards.position import BoardPosition
from boardsim.humans import ClockStart, Performance
from clocks.reading import ClockReading, Side


def board_scans(
    performance: Performance,
    *,
    seed: int = 0,
    period: tuple[float, float] = (0.2, 0.25),
) -> list[tuple[float, BoardPosition]]:
    """The positions a scanning board reports: one per scan whose reading differs from
    the last reported one, stamped at the end of that scan. Square i is read at
    i/64 of the way through a scan, so a fast change may be seen half-done or not at all."""
    rng = random.Random(seed ^ 0x5CA7)
    changes = performance.changes
    state = list(performance.start.codes)
    out: list[tuple[float, BoardPosition]] = [(0.0, performance.start)]
    last = tuple(state)
    i = 0
    s = 0.0
    n = len(changes)
    while i < n or tuple(state) != last:
        p = rng.uniform(*period)
        if i < n and changes[i].t >= s + p and tuple(state) == last:
            # Nothing happens in this scan: skip ahead to a scan that sees the next change.
            s = changes[i].t - rng.uniform(0.0, p)
            continue
        reported = list(state)
        j = i
        while j < n and changes[j].t < s + p:
            c = changes[j]
            if c.t <= s + p * (c.index / 64.0):
                reported[c.index] = c.code
            state[c.index] = c.code
            j += 1
        i = j
        seen = tuple(reported)
        if seen != last:
            out.append((s + p, BoardPosition(seen)))
            last = seen
        s += p
    return out


def clock_readings(
    performance: Performance, *, latency: float = 0.05, increment: int = 0
) -> list[tuple[float, ClockReading]]:
    """The readings a DGT clock sends in UPDATE_NICE mode: one at the start, one at every
    lever press and one whenever the running display changes (every second). At a press
    the display shows the press's `shows` time when given (else time left + increment).
    A display reaching zero while running raises the final flag."""
    out: list[tuple[float, ClockReading]] = []
    start = next((a for a in performance.actions if isinstance(a, ClockStart)), None)
    if start is None:
        return out
    shown = {"left": float(start.left_seconds), "right": float(start.right_seconds)}
    running: Side = start.side
    run_from = start.t
    base = shown[running]
    flags: set[Side] = set()
    scripted = any(p.shows is not None for p in performance.presses)

    def reading(side_running: Side | None) -> ClockReading:
        return ClockReading(
            left_seconds=max(0, int(shown["left"])),
            right_seconds=max(0, int(shown["right"])),
            running=side_running is not None and side_running not in flags,
            right_lever_high=(side_running or running) == "right",
            left_final_flag="left" in flags,
            right_final_flag="right" in flags,
        )

    out.append((start.t + latency, reading(running)))

    def run_until(t_end: float, final: bool = False) -> None:
        # Scripted games (given `shows`) never flag between moves: the player's next
        # display is known, so the countdown stops at 1 unless this is the final run.
        nonlocal base
        floor = 0.0 if final or not scripted else min(base, 1.0)
        k = 1
        while True:
            tick_t = run_from + k
            if tick_t >= t_end or running in flags:
                break
            shown[running] = max(floor, base - k)
            if shown[running] <= 0:
                flags.add(running)
            out.append((tick_t, reading(running)))
            k += 1
        shown[running] = max(floor, base - int(t_end - run_from))

    presses = performance.presses
    for press in presses:
        if press.side != running or running in flags:
            continue  # pressing a stopped side does nothing
        run_until(press.t)
        if press.shows is not None:
            shown[running] = float(press.shows)
            if press.shows == 0:
                flags.add(running)
        else:
            shown[running] = shown[running] + increment
        running = "right" if running == "left" else "left"
        run_from = press.t
        base = shown[running]
        out.append((press.t + latency, reading(running)))
    if performance.flag_side is not None:
        run_until(run_from + base + 2.0, final=True)
    return out


def timeline(
    performance: Performance, *, seed: int = 0, with_clock: bool = True
) -> list[tuple[float, BoardPosition | ClockReading]]:
    """Scans and clock readings merged in time order (positions first on ties)."""
    items: list[tuple[float, int, BoardPosition | ClockReading]] = [
        (t, 0, p) for t, p in board_scans(performance, seed=seed)
    ]
    if with_clock:
        items.extend((t, 1, r) for t, r in clock_readings(performance))
    items.sort(key=lambda x: (x[0], x[1]))
    return [(t, x) for t, _, x in items]


__all__ = ["board_scans", "clock_readings", "timeline"]
