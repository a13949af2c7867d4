"""`datapilot data fetch` and `datapilot data search`: live providers from the terminal."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

if TYPE_CHECKING:  # the providers (httpx and all) load when a command fetches, not at start-up
    from collections.abc import Sequence

    from datapilot.core.watches import WatchEvent
    from datapilot.data.providers.live import Dataset, FetchReport
    from datapilot.data.shared import SharedData

# Piped output (no terminal) gets a wide table rather than one squeezed into 80 columns.
console = Console(width=None if Console().is_terminal else 160)
_STYLE = {"fetched": "green", "fresh": "cyan", "stale": "yellow", "failed": "red"}


def fetch(
    ids: Annotated[list[str], typer.Argument(help="Entity ids: AAPL, UNRATE, 600519.SH, ^VIX …")],
    start: Annotated[
        datetime | None,
        typer.Option("--from", formats=["%Y-%m-%d"], help="First date you need (YYYY-MM-DD)."),
    ] = None,
    end: Annotated[
        datetime | None,
        typer.Option("--to", formats=["%Y-%m-%d"], help="Last date you need (YYYY-MM-DD)."),
    ] = None,
    what: Annotated[
        list[str] | None,
        typer.Option(
            "--what",
            help="Datasets: prices, series, fundamentals, news, profile (repeatable); "
            "default: prices or series by kind.",
        ),
    ] = None,
    provider: Annotated[
        list[str] | None,
        typer.Option(
            "--provider",
            help="yahoo, fred, sec, akshare, datahub (repeatable, in order); "
            "default: DATAPILOT_PROVIDERS, or all of them when none is configured.",
        ),
    ] = None,
    force: Annotated[bool, typer.Option(help="Refetch even when the local copy is fresh.")] = False,
) -> None:
    """Download entities from live providers into the warehouse (cached; see the TTLs)."""
    from datapilot.commands.progress import progress_bar
    from datapilot.data import open_data
    from datapilot.settings import get_settings

    settings = get_settings()
    if settings.offline:
        _fail("offline mode forbids fetching; unset DATAPILOT_OFFLINE to use live providers")
    datasets = _datasets(what)
    names = _provider_names(provider)
    share_if_replicated()
    chosen = open_data(settings).router(names)
    if force:
        chosen.policy = chosen.policy.model_copy(update={"refetch": True})
    from datapilot.watching.follow import alerts_follow

    # The watches' alerts on the fetched rows are evaluated here once they are in.
    with (
        alerts_follow(settings) as fired,
        progress_bar(f"Fetching from {', '.join(names)}", "entities") as advance,
    ):
        report = chosen.ensure(
            ids, start.date() if start else None, end.date() if end else None, datasets, advance
        )
    _print_report(report)
    say_fired(fired)
    unserved = [i for i in dict.fromkeys(x.strip().upper() for x in ids) if not report.get(i)]
    if unserved:
        console.print(
            f"[yellow]{escape(', '.join(unserved))}: not fetched; none of {', '.join(names)} "
            "serves them, or local data already cover the window (try --provider or "
            "`datapilot data search`)[/yellow]"
        )
    if not report.items or not report.ok:
        raise typer.Exit(code=1)


def search(
    name: Annotated[
        str, typer.Argument(help="A name in English or Chinese: Apple, 贵州茅台, CPI…")
    ],
    provider: Annotated[
        list[str] | None,
        typer.Option("--provider", help="Search only these providers (repeatable)."),
    ] = None,
    limit: Annotated[int, typer.Option(min=1, max=50, help="Most results shown.")] = 10,
) -> None:
    """Find entities by name locally and at live providers; new ones join the catalog."""
    from datapilot.data import open_data
    from datapilot.settings import get_settings

    settings = get_settings()
    names = [] if settings.offline else _provider_names(provider)
    with console.status(f"Searching {name!r} …"):
        result = open_data(settings).router(names).search(name, limit)
    table = Table(title=f"Entities matching {name!r}")
    for column in ("id", "kind", "name", "source", "data"):
        table.add_column(column)
    for entity in result.entities:
        table.add_row(
            escape(entity.id),
            entity.kind,
            escape(entity.name),
            escape(entity.source or "—"),
            "yes" if entity.available else "no",
        )
    console.print(table)
    for error in result.errors:
        console.print(f"[yellow]{escape(error)}[/yellow]")
    if not result.entities:
        _fail(f"nothing matches {name!r}")


def say_fired(fired: Sequence[WatchEvent]) -> None:
    """One line per alert the new rows fired (each delivered to its channels)."""
    for event in fired:
        console.print(
            f"Alert {event.watch_id}: {event.entity} on {event.date} "
            f"(value {event.value}, threshold {event.threshold})",
            markup=False,
        )


def share_if_replicated() -> SharedData | None:
    """On a platform on PostgreSQL, what this command adds to the warehouse goes to the shared
    log too, so that every replica's warehouse gets it (`data.shared`); None on SQLite."""
    from datapilot.settings import get_settings

    settings = get_settings()
    if settings.database_url is None:  # SQLite in the data dir: nothing is shared
        return None
    from datapilot.data.shared import share
    from datapilot.store import open_store
    from datapilot.store.shared_data import replica_log

    log = replica_log(open_store(settings))
    return None if log is None else share(settings.warehouse_path, log)


def register(app: typer.Typer) -> None:
    """Add the live-data commands to the `data` command group."""
    from datapilot.commands.errors import friendly_errors

    app.command("fetch")(friendly_errors(fetch))
    app.command("search")(friendly_errors(search))


def _datasets(what: list[str] | None) -> list[Dataset] | None:
    from datapilot.data.providers.live import DATASETS

    if not what:
        return None
    unknown = sorted(set(what) - set(DATASETS))
    if unknown:
        _fail(f"unknown dataset(s) {', '.join(unknown)}; choose from {', '.join(DATASETS)}")
    return [d for d in DATASETS if d in what]


def _provider_names(given: list[str] | None) -> list[str]:
    from datapilot.data.providers.names import provider_names
    from datapilot.plugins import providers
    from datapilot.settings import get_settings

    try:
        names = provider_names(get_settings(), given)
    except ValueError as error:
        _fail(str(error))
    # An explicit command is consent to use the network even when only bundled data is configured.
    return names or list(providers())


def _print_report(report: FetchReport) -> None:
    table = Table(title="Fetch report")
    for column in ("id", "dataset", "status", "provider", "rows", "as of (UTC)", "note"):
        table.add_column(column, justify="right" if column == "rows" else "left")
    for item in report.items:
        style = _STYLE[item.status]
        table.add_row(
            escape(item.id),
            item.dataset,
            f"[{style}]{item.status}[/{style}]",
            item.provider or "—",
            f"{item.rows:,}",
            f"{item.as_of:%Y-%m-%d %H:%M}" if item.as_of else "",
            # Provider messages quote extras (`pip install 'datapilot[live]'`): escaped, or
            # rich would take `[live]` for markup and drop it.
            escape(item.message),
        )
    console.print(table)


def _fail(message: str) -> None:
    console.print(f"[red]{escape(message)}[/red]")
    raise typer.Exit(code=1)
