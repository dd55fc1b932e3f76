"""``python -m autograder.release.gradescope``: grade one Gradescope submission with the sandboxed grader.

Gradescope unpacks ``build/<id>/<id>-autograder.zip`` into ``/autograder/source/``, runs
``setup.sh`` once when it builds the image, then ``run_autograder`` once per submission. That
script runs this module with ``/autograder/source/files`` as the working directory and its only
import path. ``files/`` is laid out like this repository, cut down to one assignment: the
``autograder`` package, a ``course.yml`` listing only this assignment, and
``solutions/<id>/`` (master notebook and ``probes.py``). :mod:`autograder.config` resolves every
path from the package's own location, so that copy loads as a course of its own.

Grading here is ``python -m autograder grade`` on one file: the notebook runs in a sandbox that
cannot read ``files/`` (Landlock, and a user id of its own since Gradescope runs this as root),
the hidden tests enter it only after its last cell, and the reference runs in a sandbox that
never ran student code. The zip ships no reference module and no hidden tests a student's
kernel could import: otter's own model, which ran hidden tests inside the student's kernel, let
``from reference_solution import *`` score full marks.

This module writes ``/autograder/results/results.json`` (Gradescope's format, which the grader's
``results/<key>.json`` already follows) in every case: a submission it cannot grade, or a failure
of the grader, gets score 0 and one sentence saying so; details go to stderr, which students do
not see (``stdout_visibility: hidden``).

``AUTOGRADER_GRADESCOPE_ROOT`` replaces ``/autograder`` (tests unpack the zip into a temporary
folder); ``AUTOGRADER_PYTHON`` picks the interpreter ``run_autograder`` starts.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
import tempfile
import traceback
from pathlib import Path
from typing import Any

from ..config import COURSE_FILE, Assignment, Course, load_course

ROOT_ENV = "AUTOGRADER_GRADESCOPE_ROOT"
DEFAULT_ROOT = Path("/autograder")

#: Where ``setup.sh`` puts the grader's Python: under /opt, readable by every user, because the
#: sandboxes run as other users and must import from it (a Python under /root would make the
#: grader fall back to running them as root, with Landlock alone between them and the solution).
VENV = "/opt/autograder-venv"

#: A sentence for the student when the grader, not the submission, failed.
GRADER_FAILED = (
    "The autograder failed while grading this submission; this is not your fault: "
    "ask your instructor to regrade it."
)
#: What ``run_autograder`` writes when Python could not even start (a broken image); the shell
#: scripts Gradescope runs are files beside this module, ``templates/run_autograder`` and
#: ``templates/setup.sh``, which repeat these values (``tests/test_gradescope.py`` holds them equal).
FALLBACK_RESULTS = json.dumps(
    {"score": 0.0, "output": GRADER_FAILED, "tests": [], "stdout_visibility": "hidden"}
)
TEMPLATES = Path(__file__).resolve().parent / "templates"


class NoSubmission(Exception):
    """The submission folder holds no single notebook to grade; the message is for the student."""


def failure_results(message: str, status: str = "error") -> dict[str, Any]:
    """A results.json that scores 0 and says why in ``message`` (one sentence, no traceback)."""
    return {
        "score": 0.0,
        "output": message,
        "tests": [],
        "stdout_visibility": "hidden",
        "extra_data": {"status": status},
    }


def find_submission(folder: Path, notebook: str) -> Path:
    """The one notebook or zip in ``folder`` (searched recursively: Gradescope may keep the
    folders of an upload). Several are accepted only if exactly one is named ``notebook``.
    Hidden files, ``__MACOSX`` and symbolic links are ignored; the grader checks the rest."""
    found: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d != "__MACOSX")
        for name in sorted(filenames):
            path = Path(dirpath) / name
            if name.startswith(".") or path.is_symlink() or not path.is_file():
                continue
            if name.lower().endswith((".ipynb", ".zip")):
                found.append(path)
        if len(found) > 100:
            break
    if len(found) > 1:
        named = [p for p in found if p.name == notebook]
        if len(named) != 1:
            shown = ", ".join(p.name for p in found[:5]) + (", ..." if len(found) > 5 else "")
            raise NoSubmission(
                f"Your submission holds several notebooks or zips ({shown}); submit only {notebook}."
            )
        found = named
    if not found:
        raise NoSubmission(
            f"No notebook was found in your submission; submit {notebook} "
            "(or the zip that grader.export() makes)."
        )
    return found[0]


def _copy_capped(src: Path, dst: Path, limit: int) -> None:
    """Copy at most ``limit`` bytes: a larger file is then refused by the grader's own size
    check, with its usual message, without filling the disk first."""
    with open(src, "rb") as f, open(dst, "wb") as g:
        g.write(f.read(limit))


def submission_seed(a: Assignment, folder: Path) -> int:
    """The seed of one Gradescope submission's hidden inputs: a regrade of the same bytes draws
    the same inputs (the same score), and no student can compute it, since it also hashes the
    solution, which no sandbox can read."""
    h = hashlib.sha256(a.master.read_bytes())
    for f in sorted(folder.iterdir()):
        h.update(hashlib.sha256(f.read_bytes()).digest())
    return int.from_bytes(h.digest()[:8], "little") >> 1


def grade_submission(root: Path, course: Course) -> dict[str, Any]:
    """Grade the submission under ``root/submission`` and return its results.json content."""
    from ..grading import batch as grade
    from ..grading.options import GradeOptions

    if len(course.assignments) != 1:
        raise ValueError(f"the autograder's course.yml lists {len(course.assignments)} assignments, not one")
    a = course.assignments[0]
    try:
        found = find_submission(root / "submission", a.notebook)
    except NoSubmission as e:
        return failure_results(str(e), status="invalid")
    scratch = Path(tempfile.mkdtemp(prefix="autograder-gradescope-"))
    try:
        # The sandboxes run as other users and must walk down to their folders in here.
        os.chmod(scratch, 0o711)
        subs = scratch / "submission"
        subs.mkdir()
        _copy_capped(found, subs / found.name, course.grading.uploads.max_file_mb * 2**20 + 1)
        out = scratch / "out"
        status = grade.run(
            GradeOptions(
                assignment=a.id,
                submissions=subs,
                out=out,
                quiet=True,
                course=course,
                seed=submission_seed(a, subs),
            )
        )
        written = sorted((out / "results").glob("*.json"))
        if status != 0 or len(written) != 1:
            print(f"gradescope: grade exited with {status}, {len(written)} result(s)", file=sys.stderr)
            return failure_results(GRADER_FAILED)
        results: dict[str, Any] = json.loads(written[0].read_text(encoding="utf-8"))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    results.setdefault("stdout_visibility", "hidden")
    return results


def run(root: Path, course: Course | None = None) -> dict[str, Any]:
    """Grade ``root/submission`` into ``root/results/results.json`` and return what was written.
    ``course`` defaults to the ``course.yml`` beside this package (the zip's own). Never raises
    for a grading failure: it becomes a score of 0 with :data:`GRADER_FAILED`."""
    try:
        results = grade_submission(root, course or load_course(COURSE_FILE))
    except Exception:  # noqa: BLE001 - the student sees one sentence, the log the traceback
        traceback.print_exc(file=sys.stderr)
        results = failure_results(GRADER_FAILED)
    target = root / "results" / "results.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(results, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return results


def main() -> int:
    """Entry point of ``run_autograder``; 0 once results.json is written."""
    root = Path(os.environ.get(ROOT_ENV) or DEFAULT_ROOT)
    results = run(root)
    print(f"gradescope: score {results['score']:g}: {results['output']}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
