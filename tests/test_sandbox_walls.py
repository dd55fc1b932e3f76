"""The sandbox's walls, each attacked from inside a sandbox (docs/instructors.md, *The sandbox's
walls*). Every attack here succeeded on the sandbox before the walls (checks, not walls): a host
socket file reached through the file system, the batch's seed read from another process's
command line, memory held in memfds or in children past the limit, the disk filled through the
scratch folder, a link in the scratch folder that broke its removal (the row became `error`).

The attacks run as the user the tests run as (as root, the sandbox gets a user id of its own and
cgroups where the host has them), and again, where this machine lets the tests create one,
as a grader without root: a fresh user id with a supplementary group, whose sandbox keeps its
user id in a user namespace and has no cgroup (memory is counted over its whole process tree).
"""

from __future__ import annotations

import ctypes
import json
import os
import select
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from autograder.config import ROOT, load_course
from autograder.grading.grader import Grader
from autograder.sandbox.limits import SandboxLimits, scratch_mb
from autograder.sandbox.run import RunOutcome, remove_tree

LIMITS = SandboxLimits(cell_seconds=30, submission_seconds=90, memory_mb=512, processes=256, output_mb=2)
QUOTA = scratch_mb(LIMITS) * 2**20
SEED = 73_105_331_977  # the batch's seed, on a command line as `grade --seed` puts it
LINUX = sys.platform.startswith("linux")

pytestmark = pytest.mark.skipif(not LINUX, reason="the sandbox's walls are Linux namespaces and cgroups")


def _kernel_gives_namespaces() -> bool:
    """Whether a process of this user may make the mount and PID namespaces a sandbox makes (a
    kernel or container without them grades with the row saying so; those walls are not here)."""
    if not LINUX:
        return False
    flags = 0x00020000 | 0x20000000 | (0 if os.geteuid() == 0 else 0x10000000)
    pid = os.fork()
    if pid == 0:
        os._exit(0 if ctypes.CDLL(None, use_errno=True).unshare(flags) == 0 else 1)
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0


needs_namespaces = pytest.mark.skipif(
    not _kernel_gives_namespaces(), reason="this kernel gives no mount and PID namespaces to this user"
)


# -- What the attacks reach: real listeners, a real process with the seed on its command line. --


class Listeners:
    """Unix sockets on the host, each recording who connected (checked at the receiving end,
    not by the attacking cell's own account)."""

    def __init__(self) -> None:
        self.socks: dict[str, socket.socket] = {}
        self.reached: list[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)

    def add(self, path: str, kind: socket.SocketKind = socket.SOCK_STREAM) -> str:
        s = socket.socket(socket.AF_UNIX, kind)
        s.bind(path)
        if kind == socket.SOCK_STREAM:
            s.listen(8)
        s.setblocking(False)
        self.socks[path] = s
        return path

    def start(self) -> None:
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            ready, _, _ = select.select(list(self.socks.values()), [], [], 0.1)
            for s in ready:
                try:
                    if s.type == socket.SOCK_STREAM:
                        s.accept()[0].close()
                    else:
                        s.recv(64)
                except OSError:
                    continue
                self.reached.append(next(p for p, t in self.socks.items() if t is s))

    def close(self) -> None:
        self._stop.set()
        self._thread.join(5)
        for s in self.socks.values():
            s.close()


@pytest.fixture(scope="module")
def world() -> Iterator[dict[str, Any]]:
    """A folder in /tmp that every user can enter, holding a socket every user may connect to
    (a root grader's leftovers), and a process whose command line holds the batch's seed."""
    top = Path(tempfile.mkdtemp(prefix="walls-", dir="/tmp"))
    top.chmod(0o755)
    listeners = Listeners()
    open_sock = listeners.add(str(top / "open.sock"))
    os.chmod(open_sock, 0o777)
    # A datagram socket (as /dev/log or journald's): a datagram pair could send to it by name.
    dgram = listeners.add(str(top / "log.sock"), socket.SOCK_DGRAM)
    os.chmod(dgram, 0o777)
    listeners.start()
    markers = [str(top)]
    for folder in ("/var/tmp", "/dev/shm", "/run"):
        marker = Path(folder) / f"{top.name}-marker"
        try:
            marker.write_text("the host's")
            markers.append(str(marker))
        except OSError:
            pass
    grade = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(900)", "grade", "--seed", str(SEED)],
        stdin=subprocess.DEVNULL,
    )
    try:
        yield {"top": top, "open": open_sock, "dgram": dgram, "listeners": listeners, "markers": markers}
    finally:
        for marker in markers[1:]:
            Path(marker).unlink()
        grade.kill()
        grade.wait()
        listeners.close()
        shutil.rmtree(top, ignore_errors=True)


def connect_cells(paths: list[str], dgram: str) -> list[str]:
    """Connect to each stream socket of ``paths`` (and an abstract one), and send to the
    datagram socket ``dgram`` from a socket pair (which needs no socket() of its own)."""
    return [
        "import socket\nREACHED = []\n"
        f"for path in {paths!r} + ['\\0walls-abstract']:\n"
        "    try:\n"
        "        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)\n"
        "        s.settimeout(2)\n"
        "        s.connect(path)\n"
        "        REACHED.append(path)\n"
        "        s.sendall(b'from the sandbox')\n"
        "    except OSError:\n"
        "        pass\n"
        "try:\n"
        "    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)\n"
        f"    a.sendto(b'from the sandbox', {dgram!r})\n"
        f"    REACHED.append({dgram!r})\n"
        "except OSError:\n"
        "    pass",
        "assert not REACHED, REACHED",
    ]


def proc_cells(markers: list[str]) -> list[str]:
    """Look for the seed in every process's command line and environment, count the processes,
    look for the host's temporary files by name, and signal what lies outside."""
    return [f"MARKERS = {markers!r}", *PROC_CELLS]


PROC_CELLS = [
    "import os\nSEEN, PIDS = [], [p for p in os.listdir('/proc') if p.isdigit()]\n"
    "for p in PIDS:\n"
    "    for name in ('cmdline', 'environ'):\n"
    "        try:\n"
    "            data = open(f'/proc/{p}/{name}', 'rb').read()\n"
    "        except OSError:\n"
    "            continue\n"
    f"        if b'{SEED}' in data:\n"
    "            SEEN.append((p, name))",
    "assert not SEEN, SEEN",
    f"assert '{SEED}' not in repr(dict(os.environ)), 'the seed is in the environment'",
    # Only the sandbox's own processes: the grader, its zygote and the host stay out of sight.
    "assert len(PIDS) < 4, PIDS",
    # The host's temporary and run-time folders are not the sandbox's (Landlock forbids
    # listing them, but not reaching what they hold by name).
    "assert not [p for p in MARKERS if os.path.lexists(p)], [p for p in MARKERS if os.path.lexists(p)]",
    # Nothing outside the sandbox can be signalled: not the process standing by for it, not
    # its process group (which the grader kills it by).
    "import signal\nos.kill(0, signal.SIGKILL)\nfor pid in range(2, 50):\n"
    "    try:\n        os.kill(pid, signal.SIGKILL)\n    except OSError:\n        pass",
]

MEMFD_CELLS = [
    # Memory in memfds is in no process's resident set: 768 MiB under a 512 MiB limit. (The
    # file-size limit caps each memfd at 8 MiB; nothing caps how many.)
    "import os, time\nFDS = []\nfor i in range(96):\n"
    "    fd = os.memfd_create(f'hog{i}')\n"
    "    os.write(fd, b'x' * (8 << 20))\n"
    "    FDS.append(fd)\n"
    "time.sleep(3)",
]

CHILDREN_CELLS = [
    # Two children of 450 MiB each under a 512 MiB limit; the main process stays small.
    "import os, time\nKIDS = []\nfor i in range(2):\n"
    "    pid = os.fork()\n"
    "    if pid == 0:\n"
    "        hog = b'x' * (450 << 20)\n"
    "        time.sleep(4)\n"
    "        os._exit(0)\n"
    "    KIDS.append(pid)\n"
    "for pid in KIDS:\n"
    "    os.waitpid(pid, 0)",
]

DISK_CELLS = [
    # Files of 4 MiB (under the file-size limit), twice the scratch folder's quota.
    f"import os\nWRITTEN = 0\ntry:\n    for i in range({2 * QUOTA // (4 << 20)}):\n"
    "        with open(f'fill-{i}', 'wb') as f:\n"
    "            f.write(b'\\0' * (4 << 20))\n"
    "        WRITTEN += 4 << 20\n"
    "except OSError:\n    pass\n"
    "st = os.statvfs('.')\nSIZE = st.f_blocks * st.f_frsize",
    f"assert WRITTEN <= {QUOTA}, WRITTEN",
    f"assert SIZE <= {QUOTA + 2**20}, SIZE",
]

CLEANUP_CELLS = [
    "import os\nos.symlink('/', 'up')\nos.makedirs('deep/er/est')\nos.symlink('/etc', 'deep/etc')\n"
    "open('deep/er/est/f', 'w').close()\nos.chmod('deep/er', 0)\nos.chmod('deep', 0o500)",
]


def clean(outcome: RunOutcome) -> bool:
    return outcome.ended == "ok" and not outcome.cell_errors


# -- As the user the tests run as. ------------------------------------------------------------


@pytest.fixture(scope="module")
def grader(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Grader]:
    course = load_course()
    a = course.assignment("01-broadcasting")
    out = tmp_path_factory.mktemp("walls") / "out"
    with Grader.for_course(course, a, out, seed=SEED, limits=LIMITS) as g:
        yield g


def run(grader: Grader, cells: list[str]) -> RunOutcome:
    return grader._run(cells, slot=1, probes=[], cache=None)


def test_an_honest_run_fits_the_limits_the_attacks_use(grader: Grader) -> None:
    """The attacks below fail for what they do, not because the sandbox is too small to start."""
    cells = [
        "import jax, jax.numpy as jnp, numpy as np\nx = jnp.ones((256, 256))\n"
        "assert float((x @ x).sum()) == 256.0 ** 3",
        "import matplotlib.pyplot as plt\nplt.plot([1, 2, 3])\nplt.savefig('plot.png')",
        "hold = np.ones((24, 2**20 // 8))  # 24 MiB more",
    ]
    outcome = run(grader, cells)
    assert clean(outcome), (outcome.ended, outcome.detail, outcome.cell_errors)


def test_no_host_socket_file_is_reachable(grader: Grader, world: dict[str, Any]) -> None:
    """A 0777 socket in /tmp (what a root grader's machine may hold) took the sandbox's
    messages: the network namespace does not cover socket files, Landlock ABI 7 cannot."""
    outcome = run(grader, connect_cells([world["open"]], world["dgram"]))
    assert clean(outcome), (outcome.ended, outcome.cell_errors)
    assert world["listeners"].reached == []


def test_nothing_that_reaches_out_can_be_made(grader: Grader) -> None:
    """Beside the view, the kernel refuses what could reach a socket by its name or regain
    privileges: a Unix socket, a datagram pair, a user namespace, io_uring. A stream pair (what
    multiprocessing uses) still works."""
    cells = [
        "import ctypes, socket\nlibc = ctypes.CDLL(None, use_errno=True)\nMADE = []\n"
        "for name, make in [('unix', lambda: socket.socket(socket.AF_UNIX)),\n"
        "                   ('dgram pair', lambda: socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM))]:\n"
        "    try:\n        make()\n        MADE.append(name)\n    except PermissionError:\n        pass\n"
        "if libc.unshare(0x10000000) == 0:\n    MADE.append('user namespace')\n"
        "params = ctypes.create_string_buffer(120)\n"
        "if libc.syscall(425, 4, params) >= 0:\n    MADE.append('io_uring')",
        "assert not MADE, MADE",
        "a, b = socket.socketpair()\na.sendall(b'x')\nassert b.recv(1) == b'x'",
    ]
    outcome = run(grader, cells)
    assert clean(outcome), (outcome.ended, outcome.cell_errors)


def _confined_socket_outcomes(box: Path, target: str, *, unix_sockets: bool) -> list[str]:
    """In a forked child confined as a sandbox is (``unix_sockets`` as a GPU sandbox asks):
    what making a Unix socket gave, then what connecting it to ``target`` (a host socket) gave."""
    from autograder.sandbox import limits, privileges

    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        said = []
        try:
            privileges.confine(
                uid=limits.sandbox_user(7) if os.geteuid() == 0 else None,
                needed=[Path(p) for p in limits.readable_roots()],
                hidden=[],
                box=box,
                box_mb=64,
                unix_sockets=unix_sockets,
            )
            try:
                s = socket.socket(socket.AF_UNIX)
                said.append("made")
                try:
                    s.connect(target)
                    said.append("connected")
                except OSError as e:
                    said.append(type(e).__name__)
            except OSError as e:
                said.append(type(e).__name__)
        except BaseException as e:  # noqa: BLE001 - reported to the test, which fails on it
            said.append(f"confine failed: {e!r}")
        os.write(w, json.dumps(said).encode())
        os._exit(0)
    os.close(w)
    with os.fdopen(r, "rb") as f:
        data = f.read()
    os.waitpid(pid, 0)
    return json.loads(data) if data else ["the confined process wrote nothing"]


@needs_namespaces
def test_a_gpu_sandbox_may_make_a_unix_socket_that_reaches_no_host_socket(
    world: dict[str, Any], tmp_path: Path
) -> None:
    """CUDA's cuInit makes a Unix socket and fails (CUDA_ERROR_OPERATING_SYSTEM, JAX finds no GPU)
    when seccomp refuses it, as on an H200: a GPU sandbox in a root of its own may make one. Its
    view holds no host socket file, so it still reaches nothing; a CPU sandbox is refused."""
    box = tmp_path / "box"
    box.mkdir()
    box.chmod(0o777)
    assert _confined_socket_outcomes(box, world["open"], unix_sockets=False) == ["PermissionError"]
    assert _confined_socket_outcomes(box, world["open"], unix_sockets=True) == ["made", "FileNotFoundError"]
    assert world["listeners"].reached == []


@needs_namespaces
def test_the_process_table_and_temporary_folders_are_private(grader: Grader, world: dict[str, Any]) -> None:
    """`grade --seed N` put the seed on a command line every process could read."""
    outcome = run(grader, proc_cells(world["markers"]))
    assert clean(outcome), (outcome.ended, outcome.cell_errors)


@pytest.mark.skipif(os.geteuid() != 0, reason="without root the kernel lets no process drop its groups")
def test_a_root_graders_sandbox_has_no_supplementary_group(grader: Grader) -> None:
    outcome = run(grader, ["import os\nassert os.getgroups() == [], os.getgroups()"])
    assert clean(outcome), (outcome.ended, outcome.cell_errors)


def test_memory_in_memfds_counts(grader: Grader) -> None:
    outcome = run(grader, MEMFD_CELLS)
    assert outcome.ended == "memory", (outcome.ended, outcome.detail, outcome.cell_errors)


def test_memory_of_child_processes_counts(grader: Grader) -> None:
    outcome = run(grader, CHILDREN_CELLS)
    assert outcome.ended == "memory", (outcome.ended, outcome.detail, outcome.cell_errors)


@needs_namespaces
def test_the_scratch_folder_has_a_quota(grader: Grader) -> None:
    """Writing past it is the sandbox's `No space left`, never the grader's full disk."""
    outcome = run(grader, DISK_CELLS)
    assert clean(outcome), (outcome.ended, outcome.cell_errors)


def test_what_a_sandbox_leaves_in_its_folder_never_breaks_the_row(grader: Grader) -> None:
    outcome = run(grader, CLEANUP_CELLS)
    assert clean(outcome), (outcome.ended, outcome.cell_errors)
    assert not list((grader.out / ".sandbox").iterdir())


def test_removal_survives_any_tree(tmp_path: Path) -> None:
    """Where the scratch folder is on disk (no mount namespace), what a sandbox leaves there is
    removed without following a link and without raising: links to folders, folders without
    permissions, a tree deeper than PATH_MAX, a FIFO, a socket, a name that is not UTF-8."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep").write_text("keep")
    box = tmp_path / "box"
    box.mkdir()
    (box / "to-dir").symlink_to(outside)
    (box / "to-file").symlink_to(outside / "keep")
    (box / "loop").symlink_to(box / "loop")
    (box / "locked" / "inner").mkdir(parents=True)
    (box / "locked" / "inner" / "f").write_text("x")
    (box / "locked" / "inner").chmod(0)
    (box / "locked").chmod(0)
    os.mkfifo(box / "fifo")
    s = socket.socket(socket.AF_UNIX)
    s.bind(str(box / "sock"))
    s.close()
    (box / os.fsdecode(b"bad-\xff-name")).write_text("x")
    fd = os.open(box, os.O_RDONLY)
    for _ in range(120):  # 120 x 50 characters: past PATH_MAX
        os.mkdir("d" * 50, dir_fd=fd)
        os.symlink(str(outside), "up", dir_fd=fd)
        nxt = os.open("d" * 50, os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = nxt
    os.close(fd)
    (box / "ro").mkdir()
    (box / "ro" / "f").write_text("x")
    (box / "ro").chmod(0o500)
    box.chmod(0o500)
    remove_tree(box)
    assert not os.path.lexists(box)
    assert (outside / "keep").read_text() == "keep"
    # The folder itself replaced by a link: the link goes, never what it points to.
    (tmp_path / "box").symlink_to(outside)
    remove_tree(tmp_path / "box")
    assert not os.path.lexists(tmp_path / "box") and (outside / "keep").exists()


# -- As a grader without root. ----------------------------------------------------------------

NONROOT_SCRIPT = """
import json, sys
from pathlib import Path
from autograder.config import load_course
from autograder.grading.grader import Grader
from autograder.sandbox.limits import SandboxLimits
spec = json.loads(Path(sys.argv[1]).read_text())
course = load_course()
a = course.assignment("01-broadcasting")
results = {}
limits = SandboxLimits(**spec["limits"])
with Grader.for_course(course, a, Path(spec["out"]), seed=spec["seed"], limits=limits) as g:
    for name, cells in spec["attacks"].items():
        try:
            o = g._run(cells, slot=1, probes=[], cache=None)
        except Exception as e:  # the row would be the grader's `error`
            results[name] = {"ended": "raised", "detail": repr(e), "errors": [], "missing": []}
            continue
        results[name] = {"ended": o.ended, "detail": o.detail, "errors": o.cell_errors, "missing": o.missing}
    results["left"] = sorted(p.name for p in (Path(spec["out"]) / ".sandbox").iterdir())
print("RESULTS " + json.dumps(results))
"""


def _others_can_enter(path: Path) -> bool:
    return bool(path.stat().st_mode & 0o001)


def _reachable_python_shell(work: Path) -> str:
    """Shell lines (run as root in a private mount namespace) that make this Python reachable to
    another user where it lives under a folder others cannot enter (a pyenv under /root)."""
    lines = []
    # The interpreter, its environment and the checkout (an editable install imports from it);
    # a path inside another of them is reachable once that one is.
    wanted = {Path(sys.base_prefix).resolve(), Path(sys.prefix).resolve(), ROOT.resolve()}
    needed = sorted(p for p in wanted if not any(o != p and o in p.parents for o in wanted))
    for i, p in enumerate(needed):
        blocked = next((a for a in reversed(p.parents) if a != Path("/") and not _others_can_enter(a)), None)
        if blocked is None:
            continue
        stage = work / f"stage-{i}"
        stage.mkdir()
        lines += [
            f"mount --bind '{p}' '{stage}'",
            f"mountpoint -q '{blocked}' || mount -t tmpfs -o mode=0755 tmpfs '{blocked}'",
            f"mkdir -p '{p}'",
            f"mount --move '{stage}' '{p}'",
        ]
    return "\n".join(lines)


@pytest.fixture(scope="module")
def nonroot(world: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The attacks run by a grader that is a fresh user id (with a fresh supplementary group),
    in a subprocess: ``unshare`` gives it a Python it can reach, ``setpriv`` its ids."""
    if os.geteuid() != 0:
        pytest.skip("creating a user id for the non-root grader needs root")
    if not _kernel_gives_namespaces():
        pytest.skip("this kernel gives no mount and PID namespaces")
    if not (shutil.which("unshare") and shutil.which("setpriv") and shutil.which("mount")):
        pytest.skip("unshare, setpriv or mount is missing: no way to run as a fresh user here")
    uid = 1_500_000 + os.getpid() % 100_000
    gid = uid + 1  # the grader's supplementary group
    work = Path(tempfile.mkdtemp(prefix="walls-nonroot-", dir="/tmp"))
    work.chmod(0o755)
    os.chown(work, uid, uid)
    top: Path = world["top"]
    listeners: Listeners = world["listeners"]
    # The instructor's own tmux socket (its folder 0700), and one a group of theirs may use.
    tmux = top / f"tmux-{uid}"
    tmux.mkdir(mode=0o700)
    owner_sock = listeners.add(str(tmux / "default"))
    os.chown(tmux, uid, uid)
    os.chown(owner_sock, uid, uid)
    os.chmod(owner_sock, 0o700)
    shared = top / "group-only"
    shared.mkdir(mode=0o750)
    group_sock = listeners.add(str(shared / "daemon.sock"))
    os.chown(shared, 0, gid)
    os.chown(group_sock, 0, gid)
    os.chmod(group_sock, 0o770)
    attacks = {
        "sockets": connect_cells([world["open"], owner_sock, group_sock], world["dgram"]),
        "proc": proc_cells(world["markers"]),
        "memfd": MEMFD_CELLS,
        "children": CHILDREN_CELLS,
        "disk": DISK_CELLS,
        "cleanup": CLEANUP_CELLS,
        "groups": ["import os\nGROUPS = os.getgroups()"],
    }
    spec = work / "spec.json"
    spec.write_text(
        json.dumps({"out": str(work / "out"), "seed": SEED, "limits": LIMITS.__dict__, "attacks": attacks})
    )
    script = work / "attacks.py"
    script.write_text(NONROOT_SCRIPT)
    as_user = f"setpriv --reuid={uid} --regid={gid - 1} --groups={gid} --inh-caps=-all '{sys.executable}'"
    # Whether this user may make the namespaces at all (a kernel, sysctl or AppArmor may refuse).
    probe = "import ctypes, sys; sys.exit(ctypes.CDLL(None).unshare(0x30020000) != 0)"
    shell = "\n".join(
        [
            "set -e",
            _reachable_python_shell(work),
            f'{as_user} -c "{probe}" || {{ echo NO-NAMESPACES; exit 0; }}',
            f"exec {as_user} '{script}' '{spec}'",
        ]
    )
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(work),
        "PYTHONPATH": str(ROOT),
        "AUTOGRADER_CACHE_DIR": str(work / "cache"),
        "LANG": "C.UTF-8",
    }
    proc = subprocess.run(
        ["unshare", "--mount", "--propagation", "private", "sh", "-c", shell],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    try:
        lines = [line for line in proc.stdout.splitlines() if line.startswith("RESULTS ")]
        if proc.returncode != 0 and "unshare failed" in proc.stderr:
            pytest.skip(f"this machine refuses a mount namespace: {proc.stderr.strip()[-200:]}")
        if "NO-NAMESPACES" in proc.stdout:
            pytest.skip("a user without root may make no user, mount and PID namespaces here")
        assert lines, (proc.returncode, proc.stderr[-3000:])
        yield {
            "results": json.loads(lines[-1].removeprefix("RESULTS ")),
            "listeners": listeners,
            "socks": [
                owner_sock,
                group_sock,
            ],
        }
    finally:
        remove_tree(work)


def test_without_root_no_host_socket_is_reachable(nonroot: dict[str, Any]) -> None:
    """The instructor's tmux socket (their own user id) and a socket of one of their groups
    were reachable by a sandbox that keeps the grader's user id and groups."""
    r = nonroot["results"]["sockets"]
    assert r["ended"] == "ok" and not r["errors"], r
    assert not set(nonroot["listeners"].reached) & set(nonroot["socks"])


def test_without_root_the_process_table_and_temporary_folders_are_private(nonroot: dict[str, Any]) -> None:
    r = nonroot["results"]["proc"]
    assert r["ended"] == "ok" and not r["errors"], r


def test_without_root_memory_counts_over_the_whole_tree(nonroot: dict[str, Any]) -> None:
    results = nonroot["results"]
    assert results["memfd"]["ended"] == "memory", results["memfd"]
    assert results["children"]["ended"] == "memory", results["children"]


def test_without_root_the_scratch_folder_has_a_quota_and_is_removed(nonroot: dict[str, Any]) -> None:
    results = nonroot["results"]
    assert results["disk"]["ended"] == "ok" and not results["disk"]["errors"], results["disk"]
    assert results["cleanup"]["ended"] == "ok" and not results["cleanup"]["errors"], results["cleanup"]
    assert results["left"] == []


def test_without_root_kept_groups_are_named(nonroot: dict[str, Any]) -> None:
    """The kernel lets no process without root drop its supplementary groups (a user namespace
    must deny setgroups to map its group). The row says so; nothing of the host that a group
    opens is within the sandbox's reach (the socket test above)."""
    r = nonroot["results"]["groups"]
    assert r["ended"] == "ok" and not r["errors"], r
    assert [m for m in r["missing"] if "supplementary groups" in m], r["missing"]


def test_the_scratch_files_are_the_sandboxs_own(grader: Grader) -> None:
    """The scratch folder is writable by the sandbox and by nobody else's processes."""
    outcome = run(
        grader,
        [
            "import os, stat\nst = os.stat('.')\nassert stat.S_IMODE(st.st_mode) == 0o700, oct(st.st_mode)\n"
            "assert st.st_uid == os.getuid()\nopen('x', 'w').write('x')",
        ],
    )
    assert clean(outcome), (outcome.ended, outcome.cell_errors)
