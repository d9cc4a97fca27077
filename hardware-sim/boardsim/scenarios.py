"""Arbiter scenarios: one board's game with the troubles an arbiter must see, as a capture.

A `Scenario` says what happens at one board in one round: who arrives when (or never),
whether a flag falls, the board is unplugged, its battery runs down, or the players
signal an agreed draw with the kings. `capture_lines(scenario)` plays it on an emulated
board and clock in single-board mode and returns the JSON Lines of a capture file (the
same format `boardwire watch --record` writes), with `started_at` placing t = 0 at
`lead` seconds before the round starts. Deterministic and instant: no pty, no sleeping.

Time in a scenario is seconds from the round's scheduled start (the capture's t is that
plus `lead`). The arbiter starts the clocks at the scheduled time (Laws 6.7), so an
absent White's time runs from the start.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Sequence
from dataclasses import dataclass

import chess

from boards.dgt.codes import Command
from boards.dgt.decoder import SingleCommand
from boards.position import SYMBOL_TO_CODE, square_to_index
from boardsim.board import EmulatedBoard
from boardsim.clock import EmulatedClock, Side
from boardsim.script import hand_moves

POLL_SECONDS = 5.0  # the driver asks for the clock this often (host "out" traffic)
BATTERY_POLL_SECONDS = 60.0


@dataclass(frozen=True, slots=True)
class Scenario:
    """One board in one round.

    `moves`: the game in UCI from the start. `white_arrives`/`black_arrives`: seconds
    after the start when each first acts (None: never comes). `think`: seconds per move.
    `flag`: after the moves, this colour stops moving and runs out of time.
    `unplug_at`: the board goes silent (cable out) from this second on.
    `battery_start`/`battery_drain_per_hour`: a wireless board's battery running down.
    `draw_at_move`: after this many full moves, the kings signal `signal_result`
    (1/2-1/2 by default: an agreed draw; 1-0 or 0-1 for a resignation).
    `pause_after`: the players stop the clock a few seconds after their last action
    (unless a flag is to fall); False leaves it running (an absent player's time).
    `end_after`: seconds after the start to keep the capture going (host polls).
    """

    moves: tuple[str, ...] = ()
    white_arrives: float | None = 0.0
    black_arrives: float | None = 0.0
    think: float = 20.0
    base: float = 5400.0
    increment: float = 30.0
    flag: str | None = None
    unplug_at: float | None = None
    battery_start: int | None = None
    battery_drain_per_hour: float = 0.0
    draw_at_move: int | None = None
    signal_result: str = "1/2-1/2"
    pause_after: bool = True
    end_after: float = 3600.0
    serial: str = "10001"
    lead: float = 60.0


def never_arrives(colour: str, moves: Sequence[str] = (), **kw: object) -> Scenario:
    """A player who never comes: the other plays nothing (White) or one move (Black)."""
    if colour == "white":
        return Scenario(moves=(), white_arrives=None, pause_after=False, **kw)  # type: ignore[arg-type]
    return Scenario(
        moves=tuple(moves[:1]),
        black_arrives=None,
        pause_after=False,
        **kw,  # type: ignore[arg-type]
    )


def arrives_late(colour: str, minutes: float, moves: Sequence[str], **kw: object) -> Scenario:
    """A player who comes `minutes` after the start (29 or 31 in the Sestao rules)."""
    late = minutes * 60.0
    if colour == "white":
        return Scenario(moves=tuple(moves), white_arrives=late, **kw)  # type: ignore[arg-type]
    return Scenario(moves=tuple(moves), black_arrives=late, **kw)  # type: ignore[arg-type]


def flag_fall(colour: str, moves: Sequence[str], **kw: object) -> Scenario:
    return Scenario(moves=tuple(moves), flag=colour, **kw)  # type: ignore[arg-type]


def unplugged(at: float, moves: Sequence[str], **kw: object) -> Scenario:
    return Scenario(moves=tuple(moves), unplug_at=at, **kw)  # type: ignore[arg-type]


def battery_running_down(
    start: int, per_hour: float, moves: Sequence[str], **kw: object
) -> Scenario:
    return Scenario(
        moves=tuple(moves),
        battery_start=start,
        battery_drain_per_hour=per_hour,
        **kw,  # type: ignore[arg-type]
    )


def agreed_draw(at_move: int, moves: Sequence[str], **kw: object) -> Scenario:
    return Scenario(moves=tuple(moves[: 2 * at_move]), draw_at_move=at_move, **kw)  # type: ignore[arg-type]


class _Recorder:
    """Collects capture chunks; drops the board's bytes once it is unplugged."""

    def __init__(self, scenario: Scenario) -> None:
        self.scenario = scenario
        self.lines: list[str] = []

    def chunk(self, t: float, direction: str, data: bytes) -> None:
        if not data:
            return
        unplug = self.scenario.unplug_at
        if direction == "in" and unplug is not None and t >= unplug:
            return  # the cable is out: nothing reaches the host
        capture_t = round(t + self.scenario.lead, 3)
        self.lines.append(json.dumps({"t": capture_t, "dir": direction, "hex": data.hex()}))


def _moves_timeline(scenario: Scenario) -> list[tuple[float, chess.Move]]:
    """When each move is completed (lever pressed), from the arrivals and think time."""
    board = chess.Board()
    out: list[tuple[float, chess.Move]] = []
    last = 0.0
    for ply, uci in enumerate(scenario.moves, 1):
        arrives = scenario.white_arrives if ply % 2 == 1 else scenario.black_arrives
        if arrives is None:
            break
        t = max(last + scenario.think, arrives + scenario.think / 2)
        move = chess.Move.from_uci(uci)
        if move not in board.legal_moves:
            raise ValueError(f"scenario move {ply} {uci} is illegal in {board.fen()}")
        out.append((t, move))
        board.push(move)
        last = t
    return out


def capture_lines(scenario: Scenario, round_start: dt.datetime) -> list[str]:
    """The capture file's lines (meta first) for `scenario` in a round starting then."""
    started = round_start - dt.timedelta(seconds=scenario.lead)
    meta = {"meta": {"started_at": started.isoformat(), "scenario": "boardsim.scenarios"}}
    rec = _Recorder(scenario)
    clock = EmulatedClock(
        scenario.base, scenario.base, increment=scenario.increment, t=-scenario.lead
    )
    device = EmulatedBoard(
        scenario.serial,
        clock=clock,
        battery_percent=scenario.battery_start,
        t=-scenario.lead,
    )
    t0 = -scenario.lead + 0.1

    def command(t: float, code: int) -> None:
        rec.chunk(t, "out", bytes([code]))
        rec.chunk(t, "in", device.handle(SingleCommand(code), t))

    command(t0, Command.RETURN_SERIALNR)
    command(t0 + 0.1, Command.SEND_BRD)
    command(t0 + 0.2, Command.SEND_UPDATE_NICE)
    # The arbiter starts the clocks at the scheduled time: Black's button starts White's.
    rec.chunk(0.0, "in", device.press_lever("right", 0.0))

    actions: list[tuple[float, int, object]] = []  # (t, order, action)
    board = chess.Board()
    for t, move in _moves_timeline(scenario):
        steps = hand_moves(board, move)
        side: Side = "left" if board.turn == chess.WHITE else "right"
        for i, (square, symbol) in enumerate(steps):
            code = SYMBOL_TO_CODE[symbol] if symbol else 0
            actions.append((t - 0.3 * (len(steps) - i), 0, ("square", square, code)))
        actions.append((t, 1, ("press", side)))
        board.push(move)
    last_move_t = actions[-1][0] if actions else 0.0
    if scenario.draw_at_move is not None:
        t = last_move_t + 10.0
        for i, (square, code) in enumerate(_kings_signal(board, scenario.signal_result)):
            actions.append((t + 0.4 * i, 0, ("square", square, code)))

    if scenario.pause_after and scenario.flag is None and actions:
        actions.append((max(a[0] for a in actions) + 5.0, 2, ("pause",)))
    end = scenario.end_after
    if scenario.flag is not None:
        # Long enough for the flagging side to run out; the loop stops once it has.
        limit = scenario.base + scenario.increment * len(scenario.moves) + 60.0
        end = max(end, last_move_t + limit)
    actions.sort(key=lambda a: (a[0], a[1]))
    i = 0
    t = 0.0
    step = 1.0
    while t <= end:
        while i < len(actions) and actions[i][0] <= t:
            at, _, action = actions[i]
            kind = action[0]  # type: ignore[index]
            if kind == "pause":
                clock.pause(at)
            elif kind == "square":
                _, square, code = action  # type: ignore[misc]
                rec.chunk(at, "in", device.set_square(square_to_index(square), code, at))
            else:
                rec.chunk(at, "in", device.press_lever(action[1], at))  # type: ignore[index]
            i += 1
        rec.chunk(t, "in", device.tick(t))
        if t % POLL_SECONDS == 0:
            command(t, Command.SEND_CLK)
        if scenario.battery_start is not None and t % BATTERY_POLL_SECONDS == 0:
            drained = scenario.battery_drain_per_hour * max(0.0, t) / 3600.0
            device.battery_percent = max(0, round(scenario.battery_start - drained))
            command(t, Command.SEND_BATTERY_STATUS)
        t += step
    return [json.dumps(meta), *rec.lines]


SIGNAL_SQUARES = {
    "1/2-1/2": (chess.E4, chess.E5),  # one light, one dark
    "1-0": (chess.E4, chess.D5),  # both light
    "0-1": (chess.D4, chess.E5),  # both dark
}


def _kings_signal(board: chess.Board, result: str) -> list[tuple[chess.Square, int]]:
    """Square changes that put the kings on the centre squares signalling `result` (the
    DGT convention). Whatever stands there is taken off first."""
    out: list[tuple[chess.Square, int]] = []
    wk, bk = board.king(chess.WHITE), board.king(chess.BLACK)
    assert wk is not None and bk is not None
    white_to, black_to = SIGNAL_SQUARES[result]
    for square, king, symbol in ((white_to, wk, "K"), (black_to, bk, "k")):
        if board.piece_at(square) is not None and square != king:
            out.append((square, 0))
        out.append((king, 0))
        out.append((square, SYMBOL_TO_CODE[symbol]))
    return out


def write_capture(path: str, scenario: Scenario, round_start: dt.datetime) -> None:
    """Write the scenario's capture file."""
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(capture_lines(scenario, round_start)) + "\n")


__all__ = [
    "BATTERY_POLL_SECONDS",
    "POLL_SECONDS",
    "SIGNAL_SQUARES",
    "Scenario",
    "agreed_draw",
    "arrives_late",
    "battery_running_down",
    "capture_lines",
    "flag_fall",
    "never_arrives",
    "unplugged",
    "write_capture",
]
