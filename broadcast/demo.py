"""`boardwire demo`: emulated boards play real games; boardwire finds them and follows them live.

For now (before the tournament service and the web server) the demo shows the hardware
layer and reconstruction end to end: the simulator starts boards on pseudo-terminals, the
probe finds them as it would find real boards, the drivers follow them, and every
reconstructed move is printed with its clock time. At the end each game is compared with
the game that was actually played.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from boards.discovery import probe_ports
from boards.events import BoardConnected, DriverEvent
from boards.reconstruction import MovePlayed, ResultSignalled
from boards.single import SingleBoardDriver
from broadcast.follow import BoardFollower

# The players move pieces the way people do unless `--habits none` asks for tidy hands.
DEFAULT_HABITS = "realistic"
HABITS_CHOICES = ("realistic", "none")

SAMPLE = Path(__file__).resolve().parent.parent / "examples" / "games" / "worldcup2025-sample.pgn"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The demo's own options (the `boardwire demo` parser adds these)."""
    parser.add_argument(
        "--habits",
        choices=HABITS_CHOICES,
        default=DEFAULT_HABITS,
        help="how the emulated players move pieces: 'realistic' human habits (default) "
        "or 'none' (tidy scripted hands)",
    )


def _clock_text(seconds: float) -> str:
    s = round(seconds)
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"


def _move_text(board: str, event: MovePlayed) -> str:
    number = (event.ply + 1) // 2
    dots = "." if event.ply % 2 else "..."
    clock = f"  [{_clock_text(event.clock.remaining)}]" if event.clock else ""
    return f"board {board}  {number}{dots} {event.san}{clock}"


async def _demo(args: argparse.Namespace) -> int:
    from boardsim.sim import Simulator, load_games  # only the CLI layer may import the simulator

    games = load_games(SAMPLE)
    count = max(1, min(args.boards, len(games)))
    habits = getattr(args, "habits", DEFAULT_HABITS)
    if habits not in HABITS_CHOICES:
        print(f"boardwire demo: unknown --habits {habits!r}", file=sys.stderr)
        return 2
    sim = Simulator(
        count,
        games=games[:count],
        speed=args.speed,
        game_delay=6.0,
        max_think=60.0,
        habits="realistic" if habits == "realistic" else "none",
        seed=getattr(args, "seed", 0) or 0,
    )
    time = sim.clock  # the games run in the simulation's fast-forward time: stamp events in it
    await sim.start()
    try:
        print(
            f"Started {count} emulated DGT boards playing World Cup 2025 games at {args.speed:g}x "
            f"speed ({habits} habits):"
        )
        for d in sim.devices:
            print(f"  {d.path}  serial {d.serial}")
        print("\nProbing the ports as `boardwire boards` does:")
        for result in await probe_ports([d.path for d in sim.devices]):
            for info in result.boards:
                clock = "clock" if info.clock_present else "no clock"
                print(
                    f"  {info.port}: {info.mode} board {info.serial}, version {info.version[0]}.{info.version[1]}, {clock}"
                )
        print("\nFollowing the games live (Ctrl-C to stop):")
        followers: dict[str, BoardFollower] = {}

        def on_event(event: DriverEvent) -> None:
            follower = followers.setdefault(event.board, BoardFollower(event.board))
            if isinstance(event, BoardConnected):
                print(f"board {event.board}  connected on {event.info.port}")
            for out in follower.handle(event):
                _print(event.board, out)

        def _print(board: str, out: object) -> None:
            if isinstance(out, MovePlayed):
                print(_move_text(board, out), flush=True)
            elif isinstance(out, ResultSignalled):
                print(f"board {board}  result signalled with the kings: {out.result}", flush=True)

        drivers = [SingleBoardDriver(device.path, on_event, time=time) for device in sim.devices]
        tasks = [asyncio.ensure_future(driver.run()) for driver in drivers]

        async def ticker() -> None:
            while True:
                await asyncio.sleep(0.1)
                for board, follower in followers.items():
                    for out in follower.tick(time.now()):
                        _print(board, out)

        tick_task = asyncio.ensure_future(ticker())
        games_done = asyncio.ensure_future(sim.wait_games())
        try:
            await asyncio.wait_for(asyncio.shield(games_done), args.seconds)
            await asyncio.sleep(2.0)  # let the last stable positions settle
        except TimeoutError:
            pass
        for driver in drivers:
            driver.stop()
        tick_task.cancel()
        await asyncio.gather(*tasks, tick_task, return_exceptions=True)
        games_done.cancel()
        print("\nGames reconstructed:")
        exact = 0
        for device, game in zip(sim.devices, games[:count], strict=True):
            follower = followers.get(device.serial)
            played = [m.uci() for m in game.mainline_moves()]
            got = follower.line.ucis if follower else []
            same = got == played
            exact += same
            white, black = game.headers.get("White", "?"), game.headers.get("Black", "?")
            status = (
                "identical to the game played"
                if same
                else f"{len(got)} of {len(played)} moves so far"
            )
            print(f"  board {device.serial}: {white} - {black}: {len(got)} plies, {status}")
        print(f"{exact} of {count} games exact.")
        return 0
    finally:
        await sim.stop()


def run_demo(args: argparse.Namespace) -> int:
    try:
        return asyncio.run(_demo(args))
    except KeyboardInterrupt:
        print("\nstopped", file=sys.stderr)
        return 130
