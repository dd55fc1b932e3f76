"""An instructor's week: the LMS's download in (Canvas, Moodle, Blackboard, Brightspace,
Gradescope; zipped or not), the LMS's import file out, the roster in between.

Grading runs here grade notebooks that are not JSON: each is an `invalid` row, with no sandbox
and no reference run, so one run per layout costs seconds. What the layouts decide (which rows,
their names, their students) is the same for any notebook; `collect` alone checks the rest.
"""

from __future__ import annotations

import contextlib
import csv
import html
import io
import json
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import nbformat
import pytest

from autograder.config import ROOT, load_course
from autograder.grading.collect import collect
from autograder.grading.downloads import owner_of
from autograder.grading.lms.export import (
    BLACKBOARD_COLUMNS,
    BRIGHTSPACE_COLUMNS,
    BRIGHTSPACE_END,
    CANVAS_COLUMNS,
    GRADESCOPE_COLUMNS,
    MOODLE_COLUMNS,
    SYSTEMS,
    one_per_student,
)
from autograder.grading.lms.gradescope import with_submitters
from autograder.grading.lms.roster import identify, read_roster
from autograder.grading.options import GradeOptions
from autograder.grading.records import Record

A = "01-broadcasting"
COURSE = load_course(check_files=False)
ASSIGNMENT = COURSE.assignment(A)
NOTEBOOK = ASSIGNMENT.notebook  # broadcasting.ipynb
SEED = 20261123
BROKEN = "{ not json"  # an `invalid` row, graded without a sandbox


def good_notebook() -> str:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("def outer(x, y):\n    return x[:, None] * y[None, :]")]
    return nbformat.writes(nb)


def write_tree(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def zip_of(folder: Path, zip_path: Path) -> Path:
    with zipfile.ZipFile(zip_path, "w") as zf:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                zf.write(path, path.relative_to(folder).as_posix())
    return zip_path


def csv_rows(path: Path) -> list[list[str]]:
    with open(path, newline="") as f:
        return list(csv.reader(f))


def gradebook(out: Path) -> dict[str, dict[str, str]]:
    with open(out / "gradebook.csv", newline="") as f:
        return {r["submission"]: r for r in csv.DictReader(f)}


# Each layout as its LMS downloads it, with what macOS's unzip and Finder add.
LAYOUTS: dict[str, dict[str, str]] = {
    "moodle": {
        f"Alice Smith_111_assignsubmission_file_/{NOTEBOOK}": BROKEN,
        "Alice Smith_111_assignsubmission_file_/notes.txt": "my notes",
        f"Bob Jones_222_assignsubmission_file_/{NOTEBOOK}": BROKEN,
        "Bob Jones_222_assignsubmission_file_/scratch.ipynb": BROKEN,
        "Carol Li_333_assignsubmission_file_/a.ipynb": BROKEN,
        "Carol Li_333_assignsubmission_file_/b.ipynb": BROKEN,
        "Carol Li_333_assignsubmission_onlinetext_/onlinetext.html": "<p>see my notebook</p>",
        f"__MACOSX/Alice Smith_111_assignsubmission_file_/._{NOTEBOOK}": "resource fork",
        f"._{NOTEBOOK}": "resource fork",
        ".DS_Store": "finder",
    },
    "canvas": {
        f"smithalice_12345_67890_{NOTEBOOK}": BROKEN,
        f"jonesbob_LATE_23456_78901_{NOTEBOOK}": BROKEN,
        "alice.ipynb": BROKEN,  # renamed by hand: no identifier, and in no roster
        f"._smithalice_12345_67890_{NOTEBOOK}": "resource fork",
        f"__MACOSX/._jonesbob_LATE_23456_78901_{NOTEBOOK}": "resource fork",
    },
    "blackboard": {
        f"Assignment 1_asmith_attempt_2027-01-22-10-00-00_{NOTEBOOK}": BROKEN,
        "Assignment 1_asmith_attempt_2027-01-22-10-00-00.txt": "Name: Alice Smith (asmith)",
        f"Assignment 1_asmith_attempt_2027-01-23-09-30-00_{NOTEBOOK}": BROKEN,
        "Assignment 1_asmith_attempt_2027-01-23-09-30-00.txt": "Name: Alice Smith (asmith)",
        f"Assignment 1_bjones_attempt_2027-01-22-11-00-00_{NOTEBOOK}": BROKEN,
        "Assignment 1_bjones_attempt_2027-01-22-11-00-00.txt": "Name: Bob Jones (bjones)",
        "._Assignment 1_bjones_attempt_2027-01-22-11-00-00.txt": "resource fork",
    },
    "brightspace": {
        f"1001-2001 - Alice Smith - Sep 24, 2024 926 PM/{NOTEBOOK}": BROKEN,
        f"1001-2002 - Alice Smith - Sep 25, 2024 1015 AM/{NOTEBOOK}": BROKEN,  # her second submission
        "1001-2003 - Bob Jones - Sep 24, 2024 1159 PM/work.ipynb": BROKEN,
        "index.html": "<html>Brightspace's list of the submissions</html>",
        f"__MACOSX/1001-2003 - Bob Jones - Sep 24, 2024 1159 PM/._{NOTEBOOK}": "resource fork",
        "._index.html": "resource fork",
    },
    "gradescope": {
        "submission_metadata.yml": """\
submission_111:
  :submitters:
  - :name: Alice Smith
    :sid: A001
    :email: alice@uni.edu
  :created_at: 2027-01-22 10:00:00.000000000 -08:00
  :score: !ruby/object:BigDecimal 18:0.0
submission_222:
  :submitters:
  - :name: Bob Jones
    :sid: A002
    :email: bob@uni.edu
  - :name: Carol Li
    :sid: A003
    :email: carol@uni.edu
""",
        f"submission_111/{NOTEBOOK}": BROKEN,
        f"submission_222/{NOTEBOOK}": BROKEN,  # a group's submission
        f"submission_333/{NOTEBOOK}": BROKEN,  # not in the metadata: nobody's
        f"__MACOSX/submission_111/._{NOTEBOOK}": "resource fork",
        f"submission_222/._{NOTEBOOK}": "resource fork",
        "._submission_metadata.yml": "resource fork",
    },
}

ROSTERS = {
    # Moodle: the roster's own ids, matched through Moodle's participant ids of this assignment.
    "moodle": "id,name,email,participant\n"
    "s1,Alice Smith,alice@uni.edu,111\ns2,Bob Jones,bob@uni.edu,222\n"
    "s3,Carol Li,carol@uni.edu,333\ns4,Dan Brown,dan@uni.edu,444\n",
    # Canvas: its gradebook export, as it is (Student, ID, SIS columns, the Points Possible row).
    "canvas": "Student,ID,SIS User ID,SIS Login ID,Section,Old quiz (111)\n"
    "    Points Possible,,,,,10\n"
    '"Smith, Alice",12345,A001,asmith,Section 1,7\n'
    '"Jones, Bob",23456,A002,bjones,Section 2,9\n'
    '"Li, Carol",34567,A003,cli,Section 1,\n',
    # Blackboard: usernames.
    "blackboard": "id,name,username,email\n"
    "s1,Alice Smith,asmith,alice@uni.edu\ns2,Bob Jones,bjones,bob@uni.edu\ns3,Carol Li,cli,carol@uni.edu\n",
    # Brightspace: its class list export, as it is (no id or name column: OrgDefinedId, and the
    # first and last names); the download names each student by their display name.
    "brightspace": "OrgDefinedId,Username,Last Name,First Name,Email,End-of-Line Indicator\n"
    "20001,#asmith,Smith,Alice,alice@uni.edu,#\n20002,#bjones,Jones,Bob,bob@uni.edu,#\n"
    "20004,#dbrown,Brown,Dan,dan@uni.edu,#\n",
    # Gradescope: no roster; the export's submission_metadata.yml names the submitters.
}

ROWS = {  # submission -> (student, status): one row per notebook, or per Moodle folder
    "moodle": {
        "Alice Smith_111_assignsubmission_file_": ("s1", "invalid"),
        "Bob Jones_222_assignsubmission_file_": ("s2", "invalid"),
        "Carol Li_333_assignsubmission_file_": ("s3", "invalid"),
    },
    "canvas": {
        f"smithalice_12345_67890_{NOTEBOOK}": ("12345", "invalid"),
        f"jonesbob_LATE_23456_78901_{NOTEBOOK}": ("23456", "invalid"),
        "alice.ipynb": ("", "invalid"),
    },
    "blackboard": {
        f"Assignment 1_asmith_attempt_2027-01-22-10-00-00_{NOTEBOOK}": ("s1", "invalid"),
        f"Assignment 1_asmith_attempt_2027-01-23-09-30-00_{NOTEBOOK}": ("s1", "invalid"),
        f"Assignment 1_bjones_attempt_2027-01-22-11-00-00_{NOTEBOOK}": ("s2", "invalid"),
    },
    "brightspace": {
        "1001-2001 - Alice Smith - Sep 24, 2024 926 PM": ("20001", "invalid"),
        "1001-2002 - Alice Smith - Sep 25, 2024 1015 AM": ("20001", "invalid"),
        "1001-2003 - Bob Jones - Sep 24, 2024 1159 PM": ("20002", "invalid"),
    },
    "gradescope": {
        "submission_111": ("A001", "invalid"),
        "submission_222": ("A002", "invalid"),
        "submission_333": ("", "invalid"),
    },
}


@pytest.fixture(scope="module", params=sorted(LAYOUTS))
def graded(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """One layout's unzipped download graded with its roster (Gradescope's: none), exported to
    every LMS: one grading run per layout, in this process."""
    from autograder.grading import batch as grade

    layout = request.param
    tmp = tmp_path_factory.mktemp(layout)
    subs = write_tree(tmp / "download", LAYOUTS[layout])
    roster = tmp / "roster.csv" if layout in ROSTERS else None
    if roster is not None:
        roster.write_text(ROSTERS[layout])
    out = tmp / "out"
    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        code = grade.run(
            GradeOptions(
                assignment=A,
                submissions=subs,
                out=out,
                seed=SEED,
                jobs=1,
                roster=roster,
                lms=list(SYSTEMS),
            )
        )
    return {
        "layout": layout,
        "subs": subs,
        "out": out,
        "code": code,
        "stdout": stdout.getvalue(),
        "stderr": stderr.getvalue(),
    }


def test_each_layout_gives_its_rows_with_their_students(graded: dict) -> None:
    out, layout = graded["out"], graded["layout"]
    assert graded["code"] == 0, graded["stderr"]
    rows = gradebook(out)
    assert {n: (r["student"], r["status"]) for n, r in rows.items()} == ROWS[layout]
    for name, row in rows.items():
        data = json.loads((out / "results" / f"{name}.json").read_text())
        assert data["extra_data"]["student"] == row["student"]
        assert (out / "feedback" / f"{name}.html").is_file()


def test_pages_and_gradebook_name_the_student_beside_the_id(graded: dict) -> None:
    """People, not files: wherever a row has a student, the gradebook's ``name`` column, its
    feedback page and the class report give that student's name (the roster's, else the
    download's) beside the id (issue 39)."""
    out = graded["out"]
    report = (out / "report.html").read_text()
    named = 0
    for name, row in gradebook(out).items():
        if not row["student"]:
            assert row["name"] == "", (name, row["name"])
            continue
        person = row["name"]
        assert person, f"{name}: a student ({row['student']}) with no name"
        assert any(part in person for part in ("Alice", "Bob", "Carol")), person
        page = (out / "feedback" / f"{name}.html").read_text()
        assert html.escape(person) in page and row["student"] in page
        assert f"({html.escape(person)}, {row['student']})" in report
        named += 1
    assert named >= 2


def test_junk_is_listed_as_skipped_and_gets_no_row(graded: dict) -> None:
    rows, err = gradebook(graded["out"]), graded["stderr"]
    assert not [n for n in rows if n.startswith((".", "__MACOSX")) or "/._" in n]
    (skipped,) = [line for line in err.splitlines() if line.startswith("skipped")]
    assert "__MACOSX" in skipped or graded["layout"] == "blackboard"
    assert "._" in skipped


@pytest.mark.parametrize("graded", ["moodle"], indirect=True)
def test_a_moodle_folder_is_one_row_graded_on_the_assignments_notebook(graded: dict) -> None:
    out = graded["out"]
    bob = json.loads((out / "results" / "Bob Jones_222_assignsubmission_file_.json").read_text())
    assert f"graded {NOTEBOOK} of the folder" in bob["extra_data"]["notes"]
    carol = gradebook(out)["Carol Li_333_assignsubmission_file_"]["message"]
    assert "holds several notebooks (a.ipynb, b.ipynb)" in carol and f"named {NOTEBOOK}" in carol
    assert "onlinetext" not in " ".join(gradebook(out))


def test_the_roster_lists_who_submitted_nothing(graded: dict) -> None:
    out, layout, stdout = graded["out"], graded["layout"], graded["stdout"]
    if layout == "gradescope":  # no roster: the export's submitters all submitted
        assert not (out / "missing.csv").exists() and "roster:" not in stdout
        assert "submission_333" in graded["stderr"] and "submission_metadata.yml" in graded["stderr"]
        return
    missing = csv_rows(out / "missing.csv")
    expected = {
        "moodle": ["s4", "Dan Brown"],
        "canvas": ["34567", "Li, Carol"],
        "blackboard": ["s3", "Carol Li"],
        "brightspace": ["20004", "Dan Brown"],
    }
    assert missing[0][:2] == ["id", "name"] and [row[:2] for row in missing[1:]] == [expected[layout]]
    total = {"moodle": 4, "canvas": 3, "blackboard": 3, "brightspace": 3}[layout]
    assert f"roster: {total - 1} of {total} students submitted; 1 submitted nothing: " in stdout
    assert f"{expected[layout][1]} ({expected[layout][0]})" in stdout
    if layout == "canvas":  # alice.ipynb, renamed by hand, names nobody in the roster
        assert "not in the roster" in graded["stderr"] and "alice.ipynb" in graded["stderr"]


def test_canvas_import_has_canvas_columns_and_points_possible(graded: dict) -> None:
    out, layout = graded["out"], graded["layout"]
    rows = csv_rows(out / "canvas-import.csv")
    assert rows[0] == [*CANVAS_COLUMNS, ASSIGNMENT.title]
    assert rows[1][:5] == ["    Points Possible", "", "", "", ""]
    assert rows[1][5] == gradebook(out)[next(iter(ROWS[layout]))]["possible"]
    body = rows[2:]
    if layout == "canvas":  # the Canvas ids from the download, the SIS ids and sections from the roster
        assert sorted(body) == [
            ["Jones, Bob", "23456", "A002", "bjones", "Section 2", "0"],
            ["Smith, Alice", "12345", "A001", "asmith", "Section 1", "0"],
        ]
        assert "1 rows left out" in graded["stderr"]  # alice.ipynb: no student
    else:  # neither the download nor the roster names a Canvas or SIS id: nothing to import
        assert body == []


def test_moodle_import_has_an_identifier_and_a_grade_column(graded: dict) -> None:
    out, layout = graded["out"], graded["layout"]
    rows = csv_rows(out / "moodle-import.csv")
    assert rows[0] == [*MOODLE_COLUMNS, f"Assignment: {ASSIGNMENT.title} (Real)"]
    emails = {row[1]: row[4] for row in rows[1:]}
    if layout == "canvas":  # a Canvas roster has no email, ID number or username
        assert emails == {}
    else:  # one row per student: Blackboard's two attempts of asmith are one, so are Brightspace's
        # two submissions of Alice; Gradescope's group submission is Bob's and Carol's.
        carol = {"carol@uni.edu"} if layout in ("moodle", "gradescope") else set()
        expected = {"alice@uni.edu", "bob@uni.edu"} | carol
        assert set(emails) == expected and set(emails.values()) == {"0"}
        assert len(rows) - 1 == len(expected)


# What each of the other three import files holds, per layout: Blackboard's keyed by username
# (the download's own, or the roster's), Brightspace's by OrgDefinedId or Username, Gradescope's
# by SID or email; a layout whose roster has none of them gives an empty file.
IMPORTS: dict[str, dict[str, list[list[str]]]] = {
    "blackboard": {
        "blackboard": [["Jones", "Bob", "bjones", "", "0"], ["Smith", "Alice", "asmith", "", "0"]],
        "brightspace": [["Jones", "Bob", "#bjones", "", "0"], ["Smith", "Alice", "#asmith", "", "0"]],
    },
    "brightspace": {
        "blackboard": [["", "asmith", "0", "#"], ["", "bjones", "0", "#"]],
        "brightspace": [["20001", "#asmith", "0", "#"], ["20002", "#bjones", "0", "#"]],
    },
    "gradescope": {
        "moodle": [
            ["Alice", "Smith", "", "alice@uni.edu", "0", "{possible}", "Graded", ""],
            ["Bob", "Jones", "", "bob@uni.edu", "0", "{possible}", "Graded", ""],
            ["Carol", "Li", "", "carol@uni.edu", "0", "{possible}", "Graded", ""],
        ],
        "blackboard": [
            ["Alice", "Smith", "", "alice@uni.edu", "0", "{possible}", "Graded", ""],
            ["Bob", "Jones", "", "bob@uni.edu", "0", "{possible}", "Graded", ""],
        ],
        "brightspace": [
            ["Alice", "Smith", "", "alice@uni.edu", "0", "{possible}", "Graded", ""],
            ["Bob", "Jones", "", "bob@uni.edu", "0", "{possible}", "Graded", ""],
        ],
        "gradescope": [  # the group's submission 222 is Bob's and Carol's
            ["Alice", "Smith", "A001", "alice@uni.edu", "0", "{possible}", "Graded", "111"],
            ["Bob", "Jones", "A002", "bob@uni.edu", "0", "{possible}", "Graded", "222"],
            ["Carol", "Li", "A003", "carol@uni.edu", "0", "{possible}", "Graded", "222"],
        ],
    },
}


@pytest.mark.parametrize("system", sorted(IMPORTS))
def test_blackboard_brightspace_and_gradescope_imports_have_their_documented_columns(
    graded: dict, system: str
) -> None:
    out, layout = graded["out"], graded["layout"]
    possible = gradebook(out)[next(iter(ROWS[layout]))]["possible"]
    rows = csv_rows(out / f"{system}-import.csv")
    header = {
        # Blackboard's Grade Center upload: its download's columns, then "<name> [Total Pts: N Score]"
        "blackboard": [*BLACKBOARD_COLUMNS, f"{ASSIGNMENT.title} [Total Pts: {possible} Score]"],
        # Brightspace's grade import: OrgDefinedId, Username, "<item> Points Grade", End-of-Line Indicator
        "brightspace": [*BRIGHTSPACE_COLUMNS, f"{ASSIGNMENT.title} Points Grade", BRIGHTSPACE_END],
        # Gradescope's own "Download Grades" export
        "gradescope": list(GRADESCOPE_COLUMNS),
    }[system]
    assert rows[0] == header
    expected = [[c.format(possible=possible) for c in row] for row in IMPORTS[system].get(layout, [])]
    assert sorted(rows[1:]) == expected
    assert all(len(row) == len(header) for row in rows[1:])


def test_the_zipped_download_gives_the_same_rows_as_the_unzipped_one(graded: dict, tmp_path: Path) -> None:
    layout = graded["layout"]
    roster = read_roster(_roster_file(tmp_path, layout)) if layout in ROSTERS else None
    unzipped, _ = identify(
        collect(graded["subs"], ASSIGNMENT, COURSE)[0], with_submitters(roster, graded["subs"])
    )
    download = zip_of(graded["subs"], tmp_path / "download.zip")
    zipped_subs, skipped = collect(download, ASSIGNMENT, COURSE)
    zipped, _ = identify(zipped_subs, with_submitters(roster, download))
    assert {s.name: s.student for s in zipped} == {n: student for n, (student, _) in ROWS[layout].items()}
    assert sorted((s.name, s.student, s.problem) for s in zipped) == sorted(
        (s.name, s.student, s.problem) for s in unzipped
    )
    assert any(s.startswith("._") or s == "__MACOSX/" or "/._" in s for s in skipped), skipped


def _roster_file(tmp_path: Path, layout: str) -> Path:
    path = tmp_path / "roster.csv"
    path.write_text(ROSTERS[layout])
    return path


# -------------------------------------------------------------------------------------------------
# The layouts' names, the plain folder's contract, the roster's errors: no grading run.


@pytest.mark.parametrize(
    ("name", "layout", "student"),
    [
        ("smithalice_12345_67890_broadcasting.ipynb", "canvas", "12345"),
        ("smithalice_LATE_12345_67890_broadcasting-1.ipynb", "canvas", "12345"),
        ("anon_x1Y2z_67890_broadcasting.ipynb", "canvas", "anon_x1Y2z"),
        ("LATE_anon_x1Y2z_67890_broadcasting.ipynb", "canvas", "anon_x1Y2z"),
        ("Alice Smith_111_assignsubmission_file_", "moodle", "111"),
        ("Alice Smith_111_assignsubmission_file", "moodle", "111"),  # Moodle 4.1 and later
        ("Alice Smith_111_assignsubmission_file_broadcasting.ipynb", "moodle", "111"),  # no folders
        ("course/Participant_7_assignsubmission_file/broadcasting.ipynb", "moodle", "7"),  # blind
        ("Assignment 1_asmith_attempt_2027-01-22-10-00-00_broadcasting.ipynb", "blackboard", "asmith"),
        ("alice.ipynb", None, ""),
        ("hw1.zip", None, ""),
        # Names a student chose: identity only from the parts the LMS writes, matched exactly.
        ("broadcasting_2026_11_28T00_54_37_066501.zip", None, ""),  # the export cell's own zip
        ("smithalice_12345_67890_broadcasting_2026_11_28T00_54_37_066501.zip", "canvas", "12345"),
        ("smithalice_111_444_smithbob_222_333_x.ipynb", "canvas", "111"),
        (
            "Assignment 1_attacker_attempt_2026-11-20-10-00-00_x_victim_attempt_2027-12-31-23-59-59_b.ipynb",
            "blackboard",
            "attacker",
        ),
        ("Alice Smith_111_assignsubmission_file_Bob_222_assignsubmission_file_x.ipynb", "moodle", "111"),
        # A Canvas file whose student-chosen part imitates Moodle's or Blackboard's whole name:
        # two layouts read it, so it is nobody's (it was Moodle's participant 222, Blackboard's
        # victim, by the order the patterns were tried in).
        ("smithalice_12345_67890_Bob_222_assignsubmission_file_x.ipynb", None, ""),
        ("smithalice_12345_67890_x_victim_attempt_2027-12-31-23-59-59_b.ipynb", None, ""),
        ("1001-2001 - Alice Smith - Sep 24, 2024 926 PM", "brightspace", "1001-2001"),
        ("1001-2001 - Alice Smith - Sep 29, 2015 4:17 PM/broadcasting.ipynb", "brightspace", "1001-2001"),
        ("27236-46025 - Angood Aoife - 05 March 2026 612 PM", "brightspace", "27236-46025"),
        ("submission_123456/broadcasting.ipynb", "gradescope", "123456"),
        # A student's file inside the LMS's folder, named as the LMS names another student's.
        (
            "1001-2001 - Alice Smith - Sep 24, 2024 926 PM/9-9 - Bob Jones - Dec 31, 2030 1159 PM",
            "brightspace",
            "1001-2001",
        ),
        ("submission_111/submission_222", "gradescope", "111"),
        # ... or outside any: a name a student chose, matched only where it is the LMS's whole name.
        ("9-9 - Bob Jones - Dec 31, 2030 1159 PM.ipynb", None, ""),
        ("x 1-2 - Bob Jones - Dec 31, 2030 1159 PM", None, ""),
        ("1-2 - Bob Jones - Dec 31, 2030 1359 PM", None, ""),
        ("submission_222.ipynb", None, ""),
        ("submission_222_x", None, ""),
    ],
)
def test_download_names_give_the_lms_and_the_student(name: str, layout: str | None, student: str) -> None:
    owner = owner_of(name)
    assert (owner.layout if owner else None, owner.student if owner else "") == (layout, student)
    assert owner is None or not owner.late or "LATE" in name


def test_a_plain_folder_keeps_its_contract_and_adds_student_folders(tmp_path: Path) -> None:
    """Every *.ipynb/*.zip entry still gets one row named as before (a folder named so included);
    a folder holding a notebook is one student's row, named by the folder; a folder holding an
    LMS download, or no notebook, is skipped."""
    folder = write_tree(
        tmp_path / "subs",
        {
            "alice.ipynb": good_notebook(),
            "bob.zip": "not a zip",
            "carol.ipynb/inside.txt": "a folder named like a notebook",
            "dave/work/broadcasting.ipynb": good_notebook(),
            "dave/.ipynb_checkpoints/broadcasting-checkpoint.ipynb": good_notebook(),
            "erin/a.ipynb": good_notebook(),
            "erin/b.ipynb": good_notebook(),
            "wrapper/smithalice_12345_67890_broadcasting.ipynb": good_notebook(),
            "notes/readme.txt": "no notebook here",
            ".hidden.ipynb": good_notebook(),
        },
    )
    subs, skipped = collect(folder, ASSIGNMENT, COURSE)
    got = {s.name: s.problem for s in subs}
    assert set(got) == {"alice.ipynb", "bob.zip", "carol.ipynb", "dave", "erin"}
    assert got["alice.ipynb"] is None and got["dave"] is None
    assert got["carol.ipynb"] == "is a folder, not a notebook or zip file"
    assert (
        got["erin"]
        == f"holds several notebooks (a.ipynb, b.ipynb), none of them named {NOTEBOOK}; submit one"
    )
    assert sorted(skipped) == [".hidden.ipynb", "notes", "wrapper"]
    assert {s.key for s in subs} == {"alice.ipynb", "bob.zip", "carol.ipynb", "dave", "erin"}


def test_one_row_per_student_is_the_latest_attempt_else_the_best() -> None:
    def rec(name: str, total: float, student: str) -> Record:
        return Record(name, name, "", "graded", "", {"q1": total}, 10, [], [], student=student)

    early = rec("A_asmith_attempt_2027-01-22-10-00-00_b.ipynb", 9, "asmith")
    late = rec("A_asmith_attempt_2027-01-23-10-00-00_b.ipynb", 4, "asmith")
    low, high = rec("x.ipynb", 3, "s2"), rec("y.ipynb", 8, "s2")
    chosen, anonymous = one_per_student([early, late, low, high, rec("z.ipynb", 1, "")])
    assert chosen == [late, high] and anonymous == 1


def test_a_record_without_a_student_reads_as_empty() -> None:
    r = Record("a.ipynb", "a.ipynb", "f", "graded", "", {"q1": 1.0}, 2, [], [], 5, "s1")
    data = r.to_results()
    assert Record.from_results(data) == r
    del data["extra_data"]["student"]  # a results file written before students were recorded
    assert Record.from_results(data).student == ""


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "cannot be read"),
        (b"student_number,given name\n1,Ann\n", "has no id or name column (its header reads: student_number"),
        (b"id,email\n1,a@b.c\n", "has no name column"),
        (b"id,name\n1,Ann\n1,Bob\n", "lists the id 1 twice"),
        (b"\xff\xfe\x00i\x00d", "not UTF-8 text"),
        (b"", "empty; it needs a header with the columns id and name"),
    ],
)
def test_a_bad_roster_is_a_one_line_usage_error(content: bytes | None, message: str, tmp_path: Path) -> None:
    roster = tmp_path / "roster.csv"
    if content is not None:
        roster.write_bytes(content)
    from autograder.errors import UsageError

    with pytest.raises(UsageError) as e:
        read_roster(roster)
    assert str(e.value).startswith(f"--roster {roster}: ") and message in str(e.value)


def test_the_command_line_says_a_bad_roster_in_one_line_and_writes_nothing(tmp_path: Path) -> None:
    (tmp_path / "subs").mkdir()
    roster = tmp_path / "class.csv"
    roster.write_text("name\nAnn\n")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "autograder",
            "grade",
            A,
            str(tmp_path / "subs"),
            "--out",
            str(tmp_path / "out"),
        ]
        + ["--roster", str(roster), "--lms", "canvas"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.strip() == f"error: --roster {roster}: has no id column (its header reads: name)"
    assert not (tmp_path / "out").exists()


def test_two_rows_claiming_one_student_are_both_kept_and_flagged(tmp_path: Path) -> None:
    """Two files that name one student (not one student's dated attempts) are both graded and
    kept; the import file uses one, and the instructor is told which, never silently."""
    from autograder.grading.lms.export import claimed_twice, finish

    def rec(name: str, total: float, student: str) -> Record:
        return Record(name, name, "", "graded", "", {"q1": total}, 10, [], [], student=student)

    attempts = [rec(f"A_asmith_attempt_2027-01-2{i}-10-00-00_b.ipynb", i, "asmith") for i in (2, 3)]
    twice = [rec("alice.ipynb", 9, "s1"), rec("alice-copy.ipynb", 3, "s1")]
    assert claimed_twice([*attempts, *twice]) == {"s1": ["alice.ipynb", "alice-copy.ipynb"]}
    warnings: list[str] = []
    a = load_course().assignment("01-broadcasting")
    finish(tmp_path, [*attempts, *twice], a, None, ["canvas"], None, warnings.append)
    flagged = [w for w in warnings if "name the student s1" in w]
    assert len(flagged) == 1 and "alice.ipynb, alice-copy.ipynb" in flagged[0], warnings
    assert not any("asmith" in w for w in warnings)  # Blackboard's own attempts: the latest counts


def test_a_gradescope_export_is_matched_to_a_roster_by_sid_or_email(tmp_path: Path) -> None:
    export = write_tree(tmp_path / "export", LAYOUTS["gradescope"])
    roster = tmp_path / "roster.csv"
    roster.write_text("id,name,email\ns1,Alice Smith,alice@uni.edu\ns3,Carol Li,carol@uni.edu\n")
    with_roster = with_submitters(read_roster(roster), export)
    assert with_roster is not None and with_roster.listed
    subs, strangers = identify(collect(export, ASSIGNMENT, COURSE)[0], with_roster)
    # Bob, the group's first submitter, is not in the roster: the group's row is Carol's.
    assert {s.name: s.student for s in subs} == {
        "submission_111": "s1",
        "submission_222": "s3",
        "submission_333": "",
    }
    assert strangers == ["submission_333"]


def test_a_metadata_file_a_student_wrote_names_nobody(tmp_path: Path) -> None:
    """Only the export's own submission_metadata.yml (at its top, or in its one top folder) is
    read: the same file inside a student's folder of a plain folder gives no identity."""
    folder = write_tree(
        tmp_path / "class",
        {
            "alice/submission_metadata.yml": LAYOUTS["gradescope"]["submission_metadata.yml"],
            f"alice/{NOTEBOOK}": BROKEN,
            f"submission_111/{NOTEBOOK}": BROKEN,
        },
    )
    assert with_submitters(None, folder) is None
    subs, _ = identify(collect(folder, ASSIGNMENT, COURSE)[0], with_submitters(None, folder))
    assert {s.name: s.student for s in subs} == {"alice": "", "submission_111": ""}
    wrapped = write_tree(tmp_path / "wrapped", {f"export/{k}": v for k, v in LAYOUTS["gradescope"].items()})
    assert with_submitters(None, wrapped) is not None  # the export's own folder, unzipped as one


@pytest.mark.parametrize("graded", ["canvas"], indirect=True)
def test_a_submission_canvas_marks_late_is_late_in_the_gradebook_and_on_the_pages(graded: dict) -> None:
    out = graded["out"]
    late, on_time = f"jonesbob_LATE_23456_78901_{NOTEBOOK}", f"smithalice_12345_67890_{NOTEBOOK}"
    rows = gradebook(out)
    assert {n: r["late"] for n, r in rows.items()} == {late: "late", on_time: "", "alice.ipynb": ""}
    assert "Canvas marked this submission late" in (out / "feedback" / f"{late}.html").read_text()
    assert "<p class=late>" not in (out / "feedback" / f"{on_time}.html").read_text()
    report = (out / "report.html").read_text()
    links = re.findall(rf"{re.escape(late)}</a>[^<]*<span class=late>late</span>", report)
    assert links and report.count("<span class=late>") == len(links)  # each link to it, no other
