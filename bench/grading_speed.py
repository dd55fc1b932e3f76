"""Grading speed: our grader against `otter run`, parallel scaling, and overhead over bare execution.

    .venv/bin/python bench/grading_speed.py [--per-assignment 8] [--otter N] [--out DIR] [--dask-only]

`--otter 0` skips figure 1's `otter run` pass (about half the run) and measures the rest.

Takes the reference, the stub and known-wrong answers of every assignment (at least 40
submissions), then prints:

1. per-submission median of our grader (warm: zygote up, reference cached; one job) and of
   `otter run` with otter's own autograder zip (:func:`otter_zip`, built here for the
   comparison only), one by one, after checking both give the same scores; target ratio <= 0.2;
2. throughput of `grade --jobs 2` over `--jobs 1` on the whole set, reference run done
   beforehand (it is serial and once per batch); target >= 1.8 on 2 cores;
3. our per-submission median over executing the same notebook bare in a fresh Python
   (`python -c` running its code cells, then the same hidden-test probes, with no sandbox, no
   judging and no records: the least work grading can be); target overhead <= 20 %;
4. the whole set on a Dask LocalCluster of 2 worker processes of one thread against `--jobs 2`,
   each from the command line (Dask's worker processes are spawned: started from this script,
   each would import it again), reference runs done beforehand: once with the cluster started
   before the clock (`--scheduler`, as on SLURM or Kubernetes: every batch still ships its
   build and starts a zygote per worker) and once with `--cluster local:2`, which starts and
   stops one per batch; target overhead <= 10 %. `--dask-only` measures this figure alone;
5. one notebook as one command, whole processes (Python start-up included): `grade ID FILE`
   into a batch whose reference run is stored, against `otter run` on the same file, the two
   in turn (the median of five pairs' ratios); target ratio <= 0.2. `--single-only` measures
   this figure alone (`--jobs-only`: figure 2 alone).

Not a test: figures depend on the machine and its load. Run it on an idle machine.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import nbformat  # noqa: E402

from autograder.config import load_course  # noqa: E402
from autograder.grading import batch as grade  # noqa: E402
from autograder.grading.collect import collect  # noqa: E402
from autograder.grading.grader import Grader  # noqa: E402
from autograder.grading.options import GradeOptions  # noqa: E402
from autograder.release import build  # noqa: E402
from autograder.release.validate import mutant_notebook  # noqa: E402

BARE = """
import sys, json
from pathlib import Path
from autograder.sandbox.execution import load_probes, run_cells
from autograder.probing import run_probe
env, _ = run_cells(json.load(open(sys.argv[1])))
for probe in load_probes(Path(sys.argv[2])).probes:
    run_probe(probe, env, int(sys.argv[3]))
"""


def make_set(tmp: Path, per_assignment: int) -> dict[str, Path]:
    course = load_course()
    folders = {}
    for a in course.assignments:
        build.build_assignment(a, course, release_root=tmp / "release", build_root=tmp / "build")
        ref = nbformat.read(tmp / "build" / a.id / "reference.ipynb", as_version=4)
        d = tmp / "subs" / a.id
        d.mkdir(parents=True)
        nbformat.write(ref, d / "reference.ipynb")
        shutil.copy(tmp / "release" / a.id / a.notebook, d / "stub.ipynb")
        mutants = sorted(a.mutants_dir.glob("q*.py"))
        step = max(1, len(mutants) // per_assignment)
        for path in mutants[::step][:per_assignment]:
            q = path.name.split("_", 1)[0]
            nbformat.write(
                mutant_notebook(ref, a.questions[q].functions, path.read_text()), d / f"{path.stem}.ipynb"
            )
        folders[a.id] = d
    return folders


def ours_one_by_one(folders: dict[str, Path], out: Path) -> dict[tuple[str, str], tuple[float, dict]]:
    course = load_course()
    times = {}
    for aid, folder in folders.items():
        a = course.assignment(aid)
        subs, _ = collect(folder, a, course)
        with Grader.for_course(course, a, out / aid, seed=course.grading.seed) as g:
            g.references.outputs()
            for s in subs:
                start = time.perf_counter()
                record = g.grade(s)
                times[(aid, s.name)] = (time.perf_counter() - start, record.questions)
    return times


def otter_zip(aid: str, work: Path) -> Path:
    """Otter's own autograder zip for ``aid``: a hidden test cell per probe, run by
    ``autograder.probing.otter_check`` in the student's kernel beside a reference module. For
    timing `otter run` only: it hands the solution to the student's kernel, which is why `build`
    ships the sandboxed Gradescope zip instead."""
    course = load_course()
    a = course.assignment(aid)
    nb, hidden = build.load_sources(a)
    for rel, text in build.kernel_support_files(a, nb).items():
        (work / rel).parent.mkdir(parents=True, exist_ok=True)
        (work / rel).write_text(text, encoding="utf-8")
    shutil.copy(ROOT / "requirements" / "autograder.txt", work / "requirements.txt")
    master = work / a.notebook
    build.write_notebook(build.autograder_master(a, nb, hidden, course.grading.seed), master)
    build._otter_assign(master, work / "dist")
    (zip_path,) = (work / "dist" / "autograder").glob("*.zip")
    return zip_path


def otter_one_by_one(
    folders: dict[str, Path], tmp: Path, limit: int
) -> dict[tuple[str, str], tuple[float, dict]]:
    times = {}
    for aid, folder in folders.items():
        zip_path = otter_zip(aid, tmp / "otter-zip" / aid)
        for nb in sorted(folder.iterdir())[:limit]:
            out = tmp / "otter" / aid / nb.stem
            out.mkdir(parents=True)
            env = dict(os.environ, PYTHONPATH=str(ROOT))
            start = time.perf_counter()
            subprocess.run(
                [sys.executable, "-m", "otter", "run", "-a", str(zip_path), "-o", str(out), str(nb)],
                capture_output=True,
                env=env,
                check=False,
            )
            elapsed = time.perf_counter() - start
            try:
                results = json.loads((out / "results.json").read_text())
            except OSError:
                results = {"tests": []}
            by_q: dict[str, float] = {}
            for t in results.get("tests", []):
                if t.get("max_score") is None:  # otter's "Public Tests" summary, not a question
                    continue
                q = t["name"].split(" ")[0].split("-")[0].strip()
                by_q[q] = round(by_q.get(q, 0.0) + float(t.get("score") or 0.0), 6)
            times[(aid, nb.name)] = (elapsed, by_q)
    return times


def batch_seconds(folders: dict[str, Path], out: Path, jobs: int) -> float:
    """Seconds to grade every folder with ``jobs`` workers, at steady state: the reference run
    (once per batch, serial, what a class of 500 amortises) is done before the clock starts."""
    course = load_course()
    for aid, folder in folders.items():
        grade.run(
            GradeOptions(
                assignment=aid,
                submissions=folder / "reference.ipynb",
                out=out / aid,
                jobs=1,
                quiet=True,
                course=course,
            )
        )
    start = time.perf_counter()
    for aid, folder in folders.items():
        grade.run(
            GradeOptions(
                assignment=aid,
                submissions=folder,
                out=out / aid,
                jobs=jobs,
                quiet=True,
                course=course,
                regrade=True,
            )
        )
    return time.perf_counter() - start


def print_jobs(folders: dict[str, Path], tmp: Path) -> None:
    """Figure 2: the whole set with ``--jobs 1``, then ``--jobs 2``."""
    t1 = batch_seconds(folders, tmp / "jobs1", 1)
    t2 = batch_seconds(folders, tmp / "jobs2", 2)
    print(
        f"\n2. whole set: --jobs 1 {t1:.1f} s, --jobs 2 {t2:.1f} s; throughput ratio {t1 / t2:.2f} "
        "(target >= 1.8)"
    )


def cli_seconds(folders: dict[str, Path], out: Path, *flags: str) -> float:
    """Seconds to grade every folder with `python -m autograder grade FOLDER --out OUT/ID
    --regrade FLAGS`, as an instructor runs it (a Python start included); each batch's reference
    run is done beforehand, as in :func:`batch_seconds`, and a rerun into ``out`` reuses it."""
    course = load_course()
    for aid, folder in folders.items():
        if not (out / aid / "batch.json").exists():
            grade.run(
                GradeOptions(
                    assignment=aid,
                    submissions=folder / "reference.ipynb",
                    out=out / aid,
                    quiet=True,
                    course=course,
                )
            )
    start = time.perf_counter()
    for aid, folder in folders.items():
        subprocess.run(
            [sys.executable, "-m", "autograder", "grade", aid, str(folder), "--out", str(out / aid)]
            + ["--regrade", "--quiet", *flags],
            cwd=ROOT,
            check=True,
            capture_output=True,
        )
    return time.perf_counter() - start


def print_dask(folders: dict[str, Path], tmp: Path) -> None:
    """Figure 4, all from the command line into one OUT per assignment (one seed, one reference
    run): `--jobs 2` before and after (their mean is the baseline, their spread the machine's
    drift), a LocalCluster of 2 workers running before the clock (`--scheduler`), and
    `--cluster local:2`, which starts and stops one per batch."""
    from autograder.grading.backends.dask_cluster import local_cluster

    out = tmp / "dask"
    before = cli_seconds(folders, out, "--jobs", "2")
    with local_cluster(2) as cluster:
        running = cli_seconds(folders, out, "--scheduler", cluster.scheduler_address)
    per_batch = cli_seconds(folders, out, "--cluster", "local:2")
    after = cli_seconds(folders, out, "--jobs", "2")
    t2 = (before + after) / 2
    print(
        f"\n4. whole set from the command line: --jobs 2 {before:.1f} s before, {after:.1f} s after; "
        f"a running LocalCluster of 2 workers (--scheduler) {running:.1f} s "
        f"({100 * (running / t2 - 1):+.1f} %); --cluster local:2, one started per batch, "
        f"{per_batch:.1f} s ({100 * (per_batch / t2 - 1):+.1f} %) (target <= +10 %)"
    )


def single_file(folders: dict[str, Path], tmp: Path, runs: int = 5) -> None:
    """Figure 5: one notebook graded as one command (a regrade, a late submission, a student's
    own check), whole processes: `python -m autograder grade ID FILE --out OUT --regrade` into
    a batch whose reference run is stored, against `otter run` on the same file with otter's own
    zip. The two run in turn, ``runs`` pairs, and the ratio is the median of the pairs' own: this
    machine's speed drifts by up to 2x within minutes, which three of one then three of the
    other turned into a ratio anywhere from 0.20 to 0.25."""
    aid = "01-broadcasting" if "01-broadcasting" in folders else next(iter(folders))
    nb = folders[aid] / "reference.ipynb"
    out = tmp / "single" / "ours"
    ours_cmd = [sys.executable, "-m", "autograder", "grade", aid, str(nb), "--out", str(out), "--regrade"]
    subprocess.run(ours_cmd, cwd=ROOT, check=True, capture_output=True)  # the batch's reference run
    zip_path = otter_zip(aid, tmp / "single" / "otter-zip")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    otter_out = tmp / "single" / "otter"
    otter_out.mkdir(parents=True)
    otter_cmd = [sys.executable, "-m", "otter", "run", "-a", str(zip_path), "-o", str(otter_out), str(nb)]

    def seconds(cmd: list[str]) -> float:
        start = time.perf_counter()
        subprocess.run(cmd, cwd=ROOT, env=env, check=True, capture_output=True)
        return time.perf_counter() - start

    pairs = [(seconds(ours_cmd), seconds(otter_cmd)) for _ in range(runs)]
    ours = statistics.median(o for o, _ in pairs)
    otter = statistics.median(t for _, t in pairs)
    ratios = sorted(o / t for o, t in pairs)
    print(
        f"\n5. one file as one command ({aid} reference, {runs} pairs run in turn): `grade` "
        f"{ours:.1f} s, `otter run` {otter:.1f} s (medians); ratio {statistics.median(ratios):.3f}, "
        f"the median of the pairs' (from {ratios[0]:.3f} to {ratios[-1]:.3f}; target <= 0.2)"
    )


def bare_times(folders: dict[str, Path], tmp: Path) -> dict[tuple[str, str], float]:
    times = {}
    course = load_course()
    for aid, folder in folders.items():
        a = course.assignment(aid)
        devices = a.devices.cpu_devices
        for nb in sorted(folder.iterdir()):
            cells = [c.source for c in nbformat.read(nb, as_version=4).cells if c.cell_type == "code"]
            cells_file = tmp / "bare" / f"{aid}-{nb.stem}.json"
            cells_file.parent.mkdir(exist_ok=True)
            cells_file.write_text(json.dumps(cells))
            env = dict(
                os.environ,
                PYTHONPATH=str(ROOT),
                JAX_PLATFORMS="cpu",
                MPLBACKEND="Agg",
                JAX_NUM_CPU_DEVICES=str(devices),
            )
            start = time.perf_counter()
            subprocess.run(
                [sys.executable, "-c", BARE, str(cells_file), str(a.probes_file), str(course.grading.seed)],
                capture_output=True,
                env=env,
                cwd=tmp,
                check=False,
                timeout=600,
            )
            times[(aid, nb.name)] = time.perf_counter() - start
    return times


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--per-assignment", type=int, default=6, help="known-wrong answers per assignment")
    p.add_argument(
        "--otter",
        type=int,
        default=1000,
        help="at most this many otter runs per assignment (0: figure 1 without otter, the rest in full)",
    )
    p.add_argument("--out", type=Path, default=None)
    p.add_argument("--dask-only", action="store_true", help="figure 4 alone (Dask against --jobs 2)")
    p.add_argument("--single-only", action="store_true", help="figure 5 alone (one file, one command)")
    p.add_argument("--jobs-only", action="store_true", help="figure 2 alone (--jobs 2 against --jobs 1)")
    args = p.parse_args()
    tmp = args.out or Path(tempfile.mkdtemp(prefix="bench-"))
    # Reference stores of its own: every run starts cold, and the user's cache is left alone.
    os.environ["AUTOGRADER_CACHE_DIR"] = str(tmp / "reference-stores")
    folders = make_set(tmp, args.per_assignment)
    n = sum(len(list(f.iterdir())) for f in folders.values())
    print(f"{n} submissions over {len(folders)} assignments; work folder {tmp}")
    if args.dask_only:
        print_dask(folders, tmp)
        return
    if args.single_only:
        single_file(folders, tmp)
        return
    if args.jobs_only:
        print_jobs(folders, tmp)
        return

    ours = ours_one_by_one(folders, tmp / "ours")
    otter = otter_one_by_one(folders, tmp, args.otter)

    def rounded(scores: dict) -> dict:  # otter's results.json keeps 5 decimals (1/3 -> 0.33333)
        return {q: round(v, 5) for q, v in scores.items()}

    same = [k for k in otter if rounded(ours[k][1]) == rounded(otter[k][1])]
    differ = [k for k in otter if rounded(ours[k][1]) != rounded(otter[k][1])]
    ours_med = statistics.median(t for t, _ in ours.values())
    if otter:
        otter_med = statistics.median(t for t, _ in otter.values())
        print(
            f"\n1. per submission, one by one: ours median {ours_med:.2f} s, otter run median "
            f"{otter_med:.2f} s over {len(otter)}; ratio {ours_med / otter_med:.3f} (target <= 0.2)"
        )
        differing = f"; DIFFER: {differ[:5]}" if differ else ""
        print(f"   scores identical on {len(same)}/{len(otter)}{differing}")
    else:  # --otter 0: figures 2-5 need only our own times
        print(f"\n1. per submission, one by one: ours median {ours_med:.2f} s (otter not run: --otter 0)")

    print_jobs(folders, tmp)

    bare = bare_times(folders, tmp)
    bare_med = statistics.median(bare.values())
    print(
        f"\n3. bare execution in a fresh Python: median {bare_med:.2f} s; ours {ours_med:.2f} s; "
        f"overhead {100 * (ours_med / bare_med - 1):+.0f} % (target <= +20 %)"
    )
    for aid in folders:
        o = statistics.median(t for (a, _), (t, _) in ours.items() if a == aid)
        b = statistics.median(t for (a, _), t in bare.items() if a == aid)
        ot = [t for (a, _), (t, _) in otter.items() if a == aid]
        otter_med = statistics.median(ot) if ot else float("nan")
        print(f"   {aid:16s} ours {o:5.2f} s  bare {b:5.2f} s  otter {otter_med:5.2f} s")

    print_dask(folders, tmp)
    single_file(folders, tmp)


if __name__ == "__main__":
    main()
