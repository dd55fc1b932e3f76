"""Helpers for probe authors: for bodies (run beside the submission: source, exceptions, traces,
jaxprs) and for judges (run in the grader on plain data: arrays, names, loops)."""

from __future__ import annotations

import ast
import textwrap
import threading
import types
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from ._captured import _getsource, _isinstance, _type, _unwrap
from .compare import describe_value
from .plain import PlainArray
from .running import SourceFunction

_PARSE_LOCK = threading.RLock()
_ast_parse = ast.parse


def parse_python(source: str, *args: Any, **kwargs: Any) -> Any:
    """``ast.parse``, one thread at a time. CPython 3.11 keeps the depth of the AST it is
    building in state the whole interpreter shares; a thread switch in the middle (a garbage
    collection can cause one) lets a second parse corrupt it, and one of them fails with
    "SystemError: AST constructor recursion depth mismatch" (cpython gh-106905). A grader with
    ``--jobs 2`` reads two submissions' sources at once, and that failure became an ``error``
    row."""
    with _PARSE_LOCK:
        return _ast_parse(source, *args, **kwargs)


# Every caller in this process, probe judges written with a plain `ast.parse` included, goes
# through the lock: the race is the interpreter's, so it is closed for the interpreter.
ast.parse = parse_python  # type: ignore[assignment]


# ---------------------------------------------------------------------------------------------
# For probe bodies (run beside the submission).


def source_of(fn: Any, _seen: set[int] | None = None) -> str:
    """Source of ``fn`` and of the notebook functions it calls by global name, for judges that
    look for forbidden APIs and loops. ``""`` where no source can be found."""
    if _isinstance(fn, SourceFunction):
        return fn.source
    seen = _seen if _seen is not None else set()
    fn = _unwrap(fn) if callable(fn) else fn
    if not _isinstance(fn, types.FunctionType) or id(fn) in seen:
        return ""
    seen.add(id(fn))
    try:
        text = textwrap.dedent(_getsource(fn))
    except (OSError, TypeError):
        return ""
    parts = [text]
    code_names = set(fn.__code__.co_names) | set(fn.__code__.co_freevars)
    for const in fn.__code__.co_consts:
        if _isinstance(const, types.CodeType):
            code_names |= set(const.co_names)
    for name in sorted(code_names):
        g = fn.__globals__.get(name)
        if _isinstance(g, types.FunctionType) and g.__module__ == fn.__module__:
            parts.append(source_of(g, seen))
    return "\n".join(p for p in parts if p)


def raised(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> str:
    """Call ``fn``; the name of the exception it raised, or ``""`` if it returned."""
    try:
        fn(*args, **kwargs)
    except Exception as e:  # noqa: BLE001
        return _type(e).__name__
    return ""


def raises(exc: type[BaseException], fn: Callable[..., Any], *args: Any, **kwargs: Any) -> bool:
    """Whether ``fn(*args, **kwargs)`` raises ``exc`` (or a subclass)."""
    try:
        fn(*args, **kwargs)
    except exc:
        return True
    except Exception:  # noqa: BLE001
        return False
    return False


class _TraceCounter:
    """Counts JAX traces (``jit``/``pmap`` tracing a Python function) while active."""

    def __init__(self) -> None:
        self.count = 0
        self.active = False
        self.installed = False

    def install(self) -> None:
        if not self.installed:
            import jax.monitoring

            jax.monitoring.register_event_duration_secs_listener(self._on_event)
            self.installed = True

    def _on_event(self, event: str, duration_secs: float, **_: str | int) -> None:
        if self.active and event == "/jax/core/compile/jaxpr_trace_duration":
            self.count += 1


_TRACES = _TraceCounter()


def count_traces(thunk: Callable[[], Any]) -> int:
    """Number of times JAX traced a Python function while ``thunk()`` ran (results blocked on).

    Counts traces, not cache entries: ``_cache_size()`` counts executables, and NumPy and
    ``jax.Array`` inputs of one shape land in different entries.
    """
    import jax

    _TRACES.install()
    before = _TRACES.count
    _TRACES.active = True
    try:
        jax.block_until_ready(thunk())  # type: ignore[no-untyped-call]  # JAX leaves it unannotated
    finally:
        _TRACES.active = False
    return _TRACES.count - before


def _equations(jaxpr: Any) -> Iterator[Any]:
    """Every equation of ``jaxpr`` in order, each followed by those of its sub-jaxprs (loop and
    cond bodies)."""
    for eqn in jaxpr.eqns:
        yield eqn
        for param in eqn.params.values():
            for sub in param if _isinstance(param, (list, tuple)) else [param]:
                inner = getattr(sub, "jaxpr", sub)
                if hasattr(inner, "eqns"):
                    yield from _equations(inner)


def traced_equations(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Iterator[Any]:
    """The equations of ``fn`` traced on ``args`` (nothing is run), sub-jaxprs included."""
    import jax

    return _equations(jax.make_jaxpr(fn)(*args, **kwargs).jaxpr)


def run_traced(fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)`` computed by the program JAX traces for it (``jax.make_jaxpr``, every
    argument traced, as :func:`traced_equations` traces it), evaluated as traced, not compiled.
    A rule judged on the traced program (its size, its primitives) and the values judged against
    the reference then come from one program, whatever ``fn`` does when it is not traced
    (``isinstance(x, jax.core.Tracer)``, ``jax.core.trace_ctx``, a ``try`` around a conversion a
    tracer refuses). Raises what tracing raises."""
    import jax
    from jax.extend.core import jaxpr_as_fun

    closed, shape = jax.make_jaxpr(fn, return_shape=True)(*args)
    flat = jaxpr_as_fun(closed)(*jax.tree.leaves(args))
    return jax.tree.unflatten(jax.tree.structure(shape), flat)


def primitives(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> list[str]:
    """Names of every primitive in ``fn``'s jaxpr, sub-jaxprs (loop and cond bodies) included."""
    return [eqn.primitive.name for eqn in traced_equations(fn, *args, **kwargs)]


def largest_intermediate(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> int:
    """Most elements of any value ``fn`` makes when traced on ``args`` (nothing is run), loop
    bodies included: an HVP that builds an ``n x n`` Hessian shows ``n * n`` here."""
    largest = 0
    for eqn in traced_equations(fn, *args, **kwargs):
        for var in eqn.outvars:
            shape = getattr(getattr(var, "aval", None), "shape", ())
            largest = max(largest, int(np.prod(shape, dtype=np.int64)) if shape else 1)
    return largest


# ---------------------------------------------------------------------------------------------
# For judges (run in the grader, on plain data).


def array(out: dict[str, Any], path: str) -> np.ndarray:
    """The array output ``path`` of a decoded run; :class:`ValueError` if it is not an array."""
    v = out.get(path)
    if not _isinstance(v, PlainArray):
        raise ValueError(f"`{path}` is {describe_value(v)}, not an array")
    return v.value


def names_used(source: str) -> set[str]:
    """Dotted names read in ``source`` (``jnp.outer``, ``jax.jacfwd``, ``outer``, ``einsum``)."""
    try:
        tree = parse_python(source)
    except SyntaxError:
        return set()
    found: set[str] = set()
    for node in ast.walk(tree):
        if _isinstance(node, ast.Attribute):
            parts = [node.attr]
            base: ast.AST = node.value
            while _isinstance(base, ast.Attribute):
                parts.append(base.attr)
                base = base.value
            if _isinstance(base, ast.Name):
                parts.append(base.id)
            found.add(".".join(reversed(parts)))
            found.add(node.attr)
        elif _isinstance(node, ast.Name):
            found.add(node.id)
        elif _isinstance(node, ast.alias):
            found.add(node.name.split(".")[-1])
            found.add(node.name)
    return found


def forbidden_names(source: str, names: set[str] | list[str]) -> list[str]:
    """Which of ``names`` (bare like ``einsum`` or dotted like ``jax.jacfwd``) ``source`` uses."""
    used = names_used(source)
    return sorted(n for n in names if n in used)


#: Calls that loop in Python over their argument, written as a function call.
LOOPING_CALLS = {"map", "filter", "reduce", "functools.reduce"}
#: Library functions that call a Python function once per element or leaf, by the last part of
#: their name (``jax.tree.map``, ``jtu.tree_map``, ``np.vectorize``): each is a Python loop.
LOOPING_TAILS = {
    "tree_map", "tree_map_with_path", "tree_reduce", "tree.map", "tree.map_with_path", "tree.reduce",
    "vectorize", "frompyfunc", "apply_along_axis", "apply_over_axes", "fromiter",
}  # fmt: skip
#: Of those, the ones JAX's NumPy also defines with ``vmap`` (no Python loop): looping only where
#: they are not JAX's (``jnp.vectorize``, ``jax.numpy.vectorize``).
_VMAPPED_IN_JAX = {"vectorize", "frompyfunc", "apply_along_axis", "apply_over_axes"}
#: Builtins that call their ``key`` once per element.
_KEYED_CALLS = {"sorted", "min", "max"}


def _looping_call(node: ast.Call) -> str | None:
    func = node.func
    parts: list[str] = []
    while _isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if not _isinstance(func, ast.Name):
        return None
    parts.append(func.id)
    parts.reverse()
    dotted = ".".join(parts)
    if dotted in LOOPING_CALLS or dotted.startswith("itertools."):
        return f"a call to `{dotted}`, which loops in Python"
    tail = parts[-1] if parts[-1] in LOOPING_TAILS else ".".join(parts[-2:])
    if tail in LOOPING_TAILS:
        jax_numpy = parts[0] in ("jnp", "jax") and not dotted.startswith("jax.tree")
        if not (tail in _VMAPPED_IN_JAX and jax_numpy):
            return f"a call to `{dotted}`, which calls a Python function once per element"
    if dotted in _KEYED_CALLS and any(k.arg == "key" for k in node.keywords):
        return f"`{dotted}(..., key=...)`, which calls its key once per element"
    if dotted == "iter" and len(node.args) == 2:
        return "`iter(function, sentinel)`, which calls the function until the sentinel"
    return None


def _recursion(tree: ast.Module) -> bool:
    """Whether a function of ``tree`` reaches itself through the names it calls (canonical
    text names each binding once: ``f = jax.jit(f)`` is two of them)."""
    edges: dict[str, set[str]] = {}
    body: list[ast.stmt] | list[ast.expr]
    for node in tree.body:
        if _isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            name, body = node.name, node.body
        elif _isinstance(node, ast.Assign) and _isinstance(node.targets[0], ast.Name):
            name, body = node.targets[0].id, [node.value]
        else:
            continue
        edges[name] = {n.id for b in body for n in ast.walk(b) if _isinstance(n, ast.Name)}
    defs = {n.name for n in tree.body if _isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    for start in defs:
        seen, todo = set(), list(edges.get(start, ()))
        while todo:
            name = todo.pop()
            if name == start:
                return True
            if name in seen:
                continue
            seen.add(name)
            todo.extend(edges.get(name, ()))
    return False


def python_loops(source: str) -> list[str]:
    """The Python loops in ``source``: ``for``/``while`` statements, comprehensions, calls that
    loop (``map``, ``filter``, ``functools.reduce``, ``itertools``) and recursion."""
    try:
        tree = parse_python(source)
    except SyntaxError:
        return []
    kinds = {
        ast.For: "a for loop",
        ast.AsyncFor: "a for loop",
        ast.While: "a while loop",
        ast.ListComp: "a list comprehension",
        ast.SetComp: "a set comprehension",
        ast.DictComp: "a dict comprehension",
        ast.GeneratorExp: "a generator expression",
    }
    found = [kinds[_type(n)] for n in ast.walk(tree) if _type(n) in kinds]
    found += [c for n in ast.walk(tree) if _isinstance(n, ast.Call) and (c := _looping_call(n))]
    if _recursion(tree):
        found.append("recursion")
    return found
