"""The published operations: one registry that the plugin manifest, the OpenAPI spec and the MCP
server are all generated from, so the three faces cannot drift.

Each operation has a name, a summary, a description, a pydantic input model and a pydantic
output model, and an async `run(arguments, context)` that returns an `Outcome`: the output
model, the charts it drew (each face delivers them its own way: PNG URLs over HTTP, image
content over MCP) and a short text for a model to read.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import date
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from datapilot.core.answer import Answer, AnswerStatus
from datapilot.core.context import QuestionContext
from datapilot.core.intent import EntityKind
from datapilot.core.outputs import ChartOutput, TableOutput, TextOutput
from datapilot.core.plan import Call, Plan, Step
from datapilot.data.display import counted
from datapilot.data.entity import Match
from datapilot.settings import Settings
from datapilot.tools.base import Tool
from datapilot.tools.published.progress import progress_reporter, reporting
from datapilot.tools.published.text import ask_text, markdown_table

if TYPE_CHECKING:  # the engine (pandas, DuckDB) loads with the first call, not with the registry
    import pandas as pd

    from datapilot.engine.context import RequestContext

# Rows a direct data call returns at most; the latest are kept for time series.
MAX_ROWS = 20_000


class OperationError(Exception):
    """A published operation refused or failed; `kind` says how a face should report it."""

    def __init__(self, kind: Literal["invalid", "refused", "timeout"], message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


# --- the shapes of inputs and outputs ------------------------------------------------------------


class Table(BaseModel):
    """A table: columns, rows of JSON values (dates as ISO strings, missing values as null)."""

    title: str
    columns: list[str]
    rows: list[list[Any]]
    units: dict[str, str] = Field(default_factory=dict, description="Column → unit.")


class AskInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    query: str = Field(
        min_length=1, description="A question about market or economic data, English or Chinese."
    )
    today: date | None = Field(
        default=None, description="Resolve relative windows against this date (default: today)."
    )


class AskOutput(BaseModel):
    answer: str = Field(description="The answer in words, grounded in the computed numbers.")
    status: AnswerStatus = Field(description="ok | no_data | out_of_scope | error")
    images: list[str] = Field(
        default_factory=list,
        description="URLs of the answer's charts as PNG (over MCP the charts come as images).",
    )
    tables: list[Table] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list, description="Warnings a user should see.")
    sources: list[str] = Field(default_factory=list, description="Data sources used.")


class SearchInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    query: str = Field(
        min_length=1, description="A name, ticker or code: 'Apple', '苹果', 'UNRATE'."
    )
    limit: int = Field(default=5, ge=1, le=50, description="Candidates returned at most.")
    kind: EntityKind | None = Field(default=None, description="Only entities of this kind.")


class EntityHit(BaseModel):
    id: str = Field(description="The id to pass to get_prices / get_series.")
    name: str
    kind: EntityKind
    score: float = Field(description="0–100; 100 is an exact id, ticker or name.")
    available: bool = Field(description="Whether data exists for it.")
    first: date | None = None
    last: date | None = None
    frequency: str
    units: str = ""


class SearchOutput(BaseModel):
    entities: list[EntityHit]


class PricesInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    ids: list[str] = Field(
        min_length=1, max_length=50, description="Stock, ETF or index ids, e.g. ['AAPL', '^GSPC']."
    )
    start: date | None = Field(default=None, description="First date (inclusive).")
    end: date | None = Field(default=None, description="Last date (inclusive).")
    freq: Literal["daily", "weekly", "monthly"] = "daily"
    field: Literal["close", "adj_close", "open", "high", "low", "volume"] = Field(
        default="close", description="adj_close for returns across splits and dividends."
    )


class SeriesInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    ids: list[str] = Field(
        min_length=1, max_length=50, description="Macro, commodity or factor ids, e.g. ['UNRATE']."
    )
    start: date | None = Field(default=None, description="First date (inclusive).")
    end: date | None = Field(default=None, description="Last date (inclusive).")
    freq: Literal["monthly", "quarterly", "annual"] | None = Field(
        default=None, description="Resample to this frequency; default as published."
    )


class DataOutput(BaseModel):
    table: Table
    truncated: bool = Field(description=f"True when only the latest {MAX_ROWS} rows are given.")
    notes: list[str] = Field(default_factory=list)
    sources: list[str] = Field(default_factory=list)


class InterfaceInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(
        min_length=1, description="An interface of the library with plain arguments: get_ohlcv."
    )
    arguments: dict[str, Any] = Field(
        default_factory=dict, description="Its arguments (plain values; no frame references)."
    )


class InterfaceOutput(BaseModel):
    interface: str
    text: str = Field(default="", description="Text results, and what the call produced.")
    tables: list[Table] = Field(default_factory=list)
    images: list[str] = Field(
        default_factory=list,
        description="URLs of the charts as PNG (over MCP the charts come as images).",
    )
    notes: list[str] = Field(default_factory=list)


# --- the registry --------------------------------------------------------------------------------

# The asker's own tools (imported operations, MCP tools, added interfaces) for one call's request,
# which `ask` tries when the data could not answer. Only the face knows who asks, so it binds
# them per call (blocking: they may be read from the store).
AskerTools = Callable[["RequestContext"], dict[str, Tool]]


@dataclass(frozen=True)
class OperationContext:
    """What operations run with: the settings of the server or command that publishes them, and
    the tools of whoever asks (none unless the face knows the asker)."""

    settings: Settings
    asker_tools: AskerTools | None = None
    data_owner: str | None = None  # whose imports the data includes (the asker's, if known)

    def request(self, today: date | None = None) -> RequestContext:
        """The context of one call, as every front end builds it (blocking: it may open the
        data and load the interface library, so call it off the event loop)."""
        from datapilot.engine.context import RequestContext

        question = QuestionContext(
            today=today or self.settings.effective_today(),
            brain=self.settings.brain,
            offline=self.settings.offline,
            data_owner=self.data_owner,
        )
        return RequestContext.for_request(question, self.settings)


@dataclass
class Outcome:
    result: BaseModel
    charts: list[ChartOutput] = field(default_factory=list)
    text: str = ""


Runner = Callable[[Any, OperationContext], Awaitable[Outcome]]


@dataclass(frozen=True)
class Operation:
    name: str
    summary: str
    description: str
    input: type[BaseModel]
    output: type[BaseModel]
    run: Runner
    path: str  # the HTTP face's route


async def _ask(arguments: AskInput, context: OperationContext) -> Outcome:
    from datapilot.brains import run
    from datapilot.engine.pipeline import final_answer
    from datapilot.tools.offline import try_user_tools

    limit = context.settings.max_question_chars
    if len(arguments.query) > limit:
        raise OperationError(
            "invalid",
            f"The question has {len(arguments.query):,} characters; the limit is {limit:,} "
            "(DATAPILOT_MAX_QUESTION_CHARS). Ask a shorter question.",
        )
    request = context.request(arguments.today)
    events = run(arguments.query, request)
    tools_of = context.asker_tools
    if tools_of is not None:
        # A question the data could not answer goes to the asker's tools (read only then); one
        # that must be confirmed does not run here: the answer says how to run it.
        events = try_user_tools(
            events,
            arguments.query,
            lambda: tools_of(request),
            request.question.today,
            timeout_s=context.settings.call_timeout_s * 2,
        )
    report = progress_reporter.get()
    answer = await final_answer(events if report is None else reporting(events, report))
    result = _ask_output(answer)
    charts = [output for output in answer.outputs if isinstance(output, ChartOutput)]
    return Outcome(result, charts, ask_text(answer, context.settings.mcp_text_rows))


def _ask_output(answer: Answer) -> AskOutput:
    return AskOutput(
        answer=answer.summary or answer.message or "",
        status=answer.status,
        tables=[_table(output) for output in answer.outputs if isinstance(output, TableOutput)],
        notes=answer.notes,
        sources=answer.sources,
    )


async def _search(arguments: SearchInput, context: OperationContext) -> Outcome:
    catalog = context.request().data.catalog
    # The entities the text names (苹果和微软: both), then the closest names to all of it;
    # over-fetched, so that filtering by kind still fills the limit.
    limit = arguments.limit * (4 if arguments.kind else 1)
    found = [*catalog.mentions(arguments.query), *catalog.lookup(arguments.query, limit=limit)]
    matches: list[Match] = []
    for match in found:  # each entity once, where it first came
        if all(match.entity.id != kept.entity.id for kept in matches):
            matches.append(match)
    hits = [
        EntityHit(
            id=match.entity.id,
            name=match.entity.name,
            kind=match.entity.kind,
            score=round(match.score, 1),
            available=match.entity.available,
            first=match.entity.first,
            last=match.entity.last,
            frequency=match.entity.frequency,
            units=match.entity.units,
        )
        for match in matches
        if arguments.kind is None or match.entity.kind == arguments.kind
    ][: arguments.limit]
    lines = [f"{hit.id}: {hit.name} ({hit.kind}, score {hit.score:g})" for hit in hits]
    text = "\n".join(lines) or f"No entity matches {arguments.query!r}."
    return Outcome(SearchOutput(entities=hits), text=text)


async def _prices(arguments: PricesInput, context: OperationContext) -> Outcome:
    return await _data_call("get_prices", arguments.model_dump(exclude_none=True), context)


async def _series(arguments: SeriesInput, context: OperationContext) -> Outcome:
    return await _data_call("get_series", arguments.model_dump(exclude_none=True), context)


async def _data_call(name: str, args: dict[str, Any], context: OperationContext) -> Outcome:
    import pandas as pd

    value, run = await _one_call(name, args, context.request())
    if not isinstance(value, pd.DataFrame):
        raise OperationError("refused", f"{name} returned no table")
    frame = value.tail(MAX_ROWS)
    title = str(value.attrs.get("title") or name)
    table = _frame_table(frame, title, value.attrs.get("units"), value.attrs.get("unit"))
    result = DataOutput(
        table=table, truncated=len(value) > MAX_ROWS, notes=run.notes, sources=run.sources
    )
    span = f", {table.rows[0][0]} to {table.rows[-1][0]}" if table.rows else ""
    lines = [f"{title}: {len(value)} rows × {len(value.columns)} columns{span}"]
    if result.truncated:
        lines.append(f"Only the latest {MAX_ROWS:,} rows are given.")
    lines.append(_table_text(table, context.settings.mcp_text_rows))
    lines += [*run.notes, *(["sources: " + ", ".join(run.sources)] if run.sources else [])]
    return Outcome(result, text="\n".join(lines))


def _table_text(table: Table, max_rows: int) -> str:
    return markdown_table(
        table.title, table.columns, table.rows, max_rows=max_rows, units=table.units
    )


async def _interface(arguments: InterfaceInput, context: OperationContext) -> Outcome:
    request = context.request()
    if arguments.name not in request.registry:
        raise OperationError("invalid", _no_interface(arguments.name, request))
    spec = request.registry.get(arguments.name)
    if any(param.frame is not None for param in spec.params.values()):
        raise OperationError(
            "invalid",
            f"{spec.name} takes data from an earlier step; ask the question with `ask` instead",
        )
    import pandas as pd

    value, run = await _one_call(spec.name, arguments.arguments, request)
    tables = [_table(output) for output in run.outputs if isinstance(output, TableOutput)]
    texts = [output.text for output in run.outputs if isinstance(output, TextOutput)]
    if isinstance(value, pd.DataFrame):
        tables.insert(0, _frame_table(value.tail(MAX_ROWS), spec.name, value.attrs.get("units")))
    elif value is not None and not run.outputs:
        texts.append(str(value))
    charts = [output for output in run.outputs if isinstance(output, ChartOutput)]
    made = [counted(len(tables), "table")] + ([counted(len(charts), "chart")] if charts else [])
    text = "\n".join([*texts, f"{spec.name}: {', '.join(made)}"])
    result = InterfaceOutput(interface=spec.name, text=text, tables=tables, notes=run.notes)
    # The text content also carries the tables' values (the structured text field stays short).
    shown = [text, *(_table_text(table, context.settings.mcp_text_rows) for table in tables)]
    return Outcome(result, charts, "\n\n".join([*shown, *run.notes]))


def _no_interface(name: str, request: RequestContext) -> str:
    """Why `name` cannot be called, with the names that can (any face: stdio has no routes)."""
    import difflib

    callable_ = sorted(
        spec.name
        for spec in (request.registry.get(n) for n in request.registry.names())
        if all(param.frame is None for param in spec.params.values())
    )
    close = difflib.get_close_matches(name, callable_, n=1)
    hint = f"did you mean {close[0]}? " if close else ""
    return f"there is no interface {name!r}; {hint}the ones call_interface takes: " + ", ".join(
        callable_
    )


async def _one_call(name: str, args: dict[str, Any], request: RequestContext) -> Any:
    """Run one interface call as a checked one-step plan; its value and the run's record."""
    from datapilot.core.plan import PlanError
    from datapilot.engine.executor import execute

    plan = Plan(steps=[Step(calls=[Call(interface=name, args=args, output="r")])])
    try:
        run = await execute(
            plan,
            request.interface_context(),
            registry=request.registry,
            call_timeout_s=request.settings.call_timeout_s,
        )
    except PlanError as error:
        raise OperationError("invalid", str(error)) from error
    record = run.calls[0]
    if record.status == "timeout":
        raise OperationError("timeout", record.error or f"{name} took too long")
    if record.status != "ok":  # an unknown entity, a window without data, a bad argument
        raise OperationError("refused", record.error or record.status)
    return run.values.get("r"), run


def _table(output: TableOutput) -> Table:
    rows = [[_json_cell(cell) for cell in row] for row in output.rows]
    return Table(title=output.title, columns=output.columns, rows=rows, units=output.units)


def _frame_table(frame: pd.DataFrame, title: str, units: Any = None, unit: Any = None) -> Table:
    from datapilot.interfaces.cells import frame_rows

    columns, rows = frame_rows(frame)
    per_column = dict(units) if isinstance(units, dict) else {}
    if not per_column and isinstance(unit, str) and unit:
        per_column = {str(column): unit for column in frame.columns}
    return Table(
        title=title,
        columns=columns,
        rows=[[_json_cell(cell) for cell in row] for row in rows],
        units={str(k): str(v) for k, v in per_column.items() if v},
    )


def _json_cell(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None  # JSON has no NaN
    return value


OPERATIONS: tuple[Operation, ...] = (
    Operation(
        name="ask",
        summary="Answer a finance data question with charts, tables and a grounded summary",
        description=(
            "Ask a question about market or economic data in English or Chinese (prices, "
            "returns, volatility, drawdowns, K-lines and indicators, macro series, comparisons, "
            "forecasts). Returns the answer in words, the tables, and the charts."
        ),
        input=AskInput,
        output=AskOutput,
        run=_ask,
        path="/run",
    ),
    Operation(
        name="search_entities",
        summary="Find stocks, ETFs, indices and macro series by name, ticker or code",
        description=(
            "Look up the ids of stocks, ETFs, indices, macro, commodity and factor series by "
            "name (English or Chinese), ticker or code, with the dates their data cover."
        ),
        input=SearchInput,
        output=SearchOutput,
        run=_search,
        path="/run/search_entities",
    ),
    Operation(
        name="get_prices",
        summary="Daily, weekly or monthly prices of stocks, ETFs and indices",
        description=(
            "Prices over time, one column per id (USD for stocks and ETFs, points for indices); "
            "weekly and monthly are the last trading day of each period."
        ),
        input=PricesInput,
        output=DataOutput,
        run=_prices,
        path="/run/get_prices",
    ),
    Operation(
        name="get_series",
        summary="Values of macro, commodity or factor series over time",
        description=(
            "Values of macro, commodity or factor series (FRED-style ids such as UNRATE, "
            "GDPC1), one column per id, in each series' unit."
        ),
        input=SeriesInput,
        output=DataOutput,
        run=_series,
        path="/run/get_series",
    ),
    Operation(
        name="call_interface",
        summary="Call one interface of Datapilot's library with plain arguments",
        description=(
            "Call any interface of the library whose arguments are plain values (no data from "
            "earlier steps), e.g. get_ohlcv; returns its table, text and charts."
        ),
        input=InterfaceInput,
        output=InterfaceOutput,
        run=_interface,
        path="/run/call_interface",
    ),
)


def operation(name: str) -> Operation:
    """The published operation `name` (KeyError when there is none)."""
    for op in OPERATIONS:
        if op.name == name:
            return op
    raise KeyError(name)
