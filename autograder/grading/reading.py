"""Reading a submission's text outside the grader's process, bounded: the reader's client side.

Student text costs whoever reads it what the student chooses: however a reader is written, a
notebook can be made that costs it more than it should. So every reading of a submission's code
runs in a child process of its own (:mod:`.reader_process`), with a time limit and a memory
limit, and a reading over either is that submission's, never the batch's:

- the gates' reading (:func:`read_bounded`): over budget is *cannot tell* for every gated
  function (the questions are held for the instructor's review);
- collect's check of how deeply the code nests (:func:`first_too_deep`): over budget is
  *cannot tell*, never ``invalid`` (the submission is graded; the gates' own reading decides
  what they can read);
- the class report's similarity reading (:func:`fingerprinted`): over budget leaves the
  submission out of the comparison, and the report lists it.

Nothing here runs the submission's code: the child parses text with :mod:`ast`,
:mod:`symtable` and :mod:`tokenize`. It is kept for the grader's life; requests go in on its
stdin and answers come out on its stdout as JSON framed by its length (8 bytes, little-endian),
one request at a time::

    grader thread --request--> [stdin]  reader process (RLIMIT_CPU per request, RLIMIT_AS)
                  <--answer--- [stdout]  past either limit it dies; the next request starts
                                         a fresh one (the wall-clock backstop is here)
"""

from __future__ import annotations

import atexit
import json
import os
import select
import subprocess
import sys
import threading
import time
from collections.abc import Iterable, Sequence
from typing import Any

from ..probing import SourceFunction

#: CPU seconds and MiB one notebook's reading may take; every notebook of the course's corpora
#: reads in well under a CPU second and a few tens of MiB. The limit is CPU time, which a
#: reading bomb spends and a busy machine does not: on a loaded grader (two test workers, two
#: sandboxes each, on two cores) an honest reading can wait several wall seconds for a core.
READ_SECONDS = 10.0
READ_MEMORY_MB = 2048
#: Wall-clock seconds per CPU second before a reading is given up all the same (a reader that
#: hangs spends no CPU); and the reader's own start, before any notebook is read.
WALL_PER_CPU_SECOND = 10
START_SECONDS = 120.0
#: The child's module: ``python -m`` runs it (this module never imports it, which imports the
#: readers it runs).
READER_MODULE = "autograder.grading.reader_process"


def over_budget(seconds: float = READ_SECONDS, memory_mb: int = READ_MEMORY_MB) -> str:
    return (
        f"the grader could not finish reading this notebook's code within its limits ({seconds:g} s "
        f"of CPU time, {memory_mb} MiB), so it cannot tell whether the rule is kept"
    )


class _Reader:
    """One child process that reads notebooks, one request at a time, kept for the grader's
    life (its imports are paid once). It says when it is ready; each request then runs under a
    CPU-time limit the child sets on itself (the kernel ends it past the limit), with a
    wall-clock backstop here. A request over either kills it, and the next request starts a
    fresh one; its memory limit is the child's own address-space limit."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.proc: subprocess.Popen[bytes] | None = None

    def _start(self, memory_mb: int) -> subprocess.Popen[bytes]:
        if self.proc is None or self.proc.poll() is not None:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", READER_MODULE, str(memory_mb)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                env={**os.environ, "OPENBLAS_NUM_THREADS": "1"},
            )
            assert self.proc.stdout is not None
            # Its imports are the grader's cost, not the notebook's: wait for them apart.
            _read_exactly(self.proc.stdout.fileno(), 8, time.monotonic() + START_SECONDS)
        return self.proc

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.proc = None

    def ask(self, payload: bytes, seconds: float, memory_mb: int) -> Any:
        with self.lock:
            try:
                proc = self._start(memory_mb)
                assert proc.stdin is not None and proc.stdout is not None
                proc.stdin.write(len(payload).to_bytes(8, "little") + payload)
                proc.stdin.flush()
                deadline = time.monotonic() + seconds * WALL_PER_CPU_SECOND
                head = _read_exactly(proc.stdout.fileno(), 8, deadline)
                body = _read_exactly(proc.stdout.fileno(), int.from_bytes(head, "little"), deadline)
                return json.loads(body)
            except (OSError, ValueError, TimeoutError):
                self.stop()  # over its limits, or dead: the next request starts a fresh one
                return None


def _read_exactly(fd: int, n: int, deadline: float) -> bytes:
    chunks, left = [], n
    while left:
        wait = deadline - time.monotonic()
        if wait <= 0 or not select.select([fd], [], [], wait)[0]:
            raise TimeoutError
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            raise OSError("the reader ended")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


_READER = _Reader()
atexit.register(_READER.stop)


def _ask(kind: str, request: dict[str, Any], seconds: float | None, memory_mb: int | None) -> Any:
    """The reader's answer to one request of ``kind``, or ``None`` when it is over budget
    (``seconds`` of CPU time, ``memory_mb``; :data:`READ_SECONDS` and :data:`READ_MEMORY_MB`
    as they are at the call when not given) or the reader failed."""
    seconds = READ_SECONDS if seconds is None else seconds
    memory_mb = READ_MEMORY_MB if memory_mb is None else memory_mb
    payload = json.dumps({**request, "kind": kind, "seconds": seconds}).encode()
    return _READER.ask(payload, seconds, memory_mb)


def read_bounded(
    cells: Sequence[str],
    functions: Iterable[str],
    *,
    seconds: float | None = None,
    memory_mb: int | None = None,
) -> dict[str, SourceFunction | str]:
    """:func:`.gates.read_sources` of ``cells``, in the reader process under ``seconds`` and
    ``memory_mb``: each function's reading, or why it cannot be read (over budget included)."""
    names = list(functions)
    if not names:
        return {}
    request = {"cells": list(cells), "functions": names, "library_names": _library_names()}
    data = _ask("functions", request, seconds, memory_mb)
    if not isinstance(data, dict):
        why = over_budget(
            READ_SECONDS if seconds is None else seconds, READ_MEMORY_MB if memory_mb is None else memory_mb
        )
        return {name: f"`{name}`: {why}" for name in names}
    readings: dict[str, SourceFunction | str] = {}
    for name in names:
        entry = data.get(name)
        if isinstance(entry, dict) and isinstance(entry.get("source"), str):
            readings[name] = SourceFunction(name, entry["source"], {})
        else:
            readings[name] = (
                str(entry.get("why") if isinstance(entry, dict) else "") or f"`{name}` was not read"
            )
    return readings


def first_too_deep(
    cells: Sequence[str], max_depth: int, *, seconds: float | None = None, memory_mb: int | None = None
) -> int | None:
    """The number (from 1) of the first of ``cells`` whose syntax tree nests deeper than
    ``max_depth`` levels, or deeper than Python's own parser goes; ``0`` when none does (a cell
    that does not parse nests nowhere: the sandbox reports it as Python's own error); ``None``
    when the reader cannot tell within ``seconds`` and ``memory_mb``."""
    data = _ask("nesting", {"cells": list(cells), "max_depth": max_depth}, seconds, memory_mb)
    if isinstance(data, dict) and isinstance(data.get("deep"), int) and data["deep"] >= 0:
        return int(data["deep"])
    return None


#: One graded function as :func:`fingerprinted` reads it: its source (decorators included) and
#: its winnowed fingerprints, each with the lines of the source its run of tokens covers.
Fingerprinted = tuple[str, dict[int, tuple[int, ...]]]


def fingerprinted(
    cells: Sequence[str], names: Iterable[str], *, seconds: float | None = None, memory_mb: int | None = None
) -> dict[str, Fingerprinted] | None:
    """Each of ``names`` that ``cells`` define at top level (the last definition), read as
    :mod:`.similarity` compares it, in the reader process: its source and fingerprints (those
    without any left out). ``None`` when the reader cannot read them within ``seconds`` and
    ``memory_mb``."""
    data = _ask("similarity", {"cells": list(cells), "names": list(names)}, seconds, memory_mb)
    if not isinstance(data, dict) or not isinstance(data.get("functions"), dict):
        return None
    out: dict[str, Fingerprinted] = {}
    for name, entry in data["functions"].items():
        try:
            prints = {int(h): tuple(int(n) for n in lines) for h, lines in entry["fingerprints"]}
            out[str(name)] = (str(entry["source"]), prints)
        except (KeyError, TypeError, ValueError):
            return None  # not what the reader writes: nothing of it is trusted
    return out


_LISTED: list[str] = []


def _library_names() -> str | None:
    """The path of the installed libraries' names (:mod:`.library_names`), listed once per host
    and library versions in the user's cache folder; ``None`` where that cannot be written or
    listed, and the reader lists them itself (it is a clean process too). Only a path that
    exists is remembered: a failure is never kept."""
    if _LISTED and os.path.exists(_LISTED[0]):
        return _LISTED[0]
    from .cache_folder import cache_root
    from .library_names import names_file

    try:
        path = str(names_file(cache_root()))
    except (OSError, subprocess.SubprocessError):
        return None
    _LISTED[:] = [path]
    return path


def _limit_cpu(seconds: float) -> None:
    """Let this process spend at most ``seconds`` more CPU time (whole seconds, at least one):
    past it the kernel ends it (SIGXCPU), and the grader reads that as over budget."""
    try:
        import math
        import resource

        usage = resource.getrusage(resource.RUSAGE_SELF)
        soft = math.ceil(usage.ru_utime + usage.ru_stime + max(seconds, 1.0))
        hard = resource.getrlimit(resource.RLIMIT_CPU)[1]
        if hard != resource.RLIM_INFINITY:
            soft = min(soft, hard)
        resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))
    except (ImportError, ValueError, OSError):
        pass  # no such limit here: the wall-clock backstop still bounds the reading
