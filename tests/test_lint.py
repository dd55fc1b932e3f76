"""The code stays ruff-clean (house style): CI runs only `make test`, so lint is a test."""

from __future__ import annotations

import subprocess
import sys

from autograder.config import ROOT


def test_ruff_check_and_format_are_clean() -> None:
    ruff = [sys.executable, "-m", "ruff"]
    for args in (["check", "."], ["format", "--check", "autograder", "tests", "bench", "examples"]):
        proc = subprocess.run([*ruff, *args], cwd=ROOT, capture_output=True, text=True)
        assert proc.returncode == 0, f"ruff {' '.join(args)}:\n{proc.stdout[-3000:]}{proc.stderr[-1000:]}"
