"""What the players do at their table (the table page, `web/checkin`), and the round codes
that let them: each a command through the one door, journaled with who did it.

- `ProposeAtTable`: one player enters the game's result. It is a proposal like those of
  the boards (`ResultProposed`), so it reaches the desk the same way (the rules raise a
  `result-proposed` alert the arbiter confirms, replaces or rejects); its `detail` says
  who entered it. Only where the event lets players enter results (`player_results`).
- `ConfirmAtTable`: the other player confirms it: the result stands (`ResultConfirmed` by
  that player). The arbiter confirms on the desk as any proposal (`ConfirmProposal`).
- `RenewRoundCode`: a new code for a section's round (a printed one went astray). The
  code itself is derived by the web (`web.checkin.codes`) from a key kept with the journal
  and the journal number of the round's latest renewal in force (`code_generation`); so the
  record of this action is all it journals, and undoing it brings the old code back.

Players enter results only: 1-0, ½-½, 0-1. A draw is one by agreement (the early-draw rule
checks it), a win one by resignation; the arbiter can give another reason at the desk.
Forfeits and the default time stay the arbiter's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar, cast

from broadcast.actions.door import ActionHost, Plan, game_state, section_state
from broadcast.actions.results import result_plan
from broadcast.actions.words import game_words, result_words
from broadcast.config.model import EventConfig
from broadcast.config.tables import table_of
from broadcast.fide.results import Result
from broadcast.games.game_events import Colour, GameResultText, ResultProposed, ResultReason
from broadcast.games.game_state import GameState
from broadcast.phrases import say
from broadcast.service.action_log import ActionLog
from broadcast.service.committer import ActionError

__all__ = [
    "PLAYER_RESULTS",
    "ConfirmAtTable",
    "ProposeAtTable",
    "RenewRoundCode",
    "code_generation",
    "player_by",
    "players_enter_results",
    "proposed_by",
    "renewal_summary",
]

PLAYER_RESULTS: tuple[Result, ...] = (Result.WHITE_WINS, Result.DRAW, Result.BLACK_WINS)
"""The results a player may enter (forfeits are the arbiter's)."""

_ENTERED = "entered at the table by "
_ENTERED_BY = re.compile(rf"^{_ENTERED}(white|black)\b")


def players_enter_results(event: EventConfig, section: str) -> bool:
    """The section's players may enter results on the table page: the section's
    `player_results`, else the event's."""
    try:
        own = event.section(section).player_results
    except KeyError:
        return False
    return event.player_results if own is None else own


def player_by(game: GameState, colour: Colour) -> str:
    """Who acts, as the journal records a player at the table: the section, the
    player's start number and name (`player:Open:23 Agirre, Jon`)."""
    player = game.white if colour == "white" else game.black
    if player is None:
        return f"player:{game.key.section}:{colour}"
    return f"player:{game.key.section}:{player.start} {player.name}"


def proposed_by(game: GameState) -> Colour | None:
    """The colour of the player whose proposal waits for the game (None: no proposal, or
    one of the board's, the rules' or the arbiter's)."""
    proposal = game.proposal if game.result is None else None
    if proposal is None:
        return None
    found = _ENTERED_BY.match(proposal.detail)
    return cast(Colour, found.group(1)) if found else None


def _colour(text: str) -> Colour:
    if text not in ("white", "black"):
        raise ActionError(say("colour must be 'white' or 'black', not %(text)s", text=repr(text)))
    return cast(Colour, text)


def _where(host: ActionHost, game: GameState) -> str:
    table = table_of(host.config, game.key.section, game.key.board)
    return f"table {table}, {game_words(host.tournament, game)}"


def _open_game(host: ActionHost, game_id: str) -> GameState:
    game = game_state(host, game_id)
    if not players_enter_results(host.config, game.key.section):
        raise ActionError(say("players do not enter results in this event: the arbiter does"))
    if game.result is not None:
        raise ActionError(
            say(
                "the game has a result already: %(result)s",
                result=result_words(game.result, game.result_reason),
            )
        )
    return game


@dataclass(frozen=True, slots=True)
class ProposeAtTable:
    """`colour`'s player enters `result` (1-0, 1/2-1/2, 0-1) for `game`."""

    game: str
    colour: str
    result: str
    kind: ClassVar[str] = "player-result"

    def plan(self, host: ActionHost, by: str) -> Plan:
        colour = _colour(self.colour)
        game = _open_game(host, self.game)
        if self.result not in PLAYER_RESULTS:
            raise ActionError(
                say(
                    "a player enters 1-0, 1/2-1/2 or 0-1, not %(result)s; "
                    "anything else is the arbiter's",
                    result=repr(self.result),
                )
            )
        result = cast(GameResultText, self.result)
        reason: ResultReason = "agreement" if Result(result) is Result.DRAW else "resignation"
        pending = game.proposal
        if pending is not None and proposed_by(game) is None:
            raise ActionError(
                say(
                    "a result is waiting for the arbiter already (%(result)s): tell the arbiter",
                    result=result_words(pending.result, pending.reason),
                )
            )
        watch = host.rules.watches.get(game.id)
        if watch is not None and (reason, result, 0) in watch.proposed:
            # The rules raise an alert once per proposal: entered again (or again after
            # the other player entered another result), the arbiter decides.
            raise ActionError(
                say(
                    "%(result)s was entered for this game before and did not stand: the "
                    "arbiter decides now",
                    result=result,
                )
            )
        mover = proposed_by(game)
        detail = f"{_ENTERED}{colour}"
        if mover is not None and mover != colour and pending is not None:
            detail += f" (the other player entered {pending.result}: they disagree)"
        event = ResultProposed(game.id, result, reason, host.time_source.now(), detail)
        return Plan(
            self.kind,
            f"{_where(host, game)}: {colour} enters {result}, waiting for the other player "
            "or the arbiter",
            (event,),
        )


@dataclass(frozen=True, slots=True)
class ConfirmAtTable:
    """`colour`'s player confirms the result the other player entered for `game`."""

    game: str
    colour: str
    kind: ClassVar[str] = "player-confirm"

    def plan(self, host: ActionHost, by: str) -> Plan:
        colour = _colour(self.colour)
        game = _open_game(host, self.game)
        mover = proposed_by(game)
        proposal = game.proposal
        if mover is None or proposal is None:
            raise ActionError(say("no result entered by a player is waiting for this game"))
        if mover == colour:
            raise ActionError(
                say("you entered this result: the other player (or the arbiter) confirms it")
            )
        if proposal.result == "1/2-1/2" and host.rules.is_open(f"early-draw:{game.id}"):
            raise ActionError(
                say("a draw this early needs the arbiter (the early-draw rule): tell the arbiter")
            )
        plan = result_plan(host, game, proposal.result, proposal.reason, by, self.kind)
        return Plan(
            plan.kind,
            f"{_where(host, game)}: {result_words(proposal.result, proposal.reason)}, "
            f"entered by {mover} and confirmed by {colour}",
            plan.events,
            plan.removes,
            plan.notes,
        )


def renewal_summary(section: str, round_number: int) -> str:
    """The words of a renewal's record, which `code_generation` finds again."""
    return f"{section} round {round_number}: a new check-in code"


def code_generation(log: ActionLog, section: str, round_number: int) -> int:
    """The journal number of the round's latest code renewal in force (0: none): the
    round's code is derived from it."""
    summary = renewal_summary(section, round_number)
    found = 0
    for action in log.recent(len(log)):
        mine = action.kind == RenewRoundCode.kind and action.summary == summary
        if mine and not log.undone_by(action.seq):
            found = max(found, action.seq)
    return found


@dataclass(frozen=True, slots=True)
class RenewRoundCode:
    """A new check-in code for `section`'s round `round`: the one printed on the pairing
    sheets no longer works (asks first)."""

    section: str
    round: int
    kind: ClassVar[str] = "round-code"

    def plan(self, host: ActionHost, by: str) -> Plan:
        state = section_state(host, self.section)
        if self.round not in state.rounds:
            raise ActionError(
                say(
                    "%(section)s round %(round)s is not paired",
                    section=self.section,
                    round=self.round,
                )
            )
        return Plan(
            self.kind,
            renewal_summary(self.section, self.round),
            removes=(
                f"the code on the pairing sheets of {self.section} round {self.round} "
                "(print them again)",
            ),
        )
