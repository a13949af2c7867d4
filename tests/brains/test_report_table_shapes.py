"""Report tables printed in other shapes than lines under year columns, sent to `/api/v1/ask`:
one block of lines per period ("As at 31 December 2019" over its lines, then 2018's), quarters
under a year's heading, and questions about the table itself (its years, its lines). Expected
figures are computed with pandas from the same cells; a question these shapes do not answer
is declined, never answered with another figure."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pandas as pd
import pytest
from support.report_tables import ask_table, first_sentence, offline_api

# Monetary items by currency, one block per balance-sheet date; the columns name no year.
BLOCKS = {
    "name": "currency",
    "columns": ["column 1", "USD denominated RMB million", "Non-USD denominated RMB million"],
    "rows": [
        ["As at 31 December 2019", "", ""],
        ["Monetary assets, current", "31,204", "1,877"],
        ["Monetary assets, non-current", "512", "–"],
        ["Monetary liabilities, current", "(5,120)", "(12,004)"],
        ["Monetary liabilities, non-current", "(88)", "(4,310)"],
        ["As at 31 December 2018", "", ""],
        ["Monetary assets, current", "20,115", "2,436"],
        ["Monetary assets, non-current", "1,904", "–"],
        ["Monetary liabilities, current", "(3,062)", "(5,518)"],
        ["Monetary liabilities, non-current", "(2,871)", "(8,026)"],
    ],
}
BLOCK_CELLS = pd.DataFrame(
    {
        "usd_2019": [31204, 512, -5120, -88],
        "non_usd_2019": [1877, None, -12004, -4310],
        "usd_2018": [20115, 1904, -3062, -2871],
        "non_usd_2018": [2436, None, -5518, -8026],
    },
    index=["assets current", "assets non-current", "liabilities current", "liabilities nc"],
)

# Quarterly results printed one block per year under quarter columns.
QUARTERS = {
    "name": "quarterly",
    "columns": ["column 1", "First", "Second", "Third", "Fourth"],
    "rows": [
        ["2019", "", "", "", ""],
        ["Net sales", "$98,412", "$103,077", "$99,850", "$97,311"],
        ["Operating earnings", "$11,020", "$13,406", "$8,977", "$10,115"],
        ["2018", "", "", "", ""],
        ["Net sales", "$95,301", "$99,642", "$101,215", "$104,118"],
        ["Operating earnings", "$10,876", "$12,003", "$13,551", "$14,020"],
    ],
}
QUARTER_CELLS = pd.DataFrame(
    [[98412, 103077, 99850, 97311], [11020, 13406, 8977, 10115]],
    index=["net sales", "operating earnings"],
    columns=["first", "second", "third", "fourth"],
)

PRICES = {
    "name": "prices",
    "columns": ["column 1", "High", "Low"],
    "rows": [
        ["2019:", "", ""],
        ["Fourth Quarter", "$16.20", "$12.05"],
        ["Third Quarter", "$17.44", "$13.90"],
        ["2018:", "", ""],
        ["Fourth Quarter", "$15.10", "$9.87"],
        ["Third Quarter", "$18.02", "$14.66"],
    ],
}

PAY = {
    "name": "pay",
    "columns": ["column 1", "2019 €m", "2018 €m", "2017 €m"],
    "rows": [
        ["Salaries and fees", "5", "4", "4"],
        ["Incentive schemes1", "3", "2", "2"],
        ["Other benefits2", "1", "1", "–"],
        ["", "9", "7", "6"],
    ],
}


@pytest.fixture()
async def client(data: Any) -> AsyncIterator[httpx.AsyncClient]:
    async with offline_api() as api:
        yield api


ask = ask_table


def printed(value: float) -> str:
    return ("−" if value < 0 else "") + f"{abs(value):,.0f}"


async def test_a_block_per_date_reads_each_date_as_a_column(client: httpx.AsyncClient) -> None:
    answer = await ask(
        client,
        "What was the amount of non-USD denominated current monetary assets as at 31 December "
        "2019?",
        BLOCKS,
    )
    assert answer.status == "ok", answer.message
    lead = first_sentence(answer.summary or "")
    assert printed(BLOCK_CELLS.loc["assets current", "non_usd_2019"]) in lead
    # the USD column and the 2018 block are not what was asked
    assert printed(BLOCK_CELLS.loc["assets current", "usd_2019"]) not in lead
    assert printed(BLOCK_CELLS.loc["assets current", "non_usd_2018"]) not in lead


async def test_a_total_of_lines_named_with_a_qualifier_adds_them(
    client: httpx.AsyncClient,
) -> None:
    answer = await ask(
        client, "What was the total USD denominated monetary assets as at 31 December 2018?", BLOCKS
    )
    assert answer.status == "ok", answer.message
    expected = BLOCK_CELLS.loc[["assets current", "assets non-current"], "usd_2018"].sum()
    assert printed(expected) in first_sentence(answer.summary or "")


async def test_columns_the_question_tells_apart_are_each_answered(
    client: httpx.AsyncClient,
) -> None:
    answer = await ask(
        client, "What is the difference in the high and low prices in the fourth quarter of 2019?",
        PRICES,
    )  # fmt: skip
    assert answer.status == "ok", answer.message
    high, low = 16.20, 12.05  # 2019's fourth quarter, as printed
    assert f"{high - low:.2f}" in first_sentence(answer.summary or "")


async def test_quarters_without_a_year_are_the_latest_years(client: httpx.AsyncClient) -> None:
    answer = await ask(client, "What was the net sales in the third quarter?", QUARTERS)
    assert answer.status == "ok", answer.message
    assert printed(QUARTER_CELLS.loc["net sales", "third"]) in first_sentence(answer.summary or "")

    answer = await ask(
        client,
        "What was the percentage change in the operating earnings between the first and second "
        "quarter?",
        QUARTERS,
    )
    assert answer.status == "ok", answer.message
    row = QUARTER_CELLS.loc["operating earnings"]
    expected = (row["second"] / row["first"] - 1) * 100
    assert f"{expected:.2f}%" in first_sentence(answer.summary or "")


async def test_the_tables_years_and_lines_are_listed(client: httpx.AsyncClient) -> None:
    answer = await ask(client, "What are the years included in the table?", PAY)
    assert answer.status == "ok", answer.message
    lead = first_sentence(answer.summary or "")
    assert all(year in lead for year in ("2019", "2018", "2017"))

    answer = await ask(client, "What financial items are listed in the table?", PAY)
    assert answer.status == "ok", answer.message
    lead = first_sentence(answer.summary or "")
    for label in ("Salaries and fees", "Incentive schemes", "Other benefits"):
        assert label in lead
    assert "schemes1" not in lead  # the footnote mark is no part of the name


async def test_dates_asked_of_the_table_are_not_its_lines(client: httpx.AsyncClient) -> None:
    answer = await ask(client, "What are the 3 dates listed in the table in chronological order?",
                       PAY)  # fmt: skip
    assert "Salaries and fees" not in (answer.summary or "")
