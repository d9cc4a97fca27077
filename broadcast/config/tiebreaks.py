"""Checking the tie-break codes a config names, with the standings engine's own parser, so
that a config only validates when its standings can really be computed."""

from __future__ import annotations

from broadcast.fide.tiebreaks.spec import TiebreakError, parse_tiebreak

__all__ = ["check_tiebreak"]


def check_tiebreak(code: str, *, swiss: bool) -> tuple[str, str] | None:
    """None if `code` is usable; else (problem, hint)."""
    try:
        spec = parse_tiebreak(code)
    except TiebreakError as exc:
        return str(exc), "Buchholz cut 1 is written BH-C1; see docs/tiebreaks.md for every code"
    if spec.code == "BH" and not swiss:
        return (
            "Buchholz ranks nothing in a round robin (everyone meets the same opponents)",
            "use SB, DE, WIN or WON for round robins",
        )
    return None
