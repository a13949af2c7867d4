"""One writer at a time for a warehouse file, across processes, while others keep reading.

DuckDB lets one process write a file, or any number read it, never both: a running server (its
workers read the file) used to lock out `datapilot data import`. Writers now take an exclusive
lock on a file beside the warehouse, so writes from every process follow one another; a writer
that can open the file in place does (nobody reads it), and one that cannot writes a copy and
puts it in place with an atomic rename. Readers notice the new file on their next read (they
compare the file's identity), so the next question on every worker sees the new data.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

_LOCK_SUFFIX = ".write-lock"
_COPY_MARK = ".writing-"


def lock_path(path: Path) -> Path:
    return path.with_name(f"{path.name}{_LOCK_SUFFIX}")


_held = threading.local()  # the warehouse paths whose lock this thread holds


@contextmanager
def write_lock(path: Path) -> Iterator[None]:
    """Hold the warehouse's write lock (waits for a writer in another process to finish).

    Taken before the warehouse's own lock (`_Database.lock`) by readers and writers alike, so
    the two are always acquired in one order; a thread that holds it already goes on."""
    held: set[Path] = getattr(_held, "paths", None) or set()
    _held.paths = held
    if path in held:
        yield
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    handle = os.open(lock_path(path), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX)
        held.add(path)
        yield
    finally:
        held.discard(path)
        os.close(handle)  # closing releases the lock


def copy_path(path: Path) -> Path:
    """Where this process writes its copy of `path` (removed again if the write fails)."""
    return path.with_name(f"{path.name}{_COPY_MARK}{os.getpid()}")


def copy_for_writing(path: Path) -> Path:
    """A copy of `path` to write, under the write lock: the readers hold the file open read-only,
    so its bytes do not change while they are copied."""
    target = copy_path(path)
    discard(target)
    shutil.copyfile(path, target)
    return target


def put_in_place(copy: Path, path: Path) -> None:
    """The written copy becomes the warehouse (readers switch on their next read)."""
    os.replace(copy, path)


def discard(copy: Path) -> None:
    for leftover in (copy, copy.with_name(copy.name + ".wal")):
        with contextlib.suppress(FileNotFoundError):
            leftover.unlink()
