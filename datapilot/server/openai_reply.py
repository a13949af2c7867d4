"""The reply text of the OpenAI-compatible face: what a standard client shows and what the
request's parameters make of it.

Charts travel as Markdown image links to PNGs this server serves (`/charts/NAME.png`, as `/run`
publishes them), tables as Markdown tables, so ChatGPT-like clients show both. Without a model,
the parameters a model would honour are honoured here: `response_format` returns the Answer as
JSON (or the part of it a `json_schema` asks for), `stop` and `max_tokens` cut the text and say
so in `finish_reason`; those that need a model (`tool_choice` forcing a tool, `logit_bias`, a
schema the Answer cannot fill) are refused before anything runs.
"""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

import jsonschema

from datapilot.core.answer import Answer
from datapilot.core.outputs import ChartOutput, Output, TableOutput
from datapilot.data.text import is_chinese
from datapilot.model_client import count_tokens
from datapilot.render.markdown import cell_text, escape_cell, table_headers
from datapilot.server.chart_files import save_png
from datapilot.server.openai_request import CompletionRequest

if TYPE_CHECKING:  # loaded with the first completion
    from datapilot.assistants.runtime import Turn

log = logging.getLogger(__name__)

NEEDS_MODEL = (
    "{what} needs a model, and none is configured for this assistant: set DATAPILOT_LLM_MODEL "
    "and DATAPILOT_LLM_BASE_URL (or the assistant's model), or leave `{param}` out"
)
# What the Answer JSON holds at its top level: a `json_schema` can ask for these without a model.
ANSWER_FIELDS = frozenset(Answer.model_fields)


class Refusal(Exception):
    """A parameter that cannot be honoured for this request: a 400 naming it."""

    def __init__(self, param: str, message: str) -> None:
        super().__init__(message)
        self.param = param
        self.message = message


def offline_refusal(body: CompletionRequest) -> Refusal | None:
    """Why this request cannot be answered without a model (the parameter at fault), if so."""
    if body.forced_tool:
        what = "A forced tool call (`tool_choice` required or a named function)"
        return Refusal("tool_choice", NEEDS_MODEL.format(what=what, param="tool_choice"))
    if body.n > 1:
        what = "More than one choice (`n`; the answer without one is always the same)"
        return Refusal("n", NEEDS_MODEL.format(what=what, param="n"))
    if body.logit_bias:
        return Refusal("logit_bias", NEEDS_MODEL.format(what="`logit_bias`", param="logit_bias"))
    schema = _asked_schema(body)
    if schema is not None:
        missing = _unfillable(schema)
        if missing:
            what = (
                f"A `json_schema` asking for {', '.join(sorted(missing))} (the Answer has "
                f"{', '.join(sorted(ANSWER_FIELDS))})"
            )
            return Refusal(
                "response_format", NEEDS_MODEL.format(what=what, param="response_format")
            )
    return None


def _asked_schema(body: CompletionRequest) -> dict[str, Any] | None:
    response_format = body.response_format
    if response_format is None or response_format.type != "json_schema":
        return None
    assert response_format.json_schema is not None  # the request model checks it
    return response_format.json_schema.schema_ or {"type": "object"}


def _unfillable(schema: dict[str, Any]) -> set[str]:
    """The required top-level fields of `schema` the Answer does not have."""
    required = set(schema.get("required") or [])
    return required - ANSWER_FIELDS


def offline_content(answer: Answer, text: str, links: list[str], body: CompletionRequest) -> str:
    """The reply's content without a model: the answer with its charts and tables, or the
    Answer as JSON when `response_format` asks for JSON. Raises `Refusal` for a schema the
    Answer cannot fill."""
    response_format = body.response_format
    if response_format is not None and response_format.type == "json_object":
        return answer.model_dump_json(exclude_none=True)
    schema = _asked_schema(body)
    if schema is not None:
        return json.dumps(fill_schema(schema, answer), ensure_ascii=False)
    return with_outputs(text, answer.outputs, links)


def fill_schema(schema: dict[str, Any], answer: Answer) -> Any:
    """The Answer's values for `schema` (the fields it names, at every level), checked against
    it; `Refusal` when they do not fit (a type the Answer does not have, say)."""
    data = answer.model_dump(mode="json")
    filled = _project(schema, data, schema.get("$defs") or schema.get("definitions") or {})
    try:
        jsonschema.validate(filled, schema)
    except jsonschema.ValidationError as error:
        where = ".".join(str(part) for part in error.absolute_path) or "the answer"
        what = f"A `json_schema` the Answer cannot fill ({where}: {error.message})"
        raise Refusal(
            "response_format", NEEDS_MODEL.format(what=what, param="response_format")
        ) from None
    return filled


def _project(schema: dict[str, Any], value: Any, defs: dict[str, Any]) -> Any:
    """`value` cut down to what `schema` describes: objects keep the properties it names."""
    reference = schema.get("$ref")
    if isinstance(reference, str) and reference.rsplit("/", 1)[-1] in defs:
        return _project(defs[reference.rsplit("/", 1)[-1]], value, defs)
    for option in schema.get("anyOf") or schema.get("oneOf") or []:
        projected = _project(option, value, defs)
        try:
            jsonschema.validate(projected, {**option, "$defs": defs})
        except jsonschema.ValidationError:
            continue
        return projected
    properties = schema.get("properties")
    if isinstance(properties, dict) and isinstance(value, dict):
        return {
            name: _project(part, value[name], defs)
            for name, part in properties.items()
            if name in value
        }
    items = schema.get("items")
    if isinstance(items, dict) and isinstance(value, list):
        return [_project(items, item, defs) for item in value]
    return value


def with_outputs(text: str, outputs: list[Output], links: list[str]) -> str:
    """The answer's text, then each chart as a Markdown image link and each table in Markdown."""
    parts = [text.strip()] if text.strip() else []
    parts += links
    parts += [table_markdown(output) for output in outputs if isinstance(output, TableOutput)]
    return "\n\n".join(parts)


def table_markdown(table: TableOutput) -> str:
    """A table as Markdown, its title above, each column by its display name and unit, every
    value at full precision."""
    lines = [f"**{escape_cell(table.title)}**", ""] if table.title else []
    # The headers are display names in the answer's language, each with its unit.
    lines.append("| " + " | ".join(escape_cell(name) for name in table_headers(table)) + " |")
    lines.append("|" + "---|" * len(table.columns))
    lines += ["| " + " | ".join(cell_text(cell) for cell in row) + " |" for row in table.rows]
    return "\n".join(lines)


async def chart_links(outputs: list[Output], data_dir: Path, base: str) -> list[str]:
    """Each chart drawn as a PNG served at `/charts/NAME.png`, as a Markdown image link (a chart
    that cannot be drawn is named instead, with why)."""
    from datapilot.render.charts import undrawn
    from datapilot.tools.published.charts import png_bytes

    links = []
    for chart in (output for output in outputs if isinstance(output, ChartOutput)):
        try:
            png = await asyncio.to_thread(png_bytes, chart)
            name = await asyncio.to_thread(save_png, data_dir, png)
        except Exception as error:
            log.exception("drawing %r failed", chart.title)
            said = undrawn(chart, error)
            links.append(f"（{said}）" if is_chinese(said) else f"({said})")
            continue
        alt = chart.title.replace("[", "(").replace("]", ")")
        links.append(f"![{alt}]({base}/charts/{name}.png)")
    return links


def limited(text: str, body: CompletionRequest) -> tuple[str, str]:
    """`text` cut at the first `stop` sequence and to `max_tokens`, and the finish reason."""
    for stop in body.stop_sequences:
        found = text.find(stop)
        if found >= 0:
            text = text[:found]
    limit = body.token_limit
    if limit is not None and count_tokens(text) > limit:
        return _first_tokens(text, limit), "length"
    return text, "stop"


def _first_tokens(text: str, limit: int) -> str:
    """The longest start of `text` within `limit` tokens (a binary search over its length)."""
    low, high = 0, len(text)
    while low < high:
        middle = (low + high + 1) // 2
        if count_tokens(text[:middle]) <= limit:
            low = middle
        else:
            high = middle - 1
    return text[:low]


class Reply:
    """What one completion's text becomes: with a model, its text and then the outputs of the
    tools it called (charts as PNG links, tables in Markdown); without one, the same from the
    Answer, or the Answer as JSON, cut as `stop` and `max_tokens` ask."""

    def __init__(self, turn: Turn, body: CompletionRequest, data_dir: Path, base: str) -> None:
        self.turn, self.body, self.data_dir, self.base = turn, body, data_dir, base
        self.offline = turn.setup.llm is None and turn.setup.model is None
        format_ = body.response_format
        self.json = format_ is not None and format_.type != "text"

    @property
    def buffered(self) -> bool:
        """Whether the text must be whole before any of it is sent (offline: to cut or format)."""
        return self.offline and bool(self.body.stop_sequences or self.body.token_limit or self.json)

    @property
    def notice(self) -> str | None:
        answer = self.turn.result.answer
        return answer.notice if answer is not None else None

    async def content(self, text: str) -> tuple[str, str]:
        """The reply's whole content and its finish reason."""
        answer = self.turn.result.answer
        outputs = list(answer.outputs) if answer is not None else []
        links = [] if self.json else await chart_links(outputs, self.data_dir, self.base)
        if self.offline and answer is not None:
            words = text.strip() or self.unwritten(text)
            content = offline_content(answer, words, links, self.body)
            return limited(content, self.body)
        content = text.strip() if self.json else with_outputs(text, outputs, links)
        return content, finish_reason(self.turn)

    def unwritten(self, text: str) -> str:
        """Without a model, the answer's words when the streamed `text` has none (the answer of
        the user's tools, or why the data could not answer): its summary, else its message."""
        answer = self.turn.result.answer
        if text.strip() or not self.offline or answer is None:
            return ""
        return answer.summary or answer.message or ""

    async def tail(self) -> str:
        """What follows streamed text: the outputs' Markdown (nothing for a JSON reply)."""
        answer = self.turn.result.answer
        if self.json or answer is None or not answer.outputs:
            return ""
        links = await chart_links(answer.outputs, self.data_dir, self.base)
        return with_outputs("", answer.outputs, links)


def finish_reason(turn: Turn) -> str:
    """`tool_calls` when the client's tools were called, `length` when its limit cut the reply."""
    if turn.result.client_calls:
        return "tool_calls"
    return "length" if turn.result.finish_reason == "length" else "stop"
