"""Reading notebooks for the gates: how long the bounded reader takes (`make bench-reading`).

Targets (issue 38): the 1.5 KB "reading bomb" (ten helpers, each calling the next twelve
times) is read in under 5 s with the batch going on; every notebook of the course's corpora
(the references, the honest habits of tests/test_gates.py) in under 1 s each.

Prints one line per figure: the slowest reading and the median, in seconds.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))


def bomb(helpers: int = 10, calls: int = 12) -> list[str]:
    src = "def h0(x):\n    return x + 1\n"
    for i in range(1, helpers):
        src += f"def h{i}(x):\n    return {' + '.join([f'h{i - 1}(x)'] * calls)}\n"
    src += f"def softmax(x):\n    return h{helpers - 1}(x)\n"
    return ["import jax.numpy as jnp", src]


def timed(cells: list[str], functions: list[str]) -> float:
    from autograder.grading.reading import read_bounded

    start = time.monotonic()
    read_bounded(cells, functions)
    return time.monotonic() - start


def main() -> None:
    import test_gates

    from autograder.config import load_course
    from autograder.notebooks import code_cells, read_notebook
    from autograder.sandbox.execution import probes_from_source

    timed(["x = 1"], ["x"])  # the reader's start and the libraries' listing, once
    b = timed(bomb(), ["softmax"])
    print(f"reading bomb (1.5 KB): {b:.3f} s (target < 5 s)")
    times = [timed(cells, ["outer"]) for cells in test_gates.HONEST.values()]
    for a in load_course().assignments:
        probes = probes_from_source(a.probes_file.read_text(), a.id)
        functions = sorted({p.function for p in probes.probes if p.source})
        times.append(timed(code_cells(read_notebook(a.master)), functions))
    print(
        f"corpus ({len(times)} notebooks): slowest {max(times):.3f} s, median "
        f"{statistics.median(times):.3f} s (target < 1 s each)"
    )


if __name__ == "__main__":
    main()
