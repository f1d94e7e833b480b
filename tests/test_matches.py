"""Matches of several deals (arena.matchplay) against an independent count from the deals' records:
the match ends at the first deal where its rule is met, the dealer rotates, the winner is who the rule
says, Tute deals and made contracts count as won deals; a stored match verifies and a tampered one does
not."""

from __future__ import annotations

import json

import pytest

from arena import ReplayError, get_variant
from arena.matchplay import MatchError, MatchRecord, MatchRule, play_match, verify_match
from bots.greedy import GreedyBot
from bots.random_bot import RandomBot


def side_ranks_first(result, teams) -> list[int]:
    """The sides ranked first in a deal; written here from the record's ranks, not from MatchScore."""
    return [t for t, team in enumerate(teams) if result.ranks[team[0]] == 0]


def expected_end(rule: MatchRule, deals, v) -> tuple[int, list[int]]:
    """How many deals the match must last, and the match's winning sides (or losing seats for letters)."""
    teams = v.teams
    wins, totals, letters = [0] * len(teams), [0] * len(teams), [0] * v.players
    for i, d in enumerate(deals):
        r = d.result
        firsts = side_ranks_first(r, teams)
        if len(firsts) != len(teams):
            for t in firsts:
                wins[t] += 1
        for t, team in enumerate(teams):
            totals[t] += r.score[team[0]] if r.score is not None else sum(r.points[s] for s in team)
        for s in r.losers or ():
            letters[s] += 1
        done = {"first_to": max(wins) >= rule.target, "points": max(totals) >= rule.target,
                "letters": max(letters) >= rule.target, "deals": i + 1 >= rule.target}[rule.kind]
        if done or i + 1 == rule.max_deals:
            if rule.kind == "letters":
                return i + 1, [s for s in range(v.players) if letters[s] == max(letters)]
            measure = totals if rule.kind == "points" else wins
            return i + 1, [t for t in range(len(teams)) if measure[t] == max(measure)]
    raise AssertionError("the match ran out of deals before its rule was met")


CASES = [("tute-2", "first_to:3"), ("tute-2", "first_to:5"), ("tute-4-pairs", "first_to:3"),
         ("tute-3", "deals:4"), ("subastado", "points:150"), ("cabron", "letters:6"),
         ("cabrero-5", "letters:3"), ("tute-4-pairs-online", "first_to:2")]


@pytest.mark.parametrize("name, rule_text", CASES)
def test_a_match_ends_where_its_rule_says_with_the_winner_it_names(name: str, rule_text: str) -> None:
    v = get_variant(name)
    rule = MatchRule.parse(rule_text)
    for seed in range(6):
        bots = [GreedyBot() if s % 2 else RandomBot(seed * 10 + s) for s in range(v.players)]
        m = play_match(v, bots, seed=seed, rule=rule, first_dealer=seed % v.players, match_id=f"t/{seed}")
        length, best = expected_end(rule, m.deals, v)
        assert len(m.deals) == length
        assert [d.dealer for d in m.deals] == [(seed + i) % v.players for i in range(length)]
        ranks = m.result.ranks
        if rule.kind == "letters":
            assert {s for s in range(v.players) if ranks[s] == max(ranks)} == set(best)
        else:
            assert {t for t, team in enumerate(v.teams) if ranks[team[0]] == 0} == set(best)
        verify_match(MatchRecord.from_json(json.loads(json.dumps(m.to_json()))))


def test_a_tute_deal_counts_as_a_won_deal() -> None:
    v = get_variant("tute-2")
    counted = 0
    for seed in range(60):
        m = play_match(v, [RandomBot(seed), RandomBot(seed + 1)], seed=seed, rule=MatchRule.parse("first_to:3"))
        for i, d in enumerate(m.deals):
            if d.result.reason == "tute":
                counted += 1
                winner = d.result.tute["seat"]
                before = sum(1 for x in m.deals[:i] if x.result.ranks[winner] == 0)
                after = sum(1 for x in m.deals[:i + 1] if x.result.ranks[winner] == 0)
                assert after == before + 1
    assert counted >= 1


def test_tampered_matches_do_not_verify() -> None:
    v = get_variant("tute-2")
    m = play_match(v, [RandomBot(1), RandomBot(2)], seed=3, rule=MatchRule.parse("first_to:3"))
    good = m.to_json()
    verify_match(MatchRecord.from_json(good))
    cut = json.loads(json.dumps(good))
    cut["deals"] = cut["deals"][:-1]
    with pytest.raises(ReplayError, match="not over"):
        verify_match(MatchRecord.from_json(cut))
    swapped = json.loads(json.dumps(good))
    swapped["result"]["ranks"] = list(reversed(swapped["result"]["ranks"]))
    with pytest.raises(ReplayError, match="result"):
        verify_match(MatchRecord.from_json(swapped))
    moved = json.loads(json.dumps(good))
    moved["first_dealer"] = 1
    with pytest.raises(ReplayError, match="dealt by"):
        verify_match(MatchRecord.from_json(moved))


@pytest.mark.parametrize("text, message", [("first_to", "needs a target"), ("first_to:x", "whole number"),
                                           ("best_of:3", "not a match rule"), ("deals:0", "from 1")])
def test_bad_match_rules_are_named(text: str, message: str) -> None:
    with pytest.raises(MatchError, match=message):
        MatchRule.parse(text)


def test_rules_that_mean_nothing_for_the_variant_are_refused() -> None:
    with pytest.raises(MatchError, match="letters"):
        MatchRule.parse("letters").check(get_variant("tute-2"))
    with pytest.raises(MatchError, match="losers"):
        MatchRule.parse("first_to:3").check(get_variant("cabron"))
    assert MatchRule.default(get_variant("cabrero")).text == "letters:6"
    assert MatchRule.default(get_variant("tute-4-pairs")).text == "first_to:3"


def test_the_cap_ends_a_match_that_would_not_end() -> None:
    v = get_variant("tute-2")
    m = play_match(v, [RandomBot(1), RandomBot(2)], seed=3, rule=MatchRule("first_to", 1000, max_deals=5))
    assert len(m.deals) == 5 and m.result.match["ended"] == "max_deals"
    verify_match(m)


@pytest.mark.parametrize("name, rule_text", CASES)
def test_a_match_result_is_said_by_what_decided_it(name: str, rule_text: str) -> None:
    """``tute games`` and the replay say a match's result by its rule's measure (letters lost, points or
    deals won), counted here from the deals, not by the points over the deals, which did not decide it."""
    from leagues.records.wording import result_of

    v = get_variant(name)
    rule = MatchRule.parse(rule_text)
    names = [f"bot{s}" for s in range(v.players)]
    bots = [GreedyBot() if s % 2 else RandomBot(s) for s in range(v.players)]
    m = play_match(v, bots, seed=1, rule=rule, names=names)
    wins, totals, letters = [0] * len(v.teams), [0] * len(v.teams), [0] * v.players
    for d in m.deals:
        r = d.result
        firsts = side_ranks_first(r, v.teams)
        for t in firsts if len(firsts) != len(v.teams) else ():
            wins[t] += 1
        for t, team in enumerate(v.teams):
            totals[t] += r.score[team[0]] if r.score is not None else sum(r.points[s] for s in team)
        for s in r.losers or ():
            letters[s] += 1
    measure, values = {"letters": ("letters lost", letters), "points": ("points", totals)}.get(
        rule.kind, ("letters lost", letters) if v.scoring == "losers" else ("deals won", wins))
    text = result_of(m.result, names, v.teams, limit=v.over_points_loses)
    head, _, said = text.partition(": ")
    listed = ("-" if min(values) >= 0 else ", ").join(map(str, values))
    assert head == f"the match of {len(m.deals)} deals, {measure} {listed}", text
    first = [names[s] for s in range(v.players) if m.result.ranks[s] == 0]
    assert all(n in said for n in first) and not any(n in said for n in names if n not in first), text
    assert "on points" not in text
    es = result_of(m.result, names, v.teams, "es", limit=v.over_points_loses)
    assert es.startswith(f"la partida de {len(m.deals)} manos, ") and listed in es
