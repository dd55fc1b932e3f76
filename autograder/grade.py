"""``python -m autograder grade``: grade a notebook, a folder or a zip of submissions.

A grading run reads as a list, one step per function: collect (unpack and check the input) →
execute in a sandbox (cells, then probes) → judge against the reference → record (results JSON,
feedback page, gradebook row). The unit of work is "one submission in, one record of plain data
out", with the read-only course build as the only shared state: this machine's thread pool
(:func:`local_records`) or a Dask cluster (:mod:`autograder.backends`) grades, and this process
alone records.
"""

from __future__ import annotations

import contextlib
import csv
import functools
import hashlib
import io
import json
import os
import queue
import secrets
import tempfile
import threading
from collections.abc import Collection, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from .config import ROOT, Assignment, Course, load_course
from .execution import stub_source
from .notebooks import code_cells, master_questions, read_notebook
from .probing import (
    ProbeSet,
    decode_run,
    is_out_of_memory,
    judge_probe,
    probe_seed,
    run_probe,
    score_question,
    shorten,
)
from .reference import Store, cache_root, decode_results, encode_results, host_key, prune
from .sandbox import landlock
from .sandbox.limits import SandboxLimits, sandbox_uid
from .sandbox.run import RunOutcome, run_sandboxed
from .sandbox.zygote import Zygote
from .sources import source_namespace
from .submissions import Submission, UsageError, collect

STATUSES = ("graded", "invalid", "timeout", "memory", "crashed", "tampered", "error")


class GradingFailed(Exception):
    """Grading itself failed (exit status 1): the grader's fault, never a student's."""


@dataclass(frozen=True)
class Record:
    """Everything known about one graded submission; what ``results/<key>.json`` holds."""

    submission: str
    key: str
    fingerprint: str
    status: str
    message: str
    questions: dict[str, float]
    possible: float
    tests: list[dict[str, Any]]
    notes: list[str]
    seed: int | None = None
    """the batch's seed, from which every hidden input of this row was drawn"""

    @property
    def total(self) -> float:
        return round(sum(self.questions.values()), 6)

    def to_results(self) -> dict[str, Any]:
        """Gradescope's results.json, with our own fields under ``extra_data``."""
        return {
            "score": self.total,
            "output": self.message,
            "tests": self.tests,
            "extra_data": {
                "submission": self.submission,
                "key": self.key,
                "status": self.status,
                "questions": self.questions,
                "possible": self.possible,
                "fingerprint": self.fingerprint,
                "notes": self.notes,
                "seed": self.seed,
            },
        }

    @classmethod
    def from_results(cls, data: dict[str, Any]) -> Record:
        x = data["extra_data"]
        return cls(
            x["submission"],
            x["key"],
            x["fingerprint"],
            x["status"],
            data["output"],
            {q: float(v) for q, v in x["questions"].items()},
            float(x["possible"]),
            data["tests"],
            list(x.get("notes", [])),
            x.get("seed"),
        )


def _process_umask() -> int:
    mask = os.umask(0o022)  # reading it means setting it: done once, at import, before any thread
    os.umask(mask)
    return mask


_UMASK = _process_umask()


def atomic_write(path: Path, text: str, *, private: bool = False) -> None:
    """Write ``text`` so that readers see the old file or the new one, never half of one.

    The file gets the mode an ordinary new file would (0666 less the umask: TAs and a web
    server in the group can read the gradebook and the pages), or 0600 when ``private``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name[:40]}.", suffix=".tmp")
    os.fchmod(fd, 0o600 if private else 0o666 & ~_UMASK)  # mkstemp makes it 0600
    with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def _fmt(x: float) -> str:
    return f"{x:g}"


def csv_text(text: str) -> str:
    """A text cell a spreadsheet shows as text: one starting with ``= + - @`` (or a tab or
    carriage return) would be read as a formula, and a submission's name is the student's."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


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
    ):
        """``exact_devices`` grades on ``cpu_devices`` even below the assignment's
        ``min_devices``: for testing the course on one device, never for grades (scores must
        not depend on the machine, so the command line always keeps the floor)."""
        from .execution import load_probes

        self.course, self.assignment, self.out, self.device = course, assignment, out, device
        self.master = read_notebook(assignment.master)
        self.stub = [stub_source(c) for c in code_cells(self.master)]
        """the student's stub: the master's code cells with each solution replaced by ``...``"""
        self.questions = {q.name: q.points for q in master_questions(self.master)}
        self.probes: ProbeSet = load_probes(assignment.probes_file)
        self.probes_source = assignment.probes_file.read_text(encoding="utf-8")
        self._score_table()
        self.seed = seed
        base = course.limits_for(assignment)
        self.limits = limits or SandboxLimits(**base.model_dump())
        self.notes: list[str] = []
        self.job = self._job(cpu_devices, exact_devices)
        self._lifecycle()

    def _score_table(self) -> None:
        self.points = {
            pid: pts
            for q, total in self.questions.items()
            for pid, pts in self.probes.points(q, total).items()
        }
        self.possible = round(sum(self.questions.values()), 6)

    def _lifecycle(self) -> None:
        self.hide: list[str] = []
        """folders every sandbox sees empty, beside the project and OUT"""
        self.zygote: Zygote | None = None
        self._zygote_lock = threading.Lock()
        self._slots: queue.Queue[int] = queue.Queue()
        self._reference: dict[str, dict[str, Any]] | None = None

    # -- the course build, for graders elsewhere ------------------------------------------------

    def build(self) -> dict[str, Any]:
        """What a grader on another machine needs to grade exactly like this one, as plain
        (JSON-able) data: the course build of this assignment without its master notebook (so
        without the solution) and the reference outputs. A Dask worker receives it once per
        batch (:mod:`autograder.backends.dask_cluster`) and grades with :meth:`from_build`."""
        return {
            "assignment": self.assignment.model_dump(mode="json"),
            "device": self.device,
            "questions": self.questions,
            "probes": self.probes_source,
            "stub": self.stub,
            "job": self.job,
            "notes": self.notes,
            "limits": asdict(self.limits),
            "seed": self.seed,
            "store": self.store_digests,
            "reference": encode_results(self.reference()),
        }

    @classmethod
    def from_build(cls, build: Mapping[str, Any], out: Path, *, hide: Sequence[str] = ()) -> Grader:
        """A grader from another's :meth:`build` alone: it reads no file of the course, never
        runs the reference, and keeps its sandboxes, zygote log and (where the user's cache
        folder cannot be written) compilation cache under ``out``; ``hide``: more folders
        every sandbox sees empty."""
        from .execution import probes_from_source

        self = cls.__new__(cls)
        self.assignment = Assignment.model_validate(build["assignment"])
        self.out, self.device = out, str(build["device"])
        self.stub = [str(c) for c in build["stub"]]
        self.questions = {str(q): float(v) for q, v in build["questions"].items()}
        self.probes_source = str(build["probes"])
        self.probes = probes_from_source(self.probes_source, self.assignment.id)
        self._score_table()
        self.seed = int(build["seed"])
        self.limits = SandboxLimits(**build["limits"])
        self.notes = [str(n) for n in build["notes"]]
        self.job = dict(build["job"])
        self._lifecycle()
        self.hide = [str(p) for p in hide]
        self.store_digests = [str(d) for d in build["store"]]
        self._reference = decode_results(build["reference"])
        return self

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
        return self

    def _zygote(self) -> Zygote:
        """The zygote, started by the first sandbox run (none when every result is stored)."""
        with self._zygote_lock:
            if self.zygote is None:
                cache = self.out / ".cache"
                cache.mkdir(parents=True, exist_ok=True)
                self.zygote = Zygote(cache / "zygote.log")
            return self.zygote

    def __exit__(self, *exc: object) -> None:
        if self.zygote is not None:
            self.zygote.close()

    def _uid(self, slot: int) -> int | None:
        """A user id of its own for the sandbox in ``slot`` when the grader runs as root (never
        uid 0; the sandbox's private file view makes a root-only Python reachable to it).
        Without root the sandbox keeps the grader's user id, in a user namespace where the
        kernel allows one."""
        return sandbox_uid(slot) if os.geteuid() == 0 else None

    def _run(
        self, cells: list[str], slot: int, probes: list[str], cache: Path | None, *, writes: bool = False
    ) -> RunOutcome:
        """Run cells, then the ``probes`` (ids), in a sandbox that reads (or, with ``writes``,
        fills) the compilation cache ``cache``."""
        zygote = self._zygote()
        sandbox = self.out / ".sandbox"
        sandbox.mkdir(parents=True, exist_ok=True)
        os.chmod(sandbox, 0o711)
        uid = self._uid(slot)
        job = dict(self.job, hidden=[str(ROOT), str(self.out.resolve()), *self.hide])
        if cache is not None and writes:
            cache.mkdir(parents=True, exist_ok=True)
            if uid is not None:
                os.chown(cache, uid, uid)
            job.update(compilation_cache=str(cache), cache_writes=True)
        elif cache is not None and cache.is_dir() and landlock.abi_version() > 0:
            job.update(compilation_cache=str(cache))
        try:
            return run_sandboxed(
                zygote,
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
        functions = [f for q in questions for f in self.assignment.questions.get(q, [])]
        ns = source_namespace(cells, functions)
        return {
            p.id: decode_run(run_probe(p, ns, probe_seed(self.seed, p.id)))
            for p in self.probes.probes
            if p.source and p.question in questions
        }

    # -- reference ----------------------------------------------------------------------------

    @functools.cached_property
    def store_digests(self) -> list[str]:
        """sha256 digests of what the reference results depend on, bar the host (see
        :func:`autograder.reference.store_key`)."""
        import jax

        parts = [
            self.assignment.master.read_bytes(),
            self.probes_source.encode(),
            (Path(__file__).parent / "probing.py").read_bytes(),
            json.dumps(self.job, sort_keys=True).encode(),
            jax.__version__.encode(),
        ]
        return [hashlib.sha256(part).hexdigest() for part in parts]

    @functools.cached_property
    def store(self) -> Store:
        """Where this assignment's reference results are kept for this job and host: the user's
        cache folder, or ``OUT/.cache`` where that cannot be written, or where sandboxes run as
        other users who could not read it."""
        key = host_key(self.store_digests)
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
        self._run(self.stub, 0, self.sandbox_probes(self.questions), store.public_xla, writes=True)
        store.public_warmed.touch()

    def warm(self) -> None:
        """Fill this host's public compilation cache if no grader did yet (a worker's first step:
        the instructor's machine fills its own in :meth:`reference`)."""
        store = self.store
        with store.locked():
            if not store.public_warmed.exists():
                self._warm_public_cache(store)
            store.touch()

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

    # -- one submission -----------------------------------------------------------------------

    def grade(self, sub: Submission) -> Record:
        """collect → execute → judge → record, for one submission; never raises."""
        if sub.problem:
            return self._record(
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
            return self._record(
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
            return self.judge(sub, outcome)
        except Exception as e:  # noqa: BLE001
            return self._record(
                sub,
                "error",
                f"The grader failed while judging ({type(e).__name__}: "
                f"{str(e)[:120]}); it is not the student's fault.",
                {},
                [],
            )

    def judge(self, sub: Submission, outcome: RunOutcome) -> Record:
        ref = self.reference()
        chosen = sub.graded_on(self.questions)
        notes = [f"the sandbox lacked: {', '.join(outcome.missing)}"] if outcome.missing else []
        if outcome.tampered:
            evidence = shorten("; ".join(outcome.tampered[:3]), 300)
            return self._record(
                sub,
                "tampered",
                f"The notebook changed what grading relies on ({evidence}); it scores 0.",
                {},
                [],
                notes,
            )
        if outcome.ended == "tampered":
            return self._record(
                sub, "tampered", f"{outcome.detail.capitalize()}; it scores 0.", {}, [], notes
            )
        early = {
            "timeout": "ran out of time",
            "memory": "ran out of memory",
            "crashed": "crashed",
            "exited": "stopped",
        }
        if outcome.ended != "ok" and outcome.where.startswith("cell") or outcome.ended == "exited":
            status = "crashed" if outcome.ended == "exited" else outcome.ended
            detail = f" ({outcome.detail})" if outcome.detail else ""
            return self._record(
                sub,
                status,
                f"The notebook {early[outcome.ended]} in {outcome.where}{detail}; no question was graded.",
                {},
                [],
            )

        problems: dict[str, str | None] = {}
        not_run: set[str] = set()
        for pid, result in outcome.results.items():
            if not result["ok"] and is_out_of_memory(result["error"]) and outcome.ended == "ok":
                outcome.ended, outcome.where, outcome.detail = "memory", pid, f"{self.limits.memory_mb} MiB"
        for probe in self.probes.probes:
            if probe.question not in chosen:
                continue
            if probe.id in outcome.results:
                problems[probe.id] = judge_probe(probe, outcome.results[probe.id], ref[probe.id])
            else:
                not_run.add(probe.question)
                problems[probe.id] = f"{probe.question} `{probe.function}`: not run"
        if outcome.ended != "ok" and outcome.where:
            stopped = (
                self.probes.get(outcome.where)
                if outcome.where in {p.id for p in self.probes.probes}
                else None
            )
            if stopped is not None:
                problems[stopped.id] = (
                    f"{stopped.question} `{stopped.function}`: {stopped.description}: "
                    f"{early[outcome.ended]}" + (f" ({outcome.detail})" if outcome.detail else "")
                )
                not_run.add(stopped.question)

        questions: dict[str, float] = {}
        tests: list[dict[str, Any]] = []
        first_problem: dict[str, str] = {}
        for q in chosen:
            probes = self.probes.for_question(q)
            earned, messages = score_question(probes, self.points, problems)
            questions[q] = 0.0 if q in not_run else earned
            if messages:
                first_problem[q] = messages[0]
            gate_failed = any(p.gate and problems[p.id] for p in probes)
            for p in probes:
                problem = problems[p.id]
                scored = not (gate_failed or problem or q in not_run)
                tests.append(
                    {
                        "name": f"{q} {p.function}: {p.name.replace('_', ' ')}",
                        "number": q,
                        "score": self.points[p.id] if scored else 0.0,
                        "max_score": self.points[p.id],
                        "status": "failed" if problem else "passed",
                        "output": problem
                        or ("passed, but a requirement of this question failed" if gate_failed else "passed"),
                        "visibility": "visible",
                    }
                )
        lost = [q for q in chosen if questions[q] < self.questions[q]]

        status = "graded" if outcome.ended == "ok" else outcome.ended
        if status == "exited":
            status = "crashed"
        if not lost:
            message = "All hidden tests passed."
        else:
            first = next((first_problem[q] for q in lost if q in first_problem), "")
            message = f"Lost points on {', '.join(lost)}. First problem: {first}"
        if status != "graded":
            graded = [q for q in chosen if q not in not_run]
            message = (
                f"Grading stopped at {outcome.where}: it {early.get(outcome.ended, 'failed')}"
                + (f" ({outcome.detail})" if outcome.detail else "")
                + f". Still graded: {', '.join(graded) or 'none'}. "
                + message
            )
        notes = list(sub.notes) + notes + [f"cell {i} raised: {e}" for i, e in outcome.cell_errors[:5]]
        return self._record(sub, status, message, questions, tests, notes)

    def _record(
        self,
        sub: Submission,
        status: str,
        message: str,
        questions: dict[str, float],
        tests: list[dict[str, Any]],
        notes: list[str] | None = None,
    ) -> Record:
        chosen = sub.graded_on(self.questions)
        qs = {q: questions.get(q, 0.0) for q in chosen}
        if not tests:
            tests = [
                {
                    "name": f"{p.question} {p.function}: {p.name.replace('_', ' ')}",
                    "number": p.question,
                    "score": 0.0,
                    "max_score": self.points[p.id],
                    "status": "failed",
                    "output": f"not graded: status {status}",
                    "visibility": "visible",
                }
                for p in self.probes.probes
                if p.question in chosen
            ]
        if sub.questions is not None:
            notes = [*(notes or sub.notes), f"graded on {', '.join(chosen) or 'no question'} only"]
        return Record(
            sub.name,
            sub.key,
            sub.fingerprint,
            status,
            shorten(" ".join(message.split()), 600),
            qs,
            self.possible,
            tests,
            [shorten(n, 300) for n in [*(notes or sub.notes), *self.notes]][:20],
            self.seed,
        )


def _gpu_count() -> int:
    try:
        import jax

        return len(jax.devices("gpu"))
    except RuntimeError:
        return 0


# -- recording -----------------------------------------------------------------------------------


def write_gradebook(path: Path, records: list[Record], questions: list[str]) -> None:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["submission", *questions, "total", "possible", "status", "message"])
    for r in records:
        w.writerow(
            [
                csv_text(r.submission),
                *(_fmt(r.questions[q]) if q in r.questions else "" for q in questions),
                _fmt(r.total),
                _fmt(r.possible),
                r.status,
                csv_text(r.message),
            ]
        )
    atomic_write(path, buf.getvalue())


def read_records(out: Path) -> dict[str, Record]:
    """Every record under ``out/results``, by submission name."""
    records = [
        Record.from_results(json.loads(f.read_text(encoding="utf-8")))
        for f in (out / "results").glob("*.json")
    ]
    return {r.submission: r for r in records}


def read_record(out: Path, sub: Submission, questions: list[str], seed: int) -> Record | None:
    """The record a previous run wrote for ``sub``, if it graded the same bytes on the same
    ``questions`` with the same ``seed``; ``None`` (grade it again) otherwise, a damaged file
    included."""
    path = out / "results" / f"{sub.key}.json"
    try:
        record = Record.from_results(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError):
        return None
    same = (record.fingerprint, record.submission, set(record.questions), record.seed) == (
        sub.fingerprint,
        sub.name,
        set(questions),
        seed,
    )
    return record if same else None


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
    scheduler: str | None = None,
    cluster: str | None = None,
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

    ``scheduler`` (a Dask scheduler's address) or ``cluster`` (``local:N``, a Dask LocalCluster
    of N worker processes started for this run) grade on a cluster instead of this machine's
    pool of ``jobs`` threads (:mod:`autograder.backends`); records are written here alike.

    What it prints (:mod:`autograder.console`): progress on stderr (a bar on a terminal, a line
    per submission elsewhere), then with ``summary`` the gradebook's table and where the files
    are on stdout; ``quiet`` keeps only warnings and errors."""
    from .backends import check_backend
    from .console import Console, plural, summary_text
    from .report import write_feedback, write_report

    workers = check_backend(scheduler=scheduler, cluster=cluster, jobs=jobs)
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
            + ("on Dask" if scheduler or cluster else f"{min(jobs, len(todo))} at a time")
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
        ) as grader:
            if any(not s.problem for s in todo):
                if not grader.reference_stored():
                    console.say(
                        f"running the reference solution of {a.id} on this batch's hidden inputs "
                        "(once per batch seed; about a minute on 2 cores) ..."
                    )
                grader.reference()
            progress = console.progress(len(todo))
            if scheduler or cluster:
                from .backends.dask_cluster import cluster_records

                graded = cluster_records(grader, todo, scheduler=scheduler, workers=workers, console=console)
            else:
                graded = local_records(grader, todo, jobs)
            with contextlib.closing(graded):
                for record in graded:
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


def local_records(grader: Grader, todo: Sequence[Submission], jobs: int) -> Iterator[Record]:
    """Grade ``todo`` on this machine, ``jobs`` sandboxes at a time, yielding each record as
    it is done (the default; :func:`autograder.backends.dask_cluster.cluster_records` is the
    same on a Dask cluster)."""
    for slot in range(1, jobs + 1):
        grader._slots.put(slot)
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(grader.grade, s) for s in todo]
        for fut in as_completed(futures):
            yield fut.result()


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


def batch_seed(out: Path, seed: int | None) -> int:
    """The seed of the batch in ``out``: ``seed`` if given, else the one ``out/batch.json``
    recorded, else a fresh random one; recorded there either way."""
    path = out / "batch.json"
    if seed is None:
        try:
            seed = int(json.loads(path.read_text(encoding="utf-8"))["seed"])
        except (OSError, ValueError, KeyError, TypeError):
            seed = secrets.randbits(63)
    atomic_write(path, json.dumps({"seed": seed}) + "\n")
    return seed
