"""The sandboxes of one grader: the job every run is told (device, virtual CPU devices, XLA
flags), the pool of sandbox slots, and the zygote they fork from. :class:`.grader.Grader` runs
cells and probes through :meth:`SandboxPool.run`; nothing here judges or records.
"""

from __future__ import annotations

import os
import queue
import secrets
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from ..config import ROOT, Assignment
from ..sandbox import landlock
from ..sandbox.limits import MAX_SANDBOXES, SandboxLimits, sandbox_user
from ..sandbox.run import RunOutcome, SandboxJob, run_sandboxed
from ..sandbox.zygote import Zygote, start_zygote

#: The sandbox slots of the instructor's own runs: the reference's, and the stub's that fills the
#: public compilation cache beside it (submissions take 1 to ``jobs``). Under root a slot is a
#: user id, and a finished run kills every process of its id, so the two must differ.
REFERENCE_SLOT, STUB_SLOT = 0, -1

#: XLA flags of every sandbox on the CPU, the reference's included (they are part of the job, and
#: so of the reference store's key). Once its functions are defined, a submission's run is mostly
#: XLA compiling them for the probes' inputs, once each (~30 ms for even one eager op), to
#: programs that then run for microseconds. Without LLVM's optimisation passes, and with
#: XLA:CPU's older elemental emitters instead of its MLIR fusion emitters, a submission compiles
#: in about half the time. Both flags change how fast the compiled code runs, not which
#: operations it computes (fast-math stays off), and the probes' timing judges (04-jit q9) time
#: a simulated device, not XLA code.
CPU_XLA_FLAGS = ("--xla_backend_optimization_level=0",)
#: Flags that XLA has renamed or may drop: an unknown flag in XLA_FLAGS aborts the process, so
#: these are used only with the jaxlib versions they were checked on.
CPU_XLA_FLAGS_CHECKED = {"0.10.2": ("--xla_cpu_use_fusion_emitters=false",)}


def cpu_xla_flags() -> str:
    """The XLA flags of sandboxes on the CPU, for the jaxlib installed here."""
    from jaxlib.version import __version__

    return " ".join((*CPU_XLA_FLAGS, *CPU_XLA_FLAGS_CHECKED.get(__version__, ())))


def gpu_count() -> int:
    try:
        import jax

        return len(jax.devices("gpu"))
    except RuntimeError:
        return 0


def plan_job(
    assignment: Assignment, device: str, cpu_devices: int | None, matmul_precision: str
) -> tuple[SandboxJob, list[str]]:
    """The job of every sandbox of ``assignment`` on ``device``, and the notes a results page
    shows about it. ``cpu_devices`` below the assignment's ``min_devices`` is raised to it:
    scores must not depend on the machine, and data-parallel mistakes are invisible on one
    device (on a GPU machine with too few GPUs, those assignments run on virtual CPU devices)."""
    devices = assignment.devices
    n = cpu_devices or devices.cpu_devices
    notes: list[str] = []
    platform: str = device
    if device == "gpu" and devices.min_devices > 1 and gpu_count() < devices.min_devices:
        platform = "cpu"
        n = max(n, devices.cpu_devices, devices.min_devices)
        notes.append(
            f"graded on {n} virtual CPU devices: this machine has fewer than "
            f"{devices.min_devices} GPUs, and data-parallel mistakes are invisible on one device"
        )
    elif n < devices.min_devices:
        n = devices.min_devices
        notes.append(
            f"graded on {n} virtual CPU devices (at least {devices.min_devices}: "
            "data-parallel mistakes are invisible on one device)"
        )
    job: SandboxJob = {
        "device": "gpu" if platform == "gpu" else "cpu",
        "cpu_devices": n,
        "matmul_precision": matmul_precision,
        "xla_flags": cpu_xla_flags() if platform == "cpu" else "",
    }
    return job, notes


class SandboxPool:
    """``jobs`` sandbox slots over one zygote (started by the first run, or handed in already
    started so that its imports overlap the caller's), under ``out/.sandbox``. Every sandbox
    sees the project, ``out`` and ``hide`` as empty folders. A zygote handed in is closed with
    the pool unless ``shared`` (a Dask worker's, which outlives the batch)."""

    def __init__(
        self,
        out: Path,
        job: SandboxJob,
        *,
        jobs: int = 1,
        hide: Sequence[str] = (),
        zygote: Zygote | None = None,
        shared: bool = False,
    ):
        self.out, self.job, self.hide = out, job, [str(h) for h in hide]
        self.zygote, self.shared = zygote, shared and zygote is not None
        self._zygote_lock = threading.Lock()
        self._slots: queue.Queue[int] = queue.Queue()
        for slot in range(1, min(jobs, MAX_SANDBOXES) + 1):
            self._slots.put(slot)

    def _zygote(self) -> Zygote:
        with self._zygote_lock:
            if self.zygote is None:
                self.zygote = start_zygote(self.out)
            return self.zygote

    def close(self) -> None:
        if self.zygote is not None and not self.shared:
            self.zygote.close()

    def revive(self) -> None:
        """Forget a zygote that died (killed from outside: the kernel's OOM killer); the next run
        starts another, this pool's own."""
        with self._zygote_lock:
            if self.zygote is not None and not self.zygote.alive():
                self.zygote.close()
                self.zygote, self.shared = None, False

    @contextmanager
    def slot(self) -> Iterator[int]:
        """A free submission slot, for the time of one run."""
        slot = self._slots.get()
        try:
            yield slot
        finally:
            self._slots.put(slot)

    @contextmanager
    def spare_slots(self, most: int) -> Iterator[list[int]]:
        """Up to ``most`` more slots that are free now, for the time of one run; never waits
        (so two runs that each want more than one can never wait for each other)."""
        taken: list[int] = []
        try:
            while len(taken) < most:
                try:
                    taken.append(self._slots.get_nowait())
                except queue.Empty:
                    break
            yield taken
        finally:
            for slot in taken:
                self._slots.put(slot)

    def run(
        self,
        cells: list[str],
        slot: int,
        probes_source: str,
        requests: list[tuple[str, int]],
        limits: SandboxLimits,
        cache: Path | None,
        *,
        writes: bool = False,
    ) -> RunOutcome:
        """Run ``cells``, then the probes of ``requests``, in a fresh sandbox of ``slot`` that
        reads (or, with ``writes``, fills) the compilation cache ``cache``; only the course's own
        runs (the reference, the stub) write one."""
        zygote = self._zygote()
        sandbox = self.out / ".sandbox"
        sandbox.mkdir(parents=True, exist_ok=True)
        os.chmod(sandbox, 0o711)
        uid = sandbox_user(slot)
        job: SandboxJob = {**self.job, "hidden": [str(ROOT), str(self.out.resolve()), *self.hide]}
        if cache is not None and writes:
            cache.mkdir(parents=True, exist_ok=True)
            if uid is not None:
                os.chown(cache, uid, uid)
            job["compilation_cache"], job["cache_writes"] = str(cache), True
        elif cache is not None and cache.is_dir() and landlock.abi_version() > 0:
            job["compilation_cache"] = str(cache)
        try:
            return run_sandboxed(
                zygote,
                cells=cells,
                probes_source=probes_source,
                requests=requests,
                job=job,
                limits=limits,
                # A fresh name each run: whatever a sandbox did to its folder cannot stop the next.
                box=sandbox / f"slot-{slot}-{secrets.token_hex(6)}",
                uid=uid,
            )
        finally:
            if cache is not None and writes and uid is not None:
                # Back to the grader's user: the sandbox user ids are reused by submissions.
                for path in (cache, *cache.rglob("*")):
                    os.chown(path, os.getuid(), os.getgid(), follow_symlinks=False)
                    os.chmod(path, 0o755 if path.is_dir() else 0o644, follow_symlinks=False)
