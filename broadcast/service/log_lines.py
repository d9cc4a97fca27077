"""The service log's line for each alert, result and arbiter action the commit path
announces (`log_line`): moves and clock readings are the journal's, not the log's."""

from __future__ import annotations

from broadcast.arbiter.alerts import (
    Alert,
    AlertAcknowledged,
    AlertReopened,
    AlertResolved,
    PlayerMarkedPresent,
    PresenceUnmarked,
)
from broadcast.arbiter.decisions import ActionTaken, ActionUndone
from broadcast.games.game_events import (
    LineCorrected,
    ProposalWithdrawn,
    ResultCleared,
    ResultConfirmed,
    ResultProposed,
    StartPositionSet,
)
from broadcast.tournament.tournament_events import PlayerEntered, PlayerReplaced, ResultRecorded

_TOURNAMENT_LOGGED = (
    "RoundPaired",
    "PairingEdited",
    "ByeGranted",
    "ByeRefused",
    "ByeCancelled",
    "PlayerWithdrawn",
    "PlayerReinstated",
    "NoShowCancelled",
    "ContinuationRequested",
    "PlayoffGamePaired",
    "PrizeWithheld",
    "PrizeRestored",
)


def log_line(event: object) -> str | None:
    """The log's line for an alert, a result or an arbiter action (None for the rest:
    moves and clock readings are the journal's, not the log's)."""
    match event:
        case Alert():
            where = event.game or event.hall_board or "the service"
            return f"alert {event.kind} ({event.severity}) on {where}: {event.message} [{event.id}]"
        case AlertResolved():
            return f"alert closed: {event.alert}: {event.why or 'its cause ended'}"
        case AlertAcknowledged():
            return f"alert acknowledged by {event.by}: {event.alert}"
        case AlertReopened():
            return f"alert reopened by {event.by}: {event.alert}"
        case PresenceUnmarked():
            return f"{event.game}: {event.colour} no longer marked present ({event.by})"
        case ActionTaken():
            undoes = f" (undoes action {event.undoes})" if event.undoes else ""
            return f"action by {event.by}: {event.summary}{undoes}"
        case ActionUndone():
            return (
                f"action {event.action} undone by {event.by}: {len(event.parts)} part(s) put back"
            )
        case ResultCleared():
            return f"{event.game}: result cleared by {event.by}: {event.why}"
        case ResultProposed():
            detail = f": {event.detail}" if event.detail else ""
            return f"{event.game}: result {event.result} proposed ({event.reason}){detail}"
        case ResultConfirmed():
            return f"{event.game}: result {event.result} ({event.reason}) by {event.by}"
        case ProposalWithdrawn():
            return f"{event.game}: proposed result withdrawn by {event.by}: {event.why}"
        case PlayerMarkedPresent():
            return f"{event.game}: {event.colour} marked present by {event.by}"
        case LineCorrected():
            wait = f"; board {event.board} must show them" if event.board is not None else ""
            return f"{event.game}: moves corrected by {event.by} ({len(event.ucis)} plies){wait}"
        case StartPositionSet():
            wait = f"; board {event.board} must show it" if event.board is not None else ""
            return f"{event.game}: start position set by {event.by}: {event.fen}{wait}"
        case ResultRecorded() if event.reason == "bye":
            return (
                f"{event.section} round {event.round}: bye {event.result} for player {event.player}"
            )
        case PlayerEntered():
            return (
                f"{event.section}: late entry {event.player.number} {event.player.name}, "
                f"paired from round {event.from_round} ({event.missed_points:g} per missed "
                f"round), by {event.by}"
            )
        case PlayerReplaced():
            override = f", override: {event.override}" if event.override else ""
            return (
                f"{event.section}: player {event.player} {event.original.name} replaced by "
                f"{event.newcomer.number} {event.newcomer.name} from round {event.from_round}, "
                f"by {event.by}{override}"
            )
    name = type(event).__name__
    if name in _TOURNAMENT_LOGGED:
        fields = {
            k: getattr(event, k)
            for k in ("section", "round", "player", "by", "reason", "source", "override")
            if getattr(event, k, "") not in ("", None)
        }
        return f"{name}: " + ", ".join(f"{k} {v}" for k, v in fields.items())
    return None


__all__ = ["log_line"]
