"""How `validate` builds a known-wrong answer's notebook (the graded cells, then the answer),
and what it reports."""

from __future__ import annotations

import re
from collections.abc import Callable

import nbformat
import pytest

from autograder.config import load_course
from autograder.grading.records import Record
from autograder.release.validate import LEAN, graded_cells, grading_checks, mutant_notebook

SETUP = "import jax.numpy as jnp\nSCALE = 2.0"
DEMO = "x = jnp.arange(3.0)\nprint(x * SCALE)  # a teaching demo: binds x, which nothing reads"
HELPER = "def _scaled(v):\n    return v * SCALE"
SOLUTION = "def double(v):\n    # BEGIN SOLUTION\n    return _scaled(v)\n    # END SOLUTION"
PLOT = "import matplotlib.pyplot as plt\nfig = plt.figure()"
MAGIC = "%timeit double(x)"


def notebook(*sources: str) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# Title")] + [nbformat.v4.new_code_cell(s) for s in sources]
    return nb


def code(nb: nbformat.NotebookNode) -> list[str]:
    return [c.source for c in nb.cells if c.cell_type == "code"]


def test_keeps_what_the_graded_functions_read_and_drops_demos() -> None:
    nb = notebook(SETUP, DEMO, HELPER, SOLUTION, PLOT, MAGIC)
    lean = graded_cells(nb, ["double"])
    assert code(lean) == [SETUP, HELPER, SOLUTION]
    assert lean.cells[0].cell_type == "markdown"  # prose stays; only code cells are chosen
    assert code(nb) == [SETUP, DEMO, HELPER, SOLUTION, PLOT, MAGIC]  # the reference is untouched


def test_a_known_wrong_answer_keeps_the_cells_it_reads() -> None:
    nb = notebook(SETUP, DEMO, HELPER, SOLUTION, PLOT)
    wrong = "def double(v):\n    return v + x  # reads the demo's x"
    lean = graded_cells(nb, ["double"], extra=wrong)
    assert code(lean) == [SETUP, DEMO, HELPER, SOLUTION]
    assert code(mutant_notebook(lean, ["double"], wrong)) == [SETUP, DEMO, HELPER, SOLUTION, wrong]


def test_a_cell_that_does_not_parse_is_kept() -> None:
    broken = "def oops(:\n    pass"
    lean = graded_cells(notebook(SETUP, broken, DEMO, HELPER, SOLUTION), ["double"])
    assert code(lean) == [SETUP, broken, HELPER, SOLUTION]


def _record(name: str, status: str, q1: float, message: str = "") -> Record:
    return Record(name, name, "", status, message, {"q1": q1}, 10.0, [], [])  # type: ignore[arg-type]


def test_a_known_wrong_answer_the_grader_failed_on_is_reported_as_not_graded() -> None:
    """An `error` row is the grader's fault: "kept 0/0" would say the answer kept its points."""
    a = load_course().assignment("01-broadcasting")
    records = {
        "reference.ipynb": _record("reference.ipynb", "graded", 10.0),
        LEAN: _record(LEAN, "graded", 10.0),
        "stub.ipynb": _record("stub.ipynb", "graded", 0.0),
        "mutant-q1_x.ipynb": _record("mutant-q1_x.ipynb", "error", 0.0, "The grader failed (OSError)"),
    }
    checks = grading_checks(a, records, {"mutant-q1_x.ipynb": "q1"})
    (mutants,) = [c for c in checks if "known-wrong answers lose points" in c.check]
    assert not mutants.ok
    assert "was not graded (error" in mutants.detail and "kept" not in mutants.detail


def test_validate_reports_a_line_per_check_on_stderr_off_a_terminal(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from autograder.release import validate

    fake = [
        validate.Check("01-broadcasting", "release is fresh", True, ""),
        validate.Check("01-broadcasting", "x", False, "why"),
    ]

    def validate_assignment(*a: object, report: Callable[[str], None], **k: object) -> list[validate.Check]:
        report("ok   release is fresh")  # as each check finishes, before the next one runs
        report("known-wrong q1_x: loses points (q1 0/20)")
        report("FAIL x: why")
        return fake

    monkeypatch.setattr(validate, "validate_assignment", validate_assignment)
    assert validate.main(assignments=["01-broadcasting"], quiet=True) == 1
    err = capsys.readouterr().err.splitlines()
    line = r"validate 01-broadcasting \[ *\d+\.\d s\] "
    assert re.fullmatch(line + "building, then grading.*", err[0]), err
    assert re.fullmatch(line + "ok   release is fresh", err[1]), err
    assert re.fullmatch(line + r"known-wrong q1_x: loses points \(q1 0/20\)", err[2]), err
    assert re.fullmatch(line + "FAIL x: why", err[3]), err
