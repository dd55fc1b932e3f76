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


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--every-export",
        action="store_true",
        help="run every assignment through every export end to end (make test-all), not a sample",
    )


@pytest.fixture(scope="session", autouse=True)
def reference_stores(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """One folder of reference stores for the session (see autograder/reference.py): every
    test starts from the same cold state as CI, never from the developer's own cache, and each
    assignment's reference runs once however many tests grade it."""
    before = os.environ.get("AUTOGRADER_CACHE_DIR")
    os.environ["AUTOGRADER_CACHE_DIR"] = str(tmp_path_factory.mktemp("autograder-cache"))
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
        return json.loads((root / "results" / "results.json").read_text(encoding="utf-8"))

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
