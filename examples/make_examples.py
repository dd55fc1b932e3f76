"""Write the example submissions that `make demo` grades, from the course's own sources.

    .venv/bin/python examples/make_examples.py [OUT]      (default: examples/01-broadcasting)

perfect.ipynb  the reference solution as a student would submit it
partial.ipynb  the reference with three questions answered the way students get them wrong
stub.ipynb     the untouched student release
broken.ipynb   a notebook whose JSON was cut off mid-save

Regenerate after changing 01-broadcasting; tests/test_examples.py checks they are current.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import nbformat  # noqa: E402

from autograder.config import load_course  # noqa: E402
from autograder.release import build  # noqa: E402
from autograder.release.validate import mutant_notebook  # noqa: E402

ASSIGNMENT = "01-broadcasting"
# Known-wrong answers that make the partial submission (from solutions/01-broadcasting/mutants/).
PARTIAL = ("q3_", "q5_", "q8_")


def main(out: Path) -> None:
    course = load_course()
    a = course.assignment(ASSIGNMENT)
    with tempfile.TemporaryDirectory() as tmp:
        build.build_assignment(a, course, release_root=Path(tmp) / "release", build_root=Path(tmp) / "build")
        reference = nbformat.read(Path(tmp) / "build" / a.id / "reference.ipynb", as_version=4)
        stub = (Path(tmp) / "release" / a.id / a.notebook).read_text()
    out.mkdir(parents=True, exist_ok=True)
    build.write_notebook(reference, out / "perfect.ipynb")
    partial = reference
    for prefix in PARTIAL:
        mutant = sorted(a.mutants_dir.glob(f"{prefix}*.py"))[0]
        partial = mutant_notebook(partial, a.questions[prefix[:-1]].functions, mutant.read_text())
    build.stable_ids(partial)
    build.write_notebook(partial, out / "partial.ipynb")
    (out / "stub.ipynb").write_text(stub)
    (out / "broken.ipynb").write_text(stub[: len(stub) // 2])


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "examples" / ASSIGNMENT)
