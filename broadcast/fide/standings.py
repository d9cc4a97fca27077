"""Standings: rank by points, then by a FIDE tie-break list; players still equal share a place.

Live standings during a round use the results only: entries whose result is None (game in
progress, round not played) count for nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from broadcast.fide.crosstable import Crosstable
from broadcast.fide.tiebreaks.buchholz import buchholz, sonneborn_berger
from broadcast.fide.tiebreaks.context import Context, make_context
from broadcast.fide.tiebreaks.counts import (
    black_played,
    black_won,
    koya,
    progressive,
    won,
)
from broadcast.fide.tiebreaks.counts import wins as count_wins
from broadcast.fide.tiebreaks.direct_encounter import direct_encounter
from broadcast.fide.tiebreaks.ratings import apro, aro, tpr
from broadcast.fide.tiebreaks.spec import (
    DEFAULT_EDITION,
    Edition,
    TiebreakError,
    TiebreakSpec,
    parse_tiebreaks,
)

Value = float | None


@dataclass(frozen=True)
class StandingRow:
    """One line of the standings; ``tiebreaks`` maps each label (e.g. ``BH-C1``) to its value."""

    rank: int
    start: int
    name: str
    points: float
    tiebreaks: Mapping[str, Value]
    rating: int | None = None
    federation: str = ""
    title: str = ""
    # Why the row is special: "play-off for 1st pending", "withdrawn from round 4", ...
    note: str = ""
    undecided: bool = False  # level for a place a play-off decides, not played yet
    # Left out of the ranking (FIDE's round-robin withdrawal rule): listed last, no rank
    # of their own, no tie-breaks, no prize; `note` says why.
    excluded: bool = False


@dataclass(frozen=True)
class Standings:
    """Rows best first; equal rows (after every tie-break) share a rank."""

    rows: tuple[StandingRow, ...]
    tiebreaks: tuple[TiebreakSpec, ...]
    edition: Edition
    rounds: int

    def as_json(self) -> list[dict[str, object]]:
        """Plain data for JSON: rank, start, name, points, tiebreaks (label -> number),
        and the row's note and flags."""
        return [
            {
                "rank": r.rank,
                "start": r.start,
                "name": r.name,
                "points": r.points,
                "rating": r.rating,
                "federation": r.federation,
                "title": r.title,
                "tiebreaks": dict(r.tiebreaks),
                "note": r.note,
                "undecided": r.undecided,
                "excluded": r.excluded,
            }
            for r in self.rows
        ]


def _global(spec: TiebreakSpec) -> Callable[[Context], Mapping[int, Value]] | None:
    """The function for a tie-break that does not depend on who is tied (all but DE)."""
    code = spec.code
    table: dict[str, Callable[[Context], Mapping[int, Value]]] = {
        "WIN": count_wins,
        "WON": won,
        "BPG": black_played,
        "BWG": black_won,
        "PS": lambda c: progressive(c, spec),
        "KS": lambda c: koya(c, spec),
        "BH": lambda c: buchholz(c, spec),
        "SB": lambda c: sonneborn_berger(c, spec),
        "ARO": lambda c: aro(c, spec),
        "TPR": tpr,
        "APRO": apro,
    }
    return table.get(code)


def _sort_key(value: Value, lower_is_better: bool) -> tuple[int, float]:
    if value is None:
        return (1, 0.0)  # no value ranks after any value
    return (0, value if lower_is_better else -value)


def compute_standings(
    crosstable: Crosstable,
    tiebreaks: str | Sequence[str] | Sequence[TiebreakSpec] = (),
    *,
    edition: Edition = DEFAULT_EDITION,
    rounds: int | None = None,
    unrated_rating: int | None = None,
) -> Standings:
    """Standings after ``rounds`` rounds (default: every round with a result).

    ``tiebreaks`` is a list like ``"BH-C1,SB,PS,DE,APRO"`` or parsed specs. Opponents
    without a rating are left out of ARO/TPR/APRO unless ``unrated_rating`` is given.
    """
    if edition not in (2024, 2026):
        raise TiebreakError(f"unknown tie-break edition {edition!r}; use 2024 or 2026")
    specs: list[TiebreakSpec]
    if isinstance(tiebreaks, str):
        specs = parse_tiebreaks(tiebreaks)
    elif all(isinstance(t, TiebreakSpec) for t in tiebreaks):
        specs = [t for t in tiebreaks if isinstance(t, TiebreakSpec)]
    else:
        specs = parse_tiebreaks([str(t) for t in tiebreaks])
    if edition == 2026 and crosstable.system == "round-robin":
        for spec in specs:
            if spec.code == "BH":
                raise TiebreakError(
                    f"{spec.label} is not used for round robins in the 2026 edition of C.07; "
                    "use SB, DE, WIN or KS, or choose edition 2024"
                )
    ctx = make_context(crosstable, rounds=rounds, edition=edition, unrated_rating=unrated_rating)
    values: dict[str, dict[int, Value]] = {}
    starts = crosstable.starts()

    # Groups of players still tied, best first; start with points.
    order = sorted(starts, key=lambda s: (-ctx.score[s], s))
    groups: list[list[int]] = []
    for s in order:
        if groups and ctx.score[groups[-1][0]] == ctx.score[s]:
            groups[-1].append(s)
        else:
            groups.append([s])

    for spec in specs:
        label = spec.label
        column: dict[int, Value] = {}
        if spec.code == "DE":
            for group in groups:
                column.update(direct_encounter(ctx, group))
        else:
            func = _global(spec)
            assert func is not None  # parse_tiebreaks only yields known codes
            column.update(func(ctx))
        values[label] = column
        lower = spec.code == "DE"
        new_groups: list[list[int]] = []
        for group in groups:
            if len(group) == 1:
                new_groups.append(group)
                continue
            ordered = sorted(group, key=lambda s: (_sort_key(column[s], lower), s))
            current: list[int] = []
            for s in ordered:
                if current and column[current[0]] != column[s]:
                    new_groups.append(current)
                    current = []
                current.append(s)
            new_groups.append(current)
        groups = new_groups

    rows: list[StandingRow] = []
    rank = 1
    for group in groups:
        for s in sorted(group):
            player = crosstable.player(s)
            rows.append(
                StandingRow(
                    rank=rank,
                    start=s,
                    name=player.name,
                    points=ctx.score[s],
                    tiebreaks={label: values[label][s] for label in values},
                    rating=player.rating,
                    federation=player.federation,
                    title=player.title,
                )
            )
        rank += len(group)
    return Standings(tuple(rows), tuple(specs), edition, ctx.rounds)


__all__ = ["StandingRow", "Standings", "Value", "compute_standings"]
