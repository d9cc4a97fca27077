"""The loaded event config: frozen dataclasses, valid by construction of the loader.

Nothing here reads files; `broadcast.config.loader.load_event` builds these from a
TOML file after checking everything, so code holding an `EventConfig` may trust it.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path
from typing import Literal
from zoneinfo import ZoneInfo

from clocks.timecontrol import TimeControl

__all__ = [
    "ACCELERATIONS",
    "BYE_DEADLINES",
    "CHECK_IN",
    "FIRST_ROUND_NO_SHOW",
    "MISSING_LINEUPS",
    "ON_NO_SHOW_LIMIT",
    "PAIRING_KINDS",
    "PRIZE_SPLITS",
    "PRIZE_TIES",
    "REMAINING_GAMES",
    "RETENTION_BASES",
    "SINGLE_ABSENCE",
    "SYSTEMS",
    "TEAM_COLOURS",
    "TEAM_RANKINGS",
    "TEAM_SWISS_COLOURS",
    "UNDER_HALF",
    "WITHHELD_PRIZES",
    "Acceleration",
    "BoardConfig",
    "ByeDeadline",
    "ByePolicy",
    "CheckIn",
    "EarlyDrawRule",
    "EventConfig",
    "FirstRoundNoShow",
    "LateEntryRules",
    "MissingLineup",
    "NoShowRules",
    "OnNoShowLimit",
    "PairingKind",
    "PairingSource",
    "PlayerEntry",
    "PlayoffRules",
    "PrizeCategory",
    "PrizePool",
    "PrizeRules",
    "PrizeSplit",
    "PrizeTies",
    "Rehearsal",
    "RemainingGames",
    "ResultsMode",
    "RetentionBasis",
    "RoundStart",
    "SectionConfig",
    "SingleAbsence",
    "System",
    "TaxRetention",
    "TeamColours",
    "TeamEntry",
    "TeamRanking",
    "TeamRules",
    "TeamSwissColours",
    "TiebreakEdition",
    "WithdrawalRules",
    "WithheldPrizes",
]

System = Literal["round-robin", "double-round-robin", "swiss"]
PairingKind = Literal["berger", "dutch", "import", "team-swiss"]
# An accelerated Swiss's method (FIDE C.04.5): Baku, virtual points for the top half.
Acceleration = Literal["baku"]
ACCELERATIONS: tuple[Acceleration, ...] = ("baku",)
ResultsMode = Literal["apply", "confirm"]
# Players check in at their table (web/checkin): "off" (no check-in page), "optional" (a
# check-in is presence, its absence says nothing), "required" (no check-in and no move at
# the default time is absence, at tables without an e-board too).
CheckIn = Literal["off", "optional", "required"]
CHECK_IN: tuple[CheckIn, ...] = ("off", "optional", "required")
ByeDeadline = Literal["before-previous-round", "before-round"]
TiebreakEdition = Literal[2024, 2026]

FirstRoundNoShow = Literal["count", "exclude"]
SingleAbsence = Literal["count", "disqualify-unless-continue"]
OnNoShowLimit = Literal["alert", "withdraw"]
RemainingGames = Literal["forfeit", "remove"]
# A round robin's player who leaves having completed under half of their games (FIDE C.06).
UnderHalf = Literal["leave-out", "keep"]
# A tax retention's threshold: each prize on its own, or the player's prizes summed.
RetentionBasis = Literal["each-prize", "total"]
PrizeTies = Literal["share", "share-points", "tiebreak"]
WithheldPrizes = Literal["pass-on", "not-awarded"]
PrizeSplit = Literal["wins"]

FIRST_ROUND_NO_SHOW: tuple[FirstRoundNoShow, ...] = ("count", "exclude")
SINGLE_ABSENCE: tuple[SingleAbsence, ...] = ("count", "disqualify-unless-continue")
ON_NO_SHOW_LIMIT: tuple[OnNoShowLimit, ...] = ("alert", "withdraw")
REMAINING_GAMES: tuple[RemainingGames, ...] = ("forfeit", "remove")
UNDER_HALF: tuple[UnderHalf, ...] = ("leave-out", "keep")
RETENTION_BASES: tuple[RetentionBasis, ...] = ("each-prize", "total")
PRIZE_TIES: tuple[PrizeTies, ...] = ("share", "share-points", "tiebreak")
WITHHELD_PRIZES: tuple[WithheldPrizes, ...] = ("pass-on", "not-awarded")
PRIZE_SPLITS: tuple[PrizeSplit, ...] = ("wins",)

# Team competitions (docs/teams.md): which boards the team named first in a match plays
# White on, what ranks the teams, and what a team that sends no lineup plays with.
TeamColours = Literal["odd", "even"]
TeamRanking = Literal["match-points", "game-points"]
MissingLineup = Literal["last", "strongest"]
TEAM_COLOURS: tuple[TeamColours, ...] = ("odd", "even")
TEAM_RANKINGS: tuple[TeamRanking, ...] = ("match-points", "game-points")
MISSING_LINEUPS: tuple[MissingLineup, ...] = ("last", "strongest")
# C.04.6 1.7: the team Swiss's colour preferences, type A, type B, or none at all.
TeamSwissColours = Literal["A", "B", "none"]
TEAM_SWISS_COLOURS: tuple[TeamSwissColours, ...] = ("A", "B", "none")

SYSTEMS: tuple[System, ...] = ("round-robin", "double-round-robin", "swiss")
PAIRING_KINDS: tuple[PairingKind, ...] = ("berger", "dutch", "import", "team-swiss")
BYE_DEADLINES: tuple[ByeDeadline, ...] = ("before-previous-round", "before-round")


@dataclass(frozen=True, slots=True)
class RoundStart:
    """When one round starts: a wall-clock date and time in a named timezone."""

    round: int
    date: dt.date
    time: dt.time
    timezone: str

    @property
    def start(self) -> dt.datetime:
        """The start as an aware datetime (DST handled by the zone)."""
        return dt.datetime.combine(self.date, self.time, tzinfo=ZoneInfo(self.timezone))


@dataclass(frozen=True, slots=True)
class ByePolicy:
    """Requested half-point (or other) byes: how many, where, and until when.

    `deadline` "before-previous-round": a bye for round r must be asked before round
    r-1 starts (round 1: before round 1 starts). "before-round": before round r starts.
    """

    max_byes: int = 0
    points: float = 0.5
    excluded_rounds: frozenset[int] = frozenset()
    deadline: ByeDeadline = "before-round"

    @property
    def allowed(self) -> bool:
        return self.max_byes > 0


@dataclass(frozen=True, slots=True)
class EarlyDrawRule:
    """No draw by agreement before `min_moves` moves or `min_minutes` of play."""

    min_moves: int = 0
    min_minutes: int = 0


@dataclass(frozen=True, slots=True)
class NoShowRules:
    """What a no-show (a forfeit loss for absence) does, per the regulations.

    `first_round` "exclude": absent at the start of round 1, the player is out of the
    event at once (Sestao art. 6). `single_absence` "disqualify-unless-continue": any
    absence disqualifies unless the player asks in writing to continue before the next
    round is paired (Sestao art. 6). `on_limit` "withdraw": reaching the section's
    `no_show_limit` withdraws the player (their remaining games follow
    `WithdrawalRules`); "alert" only tells the arbiter.
    """

    first_round: FirstRoundNoShow = "count"
    single_absence: SingleAbsence = "count"
    on_limit: OnNoShowLimit = "alert"


@dataclass(frozen=True, slots=True)
class WithdrawalRules:
    """A withdrawn (or eliminated) player's games not yet played in a round robin:
    "forfeit" (the opponent wins +/-, shown to everyone) or "remove" (taken off the
    pairings: nobody scores). In a Swiss a withdrawn player is simply not paired.

    `under_half` (round robins): a player who withdraws or is put out having completed
    (played over the board) fewer than half of their games has their results, and the
    results against them, left out of the standings, the tie-breaks and the prizes
    ("leave-out", FIDE C.06); "keep" counts them as played or forfeited. A Swiss keeps
    them whatever this says (C.06: a Swiss withdrawal's results stay)."""

    remaining_games: RemainingGames = "forfeit"
    under_half: UnderHalf = "leave-out"


@dataclass(frozen=True, slots=True)
class LateEntryRules:
    """What a player who joins a Swiss after the start gets for each round they missed
    (FIDE C.04, general handling rules: no points, or half a point per missed round
    where the organiser announces it). The missed rounds are unplayed for tie-breaks."""

    missed_round_points: float = 0.0


@dataclass(frozen=True, slots=True)
class PlayoffRules:
    """A play-off over the board for first place when players tie on points (Donostia
    art. 10): `games` games at `time_control` between two players (more than two: blitz
    leagues until two or one remain), then one Armageddon game at `armageddon_time_control`
    where a draw goes to `armageddon_draw_winner`."""

    time_control: TimeControl
    armageddon_time_control: TimeControl
    games: int = 2
    armageddon_draw_winner: Literal["black", "white"] = "black"


@dataclass(frozen=True, slots=True)
class PrizePool:
    """An amount split among the players by `split` ("wins": equally per win)."""

    amount: float
    split: PrizeSplit = "wins"


@dataclass(frozen=True, slots=True)
class TaxRetention:
    """A retention the regulation states (Pamplona art. 6): a prize above `above` is
    paid net of `rate` percent, or of `foreign_rate` percent for a player whose
    federation is not `federation` (when both are given). `applies_to` "each-prize":
    the threshold is compared with each prize on its own (place, category, the pools),
    and only the prizes above it are taxed (Pamplona art. 6: "prizes higher than 500 EUR"); "total":
    with the player's prizes summed, and then the whole sum is taxed."""

    above: float
    rate: float
    foreign_rate: float | None = None
    federation: str = ""
    applies_to: RetentionBasis = "each-prize"

    def rate_for(self, federation: str) -> float:
        """The percent retained from a prize of a player of `federation`."""
        if self.foreign_rate is not None and self.federation and federation != self.federation:
            return self.foreign_rate
        return self.rate


# A player's sex as written in the player list: the TRF's "m"/"w", or "M"/"F".
_SEX = {"m": "M", "w": "F", "f": "F"}


@dataclass(frozen=True, slots=True)
class PrizeCategory:
    """Prizes for the best players of a category, `places[0]` for its best. A player
    belongs when every condition given holds: FIDE rating (0 for none: Sestao art. 14)
    at least `rating_from` and below `rating_below`, `sex`, born in `born_from` or later
    (juniors) or in `born_until` or earlier (seniors), `federation`, or listed by
    starting number in `players` (e.g. the best local player)."""

    name: str
    places: tuple[float, ...]
    rating_from: int | None = None
    rating_below: int | None = None
    sex: str = ""
    born_from: int | None = None
    born_until: int | None = None
    federation: str = ""
    players: frozenset[int] | None = None

    def admits(self, start: int, rating: int, sex: str, birth_year: int | None, fed: str) -> bool:
        """Whether the player with these particulars belongs to the category."""
        if self.rating_from is not None and rating < self.rating_from:
            return False
        if self.rating_below is not None and rating >= self.rating_below:
            return False
        if self.sex and _SEX.get(sex.strip().lower(), "") != self.sex:
            return False
        if self.born_from is not None and (birth_year is None or birth_year < self.born_from):
            return False
        if self.born_until is not None and (birth_year is None or birth_year > self.born_until):
            return False
        if self.federation and fed.upper() != self.federation:
            return False
        return self.players is None or start in self.players


@dataclass(frozen=True, slots=True)
class PrizeRules:
    """Place prizes (`places[0]` for 1st, ...) and pools. `ties` "share": players still
    level after every tie-break share the prizes of the places they occupy equally;
    "share-points": players level on points share them (the tie-breaks still rank);
    "tiebreak": no sharing. `forfeit_wins`: a win by forfeit counts as a victory for
    the pools. `eliminated_lose_prizes`: a player out by the no-show rules gets no prize
    (it passes to the next eligible player); None: the config does not say, which counts
    as False (and `check` warns where the rules disqualify). `withheld`: "pass-on" (a
    withheld prize goes to the next eligible player, Pamplona art. 9) or "not-awarded"
    (nobody moves up and the prize is not paid: Sestao art. 14 gives it to the club's
    school). `retention`: the tax the list shows.
    `categories`: prizes for the best of a category; with `one_prize_per_player` a
    player takes only the larger of the place and category prizes they win (equal
    amounts: the first in `order`, "general" for the place prizes), the other passing
    to the next player. The pools are a separate part, paid on top."""

    places: tuple[float, ...] = ()
    ties: PrizeTies = "share"
    pools: tuple[PrizePool, ...] = ()
    currency: str = "EUR"
    forfeit_wins: bool = True
    eliminated_lose_prizes: bool | None = None
    withheld: WithheldPrizes = "pass-on"
    retention: TaxRetention | None = None
    categories: tuple[PrizeCategory, ...] = ()
    one_prize_per_player: bool = True
    order: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class PairingSource:
    """Where pairings come from: Berger tables, our own Dutch engine, or a TRF that
    the event's pairing program (`program`, e.g. Vega or Swiss-Manager) writes."""

    kind: PairingKind
    program: str | None = None


@dataclass(frozen=True, slots=True)
class PlayerEntry:
    """One registered player. `number` is the starting (pairing) number; in a round
    robin it is the number drawn by lot that the Berger table uses."""

    number: int
    name: str
    rating: int = 0
    fide_id: str = ""
    federation: str = ""
    title: str = ""
    sex: str = ""
    birth: str = ""


@dataclass(frozen=True, slots=True)
class TeamEntry:
    """One team of a team section: its number (the team's starting number, which the
    team Berger table and the team Swiss pair), its name, federation or club, and its
    roster: the section's players by starting number in the fixed board order, the
    reserves after the regulars. A player is on one roster only."""

    number: int
    name: str
    roster: tuple[int, ...]
    federation: str = ""
    club: str = ""
    captain: str = ""  # the captain's name, as the lineup sheet shows it

    @property
    def label(self) -> str:
        return self.name


@dataclass(frozen=True, slots=True)
class TeamRules:
    """How a team section plays (FIDE C.04.6 and the event's regulations).

    `boards`: players a side in every match. `match_points`: for a match won, drawn and
    lost (2/1/0 by default); `rank_by`: the teams' primary score. `first_team_white`:
    the team named first in a match has White on the "odd" boards (1, 3, ...) or the
    "even" ones. `lineup_deadline_minutes`: a lineup is due this long before the round's
    start; a later one is refused (the arbiter may still enter it, saying why).
    `missing_lineup`: a team that sends none plays its "last" lineup, or the
    "strongest" available players in roster order. `min_players`: a team that shows
    fewer players than this at the default time loses the match by forfeit (0: never).
    `board_prize_min_games`: games a player must play to be ranked for a board prize.
    `bye_match_points` and `bye_game_points`: what a team without an opponent in a
    Swiss round scores. `swiss_colours`: C.04.6's colour preference variant for a team Swiss
    ("A", "B" or "none"). `individual_tiebreaks`: the individual tie-break codes that
    rank the section's players (their standings and TRF); the section's `tiebreaks` rank
    the teams."""

    boards: int
    match_points: tuple[float, float, float] = (2.0, 1.0, 0.0)
    rank_by: TeamRanking = "match-points"
    first_team_white: TeamColours = "odd"
    lineup_deadline_minutes: int = 0
    missing_lineup: MissingLineup = "last"
    min_players: int = 0
    board_prize_min_games: int = 0
    bye_match_points: float = 2.0
    bye_game_points: float | None = None  # None: half the boards (C.04.6: a drawn match's)
    swiss_colours: TeamSwissColours = "A"
    # No regulation ranks the players of a team event (board prizes go by performance):
    # by default they are ranked by points alone, equal points sharing the rank.
    individual_tiebreaks: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class SectionConfig:
    """One section (group) of the event with its own system, rounds and players."""

    name: str
    system: System
    rounds: int
    schedule: tuple[RoundStart, ...]
    time_control: TimeControl
    default_time_minutes: int
    tiebreaks: tuple[str, ...]
    byes: ByePolicy
    no_show_limit: int | None
    early_draw: EarlyDrawRule | None
    pairing: PairingSource
    players: tuple[PlayerEntry, ...]
    no_shows: NoShowRules = NoShowRules()
    withdrawal: WithdrawalRules = WithdrawalRules()
    playoff: PlayoffRules | None = None
    prizes: PrizeRules | None = None
    # Registration (Sestao art. 7: "foreign players must have a FIDE code"): with
    # `foreign_players_need_fide_id`, a player whose federation is not `home_federation`
    # and who has no FIDE id is a warning of `check`.
    home_federation: str = ""
    foreign_players_need_fide_id: bool = False
    late_entries: LateEntryRules = LateEntryRules()
    # The hall's table of the section's board 1 (broadcast.config.tables); None: the table
    # after the section before it (table 1 for the first section).
    first_table: int | None = None
    # Players enter their game's result on the table page (web/checkin): one proposes, the
    # other (or the arbiter) confirms. None: as the event says (`EventConfig.player_results`).
    player_results: bool | None = None
    # Players check in at their table; None: as the event says (`EventConfig.check_in`).
    check_in: CheckIn | None = None
    # The rating ARO, TPR and APRO give an opponent without a FIDE rating (C.07 leaves
    # it to the regulations); None: such games are left out of those tie-breaks.
    unrated_opponent_rating: int | None = None
    # A Swiss paired with acceleration (FIDE C.04.5.1 Baku): the top group's virtual points
    # count for pairing only, never in the standings. None: not accelerated.
    acceleration: Acceleration | None = None
    # A team section (docs/teams.md): the teams and how they play. Its players are the
    # rosters' players; its pairings pair teams (matches), and each match's boards pair
    # the lineups. None: a section of individuals.
    team_rules: TeamRules | None = None
    teams: tuple[TeamEntry, ...] = ()

    @property
    def is_team(self) -> bool:
        return self.team_rules is not None

    @property
    def individual_tiebreaks(self) -> tuple[str, ...]:
        """The tie-break codes that rank the section's players: a team section's
        `tiebreaks` rank its teams, its players go by `[section.teams]`'s own list."""
        if self.team_rules is not None:
            return self.team_rules.individual_tiebreaks
        return self.tiebreaks

    def team_of(self, player: int) -> TeamEntry | None:
        """The team whose roster holds `player` (None: none, or not a team section)."""
        for team in self.teams:
            if player in team.roster:
                return team
        return None

    def round_start(self, round_number: int) -> RoundStart:
        for start in self.schedule:
            if start.round == round_number:
                return start
        raise KeyError(f"section {self.name!r} has no round {round_number}")

    @property
    def default_time(self) -> dt.timedelta:
        return dt.timedelta(minutes=self.default_time_minutes)


@dataclass(frozen=True, slots=True)
class BoardConfig:
    """A physical board: its number (the e-board's label), where it is wired, which
    section, and the table it stands on (`table`; None: the section's next table, see
    broadcast.config.tables). `station`: the capture station whose port `port` is (a
    path on that computer; None: the serve's own). `serial`: the board's DGT serial
    number; with no `port` ("") the board is found by it, on whichever capture station
    has it plugged in (only `station`'s, if one is named)."""

    number: int
    port: str
    address: int | None
    section: str
    table: int | None = None
    station: str | None = None
    serial: str | None = None

    @property
    def found_by_serial(self) -> bool:
        """Placed where a capture station finds its serial number, not by the config."""
        return not self.port and self.serial is not None


@dataclass(frozen=True, slots=True)
class Rehearsal:
    """How a rehearsal moved the event's schedule: every round start `by` later, so that
    round `round` starts at `at` (broadcast.config.rehearsal)."""

    by: dt.timedelta
    round: int
    at: dt.datetime


@dataclass(frozen=True, slots=True)
class EventConfig:
    """A whole event as loaded from one TOML file."""

    name: str
    site: str
    timezone: str
    broadcast_delay_seconds: int
    tiebreak_edition: TiebreakEdition
    automatic_results: ResultsMode
    sections: tuple[SectionConfig, ...]
    boards: tuple[BoardConfig, ...]
    source: Path | None = None
    # Where `serve` writes the delayed public stream for mirrors (redis://HOST:PORT/DB;
    # `serve --publish` overrides it). None: nothing leaves the venue but the web.
    publish: str | None = None
    # Sites that may show the /embed/ pages in a frame (CSP frame-ancestors), as origins.
    embed_origins: tuple[str, ...] = ()
    # A rehearsal (`serve --sim`) moved every round start by `rehearsal.by` so that its
    # round `rehearsal.round` starts at the rehearsal's start (broadcast.config.rehearsal).
    rehearsal: Rehearsal | None = None
    # Players enter their game's result on the table page (a section may say otherwise).
    player_results: bool = False
    # Players check in at their table (a section may say otherwise): see `CheckIn`.
    check_in: CheckIn = "off"

    def check_in_of(self, section: str) -> CheckIn:
        """The check-in of `section`: its own, or the event's."""
        own = next((s.check_in for s in self.sections if s.name == section), None)
        return own if own is not None else self.check_in

    @property
    def zone(self) -> ZoneInfo:
        return ZoneInfo(self.timezone)

    def section(self, name: str) -> SectionConfig:
        for section in self.sections:
            if section.name == name:
                return section
        known = ", ".join(s.name for s in self.sections)
        raise KeyError(f"no section {name!r}; sections: {known}")
