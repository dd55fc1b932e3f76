"""One submission graded in parts, on cores a batch would leave idle.

A lone submission (a regrade, a late one) on a machine with a free sandbox slot runs its cells
in two sandboxes at once, and each sandbox runs the hidden tests of some of its questions:
about half the wall time, since most of a run is the tests compiling the submission's own
functions. The parts' outcomes then merge into the outcome one sandbox running every test in
order would have given, so that a score never depends on how many parts graded it: a run that
stopped (a crash, a timeout, the memory limit) keeps only the results of the tests before the
first stop in that order, and the submission's time and result-size limits are applied to the
parts' sums in that order.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from ..sandbox.limits import SandboxLimits
from ..sandbox.run import MAX_PROBE_BYTES, MAX_RESULT_BYTES, RunOutcome, end_with_evidence

#: Parts of one submission at most: each part runs every cell again.
MAX_PARTS = 2
CGROUPS = Path("/sys/fs/cgroup")


def parts_for(slots: int, submissions: int, memory_mb: int) -> int:
    """Sandboxes each of ``submissions`` may run in at once: the ``slots`` the others leave
    idle, as far as the machine has a CPU and the memory limit to spare for each part."""
    parts = min(slots, usable_cpus()) // max(1, submissions)
    spare = spare_memory_mb()
    room = MAX_PARTS if spare == math.inf else int(spare // max(1, memory_mb))
    return max(1, min(parts, MAX_PARTS, room))


def usable_cpus(cgroups: Path = CGROUPS) -> int:
    """The CPUs this process may keep busy: its affinity, bounded by its cgroup's CPU quota (a
    container's ``--cpus``), which ``os.cpu_count()`` does not see."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # macOS has no affinity
        cpus = os.cpu_count() or 1
    quota = None
    try:  # cgroup v2: "max 100000" or "200000 100000"
        limit, period = (cgroups / "cpu.max").read_text().split()[:2]
        quota = None if limit == "max" else int(limit) / int(period)
    except (OSError, ValueError):
        try:  # cgroup v1: a quota of -1 is none
            limit_us = int((cgroups / "cpu" / "cpu.cfs_quota_us").read_text())
            period_us = int((cgroups / "cpu" / "cpu.cfs_period_us").read_text())
            quota = limit_us / period_us if limit_us > 0 and period_us > 0 else None
        except (OSError, ValueError):
            pass
    return max(1, min(cpus, math.ceil(quota) if quota else cpus))


def spare_memory_mb(cgroups: Path = CGROUPS, meminfo: Path = Path("/proc/meminfo")) -> float:
    """Memory the machine can still give: what the kernel calls available, bounded by this
    process's cgroup limit less its use (a container's ``/proc/meminfo`` shows the host's)."""
    spare = math.inf
    try:
        for line in meminfo.read_text().splitlines():
            if line.startswith("MemAvailable:"):
                spare = int(line.split()[1]) / 1024
    except (OSError, ValueError, IndexError):
        pass
    for limit, used in (
        ("memory.max", "memory.current"),
        ("memory/memory.limit_in_bytes", "memory/memory.usage_in_bytes"),
    ):
        try:
            room = (int((cgroups / limit).read_text()) - int((cgroups / used).read_text())) / 2**20
        except (OSError, ValueError):  # "max", or no such controller
            continue
        spare = min(spare, room)
    return spare


def split_by_question(
    probe_ids: Sequence[str], question_of: Mapping[str, str], parts: int
) -> list[list[str]]:
    """``probe_ids`` in at most ``parts`` groups of whole questions (a question's tests share
    a sandbox, in order), as even in number of tests as the questions allow."""
    questions: dict[str, list[str]] = {}
    for pid in probe_ids:
        questions.setdefault(question_of[pid], []).append(pid)
    groups: list[list[str]] = [[] for _ in range(max(1, min(parts, len(questions))))]
    for ids in sorted(questions.values(), key=len, reverse=True):
        min(groups, key=len).extend(ids)
    rank = {pid: i for i, pid in enumerate(probe_ids)}
    return [sorted(group, key=rank.__getitem__) for group in groups if group]


def merge_outcomes(outcomes: Sequence[RunOutcome], order: Sequence[str], limits: SandboxLimits) -> RunOutcome:
    """The outcome of one sandbox that ran the cells and then every probe of ``order``, from
    ``outcomes``: parts that each ran the cells and then their own probes in ``order``'s order.
    The first part's cells speak for all (they are the same cells)."""
    position = {pid: i for i, pid in enumerate(order)}
    faults = [o for o in outcomes if o.ended == "fault"]
    if faults:
        return faults[0]  # a part that could not start: the grader's failure, retried whole

    def stop(o: RunOutcome) -> float:
        """Where in one sandbox's run this part's stop would have come."""
        if o.ended == "ok":
            return math.inf
        if o.where in position:
            return position[o.where]
        if o.where == "" and o.results:
            return len(order)  # after its last test (the end of the conversation)
        return -1  # in or before the cells, or while the tests were loaded

    first = min(outcomes, key=stop)  # on a tie, the earliest part
    at = stop(first)
    tampered = list(dict.fromkeys(t for o in outcomes for t in o.tampered))[:5]
    added: dict[str, str] = {}
    for o in outcomes:
        for name, where in o.added.items():
            added.setdefault(name, where)
    seconds = max(o.seconds for o in outcomes)
    if at < 0:
        return replace(first, tampered=tampered, added=added, seconds=seconds)

    base = outcomes[0]
    merged = replace(
        base,
        ended=first.ended,
        where=first.where,
        detail=first.detail,
        tampered=tampered,
        added=added,
        results={},
        probe_costs={},
        seconds=seconds,
    )
    results = {pid: r for o in outcomes for pid, r in o.results.items()}
    costs = {pid: c for o in outcomes for pid, c in o.probe_costs.items()}
    elapsed, sent = base.cells_seconds, 0
    for i, pid in enumerate(order):
        if i >= at:
            break
        took, size = costs.get(pid, (0.0, 0))
        elapsed, sent = elapsed + took, sent + size
        if elapsed > limits.submission_seconds:
            merged.ended, merged.where = "timeout", pid
            merged.detail = f"{limits.submission_seconds:g} s for the submission"
            break
        if sent > MAX_RESULT_BYTES:
            merged.ended, merged.where = "tampered", pid
            merged.detail = (
                f"its results came to more than {MAX_RESULT_BYTES // 2**20} MiB (results are capped at "
                f"{MAX_PROBE_BYTES // 2**20} MiB per test and {MAX_RESULT_BYTES // 2**20} MiB per submission)"
            )
            break
        if pid in results:
            merged.results[pid] = results[pid]
            merged.probe_costs[pid] = (took, size)
    end_with_evidence(merged)
    return merged
