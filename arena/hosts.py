"""Bot hosts: one ``Player`` interface for a bot in this process, a plugin in its own process, or any
external program speaking the protocol.

``make_player`` is the one door: it reads what the user named (an entry point, ``module:Class`` or a
command) and returns a player with ``choose(view)``, ``new_game(info)``, ``game_over(result)``,
``close()``, ``name`` and ``describe()``. Which bots may run in-process is a trust decision: only the
bots shipped with tute-arena do, by default; everything else is isolated.

The subprocess hosts turn every misbehaviour into ``BotFailure(reason, detail)`` (``timeout``, ``crash``
or ``protocol``), which ``play_game`` scores as a renuncio. They wait with ``poll`` on the pipe and a
deadline (no thread per move), cap the child's address space with ``RLIMIT_AS``, log a capped amount of
its stderr, kill it (its whole process group) after any failure and start it again before its next game.
"""

from __future__ import annotations

import collections
import json
import logging
import os
import resource
import select
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Sequence

from .loader import BotLoadError, installed_bots, make_bot
from .match import BotFailure
from .protocol import (CODEC_JSON, CODEC_PICKLE, HELLO, PROTOCOL_VERSION, QUIT, BotReportedError, PickleEncoder,
                       ProtocolError, ViewEncoder, frame, game_over_message, new_game_message, parse_answer,
                       parse_hello)
from .view import PlayerView

log = logging.getLogger("arena.hosts")
log.addHandler(logging.NullHandler())  # a library logs; the application decides where it goes

ISOLATIONS = ("auto", "inprocess", "subprocess")
#: the distribution whose own bots are trusted to run in-process under ``isolation="auto"``
TRUSTED_DISTRIBUTION = "tute-arena"
#: added to the per-move limit: the pipe, the JSON and the scheduler are not the bot's fault
GRACE_MS = 50
#: time to start and answer the hello (a Python interpreter and a plugin's imports)
STARTUP_MS = 15000
#: stderr bytes logged per bot process; the rest is counted and dropped
STDERR_CAP = 64 * 1024
_TAIL = 2048
#: how long the referee polls for an answer (yielding the CPU) before it sleeps in ``poll``
SPIN_S = 150e-6


@dataclass(frozen=True)
class BotSpec:
    """What a user's bot name resolved to, for listings, logs and the store."""

    #: ``entrypoint``, ``module`` or ``command``
    kind: str
    #: the name given (entry point name, ``module:Class`` or the command line)
    name: str
    #: ``module:Class`` for Python bots, the argv for commands
    target: str | tuple[str, ...]
    #: distribution that announced it (entry points), else ``module`` / ``command``
    origin: str
    version: str
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def trusted(self) -> bool:
        return self.kind == "entrypoint" and self.origin == TRUSTED_DISTRIBUTION


def is_command(bot: str | Sequence[str]) -> bool:
    """A list is a command; so is a string that starts with ``./``, ``../``, ``/`` or ``~`` or that
    contains whitespace (``"python3 examples/random_bot.py"``). Any other string names a Python bot."""
    if not isinstance(bot, str):
        return True
    b = bot.strip()
    return b.startswith(("./", "../", "/", "~")) or any(ch.isspace() for ch in b)


def resolve_spec(bot: str | Sequence[str], params: dict[str, Any] | None = None) -> BotSpec:
    """Resolve a bot name without importing or starting it; unknown names raise BotLoadError."""
    params = dict(params or {})
    if is_command(bot):
        argv = tuple(shlex.split(bot)) if isinstance(bot, str) else tuple(str(a) for a in bot)
        if not argv:
            raise BotLoadError("empty bot command")
        argv = (os.path.expanduser(argv[0]),) + argv[1:]
        exe = argv[0]
        if os.sep in exe:
            if not (os.path.isfile(exe) and os.access(exe, os.X_OK)):
                raise BotLoadError(f"bot command {shlex.join(argv)!r}: {exe} is not an executable file")
        elif shutil.which(exe) is None:
            raise BotLoadError(f"bot command {shlex.join(argv)!r}: {exe} not found on PATH")
        name = bot if isinstance(bot, str) else shlex.join(argv)
        return BotSpec("command", name, argv, "command", "", params)
    name = str(bot).strip()  # not a command: a string
    if ":" in name:
        return BotSpec("module", name, name, "module", "", params)
    bots = installed_bots()
    if name not in bots:
        known = ", ".join(bots) or "none installed"
        raise BotLoadError(f"unknown bot {name!r} (installed: {known}; or give module:Class or a command)")
    info = bots[name]
    return BotSpec("entrypoint", name, info.target, info.origin, info.version, params)


# ===================================================================================== in-process
class InProcessHost:
    """A trusted Python bot called directly: no copy, no pipe. The view is a fresh object per decision
    holding only immutable referee values, so even a careless bot cannot change the game."""

    def __init__(self, bot: Any, name: str, spec: BotSpec | None = None) -> None:
        self.bot = bot
        self.name = name
        self.spec = spec
        self.choose = bot.choose  # the hot path: no wrapper call
        self._new_game = getattr(bot, "new_game", None)
        self._game_over = getattr(bot, "game_over", None)

    def new_game(self, info: dict[str, Any]) -> None:
        if self._new_game is not None:
            self._new_game(info)

    def game_over(self, result: dict[str, Any]) -> None:
        if self._game_over is not None:
            self._game_over(result)

    def start(self) -> None:
        """Nothing to start: the bot was built when the host was."""

    def close(self) -> None:
        closer = getattr(self.bot, "close", None)
        if callable(closer):
            try:
                closer()
            except Exception:  # noqa: BLE001 - closing must never fail a run
                log.exception("bot %s: close() raised", self.name)

    def describe(self) -> str:
        target = self.spec.target if self.spec else type(self.bot).__name__
        return f"{self.name} (in-process, {target})"

    def __enter__(self) -> "InProcessHost":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# ===================================================================================== subprocess
def _load_prctl() -> Any:
    """``prctl`` from libc (Linux), loaded once here: a preexec function must not import anything."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl
    except (OSError, AttributeError, ImportError):
        return None


_PRCTL = _load_prctl() if sys.platform.startswith("linux") else None
_PR_SET_PDEATHSIG = 1


def _limit_memory(memory_mb: int) -> Any:
    limit = memory_mb * 1024 * 1024

    def preexec() -> None:  # runs in the child between fork and exec: syscalls only, no imports, no locks
        if _PRCTL is not None:  # die with the referee, even if it is killed with SIGKILL
            _PRCTL(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        try:
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        except (ValueError, OSError):
            pass
        try:
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        except (ValueError, OSError):
            pass

    return preexec


class _StderrPump(threading.Thread):
    """Drains a child's stderr into the log (capped) and keeps its tail for failure reports.

    A thread per process, not per move: a bot that writes megabytes to stderr must never block on a
    full pipe, and reading it costs the decision loop nothing."""

    def __init__(self, fd: int, logger: logging.Logger, cap: int) -> None:
        super().__init__(daemon=True, name=f"stderr-{logger.name}")
        self.fd = fd
        self.logger = logger
        self.cap = cap
        self.logged = 0
        self.dropped = 0
        self.tail: collections.deque[bytes] = collections.deque()
        self.tail_len = 0
        self._partial = b""

    def run(self) -> None:
        try:
            while True:
                try:
                    chunk = os.read(self.fd, 65536)
                except OSError:
                    break
                if not chunk:
                    break
                self._take(chunk)
        finally:
            if self._partial:
                self._emit(self._partial)
            if self.dropped:
                self.logger.warning("stderr: %d more bytes dropped (cap %d)", self.dropped, self.cap)
            try:
                os.close(self.fd)
            except OSError:
                pass

    def _take(self, chunk: bytes) -> None:
        self.tail.append(chunk)
        self.tail_len += len(chunk)
        while self.tail_len > _TAIL and len(self.tail) > 1:
            self.tail_len -= len(self.tail.popleft())
        data = self._partial + chunk
        lines = data.split(b"\n")
        self._partial = lines.pop()
        if len(self._partial) > 4096:
            lines.append(self._partial)
            self._partial = b""
        for line in lines:
            self._emit(line)

    def _emit(self, line: bytes) -> None:
        if self.logged >= self.cap:
            self.dropped += len(line) + 1
            return
        self.logged += len(line) + 1
        self.logger.info("stderr: %s", line.decode("utf-8", "replace").rstrip()[:4096])

    def tail_text(self) -> str:
        text = b"".join(self.tail)[-_TAIL:].decode("utf-8", "replace").strip()
        return text.splitlines()[-1][:300] if text else ""


class SubprocessHost:
    """A bot in a child process speaking the protocol: an external program, or a Python plugin under
    ``python -m arena.host``. One process serves many games in a row; a failure kills it and the next
    ``new_game`` starts a fresh one."""

    def __init__(self, argv: Sequence[str], name: str, *, spec: BotSpec | None = None, time_limit_ms: int = 1000,
                 memory_mb: int = 1024, grace_ms: int = GRACE_MS, startup_ms: int = STARTUP_MS,
                 env: dict[str, str] | None = None, cwd: str | None = None,
                 stderr_cap: int = STDERR_CAP, codec: str = CODEC_JSON) -> None:
        if time_limit_ms <= 0:
            raise ValueError("time_limit_ms must be positive")
        if memory_mb <= 0:
            raise ValueError("memory_mb must be positive")
        self.argv = list(argv)
        self.name = name
        self.spec = spec
        self.time_limit_ms = time_limit_ms
        self.memory_mb = memory_mb
        self.grace_ms = grace_ms
        self.startup_ms = startup_ms
        self.env = env
        self.cwd = cwd
        self.stderr_cap = stderr_cap
        if codec not in (CODEC_JSON, CODEC_PICKLE):
            raise ValueError(f"codec must be {CODEC_JSON} or {CODEC_PICKLE}, not {codec!r}")
        #: ``pickle`` only for our own ``arena.host --codec pickle`` (see arena/protocol.py)
        self.codec = codec
        self.bot_name = ""
        self.starts = 0
        self.proc: subprocess.Popen[bytes] | None = None
        self._in = -1
        self._out = -1
        self._poll: Any = None
        self._wpoll: Any = None
        self._buf = b""
        self._pump: _StderrPump | None = None
        self._encoder: ViewEncoder | PickleEncoder = self._new_encoder()
        self._log = log.getChild(name.replace(".", "_").replace(" ", "_")[:60] or "bot")
        self._timeout_s = (time_limit_ms + grace_ms) / 1000.0

    # ----------------------------------------------------------------------------- lifecycle
    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def start(self) -> None:
        """Start the process and exchange hellos; raises BotFailure if it does not come up."""
        self._kill()
        try:
            proc = subprocess.Popen(
                self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0,
                close_fds=True, start_new_session=True, preexec_fn=_limit_memory(self.memory_mb),
                env=self.env, cwd=self.cwd)
        except OSError as exc:
            raise BotFailure("crash", f"cannot start {shlex.join(self.argv)}: {exc.strerror or exc}") from None
        self.proc = proc
        self.starts += 1
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        self._in = proc.stdin.fileno()
        self._out = proc.stdout.fileno()
        os.set_blocking(self._in, False)  # a bot that stops reading must not block the referee
        os.set_blocking(self._out, False)
        self._wpoll = select.poll()
        self._wpoll.register(self._in, select.POLLOUT)
        self._buf = b""
        self._poll = select.poll()
        self._poll.register(self._out, select.POLLIN | select.POLLHUP | select.POLLERR)
        self._pump = _StderrPump(os.dup(proc.stderr.fileno()), self._log, self.stderr_cap)
        proc.stderr.close()
        self._pump.start()
        self._encoder = self._new_encoder()
        self._send(self._control({"type": "hello", "protocol": PROTOCOL_VERSION}) if self.codec == CODEC_PICKLE
                   else HELLO)
        line = self._read_line(time.monotonic() + self.startup_ms / 1000.0, "hello")
        try:
            self.bot_name = parse_hello(line)
        except BotReportedError as exc:
            self._fail("crash", f"failed to start: {exc}")
        except ProtocolError as exc:
            self._fail("protocol", str(exc))

    def _new_encoder(self) -> ViewEncoder | PickleEncoder:
        return PickleEncoder() if self.codec == CODEC_PICKLE else ViewEncoder()

    def _control(self, msg: dict[str, Any]) -> bytes:
        """A control message (hello, new_game, game_over, quit) in this host's codec."""
        if self.codec == CODEC_PICKLE:
            return frame(msg)
        return json.dumps(msg, separators=(",", ":")).encode() + b"\n"

    def close(self) -> None:
        """Ask the bot to quit, then make sure: kill its process group. Safe to call twice."""
        proc = self.proc
        if proc is None:
            return
        if proc.poll() is None:
            try:
                os.write(self._in, QUIT if self.codec == CODEC_JSON else self._control({"type": "quit"}))
            except OSError:
                pass
            try:
                proc.wait(timeout=0.2)
            except subprocess.TimeoutExpired:
                pass
        self._kill()

    def _kill(self) -> None:
        proc = self.proc
        if proc is None:
            return
        self.proc = None
        if proc.poll() is None:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                try:
                    proc.kill()
                except ProcessLookupError:
                    pass
        else:
            try:  # the leader is gone; its group may not be
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            log.error("bot %s: process %d survived SIGKILL", self.name, proc.pid)
        for f in (proc.stdin, proc.stdout):
            try:
                if f is not None:
                    f.close()
            except OSError:
                pass
        if self._pump is not None:
            self._pump.join(timeout=1.0)

    def __enter__(self) -> "SubprocessHost":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self._kill()
        except Exception:  # noqa: BLE001 - interpreter shutdown
            pass

    def describe(self) -> str:
        """One line for listings and logs: what runs, how, under which limits."""
        if self.spec is not None and self.spec.kind != "command":
            where, what = "subprocess plugin", str(self.spec.target)
        else:
            where, what = "external program", shlex.join(self.argv)
        return f"{self.name} ({where}: {what}; {self.time_limit_ms} ms/move, {self.memory_mb} MB)"

    # ----------------------------------------------------------------------------- the protocol
    def new_game(self, info: dict[str, Any]) -> None:
        if not self.alive:
            if self.proc is not None:
                self._log.warning("restarting: %s", self._exit_text())
            self.start()
        self._encoder = self._new_encoder()  # both ends forget the last deal's tricks (and rules) here
        self._send(new_game_message(info) if self.codec == CODEC_JSON
                   else self._control(dict(info, type="new_game")))

    def choose(self, view: PlayerView) -> Any:
        if self.proc is None:
            self.start()
        if self._buf:
            self._fail("protocol", f"unsolicited output: {self._buf[:200]!r}")
        self._send(self._encoder.act_message(view, self.time_limit_ms))
        line = self._read_line(time.monotonic() + self._timeout_s, "move")
        try:
            return parse_answer(line)
        except BotReportedError as exc:
            self._fail("crash", str(exc) or "bot reported an error")
        except ProtocolError as exc:
            self._fail("protocol", str(exc))

    def game_over(self, result: dict[str, Any]) -> None:
        if self.alive:
            try:
                self._send(game_over_message(result) if self.codec == CODEC_JSON
                           else self._control({"type": "game_over", "result": result}))
            except BotFailure:
                pass

    # ----------------------------------------------------------------------------- plumbing
    def _fail(self, reason: str, detail: str) -> Any:
        """Kill the bot (its state is unknown now: a late answer would be read as the next one) and raise."""
        tail = self._pump.tail_text() if self._pump is not None else ""
        self._kill()
        if tail and reason != "protocol":
            detail = f"{detail}; stderr: {tail}"
        self._log.warning("%s: %s", reason, detail)
        raise BotFailure(reason, detail)

    def _exit_text(self) -> str:
        proc = self.proc
        code = proc.poll() if proc is not None else None
        if code is None:
            return "bot closed its pipe"
        if code < 0:
            try:
                return f"killed by {signal.Signals(-code).name}"
            except ValueError:
                return f"killed by signal {-code}"
        return f"exited with status {code}"

    def _send(self, data: bytes) -> None:
        deadline = 0.0
        try:
            while data:
                try:
                    n = os.write(self._in, data)
                except BlockingIOError:  # the pipe is full: the bot is not reading
                    now = time.monotonic()
                    if not deadline:
                        deadline = now + self._timeout_s
                    elif now >= deadline:
                        self._fail("timeout", f"the bot stopped reading its input for {self.time_limit_ms} ms")
                    self._wpoll.poll(max(1, int((deadline - now) * 1000)))
                    continue
                data = data[n:]
        except OSError:
            time.sleep(0.01)  # let a dying child finish dying so the report says how
            self._fail("crash", f"cannot write to the bot: it closed its stdin or exited ({self._exit_text()})")

    def _read_line(self, deadline: float, what: str) -> bytes:
        """The next non-empty line from the bot, by ``deadline`` (monotonic seconds), else BotFailure.

        It first polls the pipe for ``SPIN_S``, yielding the CPU between tries, and only then sleeps in
        ``poll``: most answers come within microseconds, and a sleeping process takes tens of them to
        wake on a virtual machine. ``sched_yield`` gives the CPU to any process that wants it, so the
        spin costs nothing on a busy machine.
        """
        buf = self._buf
        fd = self._out
        spin_until = 0.0
        while True:
            i = buf.find(b"\n")
            if i >= 0:
                line, self._buf = buf[:i], buf[i + 1:]
                if line.strip():
                    return line
                buf = self._buf
                continue
            if len(buf) > 1 << 20:
                self._fail("protocol", f"a line of more than 1 MiB without a newline: {buf[:100]!r}...")
            try:
                chunk = os.read(fd, 65536)
            except BlockingIOError:
                now = time.monotonic()
                if not spin_until:
                    spin_until = now + SPIN_S
                if now < spin_until and now < deadline:
                    os.sched_yield()
                    continue
                left = deadline - now
                if left <= 0 or not self._poll.poll(max(1, int(left * 1000 + 0.999))):
                    if time.monotonic() < deadline:
                        continue
                    self._buf = buf
                    limit = self.startup_ms if what == "hello" else self.time_limit_ms
                    self._fail("timeout", f"no {what} answer within {limit} ms")
                continue
            except OSError as exc:
                chunk = b""
                self._log.debug("read error %s", exc)
            if not chunk:
                if self.proc is not None:
                    try:
                        self.proc.wait(timeout=0.5)
                    except subprocess.TimeoutExpired:
                        pass
                self._buf = b""
                self._fail("crash", f"{self._exit_text()} while its {what} answer was awaited")
            buf += chunk


# ===================================================================================== factory
Player = InProcessHost | SubprocessHost


def plugin_command(target: str, params: dict[str, Any] | None = None, codec: str = CODEC_JSON) -> list[str]:
    """The argv that serves Python bot ``target`` over the protocol (``python -m arena.host``)."""
    argv = [sys.executable, "-m", "arena.host", target, "--codec", codec]
    if params:
        argv += ["--params", json.dumps(params)]
    return argv


def _child_env() -> dict[str, str]:
    """The referee's import path for the child, so ``module:Class`` resolves there as it would here."""
    env = dict(os.environ)
    paths = [p or os.getcwd() for p in sys.path]
    old = env.get("PYTHONPATH")
    env["PYTHONPATH"] = os.pathsep.join(paths + ([old] if old else []))
    env.setdefault("PYTHONHASHSEED", "0")
    return env


def make_player(bot: str | list[str], params: dict | None = None, *, isolation: str = "auto",
                time_limit_ms: int = 1000, memory_mb: int = 1024) -> Player:
    """The player for ``bot``, hosted as ``isolation`` says.

    ``bot`` is an entry point name (group ``tute_arena.bots``), ``module:Class``, or an external command:
    a list of arguments, or a string that starts with ``./``, ``../``, ``/`` or ``~`` or contains a space
    (split like a shell would). ``params`` are the bot's keyword parameters (for a command they are sent
    in ``new_game`` as ``params``). ``isolation``: ``inprocess`` calls the bot directly (trusted code
    only), ``subprocess`` runs it under ``python -m arena.host`` with the time and memory limits, and
    ``auto`` picks in-process for the bots of the tute-arena distribution itself and subprocess for every
    other; a command is always a subprocess. Make one player per seat: a subprocess player is one
    process, reused for every game of its seat. Raises ``BotLoadError`` when the bot cannot be found (or,
    in-process, built); a subprocess is started on first use, and failures then are ``BotFailure``s.
    """
    if isolation not in ISOLATIONS:
        raise BotLoadError(f"isolation must be one of {', '.join(ISOLATIONS)}, not {isolation!r}")
    spec = resolve_spec(bot, params)
    if spec.kind == "command":
        return _CommandHost(list(spec.target), spec.name, spec=spec, time_limit_ms=time_limit_ms,
                            memory_mb=memory_mb)
    inprocess = isolation == "inprocess" or (isolation == "auto" and spec.trusted)
    if inprocess:
        return InProcessHost(make_bot(str(spec.target), spec.params), spec.name, spec)
    return SubprocessHost(plugin_command(spec.name, spec.params, CODEC_PICKLE), spec.name, spec=spec,
                          time_limit_ms=time_limit_ms, memory_mb=memory_mb, env=_child_env(), codec=CODEC_PICKLE)


class _CommandHost(SubprocessHost):
    """An external program: its params, if any, travel in every ``new_game`` message."""

    def new_game(self, info: dict[str, Any]) -> None:
        if self.spec is not None and self.spec.params:
            info = dict(info, params=self.spec.params)
        super().new_game(info)


__all__ = ["BotSpec", "InProcessHost", "SubprocessHost", "Player", "make_player", "resolve_spec", "is_command",
           "plugin_command", "ISOLATIONS", "GRACE_MS"]
