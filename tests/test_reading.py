"""The bounded reader (autograder/grading/reading.py, reader_process.py): every reading of
student text (the gates', collect's depth check, the similarity reading) runs there, under a
CPU-time limit, which a reading bomb spends and a busy machine does not, and a memory limit."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from autograder.grading import reading
from autograder.grading.reading import read_bounded
from autograder.probing import SourceFunction

NOTEBOOK = ["import jax.numpy as jnp\ndef outer(x, y):\n    return x[:, None] * y[None, :]\n"]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="SIGSTOP stands for a busy machine")
def test_a_reader_that_waits_for_a_core_still_reads() -> None:
    """A loaded grader (load average 19 on two cores, seen while six batches ran) kept the
    reader off the CPU for seconds: under a wall-clock limit every question of a perfect
    notebook was held for review. Here the reader is stopped for 3 s of a 1 s budget: it spends
    no CPU meanwhile, and the reading still comes back."""
    assert isinstance(read_bounded(NOTEBOOK, ["outer"])["outer"], SourceFunction)  # the reader is up
    proc = reading._READER.proc
    assert proc is not None
    got: dict[str, object] = {}
    worker = threading.Thread(target=lambda: got.update(read_bounded(NOTEBOOK, ["outer"], seconds=1.0)))
    os.kill(proc.pid, signal.SIGSTOP)
    try:
        worker.start()
        time.sleep(3.0)
    finally:
        os.kill(proc.pid, signal.SIGCONT)
    worker.join(60)
    assert isinstance(got.get("outer"), SourceFunction), got


def test_the_reader_ends_itself_past_its_cpu_seconds() -> None:
    """What bounds a reading bomb: past its CPU seconds the kernel ends the reader (SIGXCPU)."""
    code = "from autograder.grading.reading import _limit_cpu\n_limit_cpu(1.0)\nwhile True:\n    pass\n"
    start = time.monotonic()
    proc = subprocess.run([sys.executable, "-c", code], timeout=60)
    assert proc.returncode == -signal.SIGXCPU
    assert time.monotonic() - start < 30


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="SIGSTOP stands for a reader that hangs")
def test_a_reading_past_its_budget_is_cannot_tell_and_the_next_one_reads() -> None:
    """A reader that hangs (stopped, spending no CPU) is given up at the wall-clock backstop:
    cannot tell, and the next reading starts a fresh reader."""
    assert isinstance(read_bounded(NOTEBOOK, ["outer"])["outer"], SourceFunction)
    proc = reading._READER.proc
    assert proc is not None
    os.kill(proc.pid, signal.SIGSTOP)
    readings = read_bounded(NOTEBOOK, ["outer"], seconds=0.1)
    assert "cannot tell" in str(readings["outer"]) and "CPU time" in str(readings["outer"]), readings
    assert proc.poll() is not None  # killed
    assert isinstance(read_bounded(NOTEBOOK, ["outer"])["outer"], SourceFunction)


# -- every reading of student text, bounded: collect's depth check and the similarity reading --


def _chain(helpers: int, calls: int) -> str:
    """``helpers`` functions, each calling the next ``calls`` times (the gates' reading bomb)."""
    src = "def h0(x):\n    return x + 1\n"
    for i in range(1, helpers):
        src += f"def h{i}(x):\n    return {' + '.join([f'h{i - 1}(x)'] * calls)}\n"
    return src + f"def outer(x, y):\n    return h{helpers - 1}(x)[:, None] * y\n"


#: Within collect's size limits (128 KiB a cell, 50,000 words and symbols): what a student can
#: send to every reader of the code.
BOMBS = {
    "nine helpers each calling the next twelve times": (_chain(9, 12), None),
    "a literal list of 24,000 items": ("BIG = [" + "0, " * 24_000 + "]\n" + NOTEBOOK[0], None),
    "nesting deeper than the parser goes": ("x = " + "-" * 30_000 + "1\n" + NOTEBOOK[0], "nests too deeply"),
    "an attribute chain 300 deep": ("x = a" + ".b" * 300 + "\n" + NOTEBOOK[0], "nests too deeply"),
}


def _notebook_bytes(*sources: str) -> bytes:
    import nbformat

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s) for s in sources])
    return nbformat.writes(nb).encode()


@pytest.mark.parametrize("name", BOMBS)
def test_collect_reads_a_bomb_in_bounded_time_and_the_batch_goes_on(name: str, tmp_path: Path) -> None:
    from autograder.config import load_course
    from autograder.grading.collect import collect

    course = load_course(check_files=False)
    source, problem = BOMBS[name]
    (tmp_path / "bomb.ipynb").write_bytes(_notebook_bytes(source))
    (tmp_path / "honest.ipynb").write_bytes(_notebook_bytes(NOTEBOOK[0]))
    start = time.monotonic()
    subs, _ = collect(tmp_path, course.assignment("01-broadcasting"), course)
    assert time.monotonic() - start < 5
    rows = {s.name: s for s in subs}
    assert rows["honest.ipynb"].problem is None
    if problem is None:
        assert rows["bomb.ipynb"].problem is None
    else:
        assert problem in str(rows["bomb.ipynb"].problem)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="SIGSTOP stands for a reader that hangs")
def test_a_depth_check_over_budget_is_cannot_tell_never_invalid(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """collect's check of how deeply the code nests runs in the reader: a reader over its budget
    (here stopped, past its 1 s of wall-clock backstop) leaves the submission graded, with a
    note that says what could not be checked, within the backstop."""
    from autograder.config import load_course
    from autograder.grading.collect import collect

    course = load_course(check_files=False)
    (tmp_path / "honest.ipynb").write_bytes(_notebook_bytes(NOTEBOOK[0]))
    assert isinstance(read_bounded(NOTEBOOK, ["outer"])["outer"], SourceFunction)  # the reader is up
    proc = reading._READER.proc
    assert proc is not None
    monkeypatch.setattr(reading, "READ_SECONDS", 0.1)
    os.kill(proc.pid, signal.SIGSTOP)
    start = time.monotonic()
    (sub,), _ = collect(tmp_path, course.assignment("01-broadcasting"), course)
    assert time.monotonic() - start < 5
    assert proc.poll() is not None  # given up, and killed
    assert sub.problem is None and sub.cells
    assert any("could not finish checking how deeply" in n for n in sub.notes), sub.notes


def _similar_class(bomb_cells: tuple[str, ...]) -> list[Any]:
    import hashlib

    from autograder.grading.collect import Submission

    honest = (
        "import jax.numpy as jnp\n"
        "def softmax(x, axis=-1):\n    z = x - x.max(axis=axis, keepdims=True)\n"
        "    e = jnp.exp(z)\n    return e / e.sum(axis=axis, keepdims=True)\n"
        "def standardize(X, axis=0, eps=1e-8):\n    mu = X.mean(axis=axis, keepdims=True)\n"
        "    sd = jnp.sqrt(((X - mu) ** 2).mean(axis=axis, keepdims=True))\n"
        "    return (X - mu) / (sd + eps)\n"
    )
    copied = honest.replace("z", "shifted").replace("mu", "mean")

    def sub(name: str, cells: tuple[str, ...]) -> Submission:
        return Submission(name, name, hashlib.sha256(name.encode()).hexdigest(), cells=cells)

    return [sub("a.ipynb", (honest,)), sub("bomb.ipynb", bomb_cells), sub("b.ipynb", (copied,))]


def _rows(subs: list[Any]) -> list[Any]:
    from autograder.grading.records import Record

    return [Record(s.name, s.key, s.fingerprint, "graded", "ok", {"q1": 20.0}, 100.0, [], []) for s in subs]


def test_a_similarity_bomb_is_left_out_named_and_the_class_compared(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The similarity reading of 1.2 MB of code in one graded function took 14 s and 460 MB in
    the grader's own process; in the reader, a submission over its budget is left out of the
    comparison, the report names it, the rest of the class is compared, and the next run into
    the folder does not read those bytes again."""
    from autograder.config import load_course
    from autograder.grading.report.pages import report_html
    from autograder.grading.similarity import compare_class

    a = load_course(check_files=False).assignment("01-broadcasting")
    bomb = ("def softmax(x, axis=-1):\n    t = [" + "0, " * 600_000 + "]\n    return x\n",)
    monkeypatch.setattr(reading, "READ_SECONDS", 1.0)
    subs = _similar_class(bomb)
    start = time.monotonic()
    found = compare_class(tmp_path, _rows(subs), subs, a)
    assert time.monotonic() - start < 12  # 1 s of CPU time, or the 10 s backstop on a busy machine
    assert found.unread == ("bomb.ipynb",) and found.compared == 2 and not found.failed
    assert [(p.left, p.right) for p in found.pairs] == [("a.ipynb", "b.ipynb")]
    page = report_html(_rows(subs), a, list(a.questions), found)
    assert "Left out of the comparison (1)" in page and "bomb.ipynb" in page
    start = time.monotonic()
    assert compare_class(tmp_path, _rows(subs), [], a) == found  # read from the stored stage
    assert time.monotonic() - start < 1


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="SIGSTOP stands for a reader that hangs")
def test_a_hung_similarity_reading_leaves_its_submission_out(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from autograder.config import load_course
    from autograder.grading.similarity import compare_class

    a = load_course(check_files=False).assignment("01-broadcasting")
    assert isinstance(read_bounded(NOTEBOOK, ["outer"])["outer"], SourceFunction)  # the reader is up
    proc = reading._READER.proc
    assert proc is not None
    monkeypatch.setattr(reading, "READ_SECONDS", 0.1)
    os.kill(proc.pid, signal.SIGSTOP)
    subs = _similar_class(("x = 1",))
    start = time.monotonic()
    found = compare_class(tmp_path, _rows(subs), subs, a)
    # The first is given up at the backstop (1 s); the others read in a fresh reader.
    assert time.monotonic() - start < 10
    assert found.unread == ("a.ipynb",) and found.compared == 2
