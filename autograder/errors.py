"""The tool's exceptions that end a command with one line for a person (see :mod:`autograder.cli`).

They live here, importing nothing of the tool, so that the command line can catch them without
loading the modules that raise them: ``grade`` starts its sandboxes' zygote before its own
imports. So does the one rule of what stops a batch (:func:`stops_the_batch`).
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from typing import Any


class ConfigError(Exception):
    """``course.yml`` is wrong; the message is one line for a person."""


class UsageError(Exception):
    """SUBMISSIONS itself, or a flag, is unusable (exit status 2)."""


class NotebookError(Exception):
    """A file is not a notebook we can read; the message is one line naming the file."""


class BuildError(Exception):
    """A source is inconsistent; one line naming the file and the problem."""


class GradingFailed(Exception):
    """Grading itself failed (exit status 1): the grader's fault, never a student's."""


# -- what ends a batch ----------------------------------------------------------------------------
# A batch survives anything one submission does to the grader: any exception while one is read,
# graded or recorded, SystemExit and KeyboardInterrupt included, is that row's `error`. Only the
# instructor's own Ctrl-C stops it, and only a SIGINT this process received is one.

_SIGINT = {"noted": False, "received": False}


@contextlib.contextmanager
def noting_interrupts() -> Iterator[None]:
    """While inside, a SIGINT (Ctrl-C) this process receives is noted before Python raises its
    KeyboardInterrupt, so that :func:`stops_the_batch` tells it from one raised by code. Only
    in the main thread, where Python's own handler is in place (signals reach only that thread);
    elsewhere a no-op."""
    if (
        threading.current_thread() is not threading.main_thread()
        or signal.getsignal(signal.SIGINT) is not signal.default_int_handler
    ):
        yield
        return

    def handler(signum: int, frame: Any) -> None:
        _SIGINT["received"] = True
        signal.default_int_handler(signum, frame)

    before = dict(_SIGINT)
    _SIGINT.update(noted=True, received=False)
    signal.signal(signal.SIGINT, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        _SIGINT.update(before)


def stops_the_batch(e: BaseException) -> bool:
    """Whether ``e``, raised while one submission was handled, stops the batch instead of being
    that row's ``error``: only a KeyboardInterrupt in the main thread that a real SIGINT caused
    (or any KeyboardInterrupt there when :func:`noting_interrupts` is not in place: it might be
    one). Worker threads never receive signals: what they raise is always the row's."""
    if not isinstance(e, KeyboardInterrupt) or threading.current_thread() is not threading.main_thread():
        return False
    return _SIGINT["received"] or not _SIGINT["noted"]
