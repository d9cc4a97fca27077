"""Tie-break lists: parse "BH-C1,SB,PS,DE,APRO" into specs, with actionable errors."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from clocks.errors import BoardwireError

Edition = Literal[2024, 2026]
EDITIONS: tuple[Edition, ...] = (2024, 2026)
DEFAULT_EDITION: Edition = 2024


class TiebreakError(BoardwireError, ValueError):
    """A tie-break list or option that cannot be used (unknown code, bad modifier...)."""


# code -> (description, allowed modifier letters)
CODES: dict[str, tuple[str, str]] = {
    "DE": ("direct encounter", ""),
    "WIN": ("number of wins (played or not)", ""),
    "WON": ("number of games won over the board", ""),
    "BPG": ("number of games played with Black", ""),
    "BWG": ("number of games won with Black", ""),
    "PS": ("progressive score", "C"),
    "BH": ("Buchholz", "CM"),
    "SB": ("Sonneborn-Berger", "CM"),
    "ARO": ("average rating of opponents", "CM"),
    "TPR": ("tournament performance rating", ""),
    "APRO": ("average performance rating of opponents", ""),
    "KS": ("Koya system", "L"),
}
ALIASES = {"CUMULATIVE": "PS", "KOYA": "KS", "BUCHHOLZ": "BH", "SONNEBORN-BERGER": "SB"}

_MODIFIER = re.compile(r"^([A-Z])(\d+)$")


@dataclass(frozen=True)
class TiebreakSpec:
    """One tie-break: its code and modifiers (cut lowest ``cut_low``, highest ``cut_high``).

    ``koya_limit`` is the Koya percentage (default 50). ``label`` is the canonical text,
    e.g. ``BH-C1`` or ``BH-M1``; it is the key of the value in standings.
    """

    code: str
    cut_low: int = 0
    cut_high: int = 0
    koya_limit: int = 50

    @property
    def label(self) -> str:
        """Canonical text: BH, BH-C1, BH-M2, KS-L60."""
        if self.cut_low and self.cut_low == self.cut_high:
            return f"{self.code}-M{self.cut_low}"
        parts = [self.code]
        if self.cut_low:
            parts.append(f"C{self.cut_low}")
        if self.cut_high:
            parts.append(f"H{self.cut_high}")
        if self.code == "KS" and self.koya_limit != 50:
            parts.append(f"L{self.koya_limit}")
        return "-".join(parts)


def _known() -> str:
    return ", ".join(CODES)


def parse_tiebreak(text: str) -> TiebreakSpec:
    """One tie-break like ``BH-C1``, ``BH/M1``, ``SB``, ``KS-L60``."""
    raw = text.strip()
    if not raw:
        raise TiebreakError("empty tie-break code")
    upper = raw.upper()
    if upper in ALIASES:
        return TiebreakSpec(ALIASES[upper])
    parts = [p for p in re.split(r"[-/]", upper) if p]
    code, mods = parts[0], parts[1:]
    if code not in CODES:
        hint = ""
        close = [c for c in CODES if c.startswith(code[:2])]
        if close:
            hint = f" (did you mean {' or '.join(close)}?)"
        raise TiebreakError(f"unknown tie-break code {raw!r}{hint}; known codes: {_known()}")
    allowed = CODES[code][1]
    cut_low = cut_high = 0
    koya = 50
    for mod in mods:
        match = _MODIFIER.match(mod)
        letter = match.group(1) if match else ""
        if not match or letter not in allowed:
            if allowed:
                forms = {
                    "C": "C<n> (cut the n lowest)",
                    "M": "M<n> (median: cut n lowest and n highest)",
                    "L": "L<percent> (Koya limit)",
                }
                usable = ", ".join(forms[a] for a in allowed)
                raise TiebreakError(
                    f"modifier {mod!r} in {raw!r} is not valid for {code}; use {usable}"
                )
            raise TiebreakError(f"{code} takes no modifiers, got {raw!r}")
        number = int(match.group(2))
        if letter == "C":
            cut_low = number
        elif letter == "M":
            cut_low = cut_high = number
        else:
            if not 0 < number <= 100:
                raise TiebreakError(f"Koya limit in {raw!r} must be a percentage 1..100")
            koya = number
    return TiebreakSpec(code, cut_low, cut_high, koya)


def parse_tiebreaks(text: str | list[str] | tuple[str, ...]) -> list[TiebreakSpec]:
    """A list like ``"BH-C1,SB,PS,DE,APRO"`` (commas or blanks); a leading PTS is skipped."""
    items = [t for t in re.split(r"[,\s;]+", text) if t] if isinstance(text, str) else list(text)
    specs: list[TiebreakSpec] = []
    for i, item in enumerate(items):
        if i == 0 and item.strip().upper() in {"PTS", "POINTS"}:
            continue
        try:
            spec = parse_tiebreak(item)
        except TiebreakError as exc:
            raise TiebreakError(f"tie-break {i + 1} of {','.join(items)!r}: {exc}") from None
        if any(s.label == spec.label for s in specs):
            raise TiebreakError(f"tie-break {spec.label} appears twice in {','.join(items)!r}")
        specs.append(spec)
    return specs


def parse_edition(value: str | int) -> Edition:
    """2024 or 2026 (also accepts "2024-08", "2026-03", "baku 2023" meaning 2024)."""
    text = str(value).strip().lower()
    if text.startswith("2024") or "2023" in text:
        return 2024
    if text.startswith("2026"):
        return 2026
    raise TiebreakError(f"unknown tie-break edition {value!r}; use 2024 or 2026")


__all__ = [
    "ALIASES",
    "CODES",
    "DEFAULT_EDITION",
    "EDITIONS",
    "Edition",
    "TiebreakError",
    "TiebreakSpec",
    "parse_edition",
    "parse_tiebreak",
    "parse_tiebreaks",
]
