"""The captain codes: one per team of a team section, for the whole event.

A captain sends a lineup before every round, often before the round is paired and long
before the pairing sheet that carries the players' round codes (`web.checkin.codes`) is
printed; so a captain's code is the team's for the event, handed out once (at the
captains' meeting, from the desk's lineup page), not one a round. What it opens is
narrow: that team's lineup for the rounds not yet paired, which the arbiter sees and can
replace or undo at the desk.

A code is six characters of the check-in alphabet (no 0/O, 1/I), an HMAC of the section
and the team's number under a key of its own kept with the journal (its `meta` table,
made once, never shown): a restart gives the same codes, and no code says anything of
another team's. Wrong codes are limited as the table pages' are (`web.checkin.limits`).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

from broadcast.journal.store import Journal
from web.checkin.codes import ALPHABET, LENGTH, normalized

__all__ = ["KEY_META", "CaptainCodes", "derive_captain_code"]

KEY_META = "captain-key"  # the journal's meta row that holds the key (hex)


def derive_captain_code(key: bytes, section: str, team: int) -> str:
    """The captain code of team `team` of `section`. Pure."""
    message = f"boardwire captain\x00{section}\x00{team}".encode()
    digest = hmac.new(key, message, hashlib.sha256).digest()
    number = int.from_bytes(digest[:8], "big")
    out = []
    for _ in range(LENGTH):
        number, index = divmod(number, len(ALPHABET))
        out.append(ALPHABET[index])
    return "".join(out)


class CaptainCodes:
    """The event's captain codes: the key read from (or made once in) the journal."""

    def __init__(self, journal: Journal) -> None:
        self.journal = journal
        self._key: bytes | None = None

    def key(self) -> bytes:
        """The key; made and stored with the journal the first time (JournalError when the
        journal cannot take it: no code can be given then)."""
        if self._key is None:
            stored = self.journal.meta(KEY_META)
            if not stored:
                stored = secrets.token_hex(32)
                self.journal.set_meta(KEY_META, stored)
                stored = self.journal.meta(KEY_META) or stored
            self._key = bytes.fromhex(stored)
        return self._key

    def code(self, section: str, team: int) -> str:
        """The captain code of team `team` of `section`."""
        return derive_captain_code(self.key(), section, team)

    def check(self, section: str, team: int, typed: str) -> bool:
        """Whether `typed` (case, spaces and dashes aside) is that team's code, compared in
        constant time."""
        code = normalized(typed)
        return bool(code) and hmac.compare_digest(code.encode(), self.code(section, team).encode())
