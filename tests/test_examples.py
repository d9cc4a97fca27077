"""The three example configs validate, and `check` / `pairings` print what the
regulations say (schedules in the event's timezone, round-1 pairings)."""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

import pytest

from broadcast.cli import check as cli_check
from broadcast.cli import pairings as cli_pairings
from broadcast.config import load_event
from tests.support.paths import ROOT

EXAMPLES = ROOT / "examples"
CASES = Path("/work/shared/testdata/pairings")


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    parser = argparse.ArgumentParser(prog="boardwire")
    sub = parser.add_subparsers(dest="command", required=True)
    cli_check.add_parser(sub)
    cli_pairings.add_parser(sub)
    args = parser.parse_args(argv)
    code = args.handler(args)
    out, err = capsys.readouterr()
    return code, out, err


def test_donostia(capsys: pytest.CaptureFixture[str]) -> None:
    event = load_event(EXAMPLES / "donostia-2009-round-robin.toml")
    assert len(event.sections) == 4 and all(len(s.players) == 10 for s in event.sections)
    assert all(s.rounds == 9 and s.default_time_minutes == 60 for s in event.sections)
    assert all(s.tiebreaks == ("BPG", "WON", "SB") for s in event.sections)
    code, out, _ = _run(["check", str(EXAMPLES / "donostia-2009-round-robin.toml")], capsys)
    assert code == 0 and out.rstrip().endswith("OK: the config is valid.")
    blocks = out.split("\nSection ")[1:]
    starts = {b.split("'")[1]: b for b in blocks}
    assert "round  1  Tue 2009-07-07 16:30 CEST" in starts["Diputacion Foral"]
    assert "round  1  Tue 2009-07-07 16:30 CEST" in starts["Euskal Xake Eskola"]
    assert "round  1  Tue 2009-07-07 17:00 CEST" in starts["Donostia Capital Cultural 2016"]
    assert "round  2  Wed 2009-07-08 17:00 CEST" in starts["Kutxa"]
    for block in blocks:
        assert "round  9  Thu 2009-07-16 16:00 CEST" in block
        assert "board  1    1 " in block and "board  5    5 " in block


def test_pamplona(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(["check", str(EXAMPLES / "pamplona-masters.toml")], capsys)
    assert code == 0
    assert (
        "round  1  Mon 2025-12-22 17:00 CET" in out and "round  4  Fri 2025-12-26 16:00 CET" in out
    )
    assert "tie-breaks: SB, DE, WIN" in out and "time control 7200+30" in out
    code, out, _ = _run(
        ["pairings", "--event", str(EXAMPLES / "pamplona-masters.toml"), "--round", "2", "--json"],
        capsys,
    )
    assert [(r["white"], r["black"]) for r in json.loads(out)] == [(8, 5), (6, 4), (7, 3), (1, 2)]


def test_sestao(capsys: pytest.CaptureFixture[str]) -> None:
    event = load_event(EXAMPLES / "sestao-2025-swiss.toml")
    section = event.sections[0]
    assert section.pairing.kind == "import" and section.pairing.program == "Vega"
    assert section.byes.max_byes == 3 and section.byes.excluded_rounds == {8, 9}
    assert section.byes.points == 0.5 and section.byes.deadline == "before-previous-round"
    assert (
        section.tiebreaks == ("BH-C1", "SB", "PS", "DE", "APRO") and event.tiebreak_edition == 2024
    )
    assert section.no_show_limit == 2 and section.default_time_minutes == 30
    assert section.early_draw is not None and (
        section.early_draw.min_moves,
        section.early_draw.min_minutes,
    ) == (30, 60)
    code, out, _ = _run(["check", str(EXAMPLES / "sestao-2025-swiss.toml")], capsys)
    assert code == 0
    assert (
        "round  2  Sat 2025-09-13 10:00 CEST" in out
        and "round  9  Thu 2025-09-18 16:00 CEST" in out
    )
    assert "board  1    1 " in out and "board 12   24 " in out  # 24 entries, 12 boards in round 1


def test_check_reports_errors_with_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = (EXAMPLES / "pamplona-masters.toml").read_text(encoding="utf-8")
    bad = tmp_path / "bad.toml"
    bad.write_text(text.replace("rounds = 7", "rounds = 6"), encoding="utf-8")
    code, out, err = _run(["check", str(bad)], capsys)
    line = next(i for i, t in enumerate(bad.read_text().splitlines(), 1) if t == "rounds = 6")
    assert code == 1 and out == ""
    assert f"bad.toml:{line}: a round-robin of 8 players has 7 rounds, not 6" in err


def test_pairings_berger_text_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(["pairings", "--berger", "5", "--round", "1"], capsys)
    assert code == 0 and out.splitlines() == ["2 5", "3 4", "1 0"]
    code, out, _ = _run(["pairings", "--berger", "4", "--json"], capsys)
    assert json.loads(out) == [[[1, 4], [2, 3]], [[4, 3], [1, 2]], [[2, 4], [3, 1]]]
    code, out, _ = _run(["pairings", "--berger", "4"], capsys)
    assert out.splitlines()[:3] == ["Round 1", "1 4", "2 3"]
    code, _, err = _run(["pairings", "--berger", "4", "--round", "9"], capsys)
    assert code == 2 and "outside" in err


def test_pairings_from_trf(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(
        ["pairings", "--trf", str(CASES / "dutch_2025_C5.trf"), "--next", "--json"], capsys
    )
    assert code == 0 and sorted(map(tuple, json.loads(out))) == [(1, 5), (3, 2), (6, 0)]
    code, out, _ = _run(
        ["pairings", "--trf", str(CASES / "dutch_2025_C9.trf"), "--round", "1"], capsys
    )
    assert sorted(out.splitlines()) == ["1 3", "4 2"]
    code, _, err = _run(["pairings", "--trf", str(CASES / "dutch_2025_C9.trf")], capsys)
    assert code == 2 and "--next" in err


def test_the_team_league(capsys: pytest.CaptureFixture[str]) -> None:
    """A national league division: 10 clubs of 4 boards, rosters of 6, a round robin of 9."""
    event = load_event(EXAMPLES / "liga-vasca-division-honor.toml")
    (section,) = event.sections
    rules = section.team_rules
    assert rules is not None and section.system == "round-robin" and section.rounds == 9
    assert (rules.boards, rules.match_points) == (4, (2.0, 1.0, 0.0))
    assert len(section.teams) == 10 and all(len(t.roster) == 6 for t in section.teams)
    assert sorted(p for t in section.teams for p in t.roster) == list(range(1, 61))
    assert len({t.name for t in section.teams}) == 10 and len(section.players) == 60
    assert sorted(b.table or b.number for b in event.boards) == list(range(1, 9))  # 2 matches
    code, out, _ = _run(["check", str(EXAMPLES / "liga-vasca-division-honor.toml")], capsys)
    assert code == 0 and out.rstrip().endswith("OK: the config is valid.")
    # round 1 by match (the boards come from the lineups), not a Berger table of 60 players
    assert "round 1 matches (team Berger table" in out and "round 1 pairings" not in out
    assert "match  1    1 Donostia Kutxa XT  -   10 Eibar Xake Taldea" in out
    assert "match  5    5 Gasteizko Xake Taldea  -    6 Club Ajedrez Sestao" in out


def test_the_team_swiss(capsys: pytest.CaptureFixture[str]) -> None:
    """The rehearsal's and the benchmark's: 40 clubs of 4 boards, the team Swiss, 80 wired."""
    event = load_event(EXAMPLES / "euskadi-team-open-2026.toml")
    (section,) = event.sections
    assert section.pairing.kind == "team-swiss" and section.rounds == 9
    assert section.team_rules is not None and section.team_rules.boards == 4
    assert len(section.teams) == 40 and all(len(t.roster) == 5 for t in section.teams)
    assert len(section.players) == 200
    # every game of a round (20 matches of 4 boards) on an e-board, on four buses of 20
    assert sorted(b.table or b.number for b in event.boards) == list(range(1, 81))
    assert len({b.port for b in event.boards}) == 4
    code, out, _ = _run(["check", str(EXAMPLES / "euskadi-team-open-2026.toml")], capsys)
    assert code == 0 and out.rstrip().endswith("OK: the config is valid.")
    assert "round 1 matches (team Swiss, FIDE C.04.6" in out and "FIDE Dutch" not in out
    matches = re.findall(r"^    match +\d+ +(\d+) .*?  -  +(\d+) ", out, re.MULTILINE)
    # the top half against the bottom half, the higher team named first on odd matches
    assert len(matches) == 20 and matches[:3] == [("1", "21"), ("22", "2"), ("3", "23")]
