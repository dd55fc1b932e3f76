"""Evidence that student code replaced something the grading relies on.

The verdict never trusts the sandbox (it is computed by the grader from plain data), so a
replaced ``jnp.allclose`` cannot change a score; but a submission that tries is flagged
``tampered``, with the replaced names as evidence.
"""

from __future__ import annotations

import importlib
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

# A tuple, not a dict: student code that finds it (through frames or the garbage collector)
# cannot edit what the check compares against.
Snapshot = tuple[tuple[str, str, Any, Any], ...]

# Bound now: the check must work after a submission replaced these very builtins.
_isinstance, _vars, _getattr, _len, _list = isinstance, vars, getattr, len, list
_import = importlib.import_module


def snapshot() -> Snapshot:
    """Identities of every attribute of the protected modules, of the methods of the classes
    they define, and of their functions' code."""
    snap: list[tuple[str, str, Any, Any]] = []
    for name in PROTECTED_MODULES:
        try:
            mod = _import(name)
        except ImportError:
            continue
        for attr, obj in _list(_vars(mod).items()):
            if attr in _VOLATILE:
                continue
            snap.append((name, attr, obj, _code_of(obj)))
            # Methods a submission could swap on the class itself (Connection.send_bytes,
            # JSONEncoder.encode): recorded as "module.Class.method".
            if _isinstance(obj, type) and _getattr(obj, "__module__", None) == name:
                for method, value in _list(_vars(obj).items()):
                    if _isinstance(value, (types.FunctionType, staticmethod, classmethod, property)):
                        snap.append((f"{name}.{attr}", method, value, _code_of(value)))
    return tuple(snap)


def _code_of(obj: Any) -> Any:
    if _isinstance(obj, (staticmethod, classmethod)):
        obj = obj.__func__
    return obj.__code__ if _isinstance(obj, types.FunctionType) else None


def _namespace(name: str) -> dict[str, Any]:
    """The attributes of module ``name`` or of class ``module.Class``."""
    try:
        return _vars(_import(name))
    except ImportError:
        module, _, cls = name.rpartition(".")
        return _vars(_vars(_import(module))[cls])


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
    missing = object()
    spaces: dict[str, Any] = {}
    try:
        for name, attr, obj, code in snap:
            space = spaces.get(name)
            if space is None:
                space = spaces[name] = _namespace(name)
            now = space.get(attr, missing)
            if now is missing:
                found.append(f"deleted {name}.{attr}")
            elif now is not obj or (code is not None and _code_of(now) is not code):
                found.append(f"replaced {name}.{attr}")
            if _len(found) >= limit:
                break
    except BaseException as e:  # noqa: BLE001 - the check itself was sabotaged: that is evidence
        found.append(f"broke the grader's integrity check ({type(e).__name__})")
    return found


def restore(snap: Snapshot) -> None:
    """Put back what :func:`changes` reports, so the sandbox's own code (JSON, sockets) keeps
    working after a submission sabotaged a builtin; the evidence has been recorded by then."""
    for name, attr, obj, code in snap:
        try:
            try:
                target: Any = _import(name)
            except ImportError:
                module, _, cls = name.rpartition(".")
                target = _vars(_import(module))[cls]
            if _vars(target).get(attr) is not obj:
                setattr(target, attr, obj)
            func = obj.__func__ if _isinstance(obj, (staticmethod, classmethod)) else obj
            if code is not None and func.__code__ is not code:
                func.__code__ = code
        except BaseException:  # noqa: BLE001, S112 - restore what can be restored
            continue
