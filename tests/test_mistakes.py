"""Known mistakes named in feedback (autograder/grading/mistakes.py): hand-made outcomes in,
records out (no sandbox, no JAX), the probes the reference's side runs them with, and the
statement every known-wrong answer must carry."""

from __future__ import annotations

import types
from typing import Any

import numpy as np
import pytest

from autograder.config import load_course
from autograder.grading.collect import Submission
from autograder.grading.judge import Scoring, judge
from autograder.grading.mistakes import (
    as_feedback,
    diagnose,
    may_reproduce,
    mistake_id,
    mistakes_probes_source,
    read_mistakes,
    statement,
    text_problems,
)
from autograder.grading.records import Record
from autograder.notebooks import read_notebook
from autograder.probing import ProbeSet, decode_outputs, encode_outputs
from autograder.probing.running import run_probe
from autograder.release.validate import hidden_lines, solution_lines
from autograder.sandbox.run import RunOutcome

hidden = ProbeSet("demo")


@hidden.probe("q1", "scale")
def small(sub: Any, rng: Any) -> dict[str, Any]:
    """on a small vector"""
    return {}


@hidden.probe("q1", "scale")
def large(sub: Any, rng: Any) -> dict[str, Any]:
    """on a large vector"""
    return {}


@hidden.probe("q1", "scale")
def empty(sub: Any, rng: Any) -> dict[str, Any]:
    """on an empty vector"""
    return {}


def ran(**outputs: Any) -> dict[str, Any]:
    return {"ok": True, "outputs": decode_outputs(*encode_outputs(outputs))}


def raised(kind: str) -> dict[str, Any]:
    return {"ok": False, "error": f"raised {kind}: something"}


X = np.arange(1.0, 4.0, dtype=np.float32)
BIG = np.arange(1.0, 50.0, dtype=np.float32)
REFERENCE = {"q1.small": ran(y=2 * X), "q1.large": ran(y=2 * BIG), "q1.empty": ran(y=np.zeros(0, np.float32))}
STATEMENTS = {
    "q1_adds": "Adds 2 instead of multiplying by 2: scaling means a product.",
    "q1_plus_two": "Adds the constant 2, the same slip written as x + 2.0: multiply instead.",
    "q1_squares": "Squares x instead of doubling it: multiply by 2.",
    "q1_halves_large": "Halves the large vectors only, as if their size mattered: scale every vector alike.",
    "q1_raises": "Raises on every vector, as if the input were wrong: return the scaled vector.",
}
MISTAKES = {
    # the same outputs: named together
    **{
        mistake_id(p, "q1_adds"): r for p, r in {"q1.small": ran(y=X + 2), "q1.large": ran(y=BIG + 2)}.items()
    },
    **{
        mistake_id(p, "q1_plus_two"): r
        for p, r in {"q1.small": ran(y=X + 2), "q1.large": ran(y=BIG + 2)}.items()
    },
    **{
        mistake_id(p, "q1_squares"): r
        for p, r in {"q1.small": ran(y=X * X), "q1.large": ran(y=BIG * BIG)}.items()
    },
    # right on the small vector: its one case is the large one
    **{
        mistake_id(p, "q1_halves_large"): r
        for p, r in {"q1.small": ran(y=2 * X), "q1.large": ran(y=BIG / 2)}.items()
    },
    **{mistake_id(p, "q1_raises"): raised("ValueError") for p in ("q1.small", "q1.large", "q1.empty")},
}
for name in STATEMENTS:
    MISTAKES.setdefault(mistake_id("q1.empty", name), REFERENCE["q1.empty"])
SCORING = Scoring(
    questions={"q1": 6.0},
    probes=hidden,
    points=hidden.points("q1", 6.0),
    seed=3,
    memory_mb=512,
    mistakes=STATEMENTS,
)
SUB = Submission(name="ada.ipynb", key="ada", fingerprint="f" * 8, cells=("x = 1",))


def graded(**results: dict[str, Any]) -> Record:
    outcome = {**REFERENCE, **{f"q1.{k}": v for k, v in results.items()}}
    return judge(SUB, RunOutcome(results=outcome), {**REFERENCE, **MISTAKES}, SCORING)


def named(r: Record) -> list[str]:
    d = r.diagnosis.get("q1")
    return [d["mistake"], *d.get("with", [])] if d else []


def test_outputs_that_reproduce_a_mistake_name_it_first_and_record_its_id() -> None:
    r = graded(small=ran(y=X * X), large=ran(y=BIG * BIG))
    assert named(r) == ["q1_squares"] and r.questions["q1"] == 2.0
    first = r.message.split("First problem: ", 1)[1]
    assert first.startswith(
        "q1 `scale` looks like a known mistake: your answer squares x instead of doubling it"
    )
    assert "differs from the reference" in first  # the generic difference follows
    assert r.to_results()["extra_data"]["diagnosis"]["q1"]["mistake"] == "q1_squares"
    assert r.diagnosis["q1"]["text"] in r.message
    assert Record.from_results(r.to_results()) == r


def test_two_mistakes_with_the_same_outputs_are_named_together() -> None:
    r = graded(small=ran(y=X + 2), large=ran(y=BIG + 2))
    assert named(r) == ["q1_adds", "q1_plus_two"]
    assert "one of 2 known mistakes" in r.message and "; or your answer adds the constant 2" in r.message


def test_a_match_on_some_of_a_mistakes_cases_names_nothing() -> None:
    # squares the small vector, but the large one is wrong another way
    r = graded(small=ran(y=X * X), large=ran(y=BIG * 3))
    assert r.questions["q1"] < 6.0 and named(r) == [] and "known mistake" not in r.message


def test_the_mistake_whose_cases_hold_the_others_wins() -> None:
    # halves_large's one case (large) is reproduced, and so is every case of nothing wider
    r = graded(large=ran(y=BIG / 2))
    assert named(r) == ["q1_halves_large"]


def test_an_exception_alone_is_too_little_to_name_a_mistake() -> None:
    r = graded(small=raised("ValueError"), large=raised("ValueError"), empty=raised("ValueError"))
    assert r.total == 0.0 and named(r) == []


def test_a_right_answer_within_tolerance_never_gets_a_mistake() -> None:
    r = graded(small=ran(y=2 * X + 1e-7), large=ran(y=2 * BIG))
    assert r.total == 6.0 and r.diagnosis == {}


def test_without_the_mistakes_outcomes_nothing_is_named() -> None:
    probes = hidden.for_question("q1")
    results = {**REFERENCE, "q1.small": ran(y=X * X), "q1.large": ran(y=BIG * BIG)}
    assert diagnose(probes, results, REFERENCE, list(STATEMENTS)) == []
    assert diagnose(probes, results, {**REFERENCE, **MISTAKES}, list(STATEMENTS)) == ["q1_squares"]


PROBES_SOURCE = '''
from autograder.probing import ProbeSet

hidden = ProbeSet("demo")


@hidden.probe("q1", "scale")
def small(sub, rng):
    """on a small vector"""
    return {"y": sub.scale(2.0), "z": sub.helper()}
'''


def test_the_reference_side_runs_each_mistake_over_the_notebook_and_puts_it_back() -> None:
    source = "def scale(x):\n    return x + 2\n"
    (m,) = [
        m
        for m in read_mistakes_from({"q1_adds.py": f'"""{STATEMENTS["q1_adds"]}"""\n{source}'})
        if m.id == "q1_adds"
    ]
    module = types.ModuleType("probes")
    exec(compile(mistakes_probes_source(PROBES_SOURCE, [m]), "<probes>", "exec"), module.__dict__)
    probes = {p.id: p for p in module.hidden.probes}
    assert set(probes) == {"q1.small", mistake_id("q1.small", "q1_adds")}
    env: dict[str, Any] = {}
    exec("def scale(x):\n    return 2 * x\n\ndef helper():\n    return scale(1.0)\n", env)
    got = run_probe(probes[mistake_id("q1.small", "q1_adds")], env, seed=1)
    ref = run_probe(probes["q1.small"], env, seed=1)
    assert got["ok"] and ref["ok"]
    values = decode_outputs(got["meta"], got["blobs"])
    assert (values["y"], values["z"]) == (4.0, 3.0)  # the notebook's own helper calls the mistake too
    assert env["scale"](2.0) == 4.0  # and the notebook is as it was
    assert decode_outputs(ref["meta"], ref["blobs"]) == {"y": 4.0, "z": 2.0}


def read_mistakes_from(files: dict[str, str]) -> list[Any]:
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as tmp:
        for name, text in files.items():
            (Path(tmp) / name).write_text(text)
        return read_mistakes(Path(tmp), ["q1"])


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("", "has no docstring"),
        ("The answer adds 2.", "start with what the answer does"),
        ("jnp.outer instead of broadcasting.", "start with what the answer does"),
        ("Adds 2. Then more. And more. And more.", "sentences"),
        ("Adds 2 instead of doubling", "does not end a sentence"),
        ("Adds 2: we forgot to multiply.", "'we'"),
        ("Adds 2, as this mutant does.", "'mutant'"),
        ("Adds " + "very " * 100 + "much.", "characters"),
        ("Returns x * 2.0 + bias_term_here instead.", "quotes the solution"),
    ],
)
def test_a_statement_not_fit_for_a_student_is_refused(text: str, problem: str) -> None:
    problems = text_problems(text, {"x * 2.0 + bias_term_here"})
    assert any(problem in p for p in problems), problems


def test_every_known_wrong_answer_states_its_mistake_for_the_student() -> None:
    """What validate checks, for the whole course at once (it reads files only)."""
    for a in load_course().assignments:
        solution = solution_lines(read_notebook(a.master))
        probes = hidden_lines(a.probes_file.read_text(encoding="utf-8"))
        for path in sorted(a.mutants_dir.glob("q*.py")):
            text = statement(path.read_text(encoding="utf-8"))
            assert not text_problems(text, solution, probes), (a.id, path.name, text_problems(text))
            assert as_feedback(text).startswith("your answer ")


def test_only_a_run_with_failing_values_sends_for_the_known_mistakes() -> None:
    probes = hidden.for_question("q1")
    assert may_reproduce(probes, {**REFERENCE, "q1.large": ran(y=BIG * BIG)}, REFERENCE)
    assert not may_reproduce(probes, REFERENCE, REFERENCE)  # full marks
    assert not may_reproduce(probes, {p: ran(y=None) for p in REFERENCE}, REFERENCE)  # the stub
    assert not may_reproduce(probes, {p: raised("TypeError") for p in REFERENCE}, REFERENCE)
