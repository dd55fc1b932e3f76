"""Malformed submissions: each gets exactly one row with a clear message, and none stops a batch."""

from __future__ import annotations

import io
import json
import os
import zipfile
from pathlib import Path

import nbformat
import pytest

from autograder.config import load_course
from autograder.errors import UsageError
from autograder.submissions import collect

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
        "defines none of this assignment's functions (add_positional, broadcast_shape, one_hot, outer, ...)",
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
    assert one(folder) == ("huge.ipynb", "is larger than 20 MiB")


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
