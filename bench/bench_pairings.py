"""Dutch pairing time for 100, 300 and 500 players (FIDE Dutch via caissify_pairings).

For each size: round 1 (no history) and round 2 (after a random round 1), compared
with the Berger table for the same number of players measured in the same run, as a
ratio. Figures only; nothing is asserted.
"""

from __future__ import annotations

import random
import sys
import time

from broadcast.fide.berger import berger_table
from broadcast.fide.crosstable import Bye, Game, Player, ResultCode, build_crosstable
from broadcast.fide.dutch import pair_round


def _timed(fn: object, *args: object, **kwargs: object) -> tuple[float, object]:
    start = time.perf_counter()
    result = fn(*args, **kwargs)  # type: ignore[operator]
    return time.perf_counter() - start, result


def main(sizes: list[int]) -> None:
    rng = random.Random(4)
    print(
        f"{'players':>7}  {'berger all rounds':>17}  {'dutch r1':>9}  {'dutch r2':>9}  {'r2 / berger':>11}"
    )
    for n in sizes:
        players = [Player(i, f"P{i}", 2700 - i) for i in range(1, n + 1)]
        berger_s, _ = _timed(berger_table, n)
        r1_s, r1 = _timed(pair_round, build_crosstable(players, 9), 1, total_rounds=9)
        games = []
        byes = []
        for p in r1:  # type: ignore[attr-defined]
            if p.black is None:
                byes.append(Bye(1, p.white, ResultCode.PAIRING_BYE))
            else:
                games.append(Game(1, p.white, p.black, rng.choice(["1-0", "0-1", "1/2-1/2"])))
        ct = build_crosstable(players, 9, games, byes)
        r2_s, _ = _timed(pair_round, ct, 2, total_rounds=9)
        print(
            f"{n:>7}  {berger_s * 1000:>14.2f} ms  {r1_s:>7.3f} s  {r2_s:>7.3f} s  "
            f"{r2_s / berger_s:>10.0f}x"
        )
        sys.stdout.flush()


if __name__ == "__main__":
    # The Dutch engine (caissify-pairings, pure Python matching) grows steeply: 300 players
    # take minutes per round. Pass sizes to measure more: python bench/bench_pairings.py 300
    main([int(a) for a in sys.argv[1:]] or [50, 100])
