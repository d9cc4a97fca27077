"""The checks of a team section: its `[section.teams]` rules and its `[[section.team]]`
entries (docs/teams.md).

A team gives its roster in board order, either as the section's players by starting
number (`roster = [1, 2, 3, 4, 5, 6]`, the players listed as in any section) or as its
own `[[section.team.player]]` entries, written as a section's players are; then the
section's players are the rosters' players, numbered in the order they are written
when no entry gives a number. Every mistake is reported with its line.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from broadcast.config.errors import ConfigIssue
from broadcast.config.locate import KeyPath, line_of
from broadcast.config.model import (
    MISSING_LINEUPS,
    TEAM_COLOURS,
    TEAM_RANKINGS,
    TEAM_SWISS_COLOURS,
    MissingLineup,
    PlayerEntry,
    TeamColours,
    TeamEntry,
    TeamRanking,
    TeamRules,
    TeamSwissColours,
)
from broadcast.config.players import PLAYER_KEYS, player_entries
from broadcast.config.reader import TomlReader
from broadcast.config.tiebreaks import check_tiebreak
from broadcast.fide.teams.tiebreaks import TEAM_TIEBREAKS

__all__ = [
    "TEAMS_KEYS",
    "TEAM_KEYS",
    "TEAM_SECTION_KEYS",
    "check_team_tiebreak",
    "section_teams",
    "team_rules",
]

TEAM_SECTION_KEYS = ("teams", "team")
TEAMS_KEYS = (
    "boards",
    "match_points",
    "rank_by",
    "first_team_white",
    "lineup_deadline_minutes",
    "missing_lineup",
    "min_players",
    "board_prize_min_games",
    "bye_match_points",
    "bye_game_points",
    "swiss_colours",
    "individual_tiebreaks",
)
TEAM_KEYS = ("number", "name", "federation", "club", "captain", "roster", "player")
MAX_BOARDS = 20  # the Olympiad plays 4; a league a dozen at most


def check_team_tiebreak(code: str) -> tuple[str, str] | None:
    """None if `code` is a tie-break for teams; else (problem, hint)."""
    if code in TEAM_TIEBREAKS:
        return None
    return (
        "is not a tie-break for teams",
        "a team section ranks by MP or GP and breaks ties with "
        + ", ".join(TEAM_TIEBREAKS)
        + " (docs/teams.md)",
    )


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def team_rules(
    reader: TomlReader, raw: Mapping[str, Any], at: KeyPath, rounds: int | None
) -> TeamRules | None:
    """The `[section.teams]` table checked (None when absent or its boards are wrong)."""
    table = reader.get_table(raw, "teams", at)
    if table is None:
        return None
    here: KeyPath = (*at, "teams")
    reader.unknown_keys(table, TEAMS_KEYS, here)
    boards = reader.get_int(
        table, "boards", here, required=True, minimum=1, maximum=MAX_BOARDS, example=4
    )
    points = table.get("match_points", [2, 1, 0])
    if (
        not isinstance(points, list)
        or len(points) != 3
        or not all(_number(p) and p >= 0 for p in points)
        or not points[0] > points[1] >= points[2]
    ):
        reader.error(
            (*here, "match_points"),
            f"match_points = {points!r} is not the points for a match won, drawn and lost",
            "write match_points = [2, 1, 0] (a win more than a draw, a draw at least a loss)",
        )
        points = [2, 1, 0]
    deadline = reader.get_int(
        table, "lineup_deadline_minutes", here, default=0, minimum=0, maximum=7 * 24 * 60
    )
    min_players = reader.get_int(
        table, "min_players", here, default=0, minimum=0, maximum=boards or MAX_BOARDS
    )
    min_games = reader.get_int(
        table, "board_prize_min_games", here, default=0, minimum=0, maximum=rounds or 99
    )
    bye_mp = table.get("bye_match_points", float(points[0]))
    if not _number(bye_mp) or bye_mp < 0 or bye_mp > points[0]:
        reader.error(
            (*here, "bye_match_points"),
            f"bye_match_points = {bye_mp!r} is not a team's score for a round without a match",
            f"a number from 0 to a win's {points[0]} (C.04.6 gives a win)",
        )
        bye_mp = points[0]
    bye_gp = table.get("bye_game_points")
    if bye_gp is not None and (
        not _number(bye_gp) or bye_gp < 0 or (boards is not None and bye_gp > boards)
    ):
        reader.error(
            (*here, "bye_game_points"),
            f"bye_game_points = {bye_gp!r} is not game points of one match",
            f"a number from 0 to the {boards} boards; leave it out for half the boards",
        )
        bye_gp = None
    rank_by = reader.get_choice(table, "rank_by", here, TEAM_RANKINGS, default="match-points")
    colours = reader.get_choice(table, "first_team_white", here, TEAM_COLOURS, default="odd")
    missing = reader.get_choice(table, "missing_lineup", here, MISSING_LINEUPS, default="last")
    swiss_colours = reader.get_choice(table, "swiss_colours", here, TEAM_SWISS_COLOURS, default="A")
    individual = _individual_tiebreaks(reader, table, here)
    if boards is None:
        return None
    return TeamRules(
        boards=boards,
        match_points=(float(points[0]), float(points[1]), float(points[2])),
        rank_by=cast(TeamRanking, rank_by),
        first_team_white=cast(TeamColours, colours),
        lineup_deadline_minutes=deadline or 0,
        missing_lineup=cast(MissingLineup, missing),
        min_players=min_players or 0,
        board_prize_min_games=min_games or 0,
        bye_match_points=float(bye_mp),
        bye_game_points=None if bye_gp is None else float(bye_gp),
        swiss_colours=cast(TeamSwissColours, swiss_colours),
        individual_tiebreaks=individual,
    )


def _individual_tiebreaks(
    reader: TomlReader, table: Mapping[str, Any], here: KeyPath
) -> tuple[str, ...]:
    """`individual_tiebreaks`: the individual codes (docs/tiebreaks.md) that rank the
    section's players. Buchholz is allowed even in a team round robin: a player meets one
    player of each team at most, and not every player the same ones."""
    value = table.get("individual_tiebreaks", [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        reader.error(
            (*here, "individual_tiebreaks"),
            "individual_tiebreaks must be a list of FIDE codes for players",
            'write individual_tiebreaks = ["TPR", "WIN"]',
        )
        return ()
    out: list[str] = []
    for i, code in enumerate(value):
        normal = code.strip().upper()
        problem = check_tiebreak(normal, swiss=True)
        if problem:
            reader.error(
                (*here, "individual_tiebreaks", i), f"tie-break {code!r}: {problem[0]}", problem[1]
            )
        elif normal in out:
            reader.error(
                (*here, "individual_tiebreaks", i),
                f"tie-break {code!r} is listed twice",
                "remove one",
            )
        else:
            out.append(normal)
    return tuple(out)


def section_teams(
    reader: TomlReader,
    raw: Mapping[str, Any],
    at: KeyPath,
    players: tuple[PlayerEntry, ...],
    rounds: int | None,
) -> tuple[TeamRules | None, tuple[TeamEntry, ...], tuple[PlayerEntry, ...]]:
    """A section's team rules, its teams and its players (the rosters' players when the
    teams list them inline; else `players`, the section's own list). A section without
    `[section.teams]` and `[[section.team]]` is a section of individuals: (None, (), players)."""
    if "teams" not in raw and "team" not in raw:
        return None, (), players
    rules = team_rules(reader, raw, at, rounds)
    entries = reader.get_array_of_tables(raw, "team", at)
    if "teams" not in raw:
        reader.error(
            (*at, "team"),
            "[[section.team]] entries need the section's [section.teams] rules",
            "add [section.teams] with boards = 4 (players a side in a match)",
        )
    if not entries:
        reader.error(
            (*at, "teams") if "teams" in raw else at,
            "a team section needs its teams",
            'add one [[section.team]] per team: number = 1, name = "...", roster = [1, 2, 3, 4]',
        )
        return rules, (), players
    inline = [i for i, entry in enumerate(entries) if "player" in entry]
    if inline:
        if len(inline) != len(entries):
            first = next(i for i, entry in enumerate(entries) if "player" not in entry)
            reader.error(
                (*at, "team", first),
                "some teams list their players and some do not",
                "give every team its [[section.team.player]] entries, or every team a roster "
                "of the section's starting numbers",
            )
            return rules, (), players
        if players or any(k in raw for k in ("player", "players_csv", "players_trf")):
            reader.error(
                (*at, "team", inline[0], "player"),
                "the players are given twice: in the section's list and in the teams",
                "list them once: in [[section.team.player]] entries, or in the section's list "
                "with each team's roster = [starting numbers]",
            )
            return rules, (), players
        players, rosters = _inline_players(reader, entries, at)
    else:
        rosters = [_roster(reader, entry, (*at, "team", i)) for i, entry in enumerate(entries)]
    teams = _teams(reader, entries, at, rosters)
    _check_rosters(reader, at, entries, teams, players, rules, inline=bool(inline))
    return rules, tuple(sorted((t for _, t in teams), key=lambda t: t.number)), players


def _inline_players(
    reader: TomlReader, entries: list[dict[str, Any]], at: KeyPath
) -> tuple[tuple[PlayerEntry, ...], list[tuple[int, ...]]]:
    """The players the teams list, checked as a section's list is, and each team's roster
    (their starting numbers, in the order written)."""
    rows: list[tuple[dict[str, Any], ConfigIssue]] = []
    key_lines: dict[tuple[int, str], int | None] = {}
    owners: list[int] = []
    for t, entry in enumerate(entries):
        for i, player in enumerate(reader.get_array_of_tables(entry, "player", (*at, "team", t))):
            here: KeyPath = (*at, "team", t, "player", i)
            reader.unknown_keys(player, PLAYER_KEYS, here)
            rows.append((player, ConfigIssue(reader.path, line_of(reader.lines, here), "")))
            owners.append(t)
            for key in player:
                key_lines[(len(rows) - 1, key)] = line_of(reader.lines, (*here, key))
    found = player_entries(reader, rows, key_lines)
    rosters: list[list[int]] = [[] for _ in entries]
    for position, ((values, _), owner) in enumerate(zip(rows, owners, strict=True), start=1):
        number = values.get("number", position)
        if isinstance(number, int) and not isinstance(number, bool):
            rosters[owner].append(number)
    return found, [tuple(r) for r in rosters]


def _roster(reader: TomlReader, entry: Mapping[str, Any], here: KeyPath) -> tuple[int, ...]:
    """A team's `roster`: starting numbers in board order."""
    value = entry.get("roster")
    if value is None:
        reader.error(
            here,
            "the team has no roster",
            "add roster = [starting numbers in board order], e.g. roster = [1, 2, 3, 4, 5, 6]",
        )
        return ()
    if not isinstance(value, list) or not all(
        isinstance(v, int) and not isinstance(v, bool) for v in value
    ):
        reader.error(
            (*here, "roster"),
            "roster must be the players' starting numbers in board order",
            "write roster = [1, 2, 3, 4, 5, 6]",
        )
        return ()
    return tuple(value)


def _teams(
    reader: TomlReader,
    entries: list[dict[str, Any]],
    at: KeyPath,
    rosters: list[tuple[int, ...]],
) -> list[tuple[int, TeamEntry]]:
    """The teams with the index of their entry, numbered 1..n without gaps, each name once."""
    teams: list[tuple[int, TeamEntry]] = []
    numbers: dict[int, int] = {}
    names: dict[str, int] = {}
    for i, (entry, roster) in enumerate(zip(entries, rosters, strict=True)):
        here: KeyPath = (*at, "team", i)
        reader.unknown_keys(entry, TEAM_KEYS, here)
        number = reader.get_int(
            entry, "number", here, default=i + 1, minimum=1, maximum=len(entries)
        )
        name = reader.get_str(entry, "name", here, required=True, example=f"Team {i + 1}")
        federation = reader.get_str(entry, "federation", here, example="ESP").upper()
        club = reader.get_str(entry, "club", here)
        captain = reader.get_str(entry, "captain", here)
        if number is None or not name:
            continue
        if number in numbers:
            reader.error(
                (*here, "number") if "number" in entry else here,
                f"team number {number} is used twice (team [{numbers[number] + 1}] has it)",
                f"number the teams 1..{len(entries)}, each once",
            )
            continue
        key = " ".join(name.casefold().split())
        if key in names:
            reader.error(
                (*here, "name"),
                f"team name {name!r} is used twice (team [{names[key] + 1}] has it)",
                "give each team its own name",
            )
            continue
        numbers[number] = i
        names[key] = i
        teams.append((i, TeamEntry(number, name, roster, federation, club, captain)))
    return teams


def _check_rosters(
    reader: TomlReader,
    at: KeyPath,
    entries: list[dict[str, Any]],
    teams: list[tuple[int, TeamEntry]],
    players: tuple[PlayerEntry, ...],
    rules: TeamRules | None,
    *,
    inline: bool,
) -> None:
    """Every roster's players are the section's, each on one roster once, every player on
    a roster, and each roster at least the boards long."""
    before = len(reader.issues)
    known = {p.number for p in players}
    owner: dict[int, TeamEntry] = {}
    for i, team in teams:
        here: KeyPath = (*at, "team", i)
        where: KeyPath = (*here, "roster") if "roster" in entries[i] else here
        for player in team.roster:
            if player not in known:
                if inline:
                    continue  # the player's entry was refused, and said why
                reader.error(
                    where,
                    f"team {team.name!r}: player {player} is not one of the section's players",
                    "the roster names the section's players by starting number; "
                    f"they run 1..{len(known)}",
                )
            elif player in owner and owner[player] is team:
                reader.error(
                    where,
                    f"team {team.name!r}: player {player} is on the roster twice",
                    "list each player once, in board order",
                )
            elif player in owner:
                reader.error(
                    where,
                    f"player {player} is on the rosters of {owner[player].name!r} and "
                    f"{team.name!r}: a player plays for one team only",
                    "take them off one of the rosters",
                )
            else:
                owner[player] = team
        if rules is not None and len(set(team.roster)) < rules.boards:
            reader.error(
                where,
                f"team {team.name!r} has {len(set(team.roster))} players for {rules.boards} boards",
                f"a roster needs at least {rules.boards} players (reserves after them)",
            )
    # Only when every team was read: a team refused above has its players on no roster.
    if teams and len(teams) == len(entries) and len(reader.issues) == before:
        spare = sorted(known - set(owner))
        if spare:
            reader.error(
                (*at, "team"),
                f"player(s) {', '.join(map(str, spare))} are on no team's roster",
                "a team section's players are its rosters' players: add them to a roster, "
                "or take them off the player list",
            )
