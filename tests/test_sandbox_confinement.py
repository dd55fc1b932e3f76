"""The kernel's protections reach the sandbox: where the kernel offers Landlock the sandbox is
under it, and a file of the grader's machine outside the sandbox's readable roots stays unread."""

from __future__ import annotations

from pathlib import Path

import pytest

from autograder.config import load_course
from autograder.grading.grader import Grader
from autograder.sandbox import landlock


@pytest.mark.skipif(landlock.abi_version() == 0, reason="this kernel offers no Landlock")
def test_a_sandbox_cannot_read_a_file_outside_its_roots(tmp_path: Path) -> None:
    """The libc calls that set Landlock up (through the interpreter's own symbols since
    find_library went) must work in the sandbox. A sandbox without Landlock still ran, and
    was only noted as less confined: this test fails then (watched: abi forced to 0). The
    file read is blocked by the private file view too; both must hold."""
    secret = tmp_path / "elsewhere" / "answers.txt"
    secret.parent.mkdir()
    secret.write_text("the answers")
    secret.chmod(0o644)
    secret.parent.chmod(0o755)
    course = load_course()
    a = course.assignment("01-broadcasting")
    cells = [
        f"try:\n    LEAKED = open({str(secret)!r}).read()\nexcept OSError:\n    LEAKED = None",
        "assert LEAKED is None, LEAKED",
    ]
    with Grader.for_course(course, a, tmp_path / "out", seed=0) as grader:
        outcome = grader._run(cells, slot=1, probes=[], cache=None)
    assert not [m for m in outcome.missing if "Landlock" in m], outcome.missing
    assert outcome.ended == "ok" and not outcome.cell_errors, (outcome.ended, outcome.cell_errors)


def test_a_module_the_notebook_writes_into_its_folder_is_never_imported(tmp_path: Path) -> None:
    """The gates read `import wandb` of a module the grader lacks as an import that fails
    (autograder/grading/gates.py): the sandbox's own folder, the only one it writes, is not where
    modules are found, so a module written there (`%%writefile wandb.py`) cannot be imported
    unless the notebook changes where modules are found, which the gates fail closed on."""
    course = load_course()
    a = course.assignment("01-broadcasting")
    cells = [
        "%%writefile wandb_mine.py\nFOUND = True\n",
        "import os\nassert os.path.exists('wandb_mine.py')\n"
        "try:\n    import wandb_mine\nexcept ImportError:\n    wandb_mine = None\n",
        "assert wandb_mine is None, wandb_mine",
    ]
    with Grader.for_course(course, a, tmp_path / "out", seed=0) as grader:
        outcome = grader._run(cells, slot=1, probes=[], cache=None)
    assert outcome.ended == "ok" and not outcome.cell_errors, (outcome.ended, outcome.cell_errors)
