"""FIDE tie-breaks (C.07, editions 2024-08 and 2026-03) over a crosstable.

Use :func:`broadcast.fide.standings.compute_standings` for ranked standings; this
package holds the parser (:func:`parse_tiebreaks`) and one module per family.
"""

from broadcast.fide.tiebreaks.context import Context, make_context
from broadcast.fide.tiebreaks.spec import (
    CODES,
    DEFAULT_EDITION,
    EDITIONS,
    Edition,
    TiebreakError,
    TiebreakSpec,
    parse_edition,
    parse_tiebreak,
    parse_tiebreaks,
)

__all__ = [
    "CODES",
    "DEFAULT_EDITION",
    "EDITIONS",
    "Context",
    "Edition",
    "TiebreakError",
    "TiebreakSpec",
    "make_context",
    "parse_edition",
    "parse_tiebreak",
    "parse_tiebreaks",
]
