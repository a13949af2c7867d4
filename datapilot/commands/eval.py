"""`datapilot eval`: score a brain on a corpus of questions and print what failed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from datapilot.commands.ask import BrainOption, OfflineOption


def eval_corpus(
    corpus: Annotated[
        Path,
        typer.Argument(
            help="A JSONL corpus (one case per line with query, today and expect), or a folder "
            "of them."
        ),
    ],
    brain: Annotated[
        BrainOption, typer.Option(help="Who plans: offline rules, an llm, or auto.")
    ] = BrainOption.auto,
    plan_only: Annotated[
        bool,
        typer.Option(
            "--plan-only", help="Score intent and plan only (charts/tables read from the plan)."
        ),
    ] = False,
    json_output: Annotated[
        bool, typer.Option("--json", help="Print the report as one JSON object.")
    ] = False,
    min_pass: Annotated[
        float,
        typer.Option(
            help="Exit 1 below this: a fraction of cases (0.95) or a count (34). Default: all."
        ),
    ] = 1.0,
    offline: OfflineOption = False,
) -> None:
    """Score each case (status, ids, window, chart, table, horizon) and list the failures.

    Exit codes: 0 at or above --min-pass, 1 below it, 2 bad usage or an unreadable corpus.
    """
    from datapilot.evaluation import CorpusError, evaluate_file

    try:
        report = evaluate_file(
            corpus,
            brain=brain.value,
            plan_only=plan_only,
            offline=offline,
        )
    except CorpusError as error:
        typer.echo(f"Error: {error}", err=True)
        raise typer.Exit(2) from error
    needed = min_pass if min_pass > 1 else min_pass * report.total
    if json_output:
        typer.echo(
            json.dumps(
                {**report.model_dump(mode="json"), **report.summary(), "min_pass": needed},
                ensure_ascii=False,
            )
        )
    else:
        _print(report)
    if report.passed < needed - 1e-9:
        raise typer.Exit(1)


def _print(report) -> None:
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    console = Console()
    table = Table(
        title=f"{report.corpus} — brain {report.brain}"
        + (", plan only" if report.plan_only else "")
    )
    table.add_column("case")
    table.add_column("result")
    table.add_column("status")
    table.add_column("ms", justify="right")
    table.add_column("question / what failed", overflow="fold")
    for result in report.results:
        mark = "[green]pass[/green]" if result.passed else "[red]FAIL[/red]"
        detail = escape(result.query)
        if result.failures:
            detail += "\n[red]" + escape("\n".join(result.failures)) + "[/red]"
        if result.remarks:
            detail += "\n[yellow]" + escape("\n".join(result.remarks)) + "[/yellow]"
        table.add_row(escape(result.id), mark, result.status, f"{result.elapsed_ms:.0f}", detail)
    console.print(table)
    console.print(f"passed {report.passed} of {report.total}")
