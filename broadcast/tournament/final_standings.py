"""A section's standings as the regulations rank them: points and tie-breaks, then what
the config adds: a first place left undecided until its play-off is played (and then
decided by it), each withdrawn or disqualified player's status as a note, and in a round
robin FIDE's withdrawal rule (`withdrawal_rule`): a player who left having played under
half of their games is listed last with their results left out, and their opponents'
lines say which game no longer counts. The tie-breaks rate unrated opponents as the
section says (`unrated_opponent_rating`)."""

from __future__ import annotations

from dataclasses import dataclass, replace

from broadcast.fide.crosstable import Crosstable
from broadcast.fide.standings import StandingRow, Standings, compute_standings
from broadcast.fide.tiebreaks.spec import Edition
from broadcast.tournament.eligibility import disqualified_from_prizes, status_of
from broadcast.tournament.playoff import PENDING, PlayoffStatus, playoff_note, playoff_status
from broadcast.tournament.prizes import PrizeList, compute_prizes
from broadcast.tournament.tournament_state import SectionState
from broadcast.tournament.withdrawal_rule import LeftOut, against_note, left_out, left_out_note


def first_place_tie(standings: Standings) -> tuple[int, ...]:
    """Players level on points at the top (more than one: a tie for first); a player the
    withdrawal rule leaves out is in no tie."""
    rows = [r for r in standings.rows if not r.excluded]
    if not rows:
        return ()
    top = rows[0].points
    return tuple(sorted(r.start for r in rows if r.points == top))


def section_playoff(state: SectionState, standings: Standings) -> PlayoffStatus | None:
    """The play-off for first place, if the section has one and players tie for first
    once every round is played (before that a tie for first is only the live score)."""
    rules = state.config.playoff
    tied = first_place_tie(standings)
    if rules is None or len(tied) < 2 or not (state.finished or state.playoff):
        return None
    return playoff_status(rules, tied, tuple(state.playoff.values()))


def playoff_now(state: SectionState, edition: Edition = 2024) -> PlayoffStatus | None:
    """The section's play-off for first as its points and tie-breaks stand now."""
    return section_playoff(state, _ranked(state, edition, rounds=None).standings)


@dataclass(frozen=True, slots=True)
class _Ranking:
    standings: Standings  # the players ranked (those left out are not in it)
    table: Crosstable  # the whole crosstable (every result, as played)
    ranked_table: Crosstable  # the one the ranking and the prizes count
    gone: dict[int, LeftOut]  # who the withdrawal rule leaves out


def _ranked(state: SectionState, edition: Edition, rounds: int | None) -> _Ranking:
    """The ranking by points and tie-breaks, with the withdrawal rule's players and the
    games against them left out."""
    table = state.to_crosstable()
    gone = left_out(state, table)
    ranked_table = table.without(gone) if gone else table
    standings = compute_standings(
        ranked_table,
        # A team section's `tiebreaks` are the teams' (C.07 for teams: GP, OSB, ...); its
        # players go by [section.teams] individual_tiebreaks (none: points alone).
        state.config.individual_tiebreaks,
        edition=edition,
        rounds=rounds,
        unrated_rating=state.config.unrated_opponent_rating,
    )
    return _Ranking(standings, table, ranked_table, gone)


def rounds_with_games(state: SectionState) -> int:
    """The last round in which a game has a result (0 before the first one).

    Standings are "after round N": the byes of a round just paired count from its first
    game result on, with the games of that round. Counted at once, a pairing bye of the
    next round put a player who lost the last round at the top while the others' games
    of that round were still to be played (finding M1 of the 2026-12-05 test)."""
    return max((number for number, rnd in state.rounds.items() if rnd.results), default=0)


def section_standings(state: SectionState, edition: Edition = 2024) -> Standings:
    """Standings with play-off and withdrawal applied (see the module docstring), after
    the last round with a game result (`rounds_with_games`)."""
    return _section_standings(state, edition)[0]


def _section_standings(state: SectionState, edition: Edition) -> tuple[Standings, _Ranking]:
    rounds = rounds_with_games(state)
    ranking = _ranked(state, edition, rounds)
    standings, table, gone = ranking.standings, ranking.table, ranking.gone
    rows = [
        replace(r, note=_notes(status_of(state, r.start), against_note(r.start, table, gone)))
        for r in standings.rows
    ]
    status = section_playoff(state, standings)
    if status is not None:
        rows = _with_playoff(rows, status)
    # Those the rule leaves out: last, all on the one place after everybody ranked.
    labels = [spec.label for spec in standings.tiebreaks]
    for start, entry in sorted(gone.items()):
        player = table.player(start)
        rows.append(
            StandingRow(
                rank=len(standings.rows) + 1,
                start=start,
                name=player.name,
                points=table.score(start, upto=rounds),
                tiebreaks=dict.fromkeys(labels),
                rating=player.rating,
                federation=player.federation,
                title=player.title,
                note=_notes(status_of(state, start), left_out_note(entry)),
                excluded=True,
            )
        )
    return replace(standings, rows=tuple(rows)), ranking


def _notes(*parts: str) -> str:
    return "; ".join(p for p in parts if p)


def _with_playoff(rows: list[StandingRow], status: PlayoffStatus) -> list[StandingRow]:
    tied = set(status.tied)
    group = [r for r in rows if r.start in tied]
    rest = [r for r in rows if r.start not in tied]
    if status.winner is None:
        # "pending" only for those still in it: a league leaves the others out.
        marked = [
            replace(r, rank=1, undecided=True, note=_join(playoff_note(status, r.start), r.note))
            for r in group
        ]
        return marked + rest
    winner = next(r for r in group if r.start == status.winner)
    others = [r for r in group if r.start != status.winner]
    out = [replace(winner, rank=1, note=_join("1st by play-off", winner.note))]
    # The others keep their tie-break order below the winner (ranks from 2 on).
    for i, r in enumerate(others):
        shared = i > 0 and _level(others[i - 1], r)
        out.append(replace(r, rank=out[-1].rank if shared else 2 + i))
    return out + rest


def _level(a: StandingRow, b: StandingRow) -> bool:
    return a.points == b.points and dict(a.tiebreaks) == dict(b.tiebreaks)


def _join(first: str, second: str) -> str:
    return f"{first}; {second}" if second else first


def section_prizes(state: SectionState, edition: Edition = 2024) -> PrizeList | None:
    """The prize list from those standings, for a section with [section.prizes];
    provisional while rounds remain or first place waits for its play-off."""
    if state.config.prizes is None:
        return None
    standings, ranking = _section_standings(state, edition)
    # The pools count the wins the standings count: none of or against a player the
    # withdrawal rule leaves out.
    crosstable = ranking.ranked_table
    withheld = dict(state.prizes_withheld)
    disqualified = {
        start: reason
        for start in state.players
        if (reason := disqualified_from_prizes(state, start))
    }
    return compute_prizes(
        state.config.prizes,
        standings,
        crosstable,
        final=state.finished,
        withheld=withheld,
        disqualified=disqualified,
    )


__all__ = [
    "PENDING",
    "first_place_tie",
    "playoff_now",
    "rounds_with_games",
    "section_playoff",
    "section_prizes",
    "section_standings",
]
