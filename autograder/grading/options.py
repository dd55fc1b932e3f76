"""What ``grade`` is asked to do, as one typed value checked once: the command line, ``validate``,
the Gradescope runtime, the bench scripts and tests all build a :class:`GradeOptions` and hand it
to :func:`autograder.grading.batch.run`, which reads nothing else."""

from __future__ import annotations

import os
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import UsageError
from ..sandbox.limits import MAX_SANDBOXES, SandboxLimits

if TYPE_CHECKING:
    from ..config import Course
    from .records import Record


def absolute(path: Path | str) -> Path:
    """``path`` from the working folder, ``~`` expanded; links are kept (not resolved), so that
    what the path names is checked where it is read."""
    return Path(os.path.abspath(Path(path).expanduser()))


def shown(path: Path) -> str:
    """``path`` as a message names it: relative to the working folder when it lies inside it
    (as the user most likely typed it), else in full."""
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


@dataclass(frozen=True)
class GradeOptions:
    """The arguments of one ``grade`` run; the defaults are the command line's."""

    assignment: str
    submissions: Path
    out: Path
    device: str = "cpu"
    jobs: int | None = None
    regrade: bool = False
    quiet: bool = False
    summary: bool = True
    cpu_devices: int | None = None
    cell_seconds: float | None = None
    submission_seconds: float | None = None
    memory_mb: int | None = None
    processes: int | None = None
    course: Course | None = None
    only: Mapping[str, Collection[str]] | None = None
    """submission names -> the questions they are graded on (``validate``'s known-wrong answers)"""
    seed: int | None = None
    scheduler: str | None = None
    cluster: str | None = None
    roster: Path | None = None
    """the class's roster CSV (:func:`autograder.grading.lms.roster.read_roster`): who each row is from,
    and who submitted nothing (``OUT/missing.csv``)"""
    lms: Sequence[str] = ()
    """the LMSs to write an import file for (:mod:`autograder.grading.lms.export`)"""
    lms_column: str | None = None
    """the grade column's name in those files (default: from the assignment's title)"""
    diagnose: bool = True
    """run the known-wrong answers beside the reference and name the mistake a lost question
    reproduces (:mod:`autograder.grading.mistakes`); ``validate`` turns it off where it grades
    the known-wrong answers only to see them lose points"""
    on_record: Callable[[Record], None] | None = None
    """called with each record as soon as it is written (``validate`` reports each known-wrong
    answer as it finishes)"""

    def __post_init__(self) -> None:
        # Resolved once, here, where every caller's paths arrive: a relative path means the
        # folder it names from where the command was typed, and the sandbox, which changes its
        # working folder and root, must never see one.
        for name in ("submissions", "out", "roster"):
            path = getattr(self, name)
            if path is not None:
                object.__setattr__(self, name, absolute(path))

    @property
    def on_cluster(self) -> bool:
        return bool(self.scheduler or self.cluster)

    def check(self) -> None:
        """Usage errors (exit status 2) that need nothing but the options themselves."""
        if self.out.exists() and not self.out.is_dir():
            raise UsageError(f"--out {shown(self.out)}: not a folder (a file has that name)")
        for flag, value in (("--jobs", self.jobs), ("--cpu-devices", self.cpu_devices)):
            if value is not None and value < 1:
                raise UsageError(f"{flag} {value}: must be at least 1")
        if self.jobs is not None and self.jobs > MAX_SANDBOXES:
            # Under root each sandbox slot is a user id of its own, and a grader has only so many.
            raise UsageError(f"--jobs {self.jobs}: at most {MAX_SANDBOXES} sandboxes at once on one machine")

    def limits(self, base: dict[str, Any]) -> SandboxLimits:
        """The sandbox limits: ``course.yml``'s (``base``) with the flags given, checked by the
        rules ``course.yml`` obeys (a zero or negative limit would time out every row)."""
        from pydantic import ValidationError

        from ..config import Limits

        overrides = {
            "cell_seconds": self.cell_seconds,
            "submission_seconds": self.submission_seconds,
            "memory_mb": self.memory_mb,
            "processes": self.processes,
        }
        merged = {**base, **{k: v for k, v in overrides.items() if v is not None}}
        try:
            Limits(**merged)
        except ValidationError as e:
            error = e.errors()[0]
            field = str(error["loc"][0]) if error["loc"] else "limits"
            why = error["msg"][:1].lower() + error["msg"][1:]
            raise UsageError(f"--{field.replace('_', '-')} {merged.get(field)}: {why}") from None
        return SandboxLimits(**merged)
