"""Progress bars for commands that can run for more than a couple of seconds: a rich bar on
standard error when it is a terminal, nothing at all when it is piped or redirected (a script
reading the output sees only the results)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

Advance = Callable[[int, int], None]  # (done, total)


@contextmanager
def progress_bar(description: str, unit: str) -> Iterator[Advance]:
    """A bar counting `unit` (pages, requests …) while the block runs; yields `advance(done,
    total)`. On a terminal only (standard error); elsewhere `advance` does nothing."""
    import sys

    if not sys.stderr.isatty():
        yield lambda done, total: None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    console = Console(stderr=True)
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn(unit),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=console, transient=True) as bar:
        task = bar.add_task(description, total=None)

        def advance(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield advance
