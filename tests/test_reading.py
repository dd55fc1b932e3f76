"""The gates' bounded reader (autograder/grading/reading.py): a CPU-time limit, which a reading
bomb spends and a busy machine does not."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time

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
