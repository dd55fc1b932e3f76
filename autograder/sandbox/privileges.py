"""Who a sandbox is: its user id, namespaces, capabilities, environment and view of the files.

Applied by the sandboxed process to itself, after the fork and before any student code. These
are walls the kernel keeps, not checks the sandbox could fool:

- **Namespaces.** A private mount, network, IPC and PID namespace: the network holds only a
  loopback that is down (no TCP, no UDP, no raw sockets, no abstract Unix socket, nothing
  beyond the grader's socket pair, which was inherited); the process that runs the cells is
  process 1 of a PID namespace of its own, with a ``/proc`` of its own, so no other process of
  the machine (the grader and its command line, ``grade --seed N``, included) can be seen,
  signalled or traced, and when it ends, everything it started ends with it. As root these come
  from ``unshare``; as another user from a user namespace, where the kernel allows one.
- **A root of its own.** The sandbox's ``/`` is an empty read-only tmpfs holding only what it
  needs, each at its own path: the Python installation and system folders (read-only binds),
  the public compilation cache, a fresh ``/proc``, a ``/dev`` of a few devices (``null``,
  ``zero``, ``full``, ``random``, ``urandom``, and the NVIDIA devices on a GPU), and its
  scratch folder: a tmpfs of its own with a size limit (the disk quota). ``/tmp``, ``/run``,
  ``/var``, ``/home``, ``/dev/shm`` and the project are empty or absent: no socket file of the
  host, the instructor's tmux socket or a daemon's included, can be reached by its name, and
  creating a Unix socket is refused anyway (seccomp), since Landlock (ABI <= 7) cannot mediate
  ``connect`` to one. Where the host refuses a new root, the older view is used (folders
  covered by empty tmpfs, needed paths bound back, the temporary and run-time folders
  covered), and the row says so.
- **No privilege.** Never uid 0: as root, a user id per parallel job with no supplementary
  group; capabilities cleared (also inside a user namespace), ``no_new_privs`` set, no new user
  namespace (so no way back to capabilities), no io_uring, no System V shared memory (memory
  outside every process's account). Without root the kernel lets no process drop its
  supplementary groups (a user namespace must deny ``setgroups`` to map its group): they are
  kept, and named in the row, but nothing of the host that a group opens is in the sandbox's
  view.
- **An environment reduced to an allowlist**: no grader secret is inherited.

Each step that the platform cannot do is reported, so that the row says which protection was
missing (macOS and kernels without user namespaces lack some).
"""

from __future__ import annotations

import ctypes
import os
import platform
import resource
import signal
import struct
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import NoReturn

CLONE_NEWNS = 0x00020000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
MS_RDONLY = 1
MS_NOSUID = 2
MS_NODEV = 4
MS_NOEXEC = 8
MS_REMOUNT = 32
MS_NOATIME = 1024
MS_NODIRATIME = 2048
MS_BIND = 4096
MS_REC = 16384
MS_PRIVATE = 1 << 18
MS_RELATIME = 1 << 21
MNT_DETACH = 2
MOUNT_ATTR_RDONLY = 1
AT_FDCWD = -100
AT_RECURSIVE = 0x8000
_SYS_MOUNT_SETATTR = 442  # the same number on every architecture (a system call of 5.12)
PR_SET_PDEATHSIG = 1
PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2
PR_CAP_AMBIENT = 47
PR_CAP_AMBIENT_CLEAR_ALL = 4
PR_SET_CHILD_SUBREAPER = 36
_SYS_CAPSET = {"x86_64": 126, "aarch64": 91}
_SYS_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41}
_LINUX_CAPABILITY_VERSION_3 = 0x20080522
#: Mount flags a bind keeps when made read-only: in a user namespace, the kernel refuses a
#: remount that would drop one the host's mount has (they are locked).
_LOCKED_FLAGS = {
    getattr(os, name): ms
    for name, ms in (
        ("ST_NOSUID", MS_NOSUID),
        ("ST_NODEV", MS_NODEV),
        ("ST_NOEXEC", MS_NOEXEC),
        ("ST_NOATIME", MS_NOATIME),
        ("ST_NODIRATIME", MS_NODIRATIME),
        ("ST_RELATIME", MS_RELATIME),
    )
    if hasattr(os, name)  # (Linux only: this module is imported on macOS too)
}
#: The devices a sandbox gets in its /dev (and, on a GPU, the NVIDIA ones the caller names).
DEVICES = ("null", "zero", "full", "random", "urandom")
#: Folders of the host that hold sockets and shared scratch files: covered in the fallback view.
_SHARED_FOLDERS = ("/tmp", "/var/tmp", "/run", "/var/run", "/var/lock", "/dev/shm", "/home", "/root")

#: Environment variables a sandbox keeps (and the zygote starts with); everything else of the
#: grader's environment, tokens and passwords included, stays outside.
ENV_ALLOWED = {"PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "LD_LIBRARY_PATH", "CUDA_VISIBLE_DEVICES"}
ENV_ALLOWED_PREFIXES = ("JAX_", "XLA_", "NVIDIA_", "TF_CPP_")


def allowed_environment(env: dict[str, str]) -> dict[str, str]:
    """The part of ``env`` a sandbox may see."""
    return {k: v for k, v in env.items() if k in ENV_ALLOWED or k.startswith(ENV_ALLOWED_PREFIXES)}


@dataclass
class Confinement:
    """What :func:`confine` managed to apply; ``missing`` names each protection it could not."""

    uid: int = -1
    namespaces: bool = False
    private_files: bool = False
    private_pids: bool = False
    """process 1 of a PID namespace of its own, with its own /proc"""
    quota: bool = False
    """the scratch folder is a size-limited tmpfs"""
    missing: list[str] = field(default_factory=list)


class _Libc:
    def __init__(self) -> None:
        self.lib = ctypes.CDLL(None, use_errno=True)  # libc's symbols, no `ldconfig -p` (landlock._libc)

    def call(self, name: str, *args: object) -> None:
        if getattr(self.lib, name)(*args) != 0:
            err = ctypes.get_errno()
            raise OSError(err, f"{name}: {os.strerror(err)}")

    def mount(
        self, source: str | None, target: str | Path, fstype: str | None, flags: int, data: str | None
    ) -> None:
        enc = [None if s is None else os.fsencode(s) for s in (source, str(target), fstype, data)]
        if self.lib.mount(enc[0], enc[1], enc[2], ctypes.c_ulong(flags), enc[3]) != 0:
            err = ctypes.get_errno()
            raise OSError(err, f"mount {target}: {os.strerror(err)}")


def _linux() -> bool:
    return platform.system() == "Linux"


def set_subreaper() -> None:
    """Orphaned descendants of this process become its children (so they can be found and
    killed) instead of init's."""
    if _linux():
        try:
            _Libc().call("prctl", PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
        except OSError:
            pass


def confine(
    *,
    uid: int | None,
    needed: Iterable[Path],
    hidden: Iterable[Path],
    writable: Iterable[Path] = (),
    box: Path | None = None,
    box_mb: int = 0,
    devices: Iterable[str] = (),
    unix_sockets: bool = False,
) -> Confinement:
    """Confine the calling (single-threaded, freshly forked) process; see the module docstring.

    ``uid``: the user id to become when running as root. ``needed``: paths the sandbox must
    still read at their own names; ``writable``: those of them it may also write (the
    compilation cache the reference run fills). ``hidden``: folders to cover (the project, the
    grader's output folder) where they lie inside a needed one. ``box``: the scratch folder,
    made a tmpfs of ``box_mb`` MiB (the working directory is left for the caller to set).
    ``devices``: device files beyond :data:`DEVICES` (``/dev/nvidia*`` on a GPU).
    ``unix_sockets``: let it make Unix sockets (CUDA needs one, :func:`seccomp_program`), which
    is granted only where it gets a root of its own; elsewhere they stay refused.

    Where a PID namespace is made, the calling process forks: the parent stays outside, waits
    for the child and ends as it ends (it never returns from here); the child, process 1 of the
    namespace, returns and runs the cells."""
    result = Confinement()
    if not _linux():
        result.missing += ["namespaces (no network isolation)", "private file view", "capability drop"]
        _no_new_privs(result)
        result.uid = os.getuid()
        return result
    libc = _Libc()
    root = os.geteuid() == 0
    outer_uid, outer_gid = os.getuid(), os.getgid()
    groups = set(os.getgroups()) - {outer_gid}  # (in a user namespace, they would all read 65534)
    flags = CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC | (0 if root else CLONE_NEWUSER)
    for extra in (CLONE_NEWPID, 0):
        try:
            libc.call("unshare", flags | extra)
        except OSError:
            continue
        result.namespaces, result.private_pids = True, bool(extra)
        break
    if not result.namespaces:
        result.missing.append(
            "network, mount and PID namespaces (network not isolated, host files and processes seen)"
        )
    elif not result.private_pids:
        result.missing.append("a PID namespace (other processes and their command lines are seen)")
    if result.namespaces and not root:
        # Map our own ids to themselves: files keep their owners, and we stay no one special.
        try:
            Path("/proc/self/setgroups").write_text("deny")
            Path("/proc/self/uid_map").write_text(f"{outer_uid} {outer_uid} 1")
            Path("/proc/self/gid_map").write_text(f"{outer_gid} {outer_gid} 1")
        except OSError as e:
            raise RuntimeError(f"a user namespace without its id maps ({e})") from None
    alive = -1
    if result.private_pids:
        alive = _fork_into_namespace()
    needed = [Path(p) for p in needed]
    box_owner = (uid, uid) if root and uid is not None else (outer_uid, outer_gid)
    own_root = False
    if result.namespaces:
        view = _View(
            libc, needed, [Path(p) for p in writable], [Path(p) for p in hidden], box, box_mb, box_owner
        )
        try:
            view.new_root(devices=list(devices), fresh_proc=result.private_pids, missing=result.missing)
            result.private_files = result.quota = own_root = True
        except OSError as e:
            result.missing.append(f"a root of its own ({e.strerror or e}); host folders covered instead")
            try:
                _private_view(
                    libc, [*needed, *map(Path, writable), *([box] if box else [])], list(map(Path, hidden))
                )
                result.private_files = True
            except OSError as e2:
                result.missing.append(f"private file view ({e2.strerror or e2})")
            result.quota = view.quota_in_place()
    if box is not None and not result.quota:
        result.missing.append("a disk quota on the scratch folder (it is on the grader's disk)")
    if root:
        if uid is None or uid == 0:
            raise RuntimeError("a sandbox of a root grader needs a user id of its own")
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)  # from 0 to nonzero: the kernel clears every capability
    elif groups:
        result.missing.append(
            "dropping the grader's supplementary groups (only root may; nothing they open is in its view)"
        )
    _drop_capabilities(libc, result)
    _no_new_privs(result)
    _seccomp(libc, result, unix_sockets=unix_sockets and own_root)
    if alive >= 0:
        _tie_to_parent(libc, alive)
    result.uid = os.getuid()
    return result


# -- The PID namespace --------------------------------------------------------------------------


def _fork_into_namespace() -> int:
    """Fork after ``unshare(CLONE_NEWPID)``: the child is process 1 of the new namespace and
    returns (with the read end of a pipe whose end is the parent's death); the parent never
    returns."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(w)
        # A session of its own: the grader kills the sandbox by the parent's process group, and
        # nothing in here may signal the parent through the group it was born in.
        os.setsid()
        return r
    os.close(r)
    _stand_by(pid, w)


def _stand_by(pid: int, keep: int) -> NoReturn:
    """The parent outside the PID namespace: hold nothing of the sandbox's (its socket must
    close when the sandbox ends), wait for it and end as it ended, so that the zygote's exit
    code says what happened inside."""
    try:
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        os.closerange(3, keep)
        os.closerange(keep + 1, 1 << 20)
        while True:
            try:
                _, status = os.waitpid(pid, 0)
                break
            except InterruptedError:
                continue
        if os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
            if sig not in (signal.SIGKILL, signal.SIGSTOP):
                signal.signal(sig, signal.SIG_DFL)
                signal.pthread_sigmask(signal.SIG_UNBLOCK, [sig])
            os.kill(os.getpid(), sig)
            os._exit(128 + sig)
        os._exit(os.waitstatus_to_exitcode(status))
    finally:
        os._exit(1)


def _tie_to_parent(libc: _Libc, alive: int) -> None:
    """Die with the parent outside (the grader kills a sandbox through it). Set last: a change
    of user id clears it. The pipe says whether the parent died before it was set."""
    try:
        libc.call("prctl", PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        os.set_blocking(alive, False)
        try:
            gone = os.read(alive, 1) == b""
        except BlockingIOError:
            gone = False
        if gone:
            os._exit(1)
    finally:
        os.close(alive)


# -- The view of the files ------------------------------------------------------------------------


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def _resolve(path: Path) -> tuple[Path, list[tuple[Path, str]]]:
    """``path`` without symbolic links, and each link met on the way (where it is, what it
    says), so that the same names lead to the same folders in the new root."""
    links: list[tuple[Path, str]] = []
    todo = list(Path(os.path.abspath(path)).parts[1:])
    current = Path("/")
    for _ in range(4096):
        if not todo:
            return current, links
        name = todo.pop(0)
        if name in ("", "."):
            continue
        if name == "..":
            current = current.parent
            continue
        step = current / name
        if os.path.islink(step):
            target = os.readlink(step)
            links.append((step, target))
            todo = [*Path(target).parts, *todo]
            if os.path.isabs(target):
                todo = todo[1:]
                current = Path("/")
            continue
        current = step
    raise OSError(40, f"too many links in {path}")


class _View:
    """The sandbox's root: an empty tmpfs holding each needed path (bound at its own name),
    its scratch folder (a size-limited tmpfs), a fresh /proc and a small /dev."""

    def __init__(
        self,
        libc: _Libc,
        needed: list[Path],
        writable: list[Path],
        hidden: list[Path],
        box: Path | None,
        box_mb: int,
        box_owner: tuple[int, int],
    ):
        self.libc, self.box, self.box_mb, self.box_owner = libc, box, box_mb, box_owner
        special = [Path("/proc"), Path("/dev"), Path("/sys")]
        self.links: list[tuple[Path, str]] = []
        paths: dict[Path, bool] = {}  # real path -> writable
        for p, rw in [*((p, False) for p in needed), *((p, True) for p in writable)]:
            if not os.path.exists(p) or (box is not None and os.path.abspath(p) == os.path.abspath(box)):
                continue
            real, links = _resolve(p)
            if real == Path("/") or any(_inside(real, s) for s in special):
                continue  # (never the host's whole root; /proc, /dev and /sys are made below)
            self.links += links
            paths[real] = paths.get(real, False) or rw
        self.paths = paths
        if box is not None:
            self.box_real, box_links = _resolve(box)
            self.links += box_links
        self.hidden = [_resolve(h)[0] for h in hidden if os.path.isdir(h)]

    def _data(self, size: str, mode: str, owner: tuple[int, int] | None = None) -> str:
        data = f"mode={mode},size={size}"
        return data + (f",uid={owner[0]},gid={owner[1]},nr_inodes=65536" if owner else "")

    def _bind(self, fd: int, target: Path, *, writable: bool, file: bool) -> None:
        if file:
            target.parent.mkdir(parents=True, exist_ok=True)
            if not target.exists():
                target.touch()
        else:
            target.mkdir(parents=True, exist_ok=True)
        self.libc.mount(f"/proc/self/fd/{fd}", target, None, MS_BIND | MS_REC, None)
        if not writable:
            self._read_only(target, recursive=True)

    def _read_only(self, target: Path, *, recursive: bool = False) -> None:
        """Make the mount at ``target`` read-only; with ``recursive``, those beneath it too (a
        host's /sys/fs/cgroup under /sys), where the kernel has ``mount_setattr`` (5.12)."""
        if recursive:
            attr = (ctypes.c_uint64 * 4)(MOUNT_ATTR_RDONLY, 0, 0, 0)
            call = self.libc.lib.syscall
            args = (ctypes.c_long(AT_FDCWD), os.fsencode(str(target)), ctypes.c_long(AT_RECURSIVE))
            if call(ctypes.c_long(_SYS_MOUNT_SETATTR), *args, attr, ctypes.c_long(ctypes.sizeof(attr))) == 0:
                return
        vfs = os.statvfs(target).f_flag
        locked = sum(ms for st, ms in _LOCKED_FLAGS.items() if vfs & st)
        self.libc.mount(None, target, None, MS_REMOUNT | MS_BIND | MS_RDONLY | locked, None)

    def new_root(self, *, devices: list[str], fresh_proc: bool, missing: list[str]) -> None:
        """Build the root in a tmpfs over /tmp (this namespace's only: every path it needs is
        held open first), then make it ``/``; the host's root is detached for good."""
        libc = self.libc
        libc.mount(None, "/", None, MS_REC | MS_PRIVATE, None)
        # Outermost first; a path inside another comes with it, unless it must be writable
        # inside a read-only one, or lies in a hidden folder (covered, then bound again).
        order = sorted(self.paths, key=lambda p: len(p.parts))
        tops = [p for p in order if not any(o != p and _inside(p, o) for o in order)]
        covers = [h for h in self.hidden if any(h != t and _inside(h, t) for t in tops)]
        covers = [c for c in covers if not any(o != c and _inside(c, o) for o in covers)]
        again = [
            p
            for p in order
            if p not in tops
            and (
                any(_inside(p, c) for c in covers)
                or (self.paths[p] and not any(_inside(p, t) and self.paths[t] for t in tops))
            )
        ]
        fds: dict[Path, int] = {}
        stage = Path("/tmp") if os.path.isdir("/tmp") else Path("/mnt")
        staged = pivoted = False
        try:
            for p in [*tops, *again]:
                fds[p] = os.open(p, os.O_PATH | os.O_CLOEXEC)
            libc.mount("tmpfs", stage, "tmpfs", MS_NOSUID | MS_NODEV, self._data("1m", "0755"))
            staged = True
            self._populate(stage, fds, tops, covers, again, devices, fresh_proc, missing)
            os.chdir(stage)
            libc.call("syscall", _SYS_PIVOT_ROOT[platform.machine()], b".", b".")
            pivoted = True
            libc.call("umount2", b".", MNT_DETACH)
            os.chdir("/")
        except (OSError, KeyError) as e:
            if pivoted:
                # The host's root is stacked under ours and could not be let go: no cells here.
                raise RuntimeError(f"the host's root stayed reachable ({e})") from None
            if staged:
                try:
                    libc.call("umount2", os.fsencode(stage), MNT_DETACH)
                except OSError:
                    pass
            if isinstance(e, KeyError):
                raise OSError(0, f"pivot_root on {platform.machine()}") from None
            raise
        finally:
            for fd in fds.values():
                os.close(fd)

    def _populate(
        self,
        stage: Path,
        fds: dict[Path, int],
        tops: list[Path],
        covers: list[Path],
        again: list[Path],
        devices: list[str],
        fresh_proc: bool,
        missing: list[str],
    ) -> None:
        libc = self.libc

        def at(p: Path | str) -> Path:
            return stage / os.path.relpath(p, "/")

        for p in tops:
            self._bind(
                fds[p], at(p), writable=self.paths[p], file=not os.path.isdir(f"/proc/self/fd/{fds[p]}")
            )
        for c in covers:
            libc.mount("tmpfs", at(c), "tmpfs", MS_NOSUID | MS_NODEV, self._data("1m", "0755"))
        for p in again:
            self._bind(
                fds[p], at(p), writable=self.paths[p], file=not os.path.isdir(f"/proc/self/fd/{fds[p]}")
            )
        if self.box is not None:
            at(self.box_real).mkdir(parents=True, exist_ok=True)
            libc.mount(
                "tmpfs",
                at(self.box_real),
                "tmpfs",
                MS_NOSUID | MS_NODEV,
                self._data(f"{self.box_mb}m", "0700", self.box_owner),
            )
        for link, target in sorted(set(self.links), key=lambda lt: len(lt[0].parts)):
            if not os.path.lexists(at(link)):
                at(link).parent.mkdir(parents=True, exist_ok=True)
                os.symlink(target, at(link))
        # /dev: a few devices, bound from the host's (a tmpfs made here could hold none).
        dev = at("/dev")
        dev.mkdir(exist_ok=True)
        libc.mount("tmpfs", dev, "tmpfs", MS_NOSUID | MS_NOEXEC, self._data("64k", "0755"))
        for name in [*(f"/dev/{d}" for d in DEVICES), *devices]:
            if os.path.exists(name) and name.startswith("/dev/"):
                is_dir = os.path.isdir(name)
                fd = os.open(name, os.O_PATH | os.O_CLOEXEC)
                try:
                    self._bind(fd, at(name), writable=True, file=not is_dir)
                finally:
                    os.close(fd)
        for name, target in (
            ("fd", "/proc/self/fd"),
            ("stdin", "/proc/self/fd/0"),
            ("stdout", "/proc/self/fd/1"),
        ):
            os.symlink(target, dev / name)
        os.symlink("/proc/self/fd/2", dev / "stderr")
        (dev / "shm").mkdir()
        self._read_only(dev)
        # /proc: this PID namespace's own; /sys: the host's, read-only.
        proc = at("/proc")
        proc.mkdir(exist_ok=True)
        mounted = False
        if fresh_proc:
            try:
                libc.mount("proc", proc, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, None)
                mounted = True
            except OSError as e:
                missing.append(f"a /proc of its own ({e.strerror}); the host's processes are seen")
        if not mounted:
            libc.mount("/proc", proc, None, MS_BIND | MS_REC, None)
        if os.path.isdir("/sys"):
            at("/sys").mkdir(exist_ok=True)
            libc.mount("/sys", at("/sys"), None, MS_BIND | MS_REC, None)
            self._read_only(at("/sys"), recursive=True)
        # Empty, read-only places where programs look for sockets and scratch files.
        for name in ("/tmp", "/var/tmp", "/run"):
            at(name).mkdir(parents=True, exist_ok=True)
        for c in covers:
            self._read_only(at(c))
        self._read_only(stage)

    def quota_in_place(self) -> bool:
        """The fallback view's quota: a tmpfs over the scratch folder where it is."""
        if self.box is None:
            return False
        try:
            self.libc.mount(
                "tmpfs",
                self.box,
                "tmpfs",
                MS_NOSUID | MS_NODEV,
                self._data(f"{self.box_mb}m", "0700", self.box_owner),
            )
            return True
        except OSError:
            return False


def _others_can_enter(path: Path) -> bool:
    try:
        return bool(os.stat(path).st_mode & 0o001)
    except OSError:
        return True  # nothing there to cover


def _private_view(libc: _Libc, needed: list[Path], hidden: list[Path]) -> None:
    """The fallback view, where the host refuses a new root: cover each folder of ``hidden``,
    the host's shared folders (``/tmp``, ``/run``...) and each folder others cannot enter on
    the way to a ``needed`` path with an empty tmpfs; bind every ``needed`` path back at its
    own name."""
    libc.mount(None, "/", None, MS_REC | MS_PRIVATE, None)
    shared = [Path(p) for p in _SHARED_FOLDERS if os.path.isdir(p)]
    cover = {p.resolve() for p in [*hidden, *shared] if os.path.isdir(p)}
    # A needed path reached through a symlink inside a covered folder (a project's `.venv`
    # linked to a shared environment): the link is made again on the tmpfs, so that the names
    # on sys.path still lead to the folder that is bound back at its real name.
    links = {
        q: os.readlink(q)
        for p in needed
        if os.path.exists(p)
        for q in (Path(os.path.abspath(p)), *Path(os.path.abspath(p)).parents)
        if os.path.islink(q) and any(c == q.parent or c in q.parent.parents for c in cover)
    }
    needed = [p.resolve() for p in needed if os.path.exists(p)]
    for p in needed:
        for ancestor in reversed(p.parents):
            if ancestor != Path("/") and not _others_can_enter(ancestor):
                cover.add(ancestor)
                break
    # Only the outermost covers count: a bind back passes through the folders beneath one.
    cover = {c for c in cover if not any(o != c and o in c.parents for o in cover)}
    # A needed path inside another needed path comes back with it.
    needed = [p for p in needed if not any(o != p and o in p.parents for o in needed)]
    inside = [(p, os.open(p, os.O_PATH | os.O_CLOEXEC)) for p in needed if any(c in p.parents for c in cover)]
    try:
        for c in sorted(cover, key=lambda c: len(c.parts)):
            libc.mount("tmpfs", c, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=1m")
        for p, fd in inside:
            if os.path.isdir(f"/proc/self/fd/{fd}"):
                os.makedirs(p, mode=0o755, exist_ok=True)
            else:
                os.makedirs(p.parent, mode=0o755, exist_ok=True)
                p.touch()
            libc.mount(f"/proc/self/fd/{fd}", p, None, MS_BIND | MS_REC, None)
        for link, target in sorted(links.items(), key=lambda kv: len(kv[0].parts)):
            if not os.path.lexists(link):
                os.makedirs(link.parent, mode=0o755, exist_ok=True)
                os.symlink(target, link)
    finally:
        for _, fd in inside:
            os.close(fd)


# -- Privileges -------------------------------------------------------------------------------


def _drop_capabilities(libc: _Libc, result: Confinement) -> None:
    """Clear the permitted, effective and inheritable sets (a user namespace grants all of them
    inside it) and the ambient set."""
    number = _SYS_CAPSET.get(platform.machine())
    try:
        if number is None:
            raise OSError(0, "unknown architecture")
        header = (ctypes.c_uint32 * 2)(_LINUX_CAPABILITY_VERSION_3, 0)
        data = (ctypes.c_uint32 * 6)()
        if libc.lib.syscall(number, header, data) != 0:
            raise OSError(ctypes.get_errno(), "capset")
        libc.lib.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    except OSError:
        result.missing.append("capability drop")


def _no_new_privs(result: Confinement) -> None:
    try:
        _Libc().call("prctl", PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    except (OSError, AttributeError):
        result.missing.append("no_new_privs")


# seccomp: (audit arch, x32 bit or 0, syscall numbers) per machine.
_SECCOMP_ARCH: dict[str, tuple[int, int, dict[str, int]]] = {
    "x86_64": (
        0xC000003E,
        0x40000000,
        {"socket": 41, "socketpair": 53, "shmget": 29, "clone": 56, "unshare": 272, "clone3": 435},
    ),
    "aarch64": (
        0xC00000B7,
        0,
        {"socket": 198, "socketpair": 199, "shmget": 194, "clone": 220, "unshare": 97, "clone3": 435},
    ),
}
_IO_URING = (425, 426, 427)  # setup, enter, register: the same numbers everywhere
_RET_ALLOW = 0x7FFF0000
_RET_ERRNO = 0x00050000
_EPERM, _EACCES, _ENOSYS = 1, 13, 38


def seccomp_program(machine: str, *, unix_sockets: bool = False) -> bytes:
    """The sandbox's seccomp filter (classic BPF) for ``machine``. It refuses a Unix socket
    (``socket(AF_UNIX, ...)``, and a datagram socket pair: a pair of stream sockets reaches
    nothing but itself), a new user namespace (``clone``/``unshare`` with ``CLONE_NEWUSER``;
    ``clone3`` says ENOSYS, so libc falls back to ``clone``), io_uring (it opens sockets past
    this filter) and System V shared memory (held by no process, so outside the memory
    account), and every system call of another architecture (x32, i386).

    ``unix_sockets``: ``socket(AF_UNIX, ...)`` is allowed (CUDA's ``cuInit`` makes one, and
    fails with CUDA_ERROR_OPERATING_SYSTEM when refused). Only for a sandbox in a root of its
    own, whose view holds no socket file of the host, in a network namespace of its own (its
    abstract socket names are its own): such a socket reaches nothing outside."""
    arch, x32, nr = _SECCOMP_ARCH[machine]
    ld, alu_and, jeq, jge, jset, ret = 0x20, 0x54, 0x15, 0x35, 0x45, 0x06
    # (code, k, label if true, label if false); labels are resolved once all are placed.
    prog: list[tuple[int, int, str | None, str | None]] = []
    where: dict[str, int] = {}

    def label(name: str) -> None:
        where[name] = len(prog)

    prog += [(ld, 4, None, None), (jeq, arch, "native", "enosys")]
    label("native")
    prog.append((ld, 0, None, None))
    if x32:
        prog.append((jge, x32, "enosys", None))
    if not unix_sockets:
        prog.append((jeq, nr["socket"], "socket", None))
    prog.append((jeq, nr["socketpair"], "pair", None))
    prog.append((jeq, nr["shmget"], "eperm", None))
    prog += [(jeq, n, "enosys", None) for n in (*_IO_URING, nr["clone3"])]
    prog += [(jeq, nr["clone"], "newuser", None), (jeq, nr["unshare"], "newuser", None)]
    prog.append((ret, _RET_ALLOW, None, None))
    label("socket")
    prog += [(ld, 16, None, None), (jeq, 1, "eacces", None), (ret, _RET_ALLOW, None, None)]
    # A datagram socket of a pair can still send to (or connect to) any named datagram socket
    # (a host's /dev/log, journald's): stream and seqpacket pairs only.
    label("pair")
    prog += [(ld, 24, None, None), (alu_and, 0xF, None, None), (jeq, 2, "eacces", None)]
    prog.append((ret, _RET_ALLOW, None, None))
    label("newuser")
    prog += [(ld, 16, None, None), (jset, CLONE_NEWUSER, "eperm", None), (ret, _RET_ALLOW, None, None)]
    for name, errno in (("eperm", _EPERM), ("eacces", _EACCES), ("enosys", _ENOSYS)):
        label(name)
        prog.append((ret, _RET_ERRNO | errno, None, None))
    out = []
    for pc, (code, k, yes, no) in enumerate(prog):
        jt = where[yes] - pc - 1 if yes else 0
        jf = where[no] - pc - 1 if no else 0
        assert 0 <= jt < 256 and 0 <= jf < 256
        out.append(struct.pack("HBBI", code, jt, jf, k))
    return b"".join(out)


def _seccomp(libc: _Libc, result: Confinement, *, unix_sockets: bool = False) -> None:
    machine = platform.machine()
    try:
        if machine not in _SECCOMP_ARCH:
            raise OSError(0, f"no filter for {machine}")
        code = seccomp_program(machine, unix_sockets=unix_sockets)
        buf = ctypes.create_string_buffer(code, len(code))

        class _Prog(ctypes.Structure):
            _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

        prog = _Prog(len(code) // 8, ctypes.cast(buf, ctypes.c_void_p))
        libc.call("prctl", PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0)
    except OSError as e:
        result.missing.append(
            f"seccomp ({e.strerror or e}): Unix sockets by name, io_uring, new user namespaces"
        )
