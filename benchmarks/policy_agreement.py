"""How often the playout policy plays the card a bot played, with every card known.

    python benchmarks/policy_agreement.py [--variant tute-4-pairs] [--deals 60] [--bot search]
                                          [--opponent git:c69bec0] [--opponent-param worlds=256]
                                          [--seed 0] [--workers 2]

``search`` finishes every world by one policy for every seat (``bots/playout.py``), so the policy is
its model of the other seats and of its own later play. With every card known (``oracle``) that model
is all that is left between search and perfect play, and head to head against another search it is
what limits the oracle (docs/search.md, "How far perfect information goes head to head"). This
measures the model: duplicate deals (the deals and rotations of ``search_strength.py``), ``--bot`` at
its seats and ``--opponent`` at the others; at each card play with a choice the policy, no random
moves, is asked for its card on the real deal, and the share of decisions where it plays the bot's
card is printed per bot and per place in the trick (lead, then the 2nd to 4th card). Cards of equal
effect make an exact match too strict a measure, so a second share counts the policy right when its
card is *equivalent* to the bot's (``equivalent``). Variants the bitmask playouts model only
(``supports``); the deals are pure functions of (seed, deal), so the figures do not depend on the
number of workers.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import sys
from collections import Counter
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.append(str(Path(__file__).resolve().parent))

from arena import PlayerView  # noqa: E402
from arena.cards import BIT, HIGHER, NAMES, NO_CARD, POINTS, STRENGTH, SUIT  # noqa: E402
from arena.state import GameState  # noqa: E402

from bots.oracle import OracleBot, play_open  # noqa: E402
from bots import referee_playout  # noqa: E402
from bots.playout import supports  # noqa: E402

from search_strength import _make, add_head_to_head_options, deal_of, head_to_head, key_values, rotations  # noqa: E402

PLACES = ("lead", "2nd", "3rd", "4th", "5th", "6th")


def equivalent(a: int, b: int, hands: list[int], seat: int, exchangeable: int) -> bool:
    """Cards ``a`` and ``b`` of ``seat``'s hand have the same effect on the deal: the same suit and
    points, and no card of that suit between them in another hand (the ones played are gone), so
    either wins or loses every trick the other would. A card that may still take the face-up card
    (``exchangeable``: ``exchangeable(view)``) is equivalent to no other card."""
    if a == b:
        return True
    if SUIT[a] != SUIT[b] or POINTS[a] != POINTS[b] or (BIT[a] | BIT[b]) & exchangeable:
        return False
    weak, strong = sorted((a, b), key=STRENGTH.__getitem__)
    others = 0
    for s, h in enumerate(hands):
        if s != seat:
            others |= h
    return not others & HIGHER[weak] & ~HIGHER[strong] & ~BIT[strong]


def exchangeable(view: PlayerView) -> int:
    """The cards that may still take the face-up card (the rules' 7 and 2 of trumps), none once it is
    gone."""
    return view.variant.rules.exchange_bits[view.trump] if view.face_up != NO_CARD else 0


def policy_card(state: GameState) -> int:
    """The card the playout policy, without random moves, plays for the seat on move on the real deal
    (``state``): ``referee_playout.card``, which ``tests/test_playout.py`` holds to the first card of
    the bitmask playouts wherever both play."""
    return referee_playout.card(state, state.playable())


class _Scored:
    """A bot whose every card play is compared with the policy's card on the real deal."""

    def __init__(self, inner: Any, label: str, tally: Counter[tuple[str, str, str]]) -> None:
        self.inner, self.label, self.tally = inner, label, tally
        self.policy: tuple[int, list[int], int] | None = None
        self.place = "lead"

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def see(self, state: GameState, view: PlayerView) -> None:
        """Before this seat's decision (``play_open``'s ``watch``): the policy's card, if it plays one
        (and the real deal, if the bot is an ``oracle``)."""
        if isinstance(self.inner, OracleBot):
            self.inner.see(state)
        self.policy = None
        plays = [a for a in view.legal if a.startswith("play ")]
        if len(plays) < 2 or len(plays) != len(view.legal):
            return
        self.policy = (policy_card(state), list(state.hands), exchangeable(view))
        self.place = PLACES[len(view.trick)]

    def choose(self, view: PlayerView) -> str:
        action: str = self.inner.choose(view)
        if self.policy is not None:
            mine, hands, exchanging = self.policy
            card = NAMES.index(action[5:])
            for key in (self.place, "all"):
                self.tally[(self.label, key, "decisions")] += 1
                self.tally[(self.label, key, "same")] += mine == card
                self.tally[(self.label, key, "equivalent")] += equivalent(mine, card, hands, view.seat, exchanging)
        return action


def tally_deal(variant_name: str, seed: int, deal: int, bot: Callable[[], Any],
               opponent: Callable[[], Any]) -> Counter[tuple[str, str, str]]:
    """Every rotation of one duplicate deal, new bots each game; the tally of both bots' decisions:
    (``bot`` or ``opponent``, place or ``all``, ``decisions``, ``same`` or ``equivalent``) -> count."""
    v, game_seed, deck, dealer = deal_of(variant_name, seed, deal)
    tally: Counter[tuple[str, str, str]] = Counter()
    for k, mine in enumerate(rotations(v, dealer)):
        players = [_Scored(bot(), "bot", tally) if s in mine else _Scored(opponent(), "opponent", tally)
                   for s in range(v.players)]
        play_open(v, deck, dealer, players, game_id=f"agreement/{deal}/{k}", seed=game_seed,
                  watch=lambda state, view: players[view.seat].see(state, view))
    return tally


def play_deal(args: tuple[str, int, int, str, dict[str, Any], str, dict[str, Any]]) -> Counter[tuple[str, str, str]]:
    """``tally_deal`` by bot names (a pool's job)."""
    variant_name, seed, deal, bot, bot_params, opponent, opponent_params = args
    return tally_deal(variant_name, seed, deal, lambda: _make(bot, bot_params),
                      lambda: _make(opponent, opponent_params))


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_head_to_head_options(ap, 60, "a bot name, module:Class (bots.oracle:OracleBot: the oracle), or git:COMMIT")
    a = ap.parse_args(argv)
    opponent_params = head_to_head(ap, a, supports, "the bitmask playouts do not model it (bots/playout.py supports)")
    jobs = [(a.variant, a.seed, d, a.bot, key_values(a.param), a.opponent, opponent_params) for d in range(a.deals)]
    tally: Counter[tuple[str, str, str]] = Counter()
    with mp.Pool(a.workers) as pool:
        for t in pool.imap_unordered(play_deal, jobs):
            tally.update(t)
    print(f"{a.variant}: the policy's card against {a.bot} (bot) and {a.opponent} (opponent), {a.deals} "
          f"duplicate deals, seed {a.seed}")
    print(f"  {'who':9} {'place':5} {'decisions':>9} {'same card':>9} {'equivalent':>10}")
    for label in ("bot", "opponent"):
        for place in PLACES + ("all",):
            n = tally[(label, place, "decisions")]
            if n:
                print(f"  {label:9} {place:5} {n:9d} {tally[(label, place, 'same')] / n:9.3f} "
                      f"{tally[(label, place, 'equivalent')] / n:10.3f}")


if __name__ == "__main__":
    main()
