"""The sandboxed side of grading: runs in a process forked from the zygote, one per run.

It confines itself, executes the notebook's cells, then receives the hidden probes over its
socket (they are nowhere it could read while the cells ran), runs them and sends back plain
data: JSON frames, with probe outputs as ``.npy`` bytes. It never sees the reference solution
(unless it *is* the reference run) and never decides a score.

Messages it sends, in order (one JSON object per frame; ``blobs`` frames follow a result):
``ready`` → ``cell`` (i) [``cell_error``] ... → ``exit`` (sys.exit called) | ``executed`` →
``probe`` (id) → ``result`` ... → ``done``.
"""

from __future__ import annotations

import json
import os
import sys
import types
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from ..execution import compile_cell, fake_otter, new_namespace
from ..probing import ProbeSet, describe_exception, run_probe
from ..reference import compilation_cache_settings
from . import integrity, limits

MAX_FRAME = 64 * 2**20
_dumps = json.dumps  # captured before student code can replace it


class _CappedWriter:
    """stdout/stderr for student code: keeps the first ``limit`` characters, drops the rest."""

    def __init__(self, fd: int, limit: int):
        self._fd, self._left = fd, limit
        self.encoding = "utf-8"

    def write(self, text: str) -> int:
        if self._left > 0 and isinstance(text, str):
            chunk = text[: self._left]
            self._left -= len(chunk)
            try:
                os.write(self._fd, chunk.encode("utf-8", "replace"))
            except OSError:
                self._left = 0
        return len(text) if isinstance(text, str) else 0

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False


def _configure_jax(job: dict[str, Any]) -> None:
    """Device, device count and matmul precision, set before JAX creates its backends."""
    import jax

    if job["device"] == "gpu":
        # Several sandboxes share a GPU: allocate on demand instead of grabbing 75% each.
        os.environ["XLA_PYTHON_CLIENT_PREALLOCATE"] = "false"
        jax.config.update("jax_platforms", "cuda,cpu")
    else:
        jax.config.update("jax_platforms", "cpu")
    jax.config.update("jax_num_cpu_devices", int(job["cpu_devices"]))
    jax.config.update("jax_default_matmul_precision", job["matmul_precision"])
    if job.get("compilation_cache"):
        # XLA executables compiled by the reference run (same JAX, same device, same flags):
        # most eager ops and probe calls of a submission compile to the same programs, and
        # loading one costs milliseconds instead of a compile. Only the reference run writes.
        settings = compilation_cache_settings(job["compilation_cache"], writes=bool(job.get("cache_writes")))
        for name, value in settings.items():
            jax.config.update(name, value)
    # Start the backend (and its threads) now, inside the limits but before student code: a
    # submission that exhausts the process limit must not starve XLA of threads later.
    jax.devices()


def main(fd: int, request: dict[str, Any]) -> None:
    """Entry point in the forked process; never returns."""
    conn = Connection(fd)
    try:
        _run(conn, request)
    except BaseException:  # noqa: BLE001 - whatever happens, leave without unwinding into the zygote
        pass
    finally:
        os._exit(0)


_MAIN_PID = 0


def _send(conn: Connection, message: dict[str, Any], blobs: dict[str, bytes] | None = None) -> None:
    # A process the submission forked shares this socket; it must not speak for the sandbox.
    if os.getpid() != _MAIN_PID:
        os._exit(0)
    conn.send_bytes(_dumps(message).encode())
    for name in message.get("blobs", []):
        conn.send_bytes((blobs or {})[name])


def _run(conn: Connection, request: dict[str, Any]) -> None:
    global _MAIN_PID
    _MAIN_PID = os.getpid()
    os.setsid()
    job = json.loads(conn.recv_bytes(MAX_FRAME))
    box = Path(request["box"])
    box.mkdir(parents=True, exist_ok=True)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    out = os.open(box / "output.txt", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(out, 1)
    os.dup2(out, 2)
    os.chdir(box)
    for var in ("HOME", "TMPDIR", "MPLCONFIGDIR", "XDG_CACHE_HOME"):
        os.environ[var] = str(box)
    os.environ["MPLBACKEND"] = "Agg"
    sandbox_limits = limits.SandboxLimits(**job["limits"])
    cache = job.get("compilation_cache")
    abi = limits.apply(
        sandbox_limits,
        box,
        request.get("uid"),
        job["device"],
        shared_read=[cache] if cache and not job.get("cache_writes") else [],
        shared_write=[cache] if cache and job.get("cache_writes") else [],
    )
    _configure_jax(job)
    sys.modules["otter"] = fake_otter()
    writer = _CappedWriter(1, sandbox_limits.output_mb * 2**20)
    sys.stdout = sys.stderr = writer  # type: ignore[assignment]
    snap = integrity.snapshot()
    _send(conn, {"event": "ready", "landlock": abi})

    env = new_namespace()
    tampered: list[str] = []
    for i, source in enumerate(job["cells"]):
        _send(conn, {"event": "cell", "index": i})
        try:
            code = compile_cell(source, i)
            exec(code, env)  # noqa: S102 - this process exists to run untrusted code
            if os.getpid() != _MAIN_PID:
                os._exit(0)
        except SystemExit as e:
            if os.getpid() != _MAIN_PID:
                os._exit(0)
            _send(conn, {"event": "exit", "index": i, "code": str(e.code)[:50]})
            return
        except BaseException as e:  # noqa: BLE001
            if os.getpid() != _MAIN_PID:
                os._exit(0)
            _check(snap, tampered)
            _send(conn, {"event": "cell_error", "index": i, "error": describe_exception(e)})
        _check(snap, tampered)
    _send(conn, {"event": "executed", "tampered": tampered})

    # Only now do the hidden tests enter this process.
    spec = json.loads(conn.recv_bytes(MAX_FRAME))
    module = types.ModuleType("hidden_probes")
    exec(compile(spec["source"], "<hidden tests>", "exec"), module.__dict__)  # noqa: S102
    hidden: ProbeSet = module.hidden
    for probe_id in spec["ids"]:
        _send(conn, {"event": "probe", "id": probe_id})
        result = run_probe(hidden.get(probe_id), env, int(spec["seed"]))
        _check(snap, tampered)
        if result["ok"]:
            blobs = result["blobs"]
            _send(
                conn,
                {"event": "result", "id": probe_id, "ok": True, "meta": result["meta"], "blobs": list(blobs)},
                blobs,
            )
        else:
            _send(conn, {"event": "result", "id": probe_id, "ok": False, "error": result["error"]})
        _check(snap, tampered)
    _send(conn, {"event": "done", "tampered": tampered})


def _check(snap: integrity.Snapshot, tampered: list[str]) -> None:
    """Record what student code replaced since the snapshot, then put it back."""
    found = integrity.changes(snap)
    if found:
        tampered.extend(f for f in found if f not in tampered)
        integrity.restore(snap)
