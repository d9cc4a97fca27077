"""Compaction: the superseded clock readings of finished games leave the journal.

A DGT clock reports every second while it runs, and the service journals each report
(`ClockSeen`) and what the game makes of it (`GameClock`): about 97 % of a round's
events. Once a game's result stands, the readings between two changes of the clock's
state (which side runs, a flag, the clock present or not) say nothing any fold still
needs: the game's moves carry their clock times, and the state keeps the last reading.
So, per game, in each stretch of readings with the same clock state, the first and the
last are kept (the press that began it, the display just before the next one) and the
ones between are deleted, together with the board's `ClockSeen` rows of the same
stretches. Every other event is kept, and so is everything after the result.

The rows go only once they are older than the newest snapshot (a restart from it never
replays them), and never a row a stored snapshot was taken at. A full replay of a
compacted journal (when no snapshot fits) ends in the same games, tournament and open
alerts; the rules may see a running clock silent for a while during it, and keep an
alert about that which is resolved at the next reading kept.

`ClockRows` is pure bookkeeping (the numbers of the rows to drop, per game), fed the
journal's clock readings, attachments and results in order; `Compactor` feeds it from
the journal itself, behind each snapshot, in the snapshot's worker thread, and deletes
what is ready: the commit path does not change for it.
"""

from __future__ import annotations

import logging
from array import array
from typing import TYPE_CHECKING

from boards.driver_events import ClockSeen
from broadcast.games.game_events import BoardAttached, BoardReplaced, GameClock, ResultConfirmed
from clocks.reading import ClockReading

if TYPE_CHECKING:
    from broadcast.journal.store import Journal

log = logging.getLogger(__name__)

KINDS = ("ClockSeen", "GameClock", "BoardAttached", "BoardReplaced", "ResultConfirmed")
# Rows deleted behind one snapshot at most (a few seconds of the worker thread), so the
# next snapshot is not held up for long: a round's end frees over a million rows at once,
# which go within about a tenth of the next round, far faster than a hall writes new ones.
PER_RUN = 100_000

Signature = tuple[object, ...]


def _signature(event: ClockSeen | GameClock) -> Signature:
    if isinstance(event, GameClock):
        return ("game", event.running, event.white_side)
    reading = event.reading
    if not isinstance(reading, ClockReading):
        return ("no clock",)
    return (
        reading.running,
        reading.right_lever_high,
        reading.left_flag,
        reading.right_flag,
        reading.left_final_flag,
        reading.right_final_flag,
        reading.battery_low,
    )


class _Stretch:
    """Readings with one clock state: the first seen and the last one so far."""

    __slots__ = ("first", "last", "signature")

    def __init__(self, seq: int, signature: Signature) -> None:
        self.first = seq
        self.last = seq
        self.signature = signature


class ClockRows:
    """Per game, the journal numbers of its superseded clock readings (see the module)."""

    def __init__(self) -> None:
        self._dropped: dict[str, array[int]] = {}
        self._stretches: dict[tuple[str, str], _Stretch] = {}  # (game, which clock) -> now
        self._ready: array[int] = array("q")
        self._finished: set[str] = set()
        self._board_game: dict[str, str] = {}  # board name -> the game it carries

    def note(self, seq: int, event: object) -> None:
        """The next journal entry (of the KINDS; any other is ignored)."""
        if isinstance(event, GameClock):
            self._reading(seq, event, event.game, "game")
        elif isinstance(event, ClockSeen):
            game = self._board_game.get(event.board)
            if game is not None:
                self._reading(seq, event, game, event.board)
        elif isinstance(event, BoardAttached):
            self._board_game[event.board] = event.game
        elif isinstance(event, BoardReplaced):
            # The board the game left is no longer its clock (the spare's BoardAttached
            # follows).
            for board in [b for b, g in self._board_game.items() if g == event.game]:
                del self._board_game[board]
        elif isinstance(event, ResultConfirmed):
            self._finish(event.game)

    def _reading(self, seq: int, event: ClockSeen | GameClock, game: str, key: str) -> None:
        if game in self._finished:
            return  # after the result: kept
        signature = _signature(event)
        stretch = self._stretches.get((game, key))
        if stretch is None or stretch.signature != signature:
            self._stretches[(game, key)] = _Stretch(seq, signature)
            return
        if stretch.last != stretch.first:
            self._dropped.setdefault(game, array("q")).append(stretch.last)
        stretch.last = seq

    def _finish(self, game: str) -> None:
        self._finished.add(game)
        for key in [k for k in self._stretches if k[0] == game]:
            del self._stretches[key]
        dropped = self._dropped.pop(game, None)
        if dropped is not None:
            self._ready.extend(dropped)

    def take_ready(self) -> array[int]:
        """The rows of finished games that can go (and forget them)."""
        ready, self._ready = self._ready, array("q")
        return ready

    def __len__(self) -> int:
        return len(self._ready) + sum(len(a) for a in self._dropped.values())


class Compactor:
    """Reads the journal behind the newest snapshot and deletes what `ClockRows` gives."""

    def __init__(self, journal: Journal, start: int = 0) -> None:
        self.journal = journal
        self.rows = ClockRows()
        self.scanned = start  # the journal is read up to this event
        self.deleted = 0
        self._waiting: list[int] = []  # ready rows left for the next run

    def run(self, upto: int, keep: set[int]) -> int:
        """Read the events up to `upto` (a snapshot's), delete the ready rows (never one
        in `keep`: where stored snapshots were taken); how many went."""
        for seq, event in self.journal.read_kinds(self.scanned, upto, KINDS):
            self.rows.note(seq, event)
        self.scanned = max(self.scanned, upto)
        self._waiting += (s for s in self.rows.take_ready() if s < upto)
        ready = [s for s in self._waiting[:PER_RUN] if s not in keep]
        del self._waiting[:PER_RUN]
        if not ready:
            return 0
        gone = self.journal.delete_rows(sorted(ready))
        self.deleted += gone
        log.debug("journal %s: %d superseded clock readings deleted", self.journal.path, gone)
        return gone


__all__ = ["KINDS", "PER_RUN", "ClockRows", "Compactor", "Signature"]
