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

Tables of 3 or more units: the ``n mod k`` sit-outs are entrants with the fewest sit-outs; the rest are
partitioned to minimise repeat meetings first (a pair's m-th meeting again counting m, so that no pair
meets a third time while two could meet a second) and score spread second. For small fields this is
exact (all partitions), and the sit-outs are chosen with the tables: of those the fewest-sit-outs rule
allows (the most preferred, as many as keep the partitions weighed within ``EXACT_LIMIT``), the ones
whose tables repeat least, then the lowest scores, then the seeded hash. Larger fields
take the lowest scores and seeded local search over swaps. A repeat-free round cannot exist when some
active entrant has fewer than ``k - 1`` active entrants it has not met; then the fewest repeats found
are used.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable, Sequence


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
    #: without duplicates, tables of two: games as the first unit of a table minus games as the last;
    #: of three or more: deals dealt (a table's units are ordered by it, and its first deals first)
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
    byes = [(a, BYE) for a in names if h.byes[a] == min_byes] if odd else []

    def edges_of(pairs: Iterable[tuple[str, str]]) -> list[Edge]:
        return [_edge(a, b, h, low, seed, round_no) for a, b in pairs]

    matching: set[frozenset[str]] | None = None
    weight: dict[frozenset[str], int] = {}
    if len(vertices) > 2 * NEAR:
        # large fields: down the standings in blocks (Swiss pairs within and next to score groups),
        # the complete graph only if the blocks cannot pair everyone without a rematch
        matching = _pair_in_blocks(names, h, seed, round_no, low, min_byes)
    if matching is None:
        edges = edges_of((a, b) for a, b in itertools.combinations(names, 2)) + edges_of(byes)
        weight = _weights(edges, half)
        matching = _matching(vertices, edges, weight)
    matching = _round_robin_lookahead(vertices, h, matching, weight, rounds_left)
    return _two_round(matching, h, seed, round_no)


#: a candidate pairing: (a, b, meetings, score difference, same seat side, seeded tie)
Edge = tuple[str, str, int, int, int, int]


def _edge(a: str, b: str, h: History, low: float, seed: int, round_no: int) -> Edge:
    if b == BYE:
        return a, b, 0, _diff(h.score(a), low), 0, _tie(seed, round_no, a, b)
    sa, sb = h.seat_balance[a], h.seat_balance[b]
    seat = 1 if (sa > 0 and sb > 0) or (sa < 0 and sb < 0) else 0
    return a, b, h.meetings(a, b), _diff(h.score(a), h.score(b)), seat, _tie(seed, round_no, a, b)


def _weights(edges: Sequence[Edge], half: int) -> dict[frozenset[str], int]:
    """One integer weight per edge that orders matchings lexicographically: fewer rematches, then a
    smaller score difference, then seat balance, then the seeded hash."""
    m1 = (half + 1) * _TIE_RANGE
    m2 = (half + 1) * (1 + max(e[4] for e in edges)) * m1
    m3 = (half + 1) * (1 + max(e[3] for e in edges)) * m2
    top = (1 + max(e[2] for e in edges)) * m3
    return {frozenset((a, b)): top - (meet * m3 + diff * m2 + seat * m1 + tie)
            for a, b, meet, diff, seat, tie in edges}


def _pair_in_blocks(names: list[str], h: History, seed: int, round_no: int, low: float,
                    min_byes: int) -> set[frozenset[str]] | None:
    """A rematch-free pairing built down the standings: the bye (odd fields) to the lowest-ranked
    entrant with the fewest byes, then blocks of ``2 * NEAR`` entrants, each paired by a maximum-weight
    matching over its pairs not yet met (score difference, seat balance, the seeded hash), whoever it
    leaves unpaired floating down into the next block. Each block costs a small matching, so a round
    costs about ``n / NEAR`` of them. None if the last block cannot be paired whole: the caller then
    weighs the complete graph."""
    ranked = sorted(names, key=lambda n: (-h.score(n), _tie(seed, round_no, n), n))
    out: set[frozenset[str]] = set()
    if len(names) % 2:
        bye = next(n for n in reversed(ranked) if h.byes[n] == min_byes)
        out.add(frozenset((bye, BYE)))
        ranked.remove(bye)
    size = 2 * NEAR
    carry: list[str] = []
    for start in range(0, len(ranked), size):
        block = carry + ranked[start:start + size]
        edges = [_edge(a, b, h, low, seed, round_no) for a, b in itertools.combinations(sorted(block), 2)
                 if not h.meetings(a, b)]
        if not edges:
            carry = block
            continue
        found = _matching(sorted(block), edges, _weights(edges, len(block) // 2))
        out |= found
        paired = {x for pair in found for x in pair}
        carry = [x for x in block if x not in paired]
    return out if not carry else None


def _matching(vertices: list[str], edges: Sequence[tuple[str, str, int, int, int, int]],
              weight: dict[frozenset[str], int]) -> set[frozenset[str]]:
    import networkx as nx  # here, not at the top: every command imports this module, few pair two seats

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
def _sitout_order(names: Sequence[str], h: History, seed: int, round_no: int) -> list[str]:
    """Who sits out first: fewest sit-outs first, then the lowest score, then the seeded hash."""
    return sorted(names, key=lambda n: (h.byes[n], h.score(n), _tie(seed, round_no, n), n))


def choose_sitouts(names: Sequence[str], count: int, h: History, seed: int, round_no: int) -> list[str]:
    return sorted(_sitout_order(names, h, seed, round_no)[:count])


def sitout_choices(names: Sequence[str], count: int, h: History, seed: int, round_no: int) -> list[list[str]]:
    """Every choice of ``count`` sit-outs that the fewest-sit-outs rule allows (those with fewer sit-outs
    than the last one needed all sit out; the rest are any of those tied with it), in the order of
    ``choose_sitouts``'s preference: its own choice first."""
    ranked = _sitout_order(names, h, seed, round_no)
    if not count:
        return [[]]
    line = h.byes[ranked[count - 1]]
    forced = [n for n in ranked if h.byes[n] < line]
    tied = [n for n in ranked if h.byes[n] == line]
    return [sorted(forced + list(c)) for c in itertools.combinations(tied, count - len(forced))]


def _pair_many(names: list[str], k: int, h: History, seed: int, round_no: int) -> Round:
    count = len(names) % k
    exact = _partition_count(len(names) - count, k)
    if exact > EXACT_LIMIT:
        sit = choose_sitouts(names, count, h, seed, round_no)
        active = [n for n in names if n not in sit]
        best = _greedy_tables(active, k, len(active) // k, h, seed, round_no)
    else:
        # as many choices, in order of preference, as keep the partitions weighed within EXACT_LIMIT
        choices = sitout_choices(names, count, h, seed, round_no)[:max(1, EXACT_LIMIT // exact)]
        # who sits out decides who can meet: among the sit-outs the fewest-sit-outs rule allows, the
        # one whose tables repeat fewest meetings, then the usual order (the lowest scores sit out)
        _, _, sit, best = min((_cost(p, h, seed, round_no)[0], i, sit, p)
                              for i, sit in enumerate(choices)
                              for p in [min(_partitions([n for n in names if n not in sit], k),
                                            key=lambda p: _cost(p, h, seed, round_no))])
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
    # a pair's m-th meeting again costs m: two pairs meeting a second time before one a third
    repeats = sum(m * (m + 1) // 2 for a, b in itertools.combinations(t, 2) for m in [h.meetings(a, b)])
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


def _greedy_tables(active: list[str], k: int, groups: int, h: History, seed: int,
                   round_no: int) -> list[tuple[str, ...]]:
    """Large fields: tables filled one after another down the standings, each seat taking the
    candidate that adds the fewest earlier meetings, then the nearest score, then the seeded hash
    (the first WINDOW unseated candidates, further down only while every one of them is a repeat);
    then a repair pass swaps entrants between tables while that removes repeats. The cost of a
    candidate is computed from the table so far, never by re-scoring whole tables, so a round costs
    about ``n * WINDOW * k`` lookups."""
    tie = {n: _tie(seed, round_no, n) for n in active}
    order = sorted(active, key=lambda n: (-h.score(n), tie[n], n))
    met = _met_of(active, h)
    score = {n: h.score(n) for n in active}
    nxt = list(range(1, len(order) + 1))  # a linked list of the unseated, in standings order
    prv = list(range(-1, len(order) - 1))
    head = 0

    def unseat(i: int) -> None:
        nonlocal head
        if prv[i] >= 0:
            nxt[prv[i]] = nxt[i]
        else:
            head = nxt[i]
        if nxt[i] < len(order):
            prv[nxt[i]] = prv[i]

    tables: list[list[str]] = []
    for _ in range(groups):
        first = head
        table = [order[first]]
        unseat(first)
        for _ in range(k - 1):
            best: tuple[int, int, int, int] | None = None
            i, seen = head, 0
            while i < len(order):
                c = order[i]
                mine = met.get(c)
                rep = sum(mine.get(m, 0) for m in table) if mine else 0
                key = (rep, _diff(score[c], score[table[0]]), tie[c], i)
                if best is None or key < best:
                    best = key
                seen += 1
                if (seen >= WINDOW and best[0] == 0) or seen >= WINDOW + EXTRA:
                    break
                i = nxt[i]
            assert best is not None
            table.append(order[best[3]])
            unseat(best[3])
        tables.append(table)
    _repair(tables, met)
    return [tuple(t) for t in tables]


#: candidates weighed for a seat before settling for the best of them, and how many more are looked
#: at while all of those are repeats (see ``_greedy_tables``)
WINDOW = 24
EXTRA = 200
#: how many following tables the repair pass tries to swap with
REPAIR_REACH = 48


def _met_of(names: Sequence[str], h: History) -> dict[str, dict[str, int]]:
    """Each entrant's earlier meetings by opponent (a history filled without ``meet`` is indexed here)."""
    if h.by or not h.met:
        return h.by
    for pair, count in h.met.items():
        if count:
            a, b = tuple(pair)
            h.by.setdefault(a, {})[b] = count
            h.by.setdefault(b, {})[a] = count
    return h.by


def _repair(tables: list[list[str]], met: dict[str, dict[str, int]]) -> None:
    """One pass: for each member of a table holding a repeat, the first swap with a member of one of
    the next ``REPAIR_REACH`` tables that lowers the two tables' repeats. A swap is weighed by the
    change it makes (``2 (k - 1)`` lookups), never by re-scoring the tables, and the reach is bounded,
    so a round's repair grows with the field, not with its square."""
    empty: dict[str, int] = {}

    def pull(x: str, table: Sequence[str], skip: int) -> int:
        """x's earlier meetings with ``table`` leaving out its member at ``skip``."""
        mine = met.get(x, empty)
        return sum(mine.get(m, 0) for i, m in enumerate(table) if i != skip)

    def reps(table: Sequence[str]) -> int:
        return sum(met.get(a, empty).get(b, 0) for a, b in itertools.combinations(table, 2))

    for ta, A in enumerate(tables):
        if reps(A) == 0:
            continue
        for sa in range(len(A)):
            out_a = pull(A[sa], A, sa)
            if out_a == 0:
                continue
            for step in range(1, min(len(tables), REPAIR_REACH + 1)):
                tb = (ta + step) % len(tables)
                B = tables[tb]
                done = False
                for sb in range(len(B)):
                    delta = (pull(B[sb], A, sa) - out_a) + (pull(A[sa], B, sb) - pull(B[sb], B, sb))
                    if delta < 0:
                        A[sa], B[sb] = B[sb], A[sa]
                        done = True
                        break
                if done:
                    break


def repeat_free_possible(names: Sequence[str], k: int, h: History) -> bool:
    """Whether some partition of ``names`` into tables of ``k`` has no repeat meeting (brute force:
    for tests and small fields)."""
    return any(_cost(p, h, 0, 0)[0] == 0 for p in _partitions(sorted(names), k))


# ------------------------------------------------------------------------------------- round robin
def circle_rounds(names: Sequence[str]) -> list[Round]:
    """The circle method (Berger tables) on the sorted names: ``n - 1`` rounds (``n`` when odd, one
    bye each), every pair exactly once. Who deals the odd deal is not balanced per entrant: where that
    matters (no duplicate deals), ``balance_turns`` turns the tables."""
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


def balance_turns(rounds: Sequence[Round], turns: Sequence[int]) -> list[Round]:
    """The same rounds with each table's units turned (a cyclic shift: who sits next to whom is kept)
    so that ``turns`` (how many of a table's deals each place at it deals: ``schedule.dealt_by``)
    falls evenly on the entrants over the rounds. Table by table, in schedule order, each entrant is
    owed the mean turn of every table it sat at so far; the shift chosen leaves the deals dealt nearest
    what is owed (least squares; a tie keeps the table as it is). Without it the first of each table's
    sorted units dealt the odd deal at every table: 10 entrants of tute-2, one deal a pairing, and one
    dealt at none of its tables, another at all 9."""
    k = len(turns)
    if len(set(turns)) <= 1:
        return list(rounds)
    total = sum(turns)
    owed: Counter[str] = Counter()  # k times the deals owed, to stay in integers
    dealt: Counter[str] = Counter()
    out: list[Round] = []
    for rnd in rounds:
        tables: list[tuple[str, ...]] = []
        for units in rnd.tables:
            for u in units:
                owed[u] += total
            shifts = [tuple(units[(i + c) % k] for i in range(k)) for c in range(k)]
            best = min(shifts, key=lambda t: sum((k * (dealt[u] + n) - owed[u]) ** 2 for u, n in zip(t, turns)))
            dealt.update({u: n for u, n in zip(best, turns)})
            tables.append(best)
        out.append(Round(tuple(tables), rnd.byes))
    return out


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
