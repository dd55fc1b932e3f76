"""Hidden tests of 01-broadcasting: one probe per property, on inputs drawn from ``rng``.

Question 1 is property-tested against ``np.broadcast_shapes`` itself (computed by the judge, in
the grader); the other questions are compared with the reference solution. Gates enforce the
notebook's rules: q1 is plain Python; q2-q8 have no Python loop in their source (rule 2) and
call no library function that is the answer (rule 3); q8 goes through ``.at[...]``; q9's loop
rule is judged on what runs (with ``idx`` traced, its jaxpr does not grow with ``idx.size``);
q10 is judged on its values and dtype alone.

JAX is imported inside the functions that make inputs, never at module level: the grader imports
this file to judge, which needs no JAX (about 0.8 s of one file's grade, before its sandbox
can start).
"""

from __future__ import annotations

import json

import numpy as np

from autograder.probing import (
    ProbeSet,
    array,
    compare_outputs,
    compare_value,
    fixed_size_program,
    forbidden_names,
    names_used,
    primitives,
    python_loops,
    raised,
    run_traced,
    source_of,
    traced_counts,
)

hidden = ProbeSet("01-broadcasting")


def _f32(rng: np.random.Generator, shape: tuple[int, ...], scale: float = 1.0, loc: float = 0.0):
    import jax.numpy as jnp

    return jnp.asarray(loc + scale * rng.standard_normal(shape), jnp.float32)


# ---------------------------------------------------------------------------------------------
# Gates shared by several questions: the function's own source, read beside the submission.


def _code(sub, function: str) -> dict:
    fn = getattr(sub, function)
    return {"source": source_of(fn), "module": str(getattr(fn, "__module__", "") or "")}


def _library_function(out: dict) -> str | None:
    """A library function bound to the question's name (``outer = jnp.outer``) has no
    notebook source to inspect, so it cannot pass a gate."""
    package = (out.get("module") or "").split(".")[0]
    if package in {"numpy", "jax", "jaxlib", "scipy"}:
        return f"is {package}'s own function; write it with `def` in the notebook"
    return None


def _loop_gate(question: str, function: str) -> None:
    def no_python_loops(sub, rng):
        """has no Python loop (rule 2)"""
        return _code(sub, function)

    def judge(out, ref):
        loops = python_loops(out["source"])
        if loops:
            return f"uses {loops[0]}; rule 2 asks for whole-array operations and broadcasting"
        return _library_function(out)

    hidden.probe(question, function, judge=judge, gate=True, source=True)(no_python_loops)


def _api_gate(question: str, function: str, names: set[str], why: str) -> None:
    def no_library_answer(sub, rng):
        """calls no library function that is the answer (rule 3)"""
        return _code(sub, function)

    def judge(out, ref):
        used = forbidden_names(out["source"], names)
        if used:
            return f"uses `{used[0]}`, {why}"
        return _library_function(out)

    hidden.probe(question, function, judge=judge, gate=True, source=True)(no_library_answer)


# ---------------------------------------------------------------------------------------------
# q1 broadcast_shape: property tests against np.broadcast_shapes.

_SIZES = [0, 1, 1, 2, 3, 4, 5, 7]  # 1 is drawn twice as often: it is the size that stretches


def _compatible_shapes(rng: np.random.Generator) -> list[tuple[int, ...]]:
    """1 to 4 shapes that broadcast together: each keeps the trailing axes of one target shape
    (0 to 4 axes), with some of its sizes replaced by 1."""
    target = [int(rng.choice(_SIZES)) for _ in range(int(rng.integers(0, 5)))]
    shapes = []
    for _ in range(int(rng.integers(1, 5))):
        ndim = int(rng.integers(0, len(target) + 1))
        shape = target[len(target) - ndim :]
        shapes.append(tuple(1 if rng.random() < 0.3 else n for n in shape))
    return shapes


def _incompatible_shapes(rng: np.random.Generator) -> list[tuple[int, ...]]:
    """2 to 4 shapes, two of which put different sizes (neither of them 1) on one axis."""
    while True:
        shapes = [list(s) for s in _compatible_shapes(rng)]
        if len(shapes) >= 2 and max(len(s) for s in shapes) >= 1:
            break
    a, b = (int(i) for i in rng.choice(len(shapes), size=2, replace=False))
    ndim = max(len(shapes[a]), len(shapes[b]), 1)
    axis = -int(rng.integers(1, ndim + 1))  # counted from the right, as broadcasting does
    for i in (a, b):
        shapes[i] = [1] * (-axis - len(shapes[i])) + shapes[i]  # long enough to have `axis`
    size_a, size_b = (int(n) for n in rng.choice([0, 2, 3, 4, 5, 7], size=2, replace=False))
    shapes[a][axis], shapes[b][axis] = size_a, size_b
    return [tuple(s) for s in shapes]


# The edge cases, written out: no shapes, 0-d shapes, size-0 axes, size-1 axes.
_EDGE_CASES = [
    [],
    [()],
    [(), ()],
    [(5,), ()],
    [(), (1, 1)],
    [(0,)],
    [(0,), (1,)],
    [(1,), (0,)],
    [(0,), ()],
    [(2, 0), (1,)],
    [(0, 3), (1, 1, 3)],
    [(5, 1, 0), (1, 4, 1)],
    [(1, 1), (1,), ()],
    [(3,), (3,), (1, 3)],
    [(4, 1), (3,)],
    [(1, 2, 1, 3), (4, 1)],
]
_INCOMPATIBLE_EDGE_CASES = [
    [(3, 4), (3,)],
    [(0,), (3,)],
    [(3,), (0,)],
    [(2, 1), (8, 4, 3)],
    [(1,), (2,), (3,)],
    [(2, 3), (1, 3), (), (4, 1, 2)],
]


def _outcome(sub, shapes) -> str | None:
    """What ``broadcast_shape(*shapes)`` did, in words: ``"returned (3, 4)"``, ``"raised
    ValueError"`` (a subclass counts), ``"returned a list, not a tuple"``; ``None`` when it
    returned None, which the grader reports in its one sentence for a stub's result."""
    try:
        result = sub.broadcast_shape(*shapes)
    except ValueError:
        return "raised ValueError"
    except Exception as e:  # noqa: BLE001 - reported to the student as what it raised
        return f"raised {type(e).__name__}"
    if result is None:
        return None
    if not isinstance(result, tuple):
        return f"returned a {type(result).__name__}, not a tuple"
    if not all(isinstance(n, (int, np.integer)) and not isinstance(n, bool) for n in result):
        kinds = ", ".join(sorted({type(n).__name__ for n in result}))
        return f"returned a tuple of {kinds}, not of ints"
    return f"returned {tuple(int(n) for n in result)!r}"


def _judge_cases(out, ref, expected) -> str | None:
    """Compare the student's outcome of each case (``ref`` holds the cases the grader asked, in
    their order) with ``expected(shapes)``: one outcome per case, each right. The message says
    how many are wrong and what went wrong in the first, but not its shapes: those are hidden
    inputs."""
    cases = [[tuple(s) for s in shapes] for shapes in json.loads(ref["cases"])]
    outcomes = out.get("outcomes")
    if not isinstance(outcomes, list) or len(outcomes) != len(cases):
        got = f"{len(outcomes)} outcomes" if isinstance(outcomes, list) else "no outcomes"
        return f"gave {got} for {len(cases)} cases"
    wrong = [
        (shapes, got, want)
        for shapes, got in zip(cases, outcomes, strict=True)
        if got != (want := expected(shapes))
    ]
    if not wrong:
        return None
    shapes, got, want = wrong[0]
    return (
        f"wrong in {len(wrong)} of {len(cases)} cases; on the first wrong case ({len(shapes)} "
        f"shape{'s' * (len(shapes) != 1)}) it {got}, expected it to have {want}"
    )


def _numpy_outcome(shapes) -> str:
    """What np.broadcast_shapes does with ``shapes``, in :func:`_outcome`'s words."""
    try:
        return f"returned {np.broadcast_shapes(*shapes)!r}"
    except ValueError:
        return "raised ValueError"


def _matches_numpy(out, ref):
    return _judge_cases(out, ref, _numpy_outcome)


@hidden.probe("q1", "broadcast_shape", judge=_matches_numpy, weight=2)
def matches_numpy_on_random_shapes(sub, rng):
    """on 200 random sets of 1 to 4 compatible shapes, compared with np.broadcast_shapes"""
    cases = [_compatible_shapes(rng) for _ in range(200)]
    return {"cases": json.dumps(cases), "outcomes": [_outcome(sub, c) for c in cases]}


@hidden.probe("q1", "broadcast_shape", judge=_matches_numpy)
def edge_cases(sub, rng):
    """on no shapes, 0-d shapes, size-0 and size-1 axes, compared with np.broadcast_shapes"""
    return {"cases": json.dumps(_EDGE_CASES), "outcomes": [_outcome(sub, c) for c in _EDGE_CASES]}


@hidden.probe("q1", "broadcast_shape", judge=_matches_numpy, weight=2)
def raises_on_incompatible_shapes(sub, rng):
    """on 106 sets of incompatible shapes, which must raise ValueError, mixed with 40 compatible ones"""
    incompatible = _INCOMPATIBLE_EDGE_CASES + [_incompatible_shapes(rng) for _ in range(100)]
    # Compatible sets among them: an answer that always raises does not pass.
    mixed = incompatible + [_compatible_shapes(rng) for _ in range(40)]
    cases = [mixed[i] for i in rng.permutation(len(mixed))]
    return {"cases": json.dumps(cases), "outcomes": [_outcome(sub, c) for c in cases]}


_ARRAY_MODULES = {"np", "numpy", "jnp", "jax", "lax", "importlib", "__import__"}
_ARRAY_HELPERS = {
    "broadcast_shapes",
    "broadcast_to",
    "broadcast_arrays",
    "broadcast",
    "empty",
    "zeros",
    "ones",
    "full",
    "array",
    "asarray",
    "ndarray",
}


def _plain_python(out, ref):
    used = sorted(_ARRAY_MODULES & names_used(out["source"])) + sorted(
        name for name in names_used(out["source"]) if "." in name and name.rsplit(".", 1)[1] in _ARRAY_HELPERS
    )
    if used:
        return (
            f"uses `{used[0]}`; question 1 is plain Python, so that you write the rule "
            "yourself rather than ask NumPy or JAX"
        )
    return _library_function(out)


@hidden.probe("q1", "broadcast_shape", judge=_plain_python, gate=True, source=True)
def plain_python(sub, rng):
    """is plain Python, without NumPy or JAX"""
    return _code(sub, "broadcast_shape")


# ---------------------------------------------------------------------------------------------
# q2 outer


@hidden.probe("q2", "outer")
def matches_reference_on_random_vectors(sub, rng):
    """on random x (5,) and y (3,)"""
    return {"out": sub.outer(_f32(rng, (5,)), _f32(rng, (3,)))}


@hidden.probe("q2", "outer")
def square_and_short_vectors(sub, rng):
    """on x and y of equal length (4,), and on vectors of length 1 and 0"""
    return {
        "on x and y (4,)": sub.outer(_f32(rng, (4,)), _f32(rng, (4,))),
        "on x (1,) and y (6,)": sub.outer(_f32(rng, (1,)), _f32(rng, (6,))),
        "on x (0,) and y (3,)": sub.outer(_f32(rng, (0,)), _f32(rng, (3,))),
    }


_loop_gate("q2", "outer")
_api_gate(
    "q2",
    "outer",
    {"outer", "einsum", "tensordot", "kron"},
    "which builds the grid for you; build it by broadcasting x[:, None] against y[None, :]",
)


# ---------------------------------------------------------------------------------------------
# q3 pairwise_sq_dists
# atol 1e-5: the expanded form ||x||^2 - 2 x.y + ||y||^2 (clipped at 0) is a valid answer and
# loses about 1e-5 to cancellation on unit-scale inputs; the default atol of 1e-6 would fail it.


@hidden.probe("q3", "pairwise_sq_dists", atol=1e-5)
def matches_reference_on_random_points(sub, rng):
    """on random X (7, 3) and Y (5, 3)"""
    return {"D": sub.pairwise_sq_dists(_f32(rng, (7, 3)), _f32(rng, (5, 3)))}


@hidden.probe("q3", "pairwise_sq_dists", atol=1e-5)
def other_shapes(sub, rng):
    """on X (1, 4) and Y (6, 4), and on X (5, 1) and Y (5, 1)"""
    return {
        "on X (1, 4) and Y (6, 4)": sub.pairwise_sq_dists(_f32(rng, (1, 4)), _f32(rng, (6, 4))),
        "on X (5, 1) and Y (5, 1)": sub.pairwise_sq_dists(_f32(rng, (5, 1)), _f32(rng, (5, 1))),
    }


# Far from the origin the expanded form (clipped at 0) loses about 5e-7 of |x|^2 + |y|^2 to
# float32 cancellation (measured); each part is compared with the reference within 2e-6 of the
# typical |x|^2 + |y|^2 of its points: about 260 on distances up to 2e6 (X == Y), and 32 on
# distances up to about 50 (nearby points). Zeros, a constant or a clipped wrong answer fail.
_NEAR_ZERO_ATOL = {
    "same": 2e-6 * 2 * 64 * (1000.0**2 + 100.0**2),
    "close": 2e-6 * 2 * 8 * (1000.0**2 + 1.0),
}
#: The outputs of never_negative in a student's words.
_FAR_CASES = {"same": "on X == Y", "close": "on nearby points"}


def _never_negative(out, ref):
    for path in ("same", "close"):
        if array(out, path).shape != array(ref, path).shape:
            return f"has shape {array(out, path).shape}, expected {array(ref, path).shape}"
        if not np.isfinite(array(out, path)).all():
            return "has nan or inf entries"
        if array(out, path).min() < 0:
            return (
                "some distances are negative, which a squared distance never is; the "
                "expanded formula loses them to cancellation (clip at 0, or subtract first)"
            )
    for path, atol in _NEAR_ZERO_ATOL.items():
        problem = compare_value(out[path], ref[path], rtol=0.0, atol=atol)
        if problem:
            return f"far from the origin, {_FAR_CASES[path]}, the result {problem}"
    return None


@hidden.probe("q3", "pairwise_sq_dists", judge=_never_negative)
def never_negative(sub, rng):
    """on X == Y (32, 64) and on nearby points (32, 8), all far from the origin"""
    X = _f32(rng, (32, 64), scale=100.0, loc=1000.0)
    P = _f32(rng, (32, 8), loc=1000.0)
    Q = P + _f32(rng, (32, 8), scale=1e-3)
    return {"same": sub.pairwise_sq_dists(X, X), "close": sub.pairwise_sq_dists(P, Q)}


_loop_gate("q3", "pairwise_sq_dists")


# ---------------------------------------------------------------------------------------------
# q4 standardize


@hidden.probe("q4", "standardize")
def default_axis(sub, rng):
    """on random X (6, 4) with the default axis=0"""
    return {"Z": sub.standardize(_f32(rng, (6, 4), scale=3.0, loc=5.0))}


@hidden.probe("q4", "standardize")
def rows_of_a_square_matrix(sub, rng):
    """on random X (5, 5) with axis=1, where reducing without keepdims still runs"""
    return {"Z": sub.standardize(_f32(rng, (5, 5), scale=2.0, loc=-1.0), axis=1)}


@hidden.probe("q4", "standardize")
def any_axis_of_a_3d_array(sub, rng):
    """on random X (3, 4, 5) with axis=2 and axis=-2"""
    X = _f32(rng, (3, 4, 5))
    return {"with axis=2": sub.standardize(X, axis=2), "with axis=-2": sub.standardize(X, axis=-2)}


@hidden.probe("q4", "standardize")
def constant_slice_gives_zeros(sub, rng):
    """on X (5, 3) with a constant column, which eps keeps at 0 instead of nan"""
    import jax.numpy as jnp

    X = np.asarray(rng.standard_normal((5, 3)), np.float32)
    X[:, int(rng.integers(3))] = 2.0
    return {"Z": sub.standardize(jnp.asarray(X))}


_loop_gate("q4", "standardize")
_api_gate(
    "q4",
    "standardize",
    {"standardize"},
    "which is the answer; take the mean and std along `axis` with keepdims=True",
)


# ---------------------------------------------------------------------------------------------
# q5 softmax


@hidden.probe("q5", "softmax")
def matches_reference_on_random_scores(sub, rng):
    """on random scores (4, 6) with the default axis=-1"""
    return {"p": sub.softmax(_f32(rng, (4, 6), scale=2.0))}


@hidden.probe("q5", "softmax")
def any_axis(sub, rng):
    """on random scores (3, 4, 5) with axis=0 and axis=-2"""
    x = _f32(rng, (3, 4, 5), scale=2.0)
    return {"with axis=0": sub.softmax(x, axis=0), "with axis=-2": sub.softmax(x, axis=-2)}


def _sums_to_one(out, ref):
    p = array(out, "p")
    if p.shape != array(ref, "p").shape:
        return f"has shape {p.shape}, expected {array(ref, 'p').shape}"
    if not np.isfinite(p).all() or (p < 0).any():
        return "has negative, nan or inf entries"
    sums = p.astype(np.float64).sum(axis=1)
    if not np.allclose(sums, 1.0, rtol=0, atol=1e-5):
        return f"sums along axis 1 range from {sums.min():.6g} to {sums.max():.6g}, not 1"
    return compare_outputs(out, ref)


@hidden.probe("q5", "softmax", judge=_sums_to_one)
def sums_to_one_along_axis(sub, rng):
    """on random scores (4, 7, 3) with axis=1, which must sum to 1 along axis 1"""
    return {"p": sub.softmax(_f32(rng, (4, 7, 3), scale=5.0), axis=1)}


def _stable(out, ref):
    p = array(out, "p")
    if p.shape == array(ref, "p").shape and not np.isfinite(p).all():
        # Which rows failed says why: exp of a raw score near +1000 overflows to inf (inf / inf
        # is nan); near -1000 every exp underflows to 0 (0 / 0 is nan), as it does for a row
        # far below a max taken over the whole array.
        bad = ~np.isfinite(p).all(axis=-1)
        high = array(ref, "x").mean(axis=-1) > 0
        fix = "subtract the max along the axis (keepdims=True) before exp"
        if (bad & high).any() and (bad & ~high).any():
            return (
                "gives nan or inf: exp overflows to inf on the rows around +1000 and underflows "
                f"to 0 on those around -1000 (inf / inf and 0 / 0 are nan); {fix}"
            )
        if (bad & high).any():
            return (
                "gives nan or inf on the rows around +1000: exp overflows float32 to inf above "
                f"about 88, and inf / inf is nan; {fix}"
            )
        return (
            "gives nan or inf on the rows around -1000: there every exp underflows to 0, and "
            f"0 / 0 is nan; {fix}, so that each row's largest exp is 1"
        )
    # Float32 results near ±1000 carry ~1e-4 relative error whatever the stable method. (What
    # compare_outputs(out, ref, rtol=1e-4) checks, without naming the outputs: `x` is the input.)
    if set(out) != set(ref):
        return compare_outputs(out, ref, rtol=1e-4)
    return compare_value(out["x"], ref["x"], rtol=1e-4) or compare_value(out["p"], ref["p"], rtol=1e-4)


@hidden.probe("q5", "softmax", judge=_stable, weight=2)
def stable_for_scores_around_1000(sub, rng):
    """on scores (6, 5) around +1000 in some rows and around -1000 in others"""
    import jax.numpy as jnp

    signs = np.where(rng.random((6, 1)) < 0.5, -1.0, 1.0)
    signs[:2, 0] = [1.0, -1.0]  # both kinds of row, always
    x = jnp.asarray(1000.0 * signs + 3.0 * rng.standard_normal((6, 5)), jnp.float32)
    return {"x": x, "p": sub.softmax(x)}


_loop_gate("q5", "softmax")
_api_gate(
    "q5",
    "softmax",
    {"softmax", "log_softmax"},
    "which is the answer; subtract the max, exponentiate and normalise yourself",
)


# ---------------------------------------------------------------------------------------------
# q6 one_hot


def _labels(rng: np.random.Generator, shape: tuple[int, ...], num_classes: int):
    import jax.numpy as jnp

    return jnp.asarray(rng.integers(0, num_classes, size=shape), jnp.int32)


@hidden.probe("q6", "one_hot")
def vector_of_labels(sub, rng):
    """on 10 random labels of 4 classes"""
    return {"out": sub.one_hot(_labels(rng, (10,), 4), 4)}


@hidden.probe("q6", "one_hot")
def any_leading_shape(sub, rng):
    """on random labels of shape (3, 5) and of shape () (a 0-d array), 6 classes"""
    return {
        "on labels (3, 5)": sub.one_hot(_labels(rng, (3, 5), 6), 6),
        "on 0-d labels": sub.one_hot(_labels(rng, (), 6), 6),
    }


def _float32(out, ref):
    got = array(out, "out")
    if got.dtype != np.float32:
        return f"has dtype {got.dtype}, expected float32 (convert the comparison with .astype)"
    return compare_outputs(out, ref)


@hidden.probe("q6", "one_hot", judge=_float32)
def returns_float32(sub, rng):
    """returns float32"""
    return {"out": sub.one_hot(_labels(rng, (2, 3), 5), 5)}


@hidden.probe("q6", "one_hot")
def out_of_range_labels_give_zeros(sub, rng):
    """on labels (4,) that include -1 and num_classes, which match no class"""
    import jax.numpy as jnp

    labels = rng.integers(0, 5, size=4)
    labels[rng.permutation(4)[:2]] = [-1, 5]
    return {"out": sub.one_hot(jnp.asarray(labels, jnp.int32), 5)}


_loop_gate("q6", "one_hot")
_api_gate(
    "q6",
    "one_hot",
    {"one_hot"},
    "which is the answer; compare labels[..., None] with jnp.arange(num_classes)",
)


# ---------------------------------------------------------------------------------------------
# q7 add_positional


@hidden.probe("q7", "add_positional")
def matches_reference_on_a_random_batch(sub, rng):
    """on random tokens (4, 6, 3) and positions (6, 3)"""
    return {"out": sub.add_positional(_f32(rng, (4, 6, 3)), _f32(rng, (6, 3)))}


@hidden.probe("q7", "add_positional")
def batch_equal_to_time(sub, rng):
    """on random tokens (5, 5, 2) and positions (5, 2), where a wrong axis still runs"""
    return {"out": sub.add_positional(_f32(rng, (5, 5, 2)), _f32(rng, (5, 2)))}


def _raised(out, ref):
    if out["raised"] is not True:
        return "returned a result instead of raising"
    problem = compare_value(out["matching"], ref["matching"])
    if problem:
        return f"with positions of the right length, the result {problem}"
    return None


@hidden.probe("q7", "add_positional", judge=_raised)
def raises_on_mismatched_time(sub, rng):
    """on tokens (3, 4, 2) and positions (5, 2), one step too many: must raise (not on tokens (3, 5, 2))"""
    positions = _f32(rng, (5, 2))
    return {
        "raised": raised(sub.add_positional, _f32(rng, (3, 4, 2)), positions) != "",
        # The same positions on tokens that fit: an answer that always raises does not pass.
        "matching": sub.add_positional(_f32(rng, (3, 5, 2)), positions),
    }


_loop_gate("q7", "add_positional")


# ---------------------------------------------------------------------------------------------
# q8 set_diagonal


@hidden.probe("q8", "set_diagonal")
def vector_on_a_square_matrix(sub, rng):
    """on random M (4, 4) and v (4,)"""
    return {"out": sub.set_diagonal(_f32(rng, (4, 4)), _f32(rng, (4,)))}


@hidden.probe("q8", "set_diagonal")
def vector_on_rectangular_matrices(sub, rng):
    """on random M (6, 3) with v (3,), and M (3, 5) with v (3,)"""
    return {
        "on M (6, 3)": sub.set_diagonal(_f32(rng, (6, 3)), _f32(rng, (3,))),
        "on M (3, 5)": sub.set_diagonal(_f32(rng, (3, 5)), _f32(rng, (3,))),
    }


@hidden.probe("q8", "set_diagonal")
def scalar_v(sub, rng):
    """on random M (3, 5) with a Python float v, and M (4, 2) with a 0-d array v"""
    return {
        "with a Python float v": sub.set_diagonal(_f32(rng, (3, 5)), float(rng.standard_normal())),
        "with a 0-d array v": sub.set_diagonal(_f32(rng, (4, 2)), _f32(rng, ())),
    }


def _new_array(out, ref):
    """What compare_outputs(out, ref) checks, in a student's words: M as it was, then the result."""
    if set(out) != set(ref):
        return compare_outputs(out, ref)
    if compare_value(out["M_changed"], ref["M_changed"]):
        return "changed M in place; leave M as it was and return a new array"
    return compare_value(out["out"], ref["out"])


@hidden.probe("q8", "set_diagonal", judge=_new_array)
def new_array_and_M_unchanged(sub, rng):
    """on random M (4, 3) and v (3,): returns the new array and leaves M as it was"""
    M = _f32(rng, (4, 3))
    before = np.array(M)
    out = sub.set_diagonal(M, _f32(rng, (3,)))
    return {"out": out, "M_changed": bool(not np.array_equal(np.array(M), before))}


def _uses_at(out, ref):
    if "at" not in names_used(out["source"]):
        return "does not use `.at[...]`; this question is about JAX's functional updates"
    used = forbidden_names(out["source"], {"fill_diagonal"})
    if used:
        return f"uses `{used[0]}`, which is the answer; index the diagonal with `.at[i, i]`"
    return _library_function(out)


@hidden.probe("q8", "set_diagonal", judge=_uses_at, gate=True, source=True)
def updates_through_at(sub, rng):
    """returns a new array through `.at[...]` (no jnp.fill_diagonal)"""
    return _code(sub, "set_diagonal")


_loop_gate("q8", "set_diagonal")


# ---------------------------------------------------------------------------------------------
# q9 take_or_fill: x[idx] in range, fill out of range, negative indices from the end.

_INT32_MIN, _INT32_MAX = int(np.iinfo(np.int32).min), int(np.iinfo(np.int32).max)


def _take_case(sub, x, idx, fill) -> dict:
    """One call, with the inputs the judge reads back from the reference's run.

    Its value is computed by the program JAX traces with idx traced (x and fill closed over),
    as the loop rule (program_does_not_grow_with_idx) traces it: values and rule are judged on
    one program, so an answer that takes another path when traced (asks whether idx is a
    jax.core.Tracer, reads jax.core.trace_ctx, tries a NumPy conversion a tracer refuses) is
    judged on the path it takes there. Its value when run as it is comes too ("ran"), to say so.
    A function that cannot be traced at all is run as it is (its loop rule is then judged on
    its source), and both are that value."""

    def run(i):
        return sub.take_or_fill(x, i, fill)

    try:
        traced = run_traced(run, idx)
    except Exception:  # noqa: BLE001 - a student function may raise anything while traced
        ran = run(idx)
        return {"x": x, "idx": idx, "out": ran, "ran": ran}
    try:
        ran = run(idx)
    except Exception as e:  # noqa: BLE001 - judged on the traced program; the message says so
        ran = f"raised {type(e).__name__}"
    return {"x": x, "idx": idx, "out": traced, "ran": ran}


def _cases(ref) -> list[str]:
    """The output paths of every case in ``ref`` (``"on random indices.out"``,
    ``"on every pixel value.3.out"``), each beside its inputs at the same prefix."""
    return [path for path in ref if path == "out" or path.endswith(".out")]


def _runs_otherwise(out, base, got):
    """Why ``got`` (the traced program's value) is not what the function gave when run, or
    ``None`` when they agree (or it was not traced)."""
    if base + "ran" not in out:
        return None
    try:
        ran = array(out, base + "ran")
        same = ran.shape == got.shape and np.array_equal(ran, got, equal_nan=True)
    except Exception:  # noqa: BLE001 - what it gave when run is not an array: not the same
        same = False
    if same:
        return None
    return (
        "gives other values with idx traced than when run as it is: its code takes another path "
        "when JAX traces it (an isinstance check for a tracer, jax.core.trace_ctx, a try around a "
        "conversion a tracer refuses). q9 is judged on the program JAX traces, as its loop rule "
        "is: index the whole array at once, the same way whether traced or not (rule 2)"
    )


def _took_or_filled(out, ref):
    for path in _cases(ref):
        base = path[: -len("out")]
        x, idx, want = array(ref, base + "x"), array(ref, base + "idx").astype(np.int64), array(ref, path)
        got, n = array(out, path), x.shape[0]
        if (
            got.shape != want.shape
            or got.dtype != want.dtype
            or not np.allclose(
                got.astype(np.float64), want.astype(np.float64), rtol=1e-5, atol=1e-6, equal_nan=True
            )
        ):
            otherwise = _runs_otherwise(out, base, got)
            if otherwise:
                return otherwise
        if got.shape != want.shape:
            return f"returned shape {got.shape} for idx of shape {idx.shape}; the result has idx's shape"
        if got.dtype != want.dtype:
            return f"returned {got.dtype}, expected float32 (x's dtype)"
        with np.errstate(invalid="ignore"):
            wrong = ~np.isclose(
                got.astype(np.float64), want.astype(np.float64), rtol=1e-5, atol=1e-6, equal_nan=True
            )
        if not wrong.any():
            continue
        in_range = (idx >= -n) & (idx < n)
        if (wrong & in_range & (idx < 0)).any():
            return (
                "is wrong at negative indices in [-n, 0), which are in range: they count from the "
                "end, as in NumPy (-1 is x[n - 1], -n is x[0])"
            )
        if (wrong & in_range).any():
            return "is wrong at indices in [0, n), which should give x[idx]"
        outside = wrong & ~in_range & (idx != _INT32_MIN)
        if outside.any():
            clamped = x[np.clip(np.where(idx < 0, idx + n, idx), 0, n - 1)]
            if np.array_equal(got[outside], clamped[outside]):
                return (
                    "gives x's first or last element at indices out of range (idx >= n or idx < -n), "
                    "where it should give fill: JAX clamps such an index silently; mask it with "
                    'jnp.where, or use .at[idx].get(mode="fill", fill_value=fill)'
                )
            return "does not give fill at indices out of range (idx >= n or idx < -n)"
        return (
            "is wrong at the smallest int32 index, -2**31, which is out of range: -idx overflows "
            "there (it is -2**31 again); compare idx with -n, not -idx with n"
        )
    return None


def _f32_vector(rng: np.random.Generator, n: int):
    return _f32(rng, (n,), scale=3.0)


@hidden.probe("q9", "take_or_fill", judge=_took_or_filled, weight=2)
def matches_reference_on_random_indices(sub, rng):
    """on random x (7,), indices (3, 5) in [-14, 14) and a random fill"""
    import jax.numpy as jnp

    x = _f32_vector(rng, 7)
    idx = jnp.asarray(rng.integers(-14, 14, size=(3, 5)), jnp.int32)
    return {"on random indices": _take_case(sub, x, idx, float(rng.standard_normal()))}


@hidden.probe("q9", "take_or_fill", judge=_took_or_filled)
def negative_indices_count_from_the_end(sub, rng):
    """on every index in [-n, n) and four just outside it, in random order (n from 3 to 8)"""
    import jax.numpy as jnp

    n = int(rng.integers(3, 9))
    idx = np.concatenate([np.arange(-n, n), [-n - 2, -n - 1, n, n + 1]])
    idx = jnp.asarray(rng.permutation(idx), jnp.int32)
    return {"on every index": _take_case(sub, _f32_vector(rng, n), idx, float(rng.standard_normal()))}


@hidden.probe("q9", "take_or_fill", judge=_took_or_filled)
def int32_extremes(sub, rng):
    """on indices that include the smallest and largest int32 values, next to -n - 1, -n, n - 1 and n"""
    import jax.numpy as jnp

    n = int(rng.integers(4, 9))
    edges = [_INT32_MIN, _INT32_MIN + 1, _INT32_MAX, _INT32_MAX - 1, -n - 1, -n, n - 1, n, 0]
    idx = jnp.asarray(rng.permutation(np.array(edges, np.int64)), jnp.int32)
    return {"on int32 extremes": _take_case(sub, _f32_vector(rng, n), idx, float(rng.standard_normal()))}


@hidden.probe("q9", "take_or_fill", judge=_took_or_filled)
def nan_and_infinite_fills(sub, rng):
    """on random x (5,) and indices (8,) with fill = nan, inf and -inf"""
    import jax.numpy as jnp

    x = _f32_vector(rng, 5)
    idx = np.concatenate([rng.integers(-5, 5, size=4), [-7, -6, 5, 9]])
    idx = jnp.asarray(rng.permutation(idx), jnp.int32)
    return {
        "with fill nan": _take_case(sub, x, idx, float("nan")),
        "with fill inf": _take_case(sub, x, idx, float("inf")),
        "with fill -inf": _take_case(sub, x, idx, float("-inf")),
    }


@hidden.probe("q9", "take_or_fill", judge=_took_or_filled)
def any_shape_of_idx(sub, rng):
    """on 0-d indices (one in range, one not), indices (2, 0), (2, 3, 2), and x of length 1"""
    import jax.numpy as jnp

    x = _f32_vector(rng, 6)
    fill = float(rng.standard_normal())
    i32 = jnp.int32
    return {
        "on a 0-d index in range": _take_case(sub, x, jnp.asarray(-int(rng.integers(1, 7)), i32), fill),
        "on a 0-d index out of range": _take_case(sub, x, jnp.asarray(int(rng.integers(6, 20)), i32), fill),
        "on indices (2, 0)": _take_case(sub, x, jnp.zeros((2, 0), i32), fill),
        "on indices (2, 3, 2)": _take_case(sub, x, jnp.asarray(rng.integers(-9, 9, (2, 3, 2)), i32), fill),
        "on x of length 1": _take_case(sub, _f32_vector(rng, 1), jnp.asarray([-2, -1, 0, 1], i32), fill),
    }


# "No Python loop" is judged on what runs: the function is traced with idx as a traced argument
# (x and fill closed over) for 3 and for 64 indices, and its primitives are counted, nested
# jaxprs included. Indexing the whole array at once gives the same program for both, a few
# operations long; a loop over the indices (for, comprehension, map, recursion) repeats its body
# once per index, so its program grows, or (padded with dead operations so that it does not)
# is far longer than a whole-array program at 64 indices. A function that cannot be traced at
# all (it turns idx into NumPy, say) is judged on its source instead (the grader's own reading of
# the cells), so an answer that is right when run is never failed for being untraceable.
_SIZES_TRACED = (3, 64)
#: The most operations a whole-array program may have, and how many times the reference's.
_MOST_OPS, _TIMES_REFERENCE = 64, 10


_program_fixed = fixed_size_program(
    "ops",
    len(_SIZES_TRACED),
    untraced=(
        "jax.make_jaxpr cannot trace it with idx traced ({error}) and it uses {loop}; index the "
        "whole array at once (rule 2)"
    ),
    unreadable="could not count the operations of its traced program",
    empty=(
        "its traced program has no operations: the function still has the stub's body (`...`) "
        "or returns without computing anything"
    ),
    grows=lambda ops: (
        f"with idx traced, its program has {ops[0]} operations for {_SIZES_TRACED[0]} indices "
        f"but {ops[1]} for {_SIZES_TRACED[1]}: a Python loop runs once per index; index the "
        "whole array at once (rule 2)"
    ),
)


def _does_not_grow(out, ref):
    problem = _program_fixed(out, ref)
    if problem or "untraced" in out:
        return problem
    large = out["ops"][1]
    most = max(_MOST_OPS, _TIMES_REFERENCE * max(ref.get("ops") or [0]))
    if large > most:
        return (
            f"with idx traced, its program has {large} operations for {_SIZES_TRACED[1]} indices, "
            "where indexing the whole array at once takes a few: a Python loop runs once per "
            "index (rule 2)"
        )
    return None


@hidden.probe("q9", "take_or_fill", judge=_does_not_grow, gate=True)
def program_does_not_grow_with_idx(sub, rng):
    """has no Python loop (judged on the program JAX traces with idx traced)"""
    import jax.numpy as jnp

    x = _f32_vector(rng, 5)

    def run(idx):
        return sub.take_or_fill(x, idx, -1.0)

    def counts():
        return [len(primitives(run, jnp.zeros(k, jnp.int32))) for k in _SIZES_TRACED]

    return traced_counts("ops", counts, sub.take_or_fill)


# ---------------------------------------------------------------------------------------------
# q10 brighten: uint8 arithmetic saturated at 0 and 255, not wrapped around.


def _image(rng: np.random.Generator, shape: tuple[int, ...]):
    import jax.numpy as jnp

    return jnp.asarray(rng.integers(0, 256, size=shape), jnp.uint8)


def _brighten_case(sub, img, delta: int) -> dict:
    """One call, with the inputs the judge reads back from the reference's run."""
    return {"img": img, "delta": int(delta), "out": sub.brighten(img, int(delta))}


def _saturated(out, ref):
    for path in _cases(ref):
        base = path[: -len("out")]
        img, delta, want = array(ref, base + "img"), ref[base + "delta"], array(ref, path)
        got = array(out, path)
        if got.shape != want.shape:
            return f"returned shape {got.shape} for an image of shape {img.shape}; keep img's shape"
        if got.dtype != want.dtype:
            return (
                f"returned {got.dtype}, expected uint8: convert back with .astype(jnp.uint8) after clipping"
            )
        wrong = got != want
        if not wrong.any():
            continue
        g, before = got.astype(np.int64), img.astype(np.int64)
        wider = (
            "add in an integer type that holds -255 to 510 (int16 or int32), clip to [0, 255], "
            "then convert to uint8"
        )
        if delta > 0 and (wrong & (g < before)).any():
            return f"brightening wrapped around: some pixels came out darker than they went in; {wider}"
        if delta < 0 and (wrong & (g > before)).any():
            return f"darkening wrapped around: some pixels came out brighter than they went in; {wider}"
        if np.abs(g - want.astype(np.int64))[wrong].max() == 1:
            return (
                f"is 1 off in {int(wrong.sum())} of {wrong.size} pixels: if you compute in floats, "
                "converting to uint8 truncates (254.99997 becomes 254); add in integers, or round first"
            )
        sign = "positive" if delta > 0 else "negative" if delta < 0 else "zero"
        return f"with a {sign} delta, differs from the reference in {int(wrong.sum())} of {wrong.size} pixels"
    return None


@hidden.probe("q10", "brighten", judge=_saturated, weight=2)
def matches_reference_on_a_random_image(sub, rng):
    """on a random image (5, 6, 3) brightened and darkened by random deltas up to 127"""
    img = _image(rng, (5, 6, 3))
    return {
        "brightened by a random delta": _brighten_case(sub, img, int(rng.integers(1, 128))),
        "darkened by a random delta": _brighten_case(sub, img, -int(rng.integers(1, 128))),
    }


@hidden.probe("q10", "brighten", judge=_saturated, weight=2)
def every_pixel_value(sub, rng):
    """on every pixel value 0 to 255, with deltas -255, -1, 0, 1, 255 and 27 random ones"""
    import jax.numpy as jnp

    img = jnp.arange(256, dtype=jnp.uint8).reshape(16, 16)
    deltas = [-255, -1, 0, 1, 255] + [int(d) for d in rng.integers(-255, 256, size=27)]
    return {"on every pixel value": [_brighten_case(sub, img, d) for d in deltas]}


@hidden.probe("q10", "brighten", judge=_saturated)
def any_shape(sub, rng):
    """on a 0-d image, empty images (0,) and (2, 0, 3), and an image (1,)"""
    return {
        "on a 0-d image brightened": _brighten_case(sub, _image(rng, ()), int(rng.integers(1, 256))),
        "on a 0-d image darkened": _brighten_case(sub, _image(rng, ()), -int(rng.integers(1, 256))),
        "on an empty image (0,)": _brighten_case(sub, _image(rng, (0,)), int(rng.integers(-255, 256))),
        "on an empty image (2, 0, 3)": _brighten_case(
            sub, _image(rng, (2, 0, 3)), int(rng.integers(-255, 256))
        ),
        "on an image (1,)": _brighten_case(sub, _image(rng, (1,)), int(rng.integers(-255, 256))),
    }
