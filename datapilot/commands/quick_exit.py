"""Ending a one-shot command without the interpreter's teardown.

A `datapilot ask` process holds pandas, numpy, pyarrow, DuckDB, pydantic and the brain's models:
when Python exits it runs a final collection and frees every module's objects one by one,
0.15-0.2 s of CPU that nobody waits for usefully. A command that has written its whole answer
calls `allow_quick_exit()`; the command line's entry point (`cli.App`) then ends the process
with `quick_exit(code)` — after waiting for other threads and for any warehouse write under way
(the read-only DuckDB connections are left open: nothing in them is unwritten), running the
`atexit` handlers (logging's among them) and flushing stdout and stderr, so
everything a normal exit would write is written. Whenever that cannot be guaranteed (called
off the main thread, a database server's store opened, stdout that cannot be flushed) it
declines and Python exits as usual.
"""

from __future__ import annotations

import atexit
import contextlib
import gc
import os
import sys
import threading
from collections.abc import Iterator

_entry = False  # the command runs from the entry point (`cli.App`), not in a test's runner
_allowed = False


@contextlib.contextmanager
def entry_point() -> Iterator[None]:
    """The command line's entry point: a quick exit may be allowed inside (not in a caller
    that runs commands in its own process and carries on, such as a test runner)."""
    from datapilot.commands.collection import release_hold

    global _entry, _allowed
    _entry = True
    collector = gc.get_threshold()
    try:
        yield
    finally:
        _entry = _allowed = False
        # No quick exit after all: the collector as before (a command expecting one left its
        # raised threshold in place, `collection.fewer_collections` and `hold_for_one_shot`).
        release_hold()
        gc.set_threshold(*collector)


def at_entry_point() -> bool:
    """Whether the command runs from the command line's entry point (`entry_point`)."""
    return _entry


def allow_quick_exit() -> None:
    """Mark this process's command as done: its output is complete and nothing else runs.
    Has no effect outside `entry_point()`."""
    global _allowed
    _allowed = _entry


def exit_pending() -> bool:
    """Whether the process is about to end with a quick exit (state it need not restore)."""
    return _allowed


def _flushed() -> bool:
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):  # a closed pipe: let Python report it as it always does
            return False
    return True


def _safe() -> bool:
    if not _allowed or threading.current_thread() is not threading.main_thread():
        return False
    # A database server's connections (PostgreSQL) deserve a proper goodbye: exit normally. An
    # SQLite store (read by `ask` for the user's tools) survives any exit, as SQLite files do.
    database = sys.modules.get("datapilot.store.database")
    if database is not None and database.server_engines():
        return False
    return all(
        hasattr(module, name)
        for module, name in ((threading, "_shutdown"), (atexit, "_run_exitfuncs"))
    )


def quick_exit(code: object) -> None:
    """End the process now with `code` (a `SystemExit` code) if the command allowed it and it is
    safe; otherwise return, and the caller lets Python exit as usual.

    The steps are those of Python's own exit, in its order, minus the teardown: wait for every
    non-daemon thread (worker pools included: their threads finish their work and end), wait
    for a warehouse write under way, run the `atexit` handlers, flush."""
    global _allowed
    if code is None:
        code = 0
    if not isinstance(code, int) or not _safe() or not _flushed():
        _allowed = False  # declined: callers restore what they changed, as usual
        return
    threading._shutdown()  # type: ignore[attr-defined]
    if "datapilot.data.warehouse_file" in sys.modules:  # no write cut short
        from datapilot.data.warehouse_file import finish_writes

        finish_writes()
    atexit._run_exitfuncs()
    # A handler that broke stdout gets the code Python itself exits with then (120).
    os._exit(code if _flushed() else 120)
