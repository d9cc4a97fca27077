"""Standings of a 500-player, 9-round Swiss with 5 tie-breaks, timed next to gacrux.

Run: .venv/bin/python bench/bench_standings.py [--players 500] [--rounds 9] [--repeat 3]
Prints our time (TRF parse + standings), gacrux's time on the same TRF text (parse +
tie-breaks; FIDE's reference code, a dev dependency) and the ratio. Figures only, no
assertions.
"""

from __future__ import annotations

import argparse
import random
import time

from broadcast.fide.crosstable import Bye, Game, Player, ResultCode, build_crosstable
from broadcast.fide.standings import compute_standings
from broadcast.fide.trf import read_trf, write_trf

TIEBREAKS = ["BH-C1", "SB", "PS", "DE", "APRO"]


def make_swiss(players: int, rounds: int, seed: int = 2025) -> str:
    """A plausible Swiss (pairings by score groups, rating-weighted results) as TRF text."""
    rng = random.Random(seed)
    people = [Player(i, f"Player {i:04d}", 2700 - 3 * i) for i in range(1, players + 1)]
    score = {p.start: 0.0 for p in people}
    games: list[Game] = []
    byes: list[Bye] = []
    for r in range(1, rounds + 1):
        order = sorted(score, key=lambda s: (-score[s], s))
        if len(order) % 2:
            bye = order.pop()
            byes.append(Bye(r, bye, ResultCode.PAIRING_BYE))
            score[bye] += 1
        for a, b in zip(order[0::2], order[1::2], strict=True):
            x = rng.random()
            diff = (b - a) / players  # lower start = stronger
            result = "1-0" if x < 0.4 + diff else "1/2-1/2" if x < 0.7 + diff else "0-1"
            if rng.random() < 0.01:
                result = "+-"
            white, black = (a, b) if rng.random() < 0.5 else (b, a)
            if white != a:
                result = {"1-0": "0-1", "0-1": "1-0", "+-": "-+"}.get(result, result)
            games.append(Game(r, white, black, result))
            pts = {
                "1-0": (1.0, 0.0),
                "0-1": (0.0, 1.0),
                "1/2-1/2": (0.5, 0.5),
                "+-": (1.0, 0.0),
                "-+": (0.0, 1.0),
            }
            score[white] += pts[result][0]
            score[black] += pts[result][1]
    return write_trf(build_crosstable(people, rounds, games, byes))


def ours(text: str) -> object:
    ct = read_trf(text).crosstable
    return compute_standings(ct, TIEBREAKS, edition=2024)


def theirs(text: str, rounds: int) -> object:
    from gacrux.tiebreak import tiebreak
    from gacrux.trf2json import trf2json

    chessfile = trf2json()
    chessfile.parse_file(text, 0)
    tournament = chessfile.get_tournament(1)
    names = ["PTS"] + [t.replace("-", "/") + "/V2024" for t in TIEBREAKS]
    params = {
        "tiebreak": names,
        "check": False,
        "current_round": rounds,
        "unrated": None,
        "swiss": True,
    }
    return tiebreak(tournament, rounds, params).compute_tiebreaks(tournament, params)


def best_of(repeat: int, func: object, *args: object) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        func(*args)  # type: ignore[operator]
        best = min(best, time.perf_counter() - t0)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--players", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    text = make_swiss(args.players, args.rounds)
    mine = best_of(args.repeat, ours, text)
    print(
        f"boardwire standings ({args.players} players, {args.rounds} rounds, {','.join(TIEBREAKS)}): {mine * 1000:8.1f} ms"
    )
    try:
        ref = best_of(args.repeat, theirs, text, args.rounds)
    except ImportError:
        print("gacrux not installed: no reference figure")
        return
    print(
        f"gacrux (reference, same TRF)                                       : {ref * 1000:8.1f} ms"
    )
    print(f"ratio boardwire / gacrux: {mine / ref:.2f}")


if __name__ == "__main__":
    main()
