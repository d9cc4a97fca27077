"""The demo's games and a sample of the corpora, played legally by emulated people with
realistic habits through the whole service: no illegal-move or presence alert, the games
come out exactly, and every result proposal is a desk alert stating result and reason.

The boards' reports are stalled now and then (`stall_rate`), as a loaded machine running
the simulator at 20x does: that is what made the demo cry "illegal move stood" on legal
games (a press read while the board was briefly out of sync, before the reconstruction
had seen the move's position settle)."""

from __future__ import annotations

from pathlib import Path

import chess.pgn
import pytest

from broadcast.arbiter.alerts import Alert
from broadcast.arbiter.context import RulesConfig
from broadcast.arbiter.trouble import TroubleConfig
from broadcast.cli.demo import _games as demo_games
from broadcast.games.game_events import ResultProposed
from broadcast.service.event_service import EventService
from tests.support.service_feed import journal_events, load_games, run_round

CORPORA = Path("/work/shared/testdata/games")
FALSE_ALARMS = {"illegal-move-stood", "late", "check-presence"}
STALLS = 0.05  # per event second: one stall of 1.5-4 s every 20 s or so


def _check(service: EventService, games: list[chess.pgn.Game]) -> None:
    events = journal_events(service)
    alerts = [e for e in events if isinstance(e, Alert)]
    assert [a.message for a in alerts if a.kind in FALSE_ALARMS] == []
    proposals = [e for e in events if isinstance(e, ResultProposed)]
    offered = {(a.game, a.result, a.reason) for a in alerts if a.kind == "result-proposed"}
    for p in proposals:
        assert (p.game, p.result, p.reason) in offered, f"no desk alert for {p}"
    for k, game in enumerate(games, 1):
        played = service.book.round_games("Masters", 1)[k - 1]
        assert [m.uci for m in played.moves] == [m.uci() for m in game.mainline_moves()]


@pytest.mark.parametrize("seed", [1, 2])
def test_demo_games_raise_no_false_alert(tmp_path: Path, seed: int) -> None:
    games = demo_games()[:4]
    service, _ = run_round(tmp_path, games, seed=seed, stall_rate=STALLS)
    _check(service, games)


def test_the_stalls_do_produce_presses_while_out_of_sync(tmp_path: Path) -> None:
    """Judged at the press itself (the old rule), the same legal games raise the alarm:
    the scenario above really exercises the case."""
    hasty = RulesConfig(trouble=TroubleConfig(illegal_move_after=0.0))
    service, _ = run_round(tmp_path, demo_games()[:4], seed=1, stall_rate=STALLS, rules=hasty)
    alerts = [e for e in journal_events(service) if isinstance(e, Alert)]
    assert any(a.kind == "illegal-move-stood" for a in alerts)


@pytest.mark.parametrize(
    ("name", "skip"),
    [
        ("kasparov.pgn", 0),
        ("kasparov.pgn", 40),
        ("worldcup2025-rapid-blitz-clk.pgn", 0),
        # (worldcup2025-broadcast-artifacts-clk.pgn holds illegal broadcast lines: not legal play)
    ],
)
def test_corpus_games_raise_no_false_alert(tmp_path: Path, name: str, skip: int) -> None:
    games = load_games(CORPORA / name, 4, skip=skip)
    assert len(games) == 4
    service, _ = run_round(tmp_path, games, seed=skip + 3, stall_rate=STALLS)
    _check(service, games)
