"""The per-round codes printed on the pairing sheet: who knows one stands in the hall.

A code is six characters from an alphabet without 0/O and 1/I (and so easy to read off a
sheet and type on a phone), derived as an HMAC of the section, the round and the round's
generation (the journal number of its latest renewal in force: `RenewRoundCode`) under a
key kept with the journal (its `meta` table, made once, never shown). So a restart gives
the same codes, each round has its own, and a renewal (undoable) replaces one. Nothing
about a code is journaled but the renewals: the key never leaves the journal's file.

`check` says whether a typed code opens a section's round; a code of an earlier round (or
a renewed one) is refused with a reason the player can act on.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from typing import ClassVar, Literal

from broadcast.actions.table import code_generation
from broadcast.journal.store import Journal
from broadcast.service.action_log import ActionLog

__all__ = [
    "ALPHABET",
    "KEY_META",
    "LENGTH",
    "JournalKeyed",
    "RoundCodes",
    "Verdict",
    "derive_code",
    "keyed_code",
    "normalized",
    "same_code",
]

ALPHABET = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ"  # 32 symbols: no 0, O, 1, I
LENGTH = 6  # 32**6 ~ 1.07e9 codes; guesses are rate-limited (web.checkin.limits)
KEY_META = "checkin-key"  # the journal's meta row that holds the key (hex)


def keyed_code(key: bytes, *parts: object) -> str:
    """A code of `LENGTH` symbols of `ALPHABET`: an HMAC-SHA256 of `parts` (joined by NUL)
    under `key`, so that no code says anything of another's. Pure."""
    message = "\x00".join(str(p) for p in parts).encode()
    digest = hmac.new(key, message, hashlib.sha256).digest()
    number = int.from_bytes(digest[:8], "big")
    out = []
    for _ in range(LENGTH):
        number, index = divmod(number, len(ALPHABET))
        out.append(ALPHABET[index])
    return "".join(out)


def derive_code(key: bytes, section: str, round_number: int, generation: int = 0) -> str:
    """The code of `section`'s round `round_number` at `generation`. Pure."""
    return keyed_code(key, "boardwire check-in", section, round_number, generation)


def same_code(typed: str, code: str) -> bool:
    """Whether a normalized typed code is `code`, compared in constant time."""
    return hmac.compare_digest(typed.encode(), code.encode())


def normalized(typed: str) -> str:
    """A code as typed, as the sheet prints it: case, spaces and dashes aside (bounded:
    anything longer than a code is no code)."""
    text = typed[: LENGTH * 4].upper()
    return "".join(c for c in text if c not in " -\t\r\n")[: LENGTH + 1]


Outcome = Literal["ok", "empty", "old", "wrong"]


@dataclass(frozen=True, slots=True)
class Verdict:
    """What a typed code is: `ok`, `empty`, `old` (another round's: `round` says which),
    or `wrong`."""

    outcome: Outcome
    round: int = 0

    @property
    def ok(self) -> bool:
        return self.outcome == "ok"


class JournalKeyed:
    """Codes under a key of their own kept with the journal (its `meta` row `key_meta`,
    made once, never shown): a restart gives the same codes."""

    key_meta: ClassVar[str]

    def __init__(self, journal: Journal) -> None:
        self.journal = journal
        self._key: bytes | None = None

    def key(self) -> bytes:
        """The key; made and stored with the journal the first time (JournalError when the
        journal cannot take it: no code can be given then)."""
        if self._key is None:
            stored = self.journal.meta(self.key_meta)
            if not stored:
                stored = secrets.token_hex(32)
                self.journal.set_meta(self.key_meta, stored)
                stored = self.journal.meta(self.key_meta) or stored
            self._key = bytes.fromhex(stored)
        return self._key


class RoundCodes(JournalKeyed):
    """The event's codes: the key read from (or made once in) the journal, and each
    round's code at its current generation (cached until the next action)."""

    key_meta = KEY_META

    def __init__(self, journal: Journal, log: ActionLog) -> None:
        super().__init__(journal)
        self.log = log
        self._cache: dict[tuple[str, int], tuple[int, str]] = {}

    def code(self, section: str, round_number: int) -> str:
        """The code of `section`'s round `round_number` as it stands now."""
        actions = len(self.log)
        cached = self._cache.get((section, round_number))
        if cached is not None and cached[0] == actions:
            return cached[1]
        generation = code_generation(self.log, section, round_number)
        code = derive_code(self.key(), section, round_number, generation)
        if len(self._cache) > 4096:
            self._cache.clear()
        self._cache[(section, round_number)] = (actions, code)
        return code

    def check(self, section: str, round_number: int, typed: str) -> Verdict:
        """Whether `typed` is the code of `section`'s round `round_number` (compared in
        constant time); a code of an earlier round says which."""
        code = normalized(typed)
        if not code:
            return Verdict("empty")
        if same_code(code, self.code(section, round_number)):
            return Verdict("ok")
        for earlier in range(round_number - 1, 0, -1):
            if same_code(code, self.code(section, earlier)):
                return Verdict("old", earlier)
        return Verdict("wrong")
