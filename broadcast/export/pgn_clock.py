"""PGN clock tags: what the game's clock showed, and when.

``[WhiteClock "01:23:45"]`` and ``[BlackClock "00:58:10"]`` are the two sides' times as
the clock last showed them; ``[ReferenceTime "B/2026-02-14T17:03:21.250Z"]`` is the moment
of that reading (UTC, milliseconds), after the side whose clock was running then (``W/``
or ``B/``; the side to move when no clock ran, e.g. after the game ended). Lichess's
broadcasts read the two clock tags to set the clocks between moves and at a time control
(where a move's ``[%clk]`` is not the whole story), and pgn4web shows them; with the
reference time a reader can run a running clock on from the reading.

Times are hours, minutes and seconds with two digits each (``HH:MM:SS``), the form DGT
LiveChess writes and Lichess's tag parser reads; pgn4web reads it too. A game whose clock
never reported gets no clock tags (a table without an e-board or clock): nothing is
invented. The tags come from the game handed in, so a public feed built from the delayed
book carries the delayed reading, never a newer one.
"""

from __future__ import annotations

import datetime as dt
import math

from broadcast.games.game_state import GameState

__all__ = ["clock_tags", "reference_time", "tag_clock"]


def tag_clock(seconds: float) -> str:
    """A clock reading as ``HH:MM:SS`` (whole seconds, never negative)."""
    whole = max(0, round(seconds)) if math.isfinite(seconds) else 0
    return f"{whole // 3600:02d}:{whole // 60 % 60:02d}:{whole % 60:02d}"


def _side(game: GameState) -> str:
    if game.running is not None:
        return "W" if game.running == "white" else "B"
    fields = game.fen.split()
    return "B" if len(fields) > 1 and fields[1] == "b" else "W"


def reference_time(game: GameState) -> str | None:
    """``W/`` or ``B/`` and the reading's moment in ISO 8601 UTC with milliseconds, or
    None when the moment is unknown (no reading, or a time that is no date)."""
    t = game.clock_t
    if t is None or not math.isfinite(t) or t <= 0:
        return None  # replays and tests that start their clock at 0 have no date
    try:
        moment = dt.datetime.fromtimestamp(t, dt.UTC)
    except (OverflowError, OSError, ValueError):
        return None
    stamp = moment.strftime("%Y-%m-%dT%H:%M:%S") + f".{moment.microsecond // 1000:03d}Z"
    return f"{_side(game)}/{stamp}"


def clock_tags(game: GameState) -> list[tuple[str, str]]:
    """WhiteClock, BlackClock and ReferenceTime for a game with a clock reading; none for
    a game without one."""
    if game.white_clock is None or game.black_clock is None:
        return []
    tags = [
        ("WhiteClock", tag_clock(game.white_clock)),
        ("BlackClock", tag_clock(game.black_clock)),
    ]
    reference = reference_time(game)
    if reference is not None:
        tags.append(("ReferenceTime", reference))
    return tags
