"""`datapilot assistants create|list|show|delete` and `datapilot chat`: the platform from the
terminal, acting for one user of the store (`--user`, default: the first user)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, NoReturn

import typer
from rich.markup import escape

if TYPE_CHECKING:
    from rich.console import Console

    from datapilot.assistants.messages_in import MessageIn
    from datapilot.assistants.models import AssistantInfo, ChatInfo, Tenant, ToolCallRecord
    from datapilot.core.answer import Answer
    from datapilot.store import Store

assistants_app = typer.Typer(help="Assistants: a prompt, a model and tools, to chat with.")
UserOption = Annotated[
    str | None, typer.Option(help="Act for this user (default: the first user of the store).")
]


def _fail(message: str) -> NoReturn:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code=1)


def _open(user: str | None) -> tuple[Store, Tenant]:
    from datapilot.assistants.models import Tenant
    from datapilot.assistants.repo import local_user
    from datapilot.settings import get_settings
    from datapilot.store import MigrationError, StoreConfigError, Users, open_store

    try:
        store = open_store(get_settings())
    except (StoreConfigError, MigrationError) as error:
        _fail(str(error))
    with store.session() as session:
        if user is None:
            return store, Tenant(user_id=local_user(session))
        found = Users(session).by_name(user)
        if found is None:
            _fail(f"no user named {user!r}; create one with `datapilot users create {user}`")
        return store, Tenant(user_id=found.id)


def _line(info: AssistantInfo) -> str:
    model = info.model or "server default"
    return f"{info.id}  {info.name}  (model: {model}; tools: {', '.join(info.tools) or 'none'})"


@assistants_app.command("create")
def create(
    name: Annotated[str, typer.Argument(help="A name, unique among yours; `@name` addresses it.")],
    prompt: Annotated[str, typer.Option(help="Its system prompt.")] = "",
    description: Annotated[str, typer.Option(help="What it is for.")] = "",
    model: Annotated[str | None, typer.Option(help="Its model (default: the server's).")] = None,
    tools: Annotated[
        str,
        typer.Option(help="Comma-separated tool names: built-in or imported (`tools list`)."),
    ] = "ask_data",
    user: UserOption = None,
) -> None:
    """Create an assistant; prints its id on the last line."""
    from datapilot.assistants.models import AssistantIn
    from datapilot.assistants.repo import Assistants, PlatformError
    from datapilot.assistants.service import tool_ids
    from datapilot.settings import get_settings

    store, tenant = _open(user)
    body = AssistantIn(
        name=name,
        prompt=prompt,
        description=description,
        model=model,
        tools=[t.strip() for t in tools.split(",") if t.strip()],
    )
    try:
        with store.session() as session:
            ids = tool_ids(session, get_settings(), tenant)
            info = Assistants(session, tenant).create(body, ids)
    except PlatformError as error:
        _fail(str(error))
    typer.echo(f"Created {_line(info)}")
    typer.echo(info.id)


@assistants_app.command("list")
def list_assistants(user: UserOption = None) -> None:
    """Your assistants."""
    from datapilot.assistants.repo import Assistants

    store, tenant = _open(user)
    with store.session() as session:
        found = Assistants(session, tenant).list()
    if not found:
        typer.echo("No assistants yet; create one with `datapilot assistants create NAME`.")
    for info in found:
        typer.echo(_line(info))


@assistants_app.command("show")
def show(
    ref: Annotated[str, typer.Argument(help="Its id or name.")], user: UserOption = None
) -> None:
    """One assistant as JSON."""
    from datapilot.assistants.repo import Assistants, NotFound

    store, tenant = _open(user)
    try:
        with store.session() as session:
            info = Assistants(session, tenant).get(ref)
    except NotFound as error:
        _fail(str(error))
    typer.echo(info.model_dump_json(indent=2))


@assistants_app.command("delete")
def delete(
    ref: Annotated[str, typer.Argument(help="Its id or name.")], user: UserOption = None
) -> None:
    """Delete an assistant (its chats stay, answered by the server default from then on)."""
    from datapilot.assistants.repo import Assistants, NotFound

    store, tenant = _open(user)
    try:
        with store.session() as session:
            Assistants(session, tenant).delete(ref)
    except NotFound as error:
        _fail(str(error))
    typer.echo(f"Deleted {ref}.")


def chat(
    assistant: Annotated[
        str | None, typer.Argument(help="Who answers, by id or name (default: the data workflow).")
    ] = None,
    chat_id: Annotated[str | None, typer.Option("--chat", help="Continue this chat.")] = None,
    user: UserOption = None,
) -> None:
    """Chat in the terminal with an assistant; the chat is kept (continue it with --chat).
    An empty line or Ctrl-D ends it."""
    import asyncio

    from rich.console import Console

    from datapilot.assistants.conversations import Chats
    from datapilot.assistants.models import ChatIn
    from datapilot.assistants.normalise import NormalisationError
    from datapilot.assistants.repo import Assistants, NotFound, PlatformError
    from datapilot.assistants.service import Conversation, MessageIn
    from datapilot.render.terminal import render
    from datapilot.settings import get_settings

    store, tenant = _open(user)
    console = Console()
    try:
        with store.session() as session:
            if chat_id is None:
                chosen = Assistants(session, tenant).get(assistant) if assistant else None
                # Named after its first question once answered, as the page names its chats.
                chat_info = Chats(session, tenant).create(
                    ChatIn(assistant_id=chosen.id if chosen else None)
                )
            else:
                chat_info = Chats(session, tenant).get(chat_id)
    except NotFound as error:
        _fail(str(error))
    console.print(f"[dim]chat {chat_info.id} — an empty line ends it[/]")
    conversation = Conversation(store, tenant, get_settings())
    while True:
        try:
            text = console.input("[bold cyan]you>[/] ").strip()
        except EOFError:
            break
        if not text:
            break
        body: MessageIn | None = MessageIn(content=text)
        try:
            while body is not None:
                prepared = conversation.prepare(chat_info.id, body)
                if prepared.turn is None:
                    break
                answer = asyncio.run(render(prepared.turn.events(), console))
                conversation.finish(prepared)
                if not chat_info.name:
                    chat_info = _name_chat(store, tenant, chat_info.id, text, answer)
                # A call waiting for the user's go-ahead: ask, and answer as the REST route does.
                pending = prepared.turn.result.pending
                body = _confirm(console, pending[0]) if pending else None
        except (NotFound, PlatformError, NormalisationError) as error:
            console.print(f"[red]{escape(str(error))}[/]")
    console.print(f"[dim]continue with: datapilot chat --chat {chat_info.id}[/]")


def _name_chat(
    store: Store, tenant: Tenant, chat_id: str, question: str, answer: Answer
) -> ChatInfo:
    """Name a new chat after its first answer (entities · measure · window), else its question."""
    from datapilot.assistants.conversations import Chats
    from datapilot.assistants.models import ChatPatch
    from datapilot.server.chat_titles import chat_title
    from datapilot.settings import get_settings

    name = chat_title(answer, get_settings()) or question[:200]
    with store.session(write=True) as session:
        return Chats(session, tenant).update(chat_id, ChatPatch(name=name))


def _confirm(console: Console, call: ToolCallRecord) -> MessageIn | None:
    """Show a call waiting for confirmation and ask: y runs it, e edits its arguments (JSON)
    first, n cancels it. None (end of input) leaves it waiting: the next message declines it."""
    import json

    from rich.markup import escape

    from datapilot.assistants.messages_in import MessageIn

    # The message and arguments come from the model and the tool: shown as text, never markup.
    asked = escape(call.confirmation or "")
    console.print(f"[bold yellow]{escape(call.name)}[/] asks to run: {asked}")
    console.print(f"arguments: {call.arguments}", markup=False, highlight=False)
    while True:
        try:
            choice = (
                console.input(escape("run it? [y]es, [e]dit arguments, [n]o: ")).strip().lower()
            )
        except EOFError:
            return None
        if choice in ("y", "yes"):
            return MessageIn(command="run")
        if choice in ("n", "no"):
            console.print(f"[dim]{escape(call.name)} did not run.[/]")
            return MessageIn(command="cancel")
        if choice in ("e", "edit"):
            try:
                edited = json.loads(console.input("arguments (JSON)> "))
            except EOFError:
                return None
            except json.JSONDecodeError as error:
                console.print(f"[red]not JSON ({escape(error.msg)}); try again[/]")
                continue
            if not isinstance(edited, dict):
                console.print("[red]the arguments are a JSON object, {…}; try again[/]")
                continue
            return MessageIn(command="run", arguments=edited)
