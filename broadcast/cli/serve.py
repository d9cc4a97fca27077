"""`boardwire serve EVENT.toml`: run a real event (or a rehearsal on emulated boards)."""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import shlex
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from broadcast.actions.pairings import how_to_pair, pair_unpaired_off_loop
from broadcast.actions.team_rehearsal import pair_teams_unpaired
from broadcast.cli.args import (
    add_emulation_arguments,
    emulation_problem,
    exposure,
    listen_host,
    non_negative_float,
    port_number,
    positive_float,
    positive_int,
)
from broadcast.cli.evaluation import add_eval_arguments, eval_settings
from broadcast.cli.rehearsal import rehearsal_line
from broadcast.cli.run_event import EventPlan, Running, run_event
from broadcast.cli.stream_link import add_password_argument
from broadcast.config import load_event
from broadcast.config.errors import ConfigError
from broadcast.config.model import EventConfig
from broadcast.config.stations import StationAssignmentError, assign_stations
from broadcast.publish.lichess import LichessRelayConfig
from broadcast.publish.redis_link import (
    PublishUrlError,
    RedisPasswordError,
    RedisTarget,
    check_redis_url,
    cli_url_warning,
    redis_password,
)
from broadcast.publish.tasks import PublishSettings, start_publishers
from broadcast.service.event_service import EventService
from broadcast.service.supervisor import SupervisedTask
from broadcast.stations.intake import stations_of
from broadcast.stations.placement import found_boards

if TYPE_CHECKING:
    from web.livechess.server import LiveChessSettings

log = logging.getLogger(__name__)


def _board_override(text: str) -> tuple[int, str]:
    number, sep, port = text.partition("=")
    if not sep or not number.strip().isdigit() or not port.strip():
        raise argparse.ArgumentTypeError(f"expected N=PORT (e.g. 3=/dev/ttyACM2), got {text!r}")
    return int(number), port.strip()


def _station_boards(text: str) -> tuple[str, tuple[int, ...]]:
    """NAME=BOARDS: "east=1-6,9" -> ("east", (1, 2, 3, 4, 5, 6, 9))."""
    name, sep, spec = text.partition("=")
    numbers: list[int] = []
    for part in spec.split(","):
        first, dash, last = part.strip().partition("-")
        if not first.isdigit() or (dash and not last.isdigit()):
            numbers = []
            break
        numbers.extend(range(int(first), int(last or first) + 1))
    if not sep or not name.strip() or not numbers or len(numbers) > 100_000:
        raise argparse.ArgumentTypeError(
            f"expected NAME=BOARDS (e.g. east=1-6,9), got {text[:60]!r}"
        )
    return name.strip(), tuple(numbers)


def add_serve_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--db", type=Path, help="journal file (default: next to the config, EVENT.sqlite)"
    )
    parser.add_argument(
        "--host",
        type=listen_host,
        default="127.0.0.1",
        help="address to listen on (default 127.0.0.1: this computer only; "
        "0.0.0.0: every interface)",
    )
    parser.add_argument("--port", type=port_number, default=8080, help="HTTP port (default 8080)")
    parser.add_argument(
        "--spill-dir",
        type=Path,
        metavar="DIR",
        help="while the journal's disk cannot be written, board events beyond 256 MB of "
        "memory go to a file in DIR, best on another disk (default: the temp folder)",
    )
    parser.add_argument(
        "--board",
        action="append",
        type=_board_override,
        default=[],
        metavar="N=PORT",
        help="board N is on PORT (devices renumbered at the venue); repeatable",
    )
    parser.add_argument(
        "--sim",
        action="store_true",
        help="a rehearsal: every board of the config on emulated boards, and the schedule "
        "(round starts, default times, bye deadlines) moved so that round 1 (or --round R) "
        "starts now",
    )
    parser.add_argument(
        "--speed",
        type=positive_float,
        default=1.0,
        help="with --sim: time compression (default 1)",
    )
    add_emulation_arguments(parser)
    parser.add_argument(
        "--round",
        type=positive_int,
        help="make round R live now (its start moved to this moment)",
    )
    parser.add_argument(
        "--delay",
        type=non_negative_float,
        help="broadcast delay in seconds (overrides the event's)",
    )
    parser.add_argument(
        "--export",
        type=Path,
        metavar="DIR",
        help="keep DIR/round-N/game-M.pgn and games.pgn current (delayed), for broadcast uploaders",
    )
    parser.add_argument(
        "--lichess-round",
        metavar="ID",
        help="push the live round to this Lichess broadcast round (token in LICHESS_TOKEN)",
    )
    parser.add_argument(
        "--lichess-round-delay",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="the delay the Lichess round was given on Lichess (it adds to the event's: "
        "boardwire warns when both are set)",
    )
    parser.add_argument(
        "--trusted-proxy",
        action="append",
        default=[],
        metavar="ADDR",
        help="a reverse proxy (IP or network) whose X-Forwarded-* headers are believed; "
        "repeatable (see docs/security.md)",
    )
    parser.add_argument(
        "--arbiter-network",
        action="append",
        default=[],
        metavar="CIDR",
        help="the arbiters' own machines (an address or network, at most a /16; e.g. their "
        "room's LAN or VPN): never locked out of the arbiter login, however many wrong "
        "passwords others send; repeatable (see docs/security.md)",
    )
    parser.add_argument(
        "--public-url",
        metavar="URL",
        help="the origin spectators and arbiters use, e.g. https://live.example.org",
    )
    parser.add_argument(
        "--publish",
        metavar="redis://HOST:PORT/DB",
        help="also write the delayed public stream to this Redis, for `boardwire mirror` "
        "servers (overrides [event] publish; see docs/deployment.md). Its password: "
        "BOARDWIRE_REDIS_PASSWORD or --redis-password-file, not the URL, which `ps` shows",
    )
    parser.add_argument(
        "--stations",
        metavar="redis://HOST:PORT/DB",
        help="read the boards of the config's capture stations ([[board]] station = NAME) "
        "from this Redis, where each `boardwire station` writes them; their ports are not "
        "opened here (nor emulated by --sim). Its password as for --publish",
    )
    parser.add_argument(
        "--station",
        action="append",
        type=_station_boards,
        default=[],
        metavar="NAME=BOARDS",
        help="with --stations: boards BOARDS (e.g. 1-6,9) are on capture station NAME, "
        "whatever the config says (a rehearsal, a laptop that died); repeatable",
    )
    add_password_argument(parser)
    parser.add_argument(
        "--livechess-api",
        type=port_number,
        nargs="?",
        const=1982,
        metavar="PORT",
        help="also serve LiveChess's local API (WebSocket and REST under /api/v1.0) on PORT "
        "(default 1982): the venue's live view for LiveChess tools (docs/livechess.md)",
    )
    parser.add_argument(
        "--livechess-host",
        type=listen_host,
        default="127.0.0.1",
        metavar="HOST",
        help="the LiveChess API's address (default 127.0.0.1: this computer only); beyond "
        "it the API asks for the arbiter's login or its token",
    )
    parser.add_argument(
        "--lichess-section",
        metavar="NAME",
        help="which section goes to Lichess (default: the first)",
    )
    add_eval_arguments(parser)


def add_parser(sub: Any) -> None:
    parser = sub.add_parser(
        "serve", help="run an event: boards, games, arbiter rules, journal, web"
    )
    parser.add_argument("event", type=Path, metavar="EVENT.toml")
    add_serve_arguments(parser)
    parser.set_defaults(handler=run)


def _publish_settings(args: argparse.Namespace) -> PublishSettings | str:
    lichess = None
    if getattr(args, "lichess_round", None):
        try:
            lichess = LichessRelayConfig.from_env(
                args.lichess_round, round_delay=getattr(args, "lichess_round_delay", 0.0)
            )
        except ValueError as exc:
            return str(exc)
    return PublishSettings(
        folder=getattr(args, "export", None),
        lichess=lichess,
        lichess_section=getattr(args, "lichess_section", None),
    )


def check_arguments(args: argparse.Namespace, config: EventConfig) -> str | None:
    """What argparse cannot check alone: values against the event, files that must exist."""
    rounds = max((s.rounds for s in config.sections), default=0)
    if args.round is not None and args.round > rounds:
        return f"--round {args.round}: the event has {rounds} rounds"
    problem = emulation_problem(args)
    if problem is not None:
        return problem
    spill = getattr(args, "spill_dir", None)
    if spill is not None and not spill.is_dir():
        return f"--spill-dir {spill}: no such folder"
    return None


def arbiter_credentials() -> tuple[str, str] | None:
    """From the environment; there is never a default password."""
    password = os.environ.get("BOARDWIRE_ARBITER_PASSWORD")
    if not password:
        return None
    return os.environ.get("BOARDWIRE_ARBITER_USER", "arbiter"), password


def commentator_credentials() -> tuple[str, str] | None:
    """The commentators' read-only login (their live channel, /commentary), from the
    environment like the arbiter's; without a password the channel is off."""
    password = os.environ.get("BOARDWIRE_COMMENTATOR_PASSWORD")
    if not password:
        return None
    return os.environ.get("BOARDWIRE_COMMENTATOR_USER", "commentator"), password


def all_followed(service: EventService) -> bool:
    """Every hall board is connected and, when it carries a game still to be played,
    followed (a finished game is not: its board takes no more moves)."""
    return all(
        board.connected
        and (
            board.game is None or board.to_game is not None or service.book.get(board.game).finished
        )
        for board in service.hall.values()
    )


async def serve(
    args: argparse.Namespace,
    *,
    credentials: tuple[str, str] | None,
    banner: str = "",
    started: Callable[[EventService], None] | None = None,
    tune_gc: bool = False,
) -> int:
    """Run the event until stopped; `started` is told the service once it is up (tests);
    `tune_gc`: this process only serves the event (`web.http_server.tune_gc`)."""
    try:
        config = load_event(args.event)
    except ConfigError as exc:
        print(f"boardwire: {exc}", file=sys.stderr)
        return 2
    assigned = getattr(args, "station", [])
    if assigned:
        if getattr(args, "stations", None) is None:
            print("boardwire: --station needs --stations (the stations' Redis)", file=sys.stderr)
            return 2
        try:
            config = assign_stations(
                config, {n: name for name, numbers in assigned for n in numbers}
            )
        except StationAssignmentError as exc:
            print(f"boardwire: --station: {exc}", file=sys.stderr)
            return 2
    problem = check_arguments(args, config)
    if problem is not None:
        print(f"boardwire: {problem}", file=sys.stderr)
        return 2
    from web.proxy import make_settings

    try:
        proxy = make_settings(
            getattr(args, "trusted_proxy", []),
            getattr(args, "public_url", None),
            getattr(args, "arbiter_network", []),
        )
    except ValueError as exc:
        print(f"boardwire: {exc}", file=sys.stderr)
        return 2
    stream_url = getattr(args, "publish", None) or config.publish
    stream_password: str | None = None
    if stream_url is not None:
        try:
            check_redis_url(stream_url)
            stream_password = redis_password(getattr(args, "redis_password_file", None))
        except (PublishUrlError, RedisPasswordError) as exc:
            print(f"boardwire: --publish: {exc}", file=sys.stderr)
            return 2
        warning = cli_url_warning(getattr(args, "publish", None) or "", "--publish")
        if warning is not None:
            print(f"boardwire: warning: {warning}", file=sys.stderr)
    stations = _stations_target(args, config)
    if isinstance(stations, str):
        print(f"boardwire: {stations}", file=sys.stderr)
        return 2
    publish = _publish_settings(args)
    if isinstance(publish, str):
        print(f"boardwire: {publish}", file=sys.stderr)
        return 2
    evaluation = eval_settings(args)
    if isinstance(evaluation, str):
        print(f"boardwire: {evaluation}", file=sys.stderr)
        return 2
    livechess = _livechess_settings(args, credentials)
    if isinstance(livechess, str):
        print(f"boardwire: {livechess}", file=sys.stderr)
        return 2
    db = args.db or args.event.with_suffix(".sqlite")
    plan = EventPlan(
        config,
        db,
        host=args.host,
        port=args.port,
        credentials=credentials,
        commentator=commentator_credentials(),
        speed=args.speed,
        sim=args.sim,
        firmware=getattr(args, "firmware", None) or "classic",
        port_overrides=dict(args.board),
        live_round=args.round,
        delay=args.delay,
        proxy=proxy,
        tune_gc=tune_gc,
        evaluation=evaluation,
        spill_dir=getattr(args, "spill_dir", None),
        rehearse=args.sim,
        livechess=livechess,
        stations=stations,
    )

    async def up(running: Running) -> list[SupervisedTask]:
        service = running.service
        await _pair_or_warn(service, sim=args.sim)
        tasks = []
        if running.sim is not None and args.games is not None:
            from boardsim.sim import load_games
            from broadcast.cli.simboards import board_time_controls

            # The emulated players wait until the service follows every board (see
            # start_games); each one is then a supervised task of its own.
            games = load_games(args.games)
            tasks.append(
                service.supervisor.start(
                    "the emulated players' start",
                    partial(
                        running.sim.start_games,
                        games,
                        running.time_source,
                        speed=args.speed,
                        followed=partial(all_followed, service),
                        supervisor=service.supervisor,
                        # the clocks the arbiter sets for the event, not the PGN's own
                        time_controls=board_time_controls(service.config),
                    ),
                    restart=False,
                )
            )
        if started is not None:
            started(service)
        tasks += start_publishers(service, publish)
        if stream_url is not None:
            from broadcast.cli.stream_link import start_stream_publisher

            tasks.append(start_stream_publisher(running, stream_url, stream_password)[1])
        assert running.web is not None
        url = f"http://{args.host}:{args.port}/"
        print(f"{banner}boardwire: {config.name} live at {url}  (journal {db})", flush=True)
        print(f"boardwire: listening on {exposure(running.web.addresses)}", flush=True)
        if running.config.rehearsal is not None:
            print(
                f"boardwire: {rehearsal_line(running.config, running.time_source.now())}",
                flush=True,
            )
        if livechess is not None:
            print(f"boardwire: {_livechess_line(livechess, credentials, config.name)}", flush=True)
        if stations is not None:
            for line in station_lines(config, stations):
                print(f"boardwire: {line}", flush=True)
        if credentials is None:
            print(
                "boardwire: arbiter desk disabled: set BOARDWIRE_ARBITER_PASSWORD to enable it",
                flush=True,
            )
        return tasks

    return await run_event(plan, started=up)


def _stations_target(args: argparse.Namespace, config: EventConfig) -> RedisTarget | str | None:
    """`--stations URL` with its password, or why not; None without it."""
    url = getattr(args, "stations", None)
    remote = bool(stations_of(config) or found_boards(config))
    if url is None:
        if remote:
            log.warning(
                "the config puts boards on capture stations (or has them found there by "
                "their serial numbers), but --stations is not given: those boards are not read"
            )
        return None
    try:
        check_redis_url(url)
        password = redis_password(getattr(args, "redis_password_file", None))
    except (PublishUrlError, RedisPasswordError) as exc:
        return f"--stations: {exc}"
    if not remote:
        return (
            f"--stations: no board of {args.event} is on a capture station; give boards a "
            'station (`station = "east-1"` in their [[board]]) or a serial number to be '
            "found by (`serial = ...` and no port), or leave --stations out"
        )
    warning = cli_url_warning(url, "--stations")
    if warning is not None:
        print(f"boardwire: warning: {warning}", file=sys.stderr)
    return RedisTarget(url, password)


def station_lines(config: EventConfig, target: RedisTarget) -> list[str]:
    """One line per capture station the serve expects: its boards, and how to start it."""
    start = (
        f"boardwire station --redis redis://{target.where}/... --event {shlex.quote(config.name)}"
    )
    lines = [
        f"station {name}: boards {', '.join(str(n) for n in boards) or 'none by port'}; start "
        f"it there with `{start} --name {name}`"
        for name, boards in stations_of(config).items()
    ]
    found = found_boards(config)
    if found:
        numbers = ", ".join(str(b.number) for b in found.values())
        lines.append(
            f"boards {numbers}: found by their serial numbers on the capture station they "
            f"are plugged into; start one on each computer with `{start} --name NAME`"
        )
    return lines


def _livechess_settings(
    args: argparse.Namespace, credentials: tuple[str, str] | None
) -> LiveChessSettings | str | None:
    """`--livechess-api`: where it listens, or why it cannot (beyond loopback it needs the
    arbiter's login, which guards it there)."""
    port = getattr(args, "livechess_api", None)
    if port is None:
        return None
    from web.livechess.server import LiveChessSettings

    settings = LiveChessSettings(getattr(args, "livechess_host", "127.0.0.1"), port)
    if not settings.loopback and credentials is None:
        return (
            f"--livechess-host {settings.host}: beyond this computer the LiveChess API needs "
            "the arbiter's login; set BOARDWIRE_ARBITER_PASSWORD (or keep it on 127.0.0.1)"
        )
    if settings.port == args.port:
        return f"--livechess-api {port}: that is the web's port (--port); give it its own"
    return settings


def _livechess_line(
    settings: LiveChessSettings, credentials: tuple[str, str] | None, event: str
) -> str:
    from web.livechess.server import LINK_NAME, address

    line = f"{LINK_NAME} at {address(settings, credentials, event)}"
    return line if settings.loopback else f"{line}; keep the token for the venue's LAN tools"


async def _pair_or_warn(service: EventService, *, sim: bool) -> None:
    """A live round with no pairings shows nothing: a rehearsal on emulated boards pairs it
    (FIDE Dutch, so that the emulated games have players; in the service's pairing worker,
    the server is up meanwhile; a team section's teams, then its boards from the fallback
    lineups); a real event is told how."""
    if sim:
        for line in await pair_unpaired_off_loop(service, by="serve --sim"):
            log.warning("%s", line)
        for line in pair_teams_unpaired(service, by="serve --sim"):
            log.warning("%s", line)
    for section, number in service.unpaired_rounds().items():
        log.warning("%s", how_to_pair(section, number))


def run(args: argparse.Namespace) -> int:
    try:
        return asyncio.run(serve(args, credentials=arbiter_credentials(), tune_gc=True))
    except KeyboardInterrupt:
        return 130


__all__ = [
    "add_parser",
    "add_serve_arguments",
    "all_followed",
    "arbiter_credentials",
    "check_arguments",
    "commentator_credentials",
    "run",
    "serve",
    "station_lines",
]
