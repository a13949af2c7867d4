"""`datapilot kb add|list|show|search|remove`: knowledge libraries from the terminal, for one
user of the store (`--user`, default: the first user)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from datapilot.commands.assistants import UserOption, _fail, _open

kb_app = typer.Typer(help="Knowledge libraries: documents an assistant or `ask --library` cites.")


@kb_app.command("add")
def add(
    library: Annotated[str, typer.Argument(help="The library's name (created if needed) or id.")],
    files: Annotated[
        list[Path], typer.Argument(help="PDF, HTML, Markdown, text, CSV, XLSX, DOCX.")
    ],
    user: UserOption = None,
) -> None:
    """Add documents to a library; each is read, indexed and listed with its chunks (a bar
    counts the pages of a PDF on a terminal)."""
    from datapilot.commands.progress import progress_bar
    from datapilot.data.display import counted
    from datapilot.data.documents import reporting_pages
    from datapilot.knowledge import KnowledgeError, Libraries, read_upload
    from datapilot.settings import get_settings

    settings = get_settings()
    store, tenant = _open(user)
    owner = str(tenant.user_id)
    with store.session(write=True) as session:
        Libraries(session, owner, settings).ensure(library)
    failed = 0
    for path in files:
        try:
            with (
                progress_bar(f"Reading {path.name}", "pages") as advance,
                reporting_pages(advance),
            ):
                upload = read_upload(settings, path.name, path.read_bytes())
            with store.session(write=True) as session:
                info = Libraries(session, owner, settings).add(library, upload)
        except (OSError, KnowledgeError, RuntimeError) as error:
            failed += 1
            typer.echo(f"error: {path}: {error}", err=True)
            continue
        pages = f"{info.pages} pages, " if info.pages > 1 else ""
        typer.echo(f"{info.id}  {info.name}  ({pages}{counted(info.chunks, 'chunk')})")
    if failed:
        raise typer.Exit(code=1)


@kb_app.command("list")
def list_libraries(user: UserOption = None) -> None:
    """Your libraries and how many documents each holds."""
    from datapilot.data.display import counted
    from datapilot.knowledge import Libraries
    from datapilot.settings import get_settings

    store, tenant = _open(user)
    with store.session() as session:
        found = Libraries(session, str(tenant.user_id), get_settings()).all()
    for info in found:
        typer.echo(f"{info.id}  {info.name}  ({counted(info.documents, 'document')})")
    if not found:
        typer.echo("No libraries yet; add documents with `datapilot kb add LIBRARY FILE…`.")


@kb_app.command("show")
def show(
    library: Annotated[str, typer.Argument(help="Name or id.")], user: UserOption = None
) -> None:
    """A library's documents."""
    from datapilot.data.display import counted
    from datapilot.knowledge import KnowledgeError, Libraries
    from datapilot.settings import get_settings

    store, tenant = _open(user)
    try:
        with store.session() as session:
            libraries = Libraries(session, str(tenant.user_id), get_settings())
            info = libraries.get(library)
            documents = libraries.documents(library)
    except KnowledgeError as error:
        _fail(str(error))
    typer.echo(f"{info.id}  {info.name}  {info.description}".rstrip())
    for document in documents:
        typer.echo(
            f"  {document.id}  {document.name}  ({counted(document.pages, 'page')}, "
            f"{counted(document.chunks, 'chunk')}, {counted(document.size, 'byte')})"
        )


@kb_app.command("search")
def search(
    library: Annotated[str, typer.Argument(help="Name or id.")],
    query: Annotated[str, typer.Argument(help="What to look for.")],
    k: Annotated[int, typer.Option(help="How many passages.")] = 5,
    user: UserOption = None,
) -> None:
    """The passages that best match a query, with their citations (JSON)."""
    from datapilot.knowledge import KnowledgeError, Libraries
    from datapilot.settings import get_settings

    store, tenant = _open(user)
    try:
        with store.session() as session:
            result = Libraries(session, str(tenant.user_id), get_settings()).search(
                library, query, k
            )
    except (KnowledgeError, RuntimeError) as error:
        _fail(str(error))
    typer.echo(json.dumps(result.model_dump(mode="json"), ensure_ascii=False, indent=2))


@kb_app.command("remove")
def remove(
    library: Annotated[str, typer.Argument(help="Name or id.")],
    document: Annotated[
        str | None, typer.Argument(help="A document id; without it the whole library goes.")
    ] = None,
    user: UserOption = None,
) -> None:
    """Remove one document of a library, or the library with all its documents."""
    from datapilot.knowledge import KnowledgeError, Libraries
    from datapilot.settings import get_settings

    store, tenant = _open(user)
    try:
        with store.session(write=True) as session:
            libraries = Libraries(session, str(tenant.user_id), get_settings())
            if document is None:
                libraries.delete(library)
            else:
                libraries.remove(library, document)
    except KnowledgeError as error:
        _fail(str(error))
    typer.echo(f"removed {document or library}")
