"""What the grading zygote imports before it forks: every sandbox pays for it once per batch."""

from __future__ import annotations

import subprocess
import sys

from autograder.config import ROOT


def test_the_sandbox_does_not_import_nbformat() -> None:
    """nbformat's validator builds an RFC 3987 grammar at import (~2 s); sandboxes never read
    notebooks, so the zygote must not pay for it (it once made a batch's start 3.2 s)."""
    code = (
        "import sys, autograder.sandbox.child; "
        "print(sorted(m for m in sys.modules if m.startswith(('nbformat', 'jsonschema'))))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]", out
