"""`--eval`, `--eval-depth N`, `--eval-time SECONDS`: engine evaluation for spectators.

Shared by `serve`, `demo` and `mirror`: each process that runs `--eval` evaluates the
public positions it serves (a mirror can evaluate instead of the venue, whose CPU is for
the boards). A missing engine is not fatal: the event is served as without `--eval`,
and the log says why and how to install it.
"""

from __future__ import annotations

import argparse
import logging

from broadcast.analysis.engine import DEFAULT_DEPTH, EngineSettings, find_engine
from broadcast.analysis.evaluator import Evaluator
from broadcast.cli.args import positive_float, positive_int
from broadcast.service.supervisor import SupervisedTask, Supervisor

__all__ = ["TASK_NAME", "add_eval_arguments", "eval_settings", "start_evaluator"]

log = logging.getLogger(__name__)

TASK_NAME = "the engine evaluation"
MAX_DEPTH = 60  # deeper than this is hours a position on a laptop: surely a typo


def _depth(text: str) -> int:
    value = positive_int(text)
    if value > MAX_DEPTH:
        raise argparse.ArgumentTypeError(f"must be at most {MAX_DEPTH} plies, not {text!r}")
    return value


def _seconds(text: str) -> float:
    value = positive_float(text)
    if value > 600:
        raise argparse.ArgumentTypeError(f"must be at most 600 seconds, not {text!r}")
    return value


def add_eval_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--eval",
        action="store_true",
        help="show spectators Stockfish's evaluation of the public (delayed) positions: "
        "a bar, the score and the best line (Debian's stockfish package; see docs/web.md)",
    )
    parser.add_argument(
        "--eval-depth",
        type=_depth,
        metavar="N",
        help=f"with --eval: search each position N plies deep (default {DEFAULT_DEPTH})",
    )
    parser.add_argument(
        "--eval-time",
        type=_seconds,
        metavar="SECONDS",
        help="with --eval: search each position at most SECONDS (with --eval-depth: "
        "whichever comes first)",
    )


def eval_settings(args: argparse.Namespace) -> EngineSettings | str | None:
    """The engine settings the arguments ask for; None without `--eval` or when no engine
    is installed (logged); a message (the command exits 2) for options without `--eval`."""
    depth = getattr(args, "eval_depth", None)
    seconds = getattr(args, "eval_time", None)
    if not getattr(args, "eval", False):
        if depth is not None or seconds is not None:
            return "--eval-depth and --eval-time need --eval"
        return None
    command = find_engine()
    if command is None:
        log.warning(
            "--eval: no Stockfish found (on PATH or /usr/games/stockfish): serving without "
            "evaluation; install it with `apt-get install stockfish`"
        )
        return None
    if depth is None and seconds is None:
        depth = DEFAULT_DEPTH
    return EngineSettings(command, depth=depth, seconds=seconds)


def start_evaluator(evaluator: Evaluator, supervisor: Supervisor) -> SupervisedTask:
    """The evaluator's engine loop as a supervised task: an engine that dies is logged,
    alerted and started again."""
    log.info(
        "evaluating public positions with %s (%s)",
        evaluator.settings.command,
        evaluator.settings.describe(),
    )
    return supervisor.start(
        TASK_NAME,
        evaluator.run,
        stops="Spectators get no new engine evaluations until it runs again; moves, clocks "
        "and the boards are not affected.",
    )
