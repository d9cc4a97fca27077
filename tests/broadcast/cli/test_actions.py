"""`boardwire actions`: the arbiter's record of the event, read from the journal (who,
when, what, what it removed, what undid it), as lines or JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from broadcast.cli import main
from tests.broadcast.actions.test_door import SESTAO, _config, _game, _service
from tests.support import acting
from tests.support.paths import ROOT


def test_the_actions_are_listed_with_what_undid_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    service = _service(tmp_path, _config("sestao-2025-swiss.toml"))
    paired = acting.pair_dutch(service, SESTAO, 1, by="arbiter:ana")
    game = _game(service, SESTAO, 1, 1)
    result = acting.set_result(service, game, "1-0", "arbiter:ana", reason="resignation")
    undo = acting.undo(service, result, by="arbiter:jon")
    event = ROOT / "examples" / "sestao-2025-swiss.toml"
    db = tmp_path / "j.sqlite"
    assert main(["actions", str(event), "--db", str(db), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [(r["seq"], r["by"], r["kind"]) for r in rows] == [
        (paired.seq, "arbiter:ana", "pairings"),
        (result.seq, "arbiter:ana", "result"),
        (undo.seq, "arbiter:jon", "undo"),
    ]
    assert rows[1]["undone_by"] == undo.seq and rows[2]["undoes"] == result.seq
    assert main(["actions", str(event), "--db", str(db)]) == 0
    text = capsys.readouterr().out
    assert f"arbiter:ana: {result.summary}  [undone by {undo.seq}]" in text
    assert "removed: the result 1-0 (resignation) of round 1 board 1" in text
    assert main(["actions", str(event), "--db", str(tmp_path / "none.sqlite")]) == 2
    assert "no journal at" in capsys.readouterr().err
