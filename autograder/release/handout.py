"""What a student is handed: a notebook that is enough on its own, and a zip of it.

The notebook needs nothing beside it: its public tests travel in its metadata (otter assign's
``tests: files: false``), and :func:`setup_cell`, its first cell, installs the pinned packages
of ``requirements/student.txt`` where they are missing (Google Colab, a fresh environment) and
changes nothing where they are present. On Colab, where the kernel cannot read the notebook
file, it writes the public tests to ``tests/`` for ``grader.check``. The grader skips that cell
(:data:`autograder.notebooks.SETUP_CELL_MARKER`). Its last cell, :data:`EXPORT_CELL`, writes
the zip a student may submit instead of the ``.ipynb``: otter's export without its PDF, which
needs LaTeX (otter 7's default ``grader.export()`` stops half way without it, leaving a zip the
grader can only call incomplete). The grader runs neither: otter calls are not the student's code.

:func:`write_handout` writes ``build/<id>/<id>-student.zip``: the release folder
``assignments/<id>/`` (the notebook and any public data file it reads) under ``<id>/``, with
fixed dates and sorted members, so that the same sources give the same bytes.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import nbformat
from packaging.requirements import Requirement

from ..config import ROOT, Assignment
from ..notebooks import SETUP_CELL_MARKER, typed_nbformat

STUDENT_REQUIREMENTS = ROOT / "requirements" / "student.txt"
#: A fixed date for every zip member, so that the same sources give the same zip bytes.
ZIP_DATE = (1980, 1, 1, 0, 0, 0)

_SETUP = """{marker} It installs the versions this course is graded
# with where they are missing (Google Colab, a fresh environment) and changes nothing where they
# are present. The grader skips this cell.
def _setup(pins={pins}):
    import importlib.metadata
    import json
    import os
    import sys

    def version(name):
        try:
            return importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            return None

    colab = "google.colab" in str(get_ipython())
    wanted = {{pin.split("[")[0].split("==")[0]: pin.split("==")[1] for pin in pins}}
    have = {{name: version(name) for name in wanted}}
    if any(have[n] is None or (colab and have[n] != v) for n, v in wanted.items()):
        args = " ".join(pins)
        print(f"Installing {{args}} (a minute or two, once per session)...")
        %pip install --quiet {{args}}
        # Colab's CUDA plugin for its own JAX does not load with another JAX: remove it.
        plugins = [p + k for p in ("jax-cuda12", "jax-cuda13") for k in ("-plugin", "-pjrt")]
        plugins = " ".join(p for p in plugins if version(p) not in (None, wanted["jax"]))
        if colab and plugins:
            print(f"Removing {{plugins}}, built for another JAX: this notebook runs on the CPU.")
            %pip uninstall --quiet --yes {{plugins}}
        loaded = [m for m in ("jax", "jaxlib", "numpy", "matplotlib", "otter") if m in sys.modules]
        if loaded:
            raise RuntimeError(
                f"Installed; {{', '.join(loaded)}} were already loaded in an older version: restart "
                "the session (Colab: Runtime > Restart session), then run the notebook from the top."
            )
    else:
        found = ", ".join(f"{{n}} {{have[n]}}" for n in wanted)
        print(f"Requirements present: {{found}}.")
        other = [f"{{n}} {{have[n]}}" for n, v in wanted.items() if have[n] != v]
        if other:
            print(f"Note: the course is graded with {{' '.join(pins)}}; you have {{', '.join(other)}}.")
    # Colab runs the kernel away from the notebook file: otter reads the tests from tests/.
    if colab and not os.path.isdir("tests"):
        try:
            from google.colab import _message

            nb = _message.blocking_request("get_ipynb", request="", timeout_sec=60)["ipynb"]
            tests = nb["metadata"]["otter"]["tests"]
        except Exception as e:
            print(f"Could not read this notebook's public tests ({{e}}): grader.check will not work.")
            return
        os.makedirs("tests")
        for question, text in tests.items():
            with open(os.path.join("tests", question + ".py"), "w", encoding="utf-8") as f:
                f.write(text)
        if not os.path.exists({notebook}):
            with open({notebook}, "w", encoding="utf-8") as f:
                json.dump({{"cells": [], "metadata": nb["metadata"], "nbformat": 4, "nbformat_minor": 5}}, f)
        print("Wrote this notebook's public tests to tests/ for grader.check.")


_setup()
del _setup"""


#: The last cell of a student notebook (:func:`add_export_cell`).
EXPORT_CELL = """\
# Submitting: the .ipynb file itself, or the zip this cell writes beside it. Save the notebook
# first (File > Save): the zip holds the saved file. pdf=False makes no PDF, so this needs no
# LaTeX. On Google Colab this cell cannot see your work: download the notebook instead
# (File > Download > Download .ipynb) and submit that.
grader.export(pdf=False)"""


def notebook_pins(path: Path = STUDENT_REQUIREMENTS) -> list[str]:
    """The requirements the notebooks import: the first block of pins of ``student.txt``
    (up to its first blank line after a pin), as written there."""
    pins: list[str] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        text = line.split("#", 1)[0].strip()
        if text:
            Requirement(text)  # a malformed pin fails the build here, not in a student's kernel
            pins.append(text)
        elif pins and not line.strip():
            break
    return pins


def setup_cell(notebook: str) -> nbformat.NotebookNode:
    """The first cell of a student notebook named ``notebook`` (see the module docstring)."""
    source = _SETUP.format(
        marker=SETUP_CELL_MARKER, pins=json.dumps(notebook_pins()), notebook=json.dumps(notebook)
    )
    return typed_nbformat().v4.new_code_cell(source)


def add_setup_cell(nb: nbformat.NotebookNode, notebook: str) -> None:
    """Put :func:`setup_cell` first in ``nb`` (before otter's ``import otter`` cell)."""
    nb.cells.insert(0, setup_cell(notebook))


def add_export_cell(nb: nbformat.NotebookNode) -> None:
    """End ``nb`` with :data:`EXPORT_CELL`."""
    nb.cells.append(typed_nbformat().v4.new_code_cell(EXPORT_CELL))


def handout_members(a: Assignment, release: Path) -> dict[str, bytes]:
    """The student zip's members: every file of the release folder, under ``<id>/``."""
    return {
        f"{a.id}/{p.relative_to(release).as_posix()}": p.read_bytes()
        for p in sorted(release.rglob("*"))
        if p.is_file()
    }


def write_handout(a: Assignment, release: Path, path: Path) -> None:
    """Write ``path``, the student zip of ``a``: sorted members, fixed dates and modes."""
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in sorted(handout_members(a, release).items()):
            info = zipfile.ZipInfo(name, date_time=ZIP_DATE)
            info.create_system = 3  # Unix, so that the mode below is honoured
            info.external_attr = (0o100000 | 0o644) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, data)
