"""Evidence that student code replaced something the grading relies on.

The verdict never trusts the sandbox (it is computed by the grader from plain data), so a
replaced ``jnp.allclose`` cannot change a score; but a submission that tries is flagged
``tampered``, with the replaced names as evidence.
"""

from __future__ import annotations

import importlib
import operator
import sys
import types
from typing import Any

PROTECTED_MODULES = (
    "builtins",
    "math",
    "inspect",
    "json",
    "io",
    "time",
    "os",
    "sys",
    "linecache",
    "numpy",
    "numpy.testing",
    "jax",
    "jax.numpy",
    "jax.random",
    "jax.lax",
    "jax.nn",
    "jax.tree",
    "jax.tree_util",
    "jax.monitoring",
    "json.encoder",
    "json.decoder",
    "numpy.lib.format",
    "struct",
    "socket",
    "types",
    "threading",
    "multiprocessing.connection",
    # The grader's own modules in the sandbox: the probe runner looks names up in them at call
    # time, so a replaced one would speak for the sandbox.
    "autograder",
    "autograder.probing",
    "autograder.execution",
    "autograder.notebooks",
    "autograder.sandbox",
    "autograder.sandbox.child",
    "autograder.sandbox.integrity",
    "autograder.sandbox.limits",
    "autograder.sandbox.landlock",
    "autograder.sandbox.privileges",
)
# Every loaded module of these packages: probes make their inputs with JAX and NumPy, whose
# public names call private ones (``jnp.asarray`` -> ``jax._src.numpy.array_constructors.array``),
# so a replaced private function would choose the probes' inputs. Only functions and classes are
# recorded there: the packages' own data (caches, counters) changes in ordinary use.
PROTECTED_PACKAGES = ("jax", "jaxlib", "numpy", "ml_dtypes", "autograder")
# Set by the interpreter or by ordinary use, not by tampering.
_VOLATILE = {
    "_",
    "__builtins__",
    "__loader__",
    "__spec__",
    "ps1",
    "ps2",
    "last_type",
    "last_value",
    "last_traceback",
    "last_exc",
    "stdout",
    "stderr",
    "stdin",
    "displayhook",
    "excepthook",
    "modules",
    "path",
    "path_importer_cache",
    "argv",
    "environ",
    "meta_path",
    "path_hooks",
    "flags",
    "tracebacklimit",
    "exc_info",
}

# Tuples, not dicts: student code that finds them (through frames or the garbage collector)
# cannot edit what the check compares against. One entry per namespace (a module, or a class
# as "module.Class"): its attribute names, their objects, and the code of those that are
# functions, compared at C speed (the check runs after every cell and every probe, over some
# 25,000 names).
Space = tuple[str, Any, tuple[str, ...], tuple[Any, ...], tuple[Any, ...], tuple[Any, ...]]
# The same names flattened (namespace, name, object; function, code; module name, module), for
# a check with no Python loop over namespaces when nothing changed, which is nearly always.
Flat = tuple[tuple[Any, ...], ...]
Snapshot = tuple[tuple[Space, ...], Flat]

# Bound now: the check must work after a submission replaced these very builtins.
_isinstance, _vars, _getattr, _len, _list, _tuple, _map, _any = (
    isinstance,
    vars,
    getattr,
    len,
    list,
    tuple,
    map,
    any,
)
_import = importlib.import_module
_is_not, _code = operator.is_not, operator.attrgetter("__code__")
_MISSING = object()
_dict_get, _proxy_get = dict.get, types.MappingProxyType.get
_METHOD = (types.FunctionType, staticmethod, classmethod, property)


def snapshot() -> Snapshot:
    """Identities of every attribute of the protected modules, of the functions and classes of
    every loaded module of the protected packages, of the methods of the classes they define,
    and of their functions' code."""
    named = set(PROTECTED_MODULES)
    packaged = sorted(
        name
        for name, mod in _list(sys.modules.items())
        if mod is not None and name not in named and name.partition(".")[0] in PROTECTED_PACKAGES
    )
    snap: list[Space] = []
    for name in (*PROTECTED_MODULES, *packaged):
        try:
            mod = _import(name)
        except ImportError:
            continue
        everything = name in named
        items = [
            (attr, obj)
            for attr, obj in _list(_vars(mod).items())
            if attr not in _VOLATILE and (everything or (callable(obj) and not _isinstance(obj, type(sys))))
        ]
        snap.append(_space(name, mod, items))
        # Methods a submission could swap on the class itself (Connection.send_bytes,
        # JSONEncoder.encode): recorded as "module.Class".
        for attr, obj in items:
            if _isinstance(obj, type) and _getattr(obj, "__module__", None) == name:
                methods = [(m, v) for m, v in _list(_vars(obj).items()) if _isinstance(v, _METHOD)]
                if methods:
                    snap.append(_space(f"{name}.{attr}", obj, methods))
    modules = [(name, target) for name, target, *_ in snap if _isinstance(target, types.ModuleType)]
    flat: list[tuple[Any, ...]] = []
    for kind in (dict, types.MappingProxyType):
        entries = [
            (space, attr, obj)
            for _, target, attrs, objs, _, _ in snap
            if _isinstance(space := _vars(target), kind)
            for attr, obj in zip(attrs, objs)
        ]
        flat += [_tuple(e[0] for e in entries), _tuple(e[1] for e in entries), _tuple(e[2] for e in entries)]
    return _tuple(snap), (
        *flat,
        _tuple(f for space in snap for f in space[4]),
        _tuple(c for space in snap for c in space[5]),
        _tuple(n for n, _ in modules),
        _tuple(m for _, m in modules),
    )


def _unchanged(flat: Flat) -> bool:
    """Nothing was replaced: C-level loops only (``dict.get`` over the module namespaces,
    ``mappingproxy.get`` over the class ones; a deleted name reads as ``None``)."""
    m_spaces, m_attrs, m_objs, c_spaces, c_attrs, c_objs, functions, codes, names, modules = flat
    return not (
        _any(_map(_is_not, _map(_dict_get, m_spaces, m_attrs), m_objs))
        or _any(_map(_is_not, _map(_proxy_get, c_spaces, c_attrs), c_objs))
        or _any(_map(_is_not, _map(_code, functions), codes))
        or _any(_map(_is_not, _map(sys.modules.get, names), modules))
    )


def _space(name: str, target: Any, items: list[tuple[str, Any]]) -> Space:
    functions = [_function_of(obj) for _, obj in items]
    functions = [f for f in functions if f is not None]
    return (
        name,
        target,
        _tuple(a for a, _ in items),
        _tuple(o for _, o in items),
        _tuple(functions),
        _tuple(f.__code__ for f in functions),
    )


def _function_of(obj: Any) -> Any:
    if _isinstance(obj, (staticmethod, classmethod)):
        obj = obj.__func__
    return obj if _isinstance(obj, types.FunctionType) else None


def guard(*functions: Any) -> tuple[tuple[Any, Any], ...]:
    """``(function, its code)`` pairs, for :func:`unguarded`."""
    return tuple((f, f.__code__) for f in functions)


def unguarded(guarded: tuple[tuple[Any, Any], ...]) -> list[str]:
    """The guarded functions whose code was replaced since :func:`guard`."""
    return [
        f"replaced the code of the grader's {f.__qualname__}" for f, code in guarded if f.__code__ is not code
    ]


def changes(snap: Snapshot, limit: int = 5) -> list[str]:
    """What was replaced or deleted since ``snap``, as ``"replaced jax.numpy.allclose"``."""
    found: list[str] = []
    missing = _MISSING
    try:
        spaces, flat = snap
        if _unchanged(flat):
            return found
        modules = sys.modules
        for name, target, attrs, objs, functions, codes in spaces:
            if _isinstance(target, types.ModuleType) and modules.get(name) is not target:
                found.append(f"replaced the module {name}")
            space = _vars(target)
            now = _tuple(_map(space.get, attrs, (missing,) * _len(attrs)))
            if _any(_map(_is_not, now, objs)):
                for attr, obj, was in zip(attrs, now, objs):
                    if obj is missing:
                        found.append(f"deleted {name}.{attr}")
                    elif obj is not was:
                        found.append(f"replaced {name}.{attr}")
            if _any(_map(_is_not, _map(_code, functions), codes)):
                found += [
                    f"replaced the code of {f.__qualname__} in {name}"
                    for f, c in zip(functions, codes)
                    if f.__code__ is not c
                ]
            if _len(found) >= limit:
                break
    except BaseException as e:  # noqa: BLE001 - the check itself was sabotaged: that is evidence
        found.append(f"broke the grader's integrity check ({type(e).__name__})")
    return found[:limit]


def restore(snap: Snapshot) -> None:
    """Put back what :func:`changes` reports, so the sandbox's own code (JSON, sockets) keeps
    working after a submission sabotaged a builtin; the evidence has been recorded by then."""
    for name, target, attrs, objs, functions, codes in snap[0]:
        try:
            if _isinstance(target, types.ModuleType):
                sys.modules[name] = target
            space = _vars(target)
            for attr, obj in zip(attrs, objs):
                if space.get(attr) is not obj:
                    try:
                        setattr(target, attr, obj)
                    except BaseException:  # noqa: BLE001, S112 - restore what can be restored
                        continue
            for f, code in zip(functions, codes):
                if f.__code__ is not code:
                    f.__code__ = code
        except BaseException:  # noqa: BLE001, S112 - restore what can be restored
            continue
