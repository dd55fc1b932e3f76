"""The report's and feedback pages' arithmetic, on records made here (no grading: fast)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import tomllib
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from autograder.config import load_course
from autograder.grading.records import Record
from autograder.grading.report.pages import (
    feedback_html,
    hidden_test_rates,
    histogram_figure,
    points,
    question_rates,
    questions_figure,
    report_html,
)

A = load_course().assignment("01-broadcasting")


def _test(q: str, name: str, share: float, ok: bool, output: str | None = None) -> dict[str, Any]:
    return {
        "name": f"{q} f: {name}",
        "number": q,
        "score": share if ok else 0.0,
        "max_score": share,
        "status": "passed" if ok else "failed",
        "output": output or ("passed" if ok else f"{q} `f`: {name}: wrong; do it right"),
        "visibility": "visible",
    }


def _record(name: str, q1: tuple[bool, bool, bool], q2: bool, status: str = "graded") -> Record:
    # Off the quarter-point grid that ProbeSet.points uses: pages still show two decimals at most.
    shares = (0.666667, 0.666667, 0.666666)
    tests = [_test("q1", f"t{i}", share, ok) for i, (share, ok) in enumerate(zip(shares, q1, strict=True))]
    tests.append(_test("q2", "only", 1.0, q2))
    questions = {
        "q1": round(sum(s for s, ok in zip(shares, q1, strict=True) if ok), 6),
        "q2": 1.0 if q2 else 0.0,
    }
    return Record(name, name, "f" * 64, status, "msg", questions, 3.0, tests, [])


RECORDS = [
    _record("a.ipynb", (True, True, True), True),
    _record("b.ipynb", (True, False, True), True),
    _record("c.ipynb", (False, False, True), True),
    _record("d.ipynb", (True, True, True), False),
]


def test_points_show_two_decimals_at_most() -> None:
    assert [points(x) for x in (0.666667, 0.666666, 2.0, 12.5333, 0.0, -0.0001)] == [
        "0.67",
        "0.67",
        "2",
        "12.53",
        "0",
        "0",
    ]


def test_question_and_test_rates_are_shares_of_students_worst_first() -> None:
    by_q = question_rates(RECORDS, ["q1", "q2"])
    assert [(x["question"], x["lost"], x["graded"]) for x in by_q] == [("q1", 2, 4), ("q2", 1, 4)]
    assert by_q[0]["share"] == pytest.approx((2 + 4 / 3 + 2 / 3 + 2) / 4 / 2)
    rates = [(x["test"], x["failed"], x["ran"]) for x in hidden_test_rates(RECORDS)]
    assert rates[0] == ("q1 f: t1", 2, 4)
    assert [f / n for _, f, n in rates] == sorted((f / n for _, f, n in rates), reverse=True)


def test_a_row_never_graded_counts_in_no_failure_rate() -> None:
    invalid = Record(
        "z.ipynb", "z.ipynb", "0" * 64, "invalid", "z.ipynb is not a notebook.", {"q1": 0.0, "q2": 0.0}, 3.0,
        [_test("q1", "t0", 1.0, False, "not graded: status invalid")], [],
    )  # fmt: skip
    rates = {x["test"]: (x["failed"], x["ran"]) for x in hidden_test_rates([*RECORDS, invalid])}
    assert rates["q1 f: t0"] == (1, 4)
    assert [x["graded"] for x in question_rates([*RECORDS, invalid], ["q1", "q2"])] == [4, 4]


def test_the_histogram_counts_whole_submissions() -> None:
    fig = histogram_figure([0.0, 12.5, 16.0, 16.0], 16.0)
    ax = fig.axes[0]
    ticks = [t for t in ax.get_yticks() if ax.get_ylim()[0] <= t <= ax.get_ylim()[1]]
    assert ticks and all(float(t).is_integer() for t in ticks)
    assert sum(p.get_height() for p in ax.patches) == 4 and len(ax.patches) == 16


def test_question_means_are_shares_of_their_points() -> None:
    fig = questions_figure({"q1": 0.5, "q2": 1.0})
    assert [p.get_height() for p in fig.axes[0].patches] == [50.0, 100.0]
    assert fig.axes[0].get_ylim()[1] >= 100


def test_the_report_links_every_submission_and_keeps_one_precision() -> None:
    page = report_html(RECORDS, A, ["q1", "q2"])
    for r in RECORDS:
        assert f"<a href='feedback/{r.key}.html'>{r.submission}</a>" in page
    assert "mean 2.25, median 2.17 of 3" in page
    assert "0.666667" not in page
    assert "No submissions." in report_html([], A, ["q1"])


def test_a_name_is_linked_url_escaped_and_shown_html_escaped() -> None:
    odd = Record("a b#<x>.ipynb", "a b#<x>.ipynb", "1" * 64, "graded", "m", {"q2": 1.0}, 3.0, [], [])
    page = report_html([odd], A, ["q2"])
    assert "href='feedback/a%20b%23%3Cx%3E.ipynb.html'" in page and "a b#&lt;x&gt;.ipynb</a>" in page


def test_feedback_puts_the_failures_first() -> None:
    page = feedback_html(RECORDS[2], A)
    assert page.index("To fix (2 of 4 hidden tests failed)") < page.index("<h2>Questions</h2>")
    assert page.count("class=fix>") == 2 and "do it right" in page
    assert "0.67 / 0.67" in page and "2 hidden tests passed</summary>" in page
    assert "To fix" not in feedback_html(RECORDS[0], A)


def test_pages_name_the_student_where_one_is_known() -> None:
    """People, not only files: with an LMS id or a roster the report and the feedback page show
    the student beside the file's name (escaped); without one, the name alone."""
    named = Record("x_12_34_b.ipynb", "k", "f", "graded", "ok", {"q1": 1.0}, 2.0, [], [], student="<s1>")
    plain = Record("y.ipynb", "y.ipynb", "f", "graded", "ok", {"q1": 1.0}, 2.0, [], [])
    assert "student <code>&lt;s1&gt;</code>" in feedback_html(named, A)
    assert "student <code>" not in feedback_html(plain, A)
    page = report_html([named, plain], A, list(A.questions))
    assert "x_12_34_b.ipynb</a> (&lt;s1&gt;)" in page and "y.ipynb</a></td>" in page


CHROMIUM = next(
    (shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome") if shutil.which(n)), None
)
#: After the page loads: how far the page and its widest table reach past the window's right edge.
_MEASURE = """<script>addEventListener("load", () => {
  const right = Math.max(...[...document.querySelectorAll("table, pre, .side")].map(
    (t) => t.getBoundingClientRect().right));
  document.documentElement.dataset.past = Math.max(
    document.documentElement.scrollWidth - innerWidth, Math.ceil(right - innerWidth));
});</script>"""


@pytest.mark.skipif(CHROMIUM is None, reason="no Chromium: `apt-get install chromium`")
def test_the_similarity_section_fits_a_1280_pixel_window(tmp_path: Path) -> None:
    """LMS names are long and unbroken (Canvas's, Brightspace's), a student's line of code too:
    in a 1280 px wide window nothing of the section reaches past the window's edge."""
    from autograder.grading.similarity import Comparison, Pair, Shared

    names = [
        f"smithalice{'x' * 30}_LATE_12345_67890_broadcasting_2026_11_28T00_54_37_066501.zip",
        "1001-2001 - Alice Smith-Featherstonehaugh - Sep 24, 2024 926 PM",
    ]
    code = "def outer(x, y):\n    return " + " * ".join(f"x_{i}[:, None]" for i in range(40)) + "\n"
    shared = Shared("outer", code, code, frozenset({1, 2}), frozenset({1, 2}), 9)
    pairs = [Pair(names[0], names[1], 9, 0.9, (shared,) * 3)]
    records = [_record(n, (True, True, True), True) for n in names]
    page = tmp_path / "report.html"
    html_text = report_html(records, A, ["q1", "q2"], Comparison(2, tuple(pairs)))
    page.write_text(html_text.replace("</body>", _MEASURE + "</body>"))
    proc = subprocess.run(
        [str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-sync"]
        + ["--disable-background-networking", "--disable-component-update", "--hide-scrollbars"]
        + [f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1280,2000", "--dump-dom", page.as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
    )
    m = re.search(r'data-past="(-?\d+)"', proc.stdout)
    assert m, f"the page did not load in Chromium (exit {proc.returncode}): {proc.stderr[-1000:]}"
    assert int(m.group(1)) <= 0, f"the section reaches {m.group(1)} px past a 1280 px window"


def _diagnosed(name: str, q: str, *ids: str) -> Record:
    d = {
        "mistake": ids[0],
        **({"with": list(ids[1:])} if len(ids) > 1 else {}),
        "text": f"{q} looks like {ids[0]}.",
    }
    return Record(name, name, "f" * 64, "graded", "m", {q: 0.0}, 3.0, [], [], diagnosis={q: d})


def test_the_report_counts_each_named_mistake_most_common_first() -> None:
    from autograder.grading.report.pages import mistake_counts

    records = [
        _diagnosed("a.ipynb", "q3", "q3_not_squared"),
        _diagnosed("b.ipynb", "q1", "q1_left_aligned"),
        _diagnosed("c.ipynb", "q1", "q1_left_aligned"),
        _diagnosed("d.ipynb", "q5", "q5_a", "q5_b"),
        *RECORDS,
    ]
    counts = [(x["question"], x["mistakes"], x["students"]) for x in mistake_counts(records)]
    assert counts == [
        ("q1", ("q1_left_aligned",), 2),
        ("q3", ("q3_not_squared",), 1),
        ("q5", ("q5_a", "q5_b"), 1),
    ]
    page = report_html(records, A, ["q1", "q2", "q3", "q5"])
    assert page.index("Known mistakes, most common first") < page.index("Hidden tests, worst first")
    questions = page[page.index("Questions, worst first") : page.index("Known mistakes, most common first")]
    assert "<td>q1_left_aligned (2)</td>" in questions and "<td>q5_a / q5_b (1)</td>" in questions
    assert page.index("q1_left_aligned") < page.index("q3_not_squared") and "q5_a / q5_b" in page
    assert "Known mistakes" not in report_html(RECORDS, A, ["q1", "q2"])
    feedback = feedback_html(records[0], A)
    assert "<h2>Known mistakes</h2>" in feedback and "q3 looks like q3_not_squared." in feedback


GOLDEN = Path(__file__).parent / "golden"
PACKAGE = Path(__file__).resolve().parents[1] / "autograder"


def test_the_golden_feedback_page_is_the_page_of_the_golden_results() -> None:
    """tests/golden's feedback page (what ``make demo`` writes for partial.ipynb, compared in
    tests/test_readme_commands.py) is what the page template makes of the golden results."""
    record = Record.from_results(json.loads((GOLDEN / "demo-partial-results.json").read_text()))
    # The file lists questions sorted by name (sort_keys); the record holds the notebook's order.
    record = replace(record, questions={q: record.questions[q] for q in A.questions if q in record.questions})
    assert feedback_html(record, A) == (GOLDEN / "demo-partial-feedback.html").read_text()


def test_no_page_escapes_by_hand() -> None:
    """The pages come from templates that escape every value (autoescape): no code of the report
    or of the similarity stage escapes HTML itself, where one forgotten call is a hole."""
    files = [*(PACKAGE / "grading" / "report").rglob("*.py"), PACKAGE / "grading" / "similarity.py"]
    by_hand = re.compile(r"\bhtml\.escape\b|\bescape\(|^import html\b|^from html import", re.M)
    found = [f"{f.relative_to(PACKAGE)}: {m.group()}" for f in files for m in by_hand.finditer(f.read_text())]
    assert not found, found


def test_the_page_templates_ship_with_the_package() -> None:
    """Every file under a package's ``templates/`` is package data in pyproject.toml (a wheel
    leaves out what is not), and the pages' environment escapes and refuses undefined names."""
    from jinja2 import StrictUndefined

    from autograder.grading.report.pages import _environment

    config = tomllib.loads((PACKAGE.parent / "pyproject.toml").read_text())
    patterns = config["tool"]["setuptools"]["package-data"]["autograder"]
    shipped = [f for f in PACKAGE.rglob("templates/*") if f.is_file()]
    assert any(f.suffix == ".j2" for f in shipped)
    for f in shipped:
        assert any(f.relative_to(PACKAGE).match(p) for p in patterns), f
    env = _environment()
    assert env.undefined is StrictUndefined
    assert all(env.autoescape(name) for name in env.list_templates())  # type: ignore[operator]
