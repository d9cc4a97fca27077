"""A section's standings as the regulations rank them: points and tie-breaks, then what
the config adds: a first place left undecided until its play-off is played (and then
decided by it), and each withdrawn or disqualified player's status as a note."""

from __future__ import annotations

from dataclasses import replace

from broadcast.fide.standings import StandingRow, Standings, compute_standings
from broadcast.fide.tiebreaks.spec import Edition
from broadcast.tournament.playoff import PlayoffStatus, playoff_status
from broadcast.tournament.prizes import PrizeList, compute_prizes
from broadcast.tournament.state import SectionState

PENDING = "play-off for 1st pending"


def first_place_tie(standings: Standings) -> tuple[int, ...]:
    """Players level on points at the top (more than one: a tie for first)."""
    if not standings.rows:
        return ()
    top = standings.rows[0].points
    return tuple(sorted(r.start for r in standings.rows if r.points == top))


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
    plain = compute_standings(state.to_crosstable(), state.config.tiebreaks, edition=edition)
    return section_playoff(state, plain)


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
    standings = compute_standings(
        state.to_crosstable(),
        state.config.tiebreaks,
        edition=edition,
        rounds=rounds_with_games(state),
    )
    rows = [replace(r, note=state.status_of(r.start)) for r in standings.rows]
    status = section_playoff(state, standings)
    if status is not None:
        rows = _with_playoff(rows, status)
    return replace(standings, rows=tuple(rows))


def _with_playoff(rows: list[StandingRow], status: PlayoffStatus) -> list[StandingRow]:
    tied = set(status.tied)
    group = [r for r in rows if r.start in tied]
    rest = [r for r in rows if r.start not in tied]
    if status.winner is None:
        marked = [replace(r, rank=1, undecided=True, note=_join(PENDING, r.note)) for r in group]
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
    standings = section_standings(state, edition)
    crosstable = state.to_crosstable()
    withheld = {start: reason for start in state.players if (reason := state.prize_withheld(start))}
    return compute_prizes(
        state.config.prizes, standings, crosstable, final=state.finished, withheld=withheld
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
