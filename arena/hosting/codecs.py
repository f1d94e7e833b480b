"""The plugin codec: the protocol's messages as length-prefixed pickles, for the referee's own children.

Between the referee and its own ``python -m arena.hosting.child`` (both ends this package, both trusted
by the referee) the same messages travel as length-prefixed pickles instead of JSON lines: the child is
started with ``--codec pickle``, every referee-to-bot message is ``4-byte big-endian length + pickle``,
and an ``act`` carries the view's public fields (``arena.public.FIELDS``) with only the tricks finished
since the previous ``act``. This cuts the isolation cost of a Python plugin to a few microseconds over
the bare pipe; the child's answers are the documented JSON lines, and the referee never unpickles
anything a bot wrote.
"""

from __future__ import annotations

import pickle as _pickle
import struct as _struct
from operator import attrgetter
from typing import Any

from ..protocol import ProtocolError, rules_of
from ..public import NAMES_OF_FIELDS, PHASES
from ..variants import Variant
from ..view import PlayerView

CODEC_JSON = "json"
CODEC_PICKLE = "pickle"
_LEN = _struct.Struct(">I")
_PHASES = PHASES
_PHASE_INDEX = {p: i for i, p in enumerate(_PHASES)}


def frame(obj: Any) -> bytes:
    data = _pickle.dumps(obj, protocol=_pickle.HIGHEST_PROTOCOL)
    return _LEN.pack(len(data)) + data


#: the fields an ``act`` carries in the plugin codec, in ``arena.public.FIELDS`` order; the finished
#: tricks travel apart (only those new since the last ``act``) and the phase as its index
_PICKLED = tuple(f for f in NAMES_OF_FIELDS if f not in ("tricks", "phase"))
_pickled_values = attrgetter(*_PICKLED)


class PickleEncoder:
    """The referee's end of the plugin codec: one per host, remembering the tricks already sent."""

    __slots__ = ("_tricks", "_variant")

    def __init__(self) -> None:
        self._tricks: tuple[Any, ...] = ()
        self._variant: Variant | None = None

    def act_message(self, view: PlayerView, time_ms: int, request: int | None = None) -> bytes:
        tricks = view.tricks
        prev = self._tricks
        new: tuple[Any, ...]
        n = len(prev)
        if tricks is prev:
            start, new = n, ()
        elif len(tricks) >= n and (n == 0 or tricks[n - 1] is prev[n - 1] or tricks[:n] == prev):
            start, new = n, tricks[n:]
        else:
            start, new = 0, tricks
        self._tricks = tricks
        rules = None
        if view.variant is not self._variant:  # the rules travel once, and again whenever they change
            self._variant = view.variant
            rules = (view.variant.name, view.variant.options())
        data = _pickle.dumps((time_ms, rules, _PHASE_INDEX[view.phase], start, new, _pickled_values(view), request),
                             5)
        return _LEN.pack(len(data)) + data


class PickleDecoder:
    """The bot's end of the plugin codec (``--codec pickle``)."""

    def __init__(self) -> None:
        self.variant: Variant | None = None
        self._tricks: tuple[Any, ...] = ()

    def new_game(self, info: dict[str, Any]) -> None:
        self.variant = rules_of(info)
        self._tricks = ()

    def view(self, t: tuple[Any, ...]) -> PlayerView:
        _, rules, phase, start, new, values = t[:6]  # t[6]: the request number, echoed by the child
        if rules is not None:
            self.variant = Variant.from_options(rules[0], rules[1])
        if self.variant is None:
            raise ProtocolError("an act without the rules: none were sent")
        view = PlayerView.__new__(PlayerView)
        for name, value in zip(_PICKLED, values):
            setattr(view, name, value)
        view.phase = _PHASES[phase]
        view.variant = self.variant
        if start == 0:
            self._tricks = tuple(new)
        elif new:
            self._tricks = self._tricks[:start] + tuple(new)
        view.tricks = self._tricks
        return view
