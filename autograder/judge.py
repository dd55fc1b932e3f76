"""Judging: from how a submission's sandbox run ended to its record. Pure: no sandbox, no file,
no JAX; unit-tested with hand-made outcomes (tests/test_judge.py)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from .probing import Probe, ProbeSet, is_out_of_memory, judge_probe, score_question, shorten
from .records import Record, Status
from .sandbox.run import RunOutcome
from .submissions import Submission


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

    @property
    def possible(self) -> float:
        """the assignment's total points, on every row"""
        return round(sum(self.questions.values()), 6)


def judge(
    sub: Submission, outcome: RunOutcome, reference: Mapping[str, Mapping[str, Any]], scoring: Scoring
) -> Record:
    """The record of ``sub`` from how its sandbox run ended and the reference's outputs: the
    last step of grading, and a pure one (no sandbox, no file; ``outcome`` is not changed)."""
    outcome = replace(outcome, results=dict(outcome.results))
    ref = reference
    chosen = sub.graded_on(scoring.questions)
    notes = [f"the sandbox lacked: {', '.join(outcome.missing)}"] if outcome.missing else []
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
        status = "crashed" if outcome.ended == "exited" else outcome.ended
        detail = f" ({outcome.detail})" if outcome.detail else ""
        return make_record(
            scoring,
            sub,
            status,
            f"The notebook {early[outcome.ended]} in {outcome.where}{detail}; no question was graded.",
            {},
            [],
        )

    problems: dict[str, str | None] = {}
    not_run: set[str] = set()
    for pid, result in outcome.results.items():
        if not result["ok"] and is_out_of_memory(result["error"]) and outcome.ended == "ok":
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
    for q in chosen:
        probes = scoring.probes.for_question(q)
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
    lost = [q for q in chosen if questions[q] < scoring.questions[q]]

    status = "graded" if outcome.ended == "ok" else outcome.ended
    if status == "exited":
        status = "crashed"
    if not lost:
        message = "All hidden tests passed."
    else:
        first = next((first_problem[q] for q in lost if q in first_problem), "")
        message = f"Lost points on {', '.join(lost)}. First problem: {first}"
    if status != "graded":
        graded = [q for q in chosen if q not in not_run]
        message = (
            f"Grading stopped at {outcome.where}: it {early.get(outcome.ended, 'failed')}"
            + (f" ({outcome.detail})" if outcome.detail else "")
            + f". Still graded: {', '.join(graded) or 'none'}. "
            + message
        )
    notes = list(sub.notes) + notes + [f"cell {i} raised: {e}" for i, e in outcome.cell_errors[:5]]
    return make_record(scoring, sub, status, message, questions, tests, notes)


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
