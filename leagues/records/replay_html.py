"""One self-contained HTML page that plays a game back: no network, no external files.

The frames (leagues.records.timeline) are embedded as JSON; a small script steps through them with buttons or
the arrow keys; cards are drawn as inline SVG. Opening the page with ``#end`` shows the last frame,
which is how the test checks the final score in a headless browser.
"""

from __future__ import annotations

import html
import json
from dataclasses import asdict

from arena import GameRecord

from leagues.records.timeline import frames

_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>tute-arena: __TITLE__</title>
<style>
body{font-family:system-ui,sans-serif;background:#0b5d2a;color:#f4f4f4;margin:0;padding:16px}
h1{font-size:18px;margin:0 0 8px}
.bar{display:flex;gap:16px;align-items:center;flex-wrap:wrap;margin-bottom:10px}
.seat{background:rgba(0,0,0,.18);border-radius:8px;padding:6px 10px;margin:6px 0}
.seat.onmove{outline:2px solid #ffd34d}
.seat .label{font-weight:600;margin-bottom:4px}
.cards{display:flex;gap:4px;flex-wrap:wrap;min-height:64px}
.card{width:44px;height:62px;border-radius:5px;background:#fffdf5;color:#222;position:relative;
 box-shadow:0 1px 2px rgba(0,0,0,.5);font-weight:700;font-size:15px}
.card .f{position:absolute;left:4px;top:2px}
.card svg{position:absolute;left:8px;top:22px;width:28px;height:32px}
.card.back{background:repeating-linear-gradient(45deg,#8b1c1c,#8b1c1c 4px,#a83232 4px,#a83232 8px)}
.table{display:flex;gap:10px;background:rgba(0,0,0,.25);padding:10px;border-radius:10px;min-height:90px}
.slot{text-align:center;font-size:12px}
#events{background:rgba(0,0,0,.3);border-radius:8px;padding:8px 12px;min-height:60px;white-space:pre-line}
button{font-size:16px;padding:4px 12px;border-radius:6px;border:0;background:#f4f4f4;cursor:pointer}
#result{font-weight:700;color:#ffd34d}
</style></head><body>
<h1>__TITLE__</h1>
<div class="bar"><button id="first" title="Home">|&#x25C0;</button><button id="prev" title="Left arrow">&#x25C0;</button>
<span id="pos"></span><button id="next" title="Right arrow">&#x25B6;</button><button id="last" title="End">&#x25B6;|</button>
<span>trump: <b id="trump"></b></span><span id="faceup"></span><span>pile: <b id="stock"></b></span>
<span>score: <b id="score"></b></span></div>
<div id="seats"></div>
<div class="table" id="table"></div>
<p id="events"></p>
<p id="result"></p>
<script>
const GAME = __DATA__;
const SUIT_COLOUR = {o:"#c99a06", c:"#c0392b", e:"#1f5fa8", b:"#2e7d32"};
function suitSvg(s){
  const c = SUIT_COLOUR[s];
  if (s === "o") return `<svg viewBox="0 0 28 32"><circle cx="14" cy="16" r="11" fill="${c}"/><circle cx="14" cy="16" r="6" fill="none" stroke="#fff3" stroke-width="2"/></svg>`;
  if (s === "c") return `<svg viewBox="0 0 28 32"><path d="M4 4h20c0 9-4 13-8 14v6h5v4H7v-4h5v-6C8 17 4 13 4 4z" fill="${c}"/></svg>`;
  if (s === "e") return `<svg viewBox="0 0 28 32"><path d="M13 2h2v20h-2z M8 22h12v2H8z M13 24h2v6h-2z" fill="${c}"/></svg>`;
  return `<svg viewBox="0 0 28 32"><path d="M11 30l2-24c0-3 2-4 3-4s3 1 3 4l-4 24z" fill="${c}"/><circle cx="16" cy="6" r="4" fill="${c}"/></svg>`;
}
function cardHtml(name){
  if (name === null) return '<div class="card back"></div>';
  const s = name.slice(-1), f = name.slice(0, -1);
  return `<div class="card" title="${name}"><span class="f" style="color:${SUIT_COLOUR[s]}">${f}</span>${suitSvg(s)}</div>`;
}
let at = 0;
function sides(points){ return GAME.teams.map(t => t.reduce((a, s) => a + points[s], 0)).join(" - "); }
function show(i){
  at = Math.max(0, Math.min(GAME.frames.length - 1, i));
  const fr = GAME.frames[at];
  document.getElementById("pos").textContent = `${at} / ${GAME.frames.length - 1}`;
  document.getElementById("trump").textContent = fr.trump;
  document.getElementById("faceup").innerHTML = fr.face_up ? `face up: <b>${fr.face_up}</b>` : "";
  document.getElementById("stock").textContent = fr.stock_left;
  document.getElementById("score").textContent = sides(fr.points);
  const seats = document.getElementById("seats");
  seats.innerHTML = fr.hands.map((h, s) => {
    const cards = h === null ? Array(fr.hand_sizes[s]).fill(null) : h;
    return `<div class="seat"><div class="label">seat ${s} · ${GAME.seats[s]} · ${fr.points[s]} points</div>`
      + `<div class="cards">${cards.map(cardHtml).join("")}</div></div>`;
  }).join("");
  const trick = fr.trick.length ? fr.trick : (fr.last_trick || []);
  document.getElementById("table").innerHTML = trick.map(([s, c]) => `<div class="slot">${cardHtml(c)}seat ${s}</div>`).join("");
  document.getElementById("events").textContent = fr.events.join("\\n");
  document.getElementById("result").textContent = fr.over ? fr.result : "";
  if (location.hash !== "#" + at && !(at === GAME.frames.length - 1 && location.hash === "#end")) history.replaceState(null, "", "#" + at);
}
document.getElementById("first").onclick = () => show(0);
document.getElementById("prev").onclick = () => show(at - 1);
document.getElementById("next").onclick = () => show(at + 1);
document.getElementById("last").onclick = () => show(GAME.frames.length - 1);
document.addEventListener("keydown", e => {
  if (e.key === "ArrowLeft") show(at - 1);
  else if (e.key === "ArrowRight") show(at + 1);
  else if (e.key === "Home") show(0);
  else if (e.key === "End") show(GAME.frames.length - 1);
});
const h = location.hash.slice(1);
show(h === "end" ? GAME.frames.length - 1 : (parseInt(h, 10) || 0));
</script></body></html>
"""


def replay_page(record: GameRecord, seat: int | None = None, lang: str = "en", back: str | None = None) -> str:
    """The whole page as a string (the caller writes it); ``back`` is the relative link to the report
    the page belongs to, if any."""
    data = {"id": record.id, "variant": record.variant, "seats": record.seats, "teams": record.teams,
            "frames": [asdict(f) for f in frames(record, seat, lang)]}
    title = f"{record.id or 'game'} · {record.variant}" + (f" · seat {seat}'s view" if seat is not None else "")
    payload = json.dumps(data, separators=(",", ":")).replace("</", "<\\/")
    return _PAGE.replace("__TITLE__", html.escape(title)).replace("__DATA__", payload)
