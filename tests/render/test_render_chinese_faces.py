"""A Chinese question is answered in Chinese on every face: the terminal view, the `/v1` reply's
text, the MCP `ask` tool's text content, and the page's entity chips, table headers and date
ticks. Answers to a sample of the corpus's Chinese questions are rendered on each, and no English
word is left outside what stays Latin in Chinese text: tickers and series ids, acronyms (MACD,
GDP), source names, unit abbreviations, numbers, and code (the plan view's calls, `quoted`
commands). The summary says what was done in words, and the terminal never wraps inside a
number."""

from __future__ import annotations

import io
import json
import re
from collections.abc import AsyncIterator
from datetime import date
from typing import Any

import pytest
from rich.console import Console
from support import paths
from support.asking import run

from datapilot.core.answer import Answer
from datapilot.core.context import QuestionContext
from datapilot.core.events import Done, Event
from datapilot.core.outputs import ChartOutput, TableOutput
from datapilot.data.phrases_zh import chinese_name
from datapilot.engine.executor import default_registry
from datapilot.render.markdown import table_headers
from datapilot.render.plotly_figure import plotly_figure
from datapilot.render.terminal import render
from datapilot.server.openai_reply import with_outputs
from datapilot.tools.published.text import ask_text

SAMPLE = 30  # of the corpus's Chinese questions, spread over every file
# A Latin word: letters, maybe joined by ' . & -.
_WORD = re.compile(r"[A-Za-z][A-Za-z'&.-]*[A-Za-z]|[A-Za-z]")
# Code is code in either language: `quoted` commands, snake_case names, settings and paths,
# command-line options and URLs.
_CODE = re.compile(r"`[^`]*`|\b\w+_\w+\b|--\w[\w-]*|https?://\S+|[\w.,-]*[=/][\w.,/=-]*")
_UNITS = {"ms", "bp", "pp", "x"}


def _questions() -> list[dict[str, Any]]:
    cases = [
        case
        for file in sorted(paths.CORPUS.glob("*.jsonl"))
        for line in file.read_text(encoding="utf-8").splitlines()
        if line.strip() and (case := json.loads(line)).get("lang") == "zh"
    ]
    step = max(1, len(cases) // SAMPLE)
    return cases[::step][:SAMPLE]


async def _events(case: dict[str, Any]) -> list[Event]:
    context = QuestionContext(today=date.fromisoformat(case["today"]), brain="offline")
    return [event async for event in run(case["query"], context)]


async def _replay(events: list[Event]) -> AsyncIterator[Event]:
    for event in events:
        yield event


def _allowed(answer: Answer, catalog: Any) -> set[str]:
    """The Latin words a Chinese answer may hold: its sources and the names its entities keep in
    Chinese (a brand without a Chinese name, such as Range Resources)."""
    allowed = set(_UNITS)
    # The question's own Latin words, quoted back ("gdp" in 中国近十年gdp: what was not found).
    allowed |= set(_WORD.findall(answer.query))
    for source in answer.sources:
        allowed |= set(_WORD.findall(source))
    for entity in answer.intent.entities if answer.intent else []:
        known = catalog.get(entity.id)
        if known is not None:
            allowed |= set(_WORD.findall(chinese_name(known)))
    return allowed


def _english(text: str, allowed: set[str]) -> list[str]:
    """The English words of `text`: Latin words that are not acronyms or ids (AAPL, GDP, ^GSPC),
    code, or `allowed`."""
    words = _WORD.findall(_CODE.sub(" ", text))
    return [w for w in words if not (w.isupper() or w in allowed or w.upper() == w)]


def _terminal(events: list[Event]) -> str:
    """The terminal view, wide enough that no line wraps, without the plan's calls (code)."""
    console = Console(file=io.StringIO(), width=400, record=True, color_system=None)
    import asyncio

    asyncio.run(render(_replay(events), console, draw_charts=False))
    text = console.export_text()
    calls = re.compile(r"^[\s│├└─]*\w+\(.*\) → \w+")
    return "\n".join(line for line in text.splitlines() if not calls.match(line))


def _classed() -> list[dict[str, Any]]:
    """Every Chinese question of a named class of the corpus (best and worst periods, a gap in
    percentage points, a series' statistic…): each class's tables have their own columns."""
    return [
        case
        for file in sorted(paths.CORPUS.glob("*.jsonl"))
        for line in file.read_text(encoding="utf-8").splitlines()
        if line.strip() and (case := json.loads(line)).get("lang") == "zh" and case.get("class")
    ]


@pytest.fixture(scope="module")
def answered(data: Any) -> list[tuple[dict[str, Any], list[Event], Answer]]:
    import asyncio

    out = []
    for case in _questions():
        events = asyncio.run(_events(case))
        done = events[-1]
        assert isinstance(done, Done), case["query"]
        out.append((case, events, done.answer))
    return out


def test_the_sample_covers_tables_charts_and_refusals(answered: list[Any]) -> None:
    statuses = {answer.status for _, _, answer in answered}
    assert {"ok", "no_data"} <= statuses
    assert any(o.kind == "table" for _, _, a in answered for o in a.outputs)


@pytest.mark.parametrize("face", ["terminal", "v1", "mcp", "page"])
def test_a_chinese_answer_has_no_english_word_on_any_face(
    answered: list[Any], data: Any, face: str
) -> None:
    found = {}
    for case, events, answer in answered:
        if face == "terminal":
            text = _terminal(events)
        elif face == "v1":
            text = with_outputs(answer.summary or answer.message or "", answer.outputs, [])
        elif face == "mcp":
            text = ask_text(answer, max_rows=40)
        else:  # what the page shows beside the answer's words: entity chips, table headers
            tables = [o for o in answer.outputs if isinstance(o, TableOutput)]
            assert all(len(t.headers) == len(t.columns) for t in tables), case["query"]
            entities = answer.intent.entities if answer.intent else []
            chips = [f"{e.label or e.name} ({e.id})" for e in entities]
            text = "\n".join([*chips, *(" | ".join(t.headers) for t in tables)])
        english = _english(text, _allowed(answer, data.catalog))
        if english:
            found[case["query"]] = sorted(set(english))
    assert not found, json.dumps(found, ensure_ascii=False, indent=1)


def test_a_chinese_summary_says_what_was_done_not_which_function(answered: list[Any]) -> None:
    names = set(default_registry().names())
    named = {
        case["query"]: sorted(n for n in names if re.search(rf"\b{n}\b", answer.summary))
        for case, _, answer in answered
    }
    assert not {q: n for q, n in named.items() if n}, named
    assert any("获取了" in answer.summary for _, _, answer in answered)


def test_a_chinese_chart_has_chinese_date_ticks(answered: list[Any]) -> None:
    charts = [
        chart
        for _, _, answer in answered
        for chart in answer.outputs
        if isinstance(chart, ChartOutput) and chart.spec.x == "date"
    ]
    assert charts
    for chart in charts:
        figure = plotly_figure(chart)
        if figure["layout"]["xaxis"].get("type") == "category":
            # Periods drawn as bars ("2020-03", "2020Q1") are labelled as written: no month
            # names, so nothing English to translate.
            labels = [str(x) for trace in figure["data"] for x in trace.get("x") or []]
            assert labels and not any(re.search(r"[A-Za-z]{3}", x) for x in labels), labels
            continue
        stops = figure["layout"]["xaxis"].get("tickformatstops") or []
        formats = [stop["value"] for stop in stops]
        assert formats and all("年" in f for f in formats), (chart.title, formats)


@pytest.mark.parametrize("width", range(24, 90, 7))
def test_the_terminal_never_wraps_inside_a_number(width: int) -> None:
    from datapilot.core.answer import Answer
    from datapilot.render.terminal import print_answer

    numbers = ["13,388.08", "1982-10-01", "-31.43%", "2020-03-23", "AAPL", "176.03"]
    summary = (
        "标普500的收盘价在1982-10-01为13,388.08点，苹果的最大回撤为-31.43%，"
        "从2020-02-12的高点跌至2020-03-23的低点；AAPL在2021-12-31为176.03美元。"
    )
    answer = Answer(query="标普500的走势", today=date(2022, 12, 28), status="ok", summary=summary)
    console = Console(file=io.StringIO(), width=width, record=True, color_system=None)
    print_answer(answer, console)
    lines = console.export_text().splitlines()
    assert any("总结" in line for line in lines)  # the panel's title, in Chinese
    body = [line.strip("│ ") for line in lines]
    assert "".join(body).count("13,388.08") == 1
    for number in numbers:
        assert any(number in line for line in body), (number, body)


@pytest.mark.parametrize("width", range(60, 121, 10))
def test_the_terminal_never_wraps_inside_a_number_in_a_table_header(width: int) -> None:
    """A header with a unit ("预测值（十亿美元（季调年率，2005年不变价））") is folded between
    words and numbers when its column is narrow, never inside "2005" nor before a closing mark."""
    from datapilot.core.outputs import TableOutput
    from datapilot.render.terminal import table_view

    unit = "十亿美元（季调年率，2005年不变价）"
    headers = ["日期", f"预测值（{unit}）", f"下限（{unit}）", f"上限（{unit}）"]
    table = TableOutput(
        title="实际GDP预测（未来4个季度）",
        columns=["date", "forecast", "lower", "upper"],
        rows=[["2009-10-01", 13033.71, 12918.86, 13148.56]],
        headers=headers,
    )
    console = Console(file=io.StringIO(), width=width, record=True, color_system=None)
    console.print(table_view(table))
    lines = console.export_text().splitlines()
    head = lines[: next(i for i, line in enumerate(lines) if "2009-10-01" in line)]
    cells = [cell.strip() for line in head for cell in re.split(r"[┃│┏┓┡┩━╇╋┳]+", line)]
    assert sum(cell.count("2005") for cell in cells) == 3, (width, head)
    assert not any(cell.startswith(("，", "）")) for cell in cells), (width, head)


def test_every_class_of_chinese_question_has_chinese_tables(data: Any) -> None:
    """The classed questions' tables (best and worst periods named by their week, a gap in
    percentage points, a pair's correlation) as every face shows them: the headers and the cells
    in Chinese, headers and cells being what the terminal, the page, `/v1` and MCP all print."""
    import asyncio

    found = {}
    for case in _classed():
        answer = asyncio.run(_events(case))[-1].answer  # type: ignore[attr-defined]
        tables = [o for o in answer.outputs if isinstance(o, TableOutput)]
        shown = [
            *(" | ".join(table_headers(t)) for t in tables),
            # An empty cell is shown blank on every face.
            *(
                " | ".join("" if c is None else str(c) for c in row)
                for t in tables
                for row in t.rows
            ),
        ]
        if english := _english("\n".join(shown), _allowed(answer, data.catalog)):
            found[case["query"]] = sorted(set(english))
    assert not found, json.dumps(found, ensure_ascii=False, indent=1)


def test_a_chinese_summary_names_a_pair_of_series_in_chinese(data: Any) -> None:
    """A rolling correlation's column is the pair "AAPL vs MSFT": the summary says 苹果与微软."""
    import asyncio

    pair = next(c for c in _classed() if "滚动相关系数" in c["query"])
    answer = asyncio.run(_events(pair))[-1].answer  # type: ignore[attr-defined]
    names = [chinese_name(data.catalog.get(e.id)) for e in answer.intent.entities]
    assert answer.status == "ok" and len(names) == 2, answer.summary
    assert "与".join(names) in answer.summary and " vs " not in answer.summary, answer.summary


@pytest.mark.parametrize("width", range(70, 121, 10))
def test_the_terminal_never_wraps_inside_a_date_in_a_table_cell(width: int) -> None:
    """A week's cell (2020-03-16至2020-03-20（2020-W12）) folds between its dates, not inside
    (from 70 columns: narrower, rich shrinks columns below their widest word)."""
    from datapilot.core.outputs import TableOutput
    from datapilot.render.terminal import table_view

    week = "2020-03-16至2020-03-20（2020-W12）"
    table = TableOutput(
        title="可口可乐最差的周（2020-01-01 至 2020-12-31）",
        columns=["id", "date", "period", "value", "rank", "group"],
        rows=[["KO", "2020-03-20", week, -20.98, 1, "跌幅最大"]],
        headers=["代码", "日期", "时段", "数值（%）", "排名", "组别"],
    )
    console = Console(file=io.StringIO(), width=width, record=True, color_system=None)
    console.print(table_view(table))
    cells = [c.strip() for line in console.export_text().splitlines() for c in line.split("│")]
    for date_ in ("2020-03-16", "2020-03-20", "2020-W12"):
        assert any(date_ in cell for cell in cells), (width, cells)
