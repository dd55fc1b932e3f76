"""Source gates, decided in the grader from the submitted cells (never in the sandbox).

A gate such as "no Python loop" or "not `jnp.outer`" reads the code a function runs. Read inside
the sandbox, that code is whatever the submission makes it; here the grader reads the cells'
text and resolves names as Python does when the probes call the function, after the last cell:

- **Locals are locals.** Parameters and names a function binds are its own; they are never
  followed to a notebook global of the same name.
- **A global name means its last binding in the notebook's order** (the one visible when the
  function runs), and only names the function really reaches are followed: a helper ``def``, a
  top-level assignment (``f = jax.jit(f)``), an import. Test and demo cells are read only where
  the answer reaches a name they bind.
- **What the gate reads is canonical text** (:func:`source_namespace`): every name that resolves
  to an import is written as the library's full dotted path (``from jax.nn import softmax as _sm``
  reads ``jax.nn.softmax``), notebook names as ``nb__name`` and locals as ``l__name``, so a
  judge's bare name (``log_softmax``) matches the library object, never a student's helper or
  local of that name. Annotations that run (a def's, a class body's) are read as code; a
  function's local ones, and those of a cell under ``from __future__ import annotations``, are
  left out (they never run).
- **Scopes are CPython's own**: a function's locals and every global a statement binds come
  from :mod:`symtable` (a ``:=`` in a default or a decorator, ``global`` in a class body, a match
  capture); a binding the reading below does not model is a binding it cannot read.
- **Classes are namespaces**: a notebook class whose body only names values and defines methods
  is read like a ``def`` (an exception class the answer raises, ``Const.EPS``), also under
  ``@dataclasses.dataclass`` and JAX's pytree registrations (``CFG = Config()``).
- **It proves or asks.** What it cannot resolve gets a message naming the cell and line, and the
  grader holds the question for the instructor's review (*cannot tell*, never a silent zero): a
  name bound inside an ``if``/``for``/``try``, by ``global``, by a star import or by unpacking; a
  decorator other than JAX's transformations and ``functools.partial`` of them; a module that is
  neither a known library nor an inert standard one (``logging``; ``os.environ`` and a few other
  names of ``os`` and ``sys``); a name nothing binds and Python does not provide;
  ``exec``/``eval``; and writes that can rebind a function at run time (``globals()[...] = ``,
  ``f.__code__ = ``, ``jnp.sum = ``, ``sys.modules`` edits), and lookups by string through a
  library or a special method (``operator.attrgetter``, ``typing.get_type_hints``,
  ``object.__getattribute__``). Reading ``globals()``, ``vars(obj)``
  or ``sys.modules`` (``"google.colab" in sys.modules``) is harmless and fails nothing, and so is
  a module used as a value (``for xp in (np, jnp)``) where nothing writes an attribute of an
  object the notebook cannot name as its own, a change in place that stores plain data
  (``CFG["scale"] = 1.0``) or a docstring, and an import of a module the grader lacks
  (``try: import wandb``): the sandbox cannot import it, as its own folder is not where
  modules are found (``sys.path`` edits, ``site`` and ``importlib`` are *cannot tell*).
- :mod:`.reading` runs all of this in a child process with a time and a memory limit, and adds
  one check that needs the installed libraries (listed by :mod:`.library_names` in a clean
  process, never by the sandbox): every attribute the answer reads is defined by a library or by
  the notebook's own objects.

Nothing here imports a module the submission names, or runs any of its code.
"""

from __future__ import annotations

import ast
import builtins
import functools
import hashlib
import importlib.machinery
import re
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..notebooks import executable_source
from ..probing import SourceFunction, SourceNamespace
from ..probing.helpers import parse_python

#: Libraries whose names a gated function may reach; each is written out in full for the judges.
LIBRARY_ROOTS = frozenset(
    {
        "jax", "jaxlib", "numpy", "scipy", "math", "cmath", "functools", "itertools", "operator",
        "typing", "collections", "dataclasses", "numbers", "enum", "abc", "string", "re", "time",
        "warnings", "copy", "statistics", "random", "fractions", "decimal", "optax", "flax",
        "equinox", "haiku", "chex", "matplotlib",
    }
)  # fmt: skip
#: Standard modules an answer may use whole: logging, formatting and data helpers that run no
#: code of the notebook's and compute nothing a rule is about (a gate still reads every call).
INERT_MODULES = frozenset(
    {"logging", "datetime", "json", "pprint", "textwrap", "hashlib", "heapq", "bisect", "contextlib", "uuid"}
)
#: Modules an answer may read only these names of: settings and facts about the machine, never a
#: way to run or rebind code (``os.system``, ``sys.modules``).
PARTIAL_MODULES = {
    "os": frozenset({"environ", "getenv", "path", "sep", "linesep", "cpu_count", "getpid", "name", "fspath"}),
    "sys": frozenset({"version", "version_info", "platform", "stdout", "stderr", "maxsize", "float_info"}),
}
#: What a gated function may be wrapped in (decorator or call) and still be read as its ``def``.
WRAPPERS = frozenset(
    {
        "jax.jit", "jax.vmap", "jax.checkpoint", "jax.remat", "jax.custom_jvp", "jax.custom_vjp",
        "jax.named_call", "jax.pmap", "jax.shard_map", "jax.experimental.shard_map.shard_map",
        "functools.partial", "functools.cache", "functools.lru_cache", "functools.wraps",
    }
)  # fmt: skip
#: Builtins that read or write names by string, or run text as code: a gated function that
#: reaches one cannot be read.
OPAQUE_BUILTINS = frozenset(
    {"exec", "eval", "compile", "globals", "locals", "vars", "getattr", "setattr", "delattr",
     "__import__", "breakpoint"}
)  # fmt: skip
#: Library functions that find an attribute by a string, or evaluate a string as code, and the
#: special methods that do: a gated function that reaches one cannot be read (as ``getattr``).
NAME_LOOKUPS = frozenset(
    {"operator.attrgetter", "operator.methodcaller", "typing.get_type_hints", "typing.ForwardRef",
     "typing._eval_type", "typing.evaluate_forward_ref", "string.Formatter"}
)  # fmt: skip
#: ``ForwardRef._evaluate`` and its code: a ``typing.Optional["jnp.outer"]`` holds one made
#: without naming ``typing.ForwardRef``.
LOOKUP_ATTRIBUTES = frozenset({"__getattribute__", "__getattr__", "_evaluate", "__forward_code__"})
#: Expressions that hand out a namespace (dict of names) or a frame.
NAMESPACE_CALLS = frozenset({"globals", "vars", "locals", "get_ipython", "__import__"})
NAMESPACE_FUNCTIONS = frozenset(
    {"sys._getframe", "inspect.currentframe", "inspect.stack", "inspect.getouterframes",
     "importlib.import_module", "importlib.reload", "gc.get_objects", "gc.get_referrers",
     "gc.get_referents"}
)  # fmt: skip
NAMESPACE_ATTRIBUTES = frozenset(
    {"__dict__", "__globals__", "__builtins__", "f_globals", "f_locals", "f_back", "tb_frame",
     "gi_frame", "cr_frame", "ag_frame", "user_ns", "user_global_ns", "cell_contents"}
)  # fmt: skip
NAMESPACE_MODULES = frozenset(
    {"sys.modules", "sys.path", "sys.meta_path", "sys.path_hooks", "__main__", "builtins"}
)
#: Modules that load or patch code by other routes than an import statement.
MODULE_LOADERS = frozenset({"ctypes", "importlib", "runpy", "imp", "zipimport", "pkgutil", "site"})
#: Modules one of whose functions hands out namespaces or frames: reading their attributes by a
#: computed name could reach one (a library's, `getattr(jax, name)`, reads a function).
INTROSPECTION_ROOTS = frozenset(
    {"gc", "sys", "inspect", "importlib", "builtins", "__main__", "ctypes", "types"}
)
#: Attributes whose assignment replaces what a function runs.
CODE_ATTRIBUTES = frozenset(
    {"__code__", "__closure__", "cell_contents", "__wrapped__", "__defaults__", "__kwdefaults__",
     "__globals__", "__dict__", "__class__", "__call__", "__get__"}
)  # fmt: skip
#: Methods that change the mapping or list they are called on.
MUTATING_METHODS = frozenset(
    {"update", "setdefault", "pop", "popitem", "clear", "__setitem__", "__delitem__", "__setattr__",
     "__delattr__", "insert", "append", "extend", "remove", "__init__"}
)  # fmt: skip
#: Uses of a namespace that only read it.
READING_CALLS = frozenset(
    {"print", "len", "list", "sorted", "repr", "str", "set", "dict", "isinstance", "bool", "type",
     "id", "hash", "any", "all", "tuple", "display", "format", "iter", "next", "enumerate", "help",
     "dir"}
)  # fmt: skip
#: What IPython's input transformer writes for magics, `!` and `?`: the sandbox's shell runs
#: these (see :class:`autograder.sandbox.execution.Shell`); none of them binds a name but the code of
#: `%timeit` and friends, which is read as code.
SHELL_METHODS = frozenset({"run_line_magic", "run_cell_magic", "system", "getoutput"})
_TIMEIT_OPTIONS = re.compile(r"^\s*(?:-[nrp]\s*\S+\s+|-\w+\s+)*")
READING_METHODS = frozenset(
    {"get", "keys", "items", "values", "copy", "__contains__", "__getitem__", "count", "index"}
)

END = 1 << 40  # the position of "when the probes run": after every cell
#: Names IPython gives a notebook's namespace without a statement binding them.
IPYTHON_NAMES = frozenset({"display", "get_ipython", "In", "Out", "_", "__", "___", "exit", "quit"})
_BUILTINS = frozenset(dir(builtins))


@dataclass(frozen=True)
class Where:
    cell: int
    line: int

    def __str__(self) -> str:
        return f"code cell {self.cell + 1}, line {self.line}"


@dataclass(frozen=True)
class Binding:
    """One binding of a global name (``"*"``: of any name) at a position in the notebook."""

    name: str
    pos: int
    kind: str  # "def", "import", "assign" or "opaque"
    where: Where
    node: ast.AST | None = None  # the def, or the assigned value
    module: str = ""  # for an import: the full dotted path it binds
    why: str = ""  # for an opaque binding: what it is, for the message

    @property
    def canonical(self) -> str:
        return f"nb__{self.name}__{self.pos}"


class GateError(Exception):
    """The gated function cannot be read as Python would run it; the message says why."""


@dataclass
class _Scope:
    names: set[str]
    is_function: bool
    is_class: bool = False
    """a class body's names, seen by the body itself but not by the functions inside it"""


def _stored_names(node: ast.AST) -> Iterator[tuple[str, ast.AST]]:
    """Names a statement binds in the scope it runs in (nested function, class and
    comprehension scopes left out, a walrus in a comprehension included)."""
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if n is not node:
                yield n.name, n
                stack.extend(n.decorator_list)
                continue
        if isinstance(n, ast.Lambda) and n is not node:
            stack.extend(n.args.defaults + [d for d in n.args.kw_defaults if d is not None])
            continue
        if isinstance(n, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            for sub in ast.walk(n):
                if isinstance(sub, ast.NamedExpr) and isinstance(sub.target, ast.Name):
                    yield sub.target.id, sub
            stack.append(n.generators[0].iter)
            continue
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            yield n.id, n
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            for a in n.names:
                if a.name != "*":
                    yield (a.asname or a.name.split(".")[0]), n
        elif isinstance(n, ast.ExceptHandler) and n.name:
            yield n.name, n
        elif isinstance(n, (ast.MatchAs, ast.MatchStar)) and n.name:
            yield n.name, n
        elif isinstance(n, ast.MatchMapping) and n.rest:
            yield n.rest, n
        stack.extend(ast.iter_child_nodes(n))


_LOCALS: dict[int, tuple[ast.AST, frozenset[str]]] = {}


def _function_locals(fn: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> set[str]:
    """The names local to ``fn`` (its parameters and every name it binds, not those it declares
    ``global`` or ``nonlocal``), as CPython's own :mod:`symtable` scopes them; memoised."""
    import symtable

    kept = _LOCALS.get(id(fn))
    if kept is not None and kept[0] is fn:
        return set(kept[1])
    try:
        source = ast.unparse(fn) if not isinstance(fn, ast.Lambda) else f"_ = {ast.unparse(fn)}"
        table = symtable.symtable(source, "<function>", "exec").get_children()[0]
        names = frozenset(
            s.get_name()
            for s in table.get_symbols()
            if (s.is_local() or s.is_parameter()) and not s.is_declared_global() and not s.is_nonlocal()
        )
    except (SyntaxError, ValueError, IndexError, RecursionError, MemoryError):
        names = frozenset(_function_locals_by_hand(fn))  # a `nonlocal` of an enclosing function
    if len(_LOCALS) > 100_000:
        _LOCALS.clear()
    _LOCALS[id(fn)] = (fn, names)
    return set(names)


def _function_locals_by_hand(fn: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> set[str]:
    args = fn.args
    params = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]}
    params |= {a.arg for a in (args.vararg, args.kwarg) if a is not None}
    if isinstance(fn, ast.Lambda):
        return params | {name for name, _ in _stored_names(fn.body)}
    declared: set[str] = set()
    bound = set(params)
    for stmt in fn.body:
        for sub in _walk_scope(stmt):
            if isinstance(sub, (ast.Global, ast.Nonlocal)):
                declared.update(sub.names)
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(stmt.name)  # a nested def binds its name here; its body is its own
        else:
            bound |= {name for name, _ in _stored_names(stmt)}
    return bound - declared


def _walk_scope(node: ast.AST) -> Iterator[ast.AST]:
    """``ast.walk`` that does not enter nested function, lambda or class bodies."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        if n is not node and isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        stack.extend(ast.iter_child_nodes(n))


#: Decorators of a method that the grader reads as the method itself.
METHOD_DECORATORS = frozenset({"staticmethod", "classmethod", "property"})
#: Class decorators that return the class they are given, adding only methods made from its
#: fields (``__init__`` stores them, ``__post_init__`` is the body's own), or registering it as a
#: pytree whose flatten and unflatten are its fields or its own methods: the class is read as
#: its body (bare, called with options, or through ``functools.partial``).
CLASS_DECORATORS = frozenset(
    {"dataclasses.dataclass", "jax.tree_util.register_dataclass", "jax.tree_util.register_pytree_node_class"}
)


def _unreadable_class(node: ast.ClassDef) -> str:
    """Why the grader cannot read the class ``node`` as a namespace (``""``: it can). A class is
    read when its body only names values and defines methods: no metaclass or keyword, no
    statement that runs code of its own (a loop, an ``if``, ``global``), no ``:=``; its
    decorators are checked where it is read (:data:`CLASS_DECORATORS`)."""
    if node.keywords:
        return "with a metaclass or keywords"
    if getattr(node, "type_params", None):
        return "with type parameters"
    for stmt in node.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if any(not (isinstance(d, ast.Name) and d.id in METHOD_DECORATORS) for d in stmt.decorator_list):
                return f"whose method `{stmt.name}` has a decorator"
            args = stmt.args
            now: list[ast.AST] = [*args.defaults, *(d for d in args.kw_defaults if d is not None)]
        elif isinstance(stmt, ast.Assign) and all(isinstance(t, ast.Name) for t in stmt.targets):
            now = [stmt.value]
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            now = [stmt.value] if stmt.value is not None else []
        elif isinstance(stmt, ast.Pass) or (
            isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)
        ):
            now = []
        else:
            what = _STATEMENT_WORDS.get(type(stmt).__name__, "a statement")
            return f"whose body holds {what} (line {stmt.lineno})"
        if any(isinstance(n, (ast.NamedExpr, ast.Lambda)) for v in now for n in ast.walk(v)):
            return f"whose body binds or hides a name in an expression (line {stmt.lineno})"
    return ""


def _dotted(node: ast.AST) -> list[str] | None:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return parts[::-1]
    return None


_STATEMENT_WORDS = {
    "For": "a for loop",
    "While": "a while loop",
    "If": "an if statement",
    "Try": "a try statement",
    "With": "a with statement",
    "Match": "a match statement",
    "AugAssign": "an augmented assignment",
    "Delete": "a del statement",
    "Assign": "an unpacking assignment",
}
#: Where a namespace's value may go and only be read.
_READING_PARENTS = (
    ast.Expr, ast.Compare, ast.If, ast.While, ast.IfExp, ast.Assert, ast.FormattedValue, ast.BoolOp,
    ast.UnaryOp, ast.comprehension,
)  # fmt: skip


class _Notebook:
    """Every binding of a global name in a notebook's cells, in execution order."""

    def __init__(self, cells: Sequence[str]):
        self.bindings: dict[str, list[Binding]] = {}
        self._changers: dict[tuple[int, str], bool] = {}  # (id of a def, parameter) -> changes it
        self.aliases: dict[str, str] = {}  # every import anywhere: alias -> module path
        self.modules: set[str] = set()  # aliases that name a module, not a function
        trees: list[tuple[int, ast.Module]] = []
        for i, source in enumerate(cells):
            try:
                trees.append((i, parse_python(executable_source(source))))
            except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
                continue  # it raised when run, and bound nothing
        for _, tree in trees:
            for node in ast.walk(tree):
                if isinstance(node, ast.Import):
                    for a in node.names:
                        alias = a.asname or a.name.split(".")[0]
                        self.aliases[alias] = a.name if a.asname else alias
                        self.modules.add(alias)
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    for a in node.names:
                        if a.name != "*":
                            self.aliases[a.asname or a.name] = f"{node.module}.{a.name}"
                            if _is_module(f"{node.module}.{a.name}"):
                                self.modules.add(a.asname or a.name)
        self.functions: dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]] = {}
        for _, tree in trees:
            for node in ast.walk(tree):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    self.functions.setdefault(node.name, []).append(node)
        self.trees = [tree for _, tree in trees]
        #: Cells under ``from __future__ import annotations``: their annotations are strings, never
        #: run (each cell is compiled on its own, so the import counts only in its cell).
        self.lazy_annotations = {
            i
            for i, tree in trees
            for node in tree.body
            if isinstance(node, ast.ImportFrom)
            and node.module == "__future__"
            and any(a.name == "annotations" for a in node.names)
        }
        self._collect_aliases(trees)
        #: Global names changed in place (``H["go"] = f``, ``H.append(f)``, ``f.go = g``), with
        #: when (``END``: inside a function), where, and the notebook function whose body does
        #: it (``None``: a top-level statement or a class): what they hold is decided at run time.
        self.mutated: dict[str, list[tuple[int, Where, Binding | None]]] = {}
        pos = 0
        for i, tree in trees:
            for stmt in tree.body:
                pos += 1
                before = {n for n, bs in self.bindings.items() for b in bs if b.pos in (pos, END)}
                self._bind(stmt, pos, i)
                self._scan_dynamic(stmt, pos, i)
                self._scan_mutations(stmt, pos, i, frozenset(), None)
                self._bound_unseen(stmt, pos, i, before)
        self._mutated_through_aliases(trees)

    @functools.cached_property
    def unknown_writes(self) -> list[str]:
        """Where the notebook writes an attribute (or the namespace) of an object it does not
        name as its own: not ``self``/``cls`` in a method, a notebook class or function, or a
        local made by calling a notebook class. A module handed on as a value is harmless
        without one."""
        classes = {n for n, bs in self.bindings.items() if any(b.kind == "class" for b in bs)}
        own = classes | set(self.functions)
        found: list[str] = []

        def visit(node: ast.AST, safe: set[str]) -> None:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                inner = set(safe)
                body: list[ast.stmt] = node.body if isinstance(node.body, list) else []
                made = {
                    t.id
                    for st in ast.walk(ast.Module(body=body, type_ignores=[]))
                    if isinstance(st, ast.Assign) and isinstance(st.value, ast.Call)
                    and isinstance(st.value.func, ast.Name) and st.value.func.id in classes
                    for t in st.targets if isinstance(t, ast.Name)
                }  # fmt: skip
                for child in ast.iter_child_nodes(node):
                    visit(child, inner | made)
                return
            if isinstance(node, ast.ClassDef):
                for st in node.body:
                    if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)) and st.args.args:
                        visit(st, safe | {st.args.args[0].arg})
                    else:
                        visit(st, safe)
                return
            target: ast.AST | None = None
            if isinstance(node, ast.Attribute) and isinstance(node.ctx, (ast.Store, ast.Del)):
                target = node.value
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in ("setattr", "delattr", "vars")
                and node.args
            ):
                target = node.args[0]
            elif isinstance(node, ast.Attribute) and node.attr in ("__dict__", "__setattr__", "__delattr__"):
                target = node.value
            if target is not None:
                root = _root_name(target)
                if root is None or root not in (safe | own):
                    found.append(f"`{ast.unparse(node)[:40]}` (line {getattr(node, 'lineno', 0)})")
            for child in ast.iter_child_nodes(node):
                visit(child, safe)

        for tree in self.trees:
            made = {
                t.id
                for st in tree.body
                if isinstance(st, ast.Assign) and isinstance(st.value, ast.Call)
                and isinstance(st.value.func, ast.Name) and st.value.func.id in classes
                for t in st.targets if isinstance(t, ast.Name)
            }  # fmt: skip
            visit(tree, made)
        return found

    def _bound_unseen(self, stmt: ast.stmt, pos: int, cell: int, before: set[str]) -> None:
        """Every global name CPython's own :mod:`symtable` says ``stmt`` binds, that the model
        above did not bind (a ``:=`` in a default or a decorator, ``global`` in a class body, a
        match capture...), is bound in a way the grader does not read: *cannot tell* for any
        function that reaches it. Complete by construction: symtable is the compiler's."""
        import symtable

        try:
            top = symtable.symtable(ast.unparse(stmt), "<cell>", "exec")
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            self._add(
                Binding(
                    "*", pos, "opaque", Where(cell, stmt.lineno), why="a statement the grader cannot parse"
                )
            )
            return
        here = {n for n, bs in self.bindings.items() for b in bs if b.pos in (pos, END)} - before
        modelled = here | {n for n, bs in self.bindings.items() for b in bs if b.pos == pos}
        bound = {sym.get_name() for sym in top.get_symbols() if sym.is_assigned() or sym.is_imported()}
        later: set[str] = set()
        tables = list(top.get_children())
        while tables:
            table = tables.pop()
            tables.extend(table.get_children())
            for sym in table.get_symbols():
                if sym.is_declared_global() and sym.is_assigned():
                    later.add(sym.get_name())
        where = Where(cell, stmt.lineno)
        for name in sorted(bound - modelled - {"*"}):
            self._add(
                Binding(
                    name, pos, "opaque", where, why=f"is bound in a way the grader does not read ({where})"
                )
            )
        for name in sorted(later - {n for n, bs in self.bindings.items() for b in bs if b.pos == END}):
            why = f"is rebound through `global {name}` inside a function or class ({where})"
            self._add(Binding(name, END, "opaque", where, why=why))

    def _collect_aliases(self, trees: list[tuple[int, ast.Module]]) -> None:
        """``m = jnp`` or ``m = jax.numpy`` (anywhere) makes ``m`` one more name of the module."""
        assigns = [
            node
            for _, tree in trees
            for node in ast.walk(tree)
            if isinstance(node, ast.Assign) and isinstance(node.value, (ast.Name, ast.Attribute))
        ]
        changed = True
        while changed:
            changed = False
            for node in assigns:
                value = node.value
                if isinstance(value, ast.Name) and value.id in self.modules:
                    path = self.aliases.get(value.id, value.id)
                elif isinstance(value, ast.Attribute) and _is_module(self._module_of(value) or ""):
                    path = self._module_of(value) or ""
                else:
                    continue
                for t in node.targets:
                    if isinstance(t, ast.Name) and t.id not in self.modules:
                        self.modules.add(t.id)
                        self.aliases[t.id] = path
                        changed = True

    # -- bindings -------------------------------------------------------------------------------

    def _add(self, b: Binding) -> None:
        self.bindings.setdefault(b.name, []).append(b)

    def _bind(self, stmt: ast.stmt, pos: int, cell: int) -> None:
        where = Where(cell, stmt.lineno)
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self._add(Binding(stmt.name, pos, "def", where, stmt))
            return
        if isinstance(stmt, ast.ClassDef):
            unread = _unreadable_class(stmt)
            if unread:
                self._add(Binding(stmt.name, pos, "opaque", where, why=f"is a class {unread} ({where})"))
            else:
                self._add(Binding(stmt.name, pos, "class", where, stmt))
            return
        if isinstance(stmt, ast.Import):
            for a in stmt.names:
                module = a.name if a.asname else a.name.split(".")[0]
                self._add(Binding(a.asname or module, pos, "import", where, module=module))
            return
        if isinstance(stmt, ast.ImportFrom):
            for a in stmt.names:
                if a.name == "*":
                    self._add(
                        Binding("*", pos, "opaque", where, why=f"`from {stmt.module} import *` ({where})")
                    )
                elif stmt.level or not stmt.module:
                    self._add(
                        Binding(a.asname or a.name, pos, "opaque", where, why=f"a relative import ({where})")
                    )
                else:
                    self._add(
                        Binding(a.asname or a.name, pos, "import", where, module=f"{stmt.module}.{a.name}")
                    )
            return
        if isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.value is not None:
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            plain = True
            for t in targets:
                if isinstance(t, ast.Name):
                    self._add(Binding(t.id, pos, "assign", where, stmt.value))
                elif (
                    isinstance(t, (ast.Tuple, ast.List))
                    and isinstance(stmt.value, (ast.Tuple, ast.List))
                    and len(t.elts) == len(stmt.value.elts)
                    and all(isinstance(e, ast.Name) for e in t.elts)
                ):
                    for e, v in zip(t.elts, stmt.value.elts, strict=True):
                        assert isinstance(e, ast.Name)
                        self._add(Binding(e.id, pos, "assign", where, v))
                else:
                    plain = False
            if plain:
                # A walrus inside the value binds too.
                for sub in _walk_scope(stmt.value):
                    if isinstance(sub, ast.NamedExpr) and isinstance(sub.target, ast.Name):
                        self._add(Binding(sub.target.id, pos, "opaque", where, why=f"a `:=` ({where})"))
                return
        kind = type(stmt).__name__
        what = _STATEMENT_WORDS.get(kind, f"a {kind} statement")
        for name, _ in _stored_names(stmt):
            self._add(Binding(name, pos, "opaque", where, why=f"is bound inside {what} ({where})"))

    # -- changes in place ---------------------------------------------------------------------

    def _scan_mutations(
        self,
        node: ast.AST,
        pos: int,
        cell: int,
        local: frozenset[str],
        unit: Binding | None,
        parent: ast.AST | None = None,
    ) -> None:
        """Record each global name ``node`` changes in place; ``local``: the names of the
        functions ``node`` is inside, which are not the notebook's; ``unit``: the top-level
        ``def`` whose body it is in."""
        if isinstance(node, ast.ClassDef):
            unit = None
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            # Defaults and decorators run where the def stands; the body when it is called.
            now: list[ast.AST] = [*node.args.defaults, *(d for d in node.args.kw_defaults if d is not None)]
            body: list[ast.AST] = [node.body] if isinstance(node, ast.Lambda) else [*node.body]
            if not isinstance(node, ast.Lambda):
                now += node.decorator_list
            for sub in now:
                self._scan_mutations(sub, pos, cell, local, unit)
            if pos != END and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not local:
                # A top-level def: this one, not a later def of the same name.
                unit = next((b for b in self.bindings.get(node.name, []) if b.node is node), None)
            inner = local | _function_locals(node)
            for sub in body:
                self._scan_mutations(sub, END, cell, inner, unit)
            return
        root = _changed_in_place(node, self, parent)
        if root is not None and root not in local and not _stores_only_constants(node, parent):
            where = Where(cell, getattr(node, "lineno", 0))
            self.mutated.setdefault(root, []).append((pos, where, unit))
        for child in ast.iter_child_nodes(node):
            self._scan_mutations(child, pos, cell, local, unit, node)

    def _mutated_through_aliases(self, trees: list[tuple[int, ast.Module]]) -> None:
        """``G = H`` (anywhere): a change of ``G`` in place is a change of ``H``, and back."""
        pairs = [
            (t.id, node.value.id)
            for _, tree in trees
            for node in ast.walk(tree)
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Name)
            for t in node.targets
            if isinstance(t, ast.Name)
        ]
        changed = True
        while changed:
            changed = False
            for a, b in pairs:
                for x, y in ((a, b), (b, a)):
                    if x in self.mutated and y not in self.mutated:
                        self.mutated[y] = list(self.mutated[x])
                        changed = True

    # -- run-time rebinding -----------------------------------------------------------------------

    def _module_of(self, node: ast.AST) -> str | None:
        """The module path an expression names through the notebook's imports, if any."""
        parts = _dotted(node)
        if not parts or parts[0] not in self.aliases:
            return None
        path = [*self.aliases[parts[0]].split("."), *parts[1:]]
        # A module reached as another's attribute (`os.sys`, `logging.sys.modules`) is that module.
        for i in range(len(path) - 1, 0, -1):
            if path[i] in INTROSPECTION_ROOTS | MODULE_LOADERS:
                return ".".join(path[i:])
        return ".".join(path)

    def _is_namespace(self, node: ast.AST) -> bool:
        if isinstance(node, ast.Call):
            if isinstance(node.func, ast.Name) and node.func.id in NAMESPACE_CALLS:
                return True
            if isinstance(node.func, ast.Name) and node.func.id == "getattr" and len(node.args) >= 2:
                base, attr = self._module_of(node.args[0]), node.args[1]
                if base is not None and isinstance(attr, ast.Constant) and isinstance(attr.value, str):
                    named = f"{base}.{attr.value}"
                    return (
                        named in NAMESPACE_FUNCTIONS | NAMESPACE_MODULES or attr.value in NAMESPACE_ATTRIBUTES
                    )
            path = self._module_of(node.func)
            return path in NAMESPACE_FUNCTIONS
        if isinstance(node, ast.Attribute) and node.attr in NAMESPACE_ATTRIBUTES:
            return True
        if isinstance(node, ast.Name) and node.id == "__builtins__":
            return True
        path = self._module_of(node)
        return path in NAMESPACE_MODULES

    def _scan_dynamic(self, stmt: ast.stmt, pos: int, cell: int) -> None:
        """Bindings that happen at run time, out of the statements' sight: through a namespace
        (``globals()[k] = ``), a code attribute, a module attribute, ``exec``, or ``global``."""
        parents: dict[ast.AST, ast.AST] = {}
        in_function: set[ast.AST] = set()
        for node in ast.walk(stmt):
            for child in ast.iter_child_nodes(node):
                parents[child] = node
                if node in in_function or isinstance(
                    node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
                ):
                    in_function.add(child)
        shells = set()
        for node in ast.walk(stmt):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in SHELL_METHODS
                and isinstance(node.func.value, ast.Call)
                and isinstance(node.func.value.func, ast.Name)
                and node.func.value.func.id == "get_ipython"
            ):
                shells.add(node.func.value)
                self._scan_magic(node, pos, cell)
        for node in ast.walk(stmt):
            if node in shells:
                continue
            at = END if node in in_function else pos
            where = Where(cell, getattr(node, "lineno", stmt.lineno))
            found = self._rebinding(node, parents)
            if found is not None:
                name, what = found
                if name == "*":
                    why = f"{what} ({where}) can replace any function while the notebook runs"
                else:
                    why = f"is replaced through {what} ({where}) while the notebook runs"
                self._add(Binding(name, at, "opaque", where, why=why))
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                declared = {n for sub in _walk_scope(node) if isinstance(sub, ast.Global) for n in sub.names}
                stored = {name for s in node.body for name, _ in _stored_names(s)}
                for name in sorted(declared & stored):
                    why = f"is rebound through `global {name}` in `{node.name}` ({where})"
                    self._add(Binding(name, END, "opaque", where, why=why))

    def _scan_magic(self, call: ast.Call, pos: int, cell: int) -> None:
        """A magic's code runs where the magic stands (``%timeit`` in a scope of its own, but
        a ``global`` there reaches the notebook's): what it binds is opaque, what it rewrites
        is found as in any cell."""
        if not (call.func.attr.startswith("run_") and len(call.args) >= 2):  # type: ignore[attr-defined]
            return
        first = call.args[0]
        name = first.value if isinstance(first, ast.Constant) and isinstance(first.value, str) else None
        code = call.args[-1]
        if name not in ("timeit", "time", "capture", "prun"):
            return
        if not (isinstance(code, ast.Constant) and isinstance(code.value, str)):
            return
        text = code.value
        if call.func.attr == "run_line_magic":  # type: ignore[attr-defined]
            text = _TIMEIT_OPTIONS.sub("", text)
        try:
            tree = parse_python(executable_source(text))
        except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
            return
        where = Where(cell, call.lineno)
        for stmt in tree.body:
            for bound, _ in _stored_names(stmt):
                self._add(Binding(bound, pos, "opaque", where, why=f"is bound inside `%{name}` ({where})"))
            self._scan_dynamic(stmt, pos, cell)

    def _rebinding(self, node: ast.AST, parents: dict[ast.AST, ast.AST]) -> tuple[str, str] | None:
        """``(name or "*", what)`` when ``node`` can rebind a global name at run time."""
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            if node.func.id in ("exec", "eval"):
                return "*", f"`{node.func.id}(...)`"
            module = (
                self._module_of(node.args[0]) if node.func.id == "getattr" and len(node.args) >= 2 else None
            )
            if module is not None and module.split(".")[0] in INTROSPECTION_ROOTS:
                if not (isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str)):
                    return "*", f"`{ast.unparse(node)[:50]}`, a module's attribute found by a computed name,"
            if node.func.id in ("setattr", "delattr") and node.args:
                target = node.args[0]
                if (
                    self._is_namespace(target)
                    or self._module_of(target) is not None
                    or _names_a_class(target)
                ):
                    return "*", f"`{node.func.id}` on a module"
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for a in node.names:
                module = node.module if isinstance(node, ast.ImportFrom) else a.name
                top = (module or "").split(".")[0]
                if top in MODULE_LOADERS:
                    return "*", f"`import {module}`"
                # A module that is not installed rebinds nothing: the sandbox writes only into
                # its own folder, which is not where modules are found, so such an import fails
                # there unless the notebook changes where modules are found, and every way to
                # (`sys.path`, `sys.meta_path`, `site`, `importlib`...) fails closed on its own.
                # What it would bind is an import the gates do not read (``try: import wandb``).
        if isinstance(node, (ast.Attribute, ast.Subscript)) and isinstance(node.ctx, (ast.Store, ast.Del)):
            if isinstance(node, ast.Attribute) and node.attr in CODE_ATTRIBUTES:
                base = node.value
                name = base.id if isinstance(base, ast.Name) else "*"
                return name, f"assigning `.{node.attr}`"
            if isinstance(node, ast.Attribute) and self._module_of(node.value) is not None:
                return "*", f"assigning `{ast.unparse(node)}`"
            if isinstance(node, ast.Attribute) and _names_a_class(node.value):
                return "*", f"assigning `{ast.unparse(node)[:50]}` (a class found at run time)"
            base = node.value
            while True:
                if self._is_namespace(base):
                    key = node.slice if isinstance(node, ast.Subscript) and base is node.value else None
                    name = key.value if isinstance(key, ast.Constant) and isinstance(key.value, str) else "*"
                    return name, f"writing into `{ast.unparse(base)[:40]}`"
                if isinstance(base, (ast.Attribute, ast.Subscript)):
                    base = base.value
                elif isinstance(base, ast.Call):
                    base = base.func
                else:
                    return None
        if self._is_namespace(node):
            return self._escapes(node, parents)
        if isinstance(node, (ast.Name, ast.Attribute)) and isinstance(node.ctx, ast.Load):
            parent = parents.get(node)
            if isinstance(parent, ast.Attribute) and parent.value is node:
                return None  # the value is the attribute read, not this
            if isinstance(node, ast.Name) and node.id in self.modules:
                return self._module_escapes(node, parents)
            path = self._module_of(node)
            if path is not None and _is_module(path):
                return self._module_escapes(node, parents)
            if path is not None or _names_a_class(node):
                return self._handed_to_a_writer(node, parents)
        if isinstance(node, ast.Call) and _names_a_class(node):
            return self._handed_to_a_writer(node, parents)
        return None

    def _handed_to_a_writer(self, node: ast.expr, parents: dict[ast.AST, ast.AST]) -> tuple[str, str] | None:
        """A library's function or class (or any object's class) handed to a notebook function
        that writes attributes of that parameter: it could add a name to the library that a gated
        function then calls (``plant(jax.Array)`` with ``c.times = ...``)."""
        parent = parents.get(node)
        if not (
            isinstance(parent, ast.Call) and parent.func is not node and isinstance(parent.func, ast.Name)
        ):
            return None
        if self._passed_to_changer(node, parent, parent.func.id):
            what = f"`{ast.unparse(parent)[:50]}` hands `{ast.unparse(node)[:30]}` to a function that"
            return "*", f"{what} sets its attributes"
        return None

    def _passed_to_changer(self, node: ast.expr, call: ast.Call, func: str, depth: int = 0) -> bool:
        """Whether the notebook's function ``func`` (any of its definitions) changes in place
        the parameter that ``node`` is passed as in ``call``, itself or through the notebook
        functions it hands it to (``*args`` and ``**kwargs`` count as changed). Each
        (definition, parameter) is read once (memoised): chains of helpers cost time linear in
        the notebook, and a cycle of calls adds no change of its own."""
        index = next((i for i, a in enumerate(call.args) if a is node), None)
        keyword = next((k.arg for k in call.keywords if k.value is node), None)
        for fn in self.functions.get(func, []):
            params = [a.arg for a in [*fn.args.posonlyargs, *fn.args.args]]
            name = params[index] if index is not None and index < len(params) else keyword
            if name is None or name not in params + [a.arg for a in fn.args.kwonlyargs]:
                return True
            if self._changes_parameter(fn, name):
                return True
        return False

    def _changes_parameter(self, fn: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> bool:
        key = (id(fn), name)
        known = self._changers.get(key)
        if known is not None:
            return known
        self._changers[key] = False  # in progress: a call back into it adds nothing new
        parents = {child: n for n in ast.walk(fn) for child in ast.iter_child_nodes(n)}
        found = False
        for sub in ast.walk(fn):
            if _changed_in_place(sub, self, parents.get(sub), follow_calls=False) in (name, "*"):
                found = True
            elif isinstance(sub, ast.Assign) and isinstance(sub.value, ast.Name) and sub.value.id == name:
                found = True  # another name for it, which could be changed instead
            elif isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name) and sub.func.id == "vars":
                found = bool(sub.args) and _root_name(sub.args[0]) == name
            elif (
                isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name) and sub.func.id in self.functions
            ):
                found = any(
                    _root_name(arg) == name and self._passed_to_changer(arg, sub, sub.func.id)
                    for arg in [*sub.args, *(k.value for k in sub.keywords)]
                )
            if found:
                break
        self._changers[key] = found
        return found

    def _module_escapes(self, node: ast.expr, parents: dict[ast.AST, ast.AST]) -> tuple[str, str] | None:
        """A module used as a value: fine where it is read, named again (``m = jnp`` makes ``m``
        an alias, whose attribute writes are caught), or handed to a function that never writes
        attributes of that parameter; anywhere else it could be patched out of sight."""
        parent = parents.get(node)
        if parent is None or isinstance(parent, (ast.Expr, ast.Compare, ast.FormattedValue)):
            return None
        if isinstance(parent, ast.Attribute) and parent.value is node:
            return None
        if isinstance(parent, ast.Assign) and all(isinstance(t, ast.Name) for t in parent.targets):
            return None  # an alias (see _collect_aliases)
        if isinstance(parent, ast.Call) and parent.func is not node:
            func = parent.func
            if not isinstance(func, ast.Name) or func.id in READING_CALLS | NAMESPACE_CALLS | {
                "getattr",
                "hasattr",
            }:
                return None  # a library call, or one that only reads
            defs = self.functions.get(func.id, [])
            if not defs and func.id not in _BUILTINS:
                return None
            if defs and not self._passed_to_changer(node, parent, func.id):
                return None
        if not self.unknown_writes:
            # Nothing in the notebook writes an attribute of an object it cannot name (a loop
            # variable, a parameter): the module can be compared, looped over or handed on, and
            # nothing can write through it (`for xp in (np, jnp)`, `def f(v, xp=jnp)`).
            return None
        where = ast.unparse(parent)[:50]
        first = self.unknown_writes[0]
        return (
            "*",
            f"`{where}` passes the module `{ast.unparse(node)}` on, and {first} could write through it",
        )

    def _escapes(self, node: ast.AST, parents: dict[ast.AST, ast.AST]) -> tuple[str, str] | None:
        """A namespace expression used in a way that may write into it (``None``: only read)."""
        top = node
        while True:
            parent = parents.get(top)
            if isinstance(parent, (ast.Attribute, ast.Subscript)) and parent.value is top:
                if isinstance(parent.ctx, (ast.Store, ast.Del)):
                    return None  # reported as a write by the caller's visit of `parent`
                top = parent
                continue
            if isinstance(parent, ast.Call) and parent.func is top:
                method = top.attr if isinstance(top, ast.Attribute) else ""
                if method in MUTATING_METHODS:
                    return "*", f"`{ast.unparse(parent)[:50]}`"
                if method in READING_METHODS or self._is_namespace(parent):
                    top = parent
                    continue
                return "*", f"`{ast.unparse(parent)[:50]}`"
            break
        parent = parents.get(top)
        if parent is None or isinstance(parent, _READING_PARENTS):
            return None
        if isinstance(parent, ast.For) and parent.iter is top:
            return None
        if (
            isinstance(parent, ast.Call)
            and isinstance(parent.func, ast.Name)
            and parent.func.id in READING_CALLS
        ):
            return None
        if (
            isinstance(parent, ast.Call)
            and isinstance(parent.func, ast.Attribute)
            and parent.func.attr in ("print", "write")
        ):
            return None
        return "*", f"`{ast.unparse(parent)[:50]}`"

    # -- resolution -----------------------------------------------------------------------------

    def visible(self, name: str, pos: int) -> Binding | None:
        """The binding of ``name`` a reader at ``pos`` sees (``END``: when the probes run)."""
        best: Binding | None = None
        for b in (*self.bindings.get(name, []), *self.bindings.get("*", [])):
            if b.pos < pos and (
                best is None or b.pos > best.pos or (b.pos == best.pos and b.kind == "opaque")
            ):
                best = b
        for b in (*self.bindings.get(name, []), *self.bindings.get("*", [])):
            if b.pos == END and b.kind == "opaque":
                return b  # may happen whenever a function runs
        return best


#: Methods of the built-in containers that change them in place (``MUTATING_METHODS`` and these).
IN_PLACE_METHODS = MUTATING_METHODS | frozenset(
    {"add", "discard", "appendleft", "extendleft", "sort", "reverse", "__iadd__", "__ior__"}
)
#: Functions whose first argument they change in place.
IN_PLACE_FUNCTIONS = frozenset(
    {"setattr", "delattr", "operator.setitem", "operator.delitem", "operator.iadd", "operator.ior",
     "operator.iconcat"}
)  # fmt: skip


def _root_name(node: ast.AST) -> str | None:
    """``H`` of ``H``, ``H.a``, ``H["k"]``, ``H.a["k"].b``."""
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


#: Built-in types whose changing methods, reached through the type (``dict.update``), change
#: their first argument.
CONTAINER_TYPES = frozenset({"dict", "list", "set", "object", "type", "bytearray"})


#: Attributes whose value no code reads to decide what to run.
DOC_ATTRIBUTES = frozenset({"__doc__", "__name__", "__qualname__", "__module__"})


def _constant(node: ast.AST | None) -> bool:
    """Whether ``node`` is plain data written out (``1.0``, ``-2``, ``'a'``, ``(1, 2)``,
    ``{'scale': 1.0}``): it holds no code, so storing it changes no rule a gate reads."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.UnaryOp):
        return _constant(node.operand)
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return all(_constant(e) for e in node.elts)
    if isinstance(node, ast.Dict):
        return all(k is not None and _constant(k) for k in node.keys) and all(
            _constant(v) for v in node.values
        )
    return False


def _stores_only_constants(node: ast.AST, parent: ast.AST | None) -> bool:
    """Whether the change in place at ``node`` stores plain data only (``CFG['scale'] = 1.0``,
    ``CFG.update({'scale': 1.0})``) or a documentation attribute (``f.__doc__ = ...``)."""
    if isinstance(node, (ast.Attribute, ast.Subscript)) and isinstance(node.ctx, ast.Store):
        if isinstance(node, ast.Attribute) and node.attr in DOC_ATTRIBUTES:
            return True
        return isinstance(parent, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and _constant(parent.value)
    if isinstance(node, ast.Attribute) and isinstance(parent, ast.Call) and parent.func is node:
        args = [*parent.args, *(k.value for k in parent.keywords)]
        return (
            node.attr in ("update", "setdefault", "append", "extend", "insert")
            and bool(args)
            and all(_constant(a) for a in args)
        )
    return False


def _changed_in_place(
    node: ast.AST, nb: _Notebook, parent: ast.AST | None, *, follow_calls: bool = True
) -> str | None:
    """The name whose object ``node`` changes in place, if it does (``"*"``: an object the
    reading cannot name): a store or ``del`` of an item or attribute; a changing method of it,
    called or handed on (``H.update``, ``map(H.__setitem__, ...)``); ``setattr``,
    ``operator.setitem`` or a built-in type's changing method (``dict.update(H, ...)``) called on
    it, or handed on as a value; a notebook function that changes its argument (``fill(H)``;
    ``follow_calls=False`` leaves those to :meth:`_Notebook._passed_to_changer`)."""
    if isinstance(node, (ast.Attribute, ast.Subscript)) and isinstance(node.ctx, (ast.Store, ast.Del)):
        return _root_name(node.value)
    called = isinstance(parent, ast.Call) and parent.func is node
    first = parent.args[0] if called and isinstance(parent, ast.Call) and parent.args else None
    if isinstance(node, ast.Attribute) and node.attr in IN_PLACE_METHODS:
        if isinstance(node.value, ast.Name) and node.value.id in CONTAINER_TYPES:
            return (_root_name(first) if first is not None else None) or "*"
        return _root_name(node.value)
    if isinstance(node, (ast.Name, ast.Attribute)) and isinstance(node.ctx, ast.Load):
        name = node.id if isinstance(node, ast.Name) else None
        if name in IN_PLACE_FUNCTIONS or nb._module_of(node) in IN_PLACE_FUNCTIONS:
            return (_root_name(first) if first is not None else None) or "*"
    if (
        follow_calls
        and isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in nb.functions
    ):
        for arg in [*node.args, *(k.value for k in node.keywords)]:
            root = _root_name(arg)
            if root is not None and nb._passed_to_changer(arg, node, node.func.id):
                return root
    return None


_OPERATORS = (
    "add sub mul matmul truediv floordiv mod divmod pow lshift rshift and xor or lt le eq ne gt ge"
).split()
#: Special methods that, added to a class, change what its objects' attributes, calls,
#: operators, items or conversions do (an added `__annotations__` or `__doc__` changes nothing).
SPECIAL_METHODS = frozenset(
    [f"__{op}__" for op in _OPERATORS]
    + [f"__r{op}__" for op in _OPERATORS]
    + [f"__i{op}__" for op in _OPERATORS]
    + [
        f"__{name}__"
        for name in (
            "getattr getattribute call get getitem setitem iter next len bool index int float "
            "complex neg pos abs invert round contains array array_ufunc array_function jax_array "
            "array_priority enter exit hash format repr str"
        ).split()
    ]
)
#: Attributes that hand out an object's class (or classes), into which a write reaches every
#: object of that class, a library's included.
CLASS_ATTRIBUTES = frozenset({"__class__", "__mro__", "__bases__", "__base__", "__subclasses__"})


def _names_a_class(node: ast.AST) -> bool:
    """Whether ``node`` hands out some object's class: ``type(x)``, ``x.__class__``,
    ``C.__mro__[1]``, ``object.__subclasses__()``."""
    while isinstance(node, (ast.Subscript, ast.Call, ast.Attribute)):
        if isinstance(node, ast.Call):
            if isinstance(node.func, ast.Name) and node.func.id == "type" and len(node.args) == 1:
                return True
            node = node.func
        elif isinstance(node, ast.Attribute):
            if node.attr in CLASS_ATTRIBUTES:
                return True
            node = node.value
        else:
            node = node.value
    return False


def _search_path() -> list[str]:
    """Where installed modules are found: ``sys.path`` without the current folder (where a
    notebook could have written one). Handed to the finder, never written into ``sys.path``:
    other threads import while gates are read."""
    return [p for p in sys.path if p not in ("", ".")]


@functools.cache
def _is_module(path: str) -> bool:
    """Whether the dotted ``path`` names a module of this Python (``jax.numpy``, not
    ``jax.numpy.outer``), found from the installed files: nothing is imported and the current
    folder is not read. A name the grader has imported for itself counts too."""
    if not path:
        return False
    if path in sys.modules or path in sys.builtin_module_names:
        return True
    parts = path.split(".")
    try:
        spec = importlib.machinery.PathFinder.find_spec(parts[0], _search_path())
        for i in range(2, len(parts) + 1):
            if spec is None or not spec.submodule_search_locations:
                return False
            spec = importlib.machinery.PathFinder.find_spec(
                ".".join(parts[:i]), list(spec.submodule_search_locations)
            )
        return spec is not None
    except (ImportError, ValueError):
        return False


def _installed(top: str) -> bool:
    """Whether ``top`` is a module of this Python, found without importing it or reading the
    current folder."""
    if top in sys.builtin_module_names or top in sys.stdlib_module_names or top in LIBRARY_ROOTS:
        return True
    if top in (
        "__main__",
        "google",
        "IPython",
        "ipykernel",
        "otter",
        "pandas",
        "matplotlib",
        "tqdm",
        "seaborn",
    ):
        return True
    return _is_module(top)


@dataclass
class _Reader:
    """Reads one gated function: every unit of code it reaches, as canonical text."""

    nb: _Notebook
    texts: list[str] = field(default_factory=list)
    done: set[int] = field(default_factory=set)
    todo: list[Binding] = field(default_factory=list)

    def read(self, name: str) -> str:
        root = self.nb.visible(name, END)
        if root is None:
            raise GateError("is not defined in the notebook")
        self._check_root(root, name)
        self._visit(root)
        while self.todo:
            self._visit(self.todo.pop())
        return "\n\n".join(self.texts)

    def _check_root(self, b: Binding, name: str) -> None:
        """The gated name must be a function written in the notebook, possibly wrapped."""
        for _ in range(20):
            if b.kind == "opaque" and b.name == "*":
                raise GateError(f"cannot be read as written: {b.why}; remove that line")
            if b.kind == "opaque":
                raise GateError(b.why)
            if b.kind == "def":
                return
            if b.kind == "import":
                raise GateError(
                    f"is the library's `{b.module}` ({b.where}); write it with `def` in the notebook"
                )
            node = b.node
            while isinstance(node, ast.Call):
                path = self._path(node.func, b.pos)
                if isinstance(node.func, ast.Call):  # functools.partial(jax.jit, ...)(f)
                    inner = self._path(node.func.func, b.pos)
                    if inner != "functools.partial" or not node.args:
                        break
                elif path not in WRAPPERS or not node.args:
                    break
                node = node.args[0]
            if isinstance(node, ast.Lambda):
                return
            if isinstance(node, ast.Name):
                nxt = self.nb.visible(node.id, b.pos)
                if nxt is not None:
                    b = nxt
                    continue
            assert b.node is not None  # an "assign" binding (the kinds above returned or raised)
            raise GateError(
                f"is bound to `{ast.unparse(b.node)[:60]}` ({b.where}), not to a function written with `def`"
            )
        raise GateError("is bound in a chain the grader cannot follow")

    def _path(self, node: ast.AST, pos: int) -> str | None:
        parts = _dotted(node)
        if not parts:
            return None
        b = self.nb.visible(parts[0], pos)
        if b is None or b.kind != "import":
            return None
        return ".".join([b.module, *parts[1:]])

    def _visit(self, b: Binding) -> None:
        if b.pos in self.done and b.kind != "import":
            return
        self.done.add(b.pos)
        if b.kind in ("def", "assign", "class"):
            for pos, where, changer in [*self.nb.mutated.get(b.name, []), *self.nb.mutated.get("*", [])]:
                if pos <= b.pos:
                    continue
                if changer is None:
                    raise GateError(
                        f"reaches `{b.name}`, which the notebook changes in place after binding it "
                        f"({where}): what it holds is decided while the notebook runs, which the "
                        "grader cannot read; bind it once, in one statement"
                    )
                self.todo.append(changer)  # read what the function that changes it stores
        unit: ast.AST | None = None
        if b.kind == "def":
            assert isinstance(b.node, (ast.FunctionDef, ast.AsyncFunctionDef))
            for deco in b.node.decorator_list:
                self._check_decorator(deco, b)
            unit = _Canon(self, b).run(b.node)
            self.texts.append(ast.unparse(unit))
        elif b.kind == "assign":
            assert b.node is not None
            unit = _Canon(self, b).run(b.node)
            self.texts.append(f"{b.canonical} = {ast.unparse(unit)}")
        elif b.kind == "class":
            assert isinstance(b.node, ast.ClassDef)
            for deco in b.node.decorator_list:
                self._check_class_decorator(deco, b)
            unit = _Canon(self, b).run(b.node)
            self.texts.append(ast.unparse(unit))
        if unit is not None:
            _no_lookup_by_name(unit, b)

    def _check_decorator(self, deco: ast.expr, b: Binding) -> None:
        node = deco.func if isinstance(deco, ast.Call) else deco
        path = self._path(node, b.pos)
        if path in WRAPPERS:
            return
        parts = _dotted(node)
        if parts and len(parts) == 2 and parts[1] in ("defjvp", "defvjp", "defjvps"):
            target = self.nb.visible(parts[0], b.pos)
            if target is not None and target.kind in ("def", "assign"):
                return
        raise GateError(
            f"has the decorator `@{ast.unparse(deco)[:50]}` ({b.where}), which the grader cannot read "
            "through; only JAX's transformations (`@jax.jit`, `@partial(jax.jit, ...)`, "
            "`@jax.custom_jvp`...) are read as the function they wrap"
        )

    def _check_class_decorator(self, deco: ast.expr, b: Binding) -> None:
        path = self._path(deco.func if isinstance(deco, ast.Call) else deco, b.pos)
        if path == "functools.partial" and isinstance(deco, ast.Call) and deco.args:
            path = self._path(deco.args[0], b.pos)
        if path in CLASS_DECORATORS:
            return
        raise GateError(
            f"reaches `{b.name}`, a class with the decorator `@{ast.unparse(deco)[:50]}` ({b.where}), "
            "which the grader cannot read through; only `@dataclasses.dataclass` and JAX's pytree "
            "registrations are read as the class they decorate"
        )

    def resolve(self, name: str, pos: int, unit: Binding) -> ast.expr:
        """The canonical expression for the global ``name`` read at ``pos``."""
        b = self.nb.visible(name, pos)
        if b is None:
            if name in _BUILTINS:
                if name in OPAQUE_BUILTINS:
                    raise GateError(
                        f"reaches `{name}(...)` ({unit.where}), which finds names by string; "
                        "the grader cannot see what it calls: name the function directly"
                    )
                return ast.Name(name, ast.Load())
            if name in IPYTHON_NAMES:
                return ast.Name(f"nb__{name}__undefined", ast.Load())
            # Nothing in the notebook binds it and a clean interpreter has no such builtin: what
            # it names was planted at run time (into builtins, say), where no reading can see.
            raise GateError(
                f"reads `{name}` ({unit.where}), which nothing in the notebook binds and Python does not "
                "provide; the grader cannot tell what it runs"
            )
        if b.kind == "opaque":
            if b.name == "*":
                raise GateError(f"cannot be read as written: {b.why}; remove that line")
            raise GateError(f"reaches `{name}`, which {b.why}")
        if b.kind == "import":
            top = b.module.split(".")[0]
            partial = PARTIAL_MODULES.get(top)
            if partial is not None and b.module.count(".") and b.module.split(".")[1] in partial:
                pass  # `from os import environ`: a name of the module that changes no rule
            elif partial is not None:
                raise GateError(
                    f"reaches `{name}`, the module `{top}` ({b.where}) as a whole; the grader reads only "
                    f"{', '.join(f'`{top}.{a}`' for a in sorted(partial))} of it"
                )
            elif top in INERT_MODULES and _installed(top):
                pass
            elif top not in LIBRARY_ROOTS:
                raise GateError(
                    f"reaches `{name}` from the module `{b.module}` ({b.where}), which the grader does not "
                    "read; use JAX or NumPy, or write the helper in the notebook"
                )
            node: ast.expr = ast.Name(top, ast.Load())
            for part in b.module.split(".")[1:]:
                node = ast.Attribute(node, part, ast.Load())
            return node
        self.todo.append(b)
        return ast.Name(b.canonical, ast.Load())


def _no_lookup_by_name(tree: ast.AST, b: Binding) -> None:
    """A unit of canonical text that finds attributes or evaluates names by string, through a
    library function (``operator.attrgetter``, ``typing.get_type_hints``) or a special method
    (``object.__getattribute__``): the grader cannot see what it reaches, as with ``getattr``."""
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute):
            continue
        path = ".".join(_dotted(node) or ())
        if path in NAME_LOOKUPS or node.attr in LOOKUP_ATTRIBUTES:
            what = path if path in NAME_LOOKUPS else f".{node.attr}"
            raise GateError(
                f"reaches `{what}` ({b.where}), which finds names by string; the grader cannot see "
                "what it calls: name the function directly"
            )


class _Canon(ast.NodeTransformer):
    """One unit of code as canonical text: locals ``l__x``, notebook names ``nb__x__pos``,
    library names in full; annotations that never run dropped."""

    def __init__(self, reader: _Reader, unit: Binding):
        self.reader, self.unit = reader, unit
        self.scopes: list[_Scope] = []

    def run(self, node: ast.AST) -> ast.AST:
        import copy

        self.root = copy.deepcopy(node)
        out: ast.AST = self.visit(self.root)
        return ast.fix_missing_locations(out)

    def _pos(self) -> int:
        # Function bodies run when the probes call them; the rest runs where it stands.
        return END if any(s.is_function for s in self.scopes) else self.unit.pos

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> ast.AST:
        local = _function_locals(node)
        args = node.args
        for d in [*args.defaults, *args.kw_defaults]:
            if d is not None:
                self.visit(d)
        every = [a for a in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg] if a]
        if not isinstance(node, ast.Lambda):
            node.decorator_list = [self.visit(d) for d in node.decorator_list]
            # Annotations run with the def (``f.__annotations__``, ``typing.get_type_hints``
            # hand them out): read as code, unless the cell makes them strings.
            evaluated = not self._lazy()
            for a in every:
                a.annotation = self.visit(a.annotation) if a.annotation is not None and evaluated else None
            node.returns = self.visit(node.returns) if node.returns is not None and evaluated else None
            if node is self.root:
                node.name = self.unit.canonical
            else:
                node.name = f"l__{node.name}"
        for a in every:
            a.arg = f"l__{a.arg}"
        self.scopes.append(_Scope(local, True))
        if isinstance(node, ast.Lambda):
            node.body = self.visit(node.body)
        else:
            node.body = [self.visit(s) for s in node.body]
        self.scopes.pop()
        return node

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:  # noqa: N802
        return self._function(node)

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> ast.AST:  # noqa: N802
        return self._function(node)

    def visit_Lambda(self, node: ast.Lambda) -> ast.AST:  # noqa: N802
        return self._function(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> ast.AST | list[ast.stmt]:  # noqa: N802
        # A class body's annotation runs and is kept (``__annotations__``, a dataclass field's
        # type); a function's local one never runs.
        kept: list[ast.stmt] = []
        if not any(s.is_function for s in self.scopes) and not self._lazy():
            kept.append(ast.copy_location(ast.Expr(self.visit(node.annotation)), node))
        if node.value is not None:
            kept.append(
                ast.copy_location(ast.Assign([self.visit(node.target)], self.visit(node.value)), node)
            )
        return kept or ast.Pass()

    def _lazy(self) -> bool:
        """The unit's cell makes annotations strings (``from __future__ import annotations``)."""
        return self.unit.where.cell in self.reader.nb.lazy_annotations

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.AST:  # noqa: N802
        if node is not self.root:
            raise GateError(f"defines a class inside it ({self.unit.where}), which the grader does not read")
        # A notebook class read as a namespace (see _unreadable_class): its bases and values where
        # it stands, its methods when called. The body sees its own names; its methods do not.
        node.name = self.unit.canonical
        node.decorator_list = [self.visit(d) for d in node.decorator_list]
        node.bases = [self.visit(b) for b in node.bases]
        own = {
            t.id
            for st in node.body
            if isinstance(st, ast.Assign)
            for t in st.targets
            if isinstance(t, ast.Name)
        }
        own |= {
            st.target.id
            for st in node.body
            if isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name)
        }
        own |= {st.name for st in node.body if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef))}
        self.scopes.append(_Scope(own, False, is_class=True))
        node.body = [self.visit(st) for st in node.body]
        self.scopes.pop()
        return node

    def _comprehension(self, node: ast.AST) -> ast.AST:
        assert isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp))
        names = {n.id for g in node.generators for n in ast.walk(g.target) if isinstance(n, ast.Name)}
        node.generators[0].iter = self.visit(node.generators[0].iter)
        self.scopes.append(_Scope(names, any(s.is_function for s in self.scopes)))
        for i, g in enumerate(node.generators):
            g.target = self.visit(g.target)
            if i:
                g.iter = self.visit(g.iter)
            g.ifs = [self.visit(c) for c in g.ifs]
        if isinstance(node, ast.DictComp):
            node.key, node.value = self.visit(node.key), self.visit(node.value)
        else:
            node.elt = self.visit(node.elt)
        self.scopes.pop()
        return node

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _comprehension  # noqa: N815

    def visit_Global(self, node: ast.Global) -> ast.AST:  # noqa: N802
        return node

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:  # noqa: N802
        # `os.environ.get(...)`: a module read only through the names that change no rule.
        parts = _dotted(node)
        if (
            parts
            and isinstance(node.ctx, ast.Load)
            and not any(parts[0] in sc.names for sc in self.scopes if not sc.is_class)
        ):
            b = self.reader.nb.visible(parts[0], self._pos())
            if b is not None and b.kind == "import" and b.module in PARTIAL_MODULES:
                if parts[1] not in PARTIAL_MODULES[b.module]:
                    names = ", ".join(f"`{b.module}.{a}`" for a in sorted(PARTIAL_MODULES[b.module]))
                    raise GateError(
                        f"reads `{b.module}.{parts[1]}` ({self.unit.where}); the grader reads only "
                        f"{names} of `{b.module}`"
                    )
                out: ast.expr = ast.Name(b.module, ast.Load())
                for part in parts[1:]:
                    out = ast.Attribute(out, part, ast.Load())
                return ast.copy_location(out, node)
        return self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> ast.AST:  # noqa: N802
        for i, scope in enumerate(reversed(self.scopes)):
            if scope.is_class and i > 0:
                continue  # a class body's names are not seen from the functions inside it
            if node.id in scope.names:
                return ast.copy_location(ast.Name(f"l__{node.id}", node.ctx), node)
        if not isinstance(node.ctx, ast.Load):
            return node
        return ast.copy_location(self.reader.resolve(node.id, self._pos(), self.unit), node)


def _read(nb: _Notebook, name: str) -> SourceFunction | str:
    try:
        return SourceFunction(name, _Reader(nb).read(name), {})
    except GateError as e:
        return f"`{name}` {e}"
    except RecursionError:
        return f"`{name}` nests too deeply for the grader to read"


def _unless_added(reading: SourceFunction | str, added: Mapping[str, str]) -> SourceFunction | str:
    """``reading``, or why it fails: its text reads a name the run added to a library."""
    if not added or isinstance(reading, str):
        return reading
    # A special method added to a library's class (`__getattr__`, `__mul__`) changes what
    # every attribute or operator of its objects does: it counts as read by every function.
    hooks = {a for a in added if a in SPECIAL_METHODS}
    attributes = {n.attr for n in ast.walk(ast.parse(reading.source)) if isinstance(n, ast.Attribute)}
    read = sorted(attributes & set(added) | hooks)
    if not read:
        return reading
    how = (
        f"runs under `{read[0]}`, which the notebook added to `{added[read[0]]}`"
        if read[0] in hooks
        else f"reads `.{read[0]}`, a name the notebook added to `{added[read[0]]}`"
    )
    return (
        f"`{reading.__name__}` {how} while it ran: the grader reads only what a library itself defines, "
        "so call the library's function by its own name"
    )


#: What :func:`read_sources` makes of a notebook: each gated function read, or why it cannot be.
SourceReadings = Mapping[str, SourceFunction | str]
#: The digest of this module's code: a reading kept between runs (the master's, in the
#: reference store) is good for the gates that made it.
GATES_DIGEST = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()


def read_sources(cells: Sequence[str], functions: Iterable[str]) -> dict[str, SourceFunction | str]:
    """Each of ``functions`` as a :class:`SourceFunction` holding the canonical text of
    everything it reaches, or the reason it cannot be read: the part of
    :func:`source_namespace` that needs only the cells (it can run beside the sandbox)."""
    nb = _Notebook(cells)
    return {name: _read(nb, name) for name in functions}


def source_namespace(
    cells: Sequence[str] | SourceReadings,
    functions: Iterable[str],
    added: Mapping[str, str] | None = None,
) -> SourceNamespace:
    """What source probes see of a submission: each of ``functions`` as a :class:`SourceFunction`
    holding the canonical text of everything it reaches, or the reason it cannot be read.
    ``cells``: the notebook's, or what :func:`read_sources` made of them. ``added`` maps each
    name the notebook's run added to a library's module or class to where (``{"times":
    "jax.Array.times"}``): a function that reads one cannot be read as it ran."""
    readings = cells if isinstance(cells, Mapping) else read_sources(cells, functions)
    return SourceNamespace({name: _unless_added(readings[name], added or {}) for name in functions})
