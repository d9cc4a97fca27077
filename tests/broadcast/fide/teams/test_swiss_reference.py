"""The team Swiss's whole-round pairing against a plain reading of C.04.6 3.4-3.6, on
small events where every choice can be enumerated: the bye, each bracket's upfloaters
([C4] to [C7], then 3.5.4's order) and each bracket's pairing ([C1], [C8] to [C10], then
3.6's identifier order). Written from the text, sharing no search with the engine."""

from __future__ import annotations

from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st

from broadcast.fide.teams.swiss import NoTeamPairing, TeamRecord, TeamSwissRules
from broadcast.fide.teams.swiss.colours import preference
from tests.broadcast.fide.teams.test_swiss_bracket import all_pairings
from tests.support.team_swiss_events import play_event


class Reference:
    def __init__(self, teams: tuple[TeamRecord, ...], round: int, rules: TeamSwissRules) -> None:
        self.by = {t.number: t for t in teams}
        self.round, self.rules = round, rules
        self.late = round >= rules.rounds - 1

    def ok(self, a: int, b: int) -> bool:
        return b not in self.by[a].opponents and a not in self.by[b].opponents

    def legal(self, teams: list[int]) -> list[list[tuple[int, int]]]:
        return [p for p in all_pairings(teams) if all(self.ok(a, b) for a, b in p)]

    def score(self, n: int) -> float:
        return self.rules.score(self.by[n])

    def floated(self, n: int) -> bool:
        return not self.late and self.by[n].floated_last(self.round)

    def rank(self, teams: list[int] | set[int]) -> list[int]:
        return sorted(teams, key=lambda n: self.by[n].rank)

    def bye(self, teams: list[int]) -> int | None:
        if len(teams) % 2 == 0:
            return None
        ok = [n for n in teams if not self.by[n].had_bye and not self.by[n].won_by_forfeit]
        ok = [n for n in ok if self.legal([m for m in teams if m != n])]
        return min(ok, key=lambda n: (self.score(n), -self.by[n].played, -self.by[n].rank))

    def upfloater_sets(self, top: list[int], lower: list[int]) -> list[tuple[int, ...]]:
        """The legal sets of the least size ([C3], [C4])."""
        for size in range(len(top) % 2, len(lower) + 1, 2):
            found = [
                u
                for u in combinations(lower, size)
                if self.legal(top + list(u)) and self.legal([n for n in lower if n not in u])
            ]
            if found:
                return found
        raise AssertionError("no legal round pairing")

    def c6(self, rest: list[int]) -> int:
        if not rest:
            return 0
        head = max(self.score(n) for n in rest)
        group = [n for n in rest if self.score(n) == head]
        return len(self.upfloater_sets(group, [n for n in rest if n not in group])[0])

    def choose(self, left: list[int]) -> tuple[int, ...]:
        head = max(self.score(n) for n in left)
        top = [n for n in left if self.score(n) == head]
        lower = [n for n in left if self.score(n) != head]
        sets = self.upfloater_sets(top, lower)

        def c5(u: tuple[int, ...]) -> list[float]:
            return sorted((-self.score(n) for n in u), reverse=True)  # least ascending score first

        best5 = min(c5(u) for u in sets)
        sets = [u for u in sets if c5(u) == best5]
        following = max((self.score(n) for n in lower), default=None)

        def key(u: tuple[int, ...]) -> tuple[int, int, list[tuple[float, int]]]:
            rest = [n for n in lower if n not in u]
            emptied = not any(self.score(n) == following for n in rest)
            c6 = 0 if emptied else self.c6(rest)
            order = sorted((-self.score(n), self.by[n].rank) for n in u)
            return c6, sum(self.floated(n) for n in u), order

        return min(sets, key=key)

    def bracket(self, teams: list[int], pulled: set[int]) -> list[tuple[int, int]]:
        prefs = {n: preference(self.by[n], self.round, self.rules) for n in teams}

        def cost(a: int, b: int) -> tuple[int, int, int]:
            pa, pb = prefs[a], prefs[b]
            same = pa is not None and pb is not None and pa.first == pb.first
            strong = self.rules.colours == "B" and same and pa.strong and pb.strong  # type: ignore[union-attr]
            c10 = (a in pulled and self.floated(b)) + (b in pulled and self.floated(a))
            return int(same), int(strong), int(c10)

        def key(p: list[tuple[int, int]]) -> tuple[tuple[int, ...], list[int]]:
            costs = [cost(a, b) for a, b in p]
            total = tuple(sum(c[i] for c in costs) for i in range(3))
            pairs = sorted((min(a, b, key=self.rank_of), max(a, b, key=self.rank_of)) for a, b in p)
            pairs.sort(key=lambda q: self.rank_of(q[0]))
            return total, [self.rank_of(a) for a, _ in pairs] + [self.rank_of(b) for _, b in pairs]

        return min(self.legal(teams), key=key)

    def rank_of(self, n: int) -> int:
        return self.by[n].rank

    def pair(self) -> set[frozenset[int]]:
        left = self.rank(list(self.by))
        bye = self.bye(left)
        left = [n for n in left if n != bye]
        out: set[frozenset[int]] = set() if bye is None else {frozenset((bye,))}
        while left:
            pulled = self.choose(left)
            head = max(self.score(n) for n in left)
            bracket = self.rank([n for n in left if self.score(n) == head or n in pulled])
            out |= {frozenset(p) for p in self.bracket(bracket, set(pulled))}
            left = [n for n in left if n not in bracket]
        return out


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    teams=st.integers(6, 10),
    colours=st.sampled_from(["A", "B", "none"]),
    primary=st.sampled_from(["match-points", "game-points"]),
)
def test_every_round_matches_the_rules_read_plainly(
    seed: int, teams: int, colours: str, primary: str
) -> None:
    rules = TeamSwissRules(rounds=min(teams - 2, 7), colours=colours, primary=primary)  # type: ignore[arg-type]
    try:
        event = play_event(teams, rules, seed, forfeits=0.1)
    except NoTeamPairing:  # a small field can run out of new opponents
        return
    for round, (before, matches) in enumerate(
        zip(event.before, event.rounds, strict=True), start=1
    ):
        engine = {frozenset(m.teams()) for m in matches}
        assert engine == Reference(before, round, rules).pair(), f"round {round}"
