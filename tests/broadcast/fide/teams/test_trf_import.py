"""A pairing program's team TRF read into matches and lineups, round by round."""

from __future__ import annotations

import pytest

from broadcast.fide.teams.match import Match
from broadcast.fide.teams.trf_import import ImportedTeamRound, TeamImportError, import_team_round
from broadcast.fide.trf import read_trf


def put(line: list[str], column: int, value: str) -> None:
    line[column - 1 : column - 1 + len(value)] = value


def player(start: int, *slots: str) -> str:
    text = list("001".ljust(100 + 10 * len(slots)))
    put(text, 5, f"{start:>4}")
    put(text, 15, f"Player {start}")
    for i, slot in enumerate(slots):
        put(text, 92 + 10 * i, slot)
    return "".join(text).rstrip()


def team(name: str, *starts: int) -> str:
    text = list("013".ljust(36 + 5 * len(starts)))
    put(text, 5, name)
    for i, start in enumerate(starts):
        put(text, 37 + 5 * i, f"{start:>4}")
    return "".join(text).rstrip()


THREE_TO_FIVE = [player(3), player(4), player(5)]
TEAMS_AB = [team("A", 1, 2), team("B", 3, 4)]
TEAMS = [team("Irunea", 1, 2), team("Txantrea", 3, 4), team("Ansoain", 5, 6), team("Zaldi", 7, 8)]
# Round 1: Irunea - Txantrea (1-3, 4-2), Zaldi - Ansoain (7-5, 6-8), White on odd boards
# for the team named first. Round 2: Ansoain - Irunea, and Txantrea - Zaldi where
# Txantrea's board 2 is empty (8 wins against nobody).
PLAYERS = [
    player(1, "   3 w 1", "   5 b  "),
    player(2, "   4 b =", "   6 w  "),
    player(3, "   1 b 0", "   7 w  "),
    player(4, "   2 w ="),
    player(5, "   7 b 0", "   1 w  "),
    player(6, "   8 w 0", "   2 b  "),
    player(7, "   5 w 1", "   3 b  "),
    player(8, "   6 b 1", "0000 - +"),
]


def imported(round_number: int, lines: list[str] | None = None, **kw: object) -> ImportedTeamRound:
    report = read_trf("\n".join(lines or [*PLAYERS, *TEAMS]) + "\n")
    return import_team_round(
        report.crosstable,
        report.teams,
        round_number,
        boards=2,
        **kw,  # type: ignore[arg-type]
    )


def test_round_one_matches_and_lineups() -> None:
    got = imported(1)
    assert got.matches == (Match(1, 1, 2), Match(2, 4, 3))
    assert got.lineups == ((1, (1, 2)), (2, (3, 4)), (3, (5, 6)), (4, (7, 8)))


def test_an_empty_board_is_the_bottom_board_and_the_leaders_play_first() -> None:
    got = imported(2)
    # Before round 2 Zaldi has 2 game points, Irunea 1.5: Txantrea - Zaldi is match 1.
    assert got.matches == (Match(1, 2, 4), Match(2, 3, 1))
    assert dict(got.lineups) == {1: (1, 2), 2: (3, None), 3: (5, 6), 4: (7, 8)}


def test_even_colours_name_the_other_team_first() -> None:
    got = imported(1, colours="even")
    assert got.matches[0] == Match(1, 2, 1)


def test_a_team_bye() -> None:
    round1 = [player(1, "   3 w 1"), player(2, "   4 b ="), player(3, "   1 b 0")]
    lines = [*round1, player(4, "   2 w ="), player(5), player(6), *TEAMS[:3]]
    got = imported(1, lines)
    assert got.matches == (Match(1, 1, 2), Match(2, 3, None))


@pytest.mark.parametrize(
    ("lines", "words"),
    [
        (
            [player(1, "   3 w 1"), player(2, "   4 w ="), player(3), player(4), *TEAMS[:2]],
            "breaks the colours",
        ),
        (
            [player(1, "   3 w 1"), player(2, "   5 b ="), *THREE_TO_FIVE, *TEAMS_AB, team("C", 5)],
            "one match a round",
        ),
        ([player(1, "   2 w 1"), player(2), player(3), team("A", 1, 3)], "is on no team"),
        ([player(1, "   2 w 1"), player(2), team("A", 1, 2)], "never meet"),
        ([player(1, "   2 w 1"), player(2)], "no team records"),
        (
            [player(1, "   4 w 1"), player(2, "   3 b ="), player(3), player(4), *TEAMS_AB],
            "board order",
        ),
    ],
)
def test_what_is_not_a_team_round_is_refused_in_words(lines: list[str], words: str) -> None:
    with pytest.raises(TeamImportError, match=words):
        imported(1, lines)


def test_a_round_outside_the_file_is_refused() -> None:
    with pytest.raises(TeamImportError, match=r"rounds 1\.\.2"):
        imported(3)
