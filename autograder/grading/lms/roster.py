"""The instructor's roster (``grade --roster CSV``): which student each submission is from, and
who submitted nothing. What a download's names say is :mod:`autograder.grading.downloads`'s.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from ...errors import UsageError
from ..downloads import SUBMISSION_SUFFIXES, owner_of
from ..records import Record, atomic_write

if TYPE_CHECKING:
    from ..collect import Submission


#: Columns a roster may have, beside the required ``id`` and ``name``, each matched against what a
#: download names (a header is read in lower case, with runs of other characters than letters
#: and digits as ``_``: "SIS User ID" is ``sis_user_id``).
OPTIONAL_COLUMNS = (
    "email",  # Moodle's import key (useremail); also matched against a plain file's name
    "username",  # Blackboard's username, Moodle's import key
    "idnumber",  # Moodle's "ID number" (useridnumber)
    "participant",  # Moodle's participant id of this assignment (its download's folders)
    "canvas_id",  # Canvas's user id (its download's file names, its import's ID)
    "sis_user_id",
    "sis_login_id",
    "section",
    "orgdefinedid",  # Brightspace's import key (its class list's "OrgDefinedId")
    "first_name",  # Blackboard's and Brightspace's name columns
    "last_name",
    "sid",  # Gradescope's student id
)
#: Other spellings of those columns (the headers of Canvas's and Moodle's own exports).
ALIASES = {
    "student": "name",
    "full_name": "name",
    "email_address": "email",
    "id_number": "idnumber",
    "user_name": "username",
}
ROSTER_MAX_BYTES = 16 * 2**20


@dataclass(frozen=True)
class Student:
    """One row of the roster."""

    id: str
    name: str
    fields: Mapping[str, str]
    """every column of the row, by its normalised header"""

    def get(self, column: str) -> str:
        return self.fields.get(column, "")


@dataclass(frozen=True)
class Roster:
    """The class as the instructor lists it (``grade --roster CSV``)."""

    path: Path
    columns: tuple[str, ...]
    students: tuple[Student, ...]
    submitters: Mapping[str, tuple[Student, ...]] = field(default_factory=dict)
    """a Gradescope export's ``submission_metadata.yml``: its submission ids, each with its
    submitters (:mod:`autograder.grading.lms.gradescope`)"""
    submitters_from: Path | None = None
    """the Gradescope export ``submitters`` were read from; the roster's ``path`` where the
    export's submitters are the whole roster"""

    @property
    def listed(self) -> bool:
        """Whether the instructor gave this roster (a CSV file), not a Gradescope export."""
        return self.path != self.submitters_from

    def by_id(self) -> dict[str, Student]:
        return {s.id: s for s in self.students}

    def match(self, submission: str) -> Student | None:
        """The student ``submission`` (its name in the gradebook) is from, or ``None``: by the
        identifier its LMS's layout gives (:func:`owner_of`), else by its name without the
        suffix (``alice.ipynb``, the folder ``alice``) as an id, username, login or email."""
        owner = owner_of(submission)
        if owner is not None and owner.layout == "gradescope":
            return next(iter(self.everyone(submission)), None)
        if owner is not None and owner.layout == "brightspace":
            return self._unique(owner.name, ("name",))  # its numbers are the submission's ids
        if owner is not None:
            columns = {
                "canvas": ("canvas_id", "id"),
                "moodle": ("participant", "id"),
                "blackboard": ("username", "sis_login_id", "id"),
            }[owner.layout]
            found = self._unique(owner.student, columns)
            if found is None and owner.layout == "moodle" and owner.name:
                found = self._unique(owner.name, ("name",))
            return found
        stem = PurePosixPath(submission).name
        for suffix in SUBMISSION_SUFFIXES:
            if stem.lower().endswith(suffix):
                stem = stem[: -len(suffix)]
        return self._unique(stem, ("id", "username", "sis_login_id", "email", "email_user"))

    def everyone(self, submission: str) -> list[Student]:
        """The students ``submission`` is from: each submitter a Gradescope export names for
        it (a group submission has several), else the one :meth:`match` finds, if any."""
        owner = owner_of(submission)
        if owner is not None and owner.layout == "gradescope":
            found = [
                self._unique(p.id, ("id", "sid", "username")) or self._unique(p.get("email"), ("email",))
                for p in self.submitters.get(owner.student, ())
            ]
            return [s for s in found if s is not None]
        one = self.match(submission)
        return [one] if one is not None else []

    def _unique(self, value: str, columns: Sequence[str]) -> Student | None:
        want = value.strip().casefold()
        if not want:
            return None
        for column in columns:
            found = [s for s in self.students if _value(s, column) == want]
            if len(found) == 1:
                return found[0]
        return None


def _value(student: Student, column: str) -> str:
    if column == "email_user":
        return student.get("email").partition("@")[0].strip().casefold()
    return (student.id if column == "id" else student.get(column)).strip().casefold()


def _header(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.strip().lower()).strip("_")


def read_roster(path: Path) -> Roster:
    """The roster in the CSV file ``path``: a header naming ``id`` and ``name`` (Canvas's
    gradebook export works as it is: its ``Student`` is the name, its ``ID`` both the id and the
    Canvas id), optional :data:`OPTIONAL_COLUMNS`, one student a row; rows without an id (Canvas's
    "Points Possible") are left out. :class:`UsageError` naming the file when it cannot be read or
    lacks a required column."""

    def bad(why: str) -> UsageError:
        return UsageError(f"--roster {path}: {why}")

    try:
        with open(path, "rb") as f:
            data = f.read(ROSTER_MAX_BYTES + 1)
    except IsADirectoryError:
        raise bad("a folder, not a CSV file") from None
    except OSError as e:
        raise bad(f"cannot be read ({e.strerror or e})") from None
    if len(data) > ROSTER_MAX_BYTES:
        raise bad(f"larger than {ROSTER_MAX_BYTES // 2**20} MiB; a roster is one line per student")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise bad("not UTF-8 text (save it as CSV UTF-8)") from None
    try:
        table = list(csv.reader(io.StringIO(text)))
    except csv.Error as e:
        raise bad(f"not a readable CSV file ({e})") from None
    table = [row for row in table if any(cell.strip() for cell in row)]
    if not table:
        raise bad("empty; it needs a header with the columns id and name")
    header = [_header(h) for h in table[0]]
    canvas_export = "name" not in header and "student" in header and "canvas_id" not in header
    for i, h in enumerate(header):
        if h in ALIASES and ALIASES[h] not in header:
            header[i] = ALIASES[h]
    # Brightspace's class list (OrgDefinedId, Username, Last Name, First Name, Email) and
    # Blackboard's (Last Name, First Name, Username, Student ID) work as they are.
    derived: dict[str, str] = {}
    if "id" not in header:
        derived["id"] = next((c for c in ("orgdefinedid", "username", "student_id") if c in header), "")
    if "name" not in header and {"first_name", "last_name"} <= set(header):
        derived["name"] = "first_name last_name"
    derived = {k: v for k, v in derived.items() if v}
    header += list(derived)
    missing = [c for c in ("id", "name") if c not in header]
    if missing:
        shown = ", ".join(h for h in table[0] if h.strip())[:80] or "nothing"
        raise bad(f"has no {' or '.join(missing)} column (its header reads: {shown})")
    if canvas_export:
        header.append("canvas_id")
    students: list[Student] = []
    seen: set[str] = set()
    for row in table[1:]:
        cells = [c.strip() for c in row] + [""] * (len(header) - len(row))
        if canvas_export:
            cells[len(header) - 1] = cells[header.index("id")]
        fields = dict(zip(header, cells))
        for column, source in derived.items():
            fields[column] = " ".join(fields[c] for c in source.split() if fields[c])
        sid = fields["id"]
        if not sid:
            continue
        if sid in seen:
            raise bad(f"lists the id {sid} twice")
        seen.add(sid)
        students.append(Student(sid, fields["name"], fields))
    if not students:
        raise bad("lists no student (no row has an id)")
    columns = tuple(dict.fromkeys(["id", "name", *(h for h in header if h)]))
    return Roster(path, columns, tuple(students))


def identify(subs: Sequence[Submission], roster: Roster | None) -> tuple[list[Submission], list[str]]:
    """``subs``, each with its ``student``: the roster's id of the student it is from where a
    roster is given and names one, else the identifier its LMS's layout gives, else empty; and
    the names of the submissions the roster names nobody for."""
    out, strangers = [], []
    for s in subs:
        owner = owner_of(s.name)
        # Gradescope's folder names a submission, not a student: its metadata names who.
        student = owner.student if owner and owner.layout != "gradescope" else ""
        name = owner.name if owner and owner.layout in ("moodle", "brightspace") else ""
        if roster is not None:
            found = roster.match(s.name)
            if found is None:
                strangers.append(s.name)
            else:
                student, name = found.id, found.name
        out.append(replace(s, student=student, student_name=name))
    return out, strangers


def with_student(out: Path, record: Record, student: str, name: str = "") -> Record:
    """``record`` of a previous run, kept, with ``student`` and that student's ``name`` (a roster
    given now names them): its ``results/<key>.json`` is rewritten where that changes it."""
    if (record.student, record.student_name) == (student, name):
        return record
    record = replace(record, student=student, student_name=name)
    atomic_write(
        out / "results" / f"{record.key}.json",
        json.dumps(record.to_results(), indent=1, sort_keys=True) + "\n",
    )
    return record


def missing(records: Iterable[Record], roster: Roster) -> list[Student]:
    """The students of ``roster`` no row of ``records`` is from: who submitted nothing."""
    submitted = {r.student for r in records}
    return [s for s in roster.students if s.id not in submitted]
