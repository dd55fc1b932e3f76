"""The probe API: plain data in and out, judging, gates and the JAX helpers."""

from __future__ import annotations

import json

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from autograder.probing import (
    PlainArray,
    ProbeError,
    ProbeSet,
    compare_value,
    count_traces,
    decode_outputs,
    decode_run,
    encode_outputs,
    forbidden_names,
    judge_probe,
    largest_intermediate,
    primitives,
    python_loops,
    run_probe,
    score_question,
    source_of,
)


def roundtrip(outputs: dict) -> dict:
    meta, blobs = encode_outputs(outputs)
    return decode_outputs(json.loads(json.dumps(meta)), blobs)


def test_outputs_roundtrip_as_plain_data() -> None:
    out = roundtrip(
        {
            "a": jnp.arange(3.0),
            "n": 3,
            "s": "x",
            "shape": (2, 3),
            "params": [{"W": np.ones((2, 2), np.float32)}],
            "none": None,
        }
    )
    assert np.array_equal(out["a"].value, [0, 1, 2]) and out["a"].value.dtype == np.float32
    assert out["n"] == 3 and out["s"] == "x" and out["shape"] == [2, 3] and out["none"] is None
    assert out["params.0.W"].value.shape == (2, 2)


def test_typed_keys_are_marked_and_legacy_keys_are_not() -> None:
    out = roundtrip({"typed": jax.random.key(0), "legacy": jax.random.PRNGKey(0)})
    assert out["typed"].key and not out["legacy"].key
    assert np.array_equal(out["typed"].value, out["legacy"].value)
    assert compare_value(out["typed"], out["legacy"]) is not None


class Liar(int):
    def __int__(self) -> int:
        return 99

    def __eq__(self, other: object) -> bool:
        return True

    __hash__ = int.__hash__


def test_scalar_subclasses_cannot_lie() -> None:
    assert roundtrip({"n": Liar(3)})["n"] == 3


@pytest.mark.parametrize("value", [object(), np.array(["a"]), np.array([object()]), {1: 2}])
def test_non_numeric_outputs_are_rejected(value: object) -> None:
    with pytest.raises(ProbeError):
        encode_outputs({"x": value})


def test_decoding_never_unpickles() -> None:
    import io
    import pickle

    buf = io.BytesIO()
    np.save(buf, np.array([object()], dtype=object), allow_pickle=True)
    with pytest.raises(ValueError):
        decode_outputs({"x": {"array": True}}, {"x": buf.getvalue()})
    with pytest.raises(ValueError):
        decode_outputs({"x": {"array": True}}, {"x": pickle.dumps([1])})


def test_float_comparison_uses_the_reference_dtype_tolerance() -> None:
    ref = PlainArray(np.array([1.0, 2.0], np.float32))
    assert compare_value(PlainArray(np.array([1.0, 2.0 + 1e-6], np.float32)), ref) is None
    assert "1 of 2 entries" in compare_value(PlainArray(np.array([1.0, 2.1], np.float32)), ref)
    assert "nan" in compare_value(PlainArray(np.array([1.0, np.nan], np.float32)), ref)
    assert "shape (1, 2)" in compare_value(PlainArray(np.ones((1, 2), np.float32)), ref)
    assert "None" in compare_value(None, ref)


def _probeset() -> ProbeSet:
    hidden = ProbeSet("demo")

    @hidden.probe("q1", "double")
    def doubles(sub, rng):
        """on random x (4,)"""
        return {"y": sub.double(jnp.asarray(rng.standard_normal(4), jnp.float32))}

    def _no_loops(out, ref):
        loops = python_loops(out["source"])
        return f"uses {loops[0]}" if loops else None

    @hidden.probe("q1", "double", judge=_no_loops, gate=True)
    def no_loops(sub, rng):
        """has no loop"""
        return {"source": source_of(sub.double)}

    @hidden.probe("q1", "double", weight=2)
    def doubles_zero(sub, rng):
        """on zeros (3,)"""
        return {"y": sub.double(jnp.zeros(3))}

    return hidden


def _judge(hidden: ProbeSet, student: dict, reference: dict) -> dict[str, str | None]:
    return {
        p.id: judge_probe(p, decode_run(run_probe(p, student, 0)), decode_run(run_probe(p, reference, 0)))
        for p in hidden.probes
    }


def _env(source: str) -> dict:
    import linecache

    linecache.cache["<cell-t>"] = (len(source), None, source.splitlines(True), "<cell-t>")
    env: dict = {"jnp": jnp}
    exec(compile(source, "<cell-t>", "exec"), env)
    return env


REF = _env("def double(x):\n    return 2 * x\n")


def test_points_split_by_weight_and_never_exceed_the_total() -> None:
    hidden = _probeset()
    assert hidden.points("q1", 3) == {"q1.doubles": 1.0, "q1.no_loops": 0.0, "q1.doubles_zero": 2.0}
    thirds = ProbeSet("t")
    for name in ("a", "b", "c"):
        body = lambda sub, rng: {}  # noqa: E731
        body.__name__ = name
        thirds.probe("q1", "f")(body)
    split = thirds.points("q1", 2)
    assert sum(split.values()) <= 2 and round(sum(split.values()), 6) == 2


def test_a_failed_gate_zeroes_the_question_and_comes_first() -> None:
    hidden = _probeset()
    looped = _env("def double(x):\n    return jnp.stack([2 * v for v in x])\n")
    problems = _judge(hidden, looped, REF)
    earned, messages = score_question(hidden.for_question("q1"), hidden.points("q1", 3), problems)
    assert earned == 0 and messages[0].startswith("q1 `double`: has no loop: uses a list comprehension")


def test_partial_credit_without_gates() -> None:
    hidden = _probeset()
    wrong_on_random = _env("def double(x):\n    return x + x * (x > 0)\n")
    problems = _judge(hidden, wrong_on_random, REF)
    earned, _ = score_question(hidden.for_question("q1"), hidden.points("q1", 3), problems)
    assert earned == 2.0


def test_a_stub_scores_nothing_and_is_told_so() -> None:
    hidden = _probeset()
    stub = _env("def double(x):\n    ...\n")
    problems = _judge(hidden, stub, REF)
    earned, messages = score_question(hidden.for_question("q1"), hidden.points("q1", 3), problems)
    assert earned == 0
    assert "returned None (is the function still the stub `...`?)" in messages[0]


def test_missing_function_is_named() -> None:
    hidden = _probeset()
    problems = _judge(hidden, {}, REF)
    assert "`double` is not defined" in problems["q1.doubles"]


def test_source_helpers_see_helpers_and_forbidden_names() -> None:
    env = _env(
        "import jax.numpy as jnp\ndef helper(x, y):\n    return jnp.outer(x, y)\n"
        "def outer(x, y):\n    return helper(x, y)\n"
    )
    src = source_of(env["outer"])
    assert forbidden_names(src, {"jnp.outer", "einsum"}) == ["jnp.outer"]
    assert python_loops("def f(x):\n    while x: pass\n") == ["a while loop"]


def test_count_traces_counts_traces_not_cache_entries() -> None:
    f = jax.jit(lambda x, a: a * jnp.sum(x))
    x = jnp.ones(7)
    assert count_traces(lambda: [f(x, float(a)) for a in range(5)]) == 1
    g = jax.jit(lambda x, a: a * jnp.sum(x), static_argnums=1)
    assert count_traces(lambda: [g(x, float(a)) for a in range(5)]) == 5


def test_jaxpr_helpers_find_loops_and_big_intermediates() -> None:
    def loop(a, n):
        return jax.lax.fori_loop(0, n, lambda i, x: (x + a / x) / 2, a)

    assert "while" in primitives(loop, 2.0, 5)
    n = 100_000
    hessian = lambda x: jax.hessian(lambda z: jnp.sum(z**3))(x)  # noqa: E731
    assert largest_intermediate(hessian, jnp.ones(n)) >= n * n
    assert largest_intermediate(lambda x: jnp.sin(x) * 2, jnp.ones(n)) == n


def test_04_jit_benchmark_judge_holds_under_any_load() -> None:
    """q9's `waits_for_the_result`: a total instead of a mean fails even when the per-call
    timings around the student's call were taken under twice the load (they once let it pass)."""
    from autograder.config import load_course
    from autograder.execution import load_probes

    probe = load_probes(load_course().assignment("04-jit").probes_file).get("q9.waits_for_the_result")
    per_call = 0.007
    slow_windows = [2.5 * per_call, 2.5 * per_call]  # before and after, measured under load

    def verdict(seconds: float) -> str | None:
        return probe.judge(
            {"seconds": seconds, "blocked": slow_windows, "call": 11 * per_call, "repeats": 10}, {}
        )

    assert verdict(per_call) is None
    assert "divide by repeats" in verdict(10 * per_call)
    assert "asynchronous dispatch" in verdict(per_call / 100)


def test_04_jit_compile_judge_survives_a_stalled_call() -> None:
    """q9's `excludes_compilation`: a correct benchmark whose ten calls lost one scheduler time
    slice still passes (the old line, scaled by the 15 us run time, failed it), and a mean
    that counts the compiling first call still fails. Figures measured on a 2-core CPU."""
    from autograder.config import load_course
    from autograder.execution import load_probes

    probe = load_probes(load_course().assignment("04-jit").probes_file).get("q9.excludes_compilation")
    first, run, stall = 0.048, 15e-6, 0.010

    def verdict(seconds: float) -> str | None:
        return probe.judge({"seconds": seconds, "first_call": first, "run": run}, {})

    assert verdict(run) is None
    assert verdict(run + stall / 10) is None
    assert "includes compilation" in verdict((first + 9 * run) / 10)
    assert "includes compilation" in verdict(first / 10 / 2)  # a first call twice as quick
