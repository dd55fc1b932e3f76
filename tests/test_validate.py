"""How `validate` builds a known-wrong answer's notebook: the graded cells, then the answer."""

from __future__ import annotations

import nbformat

from autograder.validate import graded_cells, mutant_notebook

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
