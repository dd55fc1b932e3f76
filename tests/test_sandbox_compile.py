"""How sandboxes compile: with the job's XLA flags, which every run of a batch shares."""

from __future__ import annotations

from pathlib import Path

from autograder.config import load_course
from autograder.grader import CPU_XLA_FLAGS, Grader


def test_a_cpu_sandbox_compiles_with_the_jobs_xla_flags(tmp_path: Path) -> None:
    """The flags reach XLA in the sandbox (set after the zygote forked, before the backend
    starts), jitted code runs under them, and they are part of the job, so of the store's key:
    a reference computed under other flags is never reused."""
    course = load_course()
    a = course.assignment("01-broadcasting")
    with Grader(course, a, tmp_path, seed=0) as grader:
        assert grader.job["xla_flags"] == CPU_XLA_FLAGS
        cells = [
            "import os, jax, jax.numpy as jnp\nFLAGS = os.environ.get('XLA_FLAGS', '')",
            "assert float(jax.jit(lambda x: (x * 2.0).sum())(jnp.arange(3.0))) == 6.0",
            f"assert {CPU_XLA_FLAGS!r} in FLAGS.split(), FLAGS",
        ]
        outcome = grader._run(cells, slot=1, probes=[], cache=None)
    assert outcome.ended == "ok" and not outcome.cell_errors, (outcome.ended, outcome.cell_errors)
    other = Grader(course, a, tmp_path, seed=0)
    other.job = {**other.job, "xla_flags": ""}
    assert other.store_digests != Grader(course, a, tmp_path, seed=0).store_digests
