"""``python -m autograder build``: the student release and the Gradescope autograder, from solutions/.

For each assignment: check the master → otter assign (student notebook and public tests) →
normalise the student files (setup cell first, export cell last, no outputs, stable cell ids) into
``assignments/<id>/`` → write the Gradescope autograder zip (:func:`gradescope_zip`), the student
handout zip (:mod:`autograder.release.handout`) and the solved notebook under ``build/<id>/``.
Same sources, same bytes, zips included.

The zip grades with this project's sandboxed grader (:mod:`autograder.release.gradescope`), not with
otter's autograder, whose hidden tests run inside the student's kernel: there a notebook cell
could import the shipped reference solution or patch the tests. :func:`autograder_master` still
makes that otter build's master, for comparisons (the nbgrader export's points, the benchmark);
nothing shipped is built from it.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import logging
import shutil
import sys
import tempfile
import zipfile
from pathlib import Path

import nbformat
import yaml

from ..config import ROOT, Assignment, Course, load_course
from ..errors import BuildError, NotebookError
from ..master_format import config_cell, marked_cells, master_config, master_questions, with_points
from ..notebooks import executable_source, read_notebook, typed_nbformat
from ..probing import ProbeSet
from ..sandbox.execution import load_probes
from .handout import add_export_cell, add_setup_cell, write_handout

#: The shell scripts Gradescope runs (``setup.sh`` once per image, ``run_autograder`` once per
#: submission), shipped as they are: the runtime they start is :mod:`.gradescope`.
TEMPLATES = Path(__file__).resolve().parent / "templates"

BUILD_ROOT = ROOT / "build"
RELEASE_ROOT = ROOT / "assignments"
#: A fixed date for every zip member, so that the same sources give the same zip bytes.
ZIP_DATE = (1980, 1, 1, 0, 0, 0)


def check_master(a: Assignment, nb: nbformat.NotebookNode, hidden: ProbeSet) -> None:
    """The master must be clean and agree with course.yml and its probes."""
    rel = a.master.relative_to(ROOT)
    for i, cell in enumerate(nb.cells, 1):
        if cell.cell_type == "code" and (cell.get("outputs") or cell.get("execution_count")):
            raise BuildError(
                f"{rel}: cell {i} has outputs or an execution count; clear them "
                "(notebooks are reviewed as code)"
            )
    if master_config(nb).get("name") != a.id:
        raise BuildError(f"{rel}: ASSIGNMENT CONFIG name must be {a.id!r}")
    if (master_config(nb).get("tests") or {}).get("files"):
        raise BuildError(
            f"{rel}: ASSIGNMENT CONFIG tests: files must be false (public tests travel in the "
            "notebook's metadata, so that the notebook alone is enough)"
        )
    questions = {q.name: q for q in master_questions(nb)}
    if list(questions) != list(a.questions):
        raise BuildError(f"{rel}: questions {list(questions)} differ from course.yml's {list(a.questions)}")
    for q, spec in a.questions.items():
        missing = [f for f in spec.functions if f not in questions[q].functions]
        if missing:
            raise BuildError(f"{rel}: {q}'s solution cell does not define {', '.join(missing)}")
        if questions[q].points is not None:
            raise BuildError(
                f"{rel}: {q}'s BEGIN QUESTION cell states points: {questions[q].points:g}; a question's "
                f"points are stated in course.yml only ({spec.points} there): remove the line"
            )
        scoring = [p for p in hidden.for_question(q) if not p.gate]
        if not scoring:
            raise BuildError(f"{a.probes_file.relative_to(ROOT)}: {q} has no scoring probe")
        shares = hidden.points(q, spec.points)
        worthless = [p.id for p in scoring if shares[p.id] == 0]
        if worthless:
            raise BuildError(
                f"{a.probes_file.relative_to(ROOT)}: {worthless[0]} gets 0 of {q}'s {spec.points} points "
                "(tests get quarter points): give it more weight, or the question more points in course.yml"
            )
    unknown = sorted(set(hidden.questions()) - set(questions))
    if unknown:
        raise BuildError(f"{a.probes_file.relative_to(ROOT)}: probes for unknown question {unknown[0]}")


def hidden_test_cell(probe_id: str, points: float, seed: int) -> nbformat.NotebookNode:
    """One otter hidden test case running a probe through :func:`autograder.probing.otter_check`."""
    name = "test_" + probe_id.replace(".", "_")
    source = (
        f'""" # BEGIN TEST CONFIG\nhidden: true\npoints: {points!r}\n""" # END TEST CONFIG\n'
        f"def {name}(env):\n"
        f"    from autograder.probing import otter_check\n"
        f"    from hidden_probes import hidden\n"
        f"    otter_check(hidden, {probe_id!r}, env, seed={seed})"
    )
    return typed_nbformat().v4.new_code_cell(source)


def autograder_master(
    a: Assignment, nb: nbformat.NotebookNode, hidden: ProbeSet, seed: int
) -> nbformat.NotebookNode:
    """The master of otter's in-kernel autograder: a hidden test cell per probe and the support
    files in its config. Not built any more; kept so that other exports can be compared with
    the points it gave each probe."""
    out = with_points(nb, a.points)
    cells = []
    for c in marked_cells(out):
        if c.kind == "config":
            config = {
                **c.config,
                "requirements": "requirements.txt",
                "run_tests": False,
                "autograder_files": list(kernel_support_files(a, nb)),
            }
            cells.append(config_cell(config))
            continue
        if c.kind == "end" and c.block == "TESTS" and c.question:
            shares = hidden.points(c.question, a.points[c.question])
            cells += [hidden_test_cell(p.id, shares[p.id], seed) for p in hidden.for_question(c.question)]
        cells.append(c.cell)
    out.cells = cells
    return out


def release_master(a: Assignment, nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """The master as otter assign gets it: course.yml's points in its questions
    (:func:`~autograder.master_format.with_points`); only the student release and the solved
    notebook are taken from its output, so it carries no hidden test and no support file (its
    ``requirements`` is a path relative to ``solutions/<id>/``: pointed at a copy beside it)."""
    out = with_points(nb, a.points)
    for c in marked_cells(nb):
        if c.kind == "config":
            config = {**c.config, "requirements": "requirements.txt", "run_tests": False}
            out.cells[c.index] = config_cell(config)
    return out


def reference_module(nb: nbformat.NotebookNode, a: Assignment) -> str:
    """The reference solution as a module (the public test cells left out), for the hidden tests
    that run in a student's kernel (:func:`kernel_support_files`)."""
    code = [c.source for c in marked_cells(nb) if c.cell_type == "code" and c.block != "TESTS"]
    body = "\n\n".join(executable_source(c) for c in code)
    return f'"""Reference solution of {a.id}, generated by `python -m autograder build`."""\n\n{body}\n'


def kernel_support_files(a: Assignment, nb: nbformat.NotebookNode) -> dict[str, str]:
    """``{relative path: text}`` of what hidden tests run in a student's kernel need beside it
    (otter's in-kernel autograder, the nbgrader export): the :mod:`autograder.probing` package
    alone of the grader, the probes and the reference solution as a module."""
    package = Path(__file__).resolve().parent.parent / "probing"
    files = {"autograder/__init__.py": '"""Hidden-test support: the probing package alone."""\n'}
    for path in sorted(package.glob("*.py")):
        files[f"autograder/probing/{path.name}"] = path.read_text(encoding="utf-8")
    files["hidden_probes.py"] = a.probes_file.read_text(encoding="utf-8")
    files["reference_solution.py"] = reference_module(nb, a)
    return files


def stable_ids(nb: nbformat.NotebookNode) -> None:
    """Cell ids from content, so that rebuilding gives the same bytes."""
    seen: dict[str, int] = {}
    for cell in nb.cells:
        base = hashlib.sha256((cell.cell_type + cell.source).encode()).hexdigest()[:12]
        n = seen.get(base, 0)
        seen[base] = n + 1
        cell["id"] = base if n == 0 else f"{base}-{n}"
        if cell.cell_type == "code":
            cell["outputs"] = []
            cell["execution_count"] = None


def write_notebook(nb: nbformat.NotebookNode, path: Path) -> None:
    path.write_text(typed_nbformat().writes(nb) + "\n", encoding="utf-8")


def load_sources(a: Assignment) -> tuple[nbformat.NotebookNode, ProbeSet]:
    """The checked master and probes of ``a``, or a one-line :class:`BuildError`."""
    try:
        nb = read_notebook(a.master)
    except NotebookError as e:
        raise BuildError(f"solutions/{a.id}/{e}") from None
    try:
        hidden = load_probes(a.probes_file)
    except Exception as e:  # noqa: BLE001 - instructor code: report it in one line
        raise BuildError(
            f"{a.probes_file.relative_to(ROOT)}: cannot be loaded ({type(e).__name__}: {e})"
        ) from None
    check_master(a, nb, hidden)
    return nb, hidden


def build_assignment(a: Assignment, course: Course, *, release_root: Path, build_root: Path) -> Path:
    """Build one assignment; returns its release folder."""
    nb, _ = load_sources(a)
    with tempfile.TemporaryDirectory(prefix=f"build-{a.id}-") as tmp:
        work = Path(tmp)
        shutil.copy(ROOT / "requirements" / "autograder.txt", work / "requirements.txt")
        master = work / a.notebook
        write_notebook(release_master(a, nb), master)
        _otter_assign(master, work / "dist")

        release = release_root / a.id
        if release.exists():
            shutil.rmtree(release)
        release.mkdir(parents=True)
        student = typed_nbformat().read(work / "dist" / "student" / a.notebook, as_version=4)
        add_setup_cell(student, a.notebook)
        add_export_cell(student)
        stable_ids(student)
        write_notebook(student, release / a.notebook)

        out = build_root / a.id
        if out.exists():
            shutil.rmtree(out)
        out.mkdir(parents=True)
        gradescope_zip(a, course, out / f"{a.id}-autograder.zip")
        write_handout(a, release, out / f"{a.id}-student.zip")
        solved = typed_nbformat().read(work / "dist" / "autograder" / a.notebook, as_version=4)
        add_setup_cell(solved, a.notebook)
        add_export_cell(solved)  # cell for cell the student notebook, solved
        stable_ids(solved)
        write_notebook(solved, out / "reference.ipynb")
    return release


def course_yaml(a: Assignment, course: Course) -> str:
    """``course.yml`` for the zip: the course's settings and ``a`` alone (keys left at their
    defaults are left out, and load back the same)."""
    data = course.model_copy(update={"assignments": [a]}).model_dump(mode="json", exclude_defaults=True)
    header = f"# {a.id} alone, generated by `python -m autograder build` from the course's course.yml.\n"
    return header + yaml.safe_dump(data, sort_keys=False, allow_unicode=True)


def gradescope_members(a: Assignment, course: Course) -> dict[str, bytes]:
    """What the Gradescope zip holds, by member name: Gradescope's ``setup.sh``,
    ``run_autograder`` and ``requirements.txt``, and under ``files/`` a course of its own
    (:mod:`autograder.release.gradescope`): the grader package, ``course.yml`` with ``a`` alone, and
    ``solutions/<id>/`` (master and probes), which only the grader reads."""
    members = {
        "run_autograder": (TEMPLATES / "run_autograder").read_bytes(),
        "setup.sh": (TEMPLATES / "setup.sh").read_bytes(),
        "requirements.txt": (ROOT / "requirements" / "autograder.txt").read_bytes(),
        "files/course.yml": course_yaml(a, course).encode(),
        f"files/solutions/{a.id}/{a.notebook}": a.master.read_bytes(),
        f"files/solutions/{a.id}/probes.py": a.probes_file.read_bytes(),
    }
    package = Path(__file__).resolve().parent.parent
    for path in sorted(package.rglob("*")):
        rel = path.relative_to(package)
        if path.is_file() and not any(p == "__pycache__" or p.startswith(".") for p in rel.parts):
            if path.suffix != ".pyc":
                members[f"files/autograder/{rel.as_posix()}"] = path.read_bytes()
    return members


def gradescope_zip(a: Assignment, course: Course, path: Path) -> None:
    """Write the Gradescope autograder zip of ``a``: sorted members with fixed dates and modes,
    so that the same sources give the same bytes."""
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in sorted(gradescope_members(a, course).items()):
            info = zipfile.ZipInfo(name, date_time=ZIP_DATE)
            info.create_system = 3  # Unix, so that the modes below are honoured
            mode = 0o755 if name in ("run_autograder", "setup.sh") else 0o644
            info.external_attr = (0o100000 | mode) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, data)


def _otter_assign(master: Path, dist: Path) -> None:
    from otter.assign import main as assign

    logging.getLogger("otter").setLevel(logging.ERROR)
    sink = io.StringIO()
    try:
        with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
            assign(str(master), str(dist), no_pdfs=True, no_run_tests=True)
    except Exception as e:  # noqa: BLE001 - otter's errors, turned into one line
        raise BuildError(f"otter assign failed on {master.name}: {type(e).__name__}: {e}") from None


def main(
    *,
    assignments: list[str] | None = None,
    release_root: Path = RELEASE_ROOT,
    build_root: Path = BUILD_ROOT,
    course: Course | None = None,
    quiet: bool = False,
) -> list[Path]:
    """Build the given assignments (all of course.yml by default); returns the release folders."""
    course = course or load_course()
    chosen = [course.assignment(i) for i in assignments] if assignments else course.assignments
    built = []
    for a in chosen:
        built.append(build_assignment(a, course, release_root=release_root, build_root=build_root))
        if not quiet:
            print(f"built {a.id}", file=sys.stderr)
    return built
