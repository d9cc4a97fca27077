"""Tie-break codes a config may name (FIDE C.07 names, with cut/median modifiers).

The config only checks spelling and fit (a Buchholz is meaningless in a round robin);
the standings code computes them.
"""

from __future__ import annotations

import difflib

# FIDE C.07 short names (2024-08 / 2026-03 editions).
BASE_CODES: dict[str, str] = {
    "DE": "direct encounter",
    "EDE": "extended direct encounter",
    "WIN": "number of wins (played or not)",
    "WON": "games won over the board",
    "BPG": "games played with Black",
    "BWG": "games won with Black",
    "GE": "games elected to play",
    "PS": "progressive (cumulative) score",
    "BH": "Buchholz",
    "FB": "fore Buchholz",
    "AOB": "average of opponents' Buchholz",
    "SB": "Sonneborn-Berger",
    "KS": "Koya",
    "ARO": "average rating of opponents",
    "TPR": "tournament performance rating",
    "PTP": "perfect tournament performance",
    "APRO": "average performance rating of opponents",
    "APPO": "average perfect performance of opponents",
    "REP": "rounds elected to play",
    "VUR": "voluntary unplayed rounds",
    "COP": "colour preference",
}
# Modifiers: cut the lowest 1-2, median (cut highest and lowest) 1-2.
MODIFIABLE = frozenset({"BH", "FB", "SB", "ARO", "AOB", "KS"})
MODIFIERS = ("C1", "C2", "M1", "M2")


def check_tiebreak(code: str, *, swiss: bool) -> tuple[str, str] | None:
    """None if `code` is usable; else (problem, hint)."""
    base, _, modifier = code.partition("-")
    if base not in BASE_CODES:
        close = difflib.get_close_matches(base, list(BASE_CODES), n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        return (
            "not a FIDE tie-break code",
            f"{hint}known: {', '.join(BASE_CODES)} (Buchholz cut 1 is BH-C1)",
        )
    if modifier and (base not in MODIFIABLE or modifier not in MODIFIERS):
        return (
            f"modifier -{modifier} does not apply to {base}",
            f"cut/median modifiers -C1 -C2 -M1 -M2 apply to {', '.join(sorted(MODIFIABLE))}",
        )
    if base == "BH" and not swiss:
        return (
            "Buchholz ranks nothing in a round robin (everyone meets the same opponents)",
            "use SB, DE, WIN or WON for round robins",
        )
    return None
