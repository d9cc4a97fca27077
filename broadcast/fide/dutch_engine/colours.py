"""Colour allocation (C.04.3 E.1-E.5) and the colour criteria it causes (C.8-C.11)."""

from __future__ import annotations

from broadcast.fide.dutch_engine.context import RoundContext
from broadcast.fide.dutch_engine.preferences import ABSOLUTE, STRONG, played_colours


def _other(colour: str) -> str:
    return "b" if colour == "w" else "w"


def allocate(ctx: RoundContext, a: int, b: int) -> tuple[int, int]:
    """E.1-E.5 for the pair a-b: returns (white, black)."""
    qa, qb = ctx.preferences[a], ctx.preferences[b]
    # The higher-ranked player: higher score, then lower pairing number (the complaint:
    # same history, different scores, the higher score gets its preference).
    hi = a if ctx.rank_key(a) < ctx.rank_key(b) else b

    def give(x: int, colour: str) -> tuple[int, int]:
        y = b if x == a else a
        return (x, y) if colour == "w" else (y, x)

    # E.1: both preferences can be met.
    if qa.colour and qb.colour and qa.colour != qb.colour:
        return give(a, qa.colour)
    if qa.colour and not qb.colour:
        return give(a, qa.colour)
    if qb.colour and not qa.colour:
        return give(b, qb.colour)
    if qa.colour and qb.colour:
        # E.2: the stronger preference; between two absolutes, the wider colour difference.
        if qa.strength != qb.strength:
            return give(a, qa.colour) if qa.strength > qb.strength else give(b, qb.colour)
        if qa.strength == ABSOLUTE and abs(qa.difference) != abs(qb.difference):
            if abs(qa.difference) > abs(qb.difference):
                return give(a, qa.colour)
            return give(b, qb.colour)
        # E.3: alternate from the most recent round in which they had different colours;
        # played colours are aligned from the end, unplayed rounds skipped.
        sa = played_colours(ctx.players[a].colours)
        sb = played_colours(ctx.players[b].colours)
        for x, y in zip(reversed(sa), reversed(sb), strict=False):
            if x != y:
                return give(a, _other(x))
        # E.4: the higher-ranked player's preference.
        colour = ctx.preferences[hi].colour
        assert colour is not None  # both have one here
        return give(hi, colour)
    # E.5: no preference on either side: the initial colour by the parity of the higher
    # player's place among the players paired this round.
    init = ctx.initial_colour
    return give(hi, init if ctx.position[hi] % 2 == 1 else _other(init))


def colour_costs(ctx: RoundContext, a: int, b: int) -> tuple[int, int, int]:
    """(C.8+C.9, C.10, C.11) violations of the pair a-b with the colours E would allocate:
    topscorers' colour difference beyond 2 or three in a row, preferences not met, strong
    (or absolute) preferences not met."""
    white, black = allocate(ctx, a, b)
    c8 = c10 = c11 = 0
    top = ctx.topscorer[a] or ctx.topscorer[b]
    for x, got in ((white, "w"), (black, "b")):
        q = ctx.preferences[x]
        if q.colour and q.colour != got:
            c10 += 1
            if q.strength >= STRONG:
                c11 += 1
        if top:
            seq = [*played_colours(ctx.players[x].colours), got]
            d = seq.count("w") - seq.count("b")
            if abs(d) > 2 or (len(seq) >= 3 and seq[-1] == seq[-2] == seq[-3]):
                c8 += 1
    return c8, c10, c11


__all__ = [
    "allocate",
    "colour_costs",
]
