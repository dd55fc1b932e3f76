"""Who a sandbox is: its user id, namespaces, capabilities, environment and view of the files.

Applied by the sandboxed process to itself, after the fork and before any student code:

- **Namespaces.** A private mount, network and IPC namespace: the network holds only a loopback
  that is down (no TCP, no UDP, no raw sockets, nothing beyond the grader's socket pair, which
  was inherited); ``/dev/shm`` is an empty folder nobody may write. As root these come from
  ``unshare``; as another user from a user namespace, where the kernel allows one.
- **A view of the files.** Folders other users cannot enter (``/root`` of a pyenv install, a
  0700 temporary folder) and the project itself are covered by an empty ``tmpfs``, and only what
  the sandbox needs (the Python installation, its scratch folder, the public compilation cache)
  is bound back at its own path. So a sandbox can run as a user id of its own even where Python
  lives under a root-only folder, and sees no solution even where Landlock is missing.
- **No privilege.** Never uid 0: as root, a user id per parallel job; capabilities cleared
  (also inside a user namespace) and ``no_new_privs`` set, so nothing it runs gains any.
- **An environment reduced to an allowlist**: no grader secret is inherited.

Each step that the platform cannot do is reported, so that the row says which protection was
missing (macOS and kernels without user namespaces lack some).
"""

from __future__ import annotations

import ctypes
import os
import platform
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

CLONE_NEWNS = 0x00020000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWNET = 0x40000000
MS_RDONLY = 1
MS_NOSUID = 2
MS_NODEV = 4
MS_REMOUNT = 32
MS_BIND = 4096
MS_REC = 16384
MS_PRIVATE = 1 << 18
PR_SET_NO_NEW_PRIVS = 38
PR_CAP_AMBIENT = 47
PR_CAP_AMBIENT_CLEAR_ALL = 4
PR_SET_CHILD_SUBREAPER = 36
_SYS_CAPSET = {"x86_64": 126, "aarch64": 91}
_LINUX_CAPABILITY_VERSION_3 = 0x20080522

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
    missing: list[str] = field(default_factory=list)


class _Libc:
    def __init__(self) -> None:
        self.lib = ctypes.CDLL(None, use_errno=True)  # libc's symbols, no `ldconfig -p` (landlock._libc)

    def call(self, name: str, *args: object) -> None:
        if getattr(self.lib, name)(*args) != 0:
            err = ctypes.get_errno()
            raise OSError(err, f"{name}: {os.strerror(err)}")


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


def confine(*, uid: int | None, needed: Iterable[Path], hidden: Iterable[Path]) -> Confinement:
    """Confine the calling (single-threaded, freshly forked) process; see the module docstring.

    ``uid``: the user id to become when running as root. ``needed``: paths the sandbox must
    still reach at their own names. ``hidden``: folders to cover (the project, the grader's output
    folder) beyond those other users cannot enter anyway."""
    result = Confinement()
    if not _linux():
        result.missing += ["namespaces (no network isolation)", "private file view", "capability drop"]
        _no_new_privs(result)
        result.uid = os.getuid()
        return result
    libc = _Libc()
    root = os.geteuid() == 0
    outer_uid, outer_gid = os.getuid(), os.getgid()
    try:
        flags = CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC
        libc.call("unshare", flags if root else flags | CLONE_NEWUSER)
        if not root:
            # Map our own ids to themselves: files keep their owners, and we stay no one special.
            Path("/proc/self/setgroups").write_text("deny")
            Path("/proc/self/uid_map").write_text(f"{outer_uid} {outer_uid} 1")
            Path("/proc/self/gid_map").write_text(f"{outer_gid} {outer_gid} 1")
        result.namespaces = True
    except OSError:
        result.missing.append("network and mount namespaces (network not isolated, /dev/shm shared)")
    if result.namespaces:
        try:
            _private_view(libc, [Path(p) for p in needed], [Path(p) for p in hidden])
            result.private_files = True
        except OSError as e:
            result.missing.append(f"private file view ({e.strerror or e})")
    if root:
        if uid is None or uid == 0:
            raise RuntimeError("a sandbox of a root grader needs a user id of its own")
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)  # from 0 to nonzero: the kernel clears every capability
    _drop_capabilities(libc, result)
    _no_new_privs(result)
    result.uid = os.getuid()
    return result


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


def _others_can_enter(path: Path) -> bool:
    try:
        return bool(os.stat(path).st_mode & 0o001)
    except OSError:
        return True  # nothing there to cover


def _private_view(libc: _Libc, needed: list[Path], hidden: list[Path]) -> None:
    """Cover each folder of ``hidden``, and each folder others cannot enter on the way to a
    ``needed`` path, with an empty tmpfs; bind every ``needed`` path back at its own name."""
    libc.call("mount", None, b"/", None, MS_REC | MS_PRIVATE, None)
    cover = {p.resolve() for p in hidden if os.path.isdir(p)}
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
            libc.call(
                "mount", b"tmpfs", str(c).encode(), b"tmpfs", MS_NOSUID | MS_NODEV, b"mode=0755,size=1m"
            )
        for p, fd in inside:
            if os.path.isdir(f"/proc/self/fd/{fd}"):
                os.makedirs(p, mode=0o755, exist_ok=True)
            else:
                os.makedirs(p.parent, mode=0o755, exist_ok=True)
                p.touch()
            libc.call("mount", f"/proc/self/fd/{fd}".encode(), str(p).encode(), None, MS_BIND | MS_REC, None)
        for link, target in sorted(links.items(), key=lambda kv: len(kv[0].parts)):
            if not os.path.lexists(link):
                os.makedirs(link.parent, mode=0o755, exist_ok=True)
                os.symlink(target, link)
    finally:
        for _, fd in inside:
            os.close(fd)
    # Shared memory nobody in here may write (it would escape the memory limit and outlive us).
    if os.path.isdir("/dev/shm"):
        libc.call("mount", b"tmpfs", b"/dev/shm", b"tmpfs", MS_NOSUID | MS_NODEV, b"mode=0755,size=4k")
