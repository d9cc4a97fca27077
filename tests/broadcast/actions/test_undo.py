"""Any sequence of arbiter actions (undos among them), followed by the undos of what was
done in reverse order, gives back the event as it started: the fold, the open alerts and
who is at the boards. A refused action changes nothing. A restart from the journal folds
to the same state. (Issue 28's property.)"""

from __future__ import annotations

from pathlib import Path

import chess
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from broadcast.actions import (
    CancelBye,
    Command,
    CorrectLine,
    Done,
    LateEntry,
    MarkPresent,
    PublishPairings,
    Reinstate,
    ReplaceMove,
    ReplacePlayer,
    RequestBye,
    RestorePrize,
    SetResult,
    TakeBack,
    Undo,
    Withdraw,
    WithholdPrize,
    act,
)
from broadcast.actions.late_entries import particulars
from broadcast.fide.pairing import Pairing
from broadcast.fide.results import Reason, Result
from broadcast.service.event_service import ActionError, EventService
from tests.broadcast.actions.test_door import _config, _restarted, _seen, _service, play
from tests.support import acting

BY = "arbiter:prop"
GAME_REASONS = [r.value for r in Reason if r.desk_allowed and not r.is_forfeit]
FORFEIT_REASONS = [r.value for r in Reason if r.is_forfeit]
EVENTS = {"sestao-2025-swiss.toml": "Open", "pamplona-masters.toml": "Masters"}


def _event(folder: Path, name: str) -> EventService:
    """Round 1 on the boards (paired, some games under way), round 2 paired too."""
    service = _service(folder, _config(name))
    section = EVENTS[name]
    if 1 not in service.tournament.section(section).rounds:
        acting.pair_dutch(service, section, 1)
    games = service.book.round_games(section, 1)
    for game, line in zip(games[:3], (["e4", "e5", "Nf3"], ["d4", "d5"], ["c4"]), strict=True):
        play(service, game.id, line)
    return service


@st.composite
def commands(draw: st.DrawFn, service: EventService, section: str, done: list[Done]) -> Command:
    state = service.tournament.section(section)
    players = sorted(state.players)
    player = draw(st.sampled_from(players))
    games = [g for r in (1, 2) for g in service.book.round_games(section, r)]
    game = draw(st.sampled_from(games))
    kind = draw(
        st.sampled_from(
            [
                "result",
                "result",
                "forfeit",
                "takeback",
                "move",
                "line",
                "withdraw",
                "reinstate",
                "bye",
                "cancel-bye",
                "withhold",
                "restore",
                "late",
                "replace",
                "present",
                "repair",
                "undo",
            ]
        )
    )
    match kind:
        case "result":
            result = draw(st.sampled_from([r.value for r in Result if not r.is_forfeit]))
            return SetResult(game.id, result, draw(st.sampled_from(GAME_REASONS)))
        case "forfeit":
            result = draw(st.sampled_from([r.value for r in Result if r.is_forfeit]))
            return SetResult(game.id, result, draw(st.sampled_from(FORFEIT_REASONS)))
        case "takeback":
            return TakeBack(game.id, draw(st.integers(1, 3)))
        case "move" | "line":
            board = chess.Board(game.start_fen)
            ply = draw(st.integers(1, game.ply + 1))
            for record in game.moves[: ply - 1]:
                board.push_uci(record.uci)
            moves = sorted(board.legal_moves, key=lambda m: m.uci())
            move = draw(st.sampled_from(moves))
            if kind == "move":
                return ReplaceMove(game.id, ply, board.san(move))
            line = [m.uci for m in game.moves[: ply - 1]] + [move.uci()]
            return CorrectLine(game.id, tuple(line))
        case "withdraw":
            return Withdraw(section, player, reason="property")
        case "reinstate":
            return Reinstate(section, draw(st.sampled_from(sorted(state.withdrawn) or players)))
        case "bye":
            return RequestBye(section, draw(st.integers(2, 6)), player, override=True)
        case "cancel-bye":
            return CancelBye(section, draw(st.integers(2, 6)), player, override=True)
        case "withhold":
            return WithholdPrize(section, player, "property")
        case "restore":
            return RestorePrize(section, player)
        case "late":
            name = f"Newcomer, {draw(st.sampled_from(['Ane', 'Jon', 'Uxue']))}"
            return LateEntry(section, particulars({"name": name, "rating": 1500}))
        case "replace":
            name = f"Substitute, {draw(st.sampled_from(['Iker', 'Maite']))}"
            return ReplacePlayer(section, player, particulars({"name": name}), override="x")
        case "present":
            return MarkPresent(game.id, draw(st.sampled_from(["white", "black"])))
        case "repair":
            pairings = list(state.rounds[1].pairings)
            games_ = [p for p in pairings if p.black is not None]
            i, j = draw(st.tuples(st.integers(0, len(games_) - 1), st.integers(0, len(games_) - 1)))
            a, b = games_[i], games_[j]
            swapped = {
                a.board: Pairing(a.board, a.white, b.black),
                b.board: Pairing(b.board, b.white, a.black),
            }
            new = tuple(swapped.get(p.board, p) if p.black is not None else p for p in pairings)
            return PublishPairings(section, 1, new, "arbiter")
    if done:
        return Undo(draw(st.sampled_from(done)).seq)
    return SetResult(game.id, "1/2-1/2", "agreement")


@pytest.mark.parametrize("name", sorted(EVENTS))
@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_actions_undone_in_reverse_give_back_the_start(
    tmp_path_factory: pytest.TempPathFactory, name: str, data: st.DataObject
) -> None:
    folder = tmp_path_factory.mktemp("undo")
    service = _event(folder, name)
    section = EVENTS[name]
    start = _seen(service)
    done: list[tuple[Done, tuple[object, ...]]] = []
    for _ in range(data.draw(st.integers(1, 7), label="actions")):
        command = data.draw(commands(service, section, [d for d, _ in done]), label="command")
        before = _seen(service)
        try:
            did = act(service, command, BY, confirm=True)
        except ActionError:
            assert _seen(service) == before, f"{command} was refused but changed the event"
            continue
        done.append((did, before))
    middle = service.state
    assert _restarted(folder, service, snapshots=False).state == middle
    for did, before in reversed(done):
        act(service, Undo(did.seq), BY, confirm=True)
        assert _seen(service) == before, f"undoing {did.plan.kind}: {did.summary}"
    assert _seen(service) == start
    assert _restarted(folder, service, snapshots=False).state == service.state
