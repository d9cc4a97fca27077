"""Recovery benchmark: the host cut off mid-game, then the game read back from the board's log.

Real games (the World Cup with clocks, a Kasparov sample without) are played by the
simulator's scripted players with realistic habits (hesitating slides included) on an
`EmulatedBoard`, whose EEPROM log the simulator encodes on its own (power-up records,
overwritten records, the 0x1F00-byte ring). Two scenarios per game, at a seeded random
point:

- restart: the service follows the board live, is killed, and comes back after an
  outage on what its journal kept (the recorded moves with their clock times, the last
  position seen and the last square changes seen);
- first start: the service never saw the board until mid-game.

Recovery goes through the product's path, as the drivers and `boards/reconstruction/follow.py` do:
`decode_ring`, `boards.recovery.recover`, `Reconstructor.resume` and
`BoardFollower.handle(LogRecovered)` (`feed_log`); then the board is followed live to the
end of the game. Printed: games exact move for move, clock times present and equal to the
second to what the board's clock logged at each press, phantom moves (moves recorded from
the recovery on that are not the game's; 0 expected) and the CPU of a recovery, per
recovery and per log byte, next to references measured in the same run: the bare
decoder on the same bytes, and python-chess replaying the same moves. Figures only;
nothing here asserts on time.

The log is downloaded at once here (what a board sends during the 8 s download is the
drivers' `continued`, covered by their tests). Clock readings are fed at each press.

Then the same over every firmware variant of the simulator (`boardsim.firmware`: power-up
logs with and without BEGINPOS, START_TAG dumps, NOP padding, DOWNLOADED tags, watchdog
resets), World Cup games only, with a third scenario: power-cut, where the board loses its
power for 2 s mid-game and the host, which noticed it some seconds later, reads the log.

`--quick`: fewer games; `--games N`: N games per corpus; `--firmware-games N`: N games
per firmware variant (`--firmware NAME,...` picks variants, `--firmware none` skips
them); `--old`: also the old recovery (the missed positions spread evenly over the
outage, as `boards/recovery.py` did before issue 10; presses dropped), to show the
phantom moves it made; `--repro CORPUS:INDEX:SCENARIO[:FIRMWARE]` replays one case and
prints its moves.
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import chess
import chess.pgn

from boards.dgt.eeprom import decode_ring
from boards.driver_events import LogRecovered
from boards.reconstruction import (
    MovePlayed,
    MoveRetracted,
    ReconstructionEvent,
    Reconstructor,
)
from boards.reconstruction.follow import BoardFollower
from boards.recovery import START, START_ROTATED, RecentChanges, recover
from boardsim.board import EmulatedBoard
from boardsim.firmware import DEFAULT_FIRMWARE, FIRMWARE_NAMES
from boardsim.humans import Habits
from boardsim.script import ClockSetup, LeverPress, SquareSet, human_actions_for_game
from clocks.reading import NoClock

GAMES = Path("/work/shared/testdata/games")
CORPORA = {
    "worldcup": (GAMES / "worldcup2025-rapid-blitz-clk.pgn", True),
    "kasparov": (GAMES / "kasparov.pgn", False),
}
HABITS = dataclasses.replace(Habits.realistic(), max_think=8.0)
SERIAL = "10001"
SCENARIOS = ("control", "restart", "first-start")  # control: followed live, no outage
REPRO = ".venv/bin/python bench/bench_recovery.py --repro"
OUTAGE = (5.0, 120.0)  # seconds the service is away after a kill
POWER_CUT = 2.0  # seconds a board is without power in the power-cut scenario
NOTICED_AFTER = 4.0  # seconds from the cut until the driver reads the log (it notices the
# silent clock 3 s after the cut, then reconnects)
FIRMWARE_SCENARIOS = ("restart", "first-start", "power-cut")


def read_games(path: Path, limit: int) -> list[chess.pgn.Game]:
    games: list[chess.pgn.Game] = []
    with open(path, newline=None, encoding="utf-8", errors="replace") as f:
        while len(games) < limit and (game := chess.pgn.read_game(f)) is not None:
            if not game.errors and any(True for _ in game.mainline_moves()):
                games.append(game)
    return games


@dataclass
class Outcome:
    """One game through one scenario."""

    exact: bool
    plies: int
    recovered_plies: int
    clocks_want: int
    clocks_ok: int
    phantoms: int
    phantoms_live: int
    retractions: int
    placed: bool
    log_bytes: int
    recovery_ns: int
    decode_ns: int
    replay_ns: int
    cut: float
    known_plies: int
    played_plies: int
    got: list[str] = field(default_factory=list)


class Live:
    """A board followed by the product: every change a position, a reading at each press."""

    def __init__(self, follower: BoardFollower) -> None:
        self.follower = follower
        self.events: list[ReconstructionEvent] = []

    def until(self, t: float) -> None:
        rec = self.follower.reconstructor
        while (due := rec.next_deadline()) is not None and due <= t:
            self.events += self.follower.tick(due)

    def feed(self, t: float, board: EmulatedBoard, what: str) -> None:
        self.until(t)
        rec = self.follower.reconstructor
        if what == "position":
            out = rec.feed_position(t, board.position)
        else:  # the driver asks the clock at connect: a board without one says so
            out = rec.feed_clock(t, board.clock.reading(t) if board.clock else NoClock())
        self.follower.line.extend(out)
        self.events += out


def play_on_board(
    board: EmulatedBoard, actions: Sequence[object], live: Live | None, recent: RecentChanges
) -> list[tuple[str, int]]:
    """Perform `actions` on the board (and show them to `live`, when following); returns
    each effective lever press as (side that stopped, seconds it shows)."""
    presses: list[tuple[str, int]] = []
    for action in actions:
        if isinstance(action, SquareSet):
            if board.position.codes[action.index] == action.code:
                continue
            board.set_square(action.index, action.code, action.t)
            if live is not None:
                recent.add(action.index, action.code)
                live.feed(action.t, board, "position")
        elif isinstance(action, LeverPress):
            if board.clock is None:
                continue
            running = board.clock.running_side
            board.press_lever(action.side, action.t)
            if board.clock.running_side != running:
                presses.append((action.side, board.clock.displayed(action.side, action.t)))
                if live is not None:
                    live.feed(action.t, board, "clock")
        elif isinstance(action, ClockSetup) and board.clock is not None:
            board.clock.setup(
                action.left_seconds, action.right_seconds, action.t, increment=action.increment
            )
            if live is not None:
                live.feed(action.t, board, "clock")
    return presses


def spread(
    follower: BoardFollower, got: LogRecovered, cut: float, back: float
) -> list[ReconstructionEvent]:
    """The OLD recovery, for comparison: the positions missed spread evenly over the
    outage and fed as recovered positions with those invented times (presses dropped)."""
    positions = got.positions()[got.seen + 1 :]
    out: list[ReconstructionEvent] = []
    for k, position in enumerate(positions):
        at = cut + (back - cut) * (k + 1) / (len(positions) + 1)
        out += follower.reconstructor.feed_position(at, position, recovered=True)
    follower.line.extend(out)
    return out


def replay_ns(ucis: Sequence[str]) -> int:
    """Reference: python-chess replaying the moves (parse, legality check, push)."""
    board = chess.Board()
    start = time.perf_counter_ns()
    for uci in ucis:
        board.push_uci(uci)
    return time.perf_counter_ns() - start


def run_case(
    game: chess.pgn.Game,
    index: int,
    with_clock: bool,
    scenario: str,
    firmware: str = DEFAULT_FIRMWARE,
) -> Outcome:
    moves = [m.uci() for m in game.mainline_moves()]
    actions = human_actions_for_game(game, habits=HABITS, seed=index)
    timed = [a for a in actions if isinstance(a, SquareSet | LeverPress | ClockSetup)]
    end = max(a.t for a in timed)
    first_move = next((a.t for a in timed if isinstance(a, SquareSet) and a.t > 0), 0.0)
    rng = random.Random(f"{index}:{scenario.removesuffix('-spread')}")  # the same cut both ways
    cut = rng.uniform(first_move, end)
    if scenario == "control":
        cut = end + 1.0
    back = min(cut + rng.uniform(*OUTAGE), end + 5.0) if scenario.startswith("restart") else cut
    if scenario == "power-cut":
        back = cut + NOTICED_AFTER
    before = [a for a in timed if a.t <= cut]
    during = [a for a in timed if cut < a.t <= back]
    after = [a for a in timed if a.t > back]

    board = EmulatedBoard(
        SERIAL, has_clock=with_clock, download_rate=None, firmware=firmware, seed=index
    )
    recent = RecentChanges()
    first = BoardFollower(SERIAL)
    live = Live(first)
    if scenario != "first-start" and board.clock is None:
        live.feed(0.0, board, "clock")
    presses = play_on_board(board, before, None if scenario == "first-start" else live, recent)
    live.until(cut)
    known = board.position  # what the journal saw last (every change is journaled)
    if scenario == "power-cut":
        board.lose_power(cut, POWER_CUT)
    presses += play_on_board(board, during, None, recent)
    board.tick(back)  # the power is back by now, whether or not anyone moved
    by_back = sum(1 for a in timed if isinstance(a, LeverPress) and a.t <= back) - 1

    # The service comes back: a new reconstructor on what the journal kept.
    rec = Reconstructor()
    ucis = first.line.ucis if scenario != "first-start" else []
    if ucis:
        rec.resume(ucis, back, clocks=[c.remaining if c else None for c in first.line.clocks])
    follower = BoardFollower(SERIAL, reconstructor=rec)
    follower.line.ucis = list(ucis)
    follower.line.sans = list(first.line.sans) if ucis else []
    follower.line.clocks = list(first.line.clocks) if ucis else []
    again = Live(follower)
    raw = board.eeprom.dump()
    t0 = time.perf_counter_ns()
    events, _ = decode_ring(raw)
    got: LogRecovered | None = None
    if scenario == "control":
        pass
    elif scenario.startswith("restart") or scenario == "power-cut":
        got = recover(events, recent.as_tuple(), known, back, SERIAL)
    elif board.position not in (START, START_ROTATED):  # the driver reads no log then
        got = recover(events, (), None, back, SERIAL)
    if got is not None and scenario == "restart-spread":
        again.events += spread(follower, got, cut, back)
    elif got is not None:
        again.events += follower.handle(got)
    recovery_ns = time.perf_counter_ns() - t0
    t0 = time.perf_counter_ns()
    decode_ring(raw)
    decode_ns = time.perf_counter_ns() - t0
    # Then the board's dump and its clock (the old spread positions are explained here),
    # and live input to the end of the game.
    again.feed(back, board, "position")
    again.feed(back, board, "clock")
    mark = len(again.events)
    recovered_plies = len(follower.line.ucis) - len(ucis)
    ref_ns = replay_ns(follower.line.ucis) if recovered_plies > 0 else 0
    presses += play_on_board(board, after, again, recent)
    again.until(end + 30.0)
    again.events += follower.tick(end + 30.0)

    line = follower.line
    truth = [seconds for _, seconds in presses[1:]]  # presses[0] starts White's clock
    want = ok = 0
    for ply, seconds in enumerate(truth[: len(moves)]):
        want += 1
        clock = line.clocks[ply] if ply < len(line.clocks) else None
        ok += clock is not None and round(clock.remaining) == seconds
    wrong = [
        isinstance(e, MovePlayed) and (e.ply > len(moves) or moves[e.ply - 1] != e.uci)
        for e in (live.events if scenario == "control" else again.events)
    ]
    phantoms = sum(wrong[:mark])
    phantoms_live = sum(wrong[mark:])
    retractions = sum(1 for e in again.events[:mark] if isinstance(e, MoveRetracted))
    return Outcome(
        exact=line.ucis == moves,
        plies=len(moves),
        recovered_plies=max(0, recovered_plies),
        clocks_want=want if with_clock else 0,
        clocks_ok=ok if with_clock else 0,
        phantoms=phantoms,
        phantoms_live=phantoms_live,
        retractions=retractions,
        placed=got is not None,
        log_bytes=len(raw),
        recovery_ns=recovery_ns,
        decode_ns=decode_ns,
        replay_ns=ref_ns,
        cut=cut,
        known_plies=len(ucis),
        played_plies=min(len(moves), max(0, by_back)),
        got=list(line.ucis),
    )


def report(
    name: str, corpus: str, games: list[chess.pgn.Game], with_clock: bool, scenarios: list[str]
) -> None:
    for scenario in scenarios:
        outs = [run_case(g, i, with_clock, scenario) for i, g in enumerate(games)]
        n = len(outs)
        exact = sum(o.exact for o in outs)
        rec_ns = sum(o.recovery_ns for o in outs)
        dec_ns = sum(o.decode_ns for o in outs)
        ref_ns = sum(o.replay_ns for o in outs)
        nbytes = sum(o.log_bytes for o in outs)
        rplies = sum(o.recovered_plies for o in outs)
        print(f"== {name}: {scenario}")
        print(f"games              {n}, plies {sum(o.plies for o in outs)}")
        print(f"exact after        {exact} ({100.0 * exact / max(1, n):.1f} %)")
        print(f"logs placed        {sum(o.placed for o in outs)}/{n}")
        print(f"plies from the log {rplies}")
        if with_clock:
            want = sum(o.clocks_want for o in outs)
            print(f"clock times        {sum(o.clocks_ok for o in outs)}/{want} right to the second")
        print(
            f"phantom moves      {sum(o.phantoms for o in outs)} from the log (0 expected), "
            f"{sum(o.phantoms_live for o in outs)} live after it (later corrected or not)"
        )
        print(f"retractions        {sum(o.retractions for o in outs)} in recovery")
        for i, o in enumerate(outs):
            if not o.exact or o.phantoms:
                print(
                    f"  INEXACT #{i} cut {o.cut:.1f} s ({o.known_plies} plies recorded, "
                    f"~{o.played_plies} played at reconnect): {len(o.got)}/{o.plies} plies "
                    f"at the end, {o.phantoms} phantom; repro: {REPRO} {corpus}:{i}:{scenario}"
                )
        if scenario == "control":
            continue  # nothing recovered: no cost to show
        if scenario == "restart-spread":
            print("CPU per recovery   (the old way explains at the next live input: not shown)")
            continue
        print(
            f"CPU per recovery   {rec_ns / max(1, n) / 1000:.0f} us "
            f"({rec_ns / max(1, nbytes):.0f} ns per log byte, {nbytes // max(1, n)} bytes)"
        )
        print(
            f"reference          bare decoder {dec_ns / max(1, nbytes):.0f} ns per log byte: "
            f"recovery / decoder = {rec_ns / max(1, dec_ns):.1f}x"
        )
        if rplies:
            print(
                f"reference          python-chess replaying the game to the last recovered "
                f"ply {ref_ns / max(1, n) / 1000:.0f} us: recovery / replay = "
                f"{rec_ns / max(1, ref_ns):.1f}x"
            )


def report_firmware(games: list[chess.pgn.Game], variants: list[str]) -> None:
    """Per firmware variant and scenario: exact games, clock times, phantoms (World Cup)."""
    print(f"== firmware variants: {len(games)} World Cup games each")
    print(
        f"{'firmware':<12} {'scenario':<12} {'exact':>7} {'placed':>7} {'clock times':>13} phantoms"
    )
    for firmware in variants:
        for scenario in FIRMWARE_SCENARIOS:
            outs = [run_case(g, i, True, scenario, firmware) for i, g in enumerate(games)]
            n = len(outs)
            want = sum(o.clocks_want for o in outs)
            ok = sum(o.clocks_ok for o in outs)
            print(
                f"{firmware:<12} {scenario:<12} {sum(o.exact for o in outs):>3}/{n:<3} "
                f"{sum(o.placed for o in outs):>3}/{n:<3} {ok:>6}/{want:<6} "
                f"{sum(o.phantoms for o in outs)}"
            )
            for i, o in enumerate(outs):
                if not o.exact or o.phantoms:
                    print(
                        f"  INEXACT #{i}: {len(o.got)}/{o.plies} plies, {o.phantoms} phantom; "
                        f"repro: {REPRO} worldcup:{i}:{scenario}:{firmware}"
                    )


def repro(spec: str) -> None:
    corpus, index, scenario, *rest = spec.split(":")
    firmware = rest[0] if rest else DEFAULT_FIRMWARE
    path, with_clock = CORPORA[corpus]
    games = read_games(path, int(index) + 1)
    game = games[int(index)]
    out = run_case(game, int(index), with_clock, scenario, firmware)
    want = [m.uci() for m in game.mainline_moves()]
    print(f"{game.headers.get('White')} - {game.headers.get('Black')}, cut at {out.cut:.1f} s")
    print(f"exact {out.exact}, phantoms {out.phantoms}, clocks {out.clocks_ok}/{out.clocks_want}")
    diverge = next((i for i, (a, b) in enumerate(zip(out.got, want, strict=False)) if a != b), None)
    print(f"first difference at ply {diverge}; got {len(out.got)} plies, want {len(want)}")
    print("got ", " ".join(out.got))
    print("want", " ".join(want))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer games")
    parser.add_argument("--games", type=int, default=None, help="games per corpus")
    parser.add_argument(
        "--old", action="store_true", help="also the old recovery (changes spread over the outage)"
    )
    parser.add_argument("--repro", default=None, help="CORPUS:INDEX:SCENARIO[:FIRMWARE]")
    parser.add_argument(
        "--firmware",
        default=",".join(FIRMWARE_NAMES),
        help="firmware variants to run (comma-separated; 'none': skip)",
    )
    parser.add_argument(
        "--firmware-games", type=int, default=None, help="World Cup games per variant"
    )
    args = parser.parse_args()
    if args.repro:
        repro(args.repro)
        return
    n = args.games if args.games is not None else (10 if args.quick else 80)
    started = time.process_time()
    for corpus, label in (("worldcup", "World Cup 2025, clock"), ("kasparov", "Kasparov")):
        path, with_clock = CORPORA[corpus]
        scenarios = [*SCENARIOS, "restart-spread"] if args.old else list(SCENARIOS)
        report(label, corpus, read_games(path, n), with_clock, scenarios)
    variants = [] if args.firmware == "none" else [v for v in args.firmware.split(",") if v]
    if variants:
        per = args.firmware_games
        per = per if per is not None else (5 if args.quick else 20)
        report_firmware(read_games(CORPORA["worldcup"][0], per), variants)
    print(f"total CPU {time.process_time() - started:.1f} s")


if __name__ == "__main__":
    main()
