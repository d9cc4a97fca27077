"""Timing and search settings for reconstruction (seconds, plies)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ReconstructionConfig:
    """How long a position must stay unchanged before it is trusted, and how far to search.

    A lever press (the running clock side changing) confirms a completed move after
    `press_settle` (one board scan), whatever the waits below say.
    """

    move_stable: float = 0.5
    # A king stepping onto d4/d5/e4/e5 may be the first half of a result signal.
    centre_king_stable: float = 3.0
    # A rook landing where castling would put it may be the first half of rook-first castling.
    castling_rook_stable: float = 2.0
    # Two plies matched while a running clock saw no press: wait longer (or for a press).
    unpressed_burst_stable: float = 2.0
    takeback_stable: float = 1.0
    # A takeback of several plies to a position one piece away from the current one (a
    # repetition): that piece may be resting on a square of its path (up to a second).
    repetition_takeback_stable: float = 2.5
    pressed_correction_stable: float = 3.0
    signal_stable: float = 1.0
    new_game_stable: float = 1.0
    press_settle: float = 0.3
    # Positions seen this long before a press still count as what the press completed.
    press_lookback: float = 0.6
    press_min_dwell: float = 0.3
    out_of_sync_after: float = 2.5
    # Unmatched positions that look like a promotion or a result signal in progress.
    patient_out_of_sync_after: float = 10.0
    # Lines longer than live_depth are only searched for positions this stable.
    deep_stable: float = 1.0
    live_depth: int = 2
    resync_depth: int = 4
    correction_back: int = 2
    # A return to the start position this early is a takeback, later it is a new game.
    new_game_min_plies: int = 4
    # Plies confirmed without a lever press this soon before a result signal may be its
    # set-up (a first king that did not stand the centre wait, occupants taken off the
    # kings' squares read as a capture and recapture): retracted when the signal completes.
    signal_lookback: float = 8.0
    stamp_ttl: float = 30.0

    def __post_init__(self) -> None:
        if self.live_depth < 1 or self.resync_depth < self.live_depth:
            raise ValueError("need 1 <= live_depth <= resync_depth")
        for name in (
            "move_stable",
            "centre_king_stable",
            "castling_rook_stable",
            "takeback_stable",
            "repetition_takeback_stable",
            "signal_stable",
            "new_game_stable",
            "press_settle",
            "out_of_sync_after",
        ):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} cannot be negative")


__all__ = ["ReconstructionConfig"]
