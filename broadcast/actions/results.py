"""Results: the arbiter's word on a game, one way for the desk, the API and the rules'
proposals alike.

- `SetResult`: a result with its reason. A forfeit (+/-, -/+, -/-) needs a forfeit's
  reason (forfeit or default-time count a no-show; withdrawal does not); a game's result
  cannot carry one. Replacing a result that stands asks first; replacing the forfeit a
  withdrawal entered asks for the arbiter's override of that withdrawal, in its words
  (the player stays withdrawn; the override is journaled in the action's summary).
- `ConfirmProposal`: the result the board or the rules proposed stands.
- `RejectProposal`: the proposed result does not stand, the game goes on (asks first: a
  flag fall rejected by mistake is a right result lost).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, cast

from broadcast.actions.door import ActionHost, Plan, game_state
from broadcast.actions.words import game_words, player_words, result_words
from broadcast.arbiter.presence import no_show_colours
from broadcast.arbiter.withdrawal import withdrawn_from
from broadcast.fide.results import Reason, Result
from broadcast.games.game_events import (
    GameResultText,
    ProposalWithdrawn,
    ResultConfirmed,
    ResultProposed,
    ResultReason,
)
from broadcast.games.game_state import GameState
from broadcast.phrases import say
from broadcast.service.committer import ActionError

__all__ = [
    "DESK_REASONS",
    "ConfirmProposal",
    "RejectProposal",
    "SetResult",
    "default_reason",
]

DESK_REASONS = tuple(reason.value for reason in Reason if reason.desk_allowed)
"""Reasons the desk offers for a result (the board's own ones come with its proposals)."""


def default_reason(result: str) -> str:
    """What a result entered without a reason most likely is: a forfeit, or a draw by
    agreement (so the early-draw rule checks it); otherwise the arbiter's word."""
    if Result(result).is_forfeit:
        return Reason.FORFEIT.value
    return (Reason.AGREEMENT if result == Result.DRAW else Reason.ARBITER).value


def _checked(result: str, reason: str | None) -> tuple[GameResultText, ResultReason]:
    try:
        checked = Result(result)
    except ValueError:
        raise ActionError(
            say(
                "result must be one of %(results)s, not %(result)s",
                results=", ".join(Result),
                result=repr(result),
            )
        ) from None
    why = reason or default_reason(result)
    try:
        because = Reason(why)
    except ValueError:
        raise ActionError(
            say(
                "reason must be one of %(reasons)s, not %(why)s",
                reasons=", ".join(DESK_REASONS),
                why=repr(why),
            )
        ) from None
    if checked.is_forfeit and not because.is_forfeit:
        raise ActionError(
            say(
                "a forfeit (%(result)s) needs the reason forfeit, default-time or withdrawal, "
                "not %(why)s",
                result=result,
                why=repr(why),
            )
        )
    if not checked.is_forfeit and because.is_forfeit:
        raise ActionError(
            say(
                "%(why)s is a reason for a forfeit (+/-, -/+, -/-), not for %(result)s",
                why=repr(why),
                result=result,
            )
        )
    # The events hold the journal's plain strings, not the enums' members.
    return cast(GameResultText, result), cast(ResultReason, why)


def _no_show_notes(game: GameState, result: str, reason: str) -> tuple[str, ...]:
    if reason == "withdrawal":
        return ()
    out = []
    for colour in no_show_colours(result):
        player = game.white if colour == "white" else game.black
        if player is not None:
            out.append(f"counts a no-show for {player.name} ({player.start})")
    return tuple(out)


def result_plan(
    host: ActionHost, game: GameState, result: str, reason: str | None, by: str, kind: str
) -> Plan:
    """The plan of a result on `game` (shared by SetResult and ConfirmProposal)."""
    checked, why = _checked(result, reason)
    where = game_words(host.tournament, game)
    if game.result == checked and game.result_reason == why:
        raise ActionError(
            say(
                "%(where)s already has the result %(result)s",
                where=where,
                result=result_words(checked, why),
            )
        )
    removes: tuple[str, ...] = ()
    notes = _no_show_notes(game, checked, why)
    summary = f"{where}: {result_words(checked, why)}"
    overridden = _withdrawal_overridden(host, game)
    if overridden:
        # The forfeit is the withdrawal's, not a result anyone entered: the arbiter
        # overrides the withdrawal for this game, knowingly (Pamplona audit, D15).
        summary += f", overriding the withdrawal of {overridden}"
        old = result_words(game.result, game.result_reason)
        removes = (f"the withdrawal's forfeit {old} of {where}",)
        notes += (
            f"the withdrawal of {overridden} stands for their other games: this result is "
            "the arbiter's override; Reinstate brings them back into the event",
        )
    elif game.result is not None:
        removes = (f"the result {result_words(game.result, game.result_reason)} of {where}",)
        if Result(game.result).is_forfeit and game.result_reason != "withdrawal":
            missed = set(no_show_colours(game.result)) - set(
                () if why == "withdrawal" else no_show_colours(checked)
            )
            for colour in sorted(missed):
                player = game.white if colour == "white" else game.black
                if player is not None:
                    notes += (
                        f"the no-show it counted for {player.name} ({player.start}) goes, "
                        "with what followed from it",
                    )
    elif game.proposal is not None and (game.proposal.result, game.proposal.reason) != (
        checked,
        why,
    ):
        notes += (
            f"instead of the proposed {result_words(game.proposal.result, game.proposal.reason)}",
        )
    event = ResultConfirmed(game.id, checked, why, host.time_source.now(), by=by)
    return Plan(kind, summary, (event,), removes, notes)


def _withdrawal_overridden(host: ActionHost, game: GameState) -> str:
    """Whose withdrawal entered the game's forfeit, in words ("Hadžić, Emir (6) from
    round 5 (ill)"); "" when its result is not a withdrawal's forfeit of a player still
    withdrawn."""
    if game.result is None or game.result_reason != "withdrawal":
        return ""
    if game.white is None or game.black is None:
        return ""
    state = host.tournament.sections.get(game.key.section)
    if state is None:
        return ""
    player = withdrawn_from(state, game.key.round, game.white.start, game.black.start)
    if player is None:
        return ""
    why = state.withdraw_reasons.get(player, "")
    start = state.withdrawn[player]
    return f"{player_words(state, player)} from round {start}" + (f" ({why})" if why else "")


@dataclass(frozen=True, slots=True)
class SetResult:
    """The arbiter's result for `game`, with its reason (None: the likeliest, see
    `default_reason`)."""

    game: str
    result: str
    reason: str | None = None
    kind: ClassVar[str] = "result"

    def plan(self, host: ActionHost, by: str) -> Plan:
        return result_plan(
            host, game_state(host, self.game), self.result, self.reason, by, self.kind
        )


def _waiting(host: ActionHost, game_id: str, what: str) -> tuple[GameState, ResultProposed]:
    """The game and the result proposed for it; ActionError when none is waiting."""
    game = game_state(host, game_id)
    proposal = game.proposal if game.result is None else None
    if proposal is None:
        raise ActionError(
            say(
                "%(game_id)s has no result waiting for confirmation%(what)s",
                game_id=game_id,
                what=what,
            )
        )
    return game, proposal


@dataclass(frozen=True, slots=True)
class ConfirmProposal:
    """The result the board or the rules proposed for `game` stands."""

    game: str
    kind: ClassVar[str] = "confirm"

    def plan(self, host: ActionHost, by: str) -> Plan:
        game, proposal = _waiting(host, self.game, "")
        return result_plan(host, game, proposal.result, proposal.reason, by, self.kind)


@dataclass(frozen=True, slots=True)
class RejectProposal:
    """The proposed result does not stand and the game goes on (a kings signal given by
    mistake, a flag the arbiter saw otherwise): the pending result is cleared and its
    alert closes."""

    game: str
    kind: ClassVar[str] = "reject"

    def plan(self, host: ActionHost, by: str) -> Plan:
        game, proposal = _waiting(host, self.game, " to reject")
        where = game_words(host.tournament, game)
        proposed = result_words(proposal.result, proposal.reason)
        why = f"rejected by {by}: the game goes on"
        return Plan(
            self.kind,
            f"{where}: the proposed {proposed} is rejected, the game goes on",
            (ProposalWithdrawn(game.id, host.time_source.now(), by=by, why=why),),
            removes=(f"the proposed result {proposed} of {where}",),
        )
