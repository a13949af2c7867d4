"""What the MCP server offers besides tools: the catalog as a resource (every id a tool takes,
with the dates its data cover), the caller's documents when the front end knows the caller (a
`Shelf`: knowledge libraries belong to a user of the platform), and prompts that start common
analyses."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from typing import Any, Protocol

import mcp_types as types
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS

from datapilot.tools.published.operations import OperationContext

CATALOG = types.Resource(
    uri="datapilot://catalog",
    name="catalog",
    title="Datapilot catalog",
    description="Every stock, ETF, index, macro, commodity and factor series Datapilot knows: "
    "id, name, kind, whether data exists, first and last date, frequency and units (CSV).",
    mime_type="text/csv",
)


@dataclass(frozen=True)
class ShelfItem:
    """One document a caller may read, as a resource."""

    uri: str
    name: str
    description: str
    mime_type: str = "text/plain"


class Shelf(Protocol):
    """The documents of whoever calls (`caller`: the transport's request, None over stdio)."""

    async def items(self, caller: Any) -> list[ShelfItem]: ...

    async def read(self, caller: Any, uri: str) -> str | None:
        """The document's text; None when this caller has no such document."""
        ...


_CATALOG_COLUMNS = ["id", "name", "kind", "available", "first", "last", "frequency", "units"]


def catalog_csv(context: OperationContext) -> str:
    """The catalog as CSV, one entity a row (blocking: it may open the data)."""
    catalog = context.request().data.catalog
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(_CATALOG_COLUMNS)
    for entity in sorted(catalog.entities(), key=lambda entity: entity.id):
        writer.writerow(
            [
                entity.id,
                entity.name,
                entity.kind,
                entity.available,
                entity.first or "",
                entity.last or "",
                entity.frequency,
                entity.units,
            ]
        )
    return buffer.getvalue()


def _argument(name: str, description: str, required: bool = True) -> types.PromptArgument:
    return types.PromptArgument(name=name, description=description, required=required)


_WINDOW = _argument("window", "A time window in words, e.g. 'in 2021' or 'past 3 years'.", False)
# name → (the prompt, the question it asks with {argument} slots)
PROMPTS: dict[str, tuple[types.Prompt, str]] = {
    "compare_returns": (
        types.Prompt(
            name="compare_returns",
            title="Compare cumulative returns",
            description="Compare the cumulative returns of several stocks, ETFs or indices.",
            arguments=[
                _argument("ids", "Ids or names, e.g. 'JPM, BAC' or 'Apple and Microsoft'."),
                _WINDOW,
            ],
        ),
        "Compare the cumulative returns of {ids} {window} and show a table",
    ),
    "kline": (
        types.Prompt(
            name="kline",
            title="K-line with indicators",
            description="A candlestick chart of one stock or index with its volume and MACD.",
            arguments=[_argument("id", "An id or name, e.g. 'AAPL' or '^GSPC'."), _WINDOW],
        ),
        "Show the K-line of {id} with volume and MACD {window}",
    ),
    "macro_trend": (
        types.Prompt(
            name="macro_trend",
            title="A macro series over time",
            description="How a macro series (unemployment, inflation, GDP, rates) moved.",
            arguments=[_argument("series", "A series in words or its id, e.g. 'UNRATE'."), _WINDOW],
        ),
        "How did {series} change {window}? Show a chart",
    ),
}


def prompt_result(name: str, arguments: dict[str, str]) -> types.GetPromptResult:
    """The prompt `name` filled with `arguments`: one user message asking Datapilot's `ask`."""
    if name not in PROMPTS:
        names = ", ".join(PROMPTS)
        raise MCPError(INVALID_PARAMS, f"There is no prompt {name!r}; the prompts are {names}.")
    prompt, template = PROMPTS[name]
    missing = [a.name for a in prompt.arguments or [] if a.required and not arguments.get(a.name)]
    if missing:
        raise MCPError(INVALID_PARAMS, f"The prompt {name!r} needs {', '.join(missing)}.")
    values = {a.name: arguments.get(a.name, "") for a in prompt.arguments or []}
    question = " ".join(template.format(**values).split())
    text = f"Use Datapilot's `ask` tool with this question, then explain the answer: {question}"
    return types.GetPromptResult(
        description=prompt.description,
        messages=[
            types.PromptMessage(role="user", content=types.TextContent(type="text", text=text))
        ],
    )
