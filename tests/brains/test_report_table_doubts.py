"""Report tables that allow more than one reading: the figure comes from the line and columns
the question means, or the answer is `no_data` naming the choices, never `ok` with a figure read
from the first line found. Small printed tables written here; expected figures with pandas."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pandas as pd
import pytest
from support.report_tables import ask_table, offline_api

from datapilot.core.answer import Answer


@pytest.fixture()
async def client(data: Any) -> AsyncIterator[httpx.AsyncClient]:
    async with offline_api() as api:
        yield api


async def ask(client: httpx.AsyncClient, question: str, rows: list[list[str]]) -> Answer:
    # the printed first row as the columns, a blank cell named as a client names it
    columns = [c or f"column {n}" for n, c in enumerate(rows[0], start=1)]
    table = {"name": "report", "columns": columns, "rows": rows[1:]}
    return await ask_table(client, question, table)


def first(answer: Answer) -> str:
    return re.split(r"(?<=[.。])\s", answer.summary.strip(), maxsplit=1)[0]


def frame(rows: list[list[str]]) -> pd.DataFrame:
    """The printed figures as numbers: (x) is −x, commas and $ dropped."""
    body = pd.DataFrame(rows[1:], columns=[c or f"c{i}" for i, c in enumerate(rows[0])])
    body = body.set_index(body.columns[0])

    def number(cell: str) -> float | None:
        text = cell.replace("$", "").replace(",", "").replace("%", "").strip()
        if not text or text in ("—", "–"):
            return None
        return -float(text[1:-1]) if text.startswith("(") else float(text)

    return body.map(number)


RECEIVABLES = [
    ["", "2019", "2018"],
    ["Current", "", ""],
    ["Trade receivables", "3,770", "3,054"],
    ["Other receivables", "4,223", "4,082"],
    ["Non-current", "", ""],
    ["Other receivables", "118", "601"],
    ["Total receivables", "8,111", "7,737"],
]


async def test_a_line_printed_under_two_sections_needs_the_section(client: Any) -> None:
    answer = await ask(client, "What is the change in Other receivables from 2018 to 2019?",
                       RECEIVABLES)  # fmt: skip
    assert answer.status == "no_data"
    assert "Current" in answer.message and "Non-current" in answer.message
    named = await ask(
        client, "What is the change in non-current other receivables from 2018 to 2019?",
        RECEIVABLES,
    )  # fmt: skip
    cells = frame(RECEIVABLES).iloc[[4]]  # the line under "Non-current"
    expected = cells["2019"].iloc[0] - cells["2018"].iloc[0]
    assert named.status == "ok"
    assert f"{expected:,.0f}".replace("-", "−") in first(named)


ROLL_FORWARD = [
    ["", "2019", "2018"],
    ["At beginning of the year", "97,877", "–"],
    ["Additions (Note (a))", "44,618", "60,807"],
    ["Transfers (Note (b))", "(1,421)", "(78,816)"],
    ["Disposals (Note (c))", "(16,664)", "(14,805)"],
    ["At end of the year", "135,936", "97,877"],
]


@pytest.mark.parametrize("line", ["Transfers (Note (b))", "Disposals (Note (c))"])
async def test_a_roll_forward_line_is_read_past_its_note_and_the_year_end(
    client: Any, line: str
) -> None:
    word = line.split()[0].lower()
    answer = await ask(
        client, f"How much is the change in {word} between 2018 year end and 2019 year end?",
        ROLL_FORWARD,
    )  # fmt: skip
    cells = frame(ROLL_FORWARD).loc[line]
    expected = cells["2019"] - cells["2018"]
    assert answer.status == "ok"
    assert f"{abs(expected):,.0f}" in first(answer) and "At end" not in first(answer)


CUSTOMERS = [
    ["", "", "Net additions (losses)", "", "% of penetration", ""],
    ["", "August 31, 2019", "August 31, 2019", "August 31, 2018", "August 31, 2019",
     "August 31, 2018"],
    ["Internet service customers", "446,137", "21,189", "21,417", "50.8", "49.7"],
    ["Video service customers", "312,555", "(4,697)", "(6,760)", "35.6", "37.1"],
]  # fmt: skip


async def test_a_change_across_years_compares_columns_of_one_kind(client: Any) -> None:
    answer = await ask(
        client, "What was the change in the video service customers from 2018 to 2019?", CUSTOMERS
    )
    net = frame(CUSTOMERS[1:]).loc["Video service customers"]
    expected = net.iloc[1] - net.iloc[2]  # net additions 2019 − net additions 2018
    assert answer.status == "ok"
    assert f"{expected:,.0f}" in first(answer)
    assert "319,315" not in answer.summary  # not the 2019 total against 2018's net losses


CHANGES = [
    ["(In thousands)", "Change 2019 and 2018", "Change 2018 and 2017"],
    ["Travel", "794", "80"],
    ["Facilities", "(4,537)", "5,777"],
]


async def test_columns_that_are_already_changes_are_not_subtracted(client: Any) -> None:
    answer = await ask(client, "What is the change in Facilities from 2017 to 2019?", CHANGES)
    assert answer.status == "no_data"
    assert "already changes" in answer.message


BALANCE = [
    ["", "2019", "2018"],
    ["Total current assets", "121,041", "73,202"],
    ["Total current liabilities", "154,619", "90,392"],
    ["Total liabilities", "100.1", "94.9"],
    ["Total assets", "545.8", "540.6"],
]


async def test_the_change_of_a_ratio_the_table_does_not_print_is_declined(client: Any) -> None:
    answer = await ask(client, "What is the change in current ratio from 2018 to 2019?", BALANCE)
    assert answer.status == "no_data"


async def test_a_ratio_is_stated_to_four_significant_figures(client: Any) -> None:
    answer = await ask(client, "What is the ratio of total liabilities to total assets in 2019?",
                       BALANCE)  # fmt: skip
    cells = frame(BALANCE)["2019"]
    expected = cells["Total liabilities"] / cells["Total assets"]
    assert answer.status == "ok"
    assert f"{expected:.4f}" in first(answer)


COSTS = [
    ["(In thousands)", "2018", "2017"],
    ["Revenue:", "", ""],
    ["Client services", "404", "1,044"],
    ["Cost of revenue:", "", ""],
    ["Client services", "830", "261"],
]


async def test_a_change_written_from_the_later_year_runs_forward_in_time(client: Any) -> None:
    answer = await ask(
        client, "What is the change in Cost of revenue of Client services from 2018 to 2017?", COSTS
    )
    cost = frame(COSTS).iloc[3]  # the line under "Cost of revenue"
    expected = cost["2018"] - cost["2017"]
    assert answer.status == "ok"
    assert f"{expected:,.0f}" in first(answer) and "from 2017 to 2018" in first(answer)


REVENUES = [
    ["(In millions, except for percentages)", "2018", "2017"],
    ["Net revenues", "$2,280", "$1,664"],
    ["Percentage of total net revenues", "47%", "41%"],
    ["Total cost of revenue", "$48,881", "$51,896"],
]


@pytest.mark.parametrize(
    ("question", "line"),
    [
        ("What is the Total net revenue for fiscal 2018 and 2017?", "Net revenues"),
        ("What is the total cost of revenue in both 2018 and 2017?", "Total cost of revenue"),
    ],
)
async def test_a_total_over_two_years_adds_the_amounts(
    client: Any, question: str, line: str
) -> None:
    expected = frame(REVENUES).loc[line].sum()
    answer = await ask(client, question, REVENUES)
    assert answer.status == "ok"
    assert f"{expected:,.0f}" in first(answer)


OTHER = [
    ["", "2018", "2017"],
    ["Interest income", "1,826", "1,284"],
    ["Other (expense) income", "(2,676)", "3,817"],
    ["Total other (expense) income, net", "$(2,935)", "$1,758"],
]


async def test_the_line_named_whole_beats_the_line_named_in_part(client: Any) -> None:
    answer = await ask(client, "What was the percentage change in the net Total other (expense) "
                       "income between 2017 and 2018?", OTHER)  # fmt: skip
    cells = frame(OTHER).loc["Total other (expense) income, net"]
    expected = (cells["2018"] - cells["2017"]) / cells["2017"] * 100
    assert answer.status == "ok"
    assert f"{expected:,.2f}".replace("-", "−") in first(answer)


ACQUISITION = [
    ["", "Useful life", "Fair value"],
    ["Cash", "", "1,210"],
    ["Intangible assets", "5 years", "9,400"],
    ["Goodwill", "", "12,600"],
    ["Liabilities", "", "(4,422)"],
    ["Net assets", "", "18,788"],
]
DIVIDENDS = [
    ["", "2019", "2018"],
    ["Interim dividend per share (cents)", "1.20", "1.10"],
    ["Final dividend per share (cents)", "3.45", "3.30"],
]


@pytest.mark.parametrize(
    ("question", "rows", "state"),
    [
        ("What is the total fair value of all the liabilities assumed?", ACQUISITION, "assumed"),
        ("What is the final dividend per share proposed for 2019?", DIVIDENDS, "proposed"),
        ("What is the unrevised final dividend per share for 2019?", DIVIDENDS, "unrevised"),
    ],
)
async def test_a_state_the_table_never_prints_is_not_answered_with_a_line(
    client: Any, question: str, rows: list[list[str]], state: str
) -> None:
    """ "The liabilities assumed", "the dividend proposed": the report's text qualifies the
    amount; the table's line is the amount in another state."""
    answer = await ask(client, question, rows)
    assert answer.status == "no_data", answer.summary
    assert state in answer.message


async def test_framing_participles_and_printed_states_still_answer(client: Any) -> None:
    figures = frame(DIVIDENDS)
    expected = figures.loc["Final dividend per share (cents)", "2019"]
    for question in (
        "What was the final dividend per share in 2019?",
        "What was the final dividend per share reported for 2019?",
        "What was the final dividend per share calculated as in 2019?",
    ):
        answer = await ask(client, question, DIVIDENDS)
        assert answer.status == "ok", (question, answer.message)
        assert f"{expected:.2f}" in first(answer)
    printed = [*DIVIDENDS, ["Final dividend proposed per share (cents)", "3.60", "3.40"]]
    answer = await ask(client, "What is the final dividend per share proposed for 2019?", printed)
    assert answer.status == "ok", answer.message
    assert (
        f"{frame(printed).loc['Final dividend proposed per share (cents)', '2019']:.2f}"
        in first(answer)
    )


SEGMENTS = [
    ["", "2019", "2018"],
    ["Services", "$59,545", "$64,720"],
    ["Software and other", "3,788", "5,050"],
    ["Total", "$63,333", "$69,770"],
]
ASSETS = [
    ["", "Estimated useful life", "2019", "2018"],
    ["Land and rights-of-way", "20 - 75 years", "$117.2", "$113.5"],
    ["Buildings", "10 - 40 years", "$48.0", "$46.1"],
]


async def test_rows_ranked_by_a_figure_to_compute_are_not_ranked_by_a_column(client: Any) -> None:
    """ "Which segment has a higher percentage change?": each row's change is not printed, so
    ranking the 2019 column would answer another question."""
    answer = await ask(client, "Which segment has a higher percentage change?", SEGMENTS)
    assert answer.status == "no_data", answer.summary
    assert "percentage change" in (answer.message or "") or "pct change" in (answer.message or "")
    figures = frame(SEGMENTS)
    largest = figures["2019"].drop("Total").idxmax()
    ranked = await ask(client, "Which segment has the highest value in 2019?", SEGMENTS)
    assert ranked.status == "ok", ranked.message
    assert largest in first(ranked)


async def test_a_length_asked_is_not_answered_with_an_amount(client: Any) -> None:
    answer = await ask(
        client, "How many years is the minimum lifespan of the land and rights-of-way?", ASSETS
    )
    assert answer.status == "no_data", answer.summary
    figures = frame([[c for j, c in enumerate(row) if j != 1] for row in ASSETS])
    amount = await ask(client, "What was the land and rights-of-way in 2019?", ASSETS)
    assert amount.status == "ok", amount.message
    assert f"{figures.loc['Land and rights-of-way', '2019']:.1f}" in first(amount)


REVENUE_BY_COUNTRY = [
    ["", "2019", "2018"],
    ["UK", "310.2", "298.4"],
    ["USA", "250.1", "240.0"],
    ["Germany", "90.3", "85.7"],
    ["Other countries", "60.0", "58.1"],
    ["Total revenue from external customers by country", "710.6", "682.2"],
]
FEES = [["", "2019", "2018"], ["Audit Fees(1)", "$15,400,000", "$16,014,014"]]


@pytest.mark.parametrize(
    ("question", "rows"),
    [
        ("What are the countries in the table whereby the revenue from external customers is "
         "split?", REVENUE_BY_COUNTRY),
        ("What services have their costs included within the audit fees?", FEES),
        ("How many services have their costs included within the audit fees?", FEES),
    ],
)  # fmt: skip
async def test_items_asked_by_name_are_not_answered_with_a_figure(
    client: Any, question: str, rows: list[list[str]]
) -> None:
    answer = await ask(client, question, rows)
    assert answer.status == "no_data", answer.summary
    for row in rows[1:]:  # the lines are named, so the names the table holds are there
        assert row[0] in (answer.message or "")
    years = await ask(client, "Which years does the table show?", REVENUE_BY_COUNTRY)
    assert years.status != "no_data" or "items" not in (years.message or "")


SALES_BY_REGION = [
    ["", "Fiscal Year 2019 Net Sales", "Fiscal Year 2018 Net Sales"],
    ["APAC", "$533,340", "$495,212"],
    ["EMEA", "315,535", "300,112"],
    ["Americas", "401,220", "380,004"],
]


@pytest.mark.parametrize(
    ("question", "sides"),
    [
        (
            "What was the difference in the net sales in 2019 between APAC and EMEA?",
            ("APAC", "EMEA"),
        ),
        (
            "What is the difference in 2019 net sales between EMEA and the Americas?",
            ("EMEA", "Americas"),
        ),
    ],
)
async def test_a_difference_in_a_figure_between_two_lines(
    client: httpx.AsyncClient, question: str, sides: tuple[str, str]
) -> None:
    printed = frame(SALES_BY_REGION)["Fiscal Year 2019 Net Sales"]
    answer = await ask(client, question, SALES_BY_REGION)
    assert answer.status == "ok", answer.message
    gap = printed[sides[0]] - printed[sides[1]]
    said = first(answer)
    assert f"{abs(gap):,.0f}" in said and (gap > 0) == ("−" not in said), answer.summary


async def test_a_change_between_two_dates_stays_a_change_over_the_columns(
    client: httpx.AsyncClient,
) -> None:
    rows = [["", "June 30, 2019", "December 31, 2019"], ["Cash", "1,250", "1,410"]]
    printed = frame(rows).loc["Cash"]
    answer = await ask(
        client, "What is the change in the cash amount between June 30 and December 31, 2019?", rows
    )
    assert answer.status == "ok", answer.message
    assert f"{printed.iloc[1] - printed.iloc[0]:,.0f}" in first(answer), answer.summary


DEFERRED_TAXES = [
    ["", "2019", "2018"],
    ["Deferred tax assets:", "", ""],
    ["Net operating loss carryforwards", "1,200", "1,150"],
    ["Accrued expenses", "640", "610"],
    ["Other", "85", "92"],
    ["Gross deferred tax assets", "1,925", "1,852"],
    ["Less valuation allowance", "(300)", "(280)"],
    ["Deferred tax liabilities:", "", ""],
    ["Intangible assets", "(410)", "(395)"],
    ["Property, plant, and equipment", "(220)", "(240)"],
    ["Total deferred tax liabilities", "(630)", "(635)"],
]


def _components(rows: list[list[str]], section: str) -> list[str]:
    """The lines under `section`'s header down to the line that sums them (read off the fixture
    with pandas: the first line equal to the sum of those above it)."""
    body = frame(rows)
    labels = list(body.index)
    start = labels.index(section) + 1
    found: list[str] = []
    for label in labels[start:]:
        value = body.loc[label].iloc[0]
        if found and abs(body.loc[found].iloc[:, 0].sum() - value) < 0.5:
            break
        found.append(label)
    return found


@pytest.mark.parametrize(
    ("question", "section"),
    [
        ("What are the components under deferred tax liabilities?", "Deferred tax liabilities:"),
        ("What are the items under deferred tax assets in the table?", "Deferred tax assets:"),
    ],
)
async def test_the_lines_under_a_section_are_listed_down_to_their_total(
    client: httpx.AsyncClient, question: str, section: str
) -> None:
    answer = await ask(client, question, DEFERRED_TAXES)
    assert answer.status == "ok", answer.message
    said = first(answer)
    components = _components(DEFERRED_TAXES, section)
    assert all(line in said for line in components), answer.summary
    assert "Gross" not in said and "Total" not in said and "valuation" not in said, said


async def test_how_many_lines_are_under_a_section(client: httpx.AsyncClient) -> None:
    answer = await ask(
        client, "How many components are there under deferred tax assets?", DEFERRED_TAXES
    )
    assert answer.status == "ok", answer.message
    assert first(answer).startswith(
        f"{len(_components(DEFERRED_TAXES, 'Deferred tax assets:'))} lines"
    ), answer.summary


async def test_average_in_a_lines_own_name_is_no_second_operation(
    client: httpx.AsyncClient,
) -> None:
    rows = [
        ["", "2019", "2018"],
        ["Operating income", "$210.4", "$180.2"],
        ["Average invested capital", "$923.1", "$735.6"],
    ]
    printed = frame(rows).loc["Average invested capital"]
    change = (printed["2019"] / printed["2018"] - 1) * 100
    answer = await ask(
        client,
        "What was the percentage change in the Average invested capital between 2018 and 2019?",
        rows,
    )
    assert answer.status == "ok", answer.message
    assert f"{change:.2f}%" in first(answer), answer.summary


async def test_a_count_in_words_names_a_column_printed_in_digits(
    client: httpx.AsyncClient,
) -> None:
    rows = [
        ["Contractual Obligations", "Less Than 1 Year", "2-5 Years", "Total"],
        ["Operating lease obligations", "$773", "$2,055", "$2,828"],
        ["Purchase commitments", "$410", "$120", "$530"],
        ["Total contractual obligations", "$1,183", "$2,175", "$3,358"],
    ]
    printed = frame(rows)["Less Than 1 Year"]
    share = printed["Operating lease obligations"] / printed["Total contractual obligations"] * 100
    answer = await ask(
        client,
        "What is the value of operating lease obligations that are due in less than one year as "
        "a percentage of the total contractual obligations?",
        rows,
    )
    assert answer.status == "ok", answer.message
    assert f"{share:.2f}%" in first(answer), answer.summary


async def test_a_share_asked_respectively_for_each_year(client: httpx.AsyncClient) -> None:
    rows = [
        ["", "2019", "2018", "2017"],
        ["Revenue", "$1,240", "$1,105", "$980"],
        ["Cost of revenue", "533", "552", "539"],
        ["Gross profit", "707", "553", "441"],
    ]
    printed = frame(rows)
    shares = printed.loc["Cost of revenue"] / printed.loc["Revenue"] * 100
    answer = await ask(
        client,
        "What are the respective proportion of cost of revenue as a percentage of revenue in "
        "2017 and 2018?",
        rows,
    )
    assert answer.status == "ok", answer.message
    said = first(answer)
    assert f"{shares['2017']:.2f}%" in said and f"{shares['2018']:.2f}%" in said, answer.summary
    assert said.index(f"{shares['2017']:.2f}") < said.index(f"{shares['2018']:.2f}"), said
