"""Who a submission belongs to: the download layouts of Canvas, Moodle, Blackboard, Brightspace
(D2L) and Gradescope.

An LMS's bulk download names each file (or folder) after its student; the names below are the
ones each LMS writes, read from its own source or documentation:

- **Canvas** (``lib/content_zipper.rb``, instructure/canvas-lms: ``get_filename`` and
  ``add_upload_submission``): one flat file per attachment, ``<name>[_LATE]_<user id>_<attachment
  id>_<file name>``, where ``<name>`` is the student's sortable name in lower case with every
  non-word character removed (``smithalice``) and the user id is ``anon_<id>`` when the assignment
  is graded anonymously (then the name is left out).
- **Moodle** (``mod/assign/classes/downloader.php``, moodle/moodle, ``get_student_prefix`` and
  ``load_submissionplugin_filelist``; "Download submissions in folders", the default since
  Moodle 3.1): one folder per student and submission plugin, ``<full name>_<participant
  id>_assignsubmission_<plugin>`` (before Moodle 4.1 with a trailing ``_``), holding the files as
  uploaded; the participant id is Moodle's per-assignment ``uniqueid`` (``Participant`` stands for
  the name under blind marking, a group's name and id for team submissions). Without folders the
  same prefix is joined to each file's name with ``_``.
- **Blackboard** ("Assignment File Download" in the Grade Centre; terr-steak/bb-file-cleanup and
  vangef/BBGradebookOrganiser describe it): flat files ``<assignment>_<username>_attempt_
  <YYYY-MM-DD-HH-MM-SS>_<file name>``, plus one ``<assignment>_<username>_attempt_<date>.txt`` per
  attempt (listed as skipped).
- **Brightspace** (D2L; "Download" on an assignment's submissions; cgmb/d2lmf and
  squell/bb-scripts read it): one folder per submission, ``<id>-<id> - <display name> -
  <date>``, the date as ``Sep 24, 2024 926 PM`` (older downloads ``Sep 29, 2015 4:17 PM``, some
  locales ``05 March 2026 612 PM``), holding the files as uploaded, plus an ``index.html``
  (listed as skipped). The numbers are Brightspace's ids of the submission, not of the student:
  the display name is what names the student (a roster's ``name``), the date orders one
  student's submissions.
- **Gradescope** ("Export Submissions"): one folder ``submission_<id>`` per submission, and
  ``submission_metadata.yml`` mapping each folder to its submitters (``:name:``, ``:sid:``,
  ``:email:``), read by :mod:`autograder.grading.lms.gradescope`.

A name that fits none of them (``alice.ipynb``) has no identifier: its ``student`` is empty unless
a roster (:func:`autograder.grading.lms.roster.read_roster`) names it. Nothing here reads a file:
these are names only, which :mod:`autograder.grading.collect` and :mod:`autograder.grading.lms`
read.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Literal

Layout = Literal["canvas", "moodle", "blackboard", "brightspace", "gradescope"]

#: Moodle's folder (or, joined to a file's name, its flat prefix): ``Alice Smith_111_assignsubmission_file_``.
MOODLE_FOLDER = re.compile(r"^(?P<name>.+?)_(?P<id>\d+)_assignsubmission_(?P<plugin>[a-z0-9]+)_?$")
MOODLE_FILE = re.compile(r"^(?P<name>.+?)_(?P<id>\d+)_assignsubmission_(?P<plugin>[a-z0-9]+)_(?P<file>.+)$")
#: Blackboard's ``Assignment_username_attempt_2027-01-22-10-00-00_broadcasting.ipynb`` (a username
#: holds no ``_`` here: an assignment's name may). The first ``_<user>_attempt_<time>`` is the one
#: Blackboard wrote: what follows is the file's name as the student chose it, which may imitate
#: the pattern to claim another student's identity (and a later attempt).
BLACKBOARD = re.compile(
    r"^(?P<assignment>.+?)_(?P<id>[^_]+)_attempt_(?P<when>\d{4}-\d\d-\d\d-\d\d-\d\d-\d\d)(?:_(?P<file>.+))?$"
)
#: Brightspace's folder ``397063-2557369 - Alice Smith - Sep 24, 2024 926 PM``: the whole name is
#: Brightspace's (the student's files are inside it), the date at its end fixed in form.
_MONTH = r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*"
BRIGHTSPACE_FOLDER = re.compile(
    r"^(?P<id>\d+-\d+) - (?P<name>\S.*?) - "
    rf"(?:(?P<mon>{_MONTH}) (?P<day>\d{{1,2}}), (?P<year>\d{{4}})"
    rf"|(?P<day2>\d{{1,2}}) (?P<mon2>{_MONTH}) (?P<year2>\d{{4}})) "
    r"(?P<hour>\d{1,2}):?(?P<minute>\d\d) (?P<ampm>AM|PM)$"
)
#: Gradescope's ``submission_123456789`` folder of its export.
GRADESCOPE_FOLDER = re.compile(r"^submission_(?P<id>\d+)$")
#: The zip a notebook's export cell writes (otter's ``grader.export``):
#: ``broadcasting_2026_11_28T00_54_37_066501.zip``. Its name is the student's, not an LMS's,
#: though it also fits Canvas's pattern (name, "user id" 2026, "attachment" 11).
OTTER_EXPORT_TAIL = re.compile(r"^\d\dT\d\d_\d\d_\d\d_\d{6}\.zip$")
#: Canvas's ``smithalice[_LATE]_12345_67890_broadcasting.ipynb`` or ``[LATE_]anon_x1Y2z_67890_...``.
CANVAS = re.compile(
    r"^(?:(?!LATE_)(?P<name>\w+?)_)?(?:(?P<late>LATE)_)?(?P<id>\d+|anon_[A-Za-z0-9]+)_(?P<attachment>\d+)_(?P<file>.+)$"
)
#: The submission plugin of Moodle whose folder holds uploaded files; the others (``onlinetext``,
#: ``comments``) hold no notebook and are listed as skipped.
MOODLE_FILES = "file"
SUBMISSION_SUFFIXES = (".ipynb", ".zip")


@dataclass(frozen=True)
class Owner:
    """Who an LMS's download says a submission is from."""

    layout: Layout
    student: str
    """the LMS's identifier: Canvas's user id (``anon_...`` when anonymous), Moodle's participant
    id, Blackboard's username"""
    name: str = ""
    """the name the download gives: Moodle's full name, Canvas's sortable-name slug"""
    attempt: str = ""
    """Blackboard's attempt time, ``YYYY-MM-DD-HH-MM-SS``, or Brightspace's submission time,
    ``YYYY-MM-DD-HH-MM`` (each sorts as time does)"""
    late: bool = False
    """Canvas marked the submission late"""


def is_junk(component: str) -> bool:
    """A file or folder an archiver or an operating system left, never a submission: macOS's
    ``__MACOSX`` folder and ``._*`` resource forks, and any dot-file (``.DS_Store``,
    ``.ipynb_checkpoints``)."""
    return component == "__MACOSX" or component.startswith(".")


def junk_path(member: str) -> str | None:
    """The junk component of a zip member's path, as it is listed among the skipped
    (``__MACOSX/``, once for the whole folder), or ``None``."""
    parts = PurePosixPath(member.replace("\\", "/")).parts
    for i, part in enumerate(parts):
        if part == "__MACOSX":
            return "/".join(parts[: i + 1]) + "/"
        if part.startswith(".") and part not in (".", ".."):  # ".." is an escape, refused as one
            return member
    return None


def moodle_folder(component: str) -> Owner | None:
    """The owner of a folder named as Moodle names one, or ``None``."""
    m = MOODLE_FOLDER.match(component)
    return Owner("moodle", m["id"], m["name"]) if m else None


def brightspace_folder(component: str) -> Owner | None:
    """The owner of a folder named as Brightspace names a submission's, or ``None``."""
    m = BRIGHTSPACE_FOLDER.match(component)
    if m is None:
        return None
    month = MONTHS.index((m["mon"] or m["mon2"])[:3]) + 1
    day, year = int(m["day"] or m["day2"]), m["year"] or m["year2"]
    if not (1 <= day <= 31 and 1 <= int(m["hour"]) <= 12 and int(m["minute"]) < 60):
        return None
    hour = int(m["hour"]) % 12 + (12 if m["ampm"] == "PM" else 0)
    when = f"{year}-{month:02d}-{day:02d}-{hour:02d}-{m['minute']}"
    return Owner("brightspace", m["id"], m["name"], attempt=when)


MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def gradescope_folder(component: str) -> Owner | None:
    """The owner (Gradescope's submission id) of a folder named as Gradescope's export names
    one, or ``None``; who submitted it is in the export's ``submission_metadata.yml``."""
    m = GRADESCOPE_FOLDER.match(component)
    return Owner("gradescope", m["id"]) if m else None


def submission_folder(component: str) -> Owner | None:
    """The owner of a folder an LMS's download names as one student's (Moodle's, Brightspace's,
    Gradescope's), or ``None``."""
    return moodle_folder(component) or brightspace_folder(component) or gradescope_folder(component)


def moodle_files_folder(component: str) -> bool:
    """Whether ``component`` is Moodle's folder of a student's uploaded files."""
    m = MOODLE_FOLDER.match(component)
    return m is not None and m["plugin"] == MOODLE_FILES


def files_folder(component: str) -> bool:
    """Whether ``component``, an LMS's per-student folder, holds the student's uploaded files
    (Moodle's ``onlinetext`` and ``comments`` folders hold no notebook)."""
    if moodle_folder(component) is not None:
        return moodle_files_folder(component)
    return submission_folder(component) is not None


def moodle_prefix(member: str) -> str | None:
    """The folders of a zip member's path down to an LMS's per-student folder (Moodle's
    ``Alice Smith_111_assignsubmission_file_``, Brightspace's, Gradescope's; maybe under a
    folder of the download), or ``None`` when no folder of its path is one."""
    parts = PurePosixPath(member.replace("\\", "/")).parts
    for i, part in enumerate(parts[:-1]):
        if submission_folder(part) is not None:
            return "/".join(parts[: i + 1])
    return None


def owner_of(name: str) -> Owner | None:
    """Who the download names ``name`` (a submission's name: a file, a folder, a zip member's
    path) for, or ``None`` when its layout names nobody."""
    parts = PurePosixPath(name.replace("\\", "/")).parts
    for part in parts:
        owner = submission_folder(part)
        if owner is not None:
            return owner
    base = parts[-1] if parts else name
    # Each layout's fixed part and the student's own file name share one string, so a file name
    # can imitate another layout's: a name two layouts read is nobody's (the row keeps its file
    # name and gets no LMS identity), never the one a pattern tried first would give.
    found: list[Owner] = []
    m = MOODLE_FILE.match(base)
    if m:
        found.append(Owner("moodle", m["id"], m["name"]))
    m = BLACKBOARD.match(base)
    if m:
        found.append(Owner("blackboard", m["id"], attempt=m["when"]))
    m = CANVAS.match(base)
    if m and not (
        OTTER_EXPORT_TAIL.match(m["file"]) and re.fullmatch(r"\d{4}", m["id"]) and len(m["attachment"]) == 2
    ):
        found.append(Owner("canvas", m["id"], m["name"] or "", late=bool(m["late"])))
    return found[0] if len(found) == 1 else None


#: How each LMS is named to people.
LMS_NAMES = {
    "canvas": "Canvas",
    "moodle": "Moodle",
    "blackboard": "Blackboard",
    "brightspace": "Brightspace",
    "gradescope": "Gradescope",
}


def marked_late_by(name: str) -> str:
    """The LMS (``Canvas``) whose download marks the submission ``name`` late, or ``""``. Only
    Canvas's download says it (``LATE``, from its own due dates); Moodle's, Blackboard's,
    Brightspace's and Gradescope's name no lateness (their dates are not compared with a due
    date here: a time zone or an extension would make that a guess)."""
    owner = owner_of(name)
    return LMS_NAMES[owner.layout] if owner is not None and owner.late else ""


def looks_like_a_download(names: Iterable[str]) -> bool:
    """Whether a folder holding ``names`` is an LMS download (or part of one) rather than one
    student's folder: it holds Moodle's per-student folders or files named by Canvas or
    Blackboard, each of which is a student's."""
    for name in names:
        if submission_folder(name) is not None:
            return True
        if name.lower().endswith(SUBMISSION_SUFFIXES) and owner_of(name) is not None:
            return True
    return False


def pick_notebook(paths: Sequence[str], notebook: str) -> tuple[str | None, str | None]:
    """Which of the files ``paths`` (relative, ``/``-separated) of one student's folder is the
    submission: the one named as the assignment's ``notebook``, else the only notebook, else
    the only zip. ``(path, None)``, or ``(None, why not)`` for an ``invalid`` row."""
    candidates = [p for p in paths if p.lower().endswith(SUBMISSION_SUFFIXES)]
    if not candidates:
        return None, "holds no notebook (.ipynb) or zip"
    named = [p for p in candidates if PurePosixPath(p).name == notebook]
    if len(named) == 1:
        return named[0], None
    notebooks = [p for p in candidates if p.lower().endswith(".ipynb")]
    if len(notebooks) == 1 and not named:
        return notebooks[0], None
    if not notebooks and len(candidates) == 1:
        return candidates[0], None
    shown = ", ".join(sorted(candidates)[:4]) + (", ..." if len(candidates) > 4 else "")
    why = "several with that name" if named else "none of them"
    return None, f"holds several notebooks ({shown}), {why} named {notebook}; submit one"
