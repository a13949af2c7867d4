"""Averages over a client's report table, sent to `/api/v1/ask`:

- "the 2019 average X" is the year's average, the mean of 2019's figure and 2018's (a balance's
  closing and opening), as reports average a balance;
- "the average percentage of net revenues of OEM": the shares the line prints, averaged over
  every year (not a share to compute), also where only the column header says "percentage";
- "the average net change in cash balance": the line's own name says "change";
- "the percentage of sales represented by gross profit" in a common-size statement (its sales
  line printed as 100%): the line's own printed figure;
- two averages set against each other: "the difference between 2019 average A and 2019
  average B" (each line's year average, then their difference), "the change between 2018 and
  2019 average A" (one line's average of 2018 with 2017 against 2019's with 2018); "the average
  difference between A and B" (each year's difference averaged) is still declined.

Expected figures are computed with pandas from the same cells."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pandas as pd
import pytest
from support.report_tables import ask_table, first_sentence, offline_api

PENSIONS = {
    "name": "pensions",
    "columns": ["column 1", "2019 €m", "2018 €m", "2017 €m"],
    "rows": [
        ["Defined contribution schemes", "204", "187", "161"],
        ["Defined benefit schemes", "61", "48", "52"],
        ["Total", "265", "235", "213"],
    ],
}
PENSION_CELLS = pd.DataFrame(
    [[204, 187, 161], [61, 48, 52]],
    index=["contribution", "benefit"],
    columns=["2019", "2018", "2017"],
)

CHANNELS = {
    "name": "channels",
    "columns": [
        "column 1",
        "2019 (As percentage of net revenues)",
        "2018 (As percentage of net revenues)",
        "2017 (As percentage of net revenues)",
    ],
    "rows": [
        ["OEM", "72%", "63%", "68%"],
        ["Distribution", "28", "37", "32"],
        ["Total", "100%", "100%", "100%"],
    ],
}
CHANNEL_CELLS = pd.DataFrame(
    [[72, 63, 68], [28, 37, 32]], index=["OEM", "Distribution"], columns=["2019", "2018", "2017"]
)

COMMON_SIZE = {
    "name": "common size",
    "columns": ["column 1", "Year Ended December 31, 2019", "Year Ended December 31, 2018"],
    "rows": [
        ["Sales", "100.0 %", "100.0 %"],
        ["Gross profit", "41.3", "48.6"],
        ["Operating expenses", "30.2", "26.4"],
        ["Operating income", "11.1 %", "22.2 %"],
    ],
}
COMMON_CELLS = pd.DataFrame(
    [[41.3, 48.6], [30.2, 26.4]],
    index=["Gross profit", "Operating expenses"],
    columns=["2019", "2018"],
)

CASH = {
    "name": "cash",
    "columns": ["column 1", "2019 (S$ million)", "2018 (S$ million)", "Change (%)"],
    "rows": [
        ["Net cash inflow from operating activities", "5,210", "5,870", "-11.2"],
        ["Net change in cash balance", "(23)", "(9)", "155.6"],
        ["Cash balance at end of year", "498", "521", "-4.4"],
    ],
}


@pytest.fixture(scope="module")
async def client() -> AsyncIterator[httpx.AsyncClient]:
    async with offline_api() as api:
        yield api


def _said(figure: float) -> str:
    return f"{figure:,.2f}".rstrip("0").rstrip(".")


@pytest.mark.parametrize(
    ("question", "row", "year"),
    [
        ("What is the 2019 average defined contribution schemes?", "contribution", "2019"),
        ("What is the 2018 average defined benefit schemes?", "benefit", "2018"),
    ],
)
async def test_a_year_average_is_that_year_and_the_one_before(
    client: httpx.AsyncClient, question: str, row: str, year: str
) -> None:
    before = str(int(year) - 1)
    expected = PENSION_CELLS.loc[row, [year, before]].mean()
    answer = await ask_table(client, question, PENSIONS)
    assert answer.status == "ok", answer.message
    assert _said(expected) in first_sentence(answer.summary), answer.summary


@pytest.mark.parametrize("row", ["OEM", "Distribution"])
async def test_the_average_of_printed_shares(client: httpx.AsyncClient, row: str) -> None:
    expected = CHANNEL_CELLS.loc[row].mean()
    answer = await ask_table(
        client, f"What is the average percentage of net revenues of {row}?", CHANNELS
    )
    assert answer.status == "ok", answer.message
    assert _said(expected) in first_sentence(answer.summary), answer.summary


async def test_the_average_of_a_line_named_a_change(client: httpx.AsyncClient) -> None:
    expected = pd.Series([-23, -9]).mean()
    answer = await ask_table(
        client, "What is the average net change in cash balance across the 2 years?", CASH
    )
    assert answer.status == "ok", answer.message
    assert _said(expected).replace("-", "−") in first_sentence(answer.summary), answer.summary


@pytest.mark.parametrize(
    ("row", "year"), [("Gross profit", "2018"), ("Operating expenses", "2019")]
)
async def test_a_share_of_the_line_printed_as_100_percent(
    client: httpx.AsyncClient, row: str, year: str
) -> None:
    expected = COMMON_CELLS.loc[row, year]
    answer = await ask_table(
        client,
        f"What was the percentage of sales represented by {row.lower()} in {year}?",
        COMMON_SIZE,
    )
    assert answer.status == "ok", answer.message
    assert f"{expected:.1f}" in first_sentence(answer.summary), answer.summary


async def test_the_difference_between_two_year_averages(client: httpx.AsyncClient) -> None:
    averages = PENSION_CELLS[["2019", "2018"]].mean(axis=1)
    expected = averages["contribution"] - averages["benefit"]
    answer = await ask_table(
        client,
        "What is the difference between 2019 average defined contribution schemes and 2019 "
        "average defined benefit schemes?",
        PENSIONS,
    )
    assert answer.status == "ok", answer.message
    assert _said(expected) in first_sentence(answer.summary), answer.summary


async def test_the_change_between_two_year_averages(client: httpx.AsyncClient) -> None:
    row = PENSION_CELLS.loc["contribution"]
    expected = row[["2019", "2018"]].mean() - row[["2018", "2017"]].mean()
    answer = await ask_table(
        client,
        "What is the change between 2018 and 2019 average defined contribution schemes?",
        PENSIONS,
    )
    assert answer.status == "ok", answer.message
    assert _said(expected) in first_sentence(answer.summary), answer.summary


async def test_an_average_of_differences_is_still_declined(client: httpx.AsyncClient) -> None:
    answer = await ask_table(
        client,
        "What was the average difference between defined contribution schemes and defined "
        "benefit schemes for both years?",
        PENSIONS,
    )
    assert answer.status == "no_data"
