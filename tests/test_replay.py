"""`tute replay`: text and HTML replays, the seat view, and records that are not true to the rules."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from arena import GameRecord, PlayerView, ReplayError, get_variant, play_game, replay, shuffled_deck
from arena.variants import VARIANTS
from arena.cards import NAMES
from arena.record import replay_steps
from bots.random_bot import RandomBot
from leagues.records.timeline import frames
from arena.cards import NO_CARD

CARD = re.compile(r"\b(?:1[0-2]|[1-7])[oceb]\b")


def game(variant: str, seed: int) -> GameRecord:
    v = get_variant(variant)
    bots = [RandomBot(seed=s) for s in range(v.players)]
    return play_game(v, shuffled_deck(v, seed), seed % v.players, bots, game_id=f"t/{variant}/{seed}", seed=seed,
                     names=[f"random{s}" for s in range(v.players)])


def tute(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "leagues", *args], capture_output=True, text=True, timeout=120)


@pytest.fixture()
def records(tmp_path: Path) -> Path:
    path = tmp_path / "games.jsonl"
    recs = [game("tute-2", s) for s in range(6)] + [game("tute-4-pairs", 1)]
    path.write_text("".join(r.dumps() + "\n" for r in recs))
    return path


def test_text_replay_shows_every_trick_and_the_result(records: Path) -> None:
    rec = GameRecord.loads(records.read_text().splitlines()[2])
    out = tute("replay", "--file", str(records), "--index", "2")
    assert out.returncode == 0, out.stderr
    tricks = re.findall(r"trick (\d+): random(\d) wins", out.stdout)  # the bots' names, not seat numbers
    plays = sum(1 for _, a in rec.actions if a.startswith("play"))
    assert len(tricks) == plays // 2 and [int(t) for t, _ in tricks] == list(range(1, len(tricks) + 1))
    side = [sum(rec.result.points[s] for s in t) for t in rec.teams]
    assert f"{side[0]}-{side[1]}" in out.stdout.splitlines()[-1]
    es = tute("replay", "--file", str(records), "--index", "2", "--lang", "es", "--long")
    assert " de " in es.stdout and "triunfo: " in es.stdout and "baza 1: la gana" in es.stdout
    english = re.compile(r"\b(plays|trick|wins|draws|holds|trump|score|result|seat)\b")
    assert not english.search(es.stdout), english.search(es.stdout)
    hand = next(line for line in es.stdout.splitlines() if " tiene " in line)
    assert hand.count(", ") == 5, hand  # six cards, spelled out, kept apart


@pytest.mark.parametrize("variant,seed", [("tute-2", s) for s in range(8)] + [("tute-4-pairs", 3), ("tute-3", 2)])
def test_a_seat_replay_never_shows_a_card_the_seat_could_not_see(variant: str, seed: int) -> None:
    rec = game(variant, seed)
    for seat in range(len(rec.seats)):
        known: set[str] = set()
        per_step: list[set[str]] = []
        for _, st in replay_steps(rec):
            v = PlayerView.of(st, seat)
            known |= {NAMES[c] for c in v.hand_cards} | {NAMES[c] for c in v.trick} | {NAMES[v.trump_card]}
            known |= {NAMES[c] for _, cs, _ in v.tricks for c in cs}
            known |= {NAMES[c] for _, g, t in v.exchanges for c in (g, t)}
            known |= {f"{f}{'oceb'[s]}" for _, s, _ in v.cantes for f in (11, 12)}
            if v.face_up != NO_CARD:
                known.add(NAMES[v.face_up])
            per_step.append(set(known))
        for frame in frames(rec, seat):
            shown = set(CARD.findall(" ".join(frame.events)))
            shown |= {c for h in frame.hands if h for c in h}
            assert shown <= per_step[frame.index], (seat, frame.index, shown - per_step[frame.index])
            assert all(h is None for s, h in enumerate(frame.hands) if s != seat)
        # not vacuous: the full view shows more of the deal than the seat's view does
        assert set(CARD.findall(" ".join(frames(rec)[0].events))) > set(CARD.findall(" ".join(frames(rec, seat)[0].events)))


def tamper(rec: GameRecord, how: str) -> GameRecord:
    data = rec.to_json()
    if how == "card":
        i = next(i for i, (_, a) in enumerate(data["actions"]) if a.startswith("play") and i > 5)
        others = [c for c in NAMES if f"play {c}" != data["actions"][i][1]]
        data["actions"][i][1] = f"play {others[0]}"
    elif how == "missing":
        del data["actions"][7]
    elif how == "result":
        data["result"]["points"] = list(reversed(data["result"]["points"]))
        data["result"]["ranks"] = list(reversed(data["result"]["ranks"]))
    return GameRecord.from_json(json.loads(json.dumps(data)))


@pytest.mark.parametrize("how", ["card", "missing", "result"])
def test_a_tampered_record_fails_replay_naming_the_first_wrong_action(how: str, tmp_path: Path) -> None:
    rec = game("tute-2", 11)
    bad = tamper(rec, how)
    with pytest.raises(ReplayError) as err:
        replay(bad)
    if how == "card":
        assert "action 6" in str(err.value) or re.search(r"action \d+", str(err.value))
    path = tmp_path / "bad.jsonl"
    path.write_text(bad.dumps() + "\n")
    out = tute("replay", "--file", str(path))
    assert out.returncode == 2 and "not true to the rules" in out.stderr and "Traceback" not in out.stderr


def test_bad_replay_input_is_one_line(records: Path, tmp_path: Path) -> None:
    junk = tmp_path / "junk.jsonl"
    junk.write_text(records.read_text().splitlines()[0] + "\n{not json\n")
    out = tute("replay", "--file", str(junk), "--index", "1")
    assert out.returncode == 2 and ":2:" in out.stderr and len(out.stderr.strip().splitlines()) == 1
    assert tute("replay", "--file", str(records), "--index", "99").returncode == 2
    assert tute("replay", "--file", str(records), "--seat", "5").returncode == 2
    assert tute("replay", "--file", str(tmp_path / "none.jsonl")).returncode == 2


def chromium() -> str | None:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None and os.environ.get("CI"):
        pytest.fail("chromium is missing: .ci/run installs it")
    return found


def test_step_names_its_keys_and_closed_input_ends_quietly(records: Path) -> None:
    out = subprocess.run([sys.executable, "-m", "leagues", "replay", "--file", str(records), "--step"],
                         input="\n", capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and "Traceback" not in out.stderr and "Aborted" not in out.stderr
    assert out.stderr.count("(Enter: next trick, q then Enter: stop)") == 2  # one Enter, then the input closed
    assert len(re.findall(r"trick \d+:", out.stdout)) == 2
    quit_ = subprocess.run([sys.executable, "-m", "leagues", "replay", "--file", str(records), "--step"],
                           input="q\n\n\n", capture_output=True, text=True, timeout=120)
    assert quit_.returncode == 0 and len(re.findall(r"trick \d+:", quit_.stdout)) == 1


def test_a_seat_replay_shows_the_hand_before_each_of_its_decisions(records: Path) -> None:
    out = tute("replay", "--file", str(records), "--index", "1", "--seat", "1")
    lines = out.stdout.splitlines()
    plays = [i for i, line in enumerate(lines) if line.startswith("  random1 plays ")]
    assert len(plays) >= 10
    for i in plays[1:] if not lines[plays[0] - 1].startswith("  random1 to move") else plays:
        before = lines[i - 1]
        assert before.startswith("  random1 to move, holding "), (i, before)
        assert lines[i].split()[-1] in before.split("holding ")[1].split()
    others = [line for line in lines if line.startswith("  random0 to move")]
    assert others == []  # only the viewer's own hand


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_the_result_says_what_happened_in_the_words_of_each_variant(variant: str) -> None:
    from leagues.records.wording import Words, result_text
    for seed in range(4):
        rec = game(variant, seed)
        r = rec.result
        text = result_text(r, rec.teams, Words.of(rec.seats), VARIANTS[variant].over_points_loses)
        assert "reason" not in text and "None" not in text
        if r.forfeit is not None:
            assert f"random{r.forfeit.seat} forfeits" in text
        elif r.contract is not None and r.contract.get("made") is not None:
            c = r.contract
            side = next(t for t in rec.teams if c["seat"] in t)
            took = sum(r.points[s] for s in side)
            verb = "made" if c["made"] else "failed"
            assert f"(declarer random{c['seat']}, bid {c['bid']} in " in text
            assert text.endswith(f"{verb} the contract: {took} of {c['bid']}")
            assert (took >= c["bid"]) == c["made"]
        elif r.losers is not None:
            names = [f"random{s}" for s in r.losers]
            assert all(n in text.split(":")[0] for n in names) and " lose" in text
            phrase = {"middle": "in the middle", "no_trick": "no trick taken", "over_points": "over ",
                      "capote": "took every trick", "capote_after_cante": "capote after a cante"}[r.reason]
            assert phrase in text
            if r.sit_out is not None:
                assert text.endswith(f"random{r.sit_out} sat out")
        elif r.reason == "tute":
            assert "by a Tute of" in text
        else:
            winners = [f"random{s}" for s in r.winner]
            assert all(w in text for w in winners) and "on points" in text
