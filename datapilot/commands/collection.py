"""Fewer garbage-collector passes while a command starts and answers.

A fresh `datapilot` process imports typer, pydantic, pandas, DuckDB and the brain's models:
millions of objects that live as long as the process. At Python's default first-generation
threshold (700 allocations) the cyclic collector walks them again and again (~290 passes,
0.12-0.18 s of a ~1 s `ask`); at 20,000 it runs ~30 times fewer. No memory is lost:
unreachable cycles are still collected, in fewer passes. The previous threshold comes back
afterwards, so a process that imports the command line (a test, a server) keeps its own.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

START_UP_THRESHOLD = 20_000
# A one-shot command (`ask`) that ends the process when done: a plain question allocates
# ~150,000 lasting objects and leaves ~2 MB of cyclic garbage, not worth ~0.05-0.15 s of passes;
# a heavy one still gets a pass every 500,000 allocations, so memory stays bounded.
ONE_SHOT_THRESHOLD = 500_000


_held = False  # a one-shot command is on its way (`hold_for_one_shot`)


@contextlib.contextmanager
def fewer_collections(threshold: int = START_UP_THRESHOLD) -> Iterator[None]:
    """The collector's first-generation threshold at `threshold` (or higher) for the duration.

    Not restored when the process is about to end (`quick_exit.exit_pending`), nor while a
    one-shot command is on its way (`hold_for_one_shot`): restoring would start a pass over
    everything allocated meanwhile (~2-7 ms each time, after pydantic's import), just before
    the threshold is raised again or the process exits."""
    from datapilot.commands.quick_exit import exit_pending

    before = gc.get_threshold()
    gc.set_threshold(max(threshold, before[0]), *before[1:])
    try:
        yield
    finally:
        if not exit_pending() and not _held:
            gc.set_threshold(*before)


def hold_for_one_shot() -> None:
    """The command line's entry point runs a one-shot command (`ask`): from its arguments'
    parsing on, the collector stays at `ONE_SHOT_THRESHOLD`. The entry point gives the process
    its own threshold back when it ends without a quick exit (`release_hold`); outside it (a
    caller running commands in its own process) nothing is held."""
    global _held
    from datapilot.commands.quick_exit import at_entry_point

    if at_entry_point():
        _held = True
        before = gc.get_threshold()
        gc.set_threshold(max(ONE_SHOT_THRESHOLD, before[0]), *before[1:])


def release_hold() -> None:
    global _held
    _held = False
