"""Questions about a table the user sent (a Workspace widget, a context table, a CSV file),
answered without a model: column words bind to columns by meaning, "how many X" reads a column
named like X, "latest" is the last row, "each"/分别 asks for every value and "by year" groups a
dated table's rows. Expected figures are computed here with pandas from the fixture files."""

from __future__ import annotations

from datetime import date
from typing import Any

import pandas as pd
import pytest
from support import paths
from support.asking import ask
from support.openbb import human, make_client, of, query, text_of, with_widget_data

from datapilot.core.answer import Answer
from datapilot.core.context import ClientTable, QuestionContext
from datapilot.core.outputs import ChartOutput, TableOutput

TABLES = paths.FIXTURES / "tables"


def _raw(name: str) -> pd.DataFrame:
    return pd.read_csv(TABLES / f"{name}.csv", dtype=str)  # as a client sends it: text cells


def _numbers(name: str) -> pd.DataFrame:
    return pd.read_csv(TABLES / f"{name}.csv")


async def _ask(question: str, name: str, source: str = "widget") -> Answer:
    raw = _raw(name)
    table = ClientTable(
        name=name,
        source=source,
        columns=list(raw.columns),
        rows=raw.values.tolist(),
        params={"symbol": "AAPL"},
    )
    context = QuestionContext(today=date(2024, 6, 30), tables=[table], brain="offline")
    return await ask(question, context)


def _tables(answer: Answer) -> list[TableOutput]:
    return [o for o in answer.outputs if isinstance(o, TableOutput)]


def _charts(answer: Answer) -> list[ChartOutput]:
    return [o for o in answer.outputs if isinstance(o, ChartOutput)]


@pytest.mark.parametrize(
    "question",
    [
        "which year has the lowest estimate, and how many estimates is it based on?",
        "哪一年的预期最低？基于多少个分析师的预测？",
    ],
)
async def test_the_lowest_estimate_and_how_many_estimates_it_is_based_on(
    data: Any, question: str
) -> None:
    frame = _numbers("estimates").set_index("fiscal_year")
    year = int(frame["mean"].idxmin())  # the consensus (mean) estimate, not a low or high one
    analysts = int(frame.loc[year, "number_of_analysts"])
    answer = await _ask(question, "estimates")
    assert answer.status == "ok"
    said = answer.summary
    if question.isascii():
        assert f"The lowest mean is {frame['mean'].min():g}, in {year}" in said
        assert f"In {year}, number_of_analysts is {analysts}." in said
        assert "count of" not in said  # not a count of the table's rows
    else:
        assert f"均值最低为{frame['mean'].min():g}，在{year}" in said
        assert f"{year}的分析师人数为{analysts}" in said
        assert "个数" not in said


@pytest.mark.parametrize(
    "question", ["how many analysts cover FY2025?", "2025财年有多少位分析师？"]
)
async def test_how_many_reads_the_column_named_like_what_is_counted(
    data: Any, question: str
) -> None:
    frame = _numbers("estimates").set_index("fiscal_year")
    answer = await _ask(question, "estimates")
    (table,) = _tables(answer)
    assert table.columns == ["fiscal_year", "number_of_analysts"]
    assert table.rows == [[2025, int(frame.loc[2025, "number_of_analysts"])]]


@pytest.mark.parametrize(
    "question",
    [
        "latest close",
        "What is the latest stock price of AAPL?",
        "最新收盘价是多少？",
        "AAPL最新股价是多少",
    ],
)
async def test_the_latest_price_of_a_price_widget_is_its_last_close_never_the_open(
    data: Any, question: str
) -> None:
    frame = _numbers("prices")
    last = frame.iloc[-1]
    answer = await _ask(question, "prices")
    assert answer.status == "ok"
    first_sentence = answer.summary.split(". ")[0].split("。")[0]
    assert f"{last['close']:.2f}" in first_sentence and last["date"] in first_sentence
    assert f"{last['open']:.2f}" not in answer.summary
    (table,) = _tables(answer)
    assert table.columns == ["date", "close"]


async def test_the_closing_price_on_a_day_is_that_days_close(data: Any) -> None:
    frame = _numbers("prices").set_index("date")
    answer = await _ask("what was the closing price on 2024-05-23?", "prices")
    assert f"2024-05-23 {frame.loc['2024-05-23', 'close']:.2f}" in answer.summary
    assert f"{frame.loc['2024-05-23', 'open']:.2f}" not in answer.summary


@pytest.mark.parametrize(
    ("question", "column"),
    [
        ("show the mean estimate for each year", "mean"),
        ("各财年的预期均值分别是多少？", "mean"),
        ("每年的分析师人数分别是多少？", "number_of_analysts"),
    ],
)
async def test_each_year_asks_for_every_value(data: Any, question: str, column: str) -> None:
    frame = _numbers("estimates")
    answer = await _ask(question, "estimates")
    (table,) = _tables(answer)
    assert table.columns == ["fiscal_year", column]
    assert table.rows == frame[["fiscal_year", column]].values.tolist()
    # Every value, not an average of them.
    assert f"{frame[column].mean():.2f}" not in answer.summary


@pytest.mark.parametrize(
    "question", ["chart revenue by year from this file", "按年画这个文件的营收柱状图"]
)
async def test_a_chart_of_revenue_by_year_from_a_quarterly_file(data: Any, question: str) -> None:
    frame = _numbers("quarterly_revenue")
    by_year = frame.groupby(frame["date"].str[:4])["revenue"].sum()
    answer = await _ask(question, "quarterly_revenue", source="quarterly_revenue.csv")
    (chart,) = _charts(answer)
    assert chart.chart_type == "bar"
    drawn = {row[0]: row[1] for row in chart.spec.rows}
    assert drawn == pytest.approx(by_year.to_dict())
    assert chart.spec.columns[1:] == ["revenue"]  # not net income beside it


async def test_a_column_named_with_its_unit_is_found_by_its_word(data: Any) -> None:
    frame = _numbers("annual_results")
    answer = await _ask(
        "chart revenue by year from this file", "annual_results", source="annual_results.csv"
    )
    (chart,) = _charts(answer)
    assert chart.spec.columns == ["Year", "Revenue (USD bn)"]
    drawn = {row[0]: row[1] for row in chart.spec.rows}
    assert drawn == pytest.approx(dict(zip(frame["Year"], frame["Revenue (USD bn)"], strict=True)))


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("chart the close", 'Close in "prices" was {last} on {day}'),
        ("画出收盘价", "“prices”的收盘价在{day}为{last}"),
    ],
)
async def test_a_chart_of_a_column_names_the_column_and_the_table(
    data: Any, question: str, said: str
) -> None:
    frame = _numbers("prices")
    answer = await _ask(question, "prices")
    assert said.format(last=f"{frame['close'].iloc[-1]:.2f}", day=frame["date"].iloc[-1]) in (
        answer.summary
    )
    assert "Close's" not in answer.summary


async def test_a_workspace_price_widget_answers_the_latest_price_with_its_close(data: Any) -> None:
    frame = _numbers("prices")
    widget = {
        "uuid": "5e1f0c2a-7b3d-4c8e-9f10-2a3b4c5d6e7f",
        "origin": "OpenBB API",
        "widget_id": "historical_price",
        "name": "Historical Stock Price",
        "description": "Daily open, high, low, close and volume of the selected ticker",
        "params": [
            {"name": "symbol", "type": "ticker", "description": "Ticker", "current_value": "AAPL"}
        ],
        "metadata": {},
    }
    body = human("What is the latest stock price of AAPL?", "2024-06-30")
    body["widgets"] = {"primary": [widget], "secondary": []}
    async with make_client() as client:
        (call,) = of(await query(client, body), "copilotFunctionCall")
        with_widget_data(body, call, [_raw("prices").to_dict("records")])
        text = text_of(await query(client, body))
    assert f"{frame['date'].iloc[-1]} {frame['close'].iloc[-1]:.2f}" in text
    assert f"{frame['open'].iloc[-1]:.2f}" not in text


@pytest.mark.parametrize(
    ("question", "name"),
    [
        ("which year has the lowest estimate, and how many estimates is it based on?", "estimates"),
        ("哪一年的预期最低？基于多少个分析师的预测？", "estimates"),
        ("What is the latest stock price of AAPL?", "prices"),
        ("最新收盘价是多少？", "prices"),
        ("chart revenue by year from this file", "quarterly_revenue"),
        ("用这个文件按年份画营收图", "quarterly_revenue"),
        ("give me the close to the fourth decimal as a float", "prices"),
    ],
)
async def test_words_the_table_reader_acts_on_count_as_read(
    data: Any, question: str, name: str
) -> None:
    answer = await _ask(question, name)
    assert answer.status == "ok"
    unread = [n for n in answer.notes if "did not read" in n or "没有读懂" in n]
    assert not unread, unread
    assert answer.intent is not None and answer.intent.ledger is not None
    assert not [e.text for e in answer.intent.ledger.entries if e.reading == "unread"]
