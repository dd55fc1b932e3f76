"""``autograder review OUT [SUBMISSION QUESTION kept|broken]``: the instructor's decision on a
question the grader held for review (a gate that could not tell whether a rule was kept).

Without a decision it lists what is pending. With one, it records the decision in
``OUT/reviews.json`` (kept for the submission's exact bytes: a resubmission is held afresh) and
rewrites what follows from it: that row's results and feedback page, the gradebook, the class
report and the LMS import files. A later ``grade`` into OUT applies recorded decisions to the
rows it grades again.
"""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..errors import UsageError
from .records import Record, atomic_write, read_records, write_gradebook

DECISIONS = ("kept", "broken")


def reviews_file(out: Path) -> Path:
    return out / "reviews.json"


def read_decisions(out: Path) -> dict[str, dict[str, Any]]:
    """``{submission: {"fingerprint": ..., "questions": {question: decision}}}``; empty if none."""
    try:
        data = json.loads(reviews_file(out).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def apply_decisions(record: Record, decisions: dict[str, dict[str, Any]]) -> Record:
    """``record`` with the recorded decisions on its held questions applied: a question whose
    rule was kept scores what its tests earned, one whose rule was broken keeps its 0."""
    mine = decisions.get(record.submission)
    if not record.review or not isinstance(mine, dict) or mine.get("fingerprint") != record.fingerprint:
        return record
    chosen = mine.get("questions") or {}
    review = {q: dict(r) for q, r in record.review.items()}
    questions = dict(record.questions)
    for q, r in review.items():
        decision = chosen.get(q)
        if decision in DECISIONS:
            r["decision"] = decision
            questions[q] = float(r["points"]) if decision == "kept" else 0.0
    pending = [q for q, r in review.items() if "decision" not in r]
    message = record.message
    if not pending and "held for the instructor's review" in message:
        decided = ", ".join(f"{q} ({r['decision']})" for q, r in review.items())
        message = (
            f"Reviewed by the instructor: {decided}. "
            + message.split("those points wait for that review. ", 1)[-1]
        )
    return replace(record, questions=questions, review=review, message=message)


def main(
    *, out: Path, submission: str | None = None, question: str | None = None, decision: str | None = None
) -> int:
    from ..config import load_course
    from .report.pages import write_feedback, write_report
    from .similarity import read_comparison

    out = Path(out).expanduser().absolute()
    batch = out / "batch.json"
    try:
        assignment_id = json.loads(batch.read_text(encoding="utf-8"))["assignment"]
    except (OSError, ValueError, KeyError, TypeError):
        raise UsageError(f"{out}: not a folder that `autograder grade` wrote (no batch.json)") from None
    records = read_records(out)
    if submission is None:
        pending = [(r, q) for r in sorted(records.values(), key=lambda r: r.submission) for q in r.pending]
        if not pending:
            print(f"{out}: no question is held for review")
        for r, q in pending:
            print(f"{r.submission} {q} ({r.review[q]['points']:g} points if kept): {r.review[q]['reason']}")
        return 0
    if question is None or decision not in DECISIONS:
        raise UsageError("review OUT SUBMISSION QUESTION kept|broken: give all three, or none to list")
    record = records.get(submission)
    if record is None:
        raise UsageError(f"{out}: no submission {submission!r} (see its gradebook.csv)")
    if question not in record.review:
        raise UsageError(f"{submission}: {question} is not held for review")
    decisions = read_decisions(out)
    entry = decisions.setdefault(submission, {"fingerprint": record.fingerprint, "questions": {}})
    if entry.get("fingerprint") != record.fingerprint:
        entry.update(fingerprint=record.fingerprint, questions={})
    entry["questions"][question] = decision
    atomic_write(reviews_file(out), json.dumps(decisions, indent=1, sort_keys=True) + "\n")

    course = load_course()
    a = course.assignment(assignment_id)
    updated = apply_decisions(record, decisions)
    atomic_write(
        out / "results" / f"{updated.key}.json",
        json.dumps(updated.to_results(), indent=1, sort_keys=True) + "\n",
    )
    write_feedback(out, updated, a)
    records[submission] = updated
    rows = sorted(records.values(), key=lambda r: r.submission)
    questions = list(a.questions)
    write_gradebook(out / "gradebook.csv", rows, questions)
    write_report(out, rows, a, questions, read_comparison(out))  # the code is unchanged: as stored
    from .lms.export import rewrite_imports

    lines = rewrite_imports(out, rows, a, lambda m: print(f"warning: {m}", file=sys.stderr))
    print(f"{submission} {question}: {decision}; it now scores {updated.total:g} / {updated.possible:g}")
    for line in lines:
        print(line)
    left = sum(len(r.pending) for r in rows)
    print(
        f"{left} held question{'s' if left != 1 else ''} still pending" if left else "nothing left to review"
    )
    return 0
