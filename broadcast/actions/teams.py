"""A team section's actions: a lineup, a team round's matches, and the round's boards.

- `SubmitLineup`: a team's players for a round in board order (the captain's sheet, sent
  through the arbiter's API or entered at the desk). Checked by the section's lineup rules
  (`tournament.lineups.check_lineup`: roster order, players of that team only, in time);
  refused with the rule in words. The arbiter's `override` (their words) passes a lineup
  that is late, and only that: every other rule still holds. A second lineup replaces the
  first, after the arbiter has seen it. `WithdrawLineup` takes one back while the round's
  boards are not paired.
- `PairTeamRound`: the round's matches, from the team Berger table (a round robin) or the
  team Swiss (C.04.6), or as given (the pairing program's, by hand). The guards are the
  individuals': a Swiss round is not paired while a round before it has games without a
  result (unless overridden); a round already composed into boards is not paired again.
  `plan_of` is the preview: the matches in words, nothing journaled.
- `ComposeTeamRound`: the round's boards from its matches and lineups; a team that sent
  none plays the section's fallback (journaled as its lineup, `fallback` saying which
  rule made it). The boards are an ordinary `RoundPaired`: from then on the lineups are
  the round's pairings, and public with them (not before: the public pages show a
  round's lineups once the round is paired).

Each is undone by `Undo` like any action: the lineup, the matches or the boards it put in
are taken out again, and what stood before comes back.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from broadcast.actions.door import ActionHost, Plan, section_state
from broadcast.actions.pairings import check_results_in
from broadcast.actions.team_swiss import swiss_matches
from broadcast.actions.words import player_words
from broadcast.config.model import TeamEntry, TeamRules
from broadcast.fide.teams.berger import team_berger_round
from broadcast.fide.teams.match import Match
from broadcast.journal.kinds import JournalEvent
from broadcast.phrases import phrase_of, say
from broadcast.service.committer import ActionError
from broadcast.service.hall import utc
from broadcast.tournament.lineups import LineupRefused, check_lineup
from broadcast.tournament.section import StateError
from broadcast.tournament.team_events import LineupSubmitted, LineupWithdrawn, MatchesPaired
from broadcast.tournament.team_rounds import compose_round, fallback_lineups
from broadcast.tournament.tournament_events import RoundPaired
from broadcast.tournament.tournament_state import SectionState

__all__ = [
    "ComposeTeamRound",
    "PairTeamRound",
    "SubmitLineup",
    "WithdrawLineup",
    "lineup_words",
    "match_words",
    "team_entry",
    "team_rules",
]


def team_rules(state: SectionState) -> TeamRules:
    """The section's team rules; ActionError for a section of individuals."""
    rules = state.config.team_rules
    if rules is None:
        raise ActionError(
            say("%(name)s is not a team section: it has no teams or lineups", name=state.name)
        )
    return rules


def team_entry(state: SectionState, team: int) -> TeamEntry:
    """Team number `team` of the section; ActionError naming the teams otherwise."""
    team_rules(state)
    for entry in state.config.teams:
        if entry.number == team:
            return entry
    raise ActionError(
        say(
            "%(name)s has no team %(team)s (its teams are numbered 1 to %(last)s)",
            name=state.name,
            team=team,
            last=len(state.config.teams),
        )
    )


def _team_name(state: SectionState, team: int | None) -> str:
    if team is None:
        return "bye"
    entry = next((t for t in state.config.teams if t.number == team), None)
    return entry.name if entry is not None else f"team {team}"


def lineup_words(state: SectionState, players: Sequence[int | None]) -> str:
    """ "1. Agirre, Jon (1), 2. Bengoetxea, Iker (2), 3. empty" """
    return ", ".join(
        f"{board}. {player_words(state, p) if p is not None else 'empty'}"
        for board, p in enumerate(players, start=1)
    )


def match_words(state: SectionState, match: Match) -> str:
    """ "match 2: Bilbo Xake Kluba - Gasteiz Zuhaitz" (or "... has the bye")."""
    if match.second is None:
        return f"match {match.number}: {_team_name(state, match.first)} has the bye"
    first, second = _team_name(state, match.first), _team_name(state, match.second)
    return f"match {match.number}: {first} - {second}"


def _matches(state: SectionState, round_number: int) -> tuple[Match, ...]:
    return state.team_rounds.round_matches(round_number)


def _lineup(state: SectionState, round_number: int, team: int) -> LineupSubmitted | None:
    return state.team_rounds.lineup(round_number, team)


def _check_round(state: SectionState, round_number: int) -> None:
    if not 1 <= round_number <= state.config.rounds:
        raise ActionError(
            say(
                "%(name)s has rounds 1 to %(last)s, not %(round)s",
                name=state.name,
                last=state.config.rounds,
                round=round_number,
            )
        )


def _check_not_composed(state: SectionState, round_number: int, what: str) -> None:
    """Once a round's boards are paired its lineups are its pairings: changing one is
    changing the pairings, which starts from undoing the composition."""
    if round_number in state.rounds:
        raise ActionError(
            say(
                "round %(round)s of %(name)s is already paired board by board, so %(what)s "
                "cannot change any more: undo the round's pairing first",
                round=round_number,
                name=state.name,
                what=what,
            )
        )


@dataclass(frozen=True, slots=True)
class SubmitLineup:
    """`team`'s lineup for `round` of `section`: starting numbers in board order, None for
    an empty board (only at the bottom). `override`: the arbiter's words for entering a
    lineup that comes after the deadline."""

    section: str
    round: int
    team: int
    players: tuple[int | None, ...]
    override: str = ""
    kind: ClassVar[str] = "lineup"

    def plan(self, host: ActionHost, by: str) -> Plan:
        state = section_state(host, self.section)
        team_rules(state)
        entry = team_entry(state, self.team)
        _check_round(state, self.round)
        _check_not_composed(state, self.round, f"the lineup of {entry.name}")
        at = utc(host.time_source.now())
        moved = host.state.start_overrides
        why = self.override.strip()
        try:
            check_lineup(state.config, state, self.round, self.team, self.players, at, moved=moved)
            why = ""  # in time: there is nothing to override
        except LineupRefused as exc:
            if not why:
                raise ActionError(phrase_of(exc)) from None
            # The override lets a late lineup in, and nothing else: every other rule holds.
            try:
                check_lineup(
                    state.config, state, self.round, self.team, self.players, at,
                    override=why, moved=moved,
                )  # fmt: skip
            except LineupRefused as still:
                raise ActionError(phrase_of(still)) from None
        event = LineupSubmitted(
            state.name, self.round, self.team, self.players, at, by, override=why
        )
        try:
            state.apply(event)
        except StateError as exc:
            raise ActionError(phrase_of(exc)) from None
        summary = (
            f"{entry.name}: lineup for round {self.round} ({lineup_words(state, self.players)})"
        )
        notes: list[str] = []
        if why:
            summary += f", late, entered by the arbiter ({why})"
            notes.append("journaled as the arbiter's override of the lineup deadline")
        notes.append("public once the round is paired board by board")
        before = _lineup(state, self.round, self.team)
        removes: tuple[str, ...] = ()
        if before is not None:
            removes = (f"the lineup it replaces ({lineup_words(state, before.players)})",)
        return Plan(self.kind, summary, (event,), removes, tuple(notes))


@dataclass(frozen=True, slots=True)
class WithdrawLineup:
    """Take `team`'s lineup for `round` back (before the round's boards are paired): the
    team has sent none again, and the fallback rule will make one if none comes."""

    section: str
    round: int
    team: int
    kind: ClassVar[str] = "lineup-withdrawn"

    def plan(self, host: ActionHost, by: str) -> Plan:
        state = section_state(host, self.section)
        entry = team_entry(state, self.team)
        _check_not_composed(state, self.round, f"the lineup of {entry.name}")
        before = _lineup(state, self.round, self.team)
        if before is None:
            raise ActionError(
                say(
                    "%(team)s has no lineup for round %(round)s to take back",
                    team=entry.name,
                    round=self.round,
                )
            )
        event = LineupWithdrawn(state.name, self.round, self.team, by)
        return Plan(
            self.kind,
            f"{entry.name}: lineup for round {self.round} taken back",
            (event,),
            (f"the lineup {lineup_words(state, before.players)}",),
        )


def round_robin_matches(state: SectionState, round_number: int) -> tuple[Match, ...]:
    """Round `round_number`'s matches from the team Berger table."""
    cycles = 2 if state.config.system == "double-round-robin" else 1
    return team_berger_round(len(state.config.teams), round_number, cycles)


@dataclass(frozen=True, slots=True)
class PairTeamRound:
    """Pair `round` of team section `section`: its matches from the section's system
    (`matches` empty), or as given (`source` says whose: the pairing program's, by hand).
    `override` pairs a Swiss round while results of the rounds before it are missing."""

    section: str
    round: int
    matches: tuple[Match, ...] = ()
    source: str = ""
    override: bool = False
    kind: ClassVar[str] = "team-pairings"

    def plan(self, host: ActionHost, by: str) -> Plan:
        state = section_state(host, self.section)
        team_rules(state)
        _check_round(state, self.round)
        _check_not_composed(state, self.round, "its matches")
        if _matches(state, self.round):
            raise ActionError(
                say(
                    "round %(round)s of %(name)s is already paired (its matches): undo that "
                    "pairing first to pair it again",
                    round=self.round,
                    name=state.name,
                )
            )
        if self.round > 1 and not _matches(state, self.round - 1):
            raise ActionError(
                say(
                    "cannot pair round %(round)s of %(name)s: round %(before)s is not paired yet",
                    round=self.round,
                    name=state.name,
                    before=self.round - 1,
                )
            )
        swiss = state.config.system not in ("round-robin", "double-round-robin")
        if swiss and not self.matches:
            check_results_in(state, self.round, override=self.override)
        matches = self.matches or (
            swiss_matches(state, self.round) if swiss else round_robin_matches(state, self.round)
        )
        source = self.source or ("team-swiss" if swiss else "berger")
        _check_teams(state, matches)
        event = MatchesPaired(state.name, self.round, matches, source, by)
        try:
            state.apply(event)
        except StateError as exc:
            raise ActionError(phrase_of(exc)) from None
        return Plan(
            self.kind,
            f"{state.name} round {self.round}: {len(matches)} matches paired ({source})",
            (event,),
            notes=tuple(match_words(state, m) for m in matches),
        )


def _check_teams(state: SectionState, matches: Sequence[Match]) -> None:
    """Every team of the matches is the section's, and plays once."""
    known = {t.number for t in state.config.teams}
    seen: list[int] = [t for m in matches for t in m.teams()]
    unknown = sorted(set(seen) - known)
    if unknown:
        raise ActionError(
            say(
                "the matches name team %(teams)s, which %(name)s does not have",
                teams=", ".join(str(t) for t in unknown),
                name=state.name,
            )
        )
    twice = sorted({t for t in seen if seen.count(t) > 1})
    if twice:
        raise ActionError(
            say(
                "team %(teams)s plays twice in the round: each team plays one match",
                teams=", ".join(_team_name(state, t) for t in twice),
            )
        )


@dataclass(frozen=True, slots=True)
class ComposeTeamRound:
    """Pair round `round` of `section` board by board from its matches and lineups: a team
    without a lineup plays the section's fallback. The round's pairings (and with them
    its lineups) are then public as any round's."""

    section: str
    round: int
    kind: ClassVar[str] = "team-round"

    def plan(self, host: ActionHost, by: str) -> Plan:
        state = section_state(host, self.section)
        team_rules(state)
        _check_round(state, self.round)
        _check_not_composed(state, self.round, "its boards")
        matches = _matches(state, self.round)
        if not matches:
            raise ActionError(
                say(
                    "round %(round)s of %(name)s has no matches yet: pair the teams first",
                    round=self.round,
                    name=state.name,
                )
            )
        at = utc(host.time_source.now())
        try:
            made = fallback_lineups(state.config, state, self.round, at, by)
        except StateError as exc:
            raise ActionError(phrase_of(exc)) from None
        events: list[JournalEvent] = []
        notes: list[str] = []
        after = state
        for lineup in made:
            after = _applied(after, lineup)
            events.append(lineup)
            notes.append(
                f"{_team_name(state, lineup.team)} sent no lineup: plays "
                f"{lineup_words(state, lineup.players)} ({lineup.fallback})"
            )
        try:
            pairings = compose_round(state.config, after, self.round)
        except (StateError, ValueError) as exc:
            raise ActionError(phrase_of(exc)) from None
        paired = RoundPaired(state.name, self.round, pairings, f"teams ({by})")
        _applied(after, paired)
        events.append(paired)
        games = sum(1 for p in pairings if p.black is not None)
        notes.append("the lineups are public from now on, with the round's pairings")
        return Plan(
            self.kind,
            f"{state.name} round {self.round} paired board by board ({len(matches)} matches, "
            f"{games} games)",
            tuple(events),
            notes=tuple(notes),
        )


def _applied(state: SectionState, event: LineupSubmitted | RoundPaired) -> SectionState:
    try:
        return state.apply(event)
    except StateError as exc:
        raise ActionError(phrase_of(exc)) from None
