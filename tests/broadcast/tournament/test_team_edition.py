"""The team standings follow the event's `tiebreak_edition` (C.07 2024 or 2026): in
tests/data/teams-swiss.toml, team 4 forfeits its round 1 match against team 1. Team 1 did
not play that round, so its own Buchholz counts a dummy opponent there: at team 1's own
score under 2024, capped at the scheduled opponent's (team 4's nought) under 2026.
The team view and the JSON standings follow the event (issue 33)."""

from __future__ import annotations

from pathlib import Path

from broadcast.actions import ComposeTeamRound, PairTeamRound
from broadcast.config import load_event
from broadcast.fide.teams.standings import team_standings
from broadcast.journal.store import Journal
from broadcast.service.event_service import EventService
from broadcast.tournament.teams import team_view
from clocks.timesource import ManualTime
from tests.support import acting
from tests.support.paths import ROOT
from web.teams_json import team_standings_json

SECTION = "Swiss"


def _played(folder: Path, edition: int) -> EventService:
    folder.mkdir()
    text = (ROOT / "tests" / "data" / "teams-swiss.toml").read_text(encoding="utf-8")
    text = text.replace("tiebreaks = []", 'tiebreaks = ["BH"]', 1)
    text = text.replace("[event]\n", f"[event]\ntiebreak_edition = {edition}\n", 1)
    path = folder / "event.toml"
    path.write_text(text, encoding="utf-8")
    config = load_event(path)
    assert config.tiebreak_edition == edition
    start = config.sections[0].schedule[0].start.timestamp()
    service = EventService(
        config, Journal(folder / "j.sqlite"), time_source=ManualTime(start + 60), delay=0
    )
    service.load()
    acting.do(service, PairTeamRound(SECTION, 1))
    acting.do(service, ComposeTeamRound(SECTION, 1))
    state = service.tournament.section(SECTION)
    assert next((m.first, m.second) for m in state.team_rounds.round_matches(1)) == (1, 4)
    roster_4 = set(config.sections[0].teams[3].roster)
    for game in service.book.round_games(SECTION, 1):
        pairing = next(p for p in state.rounds[1].pairings if p.board == game.key.board)
        if pairing.white in roster_4:
            acting.set_result(service, game.id, "-/+", reason="forfeit")
        elif pairing.black in roster_4:
            acting.set_result(service, game.id, "+/-", reason="forfeit")
        else:
            acting.set_result(service, game.id, "1/2-1/2", reason="agreement")
    return service


def test_the_events_edition_decides_the_team_buchholz(tmp_path: Path) -> None:
    older, newer = _played(tmp_path / "2024", 2024), _played(tmp_path / "2026", 2026)
    values = {}
    for service in (older, newer):
        edition = service.config.tiebreak_edition
        section = service.config.sections[0]
        view = team_view(section, service.tournament.section(SECTION), edition=edition)
        assert view.edition == edition
        by_team = {s.team: s for s in team_standings(view)}
        assert by_team[1].match_points == 2.0 and by_team[4].match_points == 0.0
        rows = team_standings_json(service.tournament, section)
        values[edition] = {row["team"]["number"]: row["tiebreaks"]["BH"] for row in rows}
        assert values[edition][1] == by_team[1].value("BH")
    assert values[2024][1] == 2.0  # the dummy at team 1's own 2 match points
    assert values[2026][1] == 0.0  # capped at team 4's nought
    # Teams 2, 3, 5, 6 drew: the editions agree on them.
    assert {t: values[2024][t] for t in (2, 3, 5, 6)} == {t: values[2026][t] for t in (2, 3, 5, 6)}
