"""Score notebooks the way the otter autograder zip does, for the parity test.

    python tests/support/otter_scores.py AUTOGRADER_ZIP NOTEBOOK...

Unpacks the zip's support files and tests, executes each notebook's code cells in a fresh
namespace (in this process, as otter's kernel would, with otter calls left out), runs every test
file of the zip with otter's own ``ExceptionTestFile`` (hidden cases included) and prints
``{notebook: {question: score}}`` as JSON.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import zipfile
from pathlib import Path

import nbformat


def main() -> None:
    zip_path, notebooks = Path(sys.argv[1]).resolve(), [Path(p).resolve() for p in sys.argv[2:]]
    from otter.test_files import ExceptionTestFile

    from autograder import probing
    from autograder.execution import compile_cell, fake_otter, new_namespace

    work = Path(tempfile.mkdtemp(prefix="otter-parity-"))
    with zipfile.ZipFile(zip_path) as zf:
        zf.extractall(work)
    files = work / "files"
    # The zip's probe runtime must be the one this repository grades with.
    assert (files / "autograder" / "probing.py").read_text() == Path(probing.__file__).read_text()
    os.chdir(files)
    sys.path.insert(0, str(files))
    tests = sorted((work / "tests").glob("q*.py"), key=lambda p: int(p.stem[1:]))
    scores = {}
    for nb_path in notebooks:
        sys.modules["otter"] = fake_otter()
        env = new_namespace()
        for i, cell in enumerate(nbformat.read(nb_path, as_version=4).cells):
            if cell.cell_type != "code":
                continue
            try:
                exec(compile_cell(cell.source, i), env)  # noqa: S102
            except Exception:  # noqa: BLE001 - otter also runs on past a failing cell
                pass
        result = {}
        for t in tests:
            tf = ExceptionTestFile.from_file(str(t))
            tf.run(env)
            result[tf.name] = round(float(tf.score), 6)
        scores[nb_path.name] = result
    print(json.dumps(scores))


if __name__ == "__main__":
    main()
