"""The arbiter rules read the service's one fold, `EventState`, instead of keeping their
own tournament and book (issue 18): the service folds an event, then asks the rules."""

from __future__ import annotations

import ast
from pathlib import Path

from broadcast.arbiter import Alert
from broadcast.games.game_events import ResultProposed
from clocks.move_times import FlagFell
from tests.support.paths import ROOT
from tests.support.web_app import make_service, play_moves

GAME = "masters-r1-b1"


def test_the_rules_read_the_state_the_service_folded(tmp_path: Path) -> None:
    service, _ = make_service(tmp_path, delay=0.0)
    play_moves(service, GAME, ["e4", "e5"])
    assert service.rules.tournament is service.state.tournament
    assert service.rules.book is service.state.book
    assert service.rules.book.get(GAME).ply == 2


def test_what_the_rules_raise_for_one_event_the_next_event_of_the_commit_sees(
    tmp_path: Path,
) -> None:
    """Both flags in one commit: the rules' proposal for the first one is stored after the
    commit's events, yet the second one must see it (a both-flags alert, not a second
    proposal)."""
    service, _ = make_service(tmp_path, delay=0.0)
    play_moves(service, GAME, ["e4", "e5"])
    t = service.time_source.now()
    with service.batch():
        service.commit([FlagFell(t, None, "white"), FlagFell(t, None, "black")], game=GAME)
    journal = [e.event for e in service.journal.read()]
    proposals = [e for e in journal if isinstance(e, ResultProposed)]
    assert [(p.reason, p.result) for p in proposals] == [("flag-fall", "0-1")]
    assert any(isinstance(e, Alert) and e.kind == "both-flags" for e in journal)
    assert service.book.get(GAME).proposal == proposals[0]


def test_the_arbiter_imports_neither_the_service_nor_a_fold_of_its_own() -> None:
    imported: dict[str, set[str]] = {}
    for path in sorted((ROOT / "broadcast" / "arbiter").glob("*.py")):
        names = imported.setdefault(path.name, set())
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                names.add(node.module)
            elif isinstance(node, ast.Import):
                names.update(a.name for a in node.names)
    wrong = {
        f: sorted(n for n in names if n.startswith("broadcast.service") or n.endswith(".fold"))
        for f, names in imported.items()
    }
    assert {f: n for f, n in wrong.items() if n} == {}
