"""Every assignment of course.yml, through `validate` and through its Gradescope autograder zip.

One grading run per assignment serves both: `validate` (reference at full marks, stub at 0 with
status `graded`, each known-wrong answer losing points on its question, no leak, fresh release)
and the Gradescope check (the built zip, run as Gradescope runs it, grades as we did).
05-pmap is graded again on 2 CPU devices (its floor), where every check must hold too, and on 1
device, where the reference and the stub must still score right.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from tabulate import tabulate

from autograder.config import load_course, with_device_floor
from autograder.grading.grader import Grader
from autograder.grading.mistakes import nameable
from autograder.grading.records import read_records
from autograder.release.validate import LEAN, Check, validate_assignment

pytestmark = pytest.mark.slow

COURSE = load_course()
IDS = [a.id for a in COURSE.assignments]

# Known-wrong answers of 05-pmap that score full marks on one device: with a single replica
# there is nothing to average, so a missing, extra or misplaced collective changes nothing.
# (q7's plain jit is not among them: its results are not typed on an Explicit mesh.)
ONE_DEVICE_BLIND = {
    "q4_loss_not_averaged",
    "q4_no_pmean_of_grads",
    "q4_psum",
    "q4_vmap_not_pmap",
    "q6_norm_of_all_device_gradients",
    "q6_per_device_norm",
    "q6_pmean_of_grads",
    "q9_pmean",
    "q10_no_collective",
    "q10_pmean_of_grads",
    "q10_psum_loss",
}


# The assignments whose Gradescope zip `make test-course` runs end to end (`make test-all`: every one).
# Every zip is the same launcher and support files around one assignment's course.yml entry,
# probes and stub, all of which `validate` runs; a run costs ~1 minute on 2 cores. 01 is the
# plain case; 05 is graded on 8 virtual devices, which the zip's own course.yml must set up.
ZIPS_RUN = ("01-broadcasting", "05-pmap")


# The assignment whose validate batch also names each known mistake, as `grade` does: running
# its known-wrong answers beside the reference costs the least (docs/authoring.md, *Known-wrong
# answers*: 01's 62 in about 25 s on 2 busy cores).
NAMES_MISTAKES = ("01-broadcasting",)


@pytest.fixture(scope="module", params=[pytest.param(i, marks=pytest.mark.assignment(i)) for i in IDS])
def validated(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):  # noqa: ANN201
    a = COURSE.assignment(request.param)
    work = tmp_path_factory.mktemp(a.id)
    return a, work, validate_assignment(a, COURSE, workdir=work, diagnose=a.id in NAMES_MISTAKES)


def test_validate(validated: tuple) -> None:
    a, _, checks = validated
    failed: list[Check] = [c for c in checks if not c.ok]
    assert not failed, "\n" + tabulate([(c.check, c.detail) for c in failed], headers=["check", "detail"])


def test_the_gradescope_zip_grades_as_we_do(
    validated: tuple,
    gradescope: Callable[[Path, list[Path], Path], dict[str, dict[str, Any]]],
    tmp_path: Path,
    request: pytest.FixtureRequest,
) -> None:
    """The built Gradescope zip, unpacked and run as Gradescope runs it (``run_autograder``, one
    submission per run), gives the reference, the stub and the first known-wrong answer the
    results we gave them: the same status, score and outcome of each hidden test (the
    known-wrong answer on the question it is wrong about, and full marks on its other
    questions, the reference's).

    Not every known-wrong answer: each run costs ~5 s of start-up (a Python, a zygote, the
    reference store read back) to grade with the very code `validate` has just run on it.
    What this test adds is the zip itself: its files, its own course.yml and its launcher."""
    a, work, _ = validated
    if a.id not in ZIPS_RUN and not request.config.getoption("every_export"):
        pytest.skip(
            f"run with --every-export (make test-all); make test-course runs {' and '.join(ZIPS_RUN)}"
        )
    ours = read_records(work / "out")
    # 06-training's questions build on each other (fit calls make_dataset, init_params, ...): a
    # wrong q1 rightly costs q6 too when the whole notebook is graded, so its zip is checked on a
    # known-wrong answer of q8, which no other question calls.
    prefix = "mutant-q8_" if a.id == "06-training" else "mutant-"
    mutant = min(n for n in ours if n.startswith(prefix))
    names = ["reference.ipynb", "stub.ipynb", mutant]
    zip_path = work / "build" / a.id / f"{a.id}-autograder.zip"
    theirs = gradescope(zip_path, [work / "submissions" / n for n in names], tmp_path)

    def outcomes(tests: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Each hidden test's name, points and status; not its sentence, which may quote inputs."""
        return [{k: v for k, v in t.items() if k != "output"} for t in tests]

    for name in names[:2]:
        r, g = ours[name], theirs[name]
        assert (g["extra_data"]["status"], g["score"]) == (r.status, r.total), (name, g["output"])
        assert g["extra_data"]["questions"] == r.questions, name
        assert outcomes(g["tests"]) == outcomes(r.tests), name
    assert theirs["reference.ipynb"]["output"] == ours["reference.ipynb"].message
    # The known-wrong answer: its score may rightly differ from ours, since Gradescope draws
    # each submission's hidden inputs from its own bytes (`submission_seed`) and validate from
    # the batch seed; an answer wrong on some inputs only (a hidden global state) fails more or
    # fewer of them. Its hidden tests and its loss are what must agree.
    (q,) = ours[mutant].questions
    got = theirs[mutant]["extra_data"]["questions"]
    assert got[q] < ours["reference.ipynb"].questions[q], mutant
    mine = [t for t in theirs[mutant]["tests"] if t["number"] == q]
    assert [t["name"] for t in mine] == [t["name"] for t in ours[mutant].tests], mutant
    assert sum(t["score"] for t in mine) == got[q], mutant
    others = {k: v for k, v in ours["reference.ipynb"].questions.items() if k != q}
    assert {k: v for k, v in got.items() if k != q} == others, mutant


def test_each_known_wrong_answer_graded_as_a_submission_is_named_as_itself(validated: tuple) -> None:
    """validate's own batch: every known-wrong answer that fails some hidden test with values is
    named as itself (alone, or with those giving the very same outputs); one whose values are
    right (its gate says what is wrong) or that only raises is named as nothing, and so are the
    reference, the lean reference and the stub."""
    a, work, _ = validated
    if a.id not in NAMES_MISTAKES:
        pytest.skip(f"validate names mistakes for {', '.join(NAMES_MISTAKES)} only (time)")
    records = read_records(work / "out")
    seed = json.loads((work / "out" / "batch.json").read_text(encoding="utf-8"))["seed"]
    with Grader.for_course(COURSE, a, work / "out", seed=seed) as grader:
        outcomes = {
            **grader.references.outputs(),
            **grader.references.known_mistakes(),
        }  # as the batch stored them
        mistakes = list(grader.spec.mistakes)
    assert len(mistakes) == len(list(a.mutants_dir.glob("q*.py")))
    wrong, missed, nameless = [], [], []
    for m in mistakes:
        q = m.split("_", 1)[0]
        d = records[f"mutant-{m}.ipynb"].diagnosis.get(q)
        named = [d["mistake"], *d.get("with", [])] if d else []
        if named and m not in named:
            wrong.append((m, named))
        if nameable(grader.probes.for_question(q), outcomes, m):
            if m not in named:
                missed.append(m)
        else:
            nameless.append(m)
            assert not named, m
    assert not wrong and not missed, (wrong, missed)
    assert len(nameless) < len(mistakes) / 2, nameless
    for name in ("reference.ipynb", LEAN, "stub.ipynb"):
        assert records[name].diagnosis == {}, name


@pytest.mark.assignment("05-pmap")
@pytest.mark.parametrize("devices", [1, 2])
def test_pmap_on_few_devices(devices: int, tmp_path: Path) -> None:
    """On 2 devices (the floor) every check of `validate` holds. On 1 device the reference still
    scores full marks and the stub 0, and each collective mistake of ONE_DEVICE_BLIND keeps
    full marks: the reason the grader never grades this assignment on fewer than 2."""
    a = COURSE.assignment("05-pmap")
    blind_only = ONE_DEVICE_BLIND if devices == 1 else None
    course = with_device_floor(COURSE, a.id, devices)  # the test's own copy: grades never go below 2
    checks = validate_assignment(
        course.assignment(a.id), course, cpu_devices=devices, workdir=tmp_path, known_wrong=blind_only
    )
    records = read_records(tmp_path / "out")
    assert records["reference.ipynb"].status == "graded"
    assert records["reference.ipynb"].total == records["reference.ipynb"].possible
    assert records["stub.ipynb"].status == "graded" and records["stub.ipynb"].total == 0
    # Each known-wrong answer is graded on its own question only: did it keep that question's points?
    full = records["reference.ipynb"].questions
    kept = set()
    for name, r in records.items():
        if name.startswith("mutant-"):
            stem = name.removeprefix("mutant-").removesuffix(".ipynb")
            q = stem.split("_")[0]
            if r.status == "graded" and r.questions == {q: full[q]}:
                kept.add(stem)
    if devices == 1:
        assert kept == ONE_DEVICE_BLIND, f"caught on one device after all: {ONE_DEVICE_BLIND - kept}"
        checks = [c for c in checks if "known-wrong" not in c.check]
    else:
        assert not kept
    failed = [c for c in checks if not c.ok]
    assert not failed, failed


def test_the_command_line_never_grades_05_pmap_on_fewer_than_min_devices(tmp_path: Path) -> None:
    """A score must not depend on the machine: `--cpu-devices 1` is raised to `min_devices`."""
    a = COURSE.assignment("05-pmap")
    grader = Grader.for_course(COURSE, a, tmp_path, cpu_devices=1, seed=0)
    assert grader.job["cpu_devices"] == a.devices.min_devices == 2
    assert any("at least 2" in n for n in grader.notes), grader.notes
    assert Grader.for_course(COURSE, a, tmp_path, seed=0).job["cpu_devices"] == a.devices.cpu_devices == 8
