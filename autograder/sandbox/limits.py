"""What a sandboxed process may use, applied to itself before student code runs."""

from __future__ import annotations

import glob
import os
import resource
import sys
from dataclasses import dataclass
from pathlib import Path

from . import landlock

#: First of the user ids sandboxes run as when the grader runs as root: one per parallel job and
#: grader process, so that a job's process limit and its final sweep of stray processes touch no
#: other job, not even one of another grader running beside it.
SANDBOX_UID_BASE = 2_147_000_000
SLOTS_PER_GRADER = 256
#: Sandboxes of submissions at once, at most: every slot but the reference's and the stub's. A
#: grader asked for more (a Dask worker with more threads) runs this many; the rest wait.
MAX_SANDBOXES = SLOTS_PER_GRADER - 2


def sandbox_uid(slot: int, grader_pid: int | None = None) -> int:
    """The user id of parallel job ``slot`` (0 is the reference run) of this grader process."""
    pid = os.getpid() if grader_pid is None else grader_pid
    return SANDBOX_UID_BASE + (pid % 1_000_000) * SLOTS_PER_GRADER + slot % SLOTS_PER_GRADER


def sandbox_user(slot: int) -> int | None:
    """The user id the sandbox in ``slot`` runs as: one of its own when the grader runs as root
    (never uid 0; the sandbox's private file view makes a root-only Python reachable to it);
    ``None`` without root, where the sandbox keeps the grader's user id, in a user namespace
    where the kernel allows one."""
    return sandbox_uid(slot) if os.geteuid() == 0 else None


@dataclass(frozen=True)
class SandboxLimits:
    """Limits of one sandbox, resolved from ``course.yml`` and command-line flags."""

    cell_seconds: float
    submission_seconds: float
    memory_mb: int
    processes: int
    output_mb: int


def readable_roots() -> list[str]:
    """Where a sandbox may read: the Python installation and system libraries, nothing of the
    project (solutions, build, submissions) nor the grader's output folder."""
    roots = {
        sys.prefix,
        sys.base_prefix,
        sys.exec_prefix,
        "/usr",
        "/lib",
        "/lib64",
        "/lib32",
        "/bin",
        "/etc",
        "/proc",
        "/sys",
        "/dev",
        "/opt",
        "/run/nvidia-persistenced",
    }
    for p in sys.path:
        # site-packages of a venv and of the base install; not the project root on sys.path[0]
        if "site-packages" in p or "dist-packages" in p or p.endswith(("lib-dynload",)):
            roots.add(p)
    return sorted(r for r in roots if os.path.exists(r))


def apply(
    limits: SandboxLimits,
    box: Path,
    device: str,
    *,
    shared_read: list[str] = (),  # type: ignore[assignment]
    shared_write: list[str] = (),  # type: ignore[assignment]
) -> int:
    """Limit the calling process, which :func:`privileges.confine` has already made the user it
    runs as: resource limits, then Landlock last. Returns the Landlock ABI used (0: none).

    ``shared_read``/``shared_write``: folders outside the box it may also read / write (the
    compilation cache: written by the reference run, only read by submissions)."""
    mem = limits.memory_mb * 2**20
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_FSIZE, (limits.output_mb * 2**20 * 4, limits.output_mb * 2**20 * 4))
    if device == "cpu":
        # Address space, a backstop for the RSS watchdog: JAX's CPU client maps ~1.6 GiB it
        # never touches. (CUDA maps far more virtual memory, so GPU runs rely on the watchdog.)
        cap = 3 * mem + 4 * 2**30
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    # Counts the tasks (threads too) of the whole user id: a fork bomb stops here. Without root
    # the sandbox shares the grader's user id, so the limit comes on top of what already runs.
    nproc = limits.processes + (_tasks_of(os.getuid()) if os.getuid() == _GRADER_UID else 0)
    resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))
    return landlock.restrict(
        # Not /dev/shm: what is written there escapes the memory limit and outlives the run.
        [*readable_roots(), *shared_read],
        [str(box), "/dev/null", *shared_write, *(gpu_device_files() if device == "gpu" else [])],
    )


def gpu_device_files() -> list[str]:
    """What CUDA opens for writing at ``cuInit``: the NVIDIA device files (control, one per
    GPU, unified memory) and this process's own ``/proc/<pid>`` entries. Without them under
    Landlock, cuInit fails (CUDA_ERROR_OPERATING_SYSTEM, seen on an H100) and JAX finds no GPU.
    Nothing else in /proc: another process's entries stay out of reach."""
    return [*sorted(glob.glob("/dev/nvidia*")), f"/proc/{os.getpid()}"]


_GRADER_UID = os.getuid()  # read in the zygote, before any sandbox changed its user


def _tasks_of(uid: int) -> int:
    count = 0
    for entry in os.scandir("/proc") if os.path.isdir("/proc") else []:
        if entry.name.isdigit():
            try:
                if entry.stat().st_uid == uid:
                    count += len(os.listdir(f"/proc/{entry.name}/task"))
            except OSError:
                continue
    return count


def rss_mb(pid: int) -> float:
    """Resident memory of ``pid`` in MiB (0 where /proc is unavailable or the process is gone)."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except (OSError, ValueError):
        pass
    return 0.0
