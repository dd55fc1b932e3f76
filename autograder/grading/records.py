"""The record of a graded submission and the files made from it: ``results/<key>.json``, the
gradebook, the batch's seed, and how a resumed batch reads them back.

Every writer here is atomic (readers see the old file or the new one), so a batch killed at any
moment resumes to exactly one row per submission. Nothing here runs student code or JAX.
"""

from __future__ import annotations

import contextlib
import csv
import errno
import io
import json
import os
import secrets
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, get_args

from .downloads import marked_late_by

if TYPE_CHECKING:
    from .collect import Submission

Status = Literal["graded", "invalid", "timeout", "memory", "crashed", "tampered", "error"]
"""How grading of one submission ended: ``graded`` (every chosen question judged), ``invalid``
(not a notebook we can read), ``timeout``/``memory``/``crashed`` (the notebook stopped before
or while its questions were judged), ``tampered`` (it changed what grading relies on), ``error``
(the grader's own failure, never the student's)."""

STATUSES: tuple[Status, ...] = get_args(Status)


@dataclass(frozen=True)
class Record:
    """Everything known about one graded submission; what ``results/<key>.json`` holds."""

    submission: str
    key: str
    fingerprint: str
    status: Status
    message: str
    questions: dict[str, float]
    possible: float
    tests: list[dict[str, Any]]
    notes: list[str]
    seed: int | None = None
    """the batch's seed, from which every hidden input of this row was drawn"""
    student: str = ""
    """who it is from: the roster's id (``grade --roster``), else the identifier the LMS's
    download names (:mod:`autograder.grading.lms`), else empty"""
    graded_with: str = ""
    """the digest of what graded it (hidden tests, reference, grader code, environment:
    :attr:`autograder.grading.spec.GradingSpec.graded_with`); a row graded with other ones is
    stale, and the next run into its folder grades it again"""
    fault: str = ""
    """for an ``error`` row: the grader's own failure, as the instructor's log shows it
    (``OUT/grader.log``); never shown to the student"""
    review: dict[str, dict[str, Any]] = field(default_factory=dict)
    """questions whose rule the grader could not decide from the code (a gate's *cannot tell*),
    held for the instructor: question -> ``reason``, ``points`` (what it scores if the rule is
    kept), ``code`` (the cells it read) and, once decided (``autograder review``), ``decision``
    (``kept`` or ``broken``). A held question scores 0 until it is decided."""
    student_name: str = ""
    """the student's name: the roster's, else the one the LMS's download gives (Moodle's full
    name, Brightspace's display name, Gradescope's submitter), else empty"""

    diagnosis: dict[str, dict[str, Any]] = field(default_factory=dict)
    """questions whose outputs reproduce a known mistake (:mod:`autograder.grading.mistakes`):
    question -> ``mistake`` (its id, the known-wrong answer's file stem), ``text`` (what the
    student reads) and, when several mistakes give the same outputs and are named together,
    ``with`` (the others' ids)"""

    @property
    def pending(self) -> list[str]:
        """Questions held for review and not yet decided."""
        return [q for q, r in self.review.items() if "decision" not in r]

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
                "student": self.student,
                "student_name": self.student_name,
                "graded_with": self.graded_with,
                **({"fault": self.fault} if self.fault else {}),
                **({"review": self.review} if self.review else {}),
                **({"diagnosis": self.diagnosis} if self.diagnosis else {}),
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
            str(x.get("student") or ""),
            str(x.get("graded_with") or ""),
            str(x.get("fault") or ""),
            {str(q): dict(r) for q, r in (x.get("review") or {}).items()},
            str(x.get("student_name") or ""),
            {str(q): dict(d) for q, d in (x.get("diagnosis") or {}).items()},
        )


def grader_failed(what: str, *, again: bool = True) -> str:
    """The message of a row the grader failed on (status ``error``): ``what`` failed, then that
    it is not the student's fault and, where a second try may go otherwise (``again``), that
    grading it again may succeed. The cause itself goes to the row's ``fault``, never here."""
    return f"{what}; it is not the student's fault" + (
        ", and grading it again may succeed." if again else "."
    )


def fault_text(e: BaseException) -> str:
    """The grader's own failure ``e`` as one line of its log: the exception and where it was
    raised (the last frame of the traceback)."""
    import traceback

    frames = traceback.extract_tb(e.__traceback__)
    where = f" at {Path(frames[-1].filename).name}:{frames[-1].lineno} in {frames[-1].name}" if frames else ""
    return " ".join(f"{type(e).__name__}: {e}{where}".split())[:1000]


def _process_umask() -> int:
    mask = os.umask(0o022)  # reading it means setting it: done once, at import, before any thread
    os.umask(mask)
    return mask


_UMASK = _process_umask()


def atomic_write(path: Path, text: str, *, private: bool = False) -> None:
    """Write ``text`` so that readers see the old file or the new one, never half of one: when
    writing fails (a full disk: :func:`disk_full`), the old file is left as it was and the
    temporary one removed.

    The file gets the mode an ordinary new file would (0666 less the umask: TAs and a web
    server in the group can read the gradebook and the pages), or 0600 when ``private``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name[:40]}.", suffix=".tmp")
    try:
        os.fchmod(fd, 0o600 if private else 0o666 & ~_UMASK)  # mkstemp makes it 0600
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def disk_full(e: BaseException) -> bool:
    """Whether ``e`` says the disk (or the user's quota) is full: the batch stops there with one
    line, keeping what it wrote, and the same command resumes it once there is space."""
    return isinstance(e, OSError) and e.errno in (errno.ENOSPC, errno.EDQUOT)


def format_points(x: float) -> str:
    """Points as the gradebook writes them (``12``, ``0.5``)."""
    return f"{x:g}"


def csv_text(text: str) -> str:
    """A text cell a spreadsheet shows as text: one starting with ``= + - @`` (or a tab or
    carriage return) would be read as a formula, and a submission's name is the student's."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def write_gradebook(path: Path, records: list[Record], questions: list[str]) -> None:
    """One row per record: the contract's columns (submission, the questions, total, possible,
    status, message), then ``student`` (empty where neither the download nor a roster names one)
    and ``name`` (the student's name, where known),
    ``review`` (the questions held for the instructor's review and not yet decided) and ``late``
    (``late`` where the LMS's download marks the submission late:
    :func:`autograder.grading.downloads.marked_late_by`)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(
        ["submission", *questions, "total", "possible", "status", "message"]
        + ["student", "name", "review", "late"]
    )
    for r in records:
        w.writerow(
            [
                csv_text(r.submission),
                *(format_points(r.questions[q]) if q in r.questions else "" for q in questions),
                format_points(r.total),
                format_points(r.possible),
                r.status,
                csv_text(r.message),
                csv_text(r.student),
                csv_text(r.student_name),
                " ".join(r.pending),
                "late" if marked_late_by(r.submission) else "",
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


def read_record(out: Path, sub: Submission) -> Record | None:
    """The record a previous run wrote for ``sub``'s name, or ``None`` (none, or a damaged file)."""
    path = out / "results" / f"{sub.key}.json"
    try:
        return Record.from_results(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def still_good(record: Record, sub: Submission, questions: list[str], seed: int, graded_with: str) -> bool:
    """Whether ``record`` graded ``sub``'s bytes on the same ``questions`` with the same ``seed``
    and the same hidden tests, reference and grader (``graded_with``), and is not an ``error``
    row (the grader's fault, retried): then it is kept, else graded again."""
    same = (
        record.fingerprint,
        record.submission,
        set(record.questions),
        record.seed,
        record.graded_with,
    ) == (
        sub.fingerprint,
        sub.name,
        set(questions),
        seed,
        graded_with,
    )
    return same and record.status != "error"


def batch_seed(out: Path, seed: int | None, assignment: str | None = None) -> int:
    """The seed of the batch in ``out``: ``seed`` if given, else the one ``out/batch.json``
    recorded, else a fresh random one; recorded there either way, with ``assignment``. A folder
    is one assignment's class: :class:`~autograder.errors.UsageError` if ``out`` already holds
    another assignment's batch."""
    from ..errors import UsageError

    path = out / "batch.json"
    try:
        recorded = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        recorded = {}
    if not isinstance(recorded, dict):
        recorded = {}
    held = recorded.get("assignment")
    if assignment is not None and isinstance(held, str) and held != assignment:
        raise UsageError(
            f"{out} holds the grades of {held}; grade {assignment} into a folder of its own (another --out)"
        )
    if seed is None:
        try:
            seed = int(recorded["seed"])
        except (ValueError, KeyError, TypeError):
            seed = secrets.randbits(63)
    entry: dict[str, Any] = {"seed": seed}
    if assignment is not None or isinstance(held, str):
        entry["assignment"] = assignment or held
    atomic_write(path, json.dumps(entry) + "\n")
    return seed
