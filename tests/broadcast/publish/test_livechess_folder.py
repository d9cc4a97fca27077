"""The broadcast folder as LiveChess writes its export: tournament.json at the root and
round-N/index.json beside the round's PGN files, in LiveChess's shapes."""

from __future__ import annotations

import json

from broadcast.fide.berger import berger_round
from broadcast.games.book import GameBook
from broadcast.games.game_events import ResultConfirmed
from broadcast.games.ids import GameKey
from broadcast.publish.folder import (
    ROUND_INDEX_FILE,
    TOURNAMENT_FILE,
    export_event_folder,
    export_round_folder,
)
from broadcast.tournament.tournament_events import RoundPaired
from tests.support.export import T0, event, paired, play, random_line, read_all
from tests.support.livechess_sample import SAMPLE, sample, shape_errors

MASTERS = "Masters"


def _load(path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def test_the_folder_reads_like_livechess_export(tmp_path) -> None:
    cfg = event()
    book = GameBook().synced(paired(cfg, MASTERS, 1, list(berger_round(8, 1))))
    book = play(book, GameKey(MASTERS, 1, 1).id, random_line(7, 12))
    book = book.apply(ResultConfirmed(GameKey(MASTERS, 1, 2).id, "0-1", "resignation", T0))
    export_round_folder(tmp_path, book, cfg, MASTERS, 1)
    # the same files as the sample's, where the sample has them
    theirs = {p.relative_to(SAMPLE).as_posix() for p in SAMPLE.rglob("*") if p.is_file()}
    ours = {p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file()}
    assert {n for n in theirs if n.startswith("round-1/") or "/" not in n} <= ours
    tournament = _load(tmp_path / TOURNAMENT_FILE)
    index = _load(tmp_path / "round-1" / ROUND_INDEX_FILE)
    assert shape_errors(tournament, sample("tournament.json")) == []
    assert shape_errors(index, sample("round-1/index.json")) == []
    assert tournament["rounds"][0] == {"count": 4, "live": 1}
    assert [p["live"] for p in index["pairings"]] == [True, False, False, False]
    assert [p["result"] for p in index["pairings"]] == ["*", "0-1", "*", "*"]
    # the i-th pairing is game-i.pgn: the same players
    for i, pairing in enumerate(index["pairings"], 1):
        (game,) = read_all((tmp_path / "round-1" / f"game-{i}.pgn").read_text(encoding="utf-8"))
        assert game.headers["White"] == f"{pairing['white']['lname']}, {pairing['white']['fname']}"
        assert game.headers["Result"] == pairing["result"]


def test_json_is_rewritten_only_when_it_changed(tmp_path) -> None:
    cfg = event()
    book = GameBook().synced(paired(cfg, MASTERS, 1, list(berger_round(8, 1))))
    book = play(book, GameKey(MASTERS, 1, 1).id, random_line(7, 4))
    export_round_folder(tmp_path, book, cfg, MASTERS, 1)
    index = tmp_path / "round-1" / ROUND_INDEX_FILE
    before = index.stat().st_ino
    update = export_round_folder(tmp_path, book, cfg, MASTERS, 1)  # nothing new
    assert update.written == () and index.stat().st_ino == before
    done = book.apply(ResultConfirmed(GameKey(MASTERS, 1, 1).id, "1-0", "resignation", T0))
    update = export_round_folder(tmp_path, done, cfg, MASTERS, 1)
    names = sorted(p.name for p in update.written)
    assert names == ["game-1.pgn", "games.pgn", ROUND_INDEX_FILE, TOURNAMENT_FILE]
    assert _load(index)["pairings"][0]["result"] == "1-0"


def test_each_section_has_its_own_tournament_json(tmp_path) -> None:
    cfg = event("donostia-2009-round-robin")
    first, second = cfg.sections[0].name, cfg.sections[1].name
    state = paired(cfg, first, 2, list(berger_round(10, 1)))
    state = state.apply(RoundPaired(second, 1, tuple(berger_round(10, 1)), "test"))
    export_event_folder(tmp_path, GameBook(), cfg, tournament=state)
    files = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*.json"))
    assert files == [
        "diputacion-foral/round-1/index.json",
        "diputacion-foral/round-2/index.json",
        "diputacion-foral/tournament.json",
        "euskal-xake-eskola/round-1/index.json",
        "euskal-xake-eskola/tournament.json",
    ]
    one = _load(tmp_path / "diputacion-foral" / TOURNAMENT_FILE)
    two = _load(tmp_path / "euskal-xake-eskola" / TOURNAMENT_FILE)
    assert one["name"] == f"{cfg.name} - {first}" and two["name"] == f"{cfg.name} - {second}"
    assert [r["count"] for r in one["rounds"][:3]] == [5, 5, 0]
    assert [r["count"] for r in two["rounds"][:2]] == [5, 0]
    for data in (one, two):
        assert shape_errors(data, sample("tournament.json")) == []
    index = _load(tmp_path / "euskal-xake-eskola" / "round-1" / ROUND_INDEX_FILE)
    assert len(index["pairings"]) == 5
    assert shape_errors(index, sample("round-1/index.json")) == []
