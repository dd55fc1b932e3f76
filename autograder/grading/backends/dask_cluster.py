"""Grading a batch on a Dask cluster: ``grade --cluster local:N`` or ``--scheduler ADDRESS``.

The unit of work is one task per submission: its plain data in (name, key, fingerprint, code
cells, the questions it is graded on), its record as plain data out (the ``results.json`` dict,
read back with :meth:`Record.from_results`). Nothing else moves per task.

- **Once per batch**, the instructor's process computes the reference outputs (or loads them
  from its store) and registers a worker plugin, :class:`CourseBuild`, that carries
  :meth:`Grader.build`: the assignment's settings, probes, stub cells, limits, seed and
  reference outputs, as plain data, and no master notebook. The scheduler hands it to every
  worker, those that join later or restart included; its setup checks that the worker runs the
  same grader code and libraries and fills that host's public compilation cache if no grader
  has. Each worker process keeps one zygote for every batch it grades (:func:`worker_zygote`):
  a running cluster imports JAX once per worker, not once per batch. Workers read nothing of
  the instructor's file system: they need this package and the pinned environment installed,
  nothing else.
- **Every worker keeps the same rules**: the same :class:`Grader` and sandboxes, the sandbox user
  ids derived from the worker's own process id, and its Dask folder, the instructor's OUT and
  the project hidden from every sandbox. A protection a worker's kernel lacks is named in the
  rows that worker graded ("the sandbox lacked: ... (worker tcp://... on HOST)").
- **Faults**: a worker that dies mid-task has its task run again elsewhere by the scheduler (a
  future yields one result, so a submission gets exactly one row); one whose workers die every
  time becomes a ``crashed`` row after ``allowed-failures`` + 1 tries (the scheduler's setting:
  :data:`ALLOWED_FAILURES` on a LocalCluster, Dask's default 3 elsewhere); a task that raises
  (a worker that could not set up) is retried :data:`RETRIES` times, then an ``error`` row; a
  lost scheduler ends the run with :class:`GradingFailed` (exit status 1) after the rows
  already written, which a rerun of the same command keeps.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import os
import platform
import secrets
import subprocess
import sys
import threading
from collections.abc import Generator, Iterator, Sequence
from dataclasses import asdict, replace
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

import dask
from distributed import Client, LocalCluster, WorkerPlugin, as_completed, get_worker
from distributed.scheduler import KilledWorker

from ...config import ROOT
from ...errors import GradingFailed
from ...probing import shorten
from ...sandbox import landlock
from ...sandbox.run import remove_tree
from ...sandbox.zygote import Zygote
from ..collect import Submission
from ..grader import Grader
from ..judge import error_record, make_record
from ..records import Record, grader_failed
from ..report.console import Console

#: On a LocalCluster: a submission whose worker died this many times plus one is ``crashed``.
ALLOWED_FAILURES = 2
#: Tries again of a task that raised (not one whose worker died: that is ``allowed-failures``).
RETRIES = 2
#: Seconds to reach a scheduler given with ``--scheduler``.
CONNECT_SECONDS = 30
_CLONE_NEWNET, _CLONE_NEWUSER = 0x40000000, 0x10000000


def environment() -> dict[str, str]:
    """What must be the same on the instructor's machine and on every worker for a row to mean
    the same: the grader's own code, and the libraries that compute and judge the numbers."""
    code = hashlib.sha256()
    package = Path(__file__).resolve().parents[2]  # autograder/
    for path in sorted(package.rglob("*.py")):
        code.update(path.relative_to(package).as_posix().encode() + b"\0" + path.read_bytes())
    found = {"grader code": code.hexdigest()[:16]}
    for dist in ("jax", "jaxlib", "numpy"):
        try:
            found[dist] = version(dist)
        except PackageNotFoundError:
            found[dist] = "missing"
    return found


def network_sealed() -> bool:
    """Whether a sandbox on this machine gets no TCP: a network namespace of its own (as root,
    or in a user namespace) or Landlock's TCP rules (ABI >= 4, Linux >= 6.7). On a cluster a
    sandbox with TCP could reach the Dask scheduler, and through it run code on every worker."""
    if landlock.abi_version() >= 4:
        return True
    if not sys.platform.startswith("linux"):
        return False
    flags = _CLONE_NEWNET | (0 if os.geteuid() == 0 else _CLONE_NEWUSER)
    # In a fresh process: a Dask worker has threads, and unshare changes the caller for good.
    probe = "import ctypes, sys; sys.exit(ctypes.CDLL(None, use_errno=True).unshare(int(sys.argv[1])) != 0)"
    try:
        return subprocess.run([sys.executable, "-c", probe, str(flags)], timeout=60).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


_zygotes: dict[str, Zygote] = {}
_zygotes_lock = threading.Lock()


def worker_zygote(worker: Any) -> Zygote:
    """The zygote every batch on ``worker`` forks its sandboxes from: started by the first
    batch's setup, so that its imports (~2 s) overlap the rest of it, and again if it died. It
    never runs student code, so batches can share it; it ends with the worker's process (its
    control socket closes), its log in the worker's own folder, which sandboxes never see."""
    with _zygotes_lock:
        zygote = _zygotes.get(worker.address)
        if zygote is None or not zygote.alive():
            if zygote is not None:
                zygote.close()
            zygote = Zygote(Path(worker.local_directory) / "autograder-zygote.log")
            _zygotes[worker.address] = zygote
        return zygote


def name_worker(notes: Sequence[str], worker: str) -> list[str]:
    """``notes`` with the worker named where a protection was missing from its sandbox: a
    cluster's machines differ, and the row must say which one graded it that way."""
    return [f"{n} ({worker})" if n.startswith("the sandbox lacked") else n for n in notes]


class CourseBuild(WorkerPlugin):
    """One batch's course build and reference outputs, on each worker once: the grader that
    grades the batch's tasks there."""

    def __init__(self, name: str, build: dict[str, Any], environment: dict[str, str], hide: list[str]):
        self.name, self.build, self.environment, self.hide = name, build, environment, hide
        self.grader: Grader | None = None
        self.failure = ""

    async def setup(self, worker: Any) -> None:
        # Starting a zygote and filling a cache take seconds: not on the worker's event loop.
        await asyncio.get_running_loop().run_in_executor(None, self._setup, worker)

    def _setup(self, worker: Any) -> None:
        try:
            zygote = worker_zygote(worker)
            here = environment()
            differ = [
                f"{k} {here.get(k)} (the instructor's: {v})"
                for k, v in self.environment.items()
                if here.get(k) != v
            ]
            if differ:
                raise RuntimeError(
                    f"worker {worker.address} has {', '.join(differ)}: install the same everywhere"
                )
            if not network_sealed():
                raise RuntimeError(
                    f"worker {worker.address} cannot cut its sandboxes off the network (no network "
                    "namespace, and Landlock without TCP rules), so a notebook could reach the Dask "
                    "scheduler: run it as root, allow user namespaces, or use Linux >= 6.7"
                )
            out = Path(worker.local_directory) / self.name
            grader = Grader.from_build(
                self.build,
                out,
                hide=[worker.local_directory, *self.hide],
                jobs=worker.state.nthreads,
                shared_zygote=zygote,
            )
            grader.references.warm()
            self.grader = grader
        except Exception as e:
            self.failure = shorten(f"{type(e).__name__}: {e}", 300)
            raise

    def teardown(self, worker: Any) -> None:
        if self.grader is not None:  # the worker's zygote stays for the next batch
            self.grader.__exit__(None, None, None)
            remove_tree(self.grader.out)
            self.grader = None

    def grade(self, data: dict[str, Any], worker: Any) -> dict[str, Any]:
        grader = self.grader
        if grader is None:
            raise RuntimeError(f"worker {worker.address} cannot grade: {self.failure or 'not set up'}")
        grader.sandboxes.revive()
        sub = Submission(
            name=str(data["name"]),
            key=str(data["key"]),
            fingerprint=str(data["fingerprint"]),
            cells=tuple(str(c) for c in data["cells"]),
            notes=tuple(str(n) for n in data["notes"]),
            questions=None if data["questions"] is None else tuple(str(q) for q in data["questions"]),
        )
        record = grader.grade(sub)
        where = f"worker {worker.address} on {platform.node()}"
        return replace(record, notes=name_worker(record.notes, where)).to_results()


def grade_submission(plugin: str, submission: dict[str, Any]) -> dict[str, Any]:
    """The task: one submission's plain data in, its record's plain data out."""
    worker = get_worker()
    course = worker.plugins.get(plugin)
    if not isinstance(course, CourseBuild):
        raise RuntimeError(f"worker {worker.address} has no course build {plugin}")
    return course.grade(submission, worker)


class _SchedulerLost(Exception):
    pass


def cluster_records(
    grader: Grader,
    todo: Sequence[Submission],
    *,
    scheduler: str | None = None,
    workers: int | None = None,
    console: Console | None = None,
) -> Generator[Record]:
    """Grade ``todo`` on the cluster at ``scheduler``, or on a LocalCluster of ``workers``
    processes started here, yielding each record as it arrives; as
    :func:`autograder.grading.batch.local_records` does on this machine. ``console`` is told the
    cluster's size and its dashboard's link (nothing is printed without one)."""
    ship = []
    for s in todo:
        if s.problem:
            yield grader.grade(s)  # invalid: its row is already known here, no sandbox runs
        else:
            ship.append(s)
    if not ship:
        return
    where = f"the Dask scheduler at {scheduler}" if scheduler else f"the LocalCluster of {workers} workers"
    done = 0
    with contextlib.ExitStack() as stack:
        stack.enter_context(_quiet_logs())
        client = _client(stack, scheduler, workers)
        if console is not None and not console.quiet:
            info = client.scheduler_info()["workers"]
            threads = sum(w.get("nthreads", 0) for w in info.values())
            console.say(
                f"grading on {where}: {len(info)} workers, {threads} threads; "
                f"dashboard: {client.dashboard_link}"
            )
        token = secrets.token_hex(4)
        name = f"autograder-{grader.assignment.id}-{token}"
        plugin = CourseBuild(name, grader.build(), environment(), [str(grader.out.resolve()), str(ROOT)])
        stack.callback(_unregister, client, name)  # the scheduler keeps it even if a setup failed
        try:
            client.register_plugin(plugin, name=name)
        except Exception as e:  # noqa: BLE001 - a worker's setup failed: one line says why
            raise GradingFailed(f"a Dask worker cannot grade: {shorten(str(e), 300)}") from None
        futures = {
            client.submit(grade_submission, name, asdict(s), key=f"grade-{token}-{i}", retries=RETRIES): s
            for i, s in enumerate(ship)
        }
        for fut in as_completed(futures, loop=client.loop):  # type: ignore[no-untyped-call]  # distributed's
            try:
                record = _record(grader, futures[fut], fut)
            except _SchedulerLost:
                raise GradingFailed(
                    f"lost the connection to {where} with {len(ship) - done} submission(s) still to "
                    f"grade; the rows graded so far are kept in {grader.out / 'gradebook.csv'}, and "
                    "running the same command again grades the rest"
                ) from None
            done += 1
            yield record


def _record(grader: Grader, sub: Submission, fut: Any) -> Record:
    try:
        data = fut.result()
    except KilledWorker as e:
        return make_record(
            grader.scoring,
            sub,
            "crashed",
            f"The worker grading this notebook died each of the {e.allowed_failures + 1} times it was "
            "tried (a notebook that brings its grader down, or workers stopped from outside); no "
            "question was graded. If the cluster was at fault, grading it again may succeed.",
            {},
            [],
        )
    except Exception as e:  # noqa: BLE001 - sorted below: the task's own failure or the cluster's
        if fut.status != "error":  # cancelled, or its result unreachable: the scheduler is gone
            raise _SchedulerLost from e
        return error_record(
            grader.scoring,
            sub,
            grader_failed(
                f"The grader failed on this submission on a Dask worker ({type(e).__name__}: "
                f"{shorten(str(e), 160)})"
            ),
        )
    try:
        record = Record.from_results(data)
        got = (record.submission, record.key, record.fingerprint, record.seed, record.possible)
        ok = got == (sub.name, sub.key, sub.fingerprint, grader.seed, grader.possible) and list(
            record.questions
        ) == sub.graded_on(grader.questions)
    except (KeyError, TypeError, ValueError, AttributeError):
        ok = False
    if not ok:
        return error_record(
            grader.scoring,
            sub,
            grader_failed("A Dask worker returned a record that is not this submission's"),
        )
    return record


def _client(stack: contextlib.ExitStack, scheduler: str | None, workers: int | None) -> Client:
    if scheduler is not None:
        try:
            client: Client = Client(  # type: ignore[no-untyped-call]  # distributed's
                scheduler, timeout=CONNECT_SECONDS, set_as_default=False
            )
            stack.enter_context(client)  # its __enter__ returns itself, untyped
            return client
        except (OSError, TimeoutError) as e:
            raise GradingFailed(
                f"cannot reach the Dask scheduler at {scheduler} within {CONNECT_SECONDS} s "
                f"({type(e).__name__})"
            ) from None
    cluster = stack.enter_context(local_cluster(workers or 1))
    local: Client = Client(cluster, set_as_default=False)  # type: ignore[no-untyped-call]  # distributed's
    stack.enter_context(local)
    return local


def local_cluster(workers: int) -> LocalCluster:
    """The LocalCluster of ``--cluster local:N``: N worker processes of one thread each (one
    sandbox at a time per worker, as ``--jobs`` runs one per thread), on the loopback only."""
    # One task per worker thread at a time, none queued behind it: a worker that dies then
    # counts against the submission it was grading only (Dask counts it against every task the
    # worker held, and lets each be held by dying workers ALLOWED_FAILURES times). No
    # statistical profiler: it samples every thread's stack every 10 ms in the worker's process,
    # where the grading thread's own Python (judging, reading the gates) waits for the GIL, and
    # a task's profile (a wait on its sandbox) tells nothing.
    settings = {"distributed.scheduler.worker-saturation": 1.0, "distributed.worker.profile.enabled": False}
    with dask.config.set(settings):
        return LocalCluster(  # type: ignore[no-untyped-call]  # distributed's
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address="127.0.0.1:0",
            silence_logs=_log_level(),
            scheduler_kwargs={"allowed_failures": ALLOWED_FAILURES},
        )


def _unregister(client: Client, name: str) -> None:
    """Take the batch's plugin off the cluster (each worker's teardown closes its zygote)."""
    if client.status == "running":
        with contextlib.suppress(Exception):
            client.unregister_worker_plugin(name)  # type: ignore[no-untyped-call]  # distributed's


def _log_level() -> int:
    return logging.DEBUG if os.environ.get("AUTOGRADER_DEBUG") else logging.CRITICAL


@contextlib.contextmanager
def _quiet_logs() -> Iterator[None]:
    """Dask's own log lines (a reconnecting client's tracebacks, a dead worker's warnings) stay
    out of the grader's output, which says what happened in its own words; set
    ``AUTOGRADER_DEBUG=1`` to see them."""
    # Dask's configuration gives some of its loggers levels of their own (distributed.client).
    names = ["distributed"] + [n for n in logging.root.manager.loggerDict if n.startswith("distributed.")]
    before = {name: logging.getLogger(name).level for name in names}
    for name in names:
        logging.getLogger(name).setLevel(_log_level())
    try:
        yield
    finally:
        for name, level in before.items():
            logging.getLogger(name).setLevel(level)
