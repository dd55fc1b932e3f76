"""The reader process: every reading of a submission's text, bounded (see :mod:`.reading`).

``python -m autograder.grading.reader_process MEMORY_MB`` is the child the grader keeps for its
life. It sets its own address-space limit (``MEMORY_MB``), says it is ready (an empty frame), then
answers one request at a time, each under the CPU-time limit the request names
(:func:`.reading._limit_cpu`: past it the kernel ends the process). Requests are JSON objects with
a ``kind``:

- ``functions``: the gates' reading of ``cells`` for ``functions`` (:func:`.gates.read_sources`,
  then every attribute checked against the installed libraries' names and the notebook's own);
- ``nesting``: the first cell nesting deeper than ``max_depth`` (collect's check);
- ``similarity``: the graded functions ``names`` of ``cells``, fingerprinted as
  :mod:`.similarity` compares them.

Nothing here runs the submission's code.
"""

from __future__ import annotations

import ast
import json
import sys
import tokenize
from collections.abc import Sequence
from typing import Any

from ..notebooks import executable_source
from ..probing import SourceFunction
from ..probing.helpers import parse_python
from .reading import READ_SECONDS, _limit_cpu, over_budget


def defined_by_notebook(cells: Sequence[str]) -> set[str]:
    """Attribute names the notebook's own objects define by name: its classes' names, what its
    methods store on ``self``/``cls``, what it stores on its classes and on objects made from
    them, keyword names (``SimpleNamespace(w=...)``) and ``namedtuple`` fields. A store on an
    object it cannot name as its own (``x.times = ...``) defines nothing here."""
    import re

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


def _functions(data: dict[str, Any], listed: dict[str, Any]) -> dict[str, Any]:
    """The gates' reading (``functions``): each function's canonical text, or why not."""
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


def first_too_deep(cells: Sequence[str], max_depth: int) -> int:
    """The number (from 1) of the first of ``cells`` whose syntax tree nests deeper than
    ``max_depth``, or deeper than Python's parser goes (its own depth limits); ``0`` when none
    does. A cell that does not parse nests nowhere: the sandbox reports it as Python's error."""
    for i, source in enumerate(cells, 1):
        try:
            tree = parse_python(executable_source(source))
        except (SyntaxError, ValueError):
            continue
        except (RecursionError, MemoryError):  # the parser's own depth limits ("-" * 10**5 + "1")
            return i
        stack: list[tuple[ast.AST, int]] = [(tree, 1)]
        while stack:
            node, depth = stack.pop()
            if depth > max_depth:
                return i
            stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
    return 0


def _nesting(data: dict[str, Any]) -> dict[str, Any]:
    """Collect's check (``nesting``). The parser's own limits are proven depth (Python refuses
    that code: its ``MemoryError`` is its stack, on at most a 128 KiB cell); anything else that
    stops the walk ends this process, which is over budget, never the student's ``invalid``."""
    return {"deep": first_too_deep(data["cells"], int(data["max_depth"]))}


def _similarity(data: dict[str, Any]) -> dict[str, Any]:
    """The graded functions (``similarity``), each with its source and fingerprints. Out of memory
    or recursion while normalising is over budget for the whole submission (no answer): it is
    left out of the comparison, never compared on part of its functions."""
    from .similarity import fingerprints, graded_functions, normalised

    found = {}
    for name, source in graded_functions(data["cells"], data["names"]).items():
        try:
            tokens = normalised(source, function=name)
        except (SyntaxError, ValueError, tokenize.TokenError):
            continue  # not Python as a whole: nothing to compare, as in a notebook of the class
        prints = fingerprints(tokens)
        if prints:
            found[name] = {"source": source, "fingerprints": [[h, list(ln)] for h, ln in prints.items()]}
    return {"functions": found}


def _listing(path: str) -> dict[str, Any]:
    """The installed libraries' names, from the file at ``path`` (listed by a clean process) or,
    where that cannot be read, listed by this process (clean too)."""
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
    return {"modules": {m: set(n) for m, n in raw["modules"].items()}, "classes": set(raw["classes"])}


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
        kind = data.get("kind")
        if kind == "functions":
            path = str(data.get("library_names") or "")
            if path not in listings:
                listings[path] = _listing(path)
        _limit_cpu(float(data.get("seconds") or READ_SECONDS))
        if kind == "functions":
            answer = _functions(data, listings[path])
        elif kind == "nesting":
            answer = _nesting(data)
        elif kind == "similarity":
            answer = _similarity(data)
        else:
            return  # not the grader's request: end, and the grader reads no answer
        body = json.dumps(answer).encode()
        stdout.write(len(body).to_bytes(8, "little") + body)
        stdout.flush()


if __name__ == "__main__":
    main()
