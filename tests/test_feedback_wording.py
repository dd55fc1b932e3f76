"""What a student reads: one sentence for a result that is None (what an untouched stub returns
from every function), no grader-internal output name in a message, and a message's `code`
rendered as <code> in the pages, with whatever came from the sandbox escaped."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from autograder.config import ROOT, load_course
from autograder.grading.collect import Submission
from autograder.grading.judge import Scoring, judge
from autograder.grading.records import Record
from autograder.grading.report.pages import feedback_html, message_html, report_html
from autograder.probing import RETURNED_NONE, ProbeSet, compare_outputs, decode_outputs, encode_outputs
from autograder.sandbox.run import RunOutcome

# -------------------------------------------------------------------------------------------------
# (1) One sentence for None, whatever judge the question has.

hidden = ProbeSet("wording")


@hidden.probe("q1", "double")
def one_output(sub: Any, rng: Any) -> dict[str, Any]:
    """on a vector (3,)"""
    return {}


@hidden.probe("q1", "double")
def two_outputs(sub: Any, rng: Any) -> dict[str, Any]:
    """on vectors (2,) and (0,)"""
    return {}


def _raised(out: dict[str, Any], ref: dict[str, Any]) -> str | None:
    # As 01's q7 judge: the stub's "no exception" used to read "returned a result instead of raising".
    if out["raised"] is not True:
        return "returned a result instead of raising"
    return compare_outputs({"m": out["matching"]}, {"m": ref["matching"]})


@hidden.probe("q2", "check", judge=_raised)
def raises_on_a_mismatch(sub: Any, rng: Any) -> dict[str, Any]:
    """on mismatched inputs: must raise (not on matching ones)"""
    return {}


def _outcomes(out: dict[str, Any], ref: dict[str, Any]) -> str | None:
    # As 01's q1 judge: outcomes in words, with None for a None result.
    wrong = [g for g, w in zip(out["outcomes"], ref["outcomes"], strict=True) if g != w]
    return f"it {wrong[0]}" if wrong else None


@hidden.probe("q3", "shape", judge=_outcomes)
def outcomes_in_words(sub: Any, rng: Any) -> dict[str, Any]:
    """on 3 sets of shapes"""
    return {}


def ran(**outputs: Any) -> dict[str, Any]:
    """A probe's outcome as the sandbox's channel delivers it (encoded, then decoded)."""
    return {"ok": True, "outputs": decode_outputs(*encode_outputs(outputs))}


REFERENCE = {
    "q1.one_output": ran(out=np.arange(3.0)),
    "q1.two_outputs": ran(**{"on a vector (2,)": np.arange(2.0), "on a vector (0,)": np.zeros(0)}),
    "q2.raises_on_a_mismatch": ran(raised=True, matching=np.ones(2)),
    "q3.outcomes_in_words": ran(outcomes=["returned (2,)", "raised ValueError", "returned ()"]),
}
STUB = {
    "q1.one_output": ran(out=None),
    "q1.two_outputs": ran(**{"on a vector (2,)": None, "on a vector (0,)": None}),
    "q2.raises_on_a_mismatch": ran(raised=False, matching=None),
    "q3.outcomes_in_words": ran(outcomes=[None, None, None]),
}
QUESTIONS = {"q1": 2.0, "q2": 1.0, "q3": 1.0}
SCORING = Scoring(
    questions=QUESTIONS,
    probes=hidden,
    points={pid: p for q, total in QUESTIONS.items() for pid, p in hidden.points(q, total).items()},
    seed=7,
    memory_mb=512,
)
SUB = Submission(name="stub.ipynb", key="stub", fingerprint="f" * 8, cells=("x = 1",))


def test_a_stubs_none_results_get_one_sentence_whatever_the_judge() -> None:
    record = judge(SUB, RunOutcome(results=STUB), REFERENCE, SCORING)
    assert record.total == 0
    for t in record.tests:
        assert t["status"] == "failed" and t["output"].endswith(f": {RETURNED_NONE}"), t["output"]
    for old in ("NoneType", "instead of raising", "is the function still the stub", "output `"):
        assert old not in json.dumps(record.tests)


def test_a_none_where_the_reference_has_none_is_not_the_stub_sentence() -> None:
    reference = dict(REFERENCE, **{"q1.one_output": ran(out=None)})
    record = judge(SUB, RunOutcome(results=STUB), reference, SCORING)
    assert record.tests[0]["output"] == "passed"


def test_a_wrong_value_names_the_part_by_its_words_and_a_single_output_not_at_all() -> None:
    results = dict(REFERENCE)
    results["q1.one_output"] = ran(out=np.ones(3))
    results["q1.two_outputs"] = ran(**{"on a vector (2,)": np.ones(2), "on a vector (0,)": np.zeros(0)})
    outputs = {
        t["name"]: t["output"] for t in judge(SUB, RunOutcome(results=results), REFERENCE, SCORING).tests
    }
    assert outputs["q1 double: one output"].startswith(
        "q1 `double`: on a vector (3,): differs from the reference"
    )
    assert outputs["q1 double: two outputs"].startswith(
        "q1 `double`: on vectors (2,) and (0,): on a vector (2,), the result differs from the reference"
    )


def test_a_tuple_where_an_array_is_expected_is_said_without_internal_paths() -> None:
    results = dict(REFERENCE)
    results["q1.one_output"] = ran(out=(np.arange(3.0), np.arange(3.0)))
    output = judge(SUB, RunOutcome(results=results), REFERENCE, SCORING).tests[0]["output"]
    assert output.endswith(
        "returned a tuple, list or dict of 2 values, expected a float64 array of shape (3,)"
    )
    assert "out.0" not in output


# -------------------------------------------------------------------------------------------------
# (2) The 01 examples' feedback: no internal name; (3) backticks as <code>.

#: Output keys the 01 probes use or used: the grader's names, never a student's.
INTERNAL_KEYS = (
    "tall wide array_0d python_float out M_changed square length_1 length_0 one_row one_feature same "
    "close axis_2 axis_minus_2 axis_0 labels_3x5 labels_0d random every_index extremes fill_nan fill_inf "
    "fill_minus_inf index_0d index_0d_out empty three_axes brighter darker cases image_0d_up "
    "image_0d_down empty_3d one_pixel outcomes source module raised matching ops untraced loops D Z p"
).split()


@pytest.fixture(scope="module")
def graded_examples(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("examples")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "autograder",
            "grade",
            "01-broadcasting",
            str(ROOT / "examples" / "01-broadcasting"),
        ]
        + ["--out", str(out), "--quiet", "--seed", "20261123"],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    return out


@pytest.mark.assignment("01-broadcasting")
def test_the_examples_feedback_names_no_internal_output(graded_examples: Path) -> None:
    messages = []
    for path in (graded_examples / "results").glob("*.json"):
        results = json.loads(path.read_text())
        messages += [results["output"], *(t["output"] for t in results["tests"])]
    assert len(messages) > 100
    for message in messages:
        assert "output `" not in message and "NoneType" not in message, message
        named = [k for k in INTERNAL_KEYS if f"`{k}`" in message or f"`{k}." in message]
        assert not named, (named, message)


@pytest.mark.assignment("01-broadcasting")
def test_the_stub_example_says_one_thing_for_its_none_results(graded_examples: Path) -> None:
    results = json.loads((graded_examples / "results" / "stub.ipynb.json").read_text())
    scoring = [t for t in results["tests"] if t["max_score"] > 0]
    assert scoring and all(t["output"].endswith(f": {RETURNED_NONE}") for t in scoring), [
        t["output"] for t in scoring if not t["output"].endswith(RETURNED_NONE)
    ]
    page = (graded_examples / "feedback" / "stub.ipynb.html").read_text()
    assert "<code>...</code>" in page and "`" not in re.sub(r"<style>.*?</style>", "", page, flags=re.S)


def test_backticks_render_as_code_after_escaping() -> None:
    assert (
        message_html("uses `jnp.outer`, not `a<b`") == "uses <code>jnp.outer</code>, not <code>a&lt;b</code>"
    )
    assert message_html("a lone ` stays") == "a lone ` stays"
    assert message_html("`<script>alert(1)</script>`") == "<code>&lt;script&gt;alert(1)&lt;/script&gt;</code>"
    # Backticks cannot carry markup in: the code between them is escaped too (as MarkupSafe,
    # which the page templates escape with, writes a quote).
    assert message_html('`" onmouseover="x`') == "<code>&#34; onmouseover=&#34;x</code>"


def test_feedback_and_report_pages_show_messages_code_as_code() -> None:
    a = load_course().assignment("01-broadcasting")
    output = "q2 `outer`: returned <b>bold</b> `x[:, None]`"
    test = {
        "name": "q2 outer: t <i>",
        "number": "q2",
        "score": 0.0,
        "max_score": 1.0,
        "status": "failed",
        "output": output,
        "visibility": "visible",
    }
    record = Record(
        "s.ipynb", "s", "f" * 64, "graded", f"First problem: {output}", {"q2": 0.0}, 7.0, [test], []
    )
    page = feedback_html(record, a)
    assert "<b>bold</b>" not in page and "&lt;b&gt;bold&lt;/b&gt;" in page
    assert page.count("<code>outer</code>") == 2 and page.count("<code>x[:, None]</code>") == 2
    assert "t &lt;i&gt;" in page
    report = report_html([record], a, ["q2"])
    assert "<code>x[:, None]</code>" in report and "<b>bold</b>" not in report
