"""What people read after grading: one feedback page per student and the class report.

Pages are self-contained HTML (figures embedded as PNG) and escape everything that came from a
submission. Feedback shows each hidden test's name and the judge's sentence: shapes and
properties, never hidden inputs or test source.
"""

from __future__ import annotations

import base64
import html
import io
from pathlib import Path
from statistics import mean, median
from typing import TYPE_CHECKING

from .config import Assignment

if TYPE_CHECKING:
    from .grade import Record

_STYLE = """<style>
body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#222}
table{border-collapse:collapse;width:100%;margin:1rem 0}td,th{border-bottom:1px solid #ddd;
padding:.35rem .5rem;text-align:left;vertical-align:top}th{background:#f4f4f4}
.passed{color:#17692b}.failed{color:#a11}.status{font-weight:600}code{background:#f4f4f4;padding:0 .2rem}
</style>"""


def _page(title: str, body: str) -> str:
    return (
        f"<!doctype html><html lang=en><head><meta charset=utf-8><title>{html.escape(title)}"
        f"</title>{_STYLE}</head><body>{body}</body></html>\n"
    )


def _fmt(x: float) -> str:
    return f"{x:g}"


def feedback_html(record: Record, assignment: Assignment) -> str:
    e = html.escape
    rows = "".join(
        f"<tr><td>{e(t['name'])}</td><td class={e(t['status'])}>{e(t['status'])}</td>"
        f"<td>{_fmt(t['score'])} / {_fmt(t['max_score'])}</td><td>{e(t['output'])}</td></tr>"
        for t in record.tests
    )
    per_q = "".join(f"<tr><td>{e(q)}</td><td>{_fmt(v)}</td></tr>" for q, v in record.questions.items())
    notes = "".join(f"<li>{e(n)}</li>" for n in record.notes)
    body = (
        f"<h1>{e(assignment.id)}: {e(assignment.title)}</h1>"
        f"<p>Submission <code>{e(record.submission)}</code>: "
        f"<b>{_fmt(record.total)} / {_fmt(record.possible)}</b>, "
        f"status <span class=status>{e(record.status)}</span>.</p><p>{e(record.message)}</p>"
        f"<h2>Questions</h2><table><tr><th>question</th><th>points</th></tr>{per_q}</table>"
        f"<h2>Hidden tests</h2><table><tr><th>test</th><th>result</th><th>points</th>"
        f"<th>details</th></tr>{rows}</table>" + (f"<h2>Notes</h2><ul>{notes}</ul>" if notes else "")
    )
    return _page(f"{assignment.id} feedback: {record.submission}", body)


def write_feedback(out: Path, record: Record, assignment: Assignment) -> None:
    from .grade import atomic_write

    atomic_write(out / "feedback" / f"{record.key}.html", feedback_html(record, assignment))


def _figure_png(fig: object) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100, bbox_inches="tight", metadata={"Software": None})  # type: ignore[attr-defined]
    return base64.b64encode(buf.getvalue()).decode()


def report_html(records: list[Record], assignment: Assignment, questions: list[str]) -> str:
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    e = html.escape
    possible = records[0].possible if records else 0.0
    totals = [r.total for r in records]
    counts = {s: sum(r.status == s for r in records) for s in dict.fromkeys(r.status for r in records)}

    hist = Figure(figsize=(6, 3))
    ax = hist.add_subplot()
    ax.hist(totals, bins=min(20, max(5, int(possible) + 1)), range=(0, possible or 1), color="#4477aa")
    ax.set(xlabel="total score", ylabel="submissions", title="Score distribution")
    # A row graded on some questions only (validate's known-wrong answers) counts where graded.
    means = [mean([r.questions[q] for r in records if q in r.questions] or [0.0]) for q in questions]
    bars = Figure(figsize=(6, 3))
    bx = bars.add_subplot()
    bx.bar(questions, means, color="#66aa55")
    bx.set(xlabel="question", ylabel="mean points", title="Mean points per question")

    flagged = [r for r in records if r.status != "graded"]
    flagged_rows = "".join(
        f"<tr><td>{e(r.submission)}</td><td>{e(r.status)}</td><td>{e(r.message)}</td></tr>" for r in flagged
    )
    status_rows = "".join(f"<tr><td>{e(s)}</td><td>{n}</td></tr>" for s, n in counts.items())
    summary = (
        f"<p>{len(records)} submissions; mean {mean(totals):.2f}, median {median(totals):g} "
        f"of {_fmt(possible)}.</p>"
        if records
        else "<p>No submissions.</p>"
    )
    lacked = sorted({n for r in records for n in r.notes if n.startswith("the sandbox lacked: ")})
    if lacked:  # a protection this machine could not give: the instructor must know
        summary += "".join(f"<p><strong>Warning:</strong> {e(n)}.</p>" for n in lacked)
    body = (
        f"<h1>{e(assignment.id)}: class report</h1>{summary}"
        f"<table><tr><th>status</th><th>submissions</th></tr>{status_rows}</table>"
        f"<img alt='score histogram' src='data:image/png;base64,{_figure_png(hist)}'>"
        f"<img alt='mean points per question' src='data:image/png;base64,{_figure_png(bars)}'>"
        f"<h2>Errored, timed out or flagged</h2>"
        + (
            f"<table><tr><th>submission</th><th>status</th><th>message</th></tr>{flagged_rows}</table>"
            if flagged
            else "<p>None.</p>"
        )
    )
    return _page(f"{assignment.id} class report", body)


def write_report(out: Path, records: list[Record], assignment: Assignment, questions: list[str]) -> None:
    from .grade import atomic_write

    atomic_write(out / "report.html", report_html(records, assignment, questions))
