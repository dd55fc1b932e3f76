"""Turning SUBMISSIONS (a notebook, a folder or a zip) into one :class:`Submission` per student.

Everything here treats its input as hostile: nothing is extracted to disk, symbolic links are
never followed, sizes, member counts and compression ratios are capped before reading, a zip
member whose path is absolute or climbs out with ``..`` is never read, and nothing is unpickled
(an otter export's ``.OTTER_LOG`` is ignored).
"""

from __future__ import annotations

import hashlib
import io
import os
import re
import stat
import zipfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from .config import Assignment, Course, Uploads
from .errors import NotebookError, UsageError
from .notebooks import code_cells, defined_names, parse_notebook

BATCH_MAX_MEMBERS = 10_000


@dataclass(frozen=True)
class Submission:
    """One student's entry, read and checked, ready to grade (or already known to be invalid)."""

    name: str
    """entry name relative to SUBMISSIONS, as shown in the gradebook"""
    key: str
    """file-system-safe form of ``name`` for ``results/`` and ``feedback/``"""
    fingerprint: str
    """sha256 of the submitted bytes, to resume without regrading unchanged work"""
    cells: tuple[str, ...] = ()
    problem: str | None = None
    """why it cannot be graded (status ``invalid``), one line"""
    notes: tuple[str, ...] = field(default=())
    questions: tuple[str, ...] | None = None
    """the questions to grade, or ``None`` for all; the others are neither probed nor scored
    (``validate`` grades a known-wrong answer on the question it is wrong about)"""

    def graded_on(self, questions: Iterable[str]) -> list[str]:
        """Those of ``questions`` this submission is graded on, in their order."""
        return [q for q in questions if self.questions is None or q in self.questions]


def display_name(raw: str) -> str:
    """A printable name: undecodable bytes become U+FFFD, control characters ``?``."""
    text = raw.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    return re.sub(r"[\x00-\x1f\x7f]", "?", text)


def safe_key(name: str) -> str:
    key = re.sub(r"[/\\\x00-\x1f\x7f]", "_", name)
    if key in ("", ".", ".."):
        key = "_" + key
    if len(key.encode()) > 180:
        digest = hashlib.sha256(key.encode()).hexdigest()[:12]
        key = key.encode()[:160].decode("utf-8", "ignore") + "~" + digest
    return key


def _unique(subs: list[Submission]) -> list[Submission]:
    seen: dict[str, int] = {}
    out = []
    for s in subs:
        n = seen.get(s.key, 0)
        seen[s.key] = n + 1
        out.append(s if n == 0 else Submission(**{**s.__dict__, "key": f"{s.key}~{n + 1}"}))
    return out


def collect(path: Path, assignment: Assignment, course: Course) -> tuple[list[Submission], list[str]]:
    """``(submissions, skipped entry names)`` for SUBMISSIONS; :class:`UsageError` if unusable."""
    uploads = course.grading.uploads
    try:
        st = path.lstat()
    except OSError:
        raise UsageError(f"{path}: no such file or folder") from None
    reader = _Reader(assignment, course)
    if stat.S_ISDIR(st.st_mode):
        subs, skipped = [], []
        for entry in sorted(os.listdir(path)):
            name = display_name(entry)
            if entry.lower().endswith((".ipynb", ".zip")):
                subs.append(reader.guarded(reader.from_entry, path / entry, name))
            else:
                skipped.append(name)
        return _unique(subs), skipped
    if not stat.S_ISREG(st.st_mode):
        raise UsageError(f"{path}: not a notebook, a folder or a zip")
    if path.suffix.lower() == ".ipynb":
        return [reader.guarded(reader.from_entry, path, display_name(path.name))], []
    if path.suffix.lower() == ".zip":
        return reader.from_batch_zip(path, uploads)
    raise UsageError(f"{path}: not a notebook (.ipynb), a folder or a zip")


class _Reader:
    def __init__(self, assignment: Assignment, course: Course):
        self.assignment = assignment
        self.course = course
        self.uploads = course.grading.uploads

    def guarded(self, read: Callable[[Any, str], Submission], source: Any, name: str) -> Submission:
        """``read(source, name)``, or an ``invalid`` row when reading it fails in a way nobody
        foresaw (a parser's recursion limit, a library's bug): one file never stops the batch."""
        try:
            return read(source, name)
        except Exception as e:  # noqa: BLE001 - this one entry is unreadable; the batch goes on
            return self.invalid(name, f"cannot be read as a notebook ({type(e).__name__})")

    def invalid(self, name: str, problem: str, data: bytes = b"") -> Submission:
        return Submission(name, safe_key(name), hashlib.sha256(data).hexdigest(), problem=problem)

    def from_entry(self, path: Path, name: str) -> Submission:
        try:
            st = path.lstat()
        except OSError:
            return self.invalid(name, "cannot be read")
        if stat.S_ISLNK(st.st_mode):
            return self.invalid(name, "is a symbolic link, not a file; submit the notebook itself")
        if stat.S_ISDIR(st.st_mode):
            return self.invalid(name, "is a folder, not a notebook or zip file")
        if not stat.S_ISREG(st.st_mode):
            return self.invalid(name, "is not a regular file")
        if st.st_size > self.uploads.max_file_mb * 2**20:
            return self.invalid(name, f"is larger than {self.uploads.max_file_mb} MiB")
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
            with os.fdopen(fd, "rb") as f:
                data = f.read(self.uploads.max_file_mb * 2**20 + 1)
        except OSError:
            return self.invalid(name, "cannot be read")
        return self.from_bytes(name, data)

    def from_bytes(self, name: str, data: bytes) -> Submission:
        if name.lower().endswith(".zip"):
            return self.from_student_zip(name, data)
        return self.from_notebook_bytes(name, data)

    def from_notebook_bytes(self, name: str, data: bytes, notes: tuple[str, ...] = ()) -> Submission:
        digest = hashlib.sha256(data).hexdigest()
        if not data.strip():
            return self.invalid(name, "is empty", data)
        if data.startswith(b"%PDF"):
            return self.invalid(name, "is a PDF, not a notebook; submit the .ipynb file", data)
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            return self.invalid(name, "is not a notebook (the file is not UTF-8 text)", data)
        try:
            nb = parse_notebook(text, name)
        except NotebookError as e:
            problem = str(e).split(": ", 1)[-1]
            if problem == "not valid notebook JSON":
                problem = "is not valid notebook JSON (cut off while saving? save it again)"
            elif problem.startswith("not "):
                problem = f"is {problem}"
            if not text.lstrip().startswith(("{", "[")):
                problem = "is not a notebook (not JSON; a .py or text file renamed?)"
            return self.invalid(name, problem, data)
        problem = self.wrong_assignment(nb)
        if problem:
            return self.invalid(name, problem, data)
        cells = tuple(code_cells(nb))
        return Submission(name, safe_key(name), digest, cells=cells, notes=notes)

    def wrong_assignment(self, nb: dict) -> str | None:
        meta = nb.get("metadata", {})
        otter = meta.get("otter", {}) if isinstance(meta, dict) else {}
        claimed = otter.get("assignment_name") if isinstance(otter, dict) else None
        ids = {a.id for a in self.course.assignments}
        if isinstance(claimed, str) and claimed in ids and claimed != self.assignment.id:
            return f"is a notebook for {claimed}, not {self.assignment.id}"
        defined: set[str] = set()
        for source in code_cells(nb):
            defined |= defined_names(source)
        mine = set(self.assignment.function_question())
        if defined & mine:
            return None
        for other in self.course.assignments:
            if other.id != self.assignment.id and defined & set(other.function_question()):
                return f"looks like a notebook for {other.id}, not {self.assignment.id}"
        shown = ", ".join(sorted(mine)[:4])
        return f"defines none of this assignment's functions ({shown}, ...)"

    def _open_zip(self, data: bytes, max_members: int) -> zipfile.ZipFile | str:
        try:
            zf = zipfile.ZipFile(io.BytesIO(data))
        except (zipfile.BadZipFile, OSError, ValueError):
            return "is not a valid zip file"
        infos = zf.infolist()
        if len(infos) > max_members:
            return f"holds {len(infos)} files; at most {max_members} are accepted"
        for info in infos:
            if info.file_size > self.uploads.max_unzipped_mb * 2**20:
                return f"holds a file larger than {self.uploads.max_unzipped_mb} MiB unpacked"
            if info.file_size > 2**16 and info.file_size > self.uploads.max_ratio * max(
                info.compress_size, 1
            ):
                return f"looks like a zip bomb (a member expands more than {self.uploads.max_ratio:g} times)"
        if sum(i.file_size for i in infos) > self.uploads.max_unzipped_mb * 2**20 * (
            1 if max_members == self.uploads.max_zip_members else BATCH_MAX_MEMBERS
        ):
            return f"expands to more than {self.uploads.max_unzipped_mb} MiB"
        return zf

    def _read_member(self, zf: zipfile.ZipFile, info: zipfile.ZipInfo) -> bytes | str:
        limit = self.uploads.max_unzipped_mb * 2**20
        try:
            with zf.open(info) as f:
                data = f.read(limit + 1)
        except (zipfile.BadZipFile, OSError, ValueError, RuntimeError, NotImplementedError, EOFError):
            return "has a member that cannot be unpacked (corrupt or encrypted)"
        if len(data) > limit:
            return f"expands to more than {self.uploads.max_unzipped_mb} MiB"
        return data

    def from_student_zip(self, name: str, data: bytes) -> Submission:
        """One student's otter export (or any zip holding one notebook)."""
        zf = self._open_zip(data, self.uploads.max_zip_members)
        if isinstance(zf, str):
            return self.invalid(name, zf, data)
        notes = []
        notebooks = []
        for info in zf.infolist():
            member = info.filename
            base = PurePosixPath(member).name
            if base == ".OTTER_LOG":
                notes.append("ignored .OTTER_LOG (never unpickled)")
            if info.is_dir() or not member.lower().endswith(".ipynb") or member.startswith("__MACOSX"):
                continue
            if _unsafe(member):
                return self.invalid(
                    name, f"holds a notebook whose path escapes the zip ({display_name(member)})", data
                )
            notebooks.append(info)
        if not notebooks:
            return self.invalid(name, "holds no notebook (.ipynb)", data)
        if len(notebooks) > 1:
            wanted = [i for i in notebooks if PurePosixPath(i.filename).name == self.assignment.notebook]
            if len(wanted) != 1:
                return self.invalid(name, "holds several notebooks; submit one", data)
            notebooks = wanted
        member = self._read_member(zf, notebooks[0])
        if isinstance(member, str):
            return self.invalid(name, member, data)
        sub = self.from_notebook_bytes(name, member, tuple(notes))
        return Submission(**{**sub.__dict__, "fingerprint": hashlib.sha256(data).hexdigest()})

    def from_batch_zip(self, path: Path, uploads: Uploads) -> tuple[list[Submission], list[str]]:
        try:
            if path.stat().st_size > uploads.max_file_mb * 2**20 * 100:
                raise UsageError(f"{path}: larger than {uploads.max_file_mb * 100} MiB")
            data = path.read_bytes()
        except OSError:
            raise UsageError(f"{path}: cannot be read") from None
        zf = self._open_zip(data, BATCH_MAX_MEMBERS)
        if isinstance(zf, str):
            raise UsageError(f"{path}: {zf.replace('is ', '', 1) if zf.startswith('is ') else zf}")
        subs, skipped = [], []
        for info in zf.infolist():
            member = info.filename
            name = display_name(member)
            if info.is_dir() or member.startswith("__MACOSX"):
                continue
            if not member.lower().endswith((".ipynb", ".zip")):
                skipped.append(name)
                continue
            if _unsafe(member):
                subs.append(
                    self.invalid(
                        name, "its path in the zip is absolute or climbs out with '..'; not extracted"
                    )
                )
                continue
            content = self._read_member(zf, info)
            if isinstance(content, str):
                subs.append(self.invalid(name, content))
                continue
            subs.append(self.guarded(self.from_bytes, name, content))
        return _unique(subs), skipped


def _unsafe(member: str) -> bool:
    p = PurePosixPath(member.replace("\\", "/"))
    return p.is_absolute() or ".." in p.parts or bool(re.match(r"^[A-Za-z]:", member))
