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
import threading
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Protocol, cast

from .errors import NotebookError
from .probing.helpers import parse_python

if TYPE_CHECKING:
    import os

    import nbformat


class _NbformatV4(Protocol):
    def new_notebook(self, **kwargs: Any) -> nbformat.NotebookNode: ...
    def new_code_cell(self, source: str = "", **kwargs: Any) -> nbformat.NotebookNode: ...
    def new_markdown_cell(self, source: str = "", **kwargs: Any) -> nbformat.NotebookNode: ...
    def new_raw_cell(self, source: str = "", **kwargs: Any) -> nbformat.NotebookNode: ...


class Nbformat(Protocol):
    """The part of ``nbformat`` this package calls, with its types: nbformat ships ``py.typed``
    but annotates none of these functions."""

    @property
    def v4(self) -> _NbformatV4: ...
    def read(
        self, fp: str | os.PathLike[str] | IO[str], as_version: int, **kwargs: Any
    ) -> nbformat.NotebookNode: ...
    def reads(self, s: str, as_version: int, **kwargs: Any) -> nbformat.NotebookNode: ...
    def write(
        self, nb: nbformat.NotebookNode, fp: str | os.PathLike[str] | IO[str], **kwargs: Any
    ) -> None: ...
    def writes(self, nb: nbformat.NotebookNode, **kwargs: Any) -> str: ...
    def from_dict(self, d: Mapping[str, Any]) -> nbformat.NotebookNode: ...


def typed_nbformat() -> Nbformat:
    """The ``nbformat`` module, typed (:class:`Nbformat`); imported when first called, not when
    this module loads (see :func:`parse_notebook`)."""
    import nbformat

    return cast(Nbformat, nbformat)


#: The first line of a student notebook's setup cell (:func:`autograder.release.handout.setup_cell`):
#: it installs packages where they are missing, so the grader never runs it.
SETUP_CELL_MARKER = "# Setup: run this cell first."


#: Bounds on a notebook's JSON, counted on its text before it is parsed (outputs included,
#: though they are never graded). The course's own notebooks hold at most ~4,000 values,
#: ~1,000 objects and lists and 170 cells; these bounds are hundreds of times that, and keep
#: what parsing one submission costs to ~150 MB beyond its own text (the size caps of
#: ``course.yml`` bound that).
MAX_JSON_VALUES = 2_000_000
MAX_JSON_CONTAINERS = 200_000
MAX_CELLS = 2_000
#: A JSON string (skipped whole), or what starts an object or a list, or separates two values.
_JSON_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[{,]', re.DOTALL)


def read_notebook(path: Path) -> nbformat.NotebookNode:
    """Read and validate ``path`` as an nbformat-4 notebook, or raise :class:`NotebookError`."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise NotebookError(f"{path.name}: not a notebook (the file is not UTF-8 text)") from None
    except OSError as e:
        raise NotebookError(f"{path.name}: cannot be read ({e.strerror})") from None
    return parse_notebook(text, path.name)


def json_size_problem(text: str) -> str | None:
    """Why the JSON ``text`` is more than the grader parses (:data:`MAX_JSON_VALUES`,
    :data:`MAX_JSON_CONTAINERS`), or ``None``: what parsing it costs is decided before anything
    is parsed, in at most one pass over the text that stops at the bound."""
    containers = text.count("[") + text.count("{")
    if (
        containers <= MAX_JSON_CONTAINERS
        and containers + text.count(",") + text.count('"') // 2 <= MAX_JSON_VALUES
    ):
        return None  # these counts include what strings hold: an upper bound, found at C speed
    values = containers = 0
    for m in _JSON_TOKEN.finditer(text):
        values += 1
        if text[m.start()] in "[{":
            containers += 1
            if containers > MAX_JSON_CONTAINERS:
                return f"holds more than {MAX_JSON_CONTAINERS} JSON objects and lists{_TOO_MUCH}"
        if values > MAX_JSON_VALUES:
            return f"holds more than {MAX_JSON_VALUES} JSON values{_TOO_MUCH}"
    return None


_TOO_MUCH = ", more than the grader reads (outputs count too: clear them, save, and submit again)"


def parse_notebook(text: str, name: str, *, outputs: bool = True) -> nbformat.NotebookNode:
    """Parse notebook JSON text of any nbformat version into an nbformat-4 notebook, or raise
    :class:`NotebookError` naming ``name``. The text is bounded first (:func:`json_size_problem`,
    :data:`MAX_CELLS`). With ``outputs=False`` (a submission: outputs are never graded), the
    cells' outputs and attachments are dropped before nbformat converts and validates it, so
    that no output costs more than its bytes, whatever it holds."""
    if not text.strip():
        raise NotebookError(f"{name}: the file is empty")
    problem = json_size_problem(text)
    if problem:
        raise NotebookError(f"{name}: {problem}")
    try:
        data = json.loads(text)
    except ValueError:
        raise NotebookError(f"{name}: not valid notebook JSON") from None
    except RecursionError:
        raise NotebookError(f"{name}: not a Jupyter notebook (its JSON nests too deeply)") from None
    cells = _cell_lists(data)
    if cells is None:
        raise NotebookError(f"{name}: not a Jupyter notebook (no cell list)")
    count = sum(len(c) for c in cells)
    if count > MAX_CELLS:
        raise NotebookError(f"{name}: holds {count} cells; the grader reads at most {MAX_CELLS}")
    if not outputs:
        for cell in (c for group in cells for c in group if isinstance(c, dict)):
            if "outputs" in cell:
                cell["outputs"] = []
            cell.pop("attachments", None)
        text = json.dumps(data)
    del data, cells
    # Imported here, not above: nbformat's validator pulls in ~2 s of jsonschema format
    # checkers, and the grading sandbox (which imports this module, never nbformat) forks from
    # a process that should start fast.
    nbf = typed_nbformat()
    try:
        nb = nbf.reads(text, as_version=4)  # nbformat 3 and older are upgraded
    except Exception:  # nbformat raises several types for structures it cannot convert
        raise NotebookError(f"{name}: not a Jupyter notebook (unsupported format)") from None
    for i, cell in enumerate(nb.cells):
        if not isinstance(cell, dict) or cell.get("cell_type") not in ("code", "markdown", "raw"):
            raise NotebookError(f"{name}: cell {i + 1} is malformed")
        if not isinstance(cell.get("source", ""), str):
            raise NotebookError(f"{name}: cell {i + 1} has no text source")
    return nb


def _cell_lists(data: Any) -> list[list[Any]] | None:
    """The lists of cells of notebook JSON: ``cells`` (nbformat 4), or each worksheet's
    (nbformat 3 and older); ``None`` when it has neither."""
    if not isinstance(data, dict):
        return None
    if isinstance(data.get("cells"), list):
        return [data["cells"]]
    sheets = data.get("worksheets")
    if (
        isinstance(sheets, list)
        and sheets
        and all(isinstance(w, dict) and isinstance(w.get("cells", []), list) for w in sheets)
    ):
        return [w.get("cells", []) for w in sheets]
    return None


def executable_source(source: str) -> str:
    """A code cell as the plain Python Jupyter runs: IPython's own input transformer turns magics,
    ``!`` commands, ``x = %magic`` and ``obj?`` into calls of ``get_ipython()`` (which the sandbox
    provides); ``%time``/``%%time``/``%%capture`` become the code they run, so that what they
    define is read and run like any other cell; otter calls (``import otter``, ``grader =
    otter.Notebook(...)``, ``grader.check(...)``) become ``pass``; and the student setup cell
    (:data:`SETUP_CELL_MARKER`) is dropped whole."""
    if source.lstrip().startswith(SETUP_CELL_MARKER):
        return ""
    text = _ipython_transform(source)
    if "get_ipython" in text:
        text = _inline_timing_magics(text)
    return _without_otter_calls(text)


_TRANSFORM_LOCK = threading.Lock()
_TRANSFORMER: list[Any] = []  # made on first use; a list, so the module's names never change
#: Magics that run their code in the notebook's namespace: read and run as that code.
INLINE_CELL_MAGICS = {"time", "capture", "prun"}
INLINE_LINE_MAGICS = {"time"}


def _ipython_transform(source: str) -> str:
    if not any(c in source for c in "%!?"):
        return source  # nothing IPython would change: skip its import and its work
    with _TRANSFORM_LOCK:
        try:
            if not _TRANSFORMER:
                from IPython.core.inputtransformer2 import TransformerManager

                _TRANSFORMER.append(TransformerManager())  # type: ignore[no-untyped-call]  # IPython's, unannotated
            return str(_TRANSFORMER[0].transform_cell(source))
        except Exception:  # noqa: BLE001 - IPython could not read it: Python will say why
            return source


def _magic_call(node: ast.AST) -> tuple[str, str, str | None] | None:
    """``(kind, name, code)`` for ``get_ipython().run_line_magic(name, code)`` or
    ``get_ipython().run_cell_magic(name, line, code)`` with constant arguments."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
        return None
    base = node.func.value
    if not (isinstance(base, ast.Call) and isinstance(base.func, ast.Name) and base.func.id == "get_ipython"):
        return None
    args = [a.value if isinstance(a, ast.Constant) and isinstance(a.value, str) else None for a in node.args]
    if node.func.attr == "run_line_magic" and len(args) == 2 and args[0] and args[1] is not None:
        return "line", args[0], args[1]
    if node.func.attr == "run_cell_magic" and len(args) == 3 and args[0] and args[2] is not None:
        return "cell", args[0], args[2]
    return None


def _inline_timing_magics(text: str) -> str:
    try:
        tree = parse_python(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return text
    for stmt in tree.body:
        if isinstance(stmt, ast.Expr) and (found := _magic_call(stmt.value)):
            kind, name, code = found
            if kind == "cell" and name in INLINE_CELL_MAGICS and len(tree.body) == 1:
                return executable_source(code or "")
    lines = text.splitlines()
    edits = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        found = _magic_call(node)
        if not found or found[0] != "line" or found[1] not in INLINE_LINE_MAGICS:
            continue
        code = (found[2] or "").strip()
        if "\n" in code or node.lineno != node.end_lineno:
            continue
        edits.append((node.lineno, node.col_offset, node.end_col_offset or 0, code))
    for lineno, start, end, code in sorted(edits, reverse=True):
        line = lines[lineno - 1]
        encoded = line.encode("utf-8")
        before, after = encoded[:start].decode("utf-8"), encoded[end:].decode("utf-8")
        stripped = before.strip()
        lines[lineno - 1] = f"{before}{code}{after}" if not stripped else f"{before}({code}){after}"
    return "\n".join(lines)


def _is_otter_statement(stmt: ast.stmt) -> bool:
    if isinstance(stmt, ast.Import):
        return all(a.name == "otter" for a in stmt.names)
    if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call):
        func = stmt.value.func
        return (
            isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "otter"
        )
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        func = stmt.value.func
        return (
            isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "grader"
        )
    return False


def _without_otter_calls(text: str) -> str:
    if "otter" not in text and "grader." not in text:
        return text
    try:
        tree = parse_python(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return text
    lines = text.splitlines()
    for stmt in tree.body:
        if _is_otter_statement(stmt) and stmt.end_lineno is not None:
            indent = lines[stmt.lineno - 1][: stmt.col_offset]
            for n in range(stmt.lineno, stmt.end_lineno + 1):
                lines[n - 1] = ""
            lines[stmt.lineno - 1] = indent + "pass"
    return "\n".join(lines)


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


def needed_cells(cells: list[str], start: Collection[int], extra: str = "") -> list[int]:
    """The indices of ``start`` and, repeatedly, of every cell binding a name that a kept cell (or
    ``extra``, a known-wrong answer) reads, in order: the cells graded code needs. Teaching demos,
    which bind nothing that code reads, fall away (``validate`` and ``selfcheck`` run only these)."""
    names = [bound_and_read_names(source) for source in cells]
    keep = set(start)
    wanted = set((bound_and_read_names(extra) or (set(), set()))[1])
    for i in keep:
        wanted |= (names[i] or (set(), set()))[1]
    while more := {i for i, n in enumerate(names) if i not in keep and n and n[0] & wanted}:
        keep |= more
        for i in more:
            wanted |= (names[i] or (set(), set()))[1]
    return sorted(keep)


def defining_cells(cells: list[str], functions: Collection[str]) -> set[int]:
    """The cells defining ``functions``, and any cell that does not parse (kept: what it binds is
    unknown)."""
    return {
        i
        for i, source in enumerate(cells)
        if bound_and_read_names(source) is None or defined_names(source) & set(functions)
    }
