"""Who sits with whom in a round: Swiss pairing for tables of 2 to 6 units, and balanced round-robin
subsets, as pure functions of (entrants, history, seed, round).

A *unit* is an entrant at a table: in pairs variants a unit is one side (two copies of the entrant).
Everything is keyed by entrant name and every tie is broken by seeded keys, one hash of (seed, round,
name) per entrant and round, combined per pair or table, never by list position or a shared RNG, so the
same field listed in any order pairs the same way.

Two-unit tables, small fields (up to ``2 * NEAR`` vertices): a maximum-weight perfect matching
(networkx) over all pairs, with a virtual ``BYE`` vertex when the field is odd. Edge weights rank, in
this order: fewer rematches, smaller score difference, better seat balance, the seeded keys. A bye edge
exists only to the entrants with the fewest byes so far. When the tournament has rounds enough to become
a full round robin, the matching is also required to leave the unplayed pairs splittable into the
remaining rounds (a 1-factorization search), so ``n - 1`` rounds (``n`` when odd) of Swiss are a true
round robin. Larger fields: a sparse candidate graph (each entrant's ``2 * NEAR`` nearest rivals in the
standings that it has not met), a greedy pairing down the standings, augmenting paths (Edmonds) until
the pairing is perfect, widening the graph only when it has no perfect matching, then exchanges between
nearby pairs that lower the score differences. If even the complete graph of pairs not yet met has no
perfect matching, a rematch cannot be avoided and the complete weighted matching decides, as for small
fields.

Tables of 3 or more units: the ``n mod k`` sit-outs are the entrants with the fewest sit-outs, then the
lowest score, then the seeded key; the rest are partitioned to minimise repeat meetings first and score
spread second: exactly (all partitions) for small fields, else by a constructive fill down the standings
(each seat takes the candidate adding the least weight of earlier meetings, then the nearest in the
standings) and a repair by swaps, both with bit masks of who has met whom. Round robins of more groups
than are played (``balanced_rounds``) use the same fill round after round, keeping the masks between
rounds. A repeat-free round cannot exist when some active entrant has fewer than ``k - 1`` active
entrants it has not met; then the fewest repeats found are used.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable, Iterator, Sequence

from arena import derive_seed

#: Which algorithm made a tournament's tables. Tables are a pure function of (entrants, history, seed,
#: round) *and of this code*: the runner records the version per tournament, so a tournament begun
#: under one version is never resumed with another's tables. Version 1: the local search over swaps
#: and the complete-graph matching; 2: the constructive fill and the sparse Swiss graph (this module).
#: Raise it whenever a change here can give a different table for the same inputs.
SCHEDULE_VERSION = 2

BYE = "\x00bye"
#: partitions counted up to this many are searched exhaustively
EXACT_LIMIT = 6000
#: node budget of the 1-factorization look-ahead; beyond it the plain matching is used
FACTOR_BUDGET = 200_000
_TIE_RANGE = 1 << 20
#: two seats: fields above ``2 * NEAR`` vertices pair on the sparse graph of each entrant's
#: ``2 * NEAR`` nearest rivals in the standings it has not met
NEAR = 12
#: how much the sparse graph's reach grows when it has no perfect matching
WIDEN = 4
#: two seats: how many following pairs each pair tries an exchange with, and how many sweeps
SWAP_REACH = 8
SWAP_SWEEPS = 4
#: tables of 3+: bit-mask layers of earlier meetings (layer ``j``: met at least ``j + 1`` times);
#: more meetings weigh as this many
_LAYERS = 4
#: what a layer adds to a seat's cost: seating a pair that met ``c`` times before costs
#: ``1 + 6 + ... + 6 ** (c - 1)`` (0, 1, 7, 43, 259), so a pair's third meeting costs more than the
#: second meetings of all five others a seat can hold: meetings spread before repeats are counted
_LAYER_WEIGHT = tuple(6 ** j for j in range(_LAYERS))
#: the same, as binary digits
_LAYER_DIGITS = tuple(tuple(i for i in range(w.bit_length()) if w >> i & 1) for w in _LAYER_WEIGHT)
#: digits of a seat's cost: at most 5 members, each ``sum(_LAYER_WEIGHT)``
_DIGITS = (5 * sum(_LAYER_WEIGHT)).bit_length()
#: the most constrained of this many cheapest candidates takes a round-robin seat
PICK_CAP = 16
#: round robins: fills (from other seeded places) tried for a round that holds a repeat: about
#: ``ROUND_TRIES / n`` (a fill costs about ``n`` seats), at least 4 and at most 16
ROUND_TRIES = 800
#: repair: sweeps over the tables, and swap partners tried per entrant holding a repeat
REPAIR_SWEEPS = 4
REPAIR_TRIES = 64


@dataclass
class History:
    """What previous rounds of one variant decided: scores, meetings, byes and seat balance."""
    scores: dict[str, float] = field(default_factory=dict)
    met: Counter[frozenset[str]] = field(default_factory=Counter)
    byes: Counter[str] = field(default_factory=Counter)
    #: games as the first unit of a table minus games as the last (only matters without duplicates)
    seat_balance: Counter[str] = field(default_factory=Counter)
    #: ``met`` by entrant (opponent -> meetings), kept by ``meet``: the large-field pairings look up
    #: millions of pairs and a dict of dicts is several times faster than a frozenset key
    by: dict[str, dict[str, int]] = field(default_factory=dict)

    def meet(self, table: Sequence[str]) -> None:
        for a, b in itertools.combinations(table, 2):
            self.met[frozenset((a, b))] += 1
            self.by.setdefault(a, {})[b] = self.by.setdefault(b, {}).get(a, 0) + 1
            self.by[b][a] = self.by[a][b]

    def meetings(self, a: str, b: str) -> int:
        return self.met.get(frozenset((a, b)), 0)

    def score(self, name: str) -> float:
        return self.scores.get(name, 0.0)


@dataclass(frozen=True)
class Round:
    """One round: tables of units in seat order, and who sits out (a bye)."""
    tables: tuple[tuple[str, ...], ...]
    byes: tuple[str, ...] = ()


def _keys(seed: int, round_no: int, names: Iterable[str]) -> dict[str, int]:
    """Each entrant's seeded tie-break key for this round: one hash per entrant, so a round costs ``n``
    hashes however many candidates it weighs; a pair's key is the two keys' xor."""
    return {n: derive_seed("pair", seed, round_no, n) % _TIE_RANGE for n in names}


def pair_round(entrants: Iterable[str], k: int, history: History, *, seed: int, round_no: int,
               rounds_left: int = 1) -> Round:
    """The tables of ``round_no`` for ``k`` units a table. ``rounds_left`` counts this round too."""
    names = sorted(set(entrants))
    if k < 2:
        raise ValueError("a table has at least 2 units")
    if len(names) < k:
        return Round((), tuple(names))
    keys = _keys(seed, round_no, names)
    if k == 2:
        return _pair_two(names, history, keys, rounds_left)
    return _pair_many(names, k, history, keys)


def _met_of(h: History) -> dict[str, dict[str, int]]:
    """Each entrant's earlier meetings by opponent (a history filled without ``meet`` is indexed here)."""
    if h.by or not h.met:
        return h.by
    for pair, count in h.met.items():
        if count:
            a, b = tuple(pair)
            h.by.setdefault(a, {})[b] = count
            h.by.setdefault(b, {})[a] = count
    return h.by


def _diff(x: float, y: float) -> int:
    return int(round((x - y) ** 2 * 100))


def _order_tables(tables: Iterable[tuple[str, ...]], h: History) -> tuple[tuple[str, ...], ...]:
    """Top tables first (highest score), then by names: a stable numbering for game ids."""
    return tuple(sorted(tables, key=lambda t: (-max(h.score(n) for n in t), sorted(t))))


# ------------------------------------------------------------------------------------------- two seats
def _pair_two(names: list[str], h: History, keys: dict[str, int], rounds_left: int) -> Round:
    matching = None
    if len(names) + len(names) % 2 > 2 * NEAR:
        matching = _pair_sparse(names, h, keys)
    if matching is None:
        matching = _pair_complete(names, h, keys, rounds_left)
    return _two_round(matching, h, keys)


#: a candidate pairing: (a, b, meetings, score difference, same seat side, seeded tie)
Edge = tuple[str, str, int, int, int, int]


def _edge(a: str, b: str, h: History, low: float, keys: dict[str, int]) -> Edge:
    if b == BYE:
        return a, b, 0, _diff(h.score(a), low), 0, keys[a]
    same = _same_side(h.seat_balance[a], h.seat_balance[b])
    return a, b, h.meetings(a, b), _diff(h.score(a), h.score(b)), same, keys[a] ^ keys[b]


def _same_side(sa: int, sb: int) -> int:
    """1 when both seat balances lean the same way: only one of the two can be given the seat it lacks."""
    return 1 if (sa > 0 and sb > 0) or (sa < 0 and sb < 0) else 0


def _pair_complete(names: list[str], h: History, keys: dict[str, int], rounds_left: int) -> set[frozenset[str]]:
    """The exact pairing: a maximum-weight matching over every pair (and the bye), then the round-robin
    look-ahead. Small fields, and any field where no pairing avoids a rematch."""
    vertices = names + ([BYE] if len(names) % 2 else [])
    min_byes = min(h.byes[n] for n in names)
    low = min(h.score(n) for n in names)
    pairs: list[tuple[str, str]] = list(itertools.combinations(names, 2))
    if len(names) % 2:
        pairs += [(a, BYE) for a in names if h.byes[a] == min_byes]
    edges = [_edge(a, b, h, low, keys) for a, b in pairs]
    weight = _weights(edges, len(vertices) // 2)
    matching = _matching(vertices, edges, weight)
    return _round_robin_lookahead(vertices, h, matching, weight, rounds_left)


def _weights(edges: Sequence[Edge], half: int) -> dict[frozenset[str], int]:
    """One integer weight per edge that orders matchings lexicographically: fewer rematches, then a
    smaller score difference, then seat balance, then the seeded keys."""
    m1 = (half + 1) * _TIE_RANGE
    m2 = (half + 1) * (1 + max(e[4] for e in edges)) * m1
    m3 = (half + 1) * (1 + max(e[3] for e in edges)) * m2
    top = (1 + max(e[2] for e in edges)) * m3
    return {frozenset((a, b)): top - (meet * m3 + diff * m2 + seat * m1 + tie)
            for a, b, meet, diff, seat, tie in edges}


def _matching(vertices: list[str], edges: Sequence[Edge], weight: dict[frozenset[str], int]) -> set[frozenset[str]]:
    import networkx as nx  # here, not at the top: every command imports this module, few pair two seats

    g = nx.Graph()
    g.add_nodes_from(vertices)
    for e in edges:
        g.add_edge(e[0], e[1], weight=weight[frozenset((e[0], e[1]))])
    return {frozenset(e) for e in nx.max_weight_matching(g, maxcardinality=True)}


class _SparseField:
    """A two-seat round of a large field, by standings index (``BYE``, when the field is odd, is the
    last index): who may pair with whom (not met before; the bye only for the fewest byes) and what a
    pair costs (score difference, seat balance, the seeded keys; lower is better)."""

    def __init__(self, names: list[str], h: History, keys: dict[str, int]) -> None:
        self.ranked = sorted(names, key=lambda n: (-h.score(n), keys[n], n))
        self.n = len(self.ranked)
        self.bye = self.n if self.n % 2 else -1
        self.size = self.n + (self.bye >= 0)
        met = _met_of(h)
        self.met = [met.get(x, {}) for x in self.ranked]
        self.score = [h.score(x) for x in self.ranked]
        self.key = [keys[x] for x in self.ranked]
        self.seat = [h.seat_balance[x] for x in self.ranked]
        least = min(h.byes[x] for x in self.ranked)
        #: who may take the bye, lowest in the standings first
        self.bye_ok = [i for i in reversed(range(self.n)) if h.byes[self.ranked[i]] == least]
        self.bye_set = set(self.bye_ok)
        self.low = min(self.score)

    def name(self, i: int) -> str:
        return BYE if i == self.bye else self.ranked[i]

    def allowed(self, a: int, b: int) -> bool:
        if a == self.bye or b == self.bye:
            return (b if a == self.bye else a) in self.bye_set
        return a != b and not self.met[a].get(self.ranked[b])

    def cost(self, a: int, b: int) -> tuple[int, int, int]:
        if a == self.bye or b == self.bye:
            x = b if a == self.bye else a
            return _diff(self.score[x], self.low), 0, self.key[x]
        same = _same_side(self.seat[a], self.seat[b])
        return _diff(self.score[a], self.score[b]), same, self.key[a] ^ self.key[b]

    def graph(self, reach: int) -> list[list[int]]:
        """Each entrant's ``reach`` nearest rivals in the standings that it has not met (every one of
        them when ``reach`` covers the field), made symmetric, nearest first; the bye's candidates are
        the ``reach`` lowest-ranked of those who may take it."""
        adj: list[set[int]] = [set() for _ in range(self.size)]
        for i in range(self.n):
            for j in self._nearest_unmet(i, reach):
                adj[i].add(j)
                adj[j].add(i)
        if self.bye >= 0:
            for i in self.bye_ok[:reach]:
                adj[i].add(self.bye)
                adj[self.bye].add(i)
        return [sorted(s, key=lambda j: (abs(i - j), j)) for i, s in enumerate(adj)]

    def _nearest_unmet(self, i: int, reach: int) -> Iterator[int]:
        met, ranked, found = self.met[i], self.ranked, 0
        for d in range(1, self.n):
            for j in (i - d, i + d):
                if 0 <= j < self.n and not met.get(ranked[j]):
                    yield j
                    found += 1
                    if found >= reach:
                        return


def _pair_sparse(names: list[str], h: History, keys: dict[str, int]) -> set[frozenset[str]] | None:
    """A rematch-free pairing of a large field, or None when none exists (the caller then weighs the
    complete graph). Greedy down the standings on the sparse graph, augmenting paths until perfect
    (widening the graph while it has no perfect matching), then exchanges that lower the costs."""
    f = _SparseField(names, h, keys)
    mate = [-1] * f.size
    reach = 2 * NEAR
    adj = f.graph(reach)
    _greedy_pairs(f, adj, mate)
    while not _augment(adj, mate):
        if reach >= f.n:
            return None  # even the complete graph of unmet pairs has no perfect matching
        reach *= WIDEN
        adj = f.graph(reach)
    _exchange(f, mate)
    return {frozenset((f.name(i), f.name(j))) for i, j in enumerate(mate) if i < j}


def _greedy_pairs(f: _SparseField, adj: list[list[int]], mate: list[int]) -> None:
    """The bye to the lowest-ranked who may take it, then each unpaired entrant, top down, with its
    cheapest unpaired candidate: Swiss pairing within and next to score groups."""
    if f.bye >= 0 and f.bye_ok:
        x = f.bye_ok[0]
        mate[x], mate[f.bye] = f.bye, x
    for a in range(f.n):
        if mate[a] >= 0:
            continue
        best: tuple[tuple[int, int, int], int] | None = None
        for b in adj[a]:
            if mate[b] < 0 and b != f.bye and b != a:
                c = f.cost(a, b)
                if best is None or c < best[0]:
                    best = c, b
        if best is not None:
            mate[a], mate[best[1]] = best[1], a


def _augment(adj: list[list[int]], mate: list[int]) -> bool:
    """Grow ``mate`` to a maximum matching of ``adj`` by augmenting paths (Edmonds' blossoms); True if
    it is perfect. A vertex that no augmenting path reaches is not searched again: it never will be."""
    for root in range(len(adj)):
        if mate[root] < 0:
            end, parent = _find_path(root, adj, mate)
            while end >= 0:  # flip the path
                p = parent[end]
                nxt = mate[p]
                mate[end], mate[p] = p, end
                end = nxt
    return all(m >= 0 for m in mate)


def _find_path(root: int, adj: list[list[int]], mate: list[int]) -> tuple[int, list[int]]:
    """Breadth-first search for an augmenting path from ``root``, contracting odd cycles (blossoms):
    the free vertex it ends at (or -1) and the parents to walk it back."""
    n = len(adj)
    used = [False] * n
    parent = [-1] * n
    base = list(range(n))
    used[root] = True
    queue = [root]
    head = 0
    while head < len(queue):
        v = queue[head]
        head += 1
        for to in adj[v]:
            if base[v] == base[to] or mate[v] == to:
                continue
            if to == root or (mate[to] >= 0 and parent[mate[to]] >= 0):
                b = _lca(v, to, base, mate, parent, n)
                blossom = [False] * n
                _mark(v, b, to, base, mate, parent, blossom)
                _mark(to, b, v, base, mate, parent, blossom)
                for i in range(n):
                    if blossom[base[i]]:
                        base[i] = b
                        if not used[i]:
                            used[i] = True
                            queue.append(i)
            elif parent[to] < 0:
                parent[to] = v
                if mate[to] < 0:
                    return to, parent
                used[mate[to]] = True
                queue.append(mate[to])
    return -1, parent


def _lca(a: int, b: int, base: list[int], mate: list[int], parent: list[int], n: int) -> int:
    seen = [False] * n
    while True:
        a = base[a]
        seen[a] = True
        if mate[a] < 0:
            break
        a = parent[mate[a]]
    while True:
        b = base[b]
        if seen[b]:
            return b
        b = parent[mate[b]]


def _mark(v: int, b: int, child: int, base: list[int], mate: list[int], parent: list[int],
          blossom: list[bool]) -> None:
    while base[v] != b:
        blossom[base[v]] = blossom[base[mate[v]]] = True
        parent[v] = child
        child = mate[v]
        v = parent[mate[v]]


def _exchange(f: _SparseField, mate: list[int]) -> None:
    """Lower the pairing's score differences, then seat clashes, by exchanges between a pair and the
    next ``SWAP_REACH`` pairs down the standings ({a, b}, {c, d} -> {a, c}, {b, d} or {a, d}, {b, c}),
    only ever to pairs not met before: what augmenting paths displaced settles back near its score
    group. Two pairs that already cost nothing are passed over without a look-up (most of them)."""
    for _ in range(SWAP_SWEEPS):
        pairs = sorted((i, j) for i, j in enumerate(mate) if i < j)
        costs = [f.cost(a, b)[:2] for a, b in pairs]
        changed = False
        for p in range(len(pairs)):
            for q in range(p + 1, min(len(pairs), p + 1 + SWAP_REACH)):
                if costs[p] == (0, 0) and costs[q] == (0, 0):
                    continue
                better = _better_exchange(f, pairs[p], pairs[q], costs[p], costs[q])
                if better is not None:
                    pairs[p], pairs[q], costs[p], costs[q] = better
                    for x, y in pairs[p], pairs[q]:
                        mate[x], mate[y] = y, x
                    changed = True
        if not changed:
            return


#: two pairs and their (score difference, seat clash)
_Exchange = tuple[tuple[int, int], tuple[int, int], tuple[int, int], tuple[int, int]]


def _better_exchange(f: _SparseField, one: tuple[int, int], two: tuple[int, int], cost_one: tuple[int, int],
                     cost_two: tuple[int, int]) -> _Exchange | None:
    """The cheaper of the two other ways to pair these four, if it is allowed and cheaper than now."""
    (a, b), (c, d) = one, two
    now = (cost_one[0] + cost_two[0], cost_one[1] + cost_two[1])
    best = None
    for x, y, u, v in ((a, c, b, d), (a, d, b, c)):
        if f.allowed(x, y) and f.allowed(u, v):
            first, second = f.cost(x, y)[:2], f.cost(u, v)[:2]
            then = (first[0] + second[0], first[1] + second[1])
            if then < now:
                now, best = then, ((min(x, y), max(x, y)), (min(u, v), max(u, v)), first, second)
    return best


def _round_robin_lookahead(vertices: list[str], h: History, matching: set[frozenset[str]],
                           weight: dict[frozenset[str], int], rounds_left: int) -> set[frozenset[str]]:
    """When the rounds left can still complete a round robin, keep the matching only if the unplayed
    pairs after it can be split into perfect matchings; else take the first factor of such a split."""
    inside = set(vertices)
    met: Counter[str] = Counter()
    for pair, count in h.met.items():
        if count and pair <= inside:
            for x in pair:
                met[x] += 1
    if BYE in inside:
        for v in vertices:
            met[v] += h.byes[v] > 0
        met[BYE] = sum(1 for v in vertices if v != BYE and h.byes[v] > 0)
    left = {len(vertices) - 1 - met[v] for v in vertices}
    if len(left) != 1 or rounds_left < min(left) or min(left) == 0:
        return matching  # no round robin to complete: never look at the n^2 pairs
    unplayed: dict[str, set[str]] = {v: set() for v in vertices}
    for a, b in itertools.combinations(vertices, 2):
        played = h.byes[a] > 0 if b == BYE else h.meetings(a, b) > 0
        if not played:
            unplayed[a].add(b)
            unplayed[b].add(a)
    degrees = {len(s) for s in unplayed.values()}
    if len(degrees) != 1:
        return matching
    d = degrees.pop()
    if d == 0 or rounds_left < d or any(b not in unplayed[a] for a, b in map(tuple, matching)):
        return matching
    budget = [FACTOR_BUDGET]
    rest = {v: set(s) for v, s in unplayed.items()}
    for a, b in map(tuple, matching):
        rest[a].discard(b)
        rest[b].discard(a)
    if _factorable(rest, budget):
        return matching
    budget = [FACTOR_BUDGET]
    order = {v: sorted(unplayed[v], key=lambda u: -weight.get(frozenset((v, u)), 0)) for v in vertices}
    first = _first_factor(unplayed, order, budget)
    return first if first is not None else matching


def _perfect_matchings(adj: dict[str, set[str]], order: dict[str, list[str]] | None,
                       budget: list[int]) -> Iterable[list[tuple[str, str]]]:
    free = sorted(v for v in adj if adj[v])
    if not free:
        yield []
        return

    def rec(left: list[str], acc: list[tuple[str, str]]) -> Iterable[list[tuple[str, str]]]:
        if not left:
            yield list(acc)
            return
        budget[0] -= 1
        if budget[0] < 0:
            return
        v = min(left, key=lambda x: sum(1 for u in adj[x] if u in left))
        cands = order[v] if order else sorted(adj[v])
        for u in cands:
            if u in adj[v] and u in left and u != v:
                rem = [x for x in left if x != v and x != u]
                acc.append((v, u))
                yield from rec(rem, acc)
                acc.pop()

    yield from rec(free, [])


def _factorable(adj: dict[str, set[str]], budget: list[int]) -> bool:
    if not any(adj.values()):
        return True
    for m in _perfect_matchings(adj, None, budget):
        if budget[0] < 0:
            return False
        rest = {v: set(s) for v, s in adj.items()}
        for a, b in m:
            rest[a].discard(b)
            rest[b].discard(a)
        if _factorable(rest, budget):
            return True
    return False


def _first_factor(adj: dict[str, set[str]], order: dict[str, list[str]],
                  budget: list[int]) -> set[frozenset[str]] | None:
    for m in _perfect_matchings(adj, order, budget):
        if budget[0] < 0:
            return None
        rest = {v: set(s) for v, s in adj.items()}
        for a, b in m:
            rest[a].discard(b)
            rest[b].discard(a)
        if _factorable(rest, budget):
            return {frozenset(e) for e in m}
    return None


def _two_round(matching: set[frozenset[str]], h: History, keys: dict[str, int]) -> Round:
    tables: list[tuple[str, ...]] = []
    byes: list[str] = []
    for pair in matching:
        a, b = sorted(pair)
        if BYE in pair:
            byes.append(a if b == BYE else b)
            continue
        # the unit with more first seats goes second; equal balance: the seeded key decides
        if (h.seat_balance[a], keys[a], a) > (h.seat_balance[b], keys[b], b):
            a, b = b, a
        tables.append((a, b))
    return Round(_order_tables(tables, h), tuple(sorted(byes)))


# ------------------------------------------------------------------------------------ three or more
def choose_sitouts(names: Sequence[str], count: int, h: History, keys: dict[str, int]) -> list[str]:
    """Fewest sit-outs first, then the lowest score, then the seeded key."""
    ranked = sorted(names, key=lambda n: (h.byes[n], h.score(n), keys[n], n))
    return sorted(ranked[:count])


def _pair_many(names: list[str], k: int, h: History, keys: dict[str, int], *, spread: bool = False) -> Round:
    """``spread``: a round-robin subset, where a pair's third meeting weighs more than second
    meetings (as in the constructive fill) even in the exact search."""
    sit = choose_sitouts(names, len(names) % k, h, keys)
    out = set(sit)
    active = [n for n in names if n not in out]
    if _partition_count(len(active), k) <= EXACT_LIMIT:
        best = _exact_tables(active, k, h, keys, spread)
    else:
        best = _constructive_tables(active, k, h, keys)
    return Round(_order_tables(_seat_order(best, h, keys), h), tuple(sit))


def _seat_order(tables: Iterable[Sequence[str]], h: History, keys: dict[str, int]) -> list[tuple[str, ...]]:
    """Within a table, fewer first seats so far sit first (then the seeded key)."""
    return [tuple(sorted(t, key=lambda n: (h.seat_balance[n], keys[n], n))) for t in tables]


def _partition_count(n: int, k: int) -> int:
    return math.factorial(n) // (math.factorial(k) ** (n // k) * math.factorial(n // k))


def _partitions(items: list[str], k: int) -> Iterable[list[tuple[str, ...]]]:
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for others in itertools.combinations(rest, k - 1):
        left = [x for x in rest if x not in others]
        for tail in _partitions(left, k):
            yield [(first, *others)] + tail


def _exact_tables(active: list[str], k: int, h: History, keys: dict[str, int],
                  spread: bool = False) -> list[tuple[str, ...]]:
    """Every partition weighed: fewest repeat meetings (the sum of the earlier meetings of every pair
    seated together), then the least weight of them (``_WEIGHT``: third meetings weigh more), then the
    least score spread, then the seeded keys; with ``spread`` the weight comes first. Each table is
    costed once, however many partitions hold it."""
    met = _met_of(h)
    cache: dict[tuple[str, ...], tuple[int, int, int, int]] = {}

    def table_cost(t: tuple[str, ...]) -> tuple[int, int, int, int]:
        c = cache.get(t)
        if c is None:
            counts = [met.get(a, {}).get(b, 0) for a, b in itertools.combinations(t, 2)]
            scores = [h.score(n) for n in t]
            mean = sum(scores) / len(scores)
            scatter = int(round(sum((s - mean) ** 2 for s in scores) * 100))
            tie = sum(keys[a] ^ keys[b] for a, b in itertools.combinations(t, 2))
            repeats, weight = sum(counts), sum(_WEIGHT[min(x, _LAYERS)] for x in counts)
            c = cache[t] = (weight, repeats, scatter, tie) if spread else (repeats, weight, scatter, tie)
        return c

    def cost(p: list[tuple[str, ...]]) -> tuple[int, int, int, int]:
        costs = [table_cost(t) for t in p]
        return (sum(c[0] for c in costs), sum(c[1] for c in costs), sum(c[2] for c in costs),
                sum(c[3] for c in costs))

    return min(_partitions(active, k), key=cost)


def _constructive_tables(active: list[str], k: int, h: History, keys: dict[str, int]) -> list[list[str]]:
    """Large fields: the constructive fill down the standings (nearest score second), then repair."""
    ranked = sorted(active, key=lambda n: (-h.score(n), keys[n], n))
    index = {x: i for i, x in enumerate(ranked)}
    seating = _Seating(len(ranked))
    met = _met_of(h)
    for i, x in enumerate(ranked):
        for y, c in met.get(x, {}).items():
            j = index.get(y)
            if j is not None and j > i and c:
                seating.meet(i, j, c)
    tables = seating.fill((1 << len(ranked)) - 1, k, 0, constrained=False)
    seating.repair(tables)
    return [[ranked[i] for i in t] for t in tables]


class _Seating:
    """Earlier meetings among entrants ``0..n-1``, for filling tables one seat at a time: per entrant a
    dict of counts and, per layer ``j``, a bit mask of those met at least ``j + 1`` times. A seat's
    cost for every candidate at once is a bit-sliced sum of the table members' masks (a few big-integer
    operations a member), so a seat never re-scores a table and never loops over candidates."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.count: list[dict[int, int]] = [{} for _ in range(n)]
        self.layers: list[list[int]] = [[0] * n for _ in range(_LAYERS)]

    def meet(self, a: int, b: int, times: int = 1) -> None:
        """Count ``times`` more meetings of ``a`` and ``b`` (counts stop at ``_LAYERS``: weights do)."""
        c = self.count[a].get(b, 0)
        for layer in range(c, min(c + times, _LAYERS)):
            self.layers[layer][a] |= 1 << b
            self.layers[layer][b] |= 1 << a
        self.count[a][b] = self.count[b][a] = min(c + times, _LAYERS)

    def meet_tables(self, tables: Iterable[Sequence[int]]) -> None:
        for t in tables:
            for a, b in itertools.combinations(t, 2):
                self.meet(a, b)

    def cost(self, x: int, members: Iterable[int]) -> int:
        """What seating ``x`` with ``members`` adds: ``1 + 2 + ... + c`` for a pair that met ``c`` times."""
        mine, weight, total = self.count[x], _WEIGHT, 0
        for m in members:
            c = mine.get(m)
            if c:
                total += weight[c]
        return total

    def _add(self, digits: list[int], x: int) -> None:
        """Add ``x``'s meeting weights to the bit-sliced cost of every candidate."""
        for layer, places in zip(self.layers, _LAYER_DIGITS):
            mask = layer[x]
            if not mask:
                break
            for place in places:
                carry = mask
                for i in range(place, _DIGITS):
                    carry, digits[i] = digits[i] & carry, digits[i] ^ carry
                    if not carry:
                        break

    def fill(self, free: int, k: int, off: int, *, constrained: bool) -> list[list[int]]:
        """Tables of ``k`` from the entrants in ``free``, one after another: the first free entrant in
        the order (from ``off``, cyclically) opens a table, and each seat takes a candidate adding the
        least weight of earlier meetings; among those, the first in the order (Swiss: the nearest in the
        standings), or when ``constrained`` the one who has met the most of those still free among the
        first ``PICK_CAP`` (seating the hardest to place while there is room)."""
        tables: list[list[int]] = []
        first_meets = self.layers[0]
        while free:
            a = _first(free, off)
            free &= ~(1 << a)
            table, digits = [a], [0] * _DIGITS
            self._add(digits, a)
            for _ in range(k - 1):
                cheapest = _cheapest(free, digits)
                if constrained and cheapest & (cheapest - 1):
                    x = max(itertools.islice(_bits(cheapest, off), PICK_CAP),
                            key=lambda i: ((first_meets[i] & free).bit_count(), -((i - off) % self.n)))
                else:
                    x = _first(cheapest, off)
                free &= ~(1 << x)
                table.append(x)
                self._add(digits, x)
            tables.append(table)
        return tables

    def repair(self, tables: list[list[int]]) -> None:
        """Swaps that lower the round's cost: for each entrant holding a repeat, the nearest (in the
        order) of up to ``REPAIR_TRIES`` entrants of other tables who have met no one else at its table
        and whose swap lowers the two tables' cost. A swap is weighed by the change it makes
        (``4 (k - 1)`` lookups), never by re-scoring tables."""
        where = {x: (ti, si) for ti, t in enumerate(tables) for si, x in enumerate(t)}
        seated = 0
        for x in where:
            seated |= 1 << x
        met = self.layers[0]
        for _ in range(REPAIR_SWEEPS):
            swapped = False
            for ti, table in enumerate(tables):
                here = 0
                for m in table:
                    here |= 1 << m
                if not any(met[m] & here for m in table):
                    continue
                for si in range(len(table)):
                    x = table[si]
                    rest = table[:si] + table[si + 1:]
                    now = self.cost(x, rest)
                    if now == 0:
                        continue
                    fits = seated
                    for m in rest:
                        fits &= ~met[m]
                    for m in table:
                        fits &= ~(1 << m)
                    y = self._swap_partner(x, rest, now, fits, tables, where)
                    if y is None and self._third_meeting(x, rest):
                        y = self._swap_partner(x, rest, now, seated & ~fits, tables, where, REPAIR_TRIES * 4)
                    if y is not None:
                        tj, sj = where[y]
                        table[si], tables[tj][sj] = y, x
                        where[x], where[y] = (tj, sj), (ti, si)
                        swapped = True
            if not swapped:
                return

    def _third_meeting(self, x: int, rest: Sequence[int]) -> bool:
        mine = self.count[x]
        return any(mine.get(m, 0) >= 2 for m in rest)

    def _swap_partner(self, x: int, rest: list[int], now: int, candidates: int, tables: list[list[int]],
                      where: dict[int, tuple[int, int]], tries: int = REPAIR_TRIES) -> int | None:
        """The nearest of the first ``tries`` candidates whose swap with ``x`` lowers the cost."""
        ti = where[x][0]
        for y in itertools.islice(_bits_near(candidates, x), tries):
            tj, sj = where[y]
            if tj == ti:
                continue
            other = tables[tj]
            rest_y = other[:sj] + other[sj + 1:]
            if self.cost(x, rest_y) + self.cost(y, rest) < now + self.cost(y, rest_y):
                return y
        return None


#: ``_Seating.cost`` of a pair by earlier meetings (capped at ``_LAYERS``)
_WEIGHT = [sum(_LAYER_WEIGHT[:c]) for c in range(_LAYERS + 1)]


def _cheapest(free: int, digits: list[int]) -> int:
    """The free candidates of least cost: from the top digit down, keep those with a 0 there if any."""
    cand = free
    for d in reversed(digits):
        low = cand & ~d
        if low:
            cand = low
    return cand


def _first(mask: int, off: int) -> int:
    """The lowest set bit at or after ``off``, else the lowest."""
    high = mask >> off
    if high:
        return off + (high & -high).bit_length() - 1
    return (mask & -mask).bit_length() - 1


def _bits(mask: int, off: int) -> Iterator[int]:
    """Set bits from ``off`` upwards, then from 0."""
    for part, shift in ((mask >> off, off), (mask & ((1 << off) - 1), 0)):
        while part:
            low = part & -part
            yield shift + low.bit_length() - 1
            part ^= low


def _bits_near(mask: int, x: int) -> Iterator[int]:
    """Set bits by distance from ``x`` (below first on a tie)."""
    below = mask & ((1 << x) - 1)
    above = mask >> (x + 1)
    up = down = -1
    while below or above or up >= 0 or down >= 0:
        if down < 0 and below:
            down = below.bit_length() - 1
            below ^= 1 << down
        if up < 0 and above:
            low = above & -above
            up = x + low.bit_length()
            above ^= low
        if down >= 0 and (up < 0 or x - down <= up - x):
            yield down
            down = -1
        elif up >= 0:
            yield up
            up = -1


def repeat_free_possible(names: Sequence[str], k: int, h: History) -> bool:
    """Whether some partition of ``names`` into tables of ``k`` has no repeat meeting (brute force:
    for tests and small fields)."""
    return any(all(not h.meetings(a, b) for t in p for a, b in itertools.combinations(t, 2))
               for p in _partitions(sorted(names), k))


# ------------------------------------------------------------------------------------- round robin
def circle_rounds(names: Sequence[str]) -> list[Round]:
    """The circle method (Berger tables) on the sorted names: ``n - 1`` rounds (``n`` when odd, one
    bye each), every pair exactly once, first seats alternating."""
    ring: list[str | None] = list(sorted(names))
    if len(ring) % 2:
        ring.append(None)
    n = len(ring)
    rounds: list[Round] = []
    for r in range(n - 1):
        tables: list[tuple[str, ...]] = []
        byes: list[str] = []
        for i in range(n // 2):
            a, b = ring[i], ring[n - 1 - i]
            if a is None or b is None:
                byes.append(b if a is None else a)  # type: ignore[arg-type]
                continue
            tables.append((a, b) if (r + i) % 2 == 0 else (b, a))
        rounds.append(Round(tuple(tables), tuple(byes)))
        ring = [ring[0], ring[-1], *ring[1:-1]]  # rotate all but the first
    return rounds


def balanced_rounds(names: Sequence[str], k: int, rounds: int, seed: int) -> list[Round]:
    """A round-robin subset for tables of ``k`` when every group is too many: ``rounds`` rounds in
    which meetings spread as evenly as they can (repeat meetings fewest, sit-outs rotating). Small
    fields: each round the best partition of all (``pair_round`` with equal scores); larger: the
    constructive fill, round after round, on masks kept between rounds."""
    field_ = sorted(set(names))
    if k <= 2 or len(field_) < k or _partition_count(len(field_) - len(field_) % k, k) <= EXACT_LIMIT:
        return _rounds_of_pair_round(field_, k, rounds, seed)
    return _constructive_rounds(field_, k, rounds, seed)


def _rounds_of_pair_round(names: list[str], k: int, rounds: int, seed: int) -> list[Round]:
    h = History()
    out: list[Round] = []
    for r in range(1, rounds + 1):
        if k <= 2 or len(names) < k:
            rnd = pair_round(names, k, h, seed=seed, round_no=r)
        else:
            rnd = _pair_many(names, k, h, _keys(seed, r, names), spread=True)
        for t in rnd.tables:
            h.meet(t)
        for b in rnd.byes:
            h.byes[b] += 1
        out.append(rnd)
    return out


def _constructive_rounds(names: list[str], k: int, rounds: int, seed: int) -> list[Round]:
    """Round after round: the sit-outs (fewest so far, then the seeded key), the fill from a seeded
    place in a seeded order of the field, the most constrained candidate taking each seat, a repair,
    and the round's meetings added to the masks (never rebuilt)."""
    order = sorted(names, key=lambda x: (derive_seed("balanced", seed, x), x))
    n = len(order)
    seating = _Seating(n)
    sat = [0] * n
    everyone = (1 << n) - 1
    empty = History()
    out: list[Round] = []
    for r in range(1, rounds + 1):
        keys = _keys(seed, r, order)
        sit = sorted(range(n), key=lambda i: (sat[i], keys[order[i]], order[i]))[:n % k]
        free = everyone
        for i in sit:
            free &= ~(1 << i)
            sat[i] += 1
        tables = _best_fill(seating, free, k, seed, r)
        seating.meet_tables(tables)
        named = _seat_order(([order[i] for i in t] for t in tables), empty, keys)
        out.append(Round(_order_tables(named, empty), tuple(sorted(order[i] for i in sit))))
    return out


def _best_fill(seating: _Seating, free: int, k: int, seed: int, round_no: int) -> list[list[int]]:
    """The repaired fill of least cost among a few seeded starting places (``ROUND_TRIES``; only a
    round that holds a repeat tries another: the early rounds cost one fill each)."""
    best: tuple[int, list[list[int]]] | None = None
    for attempt in range(min(16, max(4, ROUND_TRIES // seating.n))):
        tables = seating.fill(free, k, derive_seed("pair", seed, round_no, attempt) % seating.n, constrained=True)
        seating.repair(tables)
        cost = sum(seating.cost(t[i], t[:i]) for t in tables for i in range(1, len(t)))
        if best is None or cost < best[0]:
            best = cost, tables
        if cost == 0:
            break
    assert best is not None
    return best[1]
