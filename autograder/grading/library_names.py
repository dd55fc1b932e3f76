"""Every attribute name the installed libraries define, listed by the grader in a clean process.

A gate reads an answer's text; an attribute it reads (``x.times(y)``) is code it cannot see
unless something defines it: a library, or the notebook by name (``self.times = ...``,
``class C: times = ...``). A name that neither defines was planted while the notebook ran (by
``setattr`` with a computed name, ``exec``, a replaced channel that hid the sandbox's report):
the gates' verdict on it is *cannot tell*. The list comes from a process that imported the
libraries and never ran student code, never from the sandbox, and is kept in the user's cache
folder per library versions and Python.

``python -m autograder.grading.library_names FILE`` writes the list (a JSON array) to FILE.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import subprocess
import sys
import types
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

#: What is imported before the names are listed: what notebooks of the course use.
LIBRARIES = (
    "jax", "jax.numpy", "jax.lax", "jax.random", "jax.nn", "jax.tree", "jax.tree_util", "jax.sharding",
    "jax.experimental.checkify", "jax.scipy", "numpy", "numpy.random", "numpy.linalg", "math", "cmath",
    "functools", "itertools", "operator", "collections", "dataclasses", "typing", "time", "warnings",
    "logging", "os", "sys", "json", "random", "statistics", "matplotlib.pyplot",
)  # fmt: skip


def names_file(cache: Path) -> Path:
    """The list for these libraries' versions under ``cache``, made first if missing."""
    parts = [sys.version]
    for dist in ("jax", "jaxlib", "numpy", "matplotlib"):
        try:
            parts.append(f"{dist} {version(dist)}")
        except PackageNotFoundError:
            parts.append(f"{dist} -")
    digest = hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]
    path = cache / f"library-names-{digest}.json"
    if not path.exists():
        cache.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        subprocess.run(
            [sys.executable, "-m", "autograder.grading.library_names", str(tmp)],
            check=True,
            timeout=300,
            capture_output=True,
            cwd=cache,  # never the working folder, where a notebook or a project folder could shadow a module
            env={**os.environ, "JAX_PLATFORMS": "cpu"},
        )
        os.replace(tmp, path)
    return path


def _value_classes() -> list[type]:
    """The classes whose objects an answer computes with: Python's own, arrays and tracers
    (JAX's and NumPy's, with every subclass), JAX's sharding and tree types, functions."""
    import builtins

    import jax
    import jax.numpy as jnp
    import numpy as np

    # Python's own types as they are (every class is a subclass of `object`), then the
    # libraries' value types with all their subclasses (ArrayImpl, each tracer, float32...).
    own: list[type] = [t for t in vars(builtins).values() if isinstance(t, type)]
    own += [types.FunctionType, types.MethodType, types.ModuleType, types.SimpleNamespace]
    roots: list[type] = [jax.Array, type(jnp.zeros(1)), jax.core.Tracer, np.ndarray, np.generic, np.dtype]
    roots += [jax.ShapeDtypeStruct, jax.tree_util.PyTreeDef, type(jax.random.key(0))]
    roots += [v for v in vars(jax.sharding).values() if isinstance(v, type)]
    import collections
    import dataclasses
    import datetime
    import functools
    import logging
    import pathlib
    import typing

    roots += [functools.partial]
    # What the modules an answer may use whole (gates.INERT_MODULES, PARTIAL_MODULES) hand out.
    for module in (logging, datetime, pathlib, collections, dataclasses, typing, functools):
        roots += [v for v in vars(module).values() if isinstance(v, type)]
    roots += [type(os.environ)]
    found: list[type] = []
    todo = list(roots)
    while todo:
        cls = todo.pop()
        if cls in found:
            continue
        found.append(cls)
        try:
            todo.extend(cls.__subclasses__())
        except TypeError:  # type.__subclasses__ needs an argument
            pass
    return own + found


def collect() -> dict[str, list[str]]:
    """``{"classes": names of the value classes' attributes, "modules": {module: its names}}``
    after importing :data:`LIBRARIES`, for every module then loaded."""
    for name in LIBRARIES:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - a library this machine lacks defines nothing here
            pass
    attributes: set[str] = set()
    for cls in _value_classes():
        try:
            attributes.update(n for n in dir(cls) if isinstance(n, str))
        except Exception:  # noqa: BLE001 - a class whose dir() fails lists nothing
            pass
    modules: dict[str, list[str]] = {}
    for name, module in list(sys.modules.items()):
        if isinstance(module, types.ModuleType):
            try:
                modules[name] = sorted(n for n in vars(module) if isinstance(n, str))
            except Exception:  # noqa: BLE001 - a module that cannot be listed lists nothing
                continue
    return {"classes": sorted(attributes), "modules": modules}  # type: ignore[dict-item]


def main() -> None:
    Path(sys.argv[1]).write_text(json.dumps(collect()), encoding="utf-8")


if __name__ == "__main__":
    main()
