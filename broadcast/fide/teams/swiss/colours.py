"""Colours in the team Swiss (FIDE C.04.6 1.6, 1.7 and Article 4), in terms of "named
first" (True) and "named second" (False): a team's colour difference, its colour
preference in the event's variant, which team of a pair is the first-team, and which of
the two is named first.

There are no absolute colour preferences for teams: colours never stop two teams from
meeting; they only weigh on the choice between pairings ([C8], [C9]).
"""

from __future__ import annotations

from dataclasses import dataclass

from broadcast.fide.teams.swiss.model import TeamRecord, TeamSwissRules

__all__ = ["Preference", "colour_difference", "first_team", "named_first", "preference"]


@dataclass(frozen=True, slots=True)
class Preference:
    """A team's wish for the next match: `first` (named first, or not), and whether the
    wish is strong (Type B; under Type A every preference counts as strong)."""

    first: bool
    strong: bool


def _played(team: TeamRecord) -> list[bool]:
    return [colour for colour in team.first_named if colour is not None]


def colour_difference(team: TeamRecord) -> int:
    """Matches named first minus matches named second, played matches only (1.6.2)."""
    played = _played(team)
    return sum(1 if colour else -1 for colour in played)


def preference(team: TeamRecord, round: int, rules: TeamSwissRules) -> Preference | None:
    """The team's colour preference for `round` in the event's variant (1.7)."""
    played = _played(team)
    if rules.colours == "none" or not played:
        return None
    cd = colour_difference(team)
    last_two = played[-2:] if len(played) >= 2 else []
    # Type A, and Type B's strong preference: a difference beyond one, or an even-ish
    # difference after the same colour twice running.
    if cd < -1 or (cd in (0, -1) and last_two == [False, False]):
        return Preference(first=True, strong=True)
    if cd > 1 or (cd in (0, 1) and last_two == [True, True]):
        return Preference(first=False, strong=True)
    if rules.colours == "A":
        return None
    # Type B's mild preference: one colour ahead, or level and alternating (not in the
    # last round, where a level team has no preference).
    if cd == -1:
        return Preference(first=True, strong=False)
    if cd == 1:
        return Preference(first=False, strong=False)
    if round >= rules.rounds:
        return None
    return Preference(first=not played[-1], strong=False)


def first_team(a: TeamRecord, b: TeamRecord, rules: TeamSwissRules) -> TeamRecord:
    """The pair's first-team (4.2): higher primary score, then higher secondary score
    (when the event uses it for colours), then the better rank."""

    def key(team: TeamRecord) -> tuple[float, float, int]:
        secondary = rules.secondary(team) if rules.secondary_for_colour else 0.0
        return (-rules.score(team), -secondary, team.rank)

    return min(a, b, key=key)


def _last_different(a: TeamRecord, b: TeamRecord) -> bool | None:
    """a's colour in the latest round where a and b both played with different colours."""
    rounds = min(len(a.first_named), len(b.first_named))
    for r in range(rounds - 1, -1, -1):
        ca, cb = a.first_named[r], b.first_named[r]
        if ca is not None and cb is not None and ca != cb:
            return ca
    return None


def named_first(a: TeamRecord, b: TeamRecord, round: int, rules: TeamSwissRules) -> bool:
    """Whether `a` is named first against `b` (Article 4.3, rules in descending priority)."""
    top = first_team(a, b, rules)
    other = b if top is a else a
    top_first = _top_named_first(top, other, round, rules)
    return top_first if top is a else not top_first


def _top_named_first(top: TeamRecord, other: TeamRecord, round: int, rules: TeamSwissRules) -> bool:
    played_top, played_other = _played(top), _played(other)
    if not played_top and not played_other:
        # 4.3.1: the initial colour to an odd-ranked first-team, the other colour otherwise
        return rules.initial_first if top.rank % 2 == 1 else not rules.initial_first
    pt, po = preference(top, round, rules), preference(other, round, rules)
    if pt is not None and po is None:  # 4.3.2: only one team has a preference
        return pt.first
    if po is not None and pt is None:
        return not po.first
    if pt is not None and po is not None:
        if pt.first != po.first:  # 4.3.3: opposite preferences, both granted
            return pt.first
        if rules.colours == "B" and pt.strong != po.strong:  # 4.3.4: the strong one
            return pt.first if pt.strong else not po.first
    cd_top, cd_other = colour_difference(top), colour_difference(other)
    if cd_top != cd_other:  # 4.3.5: the lower colour difference is named first
        return cd_top < cd_other
    last = _last_different(top, other)
    if last is not None:  # 4.3.6: alternate from the last time they differed
        return not last
    if pt is not None:  # 4.3.7: the first-team's preference
        return pt.first
    if played_top:  # 4.3.8: alternate the first-team's colour
        return not played_top[-1]
    return played_other[-1]  # 4.3.9: alternate the other team's colour
