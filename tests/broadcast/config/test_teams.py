"""A team section's config: `[section.teams]` and `[[section.team]]`, every mistake with
its line."""

from __future__ import annotations

import pytest

from broadcast.config import ConfigError, load_event_text

HEAD = """\
[event]
name = "League"
timezone = "Europe/Madrid"

[[section]]
name = "Division"
system = "round-robin"
rounds = 3
time_control = "5400+30"
{extra}
[section.teams]
boards = 2
{rules}
[[section.schedule]]
round = 1
date = 2026-03-07
time = 17:00:00

[[section.schedule]]
round = 2
date = 2026-03-14
time = 17:00:00

[[section.schedule]]
round = 3
date = 2026-03-21
time = 17:00:00
"""


def _team(number: int, name: str, roster: str) -> str:
    return f'\n[[section.team]]\nnumber = {number}\nname = "{name}"\nroster = {roster}\n'


def _players(count: int) -> str:
    return "".join(
        f'\n[[section.player]]\nnumber = {n}\nname = "Player, {n:02d}"\nrating = {2400 - n}\n'
        for n in range(1, count + 1)
    )


TEAMS = (
    _team(1, "Arrasate", "[1, 2, 3]")
    + _team(2, "Bilbo", "[4, 5, 6]")
    + _team(3, "Donostia", "[7, 8, 9]")
    + _team(4, "Gasteiz", "[10, 11, 12]")
)


def _event(teams: str = TEAMS, rules: str = "", extra: str = "", players: int = 12) -> str:
    return HEAD.format(rules=rules, extra=extra) + teams + _players(players)


def _problems(text: str) -> list[tuple[int | None, str, str]]:
    with pytest.raises(ConfigError) as caught:
        load_event_text(text, "/tmp/league.toml")
    return [(i.line, i.message, i.hint) for i in caught.value.issues]


def _line(text: str, needle: str, nth: int = 1) -> int:
    """The line of the `nth` line of `text` that contains `needle`."""
    found = [i for i, line in enumerate(text.splitlines(), start=1) if needle in line]
    return found[nth - 1]


def test_a_team_round_robin_loads() -> None:
    rules = (
        'match_points = [3, 1, 0]\nrank_by = "game-points"\nfirst_team_white = "even"\n'
        'lineup_deadline_minutes = 60\nmissing_lineup = "strongest"\nmin_players = 1\n'
        "board_prize_min_games = 2\nbye_match_points = 1\nbye_game_points = 1\n"
    )
    section = load_event_text(_event(rules=rules), "/tmp/league.toml").sections[0]
    assert section.is_team and section.pairing.kind == "berger"
    rules_ = section.team_rules
    assert rules_ is not None
    assert rules_.boards == 2 and rules_.match_points == (3.0, 1.0, 0.0)
    assert rules_.rank_by == "game-points" and rules_.first_team_white == "even"
    assert rules_.lineup_deadline_minutes == 60 and rules_.missing_lineup == "strongest"
    assert (rules_.min_players, rules_.board_prize_min_games) == (1, 2)
    assert (rules_.bye_match_points, rules_.bye_game_points) == (1.0, 1.0)
    assert [t.name for t in section.teams] == ["Arrasate", "Bilbo", "Donostia", "Gasteiz"]
    assert section.teams[1].roster == (4, 5, 6)
    assert section.team_of(5) is section.teams[1] and section.team_of(99) is None


def test_the_defaults() -> None:
    rules = load_event_text(_event(), "/tmp/league.toml").sections[0].team_rules
    assert rules is not None
    assert rules.match_points == (2.0, 1.0, 0.0) and rules.rank_by == "match-points"
    assert rules.first_team_white == "odd" and rules.missing_lineup == "last"
    assert rules.bye_match_points == 2.0 and rules.bye_game_points is None


def test_teams_may_list_their_players_inline() -> None:
    inline = "".join(
        f'\n[[section.team]]\nname = "Team {t}"\n'
        + "".join(
            f'\n[[section.team.player]]\nname = "P{t}, {b}"\nrating = {2300 - b}\n'
            for b in range(1, 4)
        )
        for t in range(1, 5)
    )
    section = load_event_text(_event(teams=inline, players=0), "/tmp/l.toml").sections[0]
    assert [t.number for t in section.teams] == [1, 2, 3, 4]
    assert section.teams[2].roster == (7, 8, 9)
    assert len(section.players) == 12 and section.players[6].name == "P3, 1"


def test_an_individual_section_has_no_teams() -> None:
    text = _event().replace("[section.teams]\nboards = 2\n", "")
    text = text[: text.index("\n[[section.team]]")] + _players(4)
    text = text.replace("rounds = 3", "rounds = 3")
    section = load_event_text(text, "/tmp/l.toml").sections[0]
    assert not section.is_team and section.teams == () and section.team_rules is None


def test_team_tiebreaks_are_the_team_ones() -> None:
    text = _event(extra='tiebreaks = ["GP", "SB", "DE"]\n')
    assert load_event_text(text, "/tmp/l.toml").sections[0].tiebreaks == ("GP", "SB", "DE")
    text = _event(extra='tiebreaks = ["GP", "APRO"]\n')
    [(line, message, hint)] = _problems(text)
    assert line == _line(text, "tiebreaks")
    assert "'APRO'" in message and "not a tie-break for teams" in message and "OSB" in hint


@pytest.mark.parametrize(
    ("rules", "needle", "said"),
    [
        ("match_points = [1, 1, 0]", "match_points", "won, drawn and lost"),
        ("match_points = [2, 1]", "match_points", "won, drawn and lost"),
        ('rank_by = "points"', "rank_by", "rank_by = 'points' is not valid"),
        ('first_team_white = "white"', "first_team_white", "is not valid"),
        ('missing_lineup = "none"', "missing_lineup", "is not valid"),
        ("lineup_deadline_minutes = -5", "lineup_deadline_minutes", "out of range"),
        ("min_players = 3", "min_players", "out of range"),
        ("board_prize_min_games = 4", "board_prize_min_games", "out of range"),
        ("bye_match_points = 3", "bye_match_points", "without a match"),
        ("bye_game_points = 2.5", "bye_game_points", "game points of one match"),
        ("roster_size = 6", "roster_size", "unknown key"),
    ],
)
def test_a_rule_mistake_is_reported_on_its_line(rules: str, needle: str, said: str) -> None:
    text = _event(rules=rules + "\n")
    [(line, message, _hint)] = _problems(text)
    assert line == _line(text, needle) and said in message


def test_boards_is_required() -> None:
    text = _event().replace("boards = 2\n", "")
    problems = _problems(text)
    assert (_line(text, "[section.teams]"), "section[1].teams.boards is missing") in [
        (line, message) for line, message, _ in problems
    ]


@pytest.mark.parametrize(
    ("teams", "needle", "nth", "said"),
    [
        (TEAMS.replace("[10, 11, 12]", "[10, 11, 13]"), "[10, 11, 13]", 1, "not one of"),
        (TEAMS.replace("[10, 11, 12]", "[10, 11, 3]"), "[10, 11, 3]", 1, "one team only"),
        (TEAMS.replace("[10, 11, 12]", "[10, 11, 11]"), "[10, 11, 11]", 1, "twice"),
        (TEAMS.replace("[10, 11, 12]", '"ten"'), '"ten"', 1, "starting numbers"),
        (TEAMS.replace('"Gasteiz"', '"bilbo"'), '"bilbo"', 1, "team name 'bilbo' is used twice"),
        (TEAMS.replace("number = 4", "number = 2"), "number = 2", 2, "number 2 is used twice"),
        (TEAMS.replace("number = 4", "number = 5"), "number = 5", 1, "out of range"),
        (TEAMS.replace("\nroster = [10, 11, 12]", ""), '"Gasteiz"', 1, "has no roster"),
        (TEAMS.replace('name = "Gasteiz"', 'name = "Gasteiz"\ncoach = "X"'), "coach", 1, "unknown"),
    ],
)
def test_a_team_mistake_is_reported_on_its_line(
    teams: str, needle: str, nth: int, said: str
) -> None:
    text = _event(teams=teams)
    problems = _problems(text)
    line = _line(text, needle, nth)
    if said == "has no roster":
        line -= 2  # the [[section.team]] header of the team without one
    assert any(at == line and said in message for at, message, _ in problems), problems


def test_a_roster_shorter_than_the_boards() -> None:
    teams = TEAMS.replace("[10, 11, 12]", "[10]")
    text = _event(teams=teams, extra="", players=10)
    problems = _problems(text.replace("rounds = 3", "rounds = 3"))
    assert any(
        line == _line(text, "roster = [10]") and "1 players for 2 boards" in message
        for line, message, _ in problems
    )


def test_a_player_on_no_roster() -> None:
    text = _event(players=13)
    [(line, message, hint)] = _problems(text)
    assert "13" in message and "no team's roster" in message and "add them" in hint
    assert line == _line(text, "[[section.team]]")


def test_teams_without_rules_and_rules_without_teams() -> None:
    text = _event().replace("[section.teams]\nboards = 2\n", "")
    [(line, message, _)] = _problems(text)
    assert line == _line(text, "[[section.team]]") and "[section.teams]" in message
    text = _event(teams="")
    assert any("needs its teams" in m for _, m, _ in _problems(text))


def test_inline_players_and_a_section_list_are_refused() -> None:
    teams = TEAMS.replace("roster = [1, 2, 3]", '\n[[section.team.player]]\nname = "X, Y"')
    text = _event(teams=teams)
    assert any("some teams list their players" in m for _, m, _ in _problems(text))


def test_a_team_round_robin_counts_its_teams() -> None:
    text = _event().replace("rounds = 3", "rounds = 11")
    problems = _problems(text)
    assert any(
        line == _line(text, "rounds = 11") and "of 4 teams has 3 rounds" in m
        for line, m, _ in problems
    )


def test_a_team_swiss_pairs_teams() -> None:
    text = _event().replace('"round-robin"', '"swiss"')
    assert load_event_text(text, "/tmp/l.toml").sections[0].pairing.kind == "team-swiss"
    dutch = _event(extra='pairing = "dutch"\n').replace('"round-robin"', '"swiss"')
    [(line, message, hint)] = _problems(dutch)
    assert line == _line(dutch, "pairing") and "pairs teams" in message and "team-swiss" in hint
    imported = _event(extra='pairing = "import"\npairing_program = "Swiss-Manager"\n')
    section = load_event_text(imported.replace('"round-robin"', '"swiss"'), "/tmp/l.toml")
    assert section.sections[0].pairing.kind == "import"
    berger = _event(extra='pairing = "team-swiss"\n')
    [(line, message, _)] = _problems(berger)
    assert line == _line(berger, "pairing") and "Berger" in message


def test_team_swiss_in_a_section_of_individuals() -> None:
    text = HEAD.replace("[section.teams]\nboards = 2\n{rules}", "").format(
        extra='pairing = "team-swiss"\n'
    ).replace('"round-robin"', '"swiss"') + _players(4)
    [(line, message, _)] = _problems(text)
    assert line == _line(text, "pairing") and "has none" in message
