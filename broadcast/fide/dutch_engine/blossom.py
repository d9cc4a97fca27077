"""Maximum-weight matching in a general graph on integer weights (Edmonds' blossom algorithm
in its primal-dual form, O(n^3)), with the dual solution as a certificate of optimality.

Our own implementation, written from the algorithm's description (Edmonds 1965; Galil, "Efficient
algorithms for finding maximum matching in graphs", 1986), on plain lists indexed by vertex and
edge number: the engine solves the same kind of graph many times per round, and a generic graph
library spends most of its time on dictionary look-ups.

Duals: every vertex v has y[v], every non-trivial blossom B has z[B] >= 0. An edge's reduced
cost is y[u] + y[v] - 2w + (z of every blossom holding both ends); at the end every reduced cost
is >= 0, matched edges and blossom edges are tight, blossoms with z > 0 are full and unmatched
vertices have y = 0, which proves the matching optimal (LP duality). `is_optimal_for` uses this
to prove that an optimum on a subset of the edges is an optimum on more edges.
"""

from __future__ import annotations

from collections.abc import Sequence

FREE, S_LABEL, T_LABEL = 0, 1, 2


class BlossomMatching:
    """One maximum-weight matching problem: vertices 0..n-1, edges (u, v, w) with int w."""

    def __init__(self, n: int, edges: Sequence[tuple[int, int, int]]) -> None:
        self.n = n
        self.eu = [e[0] for e in edges]
        self.ev = [e[1] for e in edges]
        self.ew = [e[2] for e in edges]
        self.adj: list[list[int]] = [[] for _ in range(n)]
        for k, (u, v, _) in enumerate(edges):
            self.adj[u].append(k)
            self.adj[v].append(k)
        top = max([0, *self.ew])
        size = 2 * n
        self.mate = [-1] * n  # the vertex each vertex is matched to
        self.inb = list(range(n))  # the outermost blossom holding each vertex
        self.parent = [-1] * size
        self.children: list[list[int]] = [[] for _ in range(size)]
        # links[b][i] = (x, y): the cycle edge from child i (x in it) to child i+1 (y in it)
        self.links: list[list[tuple[int, int]]] = [[] for _ in range(size)]
        self.base = list(range(n)) + [-1] * n
        # label of an outermost blossom; for a vertex inside a larger blossom, whether an
        # S vertex reached it by a tight edge (used when that blossom is expanded)
        self.label = [FREE] * size
        self.lab_out = [-1] * size  # the label edge: its end outside the blossom ...
        self.lab_in = [-1] * size  # ... and its end inside
        self.y = [top] * n + [0] * n
        self.best = [-1] * size  # least-slack edge to an S blossom (free vertex / S blossom)
        self.best_list: list[list[int] | None] = [None] * size
        self.spare = list(range(size - 1, n - 1, -1))
        self.queue: list[int] = []
        self._solve()

    # ------------------------------------------------------------------ helpers
    def _slack(self, k: int) -> int:
        return self.y[self.eu[k]] + self.y[self.ev[k]] - 2 * self.ew[k]

    def _leaves(self, b: int) -> list[int]:
        if b < self.n:
            return [b]
        out: list[int] = []
        stack = [b]
        while stack:
            c = stack.pop()
            if c < self.n:
                out.append(c)
            else:
                stack.extend(self.children[c])
        return out

    def _assign(self, w: int, lab: int, frm: int) -> None:
        """Label w's outermost blossom S or T, reached from vertex `frm` (-1: a root)."""
        b = self.inb[w]
        self.label[w] = self.label[b] = lab
        self.lab_out[w] = self.lab_out[b] = frm
        self.lab_in[w] = self.lab_in[b] = w
        self.best[w] = self.best[b] = -1
        if lab == S_LABEL:
            self.queue.extend(self._leaves(b))
        else:
            bs = self.base[b]
            self._assign(self.mate[bs], S_LABEL, bs)

    def _scan(self, v: int, w: int) -> int:
        """Walk up the trees from two S vertices joined by a tight edge: the base vertex of
        their nearest common S blossom, or -1 when they are in different trees (augment)."""
        marked: list[int] = []
        found = -1
        while v != -1 or w != -1:
            if v != -1:
                b = self.inb[v]
                if self.label[b] & 4:
                    found = self.base[b]
                    break
                marked.append(b)
                self.label[b] = S_LABEL | 4
                if self.lab_out[b] == -1:
                    v = -1
                else:
                    t = self.inb[self.lab_out[b]]
                    v = self.lab_out[t]
            v, w = w, v
        for b in marked:
            self.label[b] = S_LABEL
        return found

    # ------------------------------------------------------------------ blossoms
    def _add_blossom(self, base_v: int, v: int, w: int) -> None:
        bb = self.inb[base_v]
        left: list[int] = []
        x = self.inb[v]
        while x != bb:
            left.append(x)
            x = self.inb[self.lab_out[x]]
        right: list[int] = []
        x = self.inb[w]
        while x != bb:
            right.append(x)
            x = self.inb[self.lab_out[x]]
        b = self.spare.pop()
        chain = [bb, *reversed(left)]
        kids = chain + right
        links: list[tuple[int, int]] = []
        for i in range(len(chain) - 1):
            c = chain[i + 1]
            links.append((self.lab_out[c], self.lab_in[c]))
        links.append((v, w))
        for c in right:
            links.append((self.lab_in[c], self.lab_out[c]))
        self.children[b] = kids
        self.links[b] = links
        self.base[b] = self.base[bb]
        self.parent[b] = -1
        for c in kids:
            self.parent[c] = b
        self.label[b] = S_LABEL
        self.lab_out[b] = self.lab_out[bb]
        self.lab_in[b] = self.lab_in[bb]
        self.y[b] = 0
        for leaf in self._leaves(b):
            if self.label[self.inb[leaf]] == T_LABEL:
                self.queue.append(leaf)
            self.inb[leaf] = b
        # least-slack edges from the new blossom to every other S blossom
        best_to: dict[int, int] = {}
        for c in kids:
            cands = self.best_list[c]
            if cands is None:
                cands = [k for leaf in self._leaves(c) for k in self.adj[leaf]]
            for k in cands:
                i, j = self.eu[k], self.ev[k]
                if self.inb[j] == b:
                    i, j = j, i
                bj = self.inb[j]
                if bj != b and self.label[bj] == S_LABEL:
                    cur = best_to.get(bj, -1)
                    if cur == -1 or self._slack(k) < self._slack(cur):
                        best_to[bj] = k
            self.best_list[c] = None
            self.best[c] = -1
        lst = list(best_to.values())
        self.best_list[b] = lst
        self.best[b] = min(lst, key=self._slack) if lst else -1

    def _expand(self, b: int, end_of_stage: bool) -> None:
        for c in self.children[b]:
            self.parent[c] = -1
            if c < self.n:
                self.inb[c] = c
            elif end_of_stage and self.y[c] == 0:
                self._expand(c, end_of_stage)
            else:
                for leaf in self._leaves(c):
                    self.inb[leaf] = c
        if not end_of_stage and self.label[b] == T_LABEL:
            self._relabel_expanded_t(b)
        self.label[b] = FREE
        self.lab_out[b] = self.lab_in[b] = -1
        self.children[b] = []
        self.links[b] = []
        self.base[b] = -1
        self.best_list[b] = None
        self.best[b] = -1
        self.spare.append(b)

    def _relabel_expanded_t(self, b: int) -> None:
        """After expanding T blossom b mid-stage, label the even path of its children from the
        entry child to the base child T/S alternately; children off that path become free, or
        T when an S vertex already reaches one of their vertices by a tight edge."""
        kids, links = self.children[b], self.links[b]
        size = len(kids)
        entry = self.inb[self.lab_in[b]]
        j = kids.index(entry)
        step = 1 if j % 2 else -1  # leave the entry child along its matched cycle edge
        frm, to = self.lab_out[b], self.lab_in[b]
        on_path = set()
        while j % size != 0:
            on_path.add(kids[j % size])
            self.label[to] = FREE
            self._assign(to, T_LABEL, frm)  # labels the next child S through the match
            # step over the S child to the next T child
            j += step
            on_path.add(kids[j % size])
            if step == 1:
                frm, to = links[j % size]
            else:
                to, frm = links[(j - 1) % size]
            j += step
        base_child = kids[0]
        on_path.add(base_child)
        self.label[to] = self.label[base_child] = T_LABEL
        self.lab_out[to] = self.lab_out[base_child] = frm
        self.lab_in[to] = self.lab_in[base_child] = to
        self.best[base_child] = -1
        for c in kids:
            if c in on_path or self.label[c] == S_LABEL:
                continue
            # read the "reached" marks before clearing labels: for a single-vertex child the
            # vertex's mark and the child's label are the same entry
            reached = [v for v in self._leaves(c) if self.label[v] != FREE]
            self.label[c] = FREE
            for v in self._leaves(c):
                self.label[v] = FREE
            if reached:
                v = reached[0]
                frm_v = self.lab_out[v]
                self.label[v] = FREE
                self._assign(v, T_LABEL, frm_v)

    # ------------------------------------------------------------------ augmenting
    def _augment_blossom(self, b: int, v: int) -> None:
        """Make vertex v the base of blossom b: flip the matched and unmatched cycle edges on
        the even path from v's child to the base child, then rotate the cycle."""
        t = v
        while self.parent[t] != b:
            t = self.parent[t]
        if t >= self.n:
            self._augment_blossom(t, v)
        kids, links = self.children[b], self.links[b]
        size = len(kids)
        i = kids.index(t)
        if i:
            # cycle edge k (child k to child k+1) is matched when k is odd: leave child i along
            # its matched edge, so that the path to the base child has even length
            step = 1 if i % 2 else -1
            j = i
            while True:
                j += step
                if step == 1:
                    x, y = links[j % size]  # x in child j, y in child j+1
                else:
                    y, x = links[(j - 1) % size]  # x in child j, y in child j-1
                cx, cy = kids[j % size], kids[(j + step) % size]
                if cx >= self.n:
                    self._augment_blossom(cx, x)
                if cy >= self.n:
                    self._augment_blossom(cy, y)
                self.mate[x] = y
                self.mate[y] = x
                j += step
                if j % size == 0:
                    break
            self.children[b] = kids[i:] + kids[:i]
            self.links[b] = links[i:] + links[:i]
        self.base[b] = v

    def _augment(self, v: int, w: int) -> None:
        """Augment along the path through the tight edge v-w between two trees."""
        for s0, j0 in ((v, w), (w, v)):
            s, j = s0, j0
            while True:
                bs = self.inb[s]
                if bs >= self.n:
                    self._augment_blossom(bs, s)
                self.mate[s] = j
                if self.lab_out[bs] == -1:
                    break  # the root: its (free) base is now matched
                bt = self.inb[self.lab_out[bs]]
                s, j = self.lab_out[bt], self.lab_in[bt]
                if bt >= self.n:
                    self._augment_blossom(bt, j)
                self.mate[j] = s

    # ------------------------------------------------------------------ main loop
    def _solve(self) -> None:
        n = self.n
        if not self.eu:
            return
        size = 2 * n
        label, inb, y, best, parent, base = (
            self.label,
            self.inb,
            self.y,
            self.best,
            self.parent,
            self.base,
        )
        eu, ev, ew = self.eu, self.ev, self.ew
        for _stage in range(n):
            for i in range(size):
                label[i] = FREE
                self.best[i] = -1
            for i in range(n, size):
                self.best_list[i] = None
            allowed = [False] * len(eu)
            self.queue = []
            for v in range(n):
                if self.mate[v] == -1 and label[inb[v]] == FREE:
                    self._assign(v, S_LABEL, -1)
            augmented = False
            while True:
                while self.queue and not augmented:
                    v = self.queue.pop()
                    for k in self.adj[v]:
                        w = ev[k] if eu[k] == v else eu[k]
                        bv, bw = inb[v], inb[w]
                        if bv == bw:
                            continue
                        kslack = 0
                        if not allowed[k]:
                            kslack = y[v] + y[w] - 2 * ew[k]
                            if kslack <= 0:
                                allowed[k] = True
                        if allowed[k]:
                            if label[bw] == FREE:
                                self._assign(w, T_LABEL, v)
                            elif label[bw] == S_LABEL:
                                base_v = self._scan(v, w)
                                if base_v >= 0:
                                    self._add_blossom(base_v, v, w)
                                else:
                                    self._augment(v, w)
                                    augmented = True
                                    break
                            elif label[w] == FREE:
                                # inside a T blossom: remember who reaches it (for expansion)
                                label[w] = T_LABEL
                                self.lab_out[w] = v
                        elif label[bw] == S_LABEL:
                            cur = best[bv]
                            if cur == -1 or kslack < y[eu[cur]] + y[ev[cur]] - 2 * ew[cur]:
                                best[bv] = k
                        elif label[w] == FREE:
                            cur = best[w]
                            if cur == -1 or kslack < y[eu[cur]] + y[ev[cur]] - 2 * ew[cur]:
                                best[w] = k
                if augmented:
                    break
                delta = min(y[:n])
                kind, dedge, dblossom = 1, -1, -1
                for v in range(n):
                    k = best[v]
                    if k != -1 and label[inb[v]] == FREE:
                        d = y[eu[k]] + y[ev[k]] - 2 * ew[k]
                        if d < delta:
                            delta, kind, dedge = d, 2, k
                for b in range(size):
                    k = best[b]
                    if k != -1 and parent[b] == -1 and label[b] == S_LABEL:
                        if b >= n and base[b] < 0:
                            continue
                        d = (y[eu[k]] + y[ev[k]] - 2 * ew[k]) // 2
                        if d < delta:
                            delta, kind, dedge = d, 3, k
                for b in range(n, size):
                    if base[b] >= 0 and parent[b] == -1 and label[b] == T_LABEL and y[b] < delta:
                        delta, kind, dblossom = y[b], 4, b
                for v in range(n):
                    lab = label[inb[v]]
                    if lab == S_LABEL:
                        y[v] -= delta
                    elif lab == T_LABEL:
                        y[v] += delta
                for b in range(n, size):
                    if base[b] >= 0 and parent[b] == -1:
                        if label[b] == S_LABEL:
                            y[b] += delta
                        elif label[b] == T_LABEL:
                            y[b] -= delta
                if kind == 1:
                    break
                if kind in (2, 3):
                    allowed[dedge] = True
                    i = eu[dedge]
                    if label[inb[i]] != S_LABEL:
                        i = ev[dedge]
                    self.queue.append(i)
                else:
                    self._expand(dblossom, False)
            if not augmented:
                break
            for b in range(n, size):
                if self.parent[b] == -1 and self.base[b] >= 0 and label[b] == S_LABEL and y[b] == 0:
                    self._expand(b, True)

    # ------------------------------------------------------------------ results
    def partners(self) -> dict[int, int]:
        """Each matched vertex's partner."""
        return {v: m for v, m in enumerate(self.mate) if m != -1}

    def certified(self) -> bool:
        """Check the dual certificate on this graph's own edges: duals non-negative, every
        reduced cost non-negative, matched edges tight, unmatched vertices at zero, blossoms
        with a positive dual full. When it holds the matching is a maximum-weight matching,
        however it was found; the caller falls back to another solver if it does not."""
        n = self.n
        if any(self.y[v] < 0 for v in range(n)):
            return False
        for v in range(n):
            m = self.mate[v]
            if m == -1 and self.y[v] != 0:
                return False
            if m != -1 and self.mate[m] != v:
                return False
        weight = {}
        for k in range(len(self.eu)):
            u, v, w = self.eu[k], self.ev[k], self.ew[k]
            rc = self.reduced_cost(u, v, w)
            if rc < 0:
                return False
            weight[(u, v)] = weight[(v, u)] = w
            if self.mate[u] == v and rc != 0:
                return False
        for v in range(n):
            if self.mate[v] != -1 and (v, self.mate[v]) not in weight:
                return False
        for b in range(n, 2 * n):
            if self.base[b] < 0:
                continue
            if self.y[b] < 0:
                return False
            if self.y[b] > 0:
                leaves = set(self._leaves(b))
                inside = sum(1 for v in leaves if self.mate[v] in leaves)
                if inside != len(leaves) - 1:
                    return False
        return True

    def reduced_cost(self, u: int, v: int, w: int) -> int:
        """The dual slack of a (possibly absent) edge u-v of weight w: >= 0 for every edge of a
        graph on which this matching is optimal."""
        cost = self.y[u] + self.y[v] - 2 * w
        # blossoms holding both ends (walk u's chain of blossoms, test each for v)
        chain_u = set()
        b = self.parent[u]
        while b != -1:
            chain_u.add(b)
            b = self.parent[b]
        b = self.parent[v]
        while b != -1:
            if b in chain_u:
                cost += 2 * self.y[b]
            b = self.parent[b]
        return cost


__all__ = [
    "BlossomMatching",
]
