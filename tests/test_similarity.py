"""The class report's similar submissions (autograder.grading.similarity), on code made here."""

from __future__ import annotations

import copy
import hashlib
from dataclasses import replace
from pathlib import Path

import pytest

from autograder.config import load_course
from autograder.grading import similarity
from autograder.grading.collect import Submission
from autograder.grading.records import Record
from autograder.grading.report.pages import report_html, write_report
from autograder.grading.similarity import class_pairs, compare_class, given_cells, normalised, read_comparison

A = load_course().assignment("01-broadcasting")
GIVEN = given_cells(A.master)  # the notebook as handed out: given cells and stubs

HONEST = """
def broadcast_shape(*shapes):
    ndim = max((len(s) for s in shapes), default=0)
    aligned = [(1,) * (ndim - len(s)) + tuple(s) for s in shapes]
    result = []
    for sizes in zip(*aligned):
        stretched = {n for n in sizes if n != 1}
        if len(stretched) > 1:
            raise ValueError(f"shapes {shapes} are incompatible")
        result.append(stretched.pop() if stretched else 1)
    return tuple(result)


def softmax(x, axis=-1):
    shifted = x - x.max(axis=axis, keepdims=True)
    ex = jnp.exp(shifted)
    return ex / ex.sum(axis=axis, keepdims=True)


def standardize(X, axis=0, eps=1e-8):
    mu = X.mean(axis=axis, keepdims=True)
    centered = X - mu
    sd = jnp.sqrt((centered**2).mean(axis=axis, keepdims=True))
    return centered / (sd + eps)
"""

RENAMED = """
def broadcast_shape(*dims):
    longest = max((len(d) for d in dims), default=0)
    padded = [(1,) * (longest - len(d)) + tuple(d) for d in dims]
    out = []
    for col in zip(*padded):
        big = {k for k in col if k != 1}
        if len(big) > 1:
            raise ValueError(f"shapes {dims} do not broadcast")
        out.append(big.pop() if big else 1)
    return tuple(out)


def softmax(logits, axis=-1):
    z = logits - logits.max(axis=axis, keepdims=True)
    num = jnp.exp(z)
    return num / num.sum(axis=axis, keepdims=True)


def standardize(data, axis=0, eps=1e-8):
    m = data.mean(axis=axis, keepdims=True)
    c = data - m
    s = jnp.sqrt((c**2).mean(axis=axis, keepdims=True))
    return c / (s + eps)
"""

RECOMMENTED = '''
def standardize(X, axis=0, eps=1e-8):
    """Zero mean, unit variance along `axis` (my own words)."""
    mu = X.mean(axis=axis, keepdims=True)   # the mean

    centered = X - mu   # centre it
    # spread
    sd = jnp.sqrt((centered ** 2).mean(axis=axis, keepdims=True))
    return centered / (sd + eps)


def softmax(x, axis=-1):
    # subtract the max for stability
    shifted = x - x.max(axis = axis, keepdims = True)
    ex = jnp.exp(shifted)  # exponentiate
    return ex / ex.sum(axis=axis,
                       keepdims=True)


def broadcast_shape(*shapes):
    """Broadcast shapes, as numpy does."""
    ndim = max((len(s) for s in shapes), default=0)  # longest
    aligned = [(1,) * (ndim - len(s)) + tuple(s) for s in shapes]  # pad left
    result = []
    for sizes in zip(*aligned):
        stretched = {n for n in sizes if n != 1}
        if len(stretched) > 1:
            raise ValueError(f"shapes {shapes} cannot be broadcast together")
        result.append(stretched.pop() if stretched else 1)
    return tuple(result)
'''

# Correct too, written another way: another algorithm for broadcast_shape, jnp functions for the rest.
OTHER_SHAPE = """
def broadcast_shape(*shapes):
    out = []
    longest = max([len(s) for s in shapes] or [0])
    for i in range(1, longest + 1):
        size = 1
        for s in shapes:
            if i <= len(s) and s[-i] != 1:
                if size != 1 and size != s[-i]:
                    raise ValueError("incompatible shapes")
                size = s[-i]
        out.append(size)
    return tuple(reversed(out))


def softmax(x, axis=-1):
    z = x - jax.lax.stop_gradient(jnp.max(x, axis, keepdims=True))
    return jnp.exp(z - jnp.log(jnp.sum(jnp.exp(z), axis, keepdims=True)))


def standardize(X, axis=0, eps=1e-8):
    return (X - jnp.mean(X, axis, keepdims=True)) / (jnp.std(X, axis, keepdims=True) + eps)
"""


def submission(name: str, code: str | None) -> Submission:
    """A notebook as handed out, with ``code`` (the student's functions) in a cell of its own."""
    cells = (*GIVEN, code) if code is not None else tuple(GIVEN)
    return Submission(name, name, hashlib.sha256(name.encode()).hexdigest(), cells=cells)


def pairs_of(*subs: Submission) -> set[tuple[str, str]]:
    return {(p.left, p.right) for p in class_pairs(subs, A)}


def test_normalising_sets_aside_names_comments_and_layout_but_keeps_api_names() -> None:
    a = [t.text for t in normalised("def f(x, axis=0):\n    # mean\n    return jnp.mean(x, axis=axis)\n")]
    b = [
        t.text
        for t in normalised("def f(y,   axis=0):\n    '''doc'''\n\n    return jnp.mean(y, axis=axis)\n")
    ]
    assert a == b
    assert "jnp" in a and "mean" in a and "V" in a


def test_a_renamed_copy_is_found() -> None:
    found = class_pairs([submission("a.ipynb", HONEST), submission("b.ipynb", RENAMED)], A)
    assert [(p.left, p.right) for p in found] == [("a.ipynb", "b.ipynb")]
    assert {s.function for s in found[0].functions} == {"broadcast_shape", "softmax", "standardize"}
    assert found[0].share > 0.9


def test_a_recommented_reordered_copy_is_found() -> None:
    assert pairs_of(submission("a.ipynb", HONEST), submission("c.ipynb", RECOMMENTED)) == {
        ("a.ipynb", "c.ipynb")
    }


def test_honest_solutions_of_another_shape_are_not_flagged() -> None:
    assert pairs_of(submission("a.ipynb", HONEST), submission("d.ipynb", OTHER_SHAPE)) == set()


def test_stub_only_code_is_never_flagged() -> None:
    blank = [submission(f"blank{i}.ipynb", None) for i in range(3)]
    assert pairs_of(*blank) == set()
    # The stub's own code (signature, docstring, given lines) does not count beside a solution.
    assert pairs_of(*blank, submission("a.ipynb", HONEST)) == set()
    # Nor does a notebook whose cells are all given code, run twice.
    twice = Submission("twice.ipynb", "twice.ipynb", "0" * 64, cells=(*GIVEN, *GIVEN))
    assert pairs_of(twice, blank[0]) == set()


def test_the_report_shows_shared_code_side_by_side_escaped_and_changes_no_score(tmp_path: Path) -> None:
    evil = "<script>x</script>.ipynb"
    subs = [
        submission("a.ipynb", HONEST.replace("are incompatible", "are </pre><b>incompatible")),
        submission(evil, RENAMED),
        submission("d.ipynb", OTHER_SHAPE),
    ]
    records = [
        Record(s.name, s.key, s.fingerprint, "graded", "ok", {"q1": 20.0, "q5": 13.0}, 100.0, [], [])
        for s in subs
    ]
    before = copy.deepcopy(records)
    write_report(tmp_path, records, A, list(A.questions), compare_class(tmp_path, records, subs, A))
    assert records == before  # nothing written back into a row
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "<h2>Similar submissions</h2>" in page
    assert "<script>" not in page and "&lt;script&gt;" in page
    assert "</pre><b>" not in page and "&lt;/pre&gt;&lt;b&gt;incompatible" in page
    assert "<div class=side><pre>" in page and "<mark>" in page
    assert page.count("<details><summary>") == 1  # d.ipynb is in no pair
    assert "<details><summary>&lt;script&gt;x&lt;/script&gt;.ipynb and a.ipynb" in page
    # The same page as without the section, but for the section itself.
    plain = report_html(records, A, list(A.questions))
    assert "Similar submissions" not in plain
    section = page[page.index("<h2>Similar submissions</h2>") : page.index("<h2>Every submission")]
    assert page.replace(section, "") == plain


def test_a_row_without_code_is_not_compared(tmp_path: Path) -> None:
    invalid = Submission("x.ipynb", "x.ipynb", "0" * 64, problem="is not a notebook")
    records = [Record("x.ipynb", "x.ipynb", "0" * 64, "invalid", "bad", {}, 100.0, [], [])]
    assert compare_class(tmp_path, records, [invalid], A).compared == 0
    write_report(tmp_path, records, A, list(A.questions), read_comparison(tmp_path))
    assert "Similar submissions" not in (tmp_path / "report.html").read_text(encoding="utf-8")


def _rows(*subs: Submission) -> list[Record]:
    return [Record(s.name, s.key, s.fingerprint, "graded", "ok", {"q1": 20.0}, 100.0, [], []) for s in subs]


def _section(out: Path) -> str:
    page = (out / "report.html").read_text(encoding="utf-8")
    return page[page.index("<h2>Similar submissions</h2>") : page.index("<h2>Every submission")]


def test_a_late_file_is_compared_with_the_class_graded_before(tmp_path: Path) -> None:
    """The folder is the class: a run that grades only a late file still compares the whole
    class, from what the stage stored for the earlier runs' bytes (never another file's)."""
    a, b, late = (
        submission("a.ipynb", HONEST),
        submission("b.ipynb", RENAMED),
        submission("late.ipynb", RENAMED),
    )
    earlier = replace(submission("late.ipynb", OTHER_SHAPE), fingerprint="f" * 64)  # its older bytes
    assert compare_class(tmp_path, _rows(a, b, earlier), [a, b, earlier], A).compared == 3
    rows = _rows(a, b, late)
    found = compare_class(tmp_path, rows, [late], A)  # this run grades the late file alone
    assert found.compared == 3
    assert {(p.left, p.right) for p in found.pairs} == {
        ("a.ipynb", "b.ipynb"),
        ("a.ipynb", "late.ipynb"),
        ("b.ipynb", "late.ipynb"),
    }
    write_report(tmp_path, rows, A, list(A.questions), found)
    section = _section(tmp_path)
    assert "a.ipynb" in section and "b.ipynb" in section and "late.ipynb" in section


def test_unchanged_bytes_are_not_read_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The stage keeps each file's fingerprinted functions by the file's fingerprint: graded
    again into the same folder, unchanged bytes are not read; changed ones are."""
    subs = [submission("a.ipynb", HONEST), submission("b.ipynb", RENAMED), submission("d.ipynb", OTHER_SHAPE)]
    first = compare_class(tmp_path, _rows(*subs), subs, A)
    read: list[str] = []
    reader = similarity.submission_functions

    def counted(submissions, names, given=()):  # type: ignore[no-untyped-def]
        submissions = list(submissions)
        read.extend(s.name for s in submissions)
        return reader(submissions, names, given)

    monkeypatch.setattr(similarity, "submission_functions", counted)
    assert compare_class(tmp_path, _rows(*subs), subs, A) == first
    assert read == []
    changed = replace(submission("d.ipynb", RENAMED), fingerprint="e" * 64)
    again = compare_class(tmp_path, _rows(*subs[:2], changed), [changed], A)
    assert read == ["d.ipynb"] and len(again.pairs) == 3


def test_the_report_renders_the_stored_stage_and_reads_no_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``autograder review`` rewrites the report with no submission in hand: from what the stage
    stored, the same section, and without reading a notebook or the master."""
    subs = [submission("a.ipynb", HONEST), submission("b.ipynb", RENAMED)]
    rows = _rows(*subs)
    found = compare_class(tmp_path, rows, subs, A)
    write_report(tmp_path, rows, A, list(A.questions), found)
    graded = _section(tmp_path)
    assert "a.ipynb and b.ipynb" in graded
    (tmp_path / "report.html").unlink()

    def no_reading(*args: object, **kwargs: object) -> None:
        raise AssertionError("the report read code")

    for name in ("submission_functions", "given_cells", "given_hashes", "class_pairs"):
        monkeypatch.setattr(similarity, name, no_reading)
    stored = read_comparison(tmp_path)
    assert stored == found
    write_report(tmp_path, rows, A, list(A.questions), stored)
    assert _section(tmp_path) == graded
    assert read_comparison(tmp_path / "nowhere") is None
