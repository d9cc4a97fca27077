"""`boardwire export` of a team event: the league example's journal (round 1 paired by the
team Berger table, the clubs' fallback lineups, every board's result) exported with
`--lichess-teams OUT --folder DIR --trf OUT`: the Lichess teams text, the folder's
team-crosstable.txt and a TRF with a 013 record per club (issue 33)."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from broadcast.actions.team_rehearsal import pair_teams_unpaired
from broadcast.cli import export as cli_export
from broadcast.config import load_event
from broadcast.fide.teams.trf_records import parse_team_record
from broadcast.journal.store import Journal
from broadcast.service.event_service import EventService
from clocks.timesource import ManualTime
from tests.support import acting
from tests.support.paths import ROOT

LEAGUE = ROOT / "examples" / "liga-vasca-division-honor.toml"
SECTION = "División de Honor"
RESULTS = ("1-0", "1/2-1/2", "0-1", "1-0")  # board 1..4 of every match


def _league_journal(db: Path) -> EventService:
    config = load_event(LEAGUE)
    start = config.sections[0].schedule[0].start.timestamp()
    journal = Journal(db)
    service = EventService(config, journal, time_source=ManualTime(start + 60), delay=0)
    service.load()
    said = pair_teams_unpaired(service, "test")
    assert said == [
        f"{SECTION} round 1 was not paired: paired the teams with the team Berger table: "
        "5 matches; composed its boards from the teams' lineups, the fallback rule (last) "
        "for those that sent none (20 games)"
    ]
    for game in service.book.round_games(SECTION, 1):
        result = RESULTS[(game.key.board - 1) % 4]
        acting.set_result(service, game.id, result, reason="agreement" if "/" in result else "")
    journal.close()
    return service


def _export(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    parser = argparse.ArgumentParser(prog="boardwire")
    sub = parser.add_subparsers(dest="command", required=True)
    cli_export.add_parser(sub)
    args = parser.parse_args(["export", *argv])
    code = args.handler(args)
    return code, capsys.readouterr().out


def test_the_league_exports_its_teams_crosstable_and_trf(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "league.sqlite"
    service = _league_journal(db)
    config = service.config.section(SECTION)
    teams, folder, trf = tmp_path / "teams.txt", tmp_path / "site", tmp_path / "league.trf"
    argv = [str(LEAGUE), "--db", str(db), "--lichess-teams", str(teams)]
    code, out = _export([*argv, "--folder", str(folder), "--trf", str(trf)], capsys)
    assert code == 0, out
    assert f"wrote {teams}" in out and f"wrote {trf}" in out

    # Lichess: "Team; FIDE id", every roster player once, in team and board order.
    lines = teams.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 60
    players = {p.number: p for p in config.players}
    expected = [f"{t.name}; {players[n].fide_id}" for t in config.teams for n in t.roster]
    assert lines == expected

    # The team crosstable: each club once, with its match and game points. Board by board
    # the team named first (White on the odd boards) scores 1, ½, 0 and 0: 1½-2½.
    crosstable = (folder / "team-crosstable.txt").read_text(encoding="utf-8")
    rows = {
        team.name: next(line for line in crosstable.splitlines() if team.name in line)
        for team in config.teams
    }
    first_named = {
        m.first for m in service.tournament.section(SECTION).team_rounds.round_matches(1)
    }
    assert len(first_named) == 5
    for team in config.teams:
        mp, gp = rows[team.name].split()[-2:]
        assert (mp, gp) == (("0", "1½") if team.number in first_named else ("2", "2½")), team
    ranks = [int(line.split()[0]) for line in crosstable.splitlines()[2:12]]
    assert ranks == [1] * 5 + [6] * 5

    # The TRF: one 013 record per club, its players by starting number.
    lines = [line for line in trf.read_text(encoding="utf-8").splitlines() if line[:3] == "013"]
    records = [parse_team_record(line[4:], n) for n, line in enumerate(lines, start=1)]
    assert [(r.name, r.players) for r in records] == [
        (team.name[:32].rstrip(), team.roster) for team in config.teams
    ]
