"""Records and the files they live in (autograder/grading/records.py): results.json round trips,
the gradebook a spreadsheet cannot mistake for formulas, writes that are whole or absent, and the
batch's seed kept per folder."""

from __future__ import annotations

import csv
import errno
import os
import stat
from pathlib import Path

import pytest

from autograder.errors import UsageError
from autograder.grading import records
from autograder.grading.records import (
    Record,
    atomic_write,
    batch_seed,
    csv_text,
    disk_full,
    format_points,
    write_gradebook,
)


def record(**changes: object) -> Record:
    fields: dict[str, object] = {
        "submission": "alice.ipynb",
        "key": "alice.ipynb",
        "fingerprint": "f" * 64,
        "status": "graded",
        "message": "",
        "questions": {"q1": 2.5, "q2": 0.0},
        "possible": 10.0,
        "tests": [{"name": "q1.shape", "score": 2.5, "max_score": 2.5, "output": ""}],
        "notes": ["a note"],
        "seed": 7,
    }
    fields.update(changes)
    return Record(**fields)  # type: ignore[arg-type]


def test_results_json_round_trips_every_field() -> None:
    r = record(
        student="s1",
        student_name="Alice Smith",
        graded_with="g",
        fault="OSError at x.py:1",
        review={"q2": {"reason": "cannot tell", "points": 7.5, "code": "def f(): ..."}},
        diagnosis={"q1": {"mistake": "q1_sums_the_wrong_axis", "text": "your answer sums ..."}},
    )
    assert Record.from_results(r.to_results()) == r
    plain = record()
    data = plain.to_results()
    assert data["score"] == 2.5 and data["output"] == "" and data["tests"] == plain.tests
    assert not {"fault", "review", "diagnosis"} & set(data["extra_data"])  # written only when there is one
    assert Record.from_results(data) == plain


def test_a_held_question_is_pending_until_decided() -> None:
    r = record(
        review={
            "q1": {"reason": "r", "points": 1.0},
            "q2": {"reason": "r", "points": 2.0, "decision": "kept"},
        }
    )
    assert r.pending == ["q1"]


@pytest.mark.parametrize("text", ['=HYPERLINK("x")', "+1", "-1", "@SUM(A1)", "\tx", "\rx"])
def test_a_cell_that_would_be_a_formula_is_text(text: str) -> None:
    assert csv_text(text) == "'" + text
    assert csv_text("alice.ipynb") == "alice.ipynb" and csv_text("") == ""


def test_points_are_written_as_short_as_they_are() -> None:
    assert [format_points(x) for x in (12.0, 0.5, 0.25, 7)] == ["12", "0.5", "0.25", "7"]


def test_the_gradebook_has_the_contracts_columns_then_who_and_what_waits(tmp_path: Path) -> None:
    rows = [
        record(
            submission="=cmd.ipynb",
            student="s1",
            student_name="-Eve",
            review={"q2": {"reason": "r", "points": 1}},
        ),
        record(submission="bob.ipynb", questions={"q1": 1.0}, status="timeout", message="ran out of time"),
    ]
    path = tmp_path / "gradebook.csv"
    write_gradebook(path, rows, ["q1", "q2"])
    with open(path, newline="") as f:
        got = list(csv.reader(f))
    contract = ["submission", "q1", "q2", "total", "possible", "status", "message"]
    assert got[0] == [*contract, "student", "name", "review", "late"]
    assert got[1] == ["'=cmd.ipynb", "2.5", "0", "2.5", "10", "graded", "", "s1", "'-Eve", "q2", ""]
    assert got[2] == ["bob.ipynb", "1", "", "1", "10", "timeout", "ran out of time", "", "", "", ""]


def test_a_write_is_whole_or_absent_with_the_mode_a_new_file_gets(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "deep" / "gradebook.csv"
    atomic_write(path, "old")
    assert path.read_text() == "old"
    assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~records._UMASK
    atomic_write(tmp_path / "secret.json", "s", private=True)
    assert stat.S_IMODE((tmp_path / "secret.json").stat().st_mode) == 0o600

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(OSError) as caught:
        atomic_write(path, "new")
    assert disk_full(caught.value) and not disk_full(OSError(errno.EACCES, "denied"))
    assert path.read_text() == "old"
    assert sorted(p.name for p in path.parent.iterdir()) == ["gradebook.csv"]  # no temporary file left


def test_a_folder_keeps_its_seed_and_its_assignment(tmp_path: Path) -> None:
    first = batch_seed(tmp_path, None, "01-broadcasting")
    assert batch_seed(tmp_path, None, "01-broadcasting") == first
    assert batch_seed(tmp_path, 5, "01-broadcasting") == 5 and batch_seed(tmp_path, None) == 5
    with pytest.raises(UsageError, match="holds the grades of 01-broadcasting; grade 02-prng into a folder"):
        batch_seed(tmp_path, None, "02-prng")
    (tmp_path / "batch.json").write_text("[1, 2]")  # damaged: a fresh seed, never a traceback
    assert isinstance(batch_seed(tmp_path, None, "02-prng"), int)
