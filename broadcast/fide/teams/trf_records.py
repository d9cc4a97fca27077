"""TRF team records: record 013, a team's name and its players in board order.

TRF-16 (and TRF-2026, which keeps it while it is phased out for record 310) lists each
team of a team tournament on a 013 line: the team's name in columns 5-36, then the
starting numbers of its players (the 001 lines' columns 5-8) in the fixed board order,
four columns each with one blank between: the first player in columns 37-40, the second
in 42-45, and so on (FIDE's table shows fourteen; a longer roster continues the
pattern). The teams are numbered in the order their lines come (the registration order).

This module reads and writes the text of one record; `broadcast.fide.trf` calls it for
every 013 line it reads (so a bad one is reported with its line number) and
`TrfFile.teams` gives the file's teams. It imports nothing of the TRF reader.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from clocks.errors import BoardwireError

__all__ = [
    "TEAM_RECORD",
    "TeamRecordError",
    "TrfTeam",
    "check_team_players",
    "parse_team_record",
    "team_record_value",
]

TEAM_RECORD = "013"
# 1-based columns of the 013 line, as offsets into the record's value (column 5 on).
_VALUE_START = 5
_NAME_WIDTH = 32  # columns 5-36
_FIRST_PLAYER = 37
_PLAYER_WIDTH = 4
_PLAYER_STEP = 5
_MAX_START = 9999


class TeamRecordError(BoardwireError, ValueError):
    """A 013 record that cannot be read: `column` is the line's 1-based column (None: the
    whole record)."""

    def __init__(self, column: int | None, message: str) -> None:
        self.column = column
        self.reason = message
        super().__init__(message if column is None else f"column {column}: {message}")


@dataclass(frozen=True, slots=True)
class TrfTeam:
    """One team of a TRF: its number (the place of its 013 line among them, from 1), its
    name, and its players' starting numbers in board order (reserves last)."""

    number: int
    name: str
    players: tuple[int, ...]


def parse_team_record(value: str, number: int) -> TrfTeam:
    """The team of one 013 record; `value` is the line from column 5 on (a `TrfRecord`'s
    value), `number` the team's place among the file's 013 lines."""
    name = " ".join(value[:_NAME_WIDTH].split())
    if not name:
        raise TeamRecordError(_VALUE_START, "a team record needs the team's name in columns 5-36")
    players: list[int] = []
    first = offset = _FIRST_PLAYER - _VALUE_START
    while offset < len(value):
        column = offset + _VALUE_START
        # Columns 5-36 (the name) run straight into 37-40; later fields have a blank before.
        gap = value[offset - 1 : offset] if offset > first else ""
        if gap.strip():
            raise TeamRecordError(
                column - 1,
                f"team {name!r}: column {column - 1} must be blank; the starting numbers of "
                f"the players take four columns each, from column {_FIRST_PLAYER}, one blank "
                "between them (is the name longer than columns 5-36?)",
            )
        field = value[offset : offset + _PLAYER_WIDTH].strip()
        offset += _PLAYER_STEP
        if not field:
            continue  # a blank field: no player there (some programs leave gaps)
        if not field.isascii() or not field.isdigit():
            hint = (
                " (is the name longer than columns 5-36?)" if offset == first + _PLAYER_STEP else ""
            )
            raise TeamRecordError(
                column,
                f"team {name!r}: columns {column}-{column + 3} must hold a player's starting "
                f"number, got {field!r}{hint}",
            )
        start = int(field)
        if not 1 <= start <= _MAX_START:
            raise TeamRecordError(
                column,
                f"team {name!r}: starting number {start} in columns {column}-{column + 3} is "
                f"not 1..{_MAX_START}",
            )
        if start in players:
            raise TeamRecordError(
                column, f"team {name!r} lists player {start} twice: a player has one board"
            )
        players.append(start)
    return TrfTeam(number, name, tuple(players))


def team_record_value(name: str, players: Sequence[int]) -> str:
    """The text of a 013 record from column 5 on: the name (cut to its 32 columns, no line
    breaks or control characters) and the starting numbers in board order."""
    clean = " ".join("".join(ch if ch.isprintable() else " " for ch in name).split())
    if not clean:
        raise ValueError("a team record needs the team's name")
    for start in players:
        if not 1 <= start <= _MAX_START:
            raise ValueError(f"team {name!r}: starting number {start} is not 1..{_MAX_START}")
    fields = [f"{start:>4}" for start in players]
    text = f"{clean[:_NAME_WIDTH]:<{_NAME_WIDTH}}" + " ".join(fields)
    return text.rstrip()


def check_team_players(teams: Iterable[TrfTeam], starts: Iterable[int]) -> list[tuple[int, str]]:
    """What is wrong between the teams and the player lines, as (team number, words):
    a team player without a player line, a player on two teams."""
    known = set(starts)
    team_of: dict[int, str] = {}
    problems: list[tuple[int, str]] = []
    for team in teams:
        for start in team.players:
            if start not in known:
                problems.append(
                    (team.number, f"team {team.name!r} lists player {start}, who has no 001 line")
                )
            elif start in team_of:
                problems.append(
                    (
                        team.number,
                        f"player {start} is on team {team_of[start]!r} and on team "
                        f"{team.name!r}: a player plays for one team only",
                    )
                )
            else:
                team_of[start] = team.name
    return problems
