"""The prize list from final standings, per the section's `[section.prizes]`.

Place prizes go by rank; with ties "share", players still level after every tie-break
(one rank) share the prizes of the places they occupy equally; with "share-points",
players level on points do (the tie-breaks rank them, the money is shared). Pools ("wins") are split
equally per win: each win is worth amount / total wins (a forfeit win counts unless
`forfeit_wins = false`). The list is provisional while rounds remain or a play-off has
not decided first place (the tied players share meanwhile).

A withheld prize (the arbiter's decision, or an elimination the config says loses
prizes) passes to the next eligible player: the player is left out of the ranking the
places are paid by, and their wins out of the pools, so everyone below moves up. With
`withheld = "not-awarded"` nobody moves up: the prize the player won is listed with
them as not paid.
Where the regulation states a tax retention, each line shows gross and net; the threshold
applies to each prize on its own (place, category, the pools) unless the config says it
applies to the total.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass

from broadcast.config.model import PrizeCategory, PrizeRules
from broadcast.fide.crosstable import Crosstable, Player
from broadcast.fide.standings import StandingRow, Standings


@dataclass(frozen=True, slots=True)
class PrizeLine:
    start: int
    name: str
    rank: int
    place: float
    pool: float
    retention: float = 0.0  # the tax retained (0: none stated, or no prize above it)
    category: float = 0.0  # a category prize ([[section.prizes.category]])
    category_name: str = ""  # its category's name (several: joined with ", ")

    @property
    def total(self) -> float:
        """The gross prize."""
        return round(self.place + self.category + self.pool, 2)

    @property
    def net(self) -> float:
        """What is paid after the retention."""
        return round(self.total - self.retention, 2)


@dataclass(frozen=True, slots=True)
class WithheldPrize:
    """A player left out of the prize list, and why (shown with the list)."""

    start: int
    name: str
    reason: str
    amount: float = 0.0  # the prize not paid ("not-awarded"); 0 when it passed on


@dataclass(frozen=True, slots=True)
class PrizeList:
    lines: tuple[PrizeLine, ...]
    currency: str
    provisional: bool
    withheld: tuple[WithheldPrize, ...] = ()
    retention: bool = False  # the regulation states a retention: show gross and net

    def as_json(self) -> dict[str, object]:
        return {
            "currency": self.currency,
            "provisional": self.provisional,
            "retention_stated": self.retention,
            "prizes": [
                {
                    "start": p.start,
                    "name": p.name,
                    "rank": p.rank,
                    "place": p.place,
                    "pool": p.pool,
                    "category": p.category,
                    "category_name": p.category_name,
                    "total": p.total,
                    "retention": p.retention,
                    "net": p.net,
                }
                for p in self.lines
            ],
            "withheld": [
                {"start": w.start, "name": w.name, "reason": w.reason, "not_paid": w.amount}
                for w in self.withheld
            ],
        }


def wins_of(crosstable: Crosstable, *, forfeits: bool = True) -> dict[int, int]:
    """Rounds each player won: over the board, and by forfeit unless `forfeits` is False."""
    return {
        start: sum(
            1
            for e in row
            if e.opponent is not None
            and e.result is not None
            and e.result.outcome == "win"
            and (forfeits or not e.result.is_forfeit)
        )
        for start, row in ((p.start, r) for p, r in crosstable)
    }


def _groups(rules: PrizeRules, rows: list[StandingRow]) -> list[list[StandingRow]]:
    """The eligible rows in order, grouped by who shares ("tiebreak": nobody)."""
    groups: list[list[StandingRow]] = []
    for row in rows:
        if groups and rules.ties != "tiebreak":
            last = groups[-1][-1]
            level = (
                last.points == row.points if rules.ties == "share-points" else last.rank == row.rank
            )
            if level:
                groups[-1].append(row)
                continue
        groups.append([row])
    return groups


def compute_prizes(
    rules: PrizeRules,
    standings: Standings,
    crosstable: Crosstable,
    *,
    final: bool = True,
    withheld: Mapping[int, str] | None = None,
    disqualified: Mapping[int, str] | None = None,
) -> PrizeList:
    """The prize list; `final` False (rounds still to play) makes it provisional;
    `withheld` (player -> reason) are left out: their prizes pass on, or with
    `rules.withheld == "not-awarded"` are not paid to anyone. `disqualified` (player ->
    reason) are out of the prize ranking whatever `rules.withheld` says: the next
    player takes their prize."""
    kept_out = dict(disqualified or {})
    if withheld and rules.withheld == "not-awarded":
        whole = compute_prizes(rules, standings, crosstable, final=final, withheld=kept_out)
        unpaid = {line.start: line.total for line in whole.lines}
        return PrizeList(
            tuple(line for line in whole.lines if line.start not in withheld),
            whole.currency,
            whole.provisional,
            tuple(
                WithheldPrize(r.start, r.name, withheld[r.start], unpaid.get(r.start, 0.0))
                if r.start in withheld
                else WithheldPrize(r.start, r.name, kept_out[r.start])
                for r in standings.rows
                if r.start in withheld or r.start in kept_out
            ),
            whole.retention,
        )
    out = {**kept_out, **(withheld or {})}
    # A player the withdrawal rule leaves out of the standings is out of the prizes too.
    eligible = [r for r in standings.rows if r.start not in out and not r.excluded]
    players = {p.start: p for p, _ in crosstable}
    if rules.categories:
        place, category, names = _with_categories(rules, eligible, players)
    else:
        place, category, names = _places(rules, eligible), {}, {}
    pool: dict[int, float] = defaultdict(float)
    wins = {
        start: count
        for start, count in wins_of(crosstable, forfeits=rules.forfeit_wins).items()
        if start not in out
    }
    total_wins = sum(wins.values())
    for prize_pool in rules.pools:
        if total_wins == 0:
            continue
        per_win = prize_pool.amount / total_wins
        for start, count in wins.items():
            pool[start] += round(per_win * count, 2)
    lines = tuple(
        PrizeLine(
            r.start,
            r.name,
            r.rank,
            place.get(r.start, 0.0),
            pool[r.start],
            _retained(
                rules,
                (place.get(r.start, 0.0), category.get(r.start, 0.0), pool[r.start]),
                players[r.start].federation if r.start in players else "",
            ),
            category.get(r.start, 0.0),
            names.get(r.start, ""),
        )
        for r in eligible
        if place.get(r.start, 0.0) + category.get(r.start, 0.0) + pool[r.start]
    )
    left_out = tuple(
        WithheldPrize(r.start, r.name, out[r.start]) for r in standings.rows if r.start in out
    )
    provisional = not final or any(r.undecided for r in standings.rows)
    return PrizeList(lines, rules.currency, provisional, left_out, rules.retention is not None)


def _places(rules: PrizeRules, eligible: list[StandingRow]) -> dict[int, float]:
    """Place prizes down the eligible players, level groups sharing per `ties`."""
    place: dict[int, float] = defaultdict(float)
    position = 0
    for group in _groups(rules, eligible):
        amounts = rules.places[position : position + len(group)]
        position += len(group)
        for row in group:
            place[row.start] += round(sum(amounts) / len(group), 2)
    return place


def _birth_year(player: Player | None) -> int | None:
    text = player.birth[:4] if player is not None else ""
    return int(text) if text.isdigit() else None


def _members(
    category: PrizeCategory, eligible: list[StandingRow], players: Mapping[int, Player]
) -> list[int]:
    out = []
    for row in eligible:
        p = players.get(row.start)
        rating = (p.rating or 0) if p is not None else 0  # no FIDE rating counts as 0
        sex = p.sex if p is not None else ""
        fed = p.federation if p is not None else ""
        if category.admits(row.start, rating, sex, _birth_year(p), fed):
            out.append(row.start)
    return out


def _with_categories(
    rules: PrizeRules, eligible: list[StandingRow], players: Mapping[int, Player]
) -> tuple[dict[int, float], dict[int, float], dict[int, str]]:
    """Place prizes, category prizes and category names per player.

    Several prizes allowed: the places as without categories, and each category down its
    own members. One prize per player: every prize, the largest first (equal amounts in
    `order`, then general before the categories as listed), goes to the best-ranked
    player who may have it and has none yet, so each player ends with the larger one and
    the other passes on. Level players (per `ties`) who took place prizes then share them.
    """
    members = {c.name: _members(c, eligible, players) for c in rules.categories}
    category: dict[int, float] = defaultdict(float)
    names: dict[int, list[str]] = defaultdict(list)
    if not rules.one_prize_per_player:
        for c in rules.categories:
            for start, amount in zip(members[c.name], c.places, strict=False):
                category[start] += amount
                names[start].append(c.name)
        return _places(rules, eligible), category, {k: ", ".join(v) for k, v in names.items()}
    listed = ["general", *(c.name for c in rules.categories)]
    rank = {
        name: (rules.order.index(name) if name in rules.order else len(rules.order) + i)
        for i, name in enumerate(listed)
    }
    slots = [("general", i, a) for i, a in enumerate(rules.places)] + [
        (c.name, i, a) for c in rules.categories for i, a in enumerate(c.places)
    ]
    slots.sort(key=lambda s: (-s[2], rank[s[0]], s[1]))
    everyone = [r.start for r in eligible]
    general: dict[int, float] = {}
    for name, _, amount in slots:
        pool = everyone if name == "general" else members[name]
        winner = next((p for p in pool if p not in general and p not in names), None)
        if winner is None:
            continue
        if name == "general":
            general[winner] = amount
        else:
            category[winner] = amount
            names[winner].append(name)
    place: dict[int, float] = defaultdict(float)
    for group in _groups(rules, eligible):
        sharing = [r.start for r in group if r.start not in names]
        total = sum(general.get(s, 0.0) for s in sharing)
        for start in sharing:
            if total:
                place[start] = round(total / len(sharing), 2)
    return place, category, {k: ", ".join(v) for k, v in names.items()}


def _retained(rules: PrizeRules, prizes: tuple[float, ...], federation: str) -> float:
    """The tax retained from a player's prizes (place, category, pools). "each-prize":
    each prize above the threshold is taxed, whole, and the others not (Pamplona art. 6,
    "prizes higher than 500 EUR": a 500 place and a 350 pool share are two prizes, neither
    above it); "total": the sum, when it is above. "Higher than": the threshold itself is
    not taxed. One rounding, of the sum taxed."""
    tax = rules.retention
    if tax is None:
        return 0.0
    if tax.applies_to == "total":
        taxed = [sum(prizes)] if round(sum(prizes), 2) > tax.above else []
    else:
        taxed = [p for p in prizes if round(p, 2) > tax.above]
    return round(sum(taxed) * tax.rate_for(federation) / 100, 2) if taxed else 0.0


__all__ = ["PrizeLine", "PrizeList", "WithheldPrize", "compute_prizes", "wins_of"]
