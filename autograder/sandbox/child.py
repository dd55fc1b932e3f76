"""The sandboxed side of grading: runs in a process forked from the zygote, one per run.

It confines itself, executes the notebook's cells, then receives the hidden probes over its
socket (they are nowhere it could read while the cells ran), runs them and sends back plain
data: JSON frames, with probe outputs as ``.npy`` bytes. It never sees the reference solution
(unless it *is* the reference run) and never decides a score.

Messages it sends, in order (one JSON object per frame; ``blobs`` frames follow a result):
``ready`` → ``cell`` (i) [``cell_error``] ... → ``exit`` (sys.exit called) | ``executed`` →
``loaded`` → (one ``result`` per request the grader sends, carrying its nonce) ... → ``done``.
``tampered`` (evidence) may come at any point. The grader asks for one probe at a time and
accepts only the answer to the question it asked: which probes run, and in which order, is its
decision, not the sandbox's.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import sys
import types
from collections.abc import Callable, Iterator
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any, Protocol, cast

from ..probing import describe_exception, run_probe
from . import integrity, limits, privileges
from .execution import compile_cell, fake_otter, new_namespace
from .xla_cache import compilation_cache_settings

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


class _JaxConfig(Protocol):
    """``jax.config``, typed: JAX's ``Config.update`` has no annotations."""

    def update(self, name: str, val: Any, /) -> None: ...


def _configure_jax(job: dict[str, Any]) -> None:
    """Device, device count and matmul precision, set before JAX creates its backends."""
    import jax

    config = cast(_JaxConfig, jax.config)
    if job.get("xla_flags"):
        # Read when the first backend starts, below: the zygote imported JAX but started none.
        os.environ["XLA_FLAGS"] = f"{os.environ.get('XLA_FLAGS', '')} {job['xla_flags']}".strip()
    if job["device"] == "gpu":
        # Several sandboxes share a GPU: allocate on demand instead of grabbing 75% each.
        os.environ["XLA_PYTHON_CLIENT_PREALLOCATE"] = "false"
        config.update("jax_platforms", "cuda,cpu")
    else:
        config.update("jax_platforms", "cpu")
    config.update("jax_num_cpu_devices", int(job["cpu_devices"]))
    config.update("jax_default_matmul_precision", job["matmul_precision"])
    if job.get("compilation_cache"):
        # XLA executables compiled by the reference run (same JAX, same device, same flags):
        # most eager ops and probe calls of a submission compile to the same programs, and
        # loading one costs milliseconds instead of a compile. Only the reference run writes.
        settings = compilation_cache_settings(job["compilation_cache"], writes=bool(job.get("cache_writes")))
        for name, value in settings.items():
            config.update(name, value)
    # Start the backend (and its threads) now, inside the limits but before student code: a
    # submission that exhausts the process limit must not starve XLA of threads later. JAX logs
    # why a device plugin did not load (a library it could not open inside the sandbox) and then
    # only says the backend is unknown: that log is the cause, so a failure carries it.
    with _jax_warnings() as seen:
        try:
            jax.devices()
        except RuntimeError as e:
            raise RuntimeError(f"{e} [JAX logged: {' | '.join(seen)}]" if seen else str(e)) from None
    _share_mlir_context()


@contextlib.contextmanager
def _jax_warnings() -> Iterator[list[str]]:
    """The warnings JAX logs inside the block (their first lines, each cut to 300 characters)."""
    import logging

    seen: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            text = record.getMessage()
            if record.exc_info and record.exc_info[1] is not None:
                text += f": {type(record.exc_info[1]).__name__}: {record.exc_info[1]}"
            seen.append(text.replace("\n", " ")[:300])

    handler, logger = Keep(logging.WARNING), logging.getLogger("jax")
    logger.addHandler(handler)
    try:
        yield seen
    finally:
        logger.removeHandler(handler)


def _share_mlir_context() -> None:
    """Lower every program of this process into one MLIR context.

    JAX makes a fresh context, loading every dialect into it, for each program it lowers: about
    4 ms each, and an eager op is a program of its own, so a submission's cells and probes spent
    a quarter of their time there (1.2 s of 4.4 s for the 01 reference), even when XLA's compile
    was a cache hit. One context holds many modules; what is lowered into it, and so every
    program and compilation cache key, is the same. Skipped where JAX's hook is gone or now
    takes arguments (another JAX than the one this was checked on: 0.10.2)."""
    import inspect

    try:
        from jax._src.interpreters import mlir
    except ImportError:
        return
    make = getattr(mlir, "make_ir_context", None)
    if make is None or inspect.signature(make).parameters:
        return
    context = make()
    mlir.make_ir_context = lambda: context


def main(fd: int, request: dict[str, Any]) -> None:
    """Entry point in the forked process; never returns."""
    conn = Connection(fd)
    try:
        _run(conn, request)
    except BaseException:  # noqa: BLE001 - whatever happens, leave without unwinding into the zygote
        pass
    finally:
        os._exit(0)


def _fault(conn: Connection, error: BaseException) -> None:
    """Tell the grader that this sandbox could not be set up, and why: no student code has run
    yet, so the failure is the grader's own (the row becomes ``error``, never ``crashed``)."""
    import traceback

    frames = traceback.extract_tb(error.__traceback__)
    where = f" at {Path(frames[-1].filename).name}:{frames[-1].lineno}" if frames else ""
    text = f"{type(error).__name__}: {error}{where}"[:1500]
    try:
        conn.send_bytes(_dumps({"event": "fault", "error": text}).encode())
    except OSError:
        pass


_MAIN_PID = 0


def _send(conn: Connection, message: dict[str, Any], blobs: dict[str, bytes] | None = None) -> None:
    # A process the submission forked shares this socket; it must not speak for the sandbox.
    if os.getpid() != _MAIN_PID:
        os._exit(0)
    conn.send_bytes(_dumps(message).encode())
    for name in message.get("blobs", []):
        conn.send_bytes((blobs or {})[name])


def _SEND_RAW(conn: Connection, message: dict[str, Any]) -> None:  # noqa: N802 - a constant
    """The last word of a sandbox whose own code was tampered with: no helper it may have lost."""
    conn.send_bytes(_dumps(message).encode())


def _checks(root: tuple[Any, ...], against: integrity.Snapshot | None) -> None:
    """The checks between two steps of student code: the sandbox's own code is as it was and
    nothing traces it (if not, say so and stop), then, with ``against``, what student code
    replaced in the libraries since that snapshot (reported and put back by ``check``).

    Run only as ``fresh(checks_code, {})(root, against)`` (see :func:`_execute`): a new function
    made from this code object as it was before student code ran, so replacing
    ``_checks.__code__`` changes nothing that runs. It reads no global name and holds no
    closure: everything comes in ``root``, a tuple bound before student code ran."""
    conn, guarded, unguarded, unguarded_code, gettrace, getprofile, raw, leave, check = root
    if unguarded.__code__ is not unguarded_code:
        found = ["replaced the code of the grader's integrity check"]
    else:
        found = unguarded(guarded)
    if gettrace() is not None or getprofile() is not None:
        found.append("installed a trace or profile function")
    if found:
        try:
            raw(conn, {"event": "tampered", "evidence": found[:5]})
        finally:
            leave(0)
    if against is not None:
        check(against, conn)


def _run(conn: Connection, request: dict[str, Any]) -> None:
    try:
        state = _set_up(conn, request)
    except BaseException as e:  # noqa: BLE001 - before any student code: the grader's fault
        _fault(conn, e)
        raise
    _execute(conn, *state)


def _set_up(conn: Connection, request: dict[str, Any]) -> tuple[dict[str, Any], int, list[str]]:
    """Everything before the first cell: confinement, limits, JAX. Any failure here is reported
    as a ``fault`` (see :func:`_fault`)."""
    global _MAIN_PID
    os.setsid()
    privileges.set_subreaper()
    job = json.loads(conn.recv_bytes(MAX_FRAME))
    box = Path(request["box"])
    uid = request.get("uid")
    if uid is not None:
        os.chown(box, uid, uid)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    allowed = privileges.allowed_environment(dict(os.environ))
    os.environ.clear()
    os.environ.update(allowed)
    for var in ("HOME", "TMPDIR", "MPLCONFIGDIR", "XDG_CACHE_HOME"):
        os.environ[var] = str(box)
    os.environ["MPLBACKEND"] = "Agg"
    sandbox_limits = limits.SandboxLimits(**job["limits"])
    cache = job.get("compilation_cache")
    shared_read = [cache] if cache and not job.get("cache_writes") else []
    shared_write = [cache] if cache and job.get("cache_writes") else []
    try:
        # Forks where it makes a PID namespace: from here on this is process 1 of it.
        confined = privileges.confine(
            uid=uid,
            needed=[Path(p) for p in (*limits.readable_roots(), *shared_read)],
            writable=[Path(p) for p in shared_write],
            hidden=[Path(p) for p in job.get("hidden", [])],
            box=box,
            box_mb=limits.scratch_mb(sandbox_limits),
            devices=[d for d in limits.gpu_device_files() if d.startswith("/dev/")]
            if job["device"] == "gpu"
            else [],
            unix_sockets=job["device"] == "gpu",
        )
    except Exception:
        import traceback

        traceback.print_exc()  # into the zygote's log: stdout and stderr are still its
        raise
    _MAIN_PID = os.getpid()
    # The scratch folder, as the sandbox's user: a tmpfs of its own where it has a quota.
    os.chdir(box)
    out = os.open(box / "output.txt", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(out, 1)
    os.dup2(out, 2)
    os.close(out)
    abi = limits.apply(sandbox_limits, box, job["device"], shared_read=shared_read, shared_write=shared_write)
    _configure_jax(job)
    sys.modules["otter"] = fake_otter()
    writer = _CappedWriter(1, sandbox_limits.output_mb * 2**20)
    sys.stdout = sys.stderr = writer
    missing = list(confined.missing) + ([] if abi else ["Landlock (file and TCP confinement)"])
    return job, abi, missing


def _execute(conn: Connection, job: dict[str, Any], abi: int, missing: list[str]) -> None:
    """From here on, student code runs: the checks are made ready, then the cells
    (:func:`_cells`), then the probes the grader asks for (:func:`_probes`).

    Why splitting the phases keeps the checks as safe as one frame did. Student code can
    replace what it can reach: a module's names (this module's too), a function's ``__code__``,
    a closure's variables (through the garbage collector). It cannot change a code object, a
    tuple, a built-in type, or the fast locals of a running frame (``f_locals`` is a copy on
    Python 3.11; a trace function, which could write it back, is evidence at every check). So
    everything the checks use is bound here before the first cell: the tuple ``root`` and the
    code objects of :func:`_checks` and :func:`_probes`, handed to each phase as arguments, the
    fast locals of its frame. Every check runs as a new function made from ``_checks``'s code
    (``fresh(checks_code, {})``), so no function object decides what runs; ``check`` and
    ``report_added``, closures of this frame, are guarded (:func:`.integrity.guard`), so their
    new code or a rebound variable is evidence. :func:`_cells` starts before any student code,
    so it runs as written; the probes start after, so :func:`_probes` runs from its code
    captured here, in this module's namespace, which the check after the last cell has just
    put back as it was."""
    snap = integrity.snapshot()
    channel = integrity.snapshot(integrity.CHANNEL_MODULES, ("autograder",))
    library = integrity.names()
    # Bound to locals before student code runs: replacing the module attributes (or their code
    # objects) later changes nothing in this frame, which keeps its own references.
    send, recv, loads = _send, conn.recv_bytes, json.loads
    changes, restore, added = integrity.changes, integrity.restore, integrity.added

    def report_added(last: tuple[int, ...]) -> tuple[int, ...]:
        """Send every name added to a library since the cells began (a gate that reads one fails
        closed in the grader, which keeps them all); ``()`` as ``last`` compares every namespace."""
        found, counts = added(library, last)
        if found:
            send(conn, {"event": "added", "names": found})
        return counts

    def check(snap: integrity.Snapshot, conn: Connection) -> bool:
        """Report what student code replaced since the snapshot, then put it back. It reads
        no global name: ``child.integrity = fake`` must not disarm it."""
        found = changes(snap)
        if found:
            restore(snap)  # first: the evidence must not travel through what was replaced
            send(conn, {"event": "tampered", "evidence": found})
        return True

    copy, first = dataclasses.replace, next
    guarded = integrity.guard(
        send,
        check,
        run_probe,
        _SEND_RAW,
        changes,
        restore,
        integrity._unchanged,
        integrity.snapshot,
        added,
        report_added,
    )
    unguarded = integrity.unguarded
    # The root of the checks (see the docstring): _checks unpacks it in this order.
    root = (
        conn,
        guarded,
        unguarded,
        unguarded.__code__,
        sys.gettrace,
        sys.getprofile,
        _SEND_RAW,
        os._exit,
        check,
    )
    fresh, checks_code, probes_code, here = types.FunctionType, _checks.__code__, _probes.__code__, globals()

    send(conn, {"event": "ready", "landlock": abi, "missing": missing})
    env = new_namespace()
    if not _cells(conn, job["cells"], env, send, fresh, checks_code, root, channel):
        return
    fresh(checks_code, {})(root, snap)
    counts = report_added(())
    send(conn, {"event": "executed"})
    fresh(probes_code, here)(
        conn, env, (send, recv, loads, copy, first, report_added), counts, fresh, checks_code, root, snap
    )
    report_added(())
    send(conn, {"event": "done"})


def _cells(
    conn: Connection,
    cells: list[str],
    env: dict[str, Any],
    send: Callable[..., None],
    fresh: type[types.FunctionType],
    checks_code: types.CodeType,
    root: tuple[Any, ...],
    channel: integrity.Snapshot,
) -> bool:
    """Run the notebook's ``cells`` in ``env``, each followed by the checks of the channel's
    modules (see :func:`_execute` for why they hold). False when a cell ended the notebook
    (``sys.exit``): no probe runs then."""
    for i, source in enumerate(cells):
        send(conn, {"event": "cell", "index": i})
        try:
            code = compile_cell(source, i)
            exec(code, env)  # noqa: S102 - this process exists to run untrusted code
            if os.getpid() != _MAIN_PID:
                os._exit(0)
        except SystemExit as e:
            if os.getpid() != _MAIN_PID:
                os._exit(0)
            fresh(checks_code, {})(root, None)
            send(conn, {"event": "exit", "index": i, "code": str(e.code)[:50]})
            return False
        except BaseException as e:  # noqa: BLE001
            if os.getpid() != _MAIN_PID:
                os._exit(0)
            fresh(checks_code, {})(root, channel)
            send(conn, {"event": "cell_error", "index": i, "error": describe_exception(e)})
        fresh(checks_code, {})(root, channel)
    return True


def _probes(
    conn: Connection,
    env: dict[str, Any],
    bound: tuple[Any, ...],
    counts: tuple[int, ...],
    fresh: type[types.FunctionType],
    checks_code: types.CodeType,
    root: tuple[Any, ...],
    snap: integrity.Snapshot,
) -> None:
    """Load the hidden tests, then run each probe the grader asks for on the notebook's
    ``env``, each followed by the whole check (see :func:`_execute` for why it holds).
    ``bound``: what :func:`_execute` bound before student code ran."""
    send, recv, loads, copy, first, report_added = bound
    # Only now do the hidden tests enter this process; never the batch's seed, only each
    # probe's own, with the request that runs it.
    spec = loads(recv(MAX_FRAME))
    module = types.ModuleType("hidden_probes")
    exec(compile(spec["source"], "<hidden tests>", "exec"), module.__dict__)  # noqa: S102
    del spec
    # Tuples only: a dict here could be found (gc) and given a forged entry. Each probe runs as
    # a fresh copy holding the body read now, so a body swapped on the shared Probe runs nowhere.
    probes = tuple((p.id, p, p.body, p.body.__code__) for p in module.hidden.probes)
    module_items = tuple(module.__dict__.items())
    send(conn, {"event": "loaded"})
    while True:
        req = loads(recv(MAX_FRAME))
        if req.get("end"):
            break
        pid, nonce = str(req["run"]), str(req["nonce"])
        probe, body, code = first((p, b, c) for i, p, b, c in probes if i == pid)
        result = run_probe(copy(probe, body=body), env, int(req["seed"]))
        fresh(checks_code, {})(root, snap)
        counts = report_added(counts)
        changed = [name for name, value in module_items if module.__dict__.get(name) is not value]
        swapped = [i for i, p, b, c in probes if p.body is not b or b.__code__ is not c]
        if swapped or changed:
            _SEND_RAW(conn, {"event": "tampered", "evidence": ["changed the hidden tests while they ran"]})
            os._exit(0)
        if result["ok"]:
            blobs = result["blobs"]
            message = {"event": "result", "id": pid, "nonce": nonce, "ok": True, "meta": result["meta"]}
            send(conn, {**message, "blobs": list(blobs)}, blobs)
        else:
            send(conn, {"event": "result", "id": pid, "nonce": nonce, "ok": False, "error": result["error"]})
