"""The zygote: a process that imports JAX once and forks one sandbox per run.

Importing JAX, NumPy and matplotlib costs ~2 s; forking a process that already has them costs
milliseconds. The zygote never runs student code and never initialises a JAX backend (forking a
process with live XLA threads is unsafe), so each child is clean, picks its own device count,
and stays independent of every other child.

It talks to the grader over an anonymous ``SOCK_SEQPACKET`` socketpair (nothing a sandbox could
connect to), receives for each run the socket the child will use, forks, reaps children, and in
root mode kills whatever a finished child left behind under its user id.
"""

from __future__ import annotations

import json
import os
import select
import signal
import socket
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import privileges
from .privileges import allowed_environment

ROOT = Path(__file__).resolve().parents[2]


def start_zygote(out: Path) -> Zygote:
    """A zygote for the sandboxes of a batch graded into ``out``, its log in ``out/.cache``."""
    cache = out / ".cache"
    cache.mkdir(parents=True, exist_ok=True)
    return Zygote(cache / "zygote.log")


def _preload() -> None:
    import matplotlib

    matplotlib.use("Agg")
    import jax  # noqa: F401
    import jax.experimental.checkify  # noqa: F401
    import jax.numpy  # noqa: F401
    import matplotlib.pyplot  # noqa: F401
    import numpy  # noqa: F401

    from . import child  # noqa: F401

    try:
        import IPython.display  # noqa: F401
    except ImportError:
        pass


def _kill_strays(running: dict[int, dict[str, Any]]) -> None:
    """Kill what finished sandboxes left behind. The zygote is a subreaper: an orphan (a
    ``setsid`` daemon included) becomes its child when the sandbox that started it ends. Killing
    one orphans its own children to us in turn, hence the rounds."""
    me = str(os.getpid())
    for _ in range(100):
        strays = []
        for entry in os.listdir("/proc") if os.path.isdir("/proc") else []:
            if not entry.isdigit() or int(entry) in running:
                continue
            try:
                with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as f:
                    ppid = f.read().rsplit(")", 1)[1].split()[1]
            except (OSError, IndexError):
                continue
            if ppid == me:
                strays.append(int(entry))
        if not strays:
            return
        for pid in strays:
            try:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            except OSError:
                pass


def _sweep(uid: int | None) -> None:
    """Kill every process left running under a sandbox user id (root mode only)."""
    if uid is None:
        return
    pid = os.fork()
    if pid == 0:
        try:
            os.setuid(uid)
            # Repeat: a fork bomb can slip new processes past one sweep.
            for _ in range(1000):
                os.kill(-1, signal.SIGKILL)
        except ProcessLookupError:
            pass  # none left
        finally:
            os._exit(0)
    os.waitpid(pid, 0)


def serve(ctl: socket.socket) -> None:
    running: dict[int, dict[str, Any]] = {}
    try:
        _serve(ctl, running)
    finally:
        # The grader quit or died: nothing it started may run on.
        for pid, request in running.items():
            try:
                os.killpg(pid, signal.SIGKILL)
            except OSError:
                pass
            _sweep(request.get("uid"))


def _serve(ctl: socket.socket, running: dict[int, dict[str, Any]]) -> None:
    privileges.set_subreaper()
    _preload()
    from . import child

    ctl.send(json.dumps({"ready": True}).encode())
    while True:
        readable, _, _ = select.select([ctl], [], [], 0.05)
        while running:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
            request = running.pop(pid, None)
            if request is not None:
                _sweep(request.get("uid"))
                _kill_strays(running)
                code = os.waitstatus_to_exitcode(status)
                ctl.send(json.dumps({"exited": request["job"], "code": code}).encode())
        if not readable:
            continue
        data, fds, _, _ = socket.recv_fds(ctl, 65536, 1)
        if not data:
            return  # the grader is gone
        request = json.loads(data)
        if request.get("quit"):
            return
        pid = os.fork()
        if pid == 0:
            ctl.close()
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            child.main(fds[0], request)
        os.close(fds[0])
        running[pid] = request
        ctl.send(json.dumps({"started": request["job"], "pid": pid}).encode())


@dataclass
class _Job:
    started: threading.Event = field(default_factory=threading.Event)
    exited: threading.Event = field(default_factory=threading.Event)
    pid: int = 0
    code: int | None = None


class Zygote:
    """The grader's handle on a zygote process: ``start(request) -> (socket, pid)``.

    Making one only launches the process: its imports (~2 s) overlap whatever the grader does
    next, and the first :meth:`start` waits for them."""

    def __init__(self, log: Path):
        parent, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self._ctl = parent
        self._lock = threading.Lock()
        self._jobs: dict[str, _Job] = {}
        self._next = 0
        # The zygote, and so every sandbox, starts from an allowlist of the grader's environment:
        # a process can read its own initial environment back from /proc/self/environ.
        env = dict(allowed_environment(dict(os.environ)), PYTHONPATH=str(ROOT), PYTHONDONTWRITEBYTECODE="1")
        with open(log, "ab") as out:
            self._proc = subprocess.Popen(
                [sys.executable, "-m", "autograder.sandbox.zygote", str(child.fileno())],
                pass_fds=[child.fileno()],
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=out,
                cwd=ROOT,
                env=env,
                start_new_session=True,
            )
        child.close()
        self._log = log
        self._reader: threading.Thread | None = None

    def _ready(self) -> None:
        """Wait for the zygote's imports, once (under ``self._lock``)."""
        if self._reader is not None:
            return
        hello = self._ctl.recv(65536)
        if not hello or not json.loads(hello).get("ready"):
            raise RuntimeError(f"the grading zygote did not start; see {self._log}")
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        while True:
            try:
                data = self._ctl.recv(65536)
            except OSError:
                data = b""
            if not data:
                for waiting in self._jobs.values():
                    waiting.started.set()
                    waiting.exited.set()
                return
            msg = json.loads(data)
            job = self._jobs.get(msg.get("started") or msg.get("exited"))
            if job is None:
                continue
            if "started" in msg:
                job.pid = int(msg["pid"])
                job.started.set()
            else:
                job.code = int(msg["code"])
                job.exited.set()

    def start(self, box: Path, uid: int | None) -> tuple[socket.socket, int, str]:
        """Fork a sandbox child; returns its socket, pid and job id."""
        mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        with self._lock:
            self._ready()
            self._next += 1
            job_id = str(self._next)
            self._jobs[job_id] = job = _Job()
            request = {"job": job_id, "box": str(box), "uid": uid}
            socket.send_fds(self._ctl, [json.dumps(request).encode()], [theirs.fileno()])
        theirs.close()
        if not job.started.wait(30) or not job.pid:
            raise RuntimeError("the grading zygote did not fork a sandbox")
        return mine, job.pid, job_id

    def exited(self, job_id: str, timeout: float) -> bool:
        """Whether the child of ``job_id`` has ended, waiting up to ``timeout`` seconds. A
        sandbox in a PID namespace ends a moment after its socket closes (the namespace is torn
        down first): a grader that killed it at once would hide how it ended."""
        job = self._jobs.get(job_id)
        return job is not None and job.exited.wait(timeout)

    def wait(self, job_id: str, timeout: float = 10.0) -> int | None:
        """Exit code of a finished child (negative: killed by that signal); None if unknown."""
        job = self._jobs[job_id]
        job.exited.wait(timeout)
        self._jobs.pop(job_id, None)
        return job.code

    @property
    def pid(self) -> int:
        return self._proc.pid

    def alive(self) -> bool:
        """Whether the zygote process still runs (something outside may have killed it)."""
        return self._proc.poll() is None

    def close(self) -> None:
        """Stop the zygote (again: a no-op). One that never forked has no sandbox to clean up
        after, so it is killed at once rather than waited for through its imports."""
        if self._ctl.fileno() == -1:
            return
        with self._lock:
            if self._reader is None:
                self._proc.kill()
            else:
                try:
                    self._ctl.send(json.dumps({"quit": True}).encode())
                except OSError:
                    pass
        try:
            self._proc.wait(5)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
        self._ctl.close()


if __name__ == "__main__":
    serve(socket.socket(fileno=int(sys.argv[1])))
    # serve() has killed whatever ran; the interpreter's own teardown of JAX and matplotlib
    # (~0.3 s, which the grader waits for at the end of every batch) has nothing left to do.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
