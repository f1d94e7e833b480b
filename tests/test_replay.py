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
    tricks = re.findall(r"trick (\d+): seat (\d) wins", out.stdout)
    plays = sum(1 for _, a in rec.actions if a.startswith("play"))
    assert len(tricks) == plays // 2 and [int(t) for t, _ in tricks] == list(range(1, len(tricks) + 1))
    side = [sum(rec.result.points[s] for s in t) for t in rec.teams]
    assert f"{side[0]}-{side[1]}" in out.stdout.splitlines()[-1]
    es = tute("replay", "--file", str(records), "--index", "2", "--lang", "es", "--long")
    assert " de " in es.stdout and "trump: " in es.stdout


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
        seat = data["actions"][i][0]
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


def test_html_replay_in_headless_chromium_ends_on_the_recorded_score(records: Path, tmp_path: Path) -> None:
    browser = chromium()
    if browser is None:
        pytest.skip("chromium not installed (apt-get install chromium)")
    page = tmp_path / "game.html"
    out = tute("replay", "--file", str(records), "--index", "6", "--html", str(page))
    assert out.returncode == 0, out.stderr
    text = page.read_text()
    assert "http://" not in text and "https://" not in text and "<link" not in text and "src=" not in text
    rec = GameRecord.loads(records.read_text().splitlines()[6])
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             f"--user-data-dir={tmp_path / 'profile'}"]
    dom = subprocess.run([browser, *flags, "--dump-dom", f"file://{page}#end"], capture_output=True, text=True,
                         timeout=120).stdout
    side = [sum(rec.result.points[s] for s in t) for t in rec.teams]
    assert f'<b id="score">{side[0]} - {side[1]}</b>' in dom
    assert "on points" in dom or "forfeit" in dom or "Tute" in dom
    shot = tmp_path / "game.png"
    subprocess.run([browser, *flags, "--window-size=1000,900", f"--screenshot={shot}", f"file://{page}#12"],
                   capture_output=True, timeout=120)
    assert shot.exists() and shot.stat().st_size > 5000
