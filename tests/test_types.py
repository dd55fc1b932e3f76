"""The package type-checks: mypy, strict on all of ``autograder/`` (settings in pyproject.toml)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.xdist_group("mypy")
def test_mypy_finds_no_error() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-error-summary", "--cache-dir", str(ROOT / ".mypy_cache")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]


def test_the_check_is_strict_on_the_whole_package() -> None:
    """The promise of the docs (strict where a submission becomes a score, and beside it) is the
    configuration: no module is let off."""
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]
    assert config["strict"] is True and config["files"] == ["autograder"]
    assert not [o for o in config.get("overrides", []) if set(o) - {"module", "ignore_missing_imports"}]
