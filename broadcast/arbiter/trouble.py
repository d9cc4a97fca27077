"""Board trouble: thresholds and the predicates the engine applies to board health.

Each check answers "is this worth an arbiter's walk to the board now?". The engine
raises each alert once per episode: a board that recovers and fails again alerts again.
"""

from __future__ import annotations

from dataclasses import dataclass

from broadcast.arbiter.alerts import Severity


@dataclass(frozen=True, slots=True)
class TroubleConfig:
    """When board trouble becomes an alert.

    `silent_after`: seconds without any message from a board whose clock was running
    (a running DGT clock reports every second, so silence means a dead link; a stopped
    clock or a board without one may rightly stay quiet for long).
    `missed_polls`: unanswered bus polls in one health report.
    `battery_low` / `battery_critical`: percent, when not charging.
    `out_of_sync_after`: seconds the board may show a foreign position (pieces being
    straightened, a capture half done) before the arbiter is called; more than this alerts.
    `illegal_move_after`: seconds a board may stay out of sync after a clock press before
    the press counts as an illegal move that stood (a legal move is confirmed only once the
    position has stayed still, which may be just after the press).
    `fault_cleared_after`: seconds a board must be back, with no new software error in
    its driver, before the driver-fault alert closes (a driver that fails at every
    reconnect must not open and close an alert each time).
    """

    silent_after: float = 60.0
    missed_polls: int = 5
    battery_low: int = 20
    battery_critical: int = 5
    out_of_sync_after: float = 30.0
    illegal_move_after: float = 10.0
    fault_cleared_after: float = 30.0


def move_label(fen_after: str, san: str) -> str:
    """`23.Nf3` or `23...Nf6`, from the move's SAN and the FEN after it."""
    fields = fen_after.split()
    try:
        number = int(fields[5])
        black_to_move = fields[1] == "b"
    except (IndexError, ValueError):
        return san
    return f"{number}.{san}" if black_to_move else f"{number - 1}...{san}"


def battery_severity(percent: int, charging: bool, config: TroubleConfig) -> Severity | None:
    if charging:
        return None
    if percent <= config.battery_critical:
        return "critical"
    if percent <= config.battery_low:
        return "warning"
    return None


def polls_missed(missed: int, config: TroubleConfig) -> bool:
    return missed >= config.missed_polls


def too_long(since: float | None, now: float, limit: float) -> bool:
    """More than `limit` seconds since `since` (strictly: exactly `limit` is still fine)."""
    return since is not None and now - since > limit


__all__ = ["TroubleConfig", "battery_severity", "move_label", "polls_missed", "too_long"]
