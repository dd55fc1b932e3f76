"""The student release opens in a real Jupyter kernel with real otter: on the stub it runs top to
bottom and its public tests (`grader.check`) fail with messages that name the function; with the
reference's answers pasted in, every public test passes. The notebook alone is enough: copied
into an empty folder and run in a fresh virtual environment made from requirements/student.txt,
its first cell finds everything present and its public tests (in its metadata) pass. The
student zip holds that notebook and nothing secret."""

from __future__ import annotations

import ast
import asyncio
import json
import os
import shutil
import subprocess
import sys
import urllib.request
import zipfile
from collections.abc import Callable
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from autograder.config import ROOT, load_course

COURSE = load_course()
STUDENT_REQUIREMENTS = ROOT / "requirements" / "student.txt"
#: What the pinned packages declare and a student notebook never loads, measured (every notebook
#: run top to bottom in a venv without it: `grader.check` passing and failing, the export cell),
#: so that requirements/student.txt, installed with --no-deps, leaves it out:
#: (package, requirement as declared, less its version): what it is for.
NOT_FOR_STUDENTS = {
    ("jax", "scipy"): "jax.scipy.signal's named windows, jax.experimental.sparse",
    ("jaxlib", "scipy"): "the same",
    ("otter-grader", "nbconvert[webpdf]"): "playwright: otter's PDF via HTML (the export cell makes none)",
    ("fica", "sphinx"): "fica's Sphinx extension",
    ("fica", "docutils"): "fica's Sphinx extension",
    ("otter-grader", "click"): "otter's command line",
    ("otter-grader", "jupytext"): "otter assign",
    ("otter-grader", "python-on-whales"): "otter grade's Docker containers",
    ("otter-grader", "requests"): "otter generate's Gradescope token",
}


def _checks(nb: nbformat.NotebookNode) -> list[tuple[str, str]]:
    """``(source, text output)`` of every ``grader.check`` cell of an executed ``nb``."""
    return [(c.source, _shown(c)) for c in nb.cells if c.cell_type == "code" and "grader.check(" in c.source]


def _shown(cell: nbformat.NotebookNode) -> str:
    return "".join(
        str(o.get("data", {}).get("text/plain", "")) + o.get("text", "") + o.get("evalue", "")
        for o in cell.outputs
    )


def _run(*runs: tuple[nbformat.NotebookNode, Path]) -> list[list[tuple[str, str]]]:
    """Execute each ``(notebook, folder)`` in a real kernel of its own in that folder, all at
    once (a kernel mostly waits on one core); for each, ``(check cell source, its text output)``
    of every ``grader.check`` cell."""

    async def execute() -> None:
        await asyncio.gather(
            *(
                NotebookClient(
                    nb,
                    timeout=300,
                    kernel_name="python3",
                    resources={"metadata": {"path": str(work)}},
                    allow_errors=False,
                ).async_execute()
                for nb, work in runs
            )
        )

    asyncio.run(execute())
    return [_checks(nb) for nb, _ in runs]


def _build(assignment: str, tmp_path: Path) -> tuple[nbformat.NotebookNode, nbformat.NotebookNode]:
    """Build ``assignment`` under ``tmp_path``; its stub notebook, and the stub with every code
    cell the reference changes replaced by the reference's."""
    from autograder.release import build

    a = COURSE.assignment(assignment)
    build.build_assignment(a, COURSE, release_root=tmp_path / "release", build_root=tmp_path / "build")
    stub = nbformat.read(tmp_path / "release" / a.id / a.notebook, as_version=4)
    reference = nbformat.read(tmp_path / "build" / a.id / "reference.ipynb", as_version=4)
    assert len(stub.cells) == len(reference.cells)
    solved = nbformat.from_dict(json.loads(json.dumps(stub)))
    for mine, theirs in zip(solved.cells, reference.cells, strict=True):
        if mine.cell_type == "code" and mine.source != theirs.source:
            mine.source = theirs.source
    return stub, solved


@pytest.mark.parametrize("assignment", [a.id for a in COURSE.assignments])
def test_public_checks_pass_on_the_reference_and_name_the_stub(assignment: str, tmp_path: Path) -> None:
    """With the reference's answer cells pasted into the student notebook, every public check
    passes through otter's own `grader.check`; on the stub, each fails with a message that names
    its function (never a NameError, nor an attribute error on None). The notebook runs alone in
    its folder: its public tests come from its metadata."""
    a = COURSE.assignment(assignment)
    stub, solved = _build(assignment, tmp_path)
    works = [tmp_path / "solved", tmp_path / "stub"]  # a folder each: otter writes its log there
    for work in works:
        shutil.copytree(tmp_path / "release" / a.id, work)
        assert sorted(p.name for p in work.iterdir()) == [a.notebook]
    on_solved, on_stub = _run((solved, works[0]), (stub, works[1]))
    for source, shown in on_solved:
        assert "failed" not in shown.lower() and "passed" in shown.lower(), f"{source}: {shown[:500]}"

    functions = a.function_question()
    for source, shown in on_stub:
        question = source.split('"')[1] if '"' in source else source.split("'")[1]
        names = [f for f, q in functions.items() if q == question]
        assert "failed" in shown.lower(), f"{source}: passes on the stub"
        for bad in ("NameError", "object has no attribute"):
            assert bad not in shown, f"{source}: {bad} on the stub instead of a message: {shown[:500]}"
        assert any(n in shown for n in names), f"{source}: the message names none of {names}: {shown[:500]}"


def test_student_requirements_pin_what_the_notebooks_import_and_all_they_need(
    pins: Callable[[Path], dict[str, tuple[str, set[str]]]],
) -> None:
    """requirements/student.txt pins JAX, NumPy, matplotlib, otter and a kernel, every package
    those need at runtime, at lock.txt's versions, and nothing else: what they declare, less
    :data:`NOT_FOR_STUDENTS` (it is installed with --no-deps); the setup cell checks and installs
    its first block."""
    from importlib import metadata

    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    from autograder.notebooks import executable_source
    from autograder.release.handout import notebook_pins

    ours = pins(STUDENT_REQUIREMENTS)
    lock = {n: v for n, (v, _) in pins(ROOT / "requirements" / "lock.txt").items()}
    wrong = {n: (v, lock.get(n)) for n, (v, _) in ours.items() if lock.get(n) != v}
    assert not wrong, f"(student.txt, lock.txt): {wrong}"
    first = [canonicalize_name(Requirement(p).name) for p in notebook_pins()]
    assert first == ["jax", "jaxlib", "numpy", "matplotlib", "otter-grader"]
    assert "ipykernel" in ours

    # What the first block and the kernel declare, followed to the end, less NOT_FOR_STUDENTS:
    # exactly student.txt's pins.
    declared: set[tuple[str, str]] = set()
    needed: dict[str, str] = {}  # package -> the package that needs it
    todo: list[tuple[str, set[str], str]] = [("ipykernel", set(), "")]
    for pin in map(Requirement, notebook_pins()):
        todo.append((canonicalize_name(pin.name), set(pin.extras), ""))
    seen: dict[str, set[str]] = {}
    while todo:
        name, extras, parent = todo.pop()
        if name in seen and extras <= seen[name]:
            continue
        seen[name] = seen.get(name, set()) | extras
        needed.setdefault(name, parent)
        for text in metadata.distribution(name).requires or []:
            req = Requirement(text)
            envs = [{"extra": e} for e in seen[name] or {""}]
            if req.marker is not None and not any(req.marker.evaluate(env) for env in envs):
                continue
            dep = canonicalize_name(req.name)
            declared |= {(name, dep)} | {(name, f"{dep}[{e}]") for e in req.extras}
            if (name, dep) in NOT_FOR_STUDENTS:
                continue
            todo.append((dep, {e for e in req.extras if (name, f"{dep}[{e}]") not in NOT_FOR_STUDENTS}, name))
    absent = sorted(f"{n} (for {p})" for n, p in needed.items() if n not in ours)
    assert not absent, f"add to requirements/student.txt, at lock.txt's version: {absent}"
    extra = sorted(set(ours) - set(needed))
    assert not extra, f"no notebook needs these: remove them from requirements/student.txt: {extra}"
    stale = sorted(f"{p}: {r}" for p, r in set(NOT_FOR_STUDENTS) - declared)
    assert not stale, f"no longer declared: remove from NOT_FOR_STUDENTS: {stale}"
    # The heavy ones otter and jax declare stay out: Sphinx, playwright (165 MB), scipy.
    for heavy in ("sphinx", "playwright", "scipy", "pydantic", "docutils"):
        assert heavy not in ours, f"{heavy}: no student notebook loads it"

    # Every module a student notebook imports comes from a pinned package.
    imported = set()
    for a in COURSE.assignments:
        for cell in nbformat.read(a.release_dir / a.notebook, as_version=4).cells:
            if cell.cell_type != "code":
                continue
            for node in ast.walk(ast.parse(executable_source(cell.source))):
                if isinstance(node, ast.Import):
                    imported |= {alias.name.split(".")[0] for alias in node.names}
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    imported.add(node.module.split(".")[0])
    providers = metadata.packages_distributions()
    third_party = imported - set(sys.stdlib_module_names)
    missing = {
        m for m in third_party if not {canonicalize_name(d) for d in providers.get(m, [m])} & set(ours)
    }
    assert not missing, f"imported by a student notebook but not in requirements/student.txt: {missing}"


def test_every_student_notebook_starts_with_the_setup_cell_the_grader_skips() -> None:
    """The first cell installs the pins where they are missing; grading never runs it (it
    would install packages), and it leaves no name behind in the student's namespace."""
    from autograder.notebooks import SETUP_CELL_MARKER, executable_source
    from autograder.release.handout import notebook_pins

    for a in COURSE.assignments:
        nb = nbformat.read(a.release_dir / a.notebook, as_version=4)
        first = nb.cells[0].source
        assert first.startswith(SETUP_CELL_MARKER), a.id
        assert "import otter" in nb.cells[1].source, a.id
        assert json.dumps(notebook_pins()) in first and json.dumps(a.notebook) in first
        assert executable_source(first) == ""
        assert first.rstrip().endswith("_setup()\ndel _setup")
        assert set((nb.metadata.get("otter") or {}).get("tests") or {}) == set(a.questions), a.id


def test_the_student_zip_holds_the_notebook_and_nothing_secret(tmp_path: Path) -> None:
    """build/<id>/<id>-student.zip: the release folder under <id>/ (the notebook, with its public
    tests inside), byte for byte; no solution, hidden test, probe or reference file by name, and
    no solution line or hidden test in its text (validate's leak checks)."""
    from autograder.release import build, validate

    build.main(release_root=tmp_path / "release", build_root=tmp_path / "build", course=COURSE, quiet=True)
    for a in COURSE.assignments:
        handout = tmp_path / "build" / a.id / f"{a.id}-student.zip"
        with zipfile.ZipFile(handout) as zf:
            names = zf.namelist()
            assert names == sorted(names)
            assert all(i.date_time == (1980, 1, 1, 0, 0, 0) for i in zf.infolist())
            assert zf.read(f"{a.id}/{a.notebook}") == (a.release_dir / a.notebook).read_bytes()
        assert names == [f"{a.id}/{a.notebook}"], names
        secret = ("solution", "probe", "reference", "hidden", "autograder", "tests/", ".py")
        assert not [n for n in names if any(s in n.lower() for s in secret)]
        checks = validate.handout_checks(a, handout, tmp_path / "release" / a.id)
        assert [c.check for c in checks] == [
            "student zip holds the release only",
            "no solution line in student zip",
            "no hidden test in student zip",
        ]
        assert all(c.ok for c in checks), [c for c in checks if not c.ok]

    # The same checks catch a zip that carries a probe file or a solution.
    a = COURSE.assignments[0]
    bad = tmp_path / "bad.zip"
    with zipfile.ZipFile(bad, "w") as zf:
        zf.writestr(f"{a.id}/{a.notebook}", (a.release_dir / a.notebook).read_bytes())
        zf.writestr(f"{a.id}/probes.py", a.probes_file.read_bytes())
        zf.writestr(f"{a.id}/reference.ipynb", a.master.read_bytes())
    failed = [c.check for c in validate.handout_checks(a, bad, tmp_path / "release" / a.id) if not c.ok]
    assert failed == [
        "student zip holds the release only",
        "no solution line in student zip",
        "no hidden test in student zip",
    ]


def _index_unreachable() -> str | None:
    """Why no package can be installed here, or None when the index answers."""
    index = os.environ.get("PIP_INDEX_URL", "https://pypi.org/simple/")
    try:
        urllib.request.urlopen(index.rstrip("/") + "/pip/", timeout=15).close()
    except OSError as e:
        return f"the package index {index} is unreachable ({e}): no fresh environment can be built"
    return None


@pytest.mark.slow
def test_the_notebook_alone_runs_in_a_fresh_venv_from_student_requirements(
    tmp_path: Path, pins: Callable[[Path], dict[str, tuple[str, set[str]]]]
) -> None:
    """The student path, end to end, for one assignment (the others run in the kernel test above):
    a virtual environment made from requirements/student.txt alone (`pip install --no-deps -r`: it
    holds those pins and nothing else), an empty folder holding only
    the notebook (reference answers pasted in), run top to bottom in that environment's kernel.
    The setup cell finds every pin present (installs nothing) and every public check passes."""
    reason = _index_unreachable()
    if reason:
        pytest.skip(reason)
    a = COURSE.assignment("01-broadcasting")
    _, solved = _build(a.id, tmp_path)
    solved.cells.append(nbformat.v4.new_code_cell("import sys\nprint('kernel prefix:', sys.prefix)"))

    venv = tmp_path / "venv"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    # A student's own Jupyter folders: no kernel spec of this machine's user can be picked up.
    for var in ("JUPYTER_DATA_DIR", "JUPYTER_CONFIG_DIR", "IPYTHONDIR", "MPLCONFIGDIR"):
        env[var] = str(tmp_path / "home" / var.lower())
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, env=env, timeout=300)
    python = venv / "bin" / "python"
    install = subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", "--no-compile", "--no-deps"]
        + ["-r", str(STUDENT_REQUIREMENTS)],
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert install.returncode == 0, install.stderr[-3000:]
    listed = subprocess.run(
        [str(python), "-c", "import importlib.metadata as m; print(*(d.name for d in m.distributions()))"],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    from packaging.utils import canonicalize_name

    installed = {str(canonicalize_name(n)) for n in listed.stdout.split()} - {"pip", "setuptools"}
    assert installed == set(pins(STUDENT_REQUIREMENTS)), installed ^ set(pins(STUDENT_REQUIREMENTS))

    work = tmp_path / "student"
    work.mkdir()
    nbformat.write(solved, work / a.notebook)
    assert sorted(p.name for p in work.iterdir()) == [a.notebook]  # no tests/, nothing else
    runner = (
        "import sys, nbformat\n"
        "from nbclient import NotebookClient\n"
        "nb = nbformat.read(sys.argv[1], as_version=4)\n"
        "NotebookClient(nb, timeout=600, kernel_name='python3', allow_errors=True,\n"
        "               resources={'metadata': {'path': '.'}}).execute()\n"
        "nbformat.write(nb, sys.argv[2])\n"
    )
    executed = tmp_path / "executed.ipynb"
    run = subprocess.run(
        [str(python), "-c", runner, a.notebook, str(executed)],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=1200,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    nb = nbformat.read(executed, as_version=4)
    failed = [c for c in nb.cells if any(o.output_type == "error" for o in c.get("outputs", []))]
    errors = [(c.source[:80], _shown(c)[-500:]) for c in failed]
    assert not errors, errors
    assert _shown(nb.cells[0]).startswith("Requirements present: jax 0.10.2"), _shown(nb.cells[0])
    assert "Installing" not in _shown(nb.cells[0])
    assert f"kernel prefix: {venv}" in _shown(nb.cells[-1]), _shown(nb.cells[-1])
    checks = _checks(nb)
    assert len(checks) >= len(a.questions)
    for source, shown in checks:
        assert "failed" not in shown.lower() and "passed" in shown.lower(), f"{source}: {shown[:500]}"
