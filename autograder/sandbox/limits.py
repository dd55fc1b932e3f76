"""What a sandboxed process may use: limits it applies to itself before student code runs
(:func:`apply`), and the grader's account of its memory and processes (:class:`Meter`)."""

from __future__ import annotations

import glob
import os
import resource
import secrets
import signal
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, TypedDict, cast

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


def scratch_mb(limits: SandboxLimits) -> int:
    """The quota of a sandbox's scratch folder, in MiB: a quarter of its memory limit, at least
    64 MiB. The folder is a tmpfs, so what is written there is memory too (in the sandbox's
    cgroup, or its tree's account): a full folder fills neither the disk nor the grader's RAM."""
    return max(64, limits.memory_mb // 4)


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
    if hasattr(resource, "RLIMIT_MSGQUEUE"):  # POSIX message queues: memory no process holds
        resource.setrlimit(resource.RLIMIT_MSGQUEUE, (0, 0))
    resource.setrlimit(resource.RLIMIT_FSIZE, (limits.output_mb * 2**20 * 4, limits.output_mb * 2**20 * 4))
    if device == "cpu":
        # Address space, a backstop for the RSS watchdog: JAX's CPU client maps ~1.6 GiB it
        # never touches. (CUDA maps far more virtual memory, so GPU runs rely on the watchdog.)
        cap = 3 * mem + 4 * 2**30
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    # Counts the tasks (threads too) of the whole user id: a fork bomb stops here. Without root
    # the sandbox shares the grader's user id, in a user namespace of its own, where the kernel
    # counts only the tasks of that namespace: those it sees (its own /proc) and, as process 1
    # of a PID namespace, the parent standing by outside it.
    own = _tasks_of(os.getuid()) + (1 if os.getpid() == 1 else 0)
    nproc = limits.processes + (own if os.getuid() == _GRADER_UID else 0)
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


# -- The grader's account ------------------------------------------------------------------------


class Meter:
    """Memory and processes counted for the whole sandbox, read by the grader while it runs.

    Where the host lets the grader make cgroups (as root: v1 ``memory`` and ``pids``
    hierarchies, or a v2 hierarchy whose controllers reach the grader's own group), the sandbox
    is moved into its own group before it runs anything: the kernel holds its memory (memfds,
    tmpfs files, children, page cache it dirties) and tasks under the limits, and the group's
    OOM count is the verdict. Elsewhere the grader counts the whole process tree from ``/proc``:
    the main process's resident set, each other process's anonymous and shared memory, every
    memfd any of them holds and what the scratch folder's tmpfs holds. Neither trusts anything
    the sandbox says."""

    #: Seconds between two counts of the process tree (each reads a few files per process).
    EVERY = 0.1

    def __init__(self, pid: int, limits: SandboxLimits, box: Path):
        self.pid, self.box, self.limit = pid, box, limits.memory_mb * 2**20
        self.missing: list[str] = []
        self.groups: list[Path] = []
        self.memory: Path | None = None
        self.version = 0
        self.tripped = False
        self._next = 0.0
        try:
            self._cgroups(limits)
        except (OSError, ValueError, IndexError):
            pass
        if self.memory is None:
            self.missing.append("a memory cgroup: memory is counted over the process tree from /proc")

    # -- cgroups --

    def _cgroups(self, limits: SandboxLimits) -> None:
        v1, v2 = _cgroup_folders()
        name = f"autograder-{os.getpid()}-{secrets.token_hex(4)}"
        settings = {
            "memory": [("memory.limit_in_bytes", self.limit), ("memory.memsw.limit_in_bytes", self.limit)],
            "pids": [("pids.max", limits.processes + 2)],
        }
        for controller, values in settings.items():
            parent = v1.get(controller)
            if parent is None:
                continue
            group = _make_group(parent / name, values, self.pid)
            if group is not None:
                self.groups.append(group)
                if controller == "memory":
                    self.memory, self.version = group, 1
        if self.memory is None and v2 is not None and _delegate(v2):
            values = [
                ("memory.max", self.limit),
                ("memory.swap.max", 0),
                ("memory.oom.group", 1),
                ("pids.max", limits.processes + 2),
            ]
            group = _make_group(v2 / name, values, self.pid)
            if group is not None:
                self.groups.append(group)
                self.memory, self.version = group, 2

    def _oom(self) -> bool:
        assert self.memory is not None
        try:
            if self.version == 1:
                text = (self.memory / "memory.oom_control").read_text()
                fields = dict(line.split() for line in text.splitlines() if len(line.split()) == 2)
                return int(fields.get("oom_kill", 0)) > 0 or fields.get("under_oom") == "1"
            text = (self.memory / "memory.events").read_text()
            fields = dict(line.split() for line in text.splitlines() if len(line.split()) == 2)
            return int(fields.get("oom_kill", 0)) > 0 or int(fields.get("oom", 0)) > 0
        except (OSError, ValueError):
            return False

    # -- the process tree --

    def _tree(self) -> list[int]:
        found: list[int] = []
        todo = [self.pid]
        while todo and len(found) < 100_000:
            pid = todo.pop()
            found.append(pid)
            try:
                tasks = os.listdir(f"/proc/{pid}/task")
            except OSError:
                continue
            for task in tasks:
                try:
                    with open(f"/proc/{pid}/task/{task}/children", encoding="ascii") as f:
                        todo += [int(c) for c in f.read().split()]
                except (OSError, ValueError):
                    continue
        return found

    def usage(self) -> int:
        """Bytes the sandbox holds now, by the process-tree account."""
        status = {pid: _status(pid) for pid in self._tree()}
        # The process that runs the cells: process 1 of the sandbox's PID namespace, or (without
        # one) the process the zygote forked. The parent standing by outside counts nothing.
        main = next((p for p, st in status.items() if st.get("NSpid", "").split()[-1:] == ["1"]), self.pid)
        total = 0
        for pid, st in status.items():
            if pid == main:
                total += st.get("VmRSS", 0)
            elif pid != self.pid or main == self.pid:
                total += st.get("RssAnon", 0) + st.get("RssShmem", 0)
        memfds: dict[tuple[int, int], int] = {}
        for pid in status:
            try:
                fds = os.listdir(f"/proc/{pid}/fd")
            except OSError:
                continue
            for fd in fds:
                try:
                    if os.readlink(f"/proc/{pid}/fd/{fd}").startswith("/memfd:"):
                        st_fd = os.stat(f"/proc/{pid}/fd/{fd}")
                        memfds[(st_fd.st_dev, st_fd.st_ino)] = st_fd.st_blocks * 512
                except OSError:
                    continue
        total += sum(memfds.values())
        try:  # the scratch folder's tmpfs, seen from inside the sandbox's mount namespace
            inside = f"/proc/{main}/root{os.path.abspath(self.box)}"
            if os.stat(inside).st_dev != os.stat(self.box).st_dev:
                vfs = os.statvfs(inside)
                total += (vfs.f_blocks - vfs.f_bfree) * vfs.f_frsize
        except OSError:
            pass
        return total

    def over(self) -> bool:
        """Whether the sandbox has gone over its memory limit (said once, then for good)."""
        if self.tripped:
            return True
        if self.memory is not None:
            self.tripped = self._oom()
        elif time.monotonic() >= self._next:
            self.tripped = self.usage() > self.limit
            self._next = time.monotonic() + self.EVERY
        return self.tripped

    def close(self) -> None:
        """Kill what is left in the sandbox's groups and remove them (after the run: the
        verdict has been read). Never raises."""
        if self.memory is not None:
            self.over()
        for group in self.groups:
            try:
                _empty(group)
                group.rmdir()
            except OSError:
                pass


_SizeField = Literal["VmRSS", "RssAnon", "RssShmem"]


class _ProcStatus(TypedDict, total=False):
    """The fields of /proc/<pid>/status the memory account reads (those the file has)."""

    VmRSS: int
    RssAnon: int
    RssShmem: int
    NSpid: str


def _status(pid: int) -> _ProcStatus:
    """The fields of /proc/<pid>/status this account reads: sizes in bytes, NSpid as text."""
    out: _ProcStatus = {}
    try:
        with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key in ("VmRSS", "RssAnon", "RssShmem"):
                    out[cast(_SizeField, key)] = int(value.split()[0]) * 1024
                elif key == "NSpid":
                    out["NSpid"] = value.strip()
    except (OSError, ValueError, IndexError):
        pass
    return out


def _cgroup_folders() -> tuple[dict[str, Path], Path | None]:
    """The grader's own group in each v1 hierarchy that has a controller a sandbox needs, and
    in the v2 hierarchy: where a sandbox's group is made, so that the limits of whatever
    contains the grader (a container, a systemd slice) still hold over it."""
    mounts: dict[str, tuple[Path, str]] = {}
    v2: tuple[Path, str] | None = None
    with open("/proc/self/mountinfo", encoding="utf-8", errors="surrogateescape") as f:
        for line in f:
            fields = line.split()
            sep = fields.index("-")
            fstype, options = fields[sep + 1], fields[sep + 3].split(",")
            point = Path(fields[4].encode().decode("unicode_escape"))
            if fstype == "cgroup":
                for c in ("memory", "pids"):
                    if c in options:
                        mounts[c] = (point, fields[3])
            elif fstype == "cgroup2" and v2 is None:
                v2 = (point, fields[3])
    v1: dict[str, Path] = {}
    own_v2: Path | None = None
    with open("/proc/self/cgroup", encoding="utf-8") as f:
        for line in f:
            _, controllers, path = line.rstrip("\n").split(":", 2)
            for c in controllers.split(","):
                if c in mounts:
                    point, root = mounts[c]
                    folder = _under(point, root, path)
                    if folder is not None:
                        v1[c] = folder
            if controllers == "" and v2 is not None:
                own_v2 = _under(*v2, path)
    return v1, own_v2


def _under(point: Path, root: str, path: str) -> Path | None:
    rel = os.path.relpath(path, root)
    return None if rel.startswith("..") else (point / rel).resolve()


def _delegate(group: Path) -> bool:
    """Whether the v2 group can hold sandbox groups with the memory and pids controllers (a
    group with processes of its own cannot hand controllers down: then it cannot)."""
    try:
        if not {"memory", "pids"} <= set((group / "cgroup.controllers").read_text().split()):
            return False
        enabled = set((group / "cgroup.subtree_control").read_text().split())
        if not {"memory", "pids"} <= enabled:
            (group / "cgroup.subtree_control").write_text("+memory +pids")
        return True
    except OSError:
        return False


def _make_group(group: Path, values: list[tuple[str, int]], pid: int) -> Path | None:
    """Make ``group``, set what it has of ``values``, move ``pid`` in; None where refused."""
    try:
        group.mkdir()
    except OSError:
        return None
    try:
        for name, value in values:
            if (group / name).exists():
                (group / name).write_text(str(value))
        (group / "cgroup.procs").write_text(str(pid))
        return group
    except OSError:
        try:
            group.rmdir()
        except OSError:
            pass
        return None


def _empty(group: Path) -> None:
    """Kill every process of ``group`` until none is left (a few seconds at most)."""
    if (group / "cgroup.kill").exists():
        try:
            (group / "cgroup.kill").write_text("1")
        except OSError:
            pass
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        pids = [int(p) for p in (group / "cgroup.procs").read_text().split()]
        if not pids:
            return
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        time.sleep(0.01)
