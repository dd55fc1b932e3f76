"""The child's checks between two steps of student code (autograder/sandbox/child.py), called
here in-process with stand-ins for the socket and the exit: no sandbox is started."""

from __future__ import annotations

import types
from typing import Any

from autograder.sandbox import child, integrity


def checks_with(*, unguarded_code: Any = None, tracer: Any = None) -> tuple[list[Any], list[int], list[Any]]:
    """Run ``_checks`` as the child does, from its code object, but with no namespace at all
    (no globals, no builtins): what it sent, the exits it asked for, what it checked."""
    sent: list[Any] = []
    left: list[int] = []
    checked: list[Any] = []
    root = (
        "conn",
        integrity.guard(checks_with),
        integrity.unguarded,
        unguarded_code or integrity.unguarded.__code__,
        lambda: tracer,
        lambda: None,
        lambda conn, message: sent.append(message),
        left.append,
        lambda snap, conn: checked.append(snap) or True,
    )
    types.FunctionType(child._checks.__code__, {"__builtins__": {}})(root, "the snapshot")
    return sent, left, checked


def test_the_checks_need_no_global_name() -> None:
    """A submission may replace any global or builtin: the checks read none."""
    assert checks_with() == ([], [], ["the snapshot"])


def test_a_replaced_checker_or_a_tracer_is_evidence_and_the_end() -> None:
    sent, left, _ = checks_with(unguarded_code=(lambda guarded: []).__code__, tracer=print)
    assert sent == [
        {
            "event": "tampered",
            "evidence": [
                "replaced the code of the grader's integrity check",
                "installed a trace or profile function",
            ],
        }
    ]
    assert left == [0]
