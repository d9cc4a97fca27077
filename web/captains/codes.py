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

from web.checkin.codes import JournalKeyed, Verdict, keyed_code, normalized, same_code

__all__ = ["KEY_META", "CaptainCodes", "derive_captain_code"]

KEY_META = "captain-key"  # the journal's meta row that holds the key (hex)


def derive_captain_code(key: bytes, section: str, team: int) -> str:
    """The captain code of team `team` of `section`. Pure."""
    return keyed_code(key, "boardwire captain", section, team)


class CaptainCodes(JournalKeyed):
    """The event's captain codes: the key read from (or made once in) the journal."""

    key_meta = KEY_META

    def code(self, section: str, team: int) -> str:
        """The captain code of team `team` of `section`."""
        return derive_captain_code(self.key(), section, team)

    def verdict(self, section: str, team: int, typed: str) -> Verdict:
        """What `typed` (case, spaces and dashes aside) is for that team: `ok`, `empty` or
        `wrong` (compared in constant time)."""
        code = normalized(typed)
        if not code:
            return Verdict("empty")
        return Verdict("ok" if same_code(code, self.code(section, team)) else "wrong")

    def check(self, section: str, team: int, typed: str) -> bool:
        """Whether `typed` is that team's code."""
        return self.verdict(section, team, typed).ok
