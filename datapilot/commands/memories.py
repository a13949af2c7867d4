"""`datapilot memories list|forget ID|forget --all`: what the assistants remember about you,
from the terminal, scoped like `/api/v1/memories` (one user: `--user`, default the local one)."""

from __future__ import annotations

from typing import Annotated

import typer

from datapilot.commands.assistants import UserOption, _fail, _open

memories_app = typer.Typer(help="What the assistants remember about you: list, forget.")


@memories_app.command("list")
def list_memories(user: UserOption = None) -> None:
    """Your memories, oldest first: id, when, text."""
    from datapilot.assistants.memory import Memories

    store, tenant = _open(user)
    with store.session() as session:
        found = Memories(session, tenant).all()
    if not found:
        typer.echo("No memories yet; assistants with memory on add them as you chat.")
    for memory in found:
        typer.echo(f"{memory.id}  {memory.updated_at:%Y-%m-%d %H:%M}  {memory.text}")


@memories_app.command("forget")
def forget(
    memory_id: Annotated[
        str | None, typer.Argument(help="The memory's id (see `datapilot memories list`).")
    ] = None,
    everything: Annotated[bool, typer.Option("--all", help="Forget every memory.")] = False,
    user: UserOption = None,
) -> None:
    """Forget one memory by id, or all of them with --all."""
    from datapilot.assistants.memory import Memories
    from datapilot.assistants.repo import NotFound

    if (memory_id is None) == (not everything):
        _fail("name one memory by its id, or forget them all with --all")
    store, tenant = _open(user)
    try:
        with store.session(write=True) as session:
            memories = Memories(session, tenant)
            count = len(memories.delete_all()) if everything else 1
            if not everything:
                memories.delete(str(memory_id))
    except NotFound:
        _fail(f"no memory {memory_id!r}; list yours with `datapilot memories list`")
    typer.echo(f"Forgot {count} memor{'y' if count == 1 else 'ies'}.")
