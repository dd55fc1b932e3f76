"""Linux Landlock through ``ctypes``: confine a process to the paths it needs.

Landlock (Linux >= 5.13) lets an unprivileged process drop its own rights for good: here, read
access outside the Python installation and a scratch folder, all writes outside that folder,
TCP, signals to processes outside the sandbox (ABI >= 6) and abstract Unix sockets (ABI >= 6).
Where the kernel lacks it, :func:`restrict` returns ``False`` and the caller says so.
"""

from __future__ import annotations

import ctypes
import os
import platform
from collections.abc import Iterable

_SYS_CREATE_RULESET = 444
_SYS_ADD_RULE = 445
_SYS_RESTRICT_SELF = 446
_PR_SET_NO_NEW_PRIVS = 38
_RULE_PATH_BENEATH = 1
_CREATE_RULESET_VERSION = 1

# Filesystem access rights (ABI 1), then the ones later ABIs added.
_FS_EXECUTE = 1 << 0
_FS_WRITE_FILE = 1 << 1
_FS_READ_FILE = 1 << 2
_FS_READ_DIR = 1 << 3
_FS_WRITE_ANY = sum(1 << i for i in range(4, 13))  # remove/make dirs, files, links, devices
_FS_REFER = 1 << 13  # ABI 2
_FS_TRUNCATE = 1 << 14  # ABI 3
_FS_IOCTL_DEV = 1 << 15  # ABI 5
_NET_BIND_TCP = 1 << 0  # ABI 4
_NET_CONNECT_TCP = 1 << 1
_SCOPE_ABSTRACT_UNIX_SOCKET = 1 << 0  # ABI 6
_SCOPE_SIGNAL = 1 << 1

_READ = _FS_EXECUTE | _FS_READ_FILE | _FS_READ_DIR


class _RulesetAttr(ctypes.Structure):
    _fields_ = [
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    ]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def _libc() -> ctypes.CDLL:
    # The interpreter's own symbols, libc's among them. ctypes.util.find_library("c") ran
    # `ldconfig -p` in a subprocess on every call: five per sandbox, before its first cell.
    return ctypes.CDLL(None, use_errno=True)


def abi_version() -> int:
    """The kernel's Landlock ABI version, 0 where there is none."""
    if platform.system() != "Linux" or platform.machine() not in ("x86_64", "aarch64"):
        return 0
    try:
        v = _libc().syscall(_SYS_CREATE_RULESET, None, 0, _CREATE_RULESET_VERSION)
    except OSError:
        return 0
    return max(int(v), 0)


def restrict(read_only: Iterable[str], read_write: Iterable[str]) -> int:
    """Confine this process (and its future children) for good: read (and execute) only under
    ``read_only`` and ``read_write``, write only under ``read_write``, no TCP, no signals or
    abstract-socket connections out of the sandbox. Returns the ABI used, 0 if unavailable."""
    abi = abi_version()
    if abi == 0:
        return 0
    libc = _libc()
    fs_all = _READ | _FS_WRITE_FILE | _FS_WRITE_ANY
    if abi >= 2:
        fs_all |= _FS_REFER
    if abi >= 3:
        fs_all |= _FS_TRUNCATE
    if abi >= 5:
        fs_all |= _FS_IOCTL_DEV
    net = (_NET_BIND_TCP | _NET_CONNECT_TCP) if abi >= 4 else 0
    scoped = (_SCOPE_ABSTRACT_UNIX_SOCKET | _SCOPE_SIGNAL) if abi >= 6 else 0
    attr = _RulesetAttr(fs_all, net, scoped)
    size = ctypes.sizeof(_RulesetAttr) if abi >= 6 else (16 if abi >= 4 else 8)
    fd = libc.syscall(_SYS_CREATE_RULESET, ctypes.byref(attr), size, 0)
    if fd < 0:
        raise OSError(ctypes.get_errno(), "landlock_create_ruleset failed")
    try:
        for paths, access in ((read_only, _READ), (read_write, fs_all)):
            for path in paths:
                _allow(libc, fd, path, access)
        if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(NO_NEW_PRIVS) failed")
        if libc.syscall(_SYS_RESTRICT_SELF, fd, 0) != 0:
            raise OSError(ctypes.get_errno(), "landlock_restrict_self failed")
    finally:
        os.close(fd)
    return abi


def _allow(libc: ctypes.CDLL, ruleset_fd: int, path: str, access: int) -> None:
    try:
        pfd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return  # a path this machine lacks needs no rule
    try:
        if not os.path.isdir(path):
            # Directory-only rights on a file are rejected by the kernel.
            access &= _FS_EXECUTE | _FS_WRITE_FILE | _FS_READ_FILE | _FS_TRUNCATE | _FS_IOCTL_DEV
        rule = _PathBeneathAttr(access, pfd)
        if libc.syscall(_SYS_ADD_RULE, ruleset_fd, _RULE_PATH_BENEATH, ctypes.byref(rule), 0):
            raise OSError(ctypes.get_errno(), f"landlock_add_rule failed for {path}")
    finally:
        os.close(pfd)
