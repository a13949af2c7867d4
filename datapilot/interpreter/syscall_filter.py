"""The seccomp filter bubblewrap loads into the sandbox (`--seccomp FD`): no new user namespace.

A user namespace of its own gives sandboxed code every capability inside it (mounts, network
devices): the usual way into the host kernel's less trodden paths. `--disable-userns` stops that
only where bubblewrap made a user namespace (a server run by an ordinary user); a server run by
root has none, so this filter refuses `unshare` and `clone` asking for `CLONE_NEWUSER` at every
level of namespaces. `clone3` passes its flags in memory a filter cannot read: it answers
`ENOSYS`, and the C library falls back to `clone` (as under Docker's default profile).
Another architecture's system calls (32-bit ones on a 64-bit host) are refused.

The program is a few classic BPF instructions written out here: no maintained Python package
builds seccomp filters (libseccomp's bindings come only with the system's Python).
"""

from __future__ import annotations

import os
import platform
import struct
from collections.abc import Iterator
from contextlib import contextmanager

_CLONE_NEWUSER = 0x10000000
_EPERM, _ENOSYS = 1, 38
_ALLOW = 0x7FFF0000
_ERRNO = 0x00050000
_X32_BIT = 0x40000000
# seccomp_data: nr at 0, arch at 4, the arguments from 16 (the low half first: little-endian).
_NR, _ARCH, _ARG0 = 0, 4, 16
# machine: (AUDIT_ARCH_*, clone, unshare, clone3)
_ARCHES = {
    "x86_64": (0xC000003E, 56, 272, 435),
    "aarch64": (0xC00000B7, 220, 97, 435),
}


def _op(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)


def _load(offset: int) -> bytes:
    return _op(0x20, offset)  # BPF_LD | BPF_W | BPF_ABS


def _jeq(k: int, jt: int, jf: int) -> bytes:
    return _op(0x15, k, jt, jf)  # BPF_JMP | BPF_JEQ | BPF_K


def _ret(k: int) -> bytes:
    return _op(0x06, k)  # BPF_RET | BPF_K


def program(machine: str | None = None) -> bytes | None:
    """The filter for this host's architecture, or None where it has none here."""
    found = _ARCHES.get(machine or platform.machine())
    if found is None:
        return None
    arch, clone, unshare, clone3 = found
    code = [_load(_ARCH), _jeq(arch, 1, 0), _ret(_ERRNO | _EPERM), _load(_NR)]
    if arch == _ARCHES["x86_64"][0]:  # the x32 ABI's numbers, same arch: refused
        code += [_op(0x35, _X32_BIT, 0, 1), _ret(_ERRNO | _EPERM)]  # BPF_JGE
    code += [
        _jeq(clone3, 0, 1),
        _ret(_ERRNO | _ENOSYS),
        _jeq(clone, 2, 0),
        _jeq(unshare, 1, 0),
        _ret(_ALLOW),
        _load(_ARG0),  # the flags of clone and unshare
        _op(0x45, _CLONE_NEWUSER, 0, 1),  # BPF_JSET
        _ret(_ERRNO | _EPERM),
        _ret(_ALLOW),
    ]
    return b"".join(code)


@contextmanager
def filter_fd(wanted: bool = True) -> Iterator[int | None]:
    """A descriptor to read the filter from (bubblewrap's `--seccomp FD`), closed afterwards;
    None where this architecture has no filter here (or it is not `wanted`)."""
    code = program() if wanted else None
    if code is None:
        yield None
        return
    read, write = os.pipe()
    try:
        os.write(write, code)  # a few hundred bytes: well within a pipe's buffer
        os.close(write)
        write = -1
        yield read
    finally:
        os.close(read)
        if write != -1:
            os.close(write)
