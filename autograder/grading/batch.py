"""``python -m autograder grade``: grade a notebook, a folder or a zip of submissions.

A grading run reads as a list, one step per function: collect (unpack and check the input) →
execute in a sandbox (cells, then probes) → judge against the reference → record (results JSON,
feedback page, gradebook row). The unit of work is "one submission in, one record of plain data
out", with the read-only course build as the only shared state: this machine's thread pool
(:func:`local_records`) or a Dask cluster (:mod:`autograder.grading.backends`) grades, and this process
alone records.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import stat
import threading
from collections.abc import Callable, Generator, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

# Light imports only: the grader's own (nbformat, NumPy, JAX: ~1.5 s) come in main, once the
# zygote has started importing beside them.
from ..errors import GradingFailed, UsageError, noting_interrupts, stops_the_batch
from ..sandbox.zygote import Zygote, start_zygote
from .options import GradeOptions, shown
from .records import (
    Record,
    atomic_write,
    batch_seed,
    disk_full,
    grader_failed,
    read_record,
    read_records,
    still_good,
    write_gradebook,
)

T = TypeVar("T")

if TYPE_CHECKING:
    from ..config import Assignment
    from .collect import Submission
    from .grader import Grader


def run(options: GradeOptions) -> int:
    """Grade SUBMISSIONS into OUT as ``options`` (what the command line's flags set) say.
    Returns the exit status: 0 when every submission has a row
    (whatever its status), 1 when grading itself failed. Raises :class:`UsageError` for bad
    arguments (exit status 2).

    ``only`` maps submission names to the questions they are graded on; their other questions
    are not probed and stay empty in the gradebook. ``validate`` grades each known-wrong answer
    on its own question this way: its other questions run the reference's code.

    ``seed``: the batch's seed, from which every hidden input is drawn. By default it is drawn
    afresh for a new OUT and kept in ``OUT/batch.json`` (a resumed batch reuses it), so that an
    input that leaks once is worth nothing to the next batch; give it to reproduce a batch.

    ``scheduler`` (a Dask scheduler's address) or ``cluster`` (``local:N``, a Dask LocalCluster
    of N worker processes started for this run) grade on a cluster instead of this machine's
    pool of ``jobs`` threads (:mod:`autograder.grading.backends`); records are written here alike.

    What it prints (:mod:`autograder.grading.report.console`): progress on stderr (a bar on a terminal, a line
    per submission elsewhere), then with ``summary`` the gradebook's table and where the files
    are on stdout; ``quiet`` keeps only warnings and errors.

    Whatever one submission does to the grader is that row's ``error``; the batch stops only
    for the instructor's own Ctrl-C (:func:`autograder.errors.stops_the_batch`) and for a full
    disk: one line says so (exit status 1), every row written so far stays in the gradebook,
    and the same command, once there is space, grades what is missing."""
    from .backends import check_backend

    workers = check_backend(scheduler=options.scheduler, cluster=options.cluster, jobs=options.jobs)
    early = None
    try:
        early = None if options.on_cluster else _early_zygote(options.submissions, options.out)
        with noting_interrupts():
            return _grade(options, early=early, workers=workers)
    except OSError as e:
        if not disk_full(e):
            raise
        from .report.console import Console

        where = f" (writing {e.filename})" if e.filename else ""
        Console(quiet=options.quiet).warn(
            f"grading stopped: the disk that holds {options.out} is full{where}; the gradebook keeps every "
            "row written before. Free some space, then run the same command again: it grades only "
            "what is missing."
        )
        return 1
    finally:
        if early is not None:
            early.close()  # a no-op if a grader closed it already


def _early_zygote(submissions: Path, out: Path) -> Zygote | None:
    """The batch's zygote, started before anything else where that creates nothing: OUT is
    already a batch's folder (a regrade, a late submission) and SUBMISSIONS a notebook or a
    folder, whose reading cannot be a usage error. Its imports (~1.3 s) are the longest wait
    before a first cell runs; this process's own (course.yml's pydantic, nbformat, NumPy, JAX)
    run beside them. A new batch starts its zygote before the reference run instead."""
    if not out.is_dir():
        return None
    try:
        st = submissions.lstat()  # as collect reads it: a link is a usage error there
    except OSError:
        return None
    notebook = stat.S_ISREG(st.st_mode) and submissions.suffix.lower() == ".ipynb"
    return start_zygote(out) if stat.S_ISDIR(st.st_mode) or notebook else None


def _grade(options: GradeOptions, *, early: Zygote | None, workers: int | None) -> int:
    """:func:`run` once the zygote, if it could start first, has: the arguments checked, then
    the batch graded."""
    from ..config import load_course

    course = options.course or load_course()
    a = course.assignment(options.assignment)
    options.check()
    from .lms.export import check_systems, finish
    from .lms.gradescope import with_submitters
    from .lms.roster import identify, read_roster, with_student

    check_systems(options.lms)
    roster = read_roster(options.roster) if options.roster is not None else None
    roster = with_submitters(roster, options.submissions)  # a Gradescope export names its submitters
    limits = options.limits(course.limits_for(a).model_dump())
    out, submissions, only, device = options.out, options.submissions, options.only, options.device
    if device == "gpu":
        from .sandboxes import gpu_count

        if gpu_count() == 0:
            raise UsageError("--device gpu: JAX finds no GPU on this machine (install requirements/gpu.txt)")
    from .collect import collect
    from .grader import Grader
    from .parts import parts_for
    from .report.console import Console, plural, summary_text
    from .report.pages import write_feedback, write_report
    from .review import apply_decisions, read_decisions
    from .similarity import compare_class
    from .spec import GradingSpec

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
    console = Console(quiet=options.quiet)
    subs, strangers = identify(subs, roster)  # who each is from: the LMS's names, the roster
    if strangers:
        where = options.roster or f"{submissions}'s submission_metadata.yml"
        console.warn(f"not in the roster {where}: {', '.join(strangers[:10])}")
    jobs = max(1, options.jobs or os.cpu_count() or 1)
    _make_out(out)
    _remove_half_written(out)
    seed = batch_seed(out, options.seed, a.id)
    if skipped:  # a warning, not progress: shown even when quiet
        console.warn(f"skipped (not .ipynb or .zip): {', '.join(skipped[:10])}")
    if not subs:
        console.warn(f"no submissions in {submissions}: it holds no *.ipynb or *.zip entry")

    # The folder is one assignment's class: rows of earlier runs that this one does not grade
    # again (a late submission added, one student regraded) stay in the gradebook and report.
    keys = {s.key for s in subs}
    earlier = sorted((r for r in read_records(out).values() if r.key not in keys), key=lambda r: r.submission)
    spec = GradingSpec.for_course(
        course,
        a,
        device=device,
        limits=limits,
        cpu_devices=options.cpu_devices,
        seed=seed,
        diagnose=options.diagnose,
    )
    graded_with = spec.graded_with
    records: dict[str, Record] = {}
    todo: list[Submission] = []
    stale = 0
    for s in subs:
        previous = None if options.regrade else read_record(out, s)
        if previous is not None and still_good(previous, s, s.graded_on(questions), seed, graded_with):
            records[s.key] = with_student(out, previous, s.student, s.student_name)
        else:
            todo.append(s)
            # Its bytes were graded before, by other tests or grader, or the grader failed on them.
            stale += previous is not None and previous.fingerprint == s.fingerprint
    kept = len(subs) - len(todo)
    if todo:
        console.say(
            f"grading {len(todo)} of {plural(len(subs), 'submission')} of {a.id}, "
            + ("on Dask" if options.on_cluster else f"{min(jobs, len(todo))} at a time")
            + (f"; {kept} kept from the previous run (--regrade grades them again)" if kept else "")
            + (
                f"; {stale} graded again: the hidden tests, the reference or the grader changed "
                "since they were graded, or the grader failed on them"
                if stale
                else ""
            )
        )
    elif subs:
        console.say(
            f"all {plural(kept, 'submission')} kept from the previous run in {out} "
            "(--regrade grades them again)"
        )

    def rows() -> list[Record]:
        # This run's in the order collected, then the earlier ones (sorted by name).
        return [*(records[s.key] for s in subs if s.key in records), *earlier]

    def flush() -> None:
        write_gradebook(out / "gradebook.csv", rows(), questions)

    decisions = read_decisions(out)  # the instructor's reviews, applied to rows graded again
    sandboxed = any(not s.problem for s in todo)
    # Started before the grader loads the probes, so that the zygote's imports run beside its own.
    zygote = None if not sandboxed or options.on_cluster else early or start_zygote(out)
    try:
        with contextlib.ExitStack() as stack:
            if zygote is not None:
                stack.callback(zygote.close)  # also if the grader cannot be made
            grader = stack.enter_context(
                Grader(
                    spec,
                    out,
                    jobs=jobs,
                    # Fewer submissions than slots (a regrade, a late one): each may use the
                    # slots the others leave idle.
                    parts=parts_for(jobs, len(todo), limits.memory_mb),
                    zygote=zygote,
                )
            )
            if sandboxed:
                # While the sandboxes run: the report's plotting library (~0.5 s on one core).
                # Only now, once the grader's own JAX import is over: see import_plotting_library.
                threading.Thread(target=import_plotting_library, daemon=True).start()
                if not grader.references.stored():
                    console.say(
                        f"running the reference solution of {a.id} on this batch's hidden inputs "
                        "(once per batch seed) ..."
                    )
                grader.references.outputs()
            progress = stack.enter_context(contextlib.closing(console.progress(len(todo))))
            if options.on_cluster:
                from .backends.dask_cluster import cluster_records

                graded = cluster_records(
                    grader, todo, scheduler=options.scheduler, workers=workers, console=console
                )
            else:
                graded = local_records(grader, todo, jobs)
            by_key = {s.key: s for s in todo}
            with contextlib.closing(graded):
                for record in graded:
                    sub = by_key[record.key]
                    record = replace(
                        record, student=sub.student, student_name=sub.student_name, graded_with=graded_with
                    )
                    record = apply_decisions(record, decisions)
                    record = _recorded(out, record, a, grader, sub)
                    records[record.key] = record
                    flush()
                    progress.update(record)
                    if options.on_record is not None:
                        options.on_record(record)
    except GradingFailed as e:
        console.warn(f"grading failed: {e}")
        return 1
    flush()
    for r in records.values():
        if not (out / "feedback" / f"{r.key}.html").exists():
            _guarded(write_feedback, out, r, a)
    # The similarity stage compares the whole class in OUT: this run's code and what earlier
    # runs stored of theirs. The report then renders the records and what the stage found.
    similarity = _guarded(compare_class, out, rows(), subs, a)
    write_report(out, rows(), a, questions, similarity)
    lms_lines = finish(out, rows(), a, roster, options.lms, options.lms_column, console.warn)
    if options.summary and not console.quiet:
        print(summary_text(rows(), questions, out, graded=len(todo), kept=kept + len(earlier)), flush=True)
        if lms_lines:
            print("\n".join(lms_lines), flush=True)
    faults = [records[s.key] for s in todo if s.key in records and records[s.key].status == "error"]
    if faults:
        log = _log_faults(out, faults)
        console.warn(
            f"the grader failed on {plural(len(faults), 'submission')} (status error, not the "
            f"students' fault): the causes are in {log}. Run the same command again to grade "
            "them again."
        )
        return 1
    return 0


def _log_faults(out: Path, faults: Sequence[Record]) -> Path:
    """Append the grader's failures to ``OUT/grader.log`` (one line each, with the time); the
    instructor's record of what went wrong, never shown to students."""
    import time

    log = out / "grader.log"
    stamp = time.strftime("%Y-%m-%d %H:%M:%S")
    with open(log, "a", encoding="utf-8") as f:
        for r in faults:
            f.write(f"{stamp} {r.submission}: {r.fault or r.message}\n")
    return log


def import_plotting_library() -> None:
    """Import what the report plots with, off the main thread.

    Not beside an import of JAX: ml_dtypes, which JAX imports, adds its types to
    ``numpy.sctypeDict`` while numpy.ma (which matplotlib imports) iterates over it, and the
    loser of that race raised "dictionary changed size during iteration", leaving a half-made
    matplotlib that failed the batch's report. ml_dtypes comes first here so that its import
    (this thread's or another's: the import lock makes the two one) is over before numpy.ma's.
    """
    importlib.import_module("ml_dtypes")
    importlib.import_module("matplotlib.figure")


def local_records(grader: Grader, todo: Sequence[Submission], jobs: int) -> Generator[Record]:
    """Grade ``todo`` on this machine, ``jobs`` sandboxes at a time, yielding each record as
    it is done (the default; :func:`autograder.grading.backends.dask_cluster.cluster_records` is the
    same on a Dask cluster); ``grader`` was made with as many slots. Closed early (the batch
    stopped: a full disk, Ctrl-C), it waits only for the sandboxes already running."""
    pool = ThreadPoolExecutor(max_workers=jobs)
    try:
        futures = [pool.submit(grader.grade, s) for s in todo]
        for fut in as_completed(futures):
            yield fut.result()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _recorded(out: Path, record: Record, a: Assignment, grader: Grader, sub: Submission) -> Record:
    """``record``, written: ``results/<key>.json`` (what a resumed batch reads) and its feedback
    page. When writing them fails for any reason but a full disk, the row becomes an ``error``
    (written as far as it can be): one row's failure is never the batch's."""
    try:
        _write_record(out, record, a)
        return record
    except BaseException as e:
        if stops_the_batch(e) or disk_full(e):
            raise
        why = type(e).__name__
    from .judge import error_record

    failed = error_record(
        grader.scoring,
        sub,
        grader_failed(f"The grader failed while writing this submission's results ({why})"),
    )
    failed = replace(failed, student=sub.student, student_name=sub.student_name)
    _guarded(_write_record, out, failed, a)
    return failed


def _write_record(out: Path, record: Record, a: Assignment) -> None:
    from .report.pages import write_feedback

    atomic_write(
        out / "results" / f"{record.key}.json",
        json.dumps(record.to_results(), indent=1, sort_keys=True) + "\n",
    )
    write_feedback(out, record, a)


def _guarded(write: Callable[..., T], *args: Any) -> T | None:
    """``write(*args)``, whose failure (but a full disk's, or Ctrl-C) costs only what it writes
    (``None`` then)."""
    try:
        return write(*args)
    except BaseException as e:
        if stops_the_batch(e) or disk_full(e):
            raise
        return None


def _make_out(out: Path) -> None:
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise UsageError(f"--out {shown(out)}: cannot create the folder ({e.strerror or e})") from None


def _remove_half_written(out: Path) -> None:
    """Remove what :func:`atomic_write` left of a run killed while writing (its temporary files):
    the resumed batch writes those files again."""
    for folder in (out, out / "results", out / "feedback"):
        for tmp in folder.glob(".*.tmp"):
            tmp.unlink(missing_ok=True)
