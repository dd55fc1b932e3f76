"""The judge alone: hand-made sandbox outcomes in, records out (no sandbox, no file, no JAX)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from autograder.judge import Scoring, judge, make_record
from autograder.probing import ProbeSet, decode_outputs, encode_outputs
from autograder.sandbox.run import RunOutcome
from autograder.submissions import Submission

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
