"""The grader of one assignment: what it grades against (a :class:`GradingSpec` of plain data,
the same on every machine of a batch), the reference solution's outputs, and one submission's
grading (execute in its :class:`~.sandboxes.SandboxPool`, then the pure :func:`.judge.judge`).
:mod:`.batch` runs it over a batch on this machine; :mod:`.backends.dask_cluster` builds graders on
Dask workers from :meth:`Grader.build` through the same constructor.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import threading
from collections.abc import Collection, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field, fields, replace
from importlib.metadata import version
from pathlib import Path
from typing import Any, cast

from ..config import Assignment, Course
from ..errors import stops_the_batch
from ..master_format import stub_source
from ..notebooks import code_cells, read_notebook
from ..probing import ProbeResult, ProbeSet, decode_run, probe_seed, run_probe
from ..sandbox.execution import probes_from_source
from ..sandbox.limits import SandboxLimits
from ..sandbox.run import RunOutcome, SandboxJob
from ..sandbox.zygote import Zygote
from .collect import Submission
from .gates import GATES_DIGEST, SourceReadings, source_namespace
from .judge import Scoring, judge, make_record, reread_untraced
from .mistakes import Mistake, may_reproduce, mistake_id, mistakes_probes_source, read_mistakes
from .parts import MAX_PARTS, merge_outcomes, split_by_question
from .reading import read_bounded
from .records import Record, disk_full, fault_text
from .reference import Store, cache_root, decode_results, encode_results, host_key, prune
from .sandboxes import REFERENCE_SLOT, STUB_SLOT, SandboxPool, plan_job

#: What the stored reference outputs depend on besides the master, the probes and the job: the
#: code that runs cells and probes in a sandbox and encodes and decodes their results. A change to
#: any of it makes a new store; grading's own modules (gates, judges) read the outputs afresh.
PACKAGE = Path(__file__).resolve().parent.parent
RUNS_THE_REFERENCE = ("probing", "sandbox", "notebooks.py")


@functools.cache
def grader_code_digest() -> str:
    """sha256 of the package's Python source: a change to any of it may change a grade."""
    h = hashlib.sha256()
    for f in sorted(PACKAGE.rglob("*.py")):
        h.update(f"{f.relative_to(PACKAGE)}\0".encode() + f.read_bytes())
    return h.hexdigest()


#: The most characters of a submission's code a held question carries to the instructor's review.
MAX_REVIEW_CODE = 20_000


def held_code(sub: Submission) -> str:
    """The code a held question carries to the instructor's review: the notebook's cells."""
    return "\n\n".join(c for c in sub.cells if c.strip())[:MAX_REVIEW_CODE]


class GradingFailed(Exception):
    """Grading itself failed (exit status 1): the grader's fault, never a student's."""


@dataclass(frozen=True)
class GradingSpec:
    """What grading one assignment's batch depends on, as plain data: the same on every machine
    of the batch. ``master_cells`` (the reference solution) is on the instructor's machine only:
    a spec without it grades against reference outputs it is given (:meth:`Grader.build`)."""

    assignment: Assignment
    device: str
    questions: dict[str, float]
    probes_source: str
    stub: list[str]
    """the student's stub: the master's code cells with each solution replaced by ``...``"""
    job: SandboxJob
    notes: list[str]
    limits: SandboxLimits
    trusted_limits: SandboxLimits
    """the course's own runs (reference, stub) compile every program cold, once per batch: never
    under limits tighter than course.yml's, which flags set for submissions"""
    seed: int
    store_digests: list[str]
    """sha256 digests of what the reference results depend on, bar the host
    (:func:`autograder.grading.reference.store_key`)"""
    master_cells: list[str] | None = None
    mistakes: dict[str, str] = field(default_factory=dict)
    """the known mistakes this batch names (:mod:`.mistakes`): id -> its statement, which
    students may read; empty when the batch names none"""
    mistake_sources: dict[str, str] | None = None
    """the known-wrong answers' code, by id: on the instructor's machine only, beside the
    reference solution, whose side alone runs them"""

    @classmethod
    def for_course(
        cls,
        course: Course,
        assignment: Assignment,
        *,
        device: str = "cpu",
        limits: SandboxLimits | None = None,
        cpu_devices: int | None = None,
        seed: int,
        diagnose: bool = True,
    ) -> GradingSpec:
        """``diagnose``: run the known-wrong answers beside the reference and name the mistake a
        submission reproduces (:mod:`.mistakes`)."""
        master = read_notebook(assignment.master)
        cells = code_cells(master)
        probes_source = assignment.probes_file.read_text(encoding="utf-8")
        base = SandboxLimits(**course.limits_for(assignment).model_dump())
        chosen = limits or base
        job, notes = plan_job(assignment, device, cpu_devices, course.grading.matmul_precision)
        package_files = sorted(
            f
            for part in RUNS_THE_REFERENCE
            for f in [PACKAGE / part, *(PACKAGE / part).rglob("*.py")]
            if f.is_file()
        )
        parts = [
            assignment.master.read_bytes(),
            probes_source.encode(),
            b"".join(f"{f.relative_to(PACKAGE)}\0".encode() + f.read_bytes() for f in package_files),
            json.dumps(job, sort_keys=True).encode(),
            # The versions that run the reference, read without importing JAX: this process
            # needs none (its import would delay a single file's sandbox by about 0.8 s).
            f"jax {version('jax')} jaxlib {version('jaxlib')}".encode(),
        ]
        known: list[Mistake] = read_mistakes(assignment.mutants_dir, assignment.questions) if diagnose else []
        return cls(
            assignment=assignment,
            device=device,
            questions={q: float(points) for q, points in assignment.points.items()},
            probes_source=probes_source,
            stub=[stub_source(c) for c in cells],
            job=job,
            notes=notes,
            limits=chosen,
            trusted_limits=SandboxLimits(
                **{f.name: max(getattr(chosen, f.name), getattr(base, f.name)) for f in fields(base)}
            ),
            seed=seed,
            store_digests=[hashlib.sha256(part).hexdigest() for part in parts],
            master_cells=cells,
            mistakes={m.id: m.text for m in known},
            mistake_sources={m.id: m.source for m in known},
        )

    @property
    def graded_with(self) -> str:
        """A digest of everything a row's grade depends on: the reference's inputs (master,
        hidden tests, the sandbox's code, the job, JAX's version), the points and limits, and
        the grader's own code (gates and judges included). A row recorded with another digest
        is stale (:func:`.records.still_good`)."""
        h = hashlib.sha256()
        for part in (
            *self.store_digests,
            grader_code_digest(),
            json.dumps([self.questions, asdict(self.limits), self.mistakes], sort_keys=True),
        ):
            h.update(part.encode())
        return h.hexdigest()[:20]

    def to_json(self) -> dict[str, Any]:
        """This spec without the reference solution, as JSON-able data."""
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
            "mistakes": self.mistakes,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> GradingSpec:
        return cls(
            assignment=Assignment.model_validate(data["assignment"]),
            device=str(data["device"]),
            questions={str(q): float(v) for q, v in data["questions"].items()},
            probes_source=str(data["probes"]),
            stub=[str(c) for c in data["stub"]],
            job=cast(SandboxJob, dict(data["job"])),
            notes=[str(n) for n in data["notes"]],
            limits=SandboxLimits(**data["limits"]),
            trusted_limits=SandboxLimits(**data["trusted_limits"]),
            seed=int(data["seed"]),
            store_digests=[str(d) for d in data["store"]],
            mistakes={str(k): str(v) for k, v in (data.get("mistakes") or {}).items()},
        )


class Grader:
    """Grades submissions of one assignment on one device, reusing one reference run."""

    def __init__(
        self,
        spec: GradingSpec,
        out: Path,
        *,
        jobs: int = 1,
        parts: int = 1,
        hide: Sequence[str] = (),
        zygote: Zygote | None = None,
        shared_zygote: bool = False,
        reference: dict[str, ProbeResult] | None = None,
        known: dict[str, ProbeResult] | None = None,
    ):
        """``out``: the batch's folder (sandboxes, the zygote's log and, where the user's cache
        folder cannot be written, the reference store live under it); ``jobs``: sandboxes at
        once; ``parts``: sandboxes one submission may run in at once, where slots are free (on
        the CPU only: :mod:`.parts`); ``hide``: more folders every sandbox sees empty;
        ``zygote``: one already started (this grader closes it, unless ``shared_zygote``: a Dask
        worker's); ``reference``: the reference outputs, when this grader must not run the
        solution (it has none: a Dask worker's); ``known``: the known mistakes' outcomes, likewise."""
        self.spec, self.out = spec, out
        self.assignment, self.device, self.seed = spec.assignment, spec.device, spec.seed
        self.questions, self.job, self.notes = spec.questions, spec.job, spec.notes
        self.limits, self.trusted_limits = spec.limits, spec.trusted_limits
        self.probes_source = spec.probes_source
        self.probes: ProbeSet = probes_from_source(spec.probes_source, spec.assignment.id)
        self.points = {
            pid: pts
            for q, total in self.questions.items()
            for pid, pts in self.probes.points(q, total).items()
        }
        self.sandboxes = SandboxPool(out, spec.job, jobs=jobs, hide=hide, zygote=zygote, shared=shared_zygote)
        self._reference = reference
        self._known: dict[str, ProbeResult] | None = known
        self._known_lock = threading.Lock()
        self.parts = max(1, min(parts, MAX_PARTS)) if spec.job["device"] == "cpu" else 1

    @classmethod
    def for_course(
        cls,
        course: Course,
        assignment: Assignment,
        out: Path,
        *,
        device: str = "cpu",
        limits: SandboxLimits | None = None,
        cpu_devices: int | None = None,
        seed: int,
        jobs: int = 1,
        parts: int = 1,
        zygote: Zygote | None = None,
        diagnose: bool = True,
    ) -> Grader:
        """The instructor's grader, from the course's files. ``cpu_devices`` below the
        assignment's ``min_devices`` is raised to it (:func:`.sandboxes.plan_job`; a test of the
        course on fewer devices lowers the floor in its own copy of the course:
        :func:`autograder.config.with_device_floor`)."""
        spec = GradingSpec.for_course(
            course,
            assignment,
            device=device,
            limits=limits,
            cpu_devices=cpu_devices,
            seed=seed,
            diagnose=diagnose,
        )
        return cls(spec, out, jobs=jobs, parts=parts, zygote=zygote)

    # -- the course build, for graders elsewhere ------------------------------------------------

    def build(self) -> dict[str, Any]:
        """What a grader on another machine needs to grade exactly like this one, as plain
        (JSON-able) data: the spec without the master notebook (so without the solution) and the
        reference outputs. A Dask worker receives it once per batch and grades with
        :meth:`from_build`."""
        return {
            "spec": self.spec.to_json(),
            "reference": encode_results(self.reference()),
            "mistakes": encode_results(self.known_mistakes()),
        }

    @classmethod
    def from_build(
        cls,
        build: Mapping[str, Any],
        out: Path,
        *,
        hide: Sequence[str] = (),
        jobs: int = 1,
        shared_zygote: Zygote | None = None,
    ) -> Grader:
        """A grader from another's :meth:`build` alone: it reads no file of the course and never
        runs the reference. ``shared_zygote``: its host's, which this grader forks from and
        leaves running."""
        spec = GradingSpec.from_json(build["spec"])
        return cls(
            spec,
            out,
            jobs=jobs,
            hide=hide,
            zygote=shared_zygote,
            shared_zygote=shared_zygote is not None,
            reference=decode_results(build["reference"]),
            known=decode_results(build.get("mistakes") or {}),
        )

    # -- lifecycle --------------------------------------------------------------------------

    def __enter__(self) -> Grader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.sandboxes.close()

    def _run(
        self, cells: list[str], slot: int, probes: list[str], cache: Path | None, *, writes: bool = False
    ) -> RunOutcome:
        """Run cells, then the ``probes`` (ids), in a sandbox; a run that ``writes`` the
        compilation cache is the course's own code, under :attr:`trusted_limits`."""
        return self.sandboxes.run(
            cells,
            slot,
            self.probes_source,
            [(pid, probe_seed(self.seed, pid)) for pid in probes],
            self.trusted_limits if writes else self.limits,
            cache,
            writes=writes,
        )

    def _run_parts(self, cells: list[str], slots: list[int], probes: list[str]) -> RunOutcome:
        """A submission's run in one sandbox per slot, each running the cells and the probes of
        some questions, merged into the outcome of one (:mod:`.parts`)."""
        cache = self.store.public_xla
        groups = split_by_question(probes, {p.id: p.question for p in self.probes.probes}, len(slots))
        if len(groups) < 2:
            return self._run(cells, slots[0], probes, cache)
        with ThreadPoolExecutor(max_workers=len(groups)) as pool:
            runs = [pool.submit(self._run, cells, slot, group, cache) for slot, group in zip(slots, groups)]
            return merge_outcomes([run.result() for run in runs], probes, self.limits)

    def sandbox_probes(self, questions: Collection[str]) -> list[str]:
        """Ids of the probes of ``questions`` that run in the sandbox (not the source probes)."""
        return [p.id for p in self.probes.probes if p.question in questions and not p.source]

    def gated_functions(self, questions: Collection[str]) -> list[str]:
        """The functions the source probes of ``questions`` read."""
        return [
            f
            for q in questions
            if q in self.assignment.questions
            for f in self.assignment.questions[q].functions
        ]

    def source_results(
        self,
        cells: Sequence[str] | SourceReadings,
        questions: Collection[str],
        added: Mapping[str, str] | None = None,
    ) -> dict[str, ProbeResult]:
        """Outcomes of the source probes of ``questions``, run here on the cells' text (or what
        :func:`.gates.read_sources` made of it); ``added``: names the run added to a library
        (:attr:`RunOutcome.added`)."""
        ns = source_namespace(cells, self.gated_functions(questions), added or {})
        return {
            p.id: decode_run(run_probe(p, ns, probe_seed(self.seed, p.id)))
            for p in self.probes.probes
            if p.source and p.question in questions
        }

    def held(
        self, readings: SourceReadings, questions: Collection[str], added: Mapping[str, str], sub: Submission
    ) -> dict[str, tuple[str, str]]:
        """The source probes of ``questions`` whose function the gates could not read (their
        verdict is *cannot tell*), each with why and the code the instructor will read."""
        ns = source_namespace(readings, self.gated_functions(questions), added)
        code = held_code(sub)
        return {
            p.id: (why, code)
            for p in self.probes.probes
            if p.source and p.question in questions and (why := ns.why(p.function)) is not None
        }

    # -- reference ----------------------------------------------------------------------------

    @property
    def store_digests(self) -> list[str]:
        return self.spec.store_digests

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

    def reference(self) -> dict[str, ProbeResult]:
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
            outputs.update(self._master_sources(store))
        self._reference = outputs
        return outputs

    def known_mistakes(self) -> dict[str, ProbeResult]:
        """Every known mistake's outcomes on this batch's inputs (:func:`.mistakes.mistake_id`),
        from the store, or run there first (:meth:`_run_mistakes`), once per batch seed and only
        when a submission first loses points: a class that only earns full marks never pays for
        them. A grader without the known-wrong answers' code (a Dask worker) has what its build
        gave it, or none."""
        with self._known_lock:
            if self._known is None:
                self._known = {}
                if self.spec.mistakes and self.spec.mistake_sources is not None:
                    store = self.store
                    with store.locked():
                        found = store.load_mistakes(self.seed, self.mistakes_digest)
                        if found is None:
                            try:
                                self._run_mistakes(store)
                            except Exception:  # noqa: BLE001 - naming mistakes must never cost a row
                                pass
                            found = store.load_mistakes(self.seed, self.mistakes_digest) or {}
                    self._known = found
            return self._known

    @functools.cached_property
    def mistakes_digest(self) -> str:
        """sha256 of the known-wrong answers' statements (and, on the instructor's machine, their
        code): a change to either makes their outputs run again."""
        data = [self.spec.mistakes, self.spec.mistake_sources or {}]
        return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()

    def _run_mistakes(self, store: Store) -> None:
        """Every known-wrong answer's outcomes of its question's sandbox probes, on the batch's
        inputs (:func:`.mistakes.mistakes_probes_source`), kept in the store. Run on the
        reference's side only, under its limits: a run that stops (a mistake that loops, crashes
        or runs out of time) goes on in a fresh sandbox after the probe it stopped at. A mistake
        that cannot run is never named; grading goes on either way."""
        sources = self.spec.mistake_sources or {}
        known = [
            Mistake(m, m.split("_", 1)[0], self.spec.mistakes.get(m, ""), src) for m, src in sources.items()
        ]
        requests = [
            (mistake_id(p.id, m.id), probe_seed(self.seed, p.id))
            for m in known
            for p in self.probes.probes
            if p.question == m.question and not p.source
        ]
        source = mistakes_probes_source(self.probes_source, known)
        results: dict[str, ProbeResult] = {}
        todo = requests
        while todo:
            outcome = self.sandboxes.run(
                self._master_cells(),
                REFERENCE_SLOT,
                source,
                todo,
                self.trusted_limits,
                store.reference_xla,
                writes=True,
            )
            results.update(outcome.results)
            rest = [r for r in todo if r[0] not in outcome.results]
            if not rest:
                break
            stopped = rest[0][0] == outcome.where
            for rid, _ in rest[: 1 if stopped else len(rest)]:
                results[rid] = {"ok": False, "error": f"stopped: {outcome.ended} {outcome.detail}"[:200]}
            todo = rest[1:] if stopped else []
        store.save_mistakes(results, self.seed, self.mistakes_digest)

    def _master_sources(self, store: Store) -> dict[str, ProbeResult]:
        """The source probes' outcomes on the master, kept in the store: reading the master's
        gates takes about a second, which would otherwise stand before every batch's first
        sandbox (a one-file regrade's included)."""
        found = store.load_sources(self.seed, GATES_DIGEST)
        if found is None:
            found = self.source_results(self._master_cells(), list(self.questions))
            store.save_sources(found, self.seed, GATES_DIGEST)
        return found

    def _warm_public_cache(self, store: Store) -> None:
        """Fill the compilation cache that submissions read from a run of the student's stub:
        public code only, so no program there can reproduce the reference solution."""
        probes = self.sandbox_probes(self.questions)
        self._run(self.spec.stub, STUB_SLOT, probes, store.public_xla, writes=True)
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
        outcome = self._run(self._master_cells(), REFERENCE_SLOT, probes, store.reference_xla, writes=True)
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

    def _master_cells(self) -> list[str]:
        if self.spec.master_cells is None:
            raise GradingFailed(f"this grader of {self.assignment.id} has no reference solution to run")
        return self.spec.master_cells

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
            mistakes=self.spec.mistakes,
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
            record = make_record(
                self.scoring,
                sub,
                "error",
                f"The grader failed on this submission ({type(e).__name__}); "
                "it is not the student's fault, and grading it again may succeed.",
                {},
                [],
            )
            return replace(record, fault=fault_text(e))

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
        # A failure here is this row's `error`, made once by grade().
        with (
            self.sandboxes.slot() as slot,
            self.sandboxes.spare_slots(self.parts - 1) as spare,
            ThreadPoolExecutor(max_workers=1) as beside,
        ):
            chosen = sub.graded_on(self.questions)
            # The gates read the cells' text while the sandbox runs them; only the names the
            # run added to a library (known once it ends) are checked after.
            reading = beside.submit(read_bounded, sub.cells, self.gated_functions(chosen))
            outcome = self._run_parts(list(sub.cells), [slot, *spare], self.sandbox_probes(chosen))
            readings = reading.result()
            outcome.results.update(self.source_results(readings, chosen, outcome.added))
        try:
            held = self.held(readings, chosen, outcome.added, sub)
            ns = source_namespace(readings, self.gated_functions(chosen), outcome.added)
            outcome.results, untraced = reread_untraced(self.probes, outcome.results, ns)
            held |= {pid: (why, held_code(sub)) for pid, why in untraced.items()}
            record = judge(sub, outcome, self.reference(), self.scoring, held=held)
            lost = [q for q, v in record.questions.items() if v < self.questions[q]]
            if self.spec.mistakes and any(
                may_reproduce(self.probes.for_question(q), outcome.results, self.reference()) for q in lost
            ):
                # A lost question: judged again beside the known mistakes, to name the one it makes.
                reference = {**self.reference(), **self.known_mistakes()}
                record = judge(sub, outcome, reference, self.scoring, held=held)
            return record
        except Exception as e:  # noqa: BLE001
            record = make_record(
                self.scoring,
                sub,
                "error",
                f"The grader failed while judging ({type(e).__name__}: "
                f"{str(e)[:120]}); it is not the student's fault.",
                {},
                [],
            )
            return replace(record, fault=fault_text(e))
