"""`boardwire demo --teams`: the team league example live on emulated boards (issue 33).

Round 1 is paired at start (the team Berger table, the clubs' fallback lineups), match 1's
page shows its two clubs and its boards, and the eight e-boards of the top two matches
carry the match's games, moving."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

from broadcast.cli.demo import SCRIPT, TEAM_SCRIPT, TEAMS_EVENT
from broadcast.config import load_event
from broadcast.fide.teams.berger import team_berger_round
from tests.support.event_log import assert_no_errors
from tests.support.paths import ROOT
from tests.support.web_app import free_port


def _get(port: int, path: str) -> Any:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=2) as r:
        body = r.read().decode()
    return json.loads(body) if path.startswith("/api/") else body


def test_the_team_script_plays_the_two_wired_matches() -> None:
    config = load_event(TEAMS_EVENT)
    assert sorted(b.number for b in config.boards) == [s.board for s in TEAM_SCRIPT]
    assert TEAM_SCRIPT[: len(SCRIPT)] == SCRIPT
    assert len({s.game for s in TEAM_SCRIPT}) == len(TEAM_SCRIPT)  # no game twice


def test_demo_teams_serves_the_league_round_by_match(tmp_path: Path) -> None:
    config = load_event(TEAMS_EVENT)
    section = config.sections[0]
    first = team_berger_round(len(section.teams), 1, 1)[0]
    names = {t.number: t.name for t in section.teams}
    assert first.second is not None
    port = free_port()
    command = [sys.executable, "-m", "broadcast.cli", "demo", "--teams", "--port", str(port)]
    proc = subprocess.Popen(
        [*command, "--seconds", "8", "--speed", "30", "--db", str(tmp_path / "demo.sqlite")],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        deadline = time.monotonic() + 20
        games: list[dict[str, Any]] = []
        moving: list[dict[str, Any]] = []
        page = ""
        while time.monotonic() < deadline and not (moving and page):
            time.sleep(0.3)
            try:
                games = _get(port, "/api/v1/rounds/1")["games"]
                page = _get(port, "/match/1/1")
            except OSError:
                continue
            moving = [g for g in games if g["ply"] > 0]
        assert len(games) == 20  # ten clubs, five matches of four boards
        assert moving and {g["board"] for g in moving} <= set(range(1, 9))
        assert names[first.first] in page and names[first.second] in page
        out, _ = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, out
    assert config.name in out and "on 8 emulated DGT boards" in out
    assert "paired the teams with the team Berger table: 5 matches" in out
    assert f"match 1 (boards 1-4): {names[first.first]} - {names[first.second]}" in out
    assert_no_errors(out)
