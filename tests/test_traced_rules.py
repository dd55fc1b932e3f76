"""Rules judged on the program JAX traces (01 q9's "no Python loop"): an answer whose code path
depends on whether it is traced scores what its open form scores.

q9's loop rule counts the operations of the program JAX traces with ``idx`` traced; its values
were checked on the function run as it is. An answer that is a whole-array program when traced
and a Python loop when run (it asks ``isinstance(idx, jax.core.Tracer)``, or
``jax.core.trace_ctx``, or tries a NumPy conversion that fails on a tracer) passed both: 100,
where the same loop written openly scores 91. Here q9's hidden tests run in this process on the
probes' own inputs, judged against the reference's outputs, and scored as the grader scores.
"""

from __future__ import annotations

import functools
import linecache

import pytest

from autograder.config import load_course
from autograder.probing import decode_run, judge_probe, run_probe
from autograder.probing.api import score_question
from autograder.sandbox.execution import probes_from_source

pytestmark = pytest.mark.assignment("01-broadcasting")

A = load_course(check_files=False).assignment("01-broadcasting")
PROBES = probes_from_source(A.probes_file.read_text(), A.id)
SEED = 7

REFERENCE = """
import jax.numpy as jnp
def take_or_fill(x, idx, fill):
    return x.at[idx].get(mode="fill", fill_value=fill)
"""

#: The loop, written openly: NumPy, one index at a time (cannot be traced: judged on its source).
LOOP = """
    n, xs = x.shape[0], np.asarray(x)
    flat = np.asarray(idx).ravel()
    out = [xs[i] if -n <= i < n else fill for i in flat]
    return jnp.asarray(np.array(out, np.float32).reshape(np.shape(idx)))
"""
#: What the bypasses give when traced: a whole-array program, a few operations long.
CHEAP = "jnp.zeros(jnp.shape(idx), x.dtype) + x[0] * 0"

OPEN = "import numpy as np, jax.numpy as jnp\ndef take_or_fill(x, idx, fill):" + LOOP

BYPASSES = {
    "isinstance of jax.core.Tracer": (
        "import jax, numpy as np, jax.numpy as jnp\ndef take_or_fill(x, idx, fill):\n"
        f"    if isinstance(idx, jax.core.Tracer):\n        return {CHEAP}" + LOOP
    ),
    "jax.core.trace_ctx": (
        "import jax, numpy as np, jax.numpy as jnp\ndef take_or_fill(x, idx, fill):\n"
        f"    if not jax.core.trace_ctx.is_top_level():\n        return {CHEAP}" + LOOP
    ),
    "a try around a conversion a tracer refuses": (
        "import numpy as np, jax.numpy as jnp\ndef take_or_fill(x, idx, fill):\n"
        "    try:\n        np.asarray(idx)\n"
        f"    except Exception:\n        return {CHEAP}" + LOOP
    ),
    "a traced loop when run, a whole-array program when traced": (
        "import jax, jax.numpy as jnp\ndef take_or_fill(x, idx, fill):\n"
        f"    if isinstance(idx, jax.core.Tracer):\n        return {CHEAP}\n"
        "    n = x.shape[0]\n"
        "    vals = [jnp.where((i >= -n) & (i < n), x[i], fill) for i in idx.reshape(-1)]\n"
        "    return jnp.stack(vals).reshape(idx.shape) if vals else jnp.full(idx.shape, fill, x.dtype)\n"
    ),
}

#: Honest answers whose code asks about its inputs' types: each keeps full marks.
HONEST = {
    "jnp.asarray of the inputs": (
        "import jax.numpy as jnp\ndef take_or_fill(x, idx, fill):\n"
        "    x, idx = jnp.asarray(x), jnp.asarray(idx)\n    n = x.shape[0]\n"
        "    return jnp.where((idx >= -n) & (idx < n), x[jnp.where(idx < 0, idx + n, idx)], fill)"
    ),
    "an isinstance check of a NumPy input": (
        "import numpy as np, jax.numpy as jnp\ndef take_or_fill(x, idx, fill):\n"
        "    if isinstance(idx, np.ndarray):\n        idx = jnp.asarray(idx)\n"
        "    if not isinstance(fill, (int, float)):\n        raise TypeError('fill is a number')\n"
        '    return x.at[idx].get(mode="fill", fill_value=fill)'
    ),
    "NumPy, whole-array (cannot be traced)": (
        "import numpy as np, jax.numpy as jnp\ndef take_or_fill(x, idx, fill):\n"
        "    xs, i = np.asarray(x), np.asarray(idx)\n    n = xs.shape[0]\n"
        "    ok = (i >= -n) & (i < n)\n"
        "    return jnp.asarray(np.where(ok, xs[np.where(ok, i, 0)], np.float32(fill)), jnp.float32)"
    ),
}


def _env(source: str, name: str) -> dict:
    filename = f"<cell-{name}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    env: dict = {}
    exec(compile(source, filename, "exec"), env)
    return env


@functools.cache
def _reference_runs() -> dict[str, dict]:
    reference = _env(REFERENCE, "reference")
    return {p.id: decode_run(run_probe(p, reference, SEED)) for p in PROBES.for_question("q9")}


@functools.cache
def q9_points(source: str) -> float:
    """q9's points for the answer ``source``, as the grader scores them."""
    probes, reference = PROBES.for_question("q9"), _reference_runs()
    student = _env(source, "answer")
    runs = {p.id: decode_run(run_probe(p, student, SEED)) for p in probes}
    problems = {p.id: judge_probe(p, runs[p.id], reference[p.id]) for p in probes}
    return score_question(probes, PROBES.points("q9", A.points["q9"]), problems)[0]


def test_the_reference_and_the_open_loop_score_as_they_should() -> None:
    assert q9_points(REFERENCE) == A.points["q9"]
    assert q9_points(OPEN) == 0


@pytest.mark.parametrize("name", BYPASSES)
def test_an_answer_that_asks_whether_it_is_traced_scores_what_its_open_form_scores(name: str) -> None:
    assert q9_points(BYPASSES[name]) == q9_points(OPEN)


@pytest.mark.parametrize("name", HONEST)
def test_honest_answers_that_check_their_inputs_keep_full_marks(name: str) -> None:
    assert q9_points(HONEST[name]) == A.points["q9"]
