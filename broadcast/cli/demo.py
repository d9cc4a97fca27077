"""`boardwire demo`: the Pamplona Masters example live on emulated boards, in one command.
`boardwire demo --teams`: the team league example instead (examples/
liga-vasca-division-honor.toml), its round 1 paired team by team at start (the Berger
table, then the clubs' fallback lineups) and its top two matches played on eight boards.

Four emulated DGT boards (pseudo-terminals, found and driven exactly like real ones)
play World Cup 2025 games in round 1 at an accelerated pace, with a script an arbiter
will recognise: a player arriving late, a flag falling, and a draw signalled with the
kings. The spectator pages and the arbiter desk are served at once; the URL and the
arbiter's login are printed. Everything runs on embedded defaults: the example event
shipped with boardwire, a fresh SQLite journal in a temporary directory (or `--db`),
no hardware. Only the CLI layer imports the simulator (DESIGN).
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import io
import secrets
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import chess
import chess.pgn

from boards.position import SYMBOL_TO_CODE, square_to_index
from broadcast.cli.args import exposure, listen_host, non_negative_float
from broadcast.cli.evaluation import add_eval_arguments, eval_settings
from broadcast.cli.run_event import EventPlan, Running, run_event
from broadcast.cli.serve import arbiter_credentials
from broadcast.config import load_event
from broadcast.config.model import EventConfig
from broadcast.fide.teams.match import board_of
from broadcast.service.supervisor import SupervisedTask, Supervisor
from clocks.timecontrol import TimeControl
from clocks.timesource import MonotonicTimeSource

if TYPE_CHECKING:
    from boardsim.pty import PtyHost
    from boardsim.script import Action
    from broadcast.cli.simboards import SimulatedHall

# The players move pieces the way people do unless `--habits none` asks for tidy hands.
DEFAULT_HABITS = "realistic"
HABITS_CHOICES = ("realistic", "none")

ROOT = Path(__file__).resolve().parents[2]  # the checkout: broadcast/cli/demo.py
EVENT = ROOT / "examples" / "pamplona-masters.toml"
TEAMS_EVENT = ROOT / "examples" / "liga-vasca-division-honor.toml"
SAMPLE = ROOT / "examples" / "games" / "worldcup2025-sample.pgn"

DEFAULT_DELAY = 60.0  # event seconds; the example's 15 minutes would hide a short demo
MAX_THINK = 40.0  # event seconds per move at most: a lively demo, not a 6-hour game
LATE_SECONDS = 600.0  # board 2: White comes 10 minutes late
SIGNAL_SQUARES = {
    "1/2-1/2": (chess.E4, chess.E5),
    "1-0": (chess.E4, chess.D5),
    "0-1": (chess.D4, chess.E5),
}


@dataclass(frozen=True, slots=True)
class BoardScript:
    """What happens at one board: the game (cut after `plies`), and the trouble."""

    board: int
    game: int  # index in the sample file
    plies: int | None = None
    late: float = 0.0
    signal: str | None = None
    story: str = ""


# Every game ends the way the README announces: a result signalled with the kings or a
# flag fall; none is left with a clock running on after its last move (the players' own
# habit of signalling a result is off: `_cut` drops the PGN's result).
SCRIPT = (
    BoardScript(1, 0, signal="1/2-1/2", story="a whole game, drawn: the kings signal 1/2-1/2"),
    BoardScript(
        2,
        1,
        late=LATE_SECONDS,
        signal="0-1",
        story="White arrives 10 minutes late and loses: the kings signal 0-1",
    ),
    BoardScript(
        3, 2, plies=31, story="Black stops moving at move 16: the flag falls when the time is up"
    ),
    BoardScript(4, 3, plies=40, signal="1/2-1/2", story="a draw signalled with the kings"),
)


# `--teams`: match 1 (boards 1-4) plays the script above; match 2 (boards 5-8) plays four
# whole games, each ending with its result signalled with the kings.
TEAM_SCRIPT = (
    *SCRIPT,
    *(
        BoardScript(board, game, signal=result, story=f"a whole game, the kings signal {result}")
        for board, game, result in (
            (5, 4, "1/2-1/2"),
            (6, 5, "0-1"),
            (7, 6, "1-0"),
            (8, 7, "1-0"),
        )
    ),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The demo's own options (the `boardwire demo` parser adds --speed, --port, --seconds)."""
    parser.add_argument(
        "--habits",
        choices=HABITS_CHOICES,
        default=DEFAULT_HABITS,
        help="how the emulated players move pieces: 'realistic' human habits (default) "
        "or 'none' (tidy scripted hands)",
    )
    parser.add_argument(
        "--delay",
        type=non_negative_float,
        default=DEFAULT_DELAY,
        help=f"broadcast delay in event seconds (default {DEFAULT_DELAY:g}; 0 for none)",
    )
    parser.add_argument(
        "--host", type=listen_host, default="127.0.0.1", help="address to listen on"
    )
    parser.add_argument(
        "--db", type=Path, help="journal file (default: a fresh one in a temporary directory)"
    )
    parser.add_argument(
        "--teams",
        action="store_true",
        help="the team league example instead: round 1's top two matches on eight boards",
    )
    add_eval_arguments(parser)


def _cut(game: chess.pgn.Game, plies: int | None) -> chess.pgn.Game:
    """A copy of `game` with only its first `plies` moves and no result."""
    copy = chess.pgn.read_game(io.StringIO(str(game)))
    assert copy is not None
    if plies is not None:
        node: chess.pgn.GameNode = copy
        for _ in range(plies):
            if not node.variations:
                break
            node = node.variations[0]
        node.variations.clear()
    copy.headers["Result"] = "*"  # the script decides how it ends, not a player's habit
    return copy


def board_actions(
    script: BoardScript,
    game: chess.pgn.Game,
    habits: str,
    time_control: TimeControl | None = None,
) -> list[Action]:
    """The emulated players' timeline for one board (t = 0 when the clock is set), with the
    clocks set for `time_control` (the event's; None: what the game's PGN says)."""
    from boardsim.script import (
        ClockSetup,
        LeverPress,
        SquareSet,
        actions_for_game,
        habits_named,
        human_actions_for_game,
    )
    from broadcast.cli.simboards import clock_setting  # the one setting serve --sim uses too

    played = _cut(game, script.plies)
    noise = habits_named("realistic" if habits == "realistic" else "none")
    actions: list[Action]
    if noise is None:
        actions = list(actions_for_game(played, max_think=MAX_THINK))
    else:
        actions = list(
            human_actions_for_game(played, habits=noise, seed=script.board, max_think=MAX_THINK)
        )
    start = min((a.t for a in actions if isinstance(a, LeverPress)), default=0.0)
    out: list[Action] = []
    for a in actions:
        if isinstance(a, ClockSetup):
            if time_control is not None:
                base, increment = clock_setting(time_control)
                a = dataclasses.replace(
                    a, left_seconds=base, right_seconds=base, increment=increment
                )
        elif script.late and a.t > start:
            a = dataclasses.replace(a, t=a.t + script.late)  # White's first move, and on
        out.append(a)
    if script.signal is not None:
        last = max(a.t for a in out)
        board = played.end().board()
        out += [
            SquareSet(last + 8.0 + 0.5 * i, square_to_index(square), code)
            for i, (square, code) in enumerate(kings_signal(board, script.signal))
        ]
    return out


def kings_signal(board: chess.Board, result: str) -> list[tuple[chess.Square, int]]:
    """Square changes that put the kings on the centre squares signalling `result`."""
    out: list[tuple[chess.Square, int]] = []
    white_to, black_to = SIGNAL_SQUARES[result]
    occupied = {sq: p for sq, p in board.piece_map().items()}
    for square, colour, symbol in ((white_to, chess.WHITE, "K"), (black_to, chess.BLACK, "k")):
        king = next(
            sq for sq, p in occupied.items() if p.piece_type == chess.KING and p.color == colour
        )
        if square in occupied and square != king:
            out.append((square, 0))
        out.append((king, 0))
        out.append((square, SYMBOL_TO_CODE[symbol]))
        occupied.pop(square, None)
        occupied[square] = occupied.pop(king)
    return out


def _games() -> list[chess.pgn.Game]:
    from boardsim.sim import load_games

    return load_games(SAMPLE)


async def _start_players(
    hall: SimulatedHall,
    time_source: MonotonicTimeSource,
    speed: float,
    habits: str,
    games: Sequence[chess.pgn.Game],
    time_control: TimeControl,
    supervisor: Supervisor,
    scripts: Sequence[BoardScript] = SCRIPT,
) -> None:
    from boardsim.script import play

    for script in scripts:
        if script.board not in hall.where:
            continue
        host, index = hall.where[script.board]
        actions = board_actions(script, games[script.game % len(games)], habits, time_control)

        async def run(
            host: PtyHost = host, index: int = index, actions: list[Action] = actions
        ) -> None:
            await asyncio.sleep(2.0)  # the drivers find the boards first
            await play(host, actions, time_source, board=index, speed=speed)

        hall.start_player(script.board, run, supervisor)


async def _demo(args: argparse.Namespace) -> int:
    evaluation = eval_settings(args)
    if isinstance(evaluation, str):  # refused before anything is made
        print(f"boardwire demo: {evaluation}", file=sys.stderr)
        return 2
    habits = getattr(args, "habits", DEFAULT_HABITS)
    speed = float(args.speed)  # both checked by the parser (broadcast.cli.args)
    delay = float(getattr(args, "delay", DEFAULT_DELAY))
    teams = bool(getattr(args, "teams", False))
    config = load_event(TEAMS_EVENT if teams else EVENT)
    scripts = TEAM_SCRIPT if teams else SCRIPT
    workdir = None
    db: Path | None = getattr(args, "db", None)
    if db is None:
        workdir = tempfile.TemporaryDirectory(prefix="boardwire-demo-")
        db = Path(workdir.name) / ("league-demo.sqlite" if teams else "pamplona-demo.sqlite")
    credentials = arbiter_credentials()
    generated = credentials is None
    if credentials is None:
        credentials = ("arbiter", secrets.token_urlsafe(12))
    host = getattr(args, "host", "127.0.0.1")
    seconds = getattr(args, "seconds", None)
    plan = EventPlan(
        config,
        db,
        host=host,
        port=args.port,
        credentials=credentials,
        speed=speed,
        sim=True,
        live_round=1,
        delay=delay,
        tune_gc=True,
        stop_after=None if seconds is None else float(seconds),
        prog="boardwire demo",
        evaluation=evaluation,
    )

    async def up(running: Running) -> list[SupervisedTask]:
        assert running.sim is not None and running.web is not None
        time_control = config.sections[0].time_control
        matches = _pair_teams(running, config) if teams else ""
        await _start_players(
            running.sim,
            running.time_source,
            speed,
            habits,
            _games(),
            time_control,
            running.service.supervisor,
            scripts,
        )
        url = f"http://{host}:{args.port}/"
        password = credentials[1] if generated else "(from BOARDWIRE_ARBITER_PASSWORD)"
        print(
            f"boardwire demo: {config.name}, round 1, on {len(running.ports)} emulated DGT "
            f"boards at {speed:g}x speed ({habits} habits)\n"
            f"  clocks: {time_control} in event time, {speed:g} times faster than real time\n"
            f"  spectators:   {url}\n"
            f"  arbiter desk: {url}arbiter   user {credentials[0]}  password {password}\n"
            f"  broadcast delay: {delay:g} s of event time ({delay / speed:.1f} s at this speed)\n"
            + matches
            + "".join(f"  board {s.board}: {s.story}\n" for s in scripts)
            + f"  journal: {db}\n  listening on {exposure(running.web.addresses)}\n"
            + (
                f"  engine evaluation: {evaluation.describe()} a position\n"
                if running.evals is not None and evaluation is not None
                else ""
            )
            + "Ctrl-C to stop.",
            flush=True,
        )
        return []  # the players run on the service's supervisor, stopped with it

    try:
        return await run_event(plan, started=up)
    finally:
        if workdir is not None:
            workdir.cleanup()


def _pair_teams(running: Running, config: EventConfig) -> str:
    """Round 1 of the team league: the teams by the Berger table, the boards from the
    clubs' fallback lineups (through the action door, journaled, as `serve --sim` does);
    the lines to print: what was done and each match's page."""
    from broadcast.actions.team_rehearsal import pair_team_unpaired

    section = config.sections[0]
    state = running.service.tournament.section(section.name)
    if 1 in state.rounds:  # a journal given with --db that has it already
        said = f"{section.name} round 1 is paired"
    else:
        said = pair_team_unpaired(running.service, "boardwire demo", section.name, 1)
    state = running.service.tournament.section(section.name)
    names = {t.number: t.name for t in section.teams}
    boards = section.team_rules.boards if section.team_rules is not None else 1
    lines = [f"  {said}\n"]
    for match in state.team_rounds.round_matches(1)[:2]:  # the two on e-boards
        second = "bye" if match.second is None else names[match.second]
        first_board, last_board = (board_of(match.number, b, boards) for b in (1, boards))
        lines.append(
            f"  match {match.number} (boards {first_board}-{last_board}): "
            f"{names[match.first]} - {second}, page /match/1/{match.number}\n"
        )
    return "".join(lines)


def run_demo(args: argparse.Namespace) -> int:
    try:
        return asyncio.run(_demo(args))
    except KeyboardInterrupt:
        print("\nstopped", file=sys.stderr)
        return 130


__all__ = [
    "DEFAULT_DELAY",
    "DEFAULT_HABITS",
    "EVENT",
    "HABITS_CHOICES",
    "LATE_SECONDS",
    "MAX_THINK",
    "ROOT",
    "SAMPLE",
    "SCRIPT",
    "SIGNAL_SQUARES",
    "TEAMS_EVENT",
    "TEAM_SCRIPT",
    "BoardScript",
    "add_arguments",
    "board_actions",
    "kings_signal",
    "run_demo",
]
