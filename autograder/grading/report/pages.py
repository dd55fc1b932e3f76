"""What people read after grading: one feedback page per student and the class report.

Pages are self-contained HTML (figures embedded as PNG) and escape everything that came from a
submission. Feedback shows each hidden test's name and the judge's sentence: shapes and
properties, never hidden inputs or test source. Points are shown to two decimals (a question's
share of 2 points over 3 tests is 0.67, not 0.666667); files keep the exact values.

The report answers an instructor's first questions at a glance: how the class did (score
distribution, status counts), where it struggled (the share of students who lost points on each
question and who failed each hidden test, worst first), and every submission, linked to its
feedback page.
"""

from __future__ import annotations

import base64
import html
import io
import re
import shlex
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from statistics import mean, median
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from ...config import Assignment
from ..lms.layouts import marked_late_by
from ..records import atomic_write

if TYPE_CHECKING:
    from ..collect import Submission
    from ..records import Record

_STYLE = """<style>
body{font-family:system-ui,sans-serif;max-width:64rem;margin:2rem auto;padding:0 1rem;color:#222}
table{border-collapse:collapse;width:100%;margin:1rem 0}td,th{border-bottom:1px solid #ddd;
padding:.35rem .5rem;text-align:left;vertical-align:top;overflow-wrap:anywhere}th{background:#f4f4f4}
td.num,th.num{text-align:right;white-space:nowrap}
.passed{color:#17692b}.failed{color:#a11}.status{font-weight:600}code{background:#f4f4f4;padding:0 .2rem}
.fix{border-left:4px solid #a11;background:#fdf3f3;padding:.5rem .8rem;margin:.6rem 0}
.fix p{margin:.3rem 0}.score{font-size:1.4rem}.late{color:#a11;font-weight:600}
.bar{display:inline-block;height:.7rem;background:#c44;vertical-align:middle;margin-left:.4rem}
table.narrow{width:auto}figure{margin:1rem 0}figure img{max-width:100%}
details{margin:1rem 0}summary{cursor:pointer}
.side{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:.5rem}
.side pre{overflow-x:auto;background:#f8f8f8;padding:.4rem;margin:0;font-size:.8rem}mark{background:#ffe08a}
</style>"""

#: Statuses in the order the report lists them.
_STATUS_ORDER = ("graded", "invalid", "timeout", "memory", "crashed", "tampered", "error")


def _page(title: str, body: str) -> str:
    return (
        f"<!doctype html><html lang=en><head><meta charset=utf-8>"
        f"<meta name=viewport content='width=device-width, initial-scale=1'>"
        f"<title>{html.escape(title)}</title>{_STYLE}</head><body>{body}</body></html>\n"
    )


_BACKTICKED = re.compile(r"`([^`\n]+)`")


def message_html(text: str) -> str:
    """A judge's message as HTML: escaped first (part of it came from a submission's sandbox),
    then each `...` pair of backticks, as messages write code, made a ``<code>`` element."""
    return _BACKTICKED.sub(r"<code>\1</code>", html.escape(text))


def points(x: float) -> str:
    """Points for people: at most two decimals, no trailing zeros (``0.67``, ``2``, ``12.5``)."""
    text = f"{x:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def _lost(score: float, top: float) -> bool:
    """Whether ``score`` is short of ``top`` (with a margin for results written before points
    were split in quarter points, when they were rounded to 6 decimals)."""
    return score < top - 1e-5


def _percent(part: float, whole: float) -> str:
    return f"{100 * part / whole:.0f} %" if whole else "-"


# -- feedback ------------------------------------------------------------------------------------


def feedback_html(record: Record, assignment: Assignment) -> str:
    e = html.escape
    ran = [t for t in record.tests if _ran(t)]
    failed = [t for t in ran if t["status"] != "passed"]
    passed = [t for t in ran if t["status"] == "passed"]
    maxima = _question_maxima([record])
    fixes = "".join(
        f"<div class=fix><p><b>{e(t['name'])}</b> "
        f"<span class=failed>({points(t['score'])} of {points(t['max_score'])} points)</span></p>"
        f"<p>{message_html(t['output'])}</p></div>"
        for t in failed
    )
    per_q = "".join(
        f"<tr><td>{e(q)}</td><td class=num>{points(v)}</td><td class=num>{points(maxima.get(q, 0.0))}</td>"
        f"<td class={'failed' if _lost(v, maxima.get(q, 0.0)) else 'passed'}>"
        f"{'lost points' if _lost(v, maxima.get(q, 0.0)) else 'full marks'}</td></tr>"
        for q, v in record.questions.items()
    )
    passed_rows = "".join(
        f"<tr><td>{e(t['name'])}</td><td class=num>{points(t['score'])} / {points(t['max_score'])}</td>"
        f"<td>{message_html(t['output'])}</td></tr>"
        for t in passed
    )
    notes = "".join(f"<li>{e(n)}</li>" for n in record.notes)
    known = "".join(
        f"<div class=fix><p><b>{e(q)}</b>: {message_html(str(d.get('text', '')))}</p></div>"
        for q, d in record.diagnosis.items()
    )
    held = "".join(
        f"<div class=fix><p><b>{e(q)}</b>: "
        + (
            f"a person will read this question's code ({points(r['points'])} points wait for that "
            "review). The grader could not check one of its rules from the code: "
            if "decision" not in r
            else f"reviewed by your instructor: the rule was {r['decision']}. "
            "The grader had not been able to check it: "
        )
        + f"{message_html(str(r['reason']))}</p></div>"
        for q, r in record.review.items()
    )
    late_by = marked_late_by(record.submission)
    body = (
        f"<h1>{e(assignment.id)}: {e(assignment.title)}</h1>"
        f"<p>Submission <code>{e(record.submission)}</code>"
        + (f", {e(record.student_name)}" if record.student_name else "")
        + (f", student <code>{e(record.student)}</code>" if record.student else "")
        + "</p>"
        + (f"<p class=late>Late: {e(late_by)} marked this submission late.</p>" if late_by else "")
        + f"<p class=score><b>{points(record.total)} / {points(record.possible)}</b> points, "
        f"status <span class=status>{e(record.status)}</span></p><p>{message_html(record.message)}</p>"
        + (f"<h2>Held for review</h2>{held}" if held else "")
        + (f"<h2>Known mistakes</h2>{known}" if known else "")
        + (f"<h2>To fix ({len(failed)} of {len(ran)} hidden tests failed)</h2>{fixes}" if failed else "")
        + ("" if ran else "<p>No hidden test ran on this submission.</p>")
        + f"<h2>Questions</h2><table><tr><th>question</th><th class=num>points</th>"
        f"<th class=num>of</th><th></th></tr>{per_q}</table>"
        + (
            f"<details><summary>{len(passed)} hidden tests passed</summary><table><tr><th>test</th>"
            f"<th class=num>points</th><th>details</th></tr>{passed_rows}</table></details>"
            if passed
            else ""
        )
        + (f"<h2>Notes</h2><ul>{notes}</ul>" if notes else "")
    )
    return _page(f"{assignment.id} feedback: {record.submission}", body)


def write_feedback(out: Path, record: Record, assignment: Assignment) -> None:

    atomic_write(out / "feedback" / f"{record.key}.html", feedback_html(record, assignment))


# -- class report --------------------------------------------------------------------------------


def _question_maxima(records: Sequence[Record]) -> dict[str, float]:
    """Each question's points, from the hidden tests' maxima (every row lists its tests)."""
    maxima: dict[str, float] = {}
    for r in records:
        per_q: dict[str, float] = {}
        for t in r.tests:
            per_q[t["number"]] = per_q.get(t["number"], 0.0) + float(t["max_score"])
        for q, v in per_q.items():
            maxima.setdefault(q, round(v, 6))
    return maxima


def _ran(test: dict[str, Any]) -> bool:
    """Whether the hidden test ran on the submission (not a row that was never graded)."""
    return not str(test.get("output", "")).startswith("not graded:")


def question_rates(records: Sequence[Record], questions: Sequence[str]) -> list[dict[str, Any]]:
    """Per question, among the submissions graded on it: mean points, as a share of its points,
    and how many lost points; worst first."""
    maxima = _question_maxima(records)
    rows = []
    for q in questions:
        scores = [r.questions[q] for r in records if q in r.questions and r.status == "graded"]
        top = maxima.get(q, 0.0)
        if not scores:
            continue
        lost = sum(_lost(s, top) for s in scores)
        rows.append(
            {
                "question": q,
                "points": top,
                "mean": mean(scores),
                "share": mean(scores) / top if top else 1.0,
                "lost": lost,
                "graded": len(scores),
            }
        )
    return sorted(rows, key=lambda x: (-x["lost"] / x["graded"], x["share"], x["question"]))


def mistake_counts(records: Sequence[Record]) -> list[dict[str, Any]]:
    """Each known mistake the graded submissions were told they made (mistakes named together
    make one row), with how many made it and what they read, most common first."""
    rows: dict[tuple[str, tuple[str, ...]], dict[str, Any]] = {}
    for r in records:
        if r.status != "graded":
            continue
        for q, d in r.diagnosis.items():
            ids = (str(d["mistake"]), *(str(m) for m in d.get("with", [])))
            row = rows.setdefault((q, ids), {"question": q, "mistakes": ids, "students": 0, "text": ""})
            row["students"] += 1
            row["text"] = row["text"] or str(d.get("text", ""))
    return sorted(rows.values(), key=lambda x: (-x["students"], x["question"], x["mistakes"]))


def hidden_test_rates(records: Sequence[Record]) -> list[dict[str, Any]]:
    """Per hidden test, among the submissions it ran on: how many failed it; worst first."""
    seen: dict[str, dict[str, Any]] = {}
    for r in records:
        for t in r.tests:
            if not _ran(t):
                continue
            row = seen.setdefault(
                t["name"], {"test": t["name"], "question": t["number"], "failed": 0, "ran": 0}
            )
            row["ran"] += 1
            row["failed"] += t["status"] != "passed"
    order = {name: i for i, name in enumerate(seen)}
    return sorted(seen.values(), key=lambda x: (-x["failed"] / x["ran"], order[x["test"]]))


# Room for the axis labels and the title of a 6 x 3 inch figure.
_MARGINS = {"left": 0.13, "right": 0.98, "top": 0.9, "bottom": 0.17}


def _figure_png(fig: object) -> str:
    buf = io.BytesIO()
    # Margins fixed where the figure is made, not bbox_inches="tight": that draws every figure
    # twice, for every file graded (figures: bench/RESULTS.md).
    fig.savefig(buf, format="png", dpi=100, metadata={"Software": None})  # type: ignore[attr-defined]
    return base64.b64encode(buf.getvalue()).decode()


def histogram_figure(totals: Sequence[float], possible: float) -> Any:
    """Submissions per total score: whole counts on the y axis, one bar per point where that
    is readable (a bar is "students with 12 to 13 points")."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    possible = possible or 1.0
    fig = Figure(figsize=(6, 3))
    fig.subplots_adjust(**_MARGINS)
    ax = fig.add_subplot()
    bins = int(possible) if float(possible).is_integer() and 5 <= possible <= 40 else 20
    ax.hist(totals, bins=bins, range=(0, possible), color="#4477aa", edgecolor="white")
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set(xlabel=f"total score (of {points(possible)})", ylabel="submissions", title="Score distribution")
    return fig


def questions_figure(shares: dict[str, float]) -> Any:
    """Mean score per question as a share of its points (a 1-point mean on a 2-point question
    is 50 %, not a bar as tall as a full 1-point question's)."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure
    from matplotlib.ticker import PercentFormatter

    fig = Figure(figsize=(6, 3))
    fig.subplots_adjust(**_MARGINS)
    ax = fig.add_subplot()
    drawn = ax.bar(list(shares), [100 * v for v in shares.values()], color="#66aa55")
    ax.bar_label(drawn, labels=[f"{100 * v:.0f}" for v in shares.values()], fontsize=8)
    ax.set_ylim(0, 105)
    ax.yaxis.set_major_formatter(PercentFormatter())
    ax.set(xlabel="question", ylabel="mean score", title="Mean score per question (share of its points)")
    return fig


def report_html(
    records: list[Record],
    assignment: Assignment,
    questions: list[str],
    similar: str = "",
    out: Path | None = None,
) -> str:
    """The class report; ``similar`` is its section on similar submissions (HTML,
    :func:`similar_section`), left out when empty; ``out``: the folder, named in the review
    commands of held questions (listed first)."""
    e = html.escape
    title = f"<h1>{e(assignment.id)}: class report</h1>"
    if not records:
        return _page(f"{assignment.id} class report", title + "<p>No submissions.</p>")
    possible = records[0].possible
    totals = [r.total for r in records]
    counts = Counter(r.status for r in records)
    order = sorted(counts, key=lambda s: (_STATUS_ORDER.index(s) if s in _STATUS_ORDER else 99, s))
    summary = (
        f"<p>{len(records)} submissions. Score: mean {mean(totals):.2f}, median {median(totals):.2f} "
        f"of {points(possible)} ({_percent(mean(totals), possible)} on average; a row that was not "
        "graded counts 0).</p>"
    )
    lacked = sorted({n for r in records for n in r.notes if n.startswith("the sandbox lacked: ")})
    if lacked:  # a protection this machine could not give: the instructor must know
        summary += "".join(f"<p><strong>Warning:</strong> {e(n)}.</p>" for n in lacked)
    status_rows = "".join(f"<tr><td>{e(s)}</td><td class=num>{counts[s]}</td></tr>" for s in order)

    by_question = question_rates(records, questions)
    mistakes = mistake_counts(records)
    made: dict[str, list[str]] = {}
    for x in mistakes:  # most common first
        made.setdefault(x["question"], []).append(f"{' / '.join(x['mistakes'])} ({x['students']})")
    q_rows = "".join(
        f"<tr><td>{e(x['question'])}</td><td class=num>{x['lost']} of {x['graded']}</td>"
        f"<td class=num>{_percent(x['lost'], x['graded'])}"
        f"<span class=bar style='width:{100 * x['lost'] / x['graded'] / 20:.2f}rem'></span></td>"
        f"<td class=num>{points(x['mean'])} of {points(x['points'])}</td>"
        f"<td class=num>{100 * x['share']:.0f} %</td>"
        f"<td>{e(', '.join(made.get(x['question'], [])))}</td></tr>"
        for x in by_question
    )
    share_of = {x["question"]: x["share"] for x in by_question}
    shares = {q: share_of[q] for q in questions if q in share_of}  # in the notebook's order
    by_test = hidden_test_rates(records)
    t_rows = "".join(
        f"<tr><td>{e(x['test'])}</td><td class=num>{x['failed']} of {x['ran']}</td>"
        f"<td class=num>{_percent(x['failed'], x['ran'])}"
        f"<span class=bar style='width:{100 * x['failed'] / x['ran'] / 20:.2f}rem'></span></td></tr>"
        for x in by_test
        if x["failed"]
    )
    never_failed = [x["test"] for x in by_test if not x["failed"]]
    m_rows = "".join(
        f"<tr><td>{e(x['question'])}</td><td><code>{e(' / '.join(x['mistakes']))}</code></td>"
        f"<td class=num>{x['students']}</td><td>{message_html(x['text'])}</td></tr>"
        for x in mistakes
    )
    flagged = [r for r in records if r.status != "graded"]
    flagged_rows = "".join(
        f"<tr><td>{_link(r)}</td><td>{e(r.status)}</td><td>{message_html(r.message)}</td></tr>"
        for r in flagged
    )
    all_rows = "".join(
        f"<tr><td>{_link(r)}</td><td class=num>{points(r.total)}</td><td>{e(r.status)}</td>"
        f"<td>{message_html(r.message)}</td></tr>"
        for r in sorted(records, key=lambda r: r.submission)
    )
    pending = [(r, q) for r in sorted(records, key=lambda r: r.submission) for q in r.pending]
    held_rows = "".join(
        f"<tr><td>{_link(r)}</td><td>{e(q)}</td><td class=num>{points(r.review[q]['points'])}</td>"
        f"<td>{message_html(str(r.review[q]['reason']))}"
        f"<details><summary>the code</summary><pre>{e(str(r.review[q].get('code', '')))}</pre></details>"
        f"<p><code>autograder review {e(shlex.quote(str(out)) if out else 'OUT')} "
        f"{e(shlex.quote(r.submission))} {e(q)} kept</code> (or <code>broken</code>)</p></td></tr>"
        for r, q in pending
    )
    held_section = (
        f"<h2>Held for your review ({len(pending)})</h2><p>The grader could not tell from the code "
        "whether these answers keep a rule of their question; their values are right. Each scores 0 "
        "on that question until you decide.</p><table><tr><th>submission</th><th>question</th>"
        f"<th class=num>points if kept</th><th>why, and the code</th></tr>{held_rows}</table>"
        if pending
        else ""
    )
    body = (
        title
        + summary
        + held_section
        + f"<table class=narrow><tr><th>status</th><th class=num>submissions</th></tr>{status_rows}</table>"
        + f"<figure><img alt='Score distribution: submissions per total score' width=600 "
        f"src='data:image/png;base64,{_figure_png(histogram_figure(totals, possible))}'></figure>"
        f"<figure><img alt='Mean score per question, as a share of its points' width=600 "
        f"src='data:image/png;base64,{_figure_png(questions_figure(shares))}'></figure>"
        + "<h2>Questions, worst first</h2><p>Among the submissions graded (status graded) on "
        "each question.</p>"
        "<table><tr><th>question</th><th class=num>lost points</th><th class=num>share</th>"
        "<th class=num>mean points</th><th class=num>mean score</th>"
        f"<th>known mistakes made (students), most common first</th></tr>{q_rows}</table>"
        + (
            "<h2>Known mistakes, most common first</h2><p>Submissions whose outputs on a question "
            "reproduce one of the course's known-wrong answers (what to re-teach).</p>"
            "<table><tr><th>question</th><th>known mistake</th><th class=num>students</th>"
            f"<th>what they read</th></tr>{m_rows}</table>"
            if m_rows
            else ""
        )
        + "<h2>Hidden tests, worst first</h2><p>Among the submissions each test ran on.</p>"
        + (
            "<table><tr><th>hidden test</th><th class=num>failed</th><th class=num>share</th></tr>"
            f"{t_rows}</table>"
            if t_rows
            else "<p>No hidden test failed.</p>"
        )
        + (
            f"<details><summary>{len(never_failed)} hidden tests no submission failed</summary><ul>"
            + "".join(f"<li>{e(name)}</li>" for name in never_failed)
            + "</ul></details>"
            if never_failed
            else ""
        )
        + "<h2>Errored, timed out or flagged</h2>"
        + (
            f"<table><tr><th>submission</th><th>status</th><th>message</th></tr>{flagged_rows}</table>"
            if flagged
            else "<p>None.</p>"
        )
        + similar
        + "<h2>Every submission</h2><p>Each name opens the student's feedback page.</p>"
        f"<table><tr><th>submission</th><th class=num>total</th><th>status</th><th>message</th></tr>"
        f"{all_rows}</table>"
    )
    return _page(f"{assignment.id} class report", body)


def similar_section(
    records: Sequence[Record], submissions: Sequence[Submission], assignment: Assignment
) -> str:
    """The report's section on similar submissions (:mod:`autograder.grading.similarity`), among
    those of ``submissions`` that are rows of ``records``; ``""`` without any. It reads code
    only and changes no record; when it fails, the report says so and is written all the same."""
    from ..similarity import class_comparison, report_section

    rows = {r.submission for r in records}
    compared = [s for s in submissions if s.name in rows and s.problem is None]
    if len(compared) < 2:  # nothing to pair (one late file, a student's own check): no cost
        return ""
    try:
        found = class_comparison(compared, assignment)
        return report_section(found.pairs, found.compared, found.unread)
    except Exception as e:  # noqa: BLE001 - a pointer for people: never the report's failure
        why = html.escape(type(e).__name__)
        return f"<h2>Similar submissions</h2><p>Not computed: the comparison failed ({why}).</p>"


def _link(record: Record) -> str:
    """The submission's name, linked to its feedback page, with its student where one is known
    (the LMS's id or the roster's)."""
    href = "feedback/" + quote(f"{record.key}.html")
    who = ", ".join(html.escape(x) for x in (record.student_name, record.student) if x)
    who = f" ({who})" if who else ""
    late = " <span class=late>late</span>" if marked_late_by(record.submission) else ""
    return f"<a href='{html.escape(href)}'>{html.escape(record.submission)}</a>{who}{late}"


def write_report(
    out: Path,
    records: list[Record],
    assignment: Assignment,
    questions: list[str],
    submissions: Sequence[Submission] = (),
) -> None:
    """``out/report.html``; with ``submissions`` (the batch's, whose code it compares) it lists
    similar ones (:func:`similar_section`)."""
    similar = similar_section(records, submissions, assignment)
    atomic_write(out / "report.html", report_html(records, assignment, questions, similar, out))
