"""A bot in its own process, spoken to over the protocol: a Python plugin under
``python -m arena.hosting.child``, or (``arena.hosting.command``) any program.

Every misbehaviour becomes ``BotFailure(reason, detail)`` (``timeout``, ``crash`` or ``protocol``),
which ``play_game`` scores as a renuncio. The host waits with ``poll`` on the pipe and a deadline (no
thread per move), caps the child's address space with ``RLIMIT_AS``, logs a capped amount of its
stderr, kills it (its whole process group) after any failure and starts it again before its next game.
"""

from __future__ import annotations

import collections
import itertools
import json
import logging
import os
import resource
import select
import shlex
import signal
import subprocess
import sys
import threading
import time
from typing import Any, Sequence

from ..match import BotFailure
from ..protocol import (HELLO, PROTOCOL_VERSION, QUIT, BotReportedError, ProtocolError, ViewEncoder,
                        game_over_message, new_game_message, parse_answer_fields, parse_hello, stops_value)
from ..view import PlayerView
from .codecs import CODEC_JSON, CODEC_PICKLE, PickleEncoder, frame
from .forking import forking
from .spec import BotSpec

log = logging.getLogger(__name__)

#: added to the per-move limit: the pipe, the JSON and the scheduler are not the bot's fault
GRACE_MS = 50
#: time to start and answer the hello (a Python interpreter and a plugin's imports)
STARTUP_MS = 15000
#: stderr bytes logged per bot process; the rest is counted and dropped
STDERR_CAP = 64 * 1024
_TAIL = 2048
#: what a failure's detail keeps of the bot's stderr: its last lines, capped
TAIL_LINES = 15
TAIL_CHARS = 1500
#: how long the referee polls for an answer (yielding the CPU) before it sleeps in ``poll``
SPIN_S = 150e-6


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
_PR_SET_CHILD_SUBREAPER = 36
#: the variable every bot process is started with (its value names that start): what it leaves behind
#: inherits it, so a process re-parented to the host can be told to be that bot's (``_kill_left_behind``)
BOT_VARIABLE = "TUTE_BOT"
_starts = itertools.count(1)
_subreaper: list[bool] = []


def _become_subreaper() -> None:
    """Once per process (Linux ``PR_SET_CHILD_SUBREAPER``): a process a bot starts and leaves behind
    (a new session, a double fork) is re-parented to this host, not to init, so it can still be found
    and ended with the bot instead of outliving the run."""
    if _subreaper:
        return
    _subreaper.append(True)
    if _PRCTL is not None:
        _PRCTL(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def _kill_left_behind(token: str) -> None:
    """End the processes a bot left behind that were re-parented to this process: its own children
    holding the bot's ``BOT_VARIABLE`` value (and their descendants), then reap them."""
    me = os.getpid()
    marker = f"{BOT_VARIABLE}={token}".encode() + b"\0"
    for pid in children_of(me):
        try:
            with open(f"/proc/{pid}/environ", "rb") as fh:
                if marker not in fh.read() + b"\0":
                    continue
        except OSError:
            continue
        for victim in [*descendants(pid), pid]:
            try:
                os.kill(victim, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        try:
            os.waitpid(pid, 0)  # this process's child now: reaped here, or it stays a zombie
        except ChildProcessError:
            pass


def _kill_orphaned_group(leader: int) -> None:
    """Kill the process group of a bot whose leader is dead and reaped: its members may live on (a
    child that ignored the leader's end). While any does, the kernel gives no process the group's id;
    once none does, that id is free and may be a new process's, a new group's leader (another bot):
    so the group is killed only while no process holds the leader's pid."""
    try:
        os.kill(leader, 0)
        return  # a process holds the pid: the group of that id may be its own
    except PermissionError:  # another user's process holds it
        return
    except ProcessLookupError:
        pass
    try:
        os.killpg(leader, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _children() -> dict[int, list[int]]:
    """Every live process's children, from ``/proc`` (Linux; elsewhere none)."""
    children: dict[int, list[int]] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return {}
    for name in entries:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as fh:
                stat = fh.read()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2:].split()  # after "pid (comm) ": state, ppid, ...
        if len(fields) > 1:
            children.setdefault(int(fields[1]), []).append(int(name))
    return children


def children_of(pid: int) -> list[int]:
    return _children().get(pid, [])


def descendants(root: int) -> list[int]:
    """Every live descendant of process ``root`` (children, their children, ...), from ``/proc`` (Linux;
    elsewhere none): the processes a bot started, whatever session or group they moved to."""
    children = _children()
    out: list[int] = []
    todo = [root]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in out:
                out.append(child)
                todo.append(child)
    return out


def die_with_parent(sig: int = signal.SIGKILL) -> None:
    """Ask the kernel to send ``sig`` to this process when its parent dies (Linux ``PR_SET_PDEATHSIG``;
    elsewhere nothing): a worker whose runner is killed with ``kill -9`` must not play on, or block,
    forever. If the parent is already gone (it died before this call), exit now."""
    if _PRCTL is None:
        return
    parent = os.getppid()
    _PRCTL(_PR_SET_PDEATHSIG, int(sig), 0, 0, 0)
    if parent == 1 or os.getppid() != parent:
        os._exit(1)


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
        """The last lines of stderr (up to ``TAIL_LINES`` and ``TAIL_CHARS``): enough for a stack trace,
        whose last line alone ("Node.js v20") rarely says what went wrong."""
        text = b"".join(self.tail)[-_TAIL:].decode("utf-8", "replace").strip()
        if not text:
            return ""
        lines = [line.rstrip() for line in text.splitlines() if line.strip()][-TAIL_LINES:]
        return "\n".join(lines)[-TAIL_CHARS:]


class _Failure(BotFailure):
    """A host's ``BotFailure``, with what it needs to be told again later: the stderr of a process
    found gone between deals is read when its failure is said (``retold``), at the deal's first act,
    not when it was found, when the thread reading it may not have caught up (a busy machine)."""

    def __init__(self, reason: str, bare: str, pump: _StderrPump | None) -> None:
        self.reason, self.bare, self.pump = reason, bare, pump
        super().__init__(reason, self._told())

    def _told(self) -> str:
        tail = self.pump.tail_text() if self.pump is not None else ""
        return f"{self.bare}; stderr: {tail}" if tail and self.reason != "protocol" else self.bare

    def __reduce__(self) -> tuple[Any, ...]:  # its pump is a thread: sent elsewhere, it is the plain failure
        return BotFailure, (self.reason, self.detail)

    def retold(self) -> "_Failure":
        if self.pump is not None:
            self.pump.join(timeout=1.0)
        return _Failure(self.reason, self.bare, self.pump)


class SubprocessHost:
    """A bot in a child process speaking the protocol: an external program, or a Python plugin under
    ``python -m arena.hosting.child``. One process serves many games in a row; a failure kills it and the next
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
        #: ``pickle`` only for our own ``arena.hosting.child --codec pickle`` (see arena/hosting/codecs.py)
        self.codec = codec
        self.bot_name = ""
        self.starts = 0
        #: the number of the last ``act`` sent to this process (a bot may echo it: an answer to another is
        #: a forfeit), and whether this bot has echoed one (then every answer must)
        self.request = 0
        self.echoes = False
        #: decisions the bot's own clock ended (it reports a running count in its answers, ``clock_stops``):
        #: the total over every process this host started, and the last count of the current one
        self._stops = 0
        self._stops_seen = 0
        self.proc: subprocess.Popen[bytes] | None = None
        #: the current deal's ``new_game`` (for a restart before its first answer), whether the bot has
        #: answered in it and whether it was restarted for it (once a deal); whether the current process
        #: ended by exiting with status 0
        self._deal: dict[str, Any] | None = None
        self._answered = False
        self._restarted = False
        self._ended = False
        #: a game_over was sent, and no answer read since
        self._after_game_over = False
        #: a failure found outside a move (between deals: ``_settle``), said at the first act of the next
        #: deal this bot plays
        self._pending: _Failure | None = None
        #: the ``BOT_VARIABLE`` value of the current process: what it leaves behind carries it too
        self._token = ""
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
        _become_subreaper()
        self._ended = False
        self._after_game_over = False  # a process started afresh has had no game_over to end in
        self._token = f"{os.getpid()}.{next(_starts)}"
        env = {**(os.environ if self.env is None else self.env), BOT_VARIABLE: self._token}
        try:
            with forking():  # a Ctrl-C as the bot is forked is acted on once it is, and ``close`` finds it
                proc = subprocess.Popen(
                    self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0,
                    close_fds=True, start_new_session=True, preexec_fn=_limit_memory(self.memory_mb),
                    env=env, cwd=self.cwd)
                self.proc = proc
        except OSError as exc:
            raise _Failure("crash", f"cannot start {shlex.join(self.argv)}: {exc.strerror or exc}", None) from None
        self.starts += 1
        self._stops_seen = 0  # a new process counts from 0, its acts from 1 (docs/protocol.md)
        self.request = 0
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
                   else HELLO, "hello")
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
        """Ask the bot to quit, then make sure: kill its process group. Safe to call twice. A failure
        still pending (found after the last deal) goes with the process: a host used again starts afresh.
        It is logged, as a crash in the last deal's game_over has no deal left to forfeit."""
        if self._pending is not None and not (self._pending.reason == "crash" and self._ended):
            # (an exit with status 0 is a bot done with its deals, as ``_settle`` judges it)
            self._log.warning("%s after the last deal (no deal left to forfeit): %s", self._pending.reason,
                              self._pending.retold().detail)
        self._pending = None
        proc = self.proc
        if proc is None:
            return
        if proc.poll() not in (None, 0) and self._after_game_over:
            self._log.warning("%s after the last deal (no deal left to forfeit)", self._exit_text())
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
        if proc.returncode is not None:
            # reaped earlier (``alive``): its pid may name another process now (pids wrap, at 32768 on
            # many systems), so its "descendants" are not the bot's; what the bot left behind was
            # re-parented here and carries its token
            _kill_orphaned_group(proc.pid)
            self._reap_left_behind(proc)
            return
        # every descendant first: a child that left the bot's process group (setsid) would outlive a
        # killpg, playing on or holding the pipes after its game. The pid is still this process's
        # child (alive or a zombie), so it names the bot until the wait below
        for pid in descendants(proc.pid):
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        if proc.poll() is None:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                try:
                    proc.kill()
                except ProcessLookupError:
                    pass
        else:
            _kill_orphaned_group(proc.pid)
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            log.error("bot %s: process %d survived SIGKILL", self.name, proc.pid)
        self._reap_left_behind(proc)

    def _reap_left_behind(self, proc: subprocess.Popen[bytes]) -> None:
        _kill_left_behind(self._token)  # what left the bot's tree before it died, re-parented here
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
        """Start the deal for this bot; never its forfeit here, whatever is found (``_settle``).

        A failure found now (the process gone since the last deal, a restart that fails, a write that
        fails) is said at the first act of the next deal the bot plays: this one, unless it is a cabrero
        dealer who sits it out. A process's failure outlives the deal it was found in, where a plugin's
        own failing ``new_game`` belongs to its deal (``play_game``, ``arena.hosting.child``)."""
        self._deal = info
        self._answered = False
        self._restarted = False
        failure, self._pending = self._pending, None  # found at game_over, or over a deal sat out
        if failure is None:
            try:
                if self.proc is not None and not self.alive:
                    self._gone(None)  # ended since the last deal: told as if this write had found it
                self._begin_deal()
                return
            except _Failure as f:
                failure = f
        self._settle(failure)

    def _settle(self, failure: "_Failure") -> None:
        """The one rule for a process found gone after the last deal's game_over and before its first
        answer of this deal, however it was found: by ``new_game``'s look, its write, ``game_over``'s
        write, or the first act. A process that exited with status 0 (some bots play one deal a
        process) is started again, once a deal, silently; a second such end, or any other failure, is
        pending: the forfeit of the first deal the bot is asked to play (``choose``). Found by timing
        alone, each end used to be judged its own way: in other words, counted as the deal's restart
        or not, or as the forfeit of a deal a cabrero dealer sits out."""
        while failure.reason == "crash" and self._ended and not self._restarted:
            self._log.info("restarting: the process ended with status 0 between deals")
            self._restarted = True
            try:
                self._begin_deal()
                return
            except _Failure as f:
                failure = f
        self._pending = failure

    def _begin_deal(self) -> None:
        """A process for the deal (started if there is none), told the deal's ``new_game``."""
        if self.proc is None:
            self.start()
        self._encoder = self._new_encoder()  # both ends forget the last deal's tricks (and rules) here
        # the move limit rides along (``time_ms``, as in every ``act``), so a bot can plan its time
        info = dict(self._deal if self._deal is not None else {}, time_ms=self.time_limit_ms)
        self._send(new_game_message(info) if self.codec == CODEC_JSON
                   else self._control(dict(info, type="new_game")), None)

    def _exited_cleanly(self) -> bool:
        """Whether the process ended by exiting with status 0: a bot done with its deal, not one that
        crashed."""
        return self.proc is not None and self.proc.poll() == 0

    def choose(self, view: PlayerView) -> Any:
        if self._pending is not None:  # found between deals (``_settle``): this deal is its forfeit
            failure, self._pending = self._pending, None
            self._kill()
            failure = failure.retold()
            self._log.warning("%s, found between deals: %s", failure.reason, failure.detail)
            raise failure
        if self._answered or self._deal is None:
            return self._choose(view)
        try:
            action = self._choose(view)
        except _Failure as f:
            self._settle(f)  # gone before its first answer of the deal: as found at new_game
            if self._pending is not None:
                failure, self._pending = self._pending, None
                raise failure from None
            action = self._choose(view)
        self._answered = True
        return action

    def _choose(self, view: PlayerView) -> Any:
        if self.proc is None:
            self.start()
        if self._buf or self._readable():
            extra = self._pending_output()
            if extra.strip():
                self._fail("protocol", f"output nobody asked for (before act {self.request + 1}): {extra[:200]!r}")
            self._buf = extra  # blank lines, or the end of the pipe: the read below says what it is
        self.request += 1
        self._send(self._encoder.act_message(view, self.time_limit_ms, self.request), "move")
        line = self._read_line(time.monotonic() + self._timeout_s, "move")
        try:
            action, request, stops = parse_answer_fields(line)
        except BotReportedError as exc:
            self._fail("crash", str(exc) or "bot reported an error")
        except ProtocolError as exc:
            self._fail("protocol", str(exc))
        if request is not None and (type(request) is not int or request < 0):
            self._fail("protocol", f"request {json.dumps(request)[:40]}: not a request number (request "
                                   f"{self.request} is open: echo the number the act message carries)")
        if request is not None and request != self.request:
            self._fail("protocol", f"an answer to request {str(request)[:40]}, while request {self.request} is open "
                                   "(an answer sent twice, or before it was asked for)")
        if request is None and self.echoes:
            self._fail("protocol", f"an answer without the request number this bot echoes (request {self.request} "
                                   "is open): a line sent before it was asked for?")
        if request is not None:
            self.echoes = True
        self._after_game_over = False
        stops = stops_value(stops)  # a report, never a forfeit: anything else is ignored
        if stops is not None:  # only growth counts (a count that drops is taken as the new base)
            self._stops += max(0, stops - self._stops_seen)
            self._stops_seen = stops
        return action

    def clock_stops(self) -> int:
        """The decisions the bot said its clock ended (``clock_stops`` in its answers), over every process
        of it this host started."""
        return self._stops

    def _readable(self) -> bool:
        """Whether the bot wrote something no request is open for (polled without waiting)."""
        return bool(self._poll.poll(0))

    def _pending_output(self) -> bytes:
        if not self._readable():
            return self._buf
        try:
            return self._buf + os.read(self._out, 4096)
        except OSError:
            return self._buf

    def game_over(self, result: dict[str, Any]) -> None:
        """The deal is decided: a bot that cannot be told so changes nothing of it. A process found
        gone here is judged at the next deal's ``new_game`` (``_settle``), as one found gone there."""
        self._after_game_over = True
        if self.alive:
            try:
                self._send(game_over_message(result) if self.codec == CODEC_JSON
                           else self._control({"type": "game_over", "result": result}), None)
            except _Failure as f:
                if f.reason == "crash" and self._pending is None:  # (one that stopped reading is only killed)
                    self._pending = f

    # ----------------------------------------------------------------------------- plumbing
    def _fail(self, reason: str, detail: str) -> Any:
        """Kill the bot (its state is unknown now: a late answer would be read as the next one) and raise.

        The stderr tail is read after the kill, which waits for the pump to reach the pipe's end: a bot
        that writes its traceback and exits at once is often seen gone (its stdout closed) before the
        pump has read those last lines, and the report would lack them."""
        self._kill()
        failure = _Failure(reason, detail, self._pump)
        # an exit with status 0 is a bot done with its deal (``_settle``) until it is judged otherwise
        quiet = self._ended and reason == "crash"
        self._log.log(logging.INFO if quiet else logging.WARNING, "%s: %s", reason, failure.detail)
        raise failure

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

    def _send(self, data: bytes, answer: str | None) -> None:
        """Write ``data``; ``answer``: the answer it asks for ("move", "hello"; None for a message that
        asks none), for the words of a process found gone by this write."""
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
            self._gone(answer)

    def _gone(self, answer: str | None) -> Any:
        """The process found gone (its input or output closed), by a write or by a read: the same words
        however it was found, so that one deal gives one record whatever the timing (a bot that exits
        right after answering was recorded in two ways). It is let finish dying first, within a move's
        time, so that the words say how, and an exit with status 0 is told from a crash however slowly
        the process ends (at most 5 s: a move's limit may be a day)."""
        if self.proc is not None:
            try:
                self.proc.wait(timeout=min(self._timeout_s, 5.0))
            except subprocess.TimeoutExpired:
                pass
        self._ended = self._exited_cleanly()
        if answer is None or (answer == "move" and self._after_game_over):
            # between answers, or before the first of a deal: the same words however soon the deal came,
            # and a line it printed before it ended is said as the next act would find it
            extra = self._pending_output()
            self._buf = b""
            if extra.strip():
                self._fail("protocol", f"output nobody asked for (before act {self.request + 1}): {extra[:200]!r}")
            self._fail("crash", f"{self._exit_text()}{self._between_deals()}")
        self._buf = b""
        self._fail("crash", f"{self._exit_text()} while its {answer} answer was awaited")

    def _between_deals(self) -> str:
        """Where a process gone before its first answer of a deal most likely ended: in its handler of
        the last deal's game_over, which an author would not look at for a move's crash."""
        if not self._after_game_over:
            return ""
        return " (before its first answer of this deal: it may have ended after the last deal's game_over)"

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
        late = 0
        while True:
            # blank lines are skipped, all at once: one at a time was quadratic in a flood of them
            buf = buf.lstrip(b" \t\r\n")
            i = buf.find(b"\n")
            if i >= 0:
                self._buf = buf[i + 1:]
                return buf[:i]
            if len(buf) > 1 << 20:
                self._fail("protocol", f"a line longer than 1 MiB (the protocol's limit): {buf[:100]!r}...")
            if late > 1:
                # output that never makes an answer (blank lines without end) ends in time too; an
                # answer written in time but read late (a busy machine) was taken on the read before
                self._timed_out(what, buf)
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
                    self._timed_out(what, buf)
                continue
            except OSError as exc:
                chunk = b""
                self._log.debug("read error %s", exc)
            if not chunk:
                self._gone(what)
            buf += chunk
            if late or time.monotonic() >= deadline:
                late += 1  # data past the deadline: one more look at what is waiting, then the timeout

    def _timed_out(self, what: str, buf: bytes) -> Any:
        self._buf = buf
        if self.proc is not None and self.proc.poll() is not None:
            # the bot is gone, but a process it started holds its output open: no timeout of its
            self._fail("crash", f"{self._exit_text()} while its {what} answer was awaited (a process "
                                f"it started still holds its output open)")
        limit = self.startup_ms if what == "hello" else self.time_limit_ms
        if what != "hello":
            hint = ""
        elif self.spec is not None and self.spec.kind != "command":  # the child flushes: its start was slow
            hint = f"; importing {self.spec.target} or making the bot took longer than that"
        else:
            hint = ("; a bot must flush its stdout after each line (C: fflush(stdout), Python: "
                    "print(..., flush=True)), or a buffered answer never arrives")
        self._fail("timeout", f"no {what} answer within {limit} ms{hint}")


def plugin_command(target: str, params: dict[str, Any] | None = None, codec: str = CODEC_JSON) -> list[str]:
    """The argv that serves Python bot ``target`` over the protocol (``python -m arena.hosting.child``)."""
    argv = [sys.executable, "-m", "arena.hosting.child", target, "--codec", codec]
    if params:
        argv += ["--params", json.dumps(params)]
    return argv


def child_env() -> dict[str, str]:
    """The referee's import path for the child, so ``module:Class`` resolves there as it would here."""
    env = dict(os.environ)
    # the folder ``python -m leagues`` (or ``-c``) runs in heads its path (sys.path[0]), and ``tute``
    # does not search it (docs/bots.md): the child's path is the referee's without that head; the same
    # folder later in the path (an editable install's, PYTHONPATH's) stays
    head = sys.path[:1]
    if head and (not head[0] or os.path.abspath(head[0]) == os.getcwd()):
        paths = sys.path[1:]
    else:
        paths = list(sys.path)
    old = env.get("PYTHONPATH")
    env["PYTHONPATH"] = os.pathsep.join(paths + ([old] if old else []))
    env.setdefault("PYTHONHASHSEED", "0")
    return env
