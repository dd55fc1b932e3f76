"""A lone submission graded in parts (autograder/grading/parts.py): the merged outcome is the one
a single sandbox would have given, so a score never depends on how many parts graded it."""

from __future__ import annotations

import copy
import os
import shutil
from pathlib import Path

import nbformat
import pytest

from autograder.config import load_course
from autograder.grading.options import GradeOptions
from autograder.sandbox.limits import SandboxLimits
from autograder.sandbox.run import MAX_RESULT_BYTES, RunOutcome

pytestmark = pytest.mark.assignment("01-broadcasting")
A = "01-broadcasting"
SEED = 20261123
LIMITS = SandboxLimits(cell_seconds=30, submission_seconds=100, memory_mb=512, processes=256, output_mb=2)
ORDER = ["q1.a", "q1.b", "q2.a", "q3.a", "q3.b", "q3.c", "q4.a"]
QUESTION = {pid: pid.split(".")[0] for pid in ORDER}


def ok(value: int) -> dict:
    return {"ok": True, "outputs": {"v": value}}


def part(ids: list[str], **kw: object) -> RunOutcome:
    """A part that ran ``ids`` (results 1, 2, ... by position in ORDER), 1 s and 1 KiB each."""
    outcome = RunOutcome(cells_seconds=2.0, **kw)  # type: ignore[arg-type]
    for pid in ids:
        outcome.results[pid] = ok(ORDER.index(pid))
        outcome.probe_costs[pid] = (1.0, 1024)
    return outcome


def test_split_keeps_whole_questions_in_order_and_balances_them() -> None:
    from autograder.grading.parts import split_by_question

    groups = split_by_question(ORDER, QUESTION, 2)
    assert sorted(map(len, groups)) == [3, 4] and sorted(sum(groups, [])) == sorted(ORDER)
    for group in groups:
        assert group == [pid for pid in ORDER if pid in group]  # in order
        assert all(QUESTION[p] not in {QUESTION[o] for o in group} for g in groups if g != group for p in g)
    assert split_by_question(ORDER, QUESTION, 1) == [ORDER]
    assert split_by_question(["q1.a", "q1.b"], QUESTION, 2) == [["q1.a", "q1.b"]]  # one question


def test_parts_that_ran_cleanly_merge_into_every_result() -> None:
    from autograder.grading.parts import merge_outcomes

    a = part(["q1.a", "q1.b", "q2.a", "q4.a"], cell_errors=[(3, "raised ValueError")])
    merged = merge_outcomes([a, part(["q3.a", "q3.b", "q3.c"])], ORDER, LIMITS)
    assert (merged.ended, merged.where) == ("ok", "")
    assert merged.results == {pid: ok(i) for i, pid in enumerate(ORDER)}
    assert merged.cell_errors == [(3, "raised ValueError")]


def test_a_part_that_stopped_drops_every_later_result_of_the_others() -> None:
    """One sandbox crashing in q3.b would never have run q4.a: nor does the merged outcome."""
    from autograder.grading.parts import merge_outcomes

    crashed = part(["q3.a"], ended="crashed", where="q3.b", detail="SIGSEGV")
    merged = merge_outcomes([part(["q1.a", "q1.b", "q2.a", "q4.a"]), crashed], ORDER, LIMITS)
    assert (merged.ended, merged.where, merged.detail) == ("crashed", "q3.b", "SIGSEGV")
    assert list(merged.results) == ["q1.a", "q1.b", "q2.a", "q3.a"]


def test_a_stop_in_the_cells_of_any_part_is_the_whole_outcome() -> None:
    from autograder.grading.parts import merge_outcomes

    timed_out = RunOutcome(ended="timeout", where="cell 4", detail="30 s per cell")
    merged = merge_outcomes([part(["q1.a", "q1.b", "q2.a", "q4.a"]), timed_out], ORDER, LIMITS)
    assert (merged.ended, merged.where, merged.results) == ("timeout", "cell 4", {})


def test_tamper_evidence_of_any_part_makes_the_merged_run_tampered() -> None:
    from autograder.grading.parts import merge_outcomes

    b = part(["q3.a", "q3.b", "q3.c"], tampered=["replaced jax.numpy.allclose"], added={"t": "jax.t"})
    merged = merge_outcomes([part(["q1.a", "q1.b", "q2.a", "q4.a"]), b], ORDER, LIMITS)
    assert merged.ended == "tampered" and merged.tampered == ["replaced jax.numpy.allclose"]
    assert merged.added == {"t": "jax.t"}


def test_the_submissions_time_limit_applies_to_the_parts_sum() -> None:
    """Each part stayed under 100 s (2 s of cells, then 30 s a test); one sandbox would have
    passed it in its fourth test, q3.a."""
    from autograder.grading.parts import merge_outcomes

    a, b = part(["q1.a", "q1.b", "q2.a", "q4.a"]), part(["q3.a", "q3.b", "q3.c"])
    for o in (a, b):
        o.probe_costs = {pid: (30.0, 1024) for pid in o.probe_costs}
    merged = merge_outcomes([a, b], ORDER, LIMITS)
    assert (merged.ended, merged.where, merged.detail) == ("timeout", "q3.a", "100 s for the submission")
    assert list(merged.results) == ["q1.a", "q1.b", "q2.a"]


def test_the_submissions_result_size_limit_applies_to_the_parts_sum() -> None:
    from autograder.grading.parts import merge_outcomes

    a, b = part(["q1.a", "q1.b", "q2.a", "q4.a"]), part(["q3.a", "q3.b", "q3.c"])
    for o in (a, b):
        o.probe_costs = {pid: (1.0, MAX_RESULT_BYTES // 5) for pid in o.probe_costs}
    merged = merge_outcomes([a, b], ORDER, LIMITS)
    assert (merged.ended, merged.where) == ("tampered", "q3.c")  # the sixth fifth
    assert list(merged.results) == ["q1.a", "q1.b", "q2.a", "q3.a", "q3.b"]


def test_a_lone_submission_takes_a_second_part_only_where_a_cpu_and_memory_are_spare(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from autograder.grading import parts

    monkeypatch.setattr(parts, "usable_cpus", lambda: 8)
    monkeypatch.setattr(parts, "spare_memory_mb", lambda: 20_000.0)
    assert parts.parts_for(8, 1, 3072) == 2  # at most MAX_PARTS
    assert parts.parts_for(2, 2, 3072) == 1  # no idle slot
    assert parts.parts_for(1, 1, 3072) == 1  # --jobs 1
    monkeypatch.setattr(parts, "usable_cpus", lambda: 1)
    assert parts.parts_for(8, 1, 3072) == 1  # a container of one CPU
    monkeypatch.setattr(parts, "usable_cpus", lambda: 8)
    monkeypatch.setattr(parts, "spare_memory_mb", lambda: 5000.0)
    assert parts.parts_for(8, 1, 3072) == 1  # room for one sandbox's memory limit only


def test_cpus_and_memory_are_read_from_the_containers_cgroup(tmp_path: Path) -> None:
    """A container's /proc/meminfo and os.cpu_count() are the host's: its cgroup says what it has."""
    from autograder.grading.parts import spare_memory_mb, usable_cpus

    v2, v1, none = tmp_path / "v2", tmp_path / "v1", tmp_path / "none"
    for folder in (v2, v1 / "cpu", v1 / "memory"):
        folder.mkdir(parents=True)
    (v2 / "cpu.max").write_text("100000 100000\n")
    assert usable_cpus(v2) == 1
    (v2 / "cpu.max").write_text("max 100000\n")
    assert usable_cpus(v2) == usable_cpus(none) == len(os.sched_getaffinity(0))
    (v1 / "cpu" / "cpu.cfs_quota_us").write_text("150000\n")
    (v1 / "cpu" / "cpu.cfs_period_us").write_text("100000\n")
    assert usable_cpus(v1) == min(2, len(os.sched_getaffinity(0)))
    meminfo = tmp_path / "meminfo"
    meminfo.write_text("MemTotal:       16777216 kB\nMemAvailable:    8388608 kB\n")
    assert spare_memory_mb(none, meminfo) == 8192
    (v2 / "memory.max").write_text(f"{768 * 2**20}\n")
    (v2 / "memory.current").write_text(f"{256 * 2**20}\n")
    assert spare_memory_mb(v2, meminfo) == 512
    (v1 / "memory" / "memory.limit_in_bytes").write_text("9223372036854771712\n")  # none set
    (v1 / "memory" / "memory.usage_in_bytes").write_text(f"{2**30}\n")
    assert spare_memory_mb(v1, meminfo) == 8192


# -- Whole runs: one submission alone (parts) against the same in a batch of one sandbox each. --


@pytest.fixture(scope="module")
def notebooks(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from autograder.release import build

    course = load_course()
    a = course.assignment(A)
    tmp = tmp_path_factory.mktemp("parts")
    build.build_assignment(a, course, release_root=tmp / "release", build_root=tmp / "build")
    reference = nbformat.read(tmp / "build" / A / "reference.ipynb", as_version=4)
    subs = tmp / "subs"
    subs.mkdir()
    nbformat.write(reference, subs / "reference.ipynb")
    # Its q5 function crashes the sandbox: one sandbox never runs q6 to q10 after it.
    crash = copy.deepcopy(reference)
    segfault = "def softmax(x, axis=-1):\n    import faulthandler\n\n    faulthandler._read_null()"
    crash.cells.append(nbformat.v4.new_code_cell(segfault))
    nbformat.write(crash, subs / "crashes_in_q5.ipynb")
    return subs


def test_a_lone_submission_runs_in_two_sandboxes_and_scores_as_in_one(
    notebooks: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from autograder.grading import batch as grade
    from autograder.grading import grader, records

    runs: list[tuple[int, int]] = []  # (slot, probes) of each sandbox
    real_run = grader.Grader._run

    def counted(self: grader.Grader, cells: list[str], slot: int, probes: list[str], *a, **kw):  # type: ignore[no-untyped-def]
        runs.append((slot, len(probes)))
        return real_run(self, cells, slot, probes, *a, **kw)

    monkeypatch.setattr(grader.Grader, "_run", counted)
    for name in ("reference.ipynb", "crashes_in_q5.ipynb"):
        alone, one_each = tmp_path / name / "alone", tmp_path / name / "one"
        lone = tmp_path / name / "subs"
        lone.mkdir(parents=True)
        shutil.copy(notebooks / name, lone / name)
        runs.clear()
        assert (
            grade.run(GradeOptions(assignment=A, submissions=lone, out=alone, jobs=2, seed=SEED, quiet=True))
            == 0
        )
        sandboxes = [r for r in runs if r[0] > 0]  # not the reference's or the stub's own runs
        assert len(sandboxes) == 2 and len({slot for slot, _ in sandboxes}) == 2, runs
        assert (
            grade.run(
                GradeOptions(assignment=A, submissions=lone, out=one_each, jobs=1, seed=SEED, quiet=True)
            )
            == 0
        )
        split, whole = records.read_records(alone)[name], records.read_records(one_each)[name]
        assert split == whole, (split.message, whole.message)
    crashed = records.read_records(tmp_path / "crashes_in_q5.ipynb" / "alone")["crashes_in_q5.ipynb"]
    assert crashed.status == "crashed", crashed.message
    assert crashed.questions["q4"] > 0 and crashed.questions["q6"] == 0, crashed.message
