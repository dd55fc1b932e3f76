"""The sandboxes of one grader (autograder/grading/sandboxes.py): the job every run is told, and
the pool of slots runs take (no sandbox is started here: fast)."""

from __future__ import annotations

from pathlib import Path

import pytest

from autograder.config import load_course
from autograder.grading import sandboxes
from autograder.grading.sandboxes import SandboxPool, cpu_xla_flags, plan_job
from autograder.sandbox.limits import MAX_SANDBOXES

COURSE = load_course()
PMAP = COURSE.assignment("05-pmap")  # min_devices 2, cpu_devices 8
BROADCASTING = COURSE.assignment("01-broadcasting")  # one device


def test_a_job_on_the_cpu_carries_the_xla_flags_and_the_assignments_devices() -> None:
    job, notes = plan_job(PMAP, "cpu", None, "highest")
    assert job == {
        "device": "cpu",
        "cpu_devices": 8,
        "matmul_precision": "highest",
        "xla_flags": cpu_xla_flags(),
    }
    assert notes == [] and "--xla_backend_optimization_level=0" in job["xla_flags"]
    assert plan_job(BROADCASTING, "cpu", None, "highest")[0]["cpu_devices"] == 1


def test_too_few_devices_are_raised_to_the_minimum_with_a_note() -> None:
    """Scores must not depend on the machine: data-parallel mistakes are invisible on one device."""
    job, notes = plan_job(PMAP, "cpu", 1, "highest")
    assert job["cpu_devices"] == 2
    assert notes == [
        "graded on 2 virtual CPU devices (at least 2: data-parallel mistakes are invisible on one device)"
    ]
    assert plan_job(PMAP, "cpu", 4, "highest") == ({**job, "cpu_devices": 4}, [])


def test_a_gpu_machine_with_too_few_gpus_grades_data_parallel_work_on_virtual_cpus(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sandboxes, "gpu_count", lambda: 1)
    job, notes = plan_job(PMAP, "gpu", None, "highest")
    assert (job["device"], job["cpu_devices"], job["xla_flags"]) == ("cpu", 8, cpu_xla_flags())
    assert notes and notes[0].startswith(
        "graded on 8 virtual CPU devices: this machine has fewer than 2 GPUs"
    )
    job, notes = plan_job(BROADCASTING, "gpu", None, "highest")  # one device: the GPU itself
    assert (job["device"], job["xla_flags"], notes) == ("gpu", "", [])
    monkeypatch.setattr(sandboxes, "gpu_count", lambda: 2)
    assert plan_job(PMAP, "gpu", None, "highest")[0]["device"] == "gpu"


def test_slots_are_shared_and_spare_slots_never_wait(tmp_path: Path) -> None:
    job, _ = plan_job(BROADCASTING, "cpu", None, "highest")
    pool = SandboxPool(tmp_path, job, jobs=3)
    with pool.slot() as first:
        with pool.spare_slots(5) as spare:
            assert sorted([first, *spare]) == [1, 2, 3]  # only what was free, at once
            with pool.spare_slots(1) as none:
                assert none == []
    assert sorted(pool._slots.queue) == [1, 2, 3]  # every slot given back
    assert SandboxPool(tmp_path, job, jobs=MAX_SANDBOXES + 5)._slots.qsize() == MAX_SANDBOXES
    pool.close()  # no zygote was started: nothing to close, no error
