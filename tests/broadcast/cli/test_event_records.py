"""Standings and exports of a running or finished event, read from its journal."""

from __future__ import annotations

import io
import json
from pathlib import Path

import chess.pgn
import pytest

from broadcast.cli import main
from broadcast.fide.trf import load_trf
from tests.support import acting
from tests.support.paths import ROOT
from tests.support.web_app import make_service, play_moves

EVENT = ROOT / "examples" / "pamplona-masters.toml"


def test_standings_and_exports_from_the_journal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    service, _clock = make_service(tmp_path)
    play_moves(service, "masters-r1-b1", ["e4", "e5", "Qh5", "Nc6", "Bc4", "Nf6", "Qxf7#"])
    acting.set_result(service, "masters-r1-b1", "1-0", "arbiter:ana", "checkmate")
    acting.set_result(service, "masters-r1-b2", "1/2-1/2", "arbiter:ana", "arbiter")
    acting.set_result(service, "masters-r1-b3", "+/-", "arbiter:ana", "forfeit")
    acting.set_result(service, "masters-r1-b4", "0-1", "arbiter:ana", "resignation")
    service.journal.close()
    db = tmp_path / "journal.sqlite"

    assert main(["standings", "--event", str(EVENT), "--db", str(db), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["points"] for r in rows][:4] == [1.0, 1.0, 1.0, 0.5]
    assert set(rows[0]["tiebreaks"]) == {"SB", "DE", "WIN"}
    assert (
        rows[0]["rank"] == rows[1]["rank"] == rows[2]["rank"] == 1
        or rows[0]["rank"] < rows[2]["rank"]
    )

    pgn, trf, folder = tmp_path / "event.pgn", tmp_path / "results.trf", tmp_path / "broadcast"
    assert (
        main(
            [
                "export",
                str(EVENT),
                "--db",
                str(db),
                "--pgn",
                str(pgn),
                "--trf",
                str(trf),
                "--folder",
                str(folder),
            ]
        )
        == 0
    )
    text = pgn.read_text(encoding="utf-8")
    games = []
    stream = io.StringIO(text)
    while (game := chess.pgn.read_game(stream)) is not None:
        assert not game.errors
        games.append(game)
    won = next(g for g in games if g.headers["Round"] == "1.1")
    assert won.headers["Result"] == "1-0" and won.end().board().is_checkmate()
    report = load_trf(trf)
    assert report.crosstable.score(1) == 1.0
    assert (folder / "round-1" / "game-1.pgn").exists() and (
        folder / "round-1" / "games.pgn"
    ).exists()


def test_export_needs_a_journal_and_a_target(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert (
        main(
            [
                "export",
                str(EVENT),
                "--db",
                str(tmp_path / "none.sqlite"),
                "--pgn",
                str(tmp_path / "x.pgn"),
            ]
        )
        == 2
    )
    assert "no journal" in capsys.readouterr().err
    assert main(["export", str(EVENT)]) == 2
    assert "say what to write" in capsys.readouterr().err
