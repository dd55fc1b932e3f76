"""Hidden tests of 03-autodiff: jvp and vjp.

Every function handed to student code (`f`, `loss_fn`) is made afresh by the probe body that
passes it, so no student call sees an object that an earlier one could have changed. Inputs are
float32 and come from the probe's `rng`.

JAX is imported inside the functions that make inputs, never at module level: the grader imports
this file to judge, which needs no JAX (about 0.8 s of one file's grade, before its sandbox
can start).
"""

import ast
import inspect

import numpy as np

from autograder.probing import (
    PlainArray,
    ProbeSet,
    array,
    compare_outputs,
    compare_value,
    describe_value,
    fixed_size_program,
    largest_intermediate,
    primitives,
    run_traced,
    source_of,
    traced_counts,
)

hidden = ProbeSet("03-autodiff")

#: The ready-made Jacobian builders, forbidden in questions 1-4 (2 and 3 rebuild two of them).
JACOBIAN_BUILDERS = {"jacfwd", "jacrev", "jacobian", "hessian"}
#: Every autodiff transformation: question 8 is a vjp written by hand.
AUTODIFF = JACOBIAN_BUILDERS | {"grad", "value_and_grad", "vjp", "jvp", "linearize", "linear_transpose"}
#: The JAX API names the source checks look for.
JAX_API = AUTODIFF | {"vmap", "custom_jvp", "custom_vjp", "stop_gradient"}

#: Input size of the HVP probes: its Hessian would hold n * n float32 = 160 GB.
HVP_N = 200_000


def _f32(rng, shape, scale=1.0):
    import jax.numpy as jnp

    return jnp.asarray(rng.standard_normal(shape) * scale, jnp.float32)


# ---------------------------------------------------------------------------------------------
# Source checks (run beside the submission; return plain data for the judges).


def _jax_api_used(fn):
    """Sorted JAX API names (from JAX_API) that the source of ``fn`` and of the notebook
    functions it calls reaches: ``jax.<name>`` / ``jax.lax.<name>`` attributes, names imported
    inside it, and bare names that the notebook bound to the JAX object (``from jax import grad``
    in an earlier cell)."""
    import jax

    src = source_of(fn)
    try:
        tree = ast.parse(src)
    except SyntaxError:
        return []
    base = inspect.unwrap(fn) if callable(fn) else fn
    env = getattr(base, "__globals__", {})
    known = {
        id(obj): name
        for name in JAX_API
        for obj in (getattr(jax, name, None), getattr(jax.lax, name, None))
        if obj is not None
    }
    used = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in JAX_API:
            used.add(node.attr)
        elif isinstance(node, ast.ImportFrom):
            used |= {a.name for a in node.names if a.name in JAX_API}
        elif isinstance(node, ast.Name) and id(env.get(node.id)) in known:
            used.add(known[id(env[node.id])])
    return sorted(used)


def _api_judge(*, required, forbidden, why_required, why_forbidden):
    """A judge for a source gate: every name of ``required`` used, none of ``forbidden``."""

    def judge(out, ref):
        used = set(out.get("api") or [])
        bad = sorted(used & forbidden)
        if bad:
            return f"uses jax.{bad[0]}; {why_forbidden}"
        missing = [name for name in required if name not in used]
        if missing:
            return f"does not call jax.{missing[0]}; {why_required}"
        return None

    return judge


def _close(out, ref, path, *, what="the result"):
    """compare_value with a nan/inf message first: None or one sentence."""
    got, want = out.get(path), ref.get(path)
    if (
        isinstance(got, PlainArray)
        and isinstance(want, PlainArray)
        and got.value.shape == want.value.shape
        and got.value.dtype.kind == "f"
    ):
        g, w = got.value, want.value
        nonfinite = ~np.isfinite(g) & np.isfinite(w)
        if nonfinite.any():
            kinds = " and ".join(sorted({"nan" if np.isnan(e) else "inf" for e in g[nonfinite]}))
            return f"{what} has {kinds} in {int(nonfinite.sum())} of {g.size} entries"
    problem = compare_value(got, want)
    return None if problem is None else f"{what} {problem}"


# ---------------------------------------------------------------------------------------------
# q1: directional_derivative(f, x, v) = J(x) @ v with one jax.jvp.


@hidden.probe("q1", "directional_derivative")
def scalar_f_matches_reference(sub, rng):
    """for a scalar f: R^6 -> R at random x and v (6,)"""
    import jax.numpy as jnp

    x, v = _f32(rng, 6), _f32(rng, 6)
    return {"Jv": sub.directional_derivative(lambda x: jnp.sin(x) @ x**2, x, v)}


@hidden.probe("q1", "directional_derivative")
def vector_f_matches_reference(sub, rng):
    """for f: R^5 -> R^3 at random x and v (5,)"""
    import jax.numpy as jnp

    A = _f32(rng, (3, 5))
    x, v = _f32(rng, 5), _f32(rng, 5)
    return {"Jv": sub.directional_derivative(lambda x: jnp.tanh(A @ x) * jnp.sum(x), x, v)}


@hidden.probe("q1", "directional_derivative")
def long_v_not_normalised(sub, rng):
    """for f: R^4 -> R^2 along a long direction v (4,), which is not to be normalised"""
    import jax.numpy as jnp

    x, v = _f32(rng, 4), _f32(rng, 4, scale=10.0)
    return {"Jv": sub.directional_derivative(lambda x: jnp.stack([x @ x, jnp.prod(x)]), x, v)}


@hidden.probe(
    "q1",
    "directional_derivative",
    gate=True,
    source=True,
    judge=_api_judge(
        required=["jvp"],
        forbidden=JACOBIAN_BUILDERS,
        why_required="J(x) @ v is one forward-mode pass: jax.jvp(f, (x,), (v,))",
        why_forbidden="it builds the whole Jacobian, while one jax.jvp gives J(x) @ v directly",
    ),
)
def uses_one_jvp(sub, rng):
    """calls jax.jvp and builds no Jacobian"""
    return {"api": _jax_api_used(sub.directional_derivative)}


# ---------------------------------------------------------------------------------------------
# q2, q3: Jacobians of shape (m, n) by vmapping jvp over the input basis / vjp over the output's.


def _jacobian_judge(out, ref):
    if any(path.startswith("J.") for path in out):
        return (
            "returned a tuple or list, not an array (jax.jvp returns a pair, and jax.vjp's "
            "pullback a tuple with one cotangent per argument of f): take the entry you need"
        )
    got, want = out.get("J"), ref.get("J")
    if isinstance(got, PlainArray) and isinstance(want, PlainArray):
        g, w = got.value.shape, want.value.shape
        if g != w and g == w[::-1]:
            return (
                f"has shape {g}, the transpose of the expected {w}: J[i, j] is the derivative "
                f"of output i with respect to input j, so J has shape (m, n) for f: R^n -> R^m"
            )
    return compare_outputs(out, ref)


def _wide_f(rng):
    import jax.numpy as jnp

    A = _f32(rng, (3, 5))
    return lambda x: jnp.tanh(A @ x) * jnp.sum(x**2), _f32(rng, 5)


def _tall_f(rng):
    import jax.numpy as jnp

    B = _f32(rng, (6, 2))
    return lambda x: jnp.sin(B @ x) * x[0] + jnp.exp(B @ x / 4), _f32(rng, 2)


_BUILDER_WHY = "it is the function you are asked to write (use it only to check your answer)"


@hidden.probe("q2", "jacobian_fwd", judge=_jacobian_judge)
def wide_jacobian(sub, rng):
    """for f: R^5 -> R^3 at a random x (5,)"""
    f, x = _wide_f(rng)
    return {"J": sub.jacobian_fwd(f, x)}


@hidden.probe("q2", "jacobian_fwd", judge=_jacobian_judge)
def tall_jacobian(sub, rng):
    """for f: R^2 -> R^6 at a random x (2,)"""
    f, x = _tall_f(rng)
    return {"J": sub.jacobian_fwd(f, x)}


@hidden.probe(
    "q2",
    "jacobian_fwd",
    gate=True,
    source=True,
    judge=_api_judge(
        required=["jvp", "vmap"],
        forbidden=JACOBIAN_BUILDERS,
        why_required="vmap one jax.jvp over the rows of the n x n identity (one tangent per input)",
        why_forbidden=_BUILDER_WHY,
    ),
)
def vmaps_jvp(sub, rng):
    """vmaps jax.jvp and calls no Jacobian builder"""
    return {"api": _jax_api_used(sub.jacobian_fwd)}


@hidden.probe("q3", "jacobian_rev", judge=_jacobian_judge)
def wide_jacobian_rev(sub, rng):
    """for f: R^5 -> R^3 at a random x (5,)"""
    f, x = _wide_f(rng)
    return {"J": sub.jacobian_rev(f, x)}


@hidden.probe("q3", "jacobian_rev", judge=_jacobian_judge)
def tall_jacobian_rev(sub, rng):
    """for f: R^2 -> R^6 at a random x (2,)"""
    f, x = _tall_f(rng)
    return {"J": sub.jacobian_rev(f, x)}


@hidden.probe(
    "q3",
    "jacobian_rev",
    gate=True,
    source=True,
    judge=_api_judge(
        required=["vjp", "vmap"],
        forbidden=JACOBIAN_BUILDERS,
        why_required="call jax.vjp once and vmap its pullback over the rows of the m x m identity",
        why_forbidden=_BUILDER_WHY,
    ),
)
def vmaps_vjp(sub, rng):
    """vmaps jax.vjp and calls no Jacobian builder"""
    return {"api": _jax_api_used(sub.jacobian_rev)}


# ---------------------------------------------------------------------------------------------
# q4: hvp(f, x, v) = H(x) @ v, never building an n x n array.


def _large_hvp_inputs(rng):
    """``(f, x, v)`` at n = HVP_N, with a fresh f for every call."""
    import jax.numpy as jnp

    def f(x):
        # Not separable (roll couples neighbours, the squared sum couples everything): the
        # Hessian is dense, and a diagonal-only shortcut gives wrong numbers.
        return jnp.sum(jnp.tanh(x) * jnp.roll(x, 1)) + jnp.sum(x) ** 2 / x.size

    return f, _f32(rng, HVP_N), _f32(rng, HVP_N)


def _hvp_largest(sub, f, x, v):
    """Most elements of any value in the student's hvp, traced only: nothing runs, nothing is
    allocated. Must come before any call that executes it."""
    return largest_intermediate(lambda x, v: sub.hvp(f, x, v), x, v)


def _hvp_judge(out, ref):
    if out.get("built_hessian"):
        return "built an (n, n) array; an HVP never needs the Hessian"
    return _close(out, ref, "Hv")


@hidden.probe("q4", "hvp")
def small_n_matches_reference(sub, rng):
    """for a scalar f: R^8 -> R with a dense Hessian, at random x and v (8,)"""
    import jax.numpy as jnp

    x, v = _f32(rng, 8), _f32(rng, 8)

    def f(x):
        return jnp.sum(jnp.sin(x) * jnp.roll(x, 1) ** 2) + jnp.log(jnp.sum(jnp.exp(x)))

    return {"Hv": sub.hvp(f, x, v)}


@hidden.probe("q4", "hvp", judge=_hvp_judge)
def large_n_matches_reference(sub, rng):
    """at n = 200,000, where the Hessian would take 160 GB"""
    import jax

    f, x, v = _large_hvp_inputs(rng)
    if _hvp_largest(sub, f, x, v) >= HVP_N**2 // 4:  # never run an hvp that builds the Hessian
        return {"built_hessian": True}
    return {"Hv": jax.jit(lambda x, v: sub.hvp(f, x, v))(x, v)}


def _never_builds_hessian(out, ref):
    if out.get("largest") >= ref["n"] ** 2 // 4:
        return "built an (n, n) array; an HVP never needs the Hessian"
    return None


@hidden.probe("q4", "hvp", gate=True, judge=_never_builds_hessian)
def never_builds_hessian(sub, rng):
    """traced at n = 200,000 (nothing runs), builds no (n, n) array"""
    f, x, v = _large_hvp_inputs(rng)
    return {"largest": _hvp_largest(sub, f, x, v), "n": HVP_N}


@hidden.probe(
    "q4",
    "hvp",
    gate=True,
    source=True,
    judge=_api_judge(
        required=[],
        forbidden=JACOBIAN_BUILDERS,
        why_required="",
        why_forbidden="it builds the whole n x n Hessian; jax.jvp of jax.grad(f) along v never does",
    ),
)
def no_hessian_builder(sub, rng):
    """calls no Jacobian or Hessian builder"""
    return {"api": _jax_api_used(sub.hvp)}


# ---------------------------------------------------------------------------------------------
# q5: value_grad_aux(loss_fn, params, batch) -> (loss, aux, grads) with has_aux=True.


def _run_value_grad_aux(sub, rng):
    """Call the student's value_grad_aux on a nested params pytree with a counting loss_fn;
    ``(outputs, number of loss_fn calls)``, the outputs split into loss, aux and grads."""
    import jax.numpy as jnp

    params = {
        "layers": [
            {"W": _f32(rng, (3, 4), 0.5), "b": _f32(rng, 4, 0.1)},
            {"W": _f32(rng, (4, 2), 0.5), "b": _f32(rng, 2, 0.1)},
        ],
        "scale": _f32(rng, ()),
    }
    batch = {"x": _f32(rng, (8, 3)), "y": _f32(rng, (8, 2))}
    calls = []

    def loss_fn(p, b):
        calls.append(1)
        h = jnp.tanh(b["x"] @ p["layers"][0]["W"] + p["layers"][0]["b"])
        pred = p["scale"] * (h @ p["layers"][1]["W"] + p["layers"][1]["b"])
        err = pred - b["y"]
        return jnp.mean(err**2), {"pred": pred, "max_abs_err": jnp.max(jnp.abs(err))}

    result = sub.value_grad_aux(loss_fn, params, batch)
    if not isinstance(result, (tuple, list)) or len(result) != 3:
        length = f" of length {len(result)}" if isinstance(result, (tuple, list)) else ""
        return {"returned": f"a {type(result).__name__}{length}"}, len(calls)
    loss, aux, grads = result
    return {"loss": loss, "aux": aux, "grads": grads}, len(calls)


def _triple_judge(check):
    """Wrap a judge of (loss, aux, grads) outputs: first say so when no triple came back."""

    def judge(out, ref):
        if "returned" in out:
            return f"returned {out['returned']}; expected a tuple (loss, aux, grads)"
        return check(out, ref)

    return judge


def _part(outputs, name):
    return {k: v for k, v in outputs.items() if k == name or k.startswith(name + ".")}


def _tree_shape(out, ref, name, what):
    """Same leaves (paths) and leaf shapes under ``name`` as the reference, else one sentence."""
    got, want = _part(out, name), _part(ref, name)
    if sorted(got) != sorted(want):
        return (
            f"{name} has the leaves [{', '.join(sorted(got)) or 'none'}], expected "
            f"[{', '.join(sorted(want))}]: {what}"
        )
    for path in want:
        g, w = got[path], want[path]
        if isinstance(w, PlainArray) and (not isinstance(g, PlainArray) or g.value.shape != w.value.shape):
            return f"`{path}` is {describe_value(g)}, expected {describe_value(w)}"
    return None


_AUX_WHAT = "aux is loss_fn's second output, returned as it is"
_GRADS_WHAT = "the gradient with respect to params only, a pytree shaped like params"


@hidden.probe(
    "q5",
    "value_grad_aux",
    judge=_triple_judge(
        lambda out, ref: (
            compare_outputs(_part(out, "loss"), _part(ref, "loss"))
            or _tree_shape(out, ref, "aux", _AUX_WHAT)
            or compare_outputs(_part(out, "aux"), _part(ref, "aux"))
        )
    ),
)
def loss_and_aux_match(sub, rng):
    """on nested params (a dict holding a list of two layer dicts and a scalar) and a batch of 8"""
    outputs, _ = _run_value_grad_aux(sub, rng)
    return {k: v for k, v in outputs.items() if k != "grads"}


def _grads_shape(out, ref):
    return _tree_shape(out, ref, "grads", _GRADS_WHAT)


@hidden.probe(
    "q5",
    "value_grad_aux",
    # The shape first, for its message, then the values: a pytree of zeros has the shape.
    judge=_triple_judge(lambda out, ref: _grads_shape(out, ref) or compare_outputs(out, ref)),
)
def grads_shaped_like_params(sub, rng):
    """on nested params (a dict holding a list of two layer dicts and a scalar)"""
    outputs, _ = _run_value_grad_aux(sub, rng)
    return {k: v for k, v in outputs.items() if k != "loss" and k != "aux"}


@hidden.probe(
    "q5",
    "value_grad_aux",
    judge=_triple_judge(lambda out, ref: _grads_shape(out, ref) or compare_outputs(out, ref)),
)
def grads_match_reference(sub, rng):
    """on nested params (a dict holding a list of two layer dicts and a scalar), random batch"""
    outputs, _ = _run_value_grad_aux(sub, rng)
    return {k: v for k, v in outputs.items() if k != "loss" and k != "aux"}


def _runs_once(out, ref):
    calls = out.get("calls")
    if calls != 1:
        return (
            f"loss_fn ran {calls} times in one call; jax.value_and_grad(loss_fn, "
            "has_aux=True) gives the loss, aux and grads from a single run"
        )
    # A count alone is a constant: the run it counted must give the reference's values too.
    return compare_outputs(out, ref)


@hidden.probe("q5", "value_grad_aux", judge=_triple_judge(_runs_once))
def loss_fn_runs_once(sub, rng):
    """counts the Python calls of loss_fn during one call (whose results match the reference's)"""
    outputs, calls = _run_value_grad_aux(sub, rng)
    return {"calls": calls, **outputs}


def _has_aux_true(fn):
    try:
        tree = ast.parse(source_of(fn))
    except SyntaxError:
        return False
    return any(
        isinstance(n, ast.keyword)
        and n.arg == "has_aux"
        and isinstance(n.value, ast.Constant)
        and n.value.value is True
        for n in ast.walk(tree)
    )


def _has_aux_judge(out, ref):
    if not out.get("has_aux"):
        return (
            "does not pass has_aux=True; let jax.value_and_grad carry aux through "
            "instead of unpacking loss_fn's output yourself"
        )
    return None


@hidden.probe("q5", "value_grad_aux", gate=True, source=True, judge=_has_aux_judge)
def uses_has_aux(sub, rng):
    """differentiates with has_aux=True"""
    return {"has_aux": _has_aux_true(sub.value_grad_aux)}


# ---------------------------------------------------------------------------------------------
# q6: softplus with jax.custom_jvp, finite at +-100.


def _softplus_judge(path, what):
    return lambda out, ref: _close(out, ref, path, what=what)


@hidden.probe("q6", "softplus", judge=_softplus_judge("y", "softplus(x)"))
def values_at_extremes(sub, rng):
    """values at x = -100, 0 and 100"""
    import jax.numpy as jnp

    return {"y": sub.softplus(jnp.array([-100.0, 0.0, 100.0], jnp.float32))}


@hidden.probe("q6", "softplus", judge=_softplus_judge("dy", "the derivative"))
def derivatives_at_extremes(sub, rng):
    """derivatives at x = -100, 0 and 100 (jax.vmap of jax.grad)"""
    import jax
    import jax.numpy as jnp

    x = jnp.array([-100.0, 0.0, 100.0], jnp.float32)
    return {"dy": jax.vmap(jax.grad(sub.softplus))(x)}


@hidden.probe(
    "q6",
    "softplus",
    judge=lambda out, ref: (
        _close(out, ref, "y", what="softplus(x)") or _close(out, ref, "dy", what="the gradient")
    ),
)
def matches_reference_on_a_matrix(sub, rng):
    """values and gradient of the sum on a random x (4, 5) spread over [-60, 60]"""
    import jax
    import jax.numpy as jnp

    x = _f32(rng, (4, 5), scale=20.0)
    return {"y": sub.softplus(x), "dy": jax.grad(lambda x: jnp.sum(sub.softplus(x)))(x)}


@hidden.probe("q6", "softplus", judge=_softplus_judge("tangent", "the JVP"))
def jvp_scales_the_tangent(sub, rng):
    """jax.jvp at a random x (7,) with a random tangent (7,)"""
    import jax

    x, t = _f32(rng, 7, scale=5.0), _f32(rng, 7)
    return {"tangent": jax.jvp(sub.softplus, (x,), (t,))[1]}


def _custom_jvp_object(fn):
    """The jax.custom_jvp behind ``fn`` (through jit and other wrappers), or None."""
    import jax

    seen = 0
    while not isinstance(fn, jax.custom_jvp) and hasattr(fn, "__wrapped__") and seen < 10:
        fn, seen = fn.__wrapped__, seen + 1
    return fn if isinstance(fn, jax.custom_jvp) else None


def _custom_jvp_judge(out, ref):
    if not out.get("custom_jvp"):
        return (
            "is not a jax.custom_jvp function; decorate it with @jax.custom_jvp and give "
            "its derivative with @softplus.defjvp"
        )
    if not out.get("rule"):
        return "has no JVP rule; define one with @softplus.defjvp"
    return None


@hidden.probe("q6", "softplus", gate=True, judge=_custom_jvp_judge)
def is_custom_jvp(sub, rng):
    """is a jax.custom_jvp function with a JVP rule"""
    obj = _custom_jvp_object(sub.softplus)
    return {"custom_jvp": obj is not None, "rule": obj is not None and obj.jvp is not None}


# ---------------------------------------------------------------------------------------------
# q7: straight_through_round: round forward, identity backward.


@hidden.probe("q7", "straight_through_round")
def forward_equals_round(sub, rng):
    """values on a random x (64,) spread over [-10, 10]"""
    return {"y": sub.straight_through_round(_f32(rng, 64, scale=4.0))}


def _ties_judge(out, ref):
    problem = compare_outputs(out, ref)
    if problem and isinstance(out.get("y"), PlainArray) and out["y"].value.shape == ref["y"].value.shape:
        return "rounds some halves differently from jnp.round, which rounds half to even (2.5 -> 2, 3.5 -> 4)"
    return problem


@hidden.probe("q7", "straight_through_round", judge=_ties_judge)
def ties_round_half_to_even(sub, rng):
    """values at halves k + 0.5 for integers k in [-5, 4], shuffled"""
    import jax.numpy as jnp

    return {"y": sub.straight_through_round(jnp.asarray(rng.permutation(10) - 4.5, jnp.float32))}


def _gradient_judge(out, ref):
    dy = out.get("dy")
    if isinstance(dy, PlainArray) and dy.value.size and not np.any(dy.value):
        return (
            "the gradient is zero everywhere, as for jnp.round itself; the backward pass "
            "must see the identity (hide the rounding from it with jax.lax.stop_gradient)"
        )
    return compare_outputs(out, ref)


@hidden.probe("q7", "straight_through_round", judge=_gradient_judge)
def gradient_of_weighted_sum(sub, rng):
    """jax.grad of a randomly weighted sum at a random x (16,): the weights come straight back"""
    import jax
    import jax.numpy as jnp

    # Random weights, not a plain sum: the gradient is then not a constant (ones) a result could
    # carry without computing it.
    x, w = _f32(rng, 16, scale=3.0), _f32(rng, 16)
    return {"dy": jax.grad(lambda x: jnp.sum(w * sub.straight_through_round(x)))(x)}


@hidden.probe("q7", "straight_through_round", judge=_gradient_judge)
def vjp_passes_cotangent_through(sub, rng):
    """jax.vjp at a random x (3, 4) with a random cotangent (3, 4)"""
    import jax

    x, ct = _f32(rng, (3, 4), scale=3.0), _f32(rng, (3, 4))
    _, pullback = jax.vjp(sub.straight_through_round, x)
    return {"dy": pullback(ct)[0]}


# ---------------------------------------------------------------------------------------------
# q8: mlp_vjp: the cotangent of x for y = tanh(x @ W1 + b1) @ W2 + b2, by hand.


def _mlp_inputs(rng, d_in, h, d_out):
    params = [
        {"W": _f32(rng, (d_in, h), d_in**-0.5), "b": _f32(rng, h, 0.5)},
        {"W": _f32(rng, (h, d_out), h**-0.5), "b": _f32(rng, d_out, 0.5)},
    ]
    return params, _f32(rng, d_in), _f32(rng, d_out)


@hidden.probe("q8", "mlp_vjp")
def matches_vjp(sub, rng):
    """on d_in = 5, h = 7, d_out = 3 with random params, x and cotangent"""
    return {"x_bar": sub.mlp_vjp(*_mlp_inputs(rng, 5, 7, 3))}


@hidden.probe("q8", "mlp_vjp")
def matches_vjp_single_output(sub, rng):
    """on d_in = 4, h = 16, d_out = 1 with random params, x and cotangent"""
    return {"x_bar": sub.mlp_vjp(*_mlp_inputs(rng, 4, 16, 1))}


@hidden.probe("q8", "mlp_vjp")
def matches_vjp_saturated(sub, rng):
    """on d_in = 3, h = 6, d_out = 2 with large inputs x (3,) that saturate some tanh units"""
    params, x, ct = _mlp_inputs(rng, 3, 6, 2)
    return {"x_bar": sub.mlp_vjp(params, x * 8.0, ct)}


@hidden.probe(
    "q8",
    "mlp_vjp",
    gate=True,
    source=True,
    judge=_api_judge(
        required=[],
        forbidden=AUTODIFF,
        why_required="",
        why_forbidden="write the backward pass yourself from the vjp rules of @, + and tanh",
    ),
)
def no_autodiff(sub, rng):
    """calls no JAX autodiff transformation"""
    return {"api": _jax_api_used(sub.mlp_vjp)}


# ---------------------------------------------------------------------------------------------
# q9: clip_gradient(x, lo, hi): x forward, the cotangent of x clipped to [lo, hi] backward.
#
# Two patterns are right and both must pass (syllabus): the bounds as ordinary arguments saved as
# residuals, bwd returning (x_bar, None, None), and nondiff_argnums=(1, 2), bwd(lo, hi, res, g)
# returning (x_bar,). The second raises UnexpectedTracerError when a bound is traced, so the
# probes never trace the bounds: they stay Python floats, closed over, static under jax.jit, and
# not mapped (in_axes None) under jax.vmap.


def _bounds(rng):
    """Asymmetric bounds ``lo < 0 < hi`` (Python floats), so that [-hi, hi] is not [lo, hi]."""
    lo = -float(rng.uniform(0.3, 1.5))
    hi = float(rng.uniform(0.2, 1.2))
    while abs(lo + hi) < 0.1:  # keep -hi visibly away from lo
        hi = float(rng.uniform(0.2, 1.2))
    return lo, hi


def _identity_judge(out, ref):
    """Every array output equals the reference's (x itself) exactly: same shape, dtype, bits."""
    for path, want in ref.items():
        if not isinstance(want, PlainArray):
            continue
        got = out.get(path)
        if not isinstance(got, PlainArray) or got.value.shape != want.value.shape:
            return f"`{path}` is {describe_value(got)}, expected {describe_value(want)}"
        if got.value.dtype != want.value.dtype:
            return f"`{path}` has dtype {got.value.dtype}, expected {want.value.dtype}, the dtype of x"
        if not np.array_equal(got.value, want.value):
            if np.array_equal(got.value, np.clip(want.value, ref["lo"], ref["hi"])):
                return (
                    "the forward value is x clipped to [lo, hi]; it must be x itself: clip only "
                    "the cotangent, in the backward rule"
                )
            return "the forward value differs from x; it must be x itself, bit for bit"
    return None


@hidden.probe("q9", "clip_gradient", judge=_identity_judge)
def forward_is_x(sub, rng):
    """forward values on a random x (3, 4, 5) spread well beyond [lo, hi], and on a scalar x"""
    lo, hi = _bounds(rng)
    x, x0 = _f32(rng, (3, 4, 5), scale=3.0), _f32(rng, (), scale=3.0)
    return {"y": sub.clip_gradient(x, lo, hi), "y0": sub.clip_gradient(x0, lo, hi), "lo": lo, "hi": hi}


@hidden.probe("q9", "clip_gradient", judge=_identity_judge)
def forward_under_jit_and_vmap(sub, rng):
    """forward values under jax.jit (lo, hi static) and under jax.vmap over x only, on a random
    x (6, 7)"""
    import jax

    lo, hi = _bounds(rng)
    x = _f32(rng, (6, 7), scale=3.0)
    return {
        "jit": jax.jit(sub.clip_gradient, static_argnums=(1, 2))(x, lo, hi),
        "vmap": jax.vmap(sub.clip_gradient, in_axes=(0, None, None))(x, lo, hi),
        "lo": lo,
        "hi": hi,
    }


def _cotangent_judge(out, ref):
    """The clipped cotangent, with the common wrong answers named."""
    got, want = out.get("x_bar"), ref.get("x_bar")
    problem = compare_value(got, want)
    if problem is None:
        return None
    if isinstance(got, PlainArray) and isinstance(want, PlainArray) and got.value.shape == want.value.shape:
        g, ct = got.value, array(ref, "ct")
        lo, hi = ref["lo"], ref["hi"]
        if np.array_equal(g, ct):
            return "the cotangent came back unclipped; clip it to [lo, hi] in the backward rule"
        if np.allclose(g, np.clip(ct, -hi, hi)):
            return "the cotangent is clipped to [-hi, hi]; clip it to [lo, hi], lo is the lower bound"
        if np.allclose(g, np.clip(array(ref, "x"), lo, hi)):
            return "returned x clipped to [lo, hi]; the backward rule clips the cotangent g, not x"
        if g.size and not np.any(g):
            return "the cotangent of x is zero everywhere; clipping keeps every entry inside [lo, hi]"
    return f"the cotangent of x {problem}"


@hidden.probe("q9", "clip_gradient", judge=_cotangent_judge)
def vjp_clips_the_cotangent(sub, rng):
    """jax.vjp at a random x (24,) with a random cotangent (24,) that straddles both bounds"""
    import jax

    lo, hi = _bounds(rng)
    x, ct = _f32(rng, 24, scale=0.5), _f32(rng, 24, scale=2.0)
    _, pullback = jax.vjp(lambda x: sub.clip_gradient(x, lo, hi), x)
    return {"x_bar": pullback(ct)[0], "ct": ct, "x": x, "lo": lo, "hi": hi}


def _gradient_judge_q9(out, ref):
    return _close(out, ref, "dx", what="the gradient")


@hidden.probe("q9", "clip_gradient", judge=_gradient_judge_q9)
def grad_inside_a_larger_function(sub, rng):
    """jax.grad of sum(w * sin(clip_gradient(a * x ** 2, lo, hi))) at a random x (4, 5)"""
    import jax
    import jax.numpy as jnp

    lo, hi = _bounds(rng)
    x, a, w = _f32(rng, (4, 5)), _f32(rng, (4, 5)), _f32(rng, (4, 5), scale=3.0)

    def loss(x):
        return jnp.sum(w * jnp.sin(sub.clip_gradient(a * x**2, lo, hi)))

    return {"dx": jax.grad(loss)(x)}


@hidden.probe("q9", "clip_gradient", judge=_gradient_judge_q9)
def grad_under_jit(sub, rng):
    """jax.jit of jax.grad of sum(clip_gradient(x, lo, hi) * w) at random x, w (16,)"""
    import jax
    import jax.numpy as jnp

    lo, hi = _bounds(rng)
    x, w = _f32(rng, 16), _f32(rng, 16, scale=2.0)
    grad = jax.jit(jax.grad(lambda x, w: jnp.sum(sub.clip_gradient(x, lo, hi) * w)))
    return {"dx": grad(x, w)}


@hidden.probe("q9", "clip_gradient", judge=_gradient_judge_q9)
def grad_under_vmap(sub, rng):
    """jax.vmap over 5 rows (bounds not mapped) of jax.grad of sum(clip_gradient(x, lo, hi) * w),
    x, w (5, 6)"""
    import jax
    import jax.numpy as jnp

    lo, hi = _bounds(rng)
    x, w = _f32(rng, (5, 6)), _f32(rng, (5, 6), scale=2.0)
    grad = jax.grad(lambda x, w, lo, hi: jnp.sum(sub.clip_gradient(x, lo, hi) * w))
    return {"dx": jax.vmap(grad, in_axes=(0, 0, None, None))(x, w, lo, hi)}


@hidden.probe("q9", "clip_gradient", judge=_gradient_judge_q9)
def grad_through_static_jit(sub, rng):
    """jax.grad of sum(w * jax.jit(clip_gradient, static_argnums=(1, 2))(x, lo, hi)), x, w (3, 5)"""
    import jax
    import jax.numpy as jnp

    lo, hi = _bounds(rng)
    x, w = _f32(rng, (3, 5)), _f32(rng, (3, 5), scale=2.0)
    clip = jax.jit(sub.clip_gradient, static_argnums=(1, 2))
    return {"dx": jax.grad(lambda x: jnp.sum(w * clip(x, lo, hi)))(x)}


@hidden.probe(
    "q9",
    "clip_gradient",
    judge=lambda out, ref: (
        _close(out, ref, "dx0", what="the gradient at a scalar x")
        or _close(out, ref, "dx3", what="the gradient at x (2, 3, 4)")
    ),
)
def grad_any_shape(sub, rng):
    """jax.grad of clip_gradient(x, lo, hi) * w for a scalar x, and of its sum for x (2, 3, 4)"""
    import jax
    import jax.numpy as jnp

    lo, hi = _bounds(rng)
    x0, w0 = _f32(rng, ()), jnp.float32(-3.0 * rng.uniform(1.0, 2.0))  # below both bounds
    x3, w3 = _f32(rng, (2, 3, 4)), _f32(rng, (2, 3, 4), scale=2.0)
    return {
        "dx0": jax.grad(lambda x: sub.clip_gradient(x, lo, hi) * w0)(x0),
        "dx3": jax.grad(lambda x: jnp.sum(sub.clip_gradient(x, lo, hi) * w3))(x3),
    }


def _custom_vjp_judge(out, ref):
    if not out.get("custom_vjp"):
        return (
            "its jaxpr holds no custom_vjp_call: decorate it with @jax.custom_vjp (or "
            "@partial(jax.custom_vjp, nondiff_argnums=(1, 2))) and register its rules with "
            "clip_gradient.defvjp(fwd, bwd)"
        )
    return None


@hidden.probe("q9", "clip_gradient", gate=True, judge=_custom_vjp_judge)
def is_custom_vjp(sub, rng):
    """is a jax.custom_vjp function"""
    import jax.numpy as jnp

    names = primitives(lambda x: sub.clip_gradient(x, -1.0, 1.0), jnp.zeros(3, jnp.float32))
    return {"custom_vjp": any(name.startswith("custom_vjp") for name in names)}


# ---------------------------------------------------------------------------------------------
# q10: grad_wrt_w_and_b(loss, w, b, x, y) -> (dw, db) from one jax.grad(loss, argnums=(0, 1)).


def _run_grad_wrt_w_and_b(sub, rng, model):
    """Call the student's grad_wrt_w_and_b with a counting loss: ``(outputs, loss calls)``.

    ``model`` is "linear" (w (3, 2), b (2,), x (16, 3), y (16, 2), a tanh regression) or
    "logistic" (w (5,), a scalar b, x (12, 5), labels y (12,) in {0, 1})."""
    import jax.numpy as jnp

    calls = []
    if model == "linear":
        w, b = _f32(rng, (3, 2)), _f32(rng, 2)
        x, y = _f32(rng, (16, 3)), _f32(rng, (16, 2))

        def loss(w, b, x, y):
            calls.append(1)
            return jnp.mean((jnp.tanh(x @ w + b) - y) ** 2)

    else:
        w, b = _f32(rng, 5), _f32(rng, ())
        x, y = _f32(rng, (12, 5)), jnp.asarray(rng.integers(0, 2, 12), jnp.float32)

        def loss(w, b, x, y):
            calls.append(1)
            z = x @ w + b
            return jnp.mean(jnp.logaddexp(0.0, z) - y * z)  # binary cross-entropy of sigmoid(z)

    result = sub.grad_wrt_w_and_b(loss, w, b, x, y)
    if not isinstance(result, (tuple, list)) or len(result) != 2:
        if result is None:
            what = "None (is the function still the stub `...`?)"
        elif hasattr(result, "shape"):
            what = f"an array of shape {tuple(result.shape)}"
        else:
            length = f" of length {len(result)}" if isinstance(result, (tuple, list)) else ""
            what = f"a {type(result).__name__}{length}"
        return {"returned": what}, len(calls)
    return {"dw": result[0], "db": result[1]}, len(calls)


def _pair_judge(out, ref):
    if "returned" in out:
        return f"returned {out['returned']}; expected the pair (dw, db): jax.grad with argnums=(0, 1)"
    shape = {k: v.value.shape if isinstance(v, PlainArray) else None for k, v in out.items()}
    want = {k: ref[k].value.shape for k in ("dw", "db")}
    if want["dw"] != want["db"] and shape.get("dw") == want["db"] and shape.get("db") == want["dw"]:
        return "returned (db, dw); the gradients come in the order of argnums: (0, 1) gives (dw, db)"
    for name, arg in (("dw", "w"), ("db", "b")):
        if isinstance(out.get(name), PlainArray) and shape[name] != want[name]:
            return (
                f"`{name}` has shape {shape[name]}, expected {want[name]}, the shape of {arg}: "
                "differentiate with respect to w and b (argnums=(0, 1)), not the data"
            )
    return compare_outputs(out, ref)


@hidden.probe("q10", "grad_wrt_w_and_b", judge=_pair_judge)
def linear_model_matches_reference(sub, rng):
    """on a tanh regression with w (3, 2), b (2,), x (16, 3), y (16, 2)"""
    outputs, _ = _run_grad_wrt_w_and_b(sub, rng, "linear")
    return outputs


@hidden.probe("q10", "grad_wrt_w_and_b", judge=_pair_judge)
def scalar_bias_matches_reference(sub, rng):
    """on a logistic regression with w (5,), a scalar b (), x (12, 5) and labels y (12,)"""
    outputs, _ = _run_grad_wrt_w_and_b(sub, rng, "logistic")
    return outputs


def _loss_runs_once(out, ref):
    calls = out.get("calls")
    if calls != 1:
        return (
            f"loss ran {calls} times in one call; one jax.grad(loss, argnums=(0, 1)) gives "
            "dw and db from a single run"
        )
    # A count alone is a constant: the run it counted must give the reference's values too.
    return _pair_judge(
        {k: v for k, v in out.items() if k != "calls"}, {k: v for k, v in ref.items() if k != "calls"}
    )


@hidden.probe("q10", "grad_wrt_w_and_b", judge=_loss_runs_once)
def loss_runs_once(sub, rng):
    """counts the Python calls of loss during one call (whose gradients match the reference's)"""
    outputs, calls = _run_grad_wrt_w_and_b(sub, rng, "linear")
    return {"calls": calls, **outputs}


# ---------------------------------------------------------------------------------------------
# q11: per_example_grads(loss, params, xs, ys) = jax.vmap(jax.grad(loss), in_axes=(None, 0, 0)).
#
# "Not a Python loop" is judged on what runs: the function is traced at three batch sizes and
# the operations of the traced program, nested jaxprs included, are counted. Under vmap the count
# does not depend on the batch; a `lax.map` traces its body once, and with `batch_size` its last,
# shorter chunk once more, so its count takes at most two values; a `for`, a comprehension, `map`
# or recursion repeats the gradient once per example (or per small chunk), so the count grows at
# each of the three sizes. Only that, a count that grows at every step, breaks the rule.

GRAD_BATCHES = (2, 9, 33)


def _classifier_problem(rng, B):
    """``(loss, params, xs, ys)``: a 2-layer tanh classifier (4 -> 5 -> 3), params a list of
    dicts, xs (B, 4), integer labels ys (B,) in [0, 3); a fresh loss for every call."""
    import jax
    import jax.numpy as jnp

    params = [
        {"W": _f32(rng, (4, 5), 0.5), "b": _f32(rng, 5, 0.1)},
        {"W": _f32(rng, (5, 3), 0.5), "b": _f32(rng, 3, 0.1)},
    ]
    xs, ys = _f32(rng, (B, 4)), jnp.asarray(rng.integers(0, 3, B), jnp.int32)

    def loss(params, x, y):  # the softmax cross-entropy of one example
        hidden = jnp.tanh(x @ params[0]["W"] + params[0]["b"])
        logits = hidden @ params[1]["W"] + params[1]["b"]
        return jax.nn.logsumexp(logits) - logits[y]

    return loss, params, xs, ys


def _grads_part(outputs):
    return {k: v for k, v in outputs.items() if k == "grads" or k.startswith("grads.")}


def _per_example_judge(out, ref):
    """The reference's per-example gradients, with the common wrong answers named."""
    got, want = _grads_part(out), _grads_part(ref)
    if sorted(got) != sorted(want):
        single = got.get("grads")
        if isinstance(single, PlainArray):
            return (
                f"returned one array of shape {tuple(single.value.shape)}, not a pytree shaped like "
                "params: differentiate with respect to params (jax.grad's default argnums=0)"
            )
        return compare_outputs(out, ref)
    arrays = [
        (path, got[path].value, want[path].value)
        for path in sorted(want)
        if isinstance(got[path], PlainArray) and isinstance(want[path], PlainArray)
    ]
    if arrays and all(g.shape == w.shape[1:] != w.shape for _, g, w in arrays):
        path, g, w = arrays[0]
        return (
            f"has no batch axis: `{path}` has shape {tuple(g.shape)}, that parameter's own shape, "
            f"expected {tuple(w.shape)}; that is one gradient for the whole batch, while each "
            "example needs its own (vmap jax.grad(loss) over the examples)"
        )
    same_rows = [
        np.array_equal(g, np.broadcast_to(g[:1], g.shape)) and not np.allclose(w, w[:1])
        for _, g, w in arrays
        if g.shape == w.shape and g.ndim and len(g) > 1
    ]
    if same_rows and all(same_rows):
        return (
            "every example got the same gradient (the batch's mean gradient, repeated?); row i "
            "must be the gradient of example i alone"
        )
    return compare_outputs(out, ref)


@hidden.probe("q11", "per_example_grads", judge=_per_example_judge)
def classifier_matches_reference(sub, rng):
    """on a 2-layer tanh classifier, params a list of two dicts, xs (6, 4), integer labels ys (6,)"""
    loss, params, xs, ys = _classifier_problem(rng, 6)
    return {"grads": _traced(lambda p, a, b: sub.per_example_grads(loss, p, a, b), params, xs, ys)}


@hidden.probe("q11", "per_example_grads", judge=_per_example_judge)
def scalar_leaf_matches_reference(sub, rng):
    """on a linear regression, params {"w": (5,), "b": a scalar ()}, xs (9, 5), ys (9,)"""
    import jax.numpy as jnp

    params = {"w": _f32(rng, 5), "b": _f32(rng, ())}
    xs, ys = _f32(rng, (9, 5)), _f32(rng, 9)

    def loss(params, x, y):  # the Huber loss of one example
        r = x @ params["w"] + params["b"] - y
        return jnp.where(jnp.abs(r) < 1.0, 0.5 * r**2, jnp.abs(r) - 0.5)

    return {"grads": _traced(lambda p, a, b: sub.per_example_grads(loss, p, a, b), params, xs, ys)}


@hidden.probe("q11", "per_example_grads", judge=_per_example_judge)
def tuple_params_matrix_targets(sub, rng):
    """on a tanh regression, params a tuple (W (3, 2), b (2,)), xs (5, 3), targets ys (5, 2)"""
    import jax.numpy as jnp

    params = (_f32(rng, (3, 2)), _f32(rng, 2, 0.1))
    xs, ys = _f32(rng, (5, 3)), _f32(rng, (5, 2))

    def loss(params, x, y):
        W, b = params
        return jnp.mean((jnp.tanh(x @ W + b) - y) ** 2)

    return {"grads": _traced(lambda p, a, b: sub.per_example_grads(loss, p, a, b), params, xs, ys)}


@hidden.probe("q11", "per_example_grads", judge=_per_example_judge)
def batch_of_one(sub, rng):
    """on the classifier with a batch of one example, xs (1, 4), ys (1,)"""
    loss, params, xs, ys = _classifier_problem(rng, 1)
    return {"grads": _traced(lambda p, a, b: sub.per_example_grads(loss, p, a, b), params, xs, ys)}


def _traced(call, params, xs, ys):
    """``call(params, xs, ys)`` computed by the program JAX traces with all three traced, as the
    loop gate traces it (:func:`autograder.probing.run_traced`): values and rule are judged on one
    program, whatever the function does when it is not traced (asks whether an input is a
    jax.core.Tracer, reads jax.core.trace_ctx, tries a NumPy conversion a tracer refuses). A
    function that cannot be traced at all is called as it is (its loop rule is then judged on
    its source)."""
    try:
        return run_traced(call, params, xs, ys)
    except Exception:  # noqa: BLE001 - a student function may raise anything while traced
        return call(params, xs, ys)


_program_fixed = fixed_size_program(
    "ops",
    len(GRAD_BATCHES),
    untraced=(
        "jax.make_jaxpr cannot trace it ({error}) and it uses {loop}; use jax.vmap (rule 5: no Python loops)"
    ),
    unreadable="could not count the operations of the traced program",
    empty="the traced program is empty; is the function body filled in?",
    grows=lambda ops: (
        "its traced program grows with the batch (operations: "
        + ", ".join(f"{n} for {B}" for n, B in zip(ops, GRAD_BATCHES))
        + " examples): a Python loop (for, comprehension, map or recursion) computes the gradient "
        "once per example; use jax.vmap (rule 5)"
    ),
)


@hidden.probe("q11", "per_example_grads", judge=_program_fixed, gate=True)
def program_does_not_grow_with_batch(sub, rng):
    """its traced program does not grow with the batch (vmap, no Python loop)"""
    loss, params, xs, ys = _classifier_problem(rng, max(GRAD_BATCHES))

    def call(params, xs, ys):
        return sub.per_example_grads(loss, params, xs, ys)

    def counts():
        return [len(primitives(call, params, xs[:B], ys[:B])) for B in GRAD_BATCHES]

    return traced_counts("ops", counts, sub.per_example_grads)


# ---------------------------------------------------------------------------------------------
# q12: clipped_mean_grad(loss, params, xs, ys, max_norm): per-example gradients, each clipped to
# global L2 norm max_norm, then averaged (DP-SGD without its noise).
#
# Values are compared with the reference's, on batches where a median max_norm clips about half
# the examples, where a huge one clips none (the plain mean of per-example gradients) and a tiny
# one clips all (the mean of unit directions times max_norm), and on a hinge loss whose satisfied
# examples have gradients of exactly zero (0 / 0 gives nan; the structure check rejects a nan
# where the reference is finite). "No Python loop" is q11's gate: the traced program does not
# grow with the batch.


def _median_norm(loss, params, xs, ys):
    """The median over the examples of each one's global gradient norm, as a Python float: a
    max_norm that clips about half of them."""
    import jax
    import jax.numpy as jnp

    grads = jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))(params, xs, ys)
    sq = sum(jnp.sum(leaf.reshape(leaf.shape[0], -1) ** 2, axis=1) for leaf in jax.tree.leaves(grads))
    return float(np.median(np.sqrt(np.asarray(sq))))


@hidden.probe("q12", "clipped_mean_grad", weight=2)
def classifier_half_clipped(sub, rng):
    """on the 2-layer classifier, xs (8, 4), max_norm the median gradient norm (half clipped)"""
    loss, params, xs, ys = _classifier_problem(rng, 8)
    max_norm = _median_norm(loss, params, xs, ys)
    return {"grad": _traced(lambda p, a, b: sub.clipped_mean_grad(loss, p, a, b, max_norm), params, xs, ys)}


@hidden.probe("q12", "clipped_mean_grad")
def zero_gradients_stay_zero(sub, rng):
    """on a hinge loss where half the examples are satisfied (their gradients exactly zero), xs (6, 3)"""
    import jax.numpy as jnp

    params = {"w": _f32(rng, 3), "b": _f32(rng, ())}
    xs = _f32(rng, (6, 3))
    margins = np.asarray(xs @ params["w"] + params["b"])
    sign = np.where(np.arange(6) % 2 == 0, 1.0, -1.0) * np.sign(margins + (margins == 0))
    ys = jnp.asarray(sign / np.maximum(np.abs(margins), 1e-3) * 3.0, jnp.float32)  # even: y * margin = 3 > 1

    def loss(params, x, y):  # hinge: zero (and a zero gradient) once y * (x . w + b) >= 1
        return jnp.maximum(0.0, 1.0 - y * (x @ params["w"] + params["b"]))

    return {"grad": _traced(lambda p, a, b: sub.clipped_mean_grad(loss, p, a, b, 0.5), params, xs, ys)}


@hidden.probe("q12", "clipped_mean_grad")
def nothing_clipped_is_the_mean(sub, rng):
    """on a tanh regression, params a tuple (W (3, 2), b (2,)), xs (5, 3), max_norm 1e6 (nothing clipped)"""
    import jax.numpy as jnp

    params = (_f32(rng, (3, 2)), _f32(rng, 2, 0.1))
    xs, ys = _f32(rng, (5, 3)), _f32(rng, (5, 2))

    def loss(params, x, y):
        W, b = params
        return jnp.mean((jnp.tanh(x @ W + b) - y) ** 2)

    return {"grad": _traced(lambda p, a, b: sub.clipped_mean_grad(loss, p, a, b, 1e6), params, xs, ys)}


@hidden.probe("q12", "clipped_mean_grad")
def everything_clipped(sub, rng):
    """on a linear regression, params {"w": (5,), "b": a scalar ()}, xs (9, 5), max_norm 1e-3 (all clipped)"""
    params = {"w": _f32(rng, 5), "b": _f32(rng, ())}
    xs, ys = _f32(rng, (9, 5)), _f32(rng, 9, 3.0)

    def loss(params, x, y):
        return (x @ params["w"] + params["b"] - y) ** 2

    return {"grad": _traced(lambda p, a, b: sub.clipped_mean_grad(loss, p, a, b, 1e-3), params, xs, ys)}


@hidden.probe("q12", "clipped_mean_grad", judge=_program_fixed, gate=True)
def clipped_program_does_not_grow_with_batch(sub, rng):
    """its traced program does not grow with the batch (vmap, no Python loop over the examples)"""
    loss, params, xs, ys = _classifier_problem(rng, max(GRAD_BATCHES))

    def call(params, xs, ys):
        return sub.clipped_mean_grad(loss, params, xs, ys, 1.0)

    def counts():
        return [len(primitives(call, params, xs[:B], ys[:B])) for B in GRAD_BATCHES]

    return traced_counts("ops", counts, sub.clipped_mean_grad)
