"""TRF-16 of a section's results, for the rating report.

The crosstable comes from the tournament state (`SectionState.to_crosstable`), the
columns from the existing writer (`broadcast.fide.trf.write_trf`), the header
records from the event config: 012 name (with the section when the event has several),
022 site, 042/052 first and last round dates, 062/072 players/rated, 092 type,
122 time control, 132 round dates, XXR rounds, and the tie-breaks (202). Ranks come
from the section's standings with its own tie-breaks, as the report must show them.

Each section is its own tournament for FIDE, so there is one file per section. A team
section's file also says so in 092, counts its teams (082), gives the first team's
colour on each board of a match (352, e.g. WBWB) and lists its teams after the players:
one 013 record each, the name and the roster's starting numbers in board order.
"""

from __future__ import annotations

from collections.abc import Sequence

from broadcast.config.model import EventConfig, SectionConfig
from broadcast.export.pgn import event_title
from broadcast.fide.teams.match import first_team_is_white
from broadcast.fide.teams.trf_records import TEAM_RECORD, team_record_value
from broadcast.fide.trf import TrfFile, TrfRecord, write_trf
from broadcast.tournament.eligibility import status_of
from broadcast.tournament.final_standings import section_standings
from broadcast.tournament.tournament_state import TournamentState

__all__ = ["section_trf", "section_trf_file", "with_team_records"]

_ROUND1_COLUMN = 92  # 1-based column of round 1's field, +10 per round (as on player lines)


def _round_dates_record(section: SectionConfig) -> TrfRecord | None:
    """Record 132: each round's date as YY/MM/DD under that round's column."""
    if not section.schedule:
        return None
    by_round = {s.round: s.date for s in section.schedule}
    line = "132".ljust(_ROUND1_COLUMN - 1)
    fields = []
    for number in range(1, section.rounds + 1):
        date = by_round.get(number)
        fields.append(date.strftime("%y/%m/%d") if date else " " * 8)
    line += "  ".join(fields)
    return TrfRecord("132", line[4:].rstrip())


def with_team_records(report: TrfFile, section: SectionConfig) -> TrfFile:
    """The report of a team section: 092 says a team tournament, 082 the number of teams,
    352 the first team's colours, and one 013 record a team after the player lines."""
    rules = section.team_rules
    if rules is None:
        return report
    kind = "Team: Swiss-System" if section.system == "swiss" else "Team: Round Robin"
    colours = "".join(
        "W" if first_team_is_white(board, rules.first_team_white) else "B"
        for board in range(1, rules.boards + 1)
    )
    header = [TrfRecord("092", kind) if r.code == "092" else r for r in report.records]
    at = next((i + 1 for i, r in enumerate(header) if r.code == "072"), len(header))
    header[at:at] = [TrfRecord("082", str(len(section.teams)))]
    header.append(TrfRecord("352", colours))
    teams = [
        TrfRecord(TEAM_RECORD, team_record_value(team.name, team.roster))
        for team in sorted(section.teams, key=lambda t: t.number)
    ]
    return TrfFile(report.crosstable, tuple(header), (*report.trailer, *teams))


def section_trf_file(tournament: TournamentState, event: EventConfig, section: str) -> TrfFile:
    """The report for one section as a `TrfFile` (crosstable plus header records)."""
    state = tournament.section(section)
    config = state.config
    dates = sorted(s.date for s in config.schedule)
    report = TrfFile.from_crosstable(
        state.to_crosstable(),
        name=event_title(event, section),
        city=event.site,
        start_date=dates[0].strftime("%Y/%m/%d") if dates else "",
        end_date=dates[-1].strftime("%Y/%m/%d") if dates else "",
        time_control=str(config.time_control),
        # 202 lists what ranks the player lines (a team section's own `tiebreaks` rank the
        # teams, not these lines).
        tiebreaks=config.individual_tiebreaks,
    )
    withdrawn = [
        TrfRecord("###", f" {number:4d} {status_of(state, number)}")
        for number in sorted(state.players)
        if status_of(state, number)
    ]
    if withdrawn:  # TRF-16 has no withdrawal field: say it in comments, after the header
        report = TrfFile(report.crosstable, (*report.records, *withdrawn), report.trailer)
    record = _round_dates_record(config)
    if record is not None:
        # After 122 (time control), where the TRF-16 description puts it.
        records: Sequence[TrfRecord] = report.records
        at = next((i + 1 for i, r in enumerate(records) if r.code == "122"), len(records))
        report = TrfFile(report.crosstable, (*records[:at], record, *records[at:]), report.trailer)
    return with_team_records(report, config)


def section_trf(tournament: TournamentState, event: EventConfig, section: str) -> str:
    """TRF-16 text of one section's results so far, ranked by its standings."""
    report = section_trf_file(tournament, event, section)
    # Ranked as the regulations rank: a play-off decides first place.
    standings = section_standings(tournament.section(section), event.tiebreak_edition)
    ranks = {row.start: row.rank for row in standings.rows}
    return write_trf(report, ranks=ranks)
