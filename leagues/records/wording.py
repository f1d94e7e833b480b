"""Everything a replay or a game list says in words, in English and Spanish, for every variant.

The text replay, the HTML page and ``tute games`` all take their sentences from here, so a result is
described the same way everywhere, and a variant's own wording (a contract made or failed, the losers
of a cabrón deal and why) is written once. Cards stay in the short notation (``3c``); the text replay
may spell them out afterwards (``render_line``), the page draws them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from arena.cards import NO_SUIT, SUIT_NAMES_EN, SUIT_NAMES_ES, SUITS
from arena.matchplay import decided_by
from arena.record_schema import escaped
from arena.result import GameResult, sides_in_play, thrown_in

LANGS = ("en", "es")
SUIT_WORDS = {"en": SUIT_NAMES_EN, "es": SUIT_NAMES_ES}

_EN = {
    "seat": "seat {s}", "dup": "{name} (seat {s})", "and": " and ", "seats": "{name} (seats {seats})",
    "deal": "{variant}: {dealer} deals; players: {players}",
    "sits_out": "{who} sits this deal out",
    "trump_card": "trump: {suit} (the {card} shows it)",
    "trump_none": "trump: none yet",
    "trump_auction": "trump: named by the winner of the auction",
    "trump_pairs": "trump: none until a trick holds the 12 and the 11 of one suit",
    "holds": "{who} holds {cards}",
    "to_play": "{who} to move, holding {cards}",
    "plays": "{who} plays {card}",
    "trick": "trick {n}: {who} wins it (+{pts}); score {score}",
    "takes_face_up": "{who} takes the face-up {card}",
    "draws": "{who} draws {card}",
    "draws_hidden": "{who} draws a card",
    "sings": "{who} sings the {pts} in {suit}: 12{s} and 11{s} (+{pts})",
    "exchange": "{who} exchanges {gave} for the face-up {took}",
    "tute": "{who} declares Tute of {face} (all four {n}s)",
    "kings": "kings", "knights": "knights",
    "pass": "{who} passes", "bid": "{who} bids {n}", "names_trump": "{who} names {suit} trump",
    "pair": "the trick holds the 12 and the 11 of {suit}: {who} scores {pts}; {suit} is trump from the next trick",
    "lost_cante": "{who} can no longer sing {suit}",
    "result": "result: {text}",
    "none": "none yet", "pile": "pile", "score": "score",
    # results
    "win": "{who} wins", "win_pl": "{who} win", "share": "{who} share first place",
    "on_points": "{win} on points {score}",
    "tie_last": "{win} on points {score}: tied, the last trick decides",
    "match": "the match of {deals} deals, {measure} {score}: {win}",
    "match_1": "the match of 1 deal, {measure} {score}: {win}",
    "m_letters": "letters lost", "m_points": "points", "m_wins": "deals won",
    "by_tute": "{win} by a Tute of {face} declared by {by} ({score})",
    "forfeit": "{who} forfeits ({reason}: {detail}); {rest}",
    "forfeit_rest": "{win} ({score})",
    "made": "{side} (declarer {declarer}, bid {bid} in {suit}) made the contract: {points} of {bid}",
    "failed": "{side} (declarer {declarer}, bid {bid} in {suit}) failed the contract: {points} of {bid}",
    "redeal": "everyone passed: the deal is thrown in",
    "lose": "{who} loses", "lose_pl": "{who} lose",
    "middle": "{lose}: in the middle on points {score}",
    "no_trick": "{lose}: no trick taken ({score})",
    "over_points": "{lose}: over {limit} points ({score})",
    "over_the_limit": "{lose}: over the points limit ({score})",
    "capote": "{lose}: {by} took every trick ({score})",
    "capote_after_cante": "{lose}: a capote after a cante loses ({score})",
    "sat_out": "{who} sat out",
    "key_hint": "(Enter: next trick, q then Enter: stop)",
    "game": "game {id}", "seen_by": "game {id} as seen by {who}",
    # the HTML page's own labels
    "ui": {"trump": "trump", "face_up": "face up", "pile": "pile", "score": "score", "tricks": "tricks",
           "trick": "trick", "leader": "leads", "winner": "wins", "points": "points", "to_move": "to move",
           "auction": "auction", "contract": "contract", "pairs": "pair tricks (trump changes)",
           "team": "team", "sits_out": "sits out", "loser": "loses", "back": "back to the report",
           "play": "play", "pause": "pause", "speed": "speed", "first": "first", "prev": "previous",
           "next": "next", "last": "last", "score_line": "score over the deal", "pass": "pass",
           "keys": "Keys: \u2190 \u2192 step, Home / End first / last, Space play / pause, + / - speed, "
                   "T next trick",
           "hidden": "hidden card", "view_of": "as seen by", "none": "none yet", "declarer": "declarer",
           "bid": "bid", "frame": "step", "home": "Home", "end": "End", "cards": "cards",
           "hands": "hands", "table": "table", "events": "what happened", "of": "of", "is_trump": "trump",
           "hidden_cards": "{n} hidden cards", "hidden_card_one": "1 hidden card", "card_one": "card",
           "replay": "replay",
           "face_1": "ace", "face_10": "jack", "face_11": "knight", "face_12": "king",
           "noscript": "This replay steps through the deal with JavaScript, which is off here: turn it on to "
                       "see the deal (tute replay without --html shows it as text)."},
    # forfeit reasons
    "illegal": "an illegal move", "timeout": "out of time", "crash": "a crash", "protocol": "a protocol error",
}

_ES = {
    "seat": "asiento {s}", "dup": "{name} (asiento {s})", "and": " y ", "seats": "{name} (asientos {seats})",
    "deal": "{variant}: reparte {dealer}; jugadores: {players}",
    "sits_out": "{who} descansa esta mano",
    "trump_card": "triunfo: {suit} (lo muestra el {card})",
    "trump_none": "triunfo: ninguno todavía",
    "trump_auction": "triunfo: lo elige quien gane la subasta",
    "trump_pairs": "triunfo: ninguno hasta que una baza lleve el rey y el caballo de un palo",
    "holds": "{who} tiene {cards}",
    "to_play": "le toca a {who}, que tiene {cards}",
    "plays": "{who} juega {card}",
    "trick": "baza {n}: la gana {who} (+{pts}); tanteo {score}",
    "takes_face_up": "{who} se lleva la vuelta, {card}",
    "draws": "{who} roba {card}",
    "draws_hidden": "{who} roba una carta",
    "sings": "{who} canta las {pts} en {suit}: 12{s} y 11{s} (+{pts})",
    "exchange": "{who} cambia {gave} por la vuelta, {took}",
    "tute": "{who} canta tute de {face} (los cuatro {n})",
    "kings": "reyes", "knights": "caballos",
    "pass": "{who} pasa", "bid": "{who} puja {n}", "names_trump": "{who} elige {suit} como triunfo",
    "pair": "la baza lleva el rey y el caballo de {suit}: {who} se apunta {pts}; {suit} es triunfo desde la "
            "siguiente baza",
    "lost_cante": "{who} ya no puede cantar en {suit}",
    "result": "resultado: {text}",
    "none": "ninguno todavía", "pile": "mazo", "score": "tanteo",
    "win": "gana {who}", "win_pl": "ganan {who}", "share": "{who} comparten el primer puesto",
    "on_points": "{win} por puntos, {score}",
    "tie_last": "{win} por puntos, {score}: empate, decide la última baza",
    "match": "la partida de {deals} manos, {measure} {score}: {win}",
    "match_1": "la partida de 1 mano, {measure} {score}: {win}",
    "m_letters": "letras perdidas", "m_points": "puntos", "m_wins": "manos ganadas",
    "by_tute": "{win} con tute de {face} cantado por {by} ({score})",
    "forfeit": "{who} pierde por {reason} ({detail}); {rest}",
    "forfeit_rest": "{win} ({score})",
    "made": "{side} (declara {declarer}, puja {bid} a {suit}) cumplen el contrato: {points} de {bid}",
    "failed": "{side} (declara {declarer}, puja {bid} a {suit}) no cumplen el contrato: {points} de {bid}",
    "redeal": "todos pasan: se vuelve a repartir",
    "lose": "pierde {who}", "lose_pl": "pierden {who}",
    "middle": "{lose}: quedan en medio a puntos, {score}",
    "no_trick": "{lose}: ninguna baza ({score})",
    "over_points": "{lose}: más de {limit} puntos ({score})",
    "over_the_limit": "{lose}: por encima del límite de puntos ({score})",
    "capote": "{lose}: {by} hizo todas las bazas ({score})",
    "capote_after_cante": "{lose}: capote después de cantar ({score})",
    "sat_out": "{who} descansó",
    "key_hint": "(Intro: siguiente baza; q e Intro: parar)",
    "game": "partida {id}", "seen_by": "partida {id} vista por {who}",
    "ui": {"trump": "triunfo", "face_up": "vuelta", "pile": "mazo", "score": "tanteo", "tricks": "bazas",
           "trick": "baza", "leader": "sale", "winner": "gana", "points": "puntos", "to_move": "le toca",
           "auction": "subasta", "contract": "contrato", "pairs": "bazas con pareja (cambios de triunfo)",
           "team": "pareja", "sits_out": "descansa", "loser": "pierde", "back": "volver al informe",
           "play": "reproducir", "pause": "pausa", "speed": "velocidad", "first": "principio",
           "prev": "anterior", "next": "siguiente", "last": "final", "score_line": "tanteo a lo largo de la mano",
           "pass": "paso",
           "keys": "Teclas: \u2190 \u2192 avanzar, Inicio / Fin principio / final, Espacio reproducir / pausa, "
                   "+ / - velocidad, T siguiente baza",
           "hidden": "carta oculta", "view_of": "vista por", "none": "ninguno todavía", "declarer": "declara",
           "bid": "puja", "frame": "paso", "home": "Inicio", "end": "Fin", "cards": "cartas",
           "hands": "manos", "table": "mesa", "events": "qué pasó", "of": "de", "is_trump": "triunfo",
           "hidden_cards": "{n} cartas ocultas", "hidden_card_one": "1 carta oculta", "card_one": "carta",
           "replay": "repetición",
           "face_1": "as", "face_10": "sota", "face_11": "caballo", "face_12": "rey",
           "noscript": "Esta repetición recorre la mano con JavaScript, que aquí está desactivado: actívelo "
                       "para ver la mano (tute replay sin --html la muestra como texto)."},
    "illegal": "jugada ilegal", "timeout": "tiempo agotado", "crash": "fallo del programa",
    "protocol": "error de protocolo",
}

PHRASES: dict[str, dict[str, Any]] = {"en": _EN, "es": _ES}
FACE_OF_TUTE = {12: "kings", 11: "knights"}


def suit_word(suit: int | str, lang: str = "en") -> str:
    """A suit (index or letter) in words; ``NO_SUIT`` reads "none yet"."""
    if isinstance(suit, str):
        suit = SUITS.index(suit)
    if suit == NO_SUIT:
        return PHRASES[lang]["none"]
    return SUIT_WORDS[lang][suit]


#: Unicode's first-strong isolate and pop directional isolate: a name between them is laid out on its
#: own, so a right-to-left name does not carry the words and numbers around it into its direction (a
#: Hebrew name followed by " · 12 points" drew the 12 left of the name); a name itself may hold no
#: bidi control (``arena.record_schema.CONTROL``), so these are always the page's own
FSI, PDI = "\u2068", "\u2069"


def isolated(text: str) -> str:
    """``text`` as one isolated run in the page's text (see ``FSI``)."""
    return f"{FSI}{text}{PDI}"


def seat_labels(names: Sequence[str], lang: str = "en") -> list[str]:
    """How each seat is called: its bot's name, with the seat number where two seats share a name."""
    p = PHRASES[lang]
    return [p["dup"].format(name=n, s=s) if names.count(n) > 1 else n for s, n in enumerate(names)]


@dataclass(frozen=True)
class Words:
    """The sentences of one language for one game's seats."""
    lang: str
    labels: tuple[str, ...]
    names: tuple[str, ...] = ()
    isolate: bool = False

    @classmethod
    def of(cls, names: Sequence[str], lang: str = "en", isolate: bool = False) -> "Words":
        """``isolate``: every name, and every text a bot wrote, between ``FSI`` and ``PDI`` (for a page;
        a terminal may show the two marks, so the text replay goes without)."""
        shown = [isolated(n) for n in names] if isolate else list(names)
        return cls(lang, tuple(seat_labels(shown, lang)), tuple(shown), isolate)

    def free(self, text: str) -> str:
        """Text from a bot (a forfeit's detail), isolated as a name is, its controls as escapes: on a
        terminal an escape sequence would act, and a newline split a listing's row of one game."""
        text = escaped(text)
        return isolated(text) if self.isolate else text

    def __call__(self, key: str, **kw: object) -> str:
        return str(PHRASES[self.lang][key]).format(**kw)

    def who(self, seat: int) -> str:
        return self.labels[seat]

    def group(self, seats: Sequence[int]) -> str:
        """Seats as one subject: "greedy", "greedy and random", "a, b and c"."""
        own = {self.names[s] for s in seats} if self.names else set()
        if len(seats) > 1 and len(own) == 1 and self.names.count(next(iter(own))) == len(seats):
            return self("seats", name=next(iter(own)), seats="+".join(map(str, seats)))  # a pairs side
        names = [self.labels[s] for s in seats]
        if len(names) <= 1:
            return "".join(names)
        return ", ".join(names[:-1]) + self("and") + names[-1]

    def suit(self, suit: int | str) -> str:
        return suit_word(suit, self.lang)


def result_text(result: GameResult, teams: Sequence[Sequence[int]], words: Words, limit: int) -> str:
    """What happened, in one sentence that names the variant's own reason: who won and how, whose
    contract was made or failed and by how much, who lost a deal with losers and by which rule.
    ``limit`` is cabrón's points limit, the variant's ``over_points_loses`` (the record keeps only who
    lost by it; 0 where the variant is not known), for the sentence only."""
    w = words
    # a dealer who sat the deal out (cabrero-5/6) ranks first in the record but played no card: no winner
    sides = [t for t in sides_in_play(teams, result.sit_out) if t]
    side_of = {s: i for i, t in enumerate(sides) for s in t}
    side_points = [sum(result.points[s] for s in t) for t in sides]
    score = "-".join(map(str, side_points))
    first = [t for t in sides if result.ranks[t[0]] == 0]
    winners = [s for t in first for s in t]

    def win() -> str:
        if len(first) > 1:
            return w("share", who=w.group(winners))
        return w("win" if len(winners) == 1 else "win_pl", who=w.group(winners))

    if result.forfeit is not None:
        f = result.forfeit
        rest = w("forfeit_rest", win=win(), score=score)
        reason = PHRASES[w.lang].get(f.reason, f.reason)
        text = w("forfeit", who=w.who(f.seat), reason=reason, detail=w.free(f.detail) if f.detail else "-", rest=rest)
        return text + ("; " + w("sat_out", who=w.who(result.sit_out)) if result.sit_out is not None else "")
    if result.match is not None:  # said by what decided it, not by the points over its deals
        measure, values = decided_by(result.match)
        listed = ("-" if min(values, default=0) >= 0 else ", ").join(map(str, values))  # a failed bid: -60
        deals = result.match.get("deals", "?")
        text = w("match_1" if deals == 1 else "match", deals=deals, measure=w("m_" + measure), score=listed,
                 win=win())
        return text + ("; " + w("sat_out", who=w.who(result.sit_out)) if result.sit_out is not None else "")
    if result.reason == "tute" and result.tute:
        return w("by_tute", win=win(), face=w(FACE_OF_TUTE.get(result.tute["face"], "kings")),
                 by=w.who(result.tute["seat"]), score=score)
    if result.contract is not None or thrown_in(result):
        c = result.contract or {}
        if thrown_in(result) or c.get("made") is None:
            return w("redeal")
        d = c["seat"]
        side = sides[side_of[d]]
        key = "made" if c["made"] else "failed"
        return w(key, side=w.group(side), declarer=w.who(d), bid=c["bid"], suit=w.suit(c["trump"]),
                 points=side_points[side_of[d]])
    if result.losers is not None:
        losers = list(result.losers)
        lose = w("lose" if len(losers) == 1 else "lose_pl", who=w.group(losers))
        points = "-".join(str(p) for s, p in enumerate(result.points) if s != result.sit_out)
        if result.reason in ("capote", "capote_after_cante"):
            taker = max((s for s in range(len(result.points)) if s != result.sit_out and s not in losers),
                        key=lambda s: result.points[s], default=losers[0])
            by = losers[0] if result.reason == "capote_after_cante" else taker
            text = w(result.reason, lose=lose, by=w.who(by), score=points)
        elif result.reason in ("middle", "no_trick", "over_points"):
            # a game whose variant is not known here (limit 0) is not given a number
            reason = "over_the_limit" if result.reason == "over_points" and limit <= 0 else result.reason
            text = w(reason, lose=lose, score=points, limit=limit)
        else:
            text = f"{lose} ({result.reason}, {points})"
        if result.sit_out is not None:
            text += "; " + w("sat_out", who=w.who(result.sit_out))
        return text
    if len(first) == 1 and len(set(side_points)) < len(side_points) and side_points.count(max(side_points)) > 1:
        return w("tie_last", win=win(), score=score)
    return w("on_points", win=win(), score=score)


def result_of(result: GameResult, names: Sequence[str], teams: Sequence[Sequence[int]], lang: str = "en", *,
              limit: int, isolate: bool = False) -> str:
    """``result_text`` for a game known by its seat names (``tute games``; ``isolate`` for a page)."""
    return result_text(result, teams, Words.of(names, lang, isolate), limit)

