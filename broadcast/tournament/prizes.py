"""The prize list from final standings, per the section's `[section.prizes]`.

Place prizes go by rank; with ties "share", players still level after every tie-break
(one rank) share the prizes of the places they occupy equally; with "share-points",
players level on points do (the tie-breaks rank them, the money is shared). Pools ("wins") are split
equally per win: each win is worth amount / total wins. The list is provisional while
rounds remain or a play-off has not decided first place (the tied players share meanwhile).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from broadcast.config.model import PrizeRules
from broadcast.fide.crosstable import Crosstable
from broadcast.fide.standings import Standings


@dataclass(frozen=True, slots=True)
class PrizeLine:
    start: int
    name: str
    rank: int
    place: float
    pool: float

    @property
    def total(self) -> float:
        return round(self.place + self.pool, 2)


@dataclass(frozen=True, slots=True)
class PrizeList:
    lines: tuple[PrizeLine, ...]
    currency: str
    provisional: bool

    def as_json(self) -> dict[str, object]:
        return {
            "currency": self.currency,
            "provisional": self.provisional,
            "prizes": [
                {
                    "start": p.start,
                    "name": p.name,
                    "rank": p.rank,
                    "place": p.place,
                    "pool": p.pool,
                    "total": p.total,
                }
                for p in self.lines
            ],
        }


def wins_of(crosstable: Crosstable) -> dict[int, int]:
    """Rounds each player won (over the board or by forfeit)."""
    return {
        start: sum(
            1
            for e in row
            if e.opponent is not None and e.result is not None and e.result.outcome == "win"
        )
        for start, row in ((p.start, r) for p, r in crosstable)
    }


def compute_prizes(
    rules: PrizeRules, standings: Standings, crosstable: Crosstable, *, final: bool = True
) -> PrizeList:
    """The prize list; `final` False (rounds still to play) makes it provisional."""
    place: dict[int, float] = defaultdict(float)
    by_rank: dict[int, list[int]] = defaultdict(list)
    if rules.ties == "share-points":
        # Level on points: one group, from the place of its first member on.
        first: dict[float, int] = {}
        for i, row in enumerate(standings.rows, 1):
            by_rank[first.setdefault(row.points, i)].append(row.start)
    else:
        for row in standings.rows:
            by_rank[row.rank].append(row.start)
    for rank, starts in by_rank.items():
        if rules.ties == "tiebreak":
            ordered = starts  # the standings order already broke the tie
            for i, start in enumerate(ordered):
                index = rank - 1 + i
                if index < len(rules.places):
                    place[start] += rules.places[index]
            continue
        amounts = rules.places[rank - 1 : rank - 1 + len(starts)]
        for start in starts:
            place[start] += round(sum(amounts) / len(starts), 2)
    pool: dict[int, float] = defaultdict(float)
    wins = wins_of(crosstable)
    total_wins = sum(wins.values())
    for prize_pool in rules.pools:
        if total_wins == 0:
            continue
        per_win = prize_pool.amount / total_wins
        for start, count in wins.items():
            pool[start] += round(per_win * count, 2)
    lines = tuple(
        PrizeLine(r.start, r.name, r.rank, place[r.start], pool[r.start])
        for r in standings.rows
        if place[r.start] or pool[r.start]
    )
    provisional = not final or any(r.undecided for r in standings.rows)
    return PrizeList(lines, rules.currency, provisional)


__all__ = ["PrizeLine", "PrizeList", "compute_prizes", "wins_of"]
