"""The bundled examples are current (`make demo` grading them as written: test_readme_commands)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from autograder.config import ROOT

pytestmark = pytest.mark.assignment("01-broadcasting")
EXAMPLES = ROOT / "examples" / "01-broadcasting"


def test_examples_are_what_the_generator_makes(tmp_path: Path) -> None:
    subprocess.run([sys.executable, str(ROOT / "examples" / "make_examples.py"), str(tmp_path)], check=True)
    for name in ("perfect.ipynb", "partial.ipynb", "stub.ipynb", "broken.ipynb"):
        assert (tmp_path / name).read_bytes() == (EXAMPLES / name).read_bytes(), (
            f"examples/01-broadcasting/{name} is stale; run examples/make_examples.py"
        )
