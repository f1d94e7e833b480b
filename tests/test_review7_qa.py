"""QA review 7: the changes of 7b31723..HEAD checked at their edges.

Checked:

- ``leagues.tournament.pairing`` for tables of 3 to 6 (``sitout_choices``, ``_pair_many``, the weighted
  ``_table_cost``): every entrant seated once a round, ``n mod k`` sit-outs, sit-outs never two apart
  (nobody sits out twice before another once), the same round for the field listed in any order, and
  the time of a round, for every field of 3 to 16 at tables of 3 to 6 over several Swiss rounds (the
  slowest round seen about 0.15 s, 12 at tables of 4); rounds 1 and 2 against 7b31723's pairing for the
  same fields with random scores (identical, 3 to 16 entrants); every later round that differs from it
  has fewer weighted repeats (none worse); docs/config.md's "five entrants at tables of three meet at
  most twice in five rounds" (holds in 60 of 60 Swiss runs, 7b31723's broke it in 19);
  ``balanced_rounds`` (round robin) is deterministic, so a round robin begun by this version resumes.
- ``ForfeitWatch`` (``row_sit_out``, ``names_in_play``) for single deals with and without ``sit_out``,
  and for ``unit = "match"`` rows (a match's deals each with its own ``sit_out``).
- ``SubprocessHost.close``'s new warning of a crash after the last deal.

Defects found, each pinned by a strict xfail (all three fixed since: their tests now pin the fix):

- docs/config.md says that in small fields (partitions weighed exhaustively) "the sit-outs are chosen with
  the tables (those whose tables repeat least ...)"; the code does so only while sit-out choices times
  partitions stay within ``EXACT_LIMIT``, else it falls back to the single preferred choice (all or one).
  13 entrants at tables of 5 (126 partitions, 66 allowed choices) in round 5: a pair meets a third time
  though an allowed choice of sit-outs seats everyone with no third meeting (and no more second ones).
  Seen also at 14 and 15 at tables of 4 to 6. Fix: weigh ``choices[:max(1, EXACT_LIMIT // exact)]``
  (or all of them: the product is at most 66 x 462 here), and say the limit in docs/config.md. Fixed
  so, the slowest round of those fields now 0.15 s;
- ``unit = "match"`` in cabrero-5: a match's result carries no ``sit_out``, so ``ForfeitWatch`` and the
  tally credit every entrant with every deal of the match, the deals it sat out as dealer included. A bot
  that forfeits every deal it plays ("10 of 12 deals forfeited") is never "forfeited every deal": ``tute
  run`` exits 0, where ``tute play`` (which counts deal by deal) exits 3. Fix: count a match's deals per
  entrant from its deals' own ``sit_out`` (``row_forfeits`` returning per-name deal counts). Fixed so
  (``forfeits.match_played``), the tally's ``COUNT`` raised to 5: a tally kept by the old count is not read,
  and folded again;
- ``SubprocessHost.close`` warns "crash after the last deal" for a bot that exited with status 0 after its
  last answer (one deal a process), when game_over's write found it gone: between deals the same end is a
  silent restart (``_settle``), and found by close's own poll (status 0) it is not said. Fix: skip a
  pending ``crash`` whose process ended cleanly (``self._ended``), as ``_settle`` does. Fixed so.

Noted, not pinned: the triangular weight makes one third meeting (3) tie three second meetings (3),
then score spread decides (the docs promise only against two); a resume refused by ``Watermark.schedule``
(a tournament begun by 7b31723, whose later balanced or Swiss rounds now pair otherwise) has already
stored the new schedule's sit-outs (``add_byes`` runs first, ``INSERT OR IGNORE``), so the store's byes
list two sit-out sets for such rounds, even after the old version finishes it.

Held (plain tests below): the pairing properties above; ``ForfeitWatch`` of single-deal rows with and
without ``sit_out``.
"""

from __future__ import annotations

import itertools
import json
import logging
import random
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from leagues.tournament import pairing as P
from leagues.tournament.pairing import History, balanced_rounds, pair_round

from league_util import protocol_bot, write_config
from test_pairing import names_of, weighted
from test_pairing import play_round as play


def meetings_made(tables: Any, h: History) -> Counter[int]:
    """How many pairs of these tables meet for the (m+1)-th time, by m (first meetings left out)."""
    return Counter(h.meetings(a, b) for t in tables for a, b in itertools.combinations(t, 2) if h.meetings(a, b))


# ------------------------------------------------------------------------------------------------ held
def test_tables_of_three_to_six_seat_everyone_once_fairly_in_any_order_and_fast() -> None:
    slowest = 0.0
    for n in range(3, 17):
        for k in range(3, 7):
            if n < k:
                continue
            rng = random.Random(n * 7 + k)
            h = History()
            names = names_of(n)
            for r in range(1, 6):
                shuffled = names[:]
                rng.shuffle(shuffled)
                t0 = time.perf_counter()
                rnd = pair_round(shuffled, k, h, seed=3, round_no=r)
                slowest = max(slowest, time.perf_counter() - t0)
                seated = [x for t in rnd.tables for x in t] + list(rnd.byes)
                assert sorted(seated) == names, (n, k, r, rnd)
                assert all(len(t) == k for t in rnd.tables) and len(rnd.byes) == n % k
                if r in (1, 4):
                    assert pair_round(list(reversed(shuffled)), k, h, seed=3, round_no=r) == rnd
                play(h, rnd, rng)
                byes = [h.byes[x] for x in names]
                assert max(byes) - min(byes) <= 1, (n, k, r, byes)
    assert slowest < 0.8, slowest


def test_five_entrants_at_tables_of_three_meet_at_most_twice_in_five_rounds() -> None:
    """docs/config.md's example, in Swiss with random results and in a balanced round robin."""
    for seed in range(30):
        rng = random.Random(seed)
        h = History()
        for r in range(1, 6):
            play(h, pair_round(names_of(5), 3, h, seed=seed, round_no=r), rng)
        assert max(h.met.values()) <= 2, (seed, h.met)
        hb = History()
        for rnd in balanced_rounds(names_of(5), 3, 5, seed):
            for t in rnd.tables:
                hb.meet(t)
        assert max(hb.met.values()) <= 2, (seed, hb.met)


def test_balanced_rounds_are_the_same_every_time_so_a_round_robin_resumes() -> None:
    for n, k in [(7, 3), (10, 4), (13, 5), (11, 3)]:
        assert balanced_rounds(names_of(n), k, 4, 11) == balanced_rounds(list(reversed(names_of(n))), k, 4, 11)


def _row(gid: str, seats: list[str], result: dict[str, Any]) -> list[Any]:
    from leagues.tournament.forfeits import ROW_ID, ROW_SEATS
    from leagues.tournament.store import ROW_RESULT

    row: list[Any] = [None] * 16
    row[ROW_ID], row[ROW_SEATS] = gid, json.dumps(seats)
    row[ROW_RESULT] = json.dumps(result, separators=(",", ":"))
    return row


def test_forfeit_watch_counts_single_deals_with_and_without_sit_out() -> None:
    from leagues.tournament.forfeits import ForfeitWatch

    watch = ForfeitWatch()
    crash = {"seat": 0, "reason": "crash", "detail": "boom"}
    watch.add(_row("a", ["x", "y"], {"forfeit": crash, "reason": "forfeit"}))
    watch.add(_row("b", ["x", "y"], {"forfeit": None, "reason": "points"}))
    watch.add(_row("c", ["x", "y", "z"], {"forfeit": None, "reason": "losers", "sit_out": 0}))
    assert (watch.entrants["x"].games, watch.entrants["x"].forfeits) == (2, 1)
    assert watch.entrants["y"].games == 3 and watch.entrants["z"].games == 1


# ----------------------------------------------------------------------------------------- defects
def test_small_fields_choose_sit_outs_with_the_tables_as_config_md_says() -> None:
    n, k, seed, last = 13, 5, 0, 5
    rng = random.Random(seed * 100 + n * 7 + k)
    h = History()
    names = names_of(n)
    for r in range(1, last):
        play(h, pair_round(names, k, h, seed=seed, round_no=r), rng)
    rnd = pair_round(names, k, h, seed=seed, round_no=last)
    choices = P.sitout_choices(names, n % k, h, seed, last)
    assert P._partition_count(n - n % k, k) == 126 and len(choices) == 66  # exhaustive partitions: a small field
    best = min(((weighted(p, h), sit, p) for sit in choices
                for p in P._partitions([x for x in names if x not in sit], k)), key=lambda x: x[0])
    assert meetings_made(best[2], h)[2] == 0  # an allowed choice of sit-outs: nobody meets a third time
    assert meetings_made(rnd.tables, h)[1] >= meetings_made(best[2], h)[1]  # ... and no fewer second meetings
    assert meetings_made(rnd.tables, h)[2] == 0, (rnd, meetings_made(rnd.tables, h), best)


def test_a_match_units_forfeits_count_only_the_deals_an_entrant_played(tmp_path: Path) -> None:
    from leagues.tournament.config import load_config
    from leagues.tournament.leaderboard import forfeit_watch
    from leagues.tournament.runner import run_tournament
    from leagues.tournament.store import Store

    entrants = [{"name": f"r{i}", "bot": "random", "params": {"seed": i}} for i in range(4)]
    entrants.append({"name": "crash", "bot": "league_bots:CrashBot", "isolation": "inprocess"})
    path = write_config(tmp_path, deals=1, variants=[{"name": "cabrero-5", "unit": "match", "match": "letters:2"}],
                        entrants=entrants)
    summary = run_tournament(load_config(path), workers=1, quiet=True)
    with Store(tmp_path / "store.sqlite", readonly=True) as store:
        played = 0
        for row in store.games("t"):
            m = store.match(row.id)
            seat = list(row.seats).index("crash")
            played += sum(1 for d in m.deals if d.result.sit_out != seat)
            assert all(d.result.forfeit is not None and d.result.forfeit.seat == seat
                       for d in m.deals if d.result.sit_out != seat)  # it forfeits every deal it plays
        watch = forfeit_watch(store, "t")
    assert watch.entrants["crash"].forfeits == played
    assert summary.watch.entrants["crash"].games == played, summary.watch.entrants["crash"]  # the early warning
    assert watch.entrants["crash"].games == played, watch.summary_lines()
    assert watch.all_forfeited() == ["crash"]
    with Store(tmp_path / "store.sqlite") as store:  # as tute-arena kept it before: every deal of a match counted
        store.db.execute("UPDATE tally_counts SET count = 4")
        store.db.execute("UPDATE forfeit_tallies SET deals = deals + 2 WHERE entrant = 'crash'")
    with Store(tmp_path / "store.sqlite", readonly=True) as store:
        assert forfeit_watch(store, "t").all_forfeited() == ["crash"]


#: a protocol bot that plays one deal a process: after its answer with two cards left and the stock gone
#: (its last question of a tute-2 deal: the last card is played for it), it closes its input and exits 0
ONE_DEAL = protocol_bot("onedeal", act='''
last = len(msg['view']['hand']) <= 2 and not msg['view'].get('stock_left')
''', after='''
if kind == 'act' and last:
    os.close(0)
    time.sleep(0.3)
    os._exit(0)
''')


def test_close_does_not_call_a_clean_exit_after_the_last_deal_a_crash(tmp_path: Path,
                                                                       caplog: pytest.LogCaptureFixture) -> None:
    from arena import get_variant, play_game, shuffled_deck
    from arena.hosting import make_player

    (tmp_path / "bot.py").write_text(ONE_DEAL)
    host: Any = make_player([sys.executable, str(tmp_path / "bot.py")], time_limit_ms=10_000)
    v = get_variant("tute-2")
    caplog.set_level(logging.INFO, logger="arena.hosting")
    try:
        for g in range(2):
            rec = play_game(v, shuffled_deck(v, 5 + g), g % 2, [make_player("random", {"seed": 1}), host],
                            game_id=f"g{g}", seed=5 + g, names=["a", "b"])
            assert rec.result.forfeit is None
    finally:
        host.close()
    messages = [r.getMessage() for r in caplog.records]
    assert any("restarting: the process ended with status 0" in m for m in messages), messages  # deal 0's end
    warned = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert not warned, warned
