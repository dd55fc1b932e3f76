"""``python -m autograder validate``: what CI runs for every assignment.

build → grade, in one batch, the reference solution (full marks), the untouched stub (0, status
``graded``) and every known-wrong answer under ``solutions/<id>/mutants/`` (loses points on its question)
→ check that no solution line or hidden test text is in ``assignments/`` → check that
``assignments/`` is exactly what a fresh build makes. Prints a table; non-zero exit on failure.

A known-wrong answer costs what its change needs, as in mutation testing, and no more:
- it is graded on the question it is wrong about only: its other questions run the reference's
  code, which the reference row already proves;
- its notebook holds the reference's graded cells only (:func:`graded_cells`): the teaching demos
  run, and compile, in the reference and stub rows. A lean reference made the same way must
  score full marks, so an answer cannot lose points because a cell it needed was left out.
Together: a median of 0.4 s per known-wrong answer in the sandbox, against 2 s for the whole
reference (01 and 04 on 2 cores).
"""

from __future__ import annotations

import contextlib
import copy
import filecmp
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable, Collection
from dataclasses import dataclass
from pathlib import Path

import nbformat

from .. import master_format
from ..config import Assignment, Course, load_course
from ..grading import batch
from ..grading.mistakes import statement, text_problems
from ..grading.options import GradeOptions
from ..grading.records import Record, read_records
from ..notebooks import (
    code_cells,
    defining_cell,
    defining_cells,
    needed_cells,
    read_notebook,
    typed_nbformat,
)
from . import build

#: The reference's graded cells alone, graded beside the known-wrong answers built from them: at
#: full marks it proves that no answer lost points because a cell it needed was left out.
LEAN = "lean-reference.ipynb"


@dataclass(frozen=True)
class Check:
    assignment: str
    check: str
    ok: bool
    detail: str = ""


def mutant_notebook(
    reference: nbformat.NotebookNode, functions: list[str], source: str
) -> nbformat.NotebookNode:
    """The solved notebook with ``source`` as a new cell right after the cell defining
    ``functions``: its definitions win, and later cells use them."""
    nb = copy.deepcopy(reference)
    idx = defining_cell([c.source if c.cell_type == "code" else "" for c in nb.cells], functions)
    cells = list(nb.cells)
    cells.insert(idx + 1, typed_nbformat().v4.new_code_cell(source))
    nb.cells = cells
    return nb


def graded_cells(
    reference: nbformat.NotebookNode, functions: Collection[str], extra: str = ""
) -> nbformat.NotebookNode:
    """``reference`` with only the code cells its graded code needs: the cells that define
    ``functions`` and, repeatedly, every cell that binds a name a kept cell (or ``extra``, a
    known-wrong answer) reads. Teaching demos, which bind nothing that code reads, fall away, and
    with them most of a notebook's compiling; a cell that does not parse is kept."""
    positions = [i for i, c in enumerate(reference.cells) if c.cell_type == "code"]
    code = [reference.cells[i].source for i in positions]
    keep = {positions[j] for j in needed_cells(code, defining_cells(code, functions), extra)}
    nb = copy.deepcopy(reference)
    nb.cells = [c for i, c in enumerate(nb.cells) if c.cell_type != "code" or i in keep]
    return nb


def solution_lines(master: nbformat.NotebookNode) -> set[str]:
    """Non-trivial lines that only the solution has (see :func:`master_format.solution_lines`)."""
    return {
        line
        for src in code_cells(master)
        for line in master_format.solution_lines(src)
        if len(line) >= 16 and not line.startswith("#")
    }


def hidden_lines(probes_source: str) -> set[str]:
    """Lines of the hidden tests that identify them (code and docstrings, not imports)."""
    out = set()
    for line in probes_source.splitlines():
        s = line.strip()
        if len(s) >= 24 and not s.startswith(("import ", "from ", "#", "return None")):
            out.add(s)
    return out


def notebook_text(nb: nbformat.NotebookNode) -> str:
    """What a student can read in ``nb``: its cells and the public tests in its metadata."""
    tests = (nb.metadata.get("otter") or {}).get("tests") or {}
    return "\n".join([*(c.source for c in nb.cells), *(str(t) for t in tests.values())])


def release_text(release: Path) -> str:
    parts = []
    for f in sorted(release.rglob("*")):
        if f.is_file():
            text = f.read_text(encoding="utf-8", errors="replace")
            if f.suffix == ".ipynb":
                text = notebook_text(typed_nbformat().reads(text, as_version=4))
            parts.append(text)
    return "\n".join(parts)


def leak_checks(a: Assignment, text: str | None = None, where: str = "release") -> list[Check]:
    """No solution line and no hidden test in ``text`` (by default, the committed release's)."""
    text = release_text(a.release_dir) if text is None else text
    master = read_notebook(a.master)
    leaked = sorted(line for line in solution_lines(master) if line in text)
    hidden = sorted(line for line in hidden_lines(a.probes_file.read_text()) if line in text)
    markers = [m for m in ("hidden_probes", "otter_check", "hidden: true", "hidden=True") if m in text]
    return [
        Check(a.id, f"no solution line in {where}", not leaked, leaked[0][:60] if leaked else ""),
        Check(
            a.id, f"no hidden test in {where}", not (hidden or markers), (hidden or markers or [""])[0][:60]
        ),
    ]


def handout_checks(a: Assignment, handout: Path, release: Path) -> list[Check]:
    """The student zip holds the release folder ``release`` (under ``<id>/``) and nothing else,
    and no solution line or hidden test."""
    with zipfile.ZipFile(handout) as zf:
        members = {name: zf.read(name) for name in zf.namelist()}
    expected = {f"{a.id}/{p.relative_to(release).as_posix()}" for p in release.rglob("*") if p.is_file()}
    extra = sorted(set(members) ^ expected)
    parts = []
    for name, data in sorted(members.items()):
        text = data.decode("utf-8", errors="replace")
        parts.append(
            notebook_text(typed_nbformat().reads(text, as_version=4)) if name.endswith(".ipynb") else text
        )
    return [
        Check(a.id, "student zip holds the release only", not extra, extra[0] if extra else ""),
        *leak_checks(a, "\n".join(parts), where="student zip"),
    ]


def fresh_checks(a: Assignment, fresh: Path) -> list[Check]:
    committed = a.release_dir
    if not committed.exists():
        return [Check(a.id, "release is fresh", False, f"assignments/{a.id} is missing; run build")]
    names = sorted(
        {p.relative_to(committed) for p in committed.rglob("*") if p.is_file()}
        | {p.relative_to(fresh) for p in fresh.rglob("*") if p.is_file()}
    )
    differ = [
        str(n)
        for n in names
        if not (committed / n).is_file()
        or not (fresh / n).is_file()
        or not filecmp.cmp(committed / n, fresh / n, shallow=False)
    ]
    return [
        Check(
            a.id,
            "release is fresh",
            not differ,
            f"{differ[0]} differs from a fresh build; run build" if differ else "",
        )
    ]


def mistake_checks(a: Assignment) -> list[Check]:
    """Every known-wrong answer states its mistake for the student (:func:`text_problems`):
    present, in the course's voice, quoting neither the solution nor the hidden tests."""
    solution = solution_lines(read_notebook(a.master))
    hidden = hidden_lines(a.probes_file.read_text(encoding="utf-8"))
    bad = [
        f"{path.name} {problems[0]}"
        for path in sorted(a.mutants_dir.glob("q*.py"))
        if (problems := text_problems(statement(path.read_text(encoding="utf-8")), solution, hidden))
    ]
    return [
        Check(
            a.id,
            "known-wrong answers state their mistake",
            not bad,
            f"{bad[0]}" + (f" (and {len(bad) - 1} more)" if len(bad) > 1 else "") if bad else "",
        )
    ]


def grading_checks(a: Assignment, records: dict[str, Record], mutants: dict[str, str]) -> list[Check]:
    checks = []
    ref = records["reference.ipynb"]
    checks.append(
        Check(
            a.id,
            "reference scores full marks",
            ref.status == "graded" and ref.total == ref.possible,
            f"{ref.total:g}/{ref.possible:g} {ref.status}: {ref.message[:120]}",
        )
    )
    lean = records[LEAN]
    checks.append(
        Check(
            a.id,
            "lean reference (graded cells only) scores full marks",
            lean.status == "graded" and lean.total == lean.possible,
            f"{lean.total:g}/{lean.possible:g} {lean.status}: {lean.message[:120]}",
        )
    )
    stub = records["stub.ipynb"]
    checks.append(
        Check(
            a.id,
            "stub scores 0 without crashing",
            stub.status == "graded" and stub.total == 0,
            f"{stub.total:g}/{stub.possible:g} {stub.status}",
        )
    )
    caught = []
    for name, q in mutants.items():
        r = records[name]
        full = ref.questions[q]
        if r.status == "error":
            # The grader's fault, not the answer's: it proves nothing either way.
            caught.append(f"{name} was not graded (error: {r.message[:100]})")
        elif not r.questions[q] < full:
            caught.append(f"{name} kept {r.questions[q]:g}/{full:g} on {q}")
    checks.append(
        Check(
            a.id,
            f"{len(mutants)} known-wrong answers lose points",
            not caught and len(mutants) >= 3 * len(a.questions),
            caught[0]
            if caught
            else (
                ""
                if len(mutants) >= 3 * len(a.questions)
                else f"only {len(mutants)} known-wrong answers; need 3 per question"
            ),
        )
    )
    per_q = {q: sum(1 for m in mutants.values() if m == q) for q in a.questions}
    thin = [q for q, n in per_q.items() if n < 3]
    if thin:
        checks.append(
            Check(a.id, "3 known-wrong answers per question", False, f"{thin[0]} has {per_q[thin[0]]}")
        )
    return checks


def validate_assignment(
    a: Assignment,
    course: Course,
    *,
    device: str = "cpu",
    jobs: int | None = None,
    cpu_devices: int | None = None,
    quiet: bool = True,
    workdir: Path | None = None,
    known_wrong: Collection[str] | None = None,
    report: Callable[[str], None] | None = None,
    diagnose: bool = False,
) -> list[Check]:
    """Every check of one assignment. With ``workdir``, the fresh build (``build/``, Gradescope
    zip included) and release, the submissions (``submissions/``) and the grader's output
    (``out/``) are kept there, so that tests can look at the same grading run (the Gradescope
    zip test does).
    ``known_wrong``: grade only these known-wrong answers (file stems under
    ``solutions/<id>/mutants/``); the count checks then fail, so use it only where they are not
    the point.
    ``diagnose``: grade as ``grade`` does by default, naming the known mistake each answer
    reproduces (the known-wrong answers run once more, beside the reference); by default they
    are graded only to see them lose points.
    ``report``: called with one line as each check and each graded submission finishes (the
    command line prints them, with the elapsed time, on a terminal and in a log alike)."""
    keep = workdir is not None
    say = report or (lambda line: None)
    reported = 0

    def report_checks(checks: list[Check]) -> None:
        nonlocal reported
        for c in checks[reported:]:
            line = f"{'ok  ' if c.ok else 'FAIL'} {c.check}"
            say(f"{line}: {c.detail[:160]}" if c.detail and not c.ok else line)
        reported = len(checks)

    with (
        contextlib.nullcontext(str(workdir))
        if keep
        else tempfile.TemporaryDirectory(prefix=f"validate-{a.id}-") as tmp
    ):
        tmp_path = Path(tmp)
        # Its own build folder: validate checks the sources and leaves build/ to `build`, and
        # several validations can run at once.
        build.build_assignment(a, course, release_root=tmp_path / "release", build_root=tmp_path / "build")
        checks = fresh_checks(a, tmp_path / "release" / a.id)
        checks += mistake_checks(a)
        checks += handout_checks(
            a, tmp_path / "build" / a.id / f"{a.id}-student.zip", tmp_path / "release" / a.id
        )
        report_checks(checks)
        subs = tmp_path / "submissions"
        subs.mkdir()
        reference = typed_nbformat().read(tmp_path / "build" / a.id / "reference.ipynb", as_version=4)
        typed_nbformat().write(reference, subs / "reference.ipynb")
        (subs / "stub.ipynb").write_bytes((tmp_path / "release" / a.id / a.notebook).read_bytes())
        functions = list(a.function_question())
        typed_nbformat().write(graded_cells(reference, functions), subs / LEAN)
        mutants: dict[str, str] = {}
        for path in sorted(a.mutants_dir.glob("q*.py")):
            if known_wrong is not None and path.stem not in known_wrong:
                continue
            q = path.name.split("_", 1)[0]
            if q not in a.questions:
                checks.append(Check(a.id, "known-wrong answers name a question", False, path.name))
                continue
            name = f"mutant-{path.stem}.ipynb"
            source = path.read_text()
            lean = graded_cells(reference, functions, extra=source)
            typed_nbformat().write(mutant_notebook(lean, a.questions[q].functions, source), subs / name)
            mutants[name] = q
        out = tmp_path / "out"

        def graded(r: Record) -> None:
            q = mutants.get(r.submission)
            if q is None:
                say(f"graded {r.submission}: {r.status}, {r.total:g}/{r.possible:g}")
            else:
                kept = r.questions.get(q, 0.0)
                verdict = "loses points" if r.status != "error" and kept < a.points[q] else "KEEPS ITS POINTS"
                if r.status == "error":
                    verdict = "not graded (the grader failed)"
                stem = r.submission.removeprefix("mutant-").removesuffix(".ipynb")
                say(f"known-wrong {stem}: {verdict} ({q} {kept:g}/{a.points[q]:g})")

        status = batch.run(
            GradeOptions(
                assignment=a.id,
                submissions=subs,
                out=out,
                device=device,
                jobs=jobs,
                quiet=quiet,
                summary=False,  # validate prints its own table
                cpu_devices=cpu_devices,
                course=course,
                only={name: (q,) for name, q in mutants.items()},
                on_record=graded,
                diagnose=diagnose,
            )
        )
        if status != 0:
            checks = [*checks, Check(a.id, "grading ran", False, f"grade exited with {status}")]
            report_checks(checks)
            return checks
        checks += grading_checks(a, read_records(out), mutants)
    checks += leak_checks(a)
    report_checks(checks)
    return checks


def main(
    *,
    assignments: list[str] | None = None,
    device: str = "cpu",
    jobs: int | None = None,
    cpu_devices: int | None = None,
    quiet: bool | None = None,
) -> int:
    from tabulate import tabulate

    course = load_course()
    chosen = [course.assignment(i) for i in assignments] if assignments else course.assignments
    quiet = (not sys.stderr.isatty()) if quiet is None else quiet
    checks: list[Check] = []
    for a in chosen:
        # A line per step and per check on stderr, on a terminal or not: a validation takes
        # a minute or more per assignment, and a log must show where it is.
        start = time.monotonic()

        def say(line: str, a: Assignment = a, start: float = start) -> None:
            print(f"validate {a.id} [{time.monotonic() - start:5.1f} s] {line}", file=sys.stderr, flush=True)

        say("building, then grading the reference, the stub and the known-wrong answers")
        checks += validate_assignment(
            a, course, device=device, jobs=jobs, cpu_devices=cpu_devices, quiet=quiet, report=say
        )
    rows = [(c.assignment, c.check, "ok" if c.ok else "FAIL", c.detail) for c in checks]
    print(tabulate(rows, headers=["assignment", "check", "result", "detail"]))
    failed = [c for c in checks if not c.ok]
    print(f"\nvalidate: {len(checks) - len(failed)} passed, {len(failed)} failed")
    return 1 if failed else 0
