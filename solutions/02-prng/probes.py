"""Hidden tests of 02-prng, one probe per property of the syllabus.

Keys handed to student functions are typed (`jax.random.key`) unless a probe's name says legacy
(`jax.random.PRNGKey`). Threefry `split`, `fold_in`, `bits` and `uniform` give the same bits on
every backend, so key outputs are compared exactly; `normal` may differ in the last digit, so
normal draws are compared with a small tolerance. Where the syllabus leaves the draw to the
student (dropout masks, permutations, Monte Carlo points) judges check properties, not bits,
enough of them that no constant, zeros or nan passes, and read the inputs from the reference's
outputs (the grader's copy). Where the draw is fixed, a property probe (two calls agree, layers
differ, rows differ) also compares with the reference.

With `jax_threefry_partitionable` on (the default), `split(key, n)[i] == fold_in(key, i)` and
`split(key, 3) == split(key, 10)[:3]`: no probe (or mutant) relies on telling those apart.

JAX is imported inside the functions that make inputs, never at module level: the grader imports
this file to judge, which needs no JAX (about 0.8 s of one file's grade, before its sandbox
can start).
"""

import math

import numpy as np

from autograder.probing import (
    PlainArray,
    ProbeSet,
    compare_outputs,
    describe_value,
    fixed_size_program,
    primitives,
    python_loops,
    run_traced,
    source_of,
    traced_counts,
)

hidden = ProbeSet("02-prng")

# `normal` may differ in the last digit between formulas and backends; a float32 ulp is 1.2e-7.
NORMAL_TOL = {"rtol": 1e-6, "atol": 1e-6}


def _seed(rng):
    return int(rng.integers(0, 2**31 - 1))


def _key(rng):
    import jax

    return jax.random.key(_seed(rng))


def _legacy_key(rng):
    import jax

    return jax.random.PRNGKey(_seed(rng))


class _Wrong(Exception):
    """What a judge found wrong with the student's output; the message is for the student."""


def _array(out, path, what):
    v = out.get(path)
    if not isinstance(v, PlainArray):
        raise _Wrong(f"{what} is {describe_value(v)}, expected an array")
    return v.value


def _judge(check):
    """A judge from ``check(out, ref)``, which may raise :class:`_Wrong` with the message."""

    def judge(out, ref):
        try:
            return check(out, ref)
        except _Wrong as e:
            return str(e)

    return judge


def _then_reference(check, **tol):
    """A judge: ``check``'s property message first, then the comparison with the reference
    (``tol`` overrides its tolerances). Where the syllabus fixes the draw, a property alone is
    never worth points: zeros, a constant or a forged result would have it."""

    @_judge
    def judge(out, ref):
        return check(out, ref) or compare_outputs(out, ref, **tol)

    return judge


def _no_loops(out, ref):
    loops = python_loops(out["source"])
    return f"uses {loops[0]}; vectorise it (rule 4: no Python loops)" if loops else None


# q8, q9: "not a Python loop" is judged on what runs. The function is traced at two batch sizes
# and the random draws in the traced program, nested jaxprs included, are counted: under vmap
# the count does not depend on the batch; a `for`, a comprehension, `map` or recursion repeats
# the draw once per row. Only the keys are traced arguments (every other input is concrete and
# closed over), and they must be: iterating a concrete typed key array inside a trace fails.
DRAW_PRIMITIVES = frozenset({"random_bits", "random_split", "random_fold_in", "threefry2x32"})
BATCHES = (2, 7)


def _draws(call, keys):
    return sum(name in DRAW_PRIMITIVES for name in primitives(call, keys))


def _draw_counts(fn, small, large):
    """``{"draws": [n_small, n_large]}`` for the batches ``small`` and ``large``, each a pair
    ``(call, keys)`` where ``call(keys)`` calls ``fn``; where ``fn`` cannot be traced at all, its
    source decides (:func:`traced_counts`)."""
    return traced_counts("draws", lambda: [_draws(*small), _draws(*large)], fn)


def _traced(call, keys):
    """``call(keys)`` computed by the program JAX traces with the keys traced, as the draw count
    traces it (:func:`autograder.probing.run_traced`): values and rule are judged on one program,
    whatever the function does when it is not traced (asks whether a key is a jax.core.Tracer,
    reads jax.core.trace_ctx, tries a NumPy conversion a tracer refuses). A function that cannot
    be traced at all is called as it is (its loop rule is then judged on its source)."""
    try:
        return run_traced(call, keys)
    except Exception:  # noqa: BLE001 - a student function may raise anything while traced
        return call(keys)


_draws_fixed = fixed_size_program(
    "draws",
    len(BATCHES),
    untraced=(
        "jax.make_jaxpr cannot trace it ({error}) and it uses {loop}; use jax.vmap (rule 4: no Python loops)"
    ),
    unreadable="could not count the random draws of the traced program",
    empty="the traced program makes no random draw; is the function body filled in?",
    grows=lambda draws: (
        f"{draws[0]} random draws at batch {BATCHES[0]} but {draws[1]} at batch {BATCHES[1]}: a "
        "draw per row is a Python loop (for, comprehension, map or recursion); use jax.vmap "
        "(rule 4)"
    ),
)


# ---------------------------------------------------------------------------------------------
# q1: lcg


def _lcg(sub, state, n, **consts):
    new_state, samples = sub.lcg(state, n, **consts)
    # An array, not a Python int: a mismatch then reports a count, never the hidden value.
    return {"new_state": np.asarray(int(new_state)), "samples": np.asarray(samples)}


@hidden.probe("q1", "lcg")
def default_constants(sub, rng):
    """with the default a, c and m = 2**32, from a random state, after an unrelated call"""
    # The unrelated call first: a generator that keeps hidden state must fail here whether or
    # not something (a public test, otter's own check) called it before, so scores never
    # depend on what ran earlier.
    sub.lcg(int(rng.integers(0, 2**32)), 3)
    return _lcg(sub, int(rng.integers(0, 2**32)), 12)


@hidden.probe("q1", "lcg")
def modulus_2_32_large_numbers(sub, rng):
    """with m = 2**32, a multiplier and a state near 2**32 (a * x needs 64 bits)"""
    a = 2**32 - 4 * int(rng.integers(1, 1000)) + 1
    c = 2 * int(rng.integers(0, 2**30)) + 1
    state = 2**32 - int(rng.integers(1, 1000))
    return _lcg(sub, state, 10, a=a, c=c, m=2**32)


@hidden.probe("q1", "lcg")
def prime_modulus_near_2_32(sub, rng):
    """with the prime m = 2**32 - 5, a multiplier and a state near m (a * x passes 2**63)"""
    m = 2**32 - 5
    a, state = m - int(rng.integers(1, 1000)), m - int(rng.integers(1, 1000))
    return _lcg(sub, state, 10, a=a, c=int(rng.integers(0, m)), m=m)


@hidden.probe("q1", "lcg")
def modulus_2_31_minus_1(sub, rng):
    """with m = 2**31 - 1, a modulus that is not a power of 2 (uint32 arithmetic wraps wrongly)"""
    state = int(rng.integers(1, 2**31 - 1))
    return _lcg(sub, state, 10, a=48271, c=int(rng.integers(0, 1000)), m=2**31 - 1)


@hidden.probe("q1", "lcg")
def small_modulus(sub, rng):
    """with a small modulus m = 16, over more draws than the period"""
    return _lcg(sub, int(rng.integers(0, 16)), 40, a=5, c=3, m=16)


@hidden.probe("q1", "lcg")
def modulus_61_bits(sub, rng):
    """with the 61-bit modulus m = 2**61 - 1 (exact only with Python ints)"""
    m = 2**61 - 1
    a = int(rng.integers(2**40, 2**60))
    return _lcg(sub, int(rng.integers(1, 2**60)), 8, a=a, c=int(rng.integers(0, 2**40)), m=m)


@hidden.probe("q1", "lcg")
def samples_uint32(sub, rng):
    """samples are a uint32 array of shape (n,) when m <= 2**32"""
    out = {}
    for name, consts in [
        ("default", {}),
        ("m_2_31_minus_1", {"a": 48271, "c": 0, "m": 2**31 - 1}),
        ("m_16", {"a": 5, "c": 3, "m": 16}),
    ]:
        drawn = np.asarray(sub.lcg(int(rng.integers(1, 16)), 7, **consts)[1])
        # The samples too, compared with the reference's: a dtype and a shape alone are constants.
        out[name] = {"dtype": str(drawn.dtype), "shape": list(drawn.shape), "samples": drawn}
    return out


@_judge
def _continues_stream(out, ref):
    for m in ("default", "m_2_31_minus_1"):
        first = _array(out, f"{m}.first", "samples").tolist()
        second = _array(out, f"{m}.second", "samples").tolist()
        whole = _array(out, f"{m}.whole", "samples").tolist()
        if out[f"{m}.new_state"] != first[-1]:
            return "new_state is not the last sample x_n"
        if first + second != whole:
            return (
                "lcg(new_state, k) does not continue the stream: n numbers and then k more "
                "differ from n + k numbers drawn at once"
            )
    return None


@hidden.probe("q1", "lcg", judge=_then_reference(_continues_stream))
def continues_stream(sub, rng):
    """lcg(new_state, k) continues lcg(state, n): together they equal lcg(state, n + k)"""
    out = {}
    for name, consts in [("default", {}), ("m_2_31_minus_1", {"a": 48271, "c": 0, "m": 2**31 - 1})]:
        state = int(rng.integers(1, 2**31 - 1))
        new_state, first = sub.lcg(state, 6, **consts)
        _, second = sub.lcg(new_state, 9, **consts)  # the student's own new_state, as returned
        _, whole = sub.lcg(state, 15, **consts)
        out[name] = {
            "new_state": int(new_state),
            "first": np.asarray(first),
            "second": np.asarray(second),
            "whole": np.asarray(whole),
        }
    return out


@_judge
def _same_twice(out, ref):
    a, b = _array(out, "first", "samples"), _array(out, "second", "samples")
    if a.shape != b.shape or not np.array_equal(a, b) or out["first_state"] != out["second_state"]:
        return (
            "two calls with the same state gave different numbers; the state argument must be "
            "the generator's only state (no global state)"
        )
    return None


@hidden.probe("q1", "lcg", judge=_then_reference(_same_twice))
def same_state_same_numbers(sub, rng):
    """two calls with the same state give the same numbers"""
    state = int(rng.integers(0, 2**32))
    s1, first = sub.lcg(state, 8)
    s2, second = sub.lcg(state, 8)
    return {
        "first_state": int(s1),
        "first": np.asarray(first),
        "second_state": int(s2),
        "second": np.asarray(second),
    }


# ---------------------------------------------------------------------------------------------
# q2: split_keys


@hidden.probe("q2", "split_keys")
def typed_key(sub, rng):
    """on a typed key, n = 5"""
    new_key, subkeys = sub.split_keys(_key(rng), 5)
    return {"new_key": new_key, "subkeys": subkeys}


@hidden.probe("q2", "split_keys")
def legacy_key_split(sub, rng):
    """on a legacy PRNGKey array, n = 4"""
    new_key, subkeys = sub.split_keys(_legacy_key(rng), 4)
    return {"new_key": new_key, "subkeys": subkeys}


@hidden.probe("q2", "split_keys")
def one_subkey(sub, rng):
    """with n = 1 (subkeys is still a stacked key array, shape (1,))"""
    new_key, subkeys = sub.split_keys(_key(rng), 1)
    return {"new_key": new_key, "subkeys": subkeys}


def _not_the_input(out, ref):
    given = _array(ref, "key", "the input key")
    new_key = _array(out, "new_key", "new_key")
    subkeys = _array(out, "subkeys", "subkeys")
    if new_key.shape == given.shape and np.array_equal(new_key, given):
        return "new_key is the input key; return a fresh key, the caller will use it again"
    if subkeys.ndim == given.ndim + 1 and any(np.array_equal(k, given) for k in subkeys):
        return "one of the subkeys is the input key; every returned key must be new"
    return None


@hidden.probe("q2", "split_keys", judge=_then_reference(_not_the_input))
def never_returns_input_key(sub, rng):
    """never returns the input key"""
    key = _key(rng)
    new_key, subkeys = sub.split_keys(key, 3)
    return {"key": key, "new_key": new_key, "subkeys": subkeys}


# ---------------------------------------------------------------------------------------------
# q3: init_mlp


@hidden.probe("q3", "init_mlp", **NORMAL_TOL)
def layers_match_reference(sub, rng):
    """on a typed key and sizes of 4 layers, layer keys split(key, L + 1)[1:]"""
    return {"params": sub.init_mlp(_key(rng), [5, 16, 16, 7, 3])}


@hidden.probe("q3", "init_mlp", **NORMAL_TOL)
def legacy_key_matches_reference(sub, rng):
    """on a legacy PRNGKey array"""
    return {"params": sub.init_mlp(_legacy_key(rng), [6, 4, 2])}


def _weights(out, n_layers):
    return [_array(out, f"params.{i}.W", f"layer {i}'s W") for i in range(n_layers)]


def _layers_differ(out, ref):
    Ws = _weights(out, 3)
    for i in range(3):
        for j in range(i + 1, 3):
            if Ws[i].shape == Ws[j].shape and np.array_equal(Ws[i], Ws[j]):
                return (
                    f"layers {i} and {j} have the same shape and identical W; give every layer its own subkey"
                )
    return None


@hidden.probe("q3", "init_mlp", judge=_then_reference(_layers_differ, **NORMAL_TOL))
def equal_shapes_differ(sub, rng):
    """layers of equal shape get different weights (sizes [8, 8, 8, 8])"""
    return {"params": sub.init_mlp(_key(rng), [8, 8, 8, 8])}


def _he_scale(out, ref):
    for i, (n_in, W) in enumerate(zip(ref["sizes"][:-1], _weights(out, 2))):
        want = math.sqrt(2 / n_in)
        got = float(np.std(W))
        if not abs(got - want) <= 0.05 * want or abs(float(np.mean(W))) > 0.05 * want:
            return (
                f"layer {i} (n_in = {n_in}): W has mean {float(np.mean(W)):.3g} and std "
                f"{got:.3g}; He init draws from a normal with mean 0 and std sqrt(2 / n_in) "
                f"= {want:.3g}"
            )
    return None


@hidden.probe("q3", "init_mlp", judge=_then_reference(_he_scale, **NORMAL_TOL))
def he_standard_deviation(sub, rng):
    """W has mean 0 and standard deviation sqrt(2 / n_in) (two large layers)"""
    sizes = [256, 128, 64]
    return {"sizes": sizes, "params": sub.init_mlp(_key(rng), sizes)}


def _zero_bias_float32(out, ref):
    for i in range(2):
        W = _array(out, f"params.{i}.W", f"layer {i}'s W")
        b = _array(out, f"params.{i}.b", f"layer {i}'s b")
        if W.dtype != np.float32 or b.dtype != np.float32:
            return f"layer {i}: W is {W.dtype} and b is {b.dtype}; both should be float32"
        want = tuple(ref["sizes"][i + 1 : i + 2])
        if b.shape != want or np.any(b != 0):
            return f"layer {i}: b should be zeros of shape {want}, got shape {b.shape}"
    return None


@hidden.probe("q3", "init_mlp", judge=_then_reference(_zero_bias_float32, **NORMAL_TOL))
def zero_bias_float32(sub, rng):
    """b is zeros of shape (n_out,), W and b are float32"""
    sizes = [3, 9, 4]
    return {"sizes": sizes, "params": sub.init_mlp(_key(rng), sizes)}


# ---------------------------------------------------------------------------------------------
# q4: dropout


def _nonzero_input(rng, shape):
    """float32 values with |x| in [0.5, 2): never 0, so a dropped entry is visible as 0."""
    import jax.numpy as jnp

    magnitude = rng.uniform(0.5, 2.0, shape)
    return jnp.asarray(np.where(rng.random(shape) < 0.5, -magnitude, magnitude), jnp.float32)


def _check_inverted(out, x, rate, name):
    """Properties of inverted dropout of ``x`` at ``rate`` in output ``name``."""
    got = _array(out, name, "the output")
    if got.shape != x.shape:
        return f"the output has shape {got.shape}, expected x's shape {x.shape}"
    if got.dtype != x.dtype:
        return f"the output has dtype {got.dtype}, expected x's dtype {x.dtype}"
    if np.isnan(got).any():
        return "the output has nan entries"
    kept = got != 0
    scaled = x / np.float32(1 - rate)
    if not np.allclose(got[kept], scaled[kept], rtol=1e-6, atol=0):
        unscaled = np.allclose(got[kept], x[kept], rtol=1e-6, atol=0)
        return (
            "kept entries equal x but should be x / (1 - rate) (inverted dropout)"
            if unscaled
            else "kept entries are not x / (1 - rate); dropped entries should be exactly 0"
        )
    frac, p = kept.mean(), 1 - rate
    if abs(frac - p) > 5 * math.sqrt(p * (1 - p) / x.size):
        return (
            f"kept a fraction {frac:.3f} of the entries at rate {rate}; each entry should be "
            f"kept with probability 1 - rate = {p:.3f}"
        )
    return None


@_judge
def _inverted(out, ref):
    # x and rate as the grader made them (the reference run's copy), never as the result says.
    return _check_inverted(out, _array(ref, "x", "x"), ref["rate"], "out")


@hidden.probe("q4", "dropout", judge=_inverted)
def inverted_dropout(sub, rng):
    """on x (200, 500): kept entries are x / (1 - rate), dropped are 0, about 1 - rate kept"""
    x, rate = _nonzero_input(rng, (200, 500)), 0.3
    return {"x": x, "rate": rate, "out": sub.dropout(_key(rng), x, rate)}


@hidden.probe("q4", "dropout", judge=_inverted)
def legacy_key_dropout(sub, rng):
    """on a legacy PRNGKey array, x (100, 300)"""
    x, rate = _nonzero_input(rng, (100, 300)), 0.6
    return {"x": x, "rate": rate, "out": sub.dropout(_legacy_key(rng), x, rate)}


@_judge
def _per_element(out, ref):
    problem = _check_inverted(out, _array(ref, "x", "x"), ref["rate"], "out")
    if problem:
        return problem
    mask = _array(out, "out", "the output") != 0
    if mask.ndim != 2:
        return f"the output has shape {mask.shape}, expected x's shape"
    if (mask == mask[:1]).all():
        return "every row has the same mask; draw one Bernoulli per element of x"
    if (mask == mask[:, :1]).all():
        return "every column has the same mask; draw one Bernoulli per element of x"
    return None


@hidden.probe("q4", "dropout", judge=_per_element)
def mask_per_element(sub, rng):
    """the mask is drawn per element: it varies along every axis of x (64, 256)"""
    x = _nonzero_input(rng, (64, 256))
    return {"x": x, "rate": 0.5, "out": sub.dropout(_key(rng), x, 0.5)}


@_judge
def _all_zeros(out, ref):
    got = _array(out, "out", "the output")
    if got.shape != tuple(ref["shape"]):
        return f"the output has shape {got.shape}, expected x's shape {tuple(ref['shape'])}"
    if np.isnan(got).any():
        return "the output has nan entries; at rate 1 every entry is dropped, to exactly 0"
    if np.any(got != 0):
        return "at rate 1 every entry should be dropped, but some are not 0"
    # The same x at another rate: an answer that always returns zeros does not pass.
    return _check_inverted(out, _array(ref, "x", "x"), ref["rate"], "other_rate")


@hidden.probe("q4", "dropout", judge=_all_zeros)
def rate_one_gives_zeros(sub, rng):
    """with rate = 1 returns zeros shaped like x, without nan (and not at rate 0.3)"""
    x = _nonzero_input(rng, (30, 40))
    key = _key(rng)
    return {
        "shape": list(x.shape),
        "out": sub.dropout(key, x, 1.0),
        "x": x,
        "rate": 0.3,
        "other_rate": sub.dropout(key, x, 0.3),
    }


def _returns_x(reason):
    @_judge
    def judge(out, ref):
        x, got = _array(ref, "x", "x"), _array(out, "out", "the output")
        if got.shape != x.shape or got.dtype != x.dtype or not np.array_equal(got, x):
            return f"{reason} should return x unchanged"
        return None

    return judge


@hidden.probe("q4", "dropout", judge=_returns_x("deterministic=True"))
def deterministic_returns_x(sub, rng):
    """with deterministic=True returns x unchanged"""
    x = _nonzero_input(rng, (30, 40))
    return {"x": x, "out": sub.dropout(_key(rng), x, 0.5, deterministic=True)}


@hidden.probe("q4", "dropout", judge=_returns_x("rate = 0"))
def rate_zero_returns_x(sub, rng):
    """with rate = 0 returns x unchanged"""
    x = _nonzero_input(rng, (30, 40))
    return {"x": x, "out": sub.dropout(_key(rng), x, 0.0)}


@_judge
def _same_mask(out, ref):
    a, b = _array(out, "first", "the output"), _array(out, "second", "the output")
    if a.shape != b.shape or not np.array_equal(a, b):
        return "two calls with the same key gave different outputs; the mask must come from the key"
    return _check_inverted(out, _array(ref, "x", "x"), ref["rate"], "first")


@hidden.probe("q4", "dropout", judge=_same_mask)
def same_key_same_mask(sub, rng):
    """the same key twice gives the same output"""
    key, x = _key(rng), _nonzero_input(rng, (50, 60))
    return {"x": x, "rate": 0.4, "first": sub.dropout(key, x, 0.4), "second": sub.dropout(key, x, 0.4)}


@_judge
def _different_masks(out, ref):
    a, b = _array(out, "first", "the output"), _array(out, "second", "the output")
    if a.shape == b.shape and np.array_equal(a, b):
        return "two different keys gave the same mask; draw the mask from the key you are given"
    x, rate = _array(ref, "x", "x"), ref["rate"]
    return _check_inverted(out, x, rate, "first") or _check_inverted(out, x, rate, "second")


@hidden.probe("q4", "dropout", judge=_different_masks)
def different_keys_different_masks(sub, rng):
    """two different keys give different masks"""
    import jax

    k1, k2 = jax.random.split(_key(rng))
    x = _nonzero_input(rng, (50, 60))
    return {"x": x, "rate": 0.4, "first": sub.dropout(k1, x, 0.4), "second": sub.dropout(k2, x, 0.4)}


# ---------------------------------------------------------------------------------------------
# q5: shuffle_batches


def _indexed_data(rng, n, features):
    """X (n, *features) random float32 and y = arange(n), so y names each example's row of X."""
    import jax.numpy as jnp

    return (jnp.asarray(rng.standard_normal((n, *features)), jnp.float32), jnp.arange(n, dtype=jnp.int32))


def _batches(out, name=""):
    prefix = f"{name}." if name else ""
    return _array(out, f"{prefix}Xb", "Xb"), _array(out, f"{prefix}yb", "yb")


def _check_pairs(out, ref, n, batch_size, name="", x_path="X"):
    """Xb/yb of ``name``: full batches, each example once, each X row with its own y. X is the
    grader's (``ref``'s copy at ``x_path``), never the one the result carries."""
    X = _array(ref, x_path, "X")
    Xb, yb = _batches(out, name)
    k = n // batch_size
    if yb.shape != (k, batch_size) or Xb.shape != (k, batch_size, *X.shape[1:]):
        return (
            f"for N = {n}, batch_size = {batch_size} returned shapes Xb {Xb.shape}, "
            f"yb {yb.shape}; expected ({k}, {batch_size}, ...)"
        )
    ids = yb.reshape(-1)
    if ids.min() < 0 or ids.max() >= n or len(set(ids.tolist())) != ids.size:
        return "some examples appear more than once in the batches; each kept example appears once"
    if not np.array_equal(Xb.reshape(k * batch_size, -1), X[ids].reshape(k * batch_size, -1)):
        return "X rows and y labels no longer match; shuffle X and y with one permutation"
    return None


_SHAPE_CASES = [("remainder", 103, 10), ("exact", 48, 8)]


@_judge
def _shapes_and_dtypes(out, ref):
    for name, n, bs in _SHAPE_CASES:
        Xb, yb = _batches(out, name)
        if Xb.dtype != np.float32 or yb.dtype != np.int32:
            return (
                f"for N = {n}, batch_size = {bs} returned dtypes Xb {Xb.dtype}, yb {yb.dtype}; "
                "expected X's float32 and y's int32"
            )
        # The batches themselves, against the grader's X: shapes alone are constants.
        problem = _check_pairs(out, ref, n, bs, name, f"{name}.X")
        if problem:
            return problem
    return None


@hidden.probe("q5", "shuffle_batches", judge=_shapes_and_dtypes)
def shapes_and_dtypes(sub, rng):
    """shapes (num_batches, batch_size, ...) and dtypes kept, with and without a remainder"""
    import jax.numpy as jnp

    out = {}
    for name, n, bs in _SHAPE_CASES:
        X = jnp.asarray(rng.standard_normal((n, 2, 3)), jnp.float32)
        Xb, yb = sub.shuffle_batches(_key(rng), X, jnp.arange(n, dtype=jnp.int32), bs)
        out[name] = {"X": X, "Xb": Xb, "yb": yb}
    return out


@hidden.probe("q5", "shuffle_batches", judge=_judge(lambda out, ref: _check_pairs(out, ref, 103, 10)))
def pairs_stay_together(sub, rng):
    """each X row stays with its own y, and each kept example appears once (N = 103)"""
    X, y = _indexed_data(rng, 103, (4,))
    Xb, yb = sub.shuffle_batches(_key(rng), X, y, 10)
    return {"X": X, "Xb": Xb, "yb": yb}


@hidden.probe("q5", "shuffle_batches", judge=_judge(lambda out, ref: _check_pairs(out, ref, 37, 6)))
def legacy_key_batches(sub, rng):
    """on a legacy PRNGKey array: pairs kept together, each example once"""
    X, y = _indexed_data(rng, 37, (3,))
    Xb, yb = sub.shuffle_batches(_legacy_key(rng), X, y, 6)
    return {"X": X, "Xb": Xb, "yb": yb}


@_judge
def _order_from_key(out, ref):
    for name in ("a", "a_again", "b"):
        problem = _check_pairs(out, ref, 64, 8, name)
        if problem:
            return problem
    a, a_again, b = (_batches(out, name)[1].reshape(-1) for name in ("a", "a_again", "b"))
    if a.shape != a_again.shape or not np.array_equal(a, a_again):
        return "the same key gave two different orders; draw the permutation from the key"
    if np.array_equal(a, np.sort(a)):
        return "the examples come out in their original order; shuffle them"
    if a.shape == b.shape and np.array_equal(a, b):
        return "two different keys gave the same order; draw the permutation from the key"
    return None


@hidden.probe("q5", "shuffle_batches", judge=_order_from_key)
def order_comes_from_key(sub, rng):
    """the order is shuffled, the same for the same key and different for different keys"""
    import jax

    X, y = _indexed_data(rng, 64, (2,))
    k1, k2 = jax.random.split(_key(rng))
    out = {"X": X}
    for name, key in [("a", k1), ("a_again", k1), ("b", k2)]:
        Xb, yb = sub.shuffle_batches(key, X, y, 8)
        out[name] = {"Xb": Xb, "yb": yb}
    return out


@_judge
def _covers_all(out, ref):
    n, bs, n_keys = ref["n"], ref["batch_size"], ref["n_keys"]
    seen = set()
    for i in range(n_keys):
        problem = _check_pairs(out, ref, n, bs, f"runs.{i}")
        if problem:
            return problem
        seen |= set(_batches(out, f"runs.{i}")[1].reshape(-1).tolist())
    if len(seen) < n:
        return (
            f"over {n_keys} keys some examples were never kept; shuffle all N examples first, "
            "then drop the remainder"
        )
    return None


@hidden.probe("q5", "shuffle_batches", judge=_covers_all)
def remainder_dropped_after_shuffle(sub, rng):
    """the remainder is dropped after shuffling: over a few keys every example is kept"""
    import jax

    n, bs, n_keys = 13, 5, 12
    X, y = _indexed_data(rng, n, (2,))
    runs = []
    for key in jax.random.split(_key(rng), n_keys):
        Xb, yb = sub.shuffle_batches(key, X, y, bs)
        runs.append({"Xb": Xb, "yb": yb})
    return {"n": n, "batch_size": bs, "n_keys": n_keys, "X": X, "runs": runs}


# ---------------------------------------------------------------------------------------------
# q6: estimate_pi


@hidden.probe("q6", "estimate_pi", judge=_no_loops, gate=True, source=True)
def no_loops_in_estimate_pi(sub, rng):
    """has no Python loop"""
    return {"source": source_of(sub.estimate_pi)}


# The draw is the student's, so no estimate is compared with the reference's. Each probe asks
# for estimates at two numbers of points n and n + 1, and each must be what the docstring says,
# 4 * (points inside) / n: within 5 standard deviations of pi, and n * estimate / 4 a whole
# number (float32 rounds it by under 0.03 at these n). n and n + 1 share no factor, so no
# constant is a valid estimate at both: a result that was not counted from n points fails.


def _estimate_problem(value, n):
    """Why ``value`` (a decoded output) is not an estimate from n points, or None."""
    if not isinstance(value, PlainArray) or value.value.size != 1 or value.value.dtype.kind != "f":
        return f"with n = {n} returned {describe_value(value)}, expected a float32 scalar"
    est = float(value.value.reshape(()))
    p = math.pi / 4
    if not math.isfinite(est) or not abs(est - math.pi) <= 5 * 4 * math.sqrt(p * (1 - p) / n):
        return (
            f"with n = {n} the estimate {est:.4f} is more than 5 standard deviations from pi; "
            "is the point drawn uniformly in the unit square, each coordinate from its own bits?"
        )
    inside = est * n / 4
    if abs(inside - round(inside)) > 0.1:
        return (
            f"with n = {n} the estimate {est:.6f} is not 4 * (points inside) / n for any whole "
            "number of points: count the n points with x**2 + y**2 <= 1"
        )
    return None


def _estimates(*paths_and_ns):
    """A judge: the estimate at each ``(path, n)`` is one from n points."""

    def judge(out, ref):
        for path, n in paths_and_ns:
            problem = _estimate_problem(out.get(path), n)
            if problem:
                return problem
        return None

    return judge


def _float32_scalar(out, ref):
    est = out.get("est")
    if not isinstance(est, PlainArray):
        return f"returned {describe_value(est)}, expected a float32 scalar (a 0-d JAX array)"
    if est.value.shape != () or est.value.dtype != np.float32:
        return (
            f"returned a {est.value.dtype} array of shape {est.value.shape}, expected a float32 "
            "scalar of shape ()"
        )
    return _estimates(("est", 1000), ("est_next", 1001))(out, ref)


@hidden.probe("q6", "estimate_pi", judge=_float32_scalar)
def float32_scalar(sub, rng):
    """returns a float32 scalar, an estimate from n points (n = 1000 and 1001)"""
    key = _key(rng)
    return {"est": sub.estimate_pi(key, 1000), "est_next": sub.estimate_pi(key, 1001)}


@hidden.probe("q6", "estimate_pi", judge=_estimates(("est", 200_000), ("est_next", 200_001)))
def close_to_pi(sub, rng):
    """with n = 200_000 (and 200_001) the estimate is within 5 standard deviations of pi"""
    key = _key(rng)
    return {
        "est": np.asarray(sub.estimate_pi(key, 200_000)),
        "est_next": np.asarray(sub.estimate_pi(key, 200_001)),
    }


@hidden.probe("q6", "estimate_pi", judge=_estimates(("est", 50_000), ("est_next", 50_001)))
def legacy_key_estimate(sub, rng):
    """on a legacy PRNGKey array, within 5 standard deviations of pi (n = 50_000 and 50_001)"""
    key = _legacy_key(rng)
    return {
        "est": np.asarray(sub.estimate_pi(key, 50_000)),
        "est_next": np.asarray(sub.estimate_pi(key, 50_001)),
    }


@_judge
def _same_estimate(out, ref):
    a, b = _array(out, "first", "the estimate"), _array(out, "second", "the estimate")
    if a.shape != b.shape or not np.array_equal(a, b):
        return "the same key gave two different estimates; draw the points from the key"
    return _estimates(("first", 10_000), ("next", 10_001))(out, ref)


@hidden.probe("q6", "estimate_pi", judge=_same_estimate)
def same_key_same_estimate(sub, rng):
    """the same key twice gives the same estimate (n = 10_000, and 10_001 once)"""
    key = _key(rng)
    return {
        "first": np.asarray(sub.estimate_pi(key, 10_000)),
        "second": np.asarray(sub.estimate_pi(key, 10_000)),
        "next": np.asarray(sub.estimate_pi(key, 10_001)),
    }


@_judge
def _estimates_differ(out, ref):
    ests = [_array(out, f"ests.{i}", "the estimate").tolist() for i in range(4)]
    if all(e == ests[0] for e in ests):
        return "four different keys gave the same estimate; draw the points from the key"
    return _estimates(*((f"ests.{i}", 10_000) for i in range(4)), ("next", 10_001))(out, ref)


@hidden.probe("q6", "estimate_pi", judge=_estimates_differ)
def different_keys_different_estimates(sub, rng):
    """different keys give different estimates (n = 10_000, and 10_001 once)"""
    import jax

    keys = jax.random.split(_key(rng), 4)
    return {
        "ests": [np.asarray(sub.estimate_pi(k, 10_000)) for k in keys],
        "next": np.asarray(sub.estimate_pi(keys[0], 10_001)),
    }


# ---------------------------------------------------------------------------------------------
# q7: step_key (fold_in is bit-identical on every backend: exact comparisons)


@hidden.probe("q7", "step_key")
def step_seven(sub, rng):
    """step_key(key, 7) on a typed key"""
    return {"key": sub.step_key(_key(rng), 7)}


@hidden.probe("q7", "step_key")
def many_steps(sub, rng):
    """several steps, small and large, from one base key"""
    key = _key(rng)
    return {"keys": [sub.step_key(key, s) for s in (0, 1, 2, 100, 123_456)]}


@hidden.probe("q7", "step_key")
def legacy_key_step(sub, rng):
    """on a legacy PRNGKey array"""
    return {"key": sub.step_key(_legacy_key(rng), 11)}


@hidden.probe("q7", "step_key")
def under_jit(sub, rng):
    """under jax.jit, with the step a traced integer"""
    import jax
    import jax.numpy as jnp

    fn = jax.jit(sub.step_key)
    key = _key(rng)
    return {"keys": [fn(key, jnp.int32(s)) for s in (3, 250)]}


# ---------------------------------------------------------------------------------------------
# q8: batched_normal


@hidden.probe("q8", "batched_normal", judge=_draws_fixed, gate=True)
def draws_do_not_grow_with_batch(sub, rng):
    """its traced random draws do not grow with the batch (vmap, no Python loop)"""
    key, (small, large) = _key(rng), BATCHES
    return _draw_counts(
        sub.batched_normal,
        (lambda k: sub.batched_normal(k, small, (3,)), key),
        (lambda k: sub.batched_normal(k, large, (3,)), key),
    )


@hidden.probe("q8", "batched_normal", **NORMAL_TOL)
def rows_match_split_keys(sub, rng):
    """batch 6 of shape (3, 4): row i is normal(split(key, batch)[i], shape)"""
    return {"x": _traced(lambda k: sub.batched_normal(k, 6, (3, 4)), _key(rng))}


@hidden.probe("q8", "batched_normal", **NORMAL_TOL)
def scalar_rows(sub, rng):
    """shape () gives an array of shape (batch,)"""
    return {"x": _traced(lambda k: sub.batched_normal(k, 5, ()), _key(rng))}


@hidden.probe("q8", "batched_normal", **NORMAL_TOL)
def legacy_key_rows(sub, rng):
    """on a legacy PRNGKey array"""
    return {"x": _traced(lambda k: sub.batched_normal(k, 4, (7,)), _legacy_key(rng))}


def _rows_differ(out, ref):
    x = _array(out, "x", "the output")
    if x.ndim >= 1 and len(x) > 1 and all(np.array_equal(row, x[0]) for row in x[1:]):
        return "every row is the same; each row needs its own key from split(key, batch)"
    return None


@hidden.probe("q8", "batched_normal", judge=_then_reference(_rows_differ, **NORMAL_TOL))
def rows_differ(sub, rng):
    """rows differ from each other (one key per row)"""
    return {"x": _traced(lambda k: sub.batched_normal(k, 4, (8,)), _key(rng))}


# ---------------------------------------------------------------------------------------------
# q9: noisy_copies


def _noisy_input(rng, shape):
    import jax.numpy as jnp

    return jnp.asarray(rng.standard_normal(shape), jnp.float32)


@hidden.probe("q9", "noisy_copies", judge=_draws_fixed, gate=True)
def noisy_draws_do_not_grow_with_batch(sub, rng):
    """its traced random draws do not grow with the number of keys (vmap, no Python loop)"""
    import jax

    keys = jax.random.split(_key(rng), max(BATCHES))
    x = _noisy_input(rng, (3,))

    def call(k):
        return sub.noisy_copies(k, x, 0.5)

    return _draw_counts(sub.noisy_copies, (call, keys[: BATCHES[0]]), (call, keys[: BATCHES[1]]))


@hidden.probe("q9", "noisy_copies", **NORMAL_TOL)
def typed_keys_rows(sub, rng):
    """5 typed keys, x (3, 4): row i is x + sigma * normal(keys[i], x.shape)"""
    import jax

    keys, x = jax.random.split(_key(rng), 5), _noisy_input(rng, (3, 4))
    return {"out": _traced(lambda k: sub.noisy_copies(k, x, 0.5), keys)}


@hidden.probe("q9", "noisy_copies", **NORMAL_TOL)
def legacy_keys_rows(sub, rng):
    """4 legacy PRNGKey keys stacked as (4, 2), x (6,)"""
    import jax

    keys, x = jax.random.split(_legacy_key(rng), 4), _noisy_input(rng, (6,))
    return {"out": _traced(lambda k: sub.noisy_copies(k, x, 2.0), keys)}


@hidden.probe("q9", "noisy_copies", **NORMAL_TOL)
def scalar_x(sub, rng):
    """a 0-d x gives an array of shape (k,)"""
    import jax

    keys, x = jax.random.split(_key(rng), 6), _noisy_input(rng, ())
    return {"out": _traced(lambda k: sub.noisy_copies(k, x, 0.1), keys)}


@hidden.probe("q9", "noisy_copies", **NORMAL_TOL)
def x_as_long_as_keys(sub, rng):
    """x (3, 5) with 3 keys: x is shared by every row, not mapped over"""
    import jax

    keys, x = jax.random.split(_key(rng), 3), _noisy_input(rng, (3, 5))
    return {"out": _traced(lambda k: sub.noisy_copies(k, x, 1.5), keys)}


def _shapes_float32(out, ref):
    for name in ("vector", "scalar", "cube"):
        got = _array(out, f"{name}.out", "the output")
        want = (ref[f"{name}.k"], *ref[f"{name}.shape"])
        if got.shape != want:
            return (
                f"for {want[0]} keys and x of shape {tuple(want[1:])} returned shape "
                f"{got.shape}, expected {want}"
            )
        if got.dtype != np.float32:
            return f"returned dtype {got.dtype}, expected float32 (x's dtype)"
    return None


@hidden.probe("q9", "noisy_copies", judge=_then_reference(_shapes_float32, **NORMAL_TOL))
def shape_and_float32(sub, rng):
    """shape (k, *x.shape) and dtype float32 for x of 1, 0 and 3 dimensions"""
    import jax

    out = {}
    for name, k, shape in [("vector", 4, (5,)), ("scalar", 3, ()), ("cube", 2, (2, 3, 2))]:
        keys = jax.random.split(_key(rng), k)
        x = _noisy_input(rng, shape)
        out[name] = {
            "k": k,
            "shape": list(shape),
            "out": _traced(lambda ks, x=x: sub.noisy_copies(ks, x, 0.3), keys),
        }
    return out


def _noisy_rows_differ(out, ref):
    got = _array(out, "out", "the output")
    if got.ndim >= 1 and len(got) > 1 and all(np.array_equal(row, got[0]) for row in got[1:]):
        return "every row is the same; row i must use its own key, keys[i]"
    return None


@hidden.probe("q9", "noisy_copies", judge=_then_reference(_noisy_rows_differ, **NORMAL_TOL))
def noisy_rows_differ(sub, rng):
    """rows differ from each other (row i uses keys[i])"""
    import jax

    keys, x = jax.random.split(_key(rng), 4), _noisy_input(rng, (8,))
    return {"out": _traced(lambda k: sub.noisy_copies(k, x, 1.0), keys)}


@_judge
def _sigma_zero(out, ref):
    got, x = _array(out, "out", "the output"), _array(ref, "x", "x")
    if got.shape != (ref["k"], *x.shape) or not np.array_equal(got, np.broadcast_to(x, got.shape)):
        return "with sigma = 0 every row should be x itself: the noise is sigma * normal"
    return None


@hidden.probe("q9", "noisy_copies", judge=_sigma_zero)
def sigma_zero_gives_copies(sub, rng):
    """with sigma = 0 every row equals x"""
    import jax

    keys, x = jax.random.split(_key(rng), 3), _noisy_input(rng, (2, 4))
    return {"k": 3, "x": x, "out": _traced(lambda k: sub.noisy_copies(k, x, 0.0), keys)}
