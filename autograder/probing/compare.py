"""Judging in the grader: a probe's decoded outputs against the reference's, with one tolerance
table for every device, and the one-sentence messages a student reads."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ._captured import _isinstance, _type
from .api import Probe
from .plain import PlainArray, ProbeResult

#: Tolerances by dtype, one table for every device. Grading pins
#: ``jax_default_matmul_precision="highest"`` for student and reference runs alike, so float32
#: matrix products carry float32 (not TF32) error on GPUs too and one table serves both.
TOLERANCES: dict[str, tuple[float, float]] = {
    "float16": (1e-2, 1e-3),
    "bfloat16": (2e-2, 1e-2),
    "float32": (1e-5, 1e-6),
    "float64": (1e-10, 1e-12),
    "complex64": (1e-5, 1e-6),
    "complex128": (1e-10, 1e-12),
}

MAX_MESSAGE = 300

#: The one sentence for a result that is ``None`` where the reference's is a value: what an
#: untouched stub (its body ``...``) returns from every function, and a body that ends without
#: ``return``. :func:`judge_probe` says it before any question's own judge reads the result.
RETURNED_NONE = "returned None: the function still has the stub's body (`...`) or ends without `return`"


def shorten(text: str, limit: int = MAX_MESSAGE) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def judge_probe(probe: Probe, student: ProbeResult, reference: ProbeResult) -> str | None:
    """``None`` when the student's run of ``probe`` passes, else the message for the student.

    ``student`` and ``reference`` are decoded outcomes: ``{"ok": True, "outputs": {...}}`` or
    ``{"ok": False, "error": "..."}``.
    """
    where = f"{probe.question} `{probe.function}`: {probe.description}"
    if not reference.get("ok"):
        raise RuntimeError(f"reference solution failed probe {probe.id}: {reference.get('error')}")
    if not student.get("ok"):
        return shorten(f"{where}: {student.get('error', 'failed')}")
    out, ref = student["outputs"], reference["outputs"]
    if not probe.gate and returned_none(out, ref):
        # Every scoring probe rejects such a result anyway (see structure_problem); this says so
        # in one sentence, whatever judge the question has.
        return shorten(f"{where}: {RETURNED_NONE}")
    try:
        if probe.judge is not None:
            problem = probe.judge(out, ref)
            if problem is None and not probe.gate:
                # A judge's verdict pays only for the cases the grader asked: whatever a custom
                # judge reads, the result must have the reference's structure (see below).
                problem = structure_problem(out, ref)
        else:
            problem = compare_outputs(out, ref, rtol=probe.rtol, atol=probe.atol)
    except Exception:  # noqa: BLE001 - malformed student data must not crash the judge
        problem = unusable_outputs(out, ref)
    return None if problem is None else shorten(f"{where}: {problem}")


def returned_none(out: dict[str, Any], ref: dict[str, Any]) -> bool:
    """Whether the student's outputs hold ``None`` (as a value or in a list) where the
    reference's hold something else."""
    for path, want in ref.items():
        got = out.get(path)
        if got is None and want is not None and path in out:
            return True
        if _isinstance(got, list) and _isinstance(want, list):
            if any(g is None and w is not None for g, w in zip(got, want)):
                return True
    return False


def part_label(path: str) -> str:
    """How a message names one of a probe's several outputs: a key written in words (it holds a
    space: ``"on M (6, 3) with v (3,)"``) as it is, followed by "the result"; any other key as
    ``output `key```."""
    return f"{path}, the result" if " " in path.split(".", 1)[0] else f"output `{path}`"


def structure_problem(out: dict[str, Any], ref: dict[str, Any]) -> str | None:
    """What the grader checks of every scoring probe's result, whatever its judge reads: the
    reference's outputs (paths), each of the same kind; arrays of the same shape, dtype and key
    flag; lists of the same length, entry by entry of the same kind; and finite wherever the
    reference's are (a float array, a float or a float in a list). ``None`` when it holds, else
    one sentence. Judges compare values or properties on top of this: an empty, partial,
    miscounted or ``nan`` result never reaches them with a passing verdict."""
    if set(out) != set(ref):
        return parts_problem(out, ref)
    for path, want in ref.items():
        problem = _leaf_problem(out[path], want)
        if problem:
            label = part_label(path) if len(ref) > 1 else "the result"
            return f"{label} {problem}"
    return None


def _leaf_problem(got: Any, want: Any) -> str | None:
    if _isinstance(want, PlainArray):
        if not _isinstance(got, PlainArray) or got.key != want.key:
            return f"is {describe_value(got)}, expected {describe_value(want)}"
        g, w = got.value, want.value
        if g.shape != w.shape:
            return f"has shape {tuple(g.shape)}, expected {tuple(w.shape)}"
        if g.dtype != w.dtype:
            return f"has dtype {g.dtype}, expected {w.dtype}"
        if w.dtype.kind in "fc" and g.dtype.kind in "fc":
            bad = ~np.isfinite(g) & np.isfinite(w)
            if bad.any():
                return f"holds {int(bad.sum())} nan or inf entries where the reference's are finite"
        return None
    if _isinstance(want, list):
        if not _isinstance(got, list):
            return f"is {describe_value(got)}, expected a sequence of {len(want)} values"
        if len(got) != len(want):
            return f"holds {len(got)} values, expected {len(want)}"
        for i, (g, w) in enumerate(zip(got, want)):
            problem = _scalar_problem(g, w)
            if problem:
                return f"entry {i} {problem}"
        return None
    return _scalar_problem(got, want)


def _scalar_problem(got: Any, want: Any) -> str | None:
    """A JSON scalar against the reference's: the same kind (an int may stand for a float),
    finite where the reference's float is."""
    if _isinstance(want, float):
        if _isinstance(got, bool) or not _isinstance(got, (int, float)):
            return f"is {describe_value(got)}, expected a number"
        if math.isfinite(want) and not math.isfinite(got):
            return "is nan or inf, expected a finite number"
        return None
    if _type(got) is not _type(want):
        return f"is {describe_value(got)}, expected {describe_value(want)}"
    return None


def unusable_outputs(out: dict[str, Any], ref: dict[str, Any]) -> str:
    """Why a judge could not use the student's outputs, in words a student can act on: the
    first output whose kind, shape or dtype differs from the reference's, else what came back.
    (A judge raises on data it did not expect; the exception's name tells a student nothing.)"""
    if set(out) != set(ref):
        return parts_problem(out, ref)
    for path in ref:
        got, want = out[path], ref[path]
        same = _type(got) is _type(want) or (
            _isinstance(got, (int, float)) and _isinstance(want, (int, float)) and not _isinstance(got, bool)
        )
        if same and _isinstance(got, PlainArray):
            same = (got.key, got.value.shape, got.value.dtype) == (
                want.key,
                want.value.shape,
                want.value.dtype,
            )
        if same and _isinstance(got, list):
            same = len(got) == len(want)
        label = f"{part_label(path)} is" if len(ref) > 1 else "returned"
        if not same:
            got_text, want_text = describe_value(got), describe_value(want)
            if _isinstance(got, list) and _isinstance(want, list):
                got_text, want_text = f"{len(got)} values", f"{len(want)}"
            return f"{label} {got_text}, expected {want_text}"
        if _isinstance(got, PlainArray) and got.value.dtype.kind in "fc" and not np.isfinite(got.value).all():
            return f"{label} {describe_value(got)} holding nan or inf where the test needs numbers"
    return f"returned {_describe_structure(out)}, a value this test cannot use"


def compare_outputs(
    out: dict[str, Any],
    ref: dict[str, Any],
    *,
    rtol: float | None = None,
    atol: float | None = None,
) -> str | None:
    """Compare every reference output with the student's: structure, shape, then values."""
    if set(out) != set(ref):
        return parts_problem(out, ref)
    for path in ref:
        problem = compare_value(out[path], ref[path], rtol=rtol, atol=atol)
        if problem:
            label = f"{part_label(path)} " if len(ref) > 1 else ""
            return label + problem
    return None


def parts_problem(out: dict[str, Any], ref: dict[str, Any]) -> str:
    """What differs when the student's outputs are not made of the reference's parts (a function
    returned a tuple, list or dict where the test expects one value, or the reverse), in words:
    the output keys a probe chose are the grader's names, never shown as they are."""
    for path in ref:
        if path not in out:
            inner = [k for k in out if not path or k.startswith(f"{path}.")]
            got = f"a tuple, list or dict of {len(inner)} values" if inner else "a different structure"
            label = f"{part_label(path)} " if len(ref) > 1 else ""
            return f"{label}returned {got}, expected {describe_value(ref[path])}"
    return f"returned {len(out)} values where the test expects {len(ref)}"


def _describe_structure(outputs: dict[str, Any]) -> str:
    if list(outputs) == [""] or len(outputs) == 1:
        (v,) = outputs.values()
        return describe_value(v)
    return f"{len(outputs)} values"


def describe_value(v: Any) -> str:
    if _isinstance(v, PlainArray):
        kind = "key array" if v.key else f"{v.value.dtype} array"
        return f"a {kind} of shape {tuple(v.value.shape)}"
    if v is None:
        return "None"
    if _isinstance(v, list):
        return "a sequence"
    name = _type(v).__name__
    return f"{'an' if name[:1] in 'aeiou' else 'a'} {name}"


def compare_value(got: Any, want: Any, *, rtol: float | None = None, atol: float | None = None) -> str | None:
    """``None`` if ``got`` matches ``want`` (decoded plain values), else what differs."""
    if _isinstance(want, PlainArray):
        if not _isinstance(got, PlainArray):
            return f"returned {describe_value(got)}, expected {describe_value(want)}"
        if got.key != want.key:
            return f"returned {describe_value(got)}, expected {describe_value(want)}"
        g, w = got.value, want.value
        if g.shape != w.shape:
            return f"has shape {tuple(g.shape)}, expected {tuple(w.shape)}"
        if g.dtype != w.dtype and not got.key:
            # Every question states its dtypes (float32 unless said): a float32 `flatten` of an
            # int array, or an int `one_hot`, is a wrong answer even where the numbers agree.
            return f"has dtype {g.dtype}, expected {w.dtype}"
        if w.dtype.kind in "biu" and g.dtype.kind in "biu":
            if not np.array_equal(g, w):
                return f"has {int(np.sum(g != w))} of {w.size} entries different from the reference"
            return None
        return compare_floats(g, w, rtol=rtol, atol=atol)
    if _isinstance(want, float) and _isinstance(got, (int, float)) and not _isinstance(got, bool):
        r, a = _tolerance("float64", rtol, atol)
        return None if math.isclose(got, want, rel_tol=r, abs_tol=a) else f"is {got!r}, expected {want!r}"
    if got != want or _type(got) is not _type(want):
        return f"is {_short_repr(got)}, expected {_short_repr(want)}"
    return None


def _short_repr(v: Any) -> str:
    if _isinstance(v, PlainArray):
        return describe_value(v)
    return shorten(repr(v), 80)


def _tolerance(dtype: str, rtol: float | None, atol: float | None) -> tuple[float, float]:
    r, a = TOLERANCES.get(dtype, TOLERANCES["float32"])
    return (r if rtol is None else rtol), (a if atol is None else atol)


def compare_floats(
    got: np.ndarray, want: np.ndarray, *, rtol: float | None = None, atol: float | None = None
) -> str | None:
    """Close within the tolerance of the *reference's* dtype; nan only where the reference has one."""
    r, a = _tolerance(str(want.dtype), rtol, atol)
    g = got.astype(np.complex128 if got.dtype.kind == "c" else np.float64)
    w = want.astype(np.complex128 if want.dtype.kind == "c" else np.float64)
    bad_nan = np.isnan(g) & ~np.isnan(w)
    if bad_nan.any():
        return f"has {int(bad_nan.sum())} nan entries where the reference has numbers"
    close = np.isclose(g, w, rtol=r, atol=a, equal_nan=True)
    if close.all():
        return None
    with np.errstate(invalid="ignore"):
        err = np.abs(g - w)[~close]
    finite = err[np.isfinite(err)]
    worst = f"{float(finite.max()):.3g}" if finite.size else "inf"
    return (
        f"differs from the reference in {int((~close).sum())} of {w.size} entries "
        f"(largest error {worst}; tolerance rtol={r:g}, atol={a:g})"
    )
