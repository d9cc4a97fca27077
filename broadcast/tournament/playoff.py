"""The play-off for first place (Donostia art. 10), as a pure function of the games.

Two players tied for first play `games` blitz games; still level, one Armageddon where a
draw goes to the configured colour. More than two: blitz leagues (everyone meets everyone
once) among those still in; the leaders of a complete league stay in, until one is left
(the winner) or two (who play the Armageddon).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from broadcast.config.model import PlayoffRules, SectionConfig
from broadcast.fide.results import Result
from broadcast.tournament.section import PlayoffGame
from broadcast.tournament.tournament_state import SectionState
from clocks.timecontrol import TimeControl

PENDING = "play-off for 1st pending"
OUT = "out of the play-off for 1st"
WON = "1st by play-off"


@dataclass(frozen=True, slots=True)
class PlayoffStatus:
    """Who is still in, the winner once known, and what the next game must be."""

    tied: tuple[int, ...]
    remaining: tuple[int, ...]
    winner: int | None
    next_kind: str | None  # "blitz", "armageddon", or None (decided, or a game unplayed)
    # In a league (three or more still in): the pairs that have not met in it yet, and
    # those that have (a pairing that repeats one of them is refused).
    missing: tuple[tuple[int, int], ...] = ()
    met: tuple[tuple[int, int], ...] = ()

    @property
    def decided(self) -> bool:
        return self.winner is not None


def _scores(players: Sequence[int], games: Iterable[PlayoffGame]) -> dict[int, float]:
    score = dict.fromkeys(players, 0.0)
    for game in games:
        if game.result is None:
            continue
        w, b = Result.from_tournament(game.result).points
        if game.white in score:
            score[game.white] += w
        if game.black in score:
            score[game.black] += b
    return score


def playoff_status(
    rules: PlayoffRules, tied: Sequence[int], games: Sequence[PlayoffGame]
) -> PlayoffStatus:
    """Where the play-off among `tied` (players level on points for first) stands."""
    tied_t = tuple(sorted(tied))
    if len(tied_t) < 2:
        return PlayoffStatus(tied_t, tied_t, tied_t[0] if tied_t else None, None)
    ordered = sorted(games, key=lambda g: g.number)
    if any(g.result is None for g in ordered):
        return PlayoffStatus(tied_t, tied_t, None, None)  # a game is being played
    armageddon = [g for g in ordered if g.kind == "armageddon"]
    if armageddon:
        game = armageddon[0]
        result = Result.from_tournament(game.result) if game.result else Result.DRAW
        if result.winner == "white":
            winner = game.white
        elif result.winner == "black":
            winner = game.black
        else:
            winner = game.black if rules.armageddon_draw_winner == "black" else game.white
        return PlayoffStatus(tied_t, (game.white, game.black), winner, None)
    remaining = list(tied_t)
    blitz = [g for g in ordered if g.kind == "blitz"]
    if len(remaining) == 2:
        score = _scores(remaining, blitz)
        if len(blitz) >= rules.games and score[remaining[0]] != score[remaining[1]]:
            winner = max(remaining, key=lambda p: score[p])
            return PlayoffStatus(tied_t, tuple(remaining), winner, None)
        kind = "blitz" if len(blitz) < rules.games else "armageddon"
        return PlayoffStatus(tied_t, tuple(remaining), None, kind)
    # Leagues: each complete league among the players still in keeps its leaders. A league
    # is complete when every pair has met once; a game that repeats a pair of the same
    # league (the desk refuses to pair one) does not count in it.
    pending = list(blitz)
    while len(remaining) > 2:
        wanted = {(a, b) for i, a in enumerate(remaining) for b in remaining[i + 1 :]}
        league: dict[tuple[int, int], PlayoffGame] = {}
        used: list[PlayoffGame] = []
        for game in pending:
            pair = (min(game.white, game.black), max(game.white, game.black))
            if len(league) == len(wanted):
                break
            if pair in wanted:
                used.append(game)
                league.setdefault(pair, game)
        if len(league) < len(wanted):
            return PlayoffStatus(
                tied_t,
                tuple(remaining),
                None,
                "blitz",
                missing=tuple(sorted(wanted - set(league))),
                met=tuple(sorted(league)),
            )
        pending = [g for g in pending if g not in used]
        score = _scores(remaining, league.values())
        best = max(score.values())
        leaders = [p for p in remaining if score[p] == best]
        if len(leaders) == 1:
            return PlayoffStatus(tied_t, tuple(remaining), leaders[0], None)
        remaining = leaders
    return PlayoffStatus(tied_t, tuple(remaining), None, "armageddon")


def playoff_note(status: PlayoffStatus, player: int) -> str:
    """What the standings say of a player tied for first: the winner once decided; while
    it is not, "pending" only for those still in it (a league leaves the others out)."""
    if player not in status.tied:
        return ""
    if status.winner is not None:
        return WON if player == status.winner else ""
    return PENDING if player in status.remaining else OUT


def time_control_for(section: SectionConfig, state: SectionState, round_number: int) -> TimeControl:
    """The time control of a section's round, play-off games included."""
    game = state.playoff.get(round_number - section.rounds)
    if section.playoff is None or game is None or round_number <= section.rounds:
        return section.time_control
    if game.kind == "armageddon":
        return section.playoff.armageddon_time_control
    return section.playoff.time_control


__all__ = [
    "OUT",
    "PENDING",
    "WON",
    "PlayoffStatus",
    "playoff_note",
    "playoff_status",
    "time_control_for",
]
