"""The otter-assign master notebook's format, read in one place.

A master (``solutions/<id>/<topic>.ipynb``, see docs/authoring.md) marks its structure in two ways:

- raw marker cells: ``# ASSIGNMENT CONFIG`` (YAML below it), ``# BEGIN QUESTION`` (YAML: ``name``;
  otter's ``points`` too, which this course's masters leave out: course.yml states them and
  build writes them into the copy otter assign reads, :func:`with_points`) / ``# END QUESTION``,
  and ``# BEGIN SOLUTION``, ``# BEGIN TESTS``, ``# BEGIN PROMPT`` with their ``# END`` cells;
- comments inside code cells: ``# BEGIN SOLUTION`` / ``# END SOLUTION`` lines around what the
  stub replaces with ``...``, a line ending in ``# SOLUTION``, and a test cell's
  ``\"\"\" # BEGIN TEST CONFIG`` block.

:func:`marked_cells` walks the cells once and says of each what it is (a :class:`MarkedCell`);
build, the nbgrader export, validate, the grader and selfcheck read the master through it and
the functions below, and nothing else parses these markers.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, cast

import yaml

from .notebooks import defined_names, typed_nbformat

if TYPE_CHECKING:
    import nbformat

Block = Literal["QUESTION", "SOLUTION", "TESTS", "PROMPT"]
Kind = Literal["config", "begin", "end", "content"]

_CONFIG = "# ASSIGNMENT CONFIG"
_MARKER = re.compile(r"^\s*#\s*(BEGIN|END)\s+(QUESTION|SOLUTION|TESTS|PROMPT)\b", re.I)
_TEST_CONFIG = re.compile(
    r'^\s*"""\s*#\s*BEGIN\s+TEST\s+CONFIG\s*\n(.*?)^\s*"""\s*#\s*END\s+TEST\s+CONFIG[^\n]*\n?',
    re.S | re.M | re.I,
)
#: A ``# BEGIN SOLUTION`` / ``# END SOLUTION`` comment line of a code cell (``NO PROMPT`` and
#: other words after it included): group 1 its indent, group 2 ``BEGIN`` or ``END``.
SOLUTION_LINE = re.compile(r"^([ \t]*)#\s*(BEGIN|END)\s+SOLUTION\b.*$", re.M | re.I)
_SOLUTION_SUFFIX = re.compile(r"#\s*SOLUTION\s*$")


@dataclass(frozen=True)
class MarkedCell:
    """One cell of a master, as the format reads it."""

    index: int
    """its position in the master's cell list"""
    cell: nbformat.NotebookNode
    """the cell itself (an ``nbformat`` node: copy it before changing it)"""
    kind: Kind
    """``config`` (the ASSIGNMENT CONFIG cell), ``begin`` / ``end`` (a raw marker cell of
    :attr:`block`), or ``content`` (any other cell)"""
    block: Block | None
    """for a marker, the block it opens or closes; for content, the SOLUTION, TESTS or PROMPT
    block it sits in (``None`` outside them)"""
    question: str | None
    """the name of the question it belongs to, its own markers included"""
    points: float | None
    """the ``points:`` its question's ``# BEGIN QUESTION`` cell states, ``None`` when it states
    none (as in every master of this course: a question's points are course.yml's,
    ``Assignment.points``, and build refuses a master that states any)"""
    config: Mapping[str, Any] = field(default_factory=dict)
    """the YAML of a config or ``# BEGIN QUESTION`` cell"""

    @property
    def source(self) -> str:
        return cast(str, self.cell.source)

    @property
    def cell_type(self) -> str:
        return cast(str, self.cell.cell_type)

    @property
    def is_marker(self) -> bool:
        """A raw cell of the format (config or marker) that the student never sees."""
        return self.kind != "content"


def _yaml_below(text: str) -> dict[str, Any]:
    return (yaml.safe_load(text.split("\n", 1)[1]) if "\n" in text else None) or {}


def marked_cells(nb: nbformat.NotebookNode) -> Iterator[MarkedCell]:
    """Every cell of the master ``nb`` in order, with what the format says of it."""
    question: str | None = None
    points: float | None = None
    block: Block | None = None
    for i, cell in enumerate(nb.cells):
        text = cell.source.strip()
        m = _MARKER.match(text) if cell.cell_type == "raw" else None
        if cell.cell_type == "raw" and text.upper().startswith(_CONFIG):
            yield MarkedCell(i, cell, "config", None, None, None, _yaml_below(text))
        elif m is None:
            yield MarkedCell(i, cell, "content", block, question, points)
        else:
            begin, kind = m.group(1).upper() == "BEGIN", cast(Block, m.group(2).upper())
            if kind == "QUESTION" and begin:
                config = _yaml_below(text)
                question = str(config.get("name"))
                points = None if config.get("points") is None else float(config["points"])
                yield MarkedCell(i, cell, "begin", kind, question, points, config)
            elif kind == "QUESTION":
                yield MarkedCell(i, cell, "end", kind, question, points)
                question = points = None
            else:
                block = kind if begin else None
                yield MarkedCell(i, cell, "begin" if begin else "end", kind, question, points)


def master_config(nb: nbformat.NotebookNode) -> dict[str, Any]:
    """The ``# ASSIGNMENT CONFIG`` raw cell, parsed."""
    return next((dict(c.config) for c in marked_cells(nb) if c.kind == "config"), {})


def with_points(nb: nbformat.NotebookNode, points: Mapping[str, float]) -> nbformat.NotebookNode:
    """A copy of the master ``nb`` whose ``# BEGIN QUESTION`` cells state ``points[question]``
    (course.yml's), as otter assign expects."""
    out = copy.deepcopy(nb)
    for c in marked_cells(nb):
        if c.kind == "begin" and c.block == "QUESTION" and c.question is not None:
            out.cells[c.index] = question_cell({**c.config, "points": points[c.question]})
    return out


def question_cell(config: Mapping[str, Any]) -> nbformat.NotebookNode:
    """A ``# BEGIN QUESTION`` raw cell holding ``config``."""
    return typed_nbformat().v4.new_raw_cell(
        "# BEGIN QUESTION\n" + yaml.safe_dump(dict(config), sort_keys=False)
    )


def config_cell(config: Mapping[str, Any]) -> nbformat.NotebookNode:
    """A ``# ASSIGNMENT CONFIG`` raw cell holding ``config``."""
    return typed_nbformat().v4.new_raw_cell(_CONFIG + "\n" + yaml.safe_dump(dict(config), sort_keys=False))


@dataclass(frozen=True)
class Question:
    """A question of an otter-assign master notebook."""

    name: str
    points: float | None
    """what its ``# BEGIN QUESTION`` cell states (:attr:`MarkedCell.points`): ``None`` in this
    course's masters, whose points are course.yml's"""
    functions: tuple[str, ...]
    """the top-level functions its solution cells define"""


def master_questions(nb: nbformat.NotebookNode) -> list[Question]:
    """The questions of a master, with the points they state and the functions their solution
    cells define."""
    questions: list[Question] = []
    functions: list[str] = []
    for c in marked_cells(nb):
        if c.kind == "begin" and c.block == "QUESTION":
            functions = []
        elif c.kind == "end" and c.block == "QUESTION" and c.question is not None:
            questions.append(Question(c.question, c.points, tuple(functions)))
        elif c.kind == "content" and c.block == "SOLUTION" and c.question and c.cell_type == "code":
            functions += sorted(defined_names(c.source) - set(functions))
    return questions


def split_test_config(source: str) -> tuple[str, dict[str, Any]]:
    """``(source without its TEST CONFIG block, the block's YAML)`` of a public test cell
    (``{}`` when it has none)."""
    m = _TEST_CONFIG.match(source)
    if not m:
        return source, {}
    return source[m.end() :].lstrip("\n"), yaml.safe_load(m.group(1)) or {}


def _solution_marker(line: str) -> str | None:
    m = SOLUTION_LINE.match(line)
    return m.group(2).upper() if m else None


def stub_source(source: str) -> str:
    """What otter assign makes of a solution cell: each ``# BEGIN SOLUTION`` ... ``# END
    SOLUTION`` block becomes ``...`` at the indent of its first line."""
    lines = source.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        end = None
        if _solution_marker(lines[i]) == "BEGIN":
            end = next((j for j in range(i + 1, len(lines)) if _solution_marker(lines[j]) == "END"), None)
        if end is None:
            out.append(lines[i])
            i += 1
        else:
            out.append(lines[i][: len(lines[i]) - len(lines[i].lstrip(" \t"))] + "...")
            i = end + 1
    return "\n".join(out)


def solution_lines(source: str) -> Iterator[str]:
    """The lines of a code cell that only the solution has: those inside ``# BEGIN SOLUTION``
    blocks and those ending in ``# SOLUTION`` (that comment taken off), stripped."""
    inside = False
    for line in source.splitlines():
        marker = _solution_marker(line)
        if marker is not None:
            inside = marker == "BEGIN"
        elif inside or _SOLUTION_SUFFIX.search(line):
            yield _SOLUTION_SUFFIX.sub("", line).strip()
