"""Hidden tests of 04-jit: what breaks under jit, and the fix.

Trace counts (q1, q5) use `count_traces`, which counts JAX trace events rather than cache
entries, on an input shape that no earlier call in the process used (`_fresh_shape`), so that
calls made by the notebook or by an earlier probe never pre-warm the cache being counted. Those
probes return counts and values that do not depend on the shape (`_fresh_input`: random first
rows, zeros after), never the shape, so student and reference runs stay comparable.

Timing probes (q9) time a simulated device, not XLA, and judge what the student's `benchmark`
did (which results it waited for, how many calls it made) and bounds a correct answer meets under
any load, on two devices of different speeds; their judges read the student's measurements and
the device settings the grader chose, never the reference's timings.

JAX is imported inside the functions that make inputs, never at module level: the grader imports
this file to judge, which needs no JAX (about 0.8 s of one file's grade, before its sandbox
can start).
"""

import ast
import itertools
import math
import time

import numpy as np

from autograder.probing import (
    PlainArray,
    ProbeSet,
    compare_outputs,
    compare_value,
    count_traces,
    describe_value,
    forbidden_names,
    primitives,
    raised,
    raises,
    source_of,
    traced_equations,
)

hidden = ProbeSet("04-jit")

KINDS = ("relu", "tanh", "identity")

_FRESH = itertools.count()


def _fresh_shape(cols):
    """A 2-D shape that no earlier call in this process used, so its first call must trace."""
    return (257 + next(_FRESH), cols)


FRESH_HEAD = 8


def _fresh_input(rng, cols, scale=1.0):
    """A float32 array of a :func:`_fresh_shape`: random first ``FRESH_HEAD`` rows, zeros after.
    What a function computes from it (elementwise, or a sum) does not depend on how many rows
    the shape has, so student and reference runs can compare values."""
    import jax.numpy as jnp

    head = rng.standard_normal((FRESH_HEAD, cols)) * scale
    x = np.zeros(_fresh_shape(cols))
    x[:FRESH_HEAD] = head
    return jnp.asarray(x, jnp.float32)


def _f32(rng, shape, scale=1.0):
    import jax.numpy as jnp

    return jnp.asarray(rng.standard_normal(shape) * scale, jnp.float32)


# ---------------------------------------------------------------------------------------------
# q1 activation: static `kind`, one trace per kind, a tanh that stays finite.


@hidden.probe("q1", "activation")
def matches_reference_for_each_kind(sub, rng):
    """on a random (4, 6) float32 array, for each kind"""
    x = _f32(rng, (4, 6), 3.0)
    return {kind: sub.activation(x, kind) for kind in KINDS}


@hidden.probe("q1", "activation")
def tanh_finite_for_large_inputs(sub, rng):
    """tanh on a (16,) float32 array with |x| between 90 and 1000"""
    import jax.numpy as jnp

    x = rng.uniform(90.0, 1000.0, 16) * rng.choice([-1.0, 1.0], 16)
    return {"tanh": sub.activation(jnp.asarray(x, jnp.float32), "tanh")}


def _once_per_kind(out, ref):
    n = out["traces"]
    if n == 3:
        # A count alone is a constant: the counted calls must give the reference's values too.
        return compare_outputs(out, ref)
    if n > 3:
        return (
            f"traced {n} times for 3 kinds called 3 times each on one input shape; expected "
            "once per kind (is a new jax.jit made on every call?)"
        )
    return (
        f"traced {n} times for 3 kinds called 3 times each on one input shape; expected once "
        "per kind: `activation` itself should be jitted, with kind static"
    )


@hidden.probe("q1", "activation", judge=_once_per_kind, weight=2)
def compiles_once_per_kind(sub, rng):
    """each of the 3 kinds called 3 times on one new input shape"""
    x = _fresh_input(rng, 3, 3.0)
    calls = []

    def run():
        calls[:] = [sub.activation(x, k) for _ in range(3) for k in KINDS]
        return calls

    traces = count_traces(run)
    # The last round's values on the random rows (the rest of x is zeros, its length fresh).
    return {"traces": traces, "values": {k: calls[-3 + i][:FRESH_HEAD] for i, k in enumerate(KINDS)}}


# ---------------------------------------------------------------------------------------------
# q2 sum_negatives: jittable, infinities, no boolean-mask indexing.


@hidden.probe("q2", "sum_negatives")
def matches_reference_under_jit(sub, rng):
    """under jax.jit on a random (50,) float32 array"""
    import jax

    return {"sum": jax.jit(sub.sum_negatives)(_f32(rng, (50,), 10.0))}


@hidden.probe("q2", "sum_negatives", weight=2)
def handles_infinities(sub, rng):
    """on (20,) float32 arrays holding +inf, and both +inf and -inf, directly and under jax.jit"""
    import jax
    import jax.numpy as jnp

    plus = rng.standard_normal(20) * 10
    where = rng.choice(20, 4, replace=False)
    plus[where[:2]] = np.inf
    both = plus.copy()
    both[where[2:]] = -np.inf
    plus, both = jnp.asarray(plus, jnp.float32), jnp.asarray(both, jnp.float32)
    # Both ways: XLA rewrites `x * (x < 0).astype(x.dtype)` into a select under jit, which hides
    # the nan that +inf * 0 gives when the same code runs op by op.
    jitted = jax.jit(sub.sum_negatives)
    return {
        "with_plus_inf_directly": sub.sum_negatives(plus),
        "with_both_infs_directly": sub.sum_negatives(both),
        "with_plus_inf_under_jit": jitted(plus),
        "with_both_infs_under_jit": jitted(both),
    }


@hidden.probe("q2", "sum_negatives")
def zero_without_negatives_under_jit(sub, rng):
    """under jax.jit on a (12,) float32 array with no negative entry (one +inf), and with one entry negated"""
    import jax
    import jax.numpy as jnp

    x = np.abs(rng.standard_normal(12)) * 10 + 0.1
    where = rng.choice(12, 2, replace=False)
    x[where[0]] = np.inf
    one_negative = x.copy()
    one_negative[where[1]] *= -1  # an answer that is always 0 does not pass
    f = jax.jit(sub.sum_negatives)
    return {
        "sum": f(jnp.asarray(x, jnp.float32)),
        "with_one_negative": f(jnp.asarray(one_negative, jnp.float32)),
    }


_BOOLEAN_CALLS = {
    "less",
    "less_equal",
    "greater",
    "greater_equal",
    "equal",
    "not_equal",
    "logical_and",
    "logical_or",
    "logical_not",
    "logical_xor",
    "signbit",
    "isfinite",
    "isinf",
    "isnan",
    "isneginf",
    "isposinf",
}


def _boolean_mask_index(source):
    """The first ``a[mask]`` in ``source`` whose index is a comparison (``x < 0``), a boolean
    combination of them (``~m``, ``m1 & m2``, ``jnp.less(x, 0)``), or a name assigned one;
    ``None`` when there is none."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    masks = set()

    def is_mask(node):
        if isinstance(node, ast.Compare):
            return True
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.Invert, ast.Not)):
            return is_mask(node.operand)
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.BitAnd, ast.BitOr, ast.BitXor)):
            return is_mask(node.left) or is_mask(node.right)
        if isinstance(node, ast.BoolOp):
            return any(is_mask(v) for v in node.values)
        if isinstance(node, ast.Call):
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
            return name in _BOOLEAN_CALLS
        if isinstance(node, ast.Name):
            return node.id in masks
        if isinstance(node, ast.Tuple):
            return any(is_mask(e) for e in node.elts)
        return False

    for _ in range(2):  # twice, so that a mask built from another mask name is found too
        for node in ast.walk(tree):
            if (
                isinstance(node, (ast.Assign, ast.AnnAssign, ast.NamedExpr))
                and node.value is not None
                and is_mask(node.value)
            ):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                masks |= {t.id for t in targets if isinstance(t, ast.Name)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and is_mask(node.slice):
            return ast.unparse(node)[:60]
    return None


def _no_mask_indexing(out, ref):
    found = out["mask_indexing"]
    if found:
        return (
            f"indexes with a boolean mask (`{found}`): the result's shape depends on the "
            "values, so it cannot be jitted; keep the shape with jnp.where"
        )
    return None


@hidden.probe("q2", "sum_negatives", judge=_no_mask_indexing, gate=True, source=True)
def no_boolean_mask_indexing(sub, rng):
    """has no boolean-mask indexing"""
    return {"mask_indexing": _boolean_mask_index(source_of(sub.sum_negatives))}


# ---------------------------------------------------------------------------------------------
# q3 flatten: static shape arithmetic, any shape, under jit.

FLATTEN_SHAPES = [(7,), (3, 4), (2, 3, 4), (2, 1, 3, 1)]


def _shape_name(shape):
    return "x".join(map(str, shape)) if shape else "0-d"


@hidden.probe("q3", "flatten")
def matches_reference_for_several_shapes_under_jit(sub, rng):
    """under jax.jit on float32 arrays of shapes (7,), (3, 4), (2, 3, 4) and (2, 1, 3, 1)"""
    import jax

    f = jax.jit(sub.flatten)
    return {_shape_name(s): f(_f32(rng, s)) for s in FLATTEN_SHAPES}


@hidden.probe("q3", "flatten")
def zero_d_and_empty_under_jit(sub, rng):
    """under jax.jit on a 0-d float32 array and on an empty (0, 3) one"""
    import jax
    import jax.numpy as jnp

    f = jax.jit(sub.flatten)
    return {"0-d": f(jnp.float32(rng.standard_normal())), "0x3": f(jnp.zeros((0, 3), jnp.float32))}


@hidden.probe("q3", "flatten")
def keeps_int_dtype_without_jit(sub, rng):
    """called directly on an int32 array of shape (2, 5)"""
    import jax.numpy as jnp

    return {"flat": sub.flatten(jnp.asarray(rng.integers(-50, 50, (2, 5)), jnp.int32))}


def _no_jnp_prod(out, ref):
    if out["uses"]:
        return (
            "computes a size with jnp.prod: under jit that is a tracer, and reshape needs a "
            "concrete size; do the shape arithmetic in Python (math.prod(x.shape), x.size)"
        )
    return None


@hidden.probe("q3", "flatten", judge=_no_jnp_prod, gate=True, source=True)
def no_jnp_prod_of_the_shape(sub, rng):
    """computes no size with jnp.prod"""
    return {"uses": forbidden_names(source_of(sub.flatten), {"jnp.prod", "jax.numpy.prod"})}


# ---------------------------------------------------------------------------------------------
# q4 scale: pure, factor traced.


def _two_factors(rng):
    first, second = rng.uniform(0.5, 4.0, 2)
    return float(first), float(second + 4.5)  # far apart


def _follows_factor(out, ref):
    first, second = out.get("first"), out.get("second")
    if (
        isinstance(first, PlainArray)
        and isinstance(second, PlainArray)
        and first.value.shape == second.value.shape
        and np.array_equal(first.value, second.value)
    ):
        return (
            "gave the same result for two different factors: the factor must come from the "
            "argument, not from a global read at trace time"
        )
    return compare_outputs(out, ref)


@hidden.probe("q4", "scale", judge=_follows_factor, weight=2)
def follows_factor_under_jit(sub, rng):
    """jax.jit(scale) on one (5, 3) float32 array with two different float factors"""
    import jax

    x = _f32(rng, (5, 3))
    first, second = _two_factors(rng)
    f = jax.jit(sub.scale)
    return {"first": f(x, first), "second": f(x, second)}


@hidden.probe("q4", "scale", judge=_follows_factor)
def follows_factor_without_jit(sub, rng):
    """scale called directly on one (5, 3) float32 array with two different float factors"""
    x = _f32(rng, (5, 3))
    first, second = _two_factors(rng)
    return {"first": sub.scale(x, first), "second": sub.scale(x, second)}


@hidden.probe("q4", "scale")
def broadcasts_an_array_factor_under_jit(sub, rng):
    """jax.jit(scale) on a (5, 3) float32 array with a (3,) float32 factor"""
    import jax

    return {"scaled": jax.jit(sub.scale)(_f32(rng, (5, 3)), _f32(rng, (3,)))}


# ---------------------------------------------------------------------------------------------
# q5 scaled_sum: jitted once, alpha traced.


@hidden.probe("q5", "scaled_sum")
def matches_reference_for_three_alphas(sub, rng):
    """on a random (6, 4) float32 array with three float alphas"""
    x = _f32(rng, (6, 4))
    return {f"alpha_{i}": sub.scaled_sum(x, float(a)) for i, a in enumerate(rng.uniform(-3, 3, 3))}


def _one_trace(out, ref):
    if not out["jitted"]:
        return "is not itself jitted: jit it once, with alpha traced, on the last line of its cell"
    n = out["traces"]
    if n != 1:
        return (
            f"traced {n} times for 20 calls with different float alphas on one input shape; "
            "expected once: keep alpha traced (not static) and jit once, outside the function"
        )
    # A count alone is a constant: the counted calls must give the reference's values too.
    return compare_outputs(out, ref)


@hidden.probe("q5", "scaled_sum", judge=_one_trace, weight=2)
def traces_once_for_twenty_alphas(sub, rng):
    """20 calls on one new input shape with 20 different Python float alphas"""
    x = _fresh_input(rng, 4)
    alphas = [float(a) for a in rng.uniform(-5, 5, 20)]
    fn = sub.scaled_sum
    values = []
    traces = count_traces(lambda: values.extend(fn(x, a) for a in alphas) or values)
    return {"traces": traces, "jitted": callable(getattr(fn, "lower", None)), "values": values}


# ---------------------------------------------------------------------------------------------
# q6 newton_sqrt: lax.fori_loop with iters traced.


def _positive_scalars(rng, n):
    import jax.numpy as jnp

    return [jnp.float32(a) for a in rng.uniform(0.5, 50.0, n)]


@hidden.probe("q6", "newton_sqrt")
def matches_reference_for_small_iters(sub, rng):
    """on four float32 scalars a in [0.5, 50] with iters = 0, 1, 2 and 5"""
    a_values = _positive_scalars(rng, 4)
    return {f"iters_{k}": [sub.newton_sqrt(a, k) for a in a_values] for k in (0, 1, 2, 5)}


@hidden.probe("q6", "newton_sqrt")
def traced_iters_under_jit(sub, rng):
    """under jax.jit with iters traced (int32 scalars 1, 3 and 25)"""
    import jax
    import jax.numpy as jnp

    f = jax.jit(sub.newton_sqrt)
    (a,) = _positive_scalars(rng, 1)
    return {f"iters_{k}": f(a, jnp.int32(k)) for k in (1, 3, 25)}


def _one_loop(out, ref):
    if out["traced_error"]:
        return (
            f"raises {out['traced_error']} when iters is traced: the loop needs iters as a "
            "concrete number (a Python loop, or an array of length iters); use lax.fori_loop, "
            "whose bounds may be traced"
        )
    if not out["has_loop"]:
        return "its jaxpr holds no loop primitive ('while' or 'scan'); use lax.fori_loop"
    if out["ops_3"] != out["ops_30"]:
        return (
            f"its jaxpr grows with iters ({out['ops_3']} operations for iters = 3, "
            f"{out['ops_30']} for iters = 30): the loop is unrolled; use lax.fori_loop"
        )
    return None


@hidden.probe("q6", "newton_sqrt", judge=_one_loop, gate=True)
def jaxpr_holds_one_loop(sub, rng):
    """its jaxpr with iters traced, and with iters = 3 and 30"""
    import jax
    import jax.numpy as jnp

    (a,) = _positive_scalars(rng, 1)
    error = raised(jax.make_jaxpr(sub.newton_sqrt), a, jnp.int32(5))
    has_loop = not error and bool({"while", "scan"} & set(primitives(sub.newton_sqrt, a, jnp.int32(5))))
    return {
        "traced_error": error,
        "has_loop": has_loop,
        "ops_3": len(primitives(lambda a: sub.newton_sqrt(a, 3), a)),
        "ops_30": len(primitives(lambda a: sub.newton_sqrt(a, 30), a)),
    }


# ---------------------------------------------------------------------------------------------
# q7 minimize: lax.while_loop, exact step counts.
#
# On f(x) = x.A.x / 2 - b.x with A's eigenvalues in [1, 1.5] and lr = 0.2, every update shrinks
# the gradient's norm by a factor between 0.7 and 0.8. `_tol_between` puts tol at the geometric
# mean of the norms before and after update `steps`, so exactly `steps` updates happen, and
# rounding (float32 against float64, one formula against another) is 10% away from changing it.

LR = 0.2


def _quadratic(rng, n=4):
    q, _ = np.linalg.qr(rng.standard_normal((n, n)))
    A = (q * rng.uniform(1.0, 1.5, n)) @ q.T
    A = (A + A.T) / 2
    b = rng.standard_normal(n)
    x0 = rng.standard_normal(n) * 0.5
    return A, b, x0


def _grad_fn(A, b):
    import jax.numpy as jnp

    A, b = jnp.asarray(A, jnp.float32), jnp.asarray(b, jnp.float32)
    return lambda x: A @ x - b


def _tol_between(A, b, x0, steps):
    x, norms = x0.copy(), []
    for _ in range(steps + 1):
        g = A @ x - b
        norms.append(np.linalg.norm(g))
        x = x - LR * g
    return float(np.sqrt(norms[steps - 1] * norms[steps]))


def _steps_then_x(what):
    def judge(out, ref):
        n, want = out.get("n_steps"), ref["n_steps"]
        if not isinstance(n, int):
            return f"n_steps is {describe_value(n)}, expected an integer scalar"
        if n != want:
            more = "more" if n > want else "fewer"
            return f"made {more} updates than the reference {what}"
        problem = compare_value(out.get("x"), ref["x"])
        return f"x {problem}" if problem else None

    return judge


def _minimize_outputs(result):
    x, n = result
    return {"x": x, "n_steps": int(n)}


@hidden.probe(
    "q7",
    "minimize",
    judge=_steps_then_x(
        "(the L2 norm of grad_fn(x), not its square, is tested against tol before each update)"
    ),
    weight=2,
)
def matches_reference_on_a_quadratic(sub, rng):
    """gradient descent on a 4-d quadratic, with tol between two updates' gradient norms"""
    import jax.numpy as jnp

    A, b, x0 = _quadratic(rng)
    tol = _tol_between(A, b, x0, int(rng.integers(8, 16)))
    return _minimize_outputs(sub.minimize(_grad_fn(A, b), jnp.asarray(x0, jnp.float32), LR, tol, 1000))


@hidden.probe("q7", "minimize", judge=_steps_then_x("with lr, tol and max_iter traced"))
def works_under_jit_with_traced_settings(sub, rng):
    """under jax.jit with lr, tol and max_iter traced, on a 4-d quadratic"""
    import jax
    import jax.numpy as jnp

    A, b, x0 = _quadratic(rng)
    tol = _tol_between(A, b, x0, int(rng.integers(8, 16)))
    grad_fn = _grad_fn(A, b)
    run = jax.jit(lambda x0, lr, tol, max_iter: sub.minimize(grad_fn, x0, lr, tol, max_iter))
    return _minimize_outputs(run(jnp.asarray(x0, jnp.float32), LR, tol, 1000))


@hidden.probe(
    "q7",
    "minimize",
    judge=_steps_then_x("when tol is never reached: it should make exactly max_iter updates"),
)
def stops_at_max_iter(sub, rng):
    """a few max_iter updates on a 4-d quadratic with a tol that is never reached"""
    import jax.numpy as jnp

    A, b, x0 = _quadratic(rng)
    max_iter = int(rng.integers(3, 9))
    return _minimize_outputs(sub.minimize(_grad_fn(A, b), jnp.asarray(x0, jnp.float32), LR, 1e-9, max_iter))


@hidden.probe(
    "q7",
    "minimize",
    judge=_steps_then_x(
        "from an x0 that already meets tol: the norm is tested before each update, so it should "
        "make none and return x0"
    ),
)
def converged_start_takes_no_steps(sub, rng):
    """an x0 whose gradient norm is already below tol"""
    import jax.numpy as jnp

    A, b, x0 = _quadratic(rng)
    tol = 10.0 * float(np.linalg.norm(A @ x0 - b))
    return _minimize_outputs(sub.minimize(_grad_fn(A, b), jnp.asarray(x0, jnp.float32), LR, tol, 100))


def _uses_while(out, ref):
    if out["error"]:
        return f"raises {out['error']} when traced (a Python while on a traced value?); use lax.while_loop"
    if "while" not in out["primitives"]:
        return (
            "its jaxpr holds no while loop: use lax.while_loop, which stops as soon as the "
            "gradient is small enough"
        )
    return None


@hidden.probe("q7", "minimize", judge=_uses_while, gate=True)
def jaxpr_holds_a_while_loop(sub, rng):
    """its jaxpr on a 4-d quadratic"""
    import jax
    import jax.numpy as jnp

    A, b, x0 = _quadratic(rng)
    grad_fn = _grad_fn(A, b)

    def run(x0):
        return sub.minimize(grad_fn, x0, LR, 1e-3, 100)

    x0 = jnp.asarray(x0, jnp.float32)
    error = raised(jax.make_jaxpr(run), x0)
    return {"error": error, "primitives": [] if error else sorted(set(primitives(run, x0)))}


# ---------------------------------------------------------------------------------------------
# q8 checked_log: checkify, err.throw() raises exactly for x <= 0.


def _throws(err):
    from jax.experimental import checkify

    return raises(checkify.JaxRuntimeError, err.throw)


def _both_ways(sub, cases):
    """``{f"{case}, {how}": (err, y)}`` for each input, called directly and under jax.jit."""
    import jax

    jitted = jax.jit(sub.checked_log)
    results = {}
    for name, x in cases.items():
        for how, fn in (("called directly", sub.checked_log), ("under jax.jit", jitted)):
            err, y = fn(x)
            results[f"{name}, {how}"] = (err, y)
    return results


def _raised_for_every_case(out, ref):
    cases = [case for case in ref if not case.startswith(("y: ", "raised: "))]
    missed = [case for case in cases if out.get(case) is not True]
    if missed:
        return f"err.throw() did not raise for {missed[0]}; any entry <= 0 must make it raise"
    # And an input it must pass: an answer that always raises does not.
    return _passes_and_logs(out, ref)


@hidden.probe("q8", "checked_log", judge=_raised_for_every_case, weight=2)
def throws_for_nonpositive_entries(sub, rng):
    """err.throw() on inputs with an entry <= 0 (and on a positive one), directly and under jax.jit"""
    import jax.numpy as jnp

    with_zero = np.abs(rng.standard_normal(6)) + 0.1
    with_zero[rng.integers(6)] = 0.0
    with_negative = np.abs(rng.standard_normal(6)) + 0.1
    with_negative[rng.integers(6)] = -float(rng.uniform(0.1, 5.0))
    cases = {
        "a (6,) array holding a 0": jnp.asarray(with_zero, jnp.float32),
        "a (6,) array holding one negative entry": jnp.asarray(with_negative, jnp.float32),
        "a negative 0-d array": jnp.float32(-rng.uniform(0.1, 5.0)),
        "a (2, 3) array of negative entries": jnp.asarray(
            -np.abs(rng.standard_normal((2, 3))) - 0.1, jnp.float32
        ),
    }
    out = {case: _throws(err) for case, (err, _) in _both_ways(sub, cases).items()}
    positive = {"a positive (5,) array": jnp.asarray(rng.uniform(0.01, 100.0, 5), jnp.float32)}
    for case, (err, y) in _both_ways(sub, positive).items():
        out[f"raised: {case}"] = _throws(err)
        out[f"y: {case}"] = y
    return out


def _passes_and_logs(out, ref):
    raised_for = [k[len("raised: ") :] for k in ref if k.startswith("raised: ") and out.get(k) is not False]
    if raised_for:
        return f"err.throw() raised for {raised_for[0]}, whose entries are all > 0"
    ys = {k: v for k, v in ref.items() if k.startswith("y: ")}
    for key, want in ys.items():
        problem = compare_value(out.get(key), want)
        if problem:
            return f"y for {key[len('y: ') :]} {problem}"
    return None


@hidden.probe("q8", "checked_log", judge=_passes_and_logs)
def passes_for_positive_entries_and_returns_log(sub, rng):
    """positive float32 inputs of shapes (6,), (2, 3) and (), called directly and under jax.jit"""
    import jax.numpy as jnp

    cases = {
        "a positive (6,) array": jnp.asarray(rng.uniform(0.01, 100.0, 6), jnp.float32),
        "a positive (2, 3) array": jnp.asarray(rng.uniform(0.01, 100.0, (2, 3)), jnp.float32),
        "a positive 0-d array": jnp.float32(rng.uniform(0.01, 100.0)),
    }
    out = {}
    for case, (err, y) in _both_ways(sub, cases).items():
        out[f"raised: {case}"] = _throws(err)
        out[f"y: {case}"] = y
    return out


# ---------------------------------------------------------------------------------------------
# q9 benchmark: blocks on the result, excludes compilation.
#
# Both probes hand `benchmark` a simulated device instead of an XLA program, because two clocks
# compared on a loaded machine can say anything (a wrong answer once scored full marks under
# load). `f` returns at once, as a jitted function does under asynchronous dispatch, and its
# result is ready RUN_SECONDS after the device finished the previous one; its first call can
# also take COMPILE_SECONDS before returning, as tracing and compiling do. Sleeping can only
# overshoot, so the judges rest on what the submission did, which load cannot change: which
# results it waited for, how many calls it made, and bounds that a correct benchmark meets
# however slow the machine is (at least RUN_SECONDS per call; a timed span inside the call).

#: Seconds the simulated device takes per call: a correct mean is never below this. Each probe
#: times two devices, the second SLOW_FACTOR times slower: a number that does not follow what
#: it timed (a constant, nan) cannot be right for both.
RUN_SECONDS = 0.02
SLOW_FACTOR = 4
#: Seconds the first call of the slow-to-compile function takes before it returns.
COMPILE_SECONDS = 0.3
#: Seconds per call of the fast-to-run function once compiled (its slower twin in
#: ``excludes_compilation`` takes SLOW_FACTOR * RUN_SECONDS / 2).
FAST_RUN_SECONDS = 0.001
REPEATS = 10


def _sleep_until(deadline):
    while (left := deadline - time.monotonic()) > 0:
        time.sleep(left)


class _Device:
    """A function on a simulated device: each call queues one run of ``run`` seconds and returns
    a :class:`_Result` at once; the first call first spends ``compile`` seconds, synchronously.
    Records how many calls were made and which results were waited for."""

    def __init__(self, run, compile=0.0):
        self.run, self.compile = run, compile
        self.free_at = 0.0
        self.calls = 0
        self.waited = set()

    def __call__(self, *args, **kwargs):
        index, self.calls = self.calls, self.calls + 1
        if index == 0 and self.compile:
            _sleep_until(time.monotonic() + self.compile)
        self.free_at = max(time.monotonic(), self.free_at) + self.run
        return _Result(self, index, self.free_at)


class _Result:
    """What a call returns: like a JAX array, reading it (``block_until_ready``, NumPy, an
    attribute, printing) waits until the device has computed it."""

    __slots__ = ("_device", "_index", "_ready_at")

    def __init__(self, device, index, ready_at):
        self._device, self._index, self._ready_at = device, index, ready_at

    def block_until_ready(self):
        _sleep_until(self._ready_at)
        self._device.waited.add(self._index)
        return self

    def is_ready(self):
        return time.monotonic() >= self._ready_at

    def _value(self):
        self.block_until_ready()
        return np.zeros((), np.float32)

    def __array__(self, dtype=None, copy=None):
        return self._value() if dtype is None else self._value().astype(dtype)

    def __float__(self):
        return float(self._value())

    def __repr__(self):
        return repr(self._value())

    __str__ = __repr__

    def __getitem__(self, index):
        return self._value()[index]

    def __getattr__(self, name):
        if name.startswith("__"):  # a protocol lookup, not a read of the value
            raise AttributeError(name)
        return getattr(self._value(), name)


def _seconds(value):
    if isinstance(value, PlainArray) and value.value.size == 1 and value.value.dtype.kind == "f":
        return float(value.value.reshape(()))
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    return None


def _as_seconds(value):
    """What ``benchmark`` returned, as the grader receives it: a number (a Python float, or a
    one-element float array made a float), else as it is, for the judge to name."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    shape, dtype = getattr(value, "shape", None), getattr(value, "dtype", None)
    try:
        if shape is not None and int(np.prod(shape)) == 1 and np.dtype(dtype).kind == "f":
            return float(np.asarray(value).reshape(()))
    except Exception:  # noqa: BLE001 - a student's object may raise anything: judged as it is
        pass
    return value


def _ms(seconds):
    return f"{1e3 * seconds:.3g} ms"


def _timed(sub, rng, run, compile=0.0):
    """One benchmark of a simulated device: what it returned and what it did."""
    device = _Device(run, compile=compile)
    x = _f32(rng, (8,))
    began = time.perf_counter()
    seconds = sub.benchmark(device, x, repeats=REPEATS)
    call = time.perf_counter() - began
    return {
        "seconds": _as_seconds(seconds),
        "waited_after_first": len(device.waited - {0}),
        "calls": device.calls,
        "call": call,
    }


def _a_time(out, path):
    """The seconds at ``path`` as a positive finite float, else (None, the student's message)."""
    t = _seconds(out.get(path))
    if t is None:
        return None, f"returned {describe_value(out.get(path))}, expected a float number of seconds"
    if not math.isfinite(t) or t <= 0:
        return None, f"returned {t!r} seconds per call; expected the mean seconds per call, a positive number"
    return t, None


def _follows_the_device(t, t_slow, run, run_slow):
    """A correct mean grows with the device's time per call, whatever the load adds to both."""
    if t_slow - t < 0.5 * (run_slow - run):
        return (
            f"reported {_ms(t)} per call on a device that takes {_ms(run)} and {_ms(t_slow)} on one "
            f"that takes {_ms(run_slow)}: the number does not follow what it timed; time the calls "
            "and return the mean seconds per call"
        )
    return None


def _per_call_when_blocked(out, ref):
    times = []
    for name in ("fast", "slow"):
        t, problem = _a_time(out, f"{name}.seconds")
        if problem:
            return problem
        run, repeats, call = ref[f"{name}.run"], ref["repeats"], out[f"{name}.call"]
        # A benchmark that waits for its results spends at least `run` per call between reading
        # the clock twice, however loaded the machine; one that never waited for a timed result
        # (after the warm-up's) measured the dispatch, whatever the clock says.
        if out[f"{name}.waited_after_first"] == 0 or t < run / 2:
            return (
                f"reported {_ms(t)} per call for a function whose results arrive {_ms(run)} after "
                "each call returns: it timed the asynchronous dispatch; wait with "
                "jax.block_until_ready before reading the clock"
            )
        # The timed loop runs inside the one benchmark() call, so seconds per call times
        # `repeats` cannot exceed that call's own duration, however loaded the machine is; a
        # total instead of a mean exceeds it about `repeats` times over.
        if t * repeats > 1.5 * call:
            return (
                f"reported {_ms(t)} per call, but the whole call with repeats={repeats} took "
                f"{_ms(call)}: return seconds per call (divide by repeats)"
            )
        times.append(t)
    return _follows_the_device(*times, ref["fast.run"], ref["slow.run"])


@hidden.probe("q9", "benchmark", judge=_per_call_when_blocked, weight=2)
def waits_for_the_result(sub, rng):
    """on jitted-like functions whose results arrive milliseconds after each call returns"""
    return {
        "fast": {**_timed(sub, rng, RUN_SECONDS), "run": RUN_SECONDS},
        "slow": {**_timed(sub, rng, SLOW_FACTOR * RUN_SECONDS), "run": SLOW_FACTOR * RUN_SECONDS},
        "repeats": REPEATS,
    }


def _excludes_compile(out, ref):
    times = []
    for name in ("fast", "slow"):
        t, problem = _a_time(out, f"{name}.seconds")
        if problem:
            return problem
        compile_, run, repeats = ref["compile"], ref[f"{name}.run"], ref["repeats"]
        # Only `repeats` calls in all: the first timed one compiled. Else a correct timed span
        # starts after the compiling call returned, so it is shorter than the whole benchmark()
        # call by at least `compile_`, however loaded the machine; one that counts the
        # compiling call is not.
        if out[f"{name}.calls"] > repeats and t * repeats > 1.5 * out[f"{name}.call"]:
            return (
                f"reported {_ms(t)} per call, but the whole call with repeats={repeats} took "
                f"{_ms(out[f'{name}.call'])}: return seconds per call (divide by repeats)"
            )
        if out[f"{name}.calls"] <= repeats or t * repeats > out[f"{name}.call"] - compile_ / 2:
            return (
                f"reported {_ms(t)} per call for a function that takes {_ms(compile_)} to trace and "
                f"compile on its first call and about {_ms(run)} afterwards: the timing "
                "includes compilation; call f once, untimed, before starting the clock"
            )
        if t < run / 2:
            return (
                f"reported {_ms(t)} per call for a function that takes {_ms(run)} per call once "
                "compiled: wait for each result (jax.block_until_ready) before reading the clock"
            )
        times.append(t)
    return _follows_the_device(*times, ref["fast.run"], ref["slow.run"])


@hidden.probe("q9", "benchmark", judge=_excludes_compile, weight=2)
def excludes_compilation(sub, rng):
    """on new jitted-like functions that are slow to compile and fast to run"""
    slow_run = SLOW_FACTOR * RUN_SECONDS / 2
    return {
        "fast": {**_timed(sub, rng, FAST_RUN_SECONDS, COMPILE_SECONDS), "run": FAST_RUN_SECONDS},
        "slow": {**_timed(sub, rng, slow_run, COMPILE_SECONDS), "run": slow_run},
        "compile": COMPILE_SECONDS,
        "repeats": REPEATS,
    }


# ---------------------------------------------------------------------------------------------
# q10 rnn: lax.scan over time, a jaxpr that does not grow with T.


def _rnn_inputs(rng, T, d_in=3, h=5):
    params = {
        "Wx": _f32(rng, (d_in, h), 1.0 / np.sqrt(d_in)),
        "Wh": _f32(rng, (h, h), 0.8 / np.sqrt(h)),  # not symmetric: Wh @ h differs from h @ Wh
        "b": _f32(rng, (h,), 0.5),
    }
    return params, _f32(rng, (T, d_in)), _f32(rng, (h,), 0.5)


def _rnn_outputs(result):
    h_last, hs = result
    return {"h_last": h_last, "hs": hs}


@hidden.probe("q10", "rnn", weight=2)
def matches_reference_on_a_sequence(sub, rng):
    """on random params (d_in 3, h 5), a (9, 3) float32 sequence and a random h0"""
    params, xs, h0 = _rnn_inputs(rng, 9)
    return _rnn_outputs(sub.rnn(params, xs, h0))


@hidden.probe("q10", "rnn")
def rnn_under_jit(sub, rng):
    """under jax.jit on random params (d_in 4, h 2) and a (6, 4) float32 sequence"""
    import jax

    params, xs, h0 = _rnn_inputs(rng, 6, d_in=4, h=2)
    return _rnn_outputs(jax.jit(sub.rnn)(params, xs, h0))


@hidden.probe("q10", "rnn")
def one_step_sequence(sub, rng):
    """on a sequence of length 1 (T = 1)"""
    params, xs, h0 = _rnn_inputs(rng, 1)
    return _rnn_outputs(sub.rnn(params, xs, h0))


def _one_scan(out, ref):
    if out["traced_error"]:
        return f"raises {out['traced_error']} when traced with jax.make_jaxpr; use lax.scan over xs"
    if out["ops_4"] != out["ops_16"]:
        return (
            f"its jaxpr grows with the sequence length ({out['ops_4']} operations for T = 4, "
            f"{out['ops_16']} for T = 16): the loop is unrolled; use lax.scan"
        )
    if not out["has_scan"]:
        return "its jaxpr holds no scan: use lax.scan for the loop over time"
    return None


@hidden.probe("q10", "rnn", judge=_one_scan, gate=True)
def jaxpr_holds_a_scan(sub, rng):
    """its jaxpr for sequences of length 4 and 16"""
    import jax
    import jax.numpy as jnp

    params, _, h0 = _rnn_inputs(rng, 1)

    def run(xs):
        return sub.rnn(params, xs, h0)

    short, long = jnp.zeros((4, 3), jnp.float32), jnp.zeros((16, 3), jnp.float32)
    error = raised(jax.make_jaxpr(run), short) or raised(jax.make_jaxpr(run), long)
    ops_4 = [] if error else primitives(run, short)
    ops_16 = [] if error else primitives(run, long)
    return {"traced_error": error, "ops_4": len(ops_4), "ops_16": len(ops_16), "has_scan": "scan" in ops_4}


# ---------------------------------------------------------------------------------------------
# q11 lr_schedule: warm-up then cosine, step traced, one trace for every step.


def _schedule_settings(rng):
    """``(base_lr, warmup, total)``: Python numbers, as the schedule takes them."""
    warmup = int(rng.integers(3, 10))
    return float(rng.uniform(0.05, 1.0)), warmup, warmup + int(rng.integers(8, 30))


@hidden.probe("q11", "lr_schedule", weight=2)
def boundaries_under_jit(sub, rng):
    """under jax.jit with step traced, at the steps around warmup and total, and far past total"""
    import jax
    import jax.numpy as jnp

    base_lr, warmup, total = _schedule_settings(rng)
    f = jax.jit(lambda step: sub.lr_schedule(step, base_lr, warmup, total))
    steps = {
        "step 0": 0,
        "step warmup - 1": warmup - 1,
        "step warmup": warmup,
        "step warmup + 1": warmup + 1,
        "step total - 1": total - 1,
        "step total": total,
        "step total + 1": total + 1,
        "a step far past total": total + 1000,
    }
    return {name: f(jnp.int32(step)) for name, step in steps.items()}


@hidden.probe("q11", "lr_schedule", weight=2)
def every_step_under_vmap(sub, rng):
    """under jax.vmap over every step from 0 to a few past total"""
    import jax
    import jax.numpy as jnp

    base_lr, warmup, total = _schedule_settings(rng)
    steps = jnp.arange(total + 5, dtype=jnp.int32)
    return {"lr": jax.vmap(lambda step: sub.lr_schedule(step, base_lr, warmup, total))(steps)}


@hidden.probe("q11", "lr_schedule")
def matches_reference_called_directly(sub, rng):
    """called directly on five int32 steps, in the warm-up, the decay and past total"""
    import jax.numpy as jnp

    base_lr, warmup, total = _schedule_settings(rng)
    steps = [0, int(rng.integers(1, warmup)), int(rng.integers(warmup, total)), total - 1, total + 3]
    return {"lr": [sub.lr_schedule(jnp.int32(step), base_lr, warmup, total) for step in steps]}


def _no_retrace(out, ref):
    if out["later_traces"]:
        return (
            f"traced {out['later_traces']} more time(s) for later steps of one schedule: step "
            "must stay traced (not static), so that one compiled program serves every step"
        )
    values = {k: v for k, v in out.items() if k != "later_traces"}
    return compare_outputs(values, {k: v for k, v in ref.items() if k != "later_traces"})


@hidden.probe("q11", "lr_schedule", judge=_no_retrace)
def traces_once_for_every_step(sub, rng):
    """jax.jit(lr_schedule, static_argnums=(1, 2, 3)) called on every step of one schedule"""
    import jax
    import jax.numpy as jnp

    base_lr, warmup, total = _schedule_settings(rng)
    f = jax.jit(sub.lr_schedule, static_argnums=(1, 2, 3))
    first = f(jnp.int32(0), base_lr, warmup, total)
    later = []
    n = count_traces(
        lambda: later.extend(f(jnp.int32(step), base_lr, warmup, total) for step in range(1, total + 3))
    )
    return {"later_traces": n, "lr": [first, *later]}


def _traces_with_step_traced(out, ref):
    if out["traced_error"]:
        return (
            f"raises {out['traced_error']} when step is traced: a Python `if` (or int(), float()) "
            "on step needs its value; choose with jnp.where, lax.cond or lax.switch"
        )
    return None


@hidden.probe("q11", "lr_schedule", judge=_traces_with_step_traced, gate=True)
def works_with_step_traced(sub, rng):
    """traced with step an int32 tracer"""
    import jax
    import jax.numpy as jnp

    base_lr, warmup, total = _schedule_settings(rng)
    run = jax.make_jaxpr(lambda step: sub.lr_schedule(step, base_lr, warmup, total))
    return {"traced_error": raised(run, jnp.int32(warmup))}


# ---------------------------------------------------------------------------------------------
# q12 Affine and sgd_update: a registered pytree, and an update through jax.tree.map.
#
# Bodies return what a judge can read of an object that should be an Affine (its type's name
# and its fields), never the object: probe outputs are plain data.


def _affine(sub, rng, d_in=3, d_out=2):
    return sub.Affine(w=_f32(rng, (d_in, d_out)), b=_f32(rng, (d_out,)))


def _affine_parts(obj):
    return {"type": type(obj).__name__, "w": getattr(obj, "w", None), "b": getattr(obj, "b", None)}


def _try_affine(thunk):
    try:
        obj = thunk()
    except Exception as e:  # noqa: BLE001 - judged: an unregistered class makes JAX raise
        return {"error": type(e).__name__}
    return _affine_parts(obj)


def _gives_an_affine(what):
    def judge(out, ref):
        if out.get("error"):
            return (
                f"{what} raised {out['error']} on Affine inputs: is Affine registered as a pytree "
                "(jax.tree_util.register_dataclass)?"
            )
        if out.get("type") != "Affine":
            return f"{what} gave back a {out.get('type')}, expected an Affine"
        for field in ("w", "b"):
            problem = compare_value(out.get(field), ref[field])
            if problem:
                return f"its field {field} {problem}"
        return None

    return judge


def _leaves_w_then_b(out, ref):
    n = out["n_leaves"]
    if n == 1 and not out["rebuilt_w_then_b"]:
        return (
            "jax.tree.leaves(p) is [p], the object itself: Affine is not registered as a pytree, "
            "so JAX sees one opaque leaf"
        )
    if n != 2:
        return f"jax.tree.leaves(p) has {n} leaves, expected 2: [p.w, p.b]"
    if not out["w_then_b"]:
        return "jax.tree.leaves(p) is not [p.w, p.b]: the leaves must be w, then b"
    if not out["rebuilt_w_then_b"]:
        return "jax.tree.unflatten of an Affine's structure with leaves [w, b] does not give Affine(w=w, b=b)"
    # The leaves themselves: flags alone are constants.
    return compare_outputs(out, ref)


@hidden.probe("q12", "Affine", judge=_leaves_w_then_b)
def leaves_are_w_then_b(sub, rng):
    """jax.tree.leaves of an Affine (3, 2), and jax.tree.unflatten of its structure"""
    import jax

    p = _affine(sub, rng)
    leaves = jax.tree.leaves(p)
    w, b = _f32(rng, (3, 2)), _f32(rng, (2,))
    try:
        rebuilt = jax.tree.unflatten(jax.tree.structure(p), [w, b])
        rebuilt_w_then_b = getattr(rebuilt, "w", None) is w and getattr(rebuilt, "b", None) is b
    except Exception:  # noqa: BLE001 - an unregistered class has one leaf, not two
        rebuilt_w_then_b = False
    return {
        "n_leaves": len(leaves),
        "w_then_b": len(leaves) == 2 and leaves[0] is p.w and leaves[1] is p.b,
        "rebuilt_w_then_b": rebuilt_w_then_b,
        "leaves": [leaf for leaf in leaves if isinstance(leaf, jax.Array)],
    }


@hidden.probe("q12", "Affine", judge=_gives_an_affine("jax.jit of a jax.tree.map"))
def jit_and_tree_map_give_an_affine(sub, rng):
    """jax.jit of a function that doubles every leaf of an Affine (3, 2) with jax.tree.map"""
    import jax

    p = _affine(sub, rng)
    return _try_affine(lambda: jax.jit(lambda p: jax.tree.map(lambda a: 2 * a, p))(p))


@hidden.probe("q12", "Affine", judge=_gives_an_affine("jax.grad"))
def grad_gives_an_affine(sub, rng):
    """jax.grad of a mean squared error with respect to an Affine (3, 2), on a batch of 8"""
    import jax
    import jax.numpy as jnp

    p = _affine(sub, rng)
    x, y = _f32(rng, (8, 3)), _f32(rng, (8, 2))
    return _try_affine(lambda: jax.grad(lambda p: jnp.mean((x @ p.w + p.b - y) ** 2))(p))


@hidden.probe("q12", "sgd_update", judge=_gives_an_affine("sgd_update"))
def sgd_update_matches_reference(sub, rng):
    """on Affine (4, 3) params and gradients with a float lr"""
    params, grads = _affine(sub, rng, 4, 3), _affine(sub, rng, 4, 3)
    lr = float(rng.uniform(0.01, 0.5))
    return _try_affine(lambda: sub.sgd_update(params, grads, lr))


@hidden.probe("q12", "sgd_update", judge=_gives_an_affine("jax.jit(sgd_update)"))
def sgd_update_under_jit(sub, rng):
    """under jax.jit, lr traced, on Affine (2, 5) params and gradients"""
    import jax

    params, grads = _affine(sub, rng, 2, 5), _affine(sub, rng, 2, 5)
    lr = float(rng.uniform(0.01, 0.5))
    return _try_affine(lambda: jax.jit(sub.sgd_update)(params, grads, lr))


def _updates_every_layer(out, ref):
    if out.get("error"):
        return (
            f"raised {out['error']} on a list of Affine layers: jax.tree.map handles any pytree "
            "of parameters, so sgd_update should work unchanged"
        )
    if out.get("type") != "list":
        return f"gave back a {out.get('type')} for a list of Affine layers, expected a list"
    problem = _gives_an_affine("sgd_update")
    for i in range(2):
        layer = {k.split(".", 2)[2]: v for k, v in out.items() if k.startswith(f"layers.{i}.")}
        want = {k.split(".", 2)[2]: v for k, v in ref.items() if k.startswith(f"layers.{i}.")}
        found = problem(layer, want) if layer else "gave back fewer layers than it was given"
        if found:
            return f"layer {i}: {found}"
    return None


@hidden.probe("q12", "sgd_update", judge=_updates_every_layer)
def sgd_update_on_a_list_of_layers(sub, rng):
    """on a list of two Affine layers, (3, 4) and (4, 2), and their gradients"""
    params = [_affine(sub, rng, 3, 4), _affine(sub, rng, 4, 2)]
    grads = [_affine(sub, rng, 3, 4), _affine(sub, rng, 4, 2)]
    lr = float(rng.uniform(0.01, 0.5))
    try:
        new = sub.sgd_update(params, grads, lr)
    except Exception as e:  # noqa: BLE001 - judged: an update written for one Affine raises here
        return {"error": type(e).__name__}
    if not isinstance(new, (list, tuple)):
        return {"type": type(new).__name__}
    return {"type": type(new).__name__, "layers": [_affine_parts(layer) for layer in new]}


# ---------------------------------------------------------------------------------------------
# q13 sqrt_by_scan: q6's iteration with iters static, so that jax.grad works under jit.
#
# Values and gradients are judged against the iteration run in float64 by NumPy, here, from
# the reference run's inputs (never by turning on jax_enable_x64, which would change every
# later program in the process). x0 = a and x0 = 1 give the same iterates from x1 = (a + 1) / 2
# on, and iters >= 1, so either start passes.

SQRT_ITERS = (1, 2, 5, 25)


def _sqrt_inputs(rng, n):
    """``n`` float32 scalars spread over [0.05, 100] (log-uniform): below 1, the start x0 = a
    lies under sqrt(a); above 1, over it."""
    import jax.numpy as jnp

    return [jnp.float32(a) for a in np.exp(rng.uniform(np.log(0.05), np.log(100.0), n))]


def _newton64(a, iters):
    """The iterate after ``iters`` Newton steps from x0 = a, and its derivative d x / d a, in
    float64 (forward mode: x0 = a, dx0 = 1)."""
    a = float(a)
    x, dx = a, 1.0
    for _ in range(iters):
        x, dx = (x + a / x) / 2, (dx + 1 / x - a * dx / x**2) / 2
    return x, dx


def _is_weak(x):
    import jax

    try:
        return bool(jax.typeof(x).weak_type)
    except Exception:  # noqa: BLE001 - not a JAX value: the structure check says what it is
        return False


def _scalar_problem(got, iters):
    if not isinstance(got, PlainArray):
        return f"with iters = {iters}, returned {describe_value(got)}, expected a float32 scalar"
    if got.value.shape != () or got.value.dtype != np.float32:
        return (
            f"with iters = {iters}, returned a {got.value.dtype} array of shape "
            f"{tuple(got.value.shape)}, expected a float32 scalar (shape ())"
        )
    return None


def _off_by_float64(what, rtol, derivative):
    """A judge of outputs ``{what}.iters_K.I`` against the float64 iteration on ``ref["a"][I]``."""

    def judge(out, ref):
        a = np.asarray(ref["a"].value, np.float64)
        for path in ref:
            if not path.startswith(f"{what}."):
                continue
            _, key, i = path.split(".")
            iters = int(key.removeprefix("iters_"))
            got = out.get(path)
            problem = _scalar_problem(got, iters)
            if problem:
                return problem
            value = float(got.value)
            want = _newton64(a[int(i)], iters)[derivative]
            if np.isclose(value, want, rtol=rtol, atol=0):
                continue
            name = "the gradient" if derivative else "the value"
            near = ((iters - 1, "one Newton step short"), (iters + 1, "one Newton step too many"))
            for other, words in near:
                if np.isclose(value, _newton64(a[int(i)], other)[derivative], rtol=rtol, atol=0):
                    return (
                        f"with iters = {iters}, {name} is the float64 reference's after {other} "
                        f"step(s): {words}; run exactly iters steps"
                    )
            return (
                f"with iters = {iters}, {name} is {abs(value / want - 1):.2g} away (relative) from "
                f"a float64 reference, more than {rtol:g}: start from x0 = a and apply "
                "x <- (x + a / x) / 2, iters times"
            )
        return None

    return judge


_values_near_float64 = _off_by_float64("value", 1e-5, derivative=0)
_grads_near_float64 = _off_by_float64("grad", 1e-4, derivative=1)


def _strong_float32_values(out, ref):
    weak = out.get("weakly_typed")
    if isinstance(weak, list) and any(weak):
        return (
            "returns a weakly typed float32 (what a Python float becomes under jit), expected a "
            "float32 scalar that is not weakly typed: compute from a, a float32 array"
        )
    return _values_near_float64(out, ref)


@hidden.probe("q13", "sqrt_by_scan", judge=_strong_float32_values, weight=2)
def matches_float64_under_jit(sub, rng):
    """under jax.jit(sqrt_by_scan, static_argnums=1) with iters = 1, 2, 5 and 25"""
    import jax
    import jax.numpy as jnp

    a_values = _sqrt_inputs(rng, 3)
    f = jax.jit(sub.sqrt_by_scan, static_argnums=1)
    values = {f"iters_{k}": [f(a, k) for a in a_values] for k in SQRT_ITERS}
    return {
        "a": jnp.stack(a_values),
        "value": values,
        "weakly_typed": [_is_weak(v) for vs in values.values() for v in vs],
    }


def _first_line(err):
    lines = str(err).splitlines()
    return f"{type(err).__name__}: {lines[0] if lines else ''}"[:160]


def _grads_or_error(out, ref):
    if out.get("error"):
        if "Reverse-mode differentiation" in out["error"]:
            return (
                f"{out['call']} raised ValueError: reverse mode cannot run a while loop "
                "(lax.while_loop, or a fori_loop with a traced trip count); use lax.scan, iters static"
            )
        return f"{out.get('call', 'jax.grad')} raised {out['error']}"
    return _grads_near_float64(out, ref)


@hidden.probe("q13", "sqrt_by_scan", judge=_grads_or_error, weight=2)
def gradient_matches_float64(sub, rng):
    """jax.grad of it: jitted with iters static, under jit, and directly"""
    import jax
    import jax.numpy as jnp

    a_values = _sqrt_inputs(rng, 3)
    f = sub.sqrt_by_scan
    calls = [
        (
            "jax.grad(jax.jit(sqrt_by_scan, static_argnums=1))",
            jax.grad(jax.jit(f, static_argnums=1)),
            (1, 3, 25),
        ),
        ("jax.jit(jax.grad(sqrt_by_scan), static_argnums=1)", jax.jit(jax.grad(f), static_argnums=1), (4,)),
        ("jax.grad(sqrt_by_scan)", jax.grad(f), (2,)),
    ]
    grads = {}
    for name, g, iters in calls:
        for k in iters:
            try:
                grads[f"iters_{k}"] = [g(a, k) for a in a_values]
            except Exception as e:  # noqa: BLE001 - judged: reverse mode through a while loop raises
                return {"error": _first_line(e), "call": name}
    return {"a": jnp.stack(a_values), "error": "", "call": "", "grad": grads}


def _one_loop_of_fixed_size(out, ref):
    if out["traced_error"]:
        return (
            f"raises {out['traced_error']} when traced with jax.make_jaxpr(sqrt_by_scan, "
            "static_argnums=1); iters is a Python int there"
        )
    if out["ops_3"] != out["ops_30"]:
        return (
            f"its jaxpr grows with iters ({out['ops_3']} operations for iters = 3, "
            f"{out['ops_30']} for iters = 30): the loop is unrolled; use lax.scan"
        )
    if out["loops"] == 0:
        return "its jaxpr holds no loop primitive ('scan' or 'while'): run the steps with lax.scan"
    if out["loops"] > 1:
        return (
            f"its jaxpr holds {out['loops']} loops ('scan' or 'while'), expected exactly one: run "
            "the steps in one lax.scan"
        )
    return None


@hidden.probe("q13", "sqrt_by_scan", judge=_one_loop_of_fixed_size, gate=True)
def jaxpr_holds_one_loop_of_fixed_size(sub, rng):
    """its jaxpr with iters static, for iters = 3 and 30"""
    (a,) = _sqrt_inputs(rng, 1)

    def ops(iters):
        # As jax.make_jaxpr(sqrt_by_scan, static_argnums=1)(a, iters): iters a Python int.
        return primitives(lambda a: sub.sqrt_by_scan(a, iters), a)

    error = raised(ops, 3) or raised(ops, 30)
    ops_3, ops_30 = ([], []) if error else (ops(3), ops(30))
    loops = sum(name in ("scan", "while") for name in ops_3)
    return {"traced_error": error, "loops": loops, "ops_3": len(ops_3), "ops_30": len(ops_30)}


# ---------------------------------------------------------------------------------------------
# q14 solve_in_float64: 64-bit mode on for one computation, arrays and solve inside the block.
#
# The systems are ill-conditioned (condition numbers 1e7 to 1e10): float32 loses every digit
# there, while any float64 method (LU, an inverse, least squares) stays within 1e-6 of the
# reference's solution. After the student's call, the probe reads whether 64-bit mode is still
# on, and switches it off again, so that a flag left on cannot change the probes that follow.

#: Relative distance from the reference's float64 solution that any float64 method meets.
SOLVE_RTOL = 1e-4


def _ill_conditioned(rng, n, log10_cond):
    """A float64 system ``(A, b)``: ``A = Q diag(s) Q^T`` with singular values from 1 down to
    ``10**-log10_cond``, ``b = A @ x`` for a random ``x``."""
    q, _ = np.linalg.qr(rng.standard_normal((n, n)))
    s = np.logspace(0, -log10_cond, n)
    a = (q * s) @ q.T
    return a, a @ rng.standard_normal(n)


def _float64_solution(out, ref):
    for path in sorted(k for k in ref if k.startswith("solution")):
        got, want = out.get(path), ref[path]
        if not isinstance(got, PlainArray):
            return (
                f"returned {describe_value(got)}, expected a float64 array of shape {tuple(want.value.shape)}"
            )
        if got.value.dtype == np.float32:
            return (
                "the solution is float32: jnp.asarray made float32 arrays of the float64 data; "
                "make the arrays and solve inside `with jax.enable_x64(True):`"
            )
        if got.value.shape != want.value.shape or got.value.dtype != want.value.dtype:
            return (
                f"returned a {got.value.dtype} array of shape {tuple(got.value.shape)}, expected "
                f"float64 {tuple(want.value.shape)}"
            )
        g, w = got.value.astype(np.float64), want.value
        off = float(np.linalg.norm(g - w) / np.linalg.norm(w))
        if not off <= SOLVE_RTOL:
            return (
                f"the solution is {off:.2g} away (relative) from a float64 solution: float32 "
                "digits? Solve in float64: the arrays made and solved inside the block"
            )
    return None


@hidden.probe("q14", "solve_in_float64", judge=_float64_solution, weight=2)
def matches_float64_solution(sub, rng):
    """on random ill-conditioned float64 systems, n = 8, condition numbers 1e7 and 1e10"""
    return {f"solution_cond_1e{c}": sub.solve_in_float64(*_ill_conditioned(rng, 8, c)) for c in (10, 7)}


def _mode_off_afterwards(out, ref):
    if out.get("later_dtype") != "float32" or out.get("mode_on") is not False:
        return (
            "64-bit mode was still on after the call (jnp.asarray of float64 data gave "
            f"{out.get('later_dtype')}): jax.config.update changes the whole program; use "
            "`with jax.enable_x64(True):` around the solve only"
        )
    return _float64_solution(out, ref)


@hidden.probe("q14", "solve_in_float64", judge=_mode_off_afterwards)
def mode_off_afterwards(sub, rng):
    """64-bit mode is off again after the call (on a 5 x 5 system, condition number 1e8)"""
    import jax
    import jax.numpy as jnp

    a, b = _ill_conditioned(rng, 5, 8)
    try:
        x = sub.solve_in_float64(a, b)
        later = jnp.asarray(np.ones(2)).dtype.name
        on = bool(jax.config.jax_enable_x64)
    finally:
        jax.config.update("jax_enable_x64", False)  # whatever the call did, off for what follows
    return {"solution": x, "later_dtype": later, "mode_on": on}


#: Solving outside JAX: the question is JAX's 64-bit mode.
NON_JAX_SOLVERS = {"np.linalg", "numpy.linalg", "scipy", "scipy.linalg"}


def _solves_with_jax(out, ref):
    used = out.get("non_jax")
    if isinstance(used, list) and used:
        return f"solves with `{used[0]}`; this question is about JAX in float64: use jnp.linalg.solve"
    return None


@hidden.probe("q14", "solve_in_float64", judge=_solves_with_jax, gate=True)
def solves_with_jax(sub, rng):
    """solves with JAX, not NumPy or SciPy"""
    return {"non_jax": forbidden_names(source_of(sub.solve_in_float64), NON_JAX_SOLVERS)}


# ---------------------------------------------------------------------------------------------
# q15 predict_full_precision: every matrix product at HIGHEST, whatever the program's default.
#
# A CPU computes float32 products alike at every precision, and the grader pins the default to
# "highest", so the precision is read where it is written: the `precision` of every
# dot_general in the jaxpr (nested ones included), traced under a fast default set by the
# probe (a context, which wins over the global pin and over a jax.config.update made while
# tracing). Values are compared too.


def _mlp_params(rng, sizes):
    return [
        {"W": _f32(rng, (m, n), 1 / math.sqrt(m)), "b": _f32(rng, (n,), 0.1)}
        for m, n in zip(sizes, sizes[1:])
    ]


def _weakest_precision(fn, *args):
    """``"full"`` when every dot_general of ``fn`` traced on ``args`` runs at HIGHEST (or the
    F32_F32_F32 algorithm), else how the first other one is written."""
    for eqn in traced_equations(fn, *args):
        if eqn.primitive.name != "dot_general":
            continue
        p = eqn.params.get("precision")
        names = [getattr(q, "name", str(q)) for q in p] if isinstance(p, (list, tuple)) else None
        if names is not None and all(n == "HIGHEST" for n in names):
            continue
        if p is not None and names is None and str(p).endswith("F32_F32_F32"):
            continue
        if p is None:
            return "the program's default (precision=None)"
        return f"precision {'/'.join(names) if names else p}"
    return "full"


def _under_default(default, fn, *args):
    """``fn``'s weakest matrix-product precision and its result, traced and run with the
    program's default matmul precision set to ``default`` (a context: it wins over the global
    pin, and over a jax.config.update made while tracing)."""
    import jax

    with jax.default_matmul_precision(default):
        return {"weakest": _weakest_precision(fn, *args), "y": fn(*args)}


def _full_precision(default):
    def judge(out, ref):
        weakest = out.get("weakest")
        if weakest != "full":
            return (
                f"under a {default} default, a matrix product runs at {weakest}: on a GPU that is "
                "TF32 or bfloat16; give every product precision=jax.lax.Precision.HIGHEST"
            )
        return compare_outputs({"y": out.get("y")}, {"y": ref["y"]})

    return judge


@hidden.probe("q15", "predict_full_precision", judge=_full_precision("bfloat16"), weight=2)
def every_product_highest_under_bfloat16_default(sub, rng):
    """a 3-layer MLP (4 -> 8 -> 8 -> 3) on x (5, 4), traced under a bfloat16 default"""
    params, x = _mlp_params(rng, (4, 8, 8, 3)), _f32(rng, (5, 4))
    return _under_default("bfloat16", sub.predict_full_precision, params, x)


@hidden.probe("q15", "predict_full_precision", judge=_full_precision("tensorfloat32"))
def one_layer_under_jit_and_tensorfloat32_default(sub, rng):
    """one linear layer (6 -> 2) on x (7, 6), under jax.jit and a tensorfloat32 default"""
    import jax

    params, x = _mlp_params(rng, (6, 2)), _f32(rng, (7, 6))
    return _under_default("tensorfloat32", jax.jit(sub.predict_full_precision), params, x)
