"""Tournament state as a fold of events: `state = state.apply(event)`, deterministic,
never mutated in place. Restart = replay the journal; a test = a list of events.

`apply` raises `StateError` (a ValueError with an actionable message) for an event
that does not fit the state, so the service can refuse it before it is journalled;
the state is then unchanged. `to_crosstable` hands the result to standings and TRF
export.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from broadcast.config.model import EventConfig, PlayerEntry, SectionConfig
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
from broadcast.phrases import PhrasedError, say
from broadcast.tournament.bye_policy import check_bye_request
from broadcast.tournament.events import (
    BYE_RESULTS,
    GAME_RESULTS,
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
from broadcast.tournament.schedule import StartOverrides
from clocks.errors import BoardwireError


class StateError(PhrasedError, BoardwireError, ValueError):
    """An event that cannot apply to the current state (said as a phrase where the desk
    shows it)."""


@dataclass(frozen=True, slots=True)
class GameResult:
    result: str
    under_one_move: bool = False


@dataclass(frozen=True)
class RoundState:
    """One paired round: its pairings, the game results by White, the bye codes."""

    number: int
    pairings: tuple[Pairing, ...]
    source: str = ""
    results: Mapping[int, GameResult] = field(default_factory=dict)
    bye_codes: Mapping[int, str] = field(default_factory=dict)

    def game_of(self, player: int) -> Pairing | None:
        for pairing in self.pairings:
            if player in pairing.players():
                return pairing
        return None

    @property
    def complete(self) -> bool:
        """Every game has a result."""
        return all(p.black is None or p.white in self.results for p in self.pairings)


_BYE_CODE_FOR_POINTS = {0.0: "Z", 0.5: "H", 1.0: "F"}
_REQUESTED_BYE_CODES = frozenset({"H", "F"})


@dataclass(frozen=True, slots=True)
class PlayoffGame:
    """One play-off game for first place and its result (None while unplayed)."""

    number: int
    white: int
    black: int
    kind: str
    at: dt.datetime
    board: int = 1
    result: str | None = None


@dataclass(frozen=True)
class SectionState:
    """Everything known about one section after the events so far."""

    config: SectionConfig
    players: Mapping[int, PlayerEntry] = field(default_factory=dict)
    rounds: Mapping[int, RoundState] = field(default_factory=dict)
    granted_byes: Mapping[int, frozenset[int]] = field(default_factory=dict)
    bye_log: tuple[TournamentEvent, ...] = ()
    withdrawn: Mapping[int, int] = field(default_factory=dict)
    no_shows: Mapping[int, tuple[int, ...]] = field(default_factory=dict)
    continuations: Mapping[int, frozenset[int]] = field(default_factory=dict)
    withdraw_reasons: Mapping[int, str] = field(default_factory=dict)
    # Who withdrew each withdrawn player ("rules": the no-show rules, which take their
    # own withdrawal back when its cause is gone; else the arbiter).
    withdrawn_by: Mapping[int, str] = field(default_factory=dict)
    playoff: Mapping[int, PlayoffGame] = field(default_factory=dict)
    # Prizes the arbiter withheld (player -> reason) and gave back (player -> reason).
    prizes_withheld: Mapping[int, str] = field(default_factory=dict)
    prizes_restored: Mapping[int, str] = field(default_factory=dict)
    # Late entries and replacement newcomers: the first round they may be paired in, and
    # what each round before it (a missed round) is worth; the two logs for the desk.
    joined: Mapping[int, int] = field(default_factory=dict)
    missed_points: Mapping[int, float] = field(default_factory=dict)
    late_entries: tuple[PlayerEntered, ...] = ()
    replacements: tuple[PlayerReplaced, ...] = ()

    # -- questions ---------------------------------------------------------------------
    @property
    def name(self) -> str:
        return self.config.name

    @property
    def last_paired_round(self) -> int:
        return max(self.rounds, default=0)

    def is_active(self, player: int, round_number: int) -> bool:
        """May `player` be paired in `round_number`: not withdrawn, under the no-show
        limit counting earlier rounds, no absence they did not ask to continue after."""
        return not self.out_reason(player, round_number)

    def out_reason(self, player: int, round_number: int) -> str:
        """Why `player` may not be paired in `round_number`, as the regulation says it
        ("" = they may): for a refused bye or pairing, and the desk."""
        joins = self.joined.get(player, 1)
        if round_number < joins:
            return f"the player joined late: they are paired from round {joins}"
        start = self.withdrawn.get(player)
        if start is not None and round_number >= start:
            why = self.withdraw_reasons.get(player, "")
            return f"the player has withdrawn from round {start}" + (f" ({why})" if why else "")
        earlier = [r for r in self.no_shows.get(player, ()) if r < round_number]
        limit = self.config.no_show_limit
        if limit is not None and len(earlier) >= limit:
            listed = ", ".join(str(r) for r in earlier)
            return (
                f"the player did not show up in rounds {listed}: {len(earlier)} no-shows "
                f"reach the limit of {limit}, so they are out of the tournament"
            )
        absent = self.disqualifying_absence(player, round_number)
        if absent is None:
            return ""
        if absent + 1 in self.rounds:
            return (
                f"the player was absent in round {absent} and did not ask in writing to "
                f"continue before round {absent + 1} was paired: disqualified"
            )
        return (
            f"the player was absent in round {absent}: disqualified unless they ask in "
            f"writing to continue before round {absent + 1} is paired (record it with "
            "'continue' first)"
        )

    @property
    def finished(self) -> bool:
        """Every round paired and every game with a result."""
        return all(
            r in self.rounds and self.rounds[r].complete for r in range(1, self.config.rounds + 1)
        )

    def disqualifying_absence(self, player: int, round_number: int) -> int | None:
        """Under a single-absence rule: the earlier round of an absence the player did not
        ask to continue after (so they are out from then on), else None."""
        if self.config.no_shows.single_absence != "disqualify-unless-continue":
            return None
        kept = self.continuations.get(player, frozenset())
        for absent in self.no_shows.get(player, ()):
            if absent < round_number and absent not in kept:
                return absent
        return None

    def continuation_refusal(self, player: int, round_number: int) -> str:
        """Why a request to continue after an absence in `round_number` cannot succeed,
        in the regulation's words ("" = it can): the section's rules give no way back
        (round-1 exclusion, the no-show limit, a withdrawal), or the request is late."""
        rules = self.config.no_shows
        if round_number not in self.no_shows.get(player, ()):
            return f"player {player} has no absence in round {round_number} to continue after"
        if round_number == 1 and rules.first_round == "exclude":
            return (
                "the player who does not show up at the beginning of the first round is "
                "excluded from the tournament (the regulations; [section.no_shows] "
                'first_round = "exclude"): a request to continue cannot bring them back'
            )
        if rules.single_absence != "disqualify-unless-continue":
            return (
                "this section's regulations do not disqualify after one absence "
                '([section.no_shows] single_absence is not "disqualify-unless-continue"): '
                "there is nothing to continue after"
            )
        # Out for another reason (withdrawn, the no-show limit, an earlier absence): the
        # request would be recorded and change nothing.
        after = round_number + 1
        withdrawn = self.withdrawn.get(player, after + 1) <= after
        shows = self.no_shows.get(player, ())
        limit = self.config.no_show_limit
        at_limit = limit is not None and len([r for r in shows if r < after]) >= limit
        if withdrawn or at_limit or self.disqualifying_absence(player, round_number) is not None:
            return f"{self.out_reason(player, after)}: a request to continue cannot bring them back"
        if round_number + 1 in self.rounds:
            return (
                "a player's absence from a round results in disqualification unless the "
                "player requests to continue in writing before the pairing for the next "
                f"round is published: round {round_number + 1} is already paired"
            )
        return ""

    def status_of(self, player: int) -> str:
        """ "" for a player in the event; otherwise why they are out (pages, exports)."""
        start = self.withdrawn.get(player)
        if start is not None:
            why = self.withdraw_reasons.get(player, "")
            return f"withdrawn from round {start}" + (f" ({why})" if why else "")
        after = self.config.rounds + 1
        limit = self.config.no_show_limit
        shows = self.no_shows.get(player, ())
        if limit is not None and len(shows) >= limit:
            return f"out: {len(shows)} no-shows (limit {limit})"
        absent = self.disqualifying_absence(player, after)
        if absent is not None:
            if absent + 1 in self.rounds or absent >= self.config.rounds:
                return f"disqualified: absent in round {absent}"
            return f"absent in round {absent}: out unless they ask to continue"
        return ""

    def eliminated(self, player: int) -> bool:
        """Out of the event by its no-show rules (the limit reached, an absence in round 1
        where that excludes, or an absence that disqualifies), not by a withdrawal the
        arbiter recorded for another reason."""
        limit = self.config.no_show_limit
        shows = self.no_shows.get(player, ())
        if limit is not None and len(shows) >= limit:
            return True
        if 1 in shows and self.config.no_shows.first_round == "exclude":
            return True
        return self.disqualifying_absence(player, self.config.rounds + 1) is not None

    def excluded_by_rules(self, player: int) -> str:
        """Why the section's no-show rules put the player out (what the rules' withdrawal
        says), "" when they do not: an absence in round 1 where that excludes, or the
        no-show limit where reaching it withdraws."""
        rules = self.config.no_shows
        shows = self.no_shows.get(player, ())
        if 1 in shows and rules.first_round == "exclude":
            return "absent in round 1"
        limit = self.config.no_show_limit
        if limit is not None and len(shows) >= limit and rules.on_limit == "withdraw":
            return f"{len(shows)} no-shows"
        return ""

    def prize_withheld(self, player: int) -> str:
        """Why the player's prize is withheld ("" = it is not): the arbiter's decision,
        or an elimination when `[section.prizes] eliminated_lose_prizes` says so."""
        if player in self.prizes_withheld:
            return self.prizes_withheld[player]
        return self.disqualified_from_prizes(player)

    def disqualified_from_prizes(self, player: int) -> str:
        """Why an elimination takes the player out of the prizes ("" = it does not): a
        disqualified player is out of the prize ranking, so the prize always passes on,
        whatever `withheld` says of prizes the arbiter withholds (a winner missing the
        ceremony)."""
        if player in self.prizes_withheld:
            return ""
        prizes = self.config.prizes
        if (
            prizes is not None
            and prizes.eliminated_lose_prizes
            and player not in self.prizes_restored
            and self.eliminated(player)
        ):
            return "eliminated by the no-show rules"
        return ""

    def byes_of(self, player: int) -> frozenset[int]:
        """Rounds of the player's requested byes: granted here, or entered by the
        pairing program (H/F in its TRF); they count towards the section's maximum."""
        recorded = {
            number
            for number, rnd in self.rounds.items()
            if rnd.bye_codes.get(player) in _REQUESTED_BYE_CODES
        }
        return self.granted_byes.get(player, frozenset()) | recorded

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
        granted = _BYE_CODE_FOR_POINTS.get(self.config.byes.points, "H")
        for player in self.players:
            if (
                player not in out
                and player not in in_game
                and round_number in self.byes_of(player)
                and self.is_active(player, round_number)
            ):
                out[player] = granted
        return dict(sorted(out.items()))

    def absent_for(self, round_number: int) -> frozenset[int]:
        """Players not to be paired in `round_number`: withdrawn, over the no-show
        limit, or holding a granted bye for that round."""
        return frozenset(
            p
            for p in self.players
            if not self.is_active(p, round_number) or round_number in self.byes_of(p)
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
            out_reason=self.out_reason(request.player, request.round),
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
                byes = {p.white: "U" for p in event.pairings if p.black is None}
                new_round = RoundState(event.round, event.pairings, event.source, {}, byes)
                return replace(self, rounds={**self.rounds, event.round: new_round})
            case PairingEdited():
                old = self._round(event.round)
                self._check_pairings(event.round, event.pairings)
                kept_games = {(p.white, p.black) for p in event.pairings if p.black is not None}
                old_games = {p.white: p.black for p in old.pairings if p.black is not None}
                results = {
                    w: r for w, r in old.results.items() if (w, old_games.get(w)) in kept_games
                }
                in_game = {x for p in event.pairings if p.black is not None for x in p.players()}
                codes = {p: c for p, c in old.bye_codes.items() if p not in in_game and c != "U"}
                codes.update({p.white: "U" for p in event.pairings if p.black is None})
                edited = RoundState(event.round, event.pairings, old.source, results, codes)
                return replace(self, rounds={**self.rounds, event.round: edited})
            case BoardAssigned():
                return self._board_assigned(event)
            case ResultRecorded():
                return self._result(event)
            case ByeRequested() | ByeRefused():
                self._player(event.player)
                return replace(self, bye_log=(*self.bye_log, event))
            case ByeGranted():
                self._player(event.player)
                self._check_round_number(event.round)
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
                self._player(event.player)
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
                self._player(event.player)
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
                rnd = self._round(event.round)
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
                self._round(event.round)
                return self  # news for the public view only (broadcast.tournament.news)
            case PrizeWithheld():
                self._player(event.player)
                restored = {k: v for k, v in self.prizes_restored.items() if k != event.player}
                return replace(
                    self,
                    prizes_withheld={**self.prizes_withheld, event.player: event.reason},
                    prizes_restored=restored,
                )
            case PrizeRestored():
                self._player(event.player)
                if not self.prize_withheld(event.player):
                    raise StateError(f"player {event.player}'s prize is not withheld")
                kept = {k: v for k, v in self.prizes_withheld.items() if k != event.player}
                return replace(
                    self,
                    prizes_withheld=kept,
                    prizes_restored={**self.prizes_restored, event.player: event.reason},
                )
            case PlayerEntered():
                return self._entered(event)
            case PlayerReplaced():
                return self._replaced(event)
            case NoShowCounted():
                self._player(event.player)
                self._check_round_number(event.round)
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
        raise StateError(f"not a tournament event: {event!r}")  # pragma: no cover

    def _reinstated(self, event: PlayerReinstated) -> SectionState:
        self._player(event.player)
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
    def _player(self, player: int) -> PlayerEntry:
        try:
            return self.players[player]
        except KeyError:
            raise StateError(f"section {self.name!r} has no player {player}") from None

    def _round(self, round_number: int) -> RoundState:
        try:
            return self.rounds[round_number]
        except KeyError:
            raise StateError(f"round {round_number} is not paired yet") from None

    def recorded_rounds(self, player: int) -> tuple[int, ...]:
        """The paired rounds in which the player has a result of any kind: a game with
        a result (forfeits too), a bye code entered (H, F, Z), or the pairing bye or a
        granted bye of a round that is over (before that it is a pairing or a request,
        like a game not yet played: a round robin pairs every round's bye at the start)."""
        out = []
        for number in sorted(self.rounds):
            rnd = self.rounds[number]
            game = rnd.game_of(player)
            code = rnd.bye_codes.get(player)
            if game is not None and game.black is not None:
                recorded = game.white in rnd.results
            elif code == "U" and game is not None:
                recorded = rnd.complete
            elif code is None and number in self.granted_byes.get(player, frozenset()):
                recorded = rnd.complete  # a granted bye scores once its round is over
            else:
                recorded = code is not None
            if recorded:
                out.append(number)
        return tuple(out)

    def played_rounds(self, player: int) -> tuple[int, ...]:
        """The rounds in which the player played a game over the board (not a forfeit)."""
        out = []
        for number in self.recorded_rounds(player):
            rnd = self.rounds[number]
            game = rnd.game_of(player)
            if game is None or game.black is None or game.white not in rnd.results:
                continue
            if rnd.results[game.white].result in ("1-0", "1/2-1/2", "0-1"):
                out.append(number)
        return tuple(out)

    @property
    def next_number(self) -> int:
        """The starting number a newcomer gets: the next free one (nobody is renumbered
        in the middle of an event, as FIDE pairing programs do)."""
        return max(self.players, default=0) + 1

    def _check_newcomer(self, entry: PlayerEntry, from_round: int, missed: float) -> None:
        if not entry.name.strip():
            raise StateError("a newcomer needs a name")
        if not 1 <= from_round <= self.config.rounds:
            raise StateError(f"round {from_round} is outside 1..{self.config.rounds}")
        if missed not in (0.0, 0.5):
            raise StateError(
                f"{missed!r} points per missed round: FIDE allows 0 or 0.5 for a late entry"
            )

    def _entered(self, event: PlayerEntered) -> SectionState:
        if self.config.system != "swiss":
            raise StateError(
                say(
                    "section %(section)s is a round robin: its Berger tables are fixed, so "
                    "nobody can join it late (a player who has not played yet can be replaced)",
                    section=repr(self.name),
                )
            )
        entry = event.player
        last = self.last_paired_round
        if last >= self.config.rounds:
            raise StateError(
                say(
                    "every round of %(section)s is paired: it is too late to enter",
                    section=repr(self.name),
                )
            )
        self._check_newcomer(entry, event.from_round, event.missed_points)
        if entry.number != self.next_number:
            raise StateError(
                say(
                    "a late entry gets the next free starting number, %(next)s, not %(number)s",
                    next=self.next_number,
                    number=entry.number,
                )
            )
        if event.from_round <= last:
            raise StateError(
                say(
                    "round %(round)s is already paired: a late entry joins a round not paired "
                    "yet (the next is %(next)s)",
                    round=event.from_round,
                    next=last + 1,
                )
            )
        return replace(
            self,
            players={**self.players, entry.number: entry},
            joined={**self.joined, entry.number: event.from_round},
            missed_points={**self.missed_points, entry.number: event.missed_points},
            late_entries=(*self.late_entries, event),
        )

    def _replaced(self, event: PlayerReplaced) -> SectionState:
        original = self._player(event.player)
        if original != event.original:
            raise StateError(f"player {event.player} is {original.name}, not {event.original.name}")
        new = event.newcomer
        self._check_newcomer(new, event.from_round, event.missed_points)
        recorded = self.recorded_rounds(event.player)
        if new.number == event.player:
            return self._takes_number(event, recorded)
        if self.config.system != "swiss":
            raise StateError(
                f"section {self.name!r} is a round robin: its Berger tables are fixed, so a "
                f"player can be replaced only before their first result (player "
                f"{event.player} has one in round {recorded[0] if recorded else '?'})"
            )
        if not recorded:
            raise StateError(
                f"player {event.player} has no result yet: the newcomer takes starting "
                f"number {event.player} itself"
            )
        if new.number != self.next_number:
            raise StateError(
                f"the newcomer gets the next free starting number, {self.next_number}, "
                f"not {new.number}"
            )
        if event.from_round <= recorded[-1]:
            raise StateError(
                f"player {event.player} has a result in round {recorded[-1]}: the newcomer "
                f"takes their place from round {recorded[-1] + 1}"
            )
        played = self.played_rounds(event.player)
        if played and not event.override.strip():
            listed = ", ".join(str(r) for r in played)
            raise StateError(
                f"player {event.player} has played (rounds {listed}): only the arbiter's "
                "override replaces a player who has played, once they have withdrawn"
            )
        if played and not self.out_reason(event.player, event.from_round):
            raise StateError(
                f"player {event.player} has played and is still in the event in round "
                f"{event.from_round}: withdraw them first, then replace them"
            )
        rounds = dict(self.rounds)
        for number, rnd in self.rounds.items():
            if number >= event.from_round and rnd.game_of(event.player) is not None:
                pairings = tuple(_substitute(p, event.player, new.number) for p in rnd.pairings)
                codes = dict(rnd.bye_codes)
                if codes.pop(event.player, None) == "U":  # the pairing bye goes with the place
                    codes[new.number] = "U"
                rounds[number] = replace(rnd, pairings=pairings, bye_codes=codes)
        start = self.withdrawn.get(event.player)
        withdrawn, reasons = dict(self.withdrawn), dict(self.withdraw_reasons)
        withdrawn_by = dict(self.withdrawn_by)
        if start is None or start > event.from_round:
            withdrawn[event.player] = event.from_round
            reasons[event.player] = f"replaced by {new.number} {new.name}"
            withdrawn_by[event.player] = event.by
        return replace(
            self,
            players={**self.players, new.number: new},
            rounds=rounds,
            withdrawn=withdrawn,
            withdraw_reasons=reasons,
            withdrawn_by=withdrawn_by,
            joined={**self.joined, new.number: event.from_round},
            missed_points={**self.missed_points, new.number: event.missed_points},
            replacements=(*self.replacements, event),
        )

    def _takes_number(self, event: PlayerReplaced, recorded: tuple[int, ...]) -> SectionState:
        """The newcomer takes the starting number of a player without any result: the
        original's requests (byes), absences and decisions go with them."""
        number = event.player
        if recorded:
            raise StateError(
                f"player {number} has a result in round {recorded[0]}: the games stay with "
                f"whoever played them, so the newcomer gets the next free number, "
                f"{self.next_number}"
            )
        if self.no_shows.get(number):
            raise StateError(f"player {number} has a no-show counted: they have a result")
        paired = [r for r, rnd in self.rounds.items() if rnd.game_of(number) is not None]
        if paired and min(paired) < event.from_round:
            raise StateError(
                f"player {number} is paired in round {min(paired)}: the newcomer takes "
                f"their place from that round"
            )
        if self.config.system != "swiss" and event.from_round != 1:
            raise StateError(
                "a round robin's newcomer plays every game of the starting number: from round 1"
            )

        def without(mapping: Mapping[int, Any]) -> dict[int, Any]:
            return {k: v for k, v in mapping.items() if k != number}

        joined = without(self.joined)
        missed = without(self.missed_points)
        if event.from_round > 1:
            joined[number] = event.from_round
            missed[number] = event.missed_points
        return replace(
            self,
            players={**self.players, number: event.newcomer},
            granted_byes=without(self.granted_byes),
            withdrawn=without(self.withdrawn),
            withdraw_reasons=without(self.withdraw_reasons),
            withdrawn_by=without(self.withdrawn_by),
            no_shows=without(self.no_shows),
            continuations=without(self.continuations),
            prizes_withheld=without(self.prizes_withheld),
            prizes_restored=without(self.prizes_restored),
            joined=joined,
            missed_points=missed,
            replacements=(*self.replacements, event),
        )

    def _check_round_number(self, round_number: int) -> None:
        if not 1 <= round_number <= self.config.rounds:
            raise StateError(f"round {round_number} is outside 1..{self.config.rounds}")

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
        self._check_round_number(round_number)
        seen: set[int] = set()
        boards: set[int] = set()
        for pairing in pairings:
            for player in pairing.players():
                self._player(player)
                if player in seen:
                    raise StateError(f"round {round_number}: player {player} is paired twice")
                seen.add(player)
                why = self.out_reason(player, round_number)
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
        rnd = self._round(event.round)
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
        self._player(event.player)
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
            self._player(player)
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

    def playoff_round(self, number: int) -> int:
        """The round number a play-off game's board game carries (after the last round)."""
        return self.config.rounds + number

    def _playoff_result(self, event: ResultRecorded) -> SectionState:
        game = self.playoff.get(event.round - self.config.rounds)
        if game is None or event.player != game.white:
            raise StateError(f"round {event.round}: no play-off game with White {event.player}")
        if event.result not in GAME_RESULTS:
            raise StateError(f"a play-off game cannot end {event.result!r}")
        played = replace(game, result=event.result)
        return replace(self, playoff={**self.playoff, game.number: played})

    def _result(self, event: ResultRecorded) -> SectionState:
        if event.round > self.config.rounds and event.round not in self.rounds:
            return self._playoff_result(event)
        rnd = self._round(event.round)
        game = rnd.game_of(event.player)
        if event.result in GAME_RESULTS:
            if game is None or game.black is None or game.white != event.player:
                raise StateError(
                    f"round {event.round}: player {event.player} is not White in a game; "
                    "results are recorded by White's number"
                )
            if event.under_one_move and event.result in ("+-", "-+", "--"):
                raise StateError(
                    "a forfeit has no moves; under_one_move applies to 1-0, 1/2-1/2, 0-1"
                )
            results = {**rnd.results, event.player: GameResult(event.result, event.under_one_move)}
            return replace(self, rounds={**self.rounds, event.round: replace(rnd, results=results)})
        if event.result in BYE_RESULTS:
            self._player(event.player)
            if game is not None and game.black is not None:
                raise StateError(
                    f"round {event.round}: player {event.player} has a game; a bye code needs "
                    "the pairing edited first"
                )
            if event.result == "U" and (game is None or game.black is not None):
                raise StateError(f"round {event.round}: player {event.player} has no pairing bye")
            codes = {**rnd.bye_codes, event.player: event.result}
            return replace(self, rounds={**self.rounds, event.round: replace(rnd, bye_codes=codes)})
        valid = ", ".join((*GAME_RESULTS, *BYE_RESULTS))
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
        granted_code = _BYE_CODE_FOR_POINTS.get(self.config.byes.points, "H")
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
                    code = _BYE_CODE_FOR_POINTS.get(self.missed_points.get(player, 0.0), "Z")
                if code is None:
                    # A bye granted before the player withdrew (or was disqualified)
                    # scores nothing once they are out: they are no longer in the event.
                    granted = number in self.byes_of(player) and self.is_active(player, number)
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


def _substitute(pairing: Pairing, old: int, new: int) -> Pairing:
    """The pairing with starting number `old` replaced by `new`."""
    if pairing.white == old:
        return replace(pairing, white=new)
    if pairing.black == old:
        return replace(pairing, black=new)
    return pairing


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
