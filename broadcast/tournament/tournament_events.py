"""Tournament events: immutable facts appended to the journal; the state is their fold.

Players are starting numbers within a section; every event names its section so one
journal holds the whole event. Times are aware datetimes from the TimeSource.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from broadcast.config.model import PlayerEntry
from broadcast.fide.pairing import Pairing
from broadcast.phrases import Phrase
from broadcast.tournament.team_events import LineupSubmitted, LineupWithdrawn, MatchesPaired

# A game's result is `broadcast.fide.results.Result`'s tournament code (TOURNAMENT_CODES);
# a bye is one of these.
BYE_RESULTS = ("H", "F", "U", "Z")


@dataclass(frozen=True, slots=True)
class PlayersRegistered:
    """The section's players (with starting numbers). A later one replaces the list
    (e.g. a late entry before round 1)."""

    section: str
    players: tuple[PlayerEntry, ...]


@dataclass(frozen=True, slots=True)
class RoundPaired:
    """A round's pairings with board numbers; `source` says who paired it
    ("berger", "dutch", "Vega", ...). A pairing with black None is the pairing bye."""

    section: str
    round: int
    pairings: tuple[Pairing, ...]
    source: str = ""


@dataclass(frozen=True, slots=True)
class PairingEdited:
    """The arbiter replaces a round's pairings (results of unchanged games are kept)."""

    section: str
    round: int
    pairings: tuple[Pairing, ...]
    reason: str = ""
    by: str = ""  # who decided (arbiter:<login>, rules), for the journal


@dataclass(frozen=True, slots=True)
class BoardAssigned:
    """The arbiter moves the game whose White is `white` to `board`; a game already
    on that board takes the old board (a swap)."""

    section: str
    round: int
    white: int
    board: int
    by: str = ""  # who decided (arbiter:<login>, rules), for the journal


@dataclass(frozen=True, slots=True)
class ResultRecorded:
    """A result, or a correction of one (the latest wins).

    Games: `player` is White and `result` one of 1-0, 1/2-1/2, 0-1, +- , -+, --;
    `under_one_move` marks a game that ended before both sides moved (TRF W/D/L,
    counted but unrated). Byes: `player` gets H, F, U or Z in that round.
    """

    section: str
    round: int
    player: int
    result: str
    under_one_move: bool = False
    # Why (agreement, checkmate, default-time, forfeit, withdrawal, bye, import, ...):
    # rules such as the no-show count read it, whatever the source of the result.
    reason: str = ""


@dataclass(frozen=True, slots=True)
class ByeRequested:
    """A bye asked for `round`: at the desk (`source` ""), or entered by the pairing
    program in the TRF its round was imported from (`source` "import", `at` the import):
    either way the section's bye policy decides (Sestao art. 5)."""

    section: str
    round: int
    player: int
    at: dt.datetime
    source: str = ""


@dataclass(frozen=True, slots=True)
class ByeGranted:
    """A requested bye is granted (by the policy check or by the arbiter)."""

    section: str
    round: int
    player: int
    at: dt.datetime
    by: str = ""  # who decided (arbiter:<login>, rules), for the journal
    # The regulation's refusal the arbiter overrode ("" = none): journaled and flagged.
    override: str = ""


@dataclass(frozen=True, slots=True)
class ByeRefused:
    section: str
    round: int
    player: int
    at: dt.datetime
    reason: str
    by: str = ""  # who decided (arbiter:<login>, rules), for the journal
    said: Phrase | None = None  # `reason` for the desk's languages (None: English only)


@dataclass(frozen=True, slots=True)
class ByeCancelled:
    """The player takes back a granted bye (allowed until the request deadline)."""

    section: str
    round: int
    player: int
    at: dt.datetime
    by: str = ""  # who decided (arbiter:<login>, rules), for the journal
    # The regulation's refusal the arbiter overrode ("" = none): journaled and flagged.
    override: str = ""


@dataclass(frozen=True, slots=True)
class PlayerWithdrawn:
    """The player is not paired from `from_round` on."""

    section: str
    player: int
    from_round: int
    reason: str = ""
    by: str = ""  # who decided (arbiter:<login>, rules), for the journal
    t: float | None = None  # when (epoch seconds); stamps the forfeits that follow it


@dataclass(frozen=True, slots=True)
class PlayerReinstated:
    """A withdrawn player is in the event again: paired from the next pairing on. The
    arbiter's decision (a withdrawal recorded by mistake), or the rules' when the cause of
    their own withdrawal is gone (a forfeit corrected to a played result)."""

    section: str
    player: int
    reason: str = ""
    by: str = ""  # who decided (arbiter:<login>, rules), for the journal
    from_round: int = 0  # the round the withdrawal taken back started from
    t: float | None = None  # when (epoch seconds)


@dataclass(frozen=True, slots=True)
class NoShowCounted:
    """The player did not show up in `round` (forfeit). Reaching the section's
    no-show limit excludes the player from later pairings."""

    section: str
    round: int
    player: int


@dataclass(frozen=True, slots=True)
class NoShowCancelled:
    """The forfeit that counted the player's no-show in `round` no longer stands (the
    arbiter corrected it to another result): it counts nothing any more."""

    section: str
    round: int
    player: int
    why: str = ""


@dataclass(frozen=True, slots=True)
class ResultRemoved:
    """The game of `round` whose White is `player` has no result any more (a result the
    rules entered for a withdrawal, taken back with the withdrawal)."""

    section: str
    round: int
    player: int


@dataclass(frozen=True, slots=True)
class ContinuationRequested:
    """After an absence in `round`, the player asked in writing to go on (Sestao art. 6:
    before the next round is paired); without it the absence disqualifies."""

    section: str
    round: int
    player: int
    by: str = ""


@dataclass(frozen=True, slots=True)
class PlayoffGamePaired:
    """Play-off game `number` (1, 2, ...) for first place: `kind` "blitz" or
    "armageddon", on pairing board `board`, starting at `at`. Its game is round
    `rounds + number` of the section (so it runs on the section's boards)."""

    section: str
    number: int
    white: int
    black: int
    kind: str
    at: dt.datetime
    board: int = 1
    by: str = ""


@dataclass(frozen=True, slots=True)
class PairingsReleased:
    """The arbiter shows round `round`'s pairings, as they stand, to the public at once,
    although they follow from results the broadcast delay still hides (a Swiss round's
    score groups reveal the round before it). Changes nothing in the tournament: it is
    news for the delayed view (`broadcast.tournament.news`)."""

    section: str
    round: int
    by: str = ""


@dataclass(frozen=True, slots=True)
class PrizeWithheld:
    """The arbiter withholds the player's prize (Pamplona art. 9: a missed game the
    player cannot justify loses any prize); the prize passes to the next eligible
    player. `reason` is shown in the prize list and the journal."""

    section: str
    player: int
    reason: str
    by: str = ""


@dataclass(frozen=True, slots=True)
class PrizeRestored:
    """The arbiter gives back a prize withheld earlier (a justification came late, a
    mistake), or one the config withholds for an elimination."""

    section: str
    player: int
    reason: str = ""
    by: str = ""


@dataclass(frozen=True, slots=True)
class PlayerEntered:
    """A late entry: `player` joins the section after the start with the next free
    starting number (nobody is renumbered) and is paired from `from_round`. Each round
    before it is a missed round worth `missed_points` (0, or 0.5: FIDE C.04 lets the
    organiser announce half-points for missed rounds), unplayed for tie-breaks (Z or H
    in the TRF). A round robin refuses it: its Berger tables are fixed."""

    section: str
    player: PlayerEntry
    from_round: int
    missed_points: float = 0.0
    by: str = ""


@dataclass(frozen=True, slots=True)
class PlayerReplaced:
    """Another participant takes the place of `original` (starting number `player`)
    in the pairings not yet played, from `from_round` (Sestao art. 6).

    `newcomer.number == player`: the original has no result of any kind, so the
    newcomer takes the starting number itself. Otherwise the original keeps the number
    and the results they have (the games stay with whoever played them), is out from
    `from_round`, and the newcomer, with the next free number, takes their place in
    the pairings of `from_round` on; the rounds before it are the newcomer's missed
    rounds, worth `missed_points` each as for a late entry. `override` is the arbiter's
    word for replacing a player who has played games (journaled)."""

    section: str
    player: int
    original: PlayerEntry
    newcomer: PlayerEntry
    from_round: int
    missed_points: float = 0.0
    override: str = ""
    by: str = ""


TournamentEvent = (
    PlayersRegistered
    | RoundPaired
    | PairingEdited
    | BoardAssigned
    | ResultRecorded
    | ByeRequested
    | ByeGranted
    | ByeRefused
    | ByeCancelled
    | PlayerWithdrawn
    | PlayerReinstated
    | NoShowCounted
    | NoShowCancelled
    | ResultRemoved
    | ContinuationRequested
    | PlayoffGamePaired
    | PairingsReleased
    | PrizeWithheld
    | PrizeRestored
    | PlayerEntered
    | PlayerReplaced
    | MatchesPaired
    | LineupSubmitted
    | LineupWithdrawn
)

__all__ = [
    "BYE_RESULTS",
    "BoardAssigned",
    "ByeCancelled",
    "ByeGranted",
    "ByeRefused",
    "ByeRequested",
    "ContinuationRequested",
    "NoShowCancelled",
    "NoShowCounted",
    "PairingEdited",
    "PairingsReleased",
    "PlayerEntered",
    "PlayerReinstated",
    "PlayerReplaced",
    "PlayerWithdrawn",
    "PlayersRegistered",
    "PlayoffGamePaired",
    "PrizeRestored",
    "PrizeWithheld",
    "ResultRecorded",
    "ResultRemoved",
    "RoundPaired",
    "TournamentEvent",
]
