"""`boardwire standings --event` ranks a team section's teams by the event's C.07 edition,
as the public JSON does (issue 33). In tests/data/teams-swiss.toml under the 2026 edition,
team 4 forfeits its round 1 match against team 1: team 1's own Buchholz counts a dummy
opponent for that round, capped at team 4's nought (2026), not at team 1's own 2 (2024)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from broadcast.actions import ComposeTeamRound, PairTeamRound
from broadcast.cli import main
from broadcast.config import load_event
from broadcast.journal.store import Journal
from broadcast.service.event_service import EventService
from clocks.timesource import ManualTime
from tests.support import acting
from tests.support.paths import ROOT
from web.teams_json import team_standings_json

SECTION = "Swiss"


def _forfeited_round(folder: Path) -> tuple[Path, EventService]:
    """The 2026 event's file, and its service after round 1: team 4 forfeits every board,
    the other matches drawn board by board."""
    text = (ROOT / "tests" / "data" / "teams-swiss.toml").read_text(encoding="utf-8")
    text = text.replace("tiebreaks = []", 'tiebreaks = ["BH"]', 1)
    text = text.replace("[event]\n", "[event]\ntiebreak_edition = 2026\n", 1)
    path = folder / "event.toml"
    path.write_text(text, encoding="utf-8")
    config = load_event(path)
    assert config.tiebreak_edition == 2026
    start = config.sections[0].schedule[0].start.timestamp()
    service = EventService(
        config, Journal(folder / "j.sqlite"), time_source=ManualTime(start + 60), delay=0
    )
    service.load()
    acting.do(service, PairTeamRound(SECTION, 1))
    acting.do(service, ComposeTeamRound(SECTION, 1))
    state = service.tournament.section(SECTION)
    roster_4 = set(config.sections[0].teams[3].roster)
    for game in service.book.round_games(SECTION, 1):
        pairing = next(p for p in state.rounds[1].pairings if p.board == game.key.board)
        if pairing.white in roster_4:
            acting.set_result(service, game.id, "-/+", reason="forfeit")
        elif pairing.black in roster_4:
            acting.set_result(service, game.id, "+/-", reason="forfeit")
        else:
            acting.set_result(service, game.id, "1/2-1/2", reason="agreement")
    return path, service


def test_the_clis_team_standings_follow_the_events_edition_as_the_json_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, service = _forfeited_round(tmp_path)
    section = service.config.sections[0]
    public = team_standings_json(service.tournament, section)
    service.journal.close()
    args = ["standings", "--event", str(path), "--db", str(tmp_path / "j.sqlite"), "--json"]
    assert main(args) == 0
    figures = json.loads(capsys.readouterr().out)
    cli = figures["team_standings"]
    assert [(r["rank"], r["team"], r["tiebreaks"]) for r in cli] == [
        (r["rank"], r["team"]["number"], r["tiebreaks"]) for r in public
    ]
    by_team = {r["team"]: r["tiebreaks"]["BH"] for r in cli}
    assert by_team[1] == 0.0  # capped at team 4's nought (2024 would give 2)
    # The text says the same.
    assert main(args[:-1]) == 0
    text = capsys.readouterr().out
    assert "Team standings" in text and "BH" in text
