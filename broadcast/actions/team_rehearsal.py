"""A rehearsal's team rounds (`serve --sim`, `demo --teams`): a team section's due round
that is not paired yet gets its teams paired by the section's system (the team Berger
table, or the team Swiss of C.04.6) and its boards composed from the lineups in, the
section's fallback rule making the missing ones, so that the emulated boards have games.
Each is the arbiter's action through the door (`PairTeamRound`, `ComposeTeamRound`):
journaled, said in the log, undoable. At a real event the arbiter does both at the desk.

The individuals' counterpart is `actions.pairings.pair_unpaired` (FIDE Dutch), which
leaves team sections to this module.
"""

from __future__ import annotations

from broadcast.actions.door import ActionHost, act
from broadcast.actions.pairings import due_unpaired
from broadcast.actions.teams import ComposeTeamRound, PairTeamRound
from broadcast.service.committer import ActionError

__all__ = ["pair_team_unpaired", "pair_teams_unpaired"]


def pair_teams_unpaired(host: ActionHost, by: str) -> list[str]:
    """Pair every team section's unpaired due round (teams, then boards); one line each
    for the log. On the caller's thread: the team Swiss pairs 40 teams in about 12 ms
    (docs/performance.md), so a running server does it on its loop."""
    return [
        pair_team_unpaired(host, by, section, number)
        for section, number in due_unpaired(host).items()
        if host.config.section(section).is_team
    ]


def pair_team_unpaired(host: ActionHost, by: str, section: str, number: int) -> str:
    """Round `number` of team section `section`: its teams paired unless they already
    are, then its boards composed. What was done, or why not, in one line."""
    state = host.tournament.section(section)
    swiss = state.config.system == "swiss"
    how = "the team Swiss (FIDE C.04.6)" if swiss else "the team Berger table"
    said = f"{section} round {number} was not paired: "
    try:
        if not state.team_rounds.round_matches(number):
            act(host, PairTeamRound(section, number), by)
            matches = host.tournament.section(section).team_rounds.round_matches(number)
            said += f"paired the teams with {how}: {len(matches)} matches; "
        act(host, ComposeTeamRound(section, number), by)
    except ActionError as exc:
        return f"{section} round {number} could not be paired: {exc}"
    paired = host.tournament.section(section).rounds[number].pairings
    games = sum(1 for p in paired if p.black is not None)
    rules = state.config.team_rules
    fallback = rules.missing_lineup if rules is not None else "last"
    return (
        f"{said}composed its boards from the teams' lineups, the fallback rule "
        f"({fallback}) for those that sent none ({games} games)"
    )
