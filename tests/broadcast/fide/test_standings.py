"""Standings: shared places, live standings during a round, and the `standings` command."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from broadcast.cli.standings import main
from broadcast.fide.crosstable import Bye, Game, Player, ResultCode, build_crosstable
from broadcast.fide.standings import compute_standings
from tests.support.paths import DATA

DONOSTIA = Path("/work/shared/testdata/trf/open-gros-donostia-2010.trf")


def test_players_equal_after_all_tiebreaks_share_the_place() -> None:
    players = [Player(i, f"P{i}", 2000) for i in range(1, 5)]
    ct = build_crosstable(players, 1, [Game(1, 1, 2, "1/2-1/2"), Game(1, 3, 4, "1/2-1/2")])
    rows = compute_standings(ct, "SB,DE").rows
    assert [(r.rank, r.start) for r in rows] == [(1, 1), (1, 2), (1, 3), (1, 4)]
    ct2 = ct.with_game(Game(1, 3, 4, "1-0"))
    assert [(r.rank, r.start) for r in compute_standings(ct2, "").rows] == [
        (1, 3),
        (2, 1),
        (2, 2),
        (4, 4),
    ]


def test_live_standings_count_results_only() -> None:
    players = [Player(i, f"P{i}", 2000) for i in range(1, 6)]
    ct = build_crosstable(
        players,
        2,
        [Game(1, 1, 2, "1-0"), Game(1, 3, 4, "0-1"), Game(2, 4, 1, None), Game(2, 2, 5, "0-1")],
        [Bye(1, 5, ResultCode.PAIRING_BYE), Bye(2, 3, ResultCode.HALF_BYE)],
    )
    standings = compute_standings(ct, "BH,PS")
    rows = {r.start: r for r in standings.rows}
    assert standings.rounds == 2
    assert rows[1].points == 1.0 and rows[4].points == 1.0  # their game is still going
    assert rows[5].points == 2.0 and rows[3].points == 0.5
    # Player 1's BH: only round 1 counts (opponent 2 has 0): the running game adds nothing.
    assert rows[1].tiebreaks["BH"] == 0.0
    assert standings.rows[0].start == 5
    after = compute_standings(ct.with_game(Game(2, 4, 1, "1-0")), "BH,PS")
    assert {r.start: r.points for r in after.rows}[4] == 2.0
    assert compute_standings(ct, "BH", rounds=1).rounds == 1


def test_points_follow_the_scoring(tmp_path: Path) -> None:
    from broadcast.fide.crosstable import Scoring

    players = [Player(1, "A"), Player(2, "B"), Player(3, "C")]
    ct = build_crosstable(
        players, 1, [Game(1, 1, 2, "1-0")], [Bye(1, 3)], scoring=Scoring(pairing_bye=0.5)
    )
    assert {r.start: r.points for r in compute_standings(ct).rows} == {1: 1.0, 3: 0.5, 2: 0.0}


def test_cli_json(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [
            "standings",
            "--trf",
            str(DONOSTIA),
            "--rounds",
            "4",
            "--tiebreaks",
            "BH-C1,SB,PS,DE,APRO",
            "--json",
        ]
    )
    assert code == 0
    rows = json.loads(capsys.readouterr().out)
    assert len(rows) == 52
    assert rows[0]["rank"] == 1 and rows[0]["start"] == 1 and rows[0]["name"] == "Mirzoev Azer"
    assert rows[0]["points"] == 4.0
    assert set(rows[0]["tiebreaks"]) == {"BH-C1", "SB", "PS", "DE", "APRO"}
    ranks = [r["rank"] for r in rows]
    assert ranks == sorted(ranks) and ranks[0] == 1
    assert all(b["points"] <= a["points"] for a, b in itertools.pairwise(rows))


def test_cli_table_and_edition(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(
            [
                "standings",
                "--trf",
                str(DATA / "swiss-unplayed.trf"),
                "--edition",
                "2026",
                "--tiebreaks",
                "BH",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert out.splitlines()[0].split() == ["Rk", "SNo", "Name", "Pts", "BH"]
    assert "edition 2026" in out and "Foxtrot" in out


def test_cli_errors(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["standings", "--trf", str(DONOSTIA), "--tiebreaks", "BH,NOPE"]) == 2
    assert "unknown tie-break code 'NOPE'" in capsys.readouterr().err
    assert main(["standings", "--trf", str(tmp_path / "missing.trf")]) == 2
    assert "cannot read" in capsys.readouterr().err
    bad = tmp_path / "bad.trf"
    bad.write_text("001    x      A\n")
    assert main(["standings", "--trf", str(bad)]) == 2
    assert "line 1, column 5" in capsys.readouterr().err
    assert main(["standings", "--trf", str(DONOSTIA), "--edition", "2025"]) == 2
    assert "use 2024 or 2026" in capsys.readouterr().err


def test_cli_event_explains_trf_only(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    event = tmp_path / "event.toml"
    event.write_text("[event]\nname = 'x'\n")
    assert main(["standings", "--event", str(event)]) == 2
    err = capsys.readouterr().err
    assert "no [[section]]" in err  # the config problem, with its hint
