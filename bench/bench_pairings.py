"""FIDE Dutch: how long one round takes to pair, our engine against the one it replaced
(caissify-pairings), in the same run on the same rounds.

For each size (default 100, 180 and 300 players) a 9-round Swiss is played up to round
`--round` (default 5) with our engine and seeded results (the higher rating wins more
often, some draws, a few forfeits and half-point byes), so that the round to pair has the
score brackets, floaters and colour histories of a real open. That round is then paired
`--runs` times by our engine (`broadcast.fide.dutch.pair_round`) and `--old-runs` times by
caissify-pairings (through `bench/old_dutch.py`, the adapter as it was). Printed: median
and spread (min-max) of each, and the ratio of the medians. Figures only; nothing is
asserted. caissify needs minutes per round at 300 players: `--old-runs 0` skips it.

    python bench/bench_pairings.py [--sizes 100 180 300] [--round 5] [--runs 5] [--old-runs 2]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from broadcast.fide.crosstable import Bye, Crosstable, Game, Player, ResultCode, build_crosstable
from broadcast.fide.dutch import pair_round

ROUNDS = 9


def _result(rng: random.Random, white: int, black: int, ratings: dict[int, int]) -> str:
    if rng.random() < 0.02:
        return rng.choice(["+-", "-+"])
    expected = 1 / (1 + 10 ** ((ratings[black] - ratings[white]) / 400))
    roll = rng.random()
    if roll < 0.25:
        return "1/2-1/2"
    return "1-0" if rng.random() < expected else "0-1"


def field_before(players: int, round_number: int, seed: int = 7) -> Crosstable:
    """A Swiss of `players` played (with our engine) up to the round before `round_number`."""
    rng = random.Random(seed)
    entrants = [Player(i, f"P{i:03d}", 2700 - 4 * i) for i in range(1, players + 1)]
    ratings = {p.start: p.rating or 0 for p in entrants}
    games: list[Game] = []
    byes: list[Bye] = []
    for number in range(1, round_number):
        requested = set(rng.sample(range(1, players + 1), k=max(1, players // 100)))
        byes += [Bye(number, p, ResultCode.HALF_BYE) for p in sorted(requested)]
        table = build_crosstable(entrants, ROUNDS, games, byes)
        for pairing in pair_round(table, number, total_rounds=ROUNDS):
            if pairing.black is None:
                byes.append(Bye(number, pairing.white, ResultCode.PAIRING_BYE))
            else:
                outcome = _result(rng, pairing.white, pairing.black, ratings)
                games.append(Game(number, pairing.white, pairing.black, outcome))
    return build_crosstable(entrants, ROUNDS, games, byes)


def _times(pair: Callable[[], object], runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        start = time.perf_counter()
        pair()
        out.append(time.perf_counter() - start)
    return out


def _show(times: list[float]) -> str:
    if not times:
        return f"{'-':>22}"
    return f"{statistics.median(times):8.3f} s [{min(times):.3f}-{max(times):.3f}]"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 180, 300])
    parser.add_argument("--round", type=int, default=5)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--old-runs", type=int, default=2)
    args = parser.parse_args()
    old_pair: Callable[..., object] | None = None
    if args.old_runs:
        try:
            from old_dutch import pair_round as old_pair
        except ImportError as exc:  # caissify-pairings is a dev extra
            print(f"(caissify-pairings not installed: {exc}; old engine skipped)")
    print(
        f"FIDE Dutch, round {args.round} of {ROUNDS}: our engine ({args.runs} runs) against "
        f"caissify-pairings ({args.old_runs if old_pair else 0} runs); median [min-max]"
    )
    print(f"{'players':>7}  {'ours':>24}  {'caissify':>24}  {'caissify / ours':>15}")
    for n in args.sizes:
        table = field_before(n, args.round)
        ours = _times(lambda t=table: pair_round(t, args.round, total_rounds=ROUNDS), args.runs)
        old: list[float] = []
        if old_pair is not None:
            old = _times(
                lambda t=table, pair=old_pair: pair(t, args.round, total_rounds=ROUNDS),
                args.old_runs,
            )
        ratio = f"{statistics.median(old) / statistics.median(ours):14.0f}x" if old else ""
        print(f"{n:>7}  {_show(ours):>24}  {_show(old):>24}  {ratio:>15}", flush=True)


if __name__ == "__main__":
    main()
