"""From tables to games: seat rotations, duplicate deals, stable ids and seeds.

A game is named by where it sits in the schedule, ``{tournament}/{variant}/r{round}/t{table}/d{deal}/s{rotation}``,
and its deck seed is ``derive_seed(tournament seed, variant, round, table, deal)``: a hash, never a
shared RNG, and independent of the rotation, so the rotations of one deal are the same deck order
(**duplicate deals**: each unit plays every hand once, and luck cancels). The dealer is
``deal % players``, fixed across rotations for the same reason. Nothing here depends on how many workers
play the games or in which order they finish.
"""

from __future__ import annotations

import itertools
import math
from typing import Any, NamedTuple, Sequence

from arena import GameResult, derive_seed
from arena.result import pairwise, sides_in_play, thrown_in

from leagues.tournament.config import TournamentConfig, VariantConfig
from leagues.tournament.pairing import History, Round, balance_turns, balanced_rounds, circle_rounds, pair_round


class GameSpec(NamedTuple):
    """Everything a worker needs to play one game, and where the game sits in the schedule. A named
    tuple rather than a frozen dataclass: a tournament makes one per game and sends each to a worker,
    and a tuple is built five times and unpickled three times faster."""
    id: str
    tournament: str
    variant: str  # the variant's label
    variant_index: int
    round: int
    table: int
    deal: int
    rotation: int
    seed: int
    dealer: int
    #: entrant name per seat
    seats: tuple[str, ...]
    #: the table's units in their table order (rotation 0)
    units: tuple[str, ...]

    @property
    def order(self) -> tuple[int, int, int, int, int]:
        return schedule_order(self)

    @property
    def block(self) -> str:
        return block_of(self.id)


def schedule_order(game: Any) -> tuple[int, int, int, int, int]:
    """Schedule order: round, then variant, table, deal, rotation (what ratings fold in), of a game
    planned (``GameSpec``) or stored (``GameRow``)."""
    return game.round, game.variant_index, game.table, game.deal, game.rotation


def block_of(game_id: str) -> str:
    """The duplicate block of a game: the games sharing its deck order share this prefix of its id."""
    return game_id.rsplit("/", 1)[0]


def game_id(tournament: str, variant: str, round_no: int, table: int, deal: int, rotation: int) -> str:
    return f"{tournament}/{variant}/r{round_no}/t{table}/d{deal}/s{rotation}"


def parse_order(gid: str) -> tuple[int, int, int, int]:
    """(round, table, deal, rotation) from a game id."""
    parts = gid.split("/")
    return int(parts[-4][1:]), int(parts[-3][1:]), int(parts[-2][1:]), int(parts[-1][1:])


def side_seats(vc: VariantConfig) -> list[tuple[int, ...]]:
    """The seats of each side: one seat per side, or partners (0, 2) and (1, 3)."""
    return [tuple(t) for t in vc.variant.teams]


def table_games(cfg: TournamentConfig, vi: int, round_no: int, table: int, units: Sequence[str]) -> list[GameSpec]:
    """The games of one table: ``deals`` deck orders, each once per rotation when duplicate (else one
    rotation per deal, ``single_rotation``'s)."""
    seats_of = rotation_seats(cfg.variants[vi], units)
    return [g for d in range(cfg.deals) for g in deal_games(cfg, vi, round_no, table, units, d, seats_of)]


def rotation_seats(vc: VariantConfig, units: Sequence[str]) -> list[tuple[str, ...]]:
    """Per rotation ``r``, the entrant at each seat: side ``i`` is held by unit ``(i - r) mod k``."""
    k = len(units)
    sides = side_seats(vc)
    seats_of: list[tuple[str, ...]] = []
    for r in range(k):
        seats = [""] * vc.variant.players
        for side in range(k):
            for s in sides[side]:
                seats[s] = units[(side - r) % k]
        seats_of.append(tuple(seats))
    return seats_of


def deal_games(cfg: TournamentConfig, vi: int, round_no: int, table: int, units: Sequence[str], d: int,
               seats_of: Sequence[tuple[str, ...]] | None = None) -> list[GameSpec]:
    """The games of deal ``d`` of a table: with duplicate deals, one duplicate block (every rotation)."""
    vc = cfg.variants[vi]
    k = len(units)
    seats_of = seats_of or rotation_seats(vc, units)
    seed = derive_seed(cfg.seed, vc.label, round_no, table, d)
    dealer = d % vc.variant.players
    return [GameSpec(game_id(cfg.name, vc.label, round_no, table, d, r), cfg.name, vc.label, vi, round_no, table, d,
                     r, seed, dealer, seats_of[r], tuple(units))
            for r in (range(k) if cfg.duplicate else (single_rotation(vc, k, d),))]


def single_rotation(vc: VariantConfig, k: int, d: int) -> int:
    """Without duplicate deals, the one rotation deal ``d`` is played in: the unit at the dealer's seat
    is unit ``d mod k``, so the units deal in turn and each holds every place around the table once
    in ``k`` deals (the seat itself means nothing: the deck is shuffled; who deals, and so who leads,
    does). The rotation once cycled with the deal, in step with the dealer, and the table's first unit
    dealt every deal. Where the dealer sits out (cabrero with 5 or 6) the rotation moves once every
    ``k`` deals, which also has the units deal, and sit out, in turn."""
    if vc.variant.sits_out:
        return (d // k) % k
    return (_dealer_side(vc, d) - d) % k


def dealt_by(vc: VariantConfig, k: int, deals: int) -> list[int]:
    """How many of a table's ``deals`` each of its units (by its place in the table) deals without
    duplicate deals: equal when ``k`` divides ``deals``, else one more for some."""
    count = [0] * k
    for d in range(deals):
        count[(_dealer_side(vc, d) - single_rotation(vc, k, d)) % k] += 1  # rotation r: side i holds unit i - r
    return count


def _dealer_side(vc: VariantConfig, d: int) -> int:
    return next(i for i, seats in enumerate(side_seats(vc)) if d % vc.variant.players in seats)


def round_size(cfg: TournamentConfig, rnd: Round) -> int:
    """How many games ``round_games`` makes of ``rnd``, without making them."""
    return sum(cfg.deals * (len(units) if cfg.duplicate else 1) for units in rnd.tables)


def round_games(cfg: TournamentConfig, vi: int, round_no: int, rnd: Round) -> list[GameSpec]:
    games: list[GameSpec] = []
    for t, units in enumerate(rnd.tables):
        games.extend(table_games(cfg, vi, round_no, t, units))
    return games


def round_robin_rounds(cfg: TournamentConfig, vi: int) -> list[Round]:
    """Two units a table: the circle method (every pair once). More: every group of ``k`` entrants
    once, as tables of round 1, while there are at most ``max_tables`` groups; beyond that, a balanced
    subset of ``rounds`` rounds (default ``ceil((n-1)/(k-1))``, the fewest in which each entrant could
    meet all others) from the repeat-minimising partition."""
    names = sorted(e.name for e in cfg.entrants)
    k = cfg.variants[vi].sides
    if k == 2:
        rounds = circle_rounds(names)
    elif math.comb(len(names), k) <= cfg.max_tables:
        rounds = [Round(tuple(itertools.combinations(names, k)), ())]
    else:
        rounds = balanced_rounds(names, k, cfg.rounds or math.ceil((len(names) - 1) / (k - 1)),
                                 derive_seed(cfg.seed, cfg.variants[vi].label, "balanced"))
    if cfg.duplicate:  # every unit of a table holds every place at it: the tables stay as they are
        return rounds
    return balance_turns(rounds, dealt_by(cfg.variants[vi], k, cfg.deals))


def round_robin_games(cfg: TournamentConfig) -> list[GameSpec]:
    games: list[GameSpec] = []
    for vi in range(len(cfg.variants)):
        for r, rnd in enumerate(round_robin_rounds(cfg, vi), start=1):
            games.extend(round_games(cfg, vi, r, rnd))
    return sorted(games, key=lambda g: g.order)


def unit_scores(result: GameResult, spec: GameSpec, vc: VariantConfig) -> dict[str, float]:
    """Each unit's share of the game: its pairwise score against the other units in play
    (``arena.result.pairwise``). The dealer who sat the deal out has none: it did not play; nor has
    anyone in a deal thrown in (``arena.result.thrown_in``): a Swiss score counts only deals played."""
    if thrown_in(result):
        return {}
    sides = sides_in_play(side_seats(vc), result.sit_out)
    ranks = [result.ranks[seats[0]] for seats in sides]
    return {spec.seats[seats[0]]: pairwise(ranks, i) for i, seats in enumerate(sides)}


def swiss_round(cfg: TournamentConfig, vi: int, round_no: int, h: History) -> Round:
    names = [e.name for e in cfg.entrants]
    assert cfg.rounds is not None
    return pair_round(names, cfg.variants[vi].sides, h, seed=derive_seed(cfg.seed, cfg.variants[vi].label),
                      round_no=round_no, rounds_left=cfg.rounds - round_no + 1)

