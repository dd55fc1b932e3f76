"""What grading one assignment's batch depends on, as plain data: a :class:`GradingSpec`, the
same on every machine of a batch (the instructor's adds the reference solution), and the digests
that name what a stored reference or a recorded row was made with."""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields
from importlib.metadata import version
from pathlib import Path
from typing import Any, cast

from ..config import Assignment, Course
from ..master_format import stub_source
from ..notebooks import code_cells, read_notebook
from ..sandbox.limits import SandboxLimits
from ..sandbox.run import SandboxJob
from .mistakes import Mistake, read_mistakes
from .sandboxes import plan_job

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


@dataclass(frozen=True)
class GradingSpec:
    """What grading one assignment's batch depends on, as plain data: the same on every machine
    of the batch. ``master_cells`` (the reference solution) is on the instructor's machine only:
    a spec without it grades against reference outputs it is given (:meth:`.grader.Grader.build`)."""

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
