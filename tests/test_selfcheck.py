"""`python -m autograder.selfcheck`, the author's loop: it says what it checked, runs each
variant's cells once with their output captured, and with `-q` only that question's work."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from autograder import selfcheck
from autograder.config import ROOT, load_course
from autograder.notebooks import code_cells, typed_nbformat
from autograder.sandbox.execution import load_probes

ASSIGNMENT, QUESTION = "01-broadcasting", "q2"
#: What a q2 demo cell of 01-broadcasting prints (`x[:, None].shape, y[None, :].shape`); the
#: old loop printed it once per variant run: the reference, the stub and each known-wrong answer.
DEMO_OUTPUT = "(3, 1) (1, 2)"


def test_one_question_says_what_ran_and_prints_no_demo() -> None:
    a = load_course().assignment(ASSIGNMENT)
    demo = "print(x[:, None].shape, y[None, :].shape)"  # prints DEMO_OUTPUT
    assert any(demo in cell for cell in code_cells(typed_nbformat().read(a.master, as_version=4)))
    probes = load_probes(a.probes_file).for_question(QUESTION)
    mutants = sorted(p.stem for p in a.mutants_dir.glob(f"{QUESTION}_*.py"))
    points = a.questions[QUESTION].points
    proc = subprocess.run(
        [sys.executable, "-m", "autograder.selfcheck", ASSIGNMENT, "-q", QUESTION],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    out = proc.stdout
    assert proc.returncode == 0, out[-3000:] + proc.stderr[-3000:]
    assert out.count(DEMO_OUTPUT) + proc.stderr.count(DEMO_OUTPUT) == 0, "a demo's output was printed"

    lines = out.splitlines()
    mine = [line for line in lines if line.startswith(f"{QUESTION}: ")]
    assert len(mine) == 1, out
    line = mine[0]
    assert f"{QUESTION}: {len(probes)} probes (" in line
    for p in probes:
        assert p.name in line
    assert "the reference (pass)" in line
    assert f"the stub (0/{points})" in line
    assert f"{len(mutants)} known-wrong answers: " in line
    for stem in mutants:
        assert re.search(rf"\b{stem} [\d.]+/{points}\b", line), f"{stem} and its points missing from: {line}"
    assert "NOT CAUGHT" not in line
    # Only q2's work: no other question's line, no other question's known-wrong answer.
    assert not [line for line in lines if re.match(r"q\d+: ", line) and not line.startswith(f"{QUESTION}: ")]
    assert not re.search(r"\bq(?!2_)\d+_\w+ [\d.]+/", out)
    assert re.fullmatch(
        rf"selfcheck {ASSIGNMENT} -q {QUESTION} passed: {len(probes)} probes, {len(mutants)} known-wrong "
        r"answers, in [\d.]+ s \([\d.]+ s of CPU\)",
        lines[-1],
    ), lines[-1]


def test_an_unknown_question_fails_with_a_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert selfcheck.main([ASSIGNMENT, "-q", "q99"]) == 2
    out = capsys.readouterr().out
    assert "q99" in out and "q1, q2" in out
