"""Tie-breaks for teams (FIDE C.07, 2026 edition where it differs from 2024).

A team section ranks by its primary score, match points (MP) or game points (GP) as
configured; the other one is its secondary score. The tie-breaks a section may list:

- MP, GP: the team's match points, game points.
- DE: direct encounter, on the primary score of the matches between the tied teams.
- BH (cut variants -C1, -C2, -M1): Buchholz, the sum of the opponents' primary scores;
  BH:MP and BH:GP sum their match points or game points whatever the primary score.
- SB (-C1): Sonneborn-Berger for teams, each opponent's primary score times the team's
  primary score in that match. The extended variants name both: ESB (opponent's primary
  times own secondary), EMMSB, EMGSB, EGMSB, EGGSB (E, then the opponent's score M or G,
  then the team's own result in the match M or G, then SB).
- OSB: the Olympiad's Sonneborn-Berger, each opponent's match points times the game
  points scored against it, leaving out the least significant opponent (the one with the
  fewest match points): EMGSB-C1, as the Olympiad's rules rank teams after match points.

Unplayed rounds follow C.07 article 16. In a Swiss, a team's bye (a pairing-allocated
bye) and a forfeited match count for its opponents as scored (a forfeit loss too, even in
the last rounds); rounds it was not paired in, after its last round neither forfeited nor
missed, count for them as draws. In the team's own BH and SB an unplayed round is
a match against a dummy opponent whose score is the team's own (2026: no more than the
scheduled opponent's score after a forfeit, nor than a draw in every round after a bye),
and a round it chose not to play is the first one cut. In a round robin every scheduled
match counts as played and the bye of an odd field counts for nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from broadcast.fide.teams.scores import TeamRound
from broadcast.fide.tiebreaks.buchholz import Contribution, apply_cuts
from clocks.errors import BoardwireError

__all__ = [
    "TEAM_TIEBREAKS",
    "TEAM_TIEBREAK_DESCRIPTIONS",
    "TeamScores",
    "TeamTiebreak",
    "TeamTiebreakError",
    "direct_encounter",
    "parse_team_tiebreak",
    "tiebreak_values",
]


class TeamTiebreakError(BoardwireError, ValueError):
    """A team tie-break name that is not one of TEAM_TIEBREAKS."""


_CUTS = ("", "-C1", "-C2", "-M1")
TEAM_TIEBREAK_DESCRIPTIONS: Mapping[str, str] = {
    "MP": "match points",
    "GP": "game points",
    "DE": "direct encounter: the primary score of the matches between the tied teams",
    **{
        f"BH{cut}": "Buchholz: the sum of the opponents' primary scores" + _cut_words
        for cut, _cut_words in zip(
            _CUTS,
            ("", ", less the lowest", ", less the two lowest", ", less the lowest and highest"),
            strict=True,
        )
    },
    **{
        f"BH:{kind}{cut}": f"Buchholz on the opponents' {words}" + cut_words
        for kind, words in (("MP", "match points"), ("GP", "game points"))
        for cut, cut_words in zip(
            _CUTS,
            ("", ", less the lowest", ", less the two lowest", ", less the lowest and highest"),
            strict=True,
        )
    },
    "SB": "Sonneborn-Berger: opponents' primary scores times the primary score against each",
    "SB-C1": "Sonneborn-Berger, less the lowest opponent",
    "ESB": "extended Sonneborn-Berger: opponents' primary scores times the secondary score "
    "against each",
    "ESB-C1": "extended Sonneborn-Berger, less the lowest opponent",
    "EMMSB": "opponents' match points times the match points against each",
    "EMGSB": "opponents' match points times the game points against each",
    "EGMSB": "opponents' game points times the match points against each",
    "EGGSB": "opponents' game points times the game points against each",
    "OSB": "the Olympiad's Sonneborn-Berger: opponents' match points times the game points "
    "against each, less the opponent with the fewest match points",
}
TEAM_TIEBREAKS: tuple[str, ...] = tuple(TEAM_TIEBREAK_DESCRIPTIONS)


@dataclass(frozen=True, slots=True)
class TeamTiebreak:
    """A parsed team tie-break. `family` MP, GP, DE, BH or SB; `opponent` and `own` the
    score kinds ("primary", "secondary", "mp", "gp") of the opponent's score and of the
    team's own result in the match (SB only); cuts as in C.07 (lowest, highest)."""

    name: str
    family: str
    opponent: str = "primary"
    own: str = "primary"
    cut_low: int = 0
    cut_high: int = 0


def parse_team_tiebreak(name: str) -> TeamTiebreak:
    """One of TEAM_TIEBREAKS (any letter case), or TeamTiebreakError saying which exist."""
    code = name.strip().upper()
    if code not in TEAM_TIEBREAK_DESCRIPTIONS:
        raise TeamTiebreakError(
            f"{name!r} is not a tie-break for teams; a team section accepts "
            + ", ".join(TEAM_TIEBREAKS)
        )
    base, _, cut = code.partition("-")
    low, high = {"": (0, 0), "C1": (1, 0), "C2": (2, 0), "M1": (1, 1)}[cut]
    if base in ("MP", "GP", "DE"):
        return TeamTiebreak(code, base)
    if base.startswith("BH"):
        kind = base.partition(":")[2].lower() or "primary"
        return TeamTiebreak(code, "BH", kind, kind, low, high)
    if base == "SB":
        return TeamTiebreak(code, "SB", "primary", "primary", low, high)
    if base == "ESB":
        return TeamTiebreak(code, "SB", "primary", "secondary", low, high)
    if base == "OSB":
        return TeamTiebreak(code, "SB", "mp", "gp", 1, 0)
    kinds = {"M": "mp", "G": "gp"}
    return TeamTiebreak(code, "SB", kinds[base[1]], kinds[base[2]])


@dataclass(frozen=True)
class TeamScores:
    """What the tie-breaks read: each team's counted rounds, the primary score ("mp" or
    "gp"), a round robin or not, the rounds counted, the draw's worth in match points
    and in game points, the match win's worth in each, and the C.07 edition."""

    rounds: Mapping[int, tuple[TeamRound, ...]]
    primary: str
    round_robin: bool
    played_rounds: int
    draw: Mapping[str, float]
    win: Mapping[str, float]
    edition: int = 2026

    def kind(self, which: str) -> str:
        """ "mp" or "gp" for a score kind that may be "primary" or "secondary"."""
        if which == "primary":
            return self.primary
        if which == "secondary":
            return "gp" if self.primary == "mp" else "mp"
        return which

    def score(self, team: int, kind: str) -> float:
        return sum((r.points(kind) for r in self.rounds[team]), 0.0)

    def adjusted(self, team: int, kind: str) -> float:
        """The team's score as its opponents' BH and SB see it: in a Swiss, the rounds it
        had no match at all after its last round that was not voluntarily unplayed count
        as draws (C.07 16.2.5). A forfeited match keeps its score (0 for the loser): it
        was paired, so it is a forfeit (16.2.4), not an absence, even at the end."""
        if self.round_robin:
            return self.score(team, kind)
        rounds = self.rounds[team]
        last = max((r.round for r in rounds if not _voluntary(r)), default=0)
        return sum(
            (self.draw[kind] if _absent(r) and r.round > last else r.points(kind)) for r in rounds
        )


def _absent(r: TeamRound) -> bool:
    """A round with no match and no bye: the team was not paired (it asked out or left)."""
    return r.opponent is None and not r.bye


def _voluntary(r: TeamRound) -> bool:
    """A voluntary unplayed round: no match at all, or a match the team forfeited."""
    if r.bye:
        return False
    if r.opponent is None:
        return True
    return r.forfeit and r.game_points <= r.opponent_game_points


def _contributions(s: TeamScores, team: int, tb: TeamTiebreak) -> list[Contribution]:
    opp_kind, own_kind = s.kind(tb.opponent), s.kind(tb.own)
    own_score = s.score(team, opp_kind)
    out: list[Contribution] = []
    for r in s.rounds[team]:
        if s.round_robin:
            if r.opponent is None:
                continue
            score, vur = s.adjusted(r.opponent, opp_kind), False
        elif r.met and r.opponent is not None:
            score, vur = s.adjusted(r.opponent, opp_kind), False
        else:
            score, vur = own_score, _voluntary(r)
            if s.edition >= 2026:
                cap = (
                    s.adjusted(r.opponent, opp_kind)
                    if r.opponent is not None
                    else s.draw[opp_kind] * s.played_rounds
                )
                score = min(score, cap)
        value = score * r.points(own_kind) if tb.family == "SB" else score
        out.append(Contribution(r.round, score, value, vur))
    return out


def tiebreak_values(s: TeamScores, tb: TeamTiebreak) -> dict[int, float]:
    """Every team's value of a tie-break other than DE (higher is better)."""
    if tb.family in ("MP", "GP"):
        return {team: s.score(team, tb.family.lower()) for team in s.rounds}
    if tb.family == "DE":
        raise ValueError("direct encounter is computed per tied group: use direct_encounter")
    return {
        team: apply_cuts(_contributions(s, team, tb), tb.cut_low, tb.cut_high, s.played_rounds)
        for team in s.rounds
    }


def _mini_table(s: TeamScores, group: Sequence[int]) -> dict[int, tuple[float, int]]:
    """team -> (primary score against the others of the group, opponents of it met)."""
    members = set(group)
    out: dict[int, tuple[float, int]] = {}
    for team in group:
        met: dict[int, list[float]] = {}
        for r in s.rounds[team]:
            if r.opponent is None or r.opponent not in members:
                continue
            if not s.round_robin and not r.met:
                continue  # a forfeited match of a Swiss is no encounter
            met.setdefault(r.opponent, []).append(r.points(s.primary))
        out[team] = (sum((sum(p) / len(p) for p in met.values()), 0.0), len(met))
    return out


def _tiers(s: TeamScores, group: list[int]) -> list[list[int]]:
    """One pass of DE over a group: its tiers, best first."""
    table = _mini_table(s, group)
    others = len(group) - 1
    if s.round_robin or all(met == others for _, met in table.values()):
        tiers: list[list[int]] = []
        for team in sorted(group, key=lambda t: (-table[t][0], t)):
            if tiers and table[tiers[-1][0]][0] == table[team][0]:
                tiers[-1].append(team)
            else:
                tiers.append([team])
        return tiers
    # Not all met: a team goes first only if it beats what every other could still reach.
    win = s.win[s.primary]
    best = {t: table[t][0] + (others - table[t][1]) * win for t in group}
    ordered = sorted(group, key=lambda t: (-table[t][0], -best[t], t))
    tiers, i = [], 0
    while i < len(ordered) - 1 and table[ordered[i]][0] > max(best[t] for t in ordered[i + 1 :]):
        tiers.append([ordered[i]])
        i += 1
    tiers.append(ordered[i:])
    return tiers


def _resolve(s: TeamScores, group: list[int]) -> list[list[int]]:
    if len(group) < 2:
        return [group]
    tiers = _tiers(s, group)
    if len(tiers) == 1:
        return tiers
    return [sub for tier in tiers for sub in _resolve(s, tier)]


def direct_encounter(s: TeamScores, group: Sequence[int]) -> dict[int, float]:
    """DE of a tied group: each team's place in it (1 best, lower is better), applied
    again inside every sub-group still tied; 0 for all when it separates nobody."""
    tiers = _resolve(s, list(group))
    if len(tiers) == 1:
        return {team: 0.0 for team in group}
    out: dict[int, float] = {}
    place = 1
    for tier in tiers:
        for team in tier:
            out[team] = float(place)
        place += len(tier)
    return out
