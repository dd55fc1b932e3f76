"""The grades in the file each LMS imports (``grade --lms
canvas|moodle|blackboard|brightspace|gradescope``), and who submitted nothing (``grade --roster``:
``OUT/missing.csv``).

The columns are each LMS's documented ones:

- **Canvas** ``OUT/canvas-import.csv``: its gradebook's own export format, which its import reads
  back ("Student, ID, SIS User ID, SIS Login ID, Section", then one column per assignment named
  ``<name> (<assignment id>)``, and a second row ``Points Possible``; see Canvas's guide "How do I
  import grades in the Gradebook?" and the nemogb vignette "Detailed Canvas Export Info"). Canvas
  finds the student by ID (its user id), SIS User ID or SIS Login ID, and the assignment by the id
  in the column's name: give ``--lms-column "Broadcasting (4567)"`` to fill an existing one.
- **Moodle** ``OUT/moodle-import.csv``: for the gradebook's "Import > CSV file" (MoodleDocs
  "Grade import"), which identifies a user by one column mapped to ``useremail``,
  ``useridnumber`` or ``username`` ("Map from"/"Map to"), and maps the grade column to a grade
  item; its own export names an assignment's column ``Assignment: <name> (Real)``.
- **Blackboard** ``OUT/blackboard-import.csv``: for the Grade Center's "Work Offline > Upload"
  (Blackboard's "Upload grades from external sources"), the columns of its own download
  (``Last Name, First Name, Username, Student ID``) and one grade column named
  ``<name> [Total Pts: <points> Score]``; Blackboard matches rows by ``Username`` (the name
  columns it ignores) and makes a new text column, 0 points possible, of one without
  ``|<column id>`` at its end: give ``--lms-column "Broadcasting [Total Pts: 40 Score]
  |123456"`` (the header of its own download) to fill an existing one.
- **Brightspace** ``OUT/brightspace-import.csv``: for Grades > Import (D2L's "Importing grades"
  and its ``Grades_Sample_Import_File.csv``): ``OrgDefinedId``, ``Username`` (either
  identifies the user), one ``<item> Points Grade`` column and ``End-of-Line Indicator``
  (``#`` on every row), nothing else (its importer refuses other user fields).
- **Gradescope** ``OUT/gradescope-import.csv``: Gradescope imports no scores into an
  assignment; it is the form of its own "Download Grades" export (``First Name, Last Name,
  SID, Email, Total Score, Max Points, Status, Submission ID``), the file that reads
  Gradescope's grades elsewhere; each submitter of a group submission has a row.

One row per student: where several rows are one student's (Blackboard's attempts), the latest
attempt, else the highest total. A row whose student the file cannot name (no identifier that
LMS reads: give a roster with the columns it needs) is left out and counted in a warning.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ...errors import UsageError
from ..downloads import owner_of
from ..records import Record, atomic_write, csv_text, format_points
from .roster import Roster, Student, missing

if TYPE_CHECKING:
    from ...config import Assignment

SYSTEMS = ("canvas", "moodle", "blackboard", "brightspace", "gradescope")
CANVAS_COLUMNS = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")
MOODLE_COLUMNS = ("Full name", "Email address", "ID number", "Username")
BLACKBOARD_COLUMNS = ("Last Name", "First Name", "Username", "Student ID")
BRIGHTSPACE_COLUMNS = ("OrgDefinedId", "Username")
BRIGHTSPACE_END = "End-of-Line Indicator"
GRADESCOPE_COLUMNS = (
    "First Name",
    "Last Name",
    "SID",
    "Email",
    "Total Score",
    "Max Points",
    "Status",
    "Submission ID",
)
#: What each import file needs of a row's student, for the warning about the rows it leaves out.
NEEDS = {
    "canvas": "ID (canvas_id), SIS User ID or SIS Login ID",
    "moodle": "email, idnumber or username",
    "blackboard": "username",
    "brightspace": "orgdefinedid or username",
    "gradescope": "sid or email",
}
#: How Canvas's export writes its second row (its importer skips it).
CANVAS_POINTS_POSSIBLE = "    Points Possible"
MISSING_SHOWN = 10


def check_systems(systems: Sequence[str]) -> None:
    """:class:`UsageError` for an LMS this module writes no import file for."""
    for system in systems:
        if system not in SYSTEMS:
            raise UsageError(f"--lms {system}: not one of {', '.join(SYSTEMS)}")


def one_per_student(records: Sequence[Record]) -> tuple[list[Record], int]:
    """The row that stands for each student (the latest Blackboard attempt, else the highest
    total, else the first), in the order of ``records``; and how many rows name no student."""
    best: dict[str, Record] = {}
    anonymous = 0

    def rank(r: Record) -> tuple[str, float]:
        owner = owner_of(r.submission)
        return (owner.attempt if owner else "", r.total)

    for r in records:
        if not r.student:
            anonymous += 1
        elif r.student not in best or rank(r) > rank(best[r.student]):
            best[r.student] = r
    return list(best.values()), anonymous


def claimed_twice(records: Sequence[Record]) -> dict[str, list[str]]:
    """Students named by several rows that are not one student's attempts in a download that
    has attempts (Blackboard's, dated by Blackboard): ``{student: [submissions]}``. Every row
    stays in the gradebook; the instructor is told, never left to a silent choice."""
    rows: dict[str, list[Record]] = {}
    for r in records:
        if r.student:
            rows.setdefault(r.student, []).append(r)
    twice = {}
    for student, mine in rows.items():
        owners = [owner_of(r.submission) for r in mine]
        attempts = all(o is not None and o.attempt for o in owners)
        if len(mine) > 1 and not attempts:
            twice[student] = [r.submission for r in mine]
    return twice


def _canvas_row(r: Record, who: Student | None) -> list[str] | None:
    owner = owner_of(r.submission)
    canvas_id = who.get("canvas_id") if who else ""
    if not canvas_id and owner is not None and owner.layout == "canvas" and owner.student.isdigit():
        canvas_id = owner.student
    sis_user, sis_login = (who.get("sis_user_id"), who.get("sis_login_id")) if who else ("", "")
    if not (canvas_id or sis_user or sis_login):
        return None
    name = who.name if who else (owner.name if owner else "")
    section = who.get("section") if who else ""
    return [csv_text(name), canvas_id, sis_user, sis_login, csv_text(section), format_points(r.total)]


def _moodle_row(r: Record, who: Student | None) -> list[str] | None:
    if who is None or not (who.get("email") or who.get("idnumber") or who.get("username")):
        return None
    return [
        csv_text(who.name),
        who.get("email"),
        csv_text(who.get("idnumber")),
        csv_text(who.get("username")),
        format_points(r.total),
    ]


def _first_last(who: Student | None, fallback: str = "") -> tuple[str, str]:
    """The roster's first and last name, else its ``name`` split at its last space."""
    if who is not None and (who.get("first_name") or who.get("last_name")):
        return who.get("first_name"), who.get("last_name")
    first, _, last = (who.name if who else fallback).rpartition(" ")
    return (first, last) if first else (last, "")


def _blackboard_row(r: Record, who: Student | None) -> list[str] | None:
    owner = owner_of(r.submission)
    username = who.get("username") if who else ""
    if not username and owner is not None and owner.layout == "blackboard":
        username = owner.student
    if not username:
        return None
    first, last = _first_last(who)
    student_id = who.get("student_id") if who else ""
    return [csv_text(last), csv_text(first), csv_text(username), csv_text(student_id), format_points(r.total)]


def _brightspace_row(r: Record, who: Student | None) -> list[str] | None:
    if who is None or not (who.get("orgdefinedid") or who.get("username")):
        return None
    return [csv_text(who.get("orgdefinedid")), csv_text(who.get("username")), format_points(r.total), "#"]


def _gradescope_row(r: Record, who: Student | None) -> list[str] | None:
    if who is None or not (who.get("sid") or who.get("email")):
        return None
    owner = owner_of(r.submission)
    first, last = _first_last(who)
    submission = owner.student if owner is not None and owner.layout == "gradescope" else ""
    return [
        csv_text(first),
        csv_text(last),
        csv_text(who.get("sid")),
        csv_text(who.get("email")),
        format_points(r.total),
        format_points(r.possible),
        "Graded",
        submission,
    ]


def write_import(
    out: Path,
    system: str,
    records: Sequence[Record],
    assignment: Assignment,
    roster: Roster | None,
    column: str | None = None,
) -> tuple[Path, int, int]:
    """Write ``OUT/<system>-import.csv``; ``(its path, students written, rows left out)``."""
    chosen, left_out = one_per_student(records)
    people = roster.by_id() if roster else {}
    make: Callable[[Record, Student | None], list[str] | None]
    possible = format_points(records[0].possible if records else 0)
    lines: list[list[str]] = []
    if system == "canvas":
        header = [*CANVAS_COLUMNS, column or assignment.title]
        make = _canvas_row
        lines.append([CANVAS_POINTS_POSSIBLE, "", "", "", "", possible])
    elif system == "moodle":
        header = [*MOODLE_COLUMNS, column or f"Assignment: {assignment.title} (Real)"]
        make = _moodle_row
    elif system == "blackboard":
        header = [*BLACKBOARD_COLUMNS, column or f"{assignment.title} [Total Pts: {possible} Score]"]
        make = _blackboard_row
    elif system == "brightspace":
        header = [*BRIGHTSPACE_COLUMNS, column or f"{assignment.title} Points Grade", BRIGHTSPACE_END]
        make = _brightspace_row
    else:
        header = list(GRADESCOPE_COLUMNS)
        make = _gradescope_row
    written = 0
    for r in chosen:
        # A Gradescope group submission is each of its submitters'.
        whos: list[Student | None] = list(roster.everyone(r.submission)) if roster is not None else []
        if not whos or people.get(r.student) not in whos:
            whos = [people.get(r.student)]
        rows = [row for row in (make(r, who) for who in whos) if row is not None]
        if not rows:
            left_out += 1
        lines += rows
        written += len(rows)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    w.writerows(lines)
    path = out / f"{system}-import.csv"
    atomic_write(path, buf.getvalue())
    return path, written, left_out


def write_missing(out: Path, records: Sequence[Record], roster: Roster) -> list[Student]:
    """``OUT/missing.csv``: the roster's students no row is from, with the roster's columns."""
    absent = missing(records, roster)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(roster.columns)
    for s in absent:
        w.writerow([csv_text(s.get(c)) for c in roster.columns])
    atomic_write(out / "missing.csv", buf.getvalue())
    return absent


def finish(
    out: Path,
    records: Sequence[Record],
    assignment: Assignment,
    roster: Roster | None,
    systems: Sequence[str],
    column: str | None,
    warn: Callable[[str], None],
) -> list[str]:
    """Write ``missing.csv`` (with a roster) and each LMS's import file; the summary's lines
    about them. A row an import file leaves out is a warning."""
    lines = []
    _remember(out, roster, systems, column)
    if roster is not None and roster.listed:
        absent = write_missing(out, records, roster)
        total = len(roster.students)
        if absent:
            shown = ", ".join(f"{s.name} ({s.id})" if s.name else s.id for s in absent[:MISSING_SHOWN])
            more = f" and {len(absent) - MISSING_SHOWN} more" if len(absent) > MISSING_SHOWN else ""
            lines.append(
                f"roster: {total - len(absent)} of {total} students submitted; {len(absent)} submitted "
                f"nothing: {shown}{more} ({out / 'missing.csv'})"
            )
        else:
            lines.append(f"roster: all {total} students submitted")
    for system in dict.fromkeys(systems):
        path, written, left_out = write_import(out, system, records, assignment, roster, column)
        lines.append(f"{system} import: {path} ({written} students)")
        if left_out:
            needs = NEEDS[system]
            warn(
                f"{path.name}: {left_out} rows left out, their student has no {needs}; give --roster "
                "with those columns"
            )
    if systems:
        for student, names in sorted(claimed_twice(records).items()):
            chosen = next(r.submission for r in one_per_student(records)[0] if r.student == student)
            warn(
                f"{len(names)} submissions name the student {student} ({', '.join(names[:4])}): all are "
                f"in the gradebook; the import files give the grade of {chosen}. Check which is theirs."
            )
    pending = sum(len(r.pending) for r in records)
    if pending and systems:
        warn(
            f"{pending} question{'s are' if pending != 1 else ' is'} held for your review and score 0 in the "
            f"import files until you decide: `autograder review {out}` lists them"
        )
    return lines


def _remember(out: Path, roster: Roster | None, systems: Sequence[str], column: str | None) -> None:
    """What made the import files (the roster's path, the LMSs, the column), for
    :func:`rewrite_imports` after an instructor's review."""
    import json

    data = {
        "roster": str(roster.path) if roster is not None and roster.listed else None,
        "gradescope": str(roster.submitters_from) if roster is not None and roster.submitters_from else None,
        "lms": list(systems),
        "column": column,
    }
    atomic_write(out / ".cache" / "exports.json", json.dumps(data) + "\n")


def rewrite_imports(
    out: Path, records: Sequence[Record], assignment: Assignment, warn: Callable[[str], None]
) -> list[str]:
    """Write the import files again as the last ``grade`` into ``out`` asked for them."""
    import json

    from .gradescope import with_submitters
    from .roster import read_roster

    try:
        data = json.loads((out / ".cache" / "exports.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    roster = read_roster(Path(data["roster"])) if data.get("roster") else None
    if data.get("gradescope"):
        roster = with_submitters(roster, Path(data["gradescope"]))
    return finish(out, records, assignment, roster, list(data.get("lms") or []), data.get("column"), warn)
