"""Replay a capture as one board's game in one round of an event, with the arbiter rules.

`boardwire replay CAPTURE --event EVENT.toml --round R --board B [--events OUT.jsonl]`:
the capture's first line {"meta": {"started_at": ISO-8601}} places its t = 0 in real
time, so the capture's virtual time meets the section's schedule: a player who never
moves is late, then forfeited, exactly as at the venue.

The replay is the live pipeline, not a copy of it: the captures' bytes are decoded into
driver events (`boards.replay.replay_capture`), and those drive the real `EventService`
(hall, committer, fold, arbiter rules) in virtual time (`ManualTime`) with a throw-away
journal. Between inputs, every reconstruction decision is ticked at its own time
(`deadlines_until`, guarded against a deadline that does not move), then the rules'
timers. So the replay gives what `serve` would have: the game facts (GameFlag included),
the arbiter's alerts and proposals, and a confirmed result's ResultRecorded.
`replay_event`/`replay_round` are the core, `run_event_replay` the CLI shell around it.

Board B is the hall board number of the event's `[[board]]` list (its section, and the
table it stands on, give the pairing board: `broadcast.config.tables`). An event without boards
takes B as the pairing board number of its only section (or of `--section`).
Pairings: Berger tables for round robins; a Swiss takes seed order (2B-1 v 2B)
unless pairings are passed in, since a replay has no pairing program to ask.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any

from boards.capture import Capture, CaptureChunk
from boards.driver_events import BoardConnected, BoardInfo
from boards.reconstruction.drive import deadlines_until
from boards.replay import FLUSH_SECONDS, replay_capture
from broadcast.actions import PublishPairings, act
from broadcast.arbiter import Alert, ArbiterRules, RulesConfig
from broadcast.config.model import BoardConfig, EventConfig, SectionConfig
from broadcast.fide.berger import berger_round
from broadcast.fide.pairing import Pairing
from broadcast.games.book import pairing_board_of, section_boards
from broadcast.games.game_events import ResultProposed
from broadcast.games.ids import GameKey
from broadcast.journal.store import Entry, Journal
from broadcast.service.event_service import EventService
from broadcast.tournament.live_round import RoundStartMoved
from broadcast.tournament.tournament_events import ResultRecorded, TournamentEvent
from clocks.errors import BoardwireError
from clocks.move_times import FlagFell
from clocks.timecontrol import TimeControl
from clocks.timesource import ManualTime


class ReplayEventError(BoardwireError, ValueError):
    """The capture, event, round or board do not fit together; the message says how."""


@dataclass
class EventReplay:
    """What came out: the game's events and the arbiter's, in order."""

    game: GameKey
    board: str
    events: list[Any] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    rules: ArbiterRules | None = None
    games: list[GameKey] = field(default_factory=list)

    @property
    def alerts(self) -> list[Alert]:
        return [e for e in self.events if isinstance(e, Alert)]

    @property
    def proposals(self) -> list[ResultProposed]:
        return [e for e in self.events if isinstance(e, ResultProposed)]


def locate(
    event: EventConfig, board: int, section: str | None = None
) -> tuple[SectionConfig, int, str]:
    """(section, pairing board, note) for hall board `board`."""
    if event.boards and section is None:
        for hall in event.boards:
            if hall.number == board:
                return event.section(hall.section), pairing_board_of(event, hall), ""
        known = ", ".join(str(b.number) for b in event.boards)
        raise ReplayEventError(f"no board {board} in the event's [[board]] list (boards: {known})")
    if section is None:
        if len(event.sections) != 1:
            names = ", ".join(s.name for s in event.sections)
            raise ReplayEventError(f"the event has several sections ({names}): pass --section")
        section = event.sections[0].name
    try:
        config = event.section(section)
    except KeyError as exc:
        raise ReplayEventError(str(exc.args[0])) from None
    return config, board, f"board {board} taken as pairing board {board} of {config.name}"


def round_pairings(config: SectionConfig, round_number: int) -> tuple[tuple[Pairing, ...], str]:
    players = len(config.players)
    if config.system != "swiss":
        cycles = 2 if config.system == "double-round-robin" else 1
        return berger_round(players, round_number, cycles), ""
    pairs = tuple(Pairing(b, 2 * b - 1, 2 * b) for b in range(1, players // 2 + 1))
    return pairs, "Swiss pairings are not in the config: seed order assumed (board B: 2B-1 v 2B)"


def replay_event(
    capture: Capture,
    event: EventConfig,
    round_number: int,
    board: int,
    *,
    section: str | None = None,
    pairings: Sequence[Pairing] | None = None,
    time_control: TimeControl | None = None,
    config: RulesConfig | None = None,
) -> EventReplay:
    """Run `capture` as the game on `board` in `round_number`, arbiter rules included."""
    return replay_round(
        {board: capture},
        event,
        round_number,
        section=section,
        pairings=pairings,
        time_control=time_control,
        config=config,
    )


def replay_round(
    captures: Mapping[int, Capture],
    event: EventConfig,
    round_number: int,
    *,
    section: str | None = None,
    pairings: Sequence[Pairing] | None = None,
    time_control: TimeControl | None = None,
    config: RulesConfig | None = None,
) -> EventReplay:
    """Several boards of one round, each from its capture, through the real `EventService`
    (virtual time, a throw-away journal), in time order: a scripted round as the arbiter
    would live it. Only the replayed boards' games are reported (the others have no
    capture and would all be no-shows)."""
    if not captures:
        raise ReplayEventError("no capture to replay")
    located = {b: locate(event, b, section) for b in captures}
    sections = {sec.name for sec, _, _ in located.values()}
    if len(sections) != 1:
        raise ReplayEventError(
            f"the boards belong to several sections: {', '.join(sorted(sections))}"
        )
    sec = next(iter(located.values()))[0]
    if not 1 <= round_number <= sec.rounds:
        raise ReplayEventError(f"round {round_number} is outside 1..{sec.rounds} of {sec.name}")
    notes = sorted({note for _, _, note in located.values() if note})
    keys = {hall: GameKey(sec.name, round_number, located[hall][1]) for hall in captures}
    starts = {hall: _start_of(capture) for hall, capture in captures.items()}
    hall_event = _replay_config(event, sec, keys, time_control)
    with tempfile.TemporaryDirectory(prefix="boardwire-replay-") as tmp:
        journal = Journal(Path(tmp) / "replay.sqlite")
        journal._db.execute("PRAGMA synchronous=OFF")  # thrown away at the end: no fsync
        try:
            clock = ManualTime(min(starts.values()))
            service = EventService(
                hall_event, journal, time_source=clock, delay=0.0, rules=config, snapshots=False
            )
            service.load()
            wanted = {k.id for k in keys.values()}
            result = EventReplay(keys[next(iter(captures))], "", notes=notes, rules=service.rules)
            service.listeners.append(partial(_collect, result, wanted, sec.name, round_number))
            why = _pair(service, sec, round_number, pairings)
            if why:
                notes.append(why)
            _replay(service, clock, captures, starts, keys, sec, round_number, result)
        finally:
            journal.close()
    return result


def _start_of(capture: Capture) -> float:
    started = capture.started_at
    if started is None:
        raise ReplayEventError(
            'the capture has no {"meta": {"started_at": ...}} line: without it its time '
            "cannot meet the schedule (add one with the recording's real start time)"
        )
    if started.tzinfo is None:
        raise ReplayEventError(f"started_at {started.isoformat()} has no timezone: add +00:00 or Z")
    return started.timestamp()


def _port(board: int) -> str:
    return f"replay:{board}"


def _replay_config(
    event: EventConfig,
    sec: SectionConfig,
    keys: Mapping[int, GameKey],
    time_control: TimeControl | None,
) -> EventConfig:
    """The event as the service is to run it: the section's boards only, pairing board k
    as hall board k, each alone on a port of its own (a replayed one's is its capture);
    `--time-control` as the section's."""
    wired = (pairing_board_of(event, b) for b in section_boards(event, sec.name))
    last = max([*(k.board for k in keys.values()), *wired])
    boards = tuple(BoardConfig(k, _port(k), None, sec.name) for k in range(1, last + 1))
    sections = tuple(
        replace(s, time_control=time_control) if s.name == sec.name and time_control else s
        for s in event.sections
    )
    return replace(event, boards=boards, sections=sections)


def _pair(
    service: EventService, sec: SectionConfig, round_number: int, pairings: Sequence[Pairing] | None
) -> str:
    """Rounds 1..R paired as the replay assumes (Berger tables are paired by `load`); what
    to tell the user about it."""
    why = ""
    for r in range(1, round_number + 1):
        if r == round_number and pairings is not None:
            chosen = tuple(pairings)
        elif r in service.tournament.section(sec.name).rounds:
            continue
        else:
            chosen, why = round_pairings(sec, r)
        # The replay's own pairing, on purpose: a round already paired is replaced.
        act(service, PublishPairings(sec.name, r, chosen, "replay"), "replay", confirm=True)
    return why if pairings is None else ""


def _collect(
    result: EventReplay, wanted: set[str], section: str, round_number: int, entries: Sequence[Entry]
) -> None:
    """What the replay reports, from each durable batch: the replayed games' events and the
    arbiter's (not the boards' raw readings, nor the tournament's bookkeeping)."""
    for entry in entries:
        e = entry.event
        if isinstance(e, ResultRecorded):
            if (e.section, e.round) == (section, round_number):
                result.events.append(e)
        elif not isinstance(e, _NOT_REPORTED) and getattr(e, "game", "") in wanted | {""}:
            result.events.append(e)


def _replay(
    service: EventService,
    clock: ManualTime,
    captures: Mapping[int, Capture],
    starts: Mapping[int, float],
    keys: Mapping[int, GameKey],
    sec: SectionConfig,
    round_number: int,
    result: EventReplay,
) -> None:
    timeline: list[tuple[float, int, str, Any]] = []  # (t, order, port, event)
    for hall, capture in captures.items():
        t0 = starts[hall]
        shifted = Capture(
            capture.meta,
            tuple(CaptureChunk(c.t + t0, c.direction, c.data) for c in capture.chunks),
        )
        raw = replay_capture(shifted)
        name = raw.boards[0] if raw.boards else f"board-{hall}"
        result.games.append(keys[hall])
        if not result.board:
            result.board = name
        port = _port(keys[hall].board)
        info = BoardInfo(port, name, (0, 0), "single")
        timeline.append((t0, 0, port, BoardConnected(t0, name, info)))
        timeline += [
            (e.t, 1, port, e) for b, e in raw.events if b == name and isinstance(e, _DRIVER_TYPES)
        ]
        # Time comes from every chunk, host polls included: a board that stopped
        # answering still lets the host's traffic carry time to its silence alert.
        timeline += [(t, 2, port, None) for t in sorted({c.t for c in shifted.chunks})]
    timeline.sort(key=lambda item: (item[0], item[1], item[2]))

    def tick(t: float) -> None:
        # Every reconstruction decision at its own time, then the rules' timers at t.
        for due in deadlines_until(service.next_decision, t):
            clock.set(max(due, clock.now()))
            service.tick(full=False)
        clock.set(max(t, clock.now()))
        service.tick()

    first = True
    for t, _, port, item in timeline:
        tick(t)
        if first:
            live = service.live_rounds()[sec.name]
            if live != round_number:
                raise ReplayEventError(
                    f"the capture starts when round {live} of {sec.name} is on the boards, "
                    f"not round {round_number}: check its started_at against the schedule"
                )
            first = False
        if item is not None:
            service.on_driver_event(port, item)
    tick((timeline[-1][0] if timeline else clock.now()) + FLUSH_SECONDS)


def _driver_types() -> tuple[type, ...]:
    from boards import driver_events

    return (
        driver_events.BoardConnected,
        driver_events.BoardLost,
        driver_events.PositionSeen,
        driver_events.ClockSeen,
        driver_events.ClockStamped,
        driver_events.LogRecovered,
        driver_events.BatterySeen,
        driver_events.BoardHealth,
    )


_DRIVER_TYPES = _driver_types()
# Journal events the replay does not report: the boards' raw readings (the games made of
# them are), the raw clock flag (its GameFlag is), and the tournament's bookkeeping.
_NOT_REPORTED: tuple[Any, ...] = (*_DRIVER_TYPES, FlagFell, TournamentEvent, RoundStartMoved)


def run_event_replay(args: argparse.Namespace, capture: Capture) -> int:
    """The `replay --event` command: load the event, replay, write --events, summarise."""
    from broadcast.cli.event_lines import to_json
    from broadcast.config import ConfigError, load_event

    if args.round is None or args.board is None:
        print("boardwire: --event needs --round R and --board B", file=sys.stderr)
        return 2
    try:
        event = load_event(args.event)
    except (OSError, ConfigError) as exc:
        print(f"boardwire: {exc}", file=sys.stderr)
        return 2
    try:
        board = int(args.board)
    except ValueError:
        print(
            f"boardwire: --board with --event is a board number, got {args.board!r}",
            file=sys.stderr,
        )
        return 2
    tc = None
    if args.time_control:
        from clocks.timecontrol import parse_time_control

        try:
            tc = parse_time_control(args.time_control)
        except ValueError as exc:
            print(f"boardwire: --time-control: {exc}", file=sys.stderr)
            return 2
    try:
        result = replay_event(
            capture,
            event,
            args.round,
            board,
            section=getattr(args, "section", None),
            time_control=tc,
        )
    except ReplayEventError as exc:
        print(f"boardwire: {exc}", file=sys.stderr)
        return 2
    if args.events:
        with open(args.events, "w", encoding="utf-8") as out:
            for item in result.events:
                out.write(json.dumps(to_json(item)) + "\n")
    for note in result.notes:
        print(f"note: {note}")
    print(
        f"{result.game.id} (board {result.board}): {len(result.alerts)} alerts, "
        f"{len(result.proposals)} result proposals"
    )
    for item in result.events:
        if isinstance(item, Alert) and item.game == result.game.id:
            print(f"  alert {item.kind} [{item.severity}]: {item.message}")
        elif isinstance(item, ResultProposed):
            print(f"  proposed {item.result} ({item.reason}): {item.detail}")
    return 0


__all__ = [
    "EventReplay",
    "ReplayEventError",
    "locate",
    "replay_event",
    "replay_round",
    "round_pairings",
    "run_event_replay",
]
