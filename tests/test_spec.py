"""What grading a batch depends on (autograder/grading/spec.py): plain data the same on every
machine, that never carries the reference solution or the known-wrong answers' code off the
instructor's, and digests that change exactly when a grade could."""

from __future__ import annotations

import json
from dataclasses import replace

from autograder.config import load_course
from autograder.grading.spec import GradingSpec
from autograder.sandbox.limits import SandboxLimits

COURSE = load_course()
A = COURSE.assignment("01-broadcasting")


def test_a_worker_gets_plain_json_without_the_solution_and_grades_with_the_same_digest() -> None:
    spec = GradingSpec.for_course(COURSE, A, seed=3)
    assert spec.master_cells and spec.mistake_sources  # the instructor's side holds both
    text = json.dumps(spec.to_json())
    assert not any(c.strip() and c in text for c in spec.master_cells if c not in spec.stub)
    assert not any(source in text for source in spec.mistake_sources.values())
    worker = GradingSpec.from_json(json.loads(text))
    assert worker.master_cells is None and worker.mistake_sources is None
    assert worker == replace(spec, master_cells=None, mistake_sources=None)
    assert worker.graded_with == spec.graded_with


def test_limits_for_submissions_never_tighten_the_courses_own_runs() -> None:
    base = GradingSpec.for_course(COURSE, A, seed=3).limits
    tight = replace(base, cell_seconds=1, memory_mb=256)
    spec = GradingSpec.for_course(COURSE, A, seed=3, limits=tight)
    assert (spec.limits.cell_seconds, spec.limits.memory_mb) == (1, 256)
    assert (spec.trusted_limits.cell_seconds, spec.trusted_limits.memory_mb) == (
        base.cell_seconds,
        base.memory_mb,
    )
    assert isinstance(spec.trusted_limits, SandboxLimits)


def test_a_row_is_stale_when_its_points_limits_or_named_mistakes_change_never_its_seed() -> None:
    spec = GradingSpec.for_course(COURSE, A, seed=3)
    assert GradingSpec.for_course(COURSE, A, seed=4).graded_with == spec.graded_with  # a row keeps its seed
    assert replace(spec, questions={**spec.questions, "q1": 1.0}).graded_with != spec.graded_with
    assert replace(spec, limits=replace(spec.limits, cell_seconds=1)).graded_with != spec.graded_with
    assert GradingSpec.for_course(COURSE, A, seed=3, diagnose=False).graded_with != spec.graded_with
