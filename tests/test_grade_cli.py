"""`python -m autograder grade` as an instructor runs it: outputs, exit codes, resume, kill."""

from __future__ import annotations

import csv
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import nbformat
import pytest

from autograder.config import ROOT, load_course
from autograder.grading.options import GradeOptions

pytestmark = pytest.mark.assignment("01-broadcasting")
A = "01-broadcasting"
SEED = 20261123  # a fixed batch seed: the reference runs once for every test here
OUT = "<out>"  # in a usage error's arguments: a folder of the test's own


def cli(*args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "autograder", *args], cwd=ROOT, capture_output=True, text=True, timeout=timeout
    )


@pytest.fixture(scope="module")
def batch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from autograder.release import build

    course = load_course()
    a = course.assignment(A)
    tmp = tmp_path_factory.mktemp("batch")
    build.build_assignment(a, course, release_root=tmp / "release", build_root=tmp / "build")
    subs = tmp / "subs"
    subs.mkdir()
    (subs / "alice.ipynb").write_bytes((tmp / "build" / A / "reference.ipynb").read_bytes())
    (subs / "bob.ipynb").write_bytes((tmp / "release" / A / a.notebook).read_bytes())
    (subs / "carol.ipynb").write_text("{ not json")
    partial = nbformat.read(tmp / "build" / A / "reference.ipynb", as_version=4)
    partial.cells.append(nbformat.v4.new_code_cell("def softmax(x, axis=-1):\n    return x"))
    nbformat.write(partial, subs / "dave.ipynb")
    (subs / "notes.txt").write_text("not a submission")
    return subs


@pytest.fixture(scope="module")
def graded(
    batch: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, subprocess.CompletedProcess[str]]:
    out = tmp_path_factory.mktemp("out")
    return out, cli("grade", A, str(batch), "--out", str(out), "--jobs", "2", "--seed", str(SEED))


def rows(out: Path) -> list[dict[str, str]]:
    with open(out / "gradebook.csv", newline="") as f:
        return list(csv.DictReader(f))


def test_gradebook_has_one_row_per_submission_with_the_contract_columns(graded) -> None:
    out, proc = graded
    assert proc.returncode == 0, proc.stderr
    with open(out / "gradebook.csv", newline="") as f:
        header = next(csv.reader(f))
    questions = list(load_course().assignment(A).questions)
    assert header == [
        "submission",
        *questions,
        "total",
        "possible",
        "status",
        "message",
        "student",
        "name",
        "review",
        "late",
    ]
    got = {r["submission"]: (r["status"], float(r["total"])) for r in rows(out)}
    possible = float(rows(out)[0]["possible"])
    assert got["alice.ipynb"] == ("graded", possible)
    assert got["bob.ipynb"] == ("graded", 0.0)
    assert got["carol.ipynb"] == ("invalid", 0.0)
    assert got["dave.ipynb"][0] == "graded" and 0 < got["dave.ipynb"][1] < possible
    assert {r["possible"] for r in rows(out)} == {rows(out)[0]["possible"]}
    dave = next(r for r in rows(out) if r["submission"] == "dave.ipynb")
    assert float(dave["q5"]) == 0 and dave["message"].startswith(
        "Lost points on q5. First problem: q5 `softmax`"
    )


def test_off_a_terminal_grade_prints_a_line_per_submission_and_the_summary(graded) -> None:
    """CI, nohup and logs see what happened: one plain line per submission on stderr (no bar),
    then on stdout the table `make demo` shows, the counts and where the files are."""
    out, proc = graded
    lines = proc.stderr.splitlines()
    assert "grading 4 of 4 submissions of 01-broadcasting, 2 at a time" in lines
    assert sorted(x.split("] ")[1].split(":")[0] for x in lines if x.startswith("[")) == [
        "alice.ipynb",
        "bob.ipynb",
        "carol.ipynb",
        "dave.ipynb",
    ]
    assert "[4/4] " in proc.stderr and "\r" not in proc.stderr
    questions = list(load_course().assignment(A).questions)
    header = proc.stdout.splitlines()[0].split()
    assert header == ["submission", *questions, "total", "possible", "status"]
    assert "4 submissions (3 graded, 1 invalid); graded 4 now." in proc.stdout
    assert f"gradebook: {out / 'gradebook.csv'}" in proc.stdout


def test_output_files_are_readable_as_the_umask_allows(graded) -> None:
    """Not 0600: TAs and a web server in the group read the gradebook and the pages."""
    out, _ = graded
    mask = os.umask(0o022)
    os.umask(mask)
    for path in [out / "gradebook.csv", out / "report.html", *(out / "feedback").iterdir()]:
        assert path.stat().st_mode & 0o777 == 0o666 & ~mask, path


def test_results_follow_the_gradescope_schema(graded) -> None:
    out, _ = graded
    for name in ("alice.ipynb", "bob.ipynb", "carol.ipynb", "dave.ipynb"):
        data = json.loads((out / "results" / f"{name}.json").read_text())
        assert set(data) >= {"score", "tests", "output"}
        for t in data["tests"]:
            assert set(t) >= {"name", "score", "max_score", "output", "visibility"}
        assert data["score"] == pytest.approx(sum(t["score"] for t in data["tests"]))


def test_feedback_and_report_are_written_without_leaking(graded) -> None:
    out, _ = graded
    probes = (ROOT / "solutions" / A / "probes.py").read_text()
    for name in ("alice", "bob", "carol", "dave"):
        page = (out / "feedback" / f"{name}.ipynb.html").read_text()
        assert "Traceback" not in page and "def " not in page
        assert "rng.standard_normal" not in page and "otter_check" not in page
    report = (out / "report.html").read_text()
    assert report.count("data:image/png;base64,") == 2
    assert "carol.ipynb" in report  # the invalid one is listed as flagged
    assert "hidden = ProbeSet" not in report and probes[:200] not in report


def test_report_answers_an_instructors_questions(graded) -> None:
    """Failure rates per question and per hidden test (worst first), status counts, consistent
    precision, and every submission linking its feedback page."""
    import re

    out, _ = graded
    report = (out / "report.html").read_text()
    assert (
        "<td>graded</td><td class=num>3</td>" in report and "<td>invalid</td><td class=num>1</td>" in report
    )
    assert re.search(r"mean \d+\.\d\d, median \d+\.\d\d of \d+", report)
    questions = re.findall(r"<tr><td>(q\d+)</td><td class=num>(\d+) of (\d+)</td>", report)
    # alice full marks, bob the stub, dave lost q5: q5 is the worst question, failed by 2 of 3.
    assert questions[0] == ("q5", "2", "3") and all(lost == "1" for _, lost, _ in questions[1:])
    tests = re.findall(r"<tr><td>(q\d+ [^<]+)</td><td class=num>(\d+) of (\d+)</td>", report)
    rates = [int(failed) / int(ran) for _, failed, ran in tests]
    assert tests and rates == sorted(rates, reverse=True) and tests[0][0].startswith("q5 softmax")
    links = re.findall(r"<a href='(feedback/[^']+)'>", report)
    assert len(links) == 4 + 1  # every submission, and the flagged one once more
    assert all((out / link).is_file() for link in links)


def test_feedback_puts_failures_first_with_points_to_two_decimals(graded) -> None:
    out, _ = graded
    page = (out / "feedback" / "dave.ipynb.html").read_text()
    fix = page.index("<h2>To fix (")
    assert fix < page.index("<h2>Questions</h2>") < page.index("hidden tests passed</summary>")
    assert "class=fix><p><b>q5 softmax" in page and "<td>q5</td><td class=num>0</td>" in page
    for name in ("alice", "bob", "dave"):
        page = (out / "feedback" / f"{name}.ipynb.html").read_text()
        assert "could not check" not in page
        # Every points cell at two decimals at most (the rounding itself: tests/test_report.py).
        cells = re.findall(r"class=num>([^<]*)<", page)
        assert cells and not [c for c in cells if re.search(r"\.\d{3,}", c)], cells
    carol = (out / "feedback" / "carol.ipynb.html").read_text()
    assert "No hidden test ran on this submission." in carol and "class=fix" not in carol


CHROMIUM = next(
    (shutil.which(name) for name in ("chromium", "chromium-browser", "google-chrome") if shutil.which(name)),
    None,
)

#: Appended to a copy of a page: after it loads, count its images and the broken ones, and
#: report each broken one as a console error.
_IMAGE_CHECK = """<script>addEventListener("load", () => {
  const broken = [...document.images].filter((i) => !(i.complete && i.naturalWidth > 0));
  for (const i of broken) console.error("broken image: " + i.alt);
  document.documentElement.dataset.images = document.images.length + " broken " + broken.length;
  document.documentElement.dataset.codes = document.querySelectorAll(".fix code").length;
});</script>"""


def _chromium(page: Path, profile: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            str(CHROMIUM),
            "--headless",
            "--no-sandbox",  # as root it refuses to start otherwise
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--no-first-run",
            "--disable-sync",
            f"--user-data-dir={profile}",
            "--enable-logging=stderr",
            "--v=0",
            *flags,
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )


def render_in_chromium(page: Path, screenshot: Path, profile: Path, *, codes: bool = False) -> int:
    """Load ``page`` in headless Chromium: fail on a console error or a broken image (with
    ``codes``, also on no ``<code>`` element in a failed test's message: a message's backticks
    render as code), save a screenshot; returns the number of images."""
    import re

    check = page.with_name(f".check-{page.name}")  # beside it, so that relative links resolve
    check.write_text(page.read_text().replace("</body>", _IMAGE_CHECK + "</body>"))
    try:
        proc = _chromium(check, profile / "dom", "--dump-dom")
    finally:
        check.unlink()
    console = [line for line in proc.stderr.splitlines() if ":CONSOLE" in line]
    assert not console, f"{page.name}: console messages: {console}"
    m = re.search(r'data-images="(\d+) broken (\d+)"', proc.stdout)
    assert m, f"{page.name} did not load in Chromium (exit {proc.returncode}): {proc.stderr[-1000:]}"
    assert m.group(2) == "0", f"{page.name}: {m.group(2)} broken images"
    found = re.search(r'data-codes="(\d+)"', proc.stdout)
    assert not codes or (found and int(found.group(1)) > 0), f"{page.name}: no <code> in a message"
    proc = _chromium(
        page, profile / "shot", "--hide-scrollbars", "--window-size=1100,2400", f"--screenshot={screenshot}"
    )
    assert screenshot.is_file() and screenshot.stat().st_size > 10_000, proc.stderr[-1000:]
    return int(m.group(1))


@pytest.mark.skipif(
    CHROMIUM is None, reason="no Chromium: `apt-get install chromium` (Debian; .ci/run installs it as root)"
)
def test_report_and_feedback_render_in_a_real_browser(graded, tmp_path: Path) -> None:
    """Headless Chromium loads the report and a feedback page without a console error or a
    broken image; the screenshots stay under OUT/screenshots/ for the record."""
    out, _ = graded
    shots = out / "screenshots"
    shots.mkdir(exist_ok=True)
    assert render_in_chromium(out / "report.html", shots / "report.png", tmp_path) == 2
    assert (
        render_in_chromium(
            out / "feedback" / "dave.ipynb.html", shots / "feedback-dave.png", tmp_path, codes=True
        )
        == 0
    )
    print(f"screenshots: {shots}")


def test_other_files_are_listed_as_skipped(graded) -> None:
    _, proc = graded
    assert "skipped (not .ipynb or .zip): notes.txt" in proc.stderr


def test_rerun_resumes_without_regrading(batch: Path, graded) -> None:
    out, _ = graded
    before = {p.name: p.stat().st_mtime_ns for p in (out / "results").iterdir()}
    proc = cli("grade", A, str(batch), "--out", str(out), "--quiet")
    # Quiet: no progress and no summary; only the warning about the file it skipped.
    assert proc.returncode == 0 and proc.stderr == "skipped (not .ipynb or .zip): notes.txt\n"
    assert {p.name: p.stat().st_mtime_ns for p in (out / "results").iterdir()} == before
    proc = cli("grade", A, str(batch), "--out", str(out))
    assert proc.returncode == 0
    assert "all 4 submissions kept from the previous run" in proc.stderr
    assert "0submission" not in proc.stderr and "graded 0 now, kept 4 from the previous run" in proc.stdout
    proc = cli("grade", A, str(batch / "alice.ipynb"), "--out", str(out), "--regrade", "--quiet")
    assert proc.returncode == 0
    assert (out / "results" / "alice.ipynb.json").stat().st_mtime_ns > before["alice.ipynb.json"]


def test_a_row_graded_on_some_questions_is_never_resumed_as_a_whole_one(
    batch: Path, graded, tmp_path: Path
) -> None:
    """`validate` grades a known-wrong answer on its own question: its row leaves the other
    questions empty, and neither run resumes from a record graded on other questions."""
    import shutil

    from autograder.errors import UsageError
    from autograder.grading import batch as grade
    from autograder.grading import records

    course = load_course()
    questions = list(course.assignment(A).questions)
    out = shutil.copytree(graded[0], tmp_path / "out")  # its cached reference saves a run
    only_dave = tmp_path / "subs"
    only_dave.mkdir()
    shutil.copy(batch / "dave.ipynb", only_dave / "dave.ipynb")
    full = records.read_records(out)["dave.ipynb"]  # graded on every question by the batch
    assert set(full.questions) == set(questions)

    dave = GradeOptions(assignment=A, submissions=only_dave, out=out, quiet=True, course=course)

    def grade_dave(options: GradeOptions) -> dict[str, str]:
        assert grade.run(options) == 0
        # The batch's other rows stay in the gradebook: the folder is one class.
        (row,) = [r for r in rows(out) if r["submission"] == "dave.ipynb"]
        assert len(rows(out)) == len(records.read_records(out))
        return row

    row = grade_dave(replace(dave, only={"dave.ipynb": ["q5"]}))
    assert [q for q in questions if row[q] != ""] == ["q5"] and row["q5"] == "0"
    assert (row["total"], row["possible"], row["status"]) == ("0", f"{full.possible:g}", "graded")
    row = grade_dave(dave)
    assert [row[q] for q in questions] == [f"{full.questions[q]:g}" for q in questions]
    assert records.read_records(out)["dave.ipynb"] == full
    with pytest.raises(UsageError, match="q99"):
        grade.run(replace(dave, only={"dave.ipynb": ["q99"]}))


def test_a_new_out_folder_reuses_the_reference_store(
    batch: Path, graded, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The reference runs once per course version and environment, not once per --out: a batch
    into a new folder loads what the first one stored (a reference run here would fail)."""
    from autograder.grading import batch as grade
    from autograder.grading import reference

    def no_second_run(self: reference.References, store: object) -> None:
        raise AssertionError("the reference solution ran again")

    monkeypatch.setattr(reference.References, "_run_reference", no_second_run)
    out = tmp_path / "out"
    assert (
        grade.run(
            GradeOptions(assignment=A, submissions=batch / "alice.ipynb", out=out, quiet=True, seed=SEED)
        )
        == 0
    )
    (row,) = rows(out)
    assert (row["status"], row["total"]) == ("graded", row["possible"]), row["message"]
    assert not list(out.glob(".cache/*/reference-*.json"))  # the store is not under --out


def test_each_new_batch_draws_its_own_seed_and_a_resumed_one_keeps_it(batch: Path, tmp_path: Path) -> None:
    """Hidden inputs that leak once are worth nothing to the next batch; `--seed` reproduces one."""
    from autograder.grading import records

    seeds = [records.batch_seed(tmp_path / name, None) for name in ("a", "b")]
    assert seeds[0] != seeds[1]
    assert records.batch_seed(tmp_path / "a", None) == seeds[0]  # resumed: the recorded seed
    assert records.batch_seed(tmp_path / "c", 5) == 5


# `python -m autograder`, with the report's background import of matplotlib watched: it says
# whether JAX (and ml_dtypes with it) had finished importing when that thread started.
WATCH_THE_PLOTTING_IMPORT = """
import runpy, sys

def done(name):
    spec = getattr(sys.modules.get(name), "__spec__", None)
    return spec is not None and not getattr(spec, "_initializing", False)

class Watch:
    def find_spec(self, name, path=None, target=None):
        if name == "numpy.ma":  # the first import of numpy.ma, whoever makes it
            sys.meta_path.remove(self)
            print("ml_dtypes imported before numpy.ma:", done("ml_dtypes"), file=sys.stderr, flush=True)
        return None

sys.meta_path.insert(0, Watch())
sys.argv = ["autograder", *sys.argv[1:]]
runpy.run_module("autograder", run_name="__main__")
"""


def test_numpy_ma_is_imported_only_after_ml_dtypes(batch: Path, graded, tmp_path: Path) -> None:
    """matplotlib imported in a thread beside an import of JAX raced it (ml_dtypes grows numpy's
    type table while numpy.ma, which matplotlib imports, iterates it) and failed whole batches;
    the grader's process may import JAX late or not at all, so ml_dtypes must come first."""
    out = tmp_path / "out"
    proc = subprocess.run(
        [sys.executable, "-c", WATCH_THE_PLOTTING_IMPORT, "grade", A, str(batch / "alice.ipynb")]
        + ["--out", str(out), "--seed", str(SEED)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    assert "ml_dtypes imported before numpy.ma: True" in proc.stderr, proc.stderr
    (row,) = rows(out)
    assert (row["status"], row["total"]) == ("graded", row["possible"]), row["message"]


def test_tight_limits_bind_submissions_never_the_reference(batch: Path, tmp_path: Path) -> None:
    """--cell-seconds is for submissions: the reference, compiling every program cold once per
    batch, runs under course.yml's limits, or a tight flag would fail the whole batch."""
    out = tmp_path / "out"
    proc = cli("grade", A, str(batch / "alice.ipynb"), "--out", str(out), "--cell-seconds", "0.01")
    assert proc.returncode == 0, proc.stderr
    assert "running the reference solution of 01-broadcasting" in proc.stderr  # a new seed
    (row,) = rows(out)
    assert row["status"] != "graded" or float(row["total"]) < float(row["possible"]), row


def test_an_unwritable_cache_folder_falls_back_to_out(batch: Path, graded, tmp_path: Path) -> None:
    """A read-only or missing cache folder costs the store its reuse, never the batch its run."""
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("a file where the cache folder should be")
    out = tmp_path / "out"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "autograder",
            "grade",
            A,
            str(batch / "alice.ipynb"),
            "--out",
            str(out),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=dict(os.environ, AUTOGRADER_CACHE_DIR=str(blocked / "cache")),
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    # A new batch seed: the reference runs first, and the instructor is told so.
    assert "running the reference solution of 01-broadcasting" in proc.stderr
    (row,) = rows(out)
    assert (row["status"], row["total"]) == ("graded", row["possible"]), row["message"]
    assert list(out.glob(".cache/*/reference-*.json"))


def test_killed_run_resumes_to_exactly_one_row_each(batch: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "autograder",
            "grade",
            A,
            str(batch),
            "--out",
            str(out),
            "--jobs",
            "1",
            "--quiet",
        ],
        cwd=ROOT,
        start_new_session=True,
    )
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and len(list((out / "results").glob("*.json"))) < 2:
        time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    assert cli("grade", A, str(batch), "--out", str(out), "--quiet").returncode == 0
    names = [r["submission"] for r in rows(out)]
    assert sorted(names) == ["alice.ipynb", "bob.ipynb", "carol.ipynb", "dave.ipynb"]
    assert not list(out.glob("**/.*.tmp"))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["grade", A, "/nonexistent/subs", "--out", OUT],
            "error: /nonexistent/subs: no such file or folder",
        ),
        (["grade", "99-nothing", ".", "--out", OUT], "error: unknown assignment '99-nothing'"),
        (["grade", A, "README.md", "--out", OUT], "not a notebook (.ipynb), a folder or a zip"),
        (["grade", A, ".", "--out", "README.md"], "error: --out README.md: not a folder"),
        (["grade", A, ".", "--out", "README.md/grades"], "error: --out README.md/grades: cannot create"),
        (["grade", A, ".", "--out", OUT, "--cell-seconds", "0"], "--cell-seconds 0.0: input should be"),
        (["grade", A, ".", "--out", OUT, "--submission-seconds", "-5"], "--submission-seconds -5.0"),
        (["grade", A, ".", "--out", OUT, "--memory-mb", "100"], "--memory-mb 100: input should be"),
        (["grade", A, ".", "--out", OUT, "--jobs", "0"], "argument --jobs: 0: must be at least 1"),
        (["grade", A, ".", "--out", OUT, "--jobs", "255"], "--jobs 255: at most 254 sandboxes at once"),
        (["grade", A, "."], "error: the following arguments are required: --out"),
        (
            ["grade", A, "/nonexistent/subs", "--out", OUT, "--debug"],
            "error: /nonexistent/subs: no such",
        ),
        (
            ["--debug", "grade", A, "/nonexistent/subs", "--out", OUT],
            "error: /nonexistent/subs: no such",
        ),
    ],
)
def test_usage_errors_are_one_line_and_exit_2(args: list[str], message: str, tmp_path: Path) -> None:
    # A folder of the test's own for OUT: a file of that name elsewhere would change the error.
    proc = cli(*(str(tmp_path / "out") if a == OUT else a for a in args))
    assert proc.returncode == 2
    assert message in proc.stderr and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert not (tmp_path / "out").exists()  # a mistyped command leaves nothing behind


def test_every_grade_flag_reaches_the_options(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The command line hands ``grade`` one :class:`GradeOptions`, each flag in its field; a flag
    left out keeps the field's own default (the one place it is written)."""
    from dataclasses import fields

    from autograder import cli as cli_module
    from autograder.grading import batch as grade

    given: list[GradeOptions] = []

    def run(options: GradeOptions) -> int:
        given.append(options)
        return 0

    monkeypatch.setattr(grade, "run", run)
    monkeypatch.chdir(tmp_path)
    flags = {
        "--device": "gpu",
        "--jobs": "3",
        "--cpu-devices": "2",
        "--cell-seconds": "1.5",
        "--submission-seconds": "9",
        "--memory-mb": "700",
        "--processes": "5",
        "--seed": "7",
        "--scheduler": "tcp://h:1",
        "--cluster": "local:2",
        "--roster": "r.csv",
        "--lms-column": "X",
    }
    switches = ["--quiet", "--regrade", "--lms", "canvas", "--lms", "moodle"]
    argv = ["grade", A, "subs", "--out", "o", *(x for kv in flags.items() for x in kv), *switches]
    assert cli_module.main(argv) == 0
    (options,) = given
    assert options == GradeOptions(
        assignment=A,
        submissions=tmp_path / "subs",
        out=tmp_path / "o",
        device="gpu",
        jobs=3,
        cpu_devices=2,
        cell_seconds=1.5,
        submission_seconds=9.0,
        memory_mb=700,
        processes=5,
        seed=7,
        scheduler="tcp://h:1",
        cluster="local:2",
        roster=tmp_path / "r.csv",
        lms=["canvas", "moodle"],
        lms_column="X",
        quiet=True,
        regrade=True,
    )
    assert cli_module.main(["grade", A, "subs", "--out", "o"]) == 0
    defaults = {
        f.name: f.default for f in fields(GradeOptions) if f.name not in ("assignment", "submissions", "out")
    }
    assert {name: getattr(given[1], name) for name in defaults} == defaults


@pytest.mark.parametrize("where", ["before", "after"])
def test_debug_anywhere_shows_the_traceback_and_no_hint(
    where: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from autograder import cli as cli_module
    from autograder.grading import batch as grade

    def broken(*args: object, **kw: object) -> int:
        raise RuntimeError("a bug of ours")

    monkeypatch.setattr(grade, "run", broken)
    args = ["grade", A, ".", "--out", str(tmp_path / "out")]
    assert cli_module.main(["--debug", *args] if where == "before" else [*args, "--debug"]) == 1
    err = capsys.readouterr().err
    assert "Traceback" in err and "internal error: RuntimeError: a bug of ours" in err
    assert "--debug" not in err
    monkeypatch.delenv("AUTOGRADER_DEBUG", raising=False)
    assert cli_module.main(args) == 1
    assert capsys.readouterr().err == (
        "internal error: RuntimeError: a bug of ours (rerun with --debug for the traceback)\n"
    )


def test_an_empty_folder_says_so(tmp_path: Path) -> None:
    (tmp_path / "subs").mkdir()
    proc = cli("grade", A, str(tmp_path / "subs"), "--out", str(tmp_path / "out"))
    assert proc.returncode == 0, proc.stderr
    assert f"no submissions in {tmp_path / 'subs'}: it holds no *.ipynb or *.zip entry" in proc.stderr
    assert "No submissions." in proc.stdout
    assert (tmp_path / "out" / "gradebook.csv").read_text().count("\n") == 1  # the header alone


def test_on_a_terminal_a_line_said_while_the_bar_is_up_goes_above_it() -> None:
    """A Dask run says where it grades (the dashboard's link) once the bar is on the screen;
    a warning can come while it is: each is a whole line of its own, the bar drawn again below."""
    import io
    from types import SimpleNamespace

    from autograder.grading.report.console import Console

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    screen = Terminal()
    console = Console(quiet=False, stream=screen)
    progress = console.progress(2)
    console.say(
        "grading on the LocalCluster of 2 workers: 2 workers, 2 threads; dashboard: http://h:1/status"
    )
    progress.update(SimpleNamespace(submission="alice.ipynb", status="graded", total=1.0, possible=2.0))
    console.warn("grading failed: lost the connection")
    progress.update(SimpleNamespace(submission="bob.ipynb", status="graded", total=0.0, possible=2.0))
    progress.close()
    lines = [line.split("\r")[-1] for line in screen.getvalue().split("\n")]
    assert (
        "grading on the LocalCluster of 2 workers: 2 workers, 2 threads; dashboard: http://h:1/status"
        in lines
    )
    assert "grading failed: lost the connection" in lines
    assert "2/2" in lines[-2] and console.bar is None


def test_submissions_import_the_standard_library_wherever_out_is(batch: Path) -> None:
    """With an --out others can enter, a grader running as root gives each sandbox its own user
    id; that user must still import standard-library modules the zygote never loaded (it did
    not, with a Python under /root, and 04-jit's probes import `statistics`)."""
    import shutil
    import tempfile

    out = Path(tempfile.mkdtemp(prefix="grade-out-"))
    try:
        os.chmod(out, 0o755)
        nb = nbformat.read(batch / "alice.ipynb", as_version=4)
        nb.cells.append(
            nbformat.v4.new_code_cell(
                "try:\n    import statistics, fractions, difflib\nexcept ImportError:\n"
                "    import sys  # ends the notebook (a crashed row) when the import fails\n"
                "    sys.exit('no standard library')"
            )
        )
        nbformat.write(nb, out / "stdlib.ipynb")
        proc = cli("grade", A, str(out / "stdlib.ipynb"), "--out", str(out / "grades"), "--quiet")
        assert proc.returncode == 0, proc.stderr
        (row,) = rows(out / "grades")
        assert (row["status"], row["total"]) == ("graded", row["possible"]), row["message"]
    finally:
        shutil.rmtree(out, ignore_errors=True)


# -------------------------------------------------------------------------------------------------
# What stops a batch: a full disk (one line, the gradebook kept, the same command resumes) and
# the instructor's own Ctrl-C. Anything else one submission does is that row's `error`. These
# batches need no reference run: their rows are invalid, or their sandbox runs are stand-ins.


def invalid_batch(folder: Path, n: int) -> Path:
    """``n`` notebooks that are not JSON: each is an `invalid` row, graded without a sandbox."""
    folder.mkdir()
    for i in range(n):
        (folder / f"s{i:02d}.ipynb").write_text(f"{{ not json {i}")
    return folder


def test_a_full_disk_stops_the_batch_with_one_line_and_the_same_command_resumes(tmp_path: Path) -> None:
    """OUT on a real file system that fills up (a 96 KiB tmpfs, in a mount namespace of its own):
    one line, exit status 1, the gradebook as it was before the write that failed (every row
    in it has its results), no temporary file left; then, with space, the same command grades
    only what is missing."""
    if os.geteuid() != 0 or not shutil.which("unshare"):
        pytest.skip("mounting a small file system needs root and unshare")
    subs = invalid_batch(tmp_path / "subs", 40)
    disk = tmp_path / "disk"
    disk.mkdir()
    grade = f"'{sys.executable}' -m autograder grade {A} '{subs}' --out '{disk}/out' --seed {SEED}"
    script = f"""
mount -t tmpfs -o size=96k tmpfs '{disk}' || exit 97
{grade} --quiet > '{tmp_path}/first.out' 2> '{tmp_path}/first.err'; echo $? > '{tmp_path}/first.rc'
cp -a '{disk}/out' '{tmp_path}/after-first'
mount -o remount,size=64m '{disk}'
{grade} > '{tmp_path}/second.out' 2> '{tmp_path}/second.err'; echo $? > '{tmp_path}/second.rc'
cp -a '{disk}/out' '{tmp_path}/after-second'
"""
    proc = subprocess.run(
        ["unshare", "--mount", "--propagation", "private", "sh", "-c", script],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    if proc.returncode == 97 or "unshare failed" in proc.stderr:
        pytest.skip(f"this machine refuses a tmpfs in a mount namespace: {proc.stderr.strip()[-200:]}")
    first = (tmp_path / "first.err").read_text()
    assert (tmp_path / "first.rc").read_text().strip() == "1", first
    (line,) = first.strip().splitlines()
    assert line.startswith(f"grading stopped: the disk that holds {disk}/out is full"), line
    assert "run the same command again" in line
    kept = tmp_path / "after-first"
    assert not list(kept.glob("**/.*.tmp"))
    written = rows(kept)
    assert 0 < len(written) < 40, len(written)
    assert all((kept / "results" / f"{r['submission']}.json").is_file() for r in written)

    second = (tmp_path / "second.err").read_text()
    assert (tmp_path / "second.rc").read_text().strip() == "0", second
    assert f"{len(list((kept / 'results').glob('*.json')))} kept from the previous run" in second
    done = tmp_path / "after-second"
    assert sorted(r["submission"] for r in rows(done)) == [f"s{i:02d}.ipynb" for i in range(40)]
    assert {r["status"] for r in rows(done)} == {"invalid"}
    assert (done / "report.html").is_file() and not list(done.glob("**/.*.tmp"))


def test_a_full_disk_while_writing_the_gradebook_keeps_the_previous_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The same on any machine: the disk fills up as the gradebook's fourth version is written."""
    from autograder.grading import batch as grade
    from autograder.grading import records

    subs = invalid_batch(tmp_path / "subs", 6)
    out = tmp_path / "out"
    real_fsync, gradebooks = os.fsync, []

    def fsync(fd: int) -> None:
        if os.readlink(f"/proc/self/fd/{fd}").rpartition("/")[2].startswith(".gradebook.csv."):
            gradebooks.append(fd)
            if len(gradebooks) == 4:
                raise OSError(28, "No space left on device")
        real_fsync(fd)

    monkeypatch.setattr(records.os, "fsync", fsync)
    assert (
        grade.run(GradeOptions(assignment=A, submissions=subs, out=out, seed=SEED, jobs=1, quiet=True)) == 1
    )
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith(f"grading stopped: the disk that holds {out} is full"), line
    assert len(rows(out)) == 3  # the third gradebook, whole
    assert not list(out.glob("**/.*.tmp"))

    monkeypatch.setattr(records.os, "fsync", real_fsync)
    assert (
        grade.run(GradeOptions(assignment=A, submissions=subs, out=out, seed=SEED, jobs=1, quiet=True)) == 0
    )
    assert len(rows(out)) == 6


class Unforeseen(BaseException):
    """Not an Exception: what a library's bug might raise."""


def test_any_exception_while_grading_one_submission_is_that_rows_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SystemExit, KeyboardInterrupt (raised by code: no SIGINT came) or any BaseException in
    one submission's grading or recording is that row's `error`; the batch goes on, and ends
    saying so with exit status 1 (the grader failed), its causes in OUT/grader.log."""
    from autograder.grading import batch as grade
    from autograder.grading import grader, reference
    from autograder.grading.report import pages as report
    from autograder.sandbox.run import RunOutcome

    raises = {"SYSTEM_EXIT": SystemExit(2), "INTERRUPT": KeyboardInterrupt(), "UNFORESEEN": Unforeseen()}

    def run(self, cells, slot, probes, cache, *, writes=False):  # noqa: ANN001, ANN202
        for marker, e in raises.items():
            if any(marker in c for c in cells):
                raise e
        return RunOutcome()

    real_feedback = report.write_feedback

    def write_feedback(out, record, a):  # noqa: ANN001, ANN202
        if record.submission == "erin.ipynb" and record.status != "error":
            raise RuntimeError("a template's bug")
        return real_feedback(out, record, a)

    monkeypatch.setattr(grader.Grader, "_run", run)
    monkeypatch.setattr(reference.References, "outputs", lambda self: {})
    monkeypatch.setattr(reference.References, "stored", lambda self: True)
    monkeypatch.setattr(grade, "start_zygote", lambda out: None)
    monkeypatch.setattr(report, "write_feedback", write_feedback)
    subs = tmp_path / "subs"
    subs.mkdir()
    for name, marker in (("alice", "SYSTEM_EXIT"), ("bob", "INTERRUPT"), ("carol", "UNFORESEEN")):
        nb = nbformat.v4.new_notebook()
        nb.cells = [nbformat.v4.new_code_cell(f"# {marker}\ndef outer(x, y):\n    return x")]
        nbformat.write(nb, subs / f"{name}.ipynb")
    (subs / "dave.ipynb").write_text("{ not json")
    (subs / "erin.ipynb").write_text("{ not json either")
    out = tmp_path / "out"
    assert (
        grade.run(GradeOptions(assignment=A, submissions=subs, out=out, seed=SEED, jobs=2, quiet=True)) == 1
    )
    log = (out / "grader.log").read_text()
    assert all(f" {n}.ipynb: " in log for n in ("alice", "bob", "carol", "erin")) and "dave" not in log
    assert "SystemExit" in log and "Unforeseen" in log
    got = {r["submission"]: (r["status"], r["message"]) for r in rows(out)}
    failed = (
        "The grader failed on this submission ({}); it is not the student's fault, "
        "and grading it again may succeed."
    )
    assert got == {
        "alice.ipynb": ("error", failed.format("SystemExit")),
        "bob.ipynb": ("error", failed.format("KeyboardInterrupt")),
        "carol.ipynb": ("error", failed.format("Unforeseen")),
        "dave.ipynb": (
            "invalid",
            "dave.ipynb is not valid notebook JSON (cut off while saving? save it again).",
        ),
        "erin.ipynb": (
            "error",
            "The grader failed while writing this submission's results (RuntimeError); it is not "
            "the student's fault, and grading it again may succeed.",
        ),
    }
    assert (out / "feedback" / "erin.ipynb.html").is_file() and (out / "report.html").is_file()


def test_the_instructors_ctrl_c_stops_the_batch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from autograder.grading import batch as grade
    from autograder.grading import grader, reference

    def run(self, cells, slot, probes, cache, *, writes=False):  # noqa: ANN001, ANN202
        os.kill(os.getpid(), signal.SIGINT)  # what Ctrl-C sends the grader's main thread
        time.sleep(0.5)
        raise RuntimeError("the sandbox was stopped")

    monkeypatch.setattr(grader.Grader, "_run", run)
    monkeypatch.setattr(reference.References, "outputs", lambda self: {})
    monkeypatch.setattr(reference.References, "stored", lambda self: True)
    monkeypatch.setattr(grade, "start_zygote", lambda out: None)
    subs = tmp_path / "subs"
    subs.mkdir()
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("def outer(x, y):\n    return x")]
    for name in ("alice", "bob", "carol"):
        nbformat.write(nb, subs / f"{name}.ipynb")
    # Python's own Ctrl-C handler, as in a terminal: a test process may run with another
    # (an earlier test's library, the test runner's worker), under which SIGINT raises nothing.
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            grade.run(
                GradeOptions(
                    assignment=A, submissions=subs, out=tmp_path / "out", seed=SEED, jobs=1, quiet=True
                )
            )
    finally:
        signal.signal(signal.SIGINT, before)


def test_an_out_folder_is_one_assignments_class(tmp_path: Path) -> None:
    """A late submission graded into a batch's folder adds its row: the gradebook covers every
    result in the folder (before, it was rewritten with the late row alone). Another
    assignment into the same folder is a usage error, never a mixed gradebook."""
    first, late, out = tmp_path / "first", tmp_path / "late", tmp_path / "out"
    first.mkdir()
    late.mkdir()
    (first / "alice.ipynb").write_text("not a notebook")
    (first / "bob.ipynb").write_text("{}")
    (late / "carol.ipynb").write_text("[]")
    assert cli("grade", "01-broadcasting", str(first), "--out", str(out), "--quiet").returncode == 0
    assert cli("grade", "01-broadcasting", str(late), "--out", str(out), "--quiet").returncode == 0
    with open(out / "gradebook.csv", newline="") as f:
        names = sorted(row["submission"] for row in csv.DictReader(f))
    assert names == ["alice.ipynb", "bob.ipynb", "carol.ipynb"]
    assert (
        "carol.ipynb" in (out / "report.html").read_text()
        and "alice.ipynb" in (out / "report.html").read_text()
    )
    other = cli("grade", "02-prng", str(late), "--out", str(out), "--quiet")
    assert other.returncode == 2
    assert (
        "holds the grades of 01-broadcasting" in other.stderr and len(other.stderr.strip().splitlines()) == 1
    )
