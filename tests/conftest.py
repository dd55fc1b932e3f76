"""Session-wide settings every test sees, command-line subprocesses included."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from autograder.config import load_course


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--every-export",
        action="store_true",
        help="run every assignment through every export end to end (make test-all), not a sample",
    )


# `make test` runs the tests on every core with pytest-xdist (`-n auto --dist loadgroup`). Tests
# that share an expensive module-scoped fixture (a validated assignment, a graded batch) form one
# group, which runs on one worker: on two, the fixture would be made twice. Groups go out
# costliest first, so that the last minutes are short tests on every worker, not one long one.
# Rough seconds on two busy cores, for the order only (a group missing here costs little). The
# order is kept by what a fresh clone's whole run takes, not by each group's own cost: which
# groups overlap matters (bench/RESULTS.md has the runs that chose it).
GROUP_SECONDS = {
    "honest-02": 200,
    "honest-01": 165,
    "honest-03": 145,
    "honest-06": 110,
    "honest-04": 110,
    "honest-05": 60,
    "validate-02-prng": 150,
    "test_adversarial": 130,
    "test_dask_cluster": 120,
    "validate-06-training": 110,
    "test_grade_cli": 110,
    "validate-03-autodiff": 95,
    "validate-05-pmap": 75,
    "validate-01-broadcasting": 95,
    "test_export_nbgrader": 65,
    "validate-04-jit": 55,
    "test_gradescope": 25,
    "test_traced_rules": 40,
}
# Single tests that take as long as a group.
TEST_SECONDS = {
    "test_the_notebook_alone_runs_in_a_fresh_venv_from_student_requirements": 60,
    "test_pmap_on_few_devices": 40,
    "test_the_readme_grade_command_works_from_the_root_and_elsewhere": 45,
    "test_make_demo_grades_the_examples_as_written": 25,
    "test_a_grader_fault_is_an_error_row_logged_and_retried": 20,
    "test_changed_hidden_tests_regrade_the_rows_they_graded": 20,
    "test_public_checks_pass_on_the_reference_and_name_the_stub": 15,
    # Each grades a batch or times a judge under load: make test, not the fast tier.
    "test_the_examples_feedback_names_no_internal_output": 30,
    "test_a_lone_submission_runs_in_two_sandboxes_and_scores_as_in_one": 20,
    "test_sources_are_read_safely_from_several_threads": 15,
    "test_hold_decide_and_regrade": 15,
    "test_04_jit_benchmark_judges_hold_under_any_load": 12,
    "test_04_jit_benchmark_judges_fail_nan_and_constants_that_time_nothing": 6,
}
# Modules whose tests share module-scoped fixtures. In test_course, the tests parametrized by
# an assignment id share that assignment's `validated` fixture.
GROUPED_MODULES = {
    "test_adversarial",
    "test_dask_cluster",
    "test_export_nbgrader",
    "test_examples",
    "test_grade_cli",
    "test_gradescope",
    "test_points",
    "test_traced_rules",
}
ASSIGNMENT_IDS = {a.id for a in load_course().assignments}
#: The modules of the course tier (`make test-course`).
COURSE_TIER = {"test_course.py", "test_honest.py", "test_adversarial.py", "test_traced_rules.py"}
#: Single tests of the course tier elsewhere: the student release's notebooks run whole.
COURSE_TESTS = {
    "test_public_checks_pass_on_the_reference_and_name_the_stub",
    "test_the_notebook_alone_runs_in_a_fresh_venv_from_student_requirements",
}


def group_of(nodeid: str) -> str | None:
    """The group of the test ``nodeid`` (``tests/test_course.py::test_validate[02-prng]``), or
    ``None`` for a test that shares nothing costly and can run on any worker."""
    module = nodeid.partition("::")[0].rpartition("/")[2].removesuffix(".py")
    param = nodeid.rpartition("[")[2].removesuffix("]") if nodeid.endswith("]") else ""
    if module == "test_course" and param in ASSIGNMENT_IDS:
        return f"validate-{param}"
    if module == "test_honest" and param[:2].isdigit():
        return f"honest-{param[:2]}"  # each assignment's honest batch is graded once, on one worker
    return module if module in GROUPED_MODULES else None


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # The fast tier (`make test-fast`, `-m "not grades"`) leaves out what grades whole batches:
    # the groups and single tests priced above.
    # The course tier (`make test-course`, `-m course`): every assignment validated whole, its
    # Gradescope zip run, 05-pmap on one and two devices (test_course.py), and the corpora graded
    # by the real grader, the honest notebooks, the attacks and the traced-rule bypasses
    # (test_honest.py, test_adversarial.py, test_traced_rules.py), and each student notebook run
    # whole in a kernel (COURSE_TESTS). `make test` leaves it out; CI runs it after (.ci/run).
    for item in items:
        if group_of(item.nodeid) in GROUP_SECONDS or getattr(item, "originalname", item.name) in TEST_SECONDS:
            item.add_marker(pytest.mark.grades)
        in_tier = item.nodeid.partition("::")[0].rpartition("/")[2] in COURSE_TIER
        if in_tier or getattr(item, "originalname", item.name) in COURSE_TESTS:
            item.add_marker(pytest.mark.course)

    def cost(item: pytest.Item) -> int:
        group = group_of(item.nodeid)
        if group:
            return GROUP_SECONDS.get(group, 5)
        return TEST_SECONDS.get(getattr(item, "originalname", item.name), 1)

    # Stable: a group's tests keep their order, and so do the cheap tests.
    items.sort(key=cost, reverse=True)


def pytest_configure(config: pytest.Config) -> None:
    if config.pluginmanager.hasplugin("xdist"):
        config.pluginmanager.register(_Groups(), "course-test-groups")


class _Groups:
    """``--dist loadgroup`` by :func:`group_of`. (xdist 3.8 groups by a suffix it writes into
    each test's nodeid, which pytest 9 no longer lets it write: every test would go alone.)"""

    @staticmethod
    def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
        if config.getvalue("dist") != "loadgroup":
            return None
        from xdist.scheduler import LoadScopeScheduling

        class ByGroup(LoadScopeScheduling):
            def _split_scope(self, nodeid: str) -> str:
                return group_of(nodeid) or nodeid

        return ByGroup(config, log)


@pytest.fixture(scope="session", autouse=True)
def reference_stores(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """One folder of reference stores for the session (see autograder/grading/reference.py): every
    test starts from the same cold state as CI, never from the developer's own cache, and each
    assignment's reference runs once however many tests grade it, on whichever worker (a store
    is locked while it is filled, so the second worker to need it waits and reads it)."""
    before = os.environ.get("AUTOGRADER_CACHE_DIR")
    if os.environ.get("PYTEST_XDIST_WORKER"):
        # Each worker's base folder lies in the one the run made for all of them.
        shared = tmp_path_factory.getbasetemp().parent / "autograder-cache"
        shared.mkdir(exist_ok=True)
    else:
        shared = tmp_path_factory.mktemp("autograder-cache")
    os.environ["AUTOGRADER_CACHE_DIR"] = str(shared)
    yield
    if before is None:
        os.environ.pop("AUTOGRADER_CACHE_DIR", None)
    else:
        os.environ["AUTOGRADER_CACHE_DIR"] = before


def run_on_gradescope(zip_path: Path, notebooks: list[Path], work: Path) -> dict[str, dict[str, Any]]:
    """Each notebook's results.json, made as Gradescope makes it: the autograder zip unpacked
    into ``source/`` of a root of its own (``AUTOGRADER_GRADESCOPE_ROOT`` stands for
    /autograder), the notebook alone in ``submission/``, ``run_autograder`` run with this
    venv's Python first on PATH and no PYTHONPATH (setup.sh's installs are this venv). One run
    per notebook, as many at once as there are cores; each costs ~5 s once the reference
    store of the session (``$AUTOGRADER_CACHE_DIR``) is filled."""
    bin_dir = str(Path(sys.executable).parent)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "AUTOGRADER_PYTHON")}
    env["PATH"] = bin_dir + os.pathsep + env.get("PATH", "")

    def one(nb: Path) -> dict[str, Any]:
        root = work / nb.stem
        with zipfile.ZipFile(zip_path) as zf:
            zf.extractall(root / "source")
        (root / "submission").mkdir(parents=True)
        shutil.copy(nb, root / "submission" / nb.name)
        proc = subprocess.run(
            ["bash", str(root / "source" / "run_autograder")],
            env={**env, "AUTOGRADER_GRADESCOPE_ROOT": str(root)},
            capture_output=True,
            text=True,
            timeout=900,
        )
        assert proc.returncode == 0, proc.stderr[-3000:]
        results = json.loads((root / "results" / "results.json").read_text(encoding="utf-8"))
        # What the grader logged (a traceback where it failed), for a failing assertion to show.
        (root / "run_autograder.log").write_text(proc.stderr, encoding="utf-8")
        return results

    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        return dict(zip((nb.name for nb in notebooks), pool.map(one, notebooks)))


@pytest.fixture(scope="session")
def gradescope() -> Callable[[Path, list[Path], Path], dict[str, dict[str, Any]]]:
    """:func:`run_on_gradescope`, for tests of the Gradescope zip."""
    return run_on_gradescope


def read_pins(path: Path) -> dict[str, tuple[str, set[str]]]:
    """A requirements file's pins: canonical name -> (version, extras)."""
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    out = {}
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            req = Requirement(line)
            (spec,) = req.specifier
            out[canonicalize_name(req.name)] = (spec.version, set(req.extras))
    return out


@pytest.fixture(scope="session")
def pins() -> Callable[[Path], dict[str, tuple[str, set[str]]]]:
    """:func:`read_pins`, for tests that compare requirement files with the lock file."""
    return read_pins


@pytest.fixture(scope="session")
def gate_bypass_cell() -> str:
    """One of issue 38's gate bypasses, for the backends' end-to-end tests: ``outer`` (01 q2, which
    forbids ``jnp.outer``) hands its work to ``jnp.outer`` through a ``global`` declared in a class
    body. Wherever it is graded it earns nothing for q2 (lost with the line, or held for review)."""
    return (
        "import jax.numpy as jnp\n"
        "def outer(x, y):\n    return helper(x, y)\n"
        "def helper(x, y):\n    return x\n"
        "class C:\n    global helper\n    helper = jnp.outer\n"
    )
