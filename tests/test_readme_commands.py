"""The commands the README, the docs and the Makefile show, typed as a user types them: relative
paths, from the repository root, with the installed ``.venv/bin/autograder``.

They run in a folder that mirrors the checkout (a link to each of its top-level entries, but
``out/`` and ``grades/``, which are the user's): relative paths name the same files there, and
what they write lands in that folder, never in an instructor's own ``grades/``."""

from __future__ import annotations

import csv
import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.cli import _parser
from autograder.config import ROOT

pytestmark = pytest.mark.assignment("01-broadcasting")
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
GOLDEN = ROOT / "tests" / "golden"
#: How a shown command starts: the installed console script, or the venv's Python.
COMMAND = re.compile(r"^\s*(\.venv/bin/autograder|\.venv/bin/python -m autograder)\s+(.*)$")


def shown_commands() -> list[tuple[str, list[str]]]:
    """``(where, argv)`` of every command line in a fenced block of the README and the docs,
    continuation lines joined, comments dropped; a line whose arguments are placeholders (``ID``,
    ``[...]``) is a synopsis, not a command, and is left out."""
    found = []
    for doc in DOCS:
        in_block = False
        lines = doc.read_text(encoding="utf-8").splitlines()
        i = 0
        while i < len(lines):
            line = lines[i]
            if line.lstrip().startswith("```"):
                in_block = not in_block
            elif in_block and (m := COMMAND.match(line)):
                text = m.group(2)
                while text.rstrip().endswith("\\") and i + 1 < len(lines):
                    i += 1
                    text = text.rstrip()[:-1] + " " + lines[i].strip()
                argv = shlex.split(text, comments=True)
                if not any(a in ("ID", "OUT", "DIR", "SUBMISSIONS") or a.startswith("[") for a in argv):
                    found.append((f"{doc.relative_to(ROOT)}:{i + 1}", argv))
            i += 1
    return found


def makefile_demo() -> list[str]:
    """The arguments of ``make demo``'s grade line, its variables expanded as make expands them."""
    text = (ROOT / "Makefile").read_text(encoding="utf-8")
    variables = dict(re.findall(r"^(\w+)\s*[:?]?=\s*(.*)$", text, flags=re.M))
    recipe = text.split("\ndemo:", 1)[1].split("\n\n", 1)[0]
    line = next(ln.strip() for ln in recipe.splitlines() if " grade " in ln)
    while "$(" in line:
        line = re.sub(r"\$\((\w+)\)", lambda m: variables[m.group(1)].strip(), line)
    prefix = ".venv/bin/autograder "
    assert line.startswith(prefix), f"make demo's grade line runs {line.split()[0]}, not {prefix}"
    return shlex.split(line[len(prefix) :])


@pytest.fixture(scope="module")
def checkout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A working folder where the README's relative paths name the checkout's files."""
    where = tmp_path_factory.mktemp("checkout")
    for entry in ROOT.iterdir():
        if entry.name not in ("out", "grades", ".venv"):
            (where / entry.name).symlink_to(entry)
    (where / ".venv").symlink_to(Path(sys.prefix))
    return where


def run(checkout: Path, argv: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [".venv/bin/autograder", *argv], cwd=checkout, capture_output=True, text=True, timeout=900
    )


def table(gradebook: Path) -> dict[str, tuple[str, float, float]]:
    rows = csv.DictReader(gradebook.read_text(encoding="utf-8").splitlines())
    return {r["submission"]: (r["status"], float(r["total"]), float(r["possible"])) for r in rows}


def check_demo_table(gradebook: Path) -> None:
    """The demo's four rows, checked by the script CI runs after ``make demo`` (.ci/run)."""
    proc = subprocess.run(
        [sys.executable, str(ROOT / ".ci" / "check_demo.py"), str(gradebook)], capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr


def test_every_shown_command_is_one_the_tool_accepts() -> None:
    """Each command of the README and the docs parses as written, and the files it names exist."""
    commands = shown_commands()
    verbs = {argv[0] for _, argv in commands}
    ids = _assignment_ids()
    assert {"build", "validate", "grade", "export-nbgrader"} <= verbs, verbs
    for where, argv in commands:
        try:
            args = _parser().parse_args(argv)
        except SystemExit:
            pytest.fail(f"{where}: `autograder {shlex.join(argv)}` is not a valid command")
        if args.command == "grade" and not str(args.submissions).startswith(("~", "submissions", "to-grade")):
            assert (ROOT / args.submissions).exists(), f"{where}: {args.submissions} does not exist"
        named = [args.assignment] if args.command == "grade" else getattr(args, "assignments", [])
        unknown = [i for i in named if i not in ids]
        assert not unknown, f"{where}: no assignment {unknown[0]} in course.yml"


def _assignment_ids() -> list[str]:
    from autograder.config import load_course

    return [a.id for a in load_course().assignments]


def test_make_demo_grades_the_examples_as_written(checkout: Path) -> None:
    """``make demo``'s own line, relative ``--out`` and all, gives the demo's table, and what it
    writes is what the golden files hold (a change a student or Gradescope would see shows here)."""
    argv = makefile_demo()
    out = checkout / argv[argv.index("--out") + 1]
    proc = run(checkout, [*argv, "--quiet"])
    assert proc.returncode == 0, proc.stderr
    check_demo_table(out / "gradebook.csv")
    assert (out / "gradebook.csv").read_text() == (GOLDEN / "demo-gradebook.csv").read_text()
    results = json.loads((out / "results" / "partial.ipynb.json").read_text())
    # What graded it changes with every change of the grader's code: compared below, not here.
    assert results["extra_data"].pop("graded_with")
    results["extra_data"]["notes"] = [n for n in results["extra_data"]["notes"] if "sandbox lacked" not in n]
    assert results == json.loads((GOLDEN / "demo-partial-results.json").read_text())
    page = (out / "feedback" / "partial.ipynb.html").read_text()
    page = re.sub(r"<h2>Notes</h2>\n<ul>\n(<li>the sandbox lacked: [^<]*</li>\n)</ul>\n", "", page)
    assert page == (GOLDEN / "demo-partial-feedback.html").read_text()


def test_the_readme_grade_command_works_from_the_root_and_elsewhere(checkout: Path, tmp_path: Path) -> None:
    """The README's instructor command as written (``--out grades/``), then the same with an
    absolute ``--out`` from another folder: the same table."""
    argv = next(a for w, a in shown_commands() if w.startswith("README") and a[0] == "grade")
    seed = ["--seed", "20261123", "--quiet"]  # the demo's: its reference is in the session's store
    proc = run(checkout, [*argv, *seed])
    assert proc.returncode == 0, proc.stderr
    gradebook = checkout / argv[argv.index("--out") + 1] / "gradebook.csv"
    check_demo_table(gradebook)
    relative = table(gradebook)
    absolute = tmp_path / "grades"
    elsewhere = [*argv[:2], str(ROOT / argv[2]), "--out", str(absolute), *seed]
    proc = subprocess.run(
        [str(Path(sys.prefix) / "bin" / "autograder"), *elsewhere],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    assert table(absolute / "gradebook.csv") == relative


def test_python_m_autograder_works_from_any_folder(tmp_path: Path) -> None:
    """The grader is installed into its environment, not only importable from the root."""
    proc = subprocess.run(
        [sys.executable, "-m", "autograder", "--help"], cwd=tmp_path, capture_output=True, text=True
    )
    assert proc.returncode == 0 and "grade" in proc.stdout, proc.stderr


def test_the_demo_check_fails_on_a_wrong_table(tmp_path: Path) -> None:
    """What .ci/run checks after ``make demo`` can fail: the table issue 37 saw (every row crashed)."""
    gradebook = tmp_path / "gradebook.csv"
    gradebook.write_text(
        "submission,total,possible,status\n"
        "broken.ipynb,0,100,invalid\npartial.ipynb,0,100,crashed\n"
        "perfect.ipynb,0,100,crashed\nstub.ipynb,0,100,crashed\n"
    )
    proc = subprocess.run(
        [sys.executable, str(ROOT / ".ci" / "check_demo.py"), str(gradebook)], capture_output=True, text=True
    )
    assert proc.returncode == 1
    assert proc.stderr.count("\n") == 1 and str(gradebook) in proc.stderr and "crashed" in proc.stderr


def _make_recipe(target: str) -> list[str]:
    """The command lines of a Makefile target, ``$(PYTEST)`` expanded."""
    lines = (ROOT / "Makefile").read_text().splitlines()
    pytest_cmd = next(line.split(":=", 1)[1].strip() for line in lines if line.startswith("PYTEST :="))
    start = lines.index(next(line for line in lines if line.startswith(f"{target}:")))
    recipe = []
    for line in lines[start + 1 :]:
        if not line.startswith("\t"):
            break
        recipe.append(line.strip().replace("$(PYTEST)", pytest_cmd))
    return recipe


def _markers(target: str) -> str | None:
    """The ``-m`` expression of a pytest target (None: no selection)."""
    (line,) = [r for r in _make_recipe(target) if "-m pytest" in r]
    words = shlex.split(line)
    return words[words.index("-m", words.index("pytest") + 1) + 1] if words.count("-m") > 1 else None


def test_ci_runs_every_tier_the_readme_shows_and_the_tiers_miss_no_test() -> None:
    """`make test` leaves the course tier out; CI runs both, as the README's table says, so no
    test is lost from CI; and the fast tier is a part of `make test`."""
    ci = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()]
    steps = [line for line in ci if line.startswith("make ")]
    assert steps[:2] == ["make demo", "make test"] and "make test-course" in steps, steps
    assert _markers("test") == "not course" and _markers("test-course") == "course"
    assert _markers("test-fast") == "not grades and not course"
    assert _markers("test-all") is None
    readme = (ROOT / "README.md").read_text()
    for target in ("test-fast", "test", "test-course", "test-all"):
        assert f"`make {target}`" in readme, target
    # The course marker is given by conftest to the course tier's modules' tests, and no other's.
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "--co", "-m", "course", "tests/"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    chosen = [line for line in proc.stdout.splitlines() if "::" in line]
    tier = (
        "tests/test_course.py::",
        "tests/test_honest.py::",
        "tests/test_adversarial.py::",
        "tests/test_traced_rules.py::",
    )
    # Beside those modules, the student notebooks run whole (tests/test_student_release.py).
    whole = (
        "::test_public_checks_pass_on_the_reference_and_name_the_stub[",
        "::test_the_notebook_alone_runs_in_a",
    )
    elsewhere = [line for line in chosen if not line.startswith(tier)]
    assert chosen and all(line.startswith("tests/test_student_release.py") for line in elsewhere), elsewhere
    assert all(any(w in line for w in whole) for line in elsewhere) and len(elsewhere) == 7, elsewhere
    assert {line.partition("::")[0] for line in chosen if line.startswith(tier)} == {
        t.removesuffix("::") for t in tier
    }
    assert any("test_validate[06-training]" in line for line in chosen)
