"""One game between players: the referee asks, the players answer, failures become forfeits.

Timeouts and isolation are the hosts' business (``arena.hosting``); here every answer is checked and any
failure, whatever the kind of player, ends the deal as a renuncio with a reason.
"""

from __future__ import annotations

import hashlib
from typing import Any, Protocol, Sequence

from .actions import CODE
from .cards import shuffled
from .record import GameRecord
from .state import OVER, GameState, IllegalAction
from .variants import Variant
from .view import PlayerView


class Player(Protocol):
    """What a seat needs: ``choose``. ``new_game`` and ``game_over`` are optional."""

    def choose(self, view: PlayerView) -> str: ...


class BotFailure(Exception):
    """A host's report that its bot failed: ``reason`` is timeout, crash or protocol."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail


def shuffled_deck(variant: Variant, seed: int) -> list[int]:
    """The deck order for ``seed`` (``cards.shuffled``)."""
    return shuffled(variant.deck_size, seed)


def derive_seed(*parts: object) -> int:
    """A 63-bit seed from any names and numbers, by hashing: no shared RNG, so a game's seed depends
    only on what the game is, never on which worker plays it or in what order."""
    return _seed_of(_hasher(*parts))


def _hasher(*parts: object) -> Any:
    """The hash behind ``derive_seed``, fed with ``parts`` joined by ``/`` (more may be fed after)."""
    return hashlib.blake2b("/".join(map(str, parts)).encode(), digest_size=8)


def _seed_of(h: Any) -> int:
    return int.from_bytes(h.digest(), "big") >> 1


#: bits of the seed a bot is given: every language's JSON reads up to 2^53 exactly (a JavaScript number)
BOT_SEED_BITS = 53


def bot_seed(game_seed: int | None, seat: int) -> int | None:
    """The seed ``seat``'s bot is given for its own randomness: derived one way from the game's seed
    (which is the deck's: a bot given that could deal the deck again and see every hand), different per
    seat, and below 2^53 so that a bot in any language reads it exactly."""
    return _bot_seeds(game_seed, seat + 1)[seat]


def game_info(state: GameState, seat: int, game_id: str, seed: int | None, names: Sequence[str]) -> dict[str, Any]:
    """The ``new_game`` message for ``seat`` (docs/protocol.md): the rules, the seats, and the seat's own
    seed (``bot_seed``), never the deck's."""
    return game_infos(state, game_id, seed, names)[seat]


def game_infos(state: GameState, game_id: str, seed: int | None, names: Sequence[str]) -> list[dict[str, Any]]:
    """``game_info`` for every seat, made once per game. Each seat gets its own copy of everything (a
    bot may change what it is given); the seeds hash one prefix each (``bot_seed``, the same numbers)."""
    v = state.variant
    options = v.options()
    teams = [list(t) for t in v.teams]
    seeds = _bot_seeds(seed, v.players)
    return [{"game_id": game_id, "seed": seeds[s], "seat": s, "variant": v.name, "options": dict(options),
             "players": v.players, "teams": [list(t) for t in teams], "dealer": state.dealer, "seats": list(names)}
            for s in range(v.players)]


def _bot_seeds(game_seed: int | None, players: int) -> list[int | None]:
    """``bot_seed`` of seats 0 to ``players - 1``: ``derive_seed("bot", game_seed, seat)`` cut to
    ``BOT_SEED_BITS``, the hash of the common prefix ``bot/SEED/`` computed once."""
    if game_seed is None:
        return [None] * players
    head = _hasher("bot", game_seed, "")
    out: list[int | None] = []
    for s in range(players):
        h = head.copy()
        h.update(str(s).encode())
        out.append(_seed_of(h) >> (63 - BOT_SEED_BITS))
    return out


class UserInterrupt(KeyboardInterrupt):
    """The user's Ctrl-C (or SIGTERM), as the ``tute`` command's stop handler raises it."""


#: whether a plain KeyboardInterrupt out of a bot's call is the bot's own (``interrupts_are_bots``)
_BOTS_INTERRUPT = [False]


def interrupts_are_bots() -> None:
    """Said by a process whose user stops it only by ``UserInterrupt`` (the ``tute`` command, whose
    handler raises it) or not at all (a worker process, which ignores Ctrl-C; a cluster's worker
    thread): there a plain KeyboardInterrupt met in a bot's call can only be the bot's own (raised, or
    ``_thread.interrupt_main``), and is that seat's failure, as any exception is. It was let through as
    the user's: ``tute run`` ended in a traceback, ``tute play -j 1`` in 'interrupted' where ``-j 2``
    played on. Elsewhere (a library caller's own Ctrl-C) every KeyboardInterrupt passes through."""
    _BOTS_INTERRUPT[0] = True


def users_stop(exc: BaseException) -> bool:
    """Whether ``exc``, met in a call into a bot, is the user stopping the command rather than the bot
    failing: the one rule for every such call (a move, a deal's start or end, a report, a start)."""
    return isinstance(exc, KeyboardInterrupt) and (isinstance(exc, UserInterrupt) or not _BOTS_INTERRUPT[0])


def _said(exc: BaseException) -> str:
    """A plugin's exception as the record tells it: its ``repr`` is the plugin's code, and may fail."""
    try:
        return repr(exc)
    except BaseException:  # noqa: BLE001 - anything it raises says only that
        return f"a {type(exc).__name__} (its repr failed)"


def play_game(variant: Variant, deck: Sequence[int], dealer: int, players: Sequence[Player], *,
              game_id: str = "", seed: int | None = None, names: Sequence[str] | None = None,
              ask_forced: bool = False) -> GameRecord:
    """Play one deal to the end and return its record.

    A seat with a single legal action is not asked unless ``ask_forced``: the answer is known, and
    asking would only spend the bot's time. An exception from a player, a ``BotFailure`` from its host,
    a non-string or an illegal answer all end the deal as a forfeit of that seat.
    """
    if len(players) != variant.players:
        raise ValueError(f"{variant.name} needs {variant.players} players, got {len(players)}")
    names = list(names) if names else [type(p).__name__ for p in players]
    state = GameState.new(variant, deck, dealer)
    infos = game_infos(state, game_id, seed, names)
    # a failing new_game is the seat's forfeit at its first decision of the deal, as a bot in its own
    # process reports it (it has no answer to give before): the same record in-process or not, and
    # none in a deal the seat sits out (a cabrero dealer) or that ends before it is asked
    failed: dict[int, tuple[str, str]] = {}
    for seat, p in enumerate(players):
        hook = getattr(p, "new_game", None)
        if hook is not None:
            try:
                hook(infos[seat])
            except BotFailure as f:
                failed[seat] = (f.reason, f.detail)
            except BaseException as exc:  # a plugin's bug is its own forfeit, never the tournament's crash
                if users_stop(exc):
                    raise
                failed[seat] = ("crash", f"new_game raised {_said(exc)}")
    # the loop every decision of every game runs: its lookups made once (a fifth of its cost)
    view_of, legal_actions, apply = PlayerView.of, state.legal_actions, state.apply
    choosers = [p.choose for p in players]
    while state.phase != OVER:
        legal = legal_actions()
        if len(legal) == 1 and not ask_forced:
            apply(legal[0])
            continue
        seat = state.current
        if failed and seat in failed:
            state.forfeit(seat, *failed[seat])
            break
        view = view_of(state, seat)  # the referee's own work: a fault here is no seat's forfeit
        try:
            action = choosers[seat](view)
        except BotFailure as f:
            state.forfeit(seat, f.reason, f.detail)
            break
        except BaseException as exc:  # GeneratorExit too: a plugin never ends the command
            if users_stop(exc):
                raise
            state.forfeit(seat, "crash", f"choose raised {_said(exc)}")
            break
        if type(action) is not str:
            if not issubclass(type(action), str):
                # judged by its type alone: comparing it with the legal actions, or showing it, would run
                # the plugin's code (an ``__eq__``, ``__repr__`` or ``__class__`` that raises) in the referee
                state.forfeit(seat, "protocol", f"answered a {type(action).__name__}, not an action's text")
                break
            action = str.__str__(action)  # a str subclass may compare equal to anything: the plain text
        try:
            apply(action)
        except IllegalAction as exc:
            # an action of the notation that the rules forbid here is a renuncio; text that is no action
            # at all is a broken protocol
            state.forfeit(seat, "illegal" if action in CODE else "protocol", f"answered {action!r}: {exc}")
            break
    record = GameRecord.from_state(state, game_id=game_id, seed=seed, seats=names)
    result = record.result.to_json()
    for p in players:
        hook = getattr(p, "game_over", None)
        if hook is not None:
            try:
                hook(result)
            except BaseException as exc:  # noqa: BLE001 - the deal is decided; a failing goodbye changes nothing
                if users_stop(exc):
                    raise
    return record
