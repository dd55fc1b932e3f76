"""The otter-assign master format, read by one iterator (autograder.master_format)."""

from __future__ import annotations

import nbformat

from autograder.master_format import (
    marked_cells,
    master_config,
    master_questions,
    solution_lines,
    split_test_config,
    stub_source,
)

SOLUTION = "def double(v):\n    # BEGIN SOLUTION\n    w = v * 2\n    return w\n    # END SOLUTION"
TEST = (
    '""" # BEGIN TEST CONFIG\npoints: 0\n""" # END TEST CONFIG\n'
    "def test_double(double):\n    assert double(1) == 2"
)


def master() -> nbformat.NotebookNode:
    raw, md, code = nbformat.v4.new_raw_cell, nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        raw("# ASSIGNMENT CONFIG\nname: 00-demo\nrun_tests: false"),
        md("# Demo"),
        code("import numpy as np"),
        raw("# BEGIN QUESTION\nname: q1\npoints: 2"),
        md("Double it."),
        raw("# BEGIN SOLUTION"),
        code(SOLUTION),
        raw("# END SOLUTION"),
        raw("# BEGIN TESTS"),
        code(TEST),
        raw("# END TESTS"),
        raw("# END QUESTION"),
        code("print(double(3))"),
    ]
    return nb


def test_every_cell_is_marked_once_in_order() -> None:
    cells = list(marked_cells(master()))
    assert [c.index for c in cells] == list(range(13))
    assert [(c.kind, c.block, c.question) for c in cells] == [
        ("config", None, None),
        ("content", None, None),
        ("content", None, None),
        ("begin", "QUESTION", "q1"),
        ("content", None, "q1"),
        ("begin", "SOLUTION", "q1"),
        ("content", "SOLUTION", "q1"),
        ("end", "SOLUTION", "q1"),
        ("begin", "TESTS", "q1"),
        ("content", "TESTS", "q1"),
        ("end", "TESTS", "q1"),
        ("end", "QUESTION", "q1"),
        ("content", None, None),
    ]
    assert cells[6].points == 2.0 and cells[3].config == {"name": "q1", "points": 2}
    assert [c.is_marker for c in cells].count(True) == 7


def test_config_and_questions() -> None:
    nb = master()
    assert master_config(nb) == {"name": "00-demo", "run_tests": False}
    (q,) = master_questions(nb)
    assert (q.name, q.points, q.functions) == ("q1", 2.0, ("double",))


def test_solution_comments_inside_code_cells() -> None:
    assert stub_source(SOLUTION) == "def double(v):\n    ..."
    assert stub_source("x = 1\n# BEGIN SOLUTION\ny = 2") == "x = 1\n# BEGIN SOLUTION\ny = 2"  # no END
    assert list(solution_lines(SOLUTION + "\nz = 3  # SOLUTION")) == ["w = v * 2", "return w", "z = 3"]
    body, config = split_test_config(TEST)
    assert config == {"points": 0} and body.startswith("def test_double")
    assert split_test_config("x = 1") == ("x = 1", {})
