"""The 40-team Swiss of 4 boards rehearsed through `serve --sim` (issue 33).

`serve examples/euskadi-team-open-2026.toml --sim --round 1` in a subprocess, at high speed:
the rehearsal pairs round 1's teams with the team Swiss (C.04.6) and composes its boards
from the fallback lineups (each club's strongest four, in roster order), both journaled;
the 80 emulated e-boards then play the round's 80 games (short games that end in mate or
stalemate, so that every result comes from a board), and the public team standings
(/api/v1/team-standings) are the ones the recorded results make, recomputed here match by
match from the games' JSON.

The copy of the example applies board results at once (`automatic_results = "apply"`): the
example waits for the arbiter, which a rehearsal with nobody at the desk would not have.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time as wall
import urllib.request
from collections import defaultdict
from pathlib import Path
from typing import Any

from broadcast.actions.team_swiss import swiss_rules
from broadcast.config import load_event
from broadcast.fide.teams.match import board_of, first_team_is_white
from broadcast.fide.teams.swiss import TeamRecord, pair_team_round
from broadcast.journal.store import Journal
from broadcast.service.event_service import EventService
from clocks.timesource import ManualTime
from tests.support.event_log import assert_no_errors
from tests.support.paths import ROOT
from tests.support.web_app import free_port

EXAMPLE = ROOT / "examples" / "euskadi-team-open-2026.toml"
SECTION = "Team Open"
# 15x, not faster: at 40x a second of a loaded machine's bus polling is 40 s of play, and
# the reconstruction's waits are in play time (one board in 80 stuck out of sync once in
# a full lanes run; docs/dgt-drivers.md, "Bus driver"). Pairing and standings are the
# subject here; bench/bench_bus.py and bench_stations.py measure the boards under load.
SPEED = 15
POINTS = {"1-0": (1.0, 0.0), "0-1": (0.0, 1.0), "1/2-1/2": (0.5, 0.5)}

# Three games a board can play to its end with no arbiter: mates and a stalemate.
GAMES = (
    ("0-1", "f3 e5 g4 Qh4#"),
    ("1-0", "e4 e5 Bc4 Nc6 Qh5 Nf6 Qxf7#"),
    (
        "1/2-1/2",
        "e3 a5 Qh5 Ra6 Qxa5 h5 h4 Rah6 Qxc7 f6 Qxd7+ Kf7 Qxb7 Qd3 Qxb8 Qh7 Qxc8 Kg6 Qe6",
    ),
)


def _event(tmp: Path) -> Path:
    """The example in `tmp`, its board results applied at once, with its players' list."""
    shutil.copytree(ROOT / "examples" / "players", tmp / "players")
    text = EXAMPLE.read_text(encoding="utf-8")
    assert 'automatic_results = "confirm"' in text
    path = tmp / EXAMPLE.name
    path.write_text(
        text.replace('automatic_results = "confirm"', 'automatic_results = "apply"'),
        encoding="utf-8",
    )
    games = "".join(
        f'[Event "rehearsal"]\n[Result "{result}"]\n\n{moves} {result}\n\n'
        for result, moves in GAMES
    )
    (tmp / "games.pgn").write_text(games, encoding="utf-8")
    return path


def _get(port: int, path: str) -> Any:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as r:
        return json.load(r)


def _round_one(port: int) -> list[dict[str, Any]] | None:
    try:
        games: list[dict[str, Any]] = _get(port, "/api/v1/rounds/1")["games"]
    except OSError:
        return None
    return games


def _expected_matches() -> tuple[tuple[int, int | None], ...]:
    """Round 1 by the team Swiss from the teams' starting records (the initial ranking)."""
    section = load_event(EXAMPLE).section(SECTION)
    records = tuple(TeamRecord(t.number, t.number, 0.0, 0.0) for t in section.teams)
    return tuple((m.first, m.second) for m in pair_team_round(records, 1, swiss_rules(section)))


def _standings_from(games: list[dict[str, Any]]) -> dict[int, tuple[float, float]]:
    """Each team's (match points, game points) after round 1, from the games' results."""
    section = load_event(EXAMPLE).section(SECTION)
    team_of = {p: t.number for t in section.teams for p in t.roster}
    by_board = {g["board"]: g for g in games}
    rules = section.team_rules
    assert rules is not None
    won, drawn, lost = rules.match_points
    scores: dict[int, tuple[float, float]] = {}
    for number, (first, second) in enumerate(_expected_matches(), start=1):
        assert second is not None  # 40 teams: no bye
        points = [0.0, 0.0]
        for board in range(1, rules.boards + 1):
            game = by_board[board_of(number, board, rules.boards)]
            white, black = POINTS[game["result"]]
            first_white = first_team_is_white(board, rules.first_team_white)
            assert team_of[game["white"]["start"]] == (first if first_white else second)
            points[0] += white if first_white else black
            points[1] += black if first_white else white
        mp = (
            (won, lost)
            if points[0] > points[1]
            else (lost, won)
            if points[0] < points[1]
            else (drawn, drawn)
        )
        scores[first], scores[second] = (mp[0], points[0]), (mp[1], points[1])
    return scores


def test_the_40_team_swiss_is_rehearsed_through_serve_sim(tmp_path: Path) -> None:
    event = _event(tmp_path)
    port, db = free_port(), tmp_path / "rehearsal.sqlite"
    env = {**os.environ, "BOARDWIRE_ARBITER_PASSWORD": "pw"}
    command = [
        *(sys.executable, "-m", "broadcast.cli", "serve", str(event), "--sim"),
        *("--speed", str(SPEED), "--games", str(tmp_path / "games.pgn"), "--round", "1"),
        *("--port", str(port), "--db", str(db), "--delay", "0"),
    ]
    proc = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, cwd=tmp_path
    )
    games: list[dict[str, Any]] | None = None
    try:
        deadline = wall.monotonic() + 75  # generous for a loaded machine; not a timing goal
        while wall.monotonic() < deadline:
            wall.sleep(0.5)
            games = _round_one(port)
            if games and len(games) == 80 and all(g["result"] in POINTS for g in games):
                break
        assert games is not None and len(games) == 80
        unfinished = [
            {k: g.get(k) for k in ("board", "ply", "result", "status", "state", "fen")}
            for g in games
            if g["result"] not in POINTS
        ]
        assert not unfinished, f"boards without a result from the e-board: {unfinished}"
        standings = _get(port, f"/api/v1/sections/{SECTION.replace(' ', '%20')}/team-standings")
        matches = _get(port, "/api/v1/matches")
    finally:
        proc.terminate()
        out, _ = proc.communicate(timeout=30)
    log = out.decode()
    assert_no_errors(log)
    assert (
        f"{SECTION} round 1 was not paired: paired the teams with the team Swiss (FIDE C.04.6)"
        ": 20 matches; composed its boards from the teams' lineups, the fallback rule "
        "(strongest) for those that sent none (80 games)"
    ) in log

    # Every game was played on its e-board, move by move, to the result the board showed.
    plies = {result: len(moves.split()) for result, moves in GAMES}
    assert all(g["ply"] == plies[g["result"]] for g in games)
    assert sorted(g["board"] for g in games) == list(range(1, 81))

    # Round 1's matches are the team Swiss's, in its order.
    (round_one,) = matches
    paired = [(m["first"]["number"], m["second"]["number"]) for m in round_one["matches"]]
    assert tuple(paired) == _expected_matches()
    assert all(m["score"]["complete"] for m in round_one["matches"])

    # The team standings are the results' (match points, then game points), every team in.
    expected = _standings_from(games)
    shown = {row["team"]["number"]: (row["match_points"], row["game_points"]) for row in standings}
    assert shown == expected
    keys = [(-mp, -gp) for mp, gp in (shown[row["team"]["number"]] for row in standings)]
    assert keys == sorted(keys)
    groups: dict[float, int] = defaultdict(int)
    for mp, _ in expected.values():
        groups[mp] += 1
    assert sum(groups.values()) == 40 and set(groups) <= {0.0, 1.0, 2.0}

    # The journal holds the rehearsal's pairing and each club's fallback lineup.
    service = EventService(load_event(event), Journal(db), time_source=ManualTime(wall.time()))
    service.load()
    state = service.tournament.section(SECTION)
    section = state.config
    for team in section.teams:
        lineup = state.team_rounds.lineup(1, team.number)
        assert lineup is not None and lineup.fallback, team.name
        assert lineup.players == team.roster[:4]  # the strongest four, in roster order
