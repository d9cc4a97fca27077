"""Helpers for the arbiter tests: example events, paired rounds, games as events."""

from __future__ import annotations

from collections.abc import Sequence

import chess

from broadcast.arbiter import ArbiterRules, RulesConfig
from broadcast.arbiter.standalone import StandaloneRules
from broadcast.config.loader import load_event
from broadcast.config.model import EventConfig
from broadcast.fide.berger import berger_round
from broadcast.fide.pairing import Pairing
from broadcast.games.game_events import GameClock, GameMove
from broadcast.games.ids import GameKey
from broadcast.service.event_state import EventState
from broadcast.tournament.tournament_events import RoundPaired
from broadcast.tournament.tournament_state import registration_events
from tests.support.paths import ROOT

EXAMPLES = ROOT / "examples"
SESTAO = load_event(EXAMPLES / "sestao-2025-swiss.toml")
DONOSTIA = load_event(EXAMPLES / "donostia-2009-round-robin.toml")
PAMPLONA = load_event(EXAMPLES / "pamplona-masters.toml")

SESTAO_R1 = (Pairing(1, 1, 13), Pairing(2, 14, 2), Pairing(3, 3, 15), Pairing(4, 16, 4))


def start_of(event: EventConfig, round_number: int, section: str | None = None) -> float:
    config = event.section(section) if section else event.sections[0]
    return config.round_start(round_number).start.timestamp()


def standalone(event: EventConfig = SESTAO, config: RulesConfig | None = None) -> StandaloneRules:
    """Rules for `event` over the state the service would have after its registrations
    (the rules read it; `StandaloneRules` folds what is fed to them, as the service does)."""
    state = EventState.new(event)
    for registered in registration_events(event):
        state = state.apply(registered)
    return StandaloneRules(ArbiterRules(event, config, state=state), state)


def engine(
    event: EventConfig = SESTAO,
    round_number: int = 1,
    pairings: Sequence[Pairing] | None = None,
    *,
    section: str | None = None,
    config: RulesConfig | None = None,
) -> StandaloneRules:
    """Rules for `event` with `round_number` paired (Berger for round robins, the given
    or SESTAO_R1 pairings for the Swiss), time just before the start."""
    name = section or event.sections[0].name
    sec = event.section(name)
    if pairings is None:
        if sec.system == "swiss":
            pairings = SESTAO_R1
        else:
            pairings = berger_round(len(sec.players), round_number)
    rules = standalone(event, config)
    for r in range(1, round_number + 1):
        p = tuple(pairings) if r == round_number else _dummy_round(sec.system, len(sec.players), r)
        rules.observe(RoundPaired(name, r, p))
    rules.tick(start_of(event, round_number, name) - 3600)
    return rules


def _dummy_round(system: str, players: int, r: int) -> tuple[Pairing, ...]:
    if system != "swiss":
        return berger_round(players, r)
    return tuple(Pairing(b, 2 * b - 1, 2 * b) for b in range(1, players // 2 + 1))


def gid(event: EventConfig, round_number: int, board: int, section: str | None = None) -> str:
    return GameKey(section or event.sections[0].name, round_number, board).id


def moves(
    game: str, ucis: Sequence[str], t0: float, step: float = 10.0, start: int = 1
) -> list[GameMove]:
    """GameMove events for `ucis` from the start position, one every `step` seconds."""
    board = chess.Board()
    out = []
    for i, uci in enumerate(ucis):
        move = chess.Move.from_uci(uci)
        san = board.san(move)
        board.push(move)
        ply = i + 1
        if ply >= start:
            out.append(GameMove(game, ply, san, uci, board.fen(), t0 + step * i))
    return out


def press(game: str, t: float, running_before: str, running_after: str) -> list[GameClock]:
    """Two clock readings: `running_before` running, then `running_after` (a press)."""
    return [
        GameClock(game, 5400, 5400, running_before, t - 0.5),  # type: ignore[arg-type]
        GameClock(game, 5400, 5400, running_after, t),  # type: ignore[arg-type]
    ]


def without_resolutions(events: Sequence[object]) -> list[object]:
    """The events minus `AlertResolved` (alerts closing because their cause ended)."""
    from broadcast.arbiter.alerts import AlertResolved

    return [e for e in events if not isinstance(e, AlertResolved)]


def kinds(events: Sequence[object]) -> list[str]:
    """A short label per event: 'alert:late', 'result-proposed:+/-:default-time', ..."""
    from broadcast.cli.event_lines import event_type

    out = []
    for e in events:
        label = event_type(e)
        if hasattr(e, "kind"):
            label += f":{e.kind}"
        elif hasattr(e, "result") and hasattr(e, "reason"):
            label += f":{e.result}:{e.reason}"
        out.append(label)
    return out
