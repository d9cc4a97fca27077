"""A mirror's judgement of each stream entry: take it, start over from it, skip it, or ask
for a newer snapshot. Pure: the feed (`mirror_feed`) does the reading and the telling.

The entries come from Redis, which anyone with write access can add to, so nothing an
entry says of itself is believed without a check against where the mirror is:

- an entry that cannot be read (damaged, wrong types, too big, another format) is
  skipped; the mirror keeps its state and reads on (it never goes back to the snapshot
  before it, which would meet the same entry again);
- a delta is applied only if it is the next of the mirror's venue run (`seq` one more);
  one at or below the mirror's `seq` is old (skipped quietly), unless it is numbered like
  the last one applied and says something else (two entries claim one number: one is not
  the venue's, so a newer snapshot is wanted);
- a delta of another venue run, a gap in the numbers, or a delta whose game is not as the
  mirror has it does not move the mirror either: a newer snapshot is wanted, and the feed
  loads one only if there is one newer than its state (no loop of reloads);
- a snapshot entry that would turn the mirror's state back (same run, lower `seq`) is
  skipped; any other starts the mirror over.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from broadcast.config.model import EventConfig
from broadcast.publish.stream_format import (
    Entry,
    Header,
    Rejected,
    decode_entry,
    decode_snapshot,
    read_header,
)
from broadcast.service.event_state import PublicState

__all__ = ["Outcome", "Position", "Reset", "Resync", "Skip", "Take", "judge", "place", "settle"]


@dataclass(frozen=True, slots=True)
class Position:
    """Where a mirror is: the venue run and number of its state, and the text of the delta
    that made it ("" after a snapshot)."""

    config: EventConfig
    epoch: str
    seq: int
    state: PublicState
    text: str = ""


@dataclass(frozen=True, slots=True)
class Take:
    """The next delta: the state after it."""

    entry: Entry


@dataclass(frozen=True, slots=True)
class Reset:
    """A snapshot entry to start over from."""

    entry: Entry


@dataclass(frozen=True, slots=True)
class Skip:
    """Not taken; the mirror keeps its state. `quiet`: an old entry, nothing wrong."""

    reason: str
    why: str = "unreadable"
    quiet: bool = False


@dataclass(frozen=True, slots=True)
class Resync:
    """Not taken, and the mirror cannot go on from its state: a newer snapshot is wanted."""

    reason: str


Outcome = Take | Reset | Skip | Resync


def _field_text(fields: Mapping[Any, Any], name: str) -> str | None:
    value = fields.get(name.encode(), fields.get(name))
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return value if isinstance(value, str) else None


def judge(fields: Any, header: Header | Rejected, at: Position) -> Skip | Resync | None:
    """What to do with an entry before decoding it (None: decode it, then `settle`)."""
    if isinstance(header, Rejected):
        return Skip(header.reason, header.why)
    if header.kind == "snapshot":
        if header.epoch == at.epoch and header.seq < at.seq:
            return Skip(
                f"a snapshot older than this mirror's state ({header.seq} < {at.seq}): taking "
                "it would turn the pages back"
            )
        return None
    if header.epoch != at.epoch:
        return Resync(f"a delta of another venue run ({header.epoch[:20]!r}) without its snapshot")
    if header.seq <= at.seq:
        if header.seq == at.seq and at.text and _field_text(fields, "text") != at.text:
            return Resync(
                f"two different entries are numbered {header.seq}: one is not the venue's"
            )
        return Skip(f"already applied ({header.seq} <= {at.seq})", "old", quiet=True)
    if header.seq > at.seq + 1:
        return Resync(f"the entries after {at.seq} up to {header.seq - 1} are missing")
    return None


def settle(decoded: Entry | Rejected, at: Position) -> Outcome:
    """What to do with a decoded entry that `judge` let through."""
    if isinstance(decoded, Rejected):
        if decoded.why == "mismatch":
            return Resync(decoded.reason)
        return Skip(decoded.reason, decoded.why)
    if decoded.kind == "snapshot":
        return Reset(decoded)
    return Take(decoded)


def place(fields: Any, at: Position) -> Outcome:
    """`judge`, the decoding, and `settle` in one (the feed decodes snapshots off its loop)."""
    header = read_header(fields)
    verdict = judge(fields, header, at)
    if verdict is not None:
        return verdict
    assert isinstance(header, Header)
    if header.kind == "snapshot":
        return settle(decode_snapshot(fields), at)
    return settle(decode_entry(fields, at.config, at.state), at)
