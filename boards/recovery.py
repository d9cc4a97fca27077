"""Recovering what was played while a board was not listening, from its EEPROM event log.

A board logs every square change (and every clock lever press) whether or not a host
listens. While connected, the driver keeps the last changes it saw live; after a
reconnect it finds that run of changes in the freshly read log, and everything after
it is what it missed. Pure code: events in, timed positions out.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from boards.dgt.eeprom import ClockTime, EepromEvent, PieceChange, Tag, TagEvent
from boards.events import ClockStamped, PositionSeen
from boards.position import BoardPosition

RECENT_CHANGES = 48  # long enough to be unique in a log, short enough to survive a wrap
_FAST_GAP = 0.1  # seconds between changes the board flagged as under 250 ms apart
_MIN_GAP = 0.3


class RecentChanges:
    """The last square changes seen live, in order, to find our place in the log later."""

    def __init__(self, size: int = RECENT_CHANGES) -> None:
        self._changes: deque[tuple[int, int]] = deque(maxlen=size)

    def add(self, index: int, code: int) -> None:
        self._changes.append((index, code))

    def clear(self) -> None:
        self._changes.clear()

    def as_tuple(self) -> tuple[tuple[int, int], ...]:
        return tuple(self._changes)


def _find_after(events: list[EepromEvent], recent: tuple[tuple[int, int], ...]) -> int | None:
    """Index into `events` just after the last place where the longest possible suffix of
    `recent` appears as consecutive piece changes."""
    changes = [(i, e) for i, e in enumerate(events) if isinstance(e, PieceChange)]
    keys = [(e.index, e.code) for _, e in changes]
    for length in range(len(recent), 0, -1):
        if length < min(len(recent), 4):
            break  # too short a run to be sure where we were
        suffix = list(recent[-length:])
        for start in range(len(keys) - length, -1, -1):
            if keys[start : start + length] == suffix:
                return changes[start + length - 1][0] + 1
    return None


def _find_by_position(events: list[EepromEvent], last_known: BoardPosition) -> int | None:
    """Without live changes to match, replay from the last anchor tag (start position,
    empty board) and take the last point where the board showed `last_known`."""
    anchor = None
    for i in range(len(events) - 1, -1, -1):
        e = events[i]
        if isinstance(e, TagEvent) and e.tag in (
            Tag.BEGINPOS,
            Tag.BEGINPOS_ROT,
            Tag.EMPTYBOARD,
            Tag.START_TAG,
        ):
            anchor = i
            break
    if anchor is None:
        return None
    tag = events[anchor]
    assert isinstance(tag, TagEvent)
    if tag.tag in (Tag.BEGINPOS, Tag.BEGINPOS_ROT):
        pos = BoardPosition.from_fen(
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR",
            "rotated" if tag.tag is Tag.BEGINPOS_ROT else "normal",
        )
    else:
        pos = BoardPosition.empty()
    found = anchor + 1 if pos == last_known else None
    for i in range(anchor + 1, len(events)):
        e = events[i]
        if isinstance(e, PieceChange):
            pos = pos.with_piece(e.index, e.code)
            if pos == last_known:
                found = i + 1
    return found


def missed_events(
    events: list[EepromEvent],
    recent: tuple[tuple[int, int], ...],
    last_known: BoardPosition,
) -> list[EepromEvent] | None:
    """The log events that came after what the host saw; None when our place is not found."""
    start = _find_after(events, recent) if recent else None
    if start is None:
        start = _find_by_position(events, last_known)
    if start is None:
        return None
    return events[start:]


def replay(
    missed: list[EepromEvent],
    last_known: BoardPosition,
    t_lost: float,
    t_back: float,
    board: str,
) -> list[PositionSeen | ClockStamped]:
    """Positions and clock stamps of `board` after `last_known`, as driver events marked
    recovered, with estimated times in (t_lost, t_back).

    Changes the board flagged as fast stay close together, so that a piece dragged across
    squares still looks like one movement to reconstruction; the rest of the outage is
    spread over the other gaps.
    """
    items = [e for e in missed if isinstance(e, PieceChange | ClockTime)]
    if not items:
        return []
    fast_count = sum(1 for e in items if isinstance(e, PieceChange) and e.fast)
    slow_count = len(items) - fast_count
    window = max(t_back - t_lost, 0.0)
    slow_gap = max(_MIN_GAP, (window - fast_count * _FAST_GAP) / (slow_count + 1))
    scale = 1.0
    needed = fast_count * _FAST_GAP + (slow_count + 1) * slow_gap
    if window > 0 and needed > window:
        scale = window / needed  # squeeze into the outage; order is what matters most
    out: list[PositionSeen | ClockStamped] = []
    pos = last_known
    t = t_lost
    for e in items:
        fast = isinstance(e, PieceChange) and e.fast
        t += (_FAST_GAP if fast else slow_gap) * scale
        if isinstance(e, PieceChange):
            pos = pos.with_piece(e.index, e.code)
            out.append(PositionSeen(t, board, pos, recovered=True))
        else:
            out.append(ClockStamped(t, board, "left" if e.left else "right", e.seconds))
    return out


@dataclass(frozen=True, slots=True)
class KnownBoard:
    """What a previous run knew of a board (from the journal): its last position, the
    last square changes seen, and when it was last heard. A driver given this treats its
    first connection as a reconnect and reads the board's log for what it missed."""

    serial: str
    position: BoardPosition
    recent: tuple[tuple[int, int], ...]
    last_seen: float


def changes_between(before: BoardPosition, after: BoardPosition) -> list[tuple[int, int]]:
    """The square changes (index, new code) that turn `before` into `after`."""
    return [
        (i, b) for i, (a, b) in enumerate(zip(before.codes, after.codes, strict=True)) if a != b
    ]
