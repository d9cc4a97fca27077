"""The quality criteria (C.4-C.19) of one bracket as edge weights of a matching.

Each edge weight joins bit fields, most significant first, so that comparing two matchings by
their total weight compares the criteria lexicographically. Every field is wide enough that a
sum over a whole matching cannot carry into the field above it. The fields:

1. completion (C.4): every edge gets 1 when the lower players are in the graph, so the best
   matching pairs everyone that can be paired;
2. C.5: pairs inside the bracket;
3. C.6: the pairing score differences, each difference weighted 2^(bits*d) so that one larger
   difference outweighs any number of smaller ones;
4. C.7: pairs, then score differences, in the next bracket;
5. the unplayed games of the bye assignee (2025 text), in the bracket of the bye's score only;
6. colours: topscorers' colour difference / three in a row, preferences not met (C.10),
   strong preferences not met (C.11), with the colours E.1-E.5 would allocate;
7. floats: repeated downfloats/upfloats from the last round and the one before (C.12-C.15),
   then the same weighted by the score at which they repeat (C.16-C.19);
8. the generation order of candidates (the rules' first candidate among equally good ones):
   MDPs lexicographically first, then as many S1 players as possible keep their upper role
   (transpositions before exchanges), then the smallest sum of BSNs over the upper roles, then
   the lexicographically smallest set of upper BSNs (S1's highest exchanged first, S2's lowest
   taken first), then each upper player with the lowest-numbered lower player possible.
"""

from __future__ import annotations

from collections.abc import Sequence

from broadcast.fide.dutch_engine.colours import colour_costs
from broadcast.fide.dutch_engine.context import BYE, RoundContext

# (rounds back, kind) of C.12/C.16, C.13/C.17, C.14/C.18, C.15/C.19
FLOAT_FIELDS = ((1, "d"), (1, "u"), (2, "d"), (2, "u"))


class BracketWeights:
    """Edge weights for one bracket (MDPs first, then residents) and its lower players.

    `taken` is the guess of which residents pair the MDPs: the remainder's S1/S2 split depends
    on it, so the caller iterates until the solution agrees with the guess.
    """

    def __init__(
        self,
        ctx: RoundContext,
        bracket: Sequence[int],
        m: int,
        lower: Sequence[int],
        next_score: float,
        taken: Sequence[int],
        next_bracket: Sequence[int],
        bye_by_unplayed: bool = True,
    ) -> None:
        self.ctx = ctx
        n = len(bracket)
        self.n = n
        big_n = n + len(lower) + 2
        self.big_n = big_n
        bits = max(4, (2 * big_n + 2).bit_length() + 1)
        self.bits = bits
        self.scores = {x: ctx.score(x) for x in bracket}
        self.max_diff = 2 * ctx.total_rounds + 4
        mdps = list(bracket[:m])
        residents = list(bracket[m:])
        self.mdps = mdps
        self.mdpset = set(mdps)
        self.residents = residents
        takenset = set(taken)
        rem = [x for x in residents if x not in takenset]
        half = len(rem) // 2
        self.half = half
        s1, s2 = rem[:half], rem[half:]
        prio = mdps + list(taken) + s1 + s2
        self.pos = {x: i for i, x in enumerate(prio)}
        self.s1set = set(s1)
        self.bsn = {x: i + 1 for i, x in enumerate(rem)}

        def prefs(x: int) -> list[int]:
            if x in self.mdpset:
                return residents + [y for y in mdps if self.pos[y] > self.pos[x]]
            if x in takenset:
                return rem + [y for y in taken if self.pos[y] > self.pos[x]]
            # remainder: once the exchange (if any) is fixed by the fields above, the first
            # candidate pairs each upper player with the lowest-numbered possible lower player
            return [y for y in rem if self.pos[y] > self.pos[x]]

        self.pref_rank = {x: {y: k for k, y in enumerate(prefs(x))} for x in bracket}
        self.tb_base_bits = (n + 1).bit_length()
        tb_bits = self.tb_base_bits * (n + 1)
        # PSD: floaters are measured against one point below the bracket's lowest score
        self.floor_score = min(self.scores.values()) - 1
        self.next_set = set(next_bracket)
        self.next_floor = next_score - 1
        self.full = bool(lower)
        c6_bits = bits * (self.max_diff + 2)
        # 2025 text: in the bracket of the bye's score, when the bye assignee is the bracket's
        # single downfloater, the bye goes to the player with the fewest unplayed games; the
        # field sits on the BYE edges only (one per matching). The caller re-solves without it
        # when the bracket turns out to have more than one downfloater.
        cap = ctx.bye_score_cap
        residents_score = ctx.score(residents[0]) if residents else None
        self.pab_bracket = bye_by_unplayed and cap is not None and residents_score == cap
        self.score_rank = {x: i for i, x in enumerate(sorted(set(self.scores.values())))}
        fs_bits = bits * (len(self.score_rank) + 1)
        self.widths = [bits, bits, c6_bits, bits, c6_bits, bits] + [bits] * 7
        self.widths += [fs_bits] * 4
        self.widths += [tb_bits, bits, 2 * bits, n + 2, tb_bits]

    def _pack(self, vals: Sequence[int]) -> int:
        w = 0
        padded = list(vals) + [0] * (len(self.widths) - len(vals))
        for v, wd in zip(padded, self.widths, strict=True):
            w = (w << wd) + v
        return w

    def _c6val(self, d: int) -> int:
        return 1 << (self.bits * min(d, self.max_diff))

    def _tiebreak(self, a: int, b: int) -> int:
        if self.pos[a] > self.pos[b]:
            a, b = b, a
        r = self.pref_rank[a].get(b, self.n)
        return (self.n + 1 - r) << (self.tb_base_bits * (self.n - 1 - self.pos[a]))

    def _floats(self, a: int, b: int, k: int, kind: str) -> int:
        """C.12-C.15 for the in-bracket pair a-b (k rounds back): a player who does not float
        down in this pair avoids repeating a downfloat; the lower player of an unequal pair
        repeats an upfloat."""
        v = 2
        for x, y in ((a, b), (b, a)):
            sx, sy = self.scores[x], self.scores[y]
            last = self.ctx.last_float(x, k)
            if kind == "d" and sx <= sy and last == "d":
                v += 1
            if kind == "u" and sx < sy and last == "u":
                v -= 1
        return v

    def _float_scores(self, a: int, b: int, k: int, kind: str) -> int:
        """C.16-C.19 for the in-bracket pair a-b: as `_floats`, each player weighted by the
        score at which the float would repeat (a higher score weighs more than any number of
        lower ones)."""
        v = 0
        sa, sb = self.scores[a], self.scores[b]
        hi_score = max(sa, sb)
        if kind == "d":
            for x in (a, b):
                if self.ctx.last_float(x, k) == "d":
                    v += 1 << (self.bits * self.score_rank[self.scores[x]])
        else:
            lower = a if sa < sb else b
            if not (sa != sb and self.ctx.last_float(lower, k) == "u"):
                v += 1 << (self.bits * self.score_rank[hi_score])
        return v

    def weight(self, a: int, b: int) -> int:
        """The weight of the edge a-b (a compatible pair)."""
        ctx, sc = self.ctx, self.scores
        inb = a in sc and b in sc
        comp = 1 if self.full else 0
        if not inb:
            # C.7: pairs (and their PSD) in the next bracket, floaters against its residents
            touches_next = a in self.next_set or b in self.next_set
            if touches_next and (a in sc or a in self.next_set) and (b in sc or b in self.next_set):
                pa, pb = ctx.score(a), ctx.score(b)
                sv = (
                    self._c6val(round(2 * (pa - self.next_floor)))
                    + self._c6val(round(2 * (pb - self.next_floor)))
                    - self._c6val(round(2 * abs(pa - pb)))
                )
                return self._pack([comp, 0, 0, 1, sv])
            if self.pab_bracket and BYE in (a, b):
                x = b if a == BYE else a
                unplayed = sum(ctx.players[x].unplayed)
                return self._pack([comp, 0, 0, 0, 0, ctx.round_number - unplayed])
            return self._pack([comp])
        vals = [comp, 1]
        # C.6: pairing a and b saves their floating costs and costs their score difference
        vals.append(
            self._c6val(round(2 * (sc[a] - self.floor_score)))
            + self._c6val(round(2 * (sc[b] - self.floor_score)))
            - self._c6val(round(2 * abs(sc[a] - sc[b])))
        )
        vals += [0, 0, 0]  # C.7 is about the next bracket, C.9 about the bye
        c8, c10, c11 = colour_costs(ctx, a, b)
        vals += [2 - c8, 2 - c10, 2 - c11]

        # C.12-C.15: counts of repeated floats; C.16-C.19: the same, weighted by score so that
        # repeating a float at a higher score costs more than any number at lower scores.
        vals += [self._floats(a, b, k, kind) for k, kind in FLOAT_FIELDS]
        vals += [self._float_scores(a, b, k, kind) for k, kind in FLOAT_FIELDS]
        is_mdp = a in self.mdpset or b in self.mdpset
        up = a if self.pos[a] < self.pos[b] else b
        big_n = self.big_n
        vals.append(self._tiebreak(a, b) if is_mdp else 0)
        vals.append(1 if (not is_mdp and up in self.s1set) else 0)
        vals.append((0 if is_mdp else big_n - self.bsn.get(up, big_n)) + (big_n << self.bits))
        # at equal BSN sums, exchange S1's highest BSNs first and take S2's lowest: the set of
        # upper players is lexicographically smallest by BSN
        vals.append(0 if is_mdp else 1 << (self.n + 1 - self.bsn.get(up, self.n + 1)))
        vals.append(0 if is_mdp else self._tiebreak(a, b))
        return self._pack(vals)


__all__ = [
    "FLOAT_FIELDS",
    "BracketWeights",
]
