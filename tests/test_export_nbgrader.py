"""The nbgrader export, through nbgrader itself: `generate_assignment` and `autograde`.

One nbgrader course holds every assignment that has a master. The points per question must be
course.yml's and the otter build's, and the student release must hold no hidden test and no
solution. Two students submit each autograded assignment: `reference` (the release with the
master's solutions typed in, and one hidden test cell edited) must score full marks, `stub` (the
untouched release) 0; autograde must report the edited cell changed, and no other.

Autograding runs every notebook whole in a kernel (~40 s for the larger ones on 2 cores), so
`make test` autogrades AUTOGRADED, the plain case and the one that needs 8 virtual devices in
nbgrader's kernel; `make test-all` (pytest --every-export) autogrades every assignment.
"""

from __future__ import annotations

import collections
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest
import yaml

from autograder.config import ROOT, load_course
from autograder.master_format import master_questions
from autograder.notebooks import read_notebook
from autograder.release import nbgrader as export_nbgrader
from autograder.release.build import autograder_master
from autograder.sandbox.execution import load_probes
from autograder.sandbox.xla_cache import compilation_cache_settings

pytestmark = pytest.mark.slow

COURSE = load_course(check_files=False)
READY = [a.id for a in COURSE.assignments if a.master.is_file() and a.probes_file.is_file()]
STUDENTS = ("reference", "stub")
AUTOGRADED = [a for a in ("01-broadcasting", "05-pmap") if a in READY]
# Text in a release that would give a hidden test or a solution away.
HIDDEN_MARKS = (
    "BEGIN HIDDEN TESTS",
    "END HIDDEN TESTS",
    "otter_check",
    "hidden_probes",
    export_nbgrader.HIDDEN_MODULE,
    export_nbgrader.SUPPORT_DIR,
    "reference_solution",
    "BEGIN SOLUTION",
    "END SOLUTION",
)


def kernel_cache(folder: Path) -> Path:
    """A JAX compilation cache for nbgrader's kernels, holding every program the grader's
    reference runs compiled in this session (a speed-up only: run alone, it starts empty)."""
    for store in Path(os.environ.get("AUTOGRADER_CACHE_DIR", folder)).glob("*/xla"):
        shutil.copytree(store, folder, dirs_exist_ok=True)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def nbgrader(course: Path, *args: str) -> subprocess.Popen[str]:
    """Start the nbgrader command line of this Python in ``course``; see :func:`finish`."""
    env = dict(os.environ)
    # nbgrader runs `alembic` from PATH, and its kernels must be this Python.
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    # Read-only: the two autograde runs overlap, and neither would gain from the other's writes.
    cache = compilation_cache_settings(course.parent / "kernel-xla", writes=False)
    env.update({k.upper(): str(v) for k, v in cache.items()})
    return subprocess.Popen(
        [sys.executable, "-m", "nbgrader", *args, "--db", f"sqlite:///{course / 'gradebook.db'}"],
        cwd=course,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def finish(*runs: subprocess.Popen[str]) -> list[str]:
    """Wait for nbgrader runs; fail with the log of one that failed. Returns their logs."""
    logs = []
    for run in runs:
        log, _ = run.communicate(timeout=1500)
        assert run.returncode == 0, f"{' '.join(run.args[2:])} failed:\n{log[-8000:]}"
        logs.append(log)
    return logs


def changed_cells(log: str) -> dict[str, list[str]]:
    """``{assignment: [log line, ...]}``: the lines of an ``nbgrader autograde`` log that report a
    changed cell ("Attribute 'checksum' for cell <grade id> has changed! ..."), by the submission
    nbgrader was sanitizing then; every submission sanitized has an entry."""
    out: dict[str, list[str]] = {}
    current = None
    for line in log.splitlines():
        m = re.search(r"\] Sanitizing .*[/\\]submitted[/\\][^/\\]+[/\\]([^/\\]+)[/\\]", line)
        if m:
            current = m.group(1)
            out.setdefault(current, [])
        elif "has changed" in line:
            assert current is not None, f"a changed cell before any submission: {line}"
            out[current].append(line.strip())
    return out


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def solution_lines(source: str) -> tuple[list[str], list[str]]:
    """``(lines outside solution regions, lines inside)`` of a cell, stripped."""
    outside, inside, solution = [], [], False
    for line in source.split("\n"):
        if re.match(r"\s*#+ BEGIN SOLUTION", line):
            solution = True
        elif re.match(r"\s*#+ END SOLUTION", line):
            solution = False
        else:
            (inside if solution else outside).append(line.strip())
    return outside, inside


def otter_points(a_id: str, master: nbformat.NotebookNode, probes: Path) -> dict[str, float]:
    """``{"<question>_<probe>": points}`` of the otter build's scoring hidden test cells."""
    nb = autograder_master(COURSE.assignment(a_id), master, load_probes(probes), COURSE.grading.seed)
    test = re.compile(r'""" # BEGIN TEST CONFIG\n(.*?)""" # END TEST CONFIG\ndef test_(q\d+_\w+)\(', re.S)
    points = {}
    for cell in nb.cells:
        m = test.match(cell.source) if cell.cell_type == "code" else None
        config = yaml.safe_load(m.group(1)) if m else {}
        if config.get("hidden") and float(config["points"]) > 0:
            points[m.group(2)] = float(config["points"])
    return points


@dataclass
class Exported:
    """One assignment of the autograded course, with the sources it was exported from."""

    master: nbformat.NotebookNode
    """the master as read just before the export (other people may be editing it)"""
    release: Path
    support: Path
    source: nbformat.NotebookNode
    otter: dict[str, float]
    """points of the otter build's hidden test cells, by nbgrader grade id"""
    points: dict[str, float]
    """nbgrader's points, by grade id"""
    scores: dict[str, dict[str, float]] | None
    """nbgrader's scores: ``{student: {grade id: score}}``; None where not autograded"""
    max_score: float
    """the notebook's max score in nbgrader's gradebook (its own sum of the cells' points)"""
    tampered: str | None
    """grade id of the hidden test cell edited in the ``reference`` submission; None where not autograded"""
    changed: dict[str, list[str]] | None
    """autograde's log lines that report a changed cell: ``{student: [line, ...]}``"""


@pytest.fixture(scope="module")
def course(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Exported]:
    """Export, ``generate_assignment``, two submissions per autograded assignment, ``autograde``.
    Each student is autograded in a copy of the course (and its gradebook), the two at once."""
    if not READY:
        pytest.skip("no assignment of course.yml has a master and probes.py yet")
    autograded = READY if request.config.getoption("every_export") else AUTOGRADED
    root = tmp_path_factory.mktemp("nbgrader") / "course"
    kernel_cache(root.parent / "kernel-xla")
    masters = {a: read_notebook(COURSE.assignment(a).master) for a in READY}
    export_nbgrader.main(out=root, assignments=READY, course=COURSE)
    finish(nbgrader(root, "generate_assignment", "*", "--force"))
    from nbgrader.api import Gradebook

    points: dict[str, dict[str, float]] = {}
    max_score: dict[str, float] = {}
    tampered: dict[str, str] = {}
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gb:
        for a in READY:
            notebooks = gb.find_assignment(a).notebooks
            points[a] = {c.name: c.max_score for nb in notebooks for c in nb.grade_cells}
            max_score[a] = sum(nb.max_score for nb in notebooks)
    for a in map(COURSE.assignment, autograded):
        source = nbformat.read(root / "source" / a.id / a.notebook, as_version=4)
        solutions = {
            c.metadata.nbgrader["grade_id"]: c.source
            for c in source.cells
            if c.metadata.get("nbgrader", {}).get("solution")
        }
        release = (root / "release" / a.id / a.notebook).read_text(encoding="utf-8")
        filled = nbformat.reads(release, as_version=4)
        hidden_ids = [
            c.metadata.nbgrader["grade_id"]
            for c in source.cells
            if c.metadata.get("nbgrader", {}).get("grade") and "BEGIN HIDDEN TESTS" in c.source
        ]
        tampered[a.id] = hidden_ids[0]
        for cell in filled.cells:
            meta = cell.metadata.get("nbgrader", {})
            if meta.get("grade_id") == tampered[a.id]:
                cell.source = "pass  # an edited hidden test cell: nbgrader must report and restore it"
            if meta.get("solution"):
                cell.source = "\n".join(
                    line
                    for line in solutions[meta["grade_id"]].split("\n")
                    if not re.search(r"### (BEGIN|END) SOLUTION", line)
                )
        for student, text in (("reference", nbformat.writes(filled)), ("stub", release)):
            folder = root / "submitted" / student / a.id
            folder.mkdir(parents=True)
            (folder / a.notebook).write_text(text, encoding="utf-8")
    folders = {"reference": root, "stub": shutil.copytree(root, root.with_name("course-stub"))}
    logs = finish(
        *(
            nbgrader(folder, "autograde", "*", f"--student={student}", "--force")
            for student, folder in folders.items()
        )
    )
    changed: dict[str, dict[str, list[str]]] = collections.defaultdict(dict)
    for student, log in zip(folders, logs, strict=True):
        for a, lines in changed_cells(log).items():
            changed[a][student] = lines
    for a in autograded:
        assert set(changed[a]) == set(STUDENTS), f"no autograde log of {a}: {sorted(changed[a])}"

    scores: dict[str, dict[str, dict[str, float]]] = collections.defaultdict(dict)
    for student, folder in folders.items():
        with Gradebook(f"sqlite:///{folder / 'gradebook.db'}") as gb:
            for a in autograded:
                grades = [g for nb in gb.find_submission(a, student).notebooks for g in nb.grades]
                scores[a][student] = {g.name: g.score for g in grades}
                assert {g.name: g.max_score for g in grades} == points[a], "autograde changed the points"
    out = {}
    for a in map(COURSE.assignment, READY):
        support = root / export_nbgrader.SUPPORT_DIR / a.id
        out[a.id] = Exported(
            master=masters[a.id],
            release=root / "release" / a.id,
            support=support,
            source=nbformat.read(root / "source" / a.id / a.notebook, as_version=4),
            otter=otter_points(a.id, masters[a.id], support / "hidden_probes.py"),
            points=points[a.id],
            scores=scores.get(a.id),
            max_score=max_score[a.id],
            tampered=tampered.get(a.id),
            changed=changed.get(a.id),
        )
    return out


def assignment_param(a_id: str):  # noqa: ANN201 - a pytest param
    a = COURSE.assignment(a_id)
    marks = [pytest.mark.assignment(a_id)]
    if a_id not in READY:
        missing = a.master if not a.master.is_file() else a.probes_file
        marks.append(pytest.mark.skip(reason=f"solutions/{a_id}/{missing.name} does not exist yet"))
    return pytest.param(a_id, marks=marks, id=a_id)


ALL = [assignment_param(a.id) for a in COURSE.assignments]


@pytest.mark.parametrize("a_id", ALL)
def test_points_match_course_and_otter(a_id: str, course: dict[str, Exported]) -> None:
    e = course[a_id]
    stated = COURSE.assignment(a_id).points
    assert [q.name for q in master_questions(e.master)] == list(stated)
    scoring = {name: p for name, p in e.points.items() if p > 0}
    per_question: dict[str, float] = collections.defaultdict(float)
    for name, p in scoring.items():
        per_question[name.split("_", 1)[0]] += p
    # Exactly course.yml's: quarter points add up with no float noise, in nbgrader's gradebook too.
    assert per_question == stated
    assert sum(e.points.values()) == e.max_score == COURSE.grading.points
    assert all(len(repr(float(p)).partition(".")[2]) <= 2 for p in e.points.values()), e.points
    # One graded cell per scoring probe, worth exactly the points of the otter build's hidden test.
    assert scoring == e.otter


@pytest.mark.parametrize("a_id", ALL)
def test_reference_full_marks_stub_zero(a_id: str, course: dict[str, Exported]) -> None:
    e = course[a_id]
    if e.scores is None:
        pytest.skip(f"autograded with --every-export (make test-all) only; make test: {AUTOGRADED}")
    assert sum(e.points.values()) > 0
    lost = {g: (s, e.points[g]) for g, s in e.scores["reference"].items() if s != e.points[g]}
    assert not lost, f"the reference solution lost points (cell: score, points): {lost}"
    earned = {g: s for g, s in e.scores["stub"].items() if s != 0}
    assert not earned, f"the untouched release earned points: {earned}"


@pytest.mark.parametrize("a_id", ALL)
def test_autograde_reports_only_edited_cells_changed(a_id: str, course: dict[str, Exported]) -> None:
    """``generate_assignment`` saves a hidden test cell's checksum before it clears the hidden
    region (jupyter/nbgrader#1961), so plain nbgrader reports every hidden test cell of an
    untouched release changed; the export's ``RestoreHiddenTests`` must keep that quiet, yet
    still report (and restore) a hidden test cell the student did edit, with the same scores."""
    e = course[a_id]
    if e.scores is None or e.changed is None:
        pytest.skip(f"autograded with --every-export (make test-all) only; make test: {AUTOGRADED}")
    assert e.changed["stub"] == [], (
        f"autograde reports cells of the untouched release changed: {e.changed['stub']}"
    )
    assert len(e.changed["reference"]) == 1, e.changed["reference"]
    assert f"Attribute 'checksum' for cell {e.tampered} has changed!" in e.changed["reference"][0]
    assert e.scores["stub"] == dict.fromkeys(e.points, 0)
    assert e.scores["reference"] == e.points


@pytest.mark.parametrize("a_id", ALL)
def test_release_has_no_hidden_test_and_no_solution(a_id: str, course: dict[str, Exported]) -> None:
    e, notebook = course[a_id], COURSE.assignment(a_id).notebook
    assert sorted(p.name for p in e.release.rglob("*")) == [notebook], "the release holds other files"
    text = (e.release / notebook).read_text(encoding="utf-8")
    for mark in HIDDEN_MARKS:
        assert mark not in text, f"the release contains {mark!r}"
    released = {
        line.strip() for cell in nbformat.reads(text, as_version=4).cells for line in cell.source.split("\n")
    }

    public, solution = set(), set()
    for cell in e.source.cells:
        if cell.metadata.nbgrader.get("grade") and "BEGIN HIDDEN TESTS" in cell.source:
            continue
        outside, inside = solution_lines(cell.source)
        public.update(outside)
        solution.update(inside)
    secret = {line for line in solution if len(line) > 8} - public
    assert secret, "the source notebook has no solution lines to look for"
    assert not secret & released, f"solution lines in the release: {sorted(secret & released)[:3]}"

    probes = (e.support / "hidden_probes.py").read_text(encoding="utf-8")
    secret = {line.strip() for line in probes.split("\n") if len(line.strip()) > 20} - public
    assert secret, "probes.py has no lines to look for"
    assert not secret & released, f"probes.py lines in the release: {sorted(secret & released)[:3]}"


def test_export_is_reproducible(tmp_path: Path) -> None:
    if not READY:
        pytest.skip("no assignment of course.yml has a master and probes.py yet")
    first, second = tmp_path / "first", tmp_path / "second"
    export_nbgrader.main(out=first, assignments=READY, course=COURSE)
    export_nbgrader.main(out=second, assignments=READY, course=COURSE)
    before = tree(second)
    export_nbgrader.main(out=second, assignments=READY, course=COURSE)  # again, over itself
    assert tree(first) == before == tree(second)
    support = (
        "autograder/__init__.py",
        *(f"autograder/probing/{p.name}" for p in (ROOT / "autograder" / "probing").glob("*.py")),
        "hidden_probes.py",
        f"{export_nbgrader.HIDDEN_MODULE}.py",
        "reference_solution.py",
    )
    assert sorted(before) == sorted(
        ["nbgrader_config.py"]
        + [f"source/{a.id}/{a.notebook}" for a in map(COURSE.assignment, READY)]
        + [f"{export_nbgrader.SUPPORT_DIR}/{a}/{f}" for a in READY for f in support]
    )


def test_cli_writes_the_course(tmp_path: Path) -> None:
    if len(READY) < len(COURSE.assignments):
        pytest.skip("the command exports every assignment of course.yml; some have no master yet")
    from autograder.cli import main

    assert main(["export-nbgrader", str(tmp_path / "out")]) == 0
    assert (tmp_path / "out" / "nbgrader_config.py").is_file()
    assert sorted(p.name for p in (tmp_path / "out" / "source").iterdir()) == READY
