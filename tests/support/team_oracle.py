"""An independent computation of team standings for the tests, straight from a table of
matches (tests.support.team_view's rows): plain loops, no code shared with the product.

Scores: game points are the boards' points (an empty board is 1-0 for the player facing
it); match points 2/1/0 by default. Buchholz and Sonneborn-Berger as C.07 (2026) counts
them when the only unplayed rounds are byes and forfeited matches: a Swiss bye or forfeit
meets a dummy scoring the team's own score, capped at a draw every round (bye) or at the
scheduled opponent's score (forfeit); a round-robin bye counts for nothing. A cut takes a
forfeited match the team did not win before a weaker opponent (C.07 16.5).
"""

from __future__ import annotations

from collections.abc import Sequence

from tests.support.team_view import Board, MatchRow

__all__ = ["OracleRound", "oracle_ranks", "oracle_rounds", "oracle_value"]

OracleRound = tuple[int | None, float, float, str]  # opponent, mp, gp, "game"|"bye"|"forfeit"


def _board_points(board: Board) -> tuple[float, float, bool]:
    if board == "empty-first":
        return 0.0, 1.0, False
    if board == "empty-second":
        return 1.0, 0.0, False
    assert not isinstance(board, str)
    return board[0], board[1], len(board) == 2


def oracle_rounds(
    teams: int,
    boards: int,
    rows: Sequence[MatchRow],
    rounds: int,
    points: tuple[float, float, float] = (2.0, 1.0, 0.0),
    bye: tuple[float, float | None] = (2.0, None),
) -> dict[int, dict[int, OracleRound]]:
    table: dict[int, dict[int, OracleRound]] = {t: {} for t in range(1, teams + 1)}
    for rnd, a, b, row in rows:
        if rnd > rounds:
            continue
        if b is None:
            table[a][rnd] = (None, bye[0], boards / 2 if bye[1] is None else bye[1], "bye")
            continue
        ga = gb = 0.0
        over_the_board = False
        for board in row:
            pa, pb, played = _board_points(board)
            ga, gb = ga + pa, gb + pb
            over_the_board = over_the_board or played
        if ga > gb:
            ma, mb = points[0], points[2]
        elif ga < gb:
            ma, mb = points[2], points[0]
        else:
            ma = mb = points[1]
        kind = "game" if over_the_board else "forfeit"
        table[a][rnd] = (b, ma, ga, kind)
        table[b][rnd] = (a, mb, gb, kind)
    return table


def oracle_value(
    table: dict[int, dict[int, OracleRound]],
    team: int,
    name: str,
    *,
    primary: str,
    boards: int,
    rounds: int,
    round_robin: bool,
) -> float:
    """MP, GP, BH (and :MP/:GP, -C1/-C2/-M1), SB, ESB, EXYSB and OSB of one team."""
    secondary = "gp" if primary == "mp" else "mp"

    def total(t: int, kind: str) -> float:
        return sum((r[1] if kind == "mp" else r[2]) for r in table[t].values())

    if name in ("MP", "GP"):
        return total(team, name.lower())
    base, _, cut = name.partition("-")
    if name == "OSB":
        base, cut = "EMGSB", "C1"
    if base.startswith("BH"):
        opp_kind = own_kind = base.partition(":")[2].lower() or primary
        sb = False
    elif base in ("SB", "ESB"):
        opp_kind, own_kind, sb = primary, primary if base == "SB" else secondary, True
    else:
        opp_kind = "mp" if base[1] == "M" else "gp"
        own_kind = "mp" if base[2] == "M" else "gp"
        sb = True
    draw = {"mp": 1.0, "gp": boards / 2}[opp_kind]
    own_total = total(team, opp_kind)
    entries: list[tuple[float, float, bool]] = []  # score, value, voluntarily unplayed
    for rnd in range(1, rounds + 1):
        opp, mp, gp, kind = table[team].get(rnd, (None, 0.0, 0.0, "absent"))
        mine = mp if own_kind == "mp" else gp
        if round_robin:
            if opp is None:
                continue
            score = total(opp, opp_kind)
        elif kind == "game":
            assert opp is not None
            score = total(opp, opp_kind)
        elif opp is not None:
            score = min(own_total, total(opp, opp_kind))
        else:
            score = min(own_total, draw * rounds)
        # A forfeited match the team did not win is a round it chose not to play.
        lost_forfeit = kind == "forfeit" and opp is not None and gp <= table[opp][rnd][2]
        entries.append((score, score * mine if sb else score, lost_forfeit))
    low, high = {"": (0, 0), "C1": (1, 0), "C2": (2, 0), "M1": (1, 1)}[cut]
    if len(entries) <= low + high:
        return 0.0
    for _ in range(low):
        # The least significant round goes, or instead a round the team chose not to play
        # when that one is worth at least as much (C.07 16.5: no gain from not playing).
        least = min(entries)
        chosen = sorted((e for e in entries if e[2]), key=lambda e: e[1])
        entries.remove(chosen[0] if chosen and chosen[0][1] >= least[1] else least)
    entries.sort()
    kept = entries[: len(entries) - high]
    return sum(value for _, value, _ in kept)


def oracle_ranks(keys: dict[int, tuple[float, ...]]) -> dict[int, int]:
    """Competition ranks: 1 + the number of teams with a strictly better key."""
    return {t: 1 + sum(1 for other in keys.values() if other > key) for t, key in keys.items()}
