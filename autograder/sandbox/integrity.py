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
    "autograder.probing",
    "multiprocessing.connection",
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

Snapshot = dict[tuple[str, str], tuple[Any, Any]]

# Bound now: the check must work after a submission replaced these very builtins.
_isinstance, _vars, _getattr, _len, _list = isinstance, vars, getattr, len, list
_import = importlib.import_module


def snapshot() -> Snapshot:
    """Identities of every attribute of the protected modules (and of their functions' code)."""
    snap: Snapshot = {}
    for name in PROTECTED_MODULES:
        try:
            mod = _import(name)
        except ImportError:
            continue
        for attr, obj in _list(_vars(mod).items()):
            if attr in _VOLATILE:
                continue
            code = obj.__code__ if _isinstance(obj, types.FunctionType) else None
            snap[(name, attr)] = (obj, code)
    return snap


def changes(snap: Snapshot, limit: int = 5) -> list[str]:
    """What was replaced or deleted since ``snap``, as ``"replaced jax.numpy.allclose"``."""
    found: list[str] = []
    missing = object()
    modules: dict[str, Any] = {}
    try:
        for (name, attr), (obj, code) in snap.items():
            mod = modules.get(name) or _import(name)
            modules[name] = mod
            now = _vars(mod).get(attr, missing)
            if now is missing:
                found.append(f"deleted {name}.{attr}")
            elif now is not obj or (code is not None and _getattr(now, "__code__", None) is not code):
                found.append(f"replaced {name}.{attr}")
            if _len(found) >= limit:
                break
    except BaseException as e:  # noqa: BLE001 - the check itself was sabotaged: that is evidence
        found.append(f"broke the grader's integrity check ({type(e).__name__})")
    return found


def restore(snap: Snapshot) -> None:
    """Put back what :func:`changes` reports, so the sandbox's own code (JSON, sockets) keeps
    working after a submission sabotaged a builtin; the evidence has been recorded by then."""
    for (name, attr), (obj, code) in snap.items():
        try:
            mod = _import(name)
            if _vars(mod).get(attr) is not obj:
                setattr(mod, attr, obj)
            if code is not None and obj.__code__ is not code:
                obj.__code__ = code
        except BaseException:  # noqa: BLE001, S112 - restore what can be restored
            continue
