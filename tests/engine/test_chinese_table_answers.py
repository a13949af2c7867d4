"""A Chinese question about the user's table is answered with Chinese column words.

The table keeps its English columns (close, number_of_analysts, "Revenue (USD bn)"), but the
Chinese summary says 收盘价, 分析师人数, 营收, and a chart of it titles its axis the same way; an
English question still says the column's own name. Figures are computed here with pandas from
the fixture files.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any

import pandas as pd
import pytest
from support import paths
from support.asking import ask

from datapilot.core.answer import Answer
from datapilot.core.context import ClientTable, QuestionContext
from datapilot.core.outputs import ChartOutput
from datapilot.render.charts import to_plotly

TABLES = paths.FIXTURES / "tables"
ENGLISH_COLUMN = re.compile(
    r"\b(close|open|high|low|volume|mean|revenue|number_of_analysts|low_estimate|net_income)\b",
    re.IGNORECASE,
)


async def _ask(question: str, name: str) -> Answer:
    raw = pd.read_csv(TABLES / f"{name}.csv", dtype=str)  # as a client sends it: text cells
    table = ClientTable(name=name, columns=list(raw.columns), rows=raw.values.tolist())
    context = QuestionContext(today=date(2024, 6, 30), tables=[table], brain="offline")
    return await ask(question, context)


def _english_columns(text: str) -> list[str]:
    return ENGLISH_COLUMN.findall(re.sub(r"用 \w+", "", text))  # interface names are code


async def test_the_latest_close_is_said_as_the_closing_price(data: Any) -> None:
    prices = pd.read_csv(TABLES / "prices.csv")
    answer = await _ask("最新收盘价是多少？", "prices")
    assert answer.status == "ok"
    assert f"收盘价：{prices['date'].iloc[-1]}为{prices['close'].iloc[-1]:.2f}" in answer.summary
    assert _english_columns(answer.summary) == [], answer.summary


async def test_the_day_of_the_highest_high_names_every_column_in_chinese(data: Any) -> None:
    prices = pd.read_csv(TABLES / "prices.csv")
    top = prices.loc[prices["high"].idxmax()]
    answer = await _ask("最高价是哪天", "prices")
    assert answer.status == "ok"
    assert f"最高价最高为{top['high']}，在{top['date']}" in answer.summary
    assert f"开盘价为{top['open']}" in answer.summary and "成交量为" in answer.summary
    assert _english_columns(answer.summary) == [], answer.summary


async def test_averages_of_estimates_say_how_many_analysts_in_chinese(data: Any) -> None:
    estimates = pd.read_csv(TABLES / "estimates.csv")
    answer = await _ask("每年的平均预期分别是多少", "estimates")
    assert answer.status == "ok"
    analysts = estimates["number_of_analysts"].mean()
    assert f"分析师人数的平均值（共{len(estimates)}行）为{analysts:.2f}" in answer.summary
    assert _english_columns(answer.summary) == [], answer.summary


@pytest.mark.parametrize(("name", "axis"), [("annual_results", "营收"), ("prices", "收盘价")])
async def test_a_chart_of_a_table_titles_its_axis_in_chinese(
    data: Any, name: str, axis: str
) -> None:
    question = "按年份画出营收" if name == "annual_results" else "画出收盘价的走势"
    answer = await _ask(question, name)
    charts = [o for o in answer.outputs if isinstance(o, ChartOutput)]
    assert charts, answer.summary
    layout = to_plotly(charts[0])["layout"]
    titles = [
        v["title"]["text"] for k, v in layout.items() if k.startswith("yaxis") and v.get("title")
    ]
    assert any(axis in t for t in titles), titles
    assert not any(_english_columns(t) for t in titles), titles


async def test_an_english_question_keeps_the_columns_own_names(data: Any) -> None:
    prices = pd.read_csv(TABLES / "prices.csv")
    answer = await _ask("what is the latest close?", "prices")
    assert answer.status == "ok"
    assert "close" in answer.summary and f"{prices['close'].iloc[-1]:.2f}" in answer.summary
