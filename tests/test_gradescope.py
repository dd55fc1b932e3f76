"""The Gradescope autograder zip: no solution a student's code can reach, and the sandboxed grader.

Otter's own autograder ran the hidden tests inside the student's kernel, beside a shipped
``reference_solution.py``: a cell ``from reference_solution import *`` scored full marks. The zip
now holds the solution only under ``files/solutions/`` (read by the grader, never by a sandbox)
and runs ``autograder.release.gradescope``. The attack below is the stub notebook plus a cell that looks
for the solution everywhere it could be and runs what it finds: it must score 0, while the same
cell run outside the sandbox does find it (so a leak would show as points), and the honest
reference keeps full marks through the same ``run_autograder``.
"""

from __future__ import annotations

import ast
import json
import re
import sys
import zipfile
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import Any

import nbformat
import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from autograder.config import ROOT, load_course
from autograder.notebooks import defined_names, read_notebook
from autograder.release import build, gradescope
from autograder.sandbox.execution import load_probes

A = "01-broadcasting"
COURSE = load_course()

# Defines the helper of the attack; a solution it finds is run in the notebook's namespace.
STEAL = """
import json, os, sys
KNOWN = {known!r}
stolen = []

def take(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if path.endswith(".ipynb"):
        cells = json.loads(text)["cells"]
        sources = ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]
    else:
        sources = [text]
    for source in sources:
        if "otter" not in source:
            try:
                exec(source, globals())
            except Exception:
                pass
    stolen.append(path)
"""

# Everywhere the solution could be: otter's modules on the import path, the zip's folder by
# its known absolute path, relative paths, every import path, the working directory of every
# process (the grader's is files/), and a bounded walk of the whole filesystem.
ATTEMPTS = """
try:
    take(KNOWN)
except Exception:
    pass
for name in ("reference_solution", "hidden_probes"):
    try:
        module = __import__(name)
        globals().update({k: v for k, v in vars(module).items() if not k.startswith("_")})
        stolen.append(name)
    except Exception:
        pass
places = [os.path.dirname(KNOWN), "solutions", "../solutions", "../../solutions", "../../../solutions"]
places += [os.path.join(p, "solutions") for p in sys.path]
places += [f"/proc/{pid}/cwd/solutions" for pid in os.listdir("/proc") if pid.isdigit()]
for place in places:
    for dirpath, _, files in os.walk(place):
        for name in files:
            if name.endswith((".ipynb", ".py")):
                try:
                    take(os.path.join(dirpath, name))
                except Exception:
                    pass
walked = 0
for dirpath, dirnames, files in os.walk("/"):
    if dirpath == "/":
        dirnames[:] = [d for d in dirnames if d not in ("proc", "sys", "dev", "usr", "lib", "lib64")]
    walked += 1
    if walked > 20000:
        break
    if "probes.py" in files:
        for name in files:
            if name.endswith((".ipynb", ".py")):
                try:
                    take(os.path.join(dirpath, name))
                except Exception:
                    pass
raise RuntimeError(f"the attack ran to its end; stolen: {stolen}")  # in the row's notes
"""


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The zip of 01-broadcasting, built from the sources; beside it, reference.ipynb."""
    tmp = tmp_path_factory.mktemp("gradescope-build")
    a = COURSE.assignment(A)
    build.build_assignment(a, COURSE, release_root=tmp / "release", build_root=tmp / "build")
    return tmp / "build" / A / f"{A}-autograder.zip"


def normalized(text: str) -> str:
    """Code lines stripped of indentation, blank and comment lines dropped."""
    lines = (line.strip() for line in text.splitlines())
    return "\n".join(line for line in lines if line and not line.startswith("#"))


def solution_blocks(master: nbformat.NotebookNode) -> list[str]:
    """The text of each ``# BEGIN SOLUTION`` block of ``master`` (normalized), long enough to
    be the solution's own (a lone ``return x`` could be anyone's)."""
    blocks = []
    for cell in master.cells:
        if cell.cell_type == "code":
            for m in re.finditer(r"# BEGIN SOLUTION[^\n]*\n(.*?)\n\s*# END SOLUTION", cell.source, re.S):
                block = normalized(m.group(1))
                if len(block) >= 30:
                    blocks.append(block)
    return blocks


def members(zip_path: Path) -> dict[str, zipfile.ZipInfo]:
    with zipfile.ZipFile(zip_path) as zf:
        return {i.filename: i for i in zf.infolist()}


def test_the_zip_holds_the_grader_and_the_solution_only_where_the_grader_reads(
    built: Path, tmp_path: Path
) -> None:
    a = COURSE.assignment(A)
    infos = members(built)
    names = set(infos)
    assert {"run_autograder", "setup.sh", "requirements.txt", "files/course.yml"} <= names
    assert {f"files/solutions/{A}/{a.notebook}", f"files/solutions/{A}/probes.py"} <= names
    assert not {n for n in names if n.rsplit("/", 1)[-1] in ("reference_solution.py", "hidden_probes.py")}
    assert not [n for n in names if n.startswith("tests/") or "__pycache__" in n or n.endswith(".pyc")]
    for script in ("run_autograder", "setup.sh"):
        assert infos[script].external_attr >> 16 == 0o100755, script
    assert all(i.date_time == build.ZIP_DATE for i in infos.values())

    with zipfile.ZipFile(built) as zf:
        zf.extractall(tmp_path)
    files = tmp_path / "files"
    # The grader as this repository has it, and the requirements CI tested.
    package = ROOT / "autograder"
    shipped = {p.relative_to(files / "autograder") for p in (files / "autograder").rglob("*") if p.is_file()}
    ours = {
        p.relative_to(package)
        for p in package.rglob("*")
        if p.is_file()
        and p.suffix != ".pyc"
        and not any(x == "__pycache__" or x.startswith(".") for x in p.relative_to(package).parts)
    }
    assert shipped == ours
    assert all((files / "autograder" / p).read_bytes() == (package / p).read_bytes() for p in ours)
    assert (tmp_path / "requirements.txt").read_bytes() == (
        ROOT / "requirements" / "autograder.txt"
    ).read_bytes()
    # A course of its own: this assignment alone, with the course's settings.
    own = load_course(files / "course.yml")
    assert own.assignments == [a] and own.grading == COURSE.grading and own.jax == COURSE.jax

    # No solution block outside files/solutions/, whatever its indentation.
    blocks = solution_blocks(read_notebook(a.master))
    assert len(blocks) >= len(a.questions)
    for name in names - {n for n in names if n.startswith("files/solutions/")}:
        text = normalized((tmp_path / name).read_text(encoding="utf-8", errors="replace"))
        leaked = [block for block in blocks if block in text]
        assert not leaked, f"{name} holds {leaked[0][:60]!r}"


def test_requirements_pin_what_the_grader_imports_and_all_they_need(
    pins: Callable[[Path], dict[str, tuple[str, set[str]]]],
) -> None:
    """requirements/autograder.txt (setup.sh installs it) pins every third-party module that
    autograder/ imports, and every package those need, at lock.txt's versions."""

    ours = pins(ROOT / "requirements" / "autograder.txt")
    lock = {n: v for n, (v, _) in pins(ROOT / "requirements" / "lock.txt").items()}
    wrong = {n: (v, lock.get(n)) for n, (v, _) in ours.items() if lock.get(n) != v}
    assert not wrong, f"(autograder.txt, lock.txt): {wrong}"

    build_only = {"otter", "hidden_probes"}  # otter assign at build time; otter's old test path
    # Dask (grade --cluster/--scheduler) is imported by that backend alone, only when
    # one of those flags is given (test_dask_cluster checks it): Gradescope grades one
    # submission where it runs and never imports it.
    cluster_only = ROOT / "autograder" / "grading" / "backends" / "dask_cluster.py"
    imported = set()
    for path in (ROOT / "autograder").rglob("*.py"):
        if path == cluster_only:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                imported |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                imported.add(node.module.split(".")[0])
    third_party = imported - set(sys.stdlib_module_names) - {"autograder"} - build_only
    providers = metadata.packages_distributions()
    missing = {
        m for m in third_party if not {canonicalize_name(d) for d in providers.get(m, [m])} & set(ours)
    }
    assert not missing, f"imported by autograder/ but not in requirements/autograder.txt: {missing}"

    needed = []
    for name, (_, extras) in ours.items():
        for text in metadata.distribution(name).requires or []:
            req = Requirement(text)
            envs = [{"extra": e} for e in extras or {""}]
            applies = req.marker is None or any(req.marker.evaluate(env) for env in envs)
            if applies and canonicalize_name(req.name) not in ours:
                needed.append(f"{req.name} (for {name})")
    assert not needed, f"add to requirements/autograder.txt, at lock.txt's version: {needed}"


def test_honest_reference_scores_full_marks_and_the_attack_zero(
    built: Path,
    tmp_path: Path,
    gradescope: Callable[[Path, list[Path], Path], dict[str, dict[str, Any]]],
    gate_bypass_cell: str,
) -> None:
    a = COURSE.assignment(A)
    work = tmp_path / "gradescope"
    known = str(work / "attack" / "source" / "files" / "solutions" / A / a.notebook)
    stub = nbformat.read(a.release_dir / a.notebook, as_version=4)
    stub.cells.append(nbformat.v4.new_code_cell(STEAL.format(known=known) + ATTEMPTS))
    subs = tmp_path / "subs"
    subs.mkdir()
    nbformat.write(stub, subs / "attack.ipynb")
    reference = subs / "reference.ipynb"
    reference.write_bytes((built.parent / "reference.ipynb").read_bytes())
    bypass = nbformat.read(reference, as_version=4)
    bypass.cells.append(nbformat.v4.new_code_cell(gate_bypass_cell))
    nbformat.write(bypass, subs / "bypass.ipynb")

    results = gradescope(built, [reference, subs / "attack.ipynb", subs / "bypass.ipynb"], work)

    honest = results["reference.ipynb"]
    assert honest["extra_data"]["status"] == "graded", honest["output"]
    assert honest["score"] == honest["extra_data"]["possible"] == 100, honest["output"]
    assert len(honest["tests"]) == len(load_probes(a.probes_file).probes)
    attack = results["attack.ipynb"]
    log = (work / "attack" / "run_autograder.log").read_text(encoding="utf-8")[-3000:]
    assert attack["extra_data"]["status"] == "graded", (attack["output"], log)
    assert attack["score"] == 0, attack["output"]
    assert all(t["score"] == 0 for t in attack["tests"])
    assert any("the attack ran to its end; stolen: []" in n for n in attack["extra_data"]["notes"]), attack

    # Issue 38's gate bypass earns nothing for q2 here either: lost, or held (0 on Gradescope,
    # whose manual grading takes over).
    bypassed = results["bypass.ipynb"]
    q2 = [t for t in bypassed["tests"] if t["name"].startswith("q2")]
    assert bypassed["extra_data"]["status"] == "graded", bypassed["output"]
    assert q2 and all(t["score"] == 0 for t in q2), q2
    assert bypassed["score"] == 100 - a.questions["q2"].points, bypassed["output"]

    # Control: the same cell outside the sandbox, on the unpacked zip, does find the solution
    # and makes the stub functions right: a leak in the sandbox would have scored.
    env: dict[str, Any] = {"__name__": "__main__"}
    for cell in stub.cells[:-1]:
        if cell.cell_type == "code" and defined_names(cell.source) & set(a.function_question()):
            exec(cell.source, env)  # noqa: S102 - the course's own stub
    assert env["broadcast_shape"]((2, 1), (3,)) is None
    exec(STEAL.format(known=known) + "take(KNOWN)", env)  # noqa: S102
    assert env["broadcast_shape"]((2, 1), (3,)) == (2, 3)


def test_each_submission_gets_a_results_json_with_one_sentence(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No notebook, several notebooks, a grader failure: score 0 and one sentence saying so,
    never a traceback; grading itself is faked here (the tests above run it for real)."""
    from autograder.grading import batch as grade

    a = COURSE.assignment(A)
    one = COURSE.model_copy(update={"assignments": [a]})
    stub = (a.release_dir / a.notebook).read_bytes()

    def results(root: Path) -> dict[str, Any]:
        returned = gradescope.run(root, one)
        written = json.loads((root / "results" / "results.json").read_text())
        assert returned == written and written["score"] == 0 and written["stdout_visibility"] == "hidden"
        assert "Traceback" not in written["output"] and written["output"].count(". ") == 0
        return written

    (tmp_path / "empty" / "submission").mkdir(parents=True)
    assert "No notebook was found" in results(tmp_path / "empty")["output"]

    several = tmp_path / "several" / "submission"
    several.mkdir(parents=True)
    (several / "draft.ipynb").write_bytes(stub)
    (several / "final.ipynb").write_bytes(stub)
    assert "several notebooks" in results(tmp_path / "several")["output"]

    broken = tmp_path / "broken" / "submission"
    broken.mkdir(parents=True)
    (broken / a.notebook).write_bytes(stub)

    def fails(*args: Any, **kwargs: Any) -> int:
        raise RuntimeError("the grader broke")

    monkeypatch.setattr(grade, "run", fails)
    assert results(tmp_path / "broken")["output"] == gradescope.GRADER_FAILED
    monkeypatch.setattr(grade, "run", lambda options: 1)  # grading failed: exit status 1
    assert results(tmp_path / "broken")["output"] == gradescope.GRADER_FAILED


def test_the_submission_is_found_where_gradescope_may_put_it(tmp_path: Path) -> None:
    sub = tmp_path / "submission"
    (sub / ".ipynb_checkpoints").mkdir(parents=True)
    (sub / ".ipynb_checkpoints" / "broadcasting-checkpoint.ipynb").write_text("{}")
    (sub / "notes.pdf").write_text("%PDF")
    (sub / "export.zip").write_bytes(b"PK")
    assert gradescope.find_submission(sub, "broadcasting.ipynb") == sub / "export.zip"
    (sub / "work").mkdir()
    (sub / "work" / "broadcasting.ipynb").write_text("{}")
    assert gradescope.find_submission(sub, "broadcasting.ipynb") == sub / "work" / "broadcasting.ipynb"
    (sub / "work" / "link.ipynb").symlink_to("/etc/passwd")
    assert gradescope.find_submission(sub, "broadcasting.ipynb") == sub / "work" / "broadcasting.ipynb"


def test_the_shell_scripts_agree_with_the_runtime_they_start() -> None:
    """``run_autograder`` and ``setup.sh`` are template files shipped as they are; the values they
    share with :mod:`autograder.release.gradescope` (the root variable, the venv, the fallback
    results, the module to run) are the runtime's."""
    run = (gradescope.TEMPLATES / "run_autograder").read_text()
    setup = (gradescope.TEMPLATES / "setup.sh").read_text()
    assert f"${{{gradescope.ROOT_ENV}:-{gradescope.DEFAULT_ROOT}}}" in run
    assert f"{gradescope.VENV}/bin/python" in run and f"-m {gradescope.__name__}" in run
    assert f"'{gradescope.FALLBACK_RESULTS}'" in run
    assert f'"$python" -m venv {gradescope.VENV}' in setup
    assert run.startswith("#!/usr/bin/env bash") and setup.startswith("#!/usr/bin/env bash")
