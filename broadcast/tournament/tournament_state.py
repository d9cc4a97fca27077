"""Tournament state as a fold of events: `state = state.apply(event)`, deterministic,
never mutated in place. Restart = replay the journal; a test = a list of events.

`apply` raises `StateError` (a ValueError with an actionable message) for an event
that does not fit the state, so the service can refuse it before it is journalled;
the state is then unchanged. `to_crosstable` hands the result to standings and TRF
export.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any, assert_never

from broadcast.config.model import EventConfig
from broadcast.fide.crosstable import (
    Bye,
    Crosstable,
    Game,
    Player,
    ResultCode,
    build_crosstable,
)
from broadcast.fide.crosstable import (
    System as CrosstableSystem,
)
from broadcast.fide.pairing import Pairing
from broadcast.fide.results import TOURNAMENT_CODES, Result
from broadcast.tournament.bye_policy import check_bye_request
from broadcast.tournament.eligibility import is_active, out_reason, prize_withheld
from broadcast.tournament.late_entries import entered, replaced
from broadcast.tournament.schedule import StartOverrides
from broadcast.tournament.section import (
    BYE_CODE_FOR_POINTS,
    GameResult,
    PlayoffGame,
    RoundState,
    SectionRecord,
    StateError,
)
from broadcast.tournament.team_events import LineupSubmitted, LineupWithdrawn, MatchesPaired
from broadcast.tournament.team_rounds import bye_codes
from broadcast.tournament.teams import apply_team_event
from broadcast.tournament.tournament_events import (
    BYE_RESULTS,
    BoardAssigned,
    ByeCancelled,
    ByeGranted,
    ByeRefused,
    ByeRequested,
    ContinuationRequested,
    NoShowCancelled,
    NoShowCounted,
    PairingEdited,
    PairingsReleased,
    PlayerEntered,
    PlayerReinstated,
    PlayerReplaced,
    PlayersRegistered,
    PlayerWithdrawn,
    PlayoffGamePaired,
    PrizeRestored,
    PrizeWithheld,
    ResultRecorded,
    ResultRemoved,
    RoundPaired,
    TournamentEvent,
)


@dataclass(frozen=True)
class SectionState(SectionRecord):
    """Everything known about one section after the events so far."""

    # -- questions ---------------------------------------------------------------------
    def round_byes(self, round_number: int) -> dict[int, str]:
        """Each player of the round without a game and with a bye, once: the pairing bye
        ("U" until another code is recorded), the codes the pairing program or the desk
        recorded (H, F, Z), and the byes granted through boardwire (their points' code,
        while the player is in the event), by starting number. Pages and the API."""
        rnd = self.rounds.get(round_number)
        if rnd is None:
            return {}
        in_game = {x for p in rnd.pairings if p.black is not None for x in p.players()}
        out = {p: c for p, c in rnd.bye_codes.items() if p not in in_game}
        granted = BYE_CODE_FOR_POINTS.get(self.config.byes.points, "H")
        for player in self.players:
            if (
                player not in out
                and player not in in_game
                and round_number in self.byes_of(player)
                and is_active(self, player, round_number)
            ):
                out[player] = granted
        return dict(sorted(out.items()))

    def absent_for(self, round_number: int) -> frozenset[int]:
        """Players not to be paired in `round_number`: withdrawn, over the no-show
        limit, or holding a granted bye for that round."""
        return frozenset(
            p
            for p in self.players
            if not is_active(self, p, round_number) or round_number in self.byes_of(p)
        )

    def decide_bye(
        self, request: ByeRequested, moved: StartOverrides | None = None
    ) -> ByeGranted | ByeRefused:
        """The policy's answer to a request, as the event to journal next. `moved`: the
        round starts moved from the schedule (the service state's `start_overrides`),
        which the deadline follows."""
        if request.player not in self.players:
            return ByeRefused(
                request.section, request.round, request.player, request.at, "unknown player"
            )
        held = self.byes_of(request.player)
        decision = check_bye_request(
            self.config,
            request.round,
            requested_at=request.at,
            byes_granted=len(held - {request.round}),
            already_granted=request.round in held,
            out_reason=out_reason(self, request.player, request.round),
            # An imported bye comes with its round's pairings: that is no refusal.
            round_paired=request.round in self.rounds and request.source != "import",
            moved=moved,
        )
        if decision.allowed:
            return ByeGranted(request.section, request.round, request.player, request.at)
        return ByeRefused(
            request.section,
            request.round,
            request.player,
            request.at,
            decision.reason,
            said=decision.said,
        )

    # -- the fold ------------------------------------------------------------------------
    def apply(self, event: TournamentEvent) -> SectionState:
        """The state after `event`; raises StateError if the event does not fit."""
        if event.section != self.config.name:
            raise StateError(f"event for section {event.section!r} sent to {self.config.name!r}")
        match event:
            case PlayersRegistered():
                return self._registered(event)
            case RoundPaired():
                if event.round in self.rounds:
                    raise StateError(
                        f"round {event.round} is already paired; edit it with PairingEdited"
                    )
                if event.round > 1 and event.round - 1 not in self.rounds:
                    raise StateError(
                        f"round {event.round - 1} must be paired before round {event.round}"
                    )
                self._check_pairings(event.round, event.pairings)
                byes = bye_codes(self.config, event.pairings)
                new_round = RoundState(event.round, event.pairings, event.source, {}, byes)
                return replace(self, rounds={**self.rounds, event.round: new_round})
            case PairingEdited():
                old = self.paired_round(event.round)
                self._check_pairings(event.round, event.pairings)
                kept_games = {(p.white, p.black) for p in event.pairings if p.black is not None}
                old_games = {p.white: p.black for p in old.pairings if p.black is not None}
                results = {
                    w: r for w, r in old.results.items() if (w, old_games.get(w)) in kept_games
                }
                in_game = {x for p in event.pairings if p.black is not None for x in p.players()}
                codes = {p: c for p, c in old.bye_codes.items() if p not in in_game and c != "U"}
                codes.update(bye_codes(self.config, event.pairings))
                edited = RoundState(event.round, event.pairings, old.source, results, codes)
                return replace(self, rounds={**self.rounds, event.round: edited})
            case BoardAssigned():
                return self._board_assigned(event)
            case ResultRecorded():
                return self._result(event)
            case ByeRequested() | ByeRefused():
                self.player_entry(event.player)
                return replace(self, bye_log=(*self.bye_log, event))
            case ByeGranted():
                self.player_entry(event.player)
                self.check_round_number(event.round)
                paired = self.rounds.get(event.round)
                if paired is not None and paired.game_of(event.player) is not None:
                    raise StateError(
                        f"player {event.player} is paired in round {event.round}; "
                        "edit the pairing before granting a bye"
                    )
                held = self.granted_byes.get(event.player, frozenset()) | {event.round}
                return replace(
                    self,
                    granted_byes={**self.granted_byes, event.player: held},
                    bye_log=(*self.bye_log, event),
                )
            case ByeCancelled():
                if event.round not in self.byes_of(event.player):
                    raise StateError(
                        f"player {event.player} has no bye in round {event.round} to cancel"
                    )
                # Kept canonical (no empty entries), so that a grant and its cancellation
                # leave the state as it was before both.
                granted = dict(self.granted_byes)
                left = granted.pop(event.player, frozenset()) - {event.round}
                if left:
                    granted[event.player] = left
                return replace(self, granted_byes=granted, bye_log=(*self.bye_log, event))
            case PlayerWithdrawn():
                self.player_entry(event.player)
                if not 1 <= event.from_round <= self.config.rounds + 1:
                    raise StateError(
                        f"withdrawal from round {event.from_round} is outside "
                        f"1..{self.config.rounds + 1}"
                    )
                return replace(
                    self,
                    withdrawn={**self.withdrawn, event.player: event.from_round},
                    withdraw_reasons={**self.withdraw_reasons, event.player: event.reason},
                    withdrawn_by={**self.withdrawn_by, event.player: event.by},
                )
            case PlayerReinstated():
                return self._reinstated(event)
            case NoShowCancelled():
                self.player_entry(event.player)
                counted = self.no_shows.get(event.player, ())
                if event.round not in counted:
                    return self  # nothing counted for that round: nothing to take back
                no_shows = dict(self.no_shows)
                still = tuple(r for r in counted if r != event.round)
                if still:
                    no_shows[event.player] = still
                else:
                    del no_shows[event.player]
                return replace(self, no_shows=no_shows)
            case ResultRemoved():
                rnd = self.paired_round(event.round)
                if event.player not in rnd.results:
                    return self
                results = {w: r for w, r in rnd.results.items() if w != event.player}
                return replace(
                    self, rounds={**self.rounds, event.round: replace(rnd, results=results)}
                )
            case ContinuationRequested():
                return self._continuation(event)
            case PlayoffGamePaired():
                return self._playoff_paired(event)
            case PairingsReleased():
                self.paired_round(event.round)
                return self  # news for the public view only (broadcast.tournament.news)
            case PrizeWithheld():
                self.player_entry(event.player)
                restored = {k: v for k, v in self.prizes_restored.items() if k != event.player}
                return replace(
                    self,
                    prizes_withheld={**self.prizes_withheld, event.player: event.reason},
                    prizes_restored=restored,
                )
            case PrizeRestored():
                self.player_entry(event.player)
                if not prize_withheld(self, event.player):
                    raise StateError(f"player {event.player}'s prize is not withheld")
                kept = {k: v for k, v in self.prizes_withheld.items() if k != event.player}
                return replace(
                    self,
                    prizes_withheld=kept,
                    prizes_restored={**self.prizes_restored, event.player: event.reason},
                )
            case PlayerEntered():
                return entered(self, event)
            case PlayerReplaced():
                return replaced(self, event)
            case MatchesPaired() | LineupSubmitted() | LineupWithdrawn():
                return replace(self, team_rounds=apply_team_event(self, event))
            case NoShowCounted():
                self.player_entry(event.player)
                self.check_round_number(event.round)
                counted = self.no_shows.get(event.player, ())
                if event.round in counted:
                    return self  # counted once per round, whatever the replays say
                return replace(
                    self,
                    no_shows={
                        **self.no_shows,
                        event.player: tuple(sorted((*counted, event.round))),
                    },
                )
        assert_never(event)

    def _reinstated(self, event: PlayerReinstated) -> SectionState:
        self.player_entry(event.player)
        if event.player not in self.withdrawn:
            raise StateError(f"player {event.player} is not withdrawn: nothing to reinstate")
        newcomer = next((r for r in self.replacements if r.player == event.player), None)
        if newcomer is not None and newcomer.newcomer.number != event.player:
            raise StateError(
                f"player {event.player} was replaced by {newcomer.newcomer.number} "
                f"{newcomer.newcomer.name}: undo the replacement instead"
            )

        def without(mapping: Mapping[int, Any]) -> dict[int, Any]:
            return {k: v for k, v in mapping.items() if k != event.player}

        return replace(
            self,
            withdrawn=without(self.withdrawn),
            withdraw_reasons=without(self.withdraw_reasons),
            withdrawn_by=without(self.withdrawn_by),
        )

    # -- helpers ---------------------------------------------------------------------------
    def _registered(self, event: PlayersRegistered) -> SectionState:
        numbers = [p.number for p in event.players]
        if len(set(numbers)) != len(numbers):
            raise StateError("two players share a starting number")
        kept = {p.number for p in event.players}
        for rnd in self.rounds.values():
            for pairing in rnd.pairings:
                for player in pairing.players():
                    if player not in kept:
                        raise StateError(
                            f"player {player} is paired in round {rnd.number} and cannot be removed"
                        )
        return replace(self, players={p.number: p for p in event.players})

    def _check_pairings(self, round_number: int, pairings: tuple[Pairing, ...]) -> None:
        self.check_round_number(round_number)
        seen: set[int] = set()
        boards: set[int] = set()
        for pairing in pairings:
            for player in pairing.players():
                self.player_entry(player)
                if player in seen:
                    raise StateError(f"round {round_number}: player {player} is paired twice")
                seen.add(player)
                why = out_reason(self, player, round_number)
                if why:
                    raise StateError(
                        f"round {round_number}: player {player} cannot be paired: {why}"
                    )
                if round_number in self.byes_of(player):
                    raise StateError(
                        f"round {round_number}: player {player} has a granted bye; cancel it "
                        "before pairing them"
                    )
            if pairing.black is not None:
                if pairing.board < 1 or pairing.board in boards:
                    raise StateError(
                        f"round {round_number}: board {pairing.board} is invalid or used twice"
                    )
                boards.add(pairing.board)

    def _board_assigned(self, event: BoardAssigned) -> SectionState:
        rnd = self.paired_round(event.round)
        if event.board < 1:
            raise StateError(f"board numbers start at 1, got {event.board}")
        target = next((p for p in rnd.pairings if p.white == event.white and p.black), None)
        if target is None:
            raise StateError(f"round {event.round}: no game with White {event.white}")
        moved = []
        for pairing in rnd.pairings:
            if pairing is target:
                moved.append(replace(pairing, board=event.board))
            elif pairing.black is not None and pairing.board == event.board:
                moved.append(replace(pairing, board=target.board))  # swap places
            else:
                moved.append(pairing)
        return replace(
            self, rounds={**self.rounds, event.round: replace(rnd, pairings=tuple(moved))}
        )

    def _continuation(self, event: ContinuationRequested) -> SectionState:
        self.player_entry(event.player)
        if event.round not in self.no_shows.get(event.player, ()):
            raise StateError(
                f"player {event.player} has no absence in round {event.round} to continue after"
            )
        if event.round + 1 in self.rounds:
            raise StateError(
                f"round {event.round + 1} is already paired: the request to continue had to "
                "come before the pairing was published"
            )
        kept = self.continuations.get(event.player, frozenset()) | {event.round}
        return replace(self, continuations={**self.continuations, event.player: kept})

    def _playoff_paired(self, event: PlayoffGamePaired) -> SectionState:
        if self.config.playoff is None:
            raise StateError(f"section {self.name!r} has no [section.playoff] in its config")
        for player in (event.white, event.black):
            self.player_entry(player)
        if event.white == event.black:
            raise StateError("a play-off game needs two different players")
        if event.kind not in ("blitz", "armageddon"):
            raise StateError(f"play-off game kind {event.kind!r}: use blitz or armageddon")
        if event.number != len(self.playoff) + 1:
            raise StateError(f"the next play-off game is number {len(self.playoff) + 1}")
        game = PlayoffGame(
            event.number, event.white, event.black, event.kind, event.at, event.board
        )
        return replace(self, playoff={**self.playoff, event.number: game})

    def _playoff_result(self, event: ResultRecorded) -> SectionState:
        game = self.playoff.get(event.round - self.config.rounds)
        if game is None or event.player != game.white:
            raise StateError(f"round {event.round}: no play-off game with White {event.player}")
        if event.result not in TOURNAMENT_CODES:
            raise StateError(f"a play-off game cannot end {event.result!r}")
        played = replace(game, result=event.result)
        return replace(self, playoff={**self.playoff, game.number: played})

    def _result(self, event: ResultRecorded) -> SectionState:
        if event.round > self.config.rounds and event.round not in self.rounds:
            return self._playoff_result(event)
        rnd = self.paired_round(event.round)
        game = rnd.game_of(event.player)
        if event.result in TOURNAMENT_CODES:
            if game is None or game.black is None or game.white != event.player:
                raise StateError(
                    f"round {event.round}: player {event.player} is not White in a game; "
                    "results are recorded by White's number"
                )
            if event.under_one_move and Result.from_tournament(event.result).is_forfeit:
                raise StateError(
                    "a forfeit has no moves; under_one_move applies to 1-0, 1/2-1/2, 0-1"
                )
            results = {**rnd.results, event.player: GameResult(event.result, event.under_one_move)}
            return replace(self, rounds={**self.rounds, event.round: replace(rnd, results=results)})
        if event.result in BYE_RESULTS:
            self.player_entry(event.player)
            if game is not None and game.black is not None:
                raise StateError(
                    f"round {event.round}: player {event.player} has a game; a bye code needs "
                    "the pairing edited first"
                )
            if event.result == "U" and (game is None or game.black is not None):
                raise StateError(f"round {event.round}: player {event.player} has no pairing bye")
            codes = {**rnd.bye_codes, event.player: event.result}
            return replace(self, rounds={**self.rounds, event.round: replace(rnd, bye_codes=codes)})
        valid = ", ".join((*TOURNAMENT_CODES, *BYE_RESULTS))
        raise StateError(f"unknown result {event.result!r}; use one of {valid}")

    # -- export ------------------------------------------------------------------------------
    def to_crosstable(self) -> Crosstable:
        """The section as a Crosstable (for standings and TRF export). Paired rounds
        only; a granted bye shows as H/F/Z (its points) unless the player is out of the
        event by then; anyone else left out of a paired round as Z."""
        players = [
            Player(
                start=p.number,
                name=p.name,
                rating=p.rating or None,
                fide_id=int(p.fide_id) if p.fide_id.isdigit() else None,
                federation=p.federation,
                title=p.title,
                sex=p.sex,
                birth=p.birth,
            )
            for p in sorted(self.players.values(), key=lambda e: e.number)
        ]
        games: list[Game] = []
        byes: list[Bye] = []
        granted_code = BYE_CODE_FOR_POINTS.get(self.config.byes.points, "H")
        for number in sorted(self.rounds):
            rnd = self.rounds[number]
            placed: set[int] = set()
            for pairing in rnd.pairings:
                if pairing.black is None:
                    continue
                outcome = rnd.results.get(pairing.white)
                games.append(
                    Game(
                        number,
                        pairing.white,
                        pairing.black,
                        outcome.result if outcome else None,
                        rated=not (outcome and outcome.under_one_move),
                    )
                )
                placed.update(pairing.players())
            for player in sorted(self.players):
                if player in placed:
                    continue
                code = rnd.bye_codes.get(player)
                if code is None and number < self.joined.get(player, 1):
                    # A round before a late entry joined: unplayed, worth what the
                    # section gives a missed round (Z, or H for half a point).
                    code = BYE_CODE_FOR_POINTS.get(self.missed_points.get(player, 0.0), "Z")
                if code is None:
                    # A bye granted before the player withdrew (or was disqualified)
                    # scores nothing once they are out: they are no longer in the event.
                    granted = number in self.byes_of(player) and is_active(self, player, number)
                    code = granted_code if granted else "Z"
                byes.append(Bye(number, player, ResultCode(code)))
        system: CrosstableSystem = "swiss" if self.config.system == "swiss" else "round-robin"
        return build_crosstable(players, self.config.rounds, games, byes, system=system)


@dataclass(frozen=True)
class TournamentState:
    """All sections of an event."""

    event: EventConfig
    sections: Mapping[str, SectionState]

    @classmethod
    def new(cls, event: EventConfig) -> TournamentState:
        return cls(event, {s.name: SectionState(s) for s in event.sections})

    def section(self, name: str) -> SectionState:
        try:
            return self.sections[name]
        except KeyError:
            raise StateError(f"no section {name!r}; sections: {', '.join(self.sections)}") from None

    def apply(self, event: TournamentEvent) -> TournamentState:
        updated = self.section(event.section).apply(event)
        return replace(self, sections={**self.sections, event.section: updated})


def registration_events(event: EventConfig) -> list[PlayersRegistered]:
    """The PlayersRegistered events for the players listed in the config."""
    return [PlayersRegistered(s.name, s.players) for s in event.sections]


def fold(event: EventConfig, events: Iterable[TournamentEvent]) -> TournamentState:
    """Replay `events` from an empty state."""
    state = TournamentState.new(event)
    for item in events:
        state = state.apply(item)
    return state


__all__ = [
    "GameResult",
    "PlayoffGame",
    "RoundState",
    "SectionState",
    "StateError",
    "TournamentState",
    "fold",
    "registration_events",
]
