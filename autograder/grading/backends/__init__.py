"""Where submissions are graded: this machine's pool of ``--jobs`` threads (the default, in
:func:`autograder.grading.batch.local_records`), or a Dask cluster (:mod:`.dask_cluster`):
``--cluster local:N`` starts a ``distributed.LocalCluster`` of N worker processes for the run,
``--scheduler tcp://HOST:8786`` uses a running one (on SLURM/PBS through dask-jobqueue, on
Kubernetes...). Either way the unit of work is one submission in, one record of plain data out,
and the instructor's process alone writes results, feedback, gradebook and report.

Nothing here imports Dask: only a run given one of those flags does.
"""

from __future__ import annotations

import re

from ...errors import UsageError

#: ``tcp://10.0.0.5:8786``, ``tls://host:8786``, ``host:8786``, ``[::1]:8786``: what Dask's
#: ``Client`` accepts as a scheduler address (a protocol is optional, a port is not).
_ADDRESS = re.compile(r"^(?:[a-z][a-z0-9+.-]*://)?(?:\[[0-9a-fA-F:.]+\]|[A-Za-z0-9_.-]+):\d{1,5}$")


def check_backend(*, scheduler: str | None, cluster: str | None, jobs: int | None) -> int | None:
    """Check the backend flags; returns N of ``--cluster local:N`` (``None`` without it).
    :class:`UsageError` (exit status 2, one line) for anything else."""
    if scheduler is not None and cluster is not None:
        raise UsageError("--scheduler and --cluster: give one (a running cluster, or one started here)")
    if (scheduler is not None or cluster is not None) and jobs is not None:
        flag = "--scheduler" if scheduler is not None else "--cluster"
        raise UsageError(
            f"--jobs with {flag}: a cluster grades as many submissions at once as its workers have "
            "threads; --jobs sizes this machine's own pool"
        )
    if scheduler is not None and not _ADDRESS.match(scheduler):
        raise UsageError(f"--scheduler {scheduler!r}: expected a scheduler address such as tcp://HOST:8786")
    if cluster is None:
        return None
    m = re.fullmatch(r"local:(\d{1,4})", cluster)
    if m is None or int(m.group(1)) < 1:
        raise UsageError(
            f"--cluster {cluster!r}: expected local:N, N >= 1 worker processes on this machine "
            "(for a cluster of several machines, start one and give --scheduler)"
        )
    return int(m.group(1))
