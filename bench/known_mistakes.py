"""Known mistakes: what running them beside the reference costs, and how often a wrong answer is
named, and named wrongly.

    .venv/bin/python bench/known_mistakes.py [ASSIGNMENT ...] [--fresh FILE] [--seed N]

1. cost, per assignment (default: 01-broadcasting), from a cold store of its own: the
   reference's side without the known mistakes (the stub's run and the reference's, side by
   side), then the known mistakes' run alone on the same store (what `grade` adds, once per
   batch seed);
2. the course's own known-wrong answers graded as submissions (each on its question, as
   `validate` builds them): how many are named as themselves, named wrongly, not named;
3. with ``--fresh FILE`` (a Python file defining ``FRESH = [(name, question, cell, wrong), ...]``,
   such as ``bench/fresh_wrong_answers/broadcasting.py``, written without reading the mutants):
   the same for answers the known mistakes were not written from, and the right ones among them
   must get no mistake.

Not a test: the seconds depend on the machine and its load (printed beside them).
"""

from __future__ import annotations

import argparse
import os
import runpy
import sys
import tempfile
import time
from pathlib import Path

from autograder.config import load_course
from autograder.grading import batch as grade
from autograder.grading.grader import Grader
from autograder.grading.options import GradeOptions
from autograder.grading.records import read_records
from autograder.notebooks import typed_nbformat
from autograder.release import build
from autograder.release.validate import graded_cells, mutant_notebook


def cost(assignment: str, seed: int, work: Path) -> tuple[float, float, int]:
    """Seconds of the reference's side without, then of the known mistakes alone; their count."""
    course = load_course()
    a = course.assignment(assignment)
    os.environ["AUTOGRADER_CACHE_DIR"] = str(work / "cache")
    start = time.monotonic()
    with Grader.for_course(course, a, work / "plain", seed=seed, diagnose=False) as g:
        g.references.outputs()
    plain = time.monotonic() - start
    start = time.monotonic()
    with Grader.for_course(course, a, work / "diag", seed=seed) as g:
        g.references.outputs()
        count = len(g.spec.mistakes)
    return plain, time.monotonic() - start, count


def graded(assignment: str, seed: int, work: Path, fresh: list[tuple[str, str, str, bool]]) -> None:
    course = load_course()
    a = course.assignment(assignment)
    build.build_assignment(a, course, release_root=work / "release", build_root=work / "build")
    reference = typed_nbformat().read(work / "build" / a.id / "reference.ipynb", as_version=4)
    functions = list(a.function_question())
    subs = work / "submissions"
    subs.mkdir()
    only: dict[str, tuple[str]] = {}
    expected: dict[str, str | None] = {}
    answers = [
        (p.stem, p.stem.split("_", 1)[0], p.read_text(), True, "known")
        for p in sorted(a.mutants_dir.glob("q*.py"))
    ]
    answers += [(name, q, cell, wrong, "fresh") for name, q, cell, wrong in fresh]
    for name, q, source, wrong, kind in answers:
        lean = graded_cells(reference, functions, extra=source)
        file = f"{kind}-{name}.ipynb"
        typed_nbformat().write(mutant_notebook(lean, a.questions[q].functions, source), subs / file)
        only[file] = (q,)
        expected[file] = name if kind == "known" else (None if not wrong else "?")
    os.environ["AUTOGRADER_CACHE_DIR"] = str(work / "cache")
    grade.run(
        GradeOptions(
            assignment=a.id,
            submissions=subs,
            out=work / "out",
            seed=seed,
            quiet=True,
            summary=False,
            only=only,
        )
    )
    records = read_records(work / "out")
    for kind in ("known", "fresh"):
        rows = [(f, records[f]) for f in sorted(records) if f.startswith(kind)]
        if not rows:
            continue
        named_count = wrong_count = lost = 0
        print(f"\n{kind} answers of {a.id}:")
        for f, r in rows:
            (q,) = r.questions
            d = r.diagnosis.get(q)
            named = [d["mistake"], *d.get("with", [])] if d else []
            want = expected[f]
            lost += r.questions[q] < a.points[q]
            if not named:
                verdict = "not named"
            elif kind == "known":
                verdict = "named as itself" if want in named else "NAMED WRONGLY"
            else:
                verdict = "named (judge it)" if want else "NAMED, BUT RIGHT"
            named_count += bool(named)
            wrong_count += verdict.isupper() or verdict.startswith("NAMED")
            print(f"  {f:45} {q:4} {r.questions[q]:g}/{a.points[q]:g}  {verdict:17} {' '.join(named)}")
        print(
            f"  {len(rows)} answers, {lost} lost points; {named_count} named, {wrong_count} of them wrongly"
        )
        for f, r in rows:
            (q,) = r.questions
            if q in r.diagnosis:
                print(f"    {f}: {r.message[:400]}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("assignments", nargs="*", default=["01-broadcasting"])
    parser.add_argument("--fresh", type=Path, help="a file defining FRESH, the unseen wrong answers")
    parser.add_argument("--seed", type=int, default=20260101)
    parser.add_argument("--cost-only", action="store_true")
    args = parser.parse_args()
    fresh = runpy.run_path(str(args.fresh))["FRESH"] if args.fresh else []
    for assignment in args.assignments:
        with tempfile.TemporaryDirectory(prefix="known-mistakes-") as tmp:
            plain, extra, count = cost(assignment, args.seed, Path(tmp))
            load = os.getloadavg()[0]
            print(
                f"{assignment}: reference's side {plain:.1f} s; {count} known mistakes {extra:.1f} s more "
                f"(load average {load:.1f} on {os.cpu_count()} cores)",
                flush=True,
            )
            if not args.cost_only:
                graded(assignment, args.seed, Path(tmp), fresh if assignment == "01-broadcasting" else [])
    return 0


if __name__ == "__main__":
    sys.exit(main())
