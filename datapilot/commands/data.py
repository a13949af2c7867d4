"""`datapilot data …`: what the warehouse holds, importing files, reseeding, finding names."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from datapilot.commands import data_live
from datapilot.commands.errors import fail, friendly_errors

app = typer.Typer(
    help="The local data: status, import your own files, reseed, find entities by name.",
    no_args_is_help=True,
)
# Piped output (no terminal) gets a wide table rather than one squeezed into 80 columns.
console = Console(width=None if Console().is_terminal else 160)
data_live.register(app)  # fetch, search: live providers


@app.command()
@friendly_errors
def status(
    all_entities: Annotated[
        bool, typer.Option("--all", help="Also list known entities that have no data.")
    ] = False,
) -> None:
    """List every entity with data: sources, row counts and date ranges."""
    from datapilot.data import get_catalog, get_warehouse

    warehouse = get_warehouse()
    catalog = get_catalog()
    coverage = warehouse.coverage()
    table = Table(title=escape(f"Warehouse {warehouse.path}"))
    for column in ("id", "kind", "name", "source", "table", "rows", "first", "last"):
        table.add_column(column, justify="right" if column == "rows" else "left")
    for row in coverage.itertuples(index=False):
        entity = catalog.get(row.id)
        table.add_row(
            escape(row.id),
            entity.kind if entity else "?",
            escape(entity.name) if entity else "",
            escape(row.source),
            row.table,
            f"{row.rows:,}",
            f"{row.first:%Y-%m-%d}",
            f"{row.last:%Y-%m-%d}",
        )
    if all_entities:
        for entity in sorted(catalog.entities(available=False), key=lambda e: (e.kind, e.id)):
            table.add_row(escape(entity.id), entity.kind, escape(entity.name), "—", "", "0", "", "")
    console.print(table)
    available = len(catalog.entities(available=True))
    console.print(
        f"{available} entities with data, {len(coverage)} entity/source pairs, "
        f"{int(coverage['rows'].sum()):,} rows; "
        f"{len(catalog.entities(available=False))} more known without data (--all lists them)."
    )


@app.command("import")
@friendly_errors
def import_(
    file: Annotated[Path, typer.Argument(help="A .csv (or .csv.gz) or .parquet file.")],
    kind: Annotated[
        str,
        typer.Option(
            help="prices (daily bars), series (id, date, value) or table (any columns, stored "
            "as is for `datapilot design`)."
        ),
    ],
    entity_id: Annotated[
        str | None, typer.Option("--id", help="The entity id when the file has no id column.")
    ] = None,
    mapping: Annotated[
        list[str] | None,
        typer.Option("--map", help="FIELD=COLUMN, e.g. --map close=Price (repeatable)."),
    ] = None,
    source: Annotated[
        str | None, typer.Option(help="Source name (default import:<file name>).")
    ] = None,
    name: Annotated[
        str | None,
        typer.Option(help="Display name for a new entity; for --kind table, the table's name."),
    ] = None,
    entity_kind: Annotated[
        str | None, typer.Option(help="Kind of a new entity: stock, etf, index, macro, …")
    ] = None,
    units: Annotated[str, typer.Option(help="Units of a new entity (USD, %, …).")] = "",
) -> None:
    """Import your own prices or series; nothing is written unless the whole file is valid."""
    from datapilot.data import open_data
    from datapilot.data.importer import ImportFileError, ImportReport
    from datapilot.data.imports import import_path
    from datapilot.data.tables import TableImportError
    from datapilot.settings import get_settings

    access = open_data(get_settings())
    if kind == "table":
        try:
            # Replicas on PostgreSQL import the file too (while the server runs, see data.shared).
            table = import_path(
                access, file, "table", {"name": name}, shared=data_live.share_if_replicated
            )
        except TableImportError as error:
            _fail(str(error))
        assert not isinstance(table, ImportReport)
        columns = ", ".join(f"{c} ({t})" for c, t in table.columns.items())
        console.print(
            f"Imported {table.rows:,} rows as table {table.name!r}: {columns}. "
            "`datapilot design profile` describes it.",
            markup=False,
        )
        return
    if kind not in ("prices", "series"):
        _fail(f"--kind must be prices, series or table, not {kind!r}.")
    from datapilot.core.intent import EntityKind

    kinds = EntityKind.__args__  # type: ignore[attr-defined]
    if entity_kind is not None and entity_kind not in kinds:
        _fail(f"--entity-kind must be one of {', '.join(kinds)}, not {entity_kind!r}.")
    fields: dict[str, str] = {}
    for item in mapping or []:
        field, sep, column = item.partition("=")
        if not sep or not field.strip() or not column.strip():
            _fail(f"--map takes FIELD=COLUMN (e.g. close=Price), not {item!r}.")
        fields[field.strip()] = column.strip()
    options = {"entity_id": entity_id, "mapping": fields, "source": source, "name": name}
    options |= {"entity_kind": entity_kind, "units": units}
    from datapilot.watching.follow import alerts_follow

    # The watches' alerts on these rows are evaluated here once the import is in.
    with alerts_follow(get_settings()) as fired:
        try:
            report = import_path(
                access,
                file,
                kind,  # type: ignore[arg-type]
                options,
                shared=data_live.share_if_replicated,
            )
        except ImportFileError as error:
            _fail(str(error))
    assert isinstance(report, ImportReport)
    console.print(
        f"Imported {report.rows:,} {report.kind} rows for {', '.join(report.ids)} "
        f"({report.first} – {report.last}) as source {report.source!r}.",
        markup=False,
    )
    data_live.say_fired(fired)


@app.command()
@friendly_errors
def seed(
    force: Annotated[
        bool, typer.Option(help="Rebuild even if current; move a damaged file aside.")
    ] = False,
) -> None:
    """Build the warehouse from the bundled data, keeping your imports (--force: also repair)."""
    from datapilot.data import reset
    from datapilot.data.seeding import is_seeded
    from datapilot.data.seeding import seed as build
    from datapilot.settings import get_settings

    path = get_settings().warehouse_path
    if is_seeded(path) and not force:
        console.print(f"{path} is up to date (use --force to rebuild).")
        return
    reset()
    # A running server keeps working: it notices the new file and opens it on its next request.
    report = build(path, repair=force)
    if report.moved_aside:
        console.print(
            f"The old warehouse was damaged; it is kept as {report.moved_aside} "
            "(delete it once you no longer need it)."
        )
    if report.dropped:
        console.print(
            "Dropped stored entities named like another entity (their rows stay, by id): "
            + "; ".join(report.dropped),
            markup=False,
        )
    console.print(
        f"Seeded {report.rows:,} rows into {report.path} in {report.seconds:.1f} s "
        f"({report.size_bytes / 1e6:.1f} MB)."
    )


@app.command()
@friendly_errors
def find(
    text: Annotated[str, typer.Argument(help="A name, ticker or a whole question.")],
) -> None:
    """Show which entities a name or question refers to, with scores."""
    from datapilot.data import get_catalog

    catalog = get_catalog()
    table = Table(title=escape(f"Entities for {text!r}"))
    for column in ("how", "id", "name", "kind", "score", "matched", "data"):
        table.add_column(column)
    for how, matches in (("mention", catalog.mentions(text)), ("lookup", catalog.lookup(text))):
        for match in matches:
            entity = match.entity
            data = f"{entity.first} – {entity.last}" if entity.available else "not available"
            table.add_row(
                how,
                escape(entity.id),
                escape(entity.name),
                entity.kind,
                f"{match.score:.0f}",
                escape(match.matched),
                data,
            )
    console.print(table)


def _fail(message: str) -> None:
    fail(message)
