"""Source gates, decided in the grader from the submitted cells (never in the sandbox).

A gate such as "no Python loop" or "not `jnp.outer`" reads a function's source. Read inside the
sandbox, that source is whatever the submission makes it (a decoy ``__wrapped__``, an empty
string for a ``functools.partial`` or a callable object). Here the grader reads the cells' text
itself and fails closed: a gated function must be bound by a plain top-level ``def`` (with only
JAX or functools decorators) that nothing later rebinds, in a notebook that does not rewrite
functions or namespaces at run time (``exec``, ``globals()``, ``__code__``...). Anything else
scores 0 on the question, with a message asking for a plain function.
"""

from __future__ import annotations

import ast
import importlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from .notebooks import executable_source
from .probing import SourceFunction, SourceNamespace
from .probing.helpers import parse_python

#: Calls that bind or rewrite names out of the parser's sight.
DYNAMIC_CALLS = {"exec", "eval", "compile", "globals", "locals", "vars", "setattr", "delattr", "__import__"}
#: Attributes through which a function or a namespace is rewritten at run time.
DYNAMIC_ATTRIBUTES = {
    "__wrapped__",
    "__code__",
    "__globals__",
    "__dict__",
    "__builtins__",
    "__closure__",
    "__defaults__",
    "__kwdefaults__",
    "__call__",
    "cell_contents",
    "f_globals",
    "f_locals",
    "f_back",
    "tb_frame",
    "gi_frame",
    "cr_frame",
    "modules",
}
#: Modules whose names may decorate a gated function (``jax.jit``, ``functools.partial``).
TRUSTED_MODULES = ("jax", "functools")
#: Modules whose imported names a gate may resolve to the real objects (to recognise
#: ``from jax import jacfwd`` used under its bare name).
RESOLVABLE_MODULES = ("jax", "numpy", "functools", "math")


@dataclass(frozen=True)
class _Binding:
    node: ast.stmt
    text: str
    top_level: bool


def _module_of(name: str, allowed: tuple[str, ...]) -> bool:
    return any(name == m or name.startswith(m + ".") for m in allowed)


class _Notebook:
    """The top-level bindings of a notebook's cells, in execution order."""

    def __init__(self, cells: Sequence[str]):
        self.bindings: dict[str, list[_Binding]] = {}
        self.imports: dict[str, tuple[str, str | None]] = {}  # alias -> (module, attribute)
        self.globals_declared: set[str] = set()
        self.dynamic: str | None = None
        for source in cells:
            text = executable_source(source)
            try:
                tree = parse_python(text)
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                continue  # it raised when run, and bound nothing
            self._scan_dynamic(tree)
            for stmt in tree.body:
                self._bind_statement(stmt, text, top_level=True)

    def _scan_dynamic(self, tree: ast.AST) -> None:
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and node.id in DYNAMIC_CALLS and self.dynamic is None:
                self.dynamic = f"`{node.id}`"
            elif isinstance(node, ast.Attribute) and node.attr in DYNAMIC_ATTRIBUTES and self.dynamic is None:
                self.dynamic = f"`.{node.attr}`"
            elif isinstance(node, ast.Global):
                self.globals_declared.update(node.names)

    def _add(self, name: str, stmt: ast.stmt, text: str, top_level: bool) -> None:
        self.bindings.setdefault(name, []).append(_Binding(stmt, text, top_level))

    def _bind_statement(self, stmt: ast.stmt, text: str, *, top_level: bool) -> None:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            self._add(stmt.name, stmt, text, top_level)
            return
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            for alias in stmt.names:
                if isinstance(stmt, ast.Import):
                    bound = alias.asname or alias.name.split(".")[0]
                    target = (alias.name if alias.asname else alias.name.split(".")[0], None)
                else:
                    bound = alias.asname or alias.name
                    target = (stmt.module or "", alias.name)
                self._add(bound, stmt, text, top_level)
                if top_level and (isinstance(stmt, ast.Import) or stmt.level == 0):
                    self.imports[bound] = target
            return
        # Every other statement: the names it stores at module level, then its nested blocks
        # (an `if`, `for`, `with` or `try` at top level runs at module level too).
        for node in ast.walk(stmt):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                if node is not stmt and isinstance(
                    node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
                ):
                    self._add(node.name, stmt, text, False)
                continue
            if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
                self._add(node.id, stmt, text, False)
            elif isinstance(node, (ast.Import, ast.ImportFrom)) and node is not stmt:
                for alias in node.names:
                    self._add(alias.asname or alias.name.split(".")[0], stmt, text, False)

    def trusted_root(self, name: str) -> bool:
        """``name`` is only ever bound by an import from a trusted module."""
        found = self.bindings.get(name, [])
        return (
            bool(found)
            and all(isinstance(b.node, (ast.Import, ast.ImportFrom)) and b.top_level for b in found)
            and name in self.imports
            and _module_of(self.imports[name][0], TRUSTED_MODULES)
        )

    def trusted_decorator(self, node: ast.expr) -> bool:
        if isinstance(node, ast.Call):
            return self.trusted_decorator(node.func) and (
                not node.args or self.trusted_decorator(node.args[0]) or _name_of(node.func) != "partial"
            )
        while isinstance(node, ast.Attribute):
            node = node.value
        return isinstance(node, ast.Name) and self.trusted_root(node.id)

    def why_not_plain(self, name: str) -> str | None:
        """Why ``name`` is not a plain top-level ``def`` the grader can read, or ``None``."""
        if self.dynamic is not None:
            return f"the notebook uses {self.dynamic}, which can change any function while it runs"
        found = self.bindings.get(name)
        if not found:
            return "is not defined with `def` in the notebook"
        last = found[-1]
        if not (isinstance(last.node, ast.FunctionDef) and last.top_level and last.node.name == name):
            kind = type(last.node).__name__
            return f"is bound by {'an' if kind[0] in 'AEIOU' else 'a'} {kind} statement, not by a plain `def`"
        if name in self.globals_declared:
            return "is rebound through a `global` statement"
        if not all(self.trusted_decorator(d) for d in last.node.decorator_list):
            return "has a decorator the grader cannot see through (only jax and functools ones are allowed)"
        return None

    def source(self, name: str, seen: set[str] | None = None) -> str:
        """The ``def`` of ``name`` and, recursively, the definitions of the notebook names it
        uses (helpers are gated with it)."""
        seen = set() if seen is None else seen
        if name in seen or name not in self.bindings:
            return ""
        seen.add(name)
        binding = self.bindings[name][-1]
        if isinstance(binding.node, (ast.Import, ast.ImportFrom)):
            return ""
        text = ast.get_source_segment(binding.text, binding.node, padded=False) or ""
        parts = [text]
        for node in ast.walk(binding.node):
            if isinstance(node, ast.Name) and node.id != name:
                parts.append(self.source(node.id, seen))
        return "\n".join(p for p in parts if p)

    def resolved_imports(self) -> dict[str, Any]:
        """Imported names bound to the real objects, for modules the grader may import."""
        out: dict[str, Any] = {}
        for alias, (module, attr) in self.imports.items():
            if not _module_of(module, RESOLVABLE_MODULES):
                continue
            try:
                obj: Any = importlib.import_module(module)
                if attr is not None:
                    obj = getattr(obj, attr)
            except Exception:  # noqa: BLE001, S112 - a name that does not resolve is just unknown
                continue
            out[alias] = obj
        return out


def _name_of(node: ast.expr) -> str:
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


def source_namespace(cells: Sequence[str], functions: Iterable[str]) -> SourceNamespace:
    """What source probes see of a submission: each of ``functions`` as a :class:`SourceFunction`,
    or the reason it cannot be read."""
    nb = _Notebook(cells)
    resolved = nb.resolved_imports()
    entries: dict[str, SourceFunction | str] = {}
    for name in functions:
        why = nb.why_not_plain(name)
        entries[name] = why if why else SourceFunction(name, nb.source(name), resolved)
    return SourceNamespace(entries)
