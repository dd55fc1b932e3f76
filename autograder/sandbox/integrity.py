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
    "autograder.probing._captured",
    "autograder.probing.api",
    "autograder.probing.compare",
    "autograder.probing.helpers",
    "autograder.probing.judges",
    "autograder.probing.otter_bridge",
    "autograder.probing.plain",
    "autograder.probing.running",
    "autograder.sandbox.execution",
    "autograder.notebooks",
    "autograder.sandbox",
    "autograder.sandbox.child",
    "autograder.sandbox.integrity",
    "autograder.sandbox.limits",
    "autograder.sandbox.landlock",
    "autograder.sandbox.privileges",
)
# What the sandbox's own code uses between two cells (sending an event, compiling the next
# cell, describing an error): checked, and put back, after every cell, so that a cell cannot
# speak for the sandbox through the ones after it. The whole set above is checked once the
# cells have run and after every hidden test: only what is still replaced when the tests run
# can change a score, and a check of the whole set costs a hundred times the channel's part
# (figures: bench/RESULTS.md).
CHANNEL_MODULES = tuple(
    name
    for name in PROTECTED_MODULES
    if name.partition(".")[0] in ("autograder", "builtins", "io", "json", "os", "socket", "struct", "sys")
    or name in ("types", "linecache", "multiprocessing.connection")
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
# 40,000 names).
Space = tuple[str, Any, tuple[str, ...], tuple[Any, ...], tuple[Any, ...], tuple[Any, ...]]
# The same names flattened (namespace, name, object; function, code; module name, module), for
# a check with no Python loop over namespaces when nothing changed, which is nearly always.
Flat = tuple[tuple[Any, ...], ...]
# What the check itself calls (see _TOOLS), travelling in the snapshot.
Tools = tuple[Any, ...]
Snapshot = tuple[tuple[Space, ...], Flat, Tools]

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
_dict_get, _proxy_get = dict.get, types.MappingProxyType.get
_METHOD = (types.FunctionType, staticmethod, classmethod, property)


def snapshot(
    protected: tuple[str, ...] = PROTECTED_MODULES, packages: tuple[str, ...] = PROTECTED_PACKAGES
) -> Snapshot:
    """Identities of every attribute of the grader's own modules, of the functions and classes
    of the other ``protected`` modules and of every loaded module of the ``packages``, of the methods of
    the classes they define, and of their functions' code."""
    named = set(protected)
    packaged = sorted(
        name
        for name, mod in _list(sys.modules.items())
        if mod is not None and name not in named and name.partition(".")[0] in packages
    )
    snap: list[Space] = []
    for name in (*protected, *packaged):
        try:
            mod = _import(name)
        except ImportError:
            continue
        # Data is recorded only for the grader's own modules: a library's data changes in
        # ordinary use (`import pandas` rebinds `time.tzname`), and a probe's inputs made with
        # a changed constant only make its values differ from the reference's: no point won.
        everything = name in named and name.partition(".")[0] == "autograder"
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
    return (
        _tuple(snap),
        (
            *flat,
            _tuple(f for space in snap for f in space[4]),
            _tuple(c for space in snap for c in space[5]),
            _tuple(n for n, _ in modules),
            _tuple(m for _, m in modules),
        ),
        _TOOLS,
    )


def _unchanged(flat: Flat, tools: Tools) -> bool:
    """Nothing was replaced: C-level loops only (``dict.get`` over the module namespaces,
    ``mappingproxy.get`` over the class ones; a deleted name reads as ``None``)."""
    any_, map_, is_not, code_of, dict_get, proxy_get, modules_get = tools[:7]
    m_spaces, m_attrs, m_objs, c_spaces, c_attrs, c_objs, functions, codes, names, modules = flat
    return not (
        any_(map_(is_not, map_(dict_get, m_spaces, m_attrs), m_objs))
        or any_(map_(is_not, map_(proxy_get, c_spaces, c_attrs), c_objs))
        or any_(map_(is_not, map_(code_of, functions), codes))
        or any_(map_(is_not, map_(modules_get, names), modules))
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


def guard(*functions: Any) -> tuple[tuple[Any, Any, tuple[Any, ...]], ...]:
    """``(function, its code, what its closure holds)`` for each, for :func:`unguarded`."""
    return tuple((f, f.__code__, tuple(c.cell_contents for c in f.__closure__ or ())) for f in functions)


def unguarded(guarded: tuple[tuple[Any, Any, tuple[Any, ...]], ...]) -> list[str]:
    """The guarded functions whose code, or whose closure's contents (a cell can be rebound
    through the garbage collector), changed since :func:`guard`. Compared by identity only: a
    planted object's ``__eq__`` never runs."""
    found = []
    for f, code, held in guarded:
        if f.__code__ is not code:
            found.append(f"replaced the code of the grader's {f.__qualname__}")
        elif any(c.cell_contents is not h for c, h in zip(f.__closure__ or (), held)):
            found.append(f"rebound a variable of the grader's {f.__qualname__}")
    return found


def changes(snap: Snapshot, limit: int = 5) -> list[str]:
    """What was replaced or deleted since ``snap``, as ``"replaced jax.numpy.allclose"``.

    It reads no global name of this module, nor any builtin: a submission can rebind those
    (``integrity._any = lambda it: False`` disarmed the check), but not the tuple the sandbox
    holds. Its code, and ``_unchanged``'s, are guarded by the sandbox (:func:`guard`)."""
    found: list[str] = []
    spaces, flat, tools = snap
    (any_, map_, is_not, code_of, _, _, modules_get, unchanged, vars_, tuple_, len_, zip_) = tools[:12]
    isinstance_, module_type, base_exception, type_, _, _ = tools[12:18]
    missing: list[Any] = []  # a fresh object, made without a name lookup: no namespace holds it
    try:
        if unchanged(flat, tools):
            return found
        for name, target, attrs, objs, functions, codes in spaces:
            if isinstance_(target, module_type) and modules_get(name) is not target:
                found.append(f"replaced the module {name}")
            space = vars_(target)
            now = tuple_(map_(space.get, attrs, (missing,) * len_(attrs)))
            if any_(map_(is_not, now, objs)):
                for attr, obj, was in zip_(attrs, now, objs):
                    if obj is missing:
                        found.append(f"deleted {name}.{attr}")
                    elif obj is not was:
                        found.append(f"replaced {name}.{attr}")
            if any_(map_(is_not, map_(code_of, functions), codes)):
                found += [
                    f"replaced the code of {f.__qualname__} in {name}"
                    for f, c in zip_(functions, codes)
                    if f.__code__ is not c
                ]
            if len_(found) >= limit:
                break
    except base_exception as e:  # noqa: BLE001 - the check itself was sabotaged: that is evidence
        found.append(f"broke the grader's integrity check ({type_(e).__name__})")
    return found[:limit]


def restore(snap: Snapshot) -> None:
    """Put back what :func:`changes` reports, so the sandbox's own code (JSON, sockets) keeps
    working after a submission sabotaged a builtin; the evidence has been recorded by then.
    Like :func:`changes`, it reads no global name."""
    spaces, _, tools = snap
    vars_, zip_ = tools[8], tools[11]
    isinstance_, module_type, base_exception, _, modules, setattr_ = tools[12:18]
    for name, target, attrs, objs, functions, codes in spaces:
        try:
            if isinstance_(target, module_type):
                modules[name] = target
            space = vars_(target)
            for attr, obj in zip_(attrs, objs):
                if space.get(attr) is not obj:
                    try:
                        setattr_(target, attr, obj)
                    except base_exception:  # noqa: BLE001, S112 - restore what can be restored
                        continue
            for f, code in zip_(functions, codes):
                if f.__code__ is not code:
                    f.__code__ = code
        except base_exception:  # noqa: BLE001, S112 - restore what can be restored
            continue


# The names of every library namespace before student code ran, for added(): the namespaces
# (protected modules, every module of the protected packages, every class they hold with the
# classes it inherits from, and every function with attributes), their labels, their names,
# and how many names each held when last seen (a cheap first look: no name added or deleted
# since, nothing to compare).
Names = tuple[tuple[Any, ...], tuple[str, ...], tuple[frozenset[str], ...], tuple[int, ...], Tools]


def names(
    protected: tuple[str, ...] = PROTECTED_MODULES, packages: tuple[str, ...] = PROTECTED_PACKAGES
) -> Names:
    """Every attribute name of the libraries' modules, classes and functions (``jnp.outer.go``
    would be read as JAX's), for :func:`added`."""
    targets: list[Any] = []
    labels: list[str] = []
    seen: set[int] = set()

    def take(target: Any, label: str) -> None:
        if id(target) not in seen and target is not object:
            seen.add(id(target))
            targets.append(target)
            labels.append(label)

    for name, mod in _list(sys.modules.items()):
        if mod is None or not (name in protected or name.partition(".")[0] in packages):
            continue
        take(mod, name)
        for attr, obj in _list(_vars(mod).items()):
            if _isinstance(obj, type):
                for cls in _getattr(obj, "__mro__", ()):
                    take(cls, f"{_getattr(cls, '__module__', '?')}.{_getattr(cls, '__qualname__', '?')}")
            elif callable(obj) and not _isinstance(obj, types.ModuleType):
                try:
                    _vars(obj)
                except TypeError:  # a built-in function: no attributes to add
                    continue
                take(obj, f"{name}.{attr}")
    return (
        _tuple(targets),
        _tuple(labels),
        _tuple(frozenset(_vars(t)) for t in targets),
        _tuple(_map(_len, _map(_vars, targets))),
        _TOOLS,
    )


def added(before: Names, last: tuple[int, ...]) -> tuple[list[str], tuple[int, ...]]:
    """Names student code added to a library's module, class or function since :func:`names` took
    ``before`` (``jax.Array.times``), submodules left out (an import adds those), and how many
    names each namespace holds now, for the next call's ``last``. When no namespace's count
    changed since ``last`` it compares nothing more (a name deleted and another added in one
    step is found by the next full look: the sandbox makes one after the cells and after the
    last test). Like :func:`changes`, it reads no global name."""
    targets, labels, keysets, _, tools = before
    map_, vars_, tuple_, len_, zip_, isinstance_, module_type = (tools[i] for i in (1, 8, 9, 10, 11, 12, 13))
    frozenset_, ne = tools[18:20]
    counts = tuple_(map_(len_, map_(vars_, targets)))
    found: list[str] = []
    if counts == last:
        return found, counts
    for label, target, was, now in zip_(labels, targets, keysets, map_(frozenset_, map_(vars_, targets))):
        if ne(now, was):
            space = vars_(target)
            found += [f"{label}.{k}" for k in now - was if not isinstance_(space.get(k), module_type)]
    return found, counts


# Everything changes() and restore() call, bound when this module is imported (before any
# student code): they read it from the snapshot, never from this module's globals or builtins.
# A plain tuple read by position, on purpose: a named tuple's fields are properties of its
# class, which a submission could replace; an index into a tuple cannot be intercepted. Each
# reader unpacks it under these names (tests/test_integrity.py checks every unpacking against
# them, so an entry inserted here cannot silently shift what a reader gets).
TOOL_NAMES = (
    "any_", "map_", "is_not", "code_of", "dict_get", "proxy_get", "modules_get", "unchanged", "vars_",
    "tuple_", "len_", "zip_", "isinstance_", "module_type", "base_exception", "type_", "modules",
    "setattr_", "frozenset_", "ne",
)  # fmt: skip
_TOOLS: Tools = (
    _any,
    _map,
    _is_not,
    _code,
    _dict_get,
    _proxy_get,
    sys.modules.get,
    _unchanged,
    _vars,
    _tuple,
    _len,
    zip,
    _isinstance,
    types.ModuleType,
    BaseException,
    type,
    sys.modules,
    setattr,
    frozenset,
    operator.ne,
)
