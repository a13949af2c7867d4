"""Questions in Chinese about a widget's table: answered in Chinese, columns found by their
Chinese words, numbers quoted exactly as the table holds them."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from datetime import date
from typing import Any

import httpx
import pandas as pd
import pytest
from support.openbb import (
    ESTIMATES,
    ESTIMATES_WIDGET,
    human,
    make_client,
    of,
    query,
    text_of,
    with_widget_data,
)

from datapilot.interfaces.context import InterfaceContext
from datapilot.interfaces.table_words import english_words, only_table_words


@pytest.fixture()
async def client(data) -> AsyncIterator[httpx.AsyncClient]:
    async with make_client() as client:
        yield client


def _frame() -> pd.DataFrame:
    frame = pd.DataFrame(ESTIMATES).set_index("fiscal_year")
    frame["revenue_avg"] = frame["revenue_avg"].str.rstrip("B").astype(float) * 1e9
    frame["eps_avg"] = frame["eps_avg"].astype(float)
    return frame


async def _ask(client: httpx.AsyncClient, question: str) -> list[tuple[str, Any]]:
    body = human(question, "2024-06-30", widgets={"primary": [ESTIMATES_WIDGET]})
    (call,) = of(await query(client, body), "copilotFunctionCall")  # the widget's data is asked
    with_widget_data(body, call, [ESTIMATES])
    return await query(client, body)


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        # The consensus revenue of FY2024, every digit of 391.0B.
        ("2024财年的一致预期营收是多少？", lambda f: f"{f.loc[2024, 'revenue_avg']:,.0f}"),
        (
            "哪一年EPS预期最高？",
            lambda f: f"最高为{f['eps_avg'].max():g}，在{f['eps_avg'].idxmax()}",
        ),
        (
            "2023到2026年营收增长多少",
            lambda f: (
                f"（{(f.loc[2026, 'revenue_avg'] / f.loc[2023, 'revenue_avg'] - 1) * 100:.2f}%）"
            ),
        ),
        ("EPS的平均预期是多少？", lambda f: f"为{f['eps_avg'].mean():.2f}"),
    ],
)
async def test_chinese_table_questions_are_answered_in_chinese(
    client: httpx.AsyncClient,
    question: str,
    expected: Any,
) -> None:
    text = text_of(await _ask(client, question))
    assert expected(_frame()) in text
    first = text.split("。")[0]
    assert "went from" not in first and "The highest" not in first and "The average" not in first


async def test_a_chinese_bar_chart_by_fiscal_year(client: httpx.AsyncClient) -> None:
    events = await _ask(client, "按财年画EPS柱状图")
    (chart,) = [a for a in of(events, "copilotMessageArtifact") if a["type"] == "chart"]
    params = chart["chart_params"]
    assert params["chartType"] == "bar" and params["xKey"] == "fiscal_year"
    (y,) = params["yKey"]
    assert y == "eps_avg"
    eps = _frame()["eps_avg"]
    assert {row["fiscal_year"]: row[y] for row in chart["content"]} == pytest.approx(eps.to_dict())


async def test_a_chinese_question_the_table_cannot_answer_lists_its_columns(
    client: httpx.AsyncClient,
) -> None:
    body = human("这个表里的股息率是多少？", "2024-06-30")
    body["context"] = [
        {
            "uuid": "5d1c7a0e-3b7e-4c4f-8d8e-1f2a3b4c5d70",
            "name": "estimates",
            "description": "EPS estimates",
            "data": {"content": json.dumps(ESTIMATES)},
        }
    ]
    text = text_of(await query(client, body))
    first = text.split("。")[0]
    assert "没有找到" in first and all(column in first for column in ESTIMATES[0])


def test_chinese_column_words_become_the_words_of_english_column_names() -> None:
    assert english_words("2024财年的一致预期营收").split() == [
        "2024",
        "fiscal",
        "year",
        "的",
        "consensus",
        "estimate",
        "revenue",
    ]
    assert only_table_words("按财年") and only_table_words("一致预期")
    assert not only_table_words("宁德时代")  # a name the catalog may not know stays a name


def test_interfaces_take_chinese_or_misspelt_column_names(data) -> None:
    from datapilot.interfaces.client_tables import read_table
    from datapilot.interfaces.table_answers import table_extreme

    frame = read_table(pd.DataFrame(ESTIMATES), "estimates")
    ctx = InterfaceContext(data.warehouse, data.catalog, date(2024, 6, 30), language="zh")
    for column in ("营收", "Revenu"):
        result = table_extreme(ctx, frame, column=column)
        assert result.index[0] == _frame()["revenue_avg"].idxmax()
        assert result.attrs["answer"][0].startswith("平均营收最高为")
