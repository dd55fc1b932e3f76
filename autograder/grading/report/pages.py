"""What people read after grading: one feedback page per student and the class report.

Pages are self-contained HTML (figures embedded as PNG), rendered from the Jinja templates under
``templates/``: the markup is there, the data comes from here, and the templates escape every
value (a submission's name, a judge's sentence that quotes its output) unless it is
:class:`~markupsafe.Markup`. Feedback shows each hidden test's name and the judge's sentence: shapes and
properties, never hidden inputs or test source. Points are shown to two decimals (a question's
share of 2 points over 3 tests is 0.67, not 0.666667); files keep the exact values.

The report answers an instructor's first questions at a glance: how the class did (score
distribution, status counts), where it struggled (the share of students who lost points on each
question and who failed each hidden test, worst first), and every submission, linked to its
feedback page. It renders what it is given: the similarity section shows what the similarity stage
stored (:mod:`autograder.grading.similarity`), computed before.
"""

from __future__ import annotations

import base64
import functools
import io
import re
import shlex
from collections import Counter
from collections.abc import Collection, Sequence
from pathlib import Path
from statistics import mean, median
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from markupsafe import Markup

from ...config import Assignment
from ..downloads import marked_late_by
from ..records import atomic_write

if TYPE_CHECKING:
    from ..records import Record
    from ..similarity import Comparison

#: Statuses in the order the report lists them.
_STATUS_ORDER = ("graded", "invalid", "timeout", "memory", "crashed", "tampered", "error")


_BACKTICKED = re.compile(r"`([^`\n]+)`")


def message_html(text: object) -> Markup:
    """A judge's message as HTML: each `...` pair of backticks, as messages write code, a
    ``<code>`` element; the rest, and the code itself, text (part of it came from a submission's
    sandbox): Markup escapes what it joins."""
    parts = _BACKTICKED.split(str(text))  # text, code, text, ..., text
    return Markup("").join(
        Markup("<code>{}</code>").format(part) if i % 2 else part for i, part in enumerate(parts)
    )


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
    """One student's page (``templates/feedback.html.j2``)."""
    ran = [t for t in record.tests if _ran(t)]
    maxima = _question_maxima([record])
    questions = [
        {"question": q, "points": v, "of": maxima.get(q, 0.0), "lost": _lost(v, maxima.get(q, 0.0))}
        for q, v in record.questions.items()
    ]
    return _render(
        "feedback.html.j2",
        title=f"{assignment.id} feedback: {record.submission}",
        record=record,
        assignment=assignment,
        late_by=marked_late_by(record.submission),
        ran=ran,
        failed=[t for t in ran if t["status"] != "passed"],
        passed=[t for t in ran if t["status"] == "passed"],
        questions=questions,
    )


def write_feedback(out: Path, record: Record, assignment: Assignment) -> None:
    page = feedback_html(record, assignment)
    atomic_write(out / "feedback" / f"{record.key}.html", page)


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
    similarity: Comparison | None = None,
    out: Path | None = None,
) -> str:
    """The class report; ``similarity`` is what the similarity stage found
    (:func:`autograder.grading.similarity.compare_class`), shown where it compared two
    submissions or more; ``out``: the folder, named in the review commands of held questions
    (listed first)."""
    title = f"{assignment.id} class report"
    if not records:
        return _render("report.html.j2", title=title, assignment=assignment, records=records)
    possible = records[0].possible
    totals = [r.total for r in records]
    counts = Counter(r.status for r in records)
    order = sorted(counts, key=lambda s: (_STATUS_ORDER.index(s) if s in _STATUS_ORDER else 99, s))
    by_question = question_rates(records, questions)
    mistakes = mistake_counts(records)
    made: dict[str, list[str]] = {}
    for x in mistakes:  # most common first
        made.setdefault(x["question"], []).append(f"{' / '.join(x['mistakes'])} ({x['students']})")
    share_of = {x["question"]: x["share"] for x in by_question}
    shares = {q: share_of[q] for q in questions if q in share_of}  # in the notebook's order
    by_test = hidden_test_rates(records)
    everyone = sorted(records, key=lambda r: r.submission)
    return _render(
        "report.html.j2",
        title=title,
        assignment=assignment,
        records=records,
        mean=mean(totals),
        median=median(totals),
        possible=possible,
        # a protection this machine could not give: the instructor must know
        lacked=sorted({n for r in records for n in r.notes if n.startswith("the sandbox lacked: ")}),
        held=[(r, q) for r in everyone for q in r.pending],
        out_arg=shlex.quote(str(out)) if out else "OUT",
        statuses=[(s, counts[s]) for s in order],
        histogram=_figure_png(histogram_figure(totals, possible)),
        per_question=_figure_png(questions_figure(shares)),
        by_question=by_question,
        made=made,
        mistakes=mistakes,
        failed_tests=[x for x in by_test if x["failed"]],
        never_failed=[x["test"] for x in by_test if not x["failed"]],
        flagged=[r for r in records if r.status != "graded"],
        similarity=similarity
        if similarity is not None and (similarity.compared >= 2 or similarity.unread)
        else None,
        everyone=everyone,
    )


def write_report(
    out: Path,
    records: list[Record],
    assignment: Assignment,
    questions: list[str],
    similarity: Comparison | None = None,
) -> None:
    """``out/report.html``, with the similarity stage's ``similarity`` (what the batch stored
    beside the records: :func:`autograder.grading.similarity.read_comparison`)."""
    page = report_html(records, assignment, questions, similarity, out)
    atomic_write(out / "report.html", page)


# -- templates -----------------------------------------------------------------------------------

#: Pairs shown in full in the similarity section; more are listed by name only.
SHOWN_PAIRS = 20
#: Lines of one function shown there; a longer one is cut.
SHOWN_LINES = 80


def _feedback_href(record: Record) -> str:
    return "feedback/" + quote(f"{record.key}.html")


def _numbered_lines(source: str, lines: Collection[int]) -> list[tuple[str, bool]]:
    """Each line of ``source`` with whether shared code covers it (its number, from 1, is in
    ``lines``)."""
    return [(line, i in lines) for i, line in enumerate(source.rstrip("\n").split("\n"), 1)]


@functools.cache
def _environment() -> Environment:
    """The pages' templates (``templates/`` beside this module): every value escaped unless it
    is :class:`~markupsafe.Markup` (what :func:`message_html` makes), an undefined name an error."""
    env = Environment(
        loader=PackageLoader(__package__ or __name__, "templates"),
        autoescape=select_autoescape(["html", "j2"]),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(
        points=points,
        percent=_percent,
        message=message_html,
        feedback_href=_feedback_href,
        late_by=marked_late_by,
        shell_quote=shlex.quote,
        numbered_lines=_numbered_lines,
    )
    env.globals.update(shown_pairs=SHOWN_PAIRS, shown_lines=SHOWN_LINES)
    return env


def _render(template: str, **data: Any) -> str:
    return _environment().get_template(template).render(**data) + "\n"
