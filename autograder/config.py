"""``course.yml``: the course's assignments, grading limits and JAX range, checked on load.

Every key has a description; a wrong key, type or missing file is one :class:`ConfigError` line
naming the file, the key and what is expected.
"""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path
from typing import Annotated, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from .errors import ConfigError

ROOT = Path(__file__).resolve().parent.parent
COURSE_FILE = ROOT / "course.yml"


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Limits(_Model):
    """What one submission may use while it is graded."""

    cell_seconds: Annotated[
        float, Field(gt=0, description="wall-clock seconds for one notebook cell or one hidden test")
    ]
    submission_seconds: Annotated[float, Field(gt=0, description="wall-clock seconds for a whole submission")]
    memory_mb: Annotated[int, Field(ge=256, description="resident memory of the sandbox process, in MiB")]
    processes: Annotated[
        int,
        Field(ge=16, description="tasks (processes and threads) the sandbox may run; JAX needs some threads"),
    ]
    output_mb: Annotated[int, Field(ge=1, description="MiB of stdout/stderr kept; printing more is cut off")]


class LimitOverrides(_Model):
    """Per-assignment changes to the course's :class:`Limits`."""

    cell_seconds: Annotated[float | None, Field(gt=0, description="see Limits")] = None
    submission_seconds: Annotated[float | None, Field(gt=0, description="see Limits")] = None
    memory_mb: Annotated[int | None, Field(ge=256, description="see Limits")] = None
    processes: Annotated[int | None, Field(ge=16, description="see Limits")] = None
    output_mb: Annotated[int | None, Field(ge=1, description="see Limits")] = None


class Uploads(_Model):
    """Caps on what a submission file or zip may hold, checked before anything is extracted."""

    max_file_mb: Annotated[int, Field(ge=1, description="largest submission file, in MiB")]
    max_zip_members: Annotated[int, Field(ge=1, description="most members a submitted zip may list")]
    max_unzipped_mb: Annotated[int, Field(ge=1, description="most MiB a zip may expand to")]
    max_ratio: Annotated[
        float, Field(gt=1, description="largest compression ratio of a zip member (zip bombs)")
    ]


class Devices(_Model):
    """Devices an assignment is graded on."""

    cpu_devices: Annotated[
        int, Field(ge=1, le=64, description="virtual CPU devices the grader gives JAX on the CPU")
    ] = 1
    min_devices: Annotated[
        int, Field(ge=1, le=64, description="devices its data-parallel questions are always graded on")
    ] = 1


class Question(_Model):
    """One question: its points and the functions students write for it."""

    points: Annotated[
        int,
        Field(
            ge=1,
            description="the question's points, a whole number: an assignment's add up to grading.points; "
            "they are split over the question's hidden tests in quarter points",
        ),
    ]
    functions: Annotated[
        list[str], Field(min_length=1, description="the Python functions it asks for (the syllabus's names)")
    ]

    @field_validator("functions")
    @classmethod
    def _function_names(cls, v: list[str]) -> list[str]:
        bad = [f for f in v if not re.fullmatch(r"[A-Za-z_]\w*", f)]
        if bad:
            raise ValueError(f"{bad[0]!r} is not a Python function name")
        return v


class Assignment(_Model):
    """One graded assignment."""

    id: Annotated[
        str,
        Field(
            pattern=r"^\d\d-[a-z]+$",
            description="folder name under solutions/ and assignments/, e.g. 01-broadcasting",
        ),
    ]
    title: Annotated[str, Field(min_length=1, description="title shown to students")]
    notebook: Annotated[
        str, Field(pattern=r"^[\w-]+\.ipynb$", description="master and student notebook file name")
    ]
    due: Annotated[dt.date, Field(description="due date, YYYY-MM-DD")]
    devices: Annotated[Devices, Field(description="device needs")] = Devices()
    questions: Annotated[
        dict[str, Question],
        Field(min_length=1, description="question name (q1, q2, ...) -> its points and functions"),
    ]
    limits: Annotated[LimitOverrides, Field(description="changes to the course's grading limits")] = (
        LimitOverrides()
    )

    @field_validator("questions")
    @classmethod
    def _question_names(cls, v: dict[str, Question]) -> dict[str, Question]:
        for q in v:
            if not re.fullmatch(r"q\d+", q):
                raise ValueError(f"question names look like q1, q2, ...; got {q!r}")
        return v

    @property
    def points(self) -> dict[str, int]:
        """Each question's points, from course.yml (the one place they are stated)."""
        return {q: spec.points for q, spec in self.questions.items()}

    @property
    def master(self) -> Path:
        return ROOT / "solutions" / self.id / self.notebook

    @property
    def probes_file(self) -> Path:
        return ROOT / "solutions" / self.id / "probes.py"

    @property
    def release_dir(self) -> Path:
        return ROOT / "assignments" / self.id

    @property
    def mutants_dir(self) -> Path:
        return ROOT / "solutions" / self.id / "mutants"

    def function_question(self) -> dict[str, str]:
        return {f: q for q, spec in self.questions.items() for f in spec.functions}


class Grading(_Model):
    """How submissions are graded."""

    seed: Annotated[int, Field(ge=0, description="seed of every hidden test's inputs")]
    points: Annotated[
        int, Field(ge=1, description="what every assignment's question points add up to, e.g. 100")
    ]
    matmul_precision: Annotated[
        Literal["highest", "high", "default"],
        Field(description="jax_default_matmul_precision for student and reference runs"),
    ] = "highest"
    limits: Annotated[Limits, Field(description="default limits per submission")]
    uploads: Annotated[Uploads, Field(description="caps on submitted files and zips")]


class Course(_Model):
    """The whole course."""

    name: Annotated[str, Field(min_length=1, description="course name")]
    jax: Annotated[
        str, Field(description="pip version range of JAX the course is graded on, e.g. '>=0.10,<0.12'")
    ]
    grading: Annotated[Grading, Field(description="grading settings")]
    assignments: Annotated[list[Assignment], Field(min_length=1, description="the assignments, in order")]

    def assignment(self, assignment_id: str) -> Assignment:
        for a in self.assignments:
            if a.id == assignment_id:
                return a
        known = ", ".join(a.id for a in self.assignments)
        raise ConfigError(f"unknown assignment {assignment_id!r}; course.yml has {known}")

    def limits_for(self, assignment: Assignment) -> Limits:
        changes = {k: v for k, v in assignment.limits.model_dump().items() if v is not None}
        return self.grading.limits.model_copy(update=changes)


def with_device_floor(course: Course, assignment_id: str, min_devices: int) -> Course:
    """``course`` with one assignment's ``min_devices`` lowered: for a test that shows what
    grading on fewer devices would miss, never for grades (the grader always keeps the floor)."""
    assignments = [
        a.model_copy(update={"devices": a.devices.model_copy(update={"min_devices": min_devices})})
        if a.id == assignment_id
        else a
        for a in course.assignments
    ]
    return course.model_copy(update={"assignments": assignments})


def _location(loc: tuple[int | str, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


def load_course(path: Path = COURSE_FILE, *, check_files: bool = True) -> Course:
    """Load and check ``course.yml``; :class:`ConfigError` with one line on any problem."""
    name = path.name if path.parent == ROOT else str(path)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise ConfigError(f"{name}: cannot be read ({e.strerror})") from None
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark else ""
        raise ConfigError(f"{name}: not valid YAML{where}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{name}: expected a mapping with keys name, jax, grading, assignments")
    try:
        course = Course.model_validate(data)
    except ValidationError as e:
        err = e.errors()[0]
        key = _location(err["loc"])
        if err["type"] == "extra_forbidden":
            raise ConfigError(f"{name}: {key}: unknown key") from None
        if err["type"] == "missing":
            raise ConfigError(f"{name}: {key}: missing (required)") from None
        got = err.get("input")
        got_text = "" if isinstance(got, (dict, list)) else f", got {got!r}"
        raise ConfigError(f"{name}: {key}: {err['msg'].rstrip('.').lower()}{got_text}") from None
    ids = [a.id for a in course.assignments]
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    if dupes:
        raise ConfigError(f"{name}: assignments: id {dupes[0]!r} appears twice")
    for i, a in enumerate(course.assignments):
        total = sum(a.points.values())
        if total != course.grading.points:
            raise ConfigError(
                f"{name}: assignments[{i}].questions: {a.id}'s points add up to {total}, "
                f"not grading.points ({course.grading.points})"
            )
    if check_files:
        for i, a in enumerate(course.assignments):
            for what, p in (("notebook", a.master), ("notebook", a.probes_file)):
                if not p.is_file():
                    rel = p.relative_to(ROOT)
                    raise ConfigError(f"{name}: assignments[{i}].{what}: {rel} does not exist")
    return course
