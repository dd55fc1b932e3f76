"""Rules judged on the program JAX traces ("no Python loop" in 01 q9, 02 q8 and q9): an answer
whose code path depends on whether it is traced scores what its open form scores.

01 q9's loop rule counts the operations of the program JAX traces with ``idx`` traced; its
values were checked on the function run as it is. An answer that is a whole-array program when
traced and a Python loop when run (it asks ``isinstance(idx, jax.core.Tracer)``, or
``jax.core.trace_ctx``, or tries a NumPy conversion that fails on a tracer) passed both: 100,
where the same loop written openly scores 91. 02's q8 and q9 count the random draws of the traced
program the same way. Here a question's hidden tests run in this process on the probes' own
inputs, judged against the reference's outputs, and scored as the grader scores.
"""

from __future__ import annotations

import functools
import linecache

import pytest

from autograder.config import load_course
from autograder.probing import ProbeSet, decode_run, judge_probe, run_probe
from autograder.probing.api import score_question
from autograder.sandbox.execution import probes_from_source

COURSE = load_course(check_files=False)
A = COURSE.assignment("01-broadcasting")
SEED = 7
ON_01 = pytest.mark.assignment("01-broadcasting")
ON_02 = pytest.mark.assignment("02-prng")

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
def _probes(aid: str) -> ProbeSet:
    return probes_from_source(COURSE.assignment(aid).probes_file.read_text(), aid)


@functools.cache
def _reference_runs(aid: str, question: str, reference: str) -> dict[str, dict]:
    env = _env(reference, "reference")
    return {p.id: decode_run(run_probe(p, env, SEED)) for p in _probes(aid).for_question(question)}


@functools.cache
def points(aid: str, question: str, source: str, reference: str) -> float:
    """``question``'s points for the answer ``source``, as the grader scores them."""
    probes, ref = _probes(aid).for_question(question), _reference_runs(aid, question, reference)
    student = _env(source, "answer")
    runs = {p.id: decode_run(run_probe(p, student, SEED)) for p in probes}
    problems = {p.id: judge_probe(p, runs[p.id], ref[p.id]) for p in probes}
    full = COURSE.assignment(aid).points[question]
    return score_question(probes, _probes(aid).points(question, full), problems)[0]


def q9_points(source: str) -> float:
    return points(A.id, "q9", source, REFERENCE)


@ON_01
def test_the_reference_and_the_open_loop_score_as_they_should() -> None:
    assert q9_points(REFERENCE) == A.points["q9"]
    assert q9_points(OPEN) == 0


@ON_01
@pytest.mark.parametrize("name", BYPASSES)
def test_an_answer_that_asks_whether_it_is_traced_scores_what_its_open_form_scores(name: str) -> None:
    assert q9_points(BYPASSES[name]) == q9_points(OPEN)


@ON_01
@pytest.mark.parametrize("name", HONEST)
def test_honest_answers_that_check_their_inputs_keep_full_marks(name: str) -> None:
    assert q9_points(HONEST[name]) == A.points["q9"]


# -- 02 q8 and q9: the random draws of the traced program --------------------------------------

PRNG = "02-prng"
NOISY_REFERENCE = """
import jax
def noisy_copies(keys, x, sigma):
    return jax.vmap(lambda k: x + sigma * jax.random.normal(k, x.shape))(keys)
"""
BATCHED_REFERENCE = """
import jax
def batched_normal(key, batch, shape):
    return jax.vmap(lambda k: jax.random.normal(k, shape))(jax.random.split(key, batch))
"""
NOISY_LOOP = "    return jnp.stack([x + sigma * jax.random.normal(k, jnp.shape(x)) for k in keys])\n"
BATCHED_LOOP = "    return jnp.stack([jax.random.normal(k, shape) for k in jax.random.split(key, batch)])\n"
#: One draw, whatever the batch: what the bypasses give when traced.
ONE_DRAW = "jnp.zeros((n, *jnp.shape(x)), jnp.float32) + jax.random.normal(k0, ())"

PRNG_CASES = {
    "q9": (
        NOISY_REFERENCE,
        "import jax, jax.numpy as jnp\ndef noisy_copies(keys, x, sigma):\n" + NOISY_LOOP,
        "import jax, jax.numpy as jnp\ndef noisy_copies(keys, x, sigma):\n"
        "    if isinstance(keys, jax.core.Tracer):\n        n, k0 = keys.shape[0], keys[0]\n"
        f"        return {ONE_DRAW}\n" + NOISY_LOOP,
    ),
    "q8": (
        BATCHED_REFERENCE,
        "import jax, jax.numpy as jnp\ndef batched_normal(key, batch, shape):\n" + BATCHED_LOOP,
        "import jax, jax.numpy as jnp\ndef batched_normal(key, batch, shape):\n"
        "    if not jax.core.trace_ctx.is_top_level():\n        n, k0, x = batch, key, jnp.zeros(shape)\n"
        f"        return {ONE_DRAW}\n" + BATCHED_LOOP,
    ),
}


@ON_02
@pytest.mark.parametrize("question", PRNG_CASES)
def test_a_prng_answer_that_asks_whether_it_is_traced_scores_what_its_loop_scores(question: str) -> None:
    reference, loop, bypass = PRNG_CASES[question]
    assert points(PRNG, question, reference, reference) == COURSE.assignment(PRNG).points[question]
    assert points(PRNG, question, loop, reference) == 0
    assert points(PRNG, question, bypass, reference) == 0


# -- 03 q11 and q12: the traced program of the per-example gradients ---------------------------

AUTODIFF = "03-autodiff"
PER_EXAMPLE_REFERENCE = """
import jax
def per_example_grads(loss, params, xs, ys):
    return jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))(params, xs, ys)
"""
CLIPPED_REFERENCE = """
import jax, jax.numpy as jnp
def clipped_mean_grad(loss, params, xs, ys, max_norm):
    g = jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))(params, xs, ys)
    norm = jnp.sqrt(sum(jnp.sum(l.reshape(l.shape[0], -1) ** 2, axis=1) for l in jax.tree.leaves(g)))
    scale = jnp.minimum(1.0, max_norm / jnp.maximum(norm, 1e-12))
    return jax.tree.map(lambda l: jnp.mean(l * scale.reshape((-1,) + (1,) * (l.ndim - 1)), axis=0), g)
"""
PER_EXAMPLE_LOOP = (
    "    gs = [jax.grad(loss)(params, x, y) for x, y in zip(xs, ys)]\n"
    "    return jax.tree.map(lambda *leaves: jnp.stack(leaves), *gs)\n"
)
CLIPPED_LOOP = (
    "    gs = []\n    for x, y in zip(xs, ys):\n        g = jax.grad(loss)(params, x, y)\n"
    "        norm = jnp.sqrt(sum(jnp.sum(leaf**2) for leaf in jax.tree.leaves(g)))\n"
    "        scale = jnp.minimum(1.0, max_norm / jnp.maximum(norm, 1e-12))\n"
    "        gs.append(jax.tree.map(lambda leaf: leaf * scale, g))\n"
    "    return jax.tree.map(lambda *leaves: jnp.mean(jnp.stack(leaves), axis=0), *gs)\n"
)
HEAD = "import jax, jax.numpy as jnp\n"
AUTODIFF_CASES = {
    "q11": (
        PER_EXAMPLE_REFERENCE,
        HEAD + "def per_example_grads(loss, params, xs, ys):\n" + PER_EXAMPLE_LOOP,
        HEAD + "def per_example_grads(loss, params, xs, ys):\n    if isinstance(xs, jax.core.Tracer):\n"
        "        return jax.tree.map(lambda p: jnp.zeros((xs.shape[0], *p.shape), p.dtype), params)\n"
        + PER_EXAMPLE_LOOP,
    ),
    "q12": (
        CLIPPED_REFERENCE,
        HEAD + "def clipped_mean_grad(loss, params, xs, ys, max_norm):\n" + CLIPPED_LOOP,
        HEAD + "def clipped_mean_grad(loss, params, xs, ys, max_norm):\n"
        "    if not jax.core.trace_ctx.is_top_level():\n        return jax.tree.map(jnp.zeros_like, params)\n"
        + CLIPPED_LOOP,
    ),
}


@pytest.mark.assignment(AUTODIFF)
@pytest.mark.parametrize("question", AUTODIFF_CASES)
def test_a_gradient_that_asks_whether_it_is_traced_scores_what_its_loop_scores(question: str) -> None:
    reference, loop, bypass = AUTODIFF_CASES[question]
    assert points(AUTODIFF, question, reference, reference) == COURSE.assignment(AUTODIFF).points[question]
    assert points(AUTODIFF, question, loop, reference) == 0
    assert points(AUTODIFF, question, bypass, reference) == 0
