"""Pairing a round of a team Swiss (FIDE C.04.6 Article 3): the pairing-allocated bye,
then bracket after bracket from the top scoregroup down, then the colours (Article 4)
and the order of the matches."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from broadcast.fide.teams.match import Match
from broadcast.fide.teams.swiss.bracket import pair_bracket
from broadcast.fide.teams.swiss.colours import named_first, preference
from broadcast.fide.teams.swiss.graph import pairable
from broadcast.fide.teams.swiss.model import NoTeamPairing, TeamRecord, TeamSwissRules
from broadcast.fide.teams.swiss.upfloaters import choose_upfloaters

__all__ = ["floaters_of", "pair_team_round"]


def pair_team_round(
    teams: Sequence[TeamRecord], round: int, rules: TeamSwissRules
) -> tuple[Match, ...]:
    """The matches of `round` for the teams to pair (withdrawn and absent teams left out
    by the caller), numbered in board order, the bye (if any) last. Raises NoTeamPairing
    when no pairing meets the absolute criteria."""
    if round < 1:
        raise NoTeamPairing(f"round {round} cannot be paired: rounds are numbered from 1")
    by_number = {t.number: t for t in teams}
    if len(by_number) != len(teams):
        raise NoTeamPairing("two teams have the same number: each team needs its own number")
    ranks = [t.rank for t in teams]
    if len(set(ranks)) != len(ranks):
        raise NoTeamPairing("two teams have the same rank: give every team its own pairing number")
    ranked = [t.number for t in sorted(teams, key=lambda t: t.rank)]

    def allowed(a: int, b: int) -> bool:  # [C1]: never the same two teams twice
        return b not in by_number[a].opponents and a not in by_number[b].opponents

    def score(n: int) -> float:
        return rules.score(by_number[n])

    bye = _bye(ranked, by_number, rules, allowed) if len(ranked) % 2 else None
    left = [n for n in ranked if n != bye]
    pairs: list[tuple[int, int]] = []
    late = rules.late(round)

    def floated(n: int) -> bool:  # [C7] and [C10], except in the last two rounds
        return not late and by_number[n].floated_last(round)

    while left:
        upfloaters = choose_upfloaters(left, score, allowed, floated)
        if upfloaters is None:
            raise NoTeamPairing(
                f"round {round} cannot be paired: the teams left cannot all meet a team they "
                "have not met yet (C.04.6 [C1], [C3]); the chief arbiter decides the pairing"
            )
        head = max(score(n) for n in left)
        pulled = set(upfloaters)
        bracket = [n for n in left if score(n) == head or n in pulled]
        found = pair_bracket(bracket, allowed, _costs(by_number, round, rules, pulled, late))
        if found is None:  # choose_upfloaters only offers pairable brackets
            raise NoTeamPairing(f"round {round}: a bracket of the top scoregroup cannot be paired")
        pairs.extend(found)
        left = [n for n in left if n not in set(bracket)]
    return _order(pairs, bye, by_number, round, rules)


def _bye(
    ranked: list[int],
    by_number: dict[int, TeamRecord],
    rules: TeamSwissRules,
    allowed: Callable[[int, int], bool],
) -> int:
    """The pairing-allocated bye (3.4): a team that has had neither a bye nor a forfeit
    win ([C2]) and leaves the others pairable; the lowest score, then the most matches
    played, then the lowest rank."""
    eligible = [
        by_number[n] for n in ranked if not by_number[n].had_bye and not by_number[n].won_by_forfeit
    ]
    for team in sorted(eligible, key=lambda t: (rules.score(t), -t.played, -t.rank)):
        if pairable([n for n in ranked if n != team.number], allowed):
            return team.number
    raise NoTeamPairing(
        "the round needs a pairing-allocated bye, but every team that may still receive one "
        "(no bye and no forfeit win yet, C.04.6 [C2]) would leave the others unpairable; "
        "the chief arbiter decides the pairing"
    )


def _costs(
    by_number: dict[int, TeamRecord],
    round: int,
    rules: TeamSwissRules,
    pulled: set[int],
    late: bool,
) -> Callable[[int, int], int]:
    """The bracket's price of a pair: [C8] above [C9] above [C10], one unit each."""
    size = len(by_number) + 1
    prefs = {n: preference(t, round, rules) for n, t in by_number.items()}

    def floated(n: int) -> bool:
        return by_number[n].floated_last(round)

    def cost(a: int, b: int) -> int:
        pa, pb = prefs[a], prefs[b]
        c8 = int(pa is not None and pb is not None and pa.first == pb.first)
        c9 = int(
            rules.colours == "B"
            and c8 == 1
            and pa is not None
            and pa.strong
            and pb is not None
            and pb.strong
        )
        c10 = 0
        if not late:
            c10 = int(a in pulled and floated(b)) + int(b in pulled and floated(a))
        return (c8 * size + c9) * size + c10

    return cost


def _order(
    pairs: list[tuple[int, int]],
    bye: int | None,
    by_number: dict[int, TeamRecord],
    round: int,
    rules: TeamSwissRules,
) -> tuple[Match, ...]:
    """Board order (C.04.2's rule for the order of the boards): the better score of the
    pair, then the pair's total score, then the better rank; the bye last."""

    def key(pair: tuple[int, int]) -> tuple[float, float, int]:
        a, b = by_number[pair[0]], by_number[pair[1]]
        sa, sb = rules.score(a), rules.score(b)
        return (-max(sa, sb), -(sa + sb), min(a.rank, b.rank))

    matches = []
    for number, (a, b) in enumerate(sorted(pairs, key=key), start=1):
        first = named_first(by_number[a], by_number[b], round, rules)
        matches.append(Match(number, a if first else b, b if first else a))
    if bye is not None:
        matches.append(Match(len(matches) + 1, bye, None))
    return tuple(matches)


def floaters_of(
    teams: Sequence[TeamRecord], matches: Sequence[Match], rules: TeamSwissRules
) -> frozenset[int]:
    """The teams of `matches` that meet an opponent with another score (C.04.6 1.5): what
    the next round's `TeamRecord.floated` records for this one. `teams` are the records
    the round was paired from."""
    by_number = {t.number: t for t in teams}
    out: set[int] = set()
    for match in matches:
        other = None if match.second is None else by_number[match.second]
        if other is not None and rules.score(by_number[match.first]) != rules.score(other):
            out |= {match.first, other.number}
    return frozenset(out)
