"""Plain data: what may cross from a sandbox to the grader.

A probe's outputs are flattened to ``{path: leaf}``; leaves are JSON scalars (or lists of them)
and number arrays, sent as ``.npy`` bytes that are never unpickled. :func:`decode_outputs` is the
grader's side and checks every field.
"""

from __future__ import annotations

import io
import json
import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, NotRequired, TypedDict

import numpy as np

from ._captured import _isinstance, _np_array, _np_save, _type


class ProbeError(Exception):
    """A submission's function is missing, or returned something that is not plain data."""


_SCALARS = (bool, int, float, str, type(None))

#: Bounds on one result as the grader decodes it, far above what the course's probes return (a
#: few outputs, at most ~200 plain values and ~3,400 characters in one result): a sandbox may
#: send up to 128 MiB of results (``autograder.sandbox.run``), and 108 MiB of them as small JSON
#: lists once became 2.8 GB of Python objects in the grader. A leaf the encoder never makes (a
#: nested list, an object) is refused as it is met, whatever its size.
MAX_OUTPUTS = 4096
MAX_PLAIN_VALUES = 100_000
MAX_TEXT_CHARS = 2**20


class OutputsTooLarge(ValueError):
    """A result past :data:`MAX_OUTPUTS`, :data:`MAX_PLAIN_VALUES` or :data:`MAX_TEXT_CHARS`.
    Unlike a malformed result, an honest but wrong function can cause one (a list of a million
    floats where an array was asked for): it is a ``ValueError`` like the others, and its own
    type lets a caller tell the two apart."""


def _is_jax_array(x: Any) -> bool:
    t = _type(x)
    # Typed PRNG key arrays (jax.random.key) are PRNGKeyArray, not ArrayImpl.
    return t.__name__ in ("ArrayImpl", "PRNGKeyArray") and t.__module__.startswith("jax")


def _plain_scalar(x: Any) -> Any:
    # Call the base-class slots directly: a subclass cannot make them lie.
    if _isinstance(x, bool):
        return bool.__bool__(x) if _type(x) is not bool else x
    if _isinstance(x, int):
        return int.__int__(x)
    if _isinstance(x, float):
        return float.__float__(x)
    if _isinstance(x, str):
        return str.__str__(x)
    return None


def _plain_array(x: Any) -> tuple[np.ndarray, bool]:
    """``(array, is_prng_key)`` for a NumPy or JAX array; :class:`ProbeError` for anything else."""
    key = False
    if _is_jax_array(x):
        import jax
        import jax.numpy as jnp

        if jnp.issubdtype(x.dtype, jax.dtypes.prng_key):
            x, key = jax.random.key_data(x), True
        arr = _np_array(x, copy=True)
    elif _isinstance(x, (np.ndarray, np.generic)):
        arr = _np_array(x, copy=True, subok=False)
    else:
        raise ProbeError(f"returned a {_type(x).__name__}, not an array")
    if _type(arr) is not np.ndarray or arr.dtype.kind not in "biufc":
        raise ProbeError(f"returned an array of dtype {arr.dtype}, not numbers")
    return arr, key


def flatten_outputs(outputs: Any, prefix: str = "") -> Iterator[tuple[str, Any]]:
    """Yield ``(path, leaf)`` for a probe's outputs: dicts, lists and tuples are containers,
    except a list or tuple of plain scalars, which is one JSON leaf."""
    if _isinstance(outputs, dict):
        if not outputs and prefix:
            # Would leave no path behind, and a missing path is what a forged result looks like.
            raise ProbeError("returned an empty dict")
        for k in outputs:
            if not _isinstance(k, str):
                raise ProbeError("returned a dict with non-string keys")
            yield from flatten_outputs(outputs[k], f"{prefix}.{k}" if prefix else k)
    elif _isinstance(outputs, (list, tuple)) and not all(_isinstance(v, _SCALARS) for v in outputs):
        if not outputs:
            yield prefix, []
        for i, v in enumerate(outputs):
            yield from flatten_outputs(v, f"{prefix}.{i}")
    else:
        yield prefix, outputs


def encode_outputs(outputs: dict[str, Any]) -> tuple[dict[str, Any], dict[str, bytes]]:
    """Outputs -> (JSON-able description, ``{path: .npy bytes}``). Raises :class:`ProbeError`."""
    meta: dict[str, Any] = {}
    blobs: dict[str, bytes] = {}
    for path, leaf in flatten_outputs(outputs):
        if _isinstance(leaf, (list, tuple)):
            meta[path] = {"json": [_plain_scalar(v) for v in leaf]}
        elif _isinstance(leaf, _SCALARS):
            meta[path] = {"json": _plain_scalar(leaf)}
        else:
            arr, key = _plain_array(leaf)
            buf = io.BytesIO()
            _np_save(buf, arr, allow_pickle=False)
            blobs[path] = buf.getvalue()
            meta[path] = {"array": True, "key": key}
    return meta, blobs


def decode_outputs(meta: dict[str, Any], blobs: dict[str, bytes]) -> dict[str, Any]:
    """The grader's side of :func:`encode_outputs`: never unpickles, checks every field, and
    keeps what one result may hold within :data:`MAX_OUTPUTS`, :data:`MAX_PLAIN_VALUES` and
    :data:`MAX_TEXT_CHARS`; ``ValueError`` otherwise."""
    out: dict[str, Any] = {}
    if not _isinstance(meta, dict):
        raise ValueError("outputs are not a JSON object")
    if len(meta) > MAX_OUTPUTS:
        raise OutputsTooLarge(f"a result has more than {MAX_OUTPUTS} outputs")
    values = chars = 0
    for path, desc in meta.items():
        if not _isinstance(desc, dict):
            raise ValueError(f"output {path!r} is malformed")
        if desc.get("array"):
            if path not in blobs:
                raise ValueError(f"output {path!r} has no data")
            out[path] = PlainArray(_load_array(path, blobs[path]), bool(desc.get("key")))
            continue
        leaf = desc.get("json")
        for v in leaf if _type(leaf) is list else (leaf,):
            if _type(v) not in _SCALARS:
                raise ValueError(f"output {path!r} is not a plain value or a list of plain values")
            values += 1
            if _type(v) is str:
                chars += len(v)
            if values > MAX_PLAIN_VALUES:
                raise OutputsTooLarge(f"a result holds more than {MAX_PLAIN_VALUES} plain values")
            if chars > MAX_TEXT_CHARS:
                raise OutputsTooLarge(f"a result holds more than {MAX_TEXT_CHARS} characters of text")
        out[path] = leaf
    return out


def _load_array(path: str, blob: Any) -> np.ndarray:
    """The number array of ``.npy`` bytes, its header checked against its data before NumPy
    allocates what the header claims."""
    if _type(blob) is not bytes:
        raise ValueError(f"output {path!r} has no data")
    fp = io.BytesIO(blob)
    try:
        version = np.lib.format.read_magic(fp)
        if version == (1, 0):
            shape, _, dtype = np.lib.format.read_array_header_1_0(fp)
        elif version == (2, 0):
            shape, _, dtype = np.lib.format.read_array_header_2_0(fp)
        else:
            raise ValueError(f"version {version}")
    except (ValueError, TypeError, SyntaxError, OverflowError) as e:
        raise ValueError(f"output {path!r} is not an .npy array ({e})") from None
    if dtype.kind not in "biufc":
        raise ValueError(f"output {path!r} has dtype {dtype}")
    if any(n < 0 for n in shape):
        raise ValueError(f"output {path!r} has a negative dimension")
    claimed, data = math.prod(shape) * dtype.itemsize, len(blob) - fp.tell()
    if claimed != data:
        raise ValueError(f"output {path!r}: its data is {data} bytes, not the {claimed} its header says")
    arr: np.ndarray = np.load(io.BytesIO(blob), allow_pickle=False)
    if arr.dtype.kind not in "biufc":
        raise ValueError(f"output {path!r} has dtype {arr.dtype}")
    return arr


@dataclass(frozen=True)
class PlainArray:
    """A decoded array output; ``key`` marks the key data of a typed PRNG key array."""

    value: np.ndarray
    key: bool = False


class ProbeResult(TypedDict):
    """One probe's result as the judge reads it, from the sandbox's pipe or run in the grader:
    ``ok`` with the decoded ``outputs``, or not ``ok`` with the probe's ``error``."""

    ok: bool
    outputs: NotRequired[dict[str, Any]]
    error: NotRequired[str]


def decode_run(run: dict[str, Any]) -> ProbeResult:
    if not run["ok"]:
        return {"ok": False, "error": run["error"]}
    # Round-trip through JSON, as the pipe does, so both graders judge identical data.
    meta = json.loads(json.dumps(run["meta"]))
    return {"ok": True, "outputs": decode_outputs(meta, run["blobs"])}
