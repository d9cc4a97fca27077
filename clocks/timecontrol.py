"""Time controls: parse, validate and answer "how much time, and when is it added".

Syntax (all times in seconds unless a unit is given; see docs/time-controls.md):

- ``5400+30``            90 minutes, 30 s increment from move 1
- ``600``                10 minutes, no increment
- ``40/5400+30:1800+30`` 40 moves in 90 min, then 30 min for the rest; +30 s every move
- ``40/7200:3600``       PGN form: 40 moves in 2 h, then 1 h for the rest
- ``5400d30``            simple (US) delay of 30 s; ``5400+d30`` means the same
- ``5400b30``            Bronstein delay of 30 s
- ``300+2@61``           increment only from move 61 on
- ``90m+30s``, ``1h30m`` units ``h``, ``m``, ``s`` may be used on any number
- ``w:300+2,b:240+2``    different time per side (Armageddon)
- ``-``                  untimed (the PGN tag for "no time control")

A period's base time is added to the clock when the previous period's move count is
completed (after move 40 for ``40/5400:1800``), the increment after every move of the
period from its first increment move on.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

Colour = Literal["white", "black"]
DelayKind = Literal["simple", "bronstein"]

_UNIT_SECONDS = {"h": 3600, "m": 60, "s": 1}
_DURATION = re.compile(r"^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s?)?$")


@dataclass(frozen=True, slots=True)
class Period:
    """One period: `seconds` for `moves` moves (None = the rest of the game)."""

    seconds: int
    moves: int | None = None
    increment: int = 0
    increment_from_move: int = 1
    delay: int = 0
    delay_kind: DelayKind = "simple"

    def __post_init__(self) -> None:
        if self.seconds < 0 or self.increment < 0 or self.delay < 0:
            raise ValueError("time control values cannot be negative")
        if self.moves is not None and self.moves <= 0:
            raise ValueError(f"a period needs a positive number of moves, got {self.moves}")
        if self.increment_from_move < 1:
            raise ValueError("increments start at move 1 or later")


@dataclass(frozen=True, slots=True)
class TimeControl:
    """Periods per colour. Both colours share the same periods except in Armageddon."""

    white: tuple[Period, ...]
    black: tuple[Period, ...]
    text: str = field(default="", compare=False)  # as the user wrote it

    @property
    def untimed(self) -> bool:
        return not self.white and not self.black

    @property
    def symmetric(self) -> bool:
        return self.white == self.black

    def periods(self, colour: Colour) -> tuple[Period, ...]:
        return self.white if colour == "white" else self.black

    def initial_seconds(self, colour: Colour) -> int:
        """The time on the clock before the player's first move."""
        periods = self.periods(colour)
        return periods[0].seconds if periods else 0

    def period_index(self, colour: Colour, move_number: int) -> int:
        """Which period (0-based) the player's move `move_number` (1-based) belongs to."""
        if move_number < 1:
            raise ValueError(f"move numbers start at 1, got {move_number}")
        done = 0
        periods = self.periods(colour)
        for index, period in enumerate(periods):
            if period.moves is None:
                return index
            done += period.moves
            if move_number <= done:
                return index
        # Past the last counted period: the last period repeats (e.g. "40/7200" alone).
        return len(periods) - 1

    def period(self, colour: Colour, move_number: int) -> Period:
        periods = self.periods(colour)
        if not periods:
            raise ValueError("an untimed game has no periods")
        return periods[self.period_index(colour, move_number)]

    def added_after_move(self, colour: Colour, move_number: int) -> int:
        """Seconds added to the player's clock when they complete move `move_number`:
        the increment (if it applies to that move) plus the next period's base time when
        that move completes a period (after move 40 in ``40/5400+30:1800+30``)."""
        periods = self.periods(colour)
        if not periods:
            return 0
        current = self.period(colour, move_number)
        added = current.increment if move_number >= current.increment_from_move else 0
        done = 0
        for index, period in enumerate(periods):
            if period.moves is None:
                return added
            done += period.moves
            if move_number == done:
                return added + periods[min(index + 1, len(periods) - 1)].seconds
            if move_number < done:
                return added
        # Every period counted moves: the last one repeats ("40/7200" = 7200 s per 40 moves).
        last_moves = periods[-1].moves or 1
        if (move_number - done) % last_moves == 0:
            added += periods[-1].seconds
        return added

    def __str__(self) -> str:
        return self.text or format_time_control(self)


def _duration(text: str, what: str, whole: str) -> int:
    text = text.strip()
    if not text:
        raise ValueError(f"time control {whole!r}: {what} is missing")
    match = _DURATION.match(text)
    if match is None or not any(match.groups()):
        raise ValueError(
            f"time control {whole!r}: cannot read {what} {text!r}; write seconds (5400) "
            "or use units h/m/s (90m, 1h30m, 30s)"
        )
    h, m, s = (int(g) if g else 0 for g in match.groups())
    return h * 3600 + m * 60 + s


def _parse_period(text: str, whole: str, last: bool) -> Period:
    moves: int | None = None
    if "/" in text:
        count, text = text.split("/", 1)
        if not count.strip().isdigit():
            raise ValueError(
                f"time control {whole!r}: {count!r} before '/' must be a number of moves, "
                "as in 40/5400"
            )
        moves = int(count)
        if moves <= 0:
            raise ValueError(f"time control {whole!r}: the number of moves must be positive")
    elif not last:
        raise ValueError(
            f"time control {whole!r}: every period except the last needs a move count, "
            "as in 40/5400+30:1800+30"
        )
    increment = 0
    increment_from = 1
    delay = 0
    delay_kind: DelayKind = "simple"
    base_text = text
    extra: str | None = None
    for sep in ("+", "d", "b"):
        if sep in base_text:
            base_text, rest = base_text.split(sep, 1)
            extra = rest if sep == "+" else sep + rest
            break
    base = _duration(base_text, "the base time", whole)
    if extra is not None:
        extra = extra.strip()
        if extra[:1] in ("d", "b"):
            delay_kind = "simple" if extra[0] == "d" else "bronstein"
            delay = _duration(extra[1:], "the delay", whole)
        else:
            if "@" in extra:
                extra, start = extra.split("@", 1)
                if not start.strip().isdigit() or int(start) < 1:
                    raise ValueError(
                        f"time control {whole!r}: after '@' give the move number the "
                        "increment starts at, as in 300+2@61"
                    )
                increment_from = int(start)
            increment = _duration(extra, "the increment", whole)
    if base == 0 and increment == 0 and delay == 0:
        raise ValueError(f"time control {whole!r}: a period of zero time cannot be played")
    return Period(base, moves, increment, increment_from, delay, delay_kind)


def _parse_side(text: str, whole: str) -> tuple[Period, ...]:
    parts = [p for p in text.split(":")]
    if any(not p.strip() for p in parts):
        raise ValueError(f"time control {whole!r}: empty period between ':' separators")
    periods = tuple(
        _parse_period(p.strip(), whole, last=(i == len(parts) - 1)) for i, p in enumerate(parts)
    )
    # A PGN "40/7200:3600" carries the increment only where written; FIDE-style
    # "40/5400+30:1800+30" writes it on each period. Both are taken literally.
    return periods


def parse_time_control(text: str) -> TimeControl:
    """Parse a time control; raises ValueError with a hint on anything it cannot read."""
    whole = text
    text = text.strip().replace(" ", "")
    if not text:
        raise ValueError("empty time control: write e.g. 5400+30, 40/5400+30:1800+30 or 300+2")
    if text == "-":
        return TimeControl((), (), "-")
    if text == "?":
        raise ValueError(
            "time control '?' means unknown: give the real one, e.g. 5400+30 or 900+10"
        )
    if text.startswith("*"):
        raise ValueError(
            f"time control {whole!r}: sandclock controls (*N) are not supported; "
            "use a base time, e.g. 180"
        )
    lowered = text.lower()
    if lowered.startswith(("w:", "b:", "white:", "black:")):
        sides: dict[str, tuple[Period, ...]] = {}
        for part in lowered.split(","):
            if ":" not in part:
                raise ValueError(f"time control {whole!r}: write per-side times as w:300+2,b:240+2")
            who, rest = part.split(":", 1)
            colour = {"w": "white", "white": "white", "b": "black", "black": "black"}.get(who)
            if colour is None:
                raise ValueError(f"time control {whole!r}: side {who!r} must be w or b")
            if colour in sides:
                raise ValueError(f"time control {whole!r}: {colour} is given twice")
            sides[colour] = _parse_side(rest, whole)
        if set(sides) != {"white", "black"}:
            raise ValueError(f"time control {whole!r}: give both sides, as in w:300+2,b:240+2")
        return TimeControl(sides["white"], sides["black"], text)
    periods = _parse_side(text, whole)
    return TimeControl(periods, periods, text)


def _format_seconds(n: int) -> str:
    return str(n)


def _format_period(p: Period) -> str:
    out = f"{p.moves}/" if p.moves is not None else ""
    out += _format_seconds(p.seconds)
    if p.delay:
        out += ("d" if p.delay_kind == "simple" else "b") + str(p.delay)
    elif p.increment:
        out += f"+{p.increment}"
        if p.increment_from_move != 1:
            out += f"@{p.increment_from_move}"
    return out


def format_time_control(tc: TimeControl) -> str:
    """The canonical text for a time control (parses back to the same value)."""
    if tc.untimed:
        return "-"

    def side(periods: tuple[Period, ...]) -> str:
        return ":".join(_format_period(p) for p in periods)

    if tc.symmetric:
        return side(tc.white)
    return f"w:{side(tc.white)},b:{side(tc.black)}"


def _amount(seconds: int) -> str:
    """Seconds in minutes, as time controls are spoken of: "90 min", "2 min", "45 s",
    "1 min 30 s"."""
    if seconds < 60:
        return f"{seconds} s"
    minutes, secs = divmod(seconds, 60)
    return f"{minutes} min" + (f" {secs} s" if secs else "")


def spell_time_control(tc: TimeControl) -> str:
    """A time control spelt out in minutes and seconds, for a person to check what the
    digits say ("5400+30": "90 min + 30 s per move"; "120+30": "2 min + 30 s per move")."""
    if tc.untimed:
        return "no time control"

    def period(p: Period) -> str:
        text = _amount(p.seconds)
        text += f" for {p.moves} moves" if p.moves is not None else ""
        if p.increment:
            text += f" + {_amount(p.increment)} per move"
            text += f" from move {p.increment_from_move}" if p.increment_from_move > 1 else ""
        if p.delay:
            text += f" ({p.delay_kind} delay {_amount(p.delay)})"
        return text

    def side(periods: tuple[Period, ...]) -> str:
        return ", then ".join(period(p) for p in periods)

    if tc.symmetric:
        return side(tc.white)
    return f"White {side(tc.white)}; Black {side(tc.black)}"


def pgn_time_control(tc: TimeControl) -> str:
    """The PGN TimeControl tag value (per-side controls give White's; PGN has no other form)."""
    return format_time_control(TimeControl(tc.white, tc.white) if not tc.symmetric else tc)


__all__ = [
    "Colour",
    "DelayKind",
    "Period",
    "TimeControl",
    "format_time_control",
    "parse_time_control",
    "pgn_time_control",
    "spell_time_control",
]
