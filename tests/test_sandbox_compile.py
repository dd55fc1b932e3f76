"""How sandboxes compile: with the job's XLA flags, which every run of a batch shares."""

from __future__ import annotations

from pathlib import Path

import pytest

from autograder.config import load_course
from autograder.grading.grader import Grader
from autograder.grading.sandboxes import CPU_XLA_FLAGS, CPU_XLA_FLAGS_CHECKED, cpu_xla_flags


def test_a_cpu_sandbox_compiles_with_the_jobs_xla_flags(tmp_path: Path) -> None:
    """The flags reach XLA in the sandbox (set after the zygote forked, before the backend
    starts), jitted code runs under them, and they are part of the job, so of the store's key:
    a reference computed under other flags is never reused."""
    course = load_course()
    a = course.assignment("01-broadcasting")
    with Grader.for_course(course, a, tmp_path, seed=0) as grader:
        assert grader.job["xla_flags"] == cpu_xla_flags()
        assert set(CPU_XLA_FLAGS) <= set(cpu_xla_flags().split())
        cells = [
            "import os, jax, jax.numpy as jnp\nFLAGS = os.environ.get('XLA_FLAGS', '')",
            "assert float(jax.jit(lambda x: (x * 2.0).sum())(jnp.arange(3.0))) == 6.0",
            f"assert set({cpu_xla_flags().split()!r}) <= set(FLAGS.split()), FLAGS",
        ]
        outcome = grader._run(cells, slot=1, probes=[], cache=None)
    assert outcome.ended == "ok" and not outcome.cell_errors, (outcome.ended, outcome.cell_errors)
    mine = Grader.for_course(course, a, tmp_path, seed=0)
    other = Grader.for_course(course, a, tmp_path, seed=0, cpu_devices=mine.job["cpu_devices"] + 1)
    assert other.job != mine.job and other.spec.store_digests != mine.spec.store_digests
    assert Grader.for_course(course, a, tmp_path, seed=0).spec.store_digests == mine.spec.store_digests


def test_flags_xla_may_drop_are_used_only_on_the_jaxlib_they_were_checked_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An unknown flag in XLA_FLAGS aborts every sandbox: on a jaxlib nobody checked (a GPU
    image's newer one, say), only the long-standing flags are given."""
    import jaxlib.version

    monkeypatch.setattr(jaxlib.version, "__version__", "99.0.0")
    assert cpu_xla_flags().split() == list(CPU_XLA_FLAGS)
    for version, extra in CPU_XLA_FLAGS_CHECKED.items():
        monkeypatch.setattr(jaxlib.version, "__version__", version)
        assert cpu_xla_flags().split() == [*CPU_XLA_FLAGS, *extra]


def test_a_sandbox_lowers_every_program_into_one_mlir_context(tmp_path: Path) -> None:
    """JAX's fresh context per program was a quarter of a submission's run; in the sandbox one
    context serves every lowering, and programs lowered there still run and agree."""
    course = load_course()
    a = course.assignment("01-broadcasting")
    cells = [
        "import jax, jax.numpy as jnp\nfrom jax._src.interpreters import mlir",
        "assert mlir.make_ir_context() is mlir.make_ir_context()",
        "x = jnp.arange(6.0).reshape(2, 3)\n"
        "assert float((x - x.mean(0)).sum()) == 0.0\n"
        "assert float(jax.jit(lambda y: jnp.tanh(y).sum())(x)) == float(jnp.tanh(x).sum())",
        "assert jax.jit(lambda y: y @ y.T).lower(x).compiler_ir().context is mlir.make_ir_context()",
    ]
    with Grader.for_course(course, a, tmp_path, seed=0) as grader:
        outcome = grader._run(cells, slot=1, probes=[], cache=None)
    assert outcome.ended == "ok" and not outcome.cell_errors, (outcome.ended, outcome.cell_errors)
