"""Game identities: stable, URL-friendly ids that name section, round and board."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

_SLUG = re.compile(r"[^a-z0-9]+")


@lru_cache(maxsize=1024)  # a game's id is asked for often, and events have few sections
def slug(name: str) -> str:
    """'Open A' -> 'open-a'; used in ids and URLs."""
    text = _SLUG.sub("-", name.lower()).strip("-")
    return text or "section"


@dataclass(frozen=True, slots=True, order=True)
class GameKey:
    """Section, round and the board number within the section's pairings."""

    section: str
    round: int
    board: int

    @property
    def id(self) -> str:
        return f"{slug(self.section)}-r{self.round}-b{self.board}"


def parse_game_id(game_id: str, sections: list[str]) -> GameKey:
    """The key for an id made by `GameKey.id`; ValueError naming what is wrong."""
    match = re.fullmatch(r"(.+)-r(\d+)-b(\d+)", game_id)
    if match is None:
        raise ValueError(f"not a game id: {game_id!r} (expected like 'open-r3-b12')")
    by_slug = {slug(s): s for s in sections}
    section = by_slug.get(match.group(1))
    if section is None:
        raise ValueError(
            f"no section {match.group(1)!r} in this event (sections: {', '.join(sections)})"
        )
    return GameKey(section, int(match.group(2)), int(match.group(3)))


__all__ = ["GameKey", "parse_game_id", "slug"]
