"""Reading notebooks, any notebook: parsing and checking the file, and what its code cells
define and read. The master's own format (markers, questions) is :mod:`autograder.master_format`.

Everything here is pure data handling (no execution), shared by build, grade, validate and the
sandbox (which imports this module, so it stays light: no nbformat or YAML at import).
"""

from __future__ import annotations

import ast
import json
import re
import symtable
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from .errors import NotebookError
from .probing.helpers import parse_python

if TYPE_CHECKING:
    import nbformat

#: The first line of a student notebook's setup cell (:func:`autograder.handout.setup_cell`):
#: it installs packages where they are missing, so the grader never runs it.
SETUP_CELL_MARKER = "# Setup: run this cell first."
OTTER_LINE = re.compile(r"^\s*(import otter\b|grader\s*=\s*otter\.|grader\.\w+\()")


def read_notebook(path: Path) -> nbformat.NotebookNode:
    """Read and validate ``path`` as an nbformat-4 notebook, or raise :class:`NotebookError`."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise NotebookError(f"{path.name}: not a notebook (the file is not UTF-8 text)") from None
    except OSError as e:
        raise NotebookError(f"{path.name}: cannot be read ({e.strerror})") from None
    return parse_notebook(text, path.name)


def parse_notebook(text: str, name: str) -> nbformat.NotebookNode:
    """Parse notebook JSON text, or raise :class:`NotebookError` naming ``name``."""
    if not text.strip():
        raise NotebookError(f"{name}: the file is empty")
    try:
        data = json.loads(text)
    except ValueError:
        raise NotebookError(f"{name}: not valid notebook JSON") from None
    except RecursionError:
        raise NotebookError(f"{name}: not a Jupyter notebook (its JSON nests too deeply)") from None
    if not isinstance(data, dict) or not isinstance(data.get("cells"), list):
        raise NotebookError(f"{name}: not a Jupyter notebook (no cell list)")
    # Imported here, not above: nbformat's validator pulls in ~2 s of jsonschema format
    # checkers, and the grading sandbox (which imports this module, never nbformat) forks from
    # a process that should start fast.
    import nbformat

    try:
        nb = nbformat.reads(text, as_version=4)
    except Exception:  # nbformat raises several types for structures it cannot convert
        raise NotebookError(f"{name}: not a Jupyter notebook (unsupported format)") from None
    for i, cell in enumerate(nb.cells):
        if not isinstance(cell, dict) or cell.get("cell_type") not in ("code", "markdown", "raw"):
            raise NotebookError(f"{name}: cell {i + 1} is malformed")
        if not isinstance(cell.get("source", ""), str):
            raise NotebookError(f"{name}: cell {i + 1} has no text source")
    return nb


def executable_source(source: str) -> str:
    """A code cell as plain Python: IPython magics and shell escapes dropped, otter calls
    (``import otter``, ``grader = otter.Notebook(...)``, ``grader.check(...)``) dropped, and
    the student setup cell (:data:`SETUP_CELL_MARKER`) dropped whole."""
    if source.lstrip().startswith(("%%", SETUP_CELL_MARKER)):
        return ""
    kept = []
    for line in source.splitlines():
        stripped = line.lstrip()
        if stripped.startswith(("%", "!")) or OTTER_LINE.match(line):
            kept.append(line[: len(line) - len(stripped)] + "pass")
        else:
            kept.append(line)
    return "\n".join(kept)


def code_cells(nb: nbformat.NotebookNode) -> list[str]:
    """The sources of ``nb``'s code cells, in order."""
    return [c.source for c in nb.cells if c.cell_type == "code"]


def defined_names(source: str) -> set[str]:
    """Top-level names a cell defines with ``def``, ``class`` or assignment."""
    try:
        tree = parse_python(executable_source(source))
    except SyntaxError:
        return set()
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            for t in node.targets:
                if isinstance(t, ast.Name):
                    names.add(t.id)
    return names


def bound_and_read_names(source: str) -> tuple[set[str], set[str]] | None:
    """``(bound, read)`` for a cell: the global names it binds (def, class, assignment, import)
    and those it reads from the notebook's globals, at top level or inside its functions and
    classes. ``None`` when the cell does not parse."""
    try:
        top = symtable.symtable(executable_source(source), "<cell>", "exec")
    except SyntaxError:
        return None
    bound = {
        s.get_name() for s in top.get_symbols() if s.is_assigned() or s.is_imported() or s.is_namespace()
    }
    read = {s.get_name() for s in top.get_symbols() if s.is_referenced() and s.get_name() not in bound}
    scopes = list(top.get_children())
    while scopes:
        scope = scopes.pop()
        read |= {s.get_name() for s in scope.get_symbols() if s.is_global() and s.is_referenced()}
        scopes += scope.get_children()
    return bound, read


def defining_cell(cells: Sequence[str], names: Collection[str]) -> int:
    """The index of the last of ``cells`` (sources; ``""`` for a cell that is not code) that
    defines any of ``names``: a known-wrong answer goes right after it, so that its definitions
    win and later cells use them. :class:`ValueError` when none does."""
    idx = max((i for i, c in enumerate(cells) if defined_names(c) & set(names)), default=None)
    if idx is None:
        raise ValueError(f"no code cell defines any of {', '.join(names)}")
    return idx


def insert_after_definition(cells: list[str], names: Collection[str], source: str) -> list[str]:
    """``cells`` (code cell sources) with ``source`` added as a new cell right after the last
    one defining any of ``names``."""
    idx = defining_cell(cells, names)
    return cells[: idx + 1] + [source] + cells[idx + 1 :]
