"""Pairs of submissions whose graded functions are suspiciously alike, for the class report.

What it compares is each submission's graded functions (course.yml's ``questions: qN:
{functions: [...]}``), the last definition of each in the notebook, as running it would keep.
Each is read as Python tokens and normalised the way MOSS and copydetect do, so that cosmetic
edits hide nothing: comments, blank lines, layout and docstrings are dropped, every string is one
token ``S``, and every name the function binds itself (parameters, local variables, loop and
comprehension variables, inner functions) is one token ``V``. Names it does not bind (``jnp``,
``len``, an attribute such as ``.shape``, a keyword argument such as ``axis=``) are kept: they are
the choices a solution is made of, and they tell honest solutions of different shape apart.

Runs of :data:`K` tokens are hashed and winnowed (Schleimer, Wilkerson and Aiken, SIGMOD 2003:
the smallest hash of every :data:`WINDOW` consecutive ones), so that any run of at least
``K + WINDOW - 1`` shared tokens is found, wherever it moved to in the function. A fingerprint
counts only between two versions of the same function, and never when it also occurs in code the
master notebook gives every student (the stub of a solution cell, with its signature, and every
cell that is not a solution), nor when more than :func:`common_limit` submissions share it: code
that many students wrote alike is the obvious way to write it, not a copy (MOSS's ``-m``).

A pair is listed when they share at least :data:`MIN_SHARED` fingerprints and these are at
least :data:`MIN_SHARE` of the smaller one's. That is a pointer for a human, never evidence by
itself: short functions have few ways to be written, and a copy rewritten by hand (other
statements, another algorithm) is not found. Nothing here changes a record or a score.

It is a stage of the batch, after grading (:func:`compare_class`): its result is stored with the
records, in ``OUT/similarity.json``, with each file's fingerprinted functions keyed by the file's
fingerprint, so that the next run into OUT reads only new bytes and still compares the whole
class; the report renders what it stored (:func:`read_comparison`).

Student code is read (parsed, normalised, fingerprinted) only in the grader's bounded reader
process (:mod:`.reading`, :mod:`.reader_process`, which runs the functions here): a submission
it cannot read within its time and memory limits is left out of the comparison and the report
names it, and the batch goes on.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import io
import json
import keyword
import math
import re
import tokenize
from collections import Counter, defaultdict
from collections.abc import Container, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..notebooks import executable_source
from ..probing.helpers import parse_python
from .reading import fingerprinted
from .records import atomic_write

if TYPE_CHECKING:
    from ..config import Assignment
    from .collect import Submission
    from .records import Record

#: Tokens in one hashed run. Shorter runs match between honest solutions by chance (a call with
#: its arguments is ~8 tokens); longer ones miss copies of short functions.
K = 10
#: Winnowing window: every shared run of ``K + WINDOW - 1`` tokens or more is found.
WINDOW = 4
#: A pair is listed when it shares at least this many fingerprints ...
MIN_SHARED = 12
#: ... and these are at least this share of the smaller submission's.
MIN_SHARE = 0.8
#: A fingerprint shared by more than ``max(COMMON_FLOOR, COMMON_SHARE * submissions)``
#: submissions is the class's common way of writing it and is not counted.
COMMON_SHARE = 0.3
COMMON_FLOOR = 4

_SKIPPED = {tokenize.COMMENT, tokenize.NL, tokenize.ENCODING, tokenize.ENDMARKER}
#: Python 3.12 reads an f-string as several tokens (3.11 as one STRING): all are one ``S``.
_FSTRING_OPEN: set[int] = {getattr(tokenize, n, -1) for n in ("FSTRING_START", "FSTRING_MIDDLE")}
_STRINGS: set[int] = {tokenize.STRING, getattr(tokenize, "FSTRING_END", -1), *_FSTRING_OPEN}


@dataclass(frozen=True)
class Token:
    text: str
    """the normalised token (``V`` for a name the code binds, ``S`` for a string)"""
    line: int
    """its line in the code it was read from, from 1"""


@dataclass(frozen=True)
class Function:
    """One graded function of one submission, as compared."""

    name: str
    source: str
    """its code as the notebook defines it (decorators included)"""
    fingerprints: dict[int, tuple[int, ...]]
    """hash -> the lines of ``source`` (from 1) its run of tokens covers, for those counted"""


@dataclass(frozen=True)
class Shared:
    """One function two submissions share code in."""

    function: str
    left: str
    right: str
    left_lines: frozenset[int]
    """the lines of ``left`` (from 1) that shared runs of tokens cover"""
    right_lines: frozenset[int]
    fingerprints: int


@dataclass(frozen=True)
class Pair:
    """Two submissions whose graded functions are alike (``left`` sorts first)."""

    left: str
    right: str
    shared: int
    """fingerprints they share"""
    share: float
    """``shared`` as a share of the smaller one's fingerprints"""
    functions: tuple[Shared, ...]


# -- normalising ---------------------------------------------------------------------------------


def _read(
    tree: ast.AST,
) -> tuple[set[str], list[tuple[tuple[int, int], tuple[int, int]]], set[tuple[int, int]]]:
    """In one walk of ``tree``: the names its code binds (parameters, assigned and loop
    variables, ``except ... as`` names, inner functions and classes; not those it declares
    ``global`` or ``nonlocal``); where its statements that are only a string (docstrings) lie,
    ``(start, end)``; and where its keyword arguments' names start."""
    bound: set[str] = set()
    declared: set[str] = set()
    dropped = []
    keywords = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Name):
            if isinstance(n.ctx, (ast.Store, ast.Del)):
                bound.add(n.id)
        elif isinstance(n, ast.arg):
            bound.add(n.arg)
        elif isinstance(n, ast.keyword):
            if n.arg is not None:
                keywords.add((n.lineno, n.col_offset))
        elif isinstance(n, ast.Expr):
            if (
                isinstance(n.value, ast.Constant)
                and isinstance(n.value.value, str)
                and n.end_lineno is not None
                and n.end_col_offset is not None
            ):
                dropped.append(((n.lineno, n.col_offset), (n.end_lineno, n.end_col_offset)))
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(n.name)
        elif isinstance(n, ast.ExceptHandler):
            if n.name:
                bound.add(n.name)
        elif isinstance(n, (ast.Global, ast.Nonlocal)):
            declared.update(n.names)
    return bound - declared, dropped, keywords


def normalised(source: str, tree: ast.Module | None = None, *, function: str | None = None) -> list[Token]:
    """The tokens of ``source`` (Python that parses, and ``tree`` its parse if at hand) as
    compared. Every name it binds becomes ``V``, but for ``function``: the name of the one
    function ``source`` defines, which the assignment fixes."""
    tree = tree or parse_python(source)
    bound, dropped, keywords = _read(tree)
    bound.discard(function or "")
    out: list[Token] = []
    previous = ""
    in_string = False
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type in _SKIPPED or any(start <= tok.start <= end for start, end in dropped):
            continue
        if tok.type in _STRINGS:
            if not in_string:
                out.append(Token("S", tok.start[0]))
            in_string = tok.type in _FSTRING_OPEN
            continue
        if in_string:  # an f-string's replacement field: part of the one S token
            continue
        text = tok.string
        if tok.type == tokenize.NAME:
            kept = keyword.iskeyword(text) or previous == "." or tok.start in keywords
            text = "V" if text in bound and not kept else text
        elif tok.type == tokenize.NEWLINE:
            text = ";"
        elif tok.type == tokenize.INDENT:
            text = "{"
        elif tok.type == tokenize.DEDENT:
            text = "}"
        out.append(Token(text, tok.start[0]))
        previous = tok.string
    return out


# -- fingerprints --------------------------------------------------------------------------------


def _hash(tokens: Sequence[Token]) -> int:
    digest = hashlib.blake2b("\x1f".join(t.text for t in tokens).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big")


def all_hashes(tokens: Sequence[Token]) -> set[int]:
    """The hash of every run of :data:`K` tokens."""
    return {_hash(tokens[i : i + K]) for i in range(len(tokens) - K + 1)}


def fingerprints(tokens: Sequence[Token]) -> dict[int, tuple[int, ...]]:
    """The winnowed hashes of ``tokens``' runs of :data:`K`: in every :data:`WINDOW` consecutive
    runs, the smallest (the rightmost of equals); each with the lines its run covers."""
    runs = [tokens[i : i + K] for i in range(len(tokens) - K + 1)]
    hashes = [_hash(r) for r in runs]
    chosen: dict[int, set[int]] = {}
    picked = -1
    for start in range(max(len(hashes) - WINDOW + 1, 1 if hashes else 0)):
        window = range(start, min(start + WINDOW, len(hashes)))
        best = min(window, key=lambda i: (hashes[i], -i))
        if best != picked:
            chosen.setdefault(hashes[best], set()).update(t.line for t in runs[best])
            picked = best
    return {h: tuple(sorted(lines)) for h, lines in chosen.items()}


# -- reading submissions and the master ----------------------------------------------------------


def _functions(text: str, tree: ast.Module, wanted: Container[str]) -> Iterator[tuple[str, str]]:
    """``(name, source)`` of each function ``tree`` (the parse of ``text``) defines at top
    level whose name is in ``wanted``, its decorators included."""
    lines = text.splitlines(keepends=True)
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in wanted:
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            yield node.name, "".join(lines[first - 1 : node.end_lineno]).rstrip("\n") + "\n"


def graded_functions(cells: Iterable[str], names: Iterable[str]) -> dict[str, str]:
    """The source of each of ``names`` that the code ``cells`` define at top level, the last
    definition of each (as running the notebook keeps); a cell that does not parse defines none."""
    wanted = set(names)
    if not wanted:
        return {}
    defines = re.compile(r"\bdef\s+(?:" + "|".join(map(re.escape, sorted(wanted))) + r")\b")
    found: dict[str, str] = {}
    for cell in cells:
        if not defines.search(cell):  # most cells: not parsed at all
            continue
        text = executable_source(cell)
        try:
            found.update(_functions(text, parse_python(text), wanted))
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
    return found


def function_of(name: str, source: str, given: Container[int] = ()) -> Function | None:
    """``source`` (the function ``name``) fingerprinted, less the hashes in ``given``; ``None``
    when it cannot be read."""
    try:
        tokens = normalised(source, function=name)
    except (SyntaxError, ValueError, RecursionError, MemoryError, tokenize.TokenError):
        return None
    kept = {h: lines for h, lines in fingerprints(tokens).items() if h not in given}
    return Function(name, source, kept)


def given_hashes(cells: Iterable[str]) -> set[int]:
    """Every run's hash in code every student is given: ``cells``, read whole and function by
    function (a function's own names become ``V`` as in a submission's)."""
    hashes: set[int] = set()
    for cell in cells:
        text = executable_source(cell)
        try:
            tree = parse_python(text)
            hashes |= all_hashes(normalised(text, tree))
            for name, part in _functions(text, tree, _Everything()):
                hashes |= all_hashes(normalised(part, function=name))
        except (SyntaxError, ValueError, RecursionError, MemoryError, tokenize.TokenError):
            continue
    return hashes


class _Everything:
    def __contains__(self, item: object) -> bool:
        return True


@functools.lru_cache(maxsize=8)
def _given_hashes_of(master: Path, mtime_ns: int) -> frozenset[int]:
    return frozenset(given_hashes(given_cells(master)))


def given_cells(master: Path) -> list[str]:
    """The code the master gives every student: each code cell that is not a solution, and what
    the stub keeps of each solution cell (its signature and docstring; :func:`stub_source`)."""
    from ..master_format import SOLUTION_LINE, marked_cells, stub_source
    from ..notebooks import read_notebook

    cells = []
    for c in marked_cells(read_notebook(master)):
        if c.cell_type != "code" or c.is_marker:
            continue
        if c.block == "SOLUTION" or SOLUTION_LINE.search(c.source):
            source = stub_source(c.source)
            cells.append("\n".join(ln for ln in source.split("\n") if not ln.rstrip().endswith("# SOLUTION")))
        else:
            cells.append(c.source)
    return cells


# -- pairs ---------------------------------------------------------------------------------------


def common_limit(submissions: int) -> int:
    """How many submissions may share a fingerprint before it is the class's common code."""
    return max(COMMON_FLOOR, math.ceil(COMMON_SHARE * submissions))


def similar_pairs(
    functions: Mapping[str, Mapping[str, Function]],
    *,
    min_shared: int = MIN_SHARED,
    min_share: float = MIN_SHARE,
) -> list[Pair]:
    """The pairs among ``functions`` (submission name -> function name -> :class:`Function`)
    alike enough to list, most alike first."""
    holders: dict[tuple[str, int], list[str]] = defaultdict(list)
    for sub, funcs in functions.items():
        for fname, f in funcs.items():
            for h in f.fingerprints:
                holders[(fname, h)].append(sub)
    limit = common_limit(len(functions))
    counted = {key: subs for key, subs in holders.items() if len(subs) <= limit}
    sizes: Counter[str] = Counter()
    for subs in counted.values():
        sizes.update(subs)
    together: dict[tuple[str, str], list[tuple[str, int]]] = defaultdict(list)
    for key, subs in counted.items():
        ordered = sorted(subs)
        for i, a in enumerate(ordered):
            for b in ordered[i + 1 :]:
                together[(a, b)].append(key)
    pairs = []
    for (a, b), keys in together.items():
        share = len(keys) / max(min(sizes[a], sizes[b]), 1)
        if len(keys) < min_shared or share < min_share:
            continue
        by_function: dict[str, list[int]] = defaultdict(list)
        for fname, h in keys:
            by_function[fname].append(h)
        shared = tuple(
            Shared(
                fname,
                functions[a][fname].source,
                functions[b][fname].source,
                frozenset(ln for h in hs for ln in functions[a][fname].fingerprints[h]),
                frozenset(ln for h in hs for ln in functions[b][fname].fingerprints[h]),
                len(hs),
            )
            for fname, hs in sorted(by_function.items(), key=lambda x: (-len(x[1]), x[0]))
        )
        pairs.append(Pair(a, b, len(keys), share, shared))
    return sorted(pairs, key=lambda p: (-p.share, -p.shared, p.left, p.right))


def submission_functions(
    submissions: Iterable[Submission], names: Sequence[str], given: Container[int] = ()
) -> dict[str, dict[str, Function]]:
    """Each readable submission's graded functions (``names``), fingerprinted less ``given``.

    Each submission's code is read in the grader's bounded reader process
    (:func:`.reading.fingerprinted`); one it cannot read within the reader's limits is left out
    of the answer (never compared on part of its code), as is one whose ``problem`` kept it
    from being graded."""
    out: dict[str, dict[str, Function]] = {}
    for s in submissions:
        if s.problem is not None:
            continue
        found = fingerprinted(s.cells, names)
        if found is None:
            continue  # over the reader's limits: left out (see compare_class)
        funcs = {}
        for fname, (source, prints) in found.items():
            kept = {h: lines for h, lines in prints.items() if h not in given}
            if kept:
                funcs[fname] = Function(fname, source, kept)
        out[s.name] = funcs
    return out


def given_of(assignment: Assignment) -> Container[int]:
    """The hashes of the code ``assignment``'s master gives every student (read once per master
    version); none without the master: nothing is discounted, and a pair is still a pointer."""
    try:
        return _given_hashes_of(assignment.master, assignment.master.stat().st_mtime_ns)
    except Exception:  # noqa: BLE001 - see above
        return frozenset()


def class_pairs(submissions: Iterable[Submission], assignment: Assignment) -> list[Pair]:
    """The pairs of ``submissions`` (of ``assignment``) to list in the class report."""
    names = list(assignment.function_question())
    return similar_pairs(submission_functions(submissions, names, given_of(assignment)))


# -- the stage: stored with the records ----------------------------------------------------------

#: The stage's file in OUT, beside ``results/`` (private: it holds students' code).
STORED = "similarity.json"


@dataclass(frozen=True)
class Comparison:
    """What the similarity stage found in a class: what the report's section shows."""

    compared: int
    """the submissions whose code was compared (a row without readable code is not)"""
    pairs: tuple[Pair, ...] = ()
    failed: str = ""
    """the exception's name where the comparison failed (the report says so; no score changes)"""
    unread: tuple[str, ...] = ()
    """the submissions left out: their code could not be read within the reader's limits"""


def compare_class(
    out: Path, records: Sequence[Record], graded_now: Sequence[Submission], assignment: Assignment
) -> Comparison:
    """The similarity stage: the class in ``out`` (every row of ``records``) compared, and stored
    in ``out/similarity.json`` with each file's graded functions fingerprinted, keyed by the
    file's fingerprint. A file of ``graded_now`` (this run's) is read unless its bytes were read
    before; a row an earlier run kept is compared from what that run stored. A row without
    readable code (a problem, or a row no run stored) is not compared, and one whose code the
    bounded reader could not read is ``unread`` (its bytes are not read again). It changes no
    record; its own failure is the comparison's ``failed``, never the batch's."""
    names = sorted(assignment.function_question())
    method = _method(names)
    stored = _read_stored(out)
    known = stored.get("files", {}) if stored.get("method") == method else {}
    known_unread = set(stored.get("unread_files", [])) if stored.get("method") == method else set()
    unread: dict[str, str] = {}  # submission -> its file's fingerprint, for files the reader gave up on
    now = {s.name: s for s in graded_now}
    files: dict[str, dict[str, Function]] = {}
    compared: dict[str, str] = {}  # submission -> its file's fingerprint
    failed = ""
    pairs: list[Pair] = []
    try:
        for r in records:
            sub = now.get(r.submission)
            if sub is not None and sub.problem is not None:
                continue
            if r.fingerprint in known_unread or r.fingerprint in unread.values():
                unread[r.submission] = r.fingerprint
                continue
            if r.fingerprint not in files:
                if isinstance(known.get(r.fingerprint), dict):
                    files[r.fingerprint] = _functions_from_json(known[r.fingerprint])
                elif sub is not None:  # bytes no run read before: fingerprinted once
                    read = submission_functions([sub], names)
                    if sub.name not in read:  # over the reader's limits
                        unread[r.submission] = r.fingerprint
                        continue
                    files[r.fingerprint] = read[sub.name]
                else:
                    continue
            compared[r.submission] = r.fingerprint
        if len(compared) >= 2:  # one file alone (a late one, a student's own check): nothing to pair
            given = given_of(assignment)
            pairs = similar_pairs({sub: _less(files[fp], given) for sub, fp in compared.items()})
    except Exception as e:  # noqa: BLE001 - a pointer for people: never the batch's failure
        failed, pairs = type(e).__name__, []
    result = Comparison(len(compared), tuple(pairs), failed, tuple(sorted(unread)))
    kept = {fp: files[fp] for fp in compared.values() if fp in files}
    atomic_write(
        out / STORED,
        json.dumps(
            {
                "method": method,
                "files": {fp: _functions_to_json(f) for fp, f in kept.items()},
                "compared": result.compared,
                "pairs": [_pair_to_json(p) for p in result.pairs],
                "failed": result.failed,
                "unread": list(result.unread),
                "unread_files": sorted(set(unread.values())),
            }
        ),
        private=True,
    )
    return result


def read_comparison(out: Path) -> Comparison | None:
    """What the last :func:`compare_class` into ``out`` found; ``None`` without it (a folder
    graded before the stage was stored, or a damaged file)."""
    stored = _read_stored(out)
    try:
        return Comparison(
            int(stored["compared"]),
            tuple(_pair_from_json(p) for p in stored["pairs"]),
            str(stored.get("failed", "")),
            tuple(str(n) for n in stored.get("unread", [])),
        )
    except (KeyError, TypeError, ValueError):
        return None


def _method(names: Sequence[str]) -> str:
    """What a stored file's fingerprints depend on besides its bytes: the graded functions' names
    and this module's code (how they are read and fingerprinted)."""
    digest = hashlib.blake2b(Path(__file__).read_bytes(), digest_size=16)
    digest.update("\x1f".join(names).encode())
    return digest.hexdigest()


def _read_stored(out: Path) -> dict[str, Any]:
    try:
        data = json.loads((out / STORED).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _less(functions: Mapping[str, Function], given: Container[int]) -> dict[str, Function]:
    """``functions`` less the fingerprints of ``given`` code; a function left with none is not
    compared."""
    out = {}
    for name, f in functions.items():
        kept = {h: lines for h, lines in f.fingerprints.items() if h not in given}
        if kept:
            out[name] = Function(f.name, f.source, kept)
    return out


def _functions_to_json(functions: Mapping[str, Function]) -> dict[str, Any]:
    return {
        name: {"source": f.source, "fingerprints": [[h, list(lines)] for h, lines in f.fingerprints.items()]}
        for name, f in functions.items()
    }


def _functions_from_json(data: Mapping[str, Any]) -> dict[str, Function]:
    functions = {}
    for name, f in data.items():
        kept = {int(h): tuple(int(x) for x in lines) for h, lines in f["fingerprints"]}
        functions[str(name)] = Function(str(name), str(f["source"]), kept)
    return functions


def _pair_to_json(p: Pair) -> dict[str, Any]:
    return {
        "left": p.left,
        "right": p.right,
        "shared": p.shared,
        "share": p.share,
        "functions": [
            {
                "function": s.function,
                "left": s.left,
                "right": s.right,
                "left_lines": sorted(s.left_lines),
                "right_lines": sorted(s.right_lines),
                "fingerprints": s.fingerprints,
            }
            for s in p.functions
        ],
    }


def _pair_from_json(data: Mapping[str, Any]) -> Pair:
    return Pair(
        str(data["left"]),
        str(data["right"]),
        int(data["shared"]),
        float(data["share"]),
        tuple(
            Shared(
                str(s["function"]),
                str(s["left"]),
                str(s["right"]),
                frozenset(int(x) for x in s["left_lines"]),
                frozenset(int(x) for x in s["right_lines"]),
                int(s["fingerprints"]),
            )
            for s in data["functions"]
        ),
    )
