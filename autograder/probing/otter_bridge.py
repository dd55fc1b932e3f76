"""The otter bridge: both halves of a probe in the student's kernel, for the otter autograder
and the nbgrader export, which ship this package beside a reference solution module."""

from __future__ import annotations

from typing import Any

from .api import ProbeSet, probe_seed
from .compare import judge_probe
from .plain import decode_run
from .running import run_probe

_REFERENCE_ENV: dict[str, Any] | None = None


def reference_env(path: str = "reference_solution.py") -> dict[str, Any]:
    """Globals of the reference solution shipped in the otter autograder, executed once."""
    global _REFERENCE_ENV
    if _REFERENCE_ENV is None:
        env: dict[str, Any] = {"__name__": "reference_solution"}
        with open(path, encoding="utf-8") as f:
            code = compile(f.read(), path, "exec")
        exec(code, env)  # noqa: S102 - the instructor's own reference solution
        _REFERENCE_ENV = env
    return _REFERENCE_ENV


def otter_check(probes: ProbeSet, probe_id: str, env: dict[str, Any], seed: int) -> None:
    """Run and judge one probe inside an otter test case; ``AssertionError`` when it fails.

    A scoring probe also fails when a gate of its question fails, so that otter's per-test
    points add up to :func:`score_question`'s."""
    probe = probes.get(probe_id)
    checks = [probe] if probe.gate else [*(p for p in probes.for_question(probe.question) if p.gate), probe]
    for p in checks:
        student = decode_run(run_probe(p, env, probe_seed(seed, p.id)))
        reference = decode_run(run_probe(p, reference_env(), probe_seed(seed, p.id)))
        problem = judge_probe(p, student, reference)
        if problem is not None:
            raise AssertionError(problem)
