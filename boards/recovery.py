"""Recovering what was played while nobody listened to a board, from its EEPROM event log.

A board logs every square change (and the clock time at every lever press) whether or not
a host listens. The log holds no times, only order; and it is lossy in one known way: a
square that changes again while its record is still the last one overwrites that record
(a piece lifted and put back leaves one record, a piece passing over a square may leave
none). While connected, the driver keeps the real stream of changes it saw live; after a
reconnect it finds that stream in the freshly read log, and everything after it is what
it missed. Anchors the board writes itself (POWERUP, START_TAG or WATCHDOG followed by
every piece, BEGINPOS, EMPTYBOARD) give absolute positions, so the log can also be read
back from the moment the pieces were set up (a dump of the start position is a setup
whether or not the firmware tags it BEGINPOS): reconstruction then aligns the game it
knows with the log instead of trusting the host's guess of where it was. When what the
host saw is not in the log at all, the log is read from the host's position through the
log's last anchor (`placed=False`, for the arbiter to check).

Pure code: decoded events in, a `LogRecovered` out (steps in order, no invented times).
The decisions around it are here too, for both drivers: whether a board that answers is
a reconnect, a first start mid-round or neither (`plan`), and what a reading came to.
Total: any events, recent changes and known position give a result or None, never an
exception (hypothesis properties in tests/boards/test_recovery_dumps.py).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal

from boards.dgt.eeprom import ClockTime, EepromEvent, PieceChange, Tag, TagEvent
from boards.driver_events import LogRecovered, LogStep
from boards.position import BoardPosition
from clocks.move_times import other_side
from clocks.reading import ClockReading, Side

RECENT_CHANGES = 48  # long enough to be unique in a log, short enough to survive a wrap
_MIN_RUN = 4  # fewer matching changes than this do not place us
_TAIL_SLACK = 3  # the last live changes may be out of log order (read from a board dump)

START = BoardPosition.from_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR")
START_ROTATED = BoardPosition.from_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR", "rotated")
_SETUP = {Tag.BEGINPOS: START, Tag.BEGINPOS_ROT: START_ROTATED}
# Tags after which the board writes every piece it holds (a power-up, a bus start-game, and
# on some firmware the restart after a watchdog reset).
_DUMPS = (Tag.POWERUP, Tag.START_TAG, Tag.WATCHDOG)
_SETUPS = (START, START_ROTATED)

Change = tuple[int, int]

__all__ = [
    "RECENT_CHANGES",
    "START",
    "START_ROTATED",
    "Change",
    "KnownBoard",
    "RecentChanges",
    "RecoveryPlan",
    "changes_between",
    "continued",
    "nothing_played",
    "outcome",
    "plan",
    "recover",
    "unlogged_since_reboot",
    "with_reading_after_reboot",
]


class RecentChanges:
    """The last square changes seen live, in order, to find our place in the log later."""

    def __init__(self, size: int = RECENT_CHANGES) -> None:
        self._changes: deque[Change] = deque(maxlen=size)

    def add(self, index: int, code: int) -> None:
        self._changes.append((index, code))

    def extend(self, changes: Sequence[Change]) -> None:
        self._changes.extend(changes)

    def clear(self) -> None:
        self._changes.clear()

    def as_tuple(self) -> tuple[Change, ...]:
        return tuple(self._changes)


@dataclass(frozen=True, slots=True)
class KnownBoard:
    """What a previous run knew of a board (from the journal): its last position, the
    last square changes seen, and when it was last heard. A driver given this treats its
    first connection as a reconnect and reads the board's log for what it missed.

    `position=None`: the journal never saw this board but its game is under way (a first
    start mid-round): the driver reads the log back from the last time the pieces were
    set up, unless the board still shows the start."""

    serial: str
    position: BoardPosition | None
    recent: tuple[Change, ...]
    last_seen: float


@dataclass(frozen=True, slots=True)
class RecoveryPlan:
    """How a driver treats a board that answered: `reconnect` is what `BoardConnected`
    says; `outage` whether the board's log is read for what was missed; `first_start`
    whether that read rebuilds the game from the last setup of the pieces; `position`
    and `recent` where the log reading starts from."""

    reconnect: bool
    outage: bool
    first_start: bool
    position: BoardPosition | None
    recent: tuple[Change, ...]


def plan(
    reconnect: bool,
    position: BoardPosition | None,
    recent: tuple[Change, ...],
    known: KnownBoard | None,
) -> RecoveryPlan:
    """The "known board -> reconnect / first start" decision, for both drivers. `reconnect`,
    `position` and `recent` are what this run saw of the board (a board it followed
    before comes back after an outage); `known` is what the journal knew of it, given
    only at the board's first connection in this run."""
    if known is not None:
        # A restarted service picks up where the journal left this board; a first start
        # mid-round rebuilds the game from the log (position None).
        again = known.position is not None
        return RecoveryPlan(again, True, not again, known.position, known.recent)
    return RecoveryPlan(reconnect, reconnect and position is not None, False, position, recent)


def nothing_played(shown: BoardPosition) -> bool:
    """At a first start: the board still shows the start position, so there is no game
    to rebuild from its log."""
    return shown.orientation_of_start() is not None


def outcome(
    got: LogRecovered | None, *, first_start: bool
) -> tuple[LogRecovered | None, str | None]:
    """What reading the log gave (`recover`'s answer), and what went wrong filling the
    outage, in words for the desk (None: nothing)."""
    if got is None:
        if first_start:
            return None, "its log holds no setup of the pieces to rebuild the game from"
        return None, "what it showed last is not in its log"
    if not got.placed:
        return got, "what it showed last is no longer in its log (read from its last anchor)"
    return got, None


def _collapsed(changes: Sequence[tuple[int, Change]]) -> list[tuple[int, Change]]:
    """Changes as the log keeps them: one square changed twice in a row leaves one record
    (the later one). Each item carries a tag (an event index) that follows the survivor."""
    out: list[tuple[int, Change]] = []
    for tag, change in changes:
        if out and out[-1][1][0] == change[0]:
            out[-1] = (tag, change)
        else:
            out.append((tag, change))
    return out


def _find_after(events: Sequence[EepromEvent], recent: Sequence[Change]) -> int | None:
    """Index into `events` of the first record the host did not see, found by matching the
    longest run of the live changes with the log's, both collapsed the way the board
    overwrites records. The last live change may itself have been overwritten by a later
    one on its square (then that record is not seen yet: its index is returned); the last
    few live changes may be missing or out of order (the host learnt them from a dump).
    A board's own dumps (after a power-up or a watchdog reset) are left out: the host
    never saw them as changes, and the stream it saw runs on across them."""
    dumped = _dump_members(events)  # what a board dumps, no host ever saw as changes
    log = _collapsed(
        [
            (i, (e.index, e.code))
            for i, e in enumerate(events)
            if isinstance(e, PieceChange) and i not in dumped
        ]
    )
    live = [c for _, c in _collapsed([(0, c) for c in recent])]
    if not live:
        return None
    need = min(len(live), _MIN_RUN)
    for drop in range(min(_TAIL_SLACK, len(live) - need) + 1):
        tail = live[: len(live) - drop]
        for length in range(len(tail), need - 1, -1):
            run = tail[-length:]
            body, last = run[:-1], run[-1]
            for start in range(len(log) - length, -1, -1):
                tag, logged = log[start + length - 1]
                if logged[0] != last[0]:
                    continue
                if any(log[start + k][1] != body[k] for k in range(len(body))):
                    continue
                return tag + 1 if logged == last else tag
    return None


def _dump_members(events: Sequence[EepromEvent]) -> set[int]:
    """Indexes of the piece changes that belong to a dump (read as `_steps` does)."""
    out: set[int] = set()
    for i, e in enumerate(events):
        if isinstance(e, TagEvent) and e.tag in _DUMPS:
            end = _dump_end(events, i)
            if end is not None:
                out.update(range(i + 1, end + 1))
    return out


def _anchor_position(tag: Tag) -> BoardPosition | None:
    if tag in _SETUP:
        return _SETUP[tag]
    if tag in _DUMPS or tag is Tag.EMPTYBOARD:
        return BoardPosition.empty()
    return None


def _positions(events: Sequence[EepromEvent]) -> list[BoardPosition | None]:
    """The board's position after each event, from the first anchor on (None before).
    A dump tag empties the board only when pieces follow it (read as `_steps` does)."""
    out: list[BoardPosition | None] = []
    pos: BoardPosition | None = None
    armed = False
    for e in events:
        if isinstance(e, TagEvent):
            armed = e.tag in _DUMPS
            if e.tag in _SETUP or e.tag is Tag.EMPTYBOARD:
                pos = _anchor_position(e.tag)
        elif isinstance(e, PieceChange):
            if armed and e.code:
                pos = BoardPosition.empty()
            armed = False
            if pos is not None:
                pos = pos.with_piece(e.index, e.code)
        else:
            armed = False
        out.append(pos)
    return out


def _dump_end(events: Sequence[EepromEvent], tag: int) -> int | None:
    """The index of the last piece of the dump that the dump tag at `tag` begins (None
    when no piece follows it: the tag stands alone, or another dump tag takes over)."""
    end: int | None = None
    squares: set[int] = set()
    for i in range(tag + 1, len(events)):
        e = events[i]
        if not isinstance(e, PieceChange) or not e.code or e.index in squares:
            break
        squares.add(e.index)
        end = i
    return end


def _steps(events: Sequence[EepromEvent], begin: int) -> tuple[list[LogStep], list[int]]:
    """The log from `begin` on as steps, and the index of each step's last square change.

    A dump (the pieces a board writes after POWERUP, START_TAG or WATCHDOG) is one step
    that starts from an empty board; a dump tag that no piece follows (not every firmware
    writes one: an empty board, a tag on its own) is no step. A clock time goes with the
    step before it."""
    steps: list[LogStep] = []
    ends: list[int] = []
    armed = False  # a dump tag was the last record: a piece now starts the dump
    dumping: set[int] | None = None  # squares of the dump under way
    for i in range(begin, len(events)):
        e = events[i]
        if isinstance(e, TagEvent):
            # POWERUP then START_TAG (some firmware writes both) arms one dump.
            armed, dumping = e.tag in _DUMPS, None
            continue
        if isinstance(e, ClockTime):
            armed, dumping = False, None
            side: Literal["left", "right"] = "left" if e.left else "right"
            if not steps:
                steps.append(LogStep(()))
                ends.append(i)
            last = steps[-1]
            steps[-1] = LogStep(last.changes, (*last.presses, (side, e.seconds)), last.reset)
            continue
        change = (e.index, e.code)
        if armed and e.code:
            armed, dumping = False, {e.index}
            steps.append(LogStep((change,), reset=True))
            ends.append(i)
            continue
        if dumping is not None and e.code and e.index not in dumping:
            dumping.add(e.index)
            last = steps[-1]
            steps[-1] = LogStep((*last.changes, change), last.presses, last.reset)
            ends[-1] = i
            continue
        armed, dumping = False, None
        steps.append(LogStep((change,)))
        ends.append(i)
    return steps, ends


def recover(
    events: Sequence[EepromEvent],
    recent: Sequence[Change],
    last_known: BoardPosition | None,
    t: float,
    board: str,
) -> LogRecovered | None:
    """What the log says happened, as one `LogRecovered` (stamped `t`, the reconnect):
    from the last setup of the pieces when the log still holds it (reconstruction aligns
    its game with that), else from the last absolute anchor, else from `last_known`.
    None when our place cannot be found (or, at a first start, no setup is logged)."""
    positions = _positions(events)
    if last_known is None:
        begin = _last_anchor(events, positions, len(events), setup_only=True)
        if begin is None:
            return None
        return _from(events, positions, begin, after=begin + 1, t=t, board=board)
    after = _find_after(events, recent) if recent else None
    if after is None:
        found = [i for i, p in enumerate(positions) if p == last_known]
        if not found:
            return _unplaced(events, positions, last_known, t, board)
        after = found[-1] + 1
    begin = _last_anchor(events, positions, after, setup_only=True)
    if begin is None:
        begin = _last_anchor(events, positions, after, setup_only=False)
    if begin is None:
        steps, _ = _steps(events, after)
        return LogRecovered(t, board, last_known, tuple(steps), -1, "known")
    return _from(events, positions, begin, after, t, board)


def _unplaced(
    events: Sequence[EepromEvent],
    positions: Sequence[BoardPosition | None],
    last_known: BoardPosition,
    t: float,
    board: str,
) -> LogRecovered | None:
    """Our place is not in the log (it wrapped past it, or a power cycle left only what
    came after): from the host's last position, the board jumps to the log's last anchor
    and goes on from there. What happened between is lost: `placed=False` says so."""
    begin = _last_anchor(events, positions, len(events), setup_only=False)
    if begin is None:
        return None
    tag = events[begin]
    assert isinstance(tag, TagEvent)
    if tag.tag in _DUMPS:
        steps, _ = _steps(events, begin)
    else:
        shown = positions[begin] or BoardPosition.empty()
        pieces = tuple((i, c) for i, c in enumerate(shown.codes) if c)
        steps = [LogStep(pieces, reset=True), *_steps(events, begin + 1)[0]]
    return LogRecovered(t, board, last_known, tuple(steps), -1, "known", placed=False)


def _last_anchor(
    events: Sequence[EepromEvent],
    positions: Sequence[BoardPosition | None],
    before: int,
    *,
    setup_only: bool,
) -> int | None:
    """The last tag before `before` that gives an absolute position to start from. A
    setup is the start position either way round (a BEGINPOS tag, or a dump that shows
    it: not every firmware tags it), or FOURROWS (every piece out on the outer rows, e.g.
    a Chess960 start) where an earlier anchor tells which pieces."""
    for i in range(min(before, len(events)) - 1, -1, -1):
        e = events[i]
        if not isinstance(e, TagEvent):
            continue
        if e.tag in _SETUP or (not setup_only and e.tag is Tag.EMPTYBOARD):
            return i
        if e.tag is Tag.FOURROWS and positions[i] is not None:
            return i
        if e.tag in _DUMPS:
            end = _dump_end(events, i)
            if end is not None and (not setup_only or positions[end] in _SETUPS):
                return i
    return None


def _from(
    events: Sequence[EepromEvent],
    positions: Sequence[BoardPosition | None],
    begin: int,
    after: int,
    t: float,
    board: str,
) -> LogRecovered:
    tag = events[begin]
    assert isinstance(tag, TagEvent)
    end = _dump_end(events, begin) if tag.tag in _DUMPS else None
    if end is not None:
        # The position the dump shows is where the log starts (an empty board filled).
        start = positions[end] or BoardPosition.empty()
        steps, ends = _steps(events, end + 1)
        setup = start in _SETUPS
    else:
        start = positions[begin] or BoardPosition.empty()
        steps, ends = _steps(events, begin + 1)
        setup = tag.tag in _SETUP or tag.tag is Tag.FOURROWS
    seen = sum(1 for last in ends if last < after) - 1
    anchor: Literal["setup", "absolute"] = "setup" if setup else "absolute"
    return LogRecovered(t, board, start, tuple(steps), seen, anchor)


def continued(got: LogRecovered, later: Sequence[Change | ClockReading]) -> LogRecovered:
    """The log continued with what the board sent while it was downloading (its output
    waits behind the download): each square change a step, each clock reading whose
    running side changed the press of the side that stopped, with the time it shows.
    So the moves made meanwhile are explained press by press like the rest of the log,
    instead of arriving all at once with the same time stamp."""
    steps = list(got.steps)
    pressed = [side for step in steps for side, _ in step.presses]
    runner: Side | None = other_side(pressed[-1]) if pressed else None
    for item in later:
        if not isinstance(item, ClockReading):
            steps.append(LogStep((item,)))
            continue
        side = item.running_side
        if side is None:
            continue  # paused: nobody pressed
        if runner is not None and side != runner:
            press = (runner, item.seconds(runner))
            if steps:
                last = steps[-1]
                steps[-1] = LogStep(last.changes, (*last.presses, press), last.reset)
            else:
                steps.append(LogStep((), (press,)))
        runner = side
    return replace(got, steps=tuple(steps))


def unlogged_since_reboot(got: LogRecovered) -> bool:
    """True when the board rebooted after what the host saw (a dump among the unseen
    steps) and logged no lever press since: a move completed while it had no power is
    then timed only by the clock's display, and a clock reading taken before the log
    cannot be older than a logged press (so `continued` may take it)."""
    unseen = got.steps[got.seen + 1 :]
    resets = [k for k, step in enumerate(unseen) if step.reset]
    if not resets:
        return False
    return not any(step.presses for step in unseen[resets[-1] :])


def with_reading_after_reboot(got: LogRecovered, reading: ClockReading) -> LogRecovered:
    """`got` with the press that `reading` shows at the board's last reboot: `reading` is
    the first clock display after the board came back (it answered, so its power-up dump
    was written), taken before anything else was pressed. A running side other than the
    one the presses before the reboot leave running is a press made while the board had
    no power, the one move no log holds; its time goes with the reboot's dump. Nothing
    changes when no reboot is among the unseen steps, or the dump has presses already."""
    resets = [k for k in range(got.seen + 1, len(got.steps)) if got.steps[k].reset]
    side = reading.running_side
    if not resets or side is None:
        return got
    at = resets[-1]
    if got.steps[at].presses:
        return got
    pressed = [p for step in got.steps[:at] for p, _ in step.presses]
    if not pressed:
        return got
    runner = other_side(pressed[-1])
    if side == runner:
        return got  # nobody pressed in the dark
    steps = list(got.steps)
    dump = steps[at]
    steps[at] = LogStep(dump.changes, ((runner, reading.seconds(runner)),), dump.reset)
    return replace(got, steps=tuple(steps))


def changes_between(before: BoardPosition, after: BoardPosition) -> list[Change]:
    """The square changes (index, new code) that turn `before` into `after`: only for a
    board dump, which says nothing of the order in which they were made."""
    return [
        (i, b) for i, (a, b) in enumerate(zip(before.codes, after.codes, strict=True)) if a != b
    ]
