"""Points are stated once, in course.yml, and split over each question's hidden tests in quarter
points: the grader, the nbgrader export, the otter build and the student release show the same
numbers, two decimals at most, adding up exactly to course.yml's (no float noise anywhere)."""

from __future__ import annotations

import collections
import re
from pathlib import Path

import nbformat
import pytest

from autograder.config import ROOT, load_course
from autograder.grading.grader import Grader
from autograder.master_format import marked_cells, master_questions, split_test_config
from autograder.probing import POINTS_GRID
from autograder.release import build
from autograder.release import nbgrader as export_nbgrader

COURSE = load_course()
IDS = [a.id for a in COURSE.assignments]
# A number written as a points value in a file: a JSON key, a YAML key or a Python assignment.
POINTS_TEXT = re.compile(r"""["']?points["']?\s*[:=]\s*([-+0-9.eE]+)""")


def on_grid(x: float) -> bool:
    """A multiple of the quarter-point grid, whose shortest repr has two decimals at most."""
    return (x * POINTS_GRID).is_integer() and len(repr(float(x)).partition(".")[2]) <= 2


def by_question(points: dict[str, float], sep: str) -> dict[str, float]:
    totals: dict[str, float] = collections.defaultdict(float)
    for name, p in points.items():
        totals[name.split(sep, 1)[0]] += p
    return dict(totals)


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("nbgrader")
    export_nbgrader.main(out=out, course=COURSE)
    return out


def test_masters_state_no_points_and_course_yml_states_every_question() -> None:
    for a in COURSE.assignments:
        masters = master_questions(nbformat.read(a.master, as_version=4))
        assert [q.name for q in masters] == list(a.points), a.id
        assert all(q.points is None for q in masters), f"{a.id}: points belong in course.yml"
        assert sum(a.points.values()) == COURSE.grading.points, a.id


@pytest.mark.parametrize("a_id", IDS)
def test_grader_points_add_up_to_course_yml(a_id: str, tmp_path: Path) -> None:
    a = COURSE.assignment(a_id)
    grader = Grader.for_course(COURSE, a, tmp_path, cpu_devices=1, seed=0)
    assert all(on_grid(p) for p in grader.points.values()), grader.points
    assert by_question(grader.points, ".") == {q: float(p) for q, p in a.points.items()}
    assert grader.possible == sum(grader.points.values()) == COURSE.grading.points


@pytest.mark.parametrize("a_id", IDS)
def test_nbgrader_points_have_two_decimals_and_total_course_yml(a_id: str, exported: Path) -> None:
    a = COURSE.assignment(a_id)
    path = exported / "source" / a_id / a.notebook
    text = path.read_text(encoding="utf-8")
    written = POINTS_TEXT.findall(text)
    assert written and all(on_grid(float(x)) and "e" not in x.lower() for x in written), written
    cells = [
        c.metadata["nbgrader"] for c in nbformat.reads(text, as_version=4).cells if "nbgrader" in c.metadata
    ]
    graded = {m["grade_id"]: m["points"] for m in cells if m["grade"]}
    scoring = {g: p for g, p in graded.items() if p > 0}
    assert by_question(scoring, "_") == a.points
    # nbgrader's max score is the sum of its cells' points, in whatever order it adds them.
    assert sum(graded.values()) == sum(reversed(graded.values())) == COURSE.grading.points
    for name in ("autograder_support", "release"):
        for other in (exported / name / a_id).rglob("*"):
            if other.is_file() and other.suffix in (".py", ".ipynb", ".yml"):
                bad = [
                    x for x in POINTS_TEXT.findall(other.read_text(encoding="utf-8")) if not on_grid(float(x))
                ]
                assert not bad, f"{other}: {bad}"


@pytest.mark.parametrize("a_id", IDS)
def test_otter_build_and_release_show_the_same_points(a_id: str, exported: Path) -> None:
    a = COURSE.assignment(a_id)
    nb, hidden = build.load_sources(a)
    otter = build.autograder_master(a, nb, hidden, COURSE.grading.seed)
    hidden_points = {}
    for c in marked_cells(otter):
        _, config = split_test_config(c.source) if c.cell_type == "code" else ("", {})
        if config.get("hidden") and config["points"] > 0:
            name = re.search(r"otter_check\(hidden, '([^']+)'", c.source).group(1)
            hidden_points[name.replace(".", "_", 1)] = config["points"]
    source = nbformat.read(exported / "source" / a_id / a.notebook, as_version=4)
    nbgrader = {
        c.metadata.nbgrader.grade_id: c.metadata.nbgrader.points
        for c in source.cells
        if c.metadata.get("nbgrader", {}).get("grade") and c.metadata.nbgrader.points > 0
    }
    assert hidden_points == nbgrader
    # The copy otter assign reads states course.yml's points (the master states none).
    assert {q.name: q.points for q in master_questions(otter)} == a.points
    release = nbformat.read(ROOT / "assignments" / a_id / a.notebook, as_version=4)
    for q, p in a.points.items():
        test = release.metadata.otter.tests[q]  # the public tests travel in the notebook
        assert re.search(rf"^points = {p}$", test, re.M), f"assignments/{a_id}/{a.notebook}: {q}"


def test_a_master_stating_points_is_refused_in_one_line() -> None:
    a = COURSE.assignment("02-prng")
    nb, hidden = build.load_sources(a)
    cell = next(c for c in nb.cells if c.cell_type == "raw" and "name: q3" in c.source)
    cell.source += "\npoints: 16"
    with pytest.raises(build.BuildError) as info:
        build.check_master(a, nb, hidden)
    assert str(info.value) == (
        "solutions/02-prng/prng.ipynb: q3's BEGIN QUESTION cell states points: 16; a question's "
        "points are stated in course.yml only (16 there): remove the line"
    )


def test_a_hidden_test_worth_nothing_is_refused() -> None:
    a = COURSE.assignment("02-prng")
    nb, hidden = build.load_sources(a)
    few = a.model_copy(
        update={"questions": {**a.questions, "q9": a.questions["q9"].model_copy(update={"points": 1})}}
    )
    with pytest.raises(
        build.BuildError, match=r"^solutions/02-prng/probes.py: q9\.\w+ gets 0 of q9's 1 points"
    ):
        build.check_master(few, nb, hidden)
