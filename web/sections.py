"""Sections as a request, a form or a message names them: by name or by slug. Pure.

The one lookup under the public routes (`?section=`, `/sections/{section}/`), the desk's
forms, the arbiter API and the hub's round scope.
"""

from __future__ import annotations

from broadcast.config.model import EventConfig, SectionConfig
from broadcast.games.ids import slug

__all__ = ["section_by_name"]


def section_by_name(config: EventConfig, wanted: str | None) -> SectionConfig | None:
    """The section named `wanted` (its name or its slug); the first one when None or ""
    (an event with one section needs no name); None when no section has that name."""
    if not wanted:
        return config.sections[0]
    for s in config.sections:
        if wanted in (s.name, slug(s.name)):
            return s
    return None
