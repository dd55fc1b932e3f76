"""Reading notebooks in the bounded reader: how long it takes (`make bench-reading`).

Every reading of student text runs in the grader's reader process (autograder/grading/reading.py):
collect's depth check, the gates' reading and the similarity reading. Targets (issue 38): the 1.5
KB "reading bomb" (ten helpers, each calling the next twelve times) is read in under 5 s with the
batch going on; every notebook of the course's corpora (the solved masters, the honest habits of
tests/test_gates.py, the honest notebooks of tests/test_honest.py) in under 1 s each, all three
readings together.

Prints one line per figure: the slowest reading and the median, in seconds.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))


def bomb(helpers: int = 10, calls: int = 12) -> list[str]:
    src = "def h0(x):\n    return x + 1\n"
    for i in range(1, helpers):
        src += f"def h{i}(x):\n    return {' + '.join([f'h{i - 1}(x)'] * calls)}\n"
    src += f"def softmax(x):\n    return h{helpers - 1}(x)\n"
    return ["import jax.numpy as jnp", src]


def timed(read: Callable[[], object]) -> float:
    start = time.monotonic()
    read()
    return time.monotonic() - start


def readings(cells: list[str], gated: list[str], graded: list[str]) -> dict[str, float]:
    """Seconds of each reading of ``cells``: collect's depth check, the gates', the similarity's."""
    from autograder.grading.collect import MAX_CODE_DEPTH
    from autograder.grading.reading import fingerprinted, first_too_deep, read_bounded

    return {
        "collect": timed(lambda: first_too_deep(cells, MAX_CODE_DEPTH)),
        "gates": timed(lambda: read_bounded(cells, gated)),
        "similarity": timed(lambda: fingerprinted(cells, graded)),
    }


def corpus() -> list[tuple[str, list[str], list[str], list[str]]]:
    """``(name, cells, gated functions, graded functions)`` of every notebook of the corpora."""
    import test_gates
    import test_honest

    from autograder.config import load_course
    from autograder.grading.collect import collect
    from autograder.notebooks import code_cells, read_notebook
    from autograder.release import build
    from autograder.release.validate import graded_cells
    from autograder.sandbox.execution import probes_from_source

    course = load_course()
    found = [(f"test_gates: {n}", cells, ["outer"], ["outer"]) for n, cells in test_gates.HONEST.items()]
    with tempfile.TemporaryDirectory() as tmp:
        for a in course.assignments:
            probes = probes_from_source(a.probes_file.read_text(), a.id)
            gated = sorted({p.function for p in probes.probes if p.source})
            graded = list(a.function_question())
            found.append((f"master: {a.id}", code_cells(read_notebook(a.master)), gated, graded))
            here = Path(tmp) / a.id
            build.build_assignment(a, course, release_root=here / "release", build_root=here / "build")
            lean = graded_cells(read_notebook(here / "build" / a.id / "reference.ipynb"), graded)
            subs = here / "subs"
            subs.mkdir()
            for h in test_honest.HONEST:
                if h.assignment == a.id:
                    (subs / h.file).write_bytes(h.data(lean, a.notebook))
            for sub in collect(subs, a, course)[0]:
                found.append((f"test_honest: {sub.name}", list(sub.cells), gated, graded))
    return found


def main() -> None:
    readings(["x = 1"], ["x"], ["x"])  # the reader's start and the libraries' listing, once
    b = timed(lambda: readings(bomb(), ["softmax"], ["softmax"]))
    print(f"reading bomb (1.5 KB), all three readings: {b:.3f} s (target < 5 s)")
    times = [readings(cells, gated, graded) for _, cells, gated, graded in corpus()]
    for kind in ("collect", "gates", "similarity"):
        each = [t[kind] for t in times]
        print(f"  {kind}: slowest {max(each):.3f} s, median {statistics.median(each):.3f} s")
    totals = [sum(t.values()) for t in times]
    print(
        f"corpus ({len(totals)} notebooks), all three readings: slowest {max(totals):.3f} s, median "
        f"{statistics.median(totals):.3f} s (target < 1 s each)"
    )


if __name__ == "__main__":
    main()
