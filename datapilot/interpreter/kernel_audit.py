"""Runs INSIDE the kernel at the `audit` level (its source is sent at start; the server never
imports it): the Python audit hook that refuses sockets, processes, native calls and files
outside the kernel's directory, and closes the ways to the process-starting function that raise
no audit event. Native code can get around an audit hook; the `namespace` level is the sandbox.
"""

from __future__ import annotations

import sys
from typing import Any

_LISTING = ("os.listdir", "os.scandir", "glob.glob")
_CHANGING = ("os.remove", "os.rename", "os.rmdir", "os.mkdir", "os.truncate", "os.utime")


# Modules that are never imported again: the first one's function starts processes without any
# audit event; the second one makes modules, and a fresh copy would make the first one again.
_UNCOPYABLE = ("_posixsubprocess", "_imp")


def _no_fork_exec() -> None:
    """`_posixsubprocess.fork_exec` starts a process without any audit event (the hook never
    sees it): replaced wherever the kernel's modules hold it."""
    import _posixsubprocess
    import subprocess

    def refused(*args: Any, **kwargs: Any) -> Any:
        raise PermissionError("sandbox: starting processes is not allowed here")

    _posixsubprocess.fork_exec = refused
    if hasattr(subprocess, "_fork_exec"):  # where the standard library imported it by name
        subprocess._fork_exec = refused


def _freeze_builtins() -> None:
    """Where `_posixsubprocess` is built into the interpreter (Debian's and most distributions'
    Pythons), `importlib.util.module_from_spec` made a fresh copy of it, with the original
    `fork_exec`, and no audit event at all (only loading a module from a file raises `import`).
    Every built-in module is loaded now (a few dozen, in milliseconds), and no other can be made
    afterwards: `_imp.create_builtin` refuses, and the original is kept nowhere, so no code in
    the kernel can find it."""
    import _imp
    import importlib
    import warnings

    with warnings.catch_warnings():  # a deprecated module or two
        warnings.simplefilter("ignore")
        for name in sys.builtin_module_names:
            try:
                importlib.import_module(name)
            except ImportError:
                continue

    def create_builtin(spec: Any) -> Any:
        raise PermissionError("sandbox: no built-in module is made after the kernel started")

    _imp.create_builtin = create_builtin


def _text(value: Any) -> str | None:
    """A path or name as a plain string, or None: a subclass is copied by C code, never asked
    (its own methods could say anything)."""
    if issubclass(type(value), str):
        return str.__str__(value)
    if issubclass(type(value), bytes):
        plain = bytes.__getitem__(value, slice(None))
        return plain.decode(sys.getfilesystemencoding(), "surrogateescape")
    return None


def install(home: str, denied: list[str], readable: list[str]) -> None:
    """The `audit` level: no sockets, processes, native calls, or files outside the scratch
    directory (reads also from the Python installation). Native code can get around this.

    The hook compares plain strings only (`_text`): a string subclass cannot answer for them."""
    import os

    refused = (
        "socket.",
        "subprocess.",
        "os.system",
        "os.exec",
        "os.posix_spawn",
        "os.spawn",
        "os.fork",
        "os.forkpty",
        "os.kill",
        "os.killpg",
        "ctypes.",
        "pty.",
        "shutil.rmtree",
        "os.chdir",
        "os.chmod",
        "os.chown",
        "os.symlink",
        "os.link",
        "sys.addaudithook",
        # The objects behind a module's back (the process-starting function kept below).
        "gc.get_objects",
        "gc.get_referrers",
        "gc.get_referents",
        # Another interpreter in the process has no audit hook at all.
        "cpython.PyInterpreterState_New",
    )
    _freeze_builtins()
    _no_fork_exec()
    # The hook's own references: what the kernel's code can reach (this module's globals, through
    # `_imp.create_builtin`; `os.path`) may be changed, these cannot.
    text, realpath, uncopyable = _text, os.path.realpath, _UNCOPYABLE
    listing, changing = _LISTING, _CHANGING

    def imported(args: tuple[Any, ...]) -> None:
        # (name, None, ...) for an import; (name, file, None, None, None) for a native module
        # loaded from a file.
        name = args[0] if args else None
        if type(name) is not str or name in uncopyable:
            raise PermissionError(f"sandbox: importing {text(name)} is not allowed here")
        where = text(args[1]) if len(args) > 1 else None
        if where is not None and realpath(where).startswith(home):
            raise PermissionError("sandbox: native code written here cannot be loaded")

    def hook(event: str, args: tuple[Any, ...]) -> None:
        if event.startswith(refused):
            raise PermissionError(f"sandbox: {event} is not allowed here")
        if event == "import":
            imported(args)
        elif event in listing and args and (path := text(args[0])) is not None:
            path = realpath(path)
            if any(path.startswith(d) for d in denied) or not path.startswith((home, *readable)):
                raise PermissionError(f"sandbox: {path} is not readable here")
        elif event in changing and args and (path := text(args[0])) is not None:
            path = realpath(path)
            if not path.startswith(home):
                raise PermissionError(f"sandbox: only {home} is writable")
        elif event == "open" and args and (path := text(args[0])) is not None:
            mode, flags = (*args[1:3], None, None)[:2]
            opened(realpath(path), mode, flags)

    def opened(path: str, mode: Any, flags: Any) -> None:
        if type(mode) is not str:
            mode = "r"
        writing = any(c in mode for c in "wax+") or (
            type(flags) is int and flags & (os.O_WRONLY | os.O_RDWR)
        )
        if any(path.startswith(d) for d in denied):
            raise PermissionError(f"sandbox: {path} is not readable here")
        if writing and not path.startswith((home, "/dev/null")):
            raise PermissionError(f"sandbox: only {home} is writable")
        if not writing and not path.startswith((home, *readable)):
            raise PermissionError(f"sandbox: {path} is not readable here")

    sys.addaudithook(hook)
