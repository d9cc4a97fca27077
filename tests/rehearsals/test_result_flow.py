"""From the clock and the kings to the desk, the spectators and the PGN: a flag fall and a
kings signal become desk alerts with result and reason; once confirmed the result is in
the game, the public JSON (after the delay) and the round PGN; the alerts close."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from boardsim.humans import Habits
from broadcast.arbiter.alerts import Alert
from broadcast.cli.demo import _games as demo_games
from broadcast.export.pgn import round_pgn
from tests.support import acting
from tests.support.service_feed import run_round
from web import json_views

DELAY = 60.0


def _played(tmp_path: Path):  # type: ignore[no-untyped-def]
    signal_always = dataclasses.replace(Habits.realistic(), result_signal=1.0)
    return run_round(
        tmp_path, demo_games()[:4], seed=5, habits=signal_always, flags=(3,), delay=DELAY
    )


def test_flag_and_kings_signal_reach_desk_public_json_and_pgn(tmp_path: Path) -> None:
    service, time = _played(tmp_path)
    flagged = service.book.round_games("Masters", 1)[2]
    assert flagged.flag is not None and flagged.proposal is not None
    assert flagged.proposal.reason == "flag-fall" and flagged.result is None  # confirm mode
    desk = {a.game: a for a in service.alerts() if a.kind == "result-proposed"}
    alert = desk[flagged.id]
    assert (alert.result, alert.reason) == (flagged.proposal.result, "flag-fall")
    signalled = [g for g in service.book.round_games("Masters", 1) if g.id != flagged.id]
    kings = [g for g in signalled if g.proposal and g.proposal.reason == "kings-signal"]
    assert kings, "no kings signal was proposed"
    assert all(desk[g.id].reason == "kings-signal" for g in kings)

    # Spectators: the flag and the pending result, once the delay has passed.
    time.advance(DELAY + 1)
    public = json_views.game_json(service.public_state().book.get(flagged.id))
    assert public["flag"] == flagged.flag
    assert public["result"] == "*"
    assert public["pending_result"] == {
        "result": flagged.proposal.result,
        "reason": "time forfeit",
    }

    acting.confirm_proposal(service, flagged.id, "arbiter:test")
    assert service.book.get(flagged.id).result == flagged.proposal.result
    assert flagged.id not in {a.game for a in service.alerts() if a.kind == "result-proposed"}
    pgn = round_pgn(service.book, service.config, "Masters", 1)
    assert f'[Result "{flagged.proposal.result}"]' in pgn
    assert '[Termination "time forfeit"]' in pgn

    before = json_views.game_json(service.public_state().book.get(flagged.id))
    assert before["result"] == "*"  # the delay hides the confirmation too
    time.advance(DELAY + 1)
    after = json_views.game_json(service.public_state().book.get(flagged.id))
    assert (after["result"], after["result_reason"], after["pending_result"]) == (
        flagged.proposal.result,
        "time forfeit",
        None,
    )


def test_confirmed_kings_signal_closes_its_alert_and_reads_as_agreement(tmp_path: Path) -> None:
    service, time = _played(tmp_path)
    game = next(
        g
        for g in service.book.round_games("Masters", 1)
        if g.proposal is not None and g.proposal.reason == "kings-signal"
    )
    acting.set_result(service, game.id, game.proposal.result, "arbiter:test", "kings-signal")  # type: ignore[union-attr]
    time.advance(DELAY + 1)
    public = json_views.game_json(service.public_state().book.get(game.id))
    assert public["result_reason"] == "kings signal"
    open_ = [a for a in service.alerts() if isinstance(a, Alert) and a.game == game.id]
    assert [a.kind for a in open_ if a.kind == "result-proposed"] == []
