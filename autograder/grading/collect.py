"""Turning SUBMISSIONS (a notebook, a folder or a zip) into one :class:`Submission` per student.

Everything here treats its input as hostile: nothing is extracted to disk, symbolic links are
never followed, sizes, member counts and compression ratios are capped before reading, a zip
member whose path is absolute or climbs out with ``..`` is never read, and nothing is unpickled
(an otter export's ``.OTTER_LOG`` is ignored). What is parsed is bounded before it is parsed:
the notebook's JSON (:func:`autograder.notebooks.parse_notebook`, outputs dropped unread) and
its code (:func:`code_problem`: sizes here, depth in the bounded reader process of
:mod:`.reading`), so that every later reader of the code (the static gates, the sandbox's
compiler) is bounded too. Reading one entry never stops the batch: a failure nobody
foresaw, of any kind, is that entry's ``error`` row (:meth:`_Reader.guarded`).
"""

from __future__ import annotations

import hashlib
import io
import os
import re
import stat
import struct
import zipfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from ..config import Assignment, Course, Uploads
from ..errors import NotebookError, UsageError, stops_the_batch
from ..notebooks import code_cells, defined_names, parse_notebook
from . import downloads, reading

if TYPE_CHECKING:
    import nbformat

BATCH_MAX_MEMBERS = 10_000

#: Bounds on a submission's code, far above honest work: the course's notebooks hold at most
#: 2.4 KiB in one code cell, 37 KiB and ~10,000 words and symbols in all (a solved notebook),
#: nested at most 15 deep. They bound what every reader of the code costs the grader: parsing
#: Python takes up to ~13 µs a word here, and an 18 MiB cell once took the grader to 11 GB and
#: two minutes; at these bounds one parse takes at most ~1 s. The depth keeps recursive readers
#: of the syntax tree within Python's own limits.
MAX_CELL_CODE_KIB = 128
MAX_CODE_KIB = 512
MAX_CODE_TOKENS = 50_000
MAX_CODE_DEPTH = 200
#: A word (name, number, keyword) or a symbol: what the parser's work grows with. Counted in
#: strings and comments too, which only makes the count higher.
_TOKEN = re.compile(r"\w+|[^\w\s]")

#: What a student does about a zip the grader cannot read whole.
EXPORT_AGAIN = "export it again with grader.export(pdf=False), or submit the .ipynb itself"
#: A notebook without a cell: on Google Colab, where the kernel cannot read the notebook, the
#: setup cell (:mod:`autograder.release.handout`) writes such a placeholder for otter, and an export
#: made there zips it.
EMPTY_NOTEBOOK = (
    "has no cells (an export made on Google Colab holds an empty placeholder, not your work: "
    "download the notebook with File > Download > Download .ipynb and submit that)"
)


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
    grader_fault: bool = False
    """``problem`` is the grader's own failure while reading it (status ``error``), not the file's"""
    student: str = ""
    """who it is from (:func:`autograder.grading.lms.roster.identify`), empty when unknown"""
    student_name: str = ""
    """that student's name, where the roster or the download gives one"""

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
            if downloads.is_junk(entry):  # __MACOSX, ._* and dot-files: an archiver's, never a student's
                skipped.append(name)
            elif entry.lower().endswith((".ipynb", ".zip")):
                subs.append(reader.guarded(name, reader.from_entry, path / entry, name))
            elif reader.student_folder(path / entry, entry):  # Moodle's, or any student's own
                subs.append(reader.guarded(name, reader.from_student_folder, path / entry, name))
            else:
                skipped.append(name)
        return _unique(subs), skipped
    if not stat.S_ISREG(st.st_mode):
        raise UsageError(f"{path}: not a notebook, a folder or a zip")
    if path.suffix.lower() == ".ipynb":
        name = display_name(path.name)
        return [reader.guarded(name, reader.from_entry, path, name)], []
    if path.suffix.lower() == ".zip":
        return reader.from_batch_zip(path, uploads)
    raise UsageError(f"{path}: not a notebook (.ipynb), a folder or a zip")


class _Reader:
    def __init__(self, assignment: Assignment, course: Course):
        self.assignment = assignment
        self.course = course
        self.uploads = course.grading.uploads

    def guarded(self, name: str, read: Callable[..., Submission], *args: Any) -> Submission:
        """``read(*args)``, the reading of the entry ``name``; or, when that fails in a way nobody
        foresaw (a library's bug, a ``SystemExit`` or ``KeyboardInterrupt`` raised inside one),
        an ``error`` row for it: one file never stops the batch. Only the instructor's own
        Ctrl-C does (:func:`autograder.errors.stops_the_batch`)."""
        try:
            return read(*args)
        except BaseException as e:
            if stops_the_batch(e):
                raise
            return Submission(
                name,
                safe_key(name),
                hashlib.sha256(b"").hexdigest(),
                problem=f"The grader failed while reading this submission ({type(e).__name__}); "
                "it is not the student's fault, and grading it again may succeed.",
                grader_fault=True,
            )

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
            # Not read at all: stripping its outputs would mean parsing what the cap keeps out.
            return self.invalid(
                name,
                f"is larger than {self.uploads.max_file_mb} MiB (grading.uploads.max_file_mb in "
                "course.yml); outputs are the usual cause: clear them (Jupyter: Edit > Clear "
                "Outputs of All Cells; Colab: Edit > Clear all outputs), save, and submit again",
            )
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
            with os.fdopen(fd, "rb") as f:
                data = f.read(self.uploads.max_file_mb * 2**20 + 1)
        except OSError:
            return self.invalid(name, "cannot be read")
        return self.from_bytes(name, data)

    def student_folder(self, path: Path, entry: str) -> bool:
        """Whether the folder ``path`` (not a link) is one student's submission: Moodle's folder
        of a student's uploaded files, or any folder holding a notebook or zip that is not
        itself a download of many students (:func:`downloads.looks_like_a_download`)."""
        try:
            if not stat.S_ISDIR(path.lstat().st_mode):
                return False
        except OSError:
            return False
        if downloads.submission_folder(entry) is not None:  # Moodle's, Brightspace's, Gradescope's
            return downloads.files_folder(entry)  # Moodle's onlinetext, comments: no notebook there
        files, folders = _walk(path)
        top = [f for f in files if "/" not in f] + folders
        holds = any(f.lower().endswith(downloads.SUBMISSION_SUFFIXES) for f in files)
        return holds and not downloads.looks_like_a_download(top)

    def from_student_folder(self, path: Path, name: str) -> Submission:
        """One student's folder (Moodle's ``Alice Smith_111_assignsubmission_file_/``): one row
        named by the folder, graded on its notebook (:func:`downloads.pick_notebook`)."""
        files, _ = _walk(path)
        chosen, problem = downloads.pick_notebook(files, self.assignment.notebook)
        if chosen is None:
            return self.invalid(name, problem or "holds no notebook (.ipynb) or zip")
        sub = self.from_entry(path / chosen, f"{name}/{chosen}")
        notes = (*sub.notes, f"graded {display_name(chosen)} of the folder")
        return replace(sub, name=name, key=safe_key(name), notes=notes)

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
            nb = parse_notebook(text, name, outputs=False)  # outputs are never graded
        except NotebookError as e:
            problem = str(e).split(": ", 1)[-1]
            if problem == "not valid notebook JSON":
                problem = "is not valid notebook JSON (cut off while saving? save it again)"
            elif problem.startswith("not "):
                problem = f"is {problem}"
            if not text.lstrip().startswith(("{", "[")):
                problem = "is not a notebook (not JSON; a .py or text file renamed?)"
            return self.invalid(name, problem, data)
        if not nb.cells:
            return self.invalid(name, EMPTY_NOTEBOOK, data)
        cells = tuple(code_cells(nb))
        too_much, checked = checked_code(cells)
        refused = too_much or self.wrong_assignment(nb)
        if refused:
            return self.invalid(name, refused, data)
        if not checked:
            notes = (*notes, unchecked_note())
        return Submission(name, safe_key(name), digest, cells=cells, notes=notes)

    def wrong_assignment(self, nb: nbformat.NotebookNode) -> str | None:
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
            return _broken_zip(data)
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
            return "cannot be unpacked (the zip is damaged or encrypted)"
        if len(data) > limit:
            return f"expands to more than {self.uploads.max_unzipped_mb} MiB"
        return data

    def from_student_zip(self, name: str, data: bytes) -> Submission:
        """One student's otter export (or any zip holding one notebook)."""
        zf = self._open_zip(data, self.uploads.max_zip_members)
        if isinstance(zf, str):
            broken = zf.startswith(("is an incomplete", "is a damaged"))
            return self.invalid(name, f"{zf}; {EXPORT_AGAIN}" if broken else zf, data)
        notes = []
        notebooks = []
        for info in zf.infolist():
            member = info.filename
            base = PurePosixPath(member).name
            if base == ".OTTER_LOG":
                notes.append("ignored .OTTER_LOG (never unpickled)")
            junk = downloads.junk_path(member) is not None  # __MACOSX, ._*: never the student's
            if info.is_dir() or not member.lower().endswith(".ipynb") or junk:
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
        content = self._read_member(zf, notebooks[0])
        if isinstance(content, str):
            if content.startswith("cannot"):
                content = f"holds a notebook that {content}; {EXPORT_AGAIN}"
            return self.invalid(name, content, data)
        sub = self.from_notebook_bytes(name, content, tuple(notes))
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
        moodle: dict[str, list[zipfile.ZipInfo]] = {}  # an LMS's per-student folders, one row each
        for info in zf.infolist():
            member = info.filename
            name = display_name(member)
            junk = downloads.junk_path(member)
            if junk is not None:  # __MACOSX, ._* and dot-files: an archiver's, never a student's
                if display_name(junk) not in skipped:
                    skipped.append(display_name(junk))
                continue
            if info.is_dir():
                continue
            folder = downloads.moodle_prefix(member)
            if folder is not None and not _unsafe(member):
                if downloads.files_folder(PurePosixPath(folder).name):
                    moodle.setdefault(folder, []).append(info)
                else:
                    skipped.append(name)
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
            subs.append(self.guarded(name, self.from_bytes, name, content))
        for folder, infos in moodle.items():
            name = display_name(folder)
            subs.append(self.guarded(name, self.from_zipped_folder, zf, folder, infos, name))
        return _unique(subs), skipped

    def from_zipped_folder(
        self, zf: zipfile.ZipFile, folder: str, infos: list[zipfile.ZipInfo], name: str
    ) -> Submission:
        """Moodle's per-student folder inside a batch zip: as :meth:`from_student_folder`."""
        by_path = {info.filename[len(folder) + 1 :]: info for info in infos}
        chosen, problem = downloads.pick_notebook(list(by_path), self.assignment.notebook)
        if chosen is None:
            return self.invalid(name, problem or "holds no notebook (.ipynb) or zip")
        content = self._read_member(zf, by_path[chosen])
        if isinstance(content, str):
            return self.invalid(name, content)
        sub = self.from_bytes(chosen, content)
        notes = (*sub.notes, f"graded {display_name(chosen)} of the folder")
        return replace(sub, name=name, key=safe_key(name), notes=notes)


def checked_code(cells: Sequence[str]) -> tuple[str | None, bool]:
    """``(problem, checked)``: why the code cells ``cells`` are more than the grader reads
    (:data:`MAX_CELL_CODE_KIB`, :data:`MAX_CODE_KIB`, :data:`MAX_CODE_TOKENS`,
    :data:`MAX_CODE_DEPTH`) or ``None``, and whether all of it was checked. Sizes are checked here
    before anything is parsed; the depth in the bounded reader process
    (:func:`.reading.first_too_deep`), where a reading over its limits is cannot tell:
    ``(None, False)``, graded with :func:`unchecked_note`, never ``invalid``. A cell that does not
    parse is the sandbox's to report, as Python's own error in that cell."""
    total = tokens = 0
    for i, source in enumerate(cells, 1):
        size = len(source.encode("utf-8", "surrogatepass"))
        if size > MAX_CELL_CODE_KIB * 1024:
            kib = f"{size // 1024} KiB of code; the grader reads at most {MAX_CELL_CODE_KIB} KiB"
            return f"code cell {i} holds {kib} per code cell", True
        total += size
        if total > MAX_CODE_KIB * 1024:
            why = f"its code cells hold more than {MAX_CODE_KIB} KiB of code in all"
            return f"{why}, more than the grader reads", True
        tokens += len(_TOKEN.findall(source))
        if tokens > MAX_CODE_TOKENS:
            why = f"more than {MAX_CODE_TOKENS} words and symbols"
            return f"its code is longer than the grader reads ({why})", True
    deep = reading.first_too_deep(cells, MAX_CODE_DEPTH)
    if deep is None:
        return None, False  # cannot tell within the reader's limits: never the student's `invalid`
    if deep:
        return (
            f"code cell {deep} nests too deeply for the grader to read (more than {MAX_CODE_DEPTH} levels)",
            True,
        )
    return None, True


def code_problem(cells: Sequence[str]) -> str | None:
    """Why the code cells ``cells`` are more than the grader reads, or ``None`` (also when that
    cannot be told within the reader's limits): :func:`checked_code`."""
    return checked_code(cells)[0]


def unchecked_note() -> str:
    """The note of a submission whose code :func:`code_problem` could not read within the
    reader's limits: it is graded, and the gates' own bounded reading holds what it cannot read."""
    return (
        f"the grader could not finish checking how deeply this notebook's code nests within its "
        f"limits ({reading.READ_SECONDS:g} s of CPU time, {reading.READ_MEMORY_MB} MiB); it was "
        "graded all the same, and a rule it cannot check is held for review"
    )


def _broken_zip(data: bytes) -> str:
    """Why ``data`` cannot be opened as a zip: one that starts like a zip but has no whole end
    record was cut short (otter's ``grader.export()`` leaves one when making its PDF fails, and
    so does a download that stopped)."""
    if len(data) < 30 or not data.startswith(b"PK\x03\x04"):
        return "is not a valid zip file"
    version, _, method, *_, name_length, _ = struct.unpack("<HHHHHIIIHH", data[4:30])
    if version > 63 or method not in (0, 8, 9, 12, 14) or not 0 < name_length <= 4096:
        return "is not a valid zip file"  # no plausible first entry: not a zip cut short
    tail = data[-(22 + 0xFFFF) :]
    end = tail.rfind(b"PK\x05\x06")
    if end >= 0 and len(tail) - end >= 22:
        return "is a damaged zip file (its table of contents cannot be read)"
    return (
        "is an incomplete zip (it ends before the zip's table of contents: an export that stopped half way?)"
    )


#: How deep and how wide one student's folder is read: far above an upload (Moodle keeps the
#: folders a student uploaded), far below what would cost the grader time.
FOLDER_MAX_DEPTH = 6
FOLDER_MAX_ENTRIES = 2_000


def _walk(folder: Path) -> tuple[list[str], list[str]]:
    """``(files, folders)`` of ``folder``: the relative ``/``-separated paths of its regular
    files at any depth (to :data:`FOLDER_MAX_DEPTH`; links are never followed, junk is left out:
    :func:`downloads.is_junk`), and the names of its own subfolders."""
    files: list[str] = []
    folders: list[str] = []
    stack: list[tuple[Path, str, int]] = [(folder, "", 0)]
    seen = 0
    while stack:
        here, prefix, depth = stack.pop()
        try:
            entries = sorted(os.listdir(here))
        except OSError:
            continue
        for entry in entries:
            seen += 1
            if seen > FOLDER_MAX_ENTRIES:
                return sorted(files), folders
            if downloads.is_junk(entry):
                continue
            try:
                mode = (here / entry).lstat().st_mode
            except OSError:
                continue
            if stat.S_ISDIR(mode):
                if depth == 0:
                    folders.append(entry)
                if depth + 1 < FOLDER_MAX_DEPTH:
                    stack.append((here / entry, f"{prefix}{entry}/", depth + 1))
            elif stat.S_ISREG(mode):
                files.append(prefix + entry)
    return sorted(files), folders


def _unsafe(member: str) -> bool:
    p = PurePosixPath(member.replace("\\", "/"))
    return p.is_absolute() or ".." in p.parts or bool(re.match(r"^[A-Za-z]:", member))
