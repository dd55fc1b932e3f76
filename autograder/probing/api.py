"""The probe API: :class:`Probe`, :class:`ProbeSet` and its ``@hidden.probe`` decorator, how a
question's points are split over its probes and scored, and the seed of each probe's inputs."""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Probe:
    """One hidden test: a probe body run beside the submission and a judge run by the grader."""

    question: str
    """question name in the master notebook, ``"q3"``"""
    name: str
    """identifier of the property it checks, unique per question: ``"never_negative"``"""
    function: str
    """the student function it exercises, for messages: ``"pairwise_sq_dists"``"""
    description: str
    """what it does, in words a student may read (shapes, never values): first docstring line"""
    body: Callable[[Any, np.random.Generator], dict[str, Any]]
    """``body(sub, rng) -> outputs``: calls ``sub.<function>`` on inputs it makes from ``rng``
    (``sub`` is a :class:`~autograder.probing.running.Namespace` of the notebook's globals)"""
    judge: Callable[[dict[str, Any], dict[str, Any]], str | None] | None = None
    """``judge(out, ref) -> None | message``; ``None`` compares every output to the reference"""
    weight: float = 1.0
    """share of the question's points, relative to its other probes"""
    rtol: float | None = None
    """relative tolerance overriding :data:`TOLERANCES`"""
    atol: float | None = None
    """absolute tolerance overriding :data:`TOLERANCES`"""
    gate: bool = False
    """a requirement, not a property: it carries no points, and when it fails the whole
    question scores 0 (forbidden APIs, loops where vectorisation was asked for)"""
    source: bool = False
    """reads only source code: our grader runs it in its own process on the submitted cells'
    text (``sub.<function>`` is a :class:`SourceFunction`), never in the sandbox, whose view
    of a function's source the submission controls"""

    @property
    def id(self) -> str:
        return f"{self.question}.{self.name}"


@dataclass
class ProbeSet:
    """The probes of one assignment, in definition order: ``hidden = ProbeSet("01-broadcasting")``."""

    assignment: str
    probes: list[Probe] = field(default_factory=list)

    def probe(
        self,
        question: str,
        function: str,
        *,
        weight: float = 1.0,
        rtol: float | None = None,
        atol: float | None = None,
        judge: Callable[[dict[str, Any], dict[str, Any]], str | None] | None = None,
        gate: bool = False,
        source: bool = False,
    ) -> Callable[[Callable[..., dict[str, Any]]], Callable[..., dict[str, Any]]]:
        """Register the decorated ``body(sub, rng)`` as a hidden test of ``question``.

        ``gate=True`` makes it a requirement of the question (see :attr:`Probe.gate`);
        ``source=True`` marks a body that reads only source (see :attr:`Probe.source`)."""

        def register(body: Callable[..., dict[str, Any]]) -> Callable[..., dict[str, Any]]:
            doc = (body.__doc__ or body.__name__).strip().splitlines()[0]
            name = body.__name__
            if any(p.question == question and p.name == name for p in self.probes):
                raise ValueError(f"{self.assignment}: probe {question}.{name} is defined twice")
            self.probes.append(
                Probe(question, name, function, doc, body, judge, weight, rtol, atol, gate, source)
            )
            return body

        return register

    def for_question(self, question: str) -> list[Probe]:
        return [p for p in self.probes if p.question == question]

    def questions(self) -> list[str]:
        return list(dict.fromkeys(p.question for p in self.probes))

    def get(self, probe_id: str) -> Probe:
        for p in self.probes:
            if p.id == probe_id:
                return p
        raise KeyError(probe_id)

    def points(self, question: str, question_points: float) -> dict[str, float]:
        """Split ``question_points`` over the question's scoring (non-gate) probes by weight
        (:func:`split_points`); gates get 0."""
        probes = self.for_question(question)
        scoring = [p for p in probes if not p.gate]
        shares = {p.id: 0.0 for p in probes}
        if scoring and sum(p.weight for p in scoring) > 0:
            parts = split_points(question_points, [p.weight for p in scoring])
            shares.update(zip([p.id for p in scoring], parts, strict=True))
        return shares


#: Points are multiples of ``1 / POINTS_GRID`` (quarter points): two decimals at most, and exact
#: in binary floating point, so any sum of them, in any order and by any tool (otter, nbgrader's
#: gradebook, a spreadsheet), is exact too.
POINTS_GRID = 4


def split_points(total: float, weights: list[float]) -> list[float]:
    """``total`` split in proportion to ``weights``, each part a multiple of ``1 / POINTS_GRID``,
    adding up to ``total`` exactly (largest remainders: every part is its exact share rounded
    down to the grid, and the steps left over go to the largest remainders, the earlier part
    first on a tie). ``total`` must be on the grid, the weights not negative and not all 0."""
    steps = total * POINTS_GRID
    if steps != int(steps) or steps < 0:
        raise ValueError(f"{total} points is not a multiple of 1/{POINTS_GRID}")
    if any(w < 0 for w in weights) or sum(weights) <= 0:
        raise ValueError(f"weights must be non-negative and not all 0, got {weights}")
    exact = [Fraction(int(steps)) * Fraction(w) / sum(map(Fraction, weights)) for w in weights]
    parts = [math.floor(x) for x in exact]
    by_remainder = sorted(range(len(parts)), key=lambda i: (-(exact[i] - parts[i]), i))
    for i in by_remainder[: int(steps) - sum(parts)]:
        parts[i] += 1
    return [n / POINTS_GRID for n in parts]


def score_question(
    probes: list[Probe], points: Mapping[str, float], problems: Mapping[str, str | None]
) -> tuple[float, list[str]]:
    """``(points earned, messages)`` for one question from each probe's judged problem: the sum
    of the passing probes' points, or 0 when a gate failed (its message comes first)."""
    gates = [m for p in probes if p.gate and (m := problems.get(p.id))]
    failed = [m for p in probes if not p.gate and (m := problems.get(p.id))]
    if gates:
        return 0.0, [*gates, *failed]
    earned = sum(points[p.id] for p in probes if not p.gate and problems.get(p.id) is None)
    return round(earned, 6), failed


def probe_seed(seed: int, probe_id: str) -> int:
    """The seed of one probe's inputs, derived from the batch's seed in the grader: a sandbox
    gets only the seeds of the probes it runs, never the batch's."""
    digest = hashlib.sha256(f"{seed}:{probe_id}".encode()).digest()
    return int.from_bytes(digest[:8], "little")


def probe_rng(seed: int, probe_id: str) -> np.random.Generator:
    """The generator a probe draws its inputs from: the same for student and reference runs."""
    return np.random.default_rng(probe_seed(seed, probe_id))
