"""A team round imported from the pairing program's TRF: its matches and lineups.

The program pairs the teams and writes the boards as individual games in the player
lines; the 013 records (`broadcast.fide.teams.trf_records`) say whose team each player is. From
one round's games this module finds which teams meet (`Match`, the team named first
being the one with White on board 1 when its colours are "odd", on board 2 when they are
"even") and who played on which board (each team's lineup, in board order).

- The boards of a match are ordered by the first team's roster order (a lineup keeps the
  roster's order); the second team's players must then come in its roster order too.
- A player who faces an empty board (no opponent, a full point: "0000 - +" or "F") is
  on the bottom boards of the lineup, the empty board of the other team's lineup is None.
- A team none of whose players has a game is the round's team bye (one at most).
- Matches are ordered as pairing programs list them: by the higher game-point score of
  the two teams before the round, then their total, then the lower team number.

Pure: a crosstable and the teams in, values out. The caller (the arbiter's import action)
turns them into `MatchesPaired` and one `LineupSubmitted` per team.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from broadcast.fide.crosstable import Crosstable, ResultCode, RoundEntry
from broadcast.fide.teams.match import Match, first_team_is_white
from broadcast.fide.teams.trf_records import TrfTeam
from clocks.errors import BoardwireError

__all__ = ["ImportedTeamRound", "TeamImportError", "import_team_round"]

_EMPTY_BOARD_WINS = (ResultCode.FULL_BYE, ResultCode.FORFEIT_WIN)


class TeamImportError(BoardwireError, ValueError):
    """The TRF's round cannot be read as team matches (the words say which rule)."""


@dataclass(frozen=True, slots=True)
class ImportedTeamRound:
    """One team round as the pairing program wrote it: the matches in order, and each
    team's lineup (team number, starting numbers in board order, None: an empty board)."""

    round: int
    matches: tuple[Match, ...]
    lineups: tuple[tuple[int, tuple[int | None, ...]], ...]


def _faces_empty_board(entry: RoundEntry) -> bool:
    return entry.opponent is None and entry.result in _EMPTY_BOARD_WINS


def import_team_round(
    crosstable: Crosstable,
    teams: Sequence[TrfTeam],
    round_number: int,
    *,
    boards: int,
    colours: Literal["odd", "even"] = "odd",
) -> ImportedTeamRound:
    """The matches and lineups of `round_number` (see the module's words for the rules)."""
    if not teams:
        raise TeamImportError("the TRF has no team records (013): it is not a team tournament")
    if not 1 <= round_number <= crosstable.rounds:
        raise TeamImportError(
            f"the TRF has rounds 1..{crosstable.rounds}; round {round_number} is not in it"
        )
    team_of = {start: team for team in teams for start in team.players}
    rank = {start: i for team in teams for i, start in enumerate(team.players)}
    known = set(crosstable.starts())
    opponents: dict[int, set[int]] = {team.number: set() for team in teams}
    games: list[tuple[int, int, RoundEntry]] = []  # (player, opponent, entry), each once
    for start in sorted(known):
        entry = crosstable.entry(start, round_number)
        if entry.opponent is None:
            continue
        if start not in team_of or entry.opponent not in team_of:
            stray = start if start not in team_of else entry.opponent
            raise TeamImportError(
                f"round {round_number}: player {stray} plays but is on no team (013 records)"
            )
        mine, theirs = team_of[start], team_of[entry.opponent]
        if mine.number == theirs.number:
            raise TeamImportError(
                f"round {round_number}: players {start} and {entry.opponent} are both on "
                f"team {mine.name!r}: a team's players never meet each other"
            )
        opponents[mine.number].add(theirs.number)
        if start < entry.opponent:
            games.append((start, entry.opponent, entry))
    by_number = {team.number: team for team in teams}
    for number, met in opponents.items():
        if len(met) > 1:
            names = ", ".join(repr(by_number[n].name) for n in sorted(met))
            raise TeamImportError(
                f"round {round_number}: team {by_number[number].name!r} meets {names}: "
                "a team plays one match a round"
            )
    idle = [t for t in teams if not opponents[t.number]]
    if len(idle) > 1:
        names = ", ".join(repr(t.name) for t in idle)
        raise TeamImportError(
            f"round {round_number}: teams {names} have no game; only one team can sit out "
            "a round (the team bye)"
        )
    if not games:
        raise TeamImportError(f"round {round_number} is not paired in this TRF")

    pairs = sorted({tuple(sorted((t, next(iter(m))))) for t, m in opponents.items() if m})
    lineups: list[tuple[int, tuple[int | None, ...]]] = []
    made: list[tuple[Match, tuple[int, int]]] = []
    for a_number, b_number in pairs:
        a, b = by_number[a_number], by_number[b_number]
        first, second, boards_of = _match_boards(a, b, games, team_of, rank, colours, round_number)
        empty_first = _empty_board_players(crosstable, first, round_number)
        empty_second = _empty_board_players(crosstable, second, round_number)
        if empty_first and empty_second:
            raise TeamImportError(
                f"round {round_number}: in {first.name!r} - {second.name!r} both teams have "
                "players without an opponent; empty boards are the bottom boards of one side"
            )
        # Empty boards are the bottom ones: under the games, facing the players there.
        first_lineup: list[int | None] = [p for p, _ in boards_of]
        first_lineup += empty_first
        first_lineup += [None] * len(empty_second)
        second_lineup: list[int | None] = [q for _, q in boards_of]
        second_lineup += [None] * len(empty_first)
        second_lineup += empty_second
        for team, lineup in ((first, first_lineup), (second, second_lineup)):
            if len(lineup) > boards:
                raise TeamImportError(
                    f"round {round_number}: team {team.name!r} has {len(lineup)} boards; "
                    f"a match is played on {boards}"
                )
            padded = tuple(lineup) + (None,) * (boards - len(lineup))
            lineups.append((team.number, padded))
        made.append((Match(0, first.number, second.number), (first.number, second.number)))

    before = _team_scores(crosstable, teams, round_number)

    def order(item: tuple[Match, tuple[int, int]]) -> tuple[float, float, int]:
        x, y = item[1]
        return (-max(before[x], before[y]), -(before[x] + before[y]), min(x, y))

    ordered = [
        Match(i, m.first, m.second) for i, (m, _) in enumerate(sorted(made, key=order), start=1)
    ]
    if idle:
        ordered.append(Match(len(ordered) + 1, idle[0].number, None))
    return ImportedTeamRound(round_number, tuple(ordered), tuple(sorted(lineups)))


def _match_boards(
    a: TrfTeam,
    b: TrfTeam,
    games: list[tuple[int, int, RoundEntry]],
    team_of: dict[int, TrfTeam],
    rank: dict[int, int],
    colours: Literal["odd", "even"],
    round_number: int,
) -> tuple[TrfTeam, TrfTeam, list[tuple[int, int]]]:
    """Which team is named first, and the boards as (first's player, second's player)."""
    mine: list[tuple[int, int, str | None]] = []  # (a's player, b's player, a's colour)
    for start, opponent, entry in games:
        pair = (team_of[start].number, team_of[opponent].number)
        if pair == (a.number, b.number):
            mine.append((start, opponent, entry.colour))
        elif pair == (b.number, a.number):
            other = {"w": "b", "b": "w"}.get(entry.colour or "")
            mine.append((opponent, start, other))
    mine.sort(key=lambda g: rank[g[0]])
    b_order = [rank[q] for _, q, _ in mine]
    if b_order != sorted(b_order):
        raise TeamImportError(
            f"round {round_number}: the boards of {a.name!r} - {b.name!r} are not in both "
            "teams' board order (a lineup keeps the order of the team record)"
        )
    a_first: bool | None = None
    for board, (p, q, colour) in enumerate(mine, start=1):
        if colour is None:
            continue  # a forfeit without colours: the board's colour is the rules'
        a_white = colour == "w"
        says = a_white == first_team_is_white(board, colours)
        if a_first is None:
            a_first = says
        elif a_first != says:
            raise TeamImportError(
                f"round {round_number}: in {a.name!r} - {b.name!r} board {board} ({p} - {q}) "
                f"breaks the colours: the team named first has White on the {colours} boards"
            )
    if a_first is None:
        a_first = a.number < b.number
    if a_first:
        return a, b, [(p, q) for p, q, _ in mine]
    return b, a, [(q, p) for p, q, _ in mine]


def _empty_board_players(crosstable: Crosstable, team: TrfTeam, round_number: int) -> list[int]:
    """The team's players who scored a full point against an empty board, in board order."""
    known = set(crosstable.starts())
    return [
        start
        for start in team.players
        if start in known and _faces_empty_board(crosstable.entry(start, round_number))
    ]


def _team_scores(
    crosstable: Crosstable, teams: Sequence[TrfTeam], round_number: int
) -> dict[int, float]:
    """Each team's game points before the round: its players' points summed."""
    known = set(crosstable.starts())
    return {
        team.number: sum(
            crosstable.score(start, upto=round_number - 1)
            for start in team.players
            if start in known
        )
        for team in teams
    }
