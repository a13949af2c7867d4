"""`datapilot serve`: the HTTP server (OpenBB agent, native API, health)."""

from __future__ import annotations

import contextlib
import os
import socket
import threading
from typing import TYPE_CHECKING, Annotated, TypedDict

import typer

from datapilot.commands.ask import OfflineOption, ReaderOption, TodayOption

if TYPE_CHECKING:
    import uvicorn

    from datapilot.settings import Settings


class _UvicornOptions(TypedDict):
    """The keyword options passed alike to `uvicorn.run` and `uvicorn.Config`."""

    host: str
    port: int
    factory: bool
    log_level: str
    proxy_headers: bool


def serve(
    host: Annotated[str | None, typer.Option(help="Interface to bind.")] = None,
    port: Annotated[int | None, typer.Option(help="Port to listen on.")] = None,
    offline: OfflineOption = False,
    brain: ReaderOption = None,
    today: TodayOption = None,
    timeout: Annotated[
        float | None, typer.Option(min=1, help="Whole-request timeout in seconds.")
    ] = None,
    workers: Annotated[
        int,
        typer.Option(
            min=1,
            help=(
                "Worker processes. One process uses about one CPU core; requests are stateless, "
                "so raise it towards the number of cores when several users ask at once."
            ),
        ),
    ] = 1,
    log_level: Annotated[str, typer.Option(help="Uvicorn log level.")] = "info",
) -> None:
    """Start the server (default http://127.0.0.1:7777); add it to OpenBB Workspace by URL.

    One worker suits one user. Requests are stateless (the conversation travels with each
    request), so any worker can answer any request: with several users, raise --workers towards
    the number of CPU cores, since one process keeps about one core busy.
    """
    import uvicorn

    from datapilot.server.browser_guard import is_address
    from datapilot.settings import get_settings

    # Options travel as environment variables so that every worker process reads the same.
    overrides = {
        "DATAPILOT_OFFLINE": "true" if offline else None,
        "DATAPILOT_BRAIN": brain.value if brain else None,
        "DATAPILOT_TODAY": today.date().isoformat() if today else None,
        "DATAPILOT_REQUEST_TIMEOUT_S": str(timeout) if timeout else None,
        # The app answers to a name it binds to (`server.browser_guard`; addresses it always
        # answers to, so they need no passing on).
        "DATAPILOT_HOST": host if host and not is_address(host) else None,
    }
    os.environ.update({key: value for key, value in overrides.items() if value is not None})
    get_settings.cache_clear()
    settings = get_settings()
    bind = host or settings.host
    _refuse_open_network(bind, settings)
    _say_missing_parts(settings)
    _say_plugin_gaps(settings)
    target = "datapilot.server.app:create_app"
    _say_where(bind, port or settings.port)
    options: _UvicornOptions = {
        "host": bind,
        "port": port or settings.port,
        "factory": True,
        "log_level": log_level,
        "proxy_headers": True,
    }
    _run(uvicorn.Config(target, workers=workers, **options))


def _run(config: uvicorn.Config) -> None:
    """Bind the port, then run the server (its workers) on it.

    The port opens before the app is built: clients connecting during start-up wait in its
    queue instead of being refused, and the app's warm-up, which runs in the background while
    it serves, starts with the port already open."""
    import uvicorn
    from uvicorn.config import STARTUP_FAILURE

    listener = config.bind_socket()
    # Connections accepted from this socket inherit its TCP_NODELAY; without it each small SSE
    # write waits for the client's delayed ACK (~40 ms per event).
    listener.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    if config.workers > 1:
        from uvicorn.supervisors import Multiprocess

        Multiprocess(config, sockets=[listener]).run()
        return
    server = uvicorn.Server(config)
    with contextlib.suppress(KeyboardInterrupt):
        server.run(sockets=[listener])
    if not server.started:  # as `uvicorn.run`: a start-up that failed ends with its code
        raise typer.Exit(code=STARTUP_FAILURE)


def _say_where(host: str, port: int) -> None:
    """Where to go once it runs: the chat page first, then the other faces."""
    # A server bound to every interface is reached on this machine by its loopback address.
    shown = {"0.0.0.0": "127.0.0.1", "::": "::1", "": "127.0.0.1"}.get(host, host)
    base = f"http://[{shown}]:{port}" if ":" in shown else f"http://{shown}:{port}"
    typer.echo(f"Chat page: {base}/  (API reference {base}/docs; OpenBB Workspace: add {base})")


def _say_missing_parts(settings: Settings) -> None:
    """One line per optional part the server runs without, with the fix (`datapilot doctor`
    checks the required ones too; the store was just opened, the data is read at warm-up).

    The model endpoint's line comes when its probe ends, from a thread of its own: a dead
    endpoint never delays start-up."""
    from datapilot.server.parts import OPTIONAL, ModelWatch, check_parts, missing_lines

    probed = ModelWatch(settings).settled is None  # else the settings alone say it, at once
    names = [name for name in OPTIONAL if name != "model" or not probed]
    for line in missing_lines(check_parts(settings, names)):
        typer.echo(f"note: {line}", err=True)

    def say_model() -> None:
        for line in missing_lines(check_parts(settings, ["model"])):
            typer.echo(f"note: {line}", err=True)

    if probed:
        threading.Thread(target=say_model, name="model-note", daemon=True).start()


def _say_plugin_gaps(settings: Settings) -> None:
    """What plugin hosts reject the published manifest (`/.well-known/ai-plugin.json`) for."""
    if not settings.plugin_contact_email.strip():
        typer.echo(
            "warning: the plugin manifest (/.well-known/ai-plugin.json) has an empty "
            "contact_email, which plugin hosts ask for: set DATAPILOT_PLUGIN_CONTACT_EMAIL.",
            err=True,
        )


def _refuse_open_network(host: str, settings: Settings) -> None:
    """Binding beyond this machine needs API keys: without any, anyone on the network could
    use the server (and its model key)."""
    from datapilot.server.auth import CREATE_KEY_HINT, is_loopback
    from datapilot.store import Keys, open_store

    # The store is opened (and migrated) here, before binding: a bad DATAPILOT_DATABASE_URL or an
    # unreachable database ends in a message, not in a server that fails on start-up.
    store = open_store(settings)
    if is_loopback(host):
        return
    with store.session() as session:
        protected = Keys(session).any_active()
    if not protected:
        typer.echo(
            f"error: refusing to serve on {host} without API keys: anyone who can reach it "
            f"could use it. First {CREATE_KEY_HINT} (clients then send "
            "`Authorization: Bearer KEY`), or serve on 127.0.0.1.",
            err=True,
        )
        raise typer.Exit(code=2)
    if not settings.allowed_hosts and not settings.mcp_allowed_hosts:
        typer.echo(
            f"note: serving on {host}: requests must name this server by an address or "
            "`localhost`; list the DNS names clients use in DATAPILOT_ALLOWED_HOSTS "
            "(others get 421).",
            err=True,
        )
