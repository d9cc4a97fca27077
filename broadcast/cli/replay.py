"""Replay a capture as one board's game in one round of an event, with the arbiter rules.

`boardwire replay CAPTURE --event EVENT.toml --round R --board B [--events OUT.jsonl]`:
the capture's first line {"meta": {"started_at": ISO-8601}} places its t = 0 in real
time, so the capture's virtual time meets the section's schedule: a player who never
moves is late, then forfeited, exactly as at the venue. Pure core (`replay_event`);
`run_event_replay` is the CLI shell around it.

Board B is the hall board number of the event's `[[board]]` list (its section, and its
place among the section's boards, give the pairing board). An event without boards
takes B as the pairing board number of its only section (or of `--section`).
Pairings: Berger tables for round robins; a Swiss takes seed order (2B-1 v 2B)
unless pairings are passed in, since a replay has no pairing program to ask.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from boards.capture import Capture, CaptureChunk
from boards.events import BatterySeen, BoardHealth, BoardLost, ClockSeen
from boards.reconstruction import Reconstructor
from boards.replay import FLUSH_SECONDS, replay_capture
from broadcast.arbiter import Alert, ArbiterRules, RulesConfig
from broadcast.arbiter.standalone import StandaloneRules
from broadcast.config.model import EventConfig, SectionConfig
from broadcast.fide.berger import berger_round
from broadcast.fide.pairing import Pairing
from broadcast.games.book import section_boards
from broadcast.games.events import BoardAttached, GameEvent, ResultProposed
from broadcast.games.from_board import BoardToGame
from broadcast.games.ids import GameKey
from broadcast.service.state import EventState
from broadcast.tournament.events import RoundPaired
from broadcast.tournament.state import registration_events
from clocks.clocktimes import FlagFell
from clocks.timecontrol import TimeControl

_HEALTH = (BoardLost, BoardHealth, BatterySeen, ClockSeen)


class ReplayEventError(ValueError):
    """The capture, event, round or board do not fit together; the message says how."""


@dataclass
class EventReplay:
    """What came out: the game's events and the arbiter's, in order."""

    game: GameKey
    board: str
    events: list[Any] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    rules: StandaloneRules | None = None
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
                boards = section_boards(event, hall.section)
                return event.section(hall.section), boards.index(hall) + 1, ""
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
    """Several boards of one round, each from its capture, through ONE rules engine, in
    time order: a scripted round as the arbiter would live it. Only the replayed boards'
    games are reported (the others have no capture and would all be no-shows)."""
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
    state = EventState.new(event)
    for registered in registration_events(event):
        state = state.apply(registered)
    for r in range(1, round_number + 1):
        if r == round_number and pairings is not None:
            chosen, why = tuple(pairings), ""
        else:
            chosen, why = round_pairings(sec, r)
        if why and r == round_number:
            notes.append(why)
        state = state.apply(RoundPaired(sec.name, r, chosen))
    rules = StandaloneRules(ArbiterRules(event, config, state=state), state)
    make = partial(Reconstructor, time_control=time_control)

    links: list[BoardToGame] = []
    timeline: list[tuple[float, int, int, Any]] = []  # (t, order, link, driver event | None)
    keys: list[GameKey] = []
    for hall, capture in captures.items():
        key = GameKey(sec.name, round_number, located[hall][1])
        if key.id not in rules.book.games:
            raise ReplayEventError(f"round {round_number} has no game on pairing board {key.board}")
        started = capture.started_at
        if started is None:
            raise ReplayEventError(
                'the capture has no {"meta": {"started_at": ...}} line: without it its time '
                "cannot meet the schedule (add one with the recording's real start time)"
            )
        if started.tzinfo is None:
            raise ReplayEventError(
                f"started_at {started.isoformat()} has no timezone: add +00:00 or Z"
            )
        t0 = started.timestamp()
        shifted = Capture(
            capture.meta,
            tuple(CaptureChunk(c.t + t0, c.direction, c.data) for c in capture.chunks),
        )
        raw = replay_capture(shifted, make_reconstructor=make)
        name = raw.boards[0] if raw.boards else f"board-{hall}"
        index = len(links)
        links.append(BoardToGame(name, key.id, make()))
        keys.append(key)
        timeline.append((t0, 0, index, BoardAttached(key.id, name, t0)))
        timeline += [
            (e.t, 1, index, e) for b, e in raw.events if b == name and isinstance(e, _DRIVER_TYPES)
        ]
        # Time comes from every chunk, host polls included: a board that stopped
        # answering still lets the host's traffic carry time to its silence alert.
        timeline += [(t, 2, index, None) for t in sorted({c.t for c in shifted.chunks})]
    timeline.sort(key=lambda item: (item[0], item[1], item[2]))
    wanted = {k.id for k in keys}
    result = EventReplay(keys[0], links[0].board, notes=notes, rules=rules, games=keys)

    def emit(events: list[Any]) -> None:
        result.events.extend(e for e in events if getattr(e, "game", "") in wanted | {""})

    def feed(index: int, games: list[GameEvent], passed: list[Any]) -> None:
        for game_event in games:
            emit([game_event])
            emit(rules.observe(game_event))
        for item in passed:
            if isinstance(item, FlagFell):
                emit(rules.observe(item, game=links[index].game))
            elif isinstance(item, _HEALTH):
                emit(rules.observe(item))

    def tick(t: float) -> None:
        for index, link in enumerate(links):
            while (due := link.reconstructor.next_deadline()) is not None and due <= t:
                feed(index, *link.tick(due))
        emit(rules.tick(t))

    for t, order, index, item in timeline:
        tick(t)
        if order == 0:
            emit([item])
            emit(rules.observe(item))
        elif order == 1:
            feed(index, *links[index].handle(item))
    tick((timeline[-1][0] if timeline else 0.0) + FLUSH_SECONDS)
    return result


def _driver_types() -> tuple[type, ...]:
    from boards import events as driver_events

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
