"""The players' standings of a team section whose `tiebreaks` are the teams' (GP,
BH:MP-C1, OSB): the service's standings, `/api/v1/standings` and `/standings`, `boardwire
standings --event` (which shows the team figures) and `boardwire export --trf` read back
by `boardwire standings --trf`: the players rank by points and `[section.teams]`
`individual_tiebreaks`, and a team tie-break is never read as an individual code (issue 33)."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest
from aiohttp.test_utils import TestClient, TestServer

from broadcast.actions import ComposeTeamRound, PairTeamRound
from broadcast.cli.main import main
from broadcast.config import load_event
from broadcast.journal.store import Journal
from broadcast.service.event_service import EventService
from broadcast.tournament.final_standings import section_standings
from clocks.timesource import ManualTime
from tests.support import acting
from tests.support.paths import ROOT
from tests.support.web_app import CREDENTIALS
from web.app import build_app

TEAM_CODES = 'tiebreaks = ["GP", "BH:MP-C1", "OSB"]'
RESULTS = ("1-0", "0-1", "1/2-1/2")  # by section board, in turn
EVENTS = [("teams-league.toml", "League"), ("teams-swiss.toml", "Swiss")]


def _event(tmp_path: Path, data: str, extra: str = "") -> Path:
    text = (ROOT / "tests" / "data" / data).read_text(encoding="utf-8")
    assert "tiebreaks = []" in text
    text = text.replace("tiebreaks = []", TEAM_CODES, 1)
    if extra:
        text = text.replace("[section.teams]\n", f"[section.teams]\n{extra}\n", 1)
    path = tmp_path / data
    path.write_text(text, encoding="utf-8")
    return path


def _played(path: Path, db: Path) -> tuple[EventService, dict[int, float]]:
    """Round 1 paired (teams, then boards) and every board's result; each player's points
    counted from the pairings, apart from the standings."""
    config = load_event(path)
    start = config.sections[0].schedule[0].start.timestamp()
    journal = Journal(db)
    service = EventService(config, journal, time_source=ManualTime(start + 60), delay=0)
    service.load()
    section = config.sections[0].name
    acting.do(service, PairTeamRound(section, 1))
    acting.do(service, ComposeTeamRound(section, 1))
    points: dict[int, float] = defaultdict(float)
    for game in service.book.round_games(section, 1):
        result = RESULTS[game.key.board % len(RESULTS)]
        acting.set_result(service, game.id, result, reason="agreement" if "/" in result else "")
        white, black = {"1-0": (1.0, 0.0), "0-1": (0.0, 1.0)}.get(result, (0.5, 0.5))
        pairing = next(
            p
            for p in service.tournament.section(section).rounds[1].pairings
            if p.board == game.key.board
        )
        points[pairing.white] += white
        if pairing.black is not None:
            points[pairing.black] += black
    for pairing in service.tournament.section(section).rounds[1].pairings:
        if pairing.black is None and pairing.board:  # an empty board: a forfeit win
            points[pairing.white] += 1.0
    journal.close()
    return service, dict(points)


def _ranks(points: dict[int, float], everyone: list[int]) -> dict[int, int]:
    """Points alone: equal points share the rank."""
    scores = sorted((points.get(p, 0.0) for p in everyone), reverse=True)
    return {p: 1 + scores.index(points.get(p, 0.0)) for p in everyone}


@pytest.mark.parametrize(("data", "section"), EVENTS)
async def test_a_team_sections_players_rank_by_points(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], data: str, section: str
) -> None:
    path, db = _event(tmp_path, data), tmp_path / "j.sqlite"
    service, points = _played(path, db)
    everyone = sorted(service.tournament.section(section).players)
    expected = _ranks(points, everyone)

    standings = section_standings(service.tournament.section(section), 2024)
    assert {r.start: (r.rank, r.points) for r in standings.rows} == {
        p: (expected[p], points.get(p, 0.0)) for p in everyone
    }
    assert all(r.tiebreaks == {} for r in standings.rows)

    client = TestClient(TestServer(build_app(service, CREDENTIALS)))
    await client.start_server()
    try:
        answer = await client.get("/api/v1/standings")
        assert answer.status == 200
        rows = await answer.json()
        assert {r["start"]: r["rank"] for r in rows} == expected
        assert (await client.get("/standings")).status == 200
    finally:
        await client.close()

    # The command shows a team section's team figures; it must not fail on the codes.
    assert main(["standings", "--event", str(path), "--db", str(db), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)

    trf = tmp_path / "out.trf"
    assert main(["export", str(path), "--db", str(db), "--trf", str(trf)]) == 0
    capsys.readouterr()
    text = trf.read_text(encoding="utf-8")
    assert "\n202 " not in text  # no individual tie-break: nothing but points ranks them
    assert main(["standings", "--trf", str(trf), "--tiebreaks", "WIN", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {r["start"]: r["points"] for r in rows} == {p: points.get(p, 0.0) for p in everyone}


def test_individual_tiebreaks_rank_a_team_sections_players(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _event(tmp_path, "teams-league.toml", 'individual_tiebreaks = ["win", "TPR"]')
    db = tmp_path / "j.sqlite"
    service, _ = _played(path, db)
    config = service.config.sections[0]
    assert config.tiebreaks == ("GP", "BH:MP-C1", "OSB")
    assert config.individual_tiebreaks == ("WIN", "TPR")
    standings = section_standings(service.tournament.section("League"), 2024)
    assert [s.label for s in standings.tiebreaks] == ["WIN", "TPR"]
    trf = tmp_path / "out.trf"
    assert main(["export", str(path), "--db", str(db), "--trf", str(trf)]) == 0
    assert "\n202 WIN,TPR\n" in trf.read_text(encoding="utf-8")
    capsys.readouterr()
    assert main(["standings", "--trf", str(trf), "--json"]) == 0  # read back with 202
    rows = json.loads(capsys.readouterr().out)
    ranked = {r.start: (r.rank, dict(r.tiebreaks)) for r in standings.rows}
    assert {r["start"]: (r["rank"], r["tiebreaks"]) for r in rows} == ranked
