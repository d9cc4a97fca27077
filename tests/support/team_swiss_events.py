"""Whole team-Swiss events played through `pair_team_round` with seeded random results:
for the property tests of the team Swiss and its benchmark. A match is played on four
boards, the better-ranked team a little more likely to win each game; now and then a
whole match is forfeited (no colours, the two may meet again, the winner may not get the
bye). The bye is scored as a drawn match (C.04.6 1.4)."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from broadcast.fide.teams.match import Match
from broadcast.fide.teams.swiss import TeamRecord, TeamSwissRules, floaters_of, pair_team_round

__all__ = ["PlayedEvent", "Sheet", "play_event", "records"]

BOARDS = 4


@dataclass
class Sheet:
    """A team's running record while an event is played."""

    number: int
    rank: int
    match_points: float = 0.0
    game_points: float = 0.0
    opponents: list[int | None] = field(default_factory=list)
    first_named: list[bool | None] = field(default_factory=list)
    floated: list[bool] = field(default_factory=list)
    had_bye: bool = False
    won_by_forfeit: bool = False

    def record(self) -> TeamRecord:
        return TeamRecord(
            number=self.number,
            rank=self.rank,
            match_points=self.match_points,
            game_points=self.game_points,
            opponents=tuple(self.opponents),
            first_named=tuple(self.first_named),
            floated=tuple(self.floated),
            had_bye=self.had_bye,
            won_by_forfeit=self.won_by_forfeit,
        )


@dataclass(frozen=True)
class PlayedEvent:
    """The records before each round and the matches each round was paired with."""

    before: list[tuple[TeamRecord, ...]]
    rounds: list[tuple[Match, ...]]


def records(sheets: list[Sheet]) -> tuple[TeamRecord, ...]:
    return tuple(sheet.record() for sheet in sheets)


def play_event(teams: int, rules: TeamSwissRules, seed: int, forfeits: float = 0.03) -> PlayedEvent:
    """Play `rules.rounds` rounds of a `teams`-team Swiss; team n has rank n."""
    rng = random.Random(seed)
    sheets = [Sheet(n, n) for n in range(1, teams + 1)]
    by_number = {s.number: s for s in sheets}
    before: list[tuple[TeamRecord, ...]] = []
    rounds: list[tuple[Match, ...]] = []
    for round in range(1, rules.rounds + 1):
        recs = records(sheets)
        matches = pair_team_round(recs, round, rules)
        before.append(recs)
        rounds.append(matches)
        floaters = floaters_of(recs, matches, rules)
        for match in matches:
            first = by_number[match.first]
            if match.second is None:
                first.opponents.append(None)
                first.first_named.append(None)
                first.floated.append(False)
                first.had_bye = True
                first.match_points += 1
                first.game_points += BOARDS / 2
                continue
            second = by_number[match.second]
            if rng.random() < forfeits:
                winner = first if rng.random() < 0.5 else second
                winner.won_by_forfeit = True
                winner.match_points += 2
                winner.game_points += BOARDS
                for sheet in (first, second):
                    sheet.opponents.append(None)
                    sheet.first_named.append(None)
                    sheet.floated.append(False)
                continue
            edge = 0.5 + 0.2 * (1 if first.rank < second.rank else -1)
            points = 0.0
            for _ in range(BOARDS):
                roll = rng.random()
                points += 1.0 if roll < edge * 0.7 else 0.5 if roll < edge * 0.7 + 0.3 else 0.0
            first.game_points += points
            second.game_points += BOARDS - points
            mp = 2 if points > BOARDS / 2 else 1 if points == BOARDS / 2 else 0
            first.match_points += mp
            second.match_points += 2 - mp
            for sheet, other, named in ((first, second, True), (second, first, False)):
                sheet.opponents.append(other.number)
                sheet.first_named.append(named)
                sheet.floated.append(sheet.number in floaters)
        for sheet in sheets:  # a team with no match this round
            while len(sheet.opponents) < round:
                sheet.opponents.append(None)
                sheet.first_named.append(None)
                sheet.floated.append(False)
    return PlayedEvent(before, rounds)
