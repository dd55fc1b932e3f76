"""Hidden tests of 05-pmap: data-parallel training of the linear model w * x + b.

The data-parallel probes (q4-q7, q9, q10) run on ``n = jax.local_device_count()`` devices, and
q4/q6/q9 also on exactly 2 when there are at least 2 (q7 and q10 take a mesh of all devices). On
one device several mistakes give the right numbers (no ``pmean``, a per-device clipping norm, a
plain ``jit``, ``pmean`` for ``psum``, q10's ``pmean`` of the gradients), which is why the grader
always runs this assignment with 8 virtual CPU devices (course.yml: ``devices``). Every probe
passes for the reference on any device count from 1 to 8.

JAX is imported inside the probe bodies, never at module level: the device count is fixed when
JAX is imported, and the grader imports this file in processes that must not start JAX.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from autograder.probing import (
    PlainArray,
    ProbeSet,
    array,
    compare_outputs,
    compare_value,
    describe_value,
    devices_of,
    not_a_figure,
    on_every_device,
    primitives,
    raises,
)

hidden = ProbeSet("05-pmap")


# ---------------------------------------------------------------------------------------------
# Inputs, made from the probe's rng only.


def _devices() -> int:
    import jax

    return jax.local_device_count()


def _batch(n: int, per_device: int = 16) -> int:
    """A batch size that splits evenly over ``n`` devices, close to the tutorial's 128."""
    return n * max(per_device, math.ceil(128 / n))


def _line_data(rng: np.random.Generator, size: int) -> tuple[Any, Any]:
    """``(x, y)`` of shape ``(size, 1)`` float32 on ``y = 2x - 1`` plus noise of std 0.5, with
    ``x`` sorted so that every device's contiguous block (hence its gradient) is different."""
    import jax.numpy as jnp

    x = np.sort(rng.standard_normal((size, 1)), axis=0)
    y = 2.0 * x - 1.0 + 0.5 * rng.standard_normal((size, 1))
    return jnp.asarray(x, jnp.float32), jnp.asarray(y, jnp.float32)


def _far_params(rng: np.random.Generator) -> dict[str, Any]:
    """``{"w", "b"}`` float32 scalars 1 to 3 away from (2, -1): gradients of norm above 2."""
    import jax.numpy as jnp

    offset = rng.uniform(1.0, 3.0, size=2) * rng.choice([-1.0, 1.0], size=2)
    return {"w": jnp.float32(2.0 + offset[0]), "b": jnp.float32(-1.0 + offset[1])}


def _replicated(params: dict[str, Any], n: int) -> dict[str, Any]:
    import jax.numpy as jnp

    return {k: jnp.broadcast_to(v, (n,)) for k, v in params.items()}


def _sharded(a: Any, n: int) -> Any:
    return a.reshape(n, a.shape[0] // n, *a.shape[1:])


def _pmap_inputs(rng: np.random.Generator, n: int) -> tuple[dict[str, Any], Any, Any]:
    """Replicated params and sharded ``(n, N // n, 1)`` data for a pmapped step on ``n`` devices."""
    x, y = _line_data(rng, _batch(n))
    return _replicated(_far_params(rng), n), _sharded(x, n), _sharded(y, n)


def _learning_rate(rng: np.random.Generator) -> float:
    return float(rng.uniform(0.05, 0.3))


# ---------------------------------------------------------------------------------------------
# Judges shared by several questions.


def _same_dtypes(out: dict[str, Any], ref: dict[str, Any]) -> str | None:
    """The reference comparison, then every array's dtype."""
    problem = compare_outputs(out, ref)
    if problem:
        return problem
    for path, want in ref.items():
        got = out[path]
        if isinstance(want, PlainArray) and got.value.dtype != want.value.dtype:
            return (
                f"leaf `{path}` has dtype {got.value.dtype}, expected {want.value.dtype}: "
                "keep every leaf's dtype"
            )
    return None


def _replicas_identical(out: dict[str, Any], ref: dict[str, Any]) -> str | None:
    """Every output array holds one value, bit for bit, along its device axis; and the values
    are the reference's (identical copies of anything else are worth nothing)."""
    if set(out) != set(ref):
        return compare_outputs(out, ref)
    for path, want in ref.items():
        got = array(out, path)
        if got.shape != want.value.shape:
            return f"output `{path}` has shape {got.shape}, expected {want.value.shape}"
        if got.shape and not (got == got[:1]).all():
            what = "loss" if path.endswith(".1") else f"new_params[{path.rsplit('.', 1)[-1]!r}]"
            return (
                f"{what} differs between the {got.shape[0]} devices: average the gradients "
                'and the loss with lax.pmean over "batch" so every device holds the same'
            )
    return compare_outputs(out, ref)


# Every result on all the devices the grader has (the reference's count, never the result's own).
_pmapped = on_every_device(
    'make it a jax.pmap (axis_name="batch"); jax.vmap with an axis name gets the numbers on one device'
)


# ---------------------------------------------------------------------------------------------
# q1 shard


@hidden.probe("q1", "shard", weight=2)
def contiguous_blocks(sub, rng):
    """on x of shape (24, 3) over 4 devices"""
    import jax.numpy as jnp

    x = jnp.asarray(rng.standard_normal((24, 3)), jnp.float32)
    return {"out": sub.shard(x, 4)}


@hidden.probe("q1", "shard")
def keeps_trailing_shape_and_dtype(sub, rng):
    """on an int32 x of shape (12, 2, 3) over 3 devices"""
    import jax.numpy as jnp

    x = jnp.asarray(rng.integers(-100, 100, size=(12, 2, 3)), jnp.int32)
    return {"out": sub.shard(x, 3)}


@hidden.probe("q1", "shard")
def one_device_and_one_example_each(sub, rng):
    """on x of shape (8, 1) over 1 device and over 8 devices"""
    import jax.numpy as jnp

    x = jnp.asarray(rng.standard_normal((8, 1)), jnp.float32)
    return {"one": sub.shard(x, 1), "eight": sub.shard(x, 8)}


@hidden.probe("q1", "shard")
def uneven_split_raises_value_error(sub, rng):
    """raises ValueError for 10 examples over 4 devices and 3 examples over 4 devices (not 12)"""
    import jax.numpy as jnp

    return {
        "10_over_4": raises(ValueError, sub.shard, jnp.zeros((10, 1), jnp.float32), 4),
        "3_over_4": raises(ValueError, sub.shard, jnp.zeros((3, 1), jnp.float32), 4),
        # An even split among them: an answer that always raises does not pass.
        "12_over_4": sub.shard(jnp.asarray(rng.standard_normal((12, 2)), jnp.float32), 4),
    }


# ---------------------------------------------------------------------------------------------
# q2 replicate / unreplicate


def _tree(rng: np.random.Generator) -> dict[str, Any]:
    """A nested pytree (dict, list, tuple) of float32 and int32 leaves, 0-d to 2-d."""
    import jax.numpy as jnp

    f32 = lambda *shape: jnp.asarray(rng.standard_normal(shape), jnp.float32)  # noqa: E731
    return {
        "w": f32(),
        "b": f32(),
        "layers": [{"W": f32(3, 2), "b": f32(2)}, (jnp.asarray(rng.integers(0, 9, 4), jnp.int32), f32(2, 2))],
        "step": jnp.int32(rng.integers(0, 100)),
    }


@hidden.probe("q2", "replicate", weight=2, judge=_same_dtypes)
def stacks_copies_of_every_leaf(sub, rng):
    """on a nested pytree of float32 and int32 leaves, over 3 devices"""
    return {"replicated": sub.replicate(_tree(rng), 3)}


@hidden.probe("q2", "unreplicate", judge=_same_dtypes)
def unreplicate_takes_copy_zero(sub, rng):
    """on a nested pytree whose leaves hold 4 different copies"""
    import jax

    n = 4
    stacked = jax.tree.map(lambda *copies: jax.numpy.stack(copies), *[_tree(rng) for _ in range(n)])
    return {"unreplicated": sub.unreplicate(stacked)}


@hidden.probe("q2", "replicate", judge=_same_dtypes)
def round_trips(sub, rng):
    """unreplicate(replicate(tree, 2)) on a nested pytree gives the tree back"""
    return {"back": sub.unreplicate(sub.replicate(_tree(rng), 2))}


# ---------------------------------------------------------------------------------------------
# q3 mse_loss


def _loss_inputs(rng: np.random.Generator, size: int) -> tuple[dict[str, Any], Any, Any]:
    import jax.numpy as jnp

    params = {k: jnp.float32(v) for k, v in zip("wb", rng.uniform(-3.0, 3.0, size=2))}
    x, y = _line_data(rng, size)
    return params, x, y


@hidden.probe("q3", "mse_loss", weight=2)
def matches_reference(sub, rng):
    """on random params and x, y of shape (32, 1)"""
    params, x, y = _loss_inputs(rng, 32)
    return {"loss": sub.mse_loss(params, x, y)}


@hidden.probe("q3", "mse_loss")
def differentiable_with_grad(sub, rng):
    """jax.grad of it on random params and x, y of shape (100, 1)"""
    import jax

    params, x, y = _loss_inputs(rng, 100)
    return {"grad": jax.grad(sub.mse_loss)(params, x, y)}


# ---------------------------------------------------------------------------------------------
# q4 train_step


@hidden.probe("q4", "train_step", weight=2)
def equals_full_batch_step(sub, rng):
    """one step on all devices (x, y sharded (n, N // n, 1)) equals one full-batch step"""
    params, x, y = _pmap_inputs(rng, _devices())
    return {"step": sub.train_step(params, x, y, _learning_rate(rng))}


@hidden.probe("q4", "train_step", judge=_replicas_identical)
def replicas_bit_identical(sub, rng):
    """after one step on all devices, every device holds the same params and loss"""
    params, x, y = _pmap_inputs(rng, _devices())
    return {"step": sub.train_step(params, x, y, _learning_rate(rng))}


@hidden.probe("q4", "train_step")
def equals_full_batch_step_on_two_devices(sub, rng):
    """one step on 2 devices (x, y sharded (2, N // 2, 1)) equals one full-batch step"""
    params, x, y = _pmap_inputs(rng, min(2, _devices()))
    return {"step": sub.train_step(params, x, y, _learning_rate(rng))}


@hidden.probe("q4", "train_step", judge=_pmapped, gate=True)
def pmapped_over_every_device(sub, rng):
    """runs on every device: its results are spread over all of them (jax.pmap, not jax.vmap)"""
    params, x, y = _pmap_inputs(rng, _devices())
    return {"devices": devices_of(sub.train_step(params, x, y, _learning_rate(rng))), "n": _devices()}


# ---------------------------------------------------------------------------------------------
# q5 train


def _train_run(sub, rng, n_steps: int, lr: float, *, legacy_key: bool = False) -> dict[str, Any]:
    import jax

    seed = int(rng.integers(2**31))
    key = jax.random.PRNGKey(seed) if legacy_key else jax.random.key(seed)
    x, y = _line_data(rng, _batch(_devices()))
    params, losses = sub.train(key, x, y, n_steps, lr)
    return {"losses": losses, "params": params}


# Default tolerances hold over many steps: gradient descent on this problem is contractive, and
# 150 steps of a pmapped run and of a single-device full-batch run differ by under 4e-7 relative.
@hidden.probe("q5", "train", weight=2)
def matches_reference_run(sub, rng):
    """20 steps with a typed key on all devices: losses and params match the reference's"""
    return _train_run(sub, rng, 20, 0.1)


@hidden.probe("q5", "train")
def accepts_legacy_key(sub, rng):
    """10 steps with a legacy PRNGKey: losses and params match the reference's"""
    return _train_run(sub, rng, 10, 0.2, legacy_key=True)


def _decreasing(out: dict[str, Any], ref: dict[str, Any]) -> str | None:
    if not isinstance(out.get("losses"), PlainArray):
        return f"losses is {describe_value(out.get('losses'))}, expected an array"
    losses = array(out, "losses")
    want = array(ref, "losses").shape
    if losses.shape != want:
        return f"losses has shape {losses.shape}, expected {want} (one loss per step)"
    if not np.isfinite(losses).all():
        return "some losses are not finite"
    if not (np.diff(losses) <= 1e-6 * np.abs(losses[:-1])).all() or losses[-1] >= losses[0]:
        return "the loss history does not decrease step after step"
    # The run's numbers too: any decreasing sequence has the property.
    return compare_outputs(out, ref)


@hidden.probe("q5", "train", judge=_decreasing)
def loss_history_decreases(sub, rng):
    """30 steps with lr 0.1: losses has one entry per step and decreases"""
    return _train_run(sub, rng, 30, 0.1)


def _recovers_line(out: dict[str, Any], ref: dict[str, Any]) -> str | None:
    for name in ("w", "b"):
        got = out.get(f"params.{name}")
        if not isinstance(got, PlainArray) or got.value.shape != ():
            return f"params[{name!r}] is {describe_value(got)}, expected a float32 scalar"
    w, b = float(array(out, "params.w")), float(array(out, "params.b"))
    if abs(w - 2.0) > 0.25 or abs(b + 1.0) > 0.25:
        return f"ended at w = {w:.3f}, b = {b:.3f}, far from the line's w = 2, b = -1"
    # The run's numbers too: (2, -1) itself is near the line.
    return compare_outputs(out, ref)


# At most 40 steps per run: on 8 virtual CPU devices sharing 2 cores, 60 queued jitted steps that
# each hold an all-reduce can stall XLA's CPU collectives until it aborts the process (the loop of
# an answer that does not wait for each step), which would cost an honest answer every question.
@hidden.probe("q5", "train", judge=_recovers_line)
def recovers_true_line(sub, rng):
    """40 steps with lr 0.2 on y = 2x - 1 plus noise recover w close to 2 and b close to -1"""
    return _train_run(sub, rng, 40, 0.2)


# ---------------------------------------------------------------------------------------------
# Reading a step's program: the shard_map of q6 and q10


def _spec(spec: Any) -> list[str | None]:
    """A PartitionSpec as plain data: one entry per array axis, trailing ``None`` dropped, a
    one-name tuple as that name (``P("batch", None)`` and ``P(("batch",))`` read ``["batch"]``)."""
    entries: list[str | None] = []
    for entry in tuple(spec):
        if isinstance(entry, tuple):
            entry = entry[0] if len(entry) == 1 else "+".join(map(str, entry))
        entries.append(None if entry is None else str(entry))
    while entries and entries[-1] is None:
        entries.pop()
    return entries


# Primitives whose outputs are their inputs, placed or typed anew: an input keeps its name.
_PASS_THROUGH = {
    "device_put",
    "copy",
    "copy_p",
    "convert_element_type",
    "reshard",
    "sharding_constraint",
    "mesh_cast",
}


def _find_shard_maps(jaxpr: Any, names: dict[Any, str], found: list[dict[str, Any]]) -> None:
    """Every shard_map of ``jaxpr`` (calls such as jit included), each with the mesh, the spec
    and the name (``params``, ``x``, ``y`` or ``None``) of every operand, and the out specs.
    ``names`` maps the jaxpr's variables that carry an input of the step to that input's name."""

    def name_of(var: Any) -> str | None:
        return None if type(var).__name__ == "Literal" else names.get(var)

    for eqn in jaxpr.eqns:
        operands = [name_of(v) for v in eqn.invars]
        if eqn.primitive.name == "shard_map":
            found.append(
                {
                    "mesh": {str(k): int(v) for k, v in dict(eqn.params["mesh"].shape).items()},
                    "operands": [
                        {
                            "name": name,
                            "shape": list(var.aval.shape),
                            "weak": bool(getattr(var.aval, "weak_type", False)),
                            "spec": _spec(spec),
                        }
                        for name, var, spec in zip(operands, eqn.invars, eqn.params["in_specs"])
                    ],
                    "out": [_spec(spec) for spec in eqn.params["out_specs"]],
                }
            )
            continue
        if eqn.primitive.name in _PASS_THROUGH and len(eqn.outvars) == len(operands):
            names.update({out: name for out, name in zip(eqn.outvars, operands) if name})
        for param in eqn.params.values():
            for inner in param if isinstance(param, (list, tuple)) else [param]:
                inner = getattr(inner, "jaxpr", inner)
                if hasattr(inner, "eqns"):
                    same = len(inner.invars) == len(operands)
                    inner_names = {v: n for v, n in zip(inner.invars, operands) if n} if same else {}
                    _find_shard_maps(inner, inner_names, found)


def _shard_map_problem(found: dict[str, Any], n: int) -> str | None:
    """What keeps one shard_map from being the step's: None when it is."""
    if found["mesh"] != {"batch": n}:
        return f'its mesh is {found["mesh"]}, not all {n} devices on one axis named "batch"'
    operands = found["operands"]
    params = [o for o in operands if o["name"] == "params"]
    if not params:  # lost on the way in: the 0-d float operands are the params
        params = [o for o in operands if o["shape"] == [] and not o["weak"]]
    if len(params) < 2 or any(o["spec"] for o in params):
        return (
            "the params do not go in replicated, in_specs P() (q4's pmapped train_step gives them "
            "a device axis and does not count)"
        )
    data = [o for o in operands if o["name"] in ("x", "y")]
    if len(data) < 2:
        data = [o for o in operands if len(o["shape"]) == 2 and o["shape"][1] == 1]
    if len(data) < 2:
        return 'x and y do not go in as they come, (N, 1) arrays with in_specs P("batch")'
    if any(o["spec"] != ["batch"] for o in data):
        specs = " and ".join(sorted({f"P({', '.join(map(repr, o['spec']))})" for o in data}))
        return f'x and y go in as {specs}, not P("batch"): split the batch over the devices'
    if any(found["out"]):
        return "not every output has out_specs P(): return new_params and the loss replicated"
    return None


def _holds_the_shard_map(out: dict[str, Any], ref: dict[str, Any]) -> str | None:
    found, problem = out.get("shard_maps"), out.get("problem")
    if not isinstance(found, int) or not isinstance(problem, str):
        return "returned no verdict on its shard_map"
    if problem:
        return problem if not found else f"the step's shard_map is not the one asked for: {problem}"
    if not found:
        return (
            "the step holds no jax.shard_map: write it with jax.shard_map over a mesh of all "
            'devices with the axis "batch" (a jit on placed data is q7\'s answer, not this one)'
        )
    return None


def _shard_map_verdict(step: Any, params: dict[str, Any], x: Any, y: Any) -> dict[str, Any]:
    """Traces ``step(params, x, y)`` and says whether it holds the data-parallel shard_map."""
    import jax

    try:
        traced = jax.make_jaxpr(step)(params, x, y)
    except Exception as e:  # noqa: BLE001 - the student's step, traced: say why it could not be
        first = str(e).splitlines()[0] if str(e) else ""
        return {
            "shard_maps": 0,
            "problem": f"tracing the step with jax.make_jaxpr raised {type(e).__name__}: {first}",
        }
    names = ["params"] * len(jax.tree.leaves(params)) + ["x", "y"]
    found: list[dict[str, Any]] = []
    _find_shard_maps(traced.jaxpr, dict(zip(traced.jaxpr.invars, names)), found)
    problems = [_shard_map_problem(f, _devices()) for f in found]
    # The shard_maps the step holds, and what keeps the first from being the one asked for
    # ("" when one of them is).
    return {"shard_maps": len(found), "problem": "" if None in problems else (problems or [""])[0]}


# ---------------------------------------------------------------------------------------------
# q6 clipped_train_step (q10's layout: params un-replicated, x and y the whole batch)


def _max_norm(rng: np.random.Generator) -> float:
    """Well below the gradients' norms (above 2, see _far_params): clipping acts."""
    return float(rng.uniform(0.1, 0.5))


def _sharded_inputs(rng: np.random.Generator) -> tuple[dict[str, Any], Any, Any]:
    x, y = _line_data(rng, _batch(_devices()))
    return _far_params(rng), x, y


def _clipped(sub, params: dict[str, Any], x: Any, y: Any, lr: float, max_norm: float) -> dict[str, Any]:
    return {"step": sub.clipped_train_step(params, x, y, lr, max_norm)}


@hidden.probe("q6", "clipped_train_step", weight=2)
def equals_clipped_full_batch_step(sub, rng):
    """one clipped step on the whole (N, 1) batch equals one clipped full-batch step"""
    params, x, y = _sharded_inputs(rng)
    return _clipped(sub, params, x, y, _learning_rate(rng), _max_norm(rng))


@hidden.probe("q6", "clipped_train_step")
def clipped_with_one_example_per_device(sub, rng):
    """one clipped step on one example per device equals one clipped full-batch step"""
    x, y = _line_data(rng, _devices())
    return _clipped(sub, _far_params(rng), x, y, _learning_rate(rng), _max_norm(rng))


@hidden.probe("q6", "clipped_train_step")
def unclipped_below_max_norm(sub, rng):
    """with max_norm far above the gradient's norm the step is one plain full-batch step"""
    params, x, y = _sharded_inputs(rng)
    return _clipped(sub, params, x, y, _learning_rate(rng), 1e4)


@hidden.probe("q6", "clipped_train_step")
def three_clipped_steps_in_a_row(sub, rng):
    """three clipped steps, each fed the params the last one returned"""
    max_norm = _max_norm(rng)
    return _three_steps(lambda p, a, b, lr: sub.clipped_train_step(p, a, b, lr, max_norm), rng)


def _exact_line_inputs(rng: np.random.Generator, n: int) -> tuple[dict[str, Any], Any, Any]:
    """Data exactly on a random line y = w x + b and params on it: w, b and x in quarters, so
    every product and sum is exact in float32, and every residual, hence the gradient and its
    norm, is exactly 0."""
    import jax.numpy as jnp

    w, b = (float(v) for v in rng.integers(-12, 13, size=2) / 4.0)
    x = np.sort(rng.integers(-16, 17, size=(_batch(n), 1)) / 4.0, axis=0)
    params = {"w": jnp.float32(w), "b": jnp.float32(b)}
    return params, jnp.asarray(x, jnp.float32), jnp.asarray(w * x + b, jnp.float32)


@hidden.probe("q6", "clipped_train_step")
def zero_gradient_leaves_params(sub, rng):
    """at a zero gradient (data exactly on a line, params on it) the step changes nothing, no nan"""
    params, x, y = _exact_line_inputs(rng, _devices())
    return _clipped(sub, params, x, y, _learning_rate(rng), _max_norm(rng))


@hidden.probe("q6", "clipped_train_step", judge=_holds_the_shard_map, gate=True)
def clipped_shard_map_over_every_device(sub, rng):
    """holds a shard_map over all devices, params in as P(), x and y as P("batch"), outputs P()"""
    params, x, y = _sharded_inputs(rng)
    lr, max_norm = _learning_rate(rng), _max_norm(rng)
    return _shard_map_verdict(lambda p, a, b: sub.clipped_train_step(p, a, b, lr, max_norm), params, x, y)


# ---------------------------------------------------------------------------------------------
# q7 sharded_train_step (jit on an Explicit mesh)


_on_the_mesh = on_every_device(
    "place x and y with a NamedSharding over a mesh of all devices (a plain jit runs on one)"
)


@hidden.probe("q7", "sharded_train_step", judge=_on_the_mesh, gate=True)
def runs_on_every_device(sub, rng):
    """runs on every device: its results are spread over the whole mesh"""
    out = sub.sharded_train_step(*_sharded_inputs(rng), _learning_rate(rng))
    return {"devices": devices_of(out), "n": _devices()}


def _three_steps(step: Any, rng: np.random.Generator) -> dict[str, Any]:
    """Three steps of ``step`` on one sharded batch, each fed the params the last one returned."""
    params, x, y = _sharded_inputs(rng)
    lr = _learning_rate(rng)
    losses = []
    for _ in range(3):
        params, loss = step(params, x, y, lr)
        losses.append(loss)
    return {"params": params, "losses": losses}


@hidden.probe("q7", "sharded_train_step", weight=2)
def same_numbers_as_full_batch_step(sub, rng):
    """one step on the whole (N, 1) batch equals one full-batch step"""
    params, x, y = _sharded_inputs(rng)
    return {"step": sub.sharded_train_step(params, x, y, _learning_rate(rng))}


@hidden.probe("q7", "sharded_train_step")
def three_steps_in_a_row(sub, rng):
    """three steps, each fed the params the last one returned, equal three full-batch steps"""
    return _three_steps(sub.sharded_train_step, rng)


def _explicit_spec(sharding: Any) -> tuple[dict[str, int], list[str | None]] | None:
    """``(mesh shape, spec)`` of a sharding on a mesh whose axes are all Explicit, else None."""
    mesh = getattr(sharding, "mesh", None)
    types = getattr(mesh, "axis_types", None)
    if not types or any(getattr(t, "name", str(t)) != "Explicit" for t in types):
        return None
    return {str(k): int(v) for k, v in dict(mesh.shape).items()}, _spec(sharding.spec)


def _typed_values(jaxpr: Any, found: list[tuple[tuple[int, ...], dict[str, int], list[str | None]]]) -> None:
    """Every value of ``jaxpr`` (inner jaxprs included) typed on an Explicit mesh."""
    for eqn in jaxpr.eqns:
        for var in eqn.outvars:
            typed = _explicit_spec(getattr(var.aval, "sharding", None))
            if typed is not None:
                found.append((tuple(var.aval.shape), *typed))
        for param in eqn.params.values():
            for inner in param if isinstance(param, (list, tuple)) else [param]:
                inner = getattr(inner, "jaxpr", inner)
                if hasattr(inner, "eqns"):
                    _typed_values(inner, found)


def _batch_split_in_the_type(out: dict[str, Any], ref: dict[str, Any]) -> str | None:
    if out.get("problem"):
        return str(out["problem"])
    if not out.get("split"):
        return (
            f"no value of shape ({ref['size']}, 1) is typed as split over an Explicit mesh axis "
            f'"batch" of all {ref["n"]} devices: build the mesh with jax.make_mesh (its axes are '
            "Explicit by default) and place x and y with jax.sharding.reshard (or jax.device_put) "
            'and NamedSharding(mesh, P("batch")); jax.typeof shows the split'
        )
    return None


@hidden.probe("q7", "sharded_train_step", judge=_batch_split_in_the_type)
def batch_split_in_the_type(sub, rng):
    """traced with jax.make_jaxpr: x and y are typed as split over the Explicit mesh axis batch"""
    import jax

    params, x, y = _sharded_inputs(rng)
    lr = _learning_rate(rng)
    n, size = _devices(), x.shape[0]
    try:
        traced = jax.make_jaxpr(lambda p, a, b: sub.sharded_train_step(p, a, b, lr))(params, x, y)
    except Exception as e:  # noqa: BLE001 - the student's step, traced: say why it could not be
        first = str(e).splitlines()[0] if str(e) else ""
        problem = f"tracing the step with jax.make_jaxpr raised {type(e).__name__}: {first}"
        return {"split": 0, "problem": problem, "n": n, "size": size}
    found: list[tuple[tuple[int, ...], dict[str, int], list[str | None]]] = []
    _typed_values(traced.jaxpr, found)
    split = [f for f in found if f[0] == (size, 1) and f[1] == {"batch": n} and f[2] == ["batch"]]
    return {"split": len(split), "problem": "", "n": n, "size": size}


def _replicated_on_explicit_mesh(out: dict[str, Any], ref: dict[str, Any]) -> str | None:
    kinds = out.get("kinds")
    if not isinstance(kinds, list) or not kinds:
        return "returned no arrays"
    if any(kind != "explicit P()" for kind in kinds):
        shown = ", ".join(sorted(set(map(str, kinds))))
        return (
            f"the results are {shown}: new_params and the loss should come back as jit left them, "
            "replicated, P(), on the Explicit mesh of all devices (jax.typeof(loss) shows no split)"
        )
    return compare_outputs(out, ref)  # the kinds, then the numbers: replicated zeros win nothing


@hidden.probe("q7", "sharded_train_step", judge=_replicated_on_explicit_mesh)
def results_replicated_on_the_explicit_mesh(sub, rng):
    """new_params and loss come back replicated (P()) on the Explicit mesh of all devices"""
    import jax

    out = sub.sharded_train_step(*_sharded_inputs(rng), _learning_rate(rng))
    kinds = []
    for leaf in jax.tree.leaves(out):
        sharding = getattr(leaf, "sharding", None)
        typed = _explicit_spec(sharding)
        if typed is None:
            kinds.append(type(sharding).__name__ if sharding is not None else type(leaf).__name__)
        elif typed[0] != {"batch": _devices()}:
            kinds.append(f"on a mesh {typed[0]}")
        else:
            kinds.append("explicit P()" if not typed[1] else f"split {typed[1]}")
    return {"kinds": kinds, "step": out}


# ---------------------------------------------------------------------------------------------
# q8 plot_losses


def _figure_facts(sub, rng, n_points: int) -> dict[str, Any]:
    """What a judge needs to know about the figure, as plain data; the figure is closed."""
    import matplotlib.figure
    import matplotlib.pyplot as plt

    losses = np.exp(-np.linspace(0.0, 4.0, n_points)) * rng.uniform(5.0, 10.0) + 0.2
    fig = sub.plot_losses(losses)
    facts: dict[str, Any] = {"type": type(fig).__name__}
    if isinstance(fig, matplotlib.figure.Figure):
        axes = fig.get_axes()
        lines = [line for ax in axes for line in ax.get_lines()]
        # The y values of the first line with one point per loss (none: an empty array): every
        # judge compares them with the reference's, the losses, so flags alone pass nothing.
        curves = [np.asarray(line.get_ydata(), np.float64).reshape(-1) for line in lines]
        curve = next((c for c in curves if c.shape == (n_points,)), np.zeros(0))
        facts.update(
            figure=True,
            lines=len(lines),
            points=len(lines[0].get_xdata()) if len(lines) == 1 else -1,
            curve=curve,
            yscale="/".join(sorted({ax.get_yscale() for ax in axes if ax.get_lines()})),
            xlabel=all(ax.get_xlabel().strip() for ax in axes if ax.get_lines()),
            ylabel=all(ax.get_ylabel().strip() for ax in axes if ax.get_lines()),
        )
        plt.close(fig)
    else:
        facts["figure"] = False
        owner = getattr(fig, "figure", None)
        if isinstance(owner, matplotlib.figure.Figure):
            plt.close(owner)
    facts["n"] = n_points
    return facts


def _curve_of_the_losses(out: dict[str, Any], ref: dict[str, Any]) -> str | None:
    """A line of the figure holds the losses (the reference's curve), one point per loss."""
    got, want = out.get("curve"), ref["curve"]
    n = want.value.shape[0]
    if not isinstance(got, PlainArray) or got.value.shape != (n,):
        return f"no line of the figure has {n} points, one per loss"
    if compare_value(got, want, rtol=1e-5, atol=0.0):
        return "the line's y values are not the losses"
    return None


def _one_line_of_losses(out: dict[str, Any], ref: dict[str, Any]) -> str | None:
    problem = not_a_figure(out)
    if problem:
        return problem
    if out["lines"] != 1:
        return f"the figure holds {out['lines']} lines, expected one loss curve"
    if out["points"] != ref["n"]:
        return f"the line has {out['points']} points, expected one per loss ({ref['n']})"
    return _curve_of_the_losses(out, ref)


def _log_scale(out: dict[str, Any], ref: dict[str, Any]) -> str | None:
    problem = not_a_figure(out)
    if problem:
        return problem
    if out["yscale"] != "log":
        return f"the y axis is {out['yscale'] or 'missing'}, expected log-scale"
    return _curve_of_the_losses(out, ref)


def _labelled(out: dict[str, Any], ref: dict[str, Any]) -> str | None:
    problem = not_a_figure(out)
    if problem:
        return problem
    if not (out["xlabel"] and out["ylabel"]):
        missing = [a for a in ("x", "y") if not out[f"{a}label"]]
        return f"the {' and '.join(missing)} axis has no label"
    return _curve_of_the_losses(out, ref)


@hidden.probe("q8", "plot_losses", weight=2, judge=_one_line_of_losses)
def one_line_of_the_losses(sub, rng):
    """on 37 losses: a Figure with one line of 37 points, the losses"""
    return _figure_facts(sub, rng, 37)


@hidden.probe("q8", "plot_losses", judge=_log_scale)
def log_scale_y(sub, rng):
    """on 20 losses: the y axis is log-scale"""
    return _figure_facts(sub, rng, 20)


@hidden.probe("q8", "plot_losses", judge=_labelled)
def labelled_axes(sub, rng):
    """on 20 losses: both axes carry a label"""
    return _figure_facts(sub, rng, 20)


# ---------------------------------------------------------------------------------------------
# q9 global_normalize


def _positive_rows(rng: np.random.Generator, n: int, k: int) -> Any:
    """``(n, k)`` float32, positive, each row on its own scale: every row's sum is different."""
    import jax.numpy as jnp

    scales = rng.uniform(0.5, 4.0, size=(n, 1))
    return jnp.asarray(rng.uniform(0.1, 1.0, size=(n, k)) * scales, jnp.float32)


def _normalised_globally(out: dict[str, Any], ref: dict[str, Any]) -> str | None:
    """The reference comparison and the dtype, with a message of its own for a per-device sum."""
    got, want = out.get("out"), ref["out"]
    if isinstance(got, PlainArray) and got.value.shape == want.value.shape and got.value.ndim == 2:
        rows, total = got.value.sum(axis=1), float(got.value.sum())
        n = got.value.shape[0]
        if n > 1 and np.allclose(rows, 1.0, rtol=1e-4) and not np.isclose(total, 1.0, rtol=1e-3):
            return (
                f"every device's row sums to 1, so the whole array sums to {n}: divide by the sum "
                'over all devices, lax.psum(jnp.sum(x), "i"), not by each device\'s own sum'
            )
        if n > 1 and np.isclose(total, n, rtol=1e-3):
            return (
                f"the whole array sums to {n}, not 1: lax.pmean divides the total by the number "
                "of devices; add the per-device sums with lax.psum"
            )
    return _same_dtypes(out, ref)


@hidden.probe("q9", "global_normalize", weight=2, judge=_normalised_globally)
def matches_reference_on_all_devices(sub, rng):
    """on x of shape (n_devices, 6), one row per device: equals x / x.sum() over everything"""
    return {"out": sub.global_normalize(_positive_rows(rng, _devices(), 6))}


@hidden.probe("q9", "global_normalize", judge=_normalised_globally)
def matches_reference_on_two_devices(sub, rng):
    """on x of shape (2, 5), sharded over 2 devices: equals x / x.sum() over everything"""
    return {"out": sub.global_normalize(_positive_rows(rng, min(2, _devices()), 5))}


@hidden.probe("q9", "global_normalize", judge=_normalised_globally)
def one_entry_per_device(sub, rng):
    """on x of shape (n_devices, 1), one number per device: equals x / x.sum()"""
    return {"out": sub.global_normalize(_positive_rows(rng, _devices(), 1))}


def _per_device_with_psum(out: dict[str, Any], ref: dict[str, Any]) -> str | None:
    if not out.get("psum"):
        return (
            'has no lax.psum: the sum over all devices is a collective, lax.psum(..., "i") inside '
            'a jax.shard_map over a mesh axis "i" (a sum over the whole array outside it, or an '
            "all_gather summed on every device, gets the numbers, not the point)"
        )
    if out.get("devices", 0) < ref["n"]:
        return (
            f"the result lives on {out.get('devices', 0)} device(s), not on all {ref['n']}: "
            'build global_normalize with jax.shard_map over a mesh of x.shape[0] devices, axis "i"'
        )
    return None


@hidden.probe("q9", "global_normalize", judge=_per_device_with_psum, gate=True)
def per_device_with_psum(sub, rng):
    """runs on every device and adds over them with lax.psum"""
    x = _positive_rows(rng, _devices(), 4)
    result = sub.global_normalize(x)
    sharding = getattr(result, "sharding", None)
    return {
        # lax.psum traces as `psum` under pmap and as `psum_invariant` under shard_map (check_vma).
        "psum": any(name.startswith("psum") for name in primitives(sub.global_normalize, x)),
        "devices": len(sharding.device_set) if sharding is not None else 0,
        "n": _devices(),
    }


# ---------------------------------------------------------------------------------------------
# q10 shard_map_train_step


def _step_with_start(sub, params: dict[str, Any], x: Any, y: Any, lr: float) -> dict[str, Any]:
    """One step's outputs, with the params it started from (the judge reads them from ``ref``)."""
    start = dict(params)  # a copy: the step may not change the caller's dict, but could
    return {"step": sub.shard_map_train_step(params, x, y, lr), "start": start, "n": _devices()}


def _full_batch_numbers(out: dict[str, Any], ref: dict[str, Any]) -> str | None:
    """The reference's numbers, with a message of its own for the two collective mistakes that
    scale a step by the device count (both invisible on one device)."""
    n = ref["n"]
    got_loss, want_loss = out.get("step.1"), ref["step.1"]
    if n > 1 and isinstance(got_loss, PlainArray) and got_loss.value.shape == want_loss.value.shape == ():
        if np.isclose(float(got_loss.value), n * float(want_loss.value), rtol=1e-4):
            return (
                f"the loss is {n} times the full-batch loss: lax.psum adds the {n} block losses; "
                'average them with lax.pmean(..., "batch") and differentiate that'
            )
    if n > 1 and not compare_outputs({"step.1": got_loss}, {"step.1": want_loss}):
        scaled = []
        for name in ("w", "b"):
            got, want = out.get(f"step.0.{name}"), ref[f"step.0.{name}"]
            if not isinstance(got, PlainArray) or got.value.shape != ():
                break
            start = float(ref[f"start.{name}"].value)
            moved, should = float(got.value) - start, float(want.value) - start
            scaled.append(abs(should) > 1e-3 and np.isclose(moved, n * should, rtol=1e-3))
        if scaled and all(scaled):
            return (
                f"the step is {n} times the full-batch step: shard_map already sums the gradient "
                "of the P() params over the devices, so lax.pmean of the gradients is too large; "
                "differentiate lax.pmean of the local loss instead"
            )
    if isinstance(got_loss, PlainArray) and got_loss.value.shape not in ((), want_loss.value.shape):
        return (
            f"loss has shape {got_loss.value.shape}, expected a scalar (): return it with "
            "out_specs=P(), one value the same on every device"
        )
    return compare_outputs(out, ref)


@hidden.probe("q10", "shard_map_train_step", weight=2, judge=_full_batch_numbers)
def equals_full_batch_step_sharded(sub, rng):
    """one step on the whole (N, 1) batch equals one full-batch step"""
    params, x, y = _sharded_inputs(rng)
    return _step_with_start(sub, params, x, y, _learning_rate(rng))


@hidden.probe("q10", "shard_map_train_step", judge=_full_batch_numbers)
def one_example_per_device(sub, rng):
    """one step on a batch of one example per device equals one full-batch step"""
    x, y = _line_data(rng, _devices())
    return _step_with_start(sub, _far_params(rng), x, y, _learning_rate(rng))


@hidden.probe("q10", "shard_map_train_step")
def three_steps_in_a_row_sharded(sub, rng):
    """three steps, each fed the params the last one returned, equal three full-batch steps"""
    return _three_steps(sub.shard_map_train_step, rng)


@hidden.probe("q10", "shard_map_train_step", judge=_holds_the_shard_map, gate=True)
def shard_map_over_every_device(sub, rng):
    """holds a shard_map over all devices, params in as P(), x and y as P("batch"), outputs P()"""
    params, x, y = _sharded_inputs(rng)
    lr = _learning_rate(rng)
    return _shard_map_verdict(lambda p, a, b: sub.shard_map_train_step(p, a, b, lr), params, x, y)
