"""Judging: from how a submission's sandbox run ended to its record. Pure: no sandbox, no file,
no JAX; unit-tested with hand-made outcomes (tests/test_judge.py)."""

from __future__ import annotations

import functools
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from ..probing import (
    PlainArray,
    Probe,
    ProbeResult,
    ProbeSet,
    SourceNamespace,
    is_out_of_memory,
    judge_probe,
    python_loops,
    score_question,
    shorten,
)
from ..probing.judges import LOOPS, UNTRACED
from ..sandbox.run import Ended, RunOutcome
from .collect import Submission
from .mistakes import as_feedback, diagnose
from .records import Record, Status, grader_failed


@dataclass(frozen=True)
class Scoring:
    """What judging needs besides one submission's outcome, the same for a whole batch."""

    questions: Mapping[str, float]
    """question -> its points, in the assignment's order"""
    probes: ProbeSet
    points: Mapping[str, float]
    """hidden test (probe id) -> its share of its question's points"""
    seed: int
    """the batch's seed, recorded in every row"""
    memory_mb: int
    """the sandbox's memory limit, named when a probe ran out of it"""
    notes: tuple[str, ...] = ()
    """notes on every row of the batch (e.g. the devices it was graded on)"""
    hidden_source: str = ""
    """the hidden tests' source (probes.py): no run of it reaches a student in a string that
    came from the sandbox (see :func:`bound_outcome`)"""
    mistakes: Mapping[str, str] = field(default_factory=dict)
    """the known mistakes a lost question may be diagnosed with (:mod:`.mistakes`): id -> its
    statement; their outcomes come with the reference's"""

    @property
    def possible(self) -> float:
        """the assignment's total points, on every row"""
        return round(sum(self.questions.values()), 6)


#: The row's status for how its sandbox run ended (the notebook's own ``sys.exit`` is a crash).
STATUS_OF_END: dict[Ended, Status] = {
    "ok": "graded",
    "timeout": "timeout",
    "memory": "memory",
    "crashed": "crashed",
    "exited": "crashed",
    "tampered": "tampered",
    "fault": "error",
}


def judge(
    sub: Submission,
    outcome: RunOutcome,
    reference: Mapping[str, ProbeResult],
    scoring: Scoring,
    held: Mapping[str, tuple[str, str]] | None = None,
) -> Record:
    """The record of ``sub`` from how its sandbox run ended and the reference's outputs: the
    last step of grading, and a pure one (no sandbox, no file; ``outcome`` is not changed).

    ``held``: source probes (run by the grader on the cells' text) whose function the grader
    could not read, each with why and the code it read: their verdict is *cannot tell*. A
    question with one is held for the instructor's review when the rule's verdict would change
    its score (its other tests pass); it scores 0 until then, and never silently."""
    graders_own = {p.id for p in scoring.probes.probes if p.source}  # run on the cells' text, here
    # A gate's verdict the grader could not make: a source probe's, or a sandbox gate's whose
    # function could not be traced and could not be read here (see reread_untraced).
    gates = {p.id for p in scoring.probes.probes if p.gate}
    held = {pid: why for pid, why in (held or {}).items() if pid in graders_own | gates}
    # Read before bounding: a long error may lose the words that say memory ran out.
    out_of_memory = [
        pid
        for pid, r in outcome.results.items()
        if not r.get("ok") and is_out_of_memory(str(r.get("error", "")))
    ]
    outcome = bound_outcome(outcome, reference, scoring.hidden_source, graders_own)
    ref = reference
    chosen = sub.graded_on(scoring.questions)
    notes = [f"the sandbox lacked: {', '.join(outcome.missing)}"] if outcome.missing else []
    if outcome.ended == "fault":
        # The sandbox failed before the first cell: nothing of the student's ran. The cause is
        # the instructor's to read (OUT/grader.log), not the student's.
        return error_record(
            scoring,
            sub,
            grader_failed("The grader could not start this submission's sandbox"),
            fault=outcome.detail or "the sandbox failed before the first cell",
            notes=notes,
        )
    if outcome.tampered:
        evidence = shorten("; ".join(outcome.tampered[:3]), 300)
        return make_record(
            scoring,
            sub,
            "tampered",
            f"The notebook changed what grading relies on ({evidence}); it scores 0.",
            {},
            [],
            notes,
        )
    if outcome.ended == "tampered":
        return make_record(
            scoring, sub, "tampered", f"{outcome.detail.capitalize()}; it scores 0.", {}, [], notes
        )
    early = {
        "timeout": "ran out of time",
        "memory": "ran out of memory",
        "crashed": "crashed",
        "exited": "stopped",
    }
    if outcome.ended != "ok" and outcome.where.startswith("cell") or outcome.ended == "exited":
        detail = f" ({outcome.detail})" if outcome.detail else ""
        return make_record(
            scoring,
            sub,
            STATUS_OF_END[outcome.ended],
            f"The notebook {early[outcome.ended]} in {outcome.where}{detail}; no question was graded.",
            {},
            [],
        )

    problems: dict[str, str | None] = {}
    not_run: set[str] = set()
    for pid in out_of_memory:
        if outcome.ended == "ok":
            outcome.ended, outcome.where, outcome.detail = "memory", pid, f"{scoring.memory_mb} MiB"
    for probe in scoring.probes.probes:
        if probe.question not in chosen:
            continue
        if probe.id in outcome.results:
            problems[probe.id] = judge_probe(probe, outcome.results[probe.id], ref[probe.id])
        else:
            not_run.add(probe.question)
            problems[probe.id] = f"{probe.question} `{probe.function}`: not run"
    if outcome.ended != "ok" and outcome.where:
        stopped = (
            scoring.probes.get(outcome.where)
            if outcome.where in {p.id for p in scoring.probes.probes}
            else None
        )
        if stopped is not None:
            problems[stopped.id] = (
                f"{stopped.question} `{stopped.function}`: {stopped.description}: "
                f"{early[outcome.ended]}" + (f" ({outcome.detail})" if outcome.detail else "")
            )
            not_run.add(stopped.question)

    questions: dict[str, float] = {}
    tests: list[dict[str, Any]] = []
    first_problem: dict[str, str] = {}
    review: dict[str, dict[str, Any]] = {}
    for q in chosen:
        probes = scoring.probes.for_question(q)
        asked = {p.id: held[p.id] for p in probes if p.id in held}
        if asked and q not in not_run:
            if_kept, _ = score_question(probes, scoring.points, {**problems, **dict.fromkeys(asked)})
            if if_kept > 0:
                reason, code = next(iter(asked.values()))
                review[q] = {"reason": reason, "points": if_kept, "code": code}
                questions[q] = 0.0
                first_problem[q] = f"{q} is held for the instructor's review: {reason}"
                for p in probes:
                    tests.append(
                        hidden_test_entry(
                            p,
                            0.0,
                            scoring.points[p.id],
                            "failed" if p.id in asked or problems[p.id] else "passed",
                            f"held for the instructor's review: {asked[p.id][0]}"
                            if p.id in asked
                            else (problems[p.id] or "passed; the question waits for the instructor's review"),
                        )
                    )
                continue
        earned, messages = score_question(probes, scoring.points, problems)
        questions[q] = 0.0 if q in not_run else earned
        if messages:
            first_problem[q] = messages[0]
        gate_failed = any(p.gate and problems[p.id] for p in probes)
        for p in probes:
            problem = problems[p.id]
            scored = not (gate_failed or problem or q in not_run)
            tests.append(
                hidden_test_entry(
                    p,
                    scoring.points[p.id] if scored else 0.0,
                    scoring.points[p.id],
                    "failed" if problem else "passed",
                    problem
                    or ("passed, but a requirement of this question failed" if gate_failed else "passed"),
                )
            )
    lost = [q for q in chosen if questions[q] < scoring.questions[q] and q not in review]
    diagnosis: dict[str, dict[str, Any]] = {}
    for q in lost:
        if q in not_run:
            continue
        named = diagnose(
            scoring.probes.for_question(q),
            outcome.results,
            ref,
            [m for m in scoring.mistakes if m.split("_", 1)[0] == q],
        )
        if named:
            function = scoring.probes.for_question(q)[0].function
            said = "; or ".join(as_feedback(scoring.mistakes[m]).rstrip(".") for m in named)
            which = (
                "a known mistake"
                if len(named) == 1
                else f"one of {len(named)} known mistakes that give these outputs"
            )
            text = f"{q} `{function}` looks like {which}: {said}."
            diagnosis[q] = {
                "mistake": named[0],
                **({"with": named[1:]} if len(named) > 1 else {}),
                "text": text,
            }
            first_problem[q] = f"{text} {first_problem.get(q, '')}"

    status = STATUS_OF_END[outcome.ended]
    if not lost:
        message = "All hidden tests passed."
    else:
        first = next((first_problem[q] for q in lost if q in first_problem), "")
        message = f"Lost points on {', '.join(lost)}. First problem: {first}"
    if review:
        message = (
            f"{', '.join(review)} {'is' if len(review) == 1 else 'are'} held for the instructor's review: "
            "the grader could not check a rule of the question from the code, so a person will read it; "
            "those points wait for that review. "
            + ("" if lost else "Every other hidden test passed.")
            + ("" if not lost else message)
        )
    if status != "graded":
        graded = [q for q in chosen if q not in not_run]
        message = (
            f"Grading stopped at {outcome.where}: it {early.get(outcome.ended, 'failed')}"
            + (f" ({outcome.detail})" if outcome.detail else "")
            + f". Still graded: {', '.join(graded) or 'none'}. "
            + message
        )
    notes = list(sub.notes) + notes + [f"cell {i} raised: {e}" for i, e in outcome.cell_errors[:5]]
    record = make_record(scoring, sub, status, message, questions, tests, notes)
    return replace(record, review=review, diagnosis=diagnosis) if review or diagnosis else record


def hidden_test_entry(
    probe: Probe, score: float, max_score: float, status: str, output: str
) -> dict[str, Any]:
    """One hidden test's entry in results.json (Gradescope's ``tests`` list)."""
    return {
        "name": f"{probe.question} {probe.function}: {probe.name.replace('_', ' ')}",
        "number": probe.question,
        "score": score,
        "max_score": max_score,
        "status": status,
        "output": output,
        "visibility": "visible",
    }


def make_record(
    scoring: Scoring,
    sub: Submission,
    status: Status,
    message: str,
    questions: dict[str, float],
    tests: list[dict[str, Any]],
    notes: list[str] | None = None,
) -> Record:
    """The record of ``sub`` with ``status``; with no ``tests``, every chosen hidden test is
    listed as not graded (an invalid, crashed or tampered submission scores 0 on each)."""
    chosen = sub.graded_on(scoring.questions)
    qs = {q: questions.get(q, 0.0) for q in chosen}
    if not tests:
        tests = [
            hidden_test_entry(p, 0.0, scoring.points[p.id], "failed", f"not graded: status {status}")
            for p in scoring.probes.probes
            if p.question in chosen
        ]
    if sub.questions is not None:
        notes = [*(notes or sub.notes), f"graded on {', '.join(chosen) or 'no question'} only"]
    return Record(
        sub.name,
        sub.key,
        sub.fingerprint,
        status,
        shorten(" ".join(message.split()), 600),
        qs,
        scoring.possible,
        tests,
        [shorten(n, 300) for n in [*(notes or sub.notes), *scoring.notes]][:20],
        scoring.seed,
    )


def error_record(
    scoring: Scoring, sub: Submission, message: str, *, fault: str = "", notes: list[str] | None = None
) -> Record:
    """The ``error`` row of ``sub``: the grader failed on it (never the student's doing), so no
    question is graded. ``message`` (:func:`.records.grader_failed`) is what the student reads;
    ``fault``, the cause, only the instructor (``OUT/grader.log``)."""
    return replace(make_record(scoring, sub, "error", message, {}, [], notes), fault=fault)


# -------------------------------------------------------------------------------------------------
# What a student reads of the sandbox's own words.

#: The most characters of one string from the sandbox that reaches a student: an error a probe
#: or a cell raised, tamper evidence, a string among a probe's outputs.
MAX_SANDBOX_TEXT = 240
#: The most characters of distinct error text from the sandbox in one record (probe errors,
#: cell errors, evidence); past it each error keeps its head only (``raised TypeError``).
SANDBOX_TEXT_BUDGET = 4000
#: A run of this many characters (whitespace collapsed) that the hidden tests' source also holds
#: is redacted from sandbox text: a probe's code and docstrings never come back verbatim.
HIDDEN_RUN = 20
REDACTED = "[…]"


@functools.lru_cache(maxsize=16)
def _hidden_runs(source: str) -> frozenset[str]:
    text = " ".join(source.split())
    return frozenset(text[i : i + HIDDEN_RUN] for i in range(len(text) - HIDDEN_RUN + 1))


def redact(text: str, hidden_source: str) -> str:
    """``text`` with its whitespace collapsed and every run of :data:`HIDDEN_RUN` or more
    characters that also occurs in ``hidden_source`` replaced by :data:`REDACTED`."""
    text = " ".join(str(text).split())
    if not hidden_source or len(text) < HIDDEN_RUN:
        return text
    runs = _hidden_runs(hidden_source)
    covered = [False] * len(text)
    for i in range(len(text) - HIDDEN_RUN + 1):
        if text[i : i + HIDDEN_RUN] in runs:
            covered[i : i + HIDDEN_RUN] = [True] * HIDDEN_RUN
    if not any(covered):
        return text
    parts: list[str] = []
    for i, ch in enumerate(text):
        if not covered[i]:
            parts.append(ch)
        elif i == 0 or not covered[i - 1]:
            parts.append(REDACTED)
    return "".join(parts)


class _SandboxText:
    """Bounds the strings of one sandbox run before anything is made of them: each short
    (:data:`MAX_SANDBOX_TEXT`) and redacted (:func:`redact`), and error text within
    :data:`SANDBOX_TEXT_BUDGET` for the whole record."""

    def __init__(self, hidden_source: str):
        self.hidden_source = hidden_source
        self.used = 0
        self.seen: set[str] = set()

    def one(self, text: Any, limit: int = MAX_SANDBOX_TEXT) -> str:
        # Only the head can be shown: redacting a megabyte to keep 240 characters is waste.
        return shorten(redact(str(text)[: 8 * limit], self.hidden_source), limit)

    def error(self, text: Any, limit: int = MAX_SANDBOX_TEXT) -> str:
        bounded = self.one(text, limit)
        if bounded in self.seen:
            return bounded
        if self.used + len(bounded) > SANDBOX_TEXT_BUDGET:
            bounded = shorten(bounded.split(":", 1)[0], 60) + " (details left out)"
        self.seen.add(bounded)
        self.used += len(bounded)
        return bounded


def _strings(outputs: Mapping[str, Any]) -> set[str]:
    found: set[str] = set()
    for v in outputs.values():
        for item in v if isinstance(v, list) else [v]:
            if isinstance(item, str):
                found.add(item)
    return found


def _bound_outputs(outputs: Mapping[str, Any], reference: ProbeResult, text: _SandboxText) -> dict[str, Any]:
    """A probe's decoded outputs with every string that is not one of the reference's own
    outputs bounded: a judge may quote what came back, and a string equal to the reference's
    is the grader's text, left as it is so that it still compares equal."""
    known = _strings(reference.get("outputs") or {}) if reference.get("ok") else set()

    def bound(v: Any) -> Any:
        if isinstance(v, str) and v not in known:
            return text.one(v)
        if isinstance(v, list):
            return [bound(item) for item in v]
        return v

    return {path: v if isinstance(v, PlainArray) else bound(v) for path, v in outputs.items()}


def reread_untraced(
    probes: ProbeSet, results: Mapping[str, ProbeResult], readings: SourceNamespace
) -> tuple[dict[str, ProbeResult], dict[str, str]]:
    """``results`` with the grader's own loops in every sandbox gate that could not trace its
    function, and those gates whose function the grader cannot read, each with why.

    Such a gate falls back on the loops of the function's source as the sandbox read it, which
    the submission decides: a function made by ``exec`` has none, a code object can name
    another cell's lines, an alias hides ``np.vectorize``. The grader's reading of the cells
    (``readings``, canonical text) is what the rule is judged on; where it cannot read the
    function, the gate cannot tell (held for review, never passed)."""
    out, held = dict(results), {}
    for p in probes.probes:
        result = results.get(p.id)
        if not (p.gate and not p.source and result and result.get("ok")):
            continue
        outputs = result.get("outputs") or {}
        if UNTRACED not in outputs:
            continue
        why = readings.why(p.function)
        if why is not None:
            held[p.id] = why
            continue
        if not readings.has(p.function):
            held[p.id] = f"`{p.function}` was not read"
            continue
        loops = python_loops(getattr(readings, p.function).source)
        out[p.id] = {**result, "outputs": {**outputs, LOOPS: loops}}
    return out, held


def bound_outcome(
    outcome: RunOutcome,
    reference: Mapping[str, ProbeResult],
    hidden_source: str,
    graders_own: Collection[str] = (),
) -> RunOutcome:
    """A copy of ``outcome`` in which every string that came from the sandbox is bounded (see
    :class:`_SandboxText`): the one place where what the submission's process said becomes
    what its student reads (probe errors, cell errors, tamper evidence, missing protections,
    strings among a probe's outputs). A forged channel can say anything; it cannot make the
    feedback page carry the hidden tests. ``graders_own``: ids of the results the grader made
    itself (source probes, run on the cells' text), left whole: their judges read all of it."""
    text = _SandboxText(hidden_source)
    results: dict[str, ProbeResult] = {}
    for pid, result in outcome.results.items():
        if pid in graders_own:
            results[pid] = result
        elif not result.get("ok"):
            results[pid] = {"ok": False, "error": text.error(result.get("error", "failed"))}
        else:
            ref = reference.get(pid) or {"ok": False}
            results[pid] = {"ok": True, "outputs": _bound_outputs(result.get("outputs") or {}, ref, text)}
    return replace(
        outcome,
        results=results,
        detail=text.one(outcome.detail),
        cell_errors=[(i, text.error(e)) for i, e in outcome.cell_errors],
        tampered=[text.error(e, 160) for e in outcome.tampered],
        missing=[text.one(m, 120) for m in outcome.missing],
    )
