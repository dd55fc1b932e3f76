"""Hidden tests of 06-training: the seed's MLP trained on sin(x), end to end.

Each probe hands its question inputs in the syllabus's formats (params as `init_params` makes
them, Adam state as `adam_init` makes it), built from the probe's `rng`, never through the
submission's own answers to earlier questions. The training questions cannot be separated
that far: `train_epoch` (q5) runs the submission's `predict` and `adam_update`, and `fit` (q6)
runs everything, so an early mistake also costs points there, as it would in a real run.
Known-wrong answers are graded on their own question, beside the reference's other answers.

Tolerances: q1's `x` is compared bit for bit (threefry `uniform` is identical on every
backend), its `y` within 1e-6 (`normal` may differ in the last digit). Single steps use the
float32 table. Whole epochs and runs (q5-q7) use `EPOCH_TOL`: on 2026-11-25 correct answers
written differently (another summation order, `jnp.square`, `jnp.power`, a sharded epoch
against q5's) stayed within 1e-6 of the reference over 30 epochs, on 8 CPU devices (JAX 0.10.2
and 0.11.2) and on an H100 (0.11.2), and every known-wrong answer moves the numbers by far
more than 1e-4.

Compiling an epoch costs 1 to 3 s on a 2-core CPU, far more than running one, so the training
probes use two programs: the epoch on x of shape (1024, 1) in batches of 48 with sizes
[1, 32, 32, 1], which the notebook's own run of `fit` compiles before the probes run and which
q5 and q6 share, and q7's sharded epoch on (128 n, 1) in batches of 8 n for n devices. The
structure check of q5 only traces (`make_jaxpr`) its small epochs, then runs the notebook's for
its numbers. Every probe that pays for a property (equal runs, a trace count, labels) also
compares values with the reference's, so that no constant, zeros or forged flags earn points.
Other inputs reuse the notebook's shapes where
they can (n = 256 and 1024, the seed's layer sizes), since every eager operation compiles once
per shape. An epoch that is not jitted compiles at every call: q6's runs are kept to 3, 4 and
10 epochs so that such an answer loses points rather than time.

q9 and q10 write their checkpoints in a fresh folder of the sandbox's scratch space per probe.
q10 is judged on resuming alone: the probe writes the checkpoint with the reference's
save_checkpoint and runs the submission's resume_fit with the reference's helpers (copies of the
master's, `_reference_training`, on a small network) swapped into its globals for the call and
put back after it, train_epoch wrapped to count its calls. The result must be bit for bit the
reference's run never stopped: one process, one program and the same inputs give the same bits.
q11's probes reuse the program the notebook's run of `train_epoch_clipped` compiles (batches of
48 with warmup 21 and total 210); the step count of the Adam state handed in decides which part
of the schedule an epoch crosses.

Devices: like 05-pmap, the grader runs this assignment on 8 virtual CPU devices (at least 2)
and q7 runs on all of them; its gate fails an epoch whose results live on fewer devices. JAX is
imported inside the probe bodies, never at module level: the device count is fixed when JAX is
imported, and the grader imports this file in processes that must not start JAX.
"""

from __future__ import annotations

import ast
import functools
import inspect
import math
import types
from typing import Any

import numpy as np

from autograder.probing import (
    RETURNED_NONE,
    PlainArray,
    ProbeError,
    ProbeSet,
    SourceFunction,
    array,
    compare_floats,
    compare_outputs,
    count_traces,
    describe_value,
    devices_of,
    names_used,
    not_a_figure,
    on_every_device,
    primitives,
    raises,
    source_of,
)

hidden = ProbeSet("06-training")

SEED_SIZES = [1, 32, 32, 1]
#: `normal` draws may differ in the last digit between formulas and backends (a float32 ulp is 1.2e-7).
NORMAL_TOL = {"rtol": 1e-6, "atol": 1e-6}
#: Whole epochs and runs: see the module docstring for the measurements behind it.
EPOCH_TOL = {"rtol": 1e-4, "atol": 1e-5}
#: compare_outputs settings that check structure, shapes and dtypes, not values.
SHAPES_ONLY = {"rtol": 0.0, "atol": 1e300}
#: The one epoch program of q5, q6 and the notebook's run: 1024 examples in batches of 48 are 21
#: batches, and 16 examples dropped.
EPOCH_N, EPOCH_BATCH = 1024, 48
#: What an optimiser library is, for q4's gate: modules and the names they are used through.
LIBRARY_MODULES = ("optax", "flax", "jax.example_libraries")
LIBRARY_NAMES = {"optax", "flax", "example_libraries", "optimizers"}


# ---------------------------------------------------------------------------------------------
# Inputs, made from the probe's rng only.


def _seed(rng: np.random.Generator) -> int:
    return int(rng.integers(0, 2**31 - 1))


def _key(rng: np.random.Generator) -> Any:
    import jax

    return jax.random.key(_seed(rng))


def _legacy_key(rng: np.random.Generator) -> Any:
    import jax

    return jax.random.PRNGKey(_seed(rng))


def _f32(a: Any) -> Any:
    import jax.numpy as jnp

    return jnp.asarray(a, jnp.float32)


def _params(rng: np.random.Generator, sizes: list[int]) -> list[dict[str, Any]]:
    """MLP params in init_params's layout: He-scaled W and small non-zero b (so a dropped bias shows)."""
    return [
        {
            "W": _f32(rng.standard_normal((n_in, n_out)) * math.sqrt(2 / n_in)),
            "b": _f32(0.1 * rng.standard_normal(n_out)),
        }
        for n_in, n_out in zip(sizes[:-1], sizes[1:])
    ]


def _sin_data(rng: np.random.Generator, n: int) -> tuple[Any, Any]:
    """(x, y) float32 (n, 1): x uniform in [-pi, pi), y = sin(x) + noise of std 0.1."""
    x = rng.uniform(-np.pi, np.pi, (n, 1))
    return _f32(x), _f32(np.sin(x) + 0.1 * rng.standard_normal((n, 1)))


def _zero_state(params: Any) -> dict[str, Any]:
    import jax
    import jax.numpy as jnp

    return {
        "m": jax.tree.map(jnp.zeros_like, params),
        "v": jax.tree.map(jnp.zeros_like, params),
        "t": jnp.int32(0),
    }


def _mid_run_state(rng: np.random.Generator, params: Any, t: int) -> dict[str, Any]:
    """An Adam state as after ``t`` steps: small m, and v of the size of m**2."""
    import jax
    import jax.numpy as jnp

    m = jax.tree.map(lambda p: _f32(0.05 * rng.standard_normal(p.shape)), params)
    v = jax.tree.map(lambda mm: _f32(np.asarray(mm) ** 2 + rng.uniform(1e-5, 1e-3, mm.shape)), m)
    return {"m": m, "v": v, "t": jnp.int32(t)}


def _devices() -> int:
    import jax

    return jax.local_device_count()


def _learning_rate(rng: np.random.Generator) -> float:
    return float(rng.uniform(3e-3, 2e-2))


# ---------------------------------------------------------------------------------------------
# Judges shared by several questions.


def _compare_with(tol: dict[str, float], hint: str = ""):
    """compare_outputs with ``tol``, and ``hint`` after a difference."""

    def judge(out: dict[str, Any], ref: dict[str, Any]) -> str | None:
        problem = compare_outputs(out, ref, **tol)
        return f"{problem}{hint}" if problem else None

    return judge


def _equal_runs(first: str, second: str, what: str, values):
    """The student's two runs, under ``first.*`` and ``second.*``, are bit-identical; and then
    ``values(out, ref)``, the comparison with the reference's (two equal runs of anything else
    are worth nothing)."""

    def judge(out: dict[str, Any], ref: dict[str, Any]) -> str | None:
        problem = compare_outputs(out, ref, **SHAPES_ONLY)
        if problem:
            return problem
        for path in ref:
            if path.startswith(first + "."):
                twin = second + path[len(first) :]
                if not np.array_equal(array(out, path), array(out, twin)):
                    return (
                        f"{what}: keep all randomness in the key you are given "
                        "(no global generator, no clock)"
                    )
        return values(out, ref)

    return judge


# ---------------------------------------------------------------------------------------------
# q1 make_dataset


def _dataset_judge(out: dict[str, Any], ref: dict[str, Any]) -> str | None:
    """x bit for bit (uniform), y within NORMAL_TOL (normal)."""
    xs = {p: v for p, v in ref.items() if p.rsplit(".", 1)[-1] == "x"}
    ys = {p: v for p, v in ref.items() if p not in xs}
    if set(out) != set(ref):
        return compare_outputs(out, ref)
    problem = compare_outputs({p: out[p] for p in xs}, xs, rtol=0.0, atol=0.0)
    if problem:
        return (
            f"x {problem}: draw x = jax.random.uniform(kx, (n, 1), minval=-pi, maxval=pi) with "
            "kx, kn = jax.random.split(key)"
        )
    problem = compare_outputs({p: out[p] for p in ys}, ys, **NORMAL_TOL)
    if problem:
        return f"y {problem}: y = sin(x) + 0.1 * jax.random.normal(kn, (n, 1)), kn from split(key)"
    return None


@hidden.probe("q1", "make_dataset", weight=3, judge=_dataset_judge)
def data_matches_reference(sub, rng):
    """on a typed key and n = 256: x bit for bit, y to float precision"""
    x, y = sub.make_dataset(_key(rng), 256)
    return {"x": x, "y": y}


@hidden.probe("q1", "make_dataset", judge=_dataset_judge)
def data_from_legacy_key(sub, rng):
    """on a legacy PRNGKey and n = 256"""
    x, y = sub.make_dataset(_legacy_key(rng), 256)
    return {"x": x, "y": y}


@hidden.probe(
    "q1",
    "make_dataset",
    judge=_equal_runs(
        "first", "second", "the same key gave different data", lambda o, r: _dataset_judge(o, r)
    ),
)
def same_key_same_data(sub, rng):
    """the same key twice, with a call on another key in between, gives the same data"""
    key = _key(rng)
    first = sub.make_dataset(key, 256)
    sub.make_dataset(_key(rng), 256)
    second = sub.make_dataset(key, 256)
    return {"first": {"x": first[0], "y": first[1]}, "second": {"x": second[0], "y": second[1]}}


def _range_and_noise(out: dict[str, Any], ref: dict[str, Any]) -> str | None:
    problem = compare_outputs(out, ref, **SHAPES_ONLY)  # structure, shapes and dtypes only
    if problem:
        return problem
    x, y = array(out, "x").astype(np.float64), array(out, "y").astype(np.float64)
    if x.min() < -np.pi or x.max() >= np.pi or x.min() > -3.0 or x.max() < 3.0:
        return f"x spans [{x.min():.3f}, {x.max():.3f}]; it should be uniform in [-pi, pi)"
    noise = y - np.sin(x)
    # 1024 draws: the sample std is within 0.01 of 0.1 and the mean within 0.015 of 0 (4.5 sigma).
    if not 0.09 < noise.std() < 0.11 or abs(noise.mean()) > 0.015:
        return (
            f"y - sin(x) has mean {noise.mean():.3f} and std {noise.std():.3f}; "
            "the noise should have mean 0 and std 0.1"
        )
    # The draw is fixed by the key: data with the right statistics is not yet the data.
    return _dataset_judge(out, ref)


@hidden.probe("q1", "make_dataset", judge=_range_and_noise)
def range_and_noise(sub, rng):
    """on n = 1024: x spans [-pi, pi) and y - sin(x) has mean 0 and standard deviation 0.1"""
    x, y = sub.make_dataset(_key(rng), 1024)
    return {"x": x, "y": y}


# ---------------------------------------------------------------------------------------------
# q2 init_params


@hidden.probe("q2", "init_params", weight=3, **NORMAL_TOL)
def matches_reference_seed_sizes(sub, rng):
    """on a typed key and sizes [1, 32, 32, 1], layer keys split(key, L + 1)[1:]"""
    return {"params": sub.init_params(_key(rng), SEED_SIZES)}


@hidden.probe("q2", "init_params", **NORMAL_TOL)
def params_from_legacy_key(sub, rng):
    """on a legacy PRNGKey and sizes [1, 32, 1]"""
    return {"params": sub.init_params(_legacy_key(rng), [1, 32, 1])}


def _layers_differ(out: dict[str, Any], ref: dict[str, Any]) -> str | None:
    problem = compare_outputs(out, ref, **SHAPES_ONLY)
    if problem:
        return problem
    Ws = [array(out, f"params.{i}.W") for i in range(3)]
    for i in range(3):
        for j in range(i + 1, 3):
            if np.array_equal(Ws[i], Ws[j]):
                return f"layers {i} and {j} have identical W; give every layer its own subkey"
    return compare_outputs(out, ref, **NORMAL_TOL)


@hidden.probe("q2", "init_params", judge=_layers_differ)
def equal_shapes_differ(sub, rng):
    """layers of equal shape get different weights (sizes [32, 32, 32, 32])"""
    return {"params": sub.init_params(_key(rng), [32, 32, 32, 32])}


def _zero_bias_float32(out: dict[str, Any], ref: dict[str, Any]) -> str | None:
    problem = compare_outputs(out, ref, **SHAPES_ONLY)  # layout, shapes and dtypes
    if problem:
        return problem
    for i in range(2):
        if np.any(array(out, f"params.{i}.b") != 0):
            return f"layer {i}: b should start at zero"
    return compare_outputs(out, ref, **NORMAL_TOL)


@hidden.probe("q2", "init_params", judge=_zero_bias_float32)
def layout_zero_bias_float32(sub, rng):
    """sizes [1, 32, 1]: W of shape (n_in, n_out), b zeros of shape (n_out,), both float32"""
    return {"params": sub.init_params(_key(rng), [1, 32, 1])}


# ---------------------------------------------------------------------------------------------
# q3 predict


@hidden.probe("q3", "predict", weight=3)
def predict_matches_reference(sub, rng):
    """random params of sizes [3, 32, 32, 2] on x of shape (256, 3)"""
    params = _params(rng, [3, 32, 32, 2])
    return {"out": sub.predict(params, _f32(rng.standard_normal((256, 3))))}


@hidden.probe("q3", "predict")
def seed_mlp_batch(sub, rng):
    """random params of sizes [1, 32, 32, 1] on x of shape (256, 1)"""
    params = _params(rng, SEED_SIZES)
    return {"out": sub.predict(params, _f32(rng.uniform(-np.pi, np.pi, (256, 1))))}


@hidden.probe("q3", "predict")
def one_layer_is_linear(sub, rng):
    """one layer (sizes [4, 2]) on x of shape (7, 4): just x @ W + b"""
    params = _params(rng, [4, 2])
    return {"out": sub.predict(params, _f32(3.0 * rng.standard_normal((7, 4))))}


@hidden.probe("q3", "predict")
def deep_network(sub, rng):
    """four layers (sizes [1, 32, 32, 32, 1]) on x of shape (256, 1)"""
    params = _params(rng, [1, 32, 32, 32, 1])
    return {"out": sub.predict(params, _f32(rng.uniform(-np.pi, np.pi, (256, 1))))}


# ---------------------------------------------------------------------------------------------
# q4 adam_init / adam_update


def _nested(rng: np.random.Generator) -> dict[str, Any]:
    """A nested pytree of float32 leaves, 0-d to 2-d: dicts, a list and a tuple. Three leaf
    shapes only: the submission's eager update compiles each operation once per shape."""
    f32 = lambda *shape: _f32(rng.standard_normal(shape))  # noqa: E731
    return {
        "layers": [{"W": f32(4, 3), "b": f32(3)}, {"W": f32(4, 3), "b": f32(3)}],
        "scale": f32(),
        "pair": (f32(3), f32(4, 3)),
    }


def _grads_like(rng: np.random.Generator, params: Any) -> Any:
    """Gradients of every scale from 1e-4 to 1: where |g| is near 1e-3, sqrt(v) is near
    sqrt(eps) and a misplaced eps shows."""
    import jax

    return jax.tree.map(
        lambda p: _f32(rng.standard_normal(p.shape) * 10 ** rng.uniform(-4, 0, p.shape)), params
    )


@hidden.probe("q4", "adam_init")
def init_is_zeros_like_params(sub, rng):
    """on a nested pytree: m and v zeros of its structure and shapes, t an int32 scalar 0"""
    return {"state": sub.adam_init(_nested(rng))}


def _first_step(out: dict[str, Any], ref: dict[str, Any]) -> str | None:
    problem = compare_outputs(out, ref)
    if problem is None:
        return None
    # Diagnose the commonest mistake from the step lengths, where the layout allows.
    try:
        ratios = []
        for path, want in ref.items():
            if path.startswith("params."):
                before = array(ref, "before" + path[len("params") :])
                got_step = np.abs(array(out, path) - before)
                ratios.append(got_step / np.maximum(np.abs(want.value - before), 1e-12))
        ratio = float(np.median(np.concatenate([r.ravel() for r in ratios])))
    except Exception:  # noqa: BLE001 - a malformed answer gets the plain comparison
        return problem
    if 2.5 < ratio < 4.0:
        return (
            f"the first step is about {ratio:.1f} times the reference's, as without bias correction: "
            "divide m by (1 - b1**t) and v by (1 - b2**t), t = 1 at the first step"
        )
    return problem


def _jitted_update(sub, **hyperparameters: float) -> Any:
    """``adam_update`` under one jax.jit, lr traced: one compile, where eager calls would compile
    every operation once per leaf shape (the update must be jittable anyway)."""
    import jax

    return jax.jit(lambda g, s, p, lr: sub.adam_update(g, s, p, lr, **hyperparameters))


@hidden.probe("q4", "adam_update", weight=2, judge=_first_step)
def first_step_bias_corrected(sub, rng):
    """the first step (t = 0 -> 1) from zero moments on a nested pytree, under jit: bias-corrected"""
    params = _nested(rng)
    update = _jitted_update(sub)
    new_params, new_state = update(_grads_like(rng, params), _zero_state(params), params, _learning_rate(rng))
    return {"before": params, "params": new_params, "state": new_state}


@hidden.probe("q4", "adam_update", weight=2)
def five_steps_other_hyperparameters(sub, rng):
    """five steps under jit with b1 = 0.8, b2 = 0.99, eps = 1e-6 and fresh gradients, state fed back"""
    params = _nested(rng)
    state = _zero_state(params)
    lr = float(rng.uniform(0.01, 0.1))
    update = _jitted_update(sub, b1=0.8, b2=0.99, eps=1e-6)
    for _ in range(5):
        params, state = update(_grads_like(rng, params), state, params, lr)
    return {"params": params, "state": state}


@hidden.probe("q4", "adam_update")
def continues_a_mid_run_state(sub, rng):
    """one step under jit from a state as after many steps (t > 1, non-zero m and v)"""
    params = _nested(rng)
    state = _mid_run_state(rng, params, int(rng.integers(2, 500)))
    new_params, new_state = _jitted_update(sub)(_grads_like(rng, params), state, params, _learning_rate(rng))
    return {"params": new_params, "state": new_state}


@hidden.probe("q4", "adam_update")
def jittable_inside_scan(sub, rng):
    """three steps inside a jitted lax.scan, where t is traced"""
    import jax
    from jax import lax

    params = _nested(rng)
    lr = _learning_rate(rng)
    grads = jax.tree.map(lambda p: _f32(rng.standard_normal((3, *p.shape))), params)

    def three_steps(params, state, grads):
        step = lambda carry, g: (sub.adam_update(g, carry[1], carry[0], lr), None)  # noqa: E731
        return lax.scan(step, (params, state), grads)[0]

    new_params, new_state = jax.jit(three_steps)(params, _zero_state(params), grads)
    return {"params": new_params, "state": new_state}


def _full_source(fn: Any) -> str:
    """``source_of(fn)`` and the sources of the notebook functions it reaches, jitted or
    partial ones included. Our grader hands source probes the cells' text, helpers included; in
    a kernel (the nbgrader export) ``source_of`` follows plain functions only, and a helper
    under ``jax.jit`` must not hide a ``P("batch")``."""
    texts: list[str] = []
    todo, seen = [fn], set()
    while todo:
        f = todo.pop()
        if id(f) in seen:
            continue
        seen.add(id(f))
        text = source_of(f)
        if not text:
            continue
        texts.append(text)
        if isinstance(f, SourceFunction):
            continue  # its text holds its helpers already
        base = inspect.unwrap(f) if callable(f) else f
        env = getattr(base, "__globals__", None)
        if not isinstance(env, dict):
            continue
        try:
            names = {n.id for n in ast.walk(ast.parse(text)) if isinstance(n, ast.Name)}
        except SyntaxError:
            continue
        for name in sorted(names):
            g = env.get(name)
            while isinstance(g, functools.partial):
                g = g.func
            g = inspect.unwrap(g) if callable(g) else g
            if isinstance(g, types.FunctionType) and g.__module__ == getattr(base, "__module__", None):
                todo.append(g)
    return "\n".join(texts)


def _library_names(fn: Any) -> list[str]:
    """The optimiser-library names the source of ``fn`` (and its notebook helpers) reaches."""
    used = names_used(_full_source(fn))
    found = {n for n in used if set(n.split(".")) & LIBRARY_NAMES}
    env = getattr(fn, "__globals__", {})
    for name in used:
        obj = env.get(name) if isinstance(env, dict) else None
        if obj is None:
            continue
        module = obj.__name__ if isinstance(obj, types.ModuleType) else getattr(obj, "__module__", "")
        if isinstance(module, str) and module.startswith(LIBRARY_MODULES):
            found.add(name)
    return sorted(found)


def _no_library(out: dict[str, Any], ref: dict[str, Any]) -> str | None:
    for fn in ("adam_init", "adam_update"):
        names = out.get(fn)
        if names:
            return (
                f"`{fn}` uses {names[0]}, an optimiser library: write Adam yourself with "
                "jax.tree.map (rule 1)"
            )
    return None


@hidden.probe("q4", "adam_update", judge=_no_library, gate=True, source=True)
def no_optimiser_library(sub, rng):
    """uses no optimiser library (optax, flax, jax.example_libraries)"""
    return {"adam_init": _library_names(sub.adam_init), "adam_update": _library_names(sub.adam_update)}


# ---------------------------------------------------------------------------------------------
# q5 train_epoch


def _epoch_inputs(rng: np.random.Generator, *, mid_run: bool = False) -> tuple[Any, ...]:
    params = _params(rng, SEED_SIZES)
    state = _mid_run_state(rng, params, int(rng.integers(20, 400))) if mid_run else _zero_state(params)
    x, y = _sin_data(rng, EPOCH_N)
    return params, state, _key(rng), x, y


def _epoch(out: tuple[Any, ...] | Any) -> dict[str, Any]:
    params, opt_state, mean_loss = out
    return {"params": params, "opt_state": opt_state, "mean_loss": mean_loss}


@hidden.probe("q5", "train_epoch", weight=3, judge=_compare_with(EPOCH_TOL))
def matches_reference_one_epoch(sub, rng):
    """one epoch from zero Adam state on x, y of shape (1024, 1) in batches of 48 (remainder dropped)"""
    params, state, key, x, y = _epoch_inputs(rng)
    return _epoch(sub.train_epoch(params, state, key, x, y, EPOCH_BATCH, _learning_rate(rng)))


@hidden.probe("q5", "train_epoch", judge=_compare_with(EPOCH_TOL))
def epoch_from_a_mid_run_state(sub, rng):
    """one epoch from an Adam state as after many steps, on x, y of shape (1024, 1)"""
    params, state, key, x, y = _epoch_inputs(rng, mid_run=True)
    return _epoch(sub.train_epoch(params, state, key, x, y, EPOCH_BATCH, _learning_rate(rng)))


def _no_retrace(out: dict[str, Any], ref: dict[str, Any]) -> str | None:
    n = out.get("traces")
    if not isinstance(n, int):
        return f"returned {describe_value(n)}"
    if n:
        return (
            f"the second epoch traced {n} time(s) again: jit the whole epoch once, at top level "
            '(@functools.partial(jax.jit, static_argnames="batch_size")), with only batch_size static'
        )
    # A count alone is a constant: the epoch it counted must give the reference's numbers.
    return compare_outputs(out, ref, **EPOCH_TOL)


@hidden.probe("q5", "train_epoch", weight=3, judge=_no_retrace)
def second_epoch_does_not_trace_again(sub, rng):
    """a second epoch with new data of the same shape and a new key does not trace again"""
    import jax

    params, state, key, x, y = _epoch_inputs(rng)
    lr = _learning_rate(rng)
    new_params, new_state, _ = jax.block_until_ready(
        sub.train_epoch(params, state, key, x, y, EPOCH_BATCH, lr)
    )
    x2, y2 = _sin_data(rng, EPOCH_N)
    key2 = _key(rng)
    second = []

    def run():
        second.append(sub.train_epoch(new_params, new_state, key2, x2, y2, EPOCH_BATCH, lr))
        return second[-1]

    return {"traces": count_traces(run), "second": _epoch(second[-1])}


def _one_loop(out: dict[str, Any], ref: dict[str, Any]) -> str | None:
    sizes, loop = out.get("sizes"), out.get("loop")
    if not isinstance(sizes, list) or len(sizes) != 2 or not isinstance(loop, bool):
        return "could not trace the epoch"
    if not loop or sizes[0] != sizes[1]:
        return (
            f"the traced epoch holds {sizes[0]} operations for 2 batches and {sizes[1]} for 8: the "
            "batches are unrolled by a Python loop; run them with lax.scan"
        )
    # A count alone is a constant: the epoch must also give the reference's numbers.
    return compare_outputs(
        {k: v for k, v in out.items() if k.startswith("epoch.")},
        {k: v for k, v in ref.items() if k.startswith("epoch.")},
        **EPOCH_TOL,
    )


@hidden.probe("q5", "train_epoch", weight=3, judge=_one_loop)
def one_scan_over_the_batches(sub, rng):
    """traced for 2 and for 8 batches, the epoch holds one loop over the batches, of one size"""
    params = _params(rng, [1, 4, 1])
    state = _zero_state(params)
    lr = _learning_rate(rng)
    sizes, loop = [], True
    for n_batches in (2, 8):
        x, y = _sin_data(rng, 4 * n_batches)
        prims = primitives(
            lambda p, s, k, x, y: sub.train_epoch(p, s, k, x, y, 4, lr), params, state, _key(rng), x, y
        )
        sizes.append(len(prims))
        loop = loop and bool({"scan", "while"} & set(prims))
    # And one epoch run, for its numbers (a count alone is a constant): the notebook's program,
    # already compiled, on fresh inputs.
    *epoch_args, epoch_lr = *_epoch_inputs(rng), _learning_rate(rng)
    epoch = sub.train_epoch(*epoch_args, EPOCH_BATCH, epoch_lr)
    return {"sizes": sizes, "loop": loop, "epoch": _epoch(epoch)}


# ---------------------------------------------------------------------------------------------
# q6 fit


@hidden.probe(
    "q6",
    "fit",
    weight=2,
    judge=_equal_runs(
        "first",
        "second",
        "two runs with the same key differ",
        lambda o, r: compare_outputs(o, r, **EPOCH_TOL),
    ),
)
def same_key_same_run(sub, rng):
    """two runs of 3 epochs with one key give bit-identical params and losses"""
    key = _key(rng)
    first = sub.fit(key, 3, EPOCH_BATCH, 1e-2, SEED_SIZES)
    second = sub.fit(key, 3, EPOCH_BATCH, 1e-2, SEED_SIZES)
    return {
        "first": {"params": first[0], "losses": first[1]},
        "second": {"params": second[0], "losses": second[1]},
    }


@hidden.probe(
    "q6",
    "fit",
    weight=2,
    judge=_compare_with(EPOCH_TOL, ": k_data, k_test, k_init, k_train = split(key, 4); fold_in(k_train, e)"),
)
def matches_reference_run(sub, rng):
    """4 epochs of batch 48 from a typed key: params and losses match the reference's"""
    params, losses = sub.fit(_key(rng), 4, EPOCH_BATCH, _learning_rate(rng), SEED_SIZES)
    return {"params": params, "losses": losses}


def _numpy_mse(outputs: dict[str, Any], x: np.ndarray, y: np.ndarray) -> float:
    """The test MSE of the params in ``outputs`` (the seed's MLP), computed here in NumPy."""
    h = x
    n_layers = len(SEED_SIZES) - 1
    for i in range(n_layers):
        h = h @ array(outputs, f"params.{i}.W").astype(np.float64) + array(outputs, f"params.{i}.b")
        if i < n_layers - 1:
            h = np.tanh(h)
    return float(np.mean((h - y) ** 2))


def _test_mse(out: dict[str, Any], ref: dict[str, Any]) -> str | None:
    # The grader computes both MSEs, on the test set the grader drew (the reference run's copy),
    # from the trained params: a reported number could say anything.
    x, y = array(ref, "x_test").astype(np.float64), array(ref, "y_test").astype(np.float64)
    problem = compare_outputs(
        {k: v for k, v in out.items() if k.startswith("params.")},
        {k: v for k, v in ref.items() if k.startswith("params.")},
        **SHAPES_ONLY,
    )
    if problem:
        return problem
    got, want = _numpy_mse(out, x, y), _numpy_mse(ref, x, y)
    if not math.isfinite(got):
        return f"the test MSE is {got!r}, not a finite number"
    if got > 1.5 * want:
        return (
            f"the test MSE on make_dataset(k_test, 256) is {got / want:.1f} times the reference's "
            "after the same run (at most 1.5 allowed)"
        )
    return None


@hidden.probe("q6", "fit", weight=3, judge=_test_mse)
def test_mse_near_reference(sub, rng):
    """after 10 epochs of batch 48 at lr 1e-2, the test MSE is at most 1.5 times the reference's"""
    import jax
    import jax.numpy as jnp

    key = _key(rng)
    params, _ = sub.fit(key, 10, EPOCH_BATCH, 1e-2, SEED_SIZES)
    kx, kn = jax.random.split(jax.random.split(key, 4)[1])
    x = jax.random.uniform(kx, (256, 1), minval=-jnp.pi, maxval=jnp.pi)
    y = jnp.sin(x) + 0.1 * jax.random.normal(kn, (256, 1))
    return {"params": params, "x_test": x, "y_test": y}


# ---------------------------------------------------------------------------------------------
# q7 train_epoch_sharded


def _sharded_inputs(rng: np.random.Generator) -> tuple[tuple[Any, ...], int, float]:
    """Inputs of q5's kind for n devices: 16 batches of 8 n examples."""
    n = _devices()
    params = _params(rng, SEED_SIZES)
    x, y = _sin_data(rng, 128 * n)
    return (params, _zero_state(params), _key(rng), x, y), 8 * n, _learning_rate(rng)


_on_every_device = on_every_device(
    'place x and y with NamedSharding(mesh, P("batch")) over '
    'jax.make_mesh((jax.device_count(),), ("batch",)) (a plain jit runs on one)'
)


@hidden.probe("q7", "train_epoch_sharded", judge=_on_every_device, gate=True)
def runs_on_every_device(sub, rng):
    """runs on every device: its results are spread over the whole mesh"""
    args, batch, lr = _sharded_inputs(rng)
    return {"devices": devices_of(sub.train_epoch_sharded(*args, batch, lr)), "n": _devices()}


def _batch_specs(fn: Any) -> list[str]:
    """The PartitionSpecs (``P(...)``, ``PartitionSpec(...)``, any alias) in the source of ``fn``
    and its notebook helpers that name a mesh axis: ``P("batch")`` counts, ``P()`` does not."""
    try:
        tree = ast.parse(_full_source(fn))
    except SyntaxError:
        return []
    env = getattr(fn, "__globals__", {})
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        bound = env.get(name) if isinstance(env, dict) else None
        if name not in ("P", "PartitionSpec") and getattr(bound, "__name__", "") != "PartitionSpec":
            continue
        if any(not (isinstance(a, ast.Constant) and a.value is None) for a in node.args):
            found.append(ast.unparse(node))
    return found


def _splits_the_batch(out: dict[str, Any], ref: dict[str, Any]) -> str | None:
    if out.get("specs"):
        return None
    return (
        "no PartitionSpec names a mesh axis, so no array is split over the devices: place x and "
        'y with NamedSharding(mesh, P("batch")); with P() every device computes the whole batch'
    )


@hidden.probe("q7", "train_epoch_sharded", judge=_splits_the_batch, gate=True, source=True)
def splits_the_batch(sub, rng):
    """splits the data over a mesh axis: a PartitionSpec such as P("batch"), not only P()"""
    return {"specs": _batch_specs(sub.train_epoch_sharded)}


@hidden.probe("q7", "train_epoch_sharded", weight=3, judge=_compare_with(EPOCH_TOL))
def sharded_epoch_matches_reference(sub, rng):
    """one epoch on x, y of shape (128 n, 1) in batches of 8 n for n devices: q5's numbers"""
    args, batch, lr = _sharded_inputs(rng)
    return _epoch(sub.train_epoch_sharded(*args, batch, lr))


@hidden.probe("q7", "train_epoch_sharded", judge=_compare_with(EPOCH_TOL))
def two_epochs_in_a_row(sub, rng):
    """two epochs, the second fed what the first returned and a new key: q5's numbers"""
    (params, state, key, x, y), batch, lr = _sharded_inputs(rng)
    params, state, first = sub.train_epoch_sharded(params, state, key, x, y, batch, lr)
    return {
        "first": first,
        "second": _epoch(sub.train_epoch_sharded(params, state, _key(rng), x, y, batch, lr)),
    }


# ---------------------------------------------------------------------------------------------
# q8 plot_fit


def _figure_facts(sub, rng: np.random.Generator, n: int) -> dict[str, Any]:
    """What the judges need to know about the figure, as plain data; the figure is closed."""
    import matplotlib.figure
    import matplotlib.pyplot as plt
    from matplotlib.collections import PathCollection

    params = _params(rng, SEED_SIZES)
    x, y = _sin_data(rng, n)
    fig = sub.plot_fit(params, x, y)
    facts: dict[str, Any] = {"type": type(fig).__name__, "n": n, "figure": False}
    if not isinstance(fig, matplotlib.figure.Figure):
        owner = getattr(fig, "figure", None)
        if isinstance(owner, matplotlib.figure.Figure):
            plt.close(owner)
        return facts
    try:
        axes = fig.get_axes()
        scatters = [c for ax in axes for c in ax.collections if isinstance(c, PathCollection)]
        lines = [ln for ax in axes for ln in ax.get_lines()]
        used = [ax for ax in axes if ax.get_lines() or ax.collections]
        facts.update(
            figure=True,
            scatters=len(scatters),
            lines=len(lines),
            xlabel=bool(used) and all(ax.get_xlabel().strip() for ax in used),
            ylabel=bool(used) and all(ax.get_ylabel().strip() for ax in used),
        )
        if len(scatters) == 1:
            points = np.asarray(scatters[0].get_offsets(), dtype=np.float64).reshape(-1, 2)
            facts["points"] = points[np.lexsort((points[:, 1], points[:, 0]))]
        if len(lines) == 1:
            facts["line_x"] = np.asarray(lines[0].get_xdata(), dtype=np.float64).reshape(-1)
            facts["line_y"] = np.asarray(lines[0].get_ydata(), dtype=np.float64).reshape(-1)
    finally:
        plt.close(fig)
    return facts


def _one_scatter_of_the_data(out: dict[str, Any], ref: dict[str, Any]) -> str | None:
    problem = not_a_figure(out)
    if problem:
        return problem
    if out.get("scatters") != 1:
        return f"the figure holds {out.get('scatters')} scatter plots, expected one (ax.scatter of the data)"
    got, want = out.get("points"), ref["points"]
    if not isinstance(got, PlainArray) or got.value.shape != want.value.shape:
        return (
            f"the scatter holds {describe_value(got)}, expected the {want.value.shape[0]} data points (x, y)"
        )
    if compare_floats(got.value, want.value, rtol=1e-6, atol=1e-6):
        return "the scatter's points are not the data (x, y)"
    return None


def _one_line_of_the_prediction(out: dict[str, Any], ref: dict[str, Any]) -> str | None:
    problem = not_a_figure(out)
    if problem:
        return problem
    if out.get("lines") != 1:
        return f"the figure holds {out.get('lines')} lines, expected one, the prediction"
    xs, ys = out.get("line_x"), out.get("line_y")
    n = ref["line_x"].value.shape[0]
    if not all(isinstance(a, PlainArray) and a.value.shape == (n,) for a in (xs, ys)):
        return f"the line should have {n} points, one per example"
    if np.any(np.diff(xs.value) < 0):
        return "the line's x values are not sorted, so it zig-zags: sort the examples by x first"
    if compare_floats(xs.value, ref["line_x"].value, rtol=1e-6, atol=1e-6):
        return "the line's x values are not the data's x, sorted"
    # The student's own predict may round differently from the reference's.
    if compare_floats(ys.value, ref["line_y"].value, rtol=1e-4, atol=1e-5):
        return "the line's y values are not predict(params, x) at the sorted x"
    return None


def _labelled(out: dict[str, Any], ref: dict[str, Any]) -> str | None:
    problem = not_a_figure(out)
    if problem:
        return problem
    missing = [a for a in ("x", "y") if not out.get(f"{a}label")]
    if not missing:
        # Labels on a figure of the data, not on any figure: flags alone are constants.
        return _one_scatter_of_the_data(out, ref)
    return "neither axis has a label" if len(missing) == 2 else f"the {missing[0]} axis has no label"


@hidden.probe("q8", "plot_fit", weight=3, judge=_one_scatter_of_the_data)
def one_scatter_of_the_data(sub, rng):
    """on 256 examples in random order: one scatter of the 256 points (x, y)"""
    return _figure_facts(sub, rng, 256)


@hidden.probe("q8", "plot_fit", weight=4, judge=_one_line_of_the_prediction)
def one_line_of_the_prediction(sub, rng):
    """on 256 examples in random order: one line of 256 points, predict(params, x) sorted by x"""
    return _figure_facts(sub, rng, 256)


@hidden.probe("q8", "plot_fit", judge=_labelled)
def labelled_axes(sub, rng):
    """on 256 examples: both axes carry a label"""
    return _figure_facts(sub, rng, 256)


# ---------------------------------------------------------------------------------------------
# q9 save_checkpoint / load_checkpoint


def _scratch_path() -> tuple[str, str]:
    """A new empty folder in the sandbox's scratch space, and a .npz path inside it."""
    import os
    import tempfile

    folder = tempfile.mkdtemp(prefix="checkpoint-")
    return folder, os.path.join(folder, "checkpoint.npz")


def _training_state(rng: np.random.Generator) -> tuple[Any, Any]:
    """(params, opt_state) as in the middle of a run: the int32 step count included."""
    params = _params(rng, SEED_SIZES)
    return params, _mid_run_state(rng, params, int(rng.integers(20, 400)))


def _odd_tree(rng: np.random.Generator) -> dict[str, Any]:
    """A pytree of every kind of leaf a state may hold: NumPy and JAX arrays of several dtypes,
    0-d and empty ones, nan, inf and -0.0, nested in dicts, a list and a tuple."""
    import jax.numpy as jnp

    special = rng.standard_normal((3, 4)).astype(np.float32)
    special.flat[[0, 5, 7, 11]] = [np.nan, np.inf, -np.inf, -0.0]
    return {
        "weights": [jnp.asarray(special), _f32(rng.standard_normal(5))],
        "counters": (jnp.int32(int(rng.integers(-1000, 1000))), rng.integers(0, 255, 6).astype(np.uint8)),
        "masks": {"keep": rng.random((2, 3)) < 0.5, "empty": np.zeros((0, 3), np.float32)},
        "half": jnp.asarray(rng.standard_normal(4), jnp.float16),
        "seed": jnp.asarray(rng.integers(0, 2**32, 2, dtype=np.uint64).astype(np.uint32)),
    }


def _zeros_like_tree(tree: Any) -> Any:
    """``like``: the structure of ``tree`` with zero leaves (load_checkpoint ignores the values)."""
    import jax

    return jax.tree.map(lambda a: np.zeros(np.shape(a), np.asarray(a).dtype), tree)


def _loaded(out: Any) -> dict[str, Any]:
    """load_checkpoint's result as outputs; the epoch's type is reported beside its value."""
    if not isinstance(out, tuple) or len(out) != 2:
        return {"state": out, "epoch": None, "epoch_type": type(out).__name__}
    state, epoch = out
    plain = epoch if type(epoch) is int else None
    return {"state": state, "epoch": plain, "epoch_type": type(epoch).__name__}


def _bit_exact(out: dict[str, Any], ref: dict[str, Any], prefix: str = "") -> str | None:
    """Every saved leaf back with its shape, dtype and bits; the epoch a Python int."""
    got_type = out.get(prefix + "epoch_type")
    if got_type != "int" and ref.get(prefix + "epoch_type") == "int":
        if got_type == "NoneType" and out.get(prefix + "state") is None:
            return RETURNED_NONE
        return f"the epoch came back as a {got_type}, not a Python int: return int(...) of the saved count"
    paths = [p for p in ref if p.startswith(prefix + "state")]
    problem = compare_outputs(
        {p: out.get(p) for p in paths if p in out}, {p: ref[p] for p in paths}, **SHAPES_ONLY
    )
    if problem:
        return f"{problem}: every leaf should come back with its saved shape and dtype"
    for path in paths:
        got, want = array(out, path), array(ref, path)
        if got.tobytes() != want.tobytes():
            return (
                f"the leaf at `{path}` does not come back bit for bit: save every leaf as it is, in "
                "its own dtype, and put it back at its own path"
            )
    if out.get(prefix + "epoch") != ref.get(prefix + "epoch"):
        return "the epoch that came back is not the one saved"
    return None


@hidden.probe("q9", "load_checkpoint", weight=3, judge=_bit_exact)
def round_trip_of_a_training_state(sub, rng):
    """(params, opt_state) in mid-run and an epoch count, saved and loaded on a like of zeros"""
    state = _training_state(rng)
    epoch = int(rng.integers(1, 500))
    _, path = _scratch_path()
    sub.save_checkpoint(path, state, epoch)
    return _loaded(sub.load_checkpoint(path, _zeros_like_tree(state)))


@hidden.probe("q9", "load_checkpoint", weight=2, judge=_bit_exact)
def round_trip_of_any_pytree(sub, rng):
    """a nested pytree of NumPy and JAX leaves of many dtypes, 0-d and empty ones included

    float32 with nan, inf and -0.0, int32, uint8, uint32, bool and float16."""
    tree = _odd_tree(rng)
    _, path = _scratch_path()
    sub.save_checkpoint(path, tree, int(rng.integers(0, 50)))
    return _loaded(sub.load_checkpoint(path, _zeros_like_tree(tree)))


@hidden.probe("q9", "load_checkpoint", judge=_bit_exact)
def saving_again_replaces_the_file(sub, rng):
    """two states saved one after the other to the same path: the second comes back"""
    first, second = _training_state(rng), _training_state(rng)
    _, path = _scratch_path()
    sub.save_checkpoint(path, first, 3)
    sub.save_checkpoint(path, second, 7)
    return _loaded(sub.load_checkpoint(path, _zeros_like_tree(second)))


def _checks_like(out: dict[str, Any], ref: dict[str, Any]) -> str | None:
    if out.get("fewer") is not True:
        return (
            "loading with a `like` that has one layer fewer than the saved state should raise "
            "ValueError: compare the number of leaves (or their paths) first"
        )
    if out.get("renamed") is not True:
        return (
            "loading with a `like` whose dict key differs from the saved one (same number of "
            "leaves) should raise ValueError: save the leaves' paths and compare them with like's"
        )
    # Two raised flags are constants: the matching like must also load, bit for bit.
    return _bit_exact(out, ref, "matching.")


@hidden.probe("q9", "load_checkpoint", weight=2, judge=_checks_like)
def another_structure_raises(sub, rng):
    """a like with one layer fewer, or with a renamed dict key, raises ValueError; a matching like loads"""
    params, opt_state = _training_state(rng)
    _, path = _scratch_path()
    sub.save_checkpoint(path, (params, opt_state), 5)
    like_params, like_state = _zeros_like_tree((params, opt_state))
    fewer = (like_params[:-1], like_state)
    renamed = (like_params, {"mu" if k == "m" else k: v for k, v in like_state.items()})
    return {
        "fewer": raises(ValueError, sub.load_checkpoint, path, fewer),
        "renamed": raises(ValueError, sub.load_checkpoint, path, renamed),
        "matching": _loaded(sub.load_checkpoint(path, (like_params, like_state))),
    }


def _no_pickle(out: dict[str, Any], ref: dict[str, Any]) -> str | None:
    files, problem = out.get("files"), out.get("problem")
    if files != ["checkpoint.npz"]:
        if not files:
            return "save_checkpoint wrote no file at the path it was given"
        return (
            "save_checkpoint should write one file, at exactly the path it is given (it ends in "
            f".npz), but the folder holds {len(files)} file(s) with other names"
        )
    if problem:
        return (
            f"np.load(path, allow_pickle=False) cannot read the checkpoint ({problem}): save every "
            "leaf as an array of its own (np.savez), never a pytree, a dict or another Python object"
        )
    return None


@hidden.probe("q9", "save_checkpoint", judge=_no_pickle, gate=True)
def loads_without_pickle(sub, rng):
    """writes one file at the path given, which np.load(path, allow_pickle=False) reads whole"""
    import os

    folder, path = _scratch_path()
    sub.save_checkpoint(path, _training_state(rng), 2)
    problem = ""
    try:
        with np.load(path, allow_pickle=False) as stored:
            for name in stored.files:
                stored[name]
    except Exception as e:  # noqa: BLE001 - any failure to read it is the finding
        problem = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"[:160]
    return {"files": sorted(os.listdir(folder)), "problem": problem}


# ---------------------------------------------------------------------------------------------
# q10 resume_fit
#
# resume_fit is judged on resuming alone: the probe writes the checkpoint with the reference's
# save_checkpoint and runs the submission's resume_fit with the reference's helpers swapped into
# its globals for the call (then put back), train_epoch wrapped to count its calls. A small
# network keeps the helpers' own epoch program cheap to compile (once per process).

RESUME_SIZES = [1, 8, 1]
RESUME_BATCH = 256  # 1024 examples: 4 steps per epoch
RESUME_HELPERS = (
    "make_dataset",
    "init_params",
    "adam_init",
    "adam_update",
    "train_epoch",
    "save_checkpoint",
    "load_checkpoint",
)


@functools.cache
def _reference_training() -> types.SimpleNamespace:
    """The reference's training helpers (those of the master notebook), made once per process."""
    import jax
    import jax.numpy as jnp
    from jax import lax

    def ref_make_dataset(key, n):
        k_uniform, k_normal = jax.random.split(key)
        x = jax.random.uniform(k_uniform, (n, 1), minval=-jnp.pi, maxval=jnp.pi)
        return x, jnp.sin(x) + 0.1 * jax.random.normal(k_normal, (n, 1))

    def ref_init_params(key, sizes):
        layer_keys = jax.random.split(key, len(sizes))[1:]
        return [
            {
                "W": jax.random.normal(k, (n_in, n_out), jnp.float32) * math.sqrt(2 / n_in),
                "b": jnp.zeros((n_out,), jnp.float32),
            }
            for k, n_in, n_out in zip(layer_keys, sizes[:-1], sizes[1:])
        ]

    def ref_predict(params, x):
        *hidden_layers, last = params
        for layer in hidden_layers:
            x = jnp.tanh(x @ layer["W"] + layer["b"])
        return x @ last["W"] + last["b"]

    def ref_mse_loss(params, x, y):
        return jnp.mean(jnp.square(ref_predict(params, x) - y))

    def ref_adam_init(params):
        zeros = functools.partial(jax.tree.map, jnp.zeros_like)
        return {"m": zeros(params), "v": zeros(params), "t": jnp.int32(0)}

    def ref_adam_update(grads, state, params, lr, b1=0.9, b2=0.999, eps=1e-8):
        t = state["t"] + 1
        m = jax.tree.map(lambda m, g: b1 * m + (1 - b1) * g, state["m"], grads)
        v = jax.tree.map(lambda v, g: b2 * v + (1 - b2) * g**2, state["v"], grads)
        m_scale, v_scale = 1 - b1**t, 1 - b2**t
        new = jax.tree.map(
            lambda p, m, v: p - lr * (m / m_scale) / (jnp.sqrt(v / v_scale) + eps), params, m, v
        )
        return new, {"m": m, "v": v, "t": t}

    @functools.partial(jax.jit, static_argnames="batch_size")
    def ref_train_epoch(params, opt_state, key, x, y, batch_size, lr):
        n_batches = x.shape[0] // batch_size
        idx = jax.random.permutation(key, x.shape[0])[: n_batches * batch_size].reshape(n_batches, batch_size)

        def step(carry, batch):
            loss, grads = jax.value_and_grad(ref_mse_loss)(carry[0], *batch)
            return ref_adam_update(grads, carry[1], carry[0], lr), loss

        (params, opt_state), losses = lax.scan(step, (params, opt_state), (x[idx], y[idx]))
        return params, opt_state, jnp.mean(losses)

    def ref_save_checkpoint(path, state, epoch):
        leaves_with_paths, _ = jax.tree.flatten_with_path(state)
        paths = np.array([jax.tree_util.keystr(p) for p, _ in leaves_with_paths], dtype=str)
        leaves = {f"leaf_{i}": np.asarray(leaf) for i, (_, leaf) in enumerate(leaves_with_paths)}
        np.savez(path, paths=paths, epoch=np.asarray(epoch, np.int64), **leaves)

    def ref_load_checkpoint(path, like):
        like_with_paths, treedef = jax.tree.flatten_with_path(like)
        like_paths = [jax.tree_util.keystr(p) for p, _ in like_with_paths]
        with np.load(path, allow_pickle=False) as stored:
            if like_paths != stored["paths"].tolist():
                raise ValueError("`like` does not have the structure of the saved state")
            leaves = [stored[f"leaf_{i}"] for i in range(len(like_paths))]
            epoch = int(stored["epoch"])
        return jax.tree.unflatten(treedef, leaves), epoch

    helpers = {name: value for name, value in locals().items() if name.startswith("ref_")}
    return types.SimpleNamespace(**{name[len("ref_") :]: value for name, value in helpers.items()})


_ABSENT = object()


def _resume(sub, key: Any, n_epochs: int, k: int, lr: float) -> dict[str, Any]:
    """The reference's fit(key, n_epochs, ...) run whole, its checkpoint written after epoch
    k - 1; then the submission's resume_fit from that checkpoint, with the reference's helpers."""
    import jax
    import jax.numpy as jnp

    ref = _reference_training()
    folder, path = _scratch_path()
    key_data, _, key_init, key_train = jax.random.split(key, 4)
    x, y = ref.make_dataset(key_data, 1024)
    params = ref.init_params(key_init, RESUME_SIZES)
    opt_state = ref.adam_init(params)
    losses = []
    for epoch in range(n_epochs):
        if epoch == k:
            ref.save_checkpoint(path, (params, opt_state), k)
        epoch_key = jax.random.fold_in(key_train, epoch)
        params, opt_state, loss = ref.train_epoch(params, opt_state, epoch_key, x, y, RESUME_BATCH, lr)
        losses.append(loss)
    if k == n_epochs:
        ref.save_checkpoint(path, (params, opt_state), k)
    never_stopped = {"params": params, "losses": jnp.stack(losses)[k:]}

    resume_fit = sub.resume_fit
    env = getattr(inspect.unwrap(resume_fit), "__globals__", None)
    if not isinstance(env, dict):
        raise ProbeError("`resume_fit` should be a function defined with `def` in the notebook")
    calls = []

    def counted_train_epoch(*args, **kwargs):
        calls.append(1)
        return ref.train_epoch(*args, **kwargs)

    helpers = {name: getattr(ref, name) for name in RESUME_HELPERS}
    helpers["train_epoch"] = counted_train_epoch
    before = {name: env.get(name, _ABSENT) for name in helpers}
    env.update(helpers)
    try:
        out = resume_fit(key, path, n_epochs, RESUME_BATCH, lr, RESUME_SIZES)
    finally:
        for name, value in before.items():
            if value is _ABSENT:
                env.pop(name, None)
            else:
                env[name] = value
    got_params, got_losses = out if isinstance(out, tuple) and len(out) == 2 else (out, None)
    return {"calls": len(calls), "params": got_params, "losses": got_losses, "never_stopped": never_stopped}


def _resumed(out: dict[str, Any], ref: dict[str, Any]) -> str | None:
    calls, want = out.get("calls"), ref["calls"]
    got = {p: v for p, v in out.items() if p.startswith(("params", "losses"))}
    problem = compare_outputs(
        got, {p: v for p, v in ref.items() if p.startswith(("params", "losses"))}, **SHAPES_ONLY
    )
    if problem:
        return f"{problem} (losses: float32, one per epoch run)"
    if calls != want:
        return (
            f"resume_fit called train_epoch {calls} time(s) where {want} epoch(s) were left to run: "
            "start from the checkpoint's epoch count, with one call of train_epoch per remaining epoch"
        )
    # Bit for bit the run never stopped (the reference's, read from the reference run's outputs).
    stopped = {p[len("never_stopped.") :]: v for p, v in ref.items() if p.startswith("never_stopped.")}
    if compare_outputs(got, stopped, rtol=0.0, atol=0.0):
        return (
            "the resumed run is not bit for bit the run never stopped: make the data and keys as "
            "fit does (make_dataset(k_data, 1024); fold_in(k_train, e) for epoch e, counted on from "
            "the checkpoint's epoch) and resume from the checkpoint's params and Adam state (m, v, t)"
        )
    return None


@hidden.probe("q10", "resume_fit", weight=3, judge=_resumed)
def resumes_halfway(sub, rng):
    """a run of 4 epochs resumed from its checkpoint after 2: the run never stopped, bit for bit"""
    return _resume(sub, _key(rng), 4, 2, _learning_rate(rng))


@hidden.probe("q10", "resume_fit", judge=_resumed)
def resumes_after_the_first_epoch_from_a_legacy_key(sub, rng):
    """a run of 3 epochs from a legacy PRNGKey, resumed after its first epoch"""
    return _resume(sub, _legacy_key(rng), 3, 1, _learning_rate(rng))


@hidden.probe("q10", "resume_fit", weight=2, judge=_resumed)
def nothing_left_to_run(sub, rng):
    """a checkpoint after all 3 epochs: the checkpoint's params and float32 losses of shape (0,)"""
    return _resume(sub, _key(rng), 3, 3, _learning_rate(rng))


# ---------------------------------------------------------------------------------------------
# q11 train_epoch_clipped
#
# One program: the notebook's run compiles the clipped epoch on (1024, 1) in batches of 48 with
# warmup 21 and total 210, and every probe reuses those shapes and static values; the step count
# t of the state handed in decides which part of the schedule an epoch crosses.

CLIP_WARMUP, CLIP_TOTAL = 21, 210


def _clipped(sub, params: Any, opt_state: Any, key: Any, x: Any, y: Any, base_lr: float, max_norm: float):
    return sub.train_epoch_clipped(
        params, opt_state, key, x, y, EPOCH_BATCH, base_lr, CLIP_WARMUP, CLIP_TOTAL, max_norm
    )


def _clipped_inputs(rng: np.random.Generator, t: int) -> tuple[Any, ...]:
    params = _params(rng, SEED_SIZES)
    x, y = _sin_data(rng, EPOCH_N)
    return params, _mid_run_state(rng, params, t), _key(rng), x, y


@hidden.probe("q11", "train_epoch_clipped", weight=3, judge=_compare_with(EPOCH_TOL))
def warm_up_and_clipped(sub, rng):
    """an epoch that crosses the end of the warm-up, its gradients clipped at a small max_norm"""
    inputs = _clipped_inputs(rng, int(rng.integers(CLIP_WARMUP - 15, CLIP_WARMUP - 5)))
    return _epoch(_clipped(sub, *inputs, _learning_rate(rng), float(rng.uniform(0.02, 0.1))))


@hidden.probe("q11", "train_epoch_clipped", weight=2, judge=_compare_with(EPOCH_TOL))
def end_of_schedule_unclipped(sub, rng):
    """an epoch that crosses the end of the schedule (lr 0 from total on), nothing clipped

    max_norm is far above every gradient's norm."""
    inputs = _clipped_inputs(rng, int(rng.integers(CLIP_TOTAL - 15, CLIP_TOTAL - 5)))
    return _epoch(_clipped(sub, *inputs, _learning_rate(rng), 1e4))


def _no_nan(out: dict[str, Any], ref: dict[str, Any]) -> str | None:
    for value in out.values():
        if isinstance(value, PlainArray) and value.value.dtype.kind == "f" and np.isnan(value.value).any():
            return (
                "a zero gradient gave nan: scale by min(1, max_norm / norm), which is 1 at norm 0, "
                "not by min(norm, max_norm) / norm, which is 0 / 0"
            )
    return compare_outputs(out, ref, **EPOCH_TOL)


@hidden.probe("q11", "train_epoch_clipped", weight=2, judge=_no_nan)
def zero_gradient_stays_zero(sub, rng):
    """zero weights and y = 0: every gradient is 0, and the epoch gives no nan"""
    import jax
    import jax.numpy as jnp

    zeros = [
        {"W": jnp.zeros((n_in, n_out), jnp.float32), "b": jnp.zeros((n_out,), jnp.float32)}
        for n_in, n_out in zip(SEED_SIZES[:-1], SEED_SIZES[1:])
    ]
    state = {
        "m": jax.tree.map(jnp.zeros_like, zeros),
        "v": jax.tree.map(jnp.zeros_like, zeros),
        "t": jnp.int32(int(rng.integers(0, 100))),
    }
    x, _ = _sin_data(rng, EPOCH_N)
    return _epoch(_clipped(sub, zeros, state, _key(rng), x, jnp.zeros_like(x), _learning_rate(rng), 1.0))


def _no_retrace_clipped(out: dict[str, Any], ref: dict[str, Any]) -> str | None:
    n = out.get("traces")
    if not isinstance(n, int):
        return f"returned {describe_value(n)}"
    if n:
        return (
            f"a new base_lr and max_norm traced the epoch {n} time(s) again: jit it once, at top "
            "level, with only batch_size, warmup and total static"
        )
    return compare_outputs(out, ref, **EPOCH_TOL)


@hidden.probe("q11", "train_epoch_clipped", weight=2, judge=_no_retrace_clipped)
def new_rate_and_norm_do_not_trace_again(sub, rng):
    """a second epoch with another base_lr and max_norm (and new data and key) does not trace again"""
    import jax

    inputs = _clipped_inputs(rng, int(rng.integers(0, 150)))
    jax.block_until_ready(_clipped(sub, *inputs, _learning_rate(rng), float(rng.uniform(0.05, 0.5))))
    second = _clipped_inputs(rng, int(rng.integers(0, 150)))
    lr, max_norm = _learning_rate(rng), float(rng.uniform(0.05, 0.5))
    result = []

    def run():
        result.append(_clipped(sub, *second, lr, max_norm))
        return result[-1]

    return {"traces": count_traces(run), "second": _epoch(result[-1])}


def _donated(out: dict[str, Any], ref: dict[str, Any]) -> str | None:
    deleted = out.get("deleted")
    if not isinstance(deleted, list) or len(deleted) != len(ref["deleted"]):
        return f"returned {describe_value(deleted)}"
    if not all(d is True for d in deleted):
        kept = deleted.count(False)
        return (
            f"{kept} of the {len(deleted)} arrays of params and opt_state were still alive after the "
            'call: jit with donate_argnames=("params", "opt_state"), so that the epoch reuses their '
            "buffers (and pass them on unchanged: a copy is not donated)"
        )
    # Deleted inputs alone are easy to fake: the epoch must also give the reference's numbers.
    return compare_outputs(
        {k: v for k, v in out.items() if k != "deleted"},
        {k: v for k, v in ref.items() if k != "deleted"},
        **EPOCH_TOL,
    )


@hidden.probe("q11", "train_epoch_clipped", weight=2, judge=_donated)
def donates_params_and_opt_state(sub, rng):
    """params and opt_state given as jax.Arrays are donated: every one of them is deleted by the call"""
    import jax

    params, opt_state, key, x, y = _clipped_inputs(rng, int(rng.integers(0, 150)))
    given = jax.tree.leaves((params, opt_state))
    result = _clipped(sub, params, opt_state, key, x, y, _learning_rate(rng), float(rng.uniform(0.05, 0.5)))
    return {"deleted": [bool(leaf.is_deleted()) for leaf in given], "epoch": _epoch(result)}


# ---------------------------------------------------------------------------------------------
# q12 train_and_evaluate
#
# Every run uses the notebook's shapes and static values (1024 examples in batches of 48, warmup
# 21, total 210, the seed's sizes), so the epoch program the notebook's run compiles serves every
# probe. A run's facts are its numbers (compared with the reference's within EPOCH_TOL, or with
# the student's own other run bit for bit) and what the grader saw it do: how many epochs it ran,
# how many times it called np.savez, what its folder holds.
#
# A kill while saving: np.savez (and np.savez_compressed) are replaced, for one call, by a writer
# that puts the first half of the file where the real one would, then raises _Killed, a
# BaseException, as a killed process stops without running `except Exception` handlers.

CAPSTONE_FILE = "run.npz"


class _Killed(BaseException):
    """The grader's stand-in for a process killed while it writes a checkpoint."""


def _capstone_config(
    rng: np.random.Generator, folder: str, n_epochs: int, every: int, key: Any = None
) -> dict[str, Any]:
    import os

    return {
        "key": _key(rng) if key is None else key,
        "sizes": list(SEED_SIZES),
        "n_epochs": n_epochs,
        "batch_size": EPOCH_BATCH,
        # Gentle runs: at a peak rate near 2e-2 with heavy clipping, Adam's first steps from zero
        # moments turn a last-digit difference (jnp.vdot for the norm) into 5e-3 after 4 epochs;
        # at 2e-3 to 5e-3 with max_norm 0.5 to 2 such answers stayed within 1e-6 (2026-11-28).
        "base_lr": float(rng.uniform(2e-3, 5e-3)),
        "warmup": CLIP_WARMUP,
        "total": CLIP_TOTAL,
        "max_norm": float(rng.uniform(0.5, 2.0)),
        "checkpoint_path": os.path.join(folder, CAPSTONE_FILE),
        "checkpoint_every": every,
    }


class _Savez:
    """np.savez and np.savez_compressed counted while in use, the ``kill_at``-th call killed."""

    def __init__(self, kill_at: int | None = None) -> None:
        self.kill_at, self.calls, self.killed = kill_at, 0, False

    def _wrap(self, real: Any) -> Any:
        import io
        import os

        def savez(file: Any, *args: Any, **kwargs: Any) -> Any:
            self.calls += 1
            if self.calls != self.kill_at:
                return real(file, *args, **kwargs)
            whole = io.BytesIO()
            real(whole, *args, **kwargs)
            half = whole.getvalue()[: len(whole.getvalue()) // 2]
            if hasattr(file, "write"):
                file.write(half)
            else:
                name = os.fspath(file)
                with open(name if name.endswith(".npz") else name + ".npz", "wb") as f:
                    f.write(half)
            self.killed = True
            raise _Killed("the process was killed while it saved a checkpoint")

        return savez

    def __enter__(self) -> _Savez:
        self._real = (np.savez, np.savez_compressed)
        np.savez, np.savez_compressed = (self._wrap(f) for f in self._real)
        return self

    def __exit__(self, *exc: object) -> None:
        np.savez, np.savez_compressed = self._real


def _run_facts(result: Any) -> dict[str, Any]:
    """A run's returned values, and what the grader reads from them; the throughput as flags."""
    if not isinstance(result, dict):
        return {"result": result}
    speeds = result.get("examples_per_second")
    try:
        speeds = np.asarray(speeds, dtype=np.float64).reshape(-1)
        speeds_ok = bool(np.all(np.isfinite(speeds)) and np.all(speeds > 0))
        epochs_run = int(speeds.size)
    except (TypeError, ValueError):
        speeds_ok, epochs_run = False, -1
    params = result.get("params")
    try:
        import jax

        devices = min(
            len(leaf.sharding.device_set) if hasattr(leaf, "sharding") else 1
            for leaf in jax.tree.leaves(params)
        )
    except (TypeError, ValueError):
        devices = 0
    best_epoch = result.get("best_epoch")
    return {
        "params": params,
        "best_params": result.get("best_params"),
        "best_epoch": best_epoch if type(best_epoch) is int else None,
        "history": result.get("history"),
        "epochs_run": epochs_run,
        "speeds_ok": speeds_ok,
        "devices": devices,
    }


NUMBERS = ("params", "best_params", "best_epoch", "history")


def _numbers(out: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    return {p: v for p, v in out.items() if p.startswith(tuple(prefix + n for n in NUMBERS))}


def _run_problem(out: dict[str, Any], ref: dict[str, Any], prefix: str = "") -> str | None:
    """What the grader reads of one run: structure, best_epoch an int, every device, the
    throughput, the epochs run; then the numbers against the reference's."""
    problem = compare_outputs(out, ref, **SHAPES_ONLY)
    if problem:
        return f"{problem} (see the docstring for the result's keys, shapes and dtypes)"
    if out.get(prefix + "devices") != ref.get(prefix + "devices"):
        return (
            f"the params live on {out.get(prefix + 'devices')} device(s), not all "
            f"{ref.get(prefix + 'devices')}: run "
            "the epochs on q7's mesh of every device"
        )
    if out.get(prefix + "speeds_ok") is not True:
        return "examples_per_second should hold one finite, positive number per epoch run"
    if out.get(prefix + "epochs_run") != ref.get(prefix + "epochs_run"):
        return (
            f"the run trained {out.get(prefix + 'epochs_run')} epoch(s) where "
            f"{ref.get(prefix + 'epochs_run')} were left to run (one examples_per_second entry per "
            "epoch this call ran)"
        )
    return compare_outputs(_numbers(out, prefix), _numbers(ref, prefix), **EPOCH_TOL)


@hidden.probe("q12", "train_and_evaluate", weight=3, judge=_run_problem)
def fresh_run_matches_reference(sub, rng):
    """a fresh run of 3 epochs, a checkpoint every 2: history, params, best params and epoch

    It also runs on every device, reports one throughput per epoch, and leaves only its
    checkpoint in the folder."""
    import tempfile

    folder = tempfile.mkdtemp(prefix="capstone-")
    return _run_facts(sub.train_and_evaluate(_capstone_config(rng, folder, 3, 2)))


def _survives_a_kill(out: dict[str, Any], ref: dict[str, Any]) -> str | None:
    if out.get("killed") is not True:
        return (
            "the run never called np.savez, so it could not be stopped while saving: save with "
            "save_checkpoint (q9)"
        )
    error = out.get("restart_error")
    if error:
        return (
            f"killed while it saved its second checkpoint and started again, the run failed ({error}): "
            "the kill left a half-written file at checkpoint_path; write to a temporary file in the "
            "same folder, then os.replace it onto checkpoint_path"
        )
    if out.get("files") != [CAPSTONE_FILE]:
        return "after the restart there is no checkpoint at checkpoint_path"
    problem = _run_problem(out, ref, "resumed.")
    if problem and out.get("resumed.epochs_run") != ref.get("resumed.epochs_run"):
        return (
            f"started again after a kill, the run trained {out.get('resumed.epochs_run')} epoch(s); "
            f"{ref.get('resumed.epochs_run')} were left after its last checkpoint: resume from it"
        )
    resumed, whole = _numbers(out, "resumed."), _numbers(out, "uninterrupted.")
    twin = {"uninterrupted." + p[len("resumed.") :]: v for p, v in resumed.items()}
    if compare_outputs(twin, whole, rtol=0.0, atol=0.0):
        return (
            "killed and started again, the run does not end bit for bit where the same run never "
            "killed ends: resume params, Adam's state, the best and the history from the checkpoint, "
            "and shuffle epoch e with fold_in(k_train, e)"
        )
    return problem


@hidden.probe("q12", "train_and_evaluate", weight=3, judge=_survives_a_kill)
def survives_a_kill_while_saving(sub, rng):
    """a run of 4 epochs, a checkpoint every epoch, killed while it saves the second, started again

    The restart must find the first checkpoint whole, train only epochs 1 to 3, and end bit
    for bit where the run never killed ends."""
    import os
    import tempfile

    whole_folder, killed_folder = tempfile.mkdtemp(prefix="capstone-"), tempfile.mkdtemp(prefix="capstone-")
    config = _capstone_config(rng, whole_folder, 4, 1)
    uninterrupted = _run_facts(sub.train_and_evaluate(config))
    config = {**config, "checkpoint_path": os.path.join(killed_folder, CAPSTONE_FILE)}
    with _Savez(kill_at=2) as saving:
        try:
            sub.train_and_evaluate(config)
        except _Killed:
            pass
    out: dict[str, Any] = {"killed": saving.killed, "uninterrupted": uninterrupted}
    try:
        with _Savez() as saving:
            out["resumed"] = _run_facts(sub.train_and_evaluate(config))
        out["restart_error"] = ""
    except Exception as e:  # noqa: BLE001 - a checkpoint the kill destroyed is the finding
        out["restart_error"] = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"[:120]
    out["files"] = sorted(name for name in os.listdir(killed_folder) if name == CAPSTONE_FILE)
    return out


def _planted_state(
    rng: np.random.Generator, n_epochs: int, done: int, best_val: float, steps: int | None = None
) -> dict[str, Any]:
    """A checkpoint's state after ``done`` epochs, of the grader's own making (not what training
    from scratch gives, so that only a real resume reproduces the reference's run)."""
    n_batches = EPOCH_N // EPOCH_BATCH
    params = _params(rng, SEED_SIZES)
    history = {
        "train_loss": np.zeros(n_epochs, np.float32),
        "val_mse": np.zeros(n_epochs, np.float32),
        "grad_norm": np.zeros((n_epochs, n_batches), np.float32),
    }
    history["train_loss"][:done] = rng.uniform(0.02, 0.3, done)
    history["val_mse"][:done] = rng.uniform(0.02, 0.3, done)
    history["grad_norm"][:done] = rng.uniform(0.1, 3.0, (done, n_batches))
    return {
        "params": params,
        "opt_state": _mid_run_state(rng, params, done * n_batches if steps is None else steps),
        "best_params": [{k: np.asarray(v) for k, v in layer.items()} for layer in _params(rng, SEED_SIZES)],
        "best_val": np.float32(best_val),
        "best_epoch": np.int32(done - 1),
        "history": history,
    }


def _resume_planted(
    sub, rng: np.random.Generator, n_epochs: int, done: int, best_val: float, steps: int | None = None
) -> dict[str, Any]:
    import tempfile

    folder = tempfile.mkdtemp(prefix="capstone-")
    config = _capstone_config(rng, folder, n_epochs, 1)
    planted = _planted_state(rng, n_epochs, done, best_val, steps)
    sub.save_checkpoint(config["checkpoint_path"], planted, done)
    return _run_facts(sub.train_and_evaluate(config))


def _resumed_from_planted(out: dict[str, Any], ref: dict[str, Any]) -> str | None:
    problem = _run_problem(out, ref)
    if problem and out.get("epochs_run") == ref.get("epochs_run") and out.get("speeds_ok") is True:
        if compare_outputs(
            {p: v for p, v in out.items() if p.startswith("history.")},
            {p: v for p, v in ref.items() if p.startswith("history.")},
            **EPOCH_TOL,
        ):
            return (
                f"resumed from a checkpoint, the history differs from the reference's ({problem}): the "
                "rows of the epochs before the checkpoint come from it, the others from this run"
            )
        return (
            f"resumed from a checkpoint, the run differs from the reference's ({problem}): go on from its "
            "params and Adam state at its epoch, and keep its best unless a later epoch beats it"
        )
    return problem


@hidden.probe("q12", "train_and_evaluate", weight=3, judge=_resumed_from_planted)
def resumes_from_a_checkpoint(sub, rng):
    """a checkpoint after 2 of 4 epochs, written with save_checkpoint: epochs 2 and 3 run from it

    Its params, Adam state and history are the grader's (not those of a run from the key); its
    best validation MSE is beaten by the next epochs."""
    return _resume_planted(sub, rng, 4, 2, 10.0)


@hidden.probe("q12", "train_and_evaluate", weight=3, judge=_resumed_from_planted)
def keeps_an_earlier_best(sub, rng):
    """a checkpoint after 2 of 3 epochs whose best validation MSE (epoch 1) no later epoch beats

    The best params and epoch stay the checkpoint's."""
    return _resume_planted(sub, rng, 3, 2, 1e-6)


@hidden.probe("q12", "train_and_evaluate", weight=2, judge=_resumed_from_planted)
def a_tie_keeps_the_earlier_epoch(sub, rng):
    """a checkpoint after 2 of 4 epochs at the end of the schedule (learning rate 0 from there)

    Epoch 2 beats the checkpoint's best, and epoch 3, which cannot move the params, ties it:
    the best stays epoch 2's params, a copy that epoch 3's donation must not delete."""
    return _resume_planted(sub, rng, 4, 2, 10.0, steps=CLIP_TOTAL + int(rng.integers(0, 50)))
