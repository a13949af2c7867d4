"""`datapilot ask`: one question from the terminal, as a live view or as one Answer JSON."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import re
from datetime import datetime
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from datapilot.commands.collection import ONE_SHOT_THRESHOLD, fewer_collections
from datapilot.commands.quick_exit import allow_quick_exit

if TYPE_CHECKING:  # the pipeline's modules load when a question is asked, not at start-up
    from collections.abc import AsyncIterator, Callable

    from datapilot.core.answer import Answer
    from datapilot.core.context import QuestionContext
    from datapilot.core.events import Event
    from datapilot.core.outputs import ChartOutput
    from datapilot.engine.context import RequestContext
    from datapilot.settings import Settings

EXIT_OK, EXIT_ERROR, EXIT_NO_ANSWER = 0, 1, 3
_EXIT_CODES = {"ok": EXIT_OK, "error": EXIT_ERROR, "no_data": EXIT_NO_ANSWER}


def _with_fewer_collections(command: Callable[..., None]) -> Callable[..., None]:
    """`command` run with fewer collector passes (`datapilot.commands.collection`): one
    question, then the process usually ends."""

    @functools.wraps(command)
    def wrapper(*args: object, **kwargs: object) -> None:
        with fewer_collections(ONE_SHOT_THRESHOLD):
            command(*args, **kwargs)

    return wrapper


class BrainOption(StrEnum):
    auto = "auto"
    offline = "offline"
    llm = "llm"


# Options several commands take, spelled once so that their help reads the same everywhere.
TodayOption = Annotated[
    datetime | None,
    typer.Option(formats=["%Y-%m-%d"], help="Treat this date as today (YYYY-MM-DD)."),
]
OfflineOption = Annotated[bool, typer.Option(help="Forbid every network access.")]
ReaderOption = Annotated[
    BrainOption | None, typer.Option(help="Who reads questions: auto, offline or llm.")
]


@_with_fewer_collections
def ask(
    question: Annotated[str, typer.Argument(help="The question, in English or Chinese.")],
    today: TodayOption = None,
    json_output: Annotated[
        bool, typer.Option("--json", help="Print exactly one Answer JSON object and nothing else.")
    ] = False,
    out: Annotated[
        Path | None,
        typer.Option(
            file_okay=False,
            help="Write each chart as PNG + interactive HTML, each table as CSV, and answer.json.",
        ),
    ] = None,
    plan_only: Annotated[
        bool, typer.Option("--plan-only", help="Stop after planning: intent and plan, no results.")
    ] = False,
    plan: Annotated[
        Path | None,
        typer.Option(
            "--plan",
            dir_okay=False,
            help="Run this plan (a Plan JSON, or an Answer JSON from --plan-only) instead of "
            "planning.",
        ),
    ] = None,
    code: Annotated[
        bool,
        typer.Option(
            "--code",
            help="Print only the Python script that reproduces the answer (save it, edit it, "
            "run it with python).",
        ),
    ] = False,
    brain: Annotated[
        BrainOption | None,
        typer.Option(help="Who plans: offline rules, an llm, or auto (llm when configured)."),
    ] = None,
    library: Annotated[
        str | None,
        typer.Option(help="Answer from this knowledge library (name or id), citing its passages."),
    ] = None,
    open_charts: Annotated[
        bool,
        typer.Option(
            "--open",
            help="Open each chart, interactive (HTML), in the browser (with --out: there).",
        ),
    ] = False,
) -> None:
    """Answer a question with charts, tables and a summary.

    Exit codes: 0 answered, 1 error, 2 bad usage, 3 no data or not a data question.
    """
    from datapilot.settings import get_settings

    settings = get_settings()
    if library is None:
        from datapilot.commands.local_tools import open_data_in_background

        open_data_in_background(settings)  # while the modules below load
    from datapilot.brains import run
    from datapilot.brains.replay import PlanBrain
    from datapilot.core.context import QuestionContext
    from datapilot.engine.context import RequestContext

    given = None
    if plan is not None:
        try:
            given = PlanBrain.from_file(plan)
        except ValueError as error:
            raise typer.BadParameter(str(error), param_hint="--plan") from error
    from datapilot.commands.local_tools import local_data_owner

    context = QuestionContext(
        today=today.date() if today else settings.effective_today(),
        brain=brain.value if brain else "auto",
        offline=settings.offline,
        data_owner=local_data_owner(settings),  # what the local user imported on the page
    )
    if library is not None:
        events = _library_events(question, library, context, settings)
    else:
        request = RequestContext.for_request(context, settings)
        events = run(question, request, brain=given, plan_only=plan_only)
        if given is None and not plan_only:
            events = _with_user_tools(events, question, request)

    if json_output and code:
        raise typer.BadParameter("choose one of --json and --code", param_hint="--code")
    if code and plan_only:
        raise typer.BadParameter(
            "--plan-only stops before the plan runs, so there is no script; drop one of them",
            param_hint="--code",
        )
    if code:
        from datapilot.engine.pipeline import final_answer

        answer = asyncio.run(final_answer(events))
        if out is not None:
            write_outputs(answer, out)
        if answer.code is None:
            reason = answer.message or "the question was answered without running a plan"
            typer.echo(f"No script for this answer: {reason}", err=True)
            if answer.summary and not answer.message:  # e.g. one of the user's tools answered
                typer.echo(answer.summary, err=True)
            raise typer.Exit(_EXIT_CODES.get(answer.status, EXIT_NO_ANSWER) or EXIT_NO_ANSWER)
        typer.echo(answer.code, nl=False)
    elif json_output:
        from datapilot.engine.pipeline import final_answer

        answer = asyncio.run(final_answer(events))
        if out is not None:
            write_outputs(answer, out)
        typer.echo(answer.model_dump_json(indent=2))
    else:
        from rich.console import Console

        from datapilot.data.text import is_chinese
        from datapilot.render.terminal import print_files, render

        console = Console()
        answer = asyncio.run(render(events, console))
        if out is not None:
            print_files(write_outputs(answer, out), console, is_chinese(answer.query))
    if open_charts:
        _open_charts(answer, out)
    allow_quick_exit()  # the answer is written whole (and its files): nothing left to do
    raise typer.Exit(_EXIT_CODES.get(answer.status, EXIT_NO_ANSWER))


def _with_user_tools(
    events: AsyncIterator[Event], question: str, request: RequestContext
) -> AsyncIterator[Event]:
    """A question the brain could not answer goes to the user's tools, which are read only
    then. A tool that must be confirmed is not run: the answer says how to run it."""
    from datapilot.commands.local_tools import local_tools
    from datapilot.tools.offline import try_user_tools

    return try_user_tools(
        events,
        question,
        functools.partial(local_tools, request),
        request.question.today,
        timeout_s=request.settings.call_timeout_s * 2,
    )


def _library_events(
    question: str, library: str, context: QuestionContext, settings: Settings
) -> AsyncIterator[Event]:
    from datapilot.assistants.repo import local_user
    from datapilot.knowledge.answering import library_events
    from datapilot.store import open_store

    store = open_store(settings)
    with store.session(write=True) as session:
        owner = local_user(session)
    return library_events(question, store, owner, library, context, settings)


def write_outputs(answer: Answer, out_dir: Path) -> list[Path]:
    """Write every output of `answer` into `out_dir` and fill each chart's `png`.

    Charts become PNG + HTML, tables CSV, text TXT, plus `answer.json`. A file that cannot be
    written becomes a note in the answer instead of stopping the others.
    """
    from datapilot.core.outputs import ChartOutput, TableOutput, TextOutput

    out_dir.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    names: set[str] = set()
    for number, output in enumerate(answer.outputs, 1):
        title = output.title if isinstance(output, ChartOutput | TableOutput) else "note"
        stem = _unique(_slug(title) or f"output-{number}", names)
        try:
            if isinstance(output, ChartOutput):
                written.extend(_write_chart(output, out_dir, stem))
            elif isinstance(output, TableOutput):
                written.append(_atomic_text(out_dir / f"{stem}.csv", output.to_csv()))
            elif isinstance(output, TextOutput):
                written.append(_atomic_text(out_dir / f"{stem}.txt", output.text + "\n"))
        except Exception as error:  # one broken file must not lose the others
            answer.notes.append(f"Could not write {stem}: {type(error).__name__}: {error}")
    path = _atomic_text(out_dir / "answer.json", answer.model_dump_json(indent=2) + "\n")
    return [*written, path]


def _open_charts(answer: Answer, out: Path | None) -> None:
    """Each chart's HTML page in the browser: the one `--out` wrote, else one in a new folder."""
    import tempfile
    import webbrowser

    from datapilot.core.outputs import ChartOutput

    charts = [output for output in answer.outputs if isinstance(output, ChartOutput)]
    if not charts:
        typer.echo("--open: this answer has no chart to open.", err=True)
        return
    folder = out or Path(tempfile.mkdtemp(prefix="datapilot-charts-"))
    names: set[str] = set()
    for number, chart in enumerate(charts, 1):
        page = folder / f"{_unique(_slug(chart.title) or f'chart-{number}', names)}.html"
        if not page.exists():
            _write_html(chart, page)
        if not webbrowser.open(page.resolve().as_uri()):
            typer.echo(f"--open: no browser to open {page}; open it yourself.", err=True)


def _write_chart(chart: ChartOutput, out_dir: Path, stem: str) -> list[Path]:
    from datapilot.render.charts import to_png

    png = out_dir / f"{stem}.png"
    partial = out_dir / f".{stem}.partial.png"
    try:
        to_png(chart, partial)
        os.replace(partial, png)
    finally:
        with contextlib.suppress(FileNotFoundError):
            partial.unlink()
    chart.png = str(png)
    html = out_dir / f"{stem}.html"
    _write_html(chart, html)
    return [png, html]


def _write_html(chart: ChartOutput, html: Path) -> None:
    """The interactive page, reading `plotly.min.js` beside it (works offline): that file is
    a link to one shared copy, so folders of answers do not hold 4.8 MB each."""
    import plotly.io as pio

    from datapilot.render.charts import to_plotly
    from datapilot.render.plotly_bundle import link_plotly_js

    link_plotly_js(html.parent)
    partial_html = html.with_name(f".{html.stem}.partial.html")
    try:
        pio.write_html(to_plotly(chart), partial_html, include_plotlyjs="directory")
        os.replace(partial_html, html)
    finally:
        with contextlib.suppress(FileNotFoundError):
            partial_html.unlink()


def _atomic_text(path: Path, text: str) -> Path:
    partial = path.with_name(f".{path.name}.partial")
    partial.write_text(text, encoding="utf-8")
    os.replace(partial, path)
    return path


def _slug(title: str) -> str:
    words = re.sub(r"[^\w]+", "-", title.lower(), flags=re.UNICODE).strip("-_")
    return words[:80]


def _unique(stem: str, taken: set[str]) -> str:
    candidate, counter = stem, 2
    while candidate in taken:
        candidate, counter = f"{stem}-{counter}", counter + 1
    taken.add(candidate)
    return candidate
