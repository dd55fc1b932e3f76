"""The grader of one assignment: its reference run and store, its sandboxes, one submission's
grading (execute, then the pure :func:`.judge.judge`). :mod:`.batch` runs it over a batch on this
machine; :mod:`.backends.dask_cluster` runs copies of it on Dask workers (:meth:`Grader.build` /
:meth:`Grader.from_build`).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import queue
import secrets
import threading
from collections.abc import Collection, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, fields
from pathlib import Path
from typing import Any

from ..config import ROOT, Assignment, Course
from ..errors import stops_the_batch
from ..master_format import stub_source
from ..notebooks import code_cells, read_notebook
from ..probing import (
    ProbeSet,
    decode_run,
    probe_seed,
    run_probe,
)
from ..sandbox import landlock
from ..sandbox.limits import MAX_SANDBOXES, SandboxLimits, sandbox_user
from ..sandbox.run import RunOutcome, run_sandboxed
from ..sandbox.zygote import Zygote, start_zygote
from .collect import Submission
from .gates import source_namespace
from .judge import Scoring, judge, make_record
from .records import Record, disk_full
from .reference import Store, cache_root, decode_results, encode_results, host_key, prune

#: The sandbox slots of the instructor's own runs: the reference's, and the stub's that fills the
#: public compilation cache beside it (submissions take 1 to ``jobs``). Under root a slot is a
#: user id, and a finished run kills every process of its id, so the two must differ.
REFERENCE_SLOT, STUB_SLOT = 0, -1


#: XLA flags of every sandbox on the CPU, the reference's included (they are part of the job, and
#: so of the store's key). Once its functions are defined, a submission's run is mostly XLA
#: compiling them for the probes' inputs, once each (~30 ms for even one eager op), to programs
#: that then run for microseconds. Without LLVM's optimisation passes, and with XLA:CPU's older
#: elemental emitters instead of its MLIR fusion emitters, a submission compiles in about half
#: the time (02-prng, a whole submission: 19 s of probes -> 9 s). Both flags change how fast the
#: compiled code runs, not which operations it computes (fast-math stays off), and the probes'
#: timing judges (04-jit q9) time a simulated device, not XLA code.
CPU_XLA_FLAGS = ("--xla_backend_optimization_level=0",)
#: Flags that XLA has renamed or may drop: an unknown flag in XLA_FLAGS aborts the process, so
#: these are used only with the jaxlib versions they were checked on.
CPU_XLA_FLAGS_CHECKED = {"0.10.2": ("--xla_cpu_use_fusion_emitters=false",)}


def cpu_xla_flags() -> str:
    """The XLA flags of sandboxes on the CPU, for the jaxlib installed here."""
    from jaxlib.version import __version__

    return " ".join((*CPU_XLA_FLAGS, *CPU_XLA_FLAGS_CHECKED.get(__version__, ())))


class GradingFailed(Exception):
    """Grading itself failed (exit status 1): the grader's fault, never a student's."""


class Grader:
    """Grades submissions of one assignment on one device, reusing one reference run."""

    def __init__(
        self,
        course: Course,
        assignment: Assignment,
        out: Path,
        *,
        device: str = "cpu",
        limits: SandboxLimits | None = None,
        cpu_devices: int | None = None,
        seed: int,
        jobs: int = 1,
        zygote: Zygote | None = None,
    ):
        """``cpu_devices`` below the assignment's ``min_devices`` is raised to it: scores must
        not depend on the machine (a test of the course on fewer devices lowers the floor in its
        own copy of the course: :func:`autograder.config.with_device_floor`). ``zygote``: one
        already started by :func:`start_zygote` (this grader closes it), so that its imports
        overlap this one's set-up; by default the first sandbox run starts one."""
        from ..sandbox.execution import load_probes

        self.course, self.assignment, self.out, self.device = course, assignment, out, device
        self.master = read_notebook(assignment.master)
        self.stub = [stub_source(c) for c in code_cells(self.master)]
        """the student's stub: the master's code cells with each solution replaced by ``...``"""
        self.questions = {q: float(points) for q, points in assignment.points.items()}
        self.probes: ProbeSet = load_probes(assignment.probes_file)
        self.probes_source = assignment.probes_file.read_text(encoding="utf-8")
        self._score_table()
        self.seed = seed
        base = SandboxLimits(**course.limits_for(assignment).model_dump())
        self.limits = limits or base
        # The course's own runs (the reference, the stub) compile every program cold, once per
        # batch: never under limits tighter than course.yml's, which flags set for submissions.
        self.trusted_limits = SandboxLimits(
            **{f.name: max(getattr(self.limits, f.name), getattr(base, f.name)) for f in fields(base)}
        )
        self.notes: list[str] = []
        self.job = self._job(cpu_devices)
        self._lifecycle(jobs)
        self.zygote = zygote

    def _score_table(self) -> None:
        self.points = {
            pid: pts
            for q, total in self.questions.items()
            for pid, pts in self.probes.points(q, total).items()
        }

    def _lifecycle(self, jobs: int) -> None:
        self.hide: list[str] = []
        """folders every sandbox sees empty, beside the project and OUT"""
        self.zygote: Zygote | None = None
        self._zygote_lock = threading.Lock()
        self._slots: queue.Queue[int] = queue.Queue()
        for slot in range(1, min(jobs, MAX_SANDBOXES) + 1):
            self._slots.put(slot)
        self._reference: dict[str, dict[str, Any]] | None = None

    # -- the course build, for graders elsewhere ------------------------------------------------

    def build(self) -> dict[str, Any]:
        """What a grader on another machine needs to grade exactly like this one, as plain
        (JSON-able) data: the course build of this assignment without its master notebook (so
        without the solution) and the reference outputs. A Dask worker receives it once per
        batch (:mod:`autograder.grading.backends.dask_cluster`) and grades with :meth:`from_build`."""
        return {
            "assignment": self.assignment.model_dump(mode="json"),
            "device": self.device,
            "questions": self.questions,
            "probes": self.probes_source,
            "stub": self.stub,
            "job": self.job,
            "notes": self.notes,
            "limits": asdict(self.limits),
            "trusted_limits": asdict(self.trusted_limits),
            "seed": self.seed,
            "store": self.store_digests,
            "reference": encode_results(self.reference()),
        }

    @classmethod
    def from_build(
        cls, build: Mapping[str, Any], out: Path, *, hide: Sequence[str] = (), jobs: int = 1
    ) -> Grader:
        """A grader from another's :meth:`build` alone: it reads no file of the course, never
        runs the reference, and keeps its sandboxes, zygote log and (where the user's cache
        folder cannot be written) compilation cache under ``out``; ``hide``: more folders
        every sandbox sees empty; ``jobs``: sandboxes at once."""
        from ..sandbox.execution import probes_from_source

        self = cls.__new__(cls)
        self.assignment = Assignment.model_validate(build["assignment"])
        self.out, self.device = out, str(build["device"])
        self.stub = [str(c) for c in build["stub"]]
        self.questions = {str(q): float(v) for q, v in build["questions"].items()}
        self.probes_source = str(build["probes"])
        self.probes = probes_from_source(self.probes_source, self.assignment.id)
        self._score_table()
        self.seed = int(build["seed"])
        self.limits = SandboxLimits(**build["limits"])
        self.trusted_limits = SandboxLimits(**build["trusted_limits"])
        self.notes = [str(n) for n in build["notes"]]
        self.job = dict(build["job"])
        self._lifecycle(jobs)
        self.hide = [str(p) for p in hide]
        self.store_digests = [str(d) for d in build["store"]]
        self._reference = decode_results(build["reference"])
        return self

    def _job(self, cpu_devices: int | None) -> dict[str, Any]:
        devices = self.assignment.devices
        n = cpu_devices or devices.cpu_devices
        platform = self.device
        if self.device == "gpu" and devices.min_devices > 1 and gpu_count() < devices.min_devices:
            platform = "cpu"
            n = max(n, devices.cpu_devices, devices.min_devices)
            self.notes.append(
                f"graded on {n} virtual CPU devices: this machine has fewer than "
                f"{devices.min_devices} GPUs, and data-parallel mistakes are invisible on one device"
            )
        elif n < devices.min_devices:
            n = devices.min_devices
            self.notes.append(
                f"graded on {n} virtual CPU devices (at least {devices.min_devices}: "
                "data-parallel mistakes are invisible on one device)"
            )
        return {
            "device": platform,
            "cpu_devices": n,
            "matmul_precision": self.course.grading.matmul_precision,
            "xla_flags": cpu_xla_flags() if platform == "cpu" else "",
        }

    # -- lifecycle --------------------------------------------------------------------------

    def __enter__(self) -> Grader:
        return self

    def _zygote(self) -> Zygote:
        """The zygote, started by the first sandbox run (none when every result is stored)."""
        with self._zygote_lock:
            if self.zygote is None:
                self.zygote = start_zygote(self.out)
            return self.zygote

    def __exit__(self, *exc: object) -> None:
        if self.zygote is not None:
            self.zygote.close()

    def _run(
        self, cells: list[str], slot: int, probes: list[str], cache: Path | None, *, writes: bool = False
    ) -> RunOutcome:
        """Run cells, then the ``probes`` (ids), in a sandbox that reads (or, with ``writes``,
        fills) the compilation cache ``cache``; a run that ``writes`` is the course's own code,
        under :attr:`trusted_limits`."""
        zygote = self._zygote()
        sandbox = self.out / ".sandbox"
        sandbox.mkdir(parents=True, exist_ok=True)
        os.chmod(sandbox, 0o711)
        uid = sandbox_user(slot)
        job = dict(self.job, hidden=[str(ROOT), str(self.out.resolve()), *self.hide])
        if cache is not None and writes:
            cache.mkdir(parents=True, exist_ok=True)
            if uid is not None:
                os.chown(cache, uid, uid)
            job.update(compilation_cache=str(cache), cache_writes=True)
        elif cache is not None and cache.is_dir() and landlock.abi_version() > 0:
            job.update(compilation_cache=str(cache))
        try:
            return run_sandboxed(
                zygote,
                cells=cells,
                probes_source=self.probes_source,
                requests=[(pid, probe_seed(self.seed, pid)) for pid in probes],
                job=job,
                limits=self.trusted_limits if writes else self.limits,
                # A fresh name each run: whatever a sandbox did to its folder cannot stop the next.
                box=sandbox / f"slot-{slot}-{secrets.token_hex(6)}",
                uid=uid,
            )
        finally:
            if cache is not None and writes and uid is not None:
                # Back to the grader's user: the sandbox user ids are reused by submissions.
                for path in (cache, *cache.rglob("*")):
                    os.chown(path, os.getuid(), os.getgid(), follow_symlinks=False)
                    os.chmod(path, 0o755 if path.is_dir() else 0o644, follow_symlinks=False)

    def sandbox_probes(self, questions: Collection[str]) -> list[str]:
        """Ids of the probes of ``questions`` that run in the sandbox (not the source probes)."""
        return [p.id for p in self.probes.probes if p.question in questions and not p.source]

    def source_results(self, cells: Sequence[str], questions: Collection[str]) -> dict[str, dict[str, Any]]:
        """Outcomes of the source probes of ``questions``, run here on the cells' text."""
        functions = [
            f
            for q in questions
            if q in self.assignment.questions
            for f in self.assignment.questions[q].functions
        ]
        ns = source_namespace(cells, functions)
        return {
            p.id: decode_run(run_probe(p, ns, probe_seed(self.seed, p.id)))
            for p in self.probes.probes
            if p.source and p.question in questions
        }

    # -- reference ----------------------------------------------------------------------------

    @functools.cached_property
    def store_digests(self) -> list[str]:
        """sha256 digests of what the reference results depend on, bar the host (see
        :func:`autograder.grading.reference.store_key`)."""
        import jax

        parts = [
            self.assignment.master.read_bytes(),
            self.probes_source.encode(),
            *(f.read_bytes() for f in sorted((Path(__file__).parent.parent / "probing").glob("*.py"))),
            json.dumps(self.job, sort_keys=True).encode(),
            jax.__version__.encode(),
        ]
        return [hashlib.sha256(part).hexdigest() for part in parts]

    @functools.cached_property
    def store(self) -> Store:
        """Where this assignment's reference results are kept for this job and host: the user's
        cache folder, or ``OUT/.cache`` where that cannot be written, or where sandboxes run as
        other users who could not read it."""
        key = host_key(self.store_digests)
        root = cache_root()
        try:
            root.mkdir(parents=True, exist_ok=True)
            usable = os.access(root, os.W_OK | os.X_OK)
        except OSError:
            usable = False
        if not usable:
            root = self.out / ".cache"
        return Store(root / f"{self.assignment.id}-{key}")

    def reference(self) -> dict[str, dict[str, Any]]:
        """Every probe's outputs on the reference solution, from its store, or computed there
        first in a sandbox that never ran student code (see :mod:`autograder.grading.reference`)."""
        if self._reference is not None:
            return self._reference
        store = self.store
        with store.locked():  # a grader beside this one may be filling the same store
            outputs = store.load(self.seed)
            runs = [self._warm_public_cache] if not store.public_warmed.exists() else []
            runs += [self._run_reference] if outputs is None else []
            # The stub's run and the reference's share nothing: side by side, in two sandboxes.
            with ThreadPoolExecutor(max_workers=2) as pool:
                for done in [pool.submit(run, store) for run in runs]:
                    done.result()
            if outputs is None:
                outputs = store.load(self.seed)
                if outputs is None:
                    raise GradingFailed(f"the reference results in {store.path} cannot be read back")
                prune(store.path.parent, keep=store.path)
            store.touch()
        cells = code_cells(self.master)
        outputs.update(self.source_results(cells, list(self.questions)))
        self._reference = outputs
        return outputs

    def _warm_public_cache(self, store: Store) -> None:
        """Fill the compilation cache that submissions read from a run of the student's stub:
        public code only, so no program there can reproduce the reference solution."""
        self._run(self.stub, STUB_SLOT, self.sandbox_probes(self.questions), store.public_xla, writes=True)
        store.public_warmed.touch()

    def warm(self) -> None:
        """Fill this host's public compilation cache if no grader did yet (a worker's first step:
        the instructor's machine fills its own in :meth:`reference`)."""
        store = self.store
        with store.locked():
            if not store.public_warmed.exists():
                self._warm_public_cache(store)
            store.touch()

    def _run_reference(self, store: Store) -> None:
        # The reference's own programs go to a cache only reference runs ever read.
        probes = self.sandbox_probes(self.questions)
        outcome = self._run(code_cells(self.master), REFERENCE_SLOT, probes, store.reference_xla, writes=True)
        failed = [pid for pid, r in outcome.results.items() if not r["ok"]]
        if outcome.ended != "ok" or outcome.cell_errors or failed or len(outcome.results) != len(probes):
            why = outcome.detail or (outcome.cell_errors[0][1] if outcome.cell_errors else "")
            if failed:
                why = f"{failed[0]}: {outcome.results[failed[0]]['error']}"
            raise GradingFailed(
                f"the reference solution of {self.assignment.id} did not run cleanly "
                f"({outcome.ended} at {outcome.where or 'the end'}: {why})"
            )
        store.save(outcome, self.seed)

    def reference_stored(self) -> bool:
        """Whether :meth:`reference` can load its outputs instead of running the solution."""
        return self._reference is not None or (
            self.store.public_warmed.exists() and self.store.outputs_file(self.seed).exists()
        )

    @property
    def possible(self) -> float:
        """The assignment's total points (one computation: :attr:`Scoring.possible`)."""
        return self.scoring.possible

    @functools.cached_property
    def scoring(self) -> Scoring:
        """What the pure :func:`autograder.grading.judge.judge` needs of this batch."""
        return Scoring(
            questions=self.questions,
            probes=self.probes,
            points=self.points,
            seed=self.seed,
            memory_mb=self.limits.memory_mb,
            notes=tuple(self.notes),
            hidden_source=self.probes_source,
        )

    # -- one submission -----------------------------------------------------------------------

    def grade(self, sub: Submission) -> Record:
        """collect → execute → judge → record, for one submission. Never raises: a failure of
        any kind (``SystemExit`` and ``KeyboardInterrupt`` included) is this row's ``error``;
        only a full disk (:func:`autograder.grading.records.disk_full`, the batch's to report) and the
        instructor's own Ctrl-C (:func:`autograder.errors.stops_the_batch`) go through."""
        try:
            return self._grade(sub)
        except BaseException as e:
            if stops_the_batch(e) or disk_full(e):
                raise
            return make_record(
                self.scoring,
                sub,
                "error",
                f"The grader failed on this submission ({type(e).__name__}); "
                "it is not the student's fault. Regrade it with --regrade.",
                {},
                [],
            )

    def _grade(self, sub: Submission) -> Record:
        if sub.grader_fault:
            return make_record(self.scoring, sub, "error", sub.problem or "The grader failed.", {}, [])
        if sub.problem:
            return make_record(
                self.scoring,
                sub,
                "invalid",
                f"{sub.name}{' ' if sub.problem.startswith('is ') else ': '}{sub.problem}.",
                {},
                [],
            )
        slot = self._slots.get()
        try:
            chosen = sub.graded_on(self.questions)
            cache = self.store.public_xla
            outcome = self._run(list(sub.cells), slot, self.sandbox_probes(chosen), cache)
            outcome.results.update(self.source_results(sub.cells, chosen))
        finally:  # a failure here is this row's `error`, made once by grade()
            self._slots.put(slot)
        try:
            return judge(sub, outcome, self.reference(), self.scoring)
        except Exception as e:  # noqa: BLE001
            return make_record(
                self.scoring,
                sub,
                "error",
                f"The grader failed while judging ({type(e).__name__}: "
                f"{str(e)[:120]}); it is not the student's fault.",
                {},
                [],
            )


def gpu_count() -> int:
    try:
        import jax

        return len(jax.devices("gpu"))
    except RuntimeError:
        return 0
