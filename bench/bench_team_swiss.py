"""FIDE team Swiss (C.04.6): how long a whole 40-team, 9-round event takes to pair.

The event is played through `broadcast.fide.teams.swiss.pair_team_round` with seeded
results (tests/support/team_swiss_events.py: four boards, the better-ranked team a little
stronger, a whole match forfeited now and then), `--runs` times for each colour variant.
Printed: median and spread (min-max) of the whole event and of its slowest round. Figures
only; nothing is asserted.

    python bench/bench_team_swiss.py [--teams 40] [--rounds 9] [--runs 7] [--seed 1]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from broadcast.fide.teams.swiss import TeamSwissRules, pair_team_round
from tests.support.team_swiss_events import play_event


def spread(values: list[float]) -> str:
    ms = [v * 1000 for v in values]
    return f"median {statistics.median(ms):8.1f} ms   spread {min(ms):.1f}-{max(ms):.1f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--teams", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(f"team Swiss, {args.teams} teams, {args.rounds} rounds, {args.runs} runs each")
    for colours in ("A", "B", "none"):
        rules = TeamSwissRules(rounds=args.rounds, colours=colours)  # type: ignore[arg-type]
        event = play_event(args.teams, rules, args.seed)
        whole: list[float] = []
        slowest: list[float] = []
        for _ in range(args.runs):
            times = []
            for number, before in enumerate(event.before, start=1):
                start = time.perf_counter()
                pair_team_round(before, number, rules)
                times.append(time.perf_counter() - start)
            whole.append(sum(times))
            slowest.append(max(times))
        print(f"  Type {colours:4}  event: {spread(whole)}")
        print(f"  Type {colours:4}  worst round: {spread(slowest)}")


if __name__ == "__main__":
    main()
