"""Reading a submission's cells for the gates, outside the grader's process and bounded.

The gates (:mod:`.gates`) read student text: however they are written, a notebook can be made
that costs them more than it should. So the reading runs in a child process of its own, with a
time limit and a memory limit; a reading over either is *cannot tell* for every gated function
(the questions are held for the instructor's review), and the batch goes on. Nothing here runs
the submission's code: the child parses text with :mod:`ast` and :mod:`symtable`.

``python -m autograder.grading.reading MEMORY_MB`` is the child, kept for the grader's life:
requests in on stdin (``cells``, ``functions``), answers out on stdout (each function's
canonical text, or why it cannot be read), as JSON framed by its length.
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
                [sys.executable, "-m", "autograder.grading.reading", str(memory_mb)],
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


def read_bounded(
    cells: Sequence[str],
    functions: Iterable[str],
    *,
    seconds: float = READ_SECONDS,
    memory_mb: int = READ_MEMORY_MB,
) -> dict[str, SourceFunction | str]:
    """:func:`.gates.read_sources` of ``cells``, in the reader process under ``seconds`` and
    ``memory_mb``: each function's reading, or why it cannot be read (over budget included)."""
    names = list(functions)
    if not names:
        return {}
    payload = json.dumps(
        {"cells": list(cells), "functions": names, "library_names": _library_names(), "seconds": seconds}
    )
    data = _READER.ask(payload.encode(), seconds, memory_mb)
    if not isinstance(data, dict):
        why = over_budget(seconds, memory_mb)
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


_LISTED: list[str] = []


def _library_names() -> str | None:
    """The path of the installed libraries' names (:mod:`.library_names`), listed once per host
    and library versions in the user's cache folder; ``None`` where that cannot be written or
    listed, and the reader lists them itself (it is a clean process too). Only a path that
    exists is remembered: a failure is never kept."""
    if _LISTED and os.path.exists(_LISTED[0]):
        return _LISTED[0]
    from .library_names import names_file
    from .reference import cache_root

    try:
        path = str(names_file(cache_root()))
    except (OSError, subprocess.SubprocessError):
        return None
    _LISTED[:] = [path]
    return path


def defined_by_notebook(cells: Sequence[str]) -> set[str]:
    """Attribute names the notebook's own objects define by name: its classes' names, what its
    methods store on ``self``/``cls``, what it stores on its classes and on objects made from
    them, keyword names (``SimpleNamespace(w=...)``) and ``namedtuple`` fields. A store on an
    object it cannot name as its own (``x.times = ...``) defines nothing here."""
    import ast
    import re

    from ..notebooks import executable_source
    from ..probing.helpers import parse_python

    trees = []
    for cell in cells:
        try:
            trees.append(parse_python(executable_source(cell)))
        except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
            continue
    classes = {n.name for t in trees for n in ast.walk(t) if isinstance(n, ast.ClassDef)}
    owned = set(classes)  # names that hold a notebook class or an object made from one
    for t in trees:
        for n in ast.walk(t):
            if (
                isinstance(n, ast.Assign)
                and isinstance(n.value, ast.Call)
                and isinstance(n.value.func, ast.Name)
            ):
                if n.value.func.id in classes:
                    owned.update(x.id for x in n.targets if isinstance(x, ast.Name))
    names: set[str] = set()
    for t in trees:
        for node in ast.walk(t):
            if isinstance(node, ast.ClassDef):
                for st in node.body:
                    if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                        names.add(st.name)
                    elif isinstance(st, (ast.Assign, ast.AnnAssign)):
                        targets = st.targets if isinstance(st, ast.Assign) else [st.target]
                        names.update(x.id for x in targets if isinstance(x, ast.Name))
                    if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)) and st.args.args:
                        me = st.args.args[0].arg
                        for sub in ast.walk(st):
                            if isinstance(sub, ast.Attribute) and isinstance(sub.ctx, ast.Store):
                                if isinstance(sub.value, ast.Name) and sub.value.id == me:
                                    names.add(sub.attr)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                if isinstance(node.value, ast.Name) and node.value.id in owned:
                    names.add(node.attr)
            elif isinstance(node, ast.keyword) and node.arg:
                names.add(node.arg)
            elif (
                isinstance(node, ast.Call)
                and (_tail(node.func) or "").endswith("namedtuple")
                and len(node.args) > 1
            ):
                for arg in ast.walk(node.args[1]):
                    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                        names.update(re.findall(r"[A-Za-z_]\w*", arg.value[:10_000]))
    return names


def _tail(node: object) -> str | None:
    import ast

    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def unknown_attribute(
    source: str, known: dict[str, set[str]], classes: set[str], own: set[str]
) -> str | None:
    """The first attribute the canonical ``source`` reads that nothing defines: a library
    module's name missing from that module as installed, or an object's attribute that no value
    class of the libraries and nothing in the notebook defines."""
    import ast

    from .gates import _dotted

    tree = ast.parse(source)
    aliases = {}  # `nb__m__3 = jax.numpy`: another name of a module
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            path = _dotted(node.value)
            if path and ".".join(path) in known:
                aliases[node.targets[0].id] = path
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load)):
            continue
        parts = _dotted(node)
        if parts and parts[0] in aliases:
            parts = [*aliases[parts[0]], *parts[1:]]
        if parts and parts[0] in known:
            k = 1  # the longest leading part of the path that is a module
            while k < len(parts) and ".".join(parts[: k + 1]) in known:
                k += 1
            module = ".".join(parts[:k])
            if k < len(parts) and parts[k] not in known[module]:
                return f"{module}.{parts[k]}"
            continue
        if node.attr not in classes and node.attr not in own:
            return f".{node.attr}"
    return None


def _answer(data: dict[str, Any], listed: dict[str, Any]) -> dict[str, Any]:
    from .gates import read_sources

    try:
        readings = read_sources(data["cells"], data["functions"])
    except MemoryError:
        why = over_budget()
        return {name: {"why": f"`{name}`: {why}"} for name in data["functions"]}
    known, classes = listed["modules"], listed["classes"]
    own = defined_by_notebook(data["cells"])
    for name, r in list(readings.items()):
        if isinstance(r, SourceFunction) and (attr := unknown_attribute(r.source, known, classes, own)):
            readings[name] = (
                f"`{name}` reads `{attr}`, which neither the installed libraries nor the notebook define "
                "by name: it was made while the notebook ran, and the grader cannot tell what it runs"
            )
    return {
        name: {"source": r.source} if isinstance(r, SourceFunction) else {"why": r}
        for name, r in readings.items()
    }


def main() -> None:
    """The reader: requests and answers framed by their length (8 bytes, little-endian)."""
    try:
        import resource

        limit = int(sys.argv[1]) * 2**20
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    except (ImportError, ValueError, OSError, IndexError):
        pass  # no such limit here (macOS): the time limit still bounds each reading
    listings: dict[str, dict[str, Any]] = {}
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    stdout.write(bytes(8))  # ready: an empty frame
    stdout.flush()
    while True:
        head = stdin.read(8)
        if len(head) < 8:
            return
        data = json.loads(stdin.read(int.from_bytes(head, "little")))
        path = str(data.get("library_names") or "")
        if path not in listings:
            raw: Any = None
            if path:
                try:
                    with open(path, encoding="utf-8") as f:
                        raw = json.load(f)
                except (OSError, ValueError):
                    raw = None
            if raw is None:
                from .library_names import collect

                raw = collect()  # no list from the cache folder: this clean process makes one
            listings[path] = {
                "modules": {m: set(n) for m, n in raw["modules"].items()},
                "classes": set(raw["classes"]),
            }
        _limit_cpu(float(data.get("seconds") or READ_SECONDS))
        body = json.dumps(_answer(data, listings[path])).encode()
        stdout.write(len(body).to_bytes(8, "little") + body)
        stdout.flush()


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


if __name__ == "__main__":
    main()
