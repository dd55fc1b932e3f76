"""Running a probe beside the submission (in the sandbox, or in the student's kernel under
otter): the namespaces a probe body sees as ``sub``, and how its outcome or exception becomes
plain data."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._captured import _isinstance, _type
from .api import Probe
from .compare import shorten
from .plain import ProbeError, encode_outputs


class SourceFunction:
    """A notebook function as the grader reads it from the cells' text: never called."""

    def __init__(self, name: str, source: str, imports: dict[str, Any]):
        self.__name__ = self.__qualname__ = name
        self.__module__ = "__main__"
        self.source = source
        self.__globals__ = imports
        """the notebook's imports from JAX, NumPy, functools and math, resolved in the grader"""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise ProbeError(f"`{self.__name__}` is read as source by this test, not called")


class SourceNamespace:
    """What a source probe sees as ``sub``: each function of the question as a
    :class:`SourceFunction`, or the message saying why the grader cannot read it."""

    def __init__(self, entries: dict[str, SourceFunction | str]):
        self._entries = entries

    def __getattr__(self, name: str) -> SourceFunction:
        entries: dict[str, SourceFunction | str] = self.__dict__["_entries"]
        entry = entries.get(name)
        if entry is None:
            raise ProbeError(f"`{name}` is not a function of this question")
        if _isinstance(entry, str):
            raise ProbeError(entry)
        return entry

    def has(self, name: str) -> bool:
        return _isinstance(self._entries.get(name), SourceFunction)

    def why(self, name: str) -> str | None:
        """Why ``name`` cannot be read, or ``None`` if it can (or is not gated here)."""
        entry = self._entries.get(name)
        return entry if _isinstance(entry, str) else None


class Namespace:
    """Read-only view of a notebook's globals that probes call functions through."""

    def __init__(self, env: dict[str, Any]):
        self._env = env

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        if name not in self._env:
            raise ProbeError(f"`{name}` is not defined; did the cell that defines it run?")
        value = self._env[name]
        if not callable(value):
            raise ProbeError(f"`{name}` is a {_type(value).__name__}, not a function")
        return value

    def has(self, name: str) -> bool:
        return name in self._env


def run_probe(probe: Probe, env: dict[str, Any] | Any, seed: int) -> dict[str, Any]:
    """Run one probe on inputs from ``seed`` (its :func:`probe_seed`): ``{"ok": True, "meta",
    "blobs"}`` or ``{"ok": False, "error"}``. ``env`` is a notebook's globals, or for a
    :attr:`Probe.source` probe the namespace of its cells' source."""
    try:
        sub = env if _isinstance(env, SourceNamespace) else Namespace(env)
        outputs = probe.body(sub, np.random.default_rng(seed))
        if not _isinstance(outputs, dict):
            raise ProbeError("the probe returned no outputs")
        meta, blobs = encode_outputs(outputs)
        return {"ok": True, "meta": meta, "blobs": blobs}
    except ProbeError as e:
        return {"ok": False, "error": str(e)}
    except BaseException as e:  # noqa: BLE001 - a student function may raise anything, even
        # KeyboardInterrupt or SystemExit: that costs the probe, not the run
        return {"ok": False, "error": describe_exception(e)}


def is_out_of_memory(error: str) -> bool:
    """Whether a described exception (see :func:`describe_exception`) means memory ran out."""
    return error.startswith("raised MemoryError") or "RESOURCE_EXHAUSTED" in error


def describe_exception(e: BaseException) -> str:
    try:
        text = str(e)
    except BaseException:  # noqa: BLE001 - a student exception's __str__ is student code
        text = ""
    text = " ".join(text.split())
    name = _type(e).__name__
    return shorten(f"raised {name}: {text}" if text else f"raised {name}")
