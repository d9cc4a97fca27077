"""A section's record as the tournament fold leaves it: the players, the paired rounds
with their results and bye codes, and what the arbiter and the rules decided (byes,
withdrawals, no-shows, continuations, prizes, late entries). Plain questions of fact are
answered here; what the regulations say of them is in `broadcast.tournament.eligibility`,
and the fold itself (`SectionState.apply`) in `broadcast.tournament.tournament_state`.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field

from broadcast.config.model import PlayerEntry, SectionConfig
from broadcast.fide.pairing import Pairing
from broadcast.phrases import PhrasedError
from broadcast.tournament.team_record import TeamRounds
from broadcast.tournament.tournament_events import PlayerEntered, PlayerReplaced, TournamentEvent
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


BYE_CODE_FOR_POINTS = {0.0: "Z", 0.5: "H", 1.0: "F"}
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
class SectionRecord:
    """Everything recorded of one section after the events so far (`SectionState` is
    this record with its fold)."""

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
    # A team section's matches and lineups by round (broadcast.tournament.teams).
    team_rounds: TeamRounds = field(default_factory=TeamRounds)

    @property
    def name(self) -> str:
        return self.config.name

    @property
    def last_paired_round(self) -> int:
        return max(self.rounds, default=0)

    @property
    def finished(self) -> bool:
        """Every round paired and every game with a result."""
        return all(
            r in self.rounds and self.rounds[r].complete for r in range(1, self.config.rounds + 1)
        )

    def byes_of(self, player: int) -> frozenset[int]:
        """Rounds of the player's requested byes: granted here, or entered by the
        pairing program (H/F in its TRF); they count towards the section's maximum."""
        recorded = {
            number
            for number, rnd in self.rounds.items()
            if rnd.bye_codes.get(player) in _REQUESTED_BYE_CODES
        }
        return self.granted_byes.get(player, frozenset()) | recorded

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

    def playoff_round(self, number: int) -> int:
        """The round number a play-off game's board game carries (after the last round)."""
        return self.config.rounds + number

    def player_entry(self, player: int) -> PlayerEntry:
        try:
            return self.players[player]
        except KeyError:
            raise StateError(f"section {self.name!r} has no player {player}") from None

    def paired_round(self, round_number: int) -> RoundState:
        try:
            return self.rounds[round_number]
        except KeyError:
            raise StateError(f"round {round_number} is not paired yet") from None

    def check_round_number(self, round_number: int) -> None:
        if not 1 <= round_number <= self.config.rounds:
            raise StateError(f"round {round_number} is outside 1..{self.config.rounds}")


__all__ = [
    "BYE_CODE_FOR_POINTS",
    "GameResult",
    "PlayoffGame",
    "RoundState",
    "SectionRecord",
    "StateError",
]
