"""The grader's side of one sandboxed run: send the cells, watch the clock and the memory, ship
the probes in after the last cell, collect plain results, and say how the run ended."""

from __future__ import annotations

import json
import os
import secrets
import signal
import stat
import time
from dataclasses import asdict, dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any, Literal, NotRequired, TypedDict

from ..probing import decode_outputs, is_out_of_memory, shorten
from ..probing.plain import OutputsTooLarge, ProbeResult
from .limits import Meter, SandboxLimits
from .zygote import Zygote

#: What a sandbox may send, checked before anything is decoded: a submission's results are
#: plain arrays of the sizes the tests make (the largest reference result of the course is
#: well under 1 MiB), so these caps cost honest work nothing and stop a flood of forged data
#: from growing the grader.
MAX_MESSAGE_BYTES = 4 * 2**20
MAX_PROBE_BYTES = 32 * 2**20
MAX_RESULT_BYTES = 128 * 2**20
MAX_BLOBS = 256
#: How long a sandbox may take to confine itself and start JAX before its first cell (about
#: 0.6 s on the 2-core machine); past it the run is the grader's fault, never a timeout.
SETUP_SECONDS = 120.0


#: How a sandboxed run ended: ``exited`` is the notebook's own ``sys.exit``/``os._exit``;
#: ``fault`` is the sandbox failing before the first cell, when no student code had run: the
#: grader's own failure, never the student's.
Ended = Literal["ok", "timeout", "memory", "crashed", "exited", "tampered", "fault"]


class SandboxJob(TypedDict):
    """What the grader tells a sandbox child besides its cells and limits (sent as JSON)."""

    device: Literal["cpu", "gpu"]
    cpu_devices: int
    matmul_precision: str
    xla_flags: str
    hidden: NotRequired[list[str]]
    """folders the sandbox sees empty (the project, OUT, and any the grader adds)"""
    compilation_cache: NotRequired[str]
    cache_writes: NotRequired[bool]
    """only the course's own runs fill a compilation cache; submissions read one"""


@dataclass
class RunOutcome:
    """How a sandboxed run ended, as plain data."""

    ended: Ended = "ok"
    where: str = ""
    """what was running when it ended early: ``cell 4`` or a probe id"""
    detail: str = ""
    cell_errors: list[tuple[int, str]] = field(default_factory=list)
    tampered: list[str] = field(default_factory=list)
    """evidence that the sandbox's code or the channel was tampered with; never points"""
    added: dict[str, str] = field(default_factory=dict)
    """names the cells or tests added to a library's module, class or function, each with where
    (``"times": "jax.Array.times"``): a source gate that reads one fails closed"""
    results: dict[str, ProbeResult] = field(default_factory=dict)
    """probe id -> its :class:`~autograder.probing.plain.ProbeResult`"""
    landlock: int = 0
    missing: list[str] = field(default_factory=list)
    """protections this platform could not give the sandbox (see sandbox/privileges.py)"""
    seconds: float = 0.0
    cells_seconds: float = 0.0
    """from the sandbox's start to the end of its last cell"""
    probe_costs: dict[str, tuple[float, int]] = field(default_factory=dict)
    """probe id -> the seconds it took and the bytes of its result, for the run's limits"""


class _SetUpFailed(Exception):
    """The sandbox failed before its first cell: no student code had run."""


class _Ended(Exception):
    def __init__(self, ended: Ended, detail: str = ""):
        super().__init__(detail)
        self.ended, self.detail = ended, detail


def _signal_name(code: int) -> str:
    try:
        return signal.Signals(-code).name
    except ValueError:
        return f"signal {-code}"


def end_with_evidence(outcome: RunOutcome) -> None:
    """Tampering the sandbox reported ends the run: the evidence says why, not a crash."""
    if outcome.tampered and outcome.ended in ("ok", "crashed"):
        outcome.ended, outcome.detail = "tampered", ""


def run_sandboxed(
    zygote: Zygote,
    *,
    cells: list[str],
    probes_source: str,
    requests: list[tuple[str, int]],
    job: SandboxJob,
    limits: SandboxLimits,
    box: Path,
    uid: int | None,
) -> RunOutcome:
    """Execute ``cells``, then each probe of ``requests`` (``(probe id, its seed)``, in this
    order) in a fresh sandbox; never raises for anything the submission does."""
    if not box.is_absolute():
        # The child changes its root and working folder before it enters ``box``: a relative
        # path would name another folder there. Every caller resolves its paths once, up front.
        raise ValueError(f"a sandbox's folder must be an absolute path, not {box}")
    box.mkdir(parents=True)
    os.chmod(box, 0o700)
    outcome = RunOutcome()
    start = time.monotonic()
    sock, pid, job_id = zygote.start(box, uid)
    conn = Connection(sock.detach())
    killed_for: str | None = None
    meter: Meter | None = None
    try:
        # Into its cgroups before it reads its job, so before it runs anything.
        meter = Meter(pid, limits, box)
        conn.send_bytes(json.dumps({**job, "cells": cells, "limits": asdict(limits)}).encode())
        _Conversation(conn, pid, outcome, limits, start, meter).run(probes_source, requests)
    except _Ended as e:
        outcome.ended, outcome.detail = e.ended, e.detail
        if e.ended in ("timeout", "memory"):
            killed_for = e.ended
    except (EOFError, OSError):
        outcome.ended = "crashed"
        zygote.exited(job_id, 2.0)  # how it ended, before the kill below could say SIGKILL
    except _SetUpFailed as e:
        outcome.ended, outcome.detail = "fault", shorten(str(e), 500)
        zygote.exited(job_id, 2.0)
    except Exception as e:  # noqa: BLE001 - any frame the grader cannot decode, after student code ran
        # Student code has run (a failure before it is a fault, above): whatever the channel
        # carried that the grader cannot read (bad JSON, a frame nested past the recursion
        # limit, a wrong type) is the sandbox's doing, never the grader's error.
        outcome.ended, outcome.detail = (
            "tampered",
            shorten(f"the grading channel carried malformed data ({type(e).__name__}: {e})"),
        )
    finally:
        try:
            os.killpg(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        conn.close()
        code = zygote.wait(job_id)
        outcome.seconds = time.monotonic() - start
        if meter is not None:
            meter.close()
            outcome.missing += meter.missing
            if meter.tripped and outcome.ended in ("ok", "crashed", "exited") and not outcome.tampered:
                # The kernel (a cgroup's OOM kill) or the account stopped it: a process of its
                # own, or the whole sandbox, was over the limit.
                outcome.ended, outcome.detail, killed_for = "memory", f"{limits.memory_mb} MiB", "memory"
    end_with_evidence(outcome)
    if outcome.ended == "crashed" and killed_for is None:
        if code is not None and code < 0:
            outcome.detail = f"the process died with {_signal_name(code)}"
            if code == -signal.SIGXFSZ:
                outcome.detail = f"it wrote more than {limits.output_mb * 4} MiB of output"
        else:
            outcome.detail = "the process ended itself (os._exit or similar)"
    remove_tree(box)
    return outcome


def remove_tree(path: Path) -> None:
    """Delete ``path`` and whatever a sandbox left inside, never following a link (a link in
    its place goes, not what it points to), whatever modes it gave its folders, however deep
    it nested them, and never raising: what cannot be removed stays, and the next run, in a
    folder of its own, never meets it."""
    try:
        st = os.lstat(path)
    except OSError:
        return
    try:
        if not stat.S_ISDIR(st.st_mode):
            os.unlink(path)
            return
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
        try:
            _empty_folder(fd)
        finally:
            os.close(fd)
        os.rmdir(path)
    except Exception:  # noqa: BLE001 - a leftover folder must never become the row's error
        pass


#: Open folders at once while emptying one; deeper folders are moved up to the top first.
_DEPTH = 32


def _empty_folder(top: int) -> None:
    """Empty the folder open at ``top``: descend with a file descriptor per level (names are
    looked up relative to it, so a path's length never matters and no link is followed)."""
    for _ in range(100_000):  # each pass removes what lies within _DEPTH levels
        deeper = False
        # (the folder, its name in the one above, its entries not yet seen)
        stack: list[tuple[int, str, list[str]]] = [(os.dup(top), "", _names(top))]
        try:
            while stack:
                fd, own_name, names = stack[-1]
                if not names:
                    stack.pop()
                    os.close(fd)
                    if stack:
                        _remove_at(stack[-1][0], own_name)
                    continue
                name = names.pop()
                try:
                    st = os.stat(name, dir_fd=fd, follow_symlinks=False)
                except OSError:
                    continue
                if not stat.S_ISDIR(st.st_mode):
                    _remove_at(fd, name, folder=False)
                elif len(stack) >= _DEPTH:
                    try:  # out of the way, up to the top: the next pass takes it
                        os.rename(name, f".removed-{secrets.token_hex(8)}", src_dir_fd=fd, dst_dir_fd=top)
                        deeper = True
                    except OSError:
                        pass
                else:
                    child = _open_folder(fd, name)
                    if child is not None:
                        stack.append((child, name, _names(child)))
        finally:
            for fd, _, _ in stack:
                os.close(fd)
        if not deeper:
            return


def _names(fd: int) -> list[str]:
    try:
        os.fchmod(fd, 0o700)
    except OSError:
        pass
    try:
        return os.listdir(fd)
    except OSError:
        return []


def _open_folder(parent: int, name: str) -> int | None:
    """Open the folder ``name`` (never a link), first giving it back the modes to be read."""
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        return os.open(name, flags, dir_fd=parent)
    except PermissionError:
        pass
    except OSError:
        return None
    if not hasattr(os, "O_PATH"):  # macOS: it can change a mode without following a link
        try:
            os.chmod(name, 0o700, dir_fd=parent, follow_symlinks=False)
            return os.open(name, flags, dir_fd=parent)
        except (OSError, NotImplementedError):
            return None
    try:
        handle = os.open(name, os.O_PATH | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=parent)
    except OSError:
        return None
    try:
        # Linux cannot change a mode without following a link: through the handle, the mode
        # changed is the folder's itself, whatever its name leads to by now.
        os.chmod(f"/proc/self/fd/{handle}", 0o700)
        return os.open(f"/proc/self/fd/{handle}", flags & ~os.O_NOFOLLOW)
    except OSError:
        return None
    finally:
        os.close(handle)


def _remove_at(parent: int, name: str, *, folder: bool = True) -> None:
    try:
        if folder:
            os.rmdir(name, dir_fd=parent)
        else:
            os.unlink(name, dir_fd=parent)
    except OSError:
        pass


class _Conversation:
    """The grader's side of the protocol in :mod:`autograder.sandbox.child`, with the clock, the
    memory watchdog and the size limits applied to everything the sandbox says."""

    def __init__(
        self,
        conn: Connection,
        pid: int,
        outcome: RunOutcome,
        limits: SandboxLimits,
        start: float,
        meter: Meter,
    ):
        self.conn, self.pid, self.outcome, self.limits, self.meter = conn, pid, outcome, limits, meter
        self.start = start
        self.total_deadline = start + limits.submission_seconds
        # Until the sandbox is ready no student code runs: its set-up is the grader's, timed by
        # the grader's own bound, never by a cell's limit (a tight --cell-seconds would make
        # every set-up the student's timeout).
        self.step_deadline = start + SETUP_SECONDS
        self.budget = MAX_RESULT_BYTES

    def next_step(self) -> None:
        self.step_deadline = min(time.monotonic() + self.limits.cell_seconds, self.total_deadline)

    def frame(self, limit: int) -> bytes:
        """One frame of at most ``limit`` bytes (and within the submission's budget)."""
        limit = min(limit, self.budget)
        while True:
            now = time.monotonic()
            if now >= self.step_deadline:
                kind = "cell" if self.outcome.where.startswith("cell") else "test"
                whole = self.step_deadline >= self.total_deadline
                limit_s = self.limits.submission_seconds if whole else self.limits.cell_seconds
                raise _Ended("timeout", f"{limit_s:g} s {'for the submission' if whole else f'per {kind}'}")
            if self.conn.poll(min(0.05, self.step_deadline - now)):
                try:
                    data = self.conn.recv_bytes(limit + 1)
                except OSError as e:
                    if "bad message length" in str(e):
                        raise _Ended(
                            "tampered",
                            f"it sent more than {limit / 2**20:.0f} MiB at once "
                            f"(results are capped at {MAX_PROBE_BYTES // 2**20} MiB per test and "
                            f"{MAX_RESULT_BYTES // 2**20} MiB per submission)",
                        ) from None
                    raise
                self.budget -= len(data)
                return data
            if self.meter.over():
                raise _Ended("memory", f"{self.limits.memory_mb} MiB")

    def message(self) -> dict[str, Any]:
        """The next message that is not tamper evidence or added names (both are recorded on
        the way)."""
        while True:
            msg = json.loads(self.frame(MAX_MESSAGE_BYTES))
            if not isinstance(msg, dict):
                raise ValueError("a frame that is not an object")
            if msg.get("event") == "added":
                names = msg.get("names")
                for item in names if isinstance(names, list) else []:
                    self.outcome.added.setdefault(str(item).rpartition(".")[2], shorten(str(item), 120))
                continue
            if msg.get("event") != "tampered":
                return msg
            evidence = msg.get("evidence")
            for item in evidence if isinstance(evidence, list) else [evidence]:
                text = shorten(str(item), 160)
                if text not in self.outcome.tampered and len(self.outcome.tampered) < 5:
                    self.outcome.tampered.append(text)

    def ready(self) -> dict[str, Any]:
        """The sandbox's first message, ``ready``. Until it comes no student code has run, so
        whatever stops it (the child's own ``fault`` report, an early exit, a timeout, a frame
        the grader cannot read) is the grader's failure: :class:`_SetUpFailed`."""
        try:
            msg = self.message()
        except _Ended as e:
            raise _SetUpFailed(f"the sandbox was not ready: {e.ended} ({e.detail})") from None
        except (EOFError, OSError):
            raise _SetUpFailed("the sandbox process ended while it was being set up") from None
        except Exception as e:  # noqa: BLE001 - nothing of the student's has run yet
            raise _SetUpFailed(f"the sandbox's first message was unreadable ({type(e).__name__})") from None
        if msg.get("event") == "fault":
            raise _SetUpFailed(f"the sandbox could not be set up: {shorten(str(msg.get('error')), 400)}")
        if msg.get("event") != "ready":
            raise _SetUpFailed(f"the sandbox's first message was {shorten(str(msg.get('event')), 40)!r}")
        return msg

    def run(self, probes_source: str, requests: list[tuple[str, int]]) -> None:
        outcome = self.outcome
        msg = self.ready()
        outcome.landlock = int(msg.get("landlock", 0))
        outcome.missing = [shorten(str(m), 120) for m in msg.get("missing", [])][:6]
        while True:
            msg = self.message()
            event = msg.get("event")
            if event == "cell":
                outcome.where = f"cell {int(msg['index']) + 1}"
                self.next_step()
            elif event == "cell_error":
                error = shorten(str(msg["error"]), 300)
                outcome.cell_errors.append((int(msg["index"]) + 1, error))
                if is_out_of_memory(error):
                    # The allocation failed at the limit instead of growing past the watchdog.
                    raise _Ended("memory", f"{self.limits.memory_mb} MiB")
            elif event == "exit":
                raise _Ended("exited", f"sys.exit() was called in cell {int(msg['index']) + 1}")
            elif event == "executed":
                outcome.cells_seconds = time.monotonic() - self.start
                break
            else:
                raise ValueError(f"unexpected event {event!r}")
        if outcome.tampered:
            return  # no hidden test enters a sandbox that already tampered

        self.conn.send_bytes(json.dumps({"source": probes_source}).encode())
        outcome.where = "the hidden tests"
        self.next_step()
        if self.message().get("event") != "loaded":
            raise ValueError("the hidden tests were not loaded")
        for probe_id, probe_seed in requests:
            nonce = secrets.token_hex(16)
            outcome.where = probe_id
            self.next_step()
            start_budget, asked = self.budget, time.monotonic()
            self.conn.send_bytes(json.dumps({"run": probe_id, "nonce": nonce, "seed": probe_seed}).encode())
            msg = self.message()
            if msg.get("event") != "result" or msg.get("id") != probe_id or msg.get("nonce") != nonce:
                raise _Ended(
                    "tampered", f"the sandbox answered a question the grader did not ask ({probe_id})"
                )
            if msg.get("ok") is True:
                names = msg.get("blobs", [])
                if not isinstance(names, list) or len(names) > MAX_BLOBS:
                    raise ValueError("too many arrays in one result")
                blobs = {}
                for n in names:
                    per_probe_left = MAX_PROBE_BYTES - (start_budget - self.budget)
                    if per_probe_left <= 0:
                        raise _Ended(
                            "tampered", f"results of {probe_id} exceed {MAX_PROBE_BYTES // 2**20} MiB"
                        )
                    blobs[str(n)] = self.frame(per_probe_left)
                try:
                    outputs = decode_outputs(msg["meta"], blobs)
                except OutputsTooLarge as e:
                    # An honest but wrong function can return this much (a million floats in a
                    # list): the test fails, nobody is accused.
                    outcome.results[probe_id] = {"ok": False, "error": f"returned too much data: {e}"}
                else:
                    outcome.results[probe_id] = {"ok": True, "outputs": outputs}
            else:
                outcome.results[probe_id] = {"ok": False, "error": shorten(str(msg.get("error")), 300)}
            outcome.probe_costs[probe_id] = (time.monotonic() - asked, start_budget - self.budget)
            if outcome.tampered:
                return
        self.conn.send_bytes(json.dumps({"end": True}).encode())
        if self.message().get("event") != "done":
            raise ValueError("no done message")
        outcome.where = ""
