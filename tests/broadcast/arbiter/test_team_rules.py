"""A team section at runtime (issue 33): the default time on each board is the individuals'
(the same forfeit proposed), and a team with fewer than `min_players` (3 in the test
league) at the boards at the default time raises one alert naming the match, the team, the
players present and the proposed result; it closes when the arbiter's marks show enough
of the team were there.

The league (tests/data/teams-league.toml) has no e-boards: the arbiter's walk says who is
absent (a player not marked absent counts as there).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from broadcast.actions import Acknowledge, MarkAbsent, MarkPresent, Undo
from broadcast.arbiter.alerts import Alert
from broadcast.config.model import BoardConfig, EventConfig
from broadcast.fide.teams.match import Match
from broadcast.games.game_state import GameState
from broadcast.service.event_service import EventService
from clocks.timesource import ManualTime
from tests.support import acting
from tests.support.arbiter import gid, moves, press
from tests.support.league_service import (
    LEAGUE,
    compose,
    league_config,
    league_service,
    pair_teams,
    roster,
    round_start,
)

MINUTE = 60.0


@pytest.fixture
def league(tmp_path: Path) -> EventService:
    return league_service(tmp_path)


def _composed(service: EventService, short: int | None = None) -> tuple[Match, ...]:
    """Round 1 paired with every team's first four (team `short` sends only two)."""
    matches = pair_teams(service)
    teams = [t for m in matches for t in m.teams()]
    compose(service, {t: roster(t)[: 2 if t == short else 4] for t in teams})
    return matches


def _at(service: EventService, minutes: float) -> None:
    """The clock `minutes` after round 1's start, and the rules told."""
    assert isinstance(service.time_source, ManualTime)
    service.time_source.set(round_start(service) + minutes * MINUTE)
    service.tick()


def _team_alerts(service: EventService) -> list[Alert]:
    return [a for a in service.alerts() if a.kind == "team-forfeit"]


def _games_of(service: EventService, team: int) -> list[tuple[GameState, str]]:
    """Team `team`'s boards of round 1: each game and the colour its player has."""
    out = []
    for game in service.book.round_games(LEAGUE, 1):
        for colour, ref in (("white", game.white), ("black", game.black)):
            if ref is not None and ref.start in roster(team):
                out.append((game, colour))
    return out


def _absent(service: EventService, team: int, count: int) -> list[int]:
    """Mark the first `count` players of `team` at the boards absent; the actions' seqs."""
    return [
        acting.do(service, MarkAbsent(game.id, colour)).seq
        for game, colour in _games_of(service, team)[:count]
    ]


def test_a_team_short_of_players_at_the_default_time_is_proposed_to_lose_by_forfeit(
    league: EventService,
) -> None:
    matches = _composed(league)
    first, second = matches[0].first, matches[0].second
    assert second is not None
    _at(league, 5)
    _absent(league, second, 2)  # two of four there: fewer than three
    _absent(league, first, 1)  # three of four: enough
    _at(league, 29)
    assert _team_alerts(league) == []  # not before the default time (30 min)
    _at(league, 31)
    [alert] = _team_alerts(league)
    assert alert.section == LEAGUE and alert.round == 1 and alert.severity == "critical"
    names = {e.name for e in league.config.sections[0].teams}
    [team] = [e for e in league.config.sections[0].teams if e.number == second]
    assert f"match {matches[0].number}" in alert.message
    assert team.name in alert.message and "loses the match by forfeit" in alert.message
    assert "(" in alert.message and "4-0" in alert.message  # the match: first - second 4-0
    assert len(alert.players) == 2  # the two present, named
    present = {league.tournament.section(LEAGUE).players[p].name for p in roster(second)}
    assert set(alert.players) <= present
    assert sum(name in alert.message for name in names) >= 2  # both teams named


def test_each_board_still_gets_its_own_forfeit(league: EventService) -> None:
    """The individuals' default time applies on team boards: the absent player's board is
    proposed lost by forfeit, as in any section."""
    matches = _composed(league)
    assert matches[0].second is not None
    _at(league, 5)
    [(game, colour)] = _games_of(league, matches[0].second)[:1]
    acting.do(league, MarkAbsent(game.id, colour))
    # At a table without an e-board the forfeit waits for the arbiter's word on both.
    acting.do(league, MarkPresent(game.id, "white" if colour == "black" else "black"))
    _at(league, 31)
    proposed = league.book.get(game.id).proposal
    assert proposed is not None
    assert proposed.result == ("+/-" if colour == "black" else "-/+")  # a forfeit


def test_an_empty_board_counts_as_a_player_missing(league: EventService) -> None:
    matches = _composed(league, short=pair_teams_first(league))
    _at(league, 31)
    # The short team alone: its opponents facing the empty boards count as there.
    [alert] = _team_alerts(league)
    short = [e.name for e in league.config.sections[0].teams if e.number == matches[0].first]
    assert len(alert.players) == 2 and f"{short[0]} has 2 players" in alert.message


def pair_teams_first(service: EventService) -> int:
    """The team named first in round 1's first match, by the Berger table (before pairing)."""
    from broadcast.fide.teams.berger import team_berger_round

    return team_berger_round(len(service.config.sections[0].teams), 1)[0].first


def test_the_alert_closes_when_the_arbiters_marks_show_enough_were_there(
    league: EventService,
) -> None:
    matches = _composed(league)
    second = matches[0].second
    assert second is not None
    _at(league, 5)
    marks = _absent(league, second, 2)
    _at(league, 31)
    [alert] = _team_alerts(league)
    acting.do(league, Undo(marks[-1]))  # the arbiter was wrong: that player was there
    assert not league.rules.is_open(alert.id)


def test_no_team_forfeit_without_a_minimum(tmp_path: Path) -> None:
    config = league_config()
    section = config.sections[0]
    assert section.team_rules is not None
    rules = dataclasses.replace(section.team_rules, min_players=0)
    unlimited: EventConfig = dataclasses.replace(
        config, sections=(dataclasses.replace(section, team_rules=rules),)
    )
    service = league_service(tmp_path, config=unlimited)
    matches = _composed(service)
    assert matches[0].second is not None
    _at(service, 5)
    _absent(service, matches[0].second, 4)
    _at(service, 31)
    assert _team_alerts(service) == []


def test_the_alert_comes_again_once_when_the_team_falls_short_again(
    league: EventService,
) -> None:
    """Closed by the arbiter's marks, then short again (the player marked absent after
    all): a new alert, once; closing and falling short again raises one more."""
    matches = _composed(league)
    second = matches[0].second
    assert second is not None
    _at(league, 5)
    marks = _absent(league, second, 2)
    _at(league, 31)
    [first_alert] = _team_alerts(league)
    [(game, colour)] = _games_of(league, second)[1:2]  # the player of the second mark
    acting.do(league, Undo(marks[-1]))
    assert not league.rules.is_open(first_alert.id)
    acting.do(league, MarkAbsent(game.id, colour))  # short again
    _at(league, 33)
    _at(league, 35)
    [again] = [a for a in _team_alerts(league) if league.rules.is_open(a.id)]
    assert again.id != first_alert.id and again.message == first_alert.message
    assert len([a for a in league.rules.alerts.values() if a.kind == "team-forfeit"]) == 2
    # Present after all, then absent once more: one more alert, no more.
    acting.do(league, MarkPresent(game.id, colour))
    assert not league.rules.is_open(again.id)
    acting.do(league, MarkAbsent(game.id, colour))
    _at(league, 40)
    open_now = [a for a in _team_alerts(league) if league.rules.is_open(a.id)]
    assert len(open_now) == 1 and open_now[0].id not in (first_alert.id, again.id)
    assert len([a for a in league.rules.alerts.values() if a.kind == "team-forfeit"]) == 3


def test_an_acknowledged_alert_is_not_raised_again(league: EventService) -> None:
    """The arbiter acknowledged it (decided): the team falling short again asks nothing new."""
    matches = _composed(league)
    second = matches[0].second
    assert second is not None
    _at(league, 5)
    marks = _absent(league, second, 2)
    _at(league, 31)
    [alert] = _team_alerts(league)
    acting.do(league, Acknowledge(alert.id))
    [(game, colour)] = _games_of(league, second)[1:2]
    acting.do(league, Undo(marks[-1]))
    acting.do(league, MarkAbsent(game.id, colour))
    _at(league, 35)
    assert [a for a in _team_alerts(league) if league.rules.is_open(a.id)] == []


# -- tables with e-boards: presence from the board's moves and clock ------------------------------


def _wired(tmp_path: Path) -> EventService:
    """The league with an e-board at each of round 1's eight tables."""
    config = league_config()
    boards = tuple(BoardConfig(k, f"/dev/ttyUSB{k}", None, LEAGUE) for k in range(1, 9))
    return league_service(tmp_path, config=dataclasses.replace(config, boards=boards))


def test_a_team_forfeit_at_tables_with_e_boards_counts_the_boards_moves_and_clocks(
    tmp_path: Path,
) -> None:
    """Match 1 on boards 1-4, the first team White on the odd boards. On the even boards
    both moved; on board 1 White only pressed the clock, on board 3 White only moved:
    the second team's Blacks there were never seen. The second team has 2 of 4 at the
    boards (fewer than 3), the first team all 4; nobody of match 2 was seen."""
    service = _wired(tmp_path)
    matches = _composed(service)
    first, second = matches[0].first, matches[0].second
    assert second is not None
    t = round_start(service) + 2 * MINUTE
    events: list[object] = []
    for board in (2, 4):
        events += moves(gid(service.config, 1, board), ["e2e4", "e7e5"], t)
    events += press(gid(service.config, 1, 1), t, "white", "black")  # White pressed
    events += moves(gid(service.config, 1, 3), ["d2d4"], t)
    service.commit(events)  # type: ignore[arg-type]
    _at(service, 29)
    assert _team_alerts(service) == []
    _at(service, 31)
    alerts = {a.id.split(":")[-1]: a for a in _team_alerts(service)}
    names = {t.number: t.name for t in service.config.sections[0].teams}
    short = [a for a in alerts.values() if f"match {matches[0].number} " in a.message]
    [alert] = short  # the first team, all there, is not named short
    assert f"{names[second]} has 2 players" in alert.message
    present = {p for p in roster(second)[:4]}
    there = {service.tournament.section(LEAGUE).players[p].name for p in present}
    assert len(alert.players) == 2 and set(alert.players) <= there
    assert second in {int(k) for k in alerts}  # the ids end in the team's number
    assert first not in {int(k) for k in alerts}
    # Match 2: no board moved, no clock ran: both teams short, nobody there.
    other = [a for a in alerts.values() if f"match {matches[1].number} " in a.message]
    assert len(other) == 2 and all(a.players == () for a in other)
