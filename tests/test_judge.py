"""The judge alone: hand-made sandbox outcomes in, records out (no sandbox, no JAX run).

The second half feeds the course's own judges (solutions/*/probes.py, loaded but never run)
forged results, as a sandbox that forged its result channel would send them: empty, partial,
miscounted, zeros, constants, nan. None may pass where the reference has a value."""

from __future__ import annotations

import dataclasses
import functools
import json
import math
from typing import Any

import numpy as np
import pytest

from autograder.grading.collect import Submission
from autograder.grading.judge import (
    MAX_SANDBOX_TEXT,
    SANDBOX_TEXT_BUDGET,
    Scoring,
    error_record,
    judge,
    make_record,
)
from autograder.grading.records import grader_failed
from autograder.probing import PlainArray, Probe, ProbeSet, decode_outputs, encode_outputs, judge_probe
from autograder.sandbox.run import RunOutcome

hidden = ProbeSet("demo")


@hidden.probe("q1", "double")
def on_small_vectors(sub: Any, rng: Any) -> dict[str, Any]:
    """doubles a small vector"""
    return {}


@hidden.probe("q1", "double", weight=3)
def on_large_vectors(sub: Any, rng: Any) -> dict[str, Any]:
    """doubles a large vector"""
    return {}


@hidden.probe("q2", "total", gate=True)
def no_loops(sub: Any, rng: Any) -> dict[str, Any]:
    """uses no Python loop"""
    return {}


@hidden.probe("q2", "total")
def sums(sub: Any, rng: Any) -> dict[str, Any]:
    """sums a vector"""
    return {}


QUESTIONS = {"q1": 8.0, "q2": 2.0}
SCORING = Scoring(
    questions=QUESTIONS,
    probes=hidden,
    points={pid: p for q, total in QUESTIONS.items() for pid, p in hidden.points(q, total).items()},
    seed=7,
    memory_mb=512,
    notes=("graded on 1 CPU device",),
)
SUB = Submission(name="ada.ipynb", key="ada", fingerprint="f" * 8, cells=("x = 1",))


def ran(**outputs: Any) -> dict[str, Any]:
    """A probe's outcome as the sandbox's channel delivers it (encoded, then decoded)."""
    return {"ok": True, "outputs": decode_outputs(*encode_outputs(outputs))}


REFERENCE = {
    "q1.on_small_vectors": ran(y=np.arange(3.0) * 2),
    "q1.on_large_vectors": ran(y=np.arange(100.0) * 2),
    "q2.no_loops": ran(loops=0),
    "q2.sums": ran(s=np.float32(6.0)),
}


def right() -> dict[str, dict[str, Any]]:
    return {pid: dict(r) for pid, r in REFERENCE.items()}


def test_all_right_is_full_marks_with_the_batch_notes_and_seed() -> None:
    r = judge(SUB, RunOutcome(results=right()), REFERENCE, SCORING)
    assert (r.status, r.questions, r.total, r.possible) == ("graded", {"q1": 8.0, "q2": 2.0}, 10.0, 10.0)
    assert r.message == "All hidden tests passed."
    assert r.seed == 7 and "graded on 1 CPU device" in r.notes
    assert [t["score"] for t in r.tests] == [2.0, 6.0, 0.0, 2.0]


def test_a_wrong_value_loses_that_probes_share_and_names_it() -> None:
    results = right()
    results["q1.on_large_vectors"] = ran(y=np.arange(100.0))
    r = judge(SUB, RunOutcome(results=results), REFERENCE, SCORING)
    assert r.status == "graded" and r.questions == {"q1": 2.0, "q2": 2.0}
    assert r.message.startswith("Lost points on q1. First problem: q1 `double`: doubles a large vector")


def test_a_failed_gate_zeroes_its_question_though_the_values_are_right() -> None:
    results = right()
    results["q2.no_loops"] = ran(loops=2)
    r = judge(SUB, RunOutcome(results=results), REFERENCE, SCORING)
    assert r.questions["q2"] == 0.0
    assert {t["name"]: t["output"] for t in r.tests}["q2 total: sums"].startswith("passed, but a requirement")


def test_tampering_scores_zero_on_every_question() -> None:
    outcome = RunOutcome(results=right(), tampered=["jax.numpy.allclose was replaced"])
    r = judge(SUB, outcome, REFERENCE, SCORING)
    assert r.status == "tampered" and r.total == 0.0 and "jax.numpy.allclose" in r.message
    assert all(t["output"] == "not graded: status tampered" for t in r.tests)


def test_a_crash_in_a_cell_grades_nothing() -> None:
    r = judge(SUB, RunOutcome(ended="crashed", where="cell 3", detail="SIGSEGV"), REFERENCE, SCORING)
    assert (r.status, r.total) == ("crashed", 0.0)
    assert r.message == "The notebook crashed in cell 3 (SIGSEGV); no question was graded."


def test_a_timeout_in_a_probe_keeps_the_questions_already_graded() -> None:
    results = right()
    del results["q2.sums"]
    outcome = RunOutcome(ended="timeout", where="q2.sums", detail="60 s", results=results)
    r = judge(SUB, outcome, REFERENCE, SCORING)
    assert r.status == "timeout" and r.questions == {"q1": 8.0, "q2": 0.0}
    assert r.message.startswith("Grading stopped at q2.sums: it ran out of time (60 s). Still graded: q1.")


def test_out_of_memory_in_a_probe_is_a_memory_row_and_the_outcome_is_not_changed() -> None:
    results = right()
    results["q1.on_large_vectors"] = {"ok": False, "error": "RESOURCE_EXHAUSTED: Out of memory"}
    outcome = RunOutcome(results=results)
    r = judge(SUB, outcome, REFERENCE, SCORING)
    assert r.status == "memory" and "512 MiB" in r.message
    assert (outcome.ended, outcome.where) == ("ok", "")  # judging is pure


def test_only_the_chosen_questions_are_graded_and_noted() -> None:
    sub = Submission(name="bob.ipynb", key="bob", fingerprint="0" * 8, cells=(), questions=("q2",))
    r = judge(
        sub, RunOutcome(results={k: v for k, v in right().items() if k.startswith("q2")}), REFERENCE, SCORING
    )
    assert r.questions == {"q2": 2.0}
    assert "graded on q2 only" in r.notes


@pytest.mark.parametrize("status", ["invalid", "error"])
def test_an_ungraded_row_lists_every_hidden_test_at_zero(status: str) -> None:
    r = make_record(SCORING, SUB, status, "why", {}, [])
    assert r.status == status and r.total == 0.0 and r.possible == 10.0
    assert [t["max_score"] for t in r.tests] == [2.0, 6.0, 0.0, 2.0]


def test_an_error_row_says_the_grader_failed_and_keeps_the_cause_from_the_student() -> None:
    """Every ``error`` row is made one way: nothing graded, one sentence that clears the student
    (and says whether another try may succeed), the cause for the instructor's log only."""
    r = error_record(
        SCORING, SUB, grader_failed("The grader failed on this submission (OSError)"), fault="disk 3"
    )
    assert (r.status, r.total, r.questions, r.fault) == ("error", 0.0, {"q1": 0.0, "q2": 0.0}, "disk 3")
    assert r.message == (
        "The grader failed on this submission (OSError); it is not the student's fault, "
        "and grading it again may succeed."
    )
    assert [t["max_score"] for t in r.tests] == [2.0, 6.0, 0.0, 2.0]
    assert "disk 3" not in r.to_results()["output"] and r.to_results()["extra_data"]["fault"] == "disk 3"
    once = grader_failed("The grader failed while judging (KeyError: 'x')", again=False)
    assert once == "The grader failed while judging (KeyError: 'x'); it is not the student's fault."
    assert error_record(SCORING, SUB, once).fault == ""


# -------------------------------------------------------------------------------------------------
# Structure, count, shape, dtype and finiteness are checked in the grader, whatever a judge reads.


def _lenient(out: dict[str, Any], ref: dict[str, Any]) -> str | None:
    return None  # a judge that reads nothing: only the grader's own check stands between


lenient = ProbeSet("lenient")
lenient.probe("q1", "f", judge=_lenient)(on_small_vectors)
lenient.probe("q1", "f", judge=_lenient, gate=True)(no_loops)

LENIENT_REF = ran(
    y=np.arange(3.0, dtype=np.float32),
    n=3,
    t=0.25,
    outcomes=["returned (3,)", "raised ValueError", "returned ()"],
    ok=True,
)


def _verdict(probe_id: str, outputs: dict[str, Any], ref: dict[str, Any] = LENIENT_REF) -> str | None:
    return judge_probe(lenient.get(probe_id), {"ok": True, "outputs": outputs}, ref)


def _forged(**changes: Any) -> dict[str, Any]:
    out = dict(LENIENT_REF["outputs"])
    for k, v in changes.items():
        if v is _DROP:
            del out[k]
        else:
            out[k] = v
    return out


_DROP = object()


def test_an_honest_copy_of_the_reference_structure_passes() -> None:
    assert _verdict("q1.on_small_vectors", _forged()) is None
    assert _verdict("q1.on_small_vectors", _forged(y=PlainArray(np.ones(3, np.float32)), t=2)) is None


@pytest.mark.parametrize(
    ("forged", "words"),
    [
        ({}, "returned a different structure"),
        ({"y": _DROP}, "output `y` returned a different structure"),
        ({"extra": 1}, "values where the test expects"),
        ({"outcomes": []}, "holds 0 values, expected 3"),
        ({"outcomes": ["raised ValueError"] * 2}, "holds 2 values, expected 3"),
        ({"outcomes": "raised ValueError"}, "expected a sequence of 3 values"),
        ({"y": PlainArray(np.full(3, np.nan, np.float32))}, "nan or inf"),
        ({"y": PlainArray(np.zeros(2, np.float32))}, "shape (2,)"),
        ({"y": PlainArray(np.zeros(3, np.float64))}, "dtype float64"),
        ({"y": 0.0}, "expected a float32 array"),
        ({"t": math.nan}, "nan or inf"),
        ({"t": "0.25"}, "expected a number"),
        ({"n": 3.0}, "expected an int"),
        ({"ok": 1}, "expected a bool"),
    ],
)
def test_a_forged_result_fails_a_judge_that_reads_nothing(forged: dict[str, Any], words: str) -> None:
    outputs = {} if not forged else _forged(**forged)
    verdict = _verdict("q1.on_small_vectors", outputs)
    assert verdict is not None and words in verdict, verdict


def test_gates_carry_no_points_and_keep_their_own_judges() -> None:
    """A gate decides a requirement, not a value: its judge alone rules (a source check's
    outputs may legitimately differ from the reference's in structure)."""
    assert _verdict("q1.no_loops", {}) is None


def test_a_judge_that_reads_nothing_still_fails_an_ungraded_result() -> None:
    with pytest.raises(RuntimeError):
        judge_probe(
            lenient.get("q1.on_small_vectors"), {"ok": True, "outputs": {}}, {"ok": False, "error": "x"}
        )
    problem = judge_probe(lenient.get("q1.on_small_vectors"), {"ok": False, "error": "raised X"}, LENIENT_REF)
    assert problem is not None and "raised X" in problem


# -------------------------------------------------------------------------------------------------
# The course's judges against forged results (a forged channel can send any plain data).


@functools.cache
def _course_probes(assignment: str) -> ProbeSet:
    from autograder.config import load_course
    from autograder.sandbox.execution import load_probes

    return load_probes(load_course().assignment(assignment).probes_file)


def _course_verdict(
    assignment: str, probe_id: str, outputs: dict[str, Any], ref: dict[str, Any]
) -> str | None:
    probe: Probe = _course_probes(assignment).get(probe_id)
    assert not probe.gate
    return judge_probe(probe, {"ok": True, "outputs": outputs}, {"ok": True, "outputs": ref})


def _a(values: Any, dtype: Any = np.float32) -> PlainArray:
    return PlainArray(np.asarray(values, dtype))


def _q1_cases() -> tuple[list[list[list[int]]], list[str]]:
    """Incompatible and compatible sets of shapes, mixed, with np.broadcast_shapes's outcomes."""
    cases = [[[3, 4], [3]], [[2, 1], [3]], [[0], [3]], [[1, 2], [3, 1]], [[]], [[5, 1, 0], [1, 4, 1]]]
    outcomes = []
    for shapes in cases:
        try:
            outcomes.append(f"returned {np.broadcast_shapes(*map(tuple, shapes))!r}")
        except ValueError:
            outcomes.append("raised ValueError")
    return cases, outcomes


@pytest.mark.parametrize("probe", ["q1.raises_on_incompatible_shapes", "q1.matches_numpy_on_random_shapes"])
def test_01_q1_counts_and_checks_every_case_it_asked(probe: str) -> None:
    cases, outcomes = _q1_cases()
    ref = {"cases": json.dumps(cases), "outcomes": outcomes}
    assert _course_verdict("01-broadcasting", probe, dict(ref), ref) is None
    forged = [
        {"cases": ref["cases"], "outcomes": []},  # the red team's 38/100 began here
        {"cases": ref["cases"], "outcomes": outcomes[:-1]},
        {"cases": ref["cases"], "outcomes": [*outcomes, "raised ValueError"]},
        {"cases": ref["cases"], "outcomes": ["raised ValueError"] * len(outcomes)},  # always raises
        {"cases": json.dumps([]), "outcomes": []},  # its own (empty) cases: the grader's count
        {"outcomes": outcomes},
        {},
    ]
    for out in forged:
        assert _course_verdict("01-broadcasting", probe, out, ref) is not None, out


def test_01_q3_never_negative_compares_values_far_from_the_origin() -> None:
    rng = np.random.default_rng(0)
    same = rng.uniform(1e6, 2e6, (32, 32)).astype(np.float32)
    np.fill_diagonal(same, 0.0)
    close = rng.uniform(0.0, 60.0, (32, 32)).astype(np.float32)
    ref = {"same": _a(same), "close": _a(close)}
    assert _course_verdict("01-broadcasting", "q3.never_negative", dict(ref), ref) is None
    # The expanded formula's float32 rounding at this scale (clipped at 0) is within tolerance.
    rounded = {"same": _a(same + 50.0), "close": _a(np.maximum(close - 2.5, 0.0))}
    assert _course_verdict("01-broadcasting", "q3.never_negative", rounded, ref) is None
    for fill in (0.0, 1.0, float(close.mean()), np.nan):
        out = {"same": _a(np.full_like(same, fill)), "close": _a(np.full_like(close, fill))}
        assert _course_verdict("01-broadcasting", "q3.never_negative", out, ref) is not None, fill
    assert _course_verdict("01-broadcasting", "q3.never_negative", {"same": ref["same"]}, ref) is not None


def test_01_q7_raising_alone_is_not_worth_points() -> None:
    matching = np.arange(30, dtype=np.float32).reshape(3, 5, 2)
    ref = {"raised": True, "matching": _a(matching)}
    assert _course_verdict("01-broadcasting", "q7.raises_on_mismatched_time", dict(ref), ref) is None
    for out in (
        {"raised": True},
        {"raised": True, "matching": _a(np.zeros_like(matching))},
        {"raised": True, "matching": _a(np.full_like(matching, np.nan))},
    ):
        assert _course_verdict("01-broadcasting", "q7.raises_on_mismatched_time", out, ref) is not None


def _estimate(n: int, inside: int) -> PlainArray:
    return _a(np.float32(4 * inside / n))


def test_02_q6_an_estimate_must_be_counted_from_its_points() -> None:
    ref = {"est": _estimate(1000, 785), "est_next": _estimate(1001, 786)}
    assert _course_verdict("02-prng", "q6.float32_scalar", dict(ref), ref) is None
    for c in (math.pi, 3.14, 3.144, float(4 * 785 / 1000), math.nan):
        out = {"est": _a(np.float32(c)), "est_next": _a(np.float32(c))}
        assert _course_verdict("02-prng", "q6.float32_scalar", out, ref) is not None, c


def _q9_ref(fast: float, slow: float, *, compile_: float = 0.0) -> dict[str, Any]:
    """A q9 result of 04-jit as the reference's benchmark gives it on devices taking ``fast`` and
    ``slow`` seconds per call."""
    out: dict[str, Any] = {"repeats": 10}
    for name, run in (("fast", fast), ("slow", slow)):
        out |= {
            f"{name}.seconds": run * 1.02,
            f"{name}.waited_after_first": 10,
            f"{name}.calls": 11,
            f"{name}.call": compile_ + 11 * run * 1.05,
            f"{name}.run": run,
        }
    if compile_:
        out["compile"] = compile_
    return out


@pytest.mark.parametrize(
    ("probe", "ref"),
    [
        ("q9.waits_for_the_result", _q9_ref(0.02, 0.08)),
        ("q9.excludes_compilation", _q9_ref(0.001, 0.04, compile_=0.3)),
    ],
)
def test_04_q9_no_constant_or_nan_passes_a_timing_judge(probe: str, ref: dict[str, Any]) -> None:
    assert _course_verdict("04-jit", probe, dict(ref), ref) is None
    for value in (math.nan, math.inf, -0.02, 0.0, ref["fast.seconds"], ref["slow.seconds"], 0.05):
        out = dict(ref, **{"fast.seconds": value, "slow.seconds": value})
        assert _course_verdict("04-jit", probe, out, ref) is not None, value
    assert _course_verdict("04-jit", probe, {k: v for k, v in ref.items() if not k.startswith("slow.")}, ref)


def test_05_q8_figure_flags_alone_are_not_worth_points() -> None:
    losses = np.exp(-np.linspace(0.0, 4.0, 20)) * 7.0 + 0.2
    ref = {
        "type": "Figure",
        "figure": True,
        "lines": 1,
        "points": 20,
        "curve": _a(losses, np.float64),
        "yscale": "log",
        "xlabel": True,
        "ylabel": True,
        "n": 20,
    }
    for probe in ("q8.one_line_of_the_losses", "q8.log_scale_y", "q8.labelled_axes"):
        assert _course_verdict("05-pmap", probe, dict(ref), ref) is None
        for curve in (np.zeros(20), np.ones(20), losses[::-1].copy(), np.full(20, np.nan), np.zeros(0)):
            out = dict(ref, curve=_a(curve, np.float64))
            assert _course_verdict("05-pmap", probe, out, ref) is not None, (probe, curve)
        assert _course_verdict("05-pmap", probe, {k: v for k, v in ref.items() if k != "curve"}, ref)


def test_06_q6_the_grader_computes_the_test_mse_from_the_trained_params() -> None:
    rng = np.random.default_rng(1)
    x = rng.uniform(-np.pi, np.pi, (256, 1))
    y = np.sin(x) + 0.1 * rng.standard_normal((256, 1))
    # Params that fit sin(x): random tanh features, the last layer by least squares.
    W0, b0 = rng.standard_normal((1, 32)) * 2.0, rng.uniform(-3.0, 3.0, 32)
    W1, b1 = rng.standard_normal((32, 32)) * 0.3, np.zeros(32)
    h = np.tanh(np.tanh(x @ W0 + b0) @ W1 + b1)
    W2 = np.linalg.lstsq(h, y, rcond=None)[0]
    params = {
        f"params.{i}.{name}": _a(value)
        for i, layer in enumerate([(W0, b0), (W1, b1), (W2, np.zeros(1))])
        for name, value in zip("Wb", layer)
    }
    ref = {**params, "x_test": _a(x), "y_test": _a(y)}
    assert _course_verdict("06-training", "q6.test_mse_near_reference", dict(ref), ref) is None
    zeros = {k: _a(np.zeros_like(v.value)) for k, v in params.items()}
    forged = [
        {"test_mse": 0.0},  # a number, as the probe once returned: the grader computes it now
        {**zeros, "x_test": ref["x_test"], "y_test": ref["y_test"]},
        {
            **{k: _a(np.full_like(v.value, np.nan)) for k, v in params.items()},
            "x_test": ref["x_test"],
            "y_test": ref["y_test"],
        },
        # A test set of its own choosing cannot help: the grader's copy is used.
        {**zeros, "x_test": _a(np.zeros_like(x)), "y_test": _a(np.zeros_like(y))},
    ]
    for out in forged:
        assert _course_verdict("06-training", "q6.test_mse_near_reference", out, ref) is not None


# -------------------------------------------------------------------------------------------------
# What a student reads of the sandbox's own words is bounded in the grader.

HIDDEN = "\n".join(
    [
        "def _never_negative(out, ref):",
        '    for path in ("same", "close"):',
        "        if array(out, path).shape != array(ref, path).shape:",
        '            return f"has shape {array(out, path).shape}, expected {array(ref, path).shape}"',
        '    """on X == Y (32, 64) and on nearby points (32, 8), all far from the origin"""',
        "    X = _f32(rng, (32, 64), scale=100.0, loc=1000.0)",
    ]
)
HIDDEN_SCORING = dataclasses.replace(SCORING, hidden_source=HIDDEN)


def _long_lines(text: str) -> list[str]:
    return [" ".join(line.split()) for line in text.splitlines() if len(line.strip()) >= 20]


def _student_text(record: Any) -> str:
    return " ".join([record.message, *record.notes, *(t["output"] for t in record.tests)])


def test_sandbox_errors_reach_the_student_short_and_without_the_hidden_tests() -> None:
    results = right()
    leak = " ".join(HIDDEN.split()) * 20
    results["q1.on_large_vectors"] = {"ok": False, "error": f"raised KeyError: {leak}"}
    results["q2.sums"] = {"ok": False, "error": leak[:300]}
    outcome = RunOutcome(results=results, cell_errors=[(2, f"NameError: {leak}")])
    r = judge(SUB, outcome, REFERENCE, HIDDEN_SCORING)
    text = _student_text(r)
    assert not [line for line in _long_lines(HIDDEN) if line in text]
    assert "raised KeyError" in text  # what the student can act on stays
    assert all(len(t["output"]) <= 300 for t in r.tests)
    assert r.questions == {"q1": 2.0, "q2": 0.0}


def test_strings_among_outputs_are_bounded_unless_they_are_the_references() -> None:
    quoting = ProbeSet("quoting")

    def quote(out: dict[str, Any], ref: dict[str, Any]) -> str | None:
        return None if out["s"] == ref["s"] else f"said {out['s']}"

    quoting.probe("q1", "f", judge=quote)(on_small_vectors)
    long_secret = "    X = _f32(rng, (32, 64), scale=100.0, loc=1000.0)"
    ref = {"q1.on_small_vectors": ran(s=long_secret)}  # the grader's own string: left as it is
    scoring = Scoring({"q1": 1.0}, quoting, {"q1.on_small_vectors": 1.0}, 7, 512, hidden_source=HIDDEN)
    assert (
        judge(SUB, RunOutcome(results={"q1.on_small_vectors": ran(s=long_secret)}), ref, scoring).total == 1
    )
    forged = ran(s=HIDDEN * 3)
    r = judge(SUB, RunOutcome(results={"q1.on_small_vectors": forged}), ref, scoring)
    assert r.total == 0 and not [line for line in _long_lines(HIDDEN) if line in _student_text(r)]


def test_sandbox_error_text_has_a_budget_per_record() -> None:
    many = ProbeSet("many")
    for i in range(60):
        many.probe("q1", "f")(_named_body(f"p{i}"))
    ids = [p.id for p in many.probes]
    scoring = Scoring({"q1": 60.0}, many, dict.fromkeys(ids, 1.0), 7, 512, hidden_source=HIDDEN)
    results = {
        pid: {"ok": False, "error": f"raised ValueError: {i:04d} " + "z" * 280} for i, pid in enumerate(ids)
    }
    r = judge(SUB, RunOutcome(results=results), {pid: ran(y=np.zeros(1)) for pid in ids}, scoring)
    sandbox_chars = sum(len(t["output"]) for t in r.tests)
    assert sandbox_chars < SANDBOX_TEXT_BUDGET + 60 * 150
    assert all("raised ValueError" in t["output"] for t in r.tests)
    assert MAX_SANDBOX_TEXT <= 300


def test_a_long_error_still_says_memory_ran_out() -> None:
    results = right()
    results["q1.on_large_vectors"] = {"ok": False, "error": "x" * 5000 + " RESOURCE_EXHAUSTED: Out of memory"}
    r = judge(SUB, RunOutcome(results=results), REFERENCE, HIDDEN_SCORING)
    assert r.status == "memory"


def _named_body(name: str) -> Any:
    def body(sub: Any, rng: Any) -> dict[str, Any]:
        return {}

    body.__name__ = name
    body.__doc__ = f"probe {name}"
    return body


def test_the_graders_own_source_results_are_read_whole() -> None:
    """A source probe runs in the grader on the cells' text: its outputs are not the sandbox's
    words, and a gate must see the whole source (a loop past the first lines included)."""
    gated = ProbeSet("gated")

    def no_loop(out: dict[str, Any], ref: dict[str, Any]) -> str | None:
        return "uses a loop" if "for " in out["source"] else None

    gated.probe("q1", "f", judge=no_loop, gate=True, source=True)(no_loops)
    gated.probe("q1", "f")(sums)
    source = "def f(x):\n" + "    y = x\n" * 60 + "    for i in range(3):\n        y = y + i\n    return y\n"
    results = {"q1.no_loops": ran(source=source), "q1.sums": ran(s=np.float32(6.0))}
    ref = {"q1.no_loops": ran(source="def f(x):\n    return x\n"), "q1.sums": ran(s=np.float32(6.0))}
    scoring = Scoring({"q1": 1.0}, gated, {"q1.no_loops": 0.0, "q1.sums": 1.0}, 7, 512, hidden_source=HIDDEN)
    r = judge(SUB, RunOutcome(results=results), ref, scoring)
    assert r.total == 0 and "uses a loop" in r.message


@pytest.mark.parametrize("assignment", ["01-broadcasting", "04-jit"])
def test_a_forged_channel_cannot_carry_the_hidden_tests_to_the_feedback(assignment: str) -> None:
    """The red team's page: every probe 'raised' the next 280 characters of probes.py, and every
    cell too. With the real hidden tests as the grader holds them, none of their lines (those
    `validate` looks for in a release) reaches the record."""
    from autograder.config import load_course
    from autograder.release.validate import hidden_lines

    a = load_course().assignment(assignment)
    source = a.probes_file.read_text()
    probes = _course_probes(assignment)
    questions = {q: float(p) for q, p in a.points.items()}
    points = {pid: pts for q, total in questions.items() for pid, pts in probes.points(q, total).items()}
    scoring = Scoring(questions, probes, points, 7, 512, hidden_source=source)
    chunks = [source[i : i + 280] for i in range(0, len(source), 280)]
    reference = {p.id: ran(y=np.zeros(1)) for p in probes.probes}
    results = {
        # The source probes' results are the grader's own (it runs them on the cells' text).
        p.id: reference[p.id]
        if p.source
        else {"ok": False, "error": f"raised ValueError: {chunks[i % len(chunks)]}"}
        for i, p in enumerate(probes.probes)
    }
    outcome = RunOutcome(results=results, cell_errors=[(i + 1, c) for i, c in enumerate(chunks[:5])])
    r = judge(SUB, outcome, reference, scoring)
    text = _student_text(r)
    assert not [line for line in hidden_lines(source) if line in text]
    assert r.total == 0


def test_a_gate_that_could_not_trace_is_judged_on_the_graders_own_reading() -> None:
    """A sandbox gate that could not trace its function falls back on the loops of the source
    it read there; the submission controls that source (a function made by `exec` has none, a
    code object can name another cell's lines), so the grader puts its own reading's loops in
    their place, or holds the gate where it cannot read the function."""
    from autograder.grading.judge import reread_untraced
    from autograder.probing import SourceFunction, SourceNamespace

    gate = next(p for p in hidden.probes if p.gate)
    untraced = {"ok": True, "outputs": {"untraced": "TracerArrayConversionError", "loops": []}}
    traced = {"ok": True, "outputs": {"ops": [3, 3]}}
    text = "def nb__total(l__x):\n    return sum([v for v in l__x])\n"
    looping = SourceNamespace({"total": SourceFunction("total", text, {})})
    results, held = reread_untraced(hidden, {gate.id: untraced}, looping)
    assert results[gate.id]["outputs"]["loops"] == ["a list comprehension"] and not held
    assert reread_untraced(hidden, {gate.id: traced}, looping) == ({gate.id: traced}, {})
    unread = SourceNamespace({"total": "`total` cannot be read as written: `exec(...)`"})
    results, held = reread_untraced(hidden, {gate.id: untraced}, unread)
    assert held == {gate.id: "`total` cannot be read as written: `exec(...)`"}
    outcome = RunOutcome(results={**right(), **results})
    record = judge(SUB, outcome, REFERENCE, SCORING, held={gate.id: (held[gate.id], "code")})
    assert record.questions["q2"] == 0 and "held for the instructor's review" in record.message
