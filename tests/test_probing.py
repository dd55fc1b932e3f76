"""The probe API: plain data in and out, judging, gates and the JAX helpers."""

from __future__ import annotations

import json
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from autograder.config import load_course
from autograder.probing import (
    POINTS_GRID,
    RETURNED_NONE,
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
    split_points,
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


def test_points_split_by_weight_and_add_up_exactly() -> None:
    hidden = _probeset()
    assert hidden.points("q1", 3) == {"q1.doubles": 1.0, "q1.no_loops": 0.0, "q1.doubles_zero": 2.0}
    thirds = ProbeSet("t")
    for name in ("a", "b", "c"):
        body = lambda sub, rng: {}  # noqa: E731
        body.__name__ = name
        thirds.probe("q1", "f")(body)
    assert thirds.points("q1", 2) == {"q1.a": 0.75, "q1.b": 0.75, "q1.c": 0.5}


def test_split_points_is_exact_on_the_grid_and_deterministic() -> None:
    rng = np.random.default_rng(0)
    cases = [(t, [1.0] * n) for t in range(1, 41) for n in range(1, 13)]
    for _ in range(500):
        weights = [float(w) for w in rng.choice([0.5, 1, 1.5, 2, 3], rng.integers(1, 10))]
        cases.append((int(rng.integers(1, 101)), weights))
    for total, weights in cases:
        parts = split_points(total, weights)
        assert parts == split_points(total, list(weights)), (total, weights)
        assert len(parts) == len(weights)
        # on the grid, so every sum is exact in floating point, in any order
        assert all((x * POINTS_GRID).is_integer() and x >= 0 for x in parts), (total, weights, parts)
        assert all(len(repr(x).partition(".")[2]) <= 2 for x in parts), parts
        assert sum(parts) == total and sum(reversed(parts)) == total, (total, weights, parts)
        # each part within one grid step of its exact share
        exact = [total * w / sum(weights) for w in weights]
        assert all(abs(x - e) < 1 / POINTS_GRID for x, e in zip(parts, exact, strict=True)), (total, weights)
    assert split_points(8, [1, 1, 1]) == [2.75, 2.75, 2.5]  # ties: the earlier part first
    assert split_points(16, [2, 1]) == [10.75, 5.25]
    with pytest.raises(ValueError, match="not a multiple of 1/4"):
        split_points(2.1, [1, 1])
    assert split_points(2, [1, 0]) == [2.0, 0.0]
    with pytest.raises(ValueError, match="non-negative and not all 0"):
        split_points(2, [1, -1])


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
    assert messages[0].endswith(f": {RETURNED_NONE}")


def test_missing_function_is_named() -> None:
    hidden = _probeset()
    problems = _judge(hidden, {}, REF)
    assert "`double` is not defined" in problems["q1.doubles"]


def test_a_judge_that_cannot_use_a_result_names_what_was_wrong_with_it() -> None:
    """A judge raising on data it did not expect never leaves the student with 'could not
    check': the sentence says what came back instead of what was expected."""
    hidden = ProbeSet("t")

    def by_index(out, ref):  # noqa: ANN001, ANN202 - a judge that assumes an array
        return None if out["y"].value[0] == ref["y"].value[0] else "wrong"

    @hidden.probe("q1", "double", judge=by_index)
    def doubles(sub, rng):  # noqa: ANN001, ANN202
        """on ones (3,)"""
        return {"y": sub.double(np.ones(3, np.float32))}

    probe = hidden.get("q1.doubles")
    ref = {"ok": True, "outputs": {"y": PlainArray(np.full(3, 2.0, np.float32))}}

    def verdict(source: str) -> str | None:
        return judge_probe(probe, decode_run(run_probe(probe, _env(source), 0)), ref)

    assert verdict("def double(x):\n    return x * 2") is None
    assert "returned a float, expected a float32 array of shape (3,)" in verdict(
        "def double(x):\n    return 2.0"
    )
    empty = verdict("import numpy as np\ndef double(x):\n    return np.zeros(0, np.float32)")
    assert "returned a float32 array of shape (0,), expected a float32 array of shape (3,)" in empty
    assert "could not check" not in empty


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


def _reference_benchmark(f, *args, repeats=10):  # noqa: ANN001, ANN202 - the notebook's answer
    import time

    jax.block_until_ready(f(*args))
    start = time.perf_counter()
    for _ in range(repeats):
        jax.block_until_ready(f(*args))
    return (time.perf_counter() - start) / repeats


_Q9_REFERENCE: dict[str, dict] = {}


def _q9_verdicts(benchmark) -> dict[str, str | None]:  # noqa: ANN001
    """Each q9 probe of 04-jit run in this process on ``benchmark`` and judged against the
    reference answer's run: probe name to the judge's sentence (``None``: passed)."""
    from autograder.config import load_course
    from autograder.sandbox.execution import load_probes

    probes = load_probes(load_course().assignment("04-jit").probes_file)
    verdicts = {}
    for p in probes.for_question("q9"):
        if p.name not in _Q9_REFERENCE:
            _Q9_REFERENCE[p.name] = decode_run(run_probe(p, {"benchmark": _reference_benchmark}, 0))
        run = decode_run(run_probe(p, {"benchmark": benchmark}, 0))
        verdicts[p.name] = judge_probe(p, run, _Q9_REFERENCE[p.name])
    return verdicts


def _mutant(name: str):  # noqa: ANN202
    from autograder.config import load_course

    env: dict = {}
    path = load_course().assignment("04-jit").mutants_dir / f"{name}.py"
    exec(compile(path.read_text(), str(path), "exec"), env)  # noqa: S102 - our own test file
    return env["benchmark"]


def _stalled(pause: float):  # noqa: ANN202
    """A stand-in for a loaded machine: ``pause`` seconds lost before and after every call,
    wherever a scheduler could preempt the process (the clock reads included)."""
    import time

    def stall() -> None:
        time.sleep(pause)

    return stall


def test_04_jit_benchmark_judges_hold_under_any_load() -> None:
    """q9 times a simulated device whose results arrive late and whose first call is slow, and
    judges what the benchmark did (results waited for, calls made) and bounds that a correct
    answer meets however slow the machine: a correct benchmark passes and each known-wrong one
    fails, even when every step of it is stalled (the no-block answer once scored full marks
    under load)."""
    import time

    def correct(f, *args, repeats=10, stall=lambda: None):  # noqa: ANN001, ANN202
        jax.block_until_ready(f(*args))
        stall()
        start = time.perf_counter()
        for _ in range(repeats):
            stall()
            jax.block_until_ready(f(*args))
            stall()
        return (time.perf_counter() - start) / repeats

    def no_block(f, *args, repeats=10, stall=lambda: None):  # noqa: ANN001, ANN202
        jax.block_until_ready(f(*args))
        start = time.perf_counter()
        for _ in range(repeats):
            stall()
            f(*args)
            stall()
        return (time.perf_counter() - start) / repeats

    def pipelined(f, *args, repeats=10):  # noqa: ANN001, ANN202 - also right: waits once, for all
        f(*args).block_until_ready()
        start = time.perf_counter()
        outs = [f(*args) for _ in range(repeats)]
        np.asarray(outs[-1])
        return (time.perf_counter() - start) / repeats

    assert _q9_verdicts(correct) == {"waits_for_the_result": None, "excludes_compilation": None}
    assert _q9_verdicts(pipelined) == {"waits_for_the_result": None, "excludes_compilation": None}
    stalled = _q9_verdicts(lambda f, *a, repeats=10: correct(f, *a, repeats=repeats, stall=_stalled(0.02)))
    assert stalled == {"waits_for_the_result": None, "excludes_compilation": None}
    # The dispatch loop stalled so long that the clock says more than a correct answer's.
    slow = _q9_verdicts(lambda f, *a, repeats=10: no_block(f, *a, repeats=repeats, stall=_stalled(0.05)))
    assert "asynchronous dispatch" in slow["waits_for_the_result"]

    expected = {
        "q9_no_block": ("waits_for_the_result", "asynchronous dispatch"),
        "q9_block_after_clock": ("waits_for_the_result", "asynchronous dispatch"),
        "q9_total_time": ("waits_for_the_result", "divide by repeats"),
        "q9_no_warmup": ("excludes_compilation", "includes compilation"),
    }
    for name, (probe, words) in expected.items():
        verdict = _q9_verdicts(_mutant(name))[probe]
        assert verdict is not None and words in verdict, (name, verdict)


def test_04_jit_benchmark_judges_name_a_non_number() -> None:
    verdicts = _q9_verdicts(lambda f, *args, repeats=10: "fast")
    assert all("expected a float number of seconds" in v for v in verdicts.values()), verdicts
    verdicts = _q9_verdicts(lambda f, *args, repeats=10: None)  # the stub's one sentence
    assert all("returned None" in v for v in verdicts.values()), verdicts


def test_04_jit_benchmark_judges_fail_nan_and_constants_that_time_nothing() -> None:
    """A benchmark that waits for every result but returns nan, or one constant, timed nothing:
    no judge passes it (nan once scored 8/8), whatever the constant."""

    def constant(value):  # noqa: ANN001, ANN202
        def benchmark(f, *args, repeats=10):  # noqa: ANN001, ANN202
            for _ in range(repeats + 1):
                jax.block_until_ready(f(*args))
            return value

        return benchmark

    for value in (float("nan"), 0.0, 0.03, 0.1):
        verdicts = _q9_verdicts(constant(value))
        assert all(v is not None for v in verdicts.values()), (value, verdicts)
    nan = _q9_verdicts(constant(float("nan")))
    assert all("positive number" in v for v in nan.values()), nan


#: 03's source gate for q1 imports JAX to know its functions by identity (`_jax_api_used`).
JAX_FREE_TO_JUDGE = [a.id for a in load_course().assignments if a.id != "03-autodiff"]


@pytest.mark.parametrize("aid", [pytest.param(a, marks=pytest.mark.assignment(a)) for a in JAX_FREE_TO_JUDGE])
def test_the_grader_reads_and_gates_without_starting_jax(aid: str, tmp_path: Path) -> None:
    """The grader's own process loads the hidden tests and runs the source gates on the master's
    cells before a submission's sandbox can start; JAX's import (about 0.8 s) kept out of it
    shortens one file's grade by as much, and 05's device count must not be fixed there."""
    import subprocess
    import sys
    import textwrap

    from autograder.config import ROOT

    code = textwrap.dedent(
        f"""
        import sys
        from pathlib import Path
        from autograder.config import load_course
        from autograder.grading.grader import Grader

        course = load_course()
        grader = Grader.for_course(course, course.assignment({aid!r}), Path({str(tmp_path)!r}), seed=7)
        gated = grader.source_results(grader.spec.master_cells, list(grader.questions))
        print(len(gated), sum(p.source for p in grader.probes.probes), "jax" in sys.modules)
        """
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    gated, gates, jax_loaded = done.stdout.split()
    assert gated == gates  # every source gate ran, and none needed JAX
    assert jax_loaded == "False"


def _q11_gate_verdicts(per_example_grads) -> dict[str, str | None]:  # noqa: ANN001
    """03-autodiff's "program does not grow with the batch" probe of q11, run in this process on
    ``per_example_grads`` and judged against the reference's run."""
    from autograder.config import load_course
    from autograder.sandbox.execution import load_probes

    a = load_course().assignment("03-autodiff")
    probes = [p for p in load_probes(a.probes_file).for_question("q11") if p.gate]
    assert probes, "q11 has a gate probe"

    def reference(loss, params, xs, ys):  # noqa: ANN001, ANN202
        return jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))(params, xs, ys)

    verdicts = {}
    for p in probes:
        ref = decode_run(run_probe(p, {"per_example_grads": reference}, 0))
        run = decode_run(run_probe(p, {"per_example_grads": per_example_grads}, 0))
        verdicts[p.name] = judge_probe(p, run, ref)
    return verdicts


@pytest.mark.parametrize("batch_size", [None, 1, 2, 3, 4, 5])
def test_03_q11_lax_map_with_any_batch_size_keeps_the_no_loop_rule(batch_size: int | None) -> None:
    """The notebook says `jax.lax.map` over the examples is fine: with `batch_size`, its last,
    shorter chunk changes the program between batch sizes by at most one chunk, which must not
    read as a program that grows with the batch (issue 38)."""

    def by_map(loss, params, xs, ys):  # noqa: ANN001, ANN202
        return jax.lax.map(lambda xy: jax.grad(loss)(params, *xy), (xs, ys), batch_size=batch_size)

    assert all(v is None for v in _q11_gate_verdicts(by_map).values()), _q11_gate_verdicts(by_map)


@pytest.mark.parametrize("chunk", [1, 2, 4])
def test_03_q11_a_python_loop_over_examples_or_small_chunks_loses_the_rule(chunk: int) -> None:
    def by_loop(loss, params, xs, ys):  # noqa: ANN001, ANN202
        parts = [
            jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))(params, xs[i : i + chunk], ys[i : i + chunk])
            for i in range(0, xs.shape[0], chunk)
        ]
        return jax.tree.map(lambda *leaves: jax.numpy.concatenate(leaves), *parts)

    verdicts = _q11_gate_verdicts(by_loop)
    assert any(v and "grows with the batch" in v for v in verdicts.values()), verdicts
