"""A fault of the grader is the grader's, and a row graded with other tests is graded again.

- A sandbox that fails before the submission's first cell is ``error`` (never ``crashed``, never
  0 points presented as earned), its cause in ``OUT/grader.log``; the batch says so and exits 1,
  and the same command grades those rows again.
- A row graded with other hidden tests (a tolerance changed in ``probes.py``), another reference
  or another grader is stale: the next ``grade`` into its folder grades it again.
"""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from autograder.config import ROOT, Assignment, load_course
from autograder.grading import batch
from autograder.grading.options import GradeOptions
from autograder.grading.sandboxes import REFERENCE_SLOT, STUB_SLOT, SandboxPool
from autograder.sandbox.limits import SandboxLimits, sandbox_user
from autograder.sandbox.run import run_sandboxed
from autograder.sandbox.zygote import start_zygote

pytestmark = pytest.mark.assignment("01-broadcasting")
A = "01-broadcasting"
EXAMPLES = ROOT / "examples" / A
SEED = 20261123  # the demo's: the session's reference store for it is shared with other tests


def rows(out: Path) -> dict[str, dict[str, str]]:
    return {r["submission"]: r for r in csv.DictReader((out / "gradebook.csv").read_text().splitlines())}


@pytest.fixture
def subs(tmp_path: Path) -> Path:
    folder = tmp_path / "subs"
    folder.mkdir()
    for name in ("perfect.ipynb", "stub.ipynb"):
        shutil.copy(EXAMPLES / name, folder / name)
    return folder


def grade(subs: Path, out: Path) -> int:
    return batch.run(
        GradeOptions(assignment=A, submissions=subs, out=out, seed=SEED, quiet=True, summary=False)
    )


def test_a_sandbox_that_fails_in_its_set_up_reports_why(tmp_path: Path) -> None:
    """The child's own report of a set-up failure reaches the grader as a ``fault``: here a
    job that lacks a setting the sandbox needs (a bug of the grader's, not a student's)."""
    zygote = start_zygote(tmp_path)
    try:
        outcome = run_sandboxed(
            zygote,
            cells=["x = 1"],
            probes_source="",
            requests=[],
            job={"device": "cpu", "matmul_precision": "highest", "xla_flags": ""},  # type: ignore[typeddict-item]
            limits=SandboxLimits(**load_course().limits_for(load_course().assignment(A)).model_dump()),
            box=tmp_path / "box",
            uid=sandbox_user(1),
        )
    finally:
        zygote.close()
    assert outcome.ended == "fault", outcome
    assert "KeyError" in outcome.detail and "cpu_devices" in outcome.detail, outcome.detail


def test_a_relative_sandbox_folder_is_refused_before_it_starts(tmp_path: Path) -> None:
    zygote = start_zygote(tmp_path)
    try:
        with pytest.raises(ValueError, match="absolute"):
            run_sandboxed(
                zygote,
                cells=[],
                probes_source="",
                requests=[],
                job={"device": "cpu", "cpu_devices": 1, "matmul_precision": "highest", "xla_flags": ""},
                limits=SandboxLimits(**load_course().limits_for(load_course().assignment(A)).model_dump()),
                box=Path("relative/box"),
                uid=None,
            )
    finally:
        zygote.close()


def test_a_grader_fault_is_an_error_row_logged_and_retried(
    subs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    real_run = SandboxPool.run

    def broken_for_submissions(self: SandboxPool, cells: list[str], slot: int, *a: Any, **kw: Any) -> Any:
        if slot in (REFERENCE_SLOT, STUB_SLOT):
            return real_run(self, cells, slot, *a, **kw)
        job = self.job
        self.job = {k: v for k, v in job.items() if k != "cpu_devices"}  # type: ignore[assignment]
        try:
            return real_run(self, cells, slot, *a, **kw)
        finally:
            self.job = job

    monkeypatch.setattr(SandboxPool, "run", broken_for_submissions)
    assert grade(subs, out) == 1
    got = rows(out)
    assert {r["status"] for r in got.values()} == {"error"}, got
    assert all("not the student's fault" in r["message"] for r in got.values())
    assert "crashed" not in (out / "gradebook.csv").read_text()
    log = (out / "grader.log").read_text()
    assert log.count("KeyError") == 2 and "cpu_devices" in log, log
    warning = capsys.readouterr().err
    assert "grader.log" in warning and "again" in warning, warning
    # The student never reads the cause: it is the instructor's.
    results = json.loads((out / "results" / "perfect.ipynb.json").read_text())
    assert "cpu_devices" not in results["output"] and "cpu_devices" in results["extra_data"]["fault"]

    monkeypatch.setattr(SandboxPool, "run", real_run)
    assert grade(subs, out) == 0  # the same command, without --regrade, retries the error rows
    got = rows(out)
    assert (got["perfect.ipynb"]["status"], got["perfect.ipynb"]["total"]) == ("graded", "100")
    assert (got["stub.ipynb"]["status"], got["stub.ipynb"]["total"]) == ("graded", "0")


def test_changed_hidden_tests_regrade_the_rows_they_graded(
    subs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "out"
    (subs / "stub.ipynb").unlink()  # one notebook is enough to see it
    assert grade(subs, out) == 0
    first = json.loads((out / "results" / "perfect.ipynb.json").read_text())["extra_data"]["graded_with"]
    mtime = (out / "results" / "perfect.ipynb.json").stat().st_mtime_ns
    assert grade(subs, out) == 0
    assert (out / "results" / "perfect.ipynb.json").stat().st_mtime_ns == mtime  # kept: nothing changed

    # An instructor changes a tolerance of the hidden tests.
    probes = tmp_path / "probes.py"
    source = (ROOT / "solutions" / A / "probes.py").read_text()
    assert "atol=1e-5)" in source
    probes.write_text(source.replace("atol=1e-5)", "atol=2e-5)"))
    monkeypatch.setattr(Assignment, "probes_file", property(lambda self: probes))
    assert grade(subs, out) == 0
    again = json.loads((out / "results" / "perfect.ipynb.json").read_text())["extra_data"]
    assert again["graded_with"] != first and again["status"] == "graded"
    assert (out / "results" / "perfect.ipynb.json").stat().st_mtime_ns != mtime


def test_a_backend_that_does_not_start_carries_what_jax_logged() -> None:
    """A device plugin that fails to load inside the sandbox is logged by JAX, which then only
    says the backend is unknown: the set-up's failure carries the logged cause (seen on an H200,
    where the fault read "Backend 'cuda' is not in the list of known backends" and nothing more)."""
    import logging

    from autograder.sandbox.child import _jax_warnings

    with _jax_warnings() as seen:
        try:
            raise OSError("libcuda.so.1: cannot open shared object file")
        except OSError:
            plugin = "jax_plugins.xla_cuda13"
            logging.getLogger("jax._src.xla_bridge").exception(
                "Jax plugin configuration error: Exception when calling %s.initialize()", plugin
            )
        logging.getLogger("jax").info("not a warning")
        logging.getLogger("numpy").warning("not JAX's")
    assert seen == [
        "Jax plugin configuration error: Exception when calling jax_plugins.xla_cuda13.initialize(): "
        "OSError: libcuda.so.1: cannot open shared object file"
    ]
    logging.getLogger("jax").warning("after the block")
    assert len(seen) == 1
