"""Arbiter rules throughput: events per second through `ArbiterRules.observe` over a
100-board round (moves, clock presses, battery reports, ticks), printed next to the cost
of only folding the same game events into a `GameBook` (the reference, same run), as a
ratio: how many times the bare fold the rules cost.

The rules read the state the service folded (`EventState`) and fold nothing of their
own, so the figures are: the service's fold of the events (`EventState.apply`), and the
rules given the state after each event (folded beforehand, outside the timing); a
service pays the sum of the two.

A venue's 100 boards produce a few events per second each at most (one clock reading
per second per board, a move every half minute), so the figure to watch is events/s
against ~300 events/s of a busy hall.
"""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path

import chess
import chess.pgn

from boards.driver_events import BatterySeen
from broadcast.arbiter import ArbiterRules
from broadcast.config.loader import load_event
from broadcast.config.model import EventConfig, PlayerEntry
from broadcast.fide.pairing import Pairing
from broadcast.games.book import GameBook
from broadcast.games.game_events import BoardAttached, GameClock, GameMove
from broadcast.games.ids import GameKey
from broadcast.service.event_state import EventState
from broadcast.tournament.tournament_events import RoundPaired
from broadcast.tournament.tournament_state import fold, registration_events

ROOT = Path(__file__).resolve().parent.parent
BOARDS = 100
PLIES = 80


def big_event() -> EventConfig:
    event = load_event(ROOT / "examples" / "sestao-2025-swiss.toml")
    section = event.sections[0]
    players = tuple(PlayerEntry(n, f"Player {n}", 2000) for n in range(1, 2 * BOARDS + 1))
    return dataclasses.replace(event, sections=(dataclasses.replace(section, players=players),))


def lines() -> list[list[chess.Move]]:
    out = []
    with (ROOT / "examples" / "games" / "worldcup2025-sample.pgn").open(encoding="utf-8") as f:
        while (game := chess.pgn.read_game(f)) is not None:
            out.append(list(game.mainline_moves())[:PLIES])
    return out


def round_events(event: EventConfig) -> tuple[RoundPaired, list[object]]:
    section = event.sections[0]
    start = section.round_start(1).start.timestamp()
    pairing = RoundPaired(
        section.name, 1, tuple(Pairing(b, 2 * b - 1, 2 * b) for b in range(1, BOARDS + 1))
    )
    games = lines()
    per_board: list[list[tuple[float, object]]] = []
    for b in range(1, BOARDS + 1):
        gid = GameKey(section.name, 1, b).id
        board = chess.Board()
        evs: list[tuple[float, object]] = [(start - 60, BoardAttached(gid, f"{b:05d}", start - 60))]
        t = start + b * 0.01
        for ply, move in enumerate(games[b % len(games)], 1):
            t += 30.0
            san = board.san(move)
            board.push(move)
            mover = "white" if ply % 2 else "black"
            other = "black" if mover == "white" else "white"
            evs.append((t - 0.5, GameClock(gid, 5000, 5000, mover, t - 0.5)))  # type: ignore[arg-type]
            evs.append((t, GameMove(gid, ply, san, move.uci(), board.fen(), t)))
            evs.append((t + 0.1, GameClock(gid, 5000, 5000, other, t + 0.1)))  # type: ignore[arg-type]
            if ply % 20 == 0:
                evs.append((t + 0.2, BatterySeen(t + 0.2, f"{b:05d}", 80)))
        per_board.append(evs)
    merged = sorted((e for evs in per_board for e in evs), key=lambda x: x[0])
    return pairing, [e for _, e in merged]


def main() -> None:
    event = big_event()
    pairing, events = round_events(event)
    tournament = fold(event, [*registration_events(event), pairing])

    t = time.perf_counter()
    book = GameBook().synced(tournament)
    for e in events:
        if not isinstance(e, BatterySeen):
            book = book.apply(e)  # type: ignore[arg-type]
    fold_s = time.perf_counter() - t

    start = EventState.new(event)
    for registered in registration_events(event):
        start = start.apply(registered)
    paired = start.apply(pairing)
    t = time.perf_counter()
    state = paired
    states = []
    for e in events:
        state = state.apply(e)  # type: ignore[arg-type]
        states.append(state)
    state_s = time.perf_counter() - t

    rules = ArbiterRules(event, state=start)
    rules.observe(pairing, paired)
    t = time.perf_counter()
    raised = 0
    for e, after in zip(events, states, strict=True):
        raised += len(rules.observe(e, after))  # type: ignore[arg-type]
    rules_s = time.perf_counter() - t

    n = len(events)
    print(f"{BOARDS} boards, {n} events, {raised} raised by the rules")
    print(f"reference GameBook fold: {n / fold_s:,.0f} events/s ({fold_s:.2f} s)")
    print(f"EventState fold:         {n / state_s:,.0f} events/s ({state_s:.2f} s)")
    print(f"ArbiterRules.observe:    {n / rules_s:,.0f} events/s ({rules_s:.2f} s)")
    print(f"ratio rules/fold time:   {rules_s / fold_s:.1f}x")
    print(f"ratio (state fold + rules)/fold time: {(state_s + rules_s) / fold_s:.1f}x")


if __name__ == "__main__":
    main()
