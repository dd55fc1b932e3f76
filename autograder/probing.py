"""Hidden tests as probes: the one definition both graders use.

A *probe* calls a submission's functions on inputs it makes itself and returns plain data
(arrays, numbers, strings, lists of them). A *judge* compares that data with what the same probe
returned for the reference solution, or checks a property of it, and returns ``None`` (pass) or
one sentence saying what is wrong.

Our grader never runs the two halves in one process: probes run in the sandbox beside student
code, their outputs cross a pipe as JSON and ``.npy`` bytes, and judges run in the grader on
that decoded data, against reference outputs computed in a process that never ran student code.
The otter autograder zip ships this file too and runs both halves inside the student's kernel
(otter's own model) through :func:`otter_check`, so both paths score honest work the same way.

This module must import nothing but the standard library and NumPy at module level: it is
copied verbatim into the otter autograder and imported in sandboxes before student code runs.
"""

from __future__ import annotations

import ast
import builtins
import hashlib
import inspect
import io
import json
import math
import textwrap
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

# Captured before any student code runs; later code uses these, not the module attributes a
# submission may have replaced.
_getsource = inspect.getsource
_unwrap = inspect.unwrap
_np_array = np.array
_np_save = np.save
_isinstance = builtins.isinstance
_type = builtins.type

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


class ProbeError(Exception):
    """A submission's function is missing, or returned something that is not plain data."""


@dataclass(frozen=True)
class Probe:
    """One hidden test: a probe body run beside the submission and a judge run by the grader."""

    question: str
    """question name in the master notebook, ``"q3"``"""
    name: str
    """identifier of the property it checks, unique per question: ``"never_negative"``"""
    function: str
    """the student function it exercises, for messages: ``"pairwise_sq_dists"``"""
    description: str
    """what it does, in words a student may read (shapes, never values): first docstring line"""
    body: Callable[[Namespace, np.random.Generator], dict[str, Any]]
    """``body(sub, rng) -> outputs``: calls ``sub.<function>`` on inputs it makes from ``rng``"""
    judge: Callable[[dict[str, Any], dict[str, Any]], str | None] | None = None
    """``judge(out, ref) -> None | message``; ``None`` compares every output to the reference"""
    weight: float = 1.0
    """share of the question's points, relative to its other probes"""
    rtol: float | None = None
    """relative tolerance overriding :data:`TOLERANCES`"""
    atol: float | None = None
    """absolute tolerance overriding :data:`TOLERANCES`"""
    gate: bool = False
    """a requirement, not a property: it carries no points, and when it fails the whole
    question scores 0 (forbidden APIs, loops where vectorisation was asked for)"""
    source: bool = False
    """reads only source code: our grader runs it in its own process on the submitted cells'
    text (``sub.<function>`` is a :class:`SourceFunction`), never in the sandbox, whose view
    of a function's source the submission controls"""

    @property
    def id(self) -> str:
        return f"{self.question}.{self.name}"


@dataclass
class ProbeSet:
    """The probes of one assignment, in definition order: ``hidden = ProbeSet("01-broadcasting")``."""

    assignment: str
    probes: list[Probe] = field(default_factory=list)

    def probe(
        self,
        question: str,
        function: str,
        *,
        weight: float = 1.0,
        rtol: float | None = None,
        atol: float | None = None,
        judge: Callable[[dict[str, Any], dict[str, Any]], str | None] | None = None,
        gate: bool = False,
        source: bool = False,
    ) -> Callable[[Callable[..., dict[str, Any]]], Callable[..., dict[str, Any]]]:
        """Register the decorated ``body(sub, rng)`` as a hidden test of ``question``.

        ``gate=True`` makes it a requirement of the question (see :attr:`Probe.gate`);
        ``source=True`` marks a body that reads only source (see :attr:`Probe.source`)."""

        def register(body: Callable[..., dict[str, Any]]) -> Callable[..., dict[str, Any]]:
            doc = (body.__doc__ or body.__name__).strip().splitlines()[0]
            name = body.__name__
            if any(p.question == question and p.name == name for p in self.probes):
                raise ValueError(f"{self.assignment}: probe {question}.{name} is defined twice")
            self.probes.append(
                Probe(question, name, function, doc, body, judge, weight, rtol, atol, gate, source)
            )
            return body

        return register

    def for_question(self, question: str) -> list[Probe]:
        return [p for p in self.probes if p.question == question]

    def questions(self) -> list[str]:
        return list(dict.fromkeys(p.question for p in self.probes))

    def get(self, probe_id: str) -> Probe:
        for p in self.probes:
            if p.id == probe_id:
                return p
        raise KeyError(probe_id)

    def points(self, question: str, question_points: float) -> dict[str, float]:
        """Split ``question_points`` over the question's scoring (non-gate) probes by weight;
        gates get 0. Shares are rounded to 6 decimals and never add up to more than the total
        (otter rejects a question whose test points exceed it)."""
        probes = self.for_question(question)
        scoring = [p for p in probes if not p.gate]
        total = sum(p.weight for p in scoring)
        shares = {p.id: 0.0 for p in probes}
        if not scoring or total == 0:
            return shares
        for p in scoring[:-1]:
            shares[p.id] = round(question_points * p.weight / total, 6)
        last = scoring[-1].id
        shares[last] = round(question_points - sum(shares[p.id] for p in scoring[:-1]), 6)
        while sum(shares[p.id] for p in scoring) > question_points:
            shares[last] = math.nextafter(shares[last], 0.0)
        return shares


def score_question(
    probes: list[Probe], points: dict[str, float], problems: dict[str, str | None]
) -> tuple[float, list[str]]:
    """``(points earned, messages)`` for one question from each probe's judged problem: the sum
    of the passing probes' points, or 0 when a gate failed (its message comes first)."""
    gates = [problems[p.id] for p in probes if p.gate and problems.get(p.id)]
    failed = [problems[p.id] for p in probes if not p.gate and problems.get(p.id)]
    if gates:
        return 0.0, [*gates, *failed]
    earned = sum(points[p.id] for p in probes if not p.gate and problems.get(p.id) is None)
    return round(earned, 6), failed


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
    :class:`SourceFunction`, or the reason the grader cannot read it as a plain ``def``."""

    def __init__(self, entries: dict[str, SourceFunction | str]):
        self._entries = entries

    def __getattr__(self, name: str) -> SourceFunction:
        entry = self.__dict__["_entries"].get(name)
        if entry is None:
            raise ProbeError(f"`{name}` is not a function of this question")
        if _isinstance(entry, str):
            raise ProbeError(f"`{name}` {entry}; write it as a plain `def` in the notebook")
        return entry

    def has(self, name: str) -> bool:
        return _isinstance(self._entries.get(name), SourceFunction)


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


def probe_seed(seed: int, probe_id: str) -> int:
    """The seed of one probe's inputs, derived from the batch's seed in the grader: a sandbox
    gets only the seeds of the probes it runs, never the batch's."""
    digest = hashlib.sha256(f"{seed}:{probe_id}".encode()).digest()
    return int.from_bytes(digest[:8], "little")


def probe_rng(seed: int, probe_id: str) -> np.random.Generator:
    """The generator a probe draws its inputs from: the same for student and reference runs."""
    return np.random.default_rng(probe_seed(seed, probe_id))


# ---------------------------------------------------------------------------------------------
# Plain data: what may cross from a sandbox to the grader.

_SCALARS = (bool, int, float, str, type(None))


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

        if jax.dtypes.issubdtype(x.dtype, jax.dtypes.prng_key):
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
    """The grader's side of :func:`encode_outputs`: never unpickles, checks every field."""
    out: dict[str, Any] = {}
    if not _isinstance(meta, dict):
        raise ValueError("outputs are not a JSON object")
    for path, desc in meta.items():
        if not _isinstance(desc, dict):
            raise ValueError(f"output {path!r} is malformed")
        if desc.get("array"):
            if path not in blobs:
                raise ValueError(f"output {path!r} has no data")
            arr = np.load(io.BytesIO(blobs[path]), allow_pickle=False)
            if arr.dtype.kind not in "biufc":
                raise ValueError(f"output {path!r} has dtype {arr.dtype}")
            out[path] = PlainArray(arr, bool(desc.get("key")))
        else:
            out[path] = desc.get("json")
    return out


@dataclass(frozen=True)
class PlainArray:
    """A decoded array output; ``key`` marks the key data of a typed PRNG key array."""

    value: np.ndarray
    key: bool = False


# ---------------------------------------------------------------------------------------------
# Running probes (beside the submission) and judging them (in the grader).


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


def shorten(text: str, limit: int = MAX_MESSAGE) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def judge_probe(probe: Probe, student: dict[str, Any], reference: dict[str, Any]) -> str | None:
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
    try:
        if probe.judge is not None:
            problem = probe.judge(out, ref)
        else:
            problem = compare_outputs(out, ref, rtol=probe.rtol, atol=probe.atol)
    except Exception:  # noqa: BLE001 - malformed student data must not crash the judge
        problem = unusable_outputs(out, ref)
    return None if problem is None else shorten(f"{where}: {problem}")


def unusable_outputs(out: dict[str, Any], ref: dict[str, Any]) -> str:
    """Why a judge could not use the student's outputs, in words a student can act on: the
    first output whose kind, shape or dtype differs from the reference's, else what came back.
    (A judge raises on data it did not expect; the exception's name tells a student nothing.)"""
    if set(out) != set(ref):
        got, want = sorted(set(out) - set(ref)), sorted(set(ref) - set(out))
        return (
            f"returned a result with the parts {', '.join(got) or 'none'} where the test expects "
            f"{', '.join(want) or 'fewer'}"
        )
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
        label = f"output `{path}` is" if len(ref) > 1 else "returned"
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
    missing = [k for k in ref if k not in out]
    extra = [k for k in out if k not in ref]
    if missing or extra:
        got = _describe_structure(out)
        want = _describe_structure(ref)
        return f"returned {got}, expected {want}"
    for path in ref:
        problem = compare_value(out[path], ref[path], rtol=rtol, atol=atol)
        if problem:
            label = f"output `{path}` " if len(ref) > 1 else ""
            return label + problem
    return None


def _describe_structure(outputs: dict[str, Any]) -> str:
    if list(outputs) == [""] or len(outputs) == 1:
        (v,) = outputs.values()
        return describe_value(v)
    return "{" + ", ".join(sorted(outputs)) + "}"


def describe_value(v: Any) -> str:
    if _isinstance(v, PlainArray):
        kind = "key array" if v.key else f"{v.value.dtype} array"
        return f"a {kind} of shape {tuple(v.value.shape)}"
    if v is None:
        return "None (is the function still the stub `...`?)"
    if _isinstance(v, list):
        return "a sequence"
    return f"a {_type(v).__name__}"


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


# ---------------------------------------------------------------------------------------------
# Helpers for probe bodies (run beside the submission).


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

    def _on_event(self, name: str, _duration: float, **_: Any) -> None:
        if self.active and name == "/jax/core/compile/jaxpr_trace_duration":
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
        jax.block_until_ready(thunk())
    finally:
        _TRACES.active = False
    return _TRACES.count - before


def primitives(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> list[str]:
    """Names of every primitive in ``fn``'s jaxpr, sub-jaxprs (loop and cond bodies) included."""
    import jax

    closed = jax.make_jaxpr(fn)(*args, **kwargs)
    names: list[str] = []

    def walk(jaxpr: Any) -> None:
        for eqn in jaxpr.eqns:
            names.append(eqn.primitive.name)
            for param in eqn.params.values():
                for sub in param if _isinstance(param, (list, tuple)) else [param]:
                    inner = getattr(sub, "jaxpr", sub)
                    if hasattr(inner, "eqns"):
                        walk(inner)

    walk(closed.jaxpr)
    return names


def largest_intermediate(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> int:
    """Most elements of any value ``fn`` makes when traced on ``args`` (nothing is run), loop
    bodies included: an HVP that builds an ``n x n`` Hessian shows ``n * n`` here."""
    import jax

    closed = jax.make_jaxpr(fn)(*args, **kwargs)
    largest = 0

    def walk(jaxpr: Any) -> None:
        nonlocal largest
        for eqn in jaxpr.eqns:
            for var in eqn.outvars:
                shape = getattr(getattr(var, "aval", None), "shape", ())
                largest = max(largest, int(np.prod(shape, dtype=np.int64)) if shape else 1)
            for param in eqn.params.values():
                for sub in param if _isinstance(param, (list, tuple)) else [param]:
                    inner = getattr(sub, "jaxpr", sub)
                    if hasattr(inner, "eqns"):
                        walk(inner)

    walk(closed.jaxpr)
    return largest


# ---------------------------------------------------------------------------------------------
# Helpers for judges (run in the grader, on plain data).


def array(out: dict[str, Any], path: str) -> np.ndarray:
    """The array output ``path`` of a decoded run; :class:`ValueError` if it is not an array."""
    v = out.get(path)
    if not _isinstance(v, PlainArray):
        raise ValueError(f"`{path}` is {describe_value(v)}, not an array")
    return v.value


def names_used(source: str) -> set[str]:
    """Dotted names read in ``source`` (``jnp.outer``, ``jax.jacfwd``, ``outer``, ``einsum``)."""
    try:
        tree = ast.parse(source)
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


def python_loops(source: str) -> list[str]:
    """The Python loops in ``source``: ``for``/``while`` statements and comprehensions."""
    try:
        tree = ast.parse(source)
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
    return [kinds[_type(n)] for n in ast.walk(tree) if _type(n) in kinds]


# ---------------------------------------------------------------------------------------------
# The otter path: both halves in the student's kernel.

_REFERENCE_ENV: dict[str, Any] | None = None


def reference_env(path: str = "reference_solution.py") -> dict[str, Any]:
    """Globals of the reference solution shipped in the otter autograder, executed once."""
    global _REFERENCE_ENV
    if _REFERENCE_ENV is None:
        env: dict[str, Any] = {"__name__": "reference_solution"}
        with open(path, encoding="utf-8") as f:
            code = compile(f.read(), path, "exec")
        exec(code, env)  # noqa: S102 - the instructor's own reference solution
        _REFERENCE_ENV = env
    return _REFERENCE_ENV


def decode_run(run: dict[str, Any]) -> dict[str, Any]:
    if not run["ok"]:
        return {"ok": False, "error": run["error"]}
    # Round-trip through JSON, as the pipe does, so both graders judge identical data.
    meta = json.loads(json.dumps(run["meta"]))
    return {"ok": True, "outputs": decode_outputs(meta, run["blobs"])}


def otter_check(probes: ProbeSet, probe_id: str, env: dict[str, Any], seed: int) -> None:
    """Run and judge one probe inside an otter test case; ``AssertionError`` when it fails.

    A scoring probe also fails when a gate of its question fails, so that otter's per-test
    points add up to :func:`score_question`'s."""
    probe = probes.get(probe_id)
    checks = [probe] if probe.gate else [*(p for p in probes.for_question(probe.question) if p.gate), probe]
    for p in checks:
        student = decode_run(run_probe(p, env, probe_seed(seed, p.id)))
        reference = decode_run(run_probe(p, reference_env(), probe_seed(seed, p.id)))
        problem = judge_probe(p, student, reference)
        if problem is not None:
            raise AssertionError(problem)
