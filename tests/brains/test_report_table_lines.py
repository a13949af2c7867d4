"""Which line of a client's report table a question names, sent to `/api/v1/ask`:

- a line printed without a label under its section's lines, each figure their sum, is that
  section's total ("the total long-lived assets");
- a label written out whole, commas and all ("total receivables, net") is one line, even where
  its words also name others ("Billed receivables, net");
- an item printed as an opening and a closing balance ("Goodwill, beginning of the year",
  "Goodwill, end of the year") is, at a year, its closing balance.

Expected figures are computed with pandas from the same cells; an item printed in two sections
with nothing to choose between them is still declined."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pandas as pd
import pytest
from support.report_tables import ask_table, first_sentence, offline_api

ASSETS = {
    "name": "geography",
    "columns": ["column 1", "2019", "2018 (in thousands)", "2017"],
    "rows": [
        ["Long-lived assets", "", "", ""],
        ["United States", "$812,400", "$701,950", "$604,210"],
        ["Europe", "64,310", "66,025", "70,140"],
        ["Japan", "7,115", "4,802", "2,950"],
        ["", "$883,825", "$772,777", "$677,300"],
    ],
}
ASSET_CELLS = pd.DataFrame(
    [[812400, 701950, 604210], [64310, 66025, 70140], [7115, 4802, 2950]],
    columns=["2019", "2018", "2017"],
)

RECEIVABLES = {
    "name": "receivables",
    "columns": ["column 1", "December 31, 2019", "December 31, 2018"],
    "rows": [
        ["Billed receivables", "$180,220", "$201,405"],
        ["Allowance for doubtful accounts", "(4,310)", "(3,020)"],
        ["Billed receivables, net", "175,910", "198,385"],
        ["Accrued receivables, net", "322,140", "287,655"],
        ["Total receivables, net", "$498,050", "$486,040"],
    ],
}

GOODWILL = {
    "name": "goodwill",
    "columns": ["column 1", "January 31, 2019", "January 31, 2018"],
    "rows": [
        ["Goodwill, beginning of the year", "$1,544.0", "$1,498.7"],
        ["Additions arising from acquisitions during the year", "702.5", "—"],
        ["Effect of foreign currency translation", "(21.4)", "45.3"],
        ["Goodwill, end of the year", "$2,225.1", "$1,544.0"],
    ],
}

TWO_SECTIONS = {
    "name": "other",
    "columns": ["column 1", "2019 $'000", "2018 $'000"],
    "rows": [
        ["Current", "", ""],
        ["Trade receivables", "3,770", "3,054"],
        ["Other receivables", "4,223", "4,082"],
        ["Non-current", "", ""],
        ["Other receivables", "118", "601"],
    ],
}


@pytest.fixture(scope="module")
async def client() -> AsyncIterator[httpx.AsyncClient]:
    async with offline_api() as api:
        yield api


async def test_an_unlabelled_line_summing_its_section_is_its_total(
    client: httpx.AsyncClient,
) -> None:
    total = ASSET_CELLS.sum()
    expected = (total["2019"] / total["2018"] - 1) * 100
    answer = await ask_table(
        client,
        "What is the percentage change in the total long-lived assets from 2018 to 2019?",
        ASSETS,
    )
    assert answer.status == "ok", answer.message
    assert f"{expected:.2f}%" in first_sentence(answer.summary), answer.summary


async def test_a_label_written_whole_is_one_line(client: httpx.AsyncClient) -> None:
    expected = (498050 / 486040 - 1) * 100
    answer = await ask_table(
        client,
        "What was the percentage change in total receivables, net between 2018 and 2019?",
        RECEIVABLES,
    )
    assert answer.status == "ok", answer.message
    assert f"{expected:.2f}%" in first_sentence(answer.summary), answer.summary


async def test_a_balance_at_a_year_is_its_closing_line(client: httpx.AsyncClient) -> None:
    closing = pd.Series({"2019": 2225.1, "2018": 1544.0})
    expected = closing["2019"] - closing["2018"]
    answer = await ask_table(
        client, "What was the change in the company's goodwill from 2018 to 2019?", GOODWILL
    )
    assert answer.status == "ok", answer.message
    assert f"{expected:,.1f}" in first_sentence(answer.summary), answer.summary


async def test_an_item_in_two_sections_is_still_declined(client: httpx.AsyncClient) -> None:
    answer = await ask_table(
        client, "What is the change in Other receivables from 2018 to 2019?", TWO_SECTIONS
    )
    assert answer.status == "no_data"


# A roll-forward table: balances dated in their labels, the year's movements between them.
NONVESTED = {
    "name": "nonvested",
    "columns": ["column 1", "Shares", "Weighted-Average Grant Date Fair Value"],
    "rows": [
        ["Non-vested at December 31, 2018", "1,204,310", "$40.87"],
        ["Granted", "455,120", "$52.10"],
        ["Vested", "(371,006)", "$41.90"],
        ["Forfeited", "(14,220)", "$49.75"],
        ["Non-vested at December 31, 2019", "1,274,204", "$45.12"],
        ["Granted", "502,880", "$58.43"],
        ["Vested", "(402,115)", "$46.02"],
        ["Forfeited", "(9,870)", "$51.30"],
        ["Non-vested at December 31, 2020", "1,365,099", "$50.08"],
    ],
}
SHARES = pd.DataFrame(
    {"2019": [455120, 371006, 14220, 1274204], "2020": [502880, 402115, 9870, 1365099]},
    index=["granted", "vested", "forfeited", "closing"],
)


@pytest.mark.parametrize("year", ["2019", "2020"])
async def test_a_movement_of_a_year_in_a_roll_forward_table(
    client: httpx.AsyncClient, year: str
) -> None:
    expected = SHARES.loc["granted", year] / SHARES.loc["closing", year] * 100
    answer = await ask_table(
        client,
        f"What is the percentage of non-vested shares granted in {year} as a percentage of the "
        f"total non-vested shares at December 31, {year}?",
        NONVESTED,
    )
    assert answer.status == "ok", answer.message
    assert f"{expected:.2f}%" in first_sentence(answer.summary), answer.summary


async def test_two_years_balances_asked_with_one_line_are_declined(
    client: httpx.AsyncClient,
) -> None:
    answer = await ask_table(
        client,
        "What is the total number of non-vested shares as of December 31, 2020 and 2019?",
        NONVESTED,
    )
    assert answer.status in ("ok", "no_data")
    if answer.status == "ok":  # answered only with both balances added
        expected = SHARES.loc["closing"].sum()
        assert f"{expected:,.0f}" in first_sentence(answer.summary), answer.summary


# Segments across, dated balances down: columns named by their printed names.
SEGMENTS = {
    "name": "goodwill by segment",
    "columns": ["column 1", "Application Software", "Network Software", "Process Technologies"],
    "rows": [
        ["Balances at December 31, 2017", "$ 4,210.7", "$ 2,480.2", "$ 301.4"],
        ["Goodwill acquired", "612.0", "41.5", "—"],
        ["Balances at December 31, 2018", "$ 4,822.7", "$ 2,521.7", "$ 301.4"],
    ],
}


async def test_columns_named_by_their_printed_names_respectively(
    client: httpx.AsyncClient,
) -> None:
    balances = pd.Series({"Application Software": 4210.7, "Process Technologies": 301.4})
    answer = await ask_table(
        client,
        "What were the balances of Application Software and Process Technologies on December "
        "31, 2017, respectively?",
        SEGMENTS,
    )
    assert answer.status == "ok", answer.message
    said = first_sentence(answer.summary)
    assert all(f"{value:,.1f}" in said for value in balances), answer.summary
    assert said.index(f"{balances.iloc[0]:,.1f}") < said.index(f"{balances.iloc[1]:,.1f}")
