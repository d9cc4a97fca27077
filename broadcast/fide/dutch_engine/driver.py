"""The round driver: score brackets from the top down, the bye, colours and board order."""

from __future__ import annotations

from collections.abc import Sequence

from broadcast.fide.dutch_engine.board_order import board_order
from broadcast.fide.dutch_engine.bracket import pair_bracket
from broadcast.fide.dutch_engine.colours import allocate
from broadcast.fide.dutch_engine.context import BYE, RoundContext
from broadcast.fide.dutch_engine.matching import perfectly_matchable
from broadcast.fide.dutch_engine.model import DutchError, DutchRound, SwissPlayer


def _check_field(players: Sequence[SwissPlayer], round_number: int) -> None:
    numbers = [p.number for p in players]
    if len(set(numbers)) != len(numbers):
        dup = sorted({n for n in numbers if numbers.count(n) > 1})
        raise DutchError(f"round {round_number}: pairing numbers {dup} appear more than once")
    if any(n <= 0 for n in numbers):
        raise DutchError(f"round {round_number}: pairing numbers must be positive")


def pair_field(
    players: Sequence[SwissPlayer], round_number: int, total_rounds: int, initial_colour: str
) -> DutchRound:
    """Pair the players passed (all of them to be paired this round)."""
    _check_field(players, round_number)
    ctx = RoundContext(players, round_number, total_rounds, initial_colour)
    ids = sorted(ctx.players, key=ctx.rank_key)
    need_bye = len(ids) % 2 == 1
    # C.1-C.3 first: if nobody pairing is possible at all, say so before any bracket work.
    if not perfectly_matchable(ctx, [*ids, *([BYE] if need_bye else [])]):
        raise DutchError(_impossible_message(ctx, ids, need_bye, round_number))
    if need_bye:
        ctx.bye_score_cap = _lowest_bye_score(ctx, ids)
    remaining = list(ids)
    mdps: list[int] = []
    pairs: list[tuple[int, int]] = []
    bye = None
    while remaining or mdps:
        if remaining:
            s = ctx.score(remaining[0])
            res = [x for x in remaining if ctx.score(x) == s]
            rest = [x for x in remaining if ctx.score(x) != s]
        else:
            res, rest = [], []
        bracket = sorted(mdps, key=ctx.rank_key) + res
        lower = rest + ([BYE] if need_bye else [])
        next_score = ctx.score(rest[0]) if rest else -1.0
        got, floaters = pair_bracket(ctx, bracket, len(mdps), lower, next_score)
        pairs += got
        if not rest:  # the last bracket: its floater, if any, is the bye
            if need_bye and len(floaters) == 1 and ctx.compatible(floaters[0], BYE):
                bye = floaters[0]
                floaters = []
            if floaters:  # completion was checked above; this is a bug, not the field
                raise DutchError(
                    f"round {round_number}: the engine could not pair {sorted(floaters)}"
                )
            break
        mdps = floaters
        remaining = rest
    games = [allocate(ctx, a, b) for a, b in pairs]
    return DutchRound(games=tuple(board_order(ctx, games)), bye=bye)


def _lowest_bye_score(ctx: RoundContext, ids: Sequence[int]) -> float:
    """The lowest score at which the bye can go to an eligible player with everyone else still
    paired: the bye goes to a player of that score or lower (C.04.3 2025, the PAB assignee's
    score is minimised before anything else)."""
    scores = sorted({ctx.score(x) for x in ids if not ctx.players[x].bye_ineligible})
    for s in scores[:-1]:
        ctx.bye_score_cap = s
        if perfectly_matchable(ctx, [*ids, BYE]):
            return s
    return scores[-1]


def _impossible_message(
    ctx: RoundContext, ids: Sequence[int], need_bye: bool, round_number: int
) -> str:
    alone = [a for a in ids if not any(ctx.compatible(a, b) for b in ids if b != a)]
    if alone:
        return (
            f"round {round_number}: no pairing is possible: players {alone} have already met "
            "(or cannot take colours against) every other player to be paired"
        )
    if need_bye and not any(ctx.compatible(a, BYE) for a in ids):
        return (
            f"round {round_number}: no pairing is possible: an odd number of players and "
            "every one of them has already had a bye or a forfeit win"
        )
    return (
        f"round {round_number}: no pairing of all {len(ids)} players avoids a repeated game "
        "(C.1), a second bye (C.2) and an absolute colour clash (C.3); pair this round by hand"
    )


__all__ = [
    "pair_field",
]
