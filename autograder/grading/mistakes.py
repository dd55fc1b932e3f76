"""Known mistakes: the course's known-wrong answers (``solutions/<id>/mutants/qN_slug.py``) as
diagnoses a student reads.

Each known-wrong answer opens with a docstring stating its mistake (what the code does, why it is
wrong, what to do instead). The reference's own side of grading (a trusted sandbox that never
runs student code) runs every known-wrong answer on the batch's hidden inputs, beside the
reference (:func:`mistakes_probes_source`); their outputs are stored with the reference's, under
the ids :func:`mistake_id` makes. :func:`diagnose` (pure: no sandbox, no file) then tells which
mistake, if any, a submission's outputs for a question reproduce.

How a submission is matched with a known mistake, for one question it lost points on:

- a mistake's *cases* are the sandbox probes of its question that the mistake fails (its outputs
  differ from the reference's there, or it raised where the reference did not);
- the submission *matches* the mistake when it fails every one of those cases the same way: its
  outputs equal the mistake's within the probe's own tolerance, or, where the mistake raised, it
  raised the same kind of exception; a case it passes, or fails otherwise, is a mismatch;
- a match needs at least :data:`MIN_VALUE_CASES` cases where the mistake returned values: an
  exception alone says too little (every crash of one kind would look alike);
- mistakes whose cases and outputs are the same are one group, named together; when several
  groups match, one whose cases contain every other's wins (it explains more); otherwise none is
  named. A question the submission did not lose points on is never diagnosed.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from ..probing import Probe, ProbeResult, compare_outputs, judge_probe
from ..probing.compare import returned_none

#: Cases with values (not only an exception) a match needs before a mistake is named.
MIN_VALUE_CASES = 1
#: The longest statement of a mistake, in characters: one or two sentences.
MAX_TEXT = 400
_SEPARATOR = "@"


@dataclass(frozen=True)
class Mistake:
    """One known-wrong answer, as the grader uses it."""

    id: str
    """the file's stem: ``q8_transposed``"""
    question: str
    text: str
    """the docstring: one or two sentences for the student, starting with what the code does"""
    source: str
    """the whole file: the definitions that replace the question's functions"""


def read_mistakes(folder: Path, questions: Collection[str]) -> list[Mistake]:
    """The known-wrong answers in ``folder`` whose name starts with one of ``questions``, in
    name order (those naming no question are ``validate``'s to report)."""
    found = []
    for path in sorted(folder.glob("q*.py")) if folder.is_dir() else []:
        question = path.stem.split("_", 1)[0]
        if question not in questions:
            continue
        source = path.read_text(encoding="utf-8")
        found.append(Mistake(path.stem, question, statement(source), source))
    return found


def statement(source: str) -> str:
    """A known-wrong answer's docstring, whitespace collapsed ('' when it has none or does not
    parse)."""
    try:
        doc = ast.get_docstring(ast.parse(source))
    except SyntaxError:
        return ""
    return " ".join((doc or "").split())


def text_problems(
    text: str, solution_lines: Iterable[str] = (), hidden_lines: Iterable[str] = ()
) -> list[str]:
    """What keeps ``text`` from being shown to a student as the statement of a mistake: it is
    missing, too long, not in the course's voice, or quotes the solution or the hidden tests.

    The voice: one or two plain sentences that say what the answer does, so that "Your answer
    <text, first letter lowered>" reads as English: the first word is a verb in the third person
    (``Adds``, ``Calls``, ``Forgets``), never "I"/"we", never the words mutant or TODO."""
    if not text:
        return ["has no docstring stating its mistake"]
    problems = []
    if len(text) > MAX_TEXT:
        problems.append(f"its statement has {len(text)} characters; keep it under {MAX_TEXT}")
    sentences = len(re.findall(r"(?<!\.)[.!?](?=\s+[A-Z]|$)", text))
    if sentences > 2:
        problems.append(f"its statement has {sentences} sentences; one or two say it")
    first = text.split()[0]
    if not (first[:1].isupper() and first.isalpha() and first.endswith("s")):
        problems.append(
            f"its statement starts with {first!r}: start with what the answer does (Adds, Calls, ...)"
        )
    if not text.endswith((".", "!", "?")):
        problems.append("its statement does not end a sentence")
    words = {w.strip(".,:;()") for w in text.split()}
    lowered = {w.lower() for w in words}
    for word in ("I", "we", "mutant", "mutants", "todo", "fixme"):
        if (word in words) if word == "I" else (word in lowered):
            problems.append(f"its statement uses {word!r}: write to the student about their answer")
    quoted = [line for line in (*solution_lines, *hidden_lines) if line and line in text]
    if quoted:
        problems.append(f"its statement quotes the solution or the hidden tests ({quoted[0][:40]!r})")
    return problems


def as_feedback(text: str) -> str:
    """``Adds v to ...`` as the student reads it: ``your answer adds v to ...``."""
    return f"your answer {text[:1].lower()}{text[1:]}"


def mistake_id(probe_id: str, mistake: str) -> str:
    """The id a known mistake's outcome of ``probe_id`` is stored under, beside the reference's."""
    return f"{probe_id}{_SEPARATOR}{mistake}"


def is_mistake_id(result_id: str) -> bool:
    return _SEPARATOR in result_id


def mistakes_probes_source(probes_source: str, mistakes: Iterable[Mistake]) -> str:
    """The hidden tests' source with, for each mistake and each sandbox probe of its question,
    one more probe (``mistake_id``) that runs the mistake's definitions over the notebook's
    globals, runs the probe, and puts the globals back as they were. Only the reference's trusted
    side runs it: no student sandbox ever receives the known-wrong answers or their outputs."""
    table = {m.id: (m.question, m.source) for m in mistakes}
    return (
        probes_source
        + "\n\n# --- known mistakes, appended by the grader for the reference's side only ---\n"
        + f"_KNOWN_MISTAKES = {table!r}\n"
        + _REGISTER
    )


_REGISTER = """
def _register_known_mistakes(hidden, table):
    import dataclasses

    def variant(probe, source):
        def body(sub, rng):
            env = sub._env
            saved = dict(env)
            try:
                exec(compile(source, "<known mistake>", "exec"), env)
                return probe.body(sub, rng)
            finally:
                env.clear()
                env.update(saved)

        return body

    for probe in list(hidden.probes):
        if probe.source:
            continue
        for name, (question, source) in table.items():
            if question == probe.question:
                hidden.probes.append(
                    dataclasses.replace(probe, name=f"{probe.name}@{name}", body=variant(probe, source))
                )


_register_known_mistakes(hidden, _KNOWN_MISTAKES)
"""


# -- matching (pure) -------------------------------------------------------------------------------


def _raised(result: ProbeResult) -> str:
    """The kind of exception a failed outcome reports (``raised TypeError``), or ''."""
    error = str(result.get("error", ""))
    return error.split(":", 1)[0] if error.startswith("raised ") else ""


def _cases(
    probes: list[Probe], reference: Mapping[str, ProbeResult], mistake: str
) -> dict[str, ProbeResult] | None:
    """The probes ``mistake`` fails, with its outcome on each (``None`` if it was not run)."""
    cases = {}
    for p in probes:
        ref, got = reference.get(p.id), reference.get(mistake_id(p.id, mistake))
        if got is None:
            return None
        if ref is None or not ref.get("ok"):
            continue
        if not got.get("ok"):
            if _raised(got):
                cases[p.id] = got
        elif judge_probe(p, got, ref) is not None:
            cases[p.id] = got
    return cases


def may_reproduce(
    probes: list[Probe], results: Mapping[str, ProbeResult], reference: Mapping[str, ProbeResult]
) -> bool:
    """Whether a submission's outcomes of one question could reproduce a known mistake: some
    sandbox probe came back with values (not an exception, not the stub's ``None``) and fails.
    Only such a run needs the known mistakes' outcomes (every match needs a case with values)."""
    for p in probes:
        got, ref = results.get(p.id), reference.get(p.id)
        if p.source or not got or not got.get("ok") or not ref or not ref.get("ok"):
            continue
        if not returned_none(got["outputs"], ref["outputs"]) and judge_probe(p, got, ref) is not None:
            return True
    return False


def nameable(probes: list[Probe], reference: Mapping[str, ProbeResult], mistake: str) -> bool:
    """Whether any submission can be named with ``mistake``: it fails at least
    :data:`MIN_VALUE_CASES` of its question's sandbox probes with values (not only an exception).
    A mistake whose values are right (a loop, a forbidden call: its gate says so) or that only
    raises is never named."""
    cases = _cases([p for p in probes if not p.source], reference, mistake) or {}
    return sum(1 for r in cases.values() if r.get("ok")) >= MIN_VALUE_CASES


def _same(probe: Probe, a: ProbeResult, b: ProbeResult) -> bool:
    if not a.get("ok") or not b.get("ok"):
        return not a.get("ok") and not b.get("ok") and _raised(a) == _raised(b) != ""
    try:
        return compare_outputs(a["outputs"], b["outputs"], rtol=probe.rtol, atol=probe.atol) is None
    except Exception:  # noqa: BLE001 - a forged result must not crash the judge
        return False


def diagnose(
    probes: list[Probe],
    results: Mapping[str, ProbeResult],
    reference: Mapping[str, ProbeResult],
    mistakes: Collection[str],
) -> list[str]:
    """The known mistakes (ids, sorted) that ``results``, a submission's outcomes of one
    question's ``probes``, reproduce: one, several that give the same outputs, or none (see the
    module's docstring). ``reference`` holds the reference's outcomes and the mistakes'
    (:func:`mistake_id`)."""
    by_id = {p.id: p for p in probes if not p.source}
    sandbox = list(by_id.values())
    every: dict[str, dict[str, ProbeResult]] = {}
    for m in mistakes:
        cases = _cases(sandbox, reference, m)
        if cases:
            every[m] = cases
    matched = []
    for m, cases in every.items():
        values = sum(1 for r in cases.values() if r.get("ok"))
        if values < MIN_VALUE_CASES:
            continue
        if all(pid in results and _same(by_id[pid], results[pid], got) for pid, got in cases.items()):
            matched.append(m)
    if not matched:
        return []
    # Mistakes with the same cases and outputs are one group; a group whose cases hold every
    # other matched group's explains more of the submission's outputs and wins.
    groups: list[list[str]] = []
    for m in matched:
        for g in groups:
            first = every[g[0]]
            if set(first) == set(every[m]) and all(_same(by_id[p], first[p], every[m][p]) for p in first):
                g.append(m)
                break
        else:
            groups.append([m])
    widest = [g for g in groups if all(set(every[o[0]]) <= set(every[g[0]]) for o in groups)]
    return sorted(widest[0]) if len(widest) == 1 else []
