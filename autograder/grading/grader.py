"""The grader of one assignment: one submission's grading (execute in its
:class:`~.sandboxes.SandboxPool`, read its gates, then the pure :func:`.judge.judge`) against a
:class:`~.spec.GradingSpec` of plain data, the same on every machine of a batch, and the
reference outputs its :class:`~.reference.References` holds.
:mod:`.batch` runs it over a batch on this machine; :mod:`.backends.dask_cluster` builds graders on
Dask workers from :meth:`Grader.build` through the same constructor.
"""

from __future__ import annotations

import functools
from collections.abc import Collection, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from ..config import Assignment, Course
from ..errors import stops_the_batch
from ..probing import ProbeResult, ProbeSet, decode_run, probe_seed, run_probe
from ..sandbox.execution import probes_from_source
from ..sandbox.limits import SandboxLimits
from ..sandbox.run import RunOutcome
from ..sandbox.zygote import Zygote
from .collect import Submission
from .gates import SourceReadings, source_namespace
from .judge import Scoring, error_record, judge, make_record, reread_untraced
from .mistakes import may_reproduce
from .parts import MAX_PARTS, merge_outcomes, split_by_question
from .reading import read_bounded
from .records import Record, disk_full, fault_text, grader_failed
from .reference import References, decode_results, encode_results
from .sandboxes import SandboxPool
from .spec import GradingSpec

#: The most characters of a submission's code a held question carries to the instructor's review.
MAX_REVIEW_CODE = 20_000


def held_code(sub: Submission) -> str:
    """The code a held question carries to the instructor's review: the notebook's cells."""
    return "\n\n".join(c for c in sub.cells if c.strip())[:MAX_REVIEW_CODE]


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
        self.references = References(
            spec,
            out,
            self.probes,
            self.sandboxes,
            lambda cells: self.source_results(cells, list(self.questions)),
            outputs=reference,
            known=known,
        )
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
            "reference": encode_results(self.references.outputs()),
            "mistakes": encode_results(self.references.known_mistakes()),
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

    def _run(self, cells: list[str], slot: int, probes: list[str], cache: Path | None) -> RunOutcome:
        """Run a submission's cells, then the ``probes`` (ids), in a sandbox under the batch's
        :attr:`limits`, reading the public compilation ``cache`` (the course's own runs, which
        fill the caches, are :class:`~.reference.References`')."""
        return self.sandboxes.run(
            cells,
            slot,
            self.probes_source,
            [(pid, probe_seed(self.seed, pid)) for pid in probes],
            self.limits,
            cache,
        )

    def _run_parts(self, cells: list[str], slots: list[int], probes: list[str]) -> RunOutcome:
        """A submission's run in one sandbox per slot, each running the cells and the probes of
        some questions, merged into the outcome of one (:mod:`.parts`)."""
        cache = self.references.store.public_xla
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
            return error_record(
                self.scoring,
                sub,
                grader_failed(f"The grader failed on this submission ({type(e).__name__})"),
                fault=fault_text(e),
            )

    def _grade(self, sub: Submission) -> Record:
        if sub.grader_fault:
            return error_record(self.scoring, sub, sub.problem or "The grader failed.")
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
            reference = self.references.outputs()
            record = judge(sub, outcome, reference, self.scoring, held=held)
            lost = [q for q, v in record.questions.items() if v < self.questions[q]]
            if self.spec.mistakes and any(
                may_reproduce(self.probes.for_question(q), outcome.results, reference) for q in lost
            ):
                # A lost question: judged again beside the known mistakes, to name the one it makes.
                with_mistakes = {**reference, **self.references.known_mistakes()}
                record = judge(sub, outcome, with_mistakes, self.scoring, held=held)
            return record
        except Exception as e:  # noqa: BLE001
            return error_record(
                self.scoring,
                sub,
                grader_failed(
                    f"The grader failed while judging ({type(e).__name__}: {str(e)[:120]})", again=False
                ),
                fault=fault_text(e),
            )
