"""`datapilot db`, `datapilot keys` and `datapilot users`: the platform store from the terminal.

Every command opens the store through `open_store`, which migrates it first.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer

if TYPE_CHECKING:
    from datapilot.store import Store

db_app = typer.Typer(help="The platform's SQL store (SQLite in the data dir, or PostgreSQL).")
keys_app = typer.Typer(help="API keys for the server: create (shown once), list, revoke.")
users_app = typer.Typer(help="Users: every API key belongs to one.")


def _store() -> Store:
    from datapilot.settings import get_settings
    from datapilot.store import MigrationError, StoreConfigError, open_store

    try:
        return open_store(get_settings())
    except (StoreConfigError, MigrationError) as error:
        _fail(str(error))


def _fail(message: str) -> NoReturn:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code=1)


def _when(moment: datetime | None) -> str:
    return moment.strftime("%Y-%m-%d %H:%M") if moment else "-"


@db_app.command("upgrade")
def db_upgrade() -> None:
    """Migrate the store to the newest schema (the server and every command also do it)."""
    from datapilot.settings import get_settings
    from datapilot.store import MigrationError, StoreConfigError, database_url, open_store

    settings = get_settings()
    try:
        store = open_store(settings, migrate=False)
        version = store.upgrade()
    except (StoreConfigError, MigrationError) as error:
        _fail(str(error))
    typer.echo(f"{database_url(settings).render_as_string(hide_password=True)}: schema {version}")


@keys_app.command("create")
def keys_create(
    name: Annotated[str, typer.Option(help="What the key is for, shown in `keys list`.")],
    scopes: Annotated[
        str,
        typer.Option(
            help="Comma-separated: chat (ask, query), manage, admin, run (interpreter code runs "
            "without asking where DATAPILOT_INTERPRETER_AUTO_RUN=true)."
        ),
    ] = "chat",
    user: Annotated[
        str | None,
        typer.Option(help="Whose key (default: the only user; the first key creates one)."),
    ] = None,
) -> None:
    """Create an API key. The key is printed once, alone on the last line: keep it."""
    from datapilot.store import AccountError, Keys

    store = _store()
    try:
        with store.session() as session:
            new = Keys(session).create(name, scopes, user=user)
    except AccountError as error:
        _fail(str(error))
    info = new.info
    typer.echo(
        f"Created key {info.prefix}… ({info.name}) for user {info.owner_name}, scopes "
        f"{','.join(info.scopes)}. It is shown only now; send it as `Authorization: Bearer KEY`."
    )
    typer.echo(new.key.get_secret_value())


@keys_app.command("list")
def keys_list() -> None:
    """List keys: prefix, name, user, scopes, created, last used, revoked (never the key)."""
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    from datapilot.store import Keys

    with _store().session() as session:
        keys = Keys(session).list()
    if not keys:
        typer.echo("No API keys yet; create one with `datapilot keys create --name NAME`.")
        return
    table = Table("id", "prefix", "name", "user", "scopes", "created", "last used", "revoked")
    for key in keys:
        table.add_row(
            key.id,
            key.prefix,
            escape(key.name),
            escape(key.owner_name),
            ",".join(key.scopes),
            _when(key.created_at),
            _when(key.last_used_at),
            _when(key.revoked_at),
        )
    Console(width=160).print(table)


@keys_app.command("revoke")
def keys_revoke(
    key: Annotated[str, typer.Argument(help="The key's id or prefix (or their start).")],
) -> None:
    """Revoke a key: the server refuses it from now on (within `auth_cache_s` seconds)."""
    from datapilot.store import AccountError, Keys

    store = _store()
    try:
        with store.session() as session:
            info = Keys(session).revoke(key)
    except AccountError as error:
        _fail(str(error))
    typer.echo(f"Revoked key {info.prefix}… ({info.name}) of user {info.owner_name}.")


@users_app.command("create")
def users_create(name: Annotated[str, typer.Argument(help="The user's name.")]) -> None:
    """Create a user (then give them a key with `datapilot keys create --user NAME`)."""
    from datapilot.store import AccountError, Users

    store = _store()
    try:
        with store.session() as session:
            user = Users(session).create(name)
    except AccountError as error:
        _fail(str(error))
    typer.echo(f"Created user {user.name} ({user.id}).")


@users_app.command("list")
def users_list() -> None:
    """List users."""
    from datapilot.store import Users

    with _store().session() as session:
        users = Users(session).list()
    for user in users:
        typer.echo(f"{user.id}  {user.name}  {_when(user.created_at)}")
    if not users:
        typer.echo("No users yet; `datapilot keys create` makes the first one.")
