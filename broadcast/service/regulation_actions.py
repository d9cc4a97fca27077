"""The arbiter's actions that a regulation governs, on a running `EventService`:
results with their reason, bye requests and cancellations through the section's
policy (an override is journaled and flagged), withdrawals with their consequences,
requests to continue after an absence, play-off games; and the final standings with
play-off and prizes.

Each action raises `ActionError` with the regulation's reason when it is refused; what
it does is journaled through the service with who did it.
"""

from __future__ import annotations

import datetime as dt

from broadcast.arbiter.alerts import Alert
from broadcast.arbiter.withdrawal import first_open_round
from broadcast.fide.standings import Standings, compute_standings
from broadcast.games.events import RESULTS
from broadcast.games.ids import GameKey
from broadcast.service.event_service import ActionError, EventService
from broadcast.tournament.events import (
    ByeCancelled,
    ByeGranted,
    ByeRefused,
    ByeRequested,
    ContinuationRequested,
    PlayerWithdrawn,
    PlayoffGamePaired,
)
from broadcast.tournament.final import section_playoff, section_prizes, section_standings
from broadcast.tournament.playoff import PlayoffStatus
from broadcast.tournament.policy import check_bye_cancel
from broadcast.tournament.prizes import PrizeList
from broadcast.tournament.state import SectionState, StateError, TournamentState

FORFEIT_RESULTS = ("+/-", "-/+", "-/-")
FORFEIT_REASONS = ("forfeit", "default-time", "withdrawal")
GAME_REASONS = (
    "agreement",
    "resignation",
    "checkmate",
    "stalemate",
    "dead-position",
    "repetition",
    "75-moves",
    "flag-fall",
    "arbiter",
)
DESK_REASONS = (*GAME_REASONS, *FORFEIT_REASONS)
"""Reasons the desk offers for a result (the board's own ones come with its events)."""


def _now(service: EventService) -> dt.datetime:
    return dt.datetime.fromtimestamp(service.time.now(), dt.UTC)


def _state(service: EventService, section: str) -> SectionState:
    try:
        return service.tournament.section(section)
    except StateError as exc:
        raise ActionError(str(exc)) from None


def default_reason(result: str) -> str:
    """What a result entered without a reason most likely is: a forfeit, or a draw by
    agreement (so the early-draw rule checks it); otherwise the arbiter's word."""
    if result in FORFEIT_RESULTS:
        return "forfeit"
    return "agreement" if result == "1/2-1/2" else "arbiter"


def set_result(
    service: EventService, game_id: str, result: str, by: str, reason: str | None = None
) -> list[Alert]:
    """Record a result with its reason; returns the alerts it raised (an early draw).
    A forfeit needs a forfeit reason (it counts as a no-show unless "withdrawal"); a
    game result cannot carry one."""
    if result not in RESULTS:
        raise ActionError(f"result must be one of {', '.join(RESULTS)}, not {result!r}")
    why = reason or default_reason(result)
    if why not in DESK_REASONS:
        raise ActionError(f"reason must be one of {', '.join(DESK_REASONS)}, not {why!r}")
    if result in FORFEIT_RESULTS and why not in FORFEIT_REASONS:
        raise ActionError(
            f"a forfeit ({result}) needs the reason forfeit, default-time or withdrawal, "
            f"not {why!r}"
        )
    if result not in FORFEIT_RESULTS and why in FORFEIT_REASONS:
        raise ActionError(f"{why!r} is a reason for a forfeit (+/-, -/+, -/-), not for {result}")
    before = set(service.rules.alerts)
    service.set_result(game_id, result, by, why)
    return [a for i, a in service.rules.alerts.items() if i not in before]


def request_bye(
    service: EventService,
    section: str,
    round_number: int,
    player: int,
    by: str,
    *,
    override: bool = False,
) -> ByeGranted:
    """A bye request through the section's policy. Refused: ActionError with the
    regulation's reason (journaled as ByeRefused), unless `override`: then the arbiter's
    grant is journaled with the reason it overrides and flagged with an alert."""
    state = _state(service, section)
    if player not in state.players:
        raise ActionError(f"section {section!r} has no player {player}")
    request = ByeRequested(state.name, round_number, player, _now(service))
    service.commit([request])
    decision = next(
        (e for e in reversed(_state(service, section).bye_log) if _answers(e, request)),
        None,
    )
    if isinstance(decision, ByeGranted):
        return decision
    reason = decision.reason if isinstance(decision, ByeRefused) else "refused"
    if not override:
        raise ActionError(f"bye refused: {reason}")
    granted = ByeGranted(state.name, round_number, player, request.at, by=by, override=reason)
    service.tournament_event(granted)
    return granted


def _answers(event: object, request: ByeRequested) -> bool:
    return (
        isinstance(event, ByeGranted | ByeRefused)
        and event.round == request.round
        and event.player == request.player
        and event.at == request.at
    )


def cancel_bye(
    service: EventService,
    section: str,
    round_number: int,
    player: int,
    by: str,
    *,
    override: bool = False,
) -> ByeCancelled:
    """Cancel a granted bye; only until the request deadline unless `override`."""
    state = _state(service, section)
    if round_number not in state.byes_of(player):
        raise ActionError(f"player {player} has no bye in round {round_number} to cancel")
    at = _now(service)
    decision = check_bye_cancel(state.config, round_number, requested_at=at)
    if not decision.allowed and not override:
        raise ActionError(f"cancellation refused: {decision.reason}")
    flagged = "" if decision.allowed else decision.reason
    event = ByeCancelled(state.name, round_number, player, at, by=by, override=flagged)
    service.tournament_event(event)
    return event


def withdraw(
    service: EventService,
    section: str,
    player: int,
    by: str,
    *,
    from_round: int | None = None,
    reason: str = "",
) -> PlayerWithdrawn:
    """Withdraw (or eliminate) a player from `from_round` on (default: their first round
    without a result). Round robin: their later games follow [section.withdrawal]."""
    state = _state(service, section)
    if player not in state.players:
        raise ActionError(f"section {section!r} has no player {player}")
    if player in state.withdrawn:
        raise ActionError(
            f"player {player} has already withdrawn (from round {state.withdrawn[player]})"
        )
    start = first_open_round(state, player) if from_round is None else from_round
    why = reason or "withdrawn by the arbiter"
    event = PlayerWithdrawn(state.name, player, start, why, by, service.time.now())
    service.tournament_event(event)
    return event


def continue_after_absence(
    service: EventService, section: str, round_number: int, player: int, by: str
) -> ContinuationRequested:
    """Record the player's written request to go on after an absence in `round_number`."""
    state = _state(service, section)
    event = ContinuationRequested(state.name, round_number, player, by)
    service.tournament_event(event)
    return event


def pair_playoff_game(
    service: EventService,
    section: str,
    white: int,
    black: int,
    by: str,
    *,
    board: int = 1,
    at: dt.datetime | None = None,
) -> PlayoffGamePaired:
    """Pair the next play-off game for first place between two players still in it; its
    kind (blitz or Armageddon) follows the play-off's state. It starts at `at` (default
    now) on the section's pairing board `board`."""
    state = _state(service, section)
    status = playoff(service.tournament, state.name)
    if status is None:
        raise ActionError(f"section {state.name!r} has no tie for first to play off")
    if status.decided:
        raise ActionError(f"the play-off is decided: player {status.winner} is first")
    if status.next_kind is None:
        raise ActionError("a play-off game is still being played: record its result first")
    if not {white, black} <= set(status.remaining):
        still = ", ".join(str(p) for p in status.remaining)
        raise ActionError(f"only players still in the play-off ({still}) can be paired")
    event = PlayoffGamePaired(
        state.name,
        len(state.playoff) + 1,
        white,
        black,
        status.next_kind,
        at or _now(service),
        board,
        by,
    )
    service.tournament_event(event)
    return event


def playoff(tournament: TournamentState, section: str) -> PlayoffStatus | None:
    state = tournament.section(section)
    return section_playoff(state, _plain(tournament, section))


def _plain(tournament: TournamentState, section: str) -> Standings:
    state = tournament.section(section)
    return compute_standings(
        state.to_crosstable(), state.config.tiebreaks, edition=tournament.event.tiebreak_edition
    )


def standings(tournament: TournamentState, section: str) -> Standings:
    """The section's standings as its regulations rank them."""
    return section_standings(tournament.section(section), tournament.event.tiebreak_edition)


def prizes(tournament: TournamentState, section: str) -> PrizeList | None:
    """The prize list from the standings, for a section with [section.prizes]."""
    return section_prizes(tournament.section(section), tournament.event.tiebreak_edition)


def playoff_result_game(service: EventService, section: str, number: int) -> str:
    """The game id of play-off game `number` (for the desk and the pages)."""
    state = _state(service, section)
    game = state.playoff.get(number)
    if game is None:
        raise ActionError(f"no play-off game {number} in {state.name!r}")
    return GameKey(state.name, state.playoff_round(number), game.board).id


__all__ = [
    "DESK_REASONS",
    "cancel_bye",
    "continue_after_absence",
    "pair_playoff_game",
    "playoff",
    "prizes",
    "request_bye",
    "set_result",
    "standings",
    "withdraw",
]
