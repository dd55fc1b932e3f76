"""Every assignment of course.yml, through `validate` and through otter's own test runner.

One grading run per assignment serves both: `validate` (reference at full marks, stub at 0 with
status `graded`, each known-wrong answer losing points on its question, no leak, fresh release)
and the parity check (the otter autograder zip scores the same notebooks exactly as we did).
05-pmap is graded again on 2 CPU devices (its floor), where every check must hold too, and on 1
device, where the reference and the stub must still score right.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from tabulate import tabulate

from autograder.config import ROOT, load_course
from autograder.grade import Grader, read_records
from autograder.reference import compilation_cache_settings
from autograder.validate import Check, validate_assignment

pytestmark = pytest.mark.slow

COURSE = load_course()
IDS = [a.id for a in COURSE.assignments]

# Known-wrong answers of 05-pmap that score full marks on one device: with a single replica
# there is nothing to average, so a missing, extra or misplaced collective changes nothing.
ONE_DEVICE_BLIND = {
    "q4_loss_not_averaged",
    "q4_no_pmean_of_grads",
    "q4_psum",
    "q6_norm_of_all_device_gradients",
    "q6_per_device_norm",
    "q7_plain_jit",
    "q7_shard_map_no_collective",
    "q7_shard_map_pmean_of_grads",
    "q7_shard_map_psum_loss",
}


@pytest.fixture(scope="module", params=[pytest.param(i, marks=pytest.mark.assignment(i)) for i in IDS])
def validated(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):  # noqa: ANN201
    a = COURSE.assignment(request.param)
    work = tmp_path_factory.mktemp(a.id)
    return a, work, validate_assignment(a, COURSE, workdir=work)


def test_validate(validated: tuple) -> None:
    a, _, checks = validated
    failed: list[Check] = [c for c in checks if not c.ok]
    assert not failed, "\n" + tabulate([(c.check, c.detail) for c in failed], headers=["check", "detail"])


def test_scores_equal_otters(validated: tuple) -> None:
    """Otter's ExceptionTestFile runs the zip's tests, hidden ones included, on each notebook:
    every question of the reference and the stub, and on each known-wrong answer the question
    it is wrong about (its other questions run the reference's code, which the reference row
    already compares; running them all would double this test's time for no new case)."""
    a, work, _ = validated
    ours = {name: r.questions for name, r in read_records(work / "out").items()}
    # The reference run's compilation cache (a copy: otter's runner may add to it) and one
    # process per core: otter parity re-executes every notebook, and compiling is most of it.
    cache = work / "parity-xla-cache"
    shutil.copytree(Grader(COURSE, a, work / "out").store.xla, cache, dirs_exist_ok=True)
    env = dict(
        os.environ,
        PYTHONPATH=str(ROOT),
        JAX_NUM_CPU_DEVICES=str(a.devices.cpu_devices),
        JAX_DEFAULT_MATMUL_PRECISION=COURSE.grading.matmul_precision,
        JAX_PLATFORMS="cpu",
        **{k.upper(): str(v) for k, v in compilation_cache_settings(cache, writes=True).items()},
    )
    notebooks = sorted((work / "submissions").glob("*.ipynb"))
    only = {
        nb.name: nb.stem.removeprefix("mutant-").split("_")[0]
        for nb in notebooks
        if nb.name.startswith("mutant-")
    }
    args = [f"{nb}::{only[nb.name]}" if nb.name in only else str(nb) for nb in notebooks]
    workers = min(len(args), os.cpu_count() or 1)
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                str(ROOT / "tests" / "support" / "otter_scores.py"),
                str(work / "build" / a.id / f"{a.id}-autograder.zip"),
                *args[i::workers],
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for i in range(workers)
    ]
    otters: dict[str, dict[str, float]] = {}
    for proc in procs:
        stdout, stderr = proc.communicate(timeout=1800)
        assert proc.returncode == 0, stderr[-3000:]
        otters.update(json.loads(stdout.strip().splitlines()[-1]))
    assert otters.keys() == ours.keys() and len(ours) == len(notebooks)
    compared = {n: {q: ours[n].get(q) for q in otters[n]} for n in ours}
    assert all(len(otters[n]) == (1 if n in only else len(a.questions)) for n in ours)
    differ = {
        f"{n} {q}": (compared[n][q], otters[n][q])
        for n in ours
        for q in otters[n]
        if compared[n][q] != otters[n][q]
    }
    assert not differ, f"(ours, otter's): {differ}"


@pytest.mark.assignment("05-pmap")
@pytest.mark.parametrize("devices", [1, 2])
def test_pmap_on_few_devices(devices: int, tmp_path: Path) -> None:
    """On 2 devices (the floor) every check of `validate` holds. On 1 device the reference still
    scores full marks and the stub 0, and each collective mistake of ONE_DEVICE_BLIND keeps
    full marks: the reason the grader never grades this assignment on fewer than 2."""
    a = COURSE.assignment("05-pmap")
    blind_only = ONE_DEVICE_BLIND if devices == 1 else None
    checks = validate_assignment(
        a, COURSE, cpu_devices=devices, workdir=tmp_path, exact_devices=True, known_wrong=blind_only
    )
    records = read_records(tmp_path / "out")
    assert records["reference.ipynb"].status == "graded"
    assert records["reference.ipynb"].total == records["reference.ipynb"].possible
    assert records["stub.ipynb"].status == "graded" and records["stub.ipynb"].total == 0
    if devices < a.devices.min_devices:  # honoured, and the row says what it costs
        notes = records["reference.ipynb"].notes
        assert any(f"graded on {devices} CPU device(s)" in n for n in notes), notes
    # Each known-wrong answer is graded on its own question only: did it keep that question's points?
    full = records["reference.ipynb"].questions
    kept = set()
    for name, r in records.items():
        if name.startswith("mutant-"):
            stem = name.removeprefix("mutant-").removesuffix(".ipynb")
            q = stem.split("_")[0]
            if r.status == "graded" and r.questions == {q: full[q]}:
                kept.add(stem)
    if devices == 1:
        assert kept == ONE_DEVICE_BLIND, f"caught on one device after all: {ONE_DEVICE_BLIND - kept}"
        checks = [c for c in checks if "known-wrong" not in c.check]
    else:
        assert not kept
    failed = [c for c in checks if not c.ok]
    assert not failed, failed


def test_the_command_line_never_grades_05_pmap_on_fewer_than_min_devices(tmp_path: Path) -> None:
    """A score must not depend on the machine: `--cpu-devices 1` is raised to `min_devices`."""
    a = COURSE.assignment("05-pmap")
    grader = Grader(COURSE, a, tmp_path, cpu_devices=1)
    assert grader.job["cpu_devices"] == a.devices.min_devices == 2
    assert any("at least 2" in n for n in grader.notes), grader.notes
    assert Grader(COURSE, a, tmp_path).job["cpu_devices"] == a.devices.cpu_devices == 8
