"""Who plays: withdrawals and reinstatements, byes, a request to continue after an
absence; and players named as the arbiter names them.

- `Withdraw`: a player is out from a round on (default: the next round to be paired; a
  round robin, paired in advance, the first round not begun); their games from that
  round on follow the section's rules (a round robin's `[section.withdrawal]`; in a
  Swiss a game already paired and not begun is a forfeit won by the opponent). The
  rounds before it keep their games: one already paired and not played is the
  arbiter's to decide (its result, or a withdrawal from that round). Asks first, and
  says what it removes: the player's participation and each game that becomes a
  forfeit or leaves the pairings.
- `Reinstate`: a withdrawn player is in again, and the forfeits their withdrawal entered
  (not played since) are taken back. Asks first when it takes a forfeit back.
- `RequestBye`: through the section's bye policy; refused with the regulation's reason,
  unless the arbiter overrides (journaled and flagged). `CancelBye` asks first.
- `ContinueAfterAbsence`: the player's written request to go on (Sestao art. 6).

`find_player` reads a player as the desk's picker gives one: a starting number, "23 ·
Zubizarreta, Mikel", or a name.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from broadcast.actions.door import ActionHost, Plan, section_state
from broadcast.actions.words import game_words, player_words, result_words
from broadcast.arbiter.withdrawal import (
    reinstatement_events,
    withdrawal_consequences,
    withdrawal_round,
)
from broadcast.games.game_events import ResultCleared, ResultConfirmed
from broadcast.games.ids import GameKey
from broadcast.journal.kinds import JournalEvent
from broadcast.phrases import say
from broadcast.service.committer import ActionError
from broadcast.service.hall import utc
from broadcast.tournament.bye_policy import check_bye_cancel
from broadcast.tournament.eligibility import continuation_refusal, excluded_by_rules, out_reason
from broadcast.tournament.live_round import start_of
from broadcast.tournament.tournament_events import (
    ByeCancelled,
    ByeGranted,
    ByeRefused,
    ByeRequested,
    ContinuationRequested,
    PairingEdited,
    PlayerReinstated,
    PlayerWithdrawn,
)
from broadcast.tournament.tournament_state import SectionState

__all__ = [
    "CancelBye",
    "ContinueAfterAbsence",
    "Reinstate",
    "RequestBye",
    "Withdraw",
    "find_player",
    "player_of",
]


def find_player(state: SectionState, text: str) -> int:
    """The starting number of the player `text` names: a number ("23"), the desk picker's
    "23 · Zubizarreta, Mikel", or a name (whole, or a part only one player's name has).
    ActionError listing the candidates otherwise."""
    words = text.strip()
    head = words.split(" ", 1)[0].rstrip(".·:")
    if head.isascii() and head.isdigit():
        number = int(head)
        if number not in state.players:
            raise ActionError(
                say("%(name)s has no player %(number)s", name=state.name, number=number)
            )
        return number
    if not words:
        raise ActionError(say("choose a player (by name or starting number)"))
    wanted = words.casefold()
    exact = [n for n, p in state.players.items() if p.name.casefold() == wanted]
    if len(exact) == 1:
        return exact[0]
    partial = sorted(n for n, p in state.players.items() if wanted in p.name.casefold())
    if len(partial) == 1:
        return partial[0]
    if not partial:
        raise ActionError(
            say("no player of %(name)s is called %(words)s", name=state.name, words=repr(words))
        )
    listed = ", ".join(player_words(state, n) for n in partial[:6])
    raise ActionError(
        say(
            "%(words)s names several players (%(listed)s): choose one",
            words=repr(words),
            listed=listed,
        )
    )


def player_of(state: SectionState, player: int) -> str:
    """The player's words; ActionError for a number the section does not have."""
    if player not in state.players:
        raise ActionError(
            say("section %(name)s has no player %(player)s", name=repr(state.name), player=player)
        )
    return player_words(state, player)


def _consequence_words(host: ActionHost, event: object) -> str:
    if isinstance(event, ResultConfirmed):
        game = host.book.get(event.game)
        return f"{game_words(host.tournament, game)}: {result_words(event.result, event.reason)}"
    if isinstance(event, ResultCleared):
        game = host.book.get(event.game)
        old = result_words(game.result, game.result_reason)
        return f"the forfeit {old} of {game_words(host.tournament, game)}"
    if isinstance(event, PairingEdited):
        return f"round {event.round}: their game {'leaves' if 'withdrew' in event.reason else 'is back on'} the pairings"
    return ""


def _removed_game_words(host: ActionHost, event: object) -> str:
    """A game a withdrawal takes away: it becomes a forfeit, or leaves the pairings."""
    if isinstance(event, ResultConfirmed):
        game = host.book.get(event.game)
        forfeit = result_words(event.result, event.reason)
        return f"{game_words(host.tournament, game)}, not played: the forfeit {forfeit} instead"
    return _consequence_words(host, event)


def _begun_rounds(host: ActionHost, state: SectionState) -> frozenset[int]:
    """The paired rounds under way or over: their start has come (as scheduled, or as
    moved), or a game of theirs has moves or a result."""
    now = utc(host.time_source.now())
    out = set()
    for number in state.rounds:
        try:
            started = start_of(state.config, number, host.state.start_overrides) <= now
        except KeyError:  # a round without a start: only its games tell
            started = False
        games = host.book.round_games(state.name, number)
        if started or any(g.moves or g.result is not None for g in games):
            out.add(number)
    return frozenset(out)


@dataclass(frozen=True, slots=True)
class Withdraw:
    """`player` of `section` is out from `from_round` on (None: from now, see
    `withdrawal_round`), for `reason`."""

    section: str
    player: int
    from_round: int | None = None
    reason: str = ""
    kind: ClassVar[str] = "withdraw"

    def plan(self, host: ActionHost, by: str) -> Plan:
        state = section_state(host, self.section)
        who = player_of(state, self.player)
        if self.player in state.withdrawn:
            raise ActionError(
                say(
                    "%(who)s has already withdrawn (from round %(round)s)",
                    who=who,
                    round=state.withdrawn[self.player],
                )
            )
        start = (
            withdrawal_round(state, _begun_rounds(host, state))
            if self.from_round is None
            else self.from_round
        )
        if not 1 <= start <= state.config.rounds + 1:
            raise ActionError(
                say(
                    "withdrawal from round %(start)s: give a round from 1 to %(last)s",
                    start=start,
                    last=state.config.rounds + 1,
                )
            )
        why = self.reason.strip() or "withdrawn by the arbiter"
        now = host.time_source.now()
        event = PlayerWithdrawn(state.name, self.player, start, why, by, now)
        after = state.apply(event)
        # What it removes: the participation, and every game to be played that becomes
        # a forfeit or leaves the pairings.
        removes = [f"{who}'s participation from round {start} on"]
        removes += [
            _removed_game_words(host, e)
            for e in withdrawal_consequences(after, host.book, event, now)
        ]
        notes = []
        for number in sorted(state.rounds):
            pairing = state.rounds[number].game_of(self.player)
            if pairing is None or pairing.black is None:
                continue
            game = host.book.games.get(GameKey(state.name, number, pairing.board).id)
            if game is None or game.finished:
                continue
            where = game_words(host.tournament, game)
            if game.moves and number >= start:
                notes.append(f"{where} has begun ({game.ply} plies): enter its result")
            elif number < start:
                notes.append(
                    f"{where} is already paired and stays: enter its result (if they do not "
                    "play it, a forfeit with the reason withdrawal, not a no-show), or "
                    f"withdraw them from round {number} instead to make it the withdrawal's "
                    "forfeit now"
                )
        return Plan(
            self.kind,
            f"{who} withdrawn from round {start} ({why})",
            (event,),
            removes=tuple(removes),
            notes=tuple(notes),
        )


@dataclass(frozen=True, slots=True)
class Reinstate:
    """A withdrawn `player` of `section` is in the event again: paired from the next
    pairing on; the forfeits their withdrawal entered and nobody changed since are taken
    back."""

    section: str
    player: int
    reason: str = ""
    kind: ClassVar[str] = "reinstate"

    def plan(self, host: ActionHost, by: str) -> Plan:
        state = section_state(host, self.section)
        who = player_of(state, self.player)
        if self.player not in state.withdrawn:
            raise ActionError(
                say("%(who)s is not withdrawn: there is nothing to reinstate", who=who)
            )
        start = state.withdrawn[self.player]
        why = self.reason.strip() or "reinstated by the arbiter"
        now = host.time_source.now()
        event = PlayerReinstated(state.name, self.player, why, by, start, now)
        after = state.apply(event)
        taken_back = reinstatement_events(after, host.book, event, now)
        removes = tuple(
            _consequence_words(host, e) for e in taken_back if isinstance(e, ResultCleared)
        )
        notes = [_consequence_words(host, e) for e in taken_back if isinstance(e, PairingEdited)]
        still = excluded_by_rules(after, self.player) or out_reason(
            after, self.player, after.last_paired_round + 1
        )
        if still:
            notes.append(f"the regulations still keep them out: {still}")
        return Plan(
            self.kind,
            f"{who} reinstated (was withdrawn from round {start}: "
            f"{state.withdraw_reasons.get(self.player) or 'no reason given'})",
            (event,),
            removes,
            tuple(notes),
        )


def _answers(event: object, request: ByeRequested) -> bool:
    return (
        isinstance(event, ByeGranted | ByeRefused)
        and event.round == request.round
        and event.player == request.player
        and event.at == request.at
    )


def _imported_refusal(state: SectionState, round_number: int, player: int) -> str:
    """The policy's reason for refusing the bye the pairing program's TRF gave `player`
    in `round_number`, when that is the latest word on it ("" otherwise)."""
    log = state.bye_log
    for i in range(len(log) - 1, -1, -1):
        event = log[i]
        if not isinstance(event, ByeRequested) or (event.round, event.player) != (
            round_number,
            player,
        ):
            continue
        if event.source != "import":
            continue
        answer = next((e for e in log[i + 1 :] if _answers(e, event)), None)
        return answer.reason if isinstance(answer, ByeRefused) else ""
    return ""


@dataclass(frozen=True, slots=True)
class RequestBye:
    """A bye for `player` in `round`, through the section's policy. Refused: ActionError
    with the regulation's reason, unless `override`: the arbiter's grant is journaled
    with the reason it overrides and flagged with an alert."""

    section: str
    round: int
    player: int
    override: bool = False
    kind: ClassVar[str] = "bye"

    def plan(self, host: ActionHost, by: str) -> Plan:
        state = section_state(host, self.section)
        who = player_of(state, self.player)
        at = utc(host.time_source.now())
        request = ByeRequested(state.name, self.round, self.player, at)
        decision = state.decide_bye(request, host.state.start_overrides)
        events: list[JournalEvent] = [request]
        summary = f"bye for round {self.round} granted to {who}"
        notes: tuple[str, ...] = ()
        if isinstance(decision, ByeRefused):
            if not self.override:
                why = decision.said or decision.reason
                raise ActionError(say("bye refused: %(reason)s", reason=why))
            # Granting a bye the pairing program's file held back: the reason overridden
            # is the policy's answer to that bye, not "the round is already paired".
            reason = _imported_refusal(state, self.round, self.player) or decision.reason
            events.append(
                ByeGranted(state.name, self.round, self.player, at, by=by, override=reason)
            )
            summary += f" against the regulations ({reason}): flagged"
            notes = ("journaled as the arbiter's override, with an alert",)
        return Plan(self.kind, summary, tuple(events), notes=notes)


@dataclass(frozen=True, slots=True)
class CancelBye:
    """Cancel `player`'s bye in `round`: until the request deadline, later only with
    `override`."""

    section: str
    round: int
    player: int
    override: bool = False
    kind: ClassVar[str] = "bye-cancel"

    def plan(self, host: ActionHost, by: str) -> Plan:
        state = section_state(host, self.section)
        who = player_of(state, self.player)
        if self.round not in state.byes_of(self.player):
            raise ActionError(
                say("%(who)s has no bye in round %(round)s to cancel", who=who, round=self.round)
            )
        at = utc(host.time_source.now())
        decision = check_bye_cancel(
            state.config, self.round, requested_at=at, moved=host.state.start_overrides
        )
        if not decision.allowed and not self.override:
            raise ActionError(say("cancellation refused: %(reason)s", reason=decision.why))
        flagged = "" if decision.allowed else decision.reason
        event = ByeCancelled(state.name, self.round, self.player, at, by=by, override=flagged)
        summary = f"bye for round {self.round} of {who} cancelled"
        if flagged:
            summary += f" against the regulations ({flagged}): flagged"
        return Plan(self.kind, summary, (event,), removes=(f"{who}'s bye in round {self.round}",))


@dataclass(frozen=True, slots=True)
class ContinueAfterAbsence:
    """The player's written request to go on after an absence in `round`. Refused (in the
    regulation's words) when it cannot succeed."""

    section: str
    round: int
    player: int
    kind: ClassVar[str] = "continue"

    def plan(self, host: ActionHost, by: str) -> Plan:
        state = section_state(host, self.section)
        who = player_of(state, self.player)
        refusal = continuation_refusal(state, self.player, self.round)
        if refusal:
            raise ActionError(say("request to continue refused: %(refusal)s", refusal=refusal))
        event = ContinuationRequested(state.name, self.round, self.player, by)
        return Plan(self.kind, f"{who} continues after the absence in round {self.round}", (event,))
