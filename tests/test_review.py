"""Gates prove or ask: a rule the grader cannot check from the code holds its question for the
instructor's review (never a silent zero), and the review round trip (hold, decide, regrade)
reaches the gradebook, the feedback page, the class report and the exports.

Also: reading a notebook is bounded, outside the grader's process, and linear in its size."""

from __future__ import annotations

import csv
import json
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from autograder.config import ROOT
from autograder.grading import batch
from autograder.grading.options import GradeOptions
from autograder.grading.reading import read_bounded
from autograder.probing import SourceFunction

pytestmark = pytest.mark.assignment("01-broadcasting")
A = "01-broadcasting"
SEED = 20261123  # the demo's: its reference store is shared with other tests of the session
#: A line no gate can read through (a name rebound by string), in a notebook whose every value
#: is right: q8's rule (`.at`, not `fill_diagonal`) cannot be checked.
OPAQUE = 'globals()["set_diagonal"] = set_diagonal'


def rows(out: Path) -> dict[str, dict[str, str]]:
    return {r["submission"]: r for r in csv.DictReader((out / "gradebook.csv").read_text().splitlines())}


@pytest.fixture
def subs(tmp_path: Path) -> Path:
    folder = tmp_path / "subs"
    folder.mkdir()
    nb = nbformat.read(ROOT / "examples" / A / "perfect.ipynb", as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell(OPAQUE))
    nbformat.write(nb, folder / "held.ipynb")
    shutil.copy(ROOT / "examples" / A / "perfect.ipynb", folder / "honest.ipynb")
    return folder


def cli(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "autograder", *argv], capture_output=True, text=True)


def test_hold_decide_and_regrade(subs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    status = batch.run(
        GradeOptions(assignment=A, submissions=subs, out=out, seed=SEED, quiet=True, lms=["moodle"])
    )
    assert status == 0
    got = rows(out)
    assert got["honest.ipynb"]["review"] == "" and got["honest.ipynb"]["total"] == "100"
    held = got["held.ipynb"]
    assert (held["status"], held["review"], held["q8"], held["total"]) == ("graded", "q8", "0", "93")
    assert "held for the instructor's review" in held["message"]
    assert "held for your review" in capsys.readouterr().err  # the LMS export warns
    results = json.loads((out / "results" / "held.ipynb.json").read_text())
    entry = results["extra_data"]["review"]["q8"]
    assert entry["points"] == 7 and "globals()" in entry["reason"] and OPAQUE in entry["code"]
    page = (out / "feedback" / "held.ipynb.html").read_text()
    assert "Held for review" in page and "a person will read" in page
    report = (out / "report.html").read_text()
    assert report.index("Held for your review (1)") < report.index("<h2>Questions, worst first")
    pair = "<details><summary>held.ipynb and honest.ipynb: "  # the same code: a similar pair
    assert pair in report

    listed = cli("review", str(out))
    assert listed.returncode == 0 and "held.ipynb q8 (7 points if kept)" in listed.stdout, listed
    assert cli("review", str(out), "held.ipynb", "q3", "kept").returncode == 2  # not held
    decided = cli("review", str(out), "held.ipynb", "q8", "kept")
    assert decided.returncode == 0 and "now scores 100 / 100" in decided.stdout, decided
    got = rows(out)
    assert (got["held.ipynb"]["total"], got["held.ipynb"]["review"]) == ("100", "")
    assert (
        "reviewed by your instructor: the rule was kept" in (out / "feedback" / "held.ipynb.html").read_text()
    )
    report = (out / "report.html").read_text()
    assert "Held for your review" not in report
    assert pair in report  # review has no submission in hand: the similarity stage's stored result

    # Graded again (here by --regrade), the decision recorded for these bytes still stands.
    assert (
        batch.run(GradeOptions(assignment=A, submissions=subs, out=out, seed=SEED, quiet=True, regrade=True))
        == 0
    )
    assert rows(out)["held.ipynb"]["total"] == "100"
    cli("review", str(out), "held.ipynb", "q8", "broken")
    assert rows(out)["held.ipynb"]["total"] == "93"


def test_the_review_command_says_a_bad_folder_in_one_line(tmp_path: Path) -> None:
    proc = cli("review", str(tmp_path))
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "batch.json" in proc.stderr


def _chain(helpers: int, calls: int) -> list[str]:
    """``helpers`` functions, each calling the next ``calls`` times (the reading bomb)."""
    src = "def h0(x):\n    return x + 1\n"
    for i in range(1, helpers):
        src += f"def h{i}(x):\n    return {' + '.join([f'h{i - 1}(x)'] * calls)}\n"
    src += f"def softmax(x):\n    return h{helpers - 1}(x)\n"
    return ["import jax.numpy as jnp", src]


def test_a_reading_bomb_reads_within_the_readers_limit() -> None:
    """Ten helpers each calling the next twelve times: 12**9 paths, read once each. Before the
    reading was memoised this took hours; within the reader's time limit it is read whole."""
    readings = read_bounded(_chain(10, 12), ["softmax"])
    assert isinstance(readings["softmax"], SourceFunction), readings


def test_a_reading_over_its_budget_is_cannot_tell_for_every_function() -> None:
    import os
    import signal

    from autograder.grading import reading

    read_bounded(_chain(3, 2), ["softmax"])  # a reader, up
    assert reading._READER.proc is not None
    os.kill(reading._READER.proc.pid, signal.SIGSTOP)  # then hung: over any budget
    readings = read_bounded(_chain(3, 2), ["softmax", "h1"], seconds=0.1)
    assert all(isinstance(r, str) and "cannot tell" in r for r in readings.values()), readings


PLANTED = [
    "import jax.numpy as jnp\ndef outer(x, y):\n    return jnp.asarray(x).times(y)\n",
    "for c in [type(jnp.zeros(1))]:\n    c.times = lambda a, b: jnp.outer(a, b)",
]


@pytest.mark.parametrize("listed", ["in the cache folder", "by the reader itself"])
def test_an_attribute_no_library_defines_is_cannot_tell(listed: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The libraries' names come from a clean process: the cache folder's list, or, where that
    cannot be made, the reader's own. Either way a planted `.times` cannot pass a gate, and an
    honest answer reading library and notebook attributes is read."""
    from autograder.grading import reading

    if listed == "by the reader itself":
        monkeypatch.setattr(reading, "_library_names", lambda: None)
        reading._READER.stop()  # a fresh reader, which must list the names itself
    planted = read_bounded(PLANTED, ["outer"])["outer"]
    assert isinstance(planted, str) and "reads `.times`" in planted, planted
    honest = read_bounded(
        [
            "import jax.numpy as jnp\nclass Box:\n    def __init__(self, w):\n        self.w = w\n"
            "B = Box(2.0)\ndef outer(x, y):\n"
            "    return B.w / 2.0 * jnp.asarray(x)[:, None] * y.reshape(1, -1)\n"
        ],
        ["outer"],
    )["outer"]
    assert isinstance(honest, SourceFunction), honest
