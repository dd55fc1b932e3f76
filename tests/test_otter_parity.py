"""Our grader and the otter autograder zip give the same scores on honest work: the reference,
the stub and every known-wrong answer of every assignment."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from autograder import build, grade
from autograder.config import ROOT, load_course
from autograder.grade import Record
from autograder.validate import mutant_notebook

COURSE = load_course()


@pytest.mark.parametrize("assignment", [a.id for a in COURSE.assignments])
def test_our_scores_equal_otters(assignment: str, tmp_path: Path) -> None:
    a = COURSE.assignment(assignment)
    build.build_assignment(a, COURSE, release_root=tmp_path / "release", build_root=tmp_path / "build")
    reference = nbformat.read(tmp_path / "build" / a.id / "reference.ipynb", as_version=4)
    subs = tmp_path / "subs"
    subs.mkdir()
    nbformat.write(reference, subs / "reference.ipynb")
    (subs / "stub.ipynb").write_bytes((tmp_path / "release" / a.id / a.notebook).read_bytes())
    for path in sorted(a.mutants_dir.glob("q*.py")):
        q = path.name.split("_", 1)[0]
        nbformat.write(
            mutant_notebook(reference, a.questions[q], path.read_text()), subs / f"{path.stem}.ipynb"
        )

    out = tmp_path / "out"
    assert grade.main(assignment=a.id, submissions=subs, out=out, quiet=True, course=COURSE) == 0
    ours = {}
    for f in (out / "results").glob("*.json"):
        r = Record.from_results(json.loads(f.read_text()))
        assert r.status == "graded", (r.submission, r.message)
        ours[r.submission] = r.questions

    env = dict(
        os.environ,
        PYTHONPATH=str(ROOT),
        JAX_NUM_CPU_DEVICES=str(a.devices.cpu_devices),
        JAX_DEFAULT_MATMUL_PRECISION=COURSE.grading.matmul_precision,
        JAX_PLATFORMS="cpu",
    )
    proc = subprocess.run(
        [
            sys.executable,
            str(ROOT / "tests" / "support" / "otter_scores.py"),
            str(tmp_path / "build" / a.id / f"{a.id}-autograder.zip"),
            *map(str, sorted(subs.iterdir())),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=1200,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    otters = json.loads(proc.stdout.strip().splitlines()[-1])
    assert otters.keys() == ours.keys()
    differ = {n: (ours[n], otters[n]) for n in ours if ours[n] != otters[n]}
    assert not differ
