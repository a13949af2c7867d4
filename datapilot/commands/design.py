"""`datapilot design …`: grow the interface library from your own data sources.

profile → requests → define → merge → implement → list / show → accept (or reject) → requests.
"""

from __future__ import annotations

import contextlib
import json
from typing import TYPE_CHECKING, Annotated, Any

import typer

from datapilot.commands.errors import fail, friendly_errors

if TYPE_CHECKING:
    from datapilot.design.profile import Profile
    from datapilot.settings import Settings

design_app = typer.Typer(
    help="Interface design: profile sources, self-request, define, merge, implement, accept."
)

SourcesArg = Annotated[
    list[str] | None,
    typer.Argument(help="Sources (dataset, table:NAME, tool:NAME or an entity id); default all."),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON on stdout.")]


def _profiles(names: list[str] | None) -> list[Profile]:
    from datapilot.commands.local_tools import local_data
    from datapilot.design.profile import profile_all, select
    from datapilot.settings import get_settings

    settings = get_settings()
    data = local_data(settings)
    profiles = profile_all(data.warehouse, data.catalog, _tool_sources(settings))
    try:
        return select(profiles, names or [])
    except LookupError as error:
        fail(str(error))
        raise


def _tool_sources(settings: Settings) -> list[Any]:
    """The local user's imported tool sources, when a store exists (profiling never creates one)."""
    if settings.database_url is None and not settings.database_path.exists():
        return []
    try:
        from datapilot.assistants.repo import local_user
        from datapilot.store import open_store
        from datapilot.tools.sources import Sources

        store = open_store(settings)
        with store.session() as session:
            return Sources(session, local_user(session), settings).list()
    except Exception as error:  # the data sources are profiled even when the store is not usable
        typer.echo(f"tool sources skipped: {type(error).__name__}: {error}", err=True)
        return []


@design_app.command("profile")
@friendly_errors
def profile(sources: SourcesArg = None, json_output: JsonOption = False) -> None:
    """Describe each source: columns (type, unit, range), frequency, dates, access, rows."""
    from datapilot.design.profile import to_markdown

    found = _profiles(sources)
    if json_output:
        typer.echo(json.dumps([p.model_dump(mode="json") for p in found], ensure_ascii=False))
    else:
        typer.echo(to_markdown(found))


@design_app.command("requests")
@friendly_errors
def requests(
    sources: SourcesArg = None,
    per_source: Annotated[int, typer.Option(min=1, help="Requests per source.")] = 80,
    model: Annotated[
        bool, typer.Option("--model", help="Have the configured model write the requests.")
    ] = False,
    brain: Annotated[
        str, typer.Option(help="Who plans each request when trying it: offline or llm.")
    ] = "offline",
    json_output: JsonOption = False,
) -> None:
    """Generate requests a user could ask of each source, try each one, report coverage."""
    from datapilot.commands.local_tools import local_data
    from datapilot.design.requests import coverage_markdown, offline_requests
    from datapilot.design.stage import save_requests
    from datapilot.design.trying import try_requests
    from datapilot.settings import get_settings

    if brain not in ("offline", "llm"):
        fail(f"--brain must be offline or llm, not {brain!r}.")
    settings = get_settings()
    data = local_data(settings)
    found = _profiles(sources)
    if model:
        made = _model_requests(settings, found, per_source)
    else:
        made = offline_requests(found, data.catalog, per_source)
    with _progress(json_output) as advance:
        tried = try_requests(
            made, settings, data, brain="llm" if brain == "llm" else "offline", progress=advance
        )
    save_requests(settings, tried)
    if json_output:
        typer.echo(json.dumps([r.public() for r in tried], ensure_ascii=False, default=str))
    else:
        typer.echo(coverage_markdown(tried))


def _progress(quiet: bool) -> Any:
    """Requests tried, as a bar on a terminal (none with --json, nor when piped)."""
    from datapilot.commands.progress import progress_bar

    if quiet:
        return contextlib.nullcontext(lambda done, total: None)
    return progress_bar("Trying requests", "requests")


def _model_requests(settings: Settings, profiles: list[Profile], count: int) -> list[Any]:
    from datapilot.design.model import NoModel, ask_json, model_config
    from datapilot.design.requests import (
        REQUESTS_SCHEMA,
        dedupe,
        model_prompt,
        parse_model_requests,
        seed_examples,
    )
    from datapilot.design.stage import Round, record

    try:
        config = model_config(settings)
    except NoModel as error:
        fail(str(error))
        raise
    made: list[Any] = []
    for profile in profiles:
        reply = ask_json(
            config, model_prompt(profile, count, seed_examples()), REQUESTS_SCHEMA, "requests"
        )
        refused: list[str] = []
        try:
            found = parse_model_requests(reply.text, profile, count)
        except ValueError as error:
            found, refused = [], [str(error)]
        made += found
        record(
            settings,
            Round(
                step="requests",
                model=reply.model,
                prompt_tokens=reply.prompt_tokens,
                completion_tokens=reply.completion_tokens,
                changed=[f"{len(found)} requests for {profile.source}"],
                refused=refused,
            ),
        )
    return dedupe(made)


def _model_step(run: Any) -> Any:
    from datapilot.design.model import NoModel

    try:
        return run()
    except NoModel as error:
        fail(str(error))


@design_app.command("define")
@friendly_errors
def define() -> None:
    """Model: define interface specs (with solution plans) for the gaps of the last `requests`."""
    from datapilot.design.stage import define as define_specs
    from datapilot.design.stage import load_requests
    from datapilot.engine.executor import default_registry
    from datapilot.settings import get_settings

    settings = get_settings()
    tried = load_requests(settings)
    if not tried:
        fail("No tried requests yet; run `datapilot design requests` first.")
    profiles = _profiles(None)
    _, round_ = _model_step(lambda: define_specs(settings, default_registry(), tried, profiles))
    _print_round(round_)


@design_app.command("merge")
@friendly_errors
def merge() -> None:
    """Model: merge specs with similar functions and input/output shapes (checked structurally)."""
    from datapilot.design.stage import merge as merge_specs
    from datapilot.engine.executor import default_registry
    from datapilot.settings import get_settings

    settings = get_settings()
    _, round_ = _model_step(lambda: merge_specs(settings, default_registry()))
    _print_round(round_)


@design_app.command("implement")
@friendly_errors
def implement(
    names: Annotated[
        list[str] | None, typer.Argument(help="Specs to implement; default all.")
    ] = None,
) -> None:
    """Model: code + tests per spec, run under limits; passing ones become plugin packages."""
    from datapilot.design.stage import implement as implement_specs
    from datapilot.settings import get_settings

    settings = get_settings()
    profiles = _profiles(None)
    outcomes = _model_step(lambda: implement_specs(settings, profiles, names))
    if not outcomes:
        typer.echo("Nothing to implement; run `datapilot design define` first.")
    for outcome in outcomes:
        passed = sum(1 for t in outcome.tests if t["passed"])
        if outcome.ok:
            typer.echo(
                f"{outcome.name}: {passed} tests passed; packaged — review it with "
                f"`datapilot design show {outcome.name}`, then `datapilot design accept "
                f"{outcome.name}`."
            )
        else:
            typer.echo(f"{outcome.name}: rejected — {outcome.reason}")


@design_app.command("list")
def list_designs(json_output: JsonOption = False) -> None:
    """Designed specs and plugin packages, with status and provenance."""
    from datapilot.design.library import packages
    from datapilot.design.stage import load_specs
    from datapilot.settings import get_settings

    settings = get_settings()
    built = {p.name: p for p in packages(settings.data_dir)}
    rows: list[dict[str, Any]] = []
    for spec in load_specs(settings):
        package = built.pop(spec.name, None)
        rows.append(_row(spec.name, spec.status, spec.reason, spec.category, package))
    for name, package in built.items():
        rows.append(_row(name, package.spec.status, None, package.spec.category, package))
    if json_output:
        typer.echo(json.dumps(rows, ensure_ascii=False, default=str))
        return
    if not rows:
        typer.echo("No designed interfaces yet: `datapilot design requests`, then `define`.")
    for row in rows:
        state = "accepted" if row["accepted"] else row["status"]
        reason = f" — {row['reason']}" if row["reason"] else ""
        typer.echo(f"{row['name']}  ({row['category']}, {state}){reason}")


def _row(name: str, status: str, reason: str | None, category: str, package: Any) -> dict[str, Any]:
    provenance = package.provenance.model_dump() if package else None
    return {
        "name": name,
        "category": category,
        "status": status,
        "reason": reason,
        "package": package.path if package else None,
        "accepted": bool(package and package.provenance.accepted),
        "provenance": provenance,
    }


@design_app.command("show")
def show(name: Annotated[str, typer.Argument(help="A designed interface.")]) -> None:
    """Show a package's spec, provenance, code and tests before accepting it."""
    from pathlib import Path

    from datapilot.design.library import packages
    from datapilot.settings import get_settings

    found = {p.name: p for p in packages(get_settings().data_dir)}
    if name not in found:
        fail(f"No package {name!r}; `datapilot design list` shows the designed interfaces.")
    package = found[name]
    typer.echo(package.spec.model_dump_json(indent=2))
    typer.echo(package.provenance.model_dump_json(indent=2))
    for file in ("interface.py", "test_interface.py"):
        typer.echo(f"\n# ---- {file}\n" + (Path(package.path) / file).read_text(encoding="utf-8"))


@design_app.command("accept")
def accept(
    names: Annotated[list[str] | None, typer.Argument(help="Packages to accept.")] = None,
    all_: Annotated[bool, typer.Option("--all", help="Accept every package.")] = False,
) -> None:
    """Accept (install) packages: a running server uses them from its next question."""
    from datapilot.design.library import accept as accept_packages
    from datapilot.settings import get_settings

    if not names and not all_:
        fail("Name the packages to accept, or pass --all.")
    try:
        done = accept_packages(get_settings().data_dir, names or [], everything=all_)
    except LookupError as error:
        fail(str(error))
        raise
    for package in done:
        typer.echo(
            f"accepted {package.name}: registered; a running `datapilot serve` uses it at its "
            "next question, no restart needed."
        )


@design_app.command("reject")
def reject(names: Annotated[list[str], typer.Argument(help="Packages to remove.")]) -> None:
    """Remove packages (accepted ones too)."""
    from datapilot.design.library import reject as reject_packages
    from datapilot.settings import get_settings

    try:
        for name in reject_packages(get_settings().data_dir, names):
            typer.echo(
                f"rejected {name}: removed; a running `datapilot serve` stops using it at its "
                "next question."
            )
    except LookupError as error:
        fail(str(error))


def _print_round(round_: Any) -> None:
    typer.echo(
        f"{round_.step}: model {round_.model}, {round_.prompt_tokens} prompt tokens, "
        f"{round_.completion_tokens} completion tokens"
    )
    for line in round_.changed:
        typer.echo(f"  {line}")
    for line in round_.refused:
        typer.echo(f"  refused: {line}")
