"""Malformed submissions: each gets exactly one row with a clear message, and none stops a batch."""

from __future__ import annotations

import io
import json
import os
import re
import zipfile
from pathlib import Path

import nbformat
import numpy as np
import pytest

from autograder.config import load_course
from autograder.errors import UsageError
from autograder.grading.collect import collect

COURSE = load_course(check_files=False)
BROADCASTING = COURSE.assignment("01-broadcasting")


def notebook(source: str, assignment: str | None = "01-broadcasting") -> str:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(source)]
    if assignment:
        nb.metadata["otter"] = {"assignment_name": assignment}
    return nbformat.writes(nb)


GOOD = notebook("def outer(x, y):\n    return x[:, None] * y[None, :]")


def zip_bytes(members: dict[str, bytes], compression: int = zipfile.ZIP_DEFLATED) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return buf.getvalue()


def one(folder: Path) -> tuple[str, str | None]:
    subs, _ = collect(folder, BROADCASTING, COURSE)
    assert len(subs) == 1, [s.name for s in subs]
    return subs[0].name, subs[0].problem


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    d = tmp_path / "subs"
    d.mkdir()
    return d


CASES: list[tuple[str, bytes, str | None]] = [
    ("corrupt.ipynb", b'{"cells": [', "is not valid notebook JSON (cut off while saving? save it again)"),
    ("empty.ipynb", b"", "is empty"),
    ("whitespace.ipynb", b"  \n\t\n", "is empty"),
    (
        "paper.ipynb",
        b"%PDF-1.7\n%\xe2\xe3\xcf\xd3 binary",
        "is a PDF, not a notebook; submit the .ipynb file",
    ),
    (
        "script.ipynb",
        b"import jax\ndef outer(x, y):\n    return x\n",
        "is not a notebook (not JSON; a .py or text file renamed?)",
    ),
    ("binary.ipynb", bytes(range(256)) * 4, "is not a notebook (the file is not UTF-8 text)"),
    ("list.ipynb", b"[1, 2, 3]", "is not a Jupyter notebook (no cell list)"),
    (
        "nocells.ipynb",
        json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}}).encode(),
        "is not a Jupyter notebook (no cell list)",
    ),
    (
        "badcell.ipynb",
        json.dumps(
            {
                "nbformat": 4,
                "nbformat_minor": 5,
                "metadata": {},
                "cells": [{"cell_type": "code", "source": 42}],
            }
        ).encode(),
        "is not a Jupyter notebook (unsupported format)",
    ),
    (
        "other.ipynb",
        notebook("def lcg(state, n):\n    return 0", "02-prng").encode(),
        "is a notebook for 02-prng, not 01-broadcasting",
    ),
    (
        "lookalike.ipynb",
        notebook("def split_keys(key, n):\n    return key", None).encode(),
        "looks like a notebook for 02-prng, not 01-broadcasting",
    ),
    (
        "unrelated.ipynb",
        notebook("print('hello')", None).encode(),
        "defines none of this assignment's functions "
        "(add_positional, brighten, broadcast_shape, one_hot, ...)",
    ),
    ("good.ipynb", GOOD.encode(), None),
    ("bom.ipynb", b"\xef\xbb\xbf" + GOOD.encode(), None),
    ("notzip.zip", b"PK\x03\x04 this is not really a zip", "is not a valid zip file"),
    ("nonotebook.zip", zip_bytes({"answers.py": b"x = 1"}), "holds no notebook (.ipynb)"),
    (
        "two.zip",
        zip_bytes({"a.ipynb": GOOD.encode(), "b.ipynb": GOOD.encode()}),
        "holds several notebooks; submit one",
    ),
    (
        "escape.zip",
        zip_bytes({"../../evil.ipynb": GOOD.encode()}),
        "holds a notebook whose path escapes the zip (../../evil.ipynb)",
    ),
    (
        "absolute.zip",
        zip_bytes({"/etc/evil.ipynb": GOOD.encode()}),
        "holds a notebook whose path escapes the zip (/etc/evil.ipynb)",
    ),
    (
        "bomb.zip",
        zip_bytes({"broadcasting.ipynb": b"\0" * (50 * 2**20)}),
        "looks like a zip bomb (a member expands more than 200 times)",
    ),
    (
        "otter-export.zip",
        zip_bytes({"broadcasting.ipynb": GOOD.encode(), ".OTTER_LOG": b"\x80\x04cposix\nsystem\n"}),
        None,
    ),
    # Nests past the JSON parser's recursion limit: once an internal error that stopped the class.
    ("deep.ipynb", b"[" * 100_000 + b"]" * 100_000, "is not a Jupyter notebook (its JSON nests too deeply)"),
    (
        "deep-in-zip.zip",
        zip_bytes({"broadcasting.ipynb": b'{"cells": ' + b"[" * 3_000 + b"]" * 3_000 + b"}"}),
        "is not a Jupyter notebook (its JSON nests too deeply)",
    ),
    (
        "corrupt-in-zip.zip",
        zip_bytes({"broadcasting.ipynb": b"{nope"}),
        "is not valid notebook JSON (cut off while saving? save it again)",
    ),
]


@pytest.mark.parametrize(("name", "data", "problem"), CASES, ids=[c[0] for c in CASES])
def test_malformed_file_gets_one_row_with_its_problem(
    folder: Path, name: str, data: bytes, problem: str | None
) -> None:
    (folder / name).write_bytes(data)
    assert one(folder) == (name, problem)


def test_otter_log_is_ignored_and_noted(folder: Path) -> None:
    (folder / "alice.zip").write_bytes(
        zip_bytes({"broadcasting.ipynb": GOOD.encode(), ".OTTER_LOG": b"\x80\x04 not a pickle we open"})
    )
    (sub,), _ = collect(folder, BROADCASTING, COURSE)
    assert sub.problem is None
    assert sub.notes == ("ignored .OTTER_LOG (never unpickled)",)


def test_directory_named_like_a_notebook_gets_a_row(folder: Path) -> None:
    (folder / "carol.ipynb").mkdir()
    assert one(folder) == ("carol.ipynb", "is a folder, not a notebook or zip file")


def test_symlink_is_never_followed(folder: Path, tmp_path: Path) -> None:
    secret = tmp_path / "reference.ipynb"
    secret.write_text(GOOD)
    (folder / "dave.ipynb").symlink_to(secret)
    assert one(folder) == ("dave.ipynb", "is a symbolic link, not a file; submit the notebook itself")


def test_fifo_is_not_opened(folder: Path) -> None:
    os.mkfifo(folder / "erin.ipynb")
    assert one(folder) == ("erin.ipynb", "is not a regular file")


def test_oversized_file_is_not_read(folder: Path) -> None:
    with open(folder / "huge.ipynb", "wb") as f:
        f.truncate(21 * 2**20)
    name, problem = one(folder)
    assert (name, str(problem)[:21]) == ("huge.ipynb", "is larger than 20 MiB")


def test_non_utf8_file_name_gets_a_printable_row(folder: Path) -> None:
    raw = os.fsencode(folder) + b"/caf\xe9.ipynb"
    with open(raw, "wb") as f:
        f.write(GOOD.encode())
    (sub,), _ = collect(folder, BROADCASTING, COURSE)
    assert sub.name == "caf\ufffd.ipynb"
    assert sub.problem is None
    assert "/" not in sub.key


def test_other_files_are_skipped_without_a_row(folder: Path) -> None:
    (folder / "a.ipynb").write_text(GOOD)
    (folder / "notes.txt").write_text("hi")
    (folder / "answers.pdf").write_bytes(b"%PDF")
    subs, skipped = collect(folder, BROADCASTING, COURSE)
    assert [s.name for s in subs] == ["a.ipynb"]
    assert skipped == ["answers.pdf", "notes.txt"]


def test_batch_zip_never_extracts_escaping_members(tmp_path: Path) -> None:
    batch = tmp_path / "class.zip"
    batch.write_bytes(
        zip_bytes(
            {
                "alice.ipynb": GOOD.encode(),
                "../escape.ipynb": GOOD.encode(),
                "/abs/bob.ipynb": GOOD.encode(),
                "readme.txt": b"x",
                "nested/carol.ipynb": GOOD.encode(),
            }
        )
    )
    subs, skipped = collect(batch, BROADCASTING, COURSE)
    rows = {s.name: s.problem for s in subs}
    climbs = "its path in the zip is absolute or climbs out with '..'; not extracted"
    assert rows == {
        "alice.ipynb": None,
        "../escape.ipynb": climbs,
        "/abs/bob.ipynb": climbs,
        "nested/carol.ipynb": None,
    }
    assert skipped == ["readme.txt"]
    assert all("/" not in s.key for s in subs)
    assert not (tmp_path / "escape.ipynb").exists()


def test_duplicate_keys_are_made_unique(tmp_path: Path) -> None:
    batch = tmp_path / "class.zip"
    batch.write_bytes(zip_bytes({"a/x.ipynb": GOOD.encode(), "a_x.ipynb": GOOD.encode()}))
    subs, _ = collect(batch, BROADCASTING, COURSE)
    assert len({s.key for s in subs}) == 2


@pytest.mark.parametrize("name", ["missing", "file.txt"])
def test_unusable_submissions_argument_is_a_usage_error(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    if name.endswith(".txt"):
        path.write_text("x")
    with pytest.raises(UsageError, match=name):
        collect(path, BROADCASTING, COURSE)


# -------------------------------------------------------------------------------------------------
# What the grader reads is bounded in time and memory, whatever a submission holds (the trust
# model: "the grader bounds what it reads"). Each case runs `collect` in a child under a 1.5 GiB
# address-space limit and a time limit: once, an 18 MiB cell took the grader to 11 GB and two
# minutes, and 19 MiB of empty JSON objects to 3.8 GB.

BOUNDED_COLLECT = """
import json, resource, sys, time
resource.setrlimit(resource.RLIMIT_AS, (1536 * 2**20, 1536 * 2**20))
from pathlib import Path
from autograder.config import load_course
from autograder.grading.collect import collect
course = load_course(check_files=False)
start = time.monotonic()
subs, _ = collect(Path(sys.argv[1]), course.assignment("01-broadcasting"), course)
print(json.dumps({
    "seconds": time.monotonic() - start,
    # VmHWM, not ru_maxrss: Linux keeps the latter across exec, and this child forked from pytest.
    "peak_mb": int(open("/proc/self/status").read().split("VmHWM:")[1].split()[0]) / 1024,
    "rows": [[s.name, s.problem] for s in subs],
}))
"""


def bounded_collect(path: Path) -> dict:
    """``collect(path)`` in a child with little memory: its rows, seconds and peak RSS (MiB)."""
    import subprocess
    import sys

    from autograder.config import ROOT

    proc = subprocess.run(
        [sys.executable, "-c", BOUNDED_COLLECT, str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.splitlines()[-1])


def raw_notebook(cells: list[dict], **extra: object) -> str:
    """Notebook JSON written as a student's tool might, each source one string."""
    return json.dumps(
        {
            "nbformat": 4,
            "nbformat_minor": 5,
            "metadata": {"otter": {"assignment_name": "01-broadcasting"}},
            "cells": cells,
            **extra,
        }
    )


def code(source: str, **extra: object) -> dict:
    return {
        "cell_type": "code",
        "metadata": {},
        "execution_count": None,
        "outputs": [],
        "source": source,
        **extra,
    }


TOO_MUCH = ", more than the grader reads (outputs count too: clear them, save, and submit again)"
GOOD_CELL = code("def outer(x, y):\n    return x[:, None] * y[None, :]")

HUGE: list[tuple[str, object, str]] = [
    (
        # 18 MiB of statements in one cell, under the 20 MiB file cap.
        "big-cell.ipynb",
        lambda: raw_notebook([GOOD_CELL, code("a=1;" * (18 * 2**20 // 4))]),
        "code cell 2 holds 18432 KiB of code; the grader reads at most 128 KiB per code cell",
    ),
    (
        "much-code.ipynb",
        lambda: raw_notebook([GOOD_CELL] + [code(f"s{i} = '" + "b" * (120 * 2**10) + "'") for i in range(5)]),
        "its code cells hold more than 512 KiB of code in all, more than the grader reads",
    ),
    (
        # Each cell is small, and together they are more syntax than any honest notebook.
        "many-tokens.ipynb",
        lambda: raw_notebook([GOOD_CELL] + [code("x = [" + "1," * 40_000 + "]") for _ in range(3)]),
        "its code is longer than the grader reads (more than 50000 words and symbols)",
    ),
    (
        "empty-objects.ipynb",
        lambda: raw_notebook([GOOD_CELL], junk=[{} for _ in range(19 * 2**20 // 4)]),
        "holds more than 200000 JSON objects and lists" + TOO_MUCH,
    ),
    (
        "many-values.ipynb",
        lambda: raw_notebook([GOOD_CELL], junk=[0.5] * (19 * 2**20 // 5)),
        "holds more than 2000000 JSON values" + TOO_MUCH,
    ),
    (
        "many-cells.ipynb",
        lambda: raw_notebook([GOOD_CELL] + [code("1")] * 40_000),
        "holds 40001 cells; the grader reads at most 2000",
    ),
]


@pytest.mark.parametrize(("name", "make", "problem"), HUGE, ids=[c[0] for c in HUGE])
def test_huge_notebooks_are_refused_in_bounded_time_and_memory(
    folder: Path, name: str, make, problem: str
) -> None:
    (folder / name).write_text(make())
    seen = bounded_collect(folder)
    assert seen["rows"] == [[name, problem]]
    assert seen["seconds"] < 10, seen
    assert seen["peak_mb"] < 400, seen


DEEP: list[tuple[str, str]] = [
    ("attributes", "x" + ".a" * 5_000),  # the parser's recursion limit
    ("unary", "-" * 20_000 + "1"),  # the parser's stack: a MemoryError
    ("sum", "a" + "+a" * 5_000),
    ("parses-but-deep", "x" + ".a" * 900),  # Python reads it; a recursive walk of it would not
]


@pytest.mark.parametrize(("kind", "source"), DEEP, ids=[c[0] for c in DEEP])
def test_code_nested_too_deeply_is_invalid_with_its_cell(folder: Path, kind: str, source: str) -> None:
    (folder / "deep.ipynb").write_text(raw_notebook([GOOD_CELL, code("y = 1"), code(source)]))
    assert one(folder) == (
        "deep.ipynb",
        "code cell 3 nests too deeply for the grader to read (more than 200 levels)",
    )


def test_honest_notebooks_are_far_below_every_bound() -> None:
    from autograder.grading.collect import code_problem
    from autograder.notebooks import read_notebook

    for a in COURSE.assignments:
        for path in (a.master, a.release_dir / a.notebook):
            nb = read_notebook(path)
            assert code_problem([c.source for c in nb.cells if c.cell_type == "code"]) is None


def test_outputs_are_never_parsed_and_never_stop_a_notebook(folder: Path) -> None:
    """Outputs are never graded: a notebook whose outputs nbformat could not read is graded on
    its code, and a large output costs no more than its bytes."""
    image = {"output_type": "display_data", "metadata": {}, "data": {"image/png": "A" * (15 * 2**20)}}
    # Outputs a buggy front end wrote: nbformat cannot even read them.
    weird = [
        {"output_type": "execute_result", "execution_count": 3, "metadata": {}, "data": [[[]]] * 1000},
        {"output_type": "stream", "name": "stdout", "text": [1, 2, 3]},
    ]
    cell = code(GOOD_CELL["source"], outputs=[image, *weird], execution_count=3)
    (folder / "outputs.ipynb").write_text(raw_notebook([cell]))
    seen = bounded_collect(folder)
    assert seen["rows"] == [["outputs.ipynb", None]]
    assert seen["peak_mb"] < 250, seen


def test_an_nbformat_3_notebook_is_upgraded_and_read(folder: Path) -> None:
    v3 = {
        "nbformat": 3,
        "nbformat_minor": 0,
        "metadata": {"name": "broadcasting"},
        "worksheets": [
            {
                "metadata": {},
                "cells": [
                    {"cell_type": "heading", "level": 1, "metadata": {}, "source": ["Broadcasting"]},
                    {
                        "cell_type": "code",
                        "collapsed": False,
                        "input": ["def outer(x, y):\n", "    return x[:, None] * y[None, :]"],
                        "language": "python",
                        "metadata": {},
                        "outputs": [
                            {"output_type": "pyout", "prompt_number": 1, "text": ["1"], "metadata": {}}
                        ],
                        "prompt_number": 1,
                    },
                ],
            }
        ],
    }
    (folder / "old.ipynb").write_text(json.dumps(v3))
    (sub,), _ = collect(folder, BROADCASTING, COURSE)
    assert sub.problem is None
    assert sub.cells == ("def outer(x, y):\n    return x[:, None] * y[None, :]",)


def test_an_oversized_notebook_says_to_clear_outputs_and_names_the_limit(folder: Path) -> None:
    with open(folder / "huge.ipynb", "wb") as f:
        f.truncate(21 * 2**20)
    name, problem = one(folder)
    assert problem is not None and problem.startswith("is larger than 20 MiB"), problem
    assert "clear" in problem and "outputs" in problem
    assert "grading.uploads.max_file_mb" in problem and "course.yml" in problem


# -------------------------------------------------------------------------------------------------
# The student's export: otter's grader.export() stops half way when it cannot make a PDF, and
# leaves a zip without its table of contents.


def truncated_export(notebook: bytes) -> bytes:
    """What otter 7's ``grader.export()`` leaves when its PDF step raises: the notebook's
    entry written, the zip never closed (no central directory)."""
    buf = io.BytesIO()
    zf = zipfile.ZipFile(buf, "w")
    zf.writestr("broadcasting.ipynb", notebook)
    zf.fp.flush()
    data = buf.getvalue()
    zf.fp = None  # never closed, as otter leaves it
    return data


INCOMPLETE = (
    "is an incomplete zip (it ends before the zip's table of contents: an export that stopped half "
    "way?); export it again with grader.export(pdf=False), or submit the .ipynb itself"
)


def test_a_truncated_export_is_an_incomplete_zip(folder: Path) -> None:
    (folder / "alice.zip").write_bytes(truncated_export(GOOD.encode()))
    assert one(folder) == ("alice.zip", INCOMPLETE)


def test_a_zip_cut_off_anywhere_is_an_incomplete_zip(folder: Path) -> None:
    whole = zip_bytes({"broadcasting.ipynb": GOOD.encode(), "__zip_filename__": b"alice.zip"})
    for cut in (len(whole) // 3, len(whole) - 30, len(whole) - 1):
        (folder / "alice.zip").write_bytes(whole[:cut])
        assert one(folder) == ("alice.zip", INCOMPLETE), cut


def test_a_damaged_member_says_to_export_again(folder: Path) -> None:
    data = bytearray(zip_bytes({"broadcasting.ipynb": GOOD.encode()}, zipfile.ZIP_STORED))
    at = data.index(b"def outer")
    data[at : at + 3] = b"DEF"  # the CRC no longer matches
    (folder / "alice.zip").write_bytes(bytes(data))
    assert one(folder) == (
        "alice.zip",
        "holds a notebook that cannot be unpacked (the zip is damaged or encrypted); export it "
        "again with grader.export(pdf=False), or submit the .ipynb itself",
    )


def test_an_export_made_on_colab_says_to_download_the_notebook(folder: Path) -> None:
    """On Colab the setup cell writes an empty placeholder notebook for otter (the kernel cannot
    read the real one); an export made there zips the placeholder."""
    meta = nbformat.read(BROADCASTING.release_dir / BROADCASTING.notebook, as_version=4).metadata
    placeholder = json.dumps({"cells": [], "metadata": meta, "nbformat": 4, "nbformat_minor": 5})
    (folder / "alice.zip").write_bytes(zip_bytes({"broadcasting.ipynb": placeholder.encode()}))
    assert one(folder) == (
        "alice.zip",
        "has no cells (an export made on Google Colab holds an empty placeholder, not your work: "
        "download the notebook with File > Download > Download .ipynb and submit that)",
    )


def test_the_notebooks_export_cell_needs_no_latex_and_its_zip_is_graded(tmp_path: Path) -> None:
    """The student notebook's last cell exports without a PDF (no LaTeX: this machine has
    none), says so, and what it writes is graded like the notebook itself."""
    import shutil
    import subprocess
    import sys

    a = BROADCASTING
    nb = nbformat.read(a.release_dir / a.notebook, as_version=4)
    last = nb.cells[-1]
    assert last.cell_type == "code" and last.source.splitlines()[-1] == "grader.export(pdf=False)"
    assert "LaTeX" in last.source
    if shutil.which("xelatex"):
        pytest.skip("this machine has LaTeX: the export without it is not shown here")
    work = tmp_path / "student"
    work.mkdir()
    shutil.copy(a.release_dir / a.notebook, work / a.notebook)
    runner = f"import otter\ngrader = otter.Notebook({a.notebook!r})\n" + last.source
    run = subprocess.run(
        [sys.executable, "-c", runner], cwd=work, capture_output=True, text=True, timeout=300
    )
    assert run.returncode == 0, run.stderr[-2000:]
    (export,) = work.glob("*.zip")
    subs = tmp_path / "subs"
    subs.mkdir()
    shutil.copy(export, subs / "alice.zip")
    assert one(subs) == ("alice.zip", None)


# -------------------------------------------------------------------------------------------------
# A failure nobody foresaw, of any kind, is that row's error; never the batch's.


def test_an_unforeseen_failure_in_a_batch_zip_member_is_that_rows_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`guarded`'s fallback once swapped its arguments for members of a batch zip: the guard
    itself raised TypeError and stopped the batch."""
    from autograder.grading import collect as submissions

    real = submissions.parse_notebook

    def flaky(text: str, name: str, **kw: object):
        if "bob" in name:
            raise RuntimeError("a library's bug")
        return real(text, name, **kw)

    monkeypatch.setattr(submissions, "parse_notebook", flaky)
    batch = tmp_path / "class.zip"
    batch.write_bytes(zip_bytes({"alice.ipynb": GOOD.encode(), "bob.ipynb": GOOD.encode()}))
    subs, _ = collect(batch, BROADCASTING, COURSE)
    rows = {s.name: (s.problem, s.grader_fault) for s in subs}
    assert rows == {
        "alice.ipynb": (None, False),
        "bob.ipynb": (
            "The grader failed while reading this submission (RuntimeError); it is not the "
            "student's fault, and grading it again may succeed.",
            True,
        ),
    }


@pytest.mark.parametrize("raised", [SystemExit(3), KeyboardInterrupt(), GeneratorExit()])
def test_any_exception_while_reading_one_file_is_that_rows_error(
    folder: Path, monkeypatch: pytest.MonkeyPatch, raised: BaseException
) -> None:
    from autograder import errors
    from autograder.grading import collect as submissions

    real = submissions.parse_notebook

    def failing(text: str, name: str, **kw: object):
        if name == "bob.ipynb":
            raise raised
        return real(text, name, **kw)

    monkeypatch.setattr(submissions, "parse_notebook", failing)
    (folder / "alice.ipynb").write_text(GOOD)
    (folder / "bob.ipynb").write_text(GOOD)
    with errors.noting_interrupts():
        subs, _ = collect(folder, BROADCASTING, COURSE)
    assert [(s.name, s.grader_fault) for s in subs] == [("alice.ipynb", False), ("bob.ipynb", True)]
    assert f"({type(raised).__name__})" in str(subs[1].problem)


def test_the_instructors_own_ctrl_c_still_stops_the_batch(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import signal

    from autograder import errors
    from autograder.grading import collect as submissions

    def interrupted(text: str, name: str, **kw: object):
        os.kill(os.getpid(), signal.SIGINT)
        raise AssertionError("SIGINT was not delivered")

    monkeypatch.setattr(submissions, "parse_notebook", interrupted)
    (folder / "alice.ipynb").write_text(GOOD)
    with pytest.raises(KeyboardInterrupt), errors.noting_interrupts():
        collect(folder, BROADCASTING, COURSE)


# -------------------------------------------------------------------------------------------------
# Results from a sandbox: decoded within bounds. A sandbox may send 128 MiB in all (run.py's
# caps); 108 MiB of empty JSON lists once became 2.8 GB in the grader.


def test_decoded_results_keep_only_plain_leaves_within_bounds() -> None:
    from autograder.probing import decode_outputs, encode_outputs

    meta, blobs = encode_outputs({"a": np.arange(6.0).reshape(2, 3), "shape": [2, 3], "s": "ok", "n": None})
    out = decode_outputs(json.loads(json.dumps(meta)), blobs)
    assert out["shape"] == [2, 3] and out["s"] == "ok" and out["n"] is None
    assert out["a"].value.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]

    forged = [
        ({"x": {"json": [[]] * 1000}}, "output 'x' is not a plain value or a list of plain values"),
        ({"x": {"json": {"a": 1}}}, "output 'x' is not a plain value or a list of plain values"),
        ({"x": {"json": [0.5] * 100_001}}, "more than 100000 plain values"),
        ({"x": {"json": ["ab" * 1000] * 1000}}, "more than 1048576 characters"),
        ({f"x{i}": {"json": 0} for i in range(5000)}, "more than 4096 outputs"),
    ]
    for meta, message in forged:
        with pytest.raises(ValueError, match=re.escape(message)):
            decode_outputs(meta, {})


def test_an_array_header_that_lies_about_its_size_allocates_nothing() -> None:
    from autograder.probing import decode_outputs

    buf = io.BytesIO()
    # 2**40 float64 (8 TiB) claimed, 32 bytes sent: NumPy would allocate the array first.
    np.lib.format.write_array_header_1_0(buf, {"descr": "<f8", "fortran_order": False, "shape": (2**40,)})
    blob = buf.getvalue() + bytes(32)
    with pytest.raises(ValueError, match="its data is 32 bytes, not the 8796093022208 its header says"):
        decode_outputs({"a": {"array": True}}, {"a": blob})
