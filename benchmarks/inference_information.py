"""How much the inference tells a seat about where the cards it cannot see really are.

    python benchmarks/inference_information.py [--variant tute-4-pairs] [--deals 40] [--bot search]
                                               [--opponent git:c69bec0] [--opponent-param worlds=256]
                                               [--inference 0.3] [--worlds 200] [--from-trick 3]
                                               [--seed 0] [--workers 2]

``search`` plays the worlds it samples; the oracle, which plays the real one, bounds what better worlds
could add (docs/search.md). Between the two sits the inference (``bots/inference.py``), which weighs
each world by how well the other sides' plays so far explain it. This measures how much it knows:
duplicate deals (the deals and rotations of ``search_strength.py``), ``--bot`` at its seats and
``--opponent`` at the others; at each card play of the bot with a choice, from trick ``--from-trick``
on, ``--worlds`` deals of the unseen cards are drawn as search draws them (``deal_unseen``) and each
unseen card is given the share of them, uniform and weighted by the inference, that put it where it
really is (another seat's hand, or neither: the pile or a card out of play). The mean of that share
over the unseen cards is the seat's **true-place probability** at that decision: what uniform worlds
know from the duties alone, what the inference adds to it, and 1 for the oracle. The deals are pure
functions of (seed, deal) and the draws of (seed, deal, game, decision), so the figures do not depend on
the number of workers.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing as mp
import random
import sys
from pathlib import Path
from typing import Any, Callable, Sequence

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.append(str(Path(__file__).resolve().parent))

from arena import PlayerView, derive_seed  # noqa: E402
from arena.state import GameState  # noqa: E402

from bots import inference  # noqa: E402
from bots.oracle import play_open  # noqa: E402
from bots.search import SearchBot  # noqa: E402

from search_strength import _make, add_head_to_head_options, deal_of, head_to_head, key_values, rotations  # noqa: E402


def place(hands: Sequence[int], card: int) -> int:
    """The seat whose hand holds ``card``, -1 for none (the pile, or out of play)."""
    for seat, hand in enumerate(hands):
        if hand >> card & 1:
            return seat
    return -1


def true_place(unseen: int, real: Sequence[int], worlds: Sequence[Sequence[int]], weights: Sequence[float]) -> float:
    """The mean over the ``unseen`` cards of the weighted share of ``worlds`` (their hands) that put the
    card where the real deal (``real``, its hands) has it."""
    total = sum(weights)
    cards = [c for c in range(unseen.bit_length()) if unseen >> c & 1]
    if not cards or total <= 0.0:
        return 1.0
    right = 0.0
    for c in cards:
        where = place(real, c)
        right += sum(w for w, hands in zip(weights, worlds) if place(hands, c) == where)
    return right / (total * len(cards))


class _Measured:
    """A bot whose every card play with a choice, from ``first_trick`` on, measures the true-place
    probability of uniform and inferred worlds before it chooses."""

    def __init__(self, inner: Any, rows: list[tuple[float, float]], rng: random.Random, noise: float,
                 worlds: int, first_trick: int) -> None:
        self.inner, self.rows, self.rng = inner, rows, rng
        self.noise, self.worlds, self.first_trick = noise, worlds, first_trick

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def see(self, state: GameState, view: PlayerView) -> None:
        """Before this seat's decision (``play_open``'s ``watch``), with the real deal in ``state``."""
        plays = [a for a in view.legal if a.startswith("play ")]
        if len(plays) < 2 or len(plays) != len(view.legal) or len(view.tricks) < self.first_trick:
            return
        evidence = inference.Evidence(view, self.noise)
        worlds = [view.knowledge.deal_unseen(self.rng)[0] for _ in range(self.worlds)]
        real = list(state.hands)
        uniform = true_place(view.unseen_cards, real, worlds, [1.0] * len(worlds))
        inferred = true_place(view.unseen_cards, real, worlds, [evidence.weight(h) for h in worlds])
        self.rows.append((uniform, inferred))


def measure_deal(variant_name: str, seed: int, deal: int, bot: Callable[[], Any], opponent: Callable[[], Any],
                 noise: float, worlds: int, first_trick: int) -> list[tuple[float, float]]:
    """Every rotation of one duplicate deal, new bots each game: (uniform, inferred) true-place
    probability at each measured decision of the bot."""
    v, game_seed, deck, dealer = deal_of(variant_name, seed, deal)
    rows: list[tuple[float, float]] = []
    for k, mine in enumerate(rotations(v, dealer)):
        rng = random.Random(derive_seed("inference-information", variant_name, seed, deal, k))
        players = [_Measured(bot(), rows, rng, noise, worlds, first_trick) if s in mine else opponent()
                   for s in range(v.players)]

        def watch(state: GameState, view: PlayerView) -> None:
            if isinstance(players[view.seat], _Measured):
                players[view.seat].see(state, view)

        play_open(v, deck, dealer, players, game_id=f"information/{deal}/{k}", seed=game_seed, watch=watch)
    return rows


def play_deal(args: tuple[str, int, int, str, dict[str, Any], str, dict[str, Any], float, int, int]
              ) -> list[tuple[float, float]]:
    """``measure_deal`` by bot names (a pool's job)."""
    variant_name, seed, deal, bot, bot_params, opponent, opponent_params, noise, worlds, first_trick = args
    return measure_deal(variant_name, seed, deal, lambda: _make(bot, bot_params),
                        lambda: _make(opponent, opponent_params), noise, worlds, first_trick)


def mean_interval(xs: Sequence[float]) -> tuple[float, float]:
    """The mean and the half-width of its 95% interval."""
    m = sum(xs) / len(xs)
    if len(xs) < 2:
        return m, float("nan")
    sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1))
    return m, 1.96 * sd / math.sqrt(len(xs))


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_head_to_head_options(ap, 40, "a bot name, module:Class, or git:COMMIT")
    ap.add_argument("--inference", type=float, default=SearchBot().inference,
                    help="the likelihood of a play the policy would not have made (search's parameter)")
    ap.add_argument("--worlds", type=int, default=200, help="worlds drawn per measured decision")
    ap.add_argument("--from-trick", type=int, default=3, help="measure from this trick on (0: the first)")
    a = ap.parse_args(argv)
    opponent_params = head_to_head(ap, a, inference.models, "search infers nothing there (bots/inference.py models)")
    jobs = [(a.variant, a.seed, d, a.bot, key_values(a.param), a.opponent, opponent_params, a.inference,
             a.worlds, a.from_trick) for d in range(a.deals)]
    rows: list[tuple[float, float]] = []
    with mp.Pool(a.workers) as pool:
        for r in pool.imap(play_deal, jobs):
            rows.extend(r)
    if not rows:
        sys.exit("no decision measured")
    uniform, u_half = mean_interval([u for u, _ in rows])
    inferred, i_half = mean_interval([i for _, i in rows])
    gain, g_half = mean_interval([i - u for u, i in rows])
    print(f"{a.variant}: where the unseen cards are, at {len(rows)} decisions of {a.bot} (trick {a.from_trick} "
          f"on) against {a.opponent}, {a.deals} duplicate deals, seed {a.seed}, {a.worlds} worlds each")
    inferred_label = f"inference {a.inference:g}"
    print(f"  true-place probability, {'uniform worlds:':17} {uniform:.4f} +- {u_half:.4f}   (the real deal: 1)")
    print(f"  true-place probability, {inferred_label + ':':17} {inferred:.4f} +- {i_half:.4f}")
    print(f"  the inference adds, paired:              {gain:+.4f} +- {g_half:.4f}")


if __name__ == "__main__":
    main()
