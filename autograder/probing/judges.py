"""Judges that several assignments share, each beside the probe-body helper that makes the
outputs it reads. The verdict's logic lives here once; the words a student reads (which rule,
which API to use instead) are the question's, passed in by its ``probes.py``.

- *The traced program does not grow with the batch*: "no Python loop" judged on what runs.
  The body traces the function at a few sizes and counts something in each program
  (:func:`traced_counts`); :func:`fixed_size_program` fails counts that grow at every size.
- *The results live on every device*: the body counts the devices each result array lives on
  (:func:`devices_of`); :func:`on_every_device` fails a result on fewer than the grader has.
- *A matplotlib Figure came back*: :func:`not_a_figure`, the first check of every plot judge.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ._captured import _isinstance, _type
from .compare import RETURNED_NONE
from .helpers import python_loops, source_of

#: ``judge(out, ref) -> None | message``, as :class:`~autograder.probing.Probe` takes it.
Judge = Callable[[dict[str, Any], dict[str, Any]], str | None]

#: The outputs of a body that could not trace its function: the exception's name, and the
#: Python loops of the function's source, which then decide (the grader replaces them with the
#: loops of its own reading of the cells before judging).
UNTRACED, LOOPS = "untraced", "loops"


# ---------------------------------------------------------------------------------------------
# The traced program does not grow with the batch.


def traced_counts(key: str, count: Callable[[], list[int]], fn: Any) -> dict[str, Any]:
    """For a probe body: ``{key: count()}``, where ``count`` traces the student's function ``fn``
    at each size and counts something in each program (operations, random draws). Where ``fn``
    cannot be traced at all (it turns a traced value into NumPy, say): ``{"untraced": why,
    "loops": [...]}``, and the source decides, so an answer that is right when run is never
    failed for being untraceable."""
    try:
        return {key: count()}
    except Exception as e:  # noqa: BLE001 - a student function may raise anything while traced
        return {UNTRACED: _type(e).__name__, LOOPS: python_loops(source_of(fn))}


def fixed_size_program(
    key: str,
    sizes: int,
    *,
    untraced: str,
    unreadable: str,
    empty: str,
    grows: Callable[[list[int]], str],
) -> Judge:
    """The judge of :func:`traced_counts`' outputs, for ``sizes`` traced sizes, smallest first.

    It fails, with the message given for each case: an untraced function whose source has a
    loop (``untraced``, formatted with ``{error}``, the exception's name, and ``{loop}``, the
    first loop); counts that are not ``sizes`` whole numbers (``unreadable``); a program with
    nothing counted at some size (``empty``: the stub's body, or nothing computed); counts that
    grow at every size (``grows(counts)``: a Python loop repeats its body once per row). An
    untraced function without a loop passes.
    """

    def judge(out: dict[str, Any], ref: dict[str, Any]) -> str | None:
        if UNTRACED in out:
            loops = out.get(LOOPS)
            if _isinstance(loops, list) and loops:
                return untraced.format(error=out[UNTRACED], loop=loops[0])
            return None
        counts = out.get(key)
        if not (
            _isinstance(counts, list) and len(counts) == sizes and all(_isinstance(n, int) for n in counts)
        ):
            return unreadable
        if min(counts) == 0:
            return empty
        if all(a < b for a, b in zip(counts, counts[1:])):
            return grows(counts)
        return None

    return judge


# ---------------------------------------------------------------------------------------------
# The results live on every device.


def devices_of(result: Any) -> list[int]:
    """For a probe body: how many devices each array of ``result`` (a pytree) lives on; 1 for a
    leaf that is not a JAX array."""
    import jax

    return [
        len(leaf.sharding.device_set) if hasattr(leaf, "sharding") else 1 for leaf in jax.tree.leaves(result)
    ]


def on_every_device(hint: str) -> Judge:
    """The judge of ``{"devices": devices_of(result), "n": device count}``: every result array
    lives on all ``n`` devices the grader has, ``n`` read from the reference's run (never the
    student's own claim). ``hint``: how to spread the results, after the count that fell short."""

    def judge(out: dict[str, Any], ref: dict[str, Any]) -> str | None:
        devices, want = out.get("devices"), ref["n"]
        if not _isinstance(devices, list) or not devices:
            return "returned no arrays"
        if min(devices) < want:
            return f"the results live on {min(devices)} device(s), not on all {want}: {hint}"
        return None

    return judge


# ---------------------------------------------------------------------------------------------
# A matplotlib Figure came back.


def not_a_figure(out: dict[str, Any]) -> str | None:
    """Why the outputs of a plot probe do not describe a matplotlib Figure, or ``None``. The body
    reports ``{"type": type(fig).__name__, "figure": True}`` for a Figure (``False`` otherwise)
    beside whatever its judges read."""
    if out.get("type") == "NoneType":
        return f"{RETURNED_NONE}; it should return a matplotlib Figure"
    if out.get("figure") is not True:
        return f"returned an object of type {out.get('type')}, not a matplotlib Figure"
    return None
