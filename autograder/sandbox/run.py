"""The grader's side of one sandboxed run: send the cells, watch the clock and the memory, ship
the probes in after the last cell, collect plain results, and say how the run ended."""

from __future__ import annotations

import json
import os
import shutil
import signal
import time
from dataclasses import asdict, dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from ..probing import decode_outputs, is_out_of_memory
from .limits import SandboxLimits, rss_mb
from .zygote import Zygote

MAX_FRAME = 64 * 2**20


@dataclass
class RunOutcome:
    """How a sandboxed run ended, as plain data."""

    ended: str = "ok"
    """``ok``, ``timeout``, ``memory``, ``crashed``, ``exited`` (sys.exit) or ``tampered``"""
    where: str = ""
    """what was running when it ended early: ``cell 4`` or a probe id"""
    detail: str = ""
    cell_errors: list[tuple[int, str]] = field(default_factory=list)
    tampered: list[str] = field(default_factory=list)
    results: dict[str, dict[str, Any]] = field(default_factory=dict)
    """probe id -> ``{"ok": True, "outputs": {...}}`` or ``{"ok": False, "error": "..."}``"""
    landlock: int = 0
    seconds: float = 0.0


class _Ended(Exception):
    def __init__(self, ended: str, detail: str = ""):
        super().__init__(detail)
        self.ended, self.detail = ended, detail


def _signal_name(code: int) -> str:
    try:
        return signal.Signals(-code).name
    except ValueError:
        return f"signal {-code}"


def run_sandboxed(
    zygote: Zygote,
    *,
    cells: list[str],
    probes_source: str,
    probe_ids: list[str],
    seed: int,
    job: dict[str, Any],
    limits: SandboxLimits,
    box: Path,
    uid: int | None,
) -> RunOutcome:
    """Execute ``cells`` then the probes ``probe_ids`` in a fresh sandbox; never raises for
    anything the submission does."""
    shutil.rmtree(box, ignore_errors=True)
    box.mkdir(parents=True)
    os.chmod(box, 0o700)
    outcome = RunOutcome()
    start = time.monotonic()
    sock, pid, job_id = zygote.start(box, uid)
    conn = Connection(sock.detach())
    killed_for: str | None = None
    try:
        conn.send_bytes(json.dumps({**job, "cells": cells, "limits": asdict(limits)}).encode())
        _converse(conn, pid, outcome, limits, start, probes_source, probe_ids, seed)
    except _Ended as e:
        outcome.ended, outcome.detail = e.ended, e.detail
        if e.ended in ("timeout", "memory"):
            killed_for = e.ended
    except (EOFError, OSError):
        outcome.ended = "crashed"
    except (ValueError, KeyError, TypeError) as e:
        outcome.ended, outcome.detail = "tampered", f"the grading channel carried malformed data ({e})"
    finally:
        try:
            os.killpg(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        conn.close()
        code = zygote.wait(job_id)
        outcome.seconds = time.monotonic() - start
    if outcome.ended == "crashed" and killed_for is None:
        if code is not None and code < 0:
            outcome.detail = f"the process died with {_signal_name(code)}"
            if code == -signal.SIGXFSZ:
                outcome.detail = f"it wrote more than {limits.output_mb * 4} MiB of output"
        else:
            outcome.detail = "the process ended itself (os._exit or similar)"
    shutil.rmtree(box, ignore_errors=True)
    return outcome


def _converse(
    conn: Connection,
    pid: int,
    outcome: RunOutcome,
    limits: SandboxLimits,
    start: float,
    probes_source: str,
    probe_ids: list[str],
    seed: int,
) -> None:
    total_deadline = start + limits.submission_seconds
    step_deadline = min(start + limits.cell_seconds, total_deadline)

    def receive() -> dict[str, Any]:
        while True:
            now = time.monotonic()
            if now >= step_deadline:
                kind = "cell" if outcome.where.startswith("cell") else "test"
                limit = limits.cell_seconds if step_deadline < total_deadline else limits.submission_seconds
                scope = f"per {kind}" if step_deadline < total_deadline else "for the submission"
                raise _Ended("timeout", f"{limit:g} s {scope}")
            if conn.poll(min(0.05, step_deadline - now)):
                msg = json.loads(conn.recv_bytes(MAX_FRAME))
                if not isinstance(msg, dict):
                    raise ValueError("a frame that is not an object")
                return msg
            if rss_mb(pid) > limits.memory_mb:
                raise _Ended("memory", f"{limits.memory_mb} MiB")

    msg = receive()
    if msg.get("event") != "ready":
        raise ValueError("no ready message")
    outcome.landlock = int(msg.get("landlock", 0))
    while True:
        msg = receive()
        event = msg.get("event")
        if event == "cell":
            outcome.where = f"cell {int(msg['index']) + 1}"
            step_deadline = min(time.monotonic() + limits.cell_seconds, total_deadline)
        elif event == "cell_error":
            error = str(msg["error"])[:300]
            outcome.cell_errors.append((int(msg["index"]) + 1, error))
            if is_out_of_memory(error):
                # The allocation failed at the limit instead of growing past the watchdog.
                raise _Ended("memory", f"{limits.memory_mb} MiB")
        elif event == "exit":
            raise _Ended("exited", f"sys.exit() was called in cell {int(msg['index']) + 1}")
        elif event == "executed":
            outcome.tampered = [str(t) for t in msg.get("tampered", [])][:5]
            break
        else:
            raise ValueError(f"unexpected event {event!r}")

    conn.send_bytes(json.dumps({"source": probes_source, "ids": probe_ids, "seed": seed}).encode())
    while True:
        msg = receive()
        event = msg.get("event")
        if event == "probe":
            outcome.where = str(msg["id"])
            step_deadline = min(time.monotonic() + limits.cell_seconds, total_deadline)
        elif event == "result":
            probe_id = str(msg["id"])
            if probe_id not in probe_ids:
                raise ValueError(f"a result for unknown test {probe_id!r}")
            if msg.get("ok"):
                names = [str(n) for n in msg.get("blobs", [])]
                blobs = {n: conn.recv_bytes(MAX_FRAME) for n in names}
                outputs = decode_outputs(msg["meta"], blobs)
                outcome.results[probe_id] = {"ok": True, "outputs": outputs}
            else:
                outcome.results[probe_id] = {"ok": False, "error": str(msg.get("error"))[:300]}
        elif event == "done":
            for t in msg.get("tampered", []):
                if str(t) not in outcome.tampered:
                    outcome.tampered.append(str(t))
            outcome.where = ""
            return
        else:
            raise ValueError(f"unexpected event {event!r}")
