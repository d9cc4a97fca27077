"""The arbiter API's answer time and the boards' latency while clients fetch link-preview
PNGs of the live games, against the same run without them (issue 29, F5).

The machinery of bench_hostile.py: emulated DGT boards on a bus line at real pace, the
service with its journal and web as `serve` runs it, ten honest spectators, and a script
asking the arbiter API for the boards every 20 ms (HTTP Basic, a process of its own). In
the loud run, a second process (niced) opens `--clients` keep-alive clients from 32
loopback addresses, each fetching `/api/v1/games/ID.png` of a random live game, either
side up, as fast as it is answered (waiting out a 503's Retry-After). The positions move
as the boards play, so the pictures keep changing: each new position is drawn once
(`web.board_png.Previews`), by one worker, charged to the web's share of the loop.

Printed: each pair's rows (quiet, then previews) and ratios, then the median and min-max
of each ratio over `--repeat` pairs, and how many pictures were drawn and refused.
Figures, not a test: the machine is shared, read the ratios.

    python bench/bench_previews.py [--boards 16] [--seconds 30] [--clients 60] [--repeat 3]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "bench"), str(ROOT)]  # bench modules, tests.support

import bench_hostile  # noqa: E402
from bench_serve import Phase  # noqa: E402

PREVIEWS = {"png": 1.0}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--boards", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--clients", type=int, default=60)
    parser.add_argument("--repeat", type=int, default=1, help="pairs of runs (quiet, previews)")
    args = parser.parse_args()
    from web.board_png import png_available

    if not png_available():
        raise SystemExit("bench_previews: PNG previews need CairoSVG and the cairo library here")
    phase = Phase("service", args.boards, 16, 1.0, args.seconds)
    print(
        f"{args.boards} emulated boards (bus lines of 16, 9600 baud, real pace), "
        f"{args.seconds:g} s of play, {bench_hostile.HONEST} honest spectators, the arbiter "
        f"API asked every {bench_hostile.PROBE_EVERY * 1000:g} ms; previews: {args.clients} "
        f"keep-alive clients fetching PNGs of the live games; {args.repeat} pair(s) of runs",
        flush=True,
    )
    pairs = bench_hostile.compare(phase, args.clients, PREVIEWS, args.repeat, name="previews")
    drawn = [loud["server"]["previews_drawn"] for _, loud in pairs]
    refused = [loud["server"]["previews_refused"] for _, loud in pairs]
    served = [loud["attack"].get("png: 200", 0) for _, loud in pairs]
    each = list(zip(served, drawn, refused, strict=True))
    print(f"  pictures served / drawn / refused (503), each run: {each}")


if __name__ == "__main__":
    main()
