"""The student release opens in a real Jupyter kernel with real otter: on the stub it runs top to
bottom and its public tests (`grader.check`) fail with messages that name the function; with the
reference's answers pasted in, every public test passes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from autograder.config import load_course

COURSE = load_course()


def _run(nb: nbformat.NotebookNode, work: Path) -> list[tuple[str, str]]:
    """Execute ``nb`` in a real kernel in ``work``; ``(check cell source, its text output)`` for
    every ``grader.check`` cell."""
    NotebookClient(
        nb,
        timeout=300,
        kernel_name="python3",
        resources={"metadata": {"path": str(work)}},
        allow_errors=False,
    ).execute()
    return [
        (
            c.source,
            "".join(
                str(o.get("data", {}).get("text/plain", "")) + o.get("text", "") + o.get("evalue", "")
                for o in c.outputs
            ),
        )
        for c in nb.cells
        if c.cell_type == "code" and "grader.check(" in c.source
    ]


@pytest.mark.parametrize("assignment", [a.id for a in COURSE.assignments])
def test_public_checks_pass_on_the_reference_and_name_the_stub(assignment: str, tmp_path: Path) -> None:
    """With the reference's answer cells pasted into the student notebook, every public check
    passes through otter's own `grader.check`; on the stub, each fails with a message that names
    its function (never a NameError, nor an attribute error on None)."""
    from autograder import build

    a = COURSE.assignment(assignment)
    build.build_assignment(a, COURSE, release_root=tmp_path / "release", build_root=tmp_path / "build")
    work = tmp_path / "work"
    shutil.copytree(tmp_path / "release" / a.id, work)
    stub = nbformat.read(work / a.notebook, as_version=4)
    reference = nbformat.read(tmp_path / "build" / a.id / "reference.ipynb", as_version=4)
    assert len(stub.cells) == len(reference.cells)
    solved = nbformat.from_dict(json.loads(json.dumps(stub)))
    for mine, theirs in zip(solved.cells, reference.cells, strict=True):
        if mine.cell_type == "code" and mine.source != theirs.source:
            mine.source = theirs.source
    for source, shown in _run(solved, work):
        assert "failed" not in shown.lower() and "passed" in shown.lower(), f"{source}: {shown[:500]}"

    functions = a.function_question()
    for source, shown in _run(stub, work):
        question = source.split('"')[1] if '"' in source else source.split("'")[1]
        names = [f for f, q in functions.items() if q == question]
        assert "failed" in shown.lower(), f"{source}: passes on the stub"
        for bad in ("NameError", "object has no attribute"):
            assert bad not in shown, f"{source}: {bad} on the stub instead of a message: {shown[:500]}"
        assert any(n in shown for n in names), f"{source}: the message names none of {names}: {shown[:500]}"
