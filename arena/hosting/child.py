"""Run a Python bot plugin as a protocol-speaking process: the far end of the subprocess host.

    python -m arena.hosting.child ENTRYPOINT_OR_module:Class [--params JSON]

The referee starts this in a child process, so a plugin's crash, hang, memory hunger or stray prints
cannot touch the referee. The protocol travels on private copies of fds 0 and 1; the plugin's own
``sys.stdin`` is /dev/null and anything it writes to stdout (``print``, even ``os.write(1, ...)``) lands
on stderr, which the referee logs. A plugin can only speak through ``choose``'s return value.
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import select
import struct
import sys
import time
import traceback
from typing import Any, Iterator

from .loader import BotLoadError, make_bot, target_name
from ..protocol import PROTOCOL_VERSION, ProtocolError, ViewDecoder
from .codecs import CODEC_JSON, CODEC_PICKLE, PickleDecoder
from .inprocess import reported_stops


def _private_channels() -> tuple[int, int]:
    """Move the protocol off fds 0/1 and point those at /dev/null and stderr."""
    proto_in = os.dup(0)
    proto_out = os.dup(1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(2, 1)
    return proto_in, proto_out


class _Channel:
    def __init__(self, out_fd: int) -> None:
        self.fd = out_fd

    def send(self, msg: dict[str, Any]) -> None:
        try:
            data = json.dumps(msg, separators=(",", ":")).encode() + b"\n"
        except (TypeError, ValueError):  # choose returned something JSON cannot carry: not an action
            action = msg.get("action")
            try:
                shown = repr(action)[:200]
            except Exception:  # noqa: BLE001 - the plugin's own repr: its failure says no more
                shown = f"a {type(action).__name__} (its repr failed)"
            fallback: dict[str, Any] = {"action": {"unserializable": shown}}
            if "request" in msg:
                fallback["request"] = msg["request"]
            data = json.dumps(fallback).encode() + b"\n"
        self.write(data)

    def write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            n = os.write(self.fd, view)
            view = view[n:]


#: how long the bot's end waits for the next message by polling (yielding the CPU between polls) before
#: it sleeps in ``select``: a process woken from sleep costs tens of microseconds on a virtual machine,
#: far more than the referee's work between two decisions of one seat
SPIN_S = 200e-6


class _Reader:
    """Messages from the referee's pipe: lines (JSON codec) or length-prefixed frames (pickle codec)."""

    def __init__(self, fd: int, spin_s: float = SPIN_S) -> None:
        self.fd = fd
        self.spin_s = spin_s
        self.buf = bytearray()
        os.set_blocking(fd, False)

    def _fill(self) -> bool:
        """Read what has arrived (waiting if nothing has); False at end of input."""
        fd = self.fd
        start = 0.0
        while True:
            try:
                chunk = os.read(fd, 1 << 16)
            except BlockingIOError:
                now = time.perf_counter()
                if not start:
                    start = now
                if now - start < self.spin_s:
                    os.sched_yield()
                else:
                    select.select([fd], [], [])
                    start = 0.0
                continue
            if not chunk:
                return False
            self.buf += chunk
            return True

    def lines(self) -> Iterator[bytes]:
        buf = self.buf
        while True:
            i = buf.find(b"\n")
            if i < 0:
                if not self._fill():
                    if buf:
                        yield bytes(buf)
                    return
                buf = self.buf
                continue
            line = bytes(buf[:i])
            del buf[:i + 1]
            yield line

    def frames(self) -> Iterator[bytes]:
        buf = self.buf
        unpack = struct.Struct(">I").unpack_from
        while True:
            if len(buf) >= 4:
                (n,) = unpack(buf)
                if len(buf) >= 4 + n:
                    data = bytes(buf[4:4 + n])
                    del buf[:4 + n]
                    yield data
                    continue
            if not self._fill():
                return
            buf = self.buf


def _json_messages(reader: _Reader) -> Iterator[Any]:
    loads = json.loads
    for line in reader.lines():
        if not line.strip():
            continue
        try:
            yield loads(line)
        except ValueError:
            print(f"arena.hosting.child: ignoring a line that is not JSON: {line[:200]!r}", file=sys.stderr)


def _pickle_messages(reader: _Reader) -> Iterator[Any]:
    """Length-prefixed pickles from the referee (``--codec pickle``): dicts for control messages,
    tuples for ``act``."""
    loads = pickle.loads
    for data in reader.frames():
        yield loads(data)


def serve(spec: str, params: dict[str, Any], codec: str = CODEC_JSON, spin_s: float = SPIN_S) -> int:
    """The protocol loop; returns the exit status."""
    in_fd, out_fd = _private_channels()
    reader = _Reader(in_fd, spin_s)
    chan = _Channel(out_fd)
    bot: Any = None
    load_error = ""
    try:
        bot = make_bot(spec, params)
    except BotLoadError as exc:
        load_error = str(exc)
    except BaseException as exc:  # noqa: BLE001 - whatever a plugin's import does, report it in one line
        load_error = f"bot {spec!r}: {exc!r}"
    if codec == CODEC_PICKLE:
        decoder: Any = PickleDecoder()
        messages = _pickle_messages(reader)
    else:
        decoder = ViewDecoder()
        messages = _json_messages(reader)
    pending_error = ""
    choose = getattr(bot, "choose", None)
    send = chan.send
    for msg in messages:
        request: Any = None
        if isinstance(msg, tuple):  # the pickle codec's act
            kind: Any = "act"
            raw_view: Any = msg
            request = msg[6] if len(msg) > 6 else None
        elif isinstance(msg, dict):
            kind = msg.get("type")
            raw_view = msg.get("view")
            request = msg.get("request")
        else:
            print(f"arena.hosting.child: ignoring a message that is not an object: {str(msg)[:200]!r}", file=sys.stderr)
            continue
        if kind == "act":
            if pending_error:
                send({"type": "error", "message": pending_error})
                pending_error = ""
                continue
            try:
                view = decoder.view(raw_view)
                action = choose(view)  # type: ignore[misc]
            except ProtocolError as exc:
                send({"type": "error", "message": f"arena.hosting.child: {exc}"})
                continue
            except BaseException as exc:  # noqa: BLE001 - the plugin's failure is its forfeit, reported
                traceback.print_exc(file=sys.stderr)
                send({"type": "error", "message": f"choose raised {exc!r}"})
                if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                    return 1
                continue
            echo = b"" if request is None else b',"request":' + str(int(request)).encode()
            stops = reported_stops(bot)  # optional (docs/bots.md): sent with the answer when the bot keeps it
            if stops is not None:
                echo += b',"clock_stops":' + str(stops).encode()
            if type(action) is str:  # the request number echoed: the referee knows which act this answers
                chan.write(b'{"action":' + json.dumps(action).encode() + echo + b"}\n")
            else:
                answer = {"action": action} if request is None else {"action": action, "request": request}
                send(answer if stops is None else dict(answer, clock_stops=stops))
        elif kind == "new_game":
            decoder.new_game(msg)
            # a failure of the last deal's new_game belongs to that deal: if it ended before this seat
            # was asked (another seat's forfeit, a dealer sitting out), it is not carried into this one
            pending_error = ""
            hook = getattr(bot, "new_game", None)
            if hook is not None:
                info = {k: v for k, v in msg.items() if k != "type"}
                try:
                    hook(info)
                except BaseException as exc:  # noqa: BLE001
                    traceback.print_exc(file=sys.stderr)
                    pending_error = f"new_game raised {exc!r}"
        elif kind == "game_over":
            hook = getattr(bot, "game_over", None)
            if hook is not None:
                try:
                    hook(msg.get("result"))
                except BaseException:  # noqa: BLE001 - the deal is decided; log and go on
                    traceback.print_exc(file=sys.stderr)
        elif kind == "hello":
            if load_error:
                send({"type": "error", "message": load_error})
                return 2
            name = getattr(bot, "name", None)
            send({"type": "hello", "name": name if isinstance(name, str) else spec,
                  "protocol": PROTOCOL_VERSION, "class": target_name(type(bot)), "codec": codec})
        elif kind == "quit":
            return 0
        else:
            print(f"arena.hosting.child: ignoring message of unknown type {kind!r}", file=sys.stderr)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m arena.hosting.child",
                                     description="Serve a Python bot plugin over the tute-arena protocol.")
    parser.add_argument("bot", help="entry point name (group tute_arena.bots) or module:Class")
    parser.add_argument("--params", default="{}", help="JSON object of keyword parameters for the bot")
    parser.add_argument("--codec", choices=(CODEC_JSON, CODEC_PICKLE), default=CODEC_JSON,
                        help="json: the documented JSON lines (default); pickle: the referee's private "
                             "framing for its own plugin hosts (see arena/protocol.py)")
    parser.add_argument("--spin-us", type=float, default=SPIN_S * 1e6,
                        help="microseconds to poll for the next message before sleeping (0: sleep at once)")
    args = parser.parse_args(argv)
    try:
        params = json.loads(args.params)
        if not isinstance(params, dict):
            raise ValueError("not an object")
    except ValueError as exc:
        print(f"arena.hosting.child: --params must be a JSON object: {exc}", file=sys.stderr)
        return 2
    return serve(args.bot, params, args.codec, max(0.0, args.spin_us) / 1e6)


def _without_cwd() -> None:
    """Drop the current folder that ``python -m`` puts first on the import path, unless the referee's
    own path holds it (``child_env`` passes that on as PYTHONPATH): a ``module:Class`` resolves here
    as it does in the referee, where the current folder is not searched (docs/bots.md), so ``tute
    play`` and ``tute bots check`` accept what ``tute run`` would refuse no more."""
    given = {os.path.abspath(p) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p}
    if sys.path and os.path.abspath(sys.path[0] or ".") == os.getcwd() and os.getcwd() not in given:
        del sys.path[0]


if __name__ == "__main__":
    _without_cwd()
    sys.exit(main())
