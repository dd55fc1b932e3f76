"""Who submitted each submission of a Gradescope export: its ``submission_metadata.yml``.

Gradescope's "Export Submissions" zip holds one folder ``submission_<id>`` per submission and,
beside them, ``submission_metadata.yml``: each folder's name mapped to its ``:submitters:`` (a
list: a group submission has several), each with ``:name:``, ``:sid:`` and ``:email:``, as
Gradescope's roster has them; otter-grader's own Gradescope parser reads the same keys. The file
is Gradescope's, not a student's: the export's folder names are matched to it exactly
(:data:`autograder.grading.downloads.GRADESCOPE_FOLDER`), and nothing in it is run. Ruby's own
tags (``!ruby/object:BigDecimal`` scores) are read as plain values.
"""

from __future__ import annotations

import stat
import zipfile
from pathlib import Path, PurePosixPath
from typing import Any

from ..downloads import GRADESCOPE_FOLDER, is_junk
from .roster import Roster, Student

METADATA = "submission_metadata.yml"
METADATA_MAX_BYTES = 16 * 2**20


def _load(text: str) -> Any:
    import yaml

    class Loader(yaml.SafeLoader):
        """YAML's safe loader, reading any tag it does not know as the plain value it tags."""

    def untagged(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> Any:
        if isinstance(node, yaml.MappingNode):
            return loader.construct_mapping(node)
        if isinstance(node, yaml.SequenceNode):
            return loader.construct_sequence(node)
        return loader.construct_scalar(node)  # type: ignore[arg-type]

    Loader.add_multi_constructor("!", untagged)
    try:
        return yaml.load(text, Loader=Loader)  # noqa: S506 (a safe loader: Loader is yaml's SafeLoader)
    except yaml.YAMLError:
        return None


def _read(submissions: Path) -> bytes | None:
    """The metadata's bytes of the export at ``submissions`` (a folder or a zip): at its top, or
    in its one top folder where it holds nothing else (the export's own folder). A file of that
    name anywhere else (a student's folder) is not the export's."""
    try:
        st = submissions.lstat()
    except OSError:
        return None
    if stat.S_ISDIR(st.st_mode):
        try:
            top = [p for p in sorted(submissions.iterdir()) if not is_junk(p.name)]
        except OSError:
            return None
        where = submissions
        if len(top) == 1 and top[0].is_dir() and not top[0].is_symlink():
            where = top[0]
        path = where / METADATA
        try:
            if stat.S_ISREG(path.lstat().st_mode) and path.stat().st_size <= METADATA_MAX_BYTES:
                return path.read_bytes()
        except OSError:
            return None
        return None
    if not stat.S_ISREG(st.st_mode) or submissions.suffix.lower() != ".zip":
        return None
    try:
        with zipfile.ZipFile(submissions) as zf:
            infos = [i for i in zf.infolist() if not any(is_junk(p) for p in PurePosixPath(i.filename).parts)]
            tops = {PurePosixPath(i.filename).parts[0] for i in infos if PurePosixPath(i.filename).parts}
            wanted = [METADATA] + [f"{t}/{METADATA}" for t in tops if len(tops) == 1]
            for info in infos:
                if info.filename in wanted and not info.is_dir():
                    return zf.read(info) if info.file_size <= METADATA_MAX_BYTES else None
    except (zipfile.BadZipFile, OSError, ValueError, RuntimeError, NotImplementedError, EOFError):
        return None
    return None


def _text(value: object) -> str:
    return "" if value is None else " ".join(str(value).split())


def read_submitters(submissions: Path) -> dict[str, tuple[Student, ...]]:
    """Gradescope's submission id -> its submitters (each a :class:`Student` whose id is the
    ``:sid:``, else the ``:email:``), from the export at ``submissions``; empty when it is
    not one (no ``submission_metadata.yml``, or one that is not Gradescope's mapping)."""
    data = _read(submissions)
    if data is None:
        return {}
    try:
        metadata = _load(data.decode("utf-8-sig"))
    except UnicodeDecodeError:
        return {}
    if not isinstance(metadata, dict):
        return {}
    out: dict[str, tuple[Student, ...]] = {}
    for folder, entry in metadata.items():
        m = GRADESCOPE_FOLDER.match(str(folder))
        submitters = entry.get(":submitters") if isinstance(entry, dict) else None
        if m is None or not isinstance(submitters, list):
            continue
        people = []
        for person in submitters:
            if not isinstance(person, dict):
                continue
            name, sid, email = (_text(person.get(f":{k}")) for k in ("name", "sid", "email"))
            if sid or email:
                people.append(Student(sid or email, name, {"name": name, "sid": sid, "email": email}))
        if people:
            out[m["id"]] = tuple(people)
    return out


def with_submitters(roster: Roster | None, submissions: Path) -> Roster | None:
    """``roster`` with the submitters of the Gradescope export at ``submissions``; where no
    roster is given, the export's submitters are the roster. ``roster`` as it is where
    ``submissions`` is no Gradescope export."""
    submitters = read_submitters(submissions)
    if not submitters:
        return roster
    if roster is not None:
        return Roster(roster.path, roster.columns, roster.students, submitters, submissions)
    students = {p.id: p for people in submitters.values() for p in people}
    columns = ("id", "name", "sid", "email")
    return Roster(submissions, columns, tuple(students.values()), submitters, submissions)
