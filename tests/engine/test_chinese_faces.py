"""What a Chinese user sees on every face holds no English prose: a chart's legend and hover names
(forecast bands, indicator lines, fit lines, volume bars), a table's title, headers and cells
(the result's columns, the user's own table's columns, a measure named in a cell), the terminal's
view of an answer (its text charts too; the plan's calls, commands and settings aside) and what a
face says when a chart could not be drawn. Entity codes (AAPL, ^GSPC), units and the user's own
words in quotes aside."""

from __future__ import annotations

import csv
import io
import re
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from support import paths
from support.asking import ask, run

from datapilot.core.answer import Answer
from datapilot.core.context import ClientTable, QuestionContext
from datapilot.core.outputs import ChartOutput, TableOutput
from datapilot.render.charts import to_plotly
from datapilot.render.markdown import table_headers
from datapilot.render.terminal import print_files, render

# English prose: a word of three or more letters with lower-case letters after the first; code
# (snake_case names, `quoted`) is matched apart so that a machine name is caught too.
_PROSE = re.compile(r"(?<![\w`$.-])[A-Za-z][a-z]{2,}(?![\w`(])")
_SNAKE = re.compile(r"\b[a-z]+_[a-z0-9_]+\b")
# Commands and settings a message tells the user to type.
_CODE = re.compile(r"`[^`]*`|[A-Z_]+=[\w.,/-]*")
_QUOTED = re.compile(r"“[^”]*”|\"[^\"]*\"")  # the user's own words and names
TABLES = paths.ROOT / "tests" / "fixtures" / "tables"


def _english(texts: list[str]) -> list[str]:
    said = [_QUOTED.sub(" ", str(t)) for t in texts]
    return [w for t in said for w in _PROSE.findall(t) + _SNAKE.findall(t)]


async def _ask(question: str, today: str, tables: list[ClientTable] | None = None) -> Answer:
    context = QuestionContext(
        today=date.fromisoformat(today), brain="offline", offline=True, tables=tables or []
    )
    return await ask(question, context)


def _legend(answer: Answer) -> list[str]:
    """Each chart's trace names as the page's Plotly figure shows them (legend and hover)."""
    charts = [o for o in answer.outputs if isinstance(o, ChartOutput)]
    return [str(t["name"]) for c in charts for t in to_plotly(c)["data"] if t.get("name")]


def _table_words(answer: Answer) -> list[str]:
    """Titles, headers and text cells of the answer's tables, and its charts' titles."""
    tables = [o for o in answer.outputs if isinstance(o, TableOutput)]
    words = [o.title for o in answer.outputs if isinstance(o, ChartOutput | TableOutput)]
    words += [h for t in tables for h in table_headers(t)]
    return words + [c for t in tables for row in t.rows for c in row if isinstance(c, str)]


@pytest.mark.parametrize(
    ("question", "today", "expected"),
    [
        ("预测苹果未来10个交易日的股价", "2022-12-28", {"预测值", "区间"}),
        ("IBM今年一季度的布林带", "2011-03-31", {"上轨", "中轨", "下轨"}),
        ("画出苹果近两个月的K线图，并加上MACD", "2012-06-29", {"成交量", "DIF", "DEA"}),
        ("苹果和微软的股价相关性", "2022-12-28", set()),
    ],
)
async def test_a_chinese_chart_names_its_lines_in_chinese(
    data: Any, question: str, today: str, expected: set[str]
) -> None:
    answer = await _ask(question, today)
    legend = _legend(answer)
    assert legend and expected <= set(legend), legend
    assert not _english(legend), legend  # not forecast, upper, interval, macd, volume, fit


@pytest.mark.parametrize(
    ("question", "today"),
    [
        ("因子ETF在2020年的平均收益率", "2022-12-28"),  # a measure named in a cell
        ("强生2019年日收益率的均值和标准差", "2020-01-05"),  # a second mean beside the first
        ("百事2022年上涨和下跌的交易日各有几天", "2022-12-28"),  # up, down, flat, periods
        ("2021年苹果最长连涨了几天", "2022-12-28"),  # ties
        ("苹果2021年涨幅最大的5天", "2022-12-28"),  # from_date
    ],
)
async def test_a_chinese_table_names_its_columns_in_chinese(
    data: Any, question: str, today: str
) -> None:
    answer = await _ask(question, today)
    tables = [o for o in answer.outputs if isinstance(o, TableOutput)]
    assert tables, answer.summary
    assert not _english(_table_words(answer)), _table_words(answer)


def _table(name: str) -> ClientTable:
    with (TABLES / f"{name}.csv").open(encoding="utf-8") as file:
        header, *rows = list(csv.reader(file))
    return ClientTable(name=name, source="widget", columns=header, rows=rows)


@pytest.mark.parametrize(
    ("table", "question"),
    [
        ("annual_results", "这个表有什么"),
        ("annual_results", "净利润从2019年到2023年增长了多少"),
        ("annual_results", "按年份画出营收"),
        ("prices", "平均成交量是多少"),
        ("prices", "每天的收盘价和成交量"),
        ("prices", "收盘价的走势"),
        ("quarterly_revenue", "按年画出营收"),
        ("estimates", "每年的平均预期分别是多少"),
    ],
)
async def test_an_answer_about_the_users_table_is_chinese_in_its_tables_and_charts(
    data: Any, table: str, question: str
) -> None:
    answer = await _ask(question, "2024-06-30", [_table(table)])
    said = _table_words(answer) + _legend(answer)
    assert said, answer.summary
    # The table's own name is the user's word, said in quotes; its columns are said in Chinese.
    assert not _english(said), said


@pytest.mark.parametrize(
    ("question", "today"),
    [
        ("标普500近三年走势", "2022-12-28"),
        ("苹果和微软2021年谁涨得多", "2022-12-28"),
        ("苹果的市盈率是多少", "2022-12-28"),  # no data
        ("今天天气怎么样", "2022-12-28"),  # out of scope
        ("苹果2022年的最大回撤", "2022-12-28"),
        ("预测苹果未来10个交易日的股价", "2022-12-28"),
        ("微软近三个月的MACD", "2012-06-29"),
    ],
)
async def test_the_terminal_shows_a_chinese_answer_in_chinese(
    data: Any, tmp_path: Path, question: str, today: str
) -> None:
    context = QuestionContext(today=date.fromisoformat(today), brain="offline", offline=True)
    buffer = io.StringIO()
    console = Console(file=buffer, width=120, color_system=None)
    await render(run(question, context), console, draw_charts=True)
    print_files([Path("图表.png")], console, zh=True)
    # The plan lists its calls as code; everything else is read by the user.
    shown = _without_plan(buffer.getvalue())
    shown = re.sub(r"\s*│\n│ ?", "", shown)  # a panel's wrapped lines as one text
    sources = re.compile(r"^数据来源：.*$", re.M)  # the data sets' own names
    assert not _english([_CODE.sub(" ", sources.sub("", shown))]), shown


def _without_plan(text: str) -> str:
    """The terminal's text without the plan's tree (the line 计划 and the tree's lines after it)."""
    kept, in_plan = [], False
    for line in text.splitlines():
        if line == "计划":
            in_plan = True
        elif not (in_plan and line[:1] in ("├", "└", "│", " ")):
            in_plan = False
            kept.append(line)
    return "\n".join(kept)


async def test_a_chart_that_cannot_be_drawn_is_said_in_chinese(
    data: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import datapilot.tools.published.charts as published
    from datapilot.server.openai_reply import chart_links

    def fails(chart: ChartOutput) -> bytes:
        raise RuntimeError("渲染器不可用")

    monkeypatch.setattr(published, "png_bytes", fails)
    answer = await _ask("画出苹果2021年的收盘价", "2022-12-28")
    links = await chart_links(answer.outputs, tmp_path, "http://localhost")
    assert links and all("渲染器不可用" in link for link in links)
    assert not _english(links), links


@pytest.mark.parametrize("question", ["画出苹果2021年的收盘价", "画出苹果2021年12月的收盘价"])
async def test_a_chinese_charts_dates_are_chinese_on_the_page_and_in_its_png(
    data: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, question: str
) -> None:
    from matplotlib.figure import Figure

    from datapilot.render.charts import to_png

    answer = await _ask(question, "2022-12-28")
    chart = next(o for o in answer.outputs if isinstance(o, ChartOutput))
    x_axis = to_plotly(chart)["layout"]["xaxis"]
    # A hover says the day as Plotly formats it: "%b %d, %Y" (Mar 16, 2021) unless told.
    assert "年" in x_axis["hoverformat"] and "%b" not in x_axis["hoverformat"]
    drawn: list[Figure] = []
    save = Figure.savefig

    def keep(figure: Figure, *args: Any, **kwargs: Any) -> None:
        drawn.append(figure)
        save(figure, *args, **kwargs)

    monkeypatch.setattr(Figure, "savefig", keep)
    to_png(chart, tmp_path / "chart.png")
    axis = drawn[0].axes[-1]
    ticks = [t.get_text() for t in axis.get_xticklabels()] + [
        axis.xaxis.get_offset_text().get_text()
    ]
    assert any("月" in t or "年" in t for t in ticks), ticks
    assert not [t for t in ticks if re.search(r"[A-Za-z]{3}", t)], ticks  # not Jan, Mar
