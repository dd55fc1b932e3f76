"""In-process check of an assignment's probes while writing it (no sandbox, no build):

    python -m autograder.selfcheck 01-broadcasting [-q q3]

Runs the master's reference solution, the stub and the known-wrong answers under
``solutions/<assignment>/mutants/`` through the hidden probes, each variant's cells once and their
printed output captured, and prints per question what ran: the probes (by name), the reference's
verdict, the points the stub and each known-wrong answer kept. With ``-q qN``: that question's
probes and known-wrong answers only, and of the notebook only the cells they need (the graded
cells, below) and the question's own cells.

As ``validate`` does (:func:`autograder.release.validate.graded_cells`), a known-wrong answer runs
on the reference's graded cells only (those defining the syllabus functions and every cell binding
a name they read; teaching demos left out), and a lean reference made of them must pass too.

The real gate is ``python -m autograder validate``; this is the quick loop for authors.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import re
import sys
import time
import traceback
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .config import Assignment, load_course
from .errors import ConfigError
from .master_format import marked_cells, master_questions, stub_source
from .notebooks import (
    defining_cell,
    defining_cells,
    needed_cells,
    typed_nbformat,
)
from .probing import Probe, ProbeSet, decode_run, judge_probe, probe_seed, run_probe, score_question
from .sandbox.execution import load_probes, run_cells


def score(probes: list[Probe], env: dict[str, Any], ref: dict[str, Any], seed: int) -> dict[str, str | None]:
    return {
        p.id: judge_probe(p, decode_run(run_probe(p, env, probe_seed(seed, p.id))), ref[p.id]) for p in probes
    }


def question_scores(
    hidden: ProbeSet, questions: Mapping[str, float], problems: Mapping[str, str | None]
) -> dict[str, tuple[float, list[str]]]:
    """``{question: (earned, messages)}`` of ``questions`` (name -> points)."""
    out = {}
    for q, points in questions.items():
        probes = [p for p in hidden.for_question(q) if p.id in problems]
        if probes:
            out[q] = score_question(probes, hidden.points(q, points), problems)
    return out


@contextlib.contextmanager
def captured() -> Iterator[io.StringIO]:
    """What the notebook's cells and the probes print goes here, not to the terminal."""
    sink = io.StringIO()
    with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
        yield sink


class Report:
    """Problems found so far, each printed on its own line when found."""

    def __init__(self) -> None:
        self.problems: list[str] = []

    def fail(self, line: str) -> None:
        self.problems.append(line)
        print(f"FAIL {line}", flush=True)


@dataclass
class Outcome:
    """What ran for one question, and what each variant scored."""

    points: float
    probes: list[Probe]
    reference: str = "not run"
    lean: str | None = None
    stub: float | None = None
    answers: list[tuple[str, float]] = field(default_factory=list)

    def line(self, q: str) -> str:
        names = ", ".join(p.name + (" [gate]" if p.gate else "") for p in self.probes)
        parts = [f"{q}: {len(self.probes)} probes ({names}) on the reference ({self.reference})"]
        if self.lean is not None:
            parts.append(f"the lean reference ({self.lean})")
        if self.stub is not None:
            parts.append(f"the stub ({self.stub:g}/{self.points:g})")
        if self.reference == "pass":
            kept = [
                f"{stem} {earned:g}/{self.points:g}" + (" NOT CAUGHT" if earned >= self.points else "")
                for stem, earned in self.answers
            ]
            parts.append(f"{len(kept)} known-wrong answers" + (f": {', '.join(kept)}" if kept else ""))
        return ", ".join(parts)


def run_variant(name: str, cells: list[str], numbers: list[int] | None, report: Report) -> dict[str, Any]:
    """Run ``cells`` once, their output captured; with ``numbers`` (each cell's number in the
    master), a cell that raises is a problem."""
    with captured():
        env, errors = run_cells(cells)
    for e in errors if numbers is not None else []:
        m = re.match(r"cell (\d+): ", e)
        assert numbers is not None
        where = f"cell {numbers[int(m.group(1))]} of the master" if m else "a cell"
        report.fail(f"{name}: {where} raised {e[m.end() if m else 0 :]}"[:300])
    return env


def check(
    a: Assignment, hidden: ProbeSet, seed: int, question: str | None, report: Report
) -> dict[str, Outcome]:
    """Run the checks of ``a`` (one question, or all), each problem into ``report``."""
    nb = typed_nbformat().read(a.master, as_version=4)
    code = [c for c in marked_cells(nb) if c.cell_type == "code"]
    cells = [c.source for c in code]
    numbers = [c.index + 1 for c in code]  # as build numbers a master's cells
    questions = {q: spec.points for q, spec in a.questions.items() if question in (None, q)}
    outcomes = {q: Outcome(points, hidden.for_question(q)) for q, points in questions.items()}
    functions = list(a.function_question())

    in_master = {m.name: m for m in master_questions(nb)}
    if list(in_master) != list(a.questions):
        report.fail(f"the master's questions {list(in_master)} differ from course.yml's {list(a.questions)}")
    for q in questions:
        missing = [f for f in a.questions[q].functions if q in in_master and f not in in_master[q].functions]
        if missing:
            report.fail(f"{q}'s solution cell does not define {', '.join(missing)}")
    for q, points in questions.items():
        scoring = [p for p in hidden.for_question(q) if not p.gate]
        shares = hidden.points(q, points)
        if not hidden.for_question(q):
            report.fail(f"{q} has no probes in {a.probes_file.name}")
        elif not scoring:
            report.fail(f"{q} has no scoring probe (gates carry no points); build refuses this")
        elif worthless := [p.id for p in scoring if shares[p.id] == 0]:
            report.fail(f"{worthless[0]} gets 0 of {q}'s {points} points; build refuses this")
    unknown = sorted(set(hidden.questions()) - set(a.questions))
    if unknown:
        report.fail(f"{a.probes_file.name} has probes for {unknown[0]}, which course.yml does not list")
    mutants: dict[str, list[Path]] = {q: [] for q in questions}
    for path in sorted(a.mutants_dir.glob("q*.py")):
        q = path.name.split("_", 1)[0]
        if q not in a.questions:
            report.fail(f"mutants/{path.name}: {q} is not a question of {a.id}")
        elif q in questions:
            mutants[q].append(path)
    for q, paths in mutants.items():
        if len(paths) < 3:
            report.fail(f"{q} has {len(paths)} known-wrong answers in mutants/; validate needs 3")

    graded = defining_cells(cells, functions)
    lean = needed_cells(cells, graded)
    if question is None:
        full = list(range(len(cells)))
    else:  # the graded cells, and the question's own cells (demos, public tests) with what they read
        own = {i for i, c in enumerate(code) if c.question == question}
        full = sorted(set(lean) | set(needed_cells(cells, own)))

    selected = [p for p in hidden.probes if p.question in questions]
    env = run_variant("the reference", [cells[i] for i in full], [numbers[i] for i in full], report)
    ref: dict[str, Any] = {}
    with captured():
        for p in selected:
            ref[p.id] = decode_run(run_probe(p, env, probe_seed(seed, p.id)))
        twice = {
            p.id: decode_run(run_probe(p, env, probe_seed(seed, p.id))) for p in selected if ref[p.id]["ok"]
        }
    for o in outcomes.values():
        o.reference = "pass"
        for p in o.probes:
            if not ref[p.id]["ok"]:
                report.fail(f"the reference fails {p.id}: {ref[p.id]['error']}")
            elif problem := judge_probe(p, twice[p.id], ref[p.id]):
                report.fail(f"the reference is not deterministic on {p.id}: {problem}")
            else:
                continue
            o.reference = "FAIL"
    if any(o.reference != "pass" for o in outcomes.values()):
        return outcomes  # nothing else can be judged against it

    if lean != full:
        env = run_variant("the lean reference", [cells[i] for i in lean], None, report)
        with captured():
            problems = score(selected, env, ref, seed)
        for o in outcomes.values():
            failed = [p.id for p in o.probes if problems[p.id]]
            o.lean = "FAIL" if failed else "pass"
            if failed:
                report.fail(
                    f"the lean reference (graded cells only) fails {failed[0]}: {problems[failed[0]]}; "
                    "a cell it needs binds names in a way selfcheck and validate cannot see"
                )

    env = run_variant("the stub", [stub_source(cells[i]) for i in full], None, report)
    with captured():
        stub = question_scores(hidden, questions, score(selected, env, ref, seed))
    for q, o in outcomes.items():
        o.stub = stub[q][0] if q in stub else None
        if o.stub:
            report.fail(f"the stub scores {o.stub:g}/{o.points:g} on {q}; it must score 0")

    for q, paths in mutants.items():
        o = outcomes[q]
        for path in paths:
            source = path.read_text(encoding="utf-8")
            lean_cells = [cells[i] for i in needed_cells(cells, graded, extra=source)]
            try:
                at = defining_cell(lean_cells, a.questions[q].functions) + 1
                with captured():
                    env, errors = run_cells([*lean_cells[:at], source, *lean_cells[at:]])
                    results = score(o.probes, env, ref, seed)
            except Exception:  # noqa: BLE001 - reported, and the next answer runs
                report.fail(f"mutants/{path.name} could not be checked:\n{traceback.format_exc()}")
                continue
            earned = question_scores(hidden, {q: o.points}, results)[q][0]
            o.answers.append((path.stem, earned))
            if earned >= o.points:
                report.fail(f"mutants/{path.name} keeps {earned:g}/{o.points:g} on {q}; it must lose points")
            raised = [e for e in errors if e.startswith(f"cell {at}: ")]
            if raised:  # not a failure (validate would count it caught), but rarely what was meant
                print(f"note: mutants/{path.name} raised when defined: {raised[0].split(': ', 1)[1]}"[:300])
    return outcomes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("assignment")
    parser.add_argument("-q", "--question", help="only this question (its probes and known-wrong answers)")
    args = parser.parse_args(argv)
    start, cpu = time.perf_counter(), time.process_time()
    try:
        course = load_course(check_files=False)
        a = course.assignment(args.assignment)
    except ConfigError as e:
        print(f"selfcheck: error: {e}")
        return 2
    if args.question is not None and args.question not in a.questions:
        print(
            f"selfcheck: {a.id} has no question {args.question!r}; course.yml lists {', '.join(a.questions)}"
        )
        return 2
    hidden = load_probes(a.probes_file)
    report = Report()
    outcomes = check(a, hidden, course.grading.seed, args.question, report)
    for q, o in outcomes.items():
        print(o.line(q), flush=True)
    problems = report.problems
    probes = sum(len(o.probes) for o in outcomes.values())
    answers = sum(len(o.answers) for o in outcomes.values())
    what = f"{a.id}" + (f" -q {args.question}" if args.question else "")
    took = f"{time.perf_counter() - start:.1f} s ({time.process_time() - cpu:.1f} s of CPU)"
    ran = f"{probes} probes, {answers} known-wrong answers, in {took}"
    if problems:
        more = f" (and {len(problems) - 1} more above)" if len(problems) > 1 else ""
        print(f"selfcheck {what} FAILED: {problems[0].splitlines()[0]}{more}; {ran}")
        return 1
    print(f"selfcheck {what} passed: {ran}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
