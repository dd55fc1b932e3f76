"""`grade --cluster local:N` and `grade --scheduler ADDRESS`: a batch graded on Dask, with real
processes (a LocalCluster; a scheduler and workers started with `dask scheduler` and `dask
worker` on the loopback), against the same batch graded with `--jobs 2`."""

from __future__ import annotations

import contextlib
import csv
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import nbformat
import pytest

from autograder.config import ROOT, load_course

pytestmark = pytest.mark.assignment("01-broadcasting")
A = "01-broadcasting"
SEED = 20261123  # test_grade_cli's: the reference store of the session serves both
DASK = str(Path(sys.executable).parent / "dask")


def cli(*args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "autograder", *args], cwd=ROOT, capture_output=True, text=True, timeout=timeout
    )


def grade_args(batch: Path, out: Path, *more: str) -> list[str]:
    return ["grade", A, str(batch), "--out", str(out), "--seed", str(SEED), *more]


def gradebook(out: Path) -> str:
    return (out / "gradebook.csv").read_text()


def rows(out: Path) -> dict[str, dict[str, str]]:
    with open(out / "gradebook.csv", newline="") as f:
        return {r["submission"]: r for r in csv.DictReader(f)}


def results(out: Path) -> dict[str, Any]:
    """Every results file, with the worker named in a note taken out (a cluster's rows say
    which worker lacked a protection; the rest must be what the local pool wrote)."""
    found = {}
    for path in (out / "results").glob("*.json"):
        data = json.loads(path.read_text())
        notes = data["extra_data"]["notes"]
        data["extra_data"]["notes"] = [re.sub(r" \(worker \S+ on \S+\)$", "", n) for n in notes]
        found[path.name] = data
    return found


@pytest.fixture(scope="module")
def batch(tmp_path_factory: pytest.TempPathFactory, gate_bypass_cell: str) -> Path:
    """Four submissions: full marks, the stub, one unreadable (its row is made before any
    cluster is reached) and one that loses two questions (a wrong softmax, and q2 through a gate
    bypass); three tasks, so that with two workers one
    grades two. Each sandboxed notebook costs seconds of CPU on every backend, so no more."""
    from autograder.release import build

    course = load_course()
    a = course.assignment(A)
    tmp = tmp_path_factory.mktemp("batch")
    build.build_assignment(a, course, release_root=tmp / "release", build_root=tmp / "build")
    reference = (tmp / "build" / A / "reference.ipynb").read_bytes()
    stub = (tmp / "release" / A / a.notebook).read_bytes()
    subs = tmp / "subs"
    subs.mkdir()
    (subs / "alice.ipynb").write_bytes(reference)
    (subs / "bob.ipynb").write_bytes(stub)
    (subs / "carol.ipynb").write_text("{ not json")
    partial = nbformat.read(tmp / "build" / A / "reference.ipynb", as_version=4)
    partial.cells.append(nbformat.v4.new_code_cell("def softmax(x, axis=-1):\n    return x"))
    partial.cells.append(nbformat.v4.new_code_cell(gate_bypass_cell))
    nbformat.write(partial, subs / "dave.ipynb")
    return subs


def q2_earns_nothing(out: Path, submission: str) -> None:
    """The bypass earns nothing for q2 there: the question is lost (the line named) or held for review."""
    row = rows(out)[submission]
    assert row["status"] == "graded" and float(row["q2"]) == 0, row
    record = results(out)[f"{submission}.json"]
    held = record["extra_data"].get("review", {})
    lost = [t for t in record["tests"] if t["name"].startswith("q2") and t["score"] == 0]
    assert "q2" in held or lost, record


@pytest.fixture(scope="module")
def baseline(batch: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The batch graded by this machine's pool, `--jobs 2`."""
    out = tmp_path_factory.mktemp("jobs2")
    proc = cli(*grade_args(batch, out, "--jobs", "2", "--quiet"))
    assert proc.returncode == 0, proc.stderr
    assert len(rows(out)) == 4
    q2_earns_nothing(out, "dave.ipynb")
    return out


# -- the local pool stays the default ----------------------------------------------------------


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--cluster", "local:0"], "--cluster 'local:0': expected local:N, N >= 1"),
        (["--cluster", "4"], "--cluster '4': expected local:N"),
        (
            ["--cluster", "local:2", "--scheduler", "tcp://127.0.0.1:8786"],
            "--scheduler and --cluster: give one",
        ),
        (["--cluster", "local:2", "--jobs", "2"], "--jobs with --cluster"),
        (["--scheduler", "not an address"], "--scheduler 'not an address': expected a scheduler address"),
    ],
)
def test_bad_cluster_flags_are_one_line_usage_errors(
    flags: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from autograder import cli as command

    assert command.main(["grade", A, str(tmp_path), "--out", str(tmp_path / "out"), *flags]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "out").exists()


def test_without_a_cluster_flag_dask_is_never_imported(batch: Path, tmp_path: Path) -> None:
    args = ["grade", A, str(batch / "carol.ipynb"), "--out", str(tmp_path)]
    code = (
        f"import sys\nfrom autograder import cli\nassert cli.main({args!r}) == 0\n"
        "assert not {'dask', 'distributed'} & set(sys.modules), 'dask imported'\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert rows(tmp_path)["carol.ipynb"]["status"] == "invalid"


def test_the_course_build_carries_no_solution_and_grades_alike(baseline: Path, tmp_path: Path) -> None:
    """What a worker receives is plain JSON without the master notebook; a grader made from it
    alone scores like the instructor's (the batch's reference is in the session's store)."""
    from autograder.grading.grader import Grader
    from autograder.master_format import stub_source
    from autograder.notebooks import code_cells, read_notebook

    course = load_course()
    a = course.assignment(A)
    grader = Grader.for_course(course, a, tmp_path / "out", seed=SEED)
    build = json.loads(json.dumps(grader.build()))
    text = json.dumps(build)
    solutions = [c for c in code_cells(read_notebook(a.master)) if stub_source(c) != c]
    assert solutions and not any(c.strip() in text for c in solutions)
    worker = Grader.from_build(build, tmp_path / "worker")
    assert (worker.questions, worker.points, worker.possible) == (
        grader.questions,
        grader.points,
        grader.possible,
    )
    assert (worker.job, worker.notes, worker.limits, worker.seed) == (
        grader.job,
        grader.notes,
        grader.limits,
        SEED,
    )
    assert (
        worker.references.store.path == grader.references.store.path
    )  # same host: the same store, warmed once
    assert set(worker.references.outputs()) == set(grader.references.outputs())


def test_a_sandbox_a_worker_could_not_protect_names_that_worker() -> None:
    from autograder.grading.backends.dask_cluster import name_worker

    notes = ["the sandbox lacked: Landlock (file and TCP confinement)", "cell 3 raised: NameError"]
    assert name_worker(notes, "worker tcp://10.0.0.7:4100 on node7") == [
        "the sandbox lacked: Landlock (file and TCP confinement) (worker tcp://10.0.0.7:4100 on node7)",
        "cell 3 raised: NameError",
    ]


def test_a_worker_here_can_cut_its_sandboxes_off_the_network() -> None:
    """A worker refuses to grade where a sandbox would keep TCP (it could reach the scheduler,
    and through it every worker); the machines the course grades on pass."""
    from autograder.grading.backends.dask_cluster import network_sealed

    assert network_sealed()


# -- a LocalCluster ------------------------------------------------------------------------------


def test_a_local_cluster_of_two_workers_grades_like_jobs_2(
    batch: Path, baseline: Path, tmp_path: Path
) -> None:
    """Not --quiet: the run says where it grades and the dashboard's link, shows its progress
    (one line per submission off a terminal) and ends with the summary table, as the local pool does."""
    out = tmp_path / "out"
    proc = cli(*grade_args(batch, out, "--cluster", "local:2"))
    assert proc.returncode == 0, proc.stderr
    err = proc.stderr.splitlines()
    assert "grading 4 of 4 submissions of 01-broadcasting, on Dask" in err, proc.stderr
    assert any(
        re.fullmatch(
            r"grading on the LocalCluster of 2 workers: 2 workers, 2 threads; dashboard: http://127\.0\.0\.1:\d+/status",
            line,
        )
        for line in err
    ), proc.stderr
    assert sorted(line.split("] ")[1].split(":")[0] for line in err if line.startswith("[")) == sorted(
        rows(baseline)
    )
    assert [line for line in err if line.startswith("[")][-1].startswith("[4/4] ")
    table = proc.stdout.splitlines()
    assert table[0].split()[0] == "submission" and table[0].split()[-3:] == ["total", "possible", "status"]
    assert sorted(line.split()[0] for line in table[2:6]) == sorted(rows(baseline)), proc.stdout
    assert "4 submissions (" in proc.stdout and "graded 4 now" in proc.stdout
    assert f"gradebook: {out / 'gradebook.csv'}" in proc.stdout
    assert gradebook(out) == gradebook(baseline)
    assert results(out) == results(baseline)
    assert sorted(p.name for p in (out / "feedback").iterdir()) == sorted(
        p.name for p in (baseline / "feedback").iterdir()
    )
    assert (out / "report.html").is_file()


def test_a_local_clusters_workers_run_without_the_statistical_profiler() -> None:
    """Dask's profiler samples every thread's stack every 10 ms in the worker's process, where
    the grading thread's own Python (judging, reading the gates) competes for the GIL."""
    from distributed import Client

    from autograder.grading.backends.dask_cluster import local_cluster

    with local_cluster(1) as cluster, Client(cluster, set_as_default=False) as client:
        import dask

        found = client.run(lambda: dask.config.get("distributed.worker.profile.enabled"))
    assert list(found.values()) == [False]


# -- a scheduler and workers started as separate processes ---------------------------------------


class Cluster:
    """`dask scheduler` and `dask worker` processes on the loopback. The workers run from a copy
    of the grader's package alone (no course.yml, no solutions/, no project), with a cache
    folder of their own (``cache``, never the instructor's): everything of the course they use
    came over the network."""

    def __init__(self, tmp: Path, workers: int, cache: Path, *, allowed_failures: int = 1, edit: str = ""):
        self.tmp = tmp
        self.procs: list[subprocess.Popen[bytes]] = []
        code = tmp / "code"
        shutil.copytree(
            ROOT / "autograder", code / "autograder", ignore=shutil.ignore_patterns("__pycache__")
        )
        if edit:  # the workers run other grader code than the instructor's
            with open(code / "autograder" / "grade.py", "a") as f:
                f.write(edit)
        self.env = {
            **os.environ,
            "PYTHONPATH": str(code),
            "AUTOGRADER_CACHE_DIR": str(cache),
            "DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES": str(allowed_failures),
            "DASK_DISTRIBUTED__SCHEDULER__WORKER_SATURATION": "1.0",
        }
        self.file = tmp / "scheduler.json"
        self.scheduler = self._start(
            [DASK, "scheduler", "--host", "127.0.0.1", "--port", "0", "--dashboard-address", "127.0.0.1:0"],
            "scheduler",
        )
        for i in range(workers):
            self.add_worker(f"w{i}")
        deadline = time.monotonic() + 120
        while not self.file.exists():
            assert time.monotonic() < deadline, "the scheduler did not start"
            time.sleep(0.2)
        self.address = json.loads(self.file.read_text())["address"]
        self.client = self._client()
        self.client.wait_for_workers(workers, timeout=300)

    def _start(self, args: list[str], name: str) -> subprocess.Popen[bytes]:
        log = open(self.tmp / f"{name}.log", "ab")  # noqa: SIM115 - closed with the process
        proc = subprocess.Popen(
            [*args, "--scheduler-file", str(self.file)],
            cwd=self.tmp / "code",
            env=self.env,
            stdout=log,
            stderr=log,
            start_new_session=True,
        )
        log.close()
        self.procs.append(proc)
        return proc

    def add_worker(self, name: str) -> None:
        folder = self.tmp / name
        folder.mkdir()
        self._start(
            [DASK, "worker", "--host", "127.0.0.1", "--nthreads", "1", "--name", name]
            + ["--local-directory", str(folder), "--no-dashboard"],
            name,
        )

    def _client(self) -> Any:
        from distributed import Client

        return Client(self.address, timeout=60, set_as_default=False)

    def workers(self) -> dict[str, tuple[int, str]]:
        """Worker address -> (process id, its own folder)."""
        return self.client.run(lambda dask_worker: (os.getpid(), dask_worker.local_directory))

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.client.close(timeout=10)
        for proc in self.procs:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


@pytest.fixture(scope="module")
def worker_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The workers' cache folder, one for every cluster of the module (as for the workers of
    one host): the first worker set up fills its public compilation cache from a run of the
    stub, and the workers after it read it (the instructor's store is the session's)."""
    return tmp_path_factory.mktemp("worker-cache")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory, worker_cache: Path) -> Iterator[Cluster]:
    c = Cluster(tmp_path_factory.mktemp("cluster"), 2, worker_cache)
    yield c
    c.close()


def kill_worker_when(
    cluster: Cluster, found: Callable[[Path, list[str]], Path | None], kills: list[str]
) -> threading.Event:
    """Watch the cluster's workers from a thread: SIGKILL the process of each worker for whose
    folder and running tasks (each as the repr of its arguments) ``found``
    returns a path not seen before (kept in ``kills``). Set the event to stop."""
    stop = threading.Event()
    client = cluster._client()

    def watch() -> None:
        try:
            while not stop.wait(0.2):
                try:
                    workers = client.run(
                        lambda dask_worker: (
                            os.getpid(),
                            dask_worker.local_directory,
                            [
                                repr(ts.run_spec.args)
                                for ts in dask_worker.state.tasks.values()
                                if ts.state == "executing"
                            ],
                        )
                    )
                except Exception:  # noqa: BLE001 - a worker just died and is starting again
                    continue
                for pid, folder, running in workers.values():
                    hit = found(Path(folder), running)
                    if hit is not None and str(hit) not in kills:
                        kills.append(str(hit))
                        os.kill(pid, signal.SIGKILL)
        finally:
            client.close()

    threading.Thread(target=watch, daemon=True).start()
    return stop


def test_separate_scheduler_and_workers_grade_like_jobs_2_with_a_worker_killed(
    batch: Path, baseline: Path, cluster: Cluster, tmp_path: Path
) -> None:
    """One worker is killed while a sandbox runs on it: its task runs again elsewhere (the
    nanny restarts the worker, which sets itself up again) and the submission has one row."""
    kills: list[str] = []

    def running_sandbox(folder: Path, running: list[str]) -> Path | None:
        return None if kills else next(folder.glob("*/.sandbox/slot-1-*"), None)  # a task (-1: set-up)

    stop = kill_worker_when(cluster, running_sandbox, kills)
    try:
        out = tmp_path / "out"
        proc = cli(*grade_args(batch, out, "--scheduler", cluster.address, "--quiet"))
    finally:
        stop.set()
    assert proc.returncode == 0, proc.stderr
    assert len(kills) == 1, "no worker was killed mid-task"
    assert gradebook(out) == gradebook(baseline)
    assert results(out) == results(baseline)


def worker_zygotes(cluster: Cluster) -> dict[str, tuple[int, bool]]:
    """Worker address -> (its zygote's process id, whether it runs)."""

    def look(dask_worker: Any) -> tuple[int, bool]:
        from autograder.grading.backends import dask_cluster

        z = dask_cluster._zygotes[dask_worker.address]
        return z.pid, z.alive()

    return cluster.client.run(look)


def test_batches_on_a_running_cluster_share_each_workers_zygote(
    batch: Path, cluster: Cluster, tmp_path: Path
) -> None:
    """A worker imports JAX once, not once per batch: the batch's teardown leaves its zygote
    running and the next batch forks from it; one that died is started again, and grades."""
    one = tmp_path / "one"
    one.mkdir()
    shutil.copy(batch / "bob.ipynb", one / "bob.ipynb")
    for i in range(2):
        proc = cli(*grade_args(one, tmp_path / f"out{i}", "--scheduler", cluster.address, "--quiet"))
        assert proc.returncode == 0, proc.stderr
        assert rows(tmp_path / f"out{i}")["bob.ipynb"]["status"] == "graded"
        zygotes = worker_zygotes(cluster)
        assert len(zygotes) == 2 and all(alive for _, alive in zygotes.values()), zygotes
        if i == 0:
            first = zygotes
    assert zygotes == first
    for pid, _ in zygotes.values():
        os.kill(pid, signal.SIGKILL)
    proc = cli(*grade_args(one, tmp_path / "out2", "--scheduler", cluster.address, "--quiet"))
    assert proc.returncode == 0, proc.stderr
    assert rows(tmp_path / "out2")["bob.ipynb"]["status"] == "graded"
    again = worker_zygotes(cluster)
    assert all(alive for _, alive in again.values()) and not set(again.values()) & set(first.values())


def test_a_submission_that_kills_its_worker_every_time_is_one_crashed_row(
    batch: Path, cluster: Cluster, tmp_path: Path
) -> None:
    """The scheduler allows one worker death per task (allowed-failures 1): the second ends
    the submission as `crashed`, and the batch goes on."""
    subs = tmp_path / "subs"
    subs.mkdir()
    shutil.copy(batch / "alice.ipynb", subs / "alice.ipynb")
    nb = nbformat.read(batch / "alice.ipynb", as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell("import time\ntime.sleep(55)"))
    nbformat.write(nb, subs / "mallory.ipynb")
    kills: list[str] = []

    # The worker's running task names its submission; only mallory's worker dies (once per try:
    # a restarted worker has a folder, so a sandbox slot, of its own), however long alice's
    # run takes on a loaded machine.
    def mallory_running(folder: Path, running: list[str]) -> Path | None:
        if not any("'name': 'mallory.ipynb'" in task for task in running):
            return None
        return next(folder.glob("*/.sandbox/slot-[1-9]*"), None)  # its sandbox (-1: set-up)

    stop = kill_worker_when(cluster, mallory_running, kills)
    try:
        out = tmp_path / "out"
        proc = cli(*grade_args(subs, out, "--scheduler", cluster.address, "--quiet"))
    finally:
        stop.set()
    assert proc.returncode == 0, proc.stderr
    assert len(kills) == 2
    got = rows(out)
    assert sorted(got) == ["alice.ipynb", "mallory.ipynb"]
    assert (got["alice.ipynb"]["status"], got["alice.ipynb"]["total"]) == (
        "graded",
        got["alice.ipynb"]["possible"],
    )
    assert (got["mallory.ipynb"]["status"], got["mallory.ipynb"]["total"]) == ("crashed", "0")
    assert "died each of the 2 times it was tried" in got["mallory.ipynb"]["message"]


def test_a_lost_scheduler_ends_the_run_and_a_rerun_grades_the_rest(
    batch: Path, baseline: Path, worker_cache: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    lone = Cluster(tmp_path_factory.mktemp("lone"), 1, worker_cache)
    out = tmp_path_factory.mktemp("lost") / "out"
    try:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "autograder",
                *grade_args(batch, out, "--scheduler", lone.address, "--quiet"),
            ],
            cwd=ROOT,
            stderr=subprocess.PIPE,
            text=True,
        )
        # carol's row (unreadable) is written before the cluster is reached: wait for one more
        deadline = time.monotonic() + 400
        while len(list((out / "results").glob("*.json"))) < 2:
            assert time.monotonic() < deadline and proc.poll() is None, "nothing was graded"
            time.sleep(0.2)
        os.killpg(lone.scheduler.pid, signal.SIGKILL)
        _, err = proc.communicate(timeout=120)
    finally:
        lone.close()
    assert proc.returncode == 1, err
    assert len(err.strip().splitlines()) == 1, err
    line = err.strip()
    assert line.startswith(f"grading failed: lost the connection to the Dask scheduler at {lone.address}")
    assert "running the same command again grades the rest" in line
    kept = rows(out)
    assert "carol.ipynb" in kept and 2 <= len(kept) < 4
    assert cli(*grade_args(batch, out, "--jobs", "2", "--quiet")).returncode == 0
    assert gradebook(out) == gradebook(baseline)


def test_a_worker_with_other_grader_code_stops_the_batch_in_one_line(
    batch: Path, worker_cache: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Rows mean the same on every worker only if each runs the instructor's grader code."""
    other = Cluster(
        tmp_path_factory.mktemp("other"), 1, worker_cache, edit="\n# a change the instructor does not have\n"
    )
    out = tmp_path_factory.mktemp("other-out") / "out"
    try:
        proc = cli(*grade_args(batch, out, "--scheduler", other.address, "--quiet"))
        plugins = other.client.run_on_scheduler(lambda dask_scheduler: list(dask_scheduler.worker_plugins))
    finally:
        other.close()
    assert proc.returncode == 1
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert proc.stderr.startswith("grading failed: a Dask worker cannot grade: worker tcp://127.0.0.1:")
    assert "has grader code" in proc.stderr and "install the same everywhere" in proc.stderr
    assert list(rows(out)) == ["carol.ipynb"]  # what was known before the cluster was reached
    assert not [p for p in plugins if p.startswith("autograder-")]  # the course build is taken off


def test_a_worker_record_of_another_submission_becomes_an_error_row(tmp_path: Path) -> None:
    """The instructor's process checks what a worker sends back: a record that names another
    submission, another seed or other questions never lands in this submission's row (its
    points would be someone else's)."""
    from types import SimpleNamespace

    from autograder.grading.backends.dask_cluster import _record
    from autograder.grading.collect import Submission
    from autograder.grading.grader import Grader
    from autograder.grading.judge import make_record

    course = load_course()
    grader = Grader.for_course(course, course.assignment(A), tmp_path, seed=SEED)
    mine = Submission(name="bob.ipynb", key="bob.ipynb", fingerprint="b" * 64, cells=("x = 1",))
    theirs = Submission(name="alice.ipynb", key="alice.ipynb", fingerprint="a" * 64, cells=("x = 1",))
    full = {q: p for q, p in grader.questions.items()}

    def sent(record: Any) -> Any:
        return SimpleNamespace(result=lambda: record.to_results(), status="finished")

    honest = make_record(grader.scoring, mine, "graded", "All hidden tests passed.", full, [])
    assert _record(grader, mine, sent(honest)) == honest
    forged = [
        make_record(grader.scoring, theirs, "graded", "All hidden tests passed.", full, []),
        SimpleNamespace(
            to_results=lambda: {
                **honest.to_results(),
                "extra_data": {**honest.to_results()["extra_data"], "seed": 1},
            }
        ),
        make_record(
            grader.scoring, Submission(**{**vars(mine), "questions": ("q1",)}), "graded", "", full, []
        ),
    ]
    for record in forged:
        row = _record(grader, mine, sent(record))
        assert (row.status, row.total, row.submission) == ("error", 0.0, "bob.ipynb"), row
        assert "not this submission's" in row.message


def test_a_worker_with_more_threads_than_sandbox_slots_never_shares_a_user_id(tmp_path: Path) -> None:
    """Under root a slot is a user id: a Dask worker's grader gets as many jobs as the worker has
    threads, and past MAX_SANDBOXES a slot would wrap onto the reference's or the stub's id (a
    finished run kills every process of its id). The extra threads wait for a slot instead."""
    from autograder.grading.grader import Grader
    from autograder.grading.sandboxes import MAX_SANDBOXES, REFERENCE_SLOT, STUB_SLOT
    from autograder.sandbox.limits import SLOTS_PER_GRADER, sandbox_uid

    course = load_course()
    grader = Grader.for_course(course, course.assignment(A), tmp_path, seed=SEED, jobs=1000)
    pool = grader.sandboxes._slots
    slots = [pool.get_nowait() for _ in range(pool.qsize())]
    assert len(slots) == MAX_SANDBOXES < SLOTS_PER_GRADER
    uids = {sandbox_uid(s) for s in slots}
    assert len(uids) == len(slots)
    assert not uids & {sandbox_uid(REFERENCE_SLOT), sandbox_uid(STUB_SLOT)}
