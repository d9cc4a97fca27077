"""A team round imported from the pairing program's TRF (a section with `pairing = "import"`).

The program (Vega, Swiss-Manager) pairs the teams and writes the round's boards as
individual games, its teams as 013 records. `ImportTeamRound` reads them into the round's
matches, each team's lineup, and the round's boards, in one action:

- The file's teams are the section's teams: matched by name (letter case and spacing
  aside), else by roster (the same players). A team of the file that is none of the
  section's, or a section's team missing from the file, is refused in words.
- The matches go in as `PairTeamRound` would put them (its guards: the round before is
  paired, this one not yet), then one `LineupSubmitted` per team, checked by the lineup
  rules (roster order, the team's players); the deadline does not bind the program's
  lineups, but one after it is journaled as such.
- The boards are composed from those matches and lineups as any team round's
  (`compose_round`); the file's own games must be the same games with the same colours,
  or nothing is imported (the file and the section's rules disagree, for example on which
  team has White on board 1).

One action, undone as one: the matches, the lineups and the boards go together.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from broadcast.actions.door import ActionHost, Plan, section_state
from broadcast.actions.teams import PairTeamRound, lineup_words, team_rules
from broadcast.config.model import TeamEntry
from broadcast.fide.pairing import Pairing
from broadcast.fide.pairing_import import PairingImportError, import_round
from broadcast.fide.teams.trf_import import ImportedTeamRound, TeamImportError, import_team_round
from broadcast.fide.teams.trf_records import TrfTeam
from broadcast.fide.trf import TrfError, TrfFile, read_trf
from broadcast.journal.kinds import JournalEvent
from broadcast.phrases import phrase_of, say
from broadcast.service.committer import ActionError
from broadcast.service.hall import utc
from broadcast.tournament.lineups import LineupRefused, check_lineup
from broadcast.tournament.section import StateError
from broadcast.tournament.team_events import LineupSubmitted, MatchesPaired
from broadcast.tournament.team_rounds import compose_round
from broadcast.tournament.tournament_events import RoundPaired
from broadcast.tournament.tournament_state import SectionState

__all__ = ["ImportTeamRound", "match_teams"]

_LATE = "the pairing program's lineup, imported after the deadline"


def _key(name: str) -> str:
    return " ".join(name.split()).casefold()


def match_teams(entries: Sequence[TeamEntry], teams: Sequence[TrfTeam]) -> tuple[TrfTeam, ...]:
    """The file's teams renumbered as the section's: each matched by name, else by its
    players (the same set as a roster). ActionError saying which team matches none, or
    which of the section's teams the file lacks."""
    by_name = {_key(e.name): e for e in entries}
    by_roster = {frozenset(e.roster): e for e in entries}
    out: list[TrfTeam] = []
    taken: dict[int, str] = {}
    for team in teams:
        entry = by_name.get(_key(team.name)) or by_roster.get(frozenset(team.players))
        if entry is None:
            raise ActionError(
                say(
                    "the TRF's team %(team)r (players %(players)s) is none of the section's "
                    "teams, by name or by roster: enter it in the event's file, or correct "
                    "its name in the pairing program",
                    team=team.name,
                    players=", ".join(str(p) for p in team.players) or "none",
                )
            )
        if entry.number in taken:
            raise ActionError(
                say(
                    "the TRF's teams %(one)r and %(other)r are both %(team)s: a team is in "
                    "the file once",
                    one=taken[entry.number],
                    other=team.name,
                    team=entry.name,
                )
            )
        taken[entry.number] = team.name
        out.append(TrfTeam(entry.number, entry.name, team.players))
    missing = [e.name for e in entries if e.number not in taken]
    if missing:
        raise ActionError(
            say(
                "the TRF has no team record (013) for %(teams)s: export the round again "
                "from the pairing program with all the teams",
                teams=", ".join(missing),
            )
        )
    return tuple(out)


def _games(pairings: Sequence[Pairing]) -> set[tuple[int, int]]:
    return {(p.white, p.black) for p in pairings if p.black is not None}


@dataclass(frozen=True, slots=True)
class ImportTeamRound:
    """Round `round` of team section `section` from the pairing program's TRF (`trf`, the
    file's text): its matches, the teams' lineups and the boards, in one action."""

    section: str
    round: int
    trf: str
    kind: ClassVar[str] = "team-import"

    def plan(self, host: ActionHost, by: str) -> Plan:
        state = section_state(host, self.section)
        rules = team_rules(state)
        imported, games = self._read(state, rules.boards, rules.first_team_white)
        matched = PairTeamRound(state.name, self.round, imported.matches, "import").plan(host, by)
        events: list[JournalEvent] = list(matched.events)
        after = state
        for event in events:
            after = _applied(after, event)
        at = utc(host.time_source.now())
        moved = host.state.start_overrides
        removes: list[str] = []
        notes: list[str] = list(matched.notes)
        for team, padded in imported.lineups:
            players = _trimmed(padded)
            late = ""
            try:
                check_lineup(state.config, after, self.round, team, players, at, moved=moved)
            except LineupRefused:
                try:
                    check_lineup(
                        state.config, after, self.round, team, players, at,
                        override=_LATE, moved=moved,
                    )  # fmt: skip
                except LineupRefused as exc:
                    raise ActionError(
                        say(
                            "the TRF's lineup of %(team)s for round %(round)s breaks a "
                            "lineup rule: %(why)s",
                            team=_name(state, team),
                            round=self.round,
                            why=phrase_of(exc),
                        )
                    ) from None
                late = _LATE
            before = state.team_rounds.lineup(self.round, team)
            if before is not None and before.players != players:
                removes.append(
                    f"the lineup {_name(state, team)} sent ({lineup_words(state, before.players)})"
                )
            lineup = LineupSubmitted(state.name, self.round, team, players, at, by, override=late)
            after = _applied(after, lineup)
            events.append(lineup)
        try:
            pairings = compose_round(state.config, after, self.round)
        except (StateError, ValueError) as exc:
            raise ActionError(phrase_of(exc)) from None
        self._check_agree(pairings, games)
        paired = RoundPaired(state.name, self.round, pairings, f"import ({by})")
        _applied(after, paired)
        events.append(paired)
        notes.append("the lineups are public from now on, with the round's pairings")
        played = sum(1 for p in pairings if p.black is not None)
        return Plan(
            self.kind,
            f"{state.name} round {self.round} imported from the pairing program's TRF "
            f"({len(imported.matches)} matches, {played} games)",
            tuple(events),
            tuple(removes),
            tuple(notes),
        )

    def _read(
        self, state: SectionState, boards: int, colours: str
    ) -> tuple[ImportedTeamRound, tuple[Pairing, ...]]:
        """The file's matches and lineups (its teams renumbered as the section's), and
        its games as individual pairings."""
        try:
            report: TrfFile = read_trf(self.trf)
            teams = match_teams(state.config.teams, report.teams)
            imported = import_team_round(
                report.crosstable,
                teams,
                self.round,
                boards=boards,
                colours="even" if colours == "even" else "odd",
            )
            games = import_round(report.crosstable, self.round).pairings
        except (TrfError, TeamImportError, PairingImportError) as exc:
            raise ActionError(
                say(
                    "cannot import round %(round)s from that TRF: %(why)s",
                    round=self.round,
                    why=phrase_of(exc),
                )
            ) from None
        return imported, games

    def _check_agree(self, composed: Sequence[Pairing], games: Sequence[Pairing]) -> None:
        """The boards made from the matches and lineups are the file's games, colours
        included; refused otherwise, naming the first game that differs."""
        ours, theirs = _games(composed), _games(games)
        if ours == theirs:
            return
        differ = sorted(theirs - ours) or sorted(ours - theirs)
        white, black = differ[0]
        raise ActionError(
            say(
                "cannot import round %(round)s: the TRF's games are not the boards its "
                "matches and lineups make under the section's rules (game %(white)s - "
                "%(black)s, White first, is in one and not the other): check which team has "
                "White on board 1 (first_team_white) in the pairing program and in the "
                "event's file",
                round=self.round,
                white=white,
                black=black,
            )
        )


def _trimmed(players: tuple[int | None, ...]) -> tuple[int | None, ...]:
    """The lineup as a captain sends it: the empty boards at the bottom left out."""
    out = list(players)
    while out and out[-1] is None:
        out.pop()
    return tuple(out)


def _name(state: SectionState, team: int) -> str:
    return next((t.name for t in state.config.teams if t.number == team), f"team {team}")


def _applied(state: SectionState, event: JournalEvent) -> SectionState:
    if not isinstance(event, MatchesPaired | LineupSubmitted | RoundPaired):
        return state
    try:
        return state.apply(event)
    except StateError as exc:
        raise ActionError(phrase_of(exc)) from None
