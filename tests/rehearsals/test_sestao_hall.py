"""The 60-table Sestao hall played through one round, and its exports complete (issue 30).

`examples/rehearse_hall.py` plays round 1 of `sestao-2025-swiss-hall.toml` (120 players,
60 tables, e-boards on tables 1-12) as a rehearsal, in virtual time: the wired tables by
their boards' moves, the other 48 through the new paths (check-in and the hall walk,
players' results and the results table, scoresheets). Here: every game has a result, the
PGN has every game with its moves, and the PGN and the TRF say played for every played
game (and unplayed for the one forfeit).
"""

from __future__ import annotations

import datetime as dt
import importlib.util
import io
import sys
from pathlib import Path
from types import ModuleType
from zoneinfo import ZoneInfo

import chess.pgn

from broadcast.config import load_event
from broadcast.fide.crosstable import ResultCode
from broadcast.fide.trf import read_trf
from tests.support.paths import ROOT

MADRID = ZoneInfo("Europe/Madrid")
NOW = dt.datetime(2026, 12, 5, 9, 0, tzinfo=MADRID).timestamp()
PLAYED = {ResultCode.WIN, ResultCode.DRAW, ResultCode.LOSS}


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "rehearse_hall", ROOT / "examples" / "rehearse_hall.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["rehearse_hall"] = module  # its dataclass looks itself up there
    spec.loader.exec_module(module)
    return module


def test_the_example_is_a_hall_of_60_tables_with_12_wired() -> None:
    config = load_event(ROOT / "examples" / "sestao-2025-swiss-hall.toml")
    assert len(config.section("Open").players) == 120
    assert sorted(b.table or b.number for b in config.boards) == list(range(1, 13))
    names = [p.name for p in config.section("Open").players]
    assert len(set(names)) == 120


def test_one_round_of_the_hall_is_played_through_and_exported_complete(tmp_path: Path) -> None:
    script = _script()
    service, time = script.rehearsal_service(tmp_path / "hall.sqlite", NOW)
    played = script.play_round(service, time)
    assert (played.games, played.wired) == (60, 12)
    assert played.scoresheets == 47 and played.by_players > 0 and played.forfeits == 1

    # Every game has a result, the tournament's too.
    games = list(service.book.round_games("Open", 1))
    assert len(games) == 60 and all(g.result is not None for g in games)
    assert service.tournament.section("Open").rounds[1].complete

    # The new paths were taken, through the door, each journaled with who did it.
    kinds = {a.kind for a in service.action_log.recent(len(service.action_log))}
    assert {"present", "absent", "player-result", "player-confirm", "scoresheet"} <= kinds

    # The PGN: 60 games, each with its result; every played one with its moves.
    pgn = io.StringIO(played.pgn)
    read = []
    while (game := chess.pgn.read_game(pgn)) is not None:
        assert not game.errors, game.errors
        read.append(game)
    assert len(read) == 60
    unplayed = [g for g in read if g.headers.get("Termination") == "Unplayed"]
    assert len(unplayed) == 1 and unplayed[0].headers["Result"] == "1-0"
    for game in read:
        assert game.headers["Result"] in ("1-0", "0-1", "1/2-1/2")
        if game not in unplayed:
            assert game.headers["Termination"] == "normal"
            assert len(list(game.mainline_moves())) >= 20, game.headers["Board"]

    # The TRF: every player has a round-1 result; played games are W/D/L (rated).
    report = read_trf(played.trf)
    codes = [report.crosstable.entry(p.start, 1).result for p in report.crosstable.players]
    assert len(codes) == 120 and None not in codes
    forfeit = {ResultCode.FORFEIT_WIN, ResultCode.FORFEIT_LOSS}
    assert sum(c in forfeit for c in codes) == 2
    assert sum(c in PLAYED for c in codes) == 118
