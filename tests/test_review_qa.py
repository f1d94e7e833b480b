"""Review of 8973366..HEAD: bugs the change introduced or left, each test seen failing before its fix."""

from __future__ import annotations

import json
import sqlite3
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from arena import get_variant, play_game, replay, shuffled_deck
from arena.hosting import make_player
from arena.record import GameRecord
from arena.variants import Variant, VariantError

from league_util import tute, write_league


def test_from_options_cache_does_not_skip_the_type_check() -> None:
    # the same values once the items are sorted (True == 1), the same types in each dict's own order
    Variant.from_options("tute-2", {"last_trick_bonus": 1, "forty_first": True})
    with pytest.raises(VariantError, match="forty_first: expected bool"):
        Variant.from_options("tute-2", {"forty_first": 1, "last_trick_bonus": True})


TWO_ENDS = """
import json, os, sys
counter = sys.argv[1]
k = int(open(counter).read()) + 1 if os.path.exists(counter) else 1
open(counter, "w").write(str(k))
out = sys.stdout.buffer
def send(d):
    out.write(json.dumps(d).encode() + b"\\n"); out.flush()
sys.stdin.buffer.readline()
if k == 1:  # ends (status 0) before reading new_game: the referee's write of it fails
    os.close(0)
    send({"type": "hello", "name": "twoends"})
    os._exit(0)
send({"type": "hello", "name": "twoends"})
for raw in sys.stdin.buffer:
    m = json.loads(raw)
    if m["type"] == "new_game" and k == 2:  # ends again, before its first answer
        os._exit(0)
    if m["type"] == "act":
        send({"action": m["legal"][0]})
    if m["type"] == "quit":
        break
"""


def test_a_second_end_before_the_first_answer_is_the_deals_crash(tmp_path: Path) -> None:
    """docs/protocol.md: a process that ends with status 0 before its first answer of a deal is started
    once more, 'a second end is the deal's crash'. Here the first process ends while new_game is written
    and the second before its first answer: a third is started and the deal is played. Had the first
    ended a moment later (after reading new_game) the same bot forfeits: judged by timing."""
    path = tmp_path / "twoends.py"
    path.write_text(textwrap.dedent(TWO_ENDS))
    player = make_player([sys.executable, str(path), str(tmp_path / "n")], time_limit_ms=1000)
    v = get_variant("tute-2")
    try:
        rec = play_game(v, shuffled_deck(v, 0), 0, [player, make_player("random")], seed=0)
    finally:
        player.close()
    assert player.starts == 2
    assert rec.result.forfeit is not None and rec.result.forfeit.reason == "crash"


#: played by 8973366's referee: tute-4-pairs with cantes_after_stock = false (an accepted option then),
#: greedy in every seat; verified then
OLD_RECORD = json.loads(
    '{"format":"tute-arena/1","id":"x/tute-4-pairs/1","variant":"tute-4-pairs","options":{"players":4,"pairs":true,'
    '"draw_pile":false,"hand_size":10,"three_player_deck":36,"follow_trump_lead_in_stock":false,'
    '"must_beat_led_after_trumped":false,"undertrump_required":false,"partner_exemption":false,"exchange_seven":true,'
    '"exchange_two":true,"forty_first":true,"cantes_scope":"player","cantes_after_stock":false,'
    '"tute_mode":"any_won_trick","tute_from_deal":true,"last_trick_bonus":10,"trump_rule":"card","follow_only":false,'
    '"cantes":true,"scoring":"points","bid_min":60,"bid_step":5,"bid_max":230,"no_trick_loses":true,'
    '"over_points_loses":0,"capote_after_cante_loses":false,"sit_out_from":0},"seed":1,"dealer":1,'
    '"seats":["InProcessHost","InProcessHost","InProcessHost","InProcessHost"],"teams":[[0,2],[1,3]],'
    '"deck":["4e","3o","2c","2o","10b","3b","6o","12o","10c","12e","5b","1e","11b","2e","10e","3e","1c","4b","11c",'
    '"6b","12b","5c","7e","12c","4c","3c","1o","6c","4o","7o","6e","5e","1b","11e","2b","10o","7c","5o","7b","11o"],'
    '"hands":[["1o","6o","2c","11c","6e","7e","10e","2b","5b","7b"],["2o","10o","11o","12o","6c","12c","1e","3e","5e",'
    '"6b"],["4o","1c","4c","7c","10c","4e","1b","10b","11b","12b"],["3o","5o","7o","3c","5c","2e","11e","12e","3b",'
    '"4b"]],"stock":[],"trump_card":"11o","actions":[[2,"play 1c"],[3,"play 5c"],[0,"play 11c"],[1,"play 6c"],'
    '[2,"play 1b"],[3,"play 4b"],[0,"play 2b"],[1,"play 6b"],[2,"play 4c"],[3,"play 3c"],[0,"play 2c"],'
    '[1,"play 12c"],[3,"play 3b"],[0,"play 5b"],[1,"play 10o"],[2,"play 10b"],[1,"play 1e"],[2,"play 4e"],'
    '[3,"play 2e"],[0,"play 6e"],[1,"play 3e"],[2,"play 4o"],[3,"play 11e"],[0,"play 10e"],[2,"play 10c"],'
    '[3,"play 5o"],[0,"play 1o"],[1,"play 5e"],[0,"play 7e"],[1,"play 2o"],[2,"play 7c"],[3,"play 12e"],'
    '[1,"play 11o"],[2,"play 11b"],[3,"play 3o"],[0,"play 6o"],[3,"play 7o"],[0,"play 7b"],[1,"play 12o"],'
    '[2,"play 12b"]],"result":{"points":[13,47,40,30],"ranks":[1,0,1,0],"winner":[1,3],"tute":null,'
    '"forfeit":null,"reason":"points"}}')


def test_a_record_of_yesterdays_rules_still_replays() -> None:
    replay(GameRecord.from_json(OLD_RECORD))


def test_league_history_reads_with_a_season_copy_the_new_checks_refuse(tmp_path: Path, capsys: Any,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Yesterday's checks took ``bid_min = 300`` in tute-2 (it has no auction); a season started with it
    is stored with that copy of league.toml. ``history`` used today's k and printed; now it asks every
    season's copy for its k and one copy that no longer parses refuses every entrant's history."""
    monkeypatch.chdir(tmp_path)
    cfg = write_league(tmp_path)
    for name in ("a", "b"):
        assert tute(capsys, "league", "submit", name, "random", "--league", str(cfg))[0] == 0
    assert tute(capsys, "league", "season", "--league", str(cfg), "-q")[0] == 0
    store = next(tmp_path.rglob("*.sqlite"))
    db = sqlite3.connect(store)
    text = db.execute("SELECT config FROM league_seasons WHERE season = 1").fetchone()[0]
    db.execute("UPDATE league_seasons SET config = ? WHERE season = 1", (text + "[variants.options]\nbid_min = 300\n",))
    db.commit()
    db.close()
    code, out, err = tute(capsys, "league", "history", "a", "--league", str(cfg))
    assert code == 0, err
