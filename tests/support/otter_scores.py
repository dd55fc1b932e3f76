"""Score notebooks the way the otter autograder zip does, for the parity test.

    python tests/support/otter_scores.py AUTOGRADER_ZIP NOTEBOOK[::QUESTION]...

Unpacks the zip's support files and tests, executes each notebook's code cells in a fresh
namespace (in this process, as otter's kernel would, with otter calls left out), runs the zip's
test files with otter's own ``ExceptionTestFile`` (hidden cases included) and prints
``{notebook: {question: score}}`` as JSON. ``NOTEBOOK::q3`` runs only q3's test file on that
notebook (the question a known-wrong answer is about); a bare ``NOTEBOOK`` runs them all.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import zipfile
from pathlib import Path


def code_cells(path: Path) -> list[str]:
    # Plain JSON, not nbformat: importing nbformat's validator costs ~2 s per process.
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return [
        "".join(c["source"]) if isinstance(c["source"], list) else c["source"]
        for c in cells
        if c["cell_type"] == "code"
    ]


def main() -> None:
    zip_path = Path(sys.argv[1]).resolve()
    wanted = [arg.partition("::") for arg in sys.argv[2:]]
    # otter imports nbformat's validator, and jsonschema then builds RFC 3987 grammars for its
    # optional "iri" format checker (1.9 s of a 2.8 s import, in each of ten parity processes).
    # jsonschema skips that checker when the module cannot be imported; notebooks never use it.
    sys.modules.setdefault("rfc3987_syntax", None)  # type: ignore[arg-type]
    from otter.test_files import ExceptionTestFile

    from autograder import probing
    from autograder.execution import compile_cell, fake_otter, new_namespace

    work = Path(tempfile.mkdtemp(prefix="otter-parity-"))
    try:
        with zipfile.ZipFile(zip_path) as zf:
            zf.extractall(work)
        files = work / "files"
        # The zip's probe runtime must be the one this repository grades with.
        assert (files / "autograder" / "probing.py").read_text() == Path(probing.__file__).read_text()
        os.chdir(files)
        sys.path.insert(0, str(files))
        tests = {p.stem: p for p in sorted((work / "tests").glob("q*.py"), key=lambda p: int(p.stem[1:]))}
        scores = {}
        for nb, _, only in wanted:
            nb_path = Path(nb).resolve()
            sys.modules["otter"] = fake_otter()
            env = new_namespace()
            for i, source in enumerate(code_cells(nb_path)):
                try:
                    exec(compile_cell(source, i), env)  # noqa: S102
                except Exception:  # noqa: BLE001 - otter also runs on past a failing cell
                    pass
            result = {}
            for q in [only] if only else tests:
                tf = ExceptionTestFile.from_file(str(tests[q]))
                tf.run(env)
                result[tf.name] = round(float(tf.score), 6)
            scores[nb_path.name] = result
        print(json.dumps(scores))
    finally:
        os.chdir("/")
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
