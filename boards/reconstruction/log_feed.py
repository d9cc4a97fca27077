"""The board's EEPROM log, read back after an outage or at a first start mid-round:
the log aligned with the game, then explained press by press (`read_log`); positions
replayed from the log one by one explained together as one chain (`flush_recovered`).
The unpressed walk itself is `log_explain`.
"""

from __future__ import annotations

from collections.abc import Sequence

from boards.position import BoardPosition, Orientation
from boards.reconstruction.classify import chain_to
from boards.reconstruction.decide import run
from boards.reconstruction.keys import Key, codes_key
from boards.reconstruction.log_explain import explain_log, presser_part
from boards.reconstruction.press import move_then_lifted
from boards.reconstruction.reconstruction_events import MoveClocked, ReconstructionEvent
from boards.reconstruction.reconstruction_state import Candidate, Match, State
from boards.reconstruction.record import adopt, announce, back_in_sync, play
from boards.reconstruction.search import (
    Line,
    Sighting,
    explain_chain,
    find_lines,
    line_keys,
    ordered_fit,
)
from clocks.move_times import MoveTime
from clocks.reading import Side

__all__ = [
    "flush_recovered",
    "read_log",
]


def read_log(
    s: State,
    t: float,
    positions: Sequence[tuple[BoardPosition, Sequence[tuple[Side, int]]]],
    seen: int,
    events: list[ReconstructionEvent],
) -> None:
    """The log aligned with the game and explained press by press (see
    `Reconstructor.feed_log`); what follows is left to the log's last position, fed
    as live input by the caller."""
    aligned = _align_log(s, positions, min(seen, len(positions) - 1))
    if aligned is None and not any(presses for _, presses in positions):
        aligned = _align_unpressed(s, positions, min(seen, len(positions) - 1))
        if aligned is not None:
            first, orientation = aligned
            if s.orientation is None:
                s.orientation = orientation
            keys = [codes_key(p.codes, orientation) for p, _ in positions]
            _explain_unpressed(s, t, keys[first + 1 :], events)
        return
    if aligned is None:
        return
    first, orientation = aligned
    adopt(s, Match("same", orientation=orientation))
    s.cand = None  # what the board showed before the log is superseded by it
    announce(s, t, events)
    keys = [codes_key(p.codes, orientation) for p, _ in positions]
    clocked = any(presses for _, presses in positions[first + 1 :])
    _log_press_at_node(s, t, positions[first][1], events)
    if not clocked:
        _explain_unpressed(s, t, keys[first + 1 :], events)
        return
    pending: list[Key] = []
    carried: list[tuple[Side, int]] = []
    for i in range(first + 1, len(positions)):
        key, presses = keys[i], positions[i][1]
        last = i == len(positions) - 1
        if key == s.keys[-1]:
            pending = []  # back at the node: a piece lifted and put back
            _log_press_at_node(s, t, presses, events)
            continue
        if not presses and not (last and not clocked):
            pending.append(key)
            continue
        line = _log_line(s, key, pending, [*carried, *presses])
        if line is None:
            pending.append(key)
            carried += presses
            continue
        whole = line
        for side, _ in [*carried, *presses][-1:]:
            line = presser_part(s.board, line, s.clock.colour_of(side) == "white")
        for side, seconds in [*carried, *presses]:
            white = s.clock.colour_of(side) == "white"
            s.stamps[white].append((t, MoveTime(float(seconds), None)))
        s.left_root = True
        back_in_sync(s, t, events)
        play(s, t, line, "press" if presses else "resync", events)
        pending, carried = ([key] if line != whole else []), []
    for key in pending[:-1]:
        s.sight(key, t)  # the way to the last position, for a chain resync
    pressed = [p for _, presses in positions for p in presses]
    if pressed:
        # The next reading that shows the last presser's clock running is a press made
        # after the log was read (while it was downloading, say).
        s.clock.pressed_in_log(pressed[-1][0])


def _explain_unpressed(
    s: State, t: float, keys: Sequence[Key], events: list[ReconstructionEvent]
) -> None:
    """A log with no presses after the game's position: its positions, in order, are
    the evidence (`explain_log`); what the walk cannot explain is left to live input."""
    line, _ = explain_log(s.board, keys, s.config.live_depth)
    if line:
        s.left_root = True
        back_in_sync(s, t, events)
        play(s, t, line, "resync", events)


def _align_unpressed(
    s: State, positions: Sequence[tuple[BoardPosition, Sequence[tuple[Side, int]]]], upto: int
) -> tuple[int, Orientation] | None:
    """A log without presses that never shows the game's position (the log missed it, a
    burst of moves): the last position at or before `upto` that shows an earlier
    position of the game; the walk from the game's position skips what lies behind."""
    earlier = set(s.keys[:-1])
    tries: list[Orientation] = [s.orientation] if s.orientation else ["normal", "rotated"]
    for orientation in tries:
        for i in range(upto, -1, -1):
            if codes_key(positions[i][0].codes, orientation) in earlier:
                return i, orientation
    return None


def _align_log(
    s: State, positions: Sequence[tuple[BoardPosition, Sequence[tuple[Side, int]]]], upto: int
) -> tuple[int, Orientation] | None:
    node = s.keys[-1]
    tries: list[Orientation] = [s.orientation] if s.orientation else ["normal", "rotated"]
    for orientation in tries:
        for i in range(upto, -1, -1):
            if codes_key(positions[i][0].codes, orientation) == node:
                return i, orientation
    return None


def _log_press_at_node(
    s: State, t: float, presses: Sequence[tuple[Side, int]], events: list[ReconstructionEvent]
) -> None:
    """Presses logged while the board showed the game's current position belong to its
    last move when the presser made it; once counted, never again."""
    for side, seconds in presses:
        white = s.clock.colour_of(side) == "white"
        if s.plies and s.plies[-1].white == white and s.plies[-1].clock is None:
            ply = s.plies[-1]
            ply.clock = MoveTime(float(seconds), None)
            ply.by_press = True
            events.append(MoveClocked(t, len(s.plies), ply.clock))


def _log_line(
    s: State, key: Key, pending: Sequence[Key], presses: Sequence[tuple[Side, int]]
) -> Line | None:
    """The moves from the game's position to `key`, a position the log proves settled:
    the shortest, in the order that fits the positions seen on the way; else a chain
    through them; else (a press with the opponent's hand already on a piece) the
    presser's one move with one piece lifted."""
    board = s.board
    lines = find_lines(board, key, s.config.live_depth, limit=8)
    if lines:
        return max(lines, key=lambda ln: ordered_fit(line_keys(board, ln), list(pending)))
    sightings = [Sighting(k, skippable=True) for k in pending] + [Sighting(key)]
    line = explain_chain(board, sightings, s.config.live_depth)
    if line:
        return line
    for side, _ in presses[-1:]:
        lifted = move_then_lifted(board, key, s.clock.colour_of(side) == "white")
        if lifted is not None:
            return (lifted,)
    return None


def flush_recovered(s: State, t: float, events: list[ReconstructionEvent]) -> None:
    """Positions replayed from the EEPROM log after an outage: the log holds every
    change, so the whole stretch is explained at once as a chain of legal moves. If it
    cannot be, the last position is treated like any other (and may go out of sync)."""
    if not s.recovered:
        return
    items, s.recovered = s.recovered, []
    run(s, items[0][0], events)
    orientation = s.orientation or "normal"
    last_codes: tuple[int, ...] | None = None
    for at, codes in items:
        key = codes_key(codes, orientation)
        if s.trail and s.trail[-1].key == key:
            continue
        s.seen_at.setdefault(key, at)
        s.sight(key, at, recovered=True)
        if len(s.observed) < 64:
            s.observed.append(key)
        last_codes = codes
    if last_codes is None:
        return
    last_t = s.trail[-1].since
    cand = Candidate(last_codes, last_t, s.trail[-1].key)
    s.cand = cand
    s.recent.append(cand)
    if len(s.recent) > 8:
        del s.recent[0]
    if not s.announced or s.signalled is not None:
        return
    chained = chain_to(s, cand.key)
    if chained is not None:
        moves, found_in = chained
        adopt(s, Match("forward", moves, orientation=found_in))
        back_in_sync(s, max(t, last_t), events)
        play(s, max(t, last_t), moves, "resync", events)
