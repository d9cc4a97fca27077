"""What the one door costs an arbiter action, and what an undo costs, on a big event.

A 300-player Swiss with 7 rounds played (1,050 games with results) and round 8 live: the
state an arbiter acts on at the end of a big open. Each figure is the median and the 95th
percentile of N actions, each made durable (its own journal transaction and fsync, as a
running `serve` makes it):

- reference: the same events committed as one action without the door (`service.commit`
  of a `ResultConfirmed`: the fold, the rules, the journal write and its fsync), which is
  what an action cost before the door;
- door: `act(SetResult)`: the plan (checks, words), the same commit, the diff of the state
  before and after (what the undo needs) and the record;
- undo: `act(Undo)` of that result: the record read back, the parts checked and put back;
- withdraw and re-pair: bigger actions (a player's games, a round's 150 pairings) and
  their undo.

Printed with the ratio to the reference measured in the same run. Run it twice on a quiet
machine for a figure: `python bench/bench_actions.py` (`--actions N`, default 200).
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from broadcast.actions import PublishPairings, SetResult, Undo, Withdraw, act
from broadcast.config.loader import load_event
from broadcast.config.model import EventConfig, PlayerEntry
from broadcast.fide.pairing import Pairing
from broadcast.games.game_events import ResultConfirmed
from broadcast.journal.store import Journal
from broadcast.service.event_service import EventService
from broadcast.tournament.tournament_events import RoundPaired
from clocks.timesource import ManualTime

ROOT = Path(__file__).resolve().parent.parent
PLAYERS = 300
PLAYED = 7
BY = "arbiter:bench"


def big_event() -> EventConfig:
    event = load_event(ROOT / "examples" / "sestao-2025-swiss.toml")
    section = event.sections[0]
    players = tuple(PlayerEntry(n, f"Player {n:03d}", 2600 - n) for n in range(1, PLAYERS + 1))
    return dataclasses.replace(event, sections=(dataclasses.replace(section, players=players),))


def pairings(round_number: int) -> tuple[Pairing, ...]:
    half = PLAYERS // 2
    out = []
    for board in range(1, half + 1):
        a, b = board, half + 1 + (board - 1 + round_number) % half
        white, black = (a, b) if (board + round_number) % 2 else (b, a)
        out.append(Pairing(board, white, black))
    return tuple(out)


def event(folder: Path) -> EventService:
    config = big_event()
    section = config.sections[0]
    time_ = ManualTime(section.round_start(PLAYED + 1).start.timestamp() + 60)
    service = EventService(config, Journal(folder / "j.sqlite"), time_source=time_, delay=0)
    service.load()
    rng = random.Random(7)
    for r in range(1, PLAYED + 2):
        with service.action():
            service.commit([RoundPaired(section.name, r, pairings(r), "bench")])
            if r > PLAYED:
                break
            service.commit(
                [
                    ResultConfirmed(
                        g.id, rng.choice(["1-0", "0-1", "1/2-1/2"]), "agreement", time_.now()
                    )
                    for g in service.book.round_games(section.name, r)
                ]
            )
    service.attach_boards()
    return service


def timed(run: Callable[[], object], n: int, service: EventService) -> list[float]:
    out = []
    for _ in range(n):
        start = time.perf_counter()
        run()
        out.append(time.perf_counter() - start)
        service.public_state()  # what the web does between two actions
    return out


def line(name: str, samples: list[float], reference: float | None) -> str:
    median = statistics.median(samples) * 1000
    p95 = sorted(samples)[int(0.95 * (len(samples) - 1))] * 1000
    ratio = f"{median / reference:5.2f}x" if reference else "  1.00x"
    return f"{name:<34} {median:8.2f} ms  p95 {p95:8.2f} ms  {ratio}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--actions", type=int, default=200)
    n = parser.parse_args().actions
    with tempfile.TemporaryDirectory() as folder:
        service = event(Path(folder))
        name = service.config.sections[0].name
        live = [g.id for g in service.book.round_games(name, PLAYED + 1)]
        rng = random.Random(11)
        print(
            f"{PLAYERS} players, {PLAYED} rounds played ({len(service.book.games)} games), "
            f"{service.journal.last_seq()} journal events; {n} actions each"
        )

        def reference() -> None:
            game = rng.choice(live)
            service.commit([ResultConfirmed(game, "1-0", "resignation", service.time_source.now())])
            service.commit([ResultConfirmed(game, "0-1", "resignation", service.time_source.now())])

        ref = timed(reference, n, service)
        ref_one = statistics.median(ref) / 2 * 1000  # ms
        print(line("reference: commit ResultConfirmed", [t / 2 for t in ref], None))

        done: list[int] = []

        def door() -> None:
            game = rng.choice(live)
            result = "1/2-1/2" if service.book.get(game).result != "1/2-1/2" else "1-0"
            done.append(act(service, SetResult(game, result, "agreement"), BY, confirm=True).seq)

        print(line("door: act(SetResult)", timed(door, n, service), ref_one))

        def undo() -> None:
            act(service, Undo(done.pop()), BY, confirm=True)

        print(line("undo: act(Undo) of a result", timed(undo, n, service), ref_one))

        withdrawn: list[int] = []

        def withdraw() -> None:
            player = rng.randrange(1, PLAYERS + 1)
            while player in service.tournament.section(name).withdrawn:
                player = rng.randrange(1, PLAYERS + 1)
            withdrawn.append(act(service, Withdraw(name, player), BY, confirm=True).seq)

        count = max(5, n // 10)
        print(line("door: act(Withdraw)", timed(withdraw, count, service), ref_one))
        print(
            line(
                "undo: act(Undo) of a withdrawal",
                timed(
                    lambda: act(service, Undo(withdrawn.pop()), BY, confirm=True), count, service
                ),
                ref_one,
            )
        )

        repaired: list[int] = []

        def repair() -> None:
            current = service.tournament.section(name).rounds[PLAYED + 1].pairings
            swapped = (
                Pairing(1, current[0].white, current[1].black),
                Pairing(2, current[1].white, current[0].black),
                *current[2:],
            )
            repaired.append(
                act(
                    service, PublishPairings(name, PLAYED + 1, swapped, "bench"), BY, confirm=True
                ).seq
            )

        print(line("door: act(PublishPairings) again", timed(repair, count, service), ref_one))
        print(
            line(
                "undo: act(Undo) of the pairings",
                timed(lambda: act(service, Undo(repaired.pop()), BY, confirm=True), count, service),
                ref_one,
            )
        )
        service.snapshots.close()


if __name__ == "__main__":
    main()
