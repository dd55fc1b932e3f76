"""The student release opens in a real Jupyter kernel with real otter and runs top to bottom on
the stub: its public tests (`grader.check`) fail with messages, nothing else errors."""

from __future__ import annotations

import shutil
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from autograder.config import load_course

COURSE = load_course()


@pytest.mark.parametrize("assignment", [a.id for a in COURSE.assignments])
def test_stub_runs_top_to_bottom_with_only_failing_checks(assignment: str, tmp_path: Path) -> None:
    a = COURSE.assignment(assignment)
    work = tmp_path / a.id
    shutil.copytree(a.release_dir, work)
    nb = nbformat.read(work / a.notebook, as_version=4)
    NotebookClient(
        nb,
        timeout=300,
        kernel_name="python3",
        resources={"metadata": {"path": str(work)}},
        allow_errors=False,
    ).execute()
    checks = [c for c in nb.cells if c.cell_type == "code" and "grader.check(" in c.source]
    assert len(checks) >= len(a.questions)
    shown = "".join(
        str(o.get("data", {}).get("text/plain", "")) + o.get("text", "") for c in checks for o in c.outputs
    )
    assert "failed" in shown.lower()
