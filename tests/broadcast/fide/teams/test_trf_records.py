"""TRF team records (013): read at FIDE's columns, written back the same, errors with the
line and column, and no text that makes the reader fail with anything but a TrfError."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from broadcast.config.model import TeamEntry, TeamRules
from broadcast.export.trf import section_trf
from broadcast.fide.teams.trf_records import (
    TeamRecordError,
    TrfTeam,
    check_team_players,
    parse_team_record,
    team_record_value,
)
from broadcast.fide.trf import TrfError, TrfFile, TrfRecord, read_trf, write_trf
from tests.support.export import event, paired


def put(line: list[str], column: int, value: str) -> None:
    """Write `value` into `line` from the 1-based `column` on."""
    line[column - 1 : column - 1 + len(value)] = value


def player(start: int, name: str, slots: tuple[str, ...] = ()) -> str:
    text = list("001".ljust(100 + 10 * len(slots)))
    put(text, 5, f"{start:>4}")
    put(text, 15, name)
    for i, slot in enumerate(slots):
        put(text, 92 + 10 * i, slot)
    return "".join(text).rstrip()


def team(name: str, *starts: int) -> str:
    """A 013 line laid out by hand at the columns of FIDE's table (not by our writer)."""
    text = list("013".ljust(36 + 5 * len(starts)))
    put(text, 5, name)
    for i, start in enumerate(starts):
        put(text, 37 + 5 * i, f"{start:>4}")
    return "".join(text).rstrip()


HAND = "\n".join(
    [
        "012 Liga Navarra 2026",
        player(1, "Aranburu, Ane", ("   3 w 1",)),
        player(2, "Bidaurreta, Jon", ("   4 b =",)),
        player(3, "Castillo, Iker", ("   1 b 0",)),
        player(4, "Dorronsoro, Maite", ("   2 w =",)),
        player(5, "Etxeberria, Unai"),
        team("Irunea", 1, 2, 5),
        team("Txantrea Kirol Elkartea", 3, 4),
    ]
)


def test_reads_013_lines_laid_out_at_fide_columns() -> None:
    report = read_trf(HAND + "\n")
    assert report.teams == (
        TrfTeam(1, "Irunea", (1, 2, 5)),
        TrfTeam(2, "Txantrea Kirol Elkartea", (3, 4)),
    )
    assert team("Irunea", 1, 2, 5) == "013 Irunea" + " " * 26 + "   1    2    5"


def test_records_are_written_back_unchanged() -> None:
    report = read_trf(HAND + "\n")
    again = read_trf(write_trf(report))
    assert again.teams == report.teams
    assert [line for line in write_trf(report).splitlines() if line.startswith("013")] == [
        team("Irunea", 1, 2, 5),
        team("Txantrea Kirol Elkartea", 3, 4),
    ]


def test_a_name_as_long_as_its_columns_meets_the_first_player() -> None:
    name = "X" * 32
    value = team_record_value(name, (12, 7))
    assert ("013 " + value)[36:40] == "  12"
    assert parse_team_record(value, 4) == TrfTeam(4, name, (12, 7))
    assert parse_team_record(team_record_value("Y" * 40, (1,)), 1).name == "Y" * 32


def test_many_boards_continue_the_pattern() -> None:
    starts = tuple(range(101, 119))  # 18 players: more than FIDE's table shows
    line = "013 " + team_record_value("Olympiad squad", starts)
    assert line[101:105] == " 114"  # the 14th player in columns 102-105
    assert parse_team_record(line[4:], 1).players == starts


@pytest.mark.parametrize(
    ("line", "column", "words"),
    [
        (team("Irunea", 1) + "    x", 42, "starting number"),
        ("013 " + "Irunea Club de Ajedrez Pamplona Navarra 1", 37, "columns 5-36"),
        (team("Irunea", 1, 2)[:40] + "7" + team("Irunea", 1, 2)[41:], 41, "must be blank"),
        ("013" + " " * 40 + "1", 5, "team's name"),
        (team("Irunea", 1, 0), 42, "not 1..9999"),
        (team("Irunea", 1, 1), 42, "twice"),
    ],
)
def test_a_bad_record_is_refused_at_its_line_and_column(line: str, column: int, words: str) -> None:
    text = "\n".join([player(1, "A"), player(2, "B"), line]) + "\n"
    with pytest.raises(TrfError) as caught:
        read_trf(text)
    assert (caught.value.line, caught.value.column) == (3, column)
    assert words in str(caught.value)


def test_a_team_of_unknown_players_or_a_player_on_two_teams_is_refused() -> None:
    base = [player(1, "A"), player(2, "B")]
    with pytest.raises(TrfError, match="player 9, who has no 001 line") as caught:
        read_trf("\n".join([*base, team("One", 1), team("Two", 2, 9)]) + "\n")
    assert caught.value.line == 4
    with pytest.raises(TrfError, match="one team only") as caught:
        read_trf("\n".join([*base, team("One", 1, 2), team("Two", 2)]) + "\n")
    assert caught.value.line == 4
    problems = check_team_players([TrfTeam(1, "One", (1, 3))], [1, 2])
    assert problems == [(1, "team 'One' lists player 3, who has no 001 line")]


def test_a_team_section_report_reads_back_as_its_teams() -> None:
    cfg = event()
    rosters = ((1, 2), (3, 4), (5, 6), (7, 8))
    teams = tuple(
        TeamEntry(n, name, roster)
        for n, (name, roster) in enumerate(
            zip(("Irunea", "Txantrea", "Ansoain", "Zaldi"), rosters, strict=True), 1
        )
    )
    sections = tuple(
        dataclasses.replace(s, team_rules=TeamRules(boards=2, first_team_white="even"), teams=teams)
        for s in cfg.sections
    )
    cfg = dataclasses.replace(cfg, sections=sections)
    name = cfg.sections[0].name
    state = paired(cfg, name, 1, [])
    report = read_trf(section_trf(state, cfg, name))
    assert [(t.number, t.name, t.players) for t in report.teams] == [
        (t.number, t.name, t.roster) for t in teams
    ]
    assert report.record("082") == "4"
    assert report.record("352") == "BW"
    assert (report.record("092") or "").startswith("Team:")
    # 013 lines come after the player lines: the team section follows the players.
    assert all(r.code != "013" for r in report.records)


def test_a_section_of_individuals_has_no_team_records() -> None:
    cfg = event()
    name = cfg.sections[0].name
    report = read_trf(section_trf(paired(cfg, name, 1, []), cfg, name))
    assert report.teams == () and report.record("082") is None


def test_records_built_in_memory_give_teams() -> None:
    report = read_trf(player(1, "A") + "\n")
    built = TrfFile(report.crosstable, (), (TrfRecord("013", "Solo".ljust(32) + "abcd"),))
    with pytest.raises(TeamRecordError, match="columns 37-40"):
        _ = built.teams
    good = TrfFile(report.crosstable, (), (TrfRecord("013", team_record_value("Solo", (1,))),))
    assert good.teams == (TrfTeam(1, "Solo", (1,)),)


names = st.text(
    alphabet=st.characters(categories=("L", "N", "P", "S"), include_characters=" "),
    min_size=1,
    max_size=40,
).filter(lambda s: s.strip())


@settings(max_examples=200, deadline=None)
@given(names, st.lists(st.integers(1, 9999), unique=True, max_size=20))
def test_any_team_written_reads_back(name: str, players: list[int]) -> None:
    team_read = parse_team_record(team_record_value(name, players), 3)
    assert team_read.players == tuple(players)
    assert team_read.name == " ".join(" ".join(name.split())[:32].split())
    with pytest.raises(ValueError, match="name"):
        team_record_value(" \n ", players)


team_lines = st.builds(
    lambda name, fields: "013 " + name + "".join(fields),
    st.text(max_size=40),
    st.lists(st.text(alphabet=" 0123456789x-", max_size=6), max_size=6),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(team_lines, st.text(max_size=60)), max_size=6))
def test_no_text_makes_the_reader_fail_but_with_a_trf_error(extra: list[str]) -> None:
    text = "\n".join([player(1, "A"), player(2, "B"), *extra]) + "\n"
    try:
        report = read_trf(text)
    except TrfError:
        return
    for found in report.teams:  # what was read is usable
        assert set(found.players) <= {1, 2}
