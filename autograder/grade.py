"""``python -m autograder grade``: grade a notebook, a folder or a zip of submissions.

A grading run reads as a list, one step per function: collect (unpack and check the input) →
execute in a sandbox (cells, then probes) → judge against the reference → record (results JSON,
feedback page, gradebook row). The unit of work is "one submission in, one record of plain data
out", with the read-only course build as the only shared state, so the local thread pool could
be swapped for a distributed executor.
"""

from __future__ import annotations

import functools
import json
import os
import queue
import secrets
from collections.abc import Collection, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import replace
from pathlib import Path
from typing import Any

from .config import ROOT, Assignment, Course, load_course
from .judge import Scoring, judge, record
from .master_format import stub_source
from .notebooks import code_cells, read_notebook
from .probing import (
    ProbeSet,
    decode_run,
    probe_seed,
    run_probe,
)
from .records import Record, atomic_write, batch_seed, read_record, write_gradebook
from .reference import Store, cache_root, prune, store_key
from .sandbox import landlock
from .sandbox.limits import SandboxLimits, sandbox_user
from .sandbox.run import RunOutcome, run_sandboxed
from .sandbox.zygote import Zygote
from .sources import source_namespace
from .submissions import Submission, UsageError, collect


class GradingFailed(Exception):
    """Grading itself failed (exit status 1): the grader's fault, never a student's."""


class Grader:
    """Grades submissions of one assignment on one device, reusing one reference run."""

    def __init__(
        self,
        course: Course,
        assignment: Assignment,
        out: Path,
        *,
        device: str = "cpu",
        limits: SandboxLimits | None = None,
        cpu_devices: int | None = None,
        exact_devices: bool = False,
        seed: int,
        jobs: int = 1,
    ):
        """``exact_devices`` grades on ``cpu_devices`` even below the assignment's
        ``min_devices``: for testing the course on one device, never for grades (scores must
        not depend on the machine, so the command line always keeps the floor)."""
        from .execution import load_probes

        self.course, self.assignment, self.out, self.device = course, assignment, out, device
        self.master = read_notebook(assignment.master)
        self.questions = {q: float(points) for q, points in assignment.points.items()}
        self.probes: ProbeSet = load_probes(assignment.probes_file)
        self.probes_source = assignment.probes_file.read_text(encoding="utf-8")
        self.points = {
            pid: pts
            for q, total in self.questions.items()
            for pid, pts in self.probes.points(q, total).items()
        }
        self.possible = round(sum(self.questions.values()), 6)
        self.seed = seed
        base = course.limits_for(assignment)
        self.limits = limits or SandboxLimits(**base.model_dump())
        self.notes: list[str] = []
        self.job = self._job(cpu_devices, exact_devices)
        self.zygote: Zygote | None = None
        self._slots: queue.Queue[int] = queue.Queue()
        for slot in range(1, jobs + 1):  # slot 0 is the reference's
            self._slots.put(slot)
        self._reference: dict[str, dict[str, Any]] | None = None

    def _job(self, cpu_devices: int | None, exact_devices: bool) -> dict[str, Any]:
        devices = self.assignment.devices
        n = cpu_devices or devices.cpu_devices
        platform = self.device
        if self.device == "gpu" and devices.min_devices > 1 and _gpu_count() < devices.min_devices:
            platform = "cpu"
            n = max(n, devices.cpu_devices, devices.min_devices)
            self.notes.append(
                f"graded on {n} virtual CPU devices: this machine has fewer than "
                f"{devices.min_devices} GPUs, and data-parallel mistakes are invisible on one device"
            )
        elif n < devices.min_devices and not exact_devices:
            n = devices.min_devices
            self.notes.append(
                f"graded on {n} virtual CPU devices (at least {devices.min_devices}: "
                "data-parallel mistakes are invisible on one device)"
            )
        elif n < devices.min_devices:
            self.notes.append(
                f"graded on {n} CPU device(s), fewer than the {devices.min_devices} this assignment "
                "asks for: some data-parallel mistakes cannot lose points here (a test run)"
            )
        return {
            "device": platform,
            "cpu_devices": n,
            "matmul_precision": self.course.grading.matmul_precision,
        }

    # -- lifecycle --------------------------------------------------------------------------

    def __enter__(self) -> Grader:
        cache = self.out / ".cache"
        cache.mkdir(parents=True, exist_ok=True)
        self.zygote = Zygote(cache / "zygote.log")
        return self

    def __exit__(self, *exc: object) -> None:
        if self.zygote is not None:
            self.zygote.close()

    def _run(
        self, cells: list[str], slot: int, probes: list[str], cache: Path | None, *, writes: bool = False
    ) -> RunOutcome:
        """Run cells, then the ``probes`` (ids), in a sandbox that reads (or, with ``writes``,
        fills) the compilation cache ``cache``."""
        assert self.zygote is not None
        sandbox = self.out / ".sandbox"
        sandbox.mkdir(parents=True, exist_ok=True)
        os.chmod(sandbox, 0o711)
        uid = sandbox_user(slot)
        job = dict(self.job, hidden=[str(ROOT), str(self.out.resolve())])
        if cache is not None and writes:
            cache.mkdir(parents=True, exist_ok=True)
            if uid is not None:
                os.chown(cache, uid, uid)
            job.update(compilation_cache=str(cache), cache_writes=True)
        elif cache is not None and cache.is_dir() and landlock.abi_version() > 0:
            job.update(compilation_cache=str(cache))
        try:
            return run_sandboxed(
                self.zygote,
                cells=cells,
                probes_source=self.probes_source,
                requests=[(pid, probe_seed(self.seed, pid)) for pid in probes],
                job=job,
                limits=self.limits,
                # A fresh name each run: whatever a sandbox did to its folder cannot stop the next.
                box=sandbox / f"slot-{slot}-{secrets.token_hex(6)}",
                uid=uid,
            )
        finally:
            if cache is not None and writes and uid is not None:
                # Back to the grader's user: the sandbox user ids are reused by submissions.
                for path in (cache, *cache.rglob("*")):
                    os.chown(path, os.getuid(), os.getgid(), follow_symlinks=False)
                    os.chmod(path, 0o755 if path.is_dir() else 0o644, follow_symlinks=False)

    def sandbox_probes(self, questions: Collection[str]) -> list[str]:
        """Ids of the probes of ``questions`` that run in the sandbox (not the source probes)."""
        return [p.id for p in self.probes.probes if p.question in questions and not p.source]

    def source_results(self, cells: Sequence[str], questions: Collection[str]) -> dict[str, dict[str, Any]]:
        """Outcomes of the source probes of ``questions``, run here on the cells' text."""
        functions = [
            f
            for q in questions
            if q in self.assignment.questions
            for f in self.assignment.questions[q].functions
        ]
        ns = source_namespace(cells, functions)
        return {
            p.id: decode_run(run_probe(p, ns, probe_seed(self.seed, p.id)))
            for p in self.probes.probes
            if p.source and p.question in questions
        }

    # -- reference ----------------------------------------------------------------------------

    @functools.cached_property
    def store(self) -> Store:
        """Where this assignment's reference results are kept for this job and host: the user's
        cache folder, or ``OUT/.cache`` where that cannot be written, or where sandboxes run as
        other users who could not read it."""
        import jax

        key = store_key(
            [
                self.assignment.master.read_bytes(),
                self.probes_source.encode(),
                *(f.read_bytes() for f in sorted((Path(__file__).parent / "probing").glob("*.py"))),
                json.dumps(self.job, sort_keys=True).encode(),
                jax.__version__.encode(),
            ]
        )
        root = cache_root()
        try:
            root.mkdir(parents=True, exist_ok=True)
            usable = os.access(root, os.W_OK | os.X_OK)
        except OSError:
            usable = False
        if not usable:
            root = self.out / ".cache"
        return Store(root / f"{self.assignment.id}-{key}")

    def reference(self) -> dict[str, dict[str, Any]]:
        """Every probe's outputs on the reference solution, from its store, or computed there
        first in a sandbox that never ran student code (see :mod:`autograder.reference`)."""
        if self._reference is not None:
            return self._reference
        store = self.store
        with store.locked():  # a grader beside this one may be filling the same store
            if not store.public_warmed.exists():
                self._warm_public_cache(store)
            outputs = store.load(self.seed)
            if outputs is None:
                self._run_reference(store)
                outputs = store.load(self.seed)
                if outputs is None:
                    raise GradingFailed(f"the reference results in {store.path} cannot be read back")
                prune(store.path.parent, keep=store.path)
            store.touch()
        cells = code_cells(self.master)
        outputs.update(self.source_results(cells, list(self.questions)))
        self._reference = outputs
        return outputs

    def _warm_public_cache(self, store: Store) -> None:
        """Fill the compilation cache that submissions read from a run of the student's stub:
        public code only, so no program there can reproduce the reference solution."""
        stub = [stub_source(c) for c in code_cells(self.master)]
        self._run(stub, 0, self.sandbox_probes(self.questions), store.public_xla, writes=True)
        store.public_warmed.touch()

    def _run_reference(self, store: Store) -> None:
        # The reference's own programs go to a cache only reference runs ever read.
        probes = self.sandbox_probes(self.questions)
        outcome = self._run(code_cells(self.master), 0, probes, store.reference_xla, writes=True)
        failed = [pid for pid, r in outcome.results.items() if not r["ok"]]
        if outcome.ended != "ok" or outcome.cell_errors or failed or len(outcome.results) != len(probes):
            why = outcome.detail or (outcome.cell_errors[0][1] if outcome.cell_errors else "")
            if failed:
                why = f"{failed[0]}: {outcome.results[failed[0]]['error']}"
            raise GradingFailed(
                f"the reference solution of {self.assignment.id} did not run cleanly "
                f"({outcome.ended} at {outcome.where or 'the end'}: {why})"
            )
        store.save(outcome, self.seed)

    def reference_stored(self) -> bool:
        """Whether :meth:`reference` can load its outputs instead of running the solution."""
        return self._reference is not None or (
            self.store.public_warmed.exists() and self.store.outputs_file(self.seed).exists()
        )

    @functools.cached_property
    def scoring(self) -> Scoring:
        """What the pure :func:`autograder.judge.judge` needs of this batch."""
        return Scoring(
            questions=self.questions,
            probes=self.probes,
            points=self.points,
            seed=self.seed,
            memory_mb=self.limits.memory_mb,
            notes=tuple(self.notes),
        )

    # -- one submission -----------------------------------------------------------------------

    def grade(self, sub: Submission) -> Record:
        """collect → execute → judge → record, for one submission; never raises."""
        if sub.problem:
            return record(
                self.scoring,
                sub,
                "invalid",
                f"{sub.name}{' ' if sub.problem.startswith('is ') else ': '}{sub.problem}.",
                {},
                [],
            )
        slot = self._slots.get()
        try:
            chosen = sub.graded_on(self.questions)
            cache = self.store.public_xla
            outcome = self._run(list(sub.cells), slot, self.sandbox_probes(chosen), cache)
            outcome.results.update(self.source_results(sub.cells, chosen))
        except Exception as e:  # noqa: BLE001 - our failure, reported as such on this row only
            return record(
                self.scoring,
                sub,
                "error",
                f"The grader failed on this submission ({type(e).__name__}); "
                "it is not the student's fault. Regrade it with --regrade.",
                {},
                [],
            )
        finally:
            self._slots.put(slot)
        try:
            return judge(sub, outcome, self.reference(), self.scoring)
        except Exception as e:  # noqa: BLE001
            return record(
                self.scoring,
                sub,
                "error",
                f"The grader failed while judging ({type(e).__name__}: "
                f"{str(e)[:120]}); it is not the student's fault.",
                {},
                [],
            )


def _gpu_count() -> int:
    try:
        import jax

        return len(jax.devices("gpu"))
    except RuntimeError:
        return 0


def main(
    *,
    assignment: str,
    submissions: Path,
    out: Path,
    device: str = "cpu",
    jobs: int | None = None,
    regrade: bool = False,
    quiet: bool = False,
    summary: bool = True,
    cpu_devices: int | None = None,
    exact_devices: bool = False,
    cell_seconds: float | None = None,
    submission_seconds: float | None = None,
    memory_mb: int | None = None,
    processes: int | None = None,
    course: Course | None = None,
    only: Mapping[str, Collection[str]] | None = None,
    seed: int | None = None,
) -> int:
    """Grade SUBMISSIONS into OUT. Returns the exit status: 0 when every submission has a row
    (whatever its status), 1 when grading itself failed. Raises :class:`UsageError` for bad
    arguments (exit status 2).

    ``only`` maps submission names to the questions they are graded on; their other questions
    are not probed and stay empty in the gradebook. ``validate`` grades each known-wrong answer
    on its own question this way: its other questions run the reference's code.

    ``seed``: the batch's seed, from which every hidden input is drawn. By default it is drawn
    afresh for a new OUT and kept in ``OUT/batch.json`` (a resumed batch reuses it), so that an
    input that leaks once is worth nothing to the next batch; give it to reproduce a batch.

    What it prints (:mod:`autograder.console`): progress on stderr (a bar on a terminal, a line
    per submission elsewhere), then with ``summary`` the gradebook's table and where the files
    are on stdout; ``quiet`` keeps only warnings and errors."""
    from .console import Console, plural, summary_text
    from .report import write_feedback, write_report

    course = course or load_course()
    a = course.assignment(assignment)
    _check_out(out)
    limits = _limits(
        course.limits_for(a).model_dump(),
        cell_seconds=cell_seconds,
        submission_seconds=submission_seconds,
        memory_mb=memory_mb,
        processes=processes,
    )
    for flag, value in (("--jobs", jobs), ("--cpu-devices", cpu_devices)):
        if value is not None and value < 1:
            raise UsageError(f"{flag} {value}: must be at least 1")
    subs, skipped = collect(submissions, a, course)
    questions = list(a.questions)
    if only:
        names = {s.name for s in subs}
        wrong = [n for n in only if n not in names] + [
            f"{n}: {q}" for n, qs in only.items() for q in qs if q not in questions
        ]
        if wrong:
            raise UsageError(f"only: no such submission or question ({wrong[0]})")
        subs = [replace(s, questions=tuple(only[s.name])) if s.name in only else s for s in subs]
    if device == "gpu" and _gpu_count() == 0:
        raise UsageError("--device gpu: JAX finds no GPU on this machine (install requirements/gpu.txt)")
    console = Console(quiet=quiet)
    jobs = max(1, jobs or os.cpu_count() or 1)
    _make_out(out)
    _remove_half_written(out)
    seed = batch_seed(out, seed)
    if skipped:  # a warning, not progress: shown even when quiet
        console.warn(f"skipped (not .ipynb or .zip): {', '.join(skipped[:10])}")
    if not subs:
        console.warn(f"no submissions in {submissions}: it holds no *.ipynb or *.zip entry")

    records: dict[str, Record] = {}
    todo: list[Submission] = []
    for s in subs:
        previous = None if regrade else read_record(out, s, s.graded_on(questions), seed)
        if previous is not None:
            records[s.key] = previous
        else:
            todo.append(s)
    kept = len(subs) - len(todo)
    if todo:
        console.say(
            f"grading {len(todo)} of {plural(len(subs), 'submission')} of {a.id}, "
            f"{min(jobs, len(todo))} at a time"
            + (f"; {kept} kept from the previous run (--regrade grades them again)" if kept else "")
        )
    elif subs:
        console.say(
            f"all {plural(kept, 'submission')} kept from the previous run in {out} "
            "(--regrade grades them again)"
        )

    def flush() -> None:
        write_gradebook(out / "gradebook.csv", [records[s.key] for s in subs if s.key in records], questions)

    try:
        with Grader(
            course,
            a,
            out,
            device=device,
            limits=limits,
            cpu_devices=cpu_devices,
            exact_devices=exact_devices,
            seed=seed,
            jobs=jobs,
        ) as grader:
            if any(not s.problem for s in todo):
                if not grader.reference_stored():
                    console.say(
                        f"running the reference solution of {a.id} on this batch's hidden inputs "
                        "(once per batch seed; about a minute on 2 cores) ..."
                    )
                grader.reference()
            progress = console.progress(len(todo))
            with ThreadPoolExecutor(max_workers=jobs) as pool:
                futures = {pool.submit(grader.grade, s): s for s in todo}
                for fut in as_completed(futures):
                    record = fut.result()
                    atomic_write(
                        out / "results" / f"{record.key}.json",
                        json.dumps(record.to_results(), indent=1, sort_keys=True) + "\n",
                    )
                    write_feedback(out, record, a)
                    records[record.key] = record
                    flush()
                    progress.update(record)
            progress.close()
    except GradingFailed as e:
        console.warn(f"grading failed: {e}")
        return 1
    flush()
    for r in records.values():
        if not (out / "feedback" / f"{r.key}.html").exists():
            write_feedback(out, r, a)
    write_report(out, [records[s.key] for s in subs], a, questions)
    if summary and not console.quiet:
        rows = [records[s.key] for s in subs]
        print(summary_text(rows, questions, out, graded=len(todo), kept=kept), flush=True)
    return 0


def _check_out(out: Path) -> None:
    """A usage error (exit status 2) if ``out`` cannot be the output folder."""
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out}: not a folder (a file has that name)")


def _make_out(out: Path) -> None:
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise UsageError(f"--out {out}: cannot create the folder ({e.strerror or e})") from None


def _remove_half_written(out: Path) -> None:
    """Remove what :func:`atomic_write` left of a run killed while writing (its temporary files):
    the resumed batch writes those files again."""
    for folder in (out, out / "results", out / "feedback"):
        for tmp in folder.glob(".*.tmp"):
            tmp.unlink(missing_ok=True)


def _limits(base: dict[str, Any], **overrides: float | None) -> SandboxLimits:
    """The sandbox limits: ``course.yml``'s with the flags given, checked by the rules
    ``course.yml`` obeys (a zero or negative limit would time out every row)."""
    from pydantic import ValidationError

    from .config import Limits

    merged = {**base, **{k: v for k, v in overrides.items() if v is not None}}
    try:
        Limits(**merged)
    except ValidationError as e:
        error = e.errors()[0]
        field = str(error["loc"][0]) if error["loc"] else "limits"
        raise UsageError(
            f"--{field.replace('_', '-')} {merged.get(field)}: {error['msg'][:1].lower()}{error['msg'][1:]}"
        ) from None
    return SandboxLimits(**merged)
