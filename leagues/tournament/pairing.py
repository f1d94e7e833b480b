"""Who sits with whom in a round: Swiss pairing for tables of 2 to 6 units, and balanced round-robin
subsets, as pure functions of (entrants, history, seed, round).

A *unit* is an entrant at a table: in pairs variants a unit is one side (two copies of the entrant).
Everything is keyed by entrant name and every tie is broken by a hash of names and the seed, never by
list position or a shared RNG, so the same field listed in any order pairs the same way.

Two-unit tables: a maximum-weight perfect matching (networkx) over all pairs, with a virtual ``BYE``
vertex when the field is odd. Edge weights rank, in this order: fewer rematches, smaller score
difference, better seat balance, the seeded hash. A bye edge exists only to the entrants with the fewest
byes so far. When the tournament has rounds enough to become a full round robin, the matching is also
required to leave the unplayed pairs splittable into the remaining rounds (a 1-factorization search),
so ``n - 1`` rounds (``n`` when odd) of Swiss are a true round robin.

Tables of 3 or more units: the ``n mod k`` sit-outs are the entrants with the fewest sit-outs, then the
lowest score, then the seeded hash; the rest are partitioned to minimise repeat meetings first and score
spread second: exactly (all partitions) for small fields, else by seeded local search over swaps. A
repeat-free round cannot exist when some active entrant has fewer than ``k - 1`` active entrants it has
not met; then the fewest repeats found are used.
"""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable, Sequence

import networkx as nx

from arena import derive_seed

BYE = "\x00bye"
#: partitions counted up to this many are searched exhaustively
EXACT_LIMIT = 6000
#: node budget of the 1-factorization look-ahead; beyond it the plain matching is used
FACTOR_BUDGET = 200_000
_TIE_RANGE = 1 << 20
#: large fields try pairs at most this far apart in the score order first
NEAR = 12


@dataclass
class History:
    """What previous rounds of one variant decided: scores, meetings, byes and seat balance."""
    scores: dict[str, float] = field(default_factory=dict)
    met: Counter[frozenset[str]] = field(default_factory=Counter)
    byes: Counter[str] = field(default_factory=Counter)
    #: games as the first unit of a table minus games as the last (only matters without duplicates)
    seat_balance: Counter[str] = field(default_factory=Counter)

    def meet(self, table: Sequence[str]) -> None:
        for a, b in itertools.combinations(table, 2):
            self.met[frozenset((a, b))] += 1

    def meetings(self, a: str, b: str) -> int:
        return self.met.get(frozenset((a, b)), 0)

    def score(self, name: str) -> float:
        return self.scores.get(name, 0.0)


@dataclass(frozen=True)
class Round:
    """One round: tables of units in seat order, and who sits out (a bye)."""
    tables: tuple[tuple[str, ...], ...]
    byes: tuple[str, ...] = ()


def _tie(seed: int, round_no: int, *names: str) -> int:
    return derive_seed("pair", seed, round_no, *sorted(names)) % _TIE_RANGE


def pair_round(entrants: Iterable[str], k: int, history: History, *, seed: int, round_no: int,
               rounds_left: int = 1) -> Round:
    """The tables of ``round_no`` for ``k`` units a table. ``rounds_left`` counts this round too."""
    names = sorted(set(entrants))
    if k < 2:
        raise ValueError("a table has at least 2 units")
    if len(names) < k:
        return Round((), tuple(names))
    if k == 2:
        return _pair_two(names, history, seed, round_no, rounds_left)
    return _pair_many(names, k, history, seed, round_no)


# ------------------------------------------------------------------------------------------- two seats
def _pair_two(names: list[str], h: History, seed: int, round_no: int, rounds_left: int) -> Round:
    odd = len(names) % 2 == 1
    vertices = names + ([BYE] if odd else [])
    half = len(vertices) // 2
    min_byes = min(h.byes[n] for n in names)
    low = min(h.score(n) for n in names)
    edges: list[tuple[str, str, int, int, int, int]] = []  # a, b, meetings, diff, seat, tie
    for a, b in itertools.combinations(vertices, 2):
        if b == BYE:
            if h.byes[a] != min_byes:
                continue
            meet, diff, seat = 0, _diff(h.score(a), low), 0
        else:
            meet = h.meetings(a, b)
            diff = _diff(h.score(a), h.score(b))
            sa, sb = h.seat_balance[a], h.seat_balance[b]
            seat = 1 if (sa > 0 and sb > 0) or (sa < 0 and sb < 0) else 0
        edges.append((a, b, meet, diff, seat, _tie(seed, round_no, a, b)))
    m1 = (half + 1) * _TIE_RANGE
    m2 = (half + 1) * (1 + max(e[4] for e in edges)) * m1
    m3 = (half + 1) * (1 + max(e[3] for e in edges)) * m2
    top = (1 + max(e[2] for e in edges)) * m3
    weight = {frozenset((a, b)): top - (meet * m3 + diff * m2 + seat * m1 + tie)
              for a, b, meet, diff, seat, tie in edges}
    matching: set[frozenset[str]] | None = None
    if len(vertices) > 2 * NEAR:
        # large fields: first only pairs near in the score order (Swiss pairs within score groups);
        # kept if it is perfect and rematch-free, else the full graph decides
        rank = {n: i for i, n in enumerate(sorted(names, key=lambda n: (h.score(n), _tie(seed, round_no, n))))}
        near = [e for e in edges if e[1] == BYE or abs(rank[e[0]] - rank[e[1]]) <= NEAR]
        matching = _matching(vertices, near, weight)
        if len(matching) != half or any(h.meetings(*sorted(p)) for p in matching if BYE not in p):
            matching = None
    if matching is None:
        matching = _matching(vertices, edges, weight)
    matching = _round_robin_lookahead(vertices, h, matching, weight, rounds_left)
    return _two_round(matching, h, seed, round_no)


def _matching(vertices: list[str], edges: Sequence[tuple[str, str, int, int, int, int]],
              weight: dict[frozenset[str], int]) -> set[frozenset[str]]:
    g = nx.Graph()
    g.add_nodes_from(vertices)
    for e in edges:
        g.add_edge(e[0], e[1], weight=weight[frozenset((e[0], e[1]))])
    return {frozenset(e) for e in nx.max_weight_matching(g, maxcardinality=True)}


def _diff(x: float, y: float) -> int:
    return int(round((x - y) ** 2 * 100))


def _round_robin_lookahead(vertices: list[str], h: History, matching: set[frozenset[str]],
                           weight: dict[frozenset[str], int], rounds_left: int) -> set[frozenset[str]]:
    """When the rounds left can still complete a round robin, keep the matching only if the unplayed
    pairs after it can be split into perfect matchings; else take the first factor of such a split."""
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


def _two_round(matching: set[frozenset[str]], h: History, seed: int, round_no: int) -> Round:
    tables: list[tuple[str, ...]] = []
    byes: list[str] = []
    for pair in matching:
        a, b = sorted(pair)
        if BYE in pair:
            byes.append(a if b == BYE else b)
            continue
        # the unit with more first seats goes second; equal balance: the seeded hash decides
        if (h.seat_balance[a], _tie(seed, round_no, a)) > (h.seat_balance[b], _tie(seed, round_no, b)):
            a, b = b, a
        tables.append((a, b))
    return Round(_order_tables(tables, h), tuple(sorted(byes)))


def _order_tables(tables: Iterable[tuple[str, ...]], h: History) -> tuple[tuple[str, ...], ...]:
    """Top tables first (highest score), then by names: a stable numbering for game ids."""
    return tuple(sorted(tables, key=lambda t: (-max(h.score(n) for n in t), sorted(t))))


# ------------------------------------------------------------------------------------ three or more
def choose_sitouts(names: Sequence[str], count: int, h: History, seed: int, round_no: int) -> list[str]:
    """Fewest sit-outs first, then the lowest score, then the seeded hash."""
    ranked = sorted(names, key=lambda n: (h.byes[n], h.score(n), _tie(seed, round_no, n), n))
    return sorted(ranked[:count])


def _pair_many(names: list[str], k: int, h: History, seed: int, round_no: int) -> Round:
    sit = choose_sitouts(names, len(names) % k, h, seed, round_no)
    active = [n for n in names if n not in sit]
    groups = len(active) // k
    if _partition_count(len(active), k) <= EXACT_LIMIT:
        best = min(_partitions(active, k), key=lambda p: _cost(p, h, seed, round_no))
    else:
        best = _local_search(active, k, groups, h, seed, round_no)
    tables = [tuple(sorted(t, key=lambda n: (h.seat_balance[n], _tie(seed, round_no, n)))) for t in best]
    return Round(_order_tables(tables, h), tuple(sit))


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


def _table_cost(t: Sequence[str], h: History, seed: int, round_no: int) -> tuple[int, int, int]:
    repeats = sum(h.meetings(a, b) for a, b in itertools.combinations(t, 2))
    scores = [h.score(n) for n in t]
    mean = sum(scores) / len(scores)
    spread = int(round(sum((s - mean) ** 2 for s in scores) * 100))
    return repeats, spread, _tie(seed, round_no, *t)


def _cost(p: Sequence[Sequence[str]], h: History, seed: int, round_no: int) -> tuple[int, int, int]:
    r = s = t = 0
    for table in p:
        a, b, c = _table_cost(table, h, seed, round_no)
        r, s, t = r + a, s + b, t + c
    return r, s, t


def _local_search(active: list[str], k: int, groups: int, h: History, seed: int,
                  round_no: int) -> list[tuple[str, ...]]:
    rng = random.Random(derive_seed("local-search", seed, round_no, len(active)))
    start = sorted(active, key=lambda n: (-h.score(n), _tie(seed, round_no, n), n))
    tables = [start[i * k:(i + 1) * k] for i in range(groups)]

    def improve(tables: list[list[str]]) -> None:
        costs = [_table_cost(t, h, seed, round_no) for t in tables]
        improved = True
        while improved:
            improved = False
            slots = [(ti, si) for ti in range(groups) for si in range(k)]
            rng.shuffle(slots)
            for i, (ta, sa) in enumerate(slots):
                for tb, sb in slots[i + 1:]:
                    if ta == tb:
                        continue
                    A, B = tables[ta], tables[tb]
                    A[sa], B[sb] = B[sb], A[sa]
                    ca, cb = _table_cost(A, h, seed, round_no), _table_cost(B, h, seed, round_no)
                    if _add(ca, cb) < _add(costs[ta], costs[tb]):
                        costs[ta], costs[tb] = ca, cb
                        improved = True
                    else:
                        A[sa], B[sb] = B[sb], A[sa]

    improve(tables)
    best = [list(t) for t in tables]
    best_cost = _cost(best, h, seed, round_no)
    for _ in range(8):  # seeded restarts by perturbation, only while repeats remain
        if best_cost[0] == 0:
            break
        trial = [list(t) for t in best]
        for _ in range(max(2, groups)):
            ta, tb = rng.sample(range(groups), 2)
            sa, sb = rng.randrange(k), rng.randrange(k)
            trial[ta][sa], trial[tb][sb] = trial[tb][sb], trial[ta][sa]
        improve(trial)
        c = _cost(trial, h, seed, round_no)
        if c < best_cost:
            best, best_cost = [list(t) for t in trial], c
    return [tuple(t) for t in best]


def _add(a: tuple[int, int, int], b: tuple[int, int, int]) -> tuple[int, int, int]:
    return a[0] + b[0], a[1] + b[1], a[2] + b[2]


def repeat_free_possible(names: Sequence[str], k: int, h: History) -> bool:
    """Whether some partition of ``names`` into tables of ``k`` has no repeat meeting (brute force:
    for tests and small fields)."""
    return any(_cost(p, h, 0, 0)[0] == 0 for p in _partitions(sorted(names), k))


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
    """A round-robin subset for tables of ``k`` when every group is too many: ``rounds`` rounds of
    the repeat-minimising partition with equal scores, so meetings spread as evenly as possible."""
    h = History()
    out: list[Round] = []
    for r in range(1, rounds + 1):
        rnd = pair_round(names, k, h, seed=seed, round_no=r)
        for t in rnd.tables:
            h.meet(t)
        for b in rnd.byes:
            h.byes[b] += 1
        out.append(rnd)
    return out
