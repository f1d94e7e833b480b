"""One self-contained HTML page that plays a game back: no network, no external files.

The frames (leagues.records.timeline) travel as JSON inside a ``<script type="application/json">``
block with every ``<``, ``>`` and ``&`` escaped, and the script builds the page with ``textContent``
and ``createElement`` only: a name, a bot's message or anything else from a record is always text,
never markup. The page shows the whole deal at a glance (the list of tricks, clickable; the auction;
cabrón's pair tricks; a score line), steps with buttons, keys or autoplay, and opens at ``#N`` (frame
N) or ``#end``, which is how the browser tests reach a given point.
"""

from __future__ import annotations

import html
import json
from dataclasses import asdict

from arena import GameRecord

from leagues.records.timeline import frames
from leagues.records.wording import PHRASES, Words

_CSS = """
*{box-sizing:border-box}[hidden]{display:none!important}
body{font-family:system-ui,sans-serif;background:#0b5d2a;color:#f4f4f4;margin:0;padding:12px 16px;line-height:1.35;
 overflow-wrap:anywhere}
a{color:#ffe27a}
h1{font-size:18px;margin:0 0 6px}
.bar{display:flex;gap:10px;align-items:center;flex-wrap:wrap;margin:6px 0}
button,select{font-size:15px;padding:4px 10px;border-radius:6px;border:0;background:#f4f4f4;color:#111;cursor:pointer}
.info>span{background:#094d23;border-radius:6px;padding:3px 8px}
.keys{font-size:13px;color:#d8e8dc}
.main{display:grid;grid-template-columns:minmax(0,1fr) 330px;gap:14px;align-items:start}
@media (max-width:820px){.main{grid-template-columns:minmax(0,1fr)}}
.seat{background:#094d23;border-radius:8px;padding:6px 10px;margin:6px 0;border:2px solid #094d23}
.seat.onmove{border-color:#ffd34d}
.seat.loser .label{color:#ffb4a8}
.seat .label{font-weight:600;margin-bottom:4px}
.badge{display:inline-block;margin-left:6px;padding:0 6px;border-radius:4px;background:#ffd34d;color:#111;font-size:12px}
.badge.lose{background:#ffb4a8}
.cards{display:flex;gap:4px;flex-wrap:wrap;min-height:64px}
.card{width:44px;height:62px;border-radius:5px;background:#fffdf5;color:#222;position:relative;flex:none;
 box-shadow:0 1px 2px #000;font-weight:700;font-size:15px;border:2px solid #fffdf5}
.card.trump{border-color:#8a6500}
.card.trump::after{content:"\\2605";position:absolute;right:3px;top:1px;font-size:11px;color:#8a6500}
.card .f{position:absolute;left:4px;top:2px}
.card svg{position:absolute;left:8px;top:22px;width:28px;height:32px}
.card.back{background:repeating-linear-gradient(45deg,#8b1c1c,#8b1c1c 4px,#a83232 4px,#a83232 8px);border-color:#8b1c1c}
.table{display:flex;gap:10px;background:#083d1c;padding:10px;border-radius:10px;min-height:96px;flex-wrap:wrap}
.slot{text-align:center;font-size:12px;max-width:110px;overflow-wrap:anywhere}
.slot.win .card{outline:3px solid #ffd34d}
.panel{background:#083d1c;border-radius:8px;padding:8px 10px;margin-bottom:10px}
.panel h2{font-size:15px;margin:0 0 6px}
.tricks{width:100%;border-collapse:collapse;font-size:13px}
.tricks td,.tricks th{padding:2px 4px;text-align:left;border-bottom:1px solid #0b5d2a}
.tricks th,.tricks td:first-child,.tricks td:last-child{white-space:nowrap;overflow-wrap:normal}
.tricks tr.done{cursor:pointer}.tricks tr.done:hover{background:#0b5d2a}
.tricks tr.future{color:#9fbfa8}
.tricks tr.now{background:#f4f4f4;color:#111}
#events{background:#083d1c;border-radius:8px;padding:8px 12px;min-height:60px;white-space:pre-line;margin:10px 0}
#result{font-weight:700;color:#ffd34d}
.sr{position:absolute;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0,0,0,0);border:0}
.tricks button{font-size:13px;padding:0 6px}
svg text{fill:#f4f4f4}
"""

_SCRIPT = r"""
const GAME = JSON.parse(document.getElementById("game").textContent);
const UI = GAME.ui, F = GAME.frames, N = F.length - 1;
const SUIT_COLOUR = {o:"#8a6500", c:"#c0392b", e:"#1f5fa8", b:"#2e7d32"};
const SIDE_COLOUR = ["#ffd34d", "#7fd3ff", "#ff9e9e", "#c5f27a", "#e0b3ff", "#ffffff"];
const SVGNS = "http://www.w3.org/2000/svg";
const $ = id => document.getElementById(id);
function el(tag, attrs, ...kids){
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) { if (k === "class") e.className = v; else e.setAttribute(k, v); }
  for (const k of kids) e.append(k);
  return e;
}
function svg(tag, attrs){ const e = document.createElementNS(SVGNS, tag); for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v); return e; }
const SHAPES = {o: [["circle", {cx:14, cy:16, r:11}]],
  c: [["path", {d:"M4 4h20c0 9-4 13-8 14v6h5v4H7v-4h5v-6C8 17 4 13 4 4z"}]],
  e: [["path", {d:"M13 2h2v20h-2z M8 22h12v2H8z M13 24h2v6h-2z"}]],
  b: [["path", {d:"M11 30l2-24c0-3 2-4 3-4s3 1 3 4l-4 24z"}], ["circle", {cx:16, cy:6, r:4}]]};
function suitSvg(s){
  const g = svg("svg", {viewBox:"0 0 28 32", "aria-hidden":"true"});
  for (const [tag, a] of SHAPES[s] || []) g.append(svg(tag, Object.assign({fill: SUIT_COLOUR[s]}, a)));
  return g;
}
// a card's name for a screen reader: its face and suit in words, and whether it is trump (its colour and
// picture say the suit to the eye only)
function cardName(name, trump){
  const s = name.slice(-1), f = name.slice(0, -1);
  return (UI["face_" + f] || f) + " " + UI.of + " " + (GAME.suits[s] || s) + (s === trump ? " (" + UI.is_trump + ")" : "");
}
function card(name, trump){
  if (name === null) return el("div", {class:"card back", title:UI.hidden, role:"img", "aria-label":UI.hidden});
  const s = name.slice(-1), f = name.slice(0, -1);
  const c = el("div", {class: "card" + (s === trump ? " trump" : ""), title: name, "data-card": name, role: "img",
                       "aria-label": cardName(name, trump)},
               el("span", {class:"f", style:"color:" + (SUIT_COLOUR[s] || "#222"), "aria-hidden": "true"}, f));
  c.append(suitSvg(s));
  return c;
}
const who = s => GAME.labels[s];
const teamOf = {};
GAME.teams.forEach((t, i) => t.forEach(s => teamOf[s] = i));
const pairs = GAME.teams.some(t => t.length > 1);
const teamName = i => UI.team + " " + "ABCDEF"[i] + " (" + GAME.teams[i].map(who).join(" + ") + ")";
// the frame at which each trick ended
const trickFrames = []; F.forEach((fr, i) => { if (fr.won) trickFrames.push(i); });
let at = 0, timer = null, speed = 1;

function show(i){
  at = Math.max(0, Math.min(N, i));
  const fr = F[at];
  $("pos").textContent = UI.frame + " " + at + " / " + N;
  $("trump").textContent = fr.trump;
  $("faceup").replaceChildren(...(fr.face_up ? [UI.face_up + ": ", card(fr.face_up, fr.trump_suit)] : []));
  $("faceup").hidden = !fr.face_up;
  $("pile").hidden = fr.stock_left === null;
  $("stock").textContent = fr.stock_left === null ? "" : fr.stock_left;
  $("score").textContent = fr.sides.join(" - ");
  const c = fr.contract;
  $("contract").hidden = !c;
  $("contractText").textContent = c ? `${who(c.seat)}, ${c.bid}${c.trump ? " · " + GAME.suits[c.trump] : ""}` : "";
  $("seats").replaceChildren(...fr.hands.map((h, s) => seatBox(fr, h, s)));
  const trick = fr.trick.length ? fr.trick : (fr.last_trick || []);
  const winner = fr.trick.length ? -1 : (fr.won ? fr.won.winner : -1);
  $("table").replaceChildren(...trick.map(([s, cd]) => el("div", {class:"slot" + (s === winner ? " win" : ""), "data-seat": s},
                                                      card(cd, fr.trump_suit), el("div", {}, who(s)))));
  $("events").textContent = fr.events.join("\n");
  $("result").textContent = fr.over ? fr.result : "";
  drawTricks(fr); drawAuction(fr); drawPairs(fr); drawMarker();
  const want = at === N ? "#end" : "#" + at;
  if (location.hash !== want && !(at === N && location.hash === "#" + N)) history.replaceState(null, "", want);
}
function seatBox(fr, h, s){
  const box = el("div", {class:"seat", id:"seat-" + s, "data-seat": s});
  const label = el("div", {class:"label"}, who(s));
  if (pairs) label.append(" · " + UI.team + " " + "ABCDEF"[teamOf[s]]);
  label.append(" · " + fr.points[s] + " " + UI.points);
  if (GAME.sit_out === s) label.append(el("span", {class:"badge"}, UI.sits_out));
  if (fr.mover === s) { box.classList.add("onmove"); label.append(el("span", {class:"badge"}, UI.to_move)); }
  if (fr.losers && fr.losers.includes(s)) { box.classList.add("loser"); label.append(el("span", {class:"badge lose"}, UI.loser)); }
  const cards = h === null ? Array(fr.hand_sizes[s]).fill(null) : h;
  const count = h === null ? fr.hand_sizes[s] : h.length;
  const hand = el("div", {class:"cards", role:"group", "aria-label": who(s) + ": " + (h === null
      ? (count === 1 ? UI.hidden_card_one : UI.hidden_cards.replace("{n}", count))
      : count + " " + (count === 1 ? UI.card_one : UI.cards))},
      ...cards.map(x => card(x, fr.trump_suit)));
  box.setAttribute("role", "group");
  box.setAttribute("aria-label", who(s));
  box.append(label, hand);
  return box;
}
// a done trick's cards as codes for the eye (a narrow column), each named in words for a screen reader,
// trump as it was while the trick was played
function trickCards(t, k){
  const trump = F[Math.max(0, trickFrames[k] - 1)].trump_suit;
  return t.cards.flatMap(([, code], i) => [...(i ? [" "] : []), el("span", {role: "img", "aria-label": cardName(code, trump)}, code)]);
}
function drawTricks(fr){
  const rows = GAME.tricks.map((t, k) => {
    const done = trickFrames[k] <= at;
    const current = fr.won ? fr.won.number === t.number : (!done && (k === 0 || trickFrames[k - 1] <= at));
    const jump = () => { stop(); show(trickFrames[k]); };
    // the number is a button once the trick is done, so the keyboard can jump there too
    const number = done ? el("button", {type: "button", "aria-label": UI.trick + " " + t.number}, String(t.number))
                        : String(t.number);
    // the rows are drawn anew: the focus goes back to this trick's button, not to the page
    if (done) number.onclick = e => { e.stopPropagation(); jump();
      const again = document.querySelector(`tr[data-trick="${t.number}"] button`); if (again) again.focus(); };
    const tr = el("tr", {class: (done ? "done" : "future") + (current ? " now" : ""), "data-trick": t.number},
      el("td", {}, number), el("td", {}, who(t.leader)),
      el("td", {}, ...(done ? trickCards(t, k) : [])),
      el("td", {}, done ? who(t.winner) : ""), el("td", {}, done ? "+" + t.points : ""));
    if (done) tr.onclick = jump;
    return tr;
  });
  $("trickRows").replaceChildren(...rows);
}
function drawAuction(fr){
  $("auctionPanel").hidden = !GAME.auction;
  if (!GAME.auction) return;
  $("bids").replaceChildren(...fr.bids.map(([s, b]) => el("li", {}, who(s) + ": " + (b ? UI.bid + " " + b : UI.pass))));
}
function drawPairs(fr){
  $("pairsPanel").hidden = !GAME.pair_tricks;
  if (!GAME.pair_tricks) return;
  $("pairs").replaceChildren(...fr.pair_tricks.map(([t, w, s, p]) => el("li", {}, `${UI.trick} ${t}: ${who(w)} +${p} · ${UI.trump} ${GAME.suits[s]}`)));
}
// the score line: each side's points at every step, a marker at the current one
const W = 320, H = 120, L = 30, B = 16;
const TOP = Math.max(1, ...F.map(fr => Math.max(...fr.sides)));
const xs = i => L + (W - L - 6) * (N ? i / N : 0), ys = v => 6 + (H - B - 6) * (1 - v / TOP);
function scoreLine(){
  const g = svg("svg", {viewBox: `0 0 ${W} ${H}`, width: "100%", role: "img", "aria-label": UI.score_line, id: "scoreSvg"});
  g.append(svg("rect", {x: L, y: 6, width: W - L - 6, height: H - B - 6, fill: "#0b5d2a"}));
  for (const v of [0, TOP]) { const t = svg("text", {x: L - 4, y: ys(v) + 4, "font-size": 10, "text-anchor": "end"}); t.textContent = v; g.append(t); }
  GAME.teams.forEach((_, k) => g.append(svg("polyline", {points: F.map((fr, i) => xs(i).toFixed(1) + "," + ys(fr.sides[k]).toFixed(1)).join(" "),
                                                         fill: "none", stroke: SIDE_COLOUR[k % 6], "stroke-width": 2})));
  g.append(svg("line", {id: "marker", y1: 6, y2: H - B, stroke: "#ffffff", "stroke-dasharray": "3 3"}));
  $("scoreLine").append(g);
  $("legend").replaceChildren(...GAME.teams.map((t, k) => el("li", {style: "color:" + SIDE_COLOUR[k % 6]},
      pairs ? teamName(k) : t.map(who).join(" + "))));
}
function drawMarker(){ const m = $("marker"); if (m) { m.setAttribute("x1", xs(at)); m.setAttribute("x2", xs(at)); } }
// the glyph is for the eye; a screen reader says the word alone
function playLabel(word, glyph){ $("play").textContent = glyph + " " + word; $("play").setAttribute("aria-label", word); }
function stop(){ if (timer) { clearInterval(timer); timer = null; } playLabel(UI.play, "\u25B6"); }
function play(){
  if (timer) return stop();
  if (at >= N) show(0);
  timer = setInterval(() => { if (at >= N) stop(); else show(at + 1); }, 700 / speed);
  playLabel(UI.pause, "\u23F8");
}
function setSpeed(v){ speed = Math.max(0.25, Math.min(8, v)); $("speed").value = String(speed); if (timer) { stop(); play(); } }
function nextTrick(){ const k = trickFrames.find(i => i > at); show(k === undefined ? N : k); }
$("first").onclick = () => { stop(); show(0); };
$("prev").onclick = () => { stop(); show(at - 1); };
$("next").onclick = () => { stop(); show(at + 1); };
$("last").onclick = () => { stop(); show(N); };
$("play").onclick = play;
$("speed").onchange = e => setSpeed(parseFloat(e.target.value));
document.addEventListener("keydown", e => {
  if (e.target.tagName === "SELECT" || e.ctrlKey || e.altKey || e.metaKey) return;  // the browser's own keys
  // Space and Enter on a focused button or link are that control's (a step, not the autoplay)
  if ((e.key === " " || e.key === "Enter") && ["BUTTON", "A"].includes(e.target.tagName)) return;
  if (e.key === "ArrowLeft") { stop(); show(at - 1); }
  else if (e.key === "ArrowRight") { stop(); show(at + 1); }
  else if (e.key === "Home") { stop(); show(0); }
  else if (e.key === "End") { stop(); show(N); }
  else if (e.key === " ") { e.preventDefault(); play(); }
  else if (e.key === "+" || e.key === "=") setSpeed(speed * 2);
  else if (e.key === "-") setSpeed(speed / 2);
  else if (e.key === "t" || e.key === "T") { stop(); nextTrick(); }
});
function fromHash(){ const h = location.hash.slice(1); stop(); show(h === "end" ? N : (parseInt(h, 10) || 0)); }
window.addEventListener("hashchange", fromHash);
scoreLine();
fromHash();
"""


def _ui_text(words: Words) -> dict[str, str]:
    return dict(PHRASES[words.lang]["ui"])


def replay_page(record: GameRecord, seat: int | None = None, lang: str = "en", back: str | None = None) -> str:
    """The whole page as a string (the caller writes it); ``back`` is the relative link to the report
    the page belongs to, if any."""
    words = Words.of(record.seats, lang, isolate=True)
    ui = _ui_text(words)
    fr = frames(record, seat, lang, isolate=True)
    tricks = [asdict(f.won) for f in fr if f.won is not None]
    variant = record.rules()
    data = {"id": record.id, "variant": record.variant, "labels": list(words.labels), "teams": record.teams,
            "frames": [asdict(f) for f in fr], "tricks": tricks, "ui": ui,
            "suits": {s: words.suit(s) for s in "oceb"}, "auction": variant.trump_rule == "auction",
            "pair_tricks": variant.trump_rule == "pair_tricks", "sit_out": record.result.sit_out}
    payload = (json.dumps(data, ensure_ascii=False, separators=(",", ":"))
               .replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e"))
    gid = words.free(record.id or "-")
    title = words("seen_by", id=gid, who=words.who(seat)) if seat is not None else words("game", id=gid)
    title = f"{title} · {record.variant}"
    e = html.escape
    link = f'<a id="back" href="{e(back)}">{e(ui["back"])}</a>' if back else ""
    keys = e(ui["keys"])
    return f"""<!DOCTYPE html>
<html lang="{e(lang)}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>tute-arena: {e(title)}</title><style>{_CSS}</style></head><body>
<h1>{e(title)}</h1>{link}
<div class="bar"><button id="first" title="{e(ui['home'])}" aria-label="{e(ui['first'])}">|&#x25C0;</button>
<button id="prev" title="&#x2190;" aria-label="{e(ui['prev'])}">&#x25C0;</button>
<span id="pos" role="status" aria-live="polite" aria-atomic="true"></span>
<button id="next" title="&#x2192;" aria-label="{e(ui['next'])}">&#x25B6;</button>
<button id="last" title="{e(ui['end'])}" aria-label="{e(ui['last'])}">&#x25B6;|</button>
<button id="play" aria-label="{e(ui['play'])}">&#x25B6; {e(ui['play'])}</button>
<label>{e(ui['speed'])} <select id="speed"><option value="0.25">0.25&#xD7;</option><option value="0.5">0.5&#xD7;</option>
<option value="1" selected>1&#xD7;</option><option value="2">2&#xD7;</option><option value="4">4&#xD7;</option>
<option value="8">8&#xD7;</option></select></label></div>
<p class="keys" id="keys">{keys}</p>
<noscript><p class="panel">{e(ui['noscript'])}</p></noscript>
<div class="bar info"><span>{e(ui['trump'])}: <b id="trump"></b></span><span id="faceup" class="bar"></span>
<span id="pile" hidden>{e(ui['pile'])}: <b id="stock"></b></span><span>{e(ui['score'])}: <b id="score"></b></span>
<span id="contract" hidden>{e(ui['contract'])}: <b id="contractText"></b></span></div>
<main class="main"><div>
<h2 class="sr">{e(ui['hands'])}</h2>
<div id="seats"></div>
<h2 class="sr">{e(ui['table'])}</h2>
<div class="table" id="table"></div>
<h2 class="sr">{e(ui['events'])}</h2>
<p id="events"></p>
<p id="result"></p>
</div><div>
<div class="panel"><h2>{e(ui['score_line'])}</h2><div id="scoreLine"></div><ul id="legend"></ul></div>
<div class="panel" id="auctionPanel" hidden><h2>{e(ui['auction'])}</h2><ol id="bids"></ol></div>
<div class="panel" id="pairsPanel" hidden><h2>{e(ui['pairs'])}</h2><ul id="pairs"></ul></div>
<div class="panel"><h2 id="tricksTitle">{e(ui['tricks'])}</h2><table class="tricks" aria-labelledby="tricksTitle">
<thead><tr><th>#</th><th>{e(ui['leader'])}</th>
<th>{e(ui['cards'])}</th><th>{e(ui['winner'])}</th><th>{e(ui['points'])}</th></tr></thead><tbody id="trickRows"></tbody></table></div>
</div></main>
<script type="application/json" id="game">{payload}</script>
<script>{_SCRIPT}</script></body></html>
"""
