"""Questions over tables as printed in annual reports, sent as the client's table to
`/api/v1/ask`: the header found in the first rows, printed cells read, each question kind
answered with its figure first and the cells and formula after it; a row not found is `no_data`.
Expected figures are computed with pandas from the same cells."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pandas as pd
import pytest
from support.paths import FIXTURES
from support.report_tables import ask_table, first_sentence, offline_api

from datapilot.core.context import ClientTable
from datapilot.data.client_data import parse_client_data
from datapilot.data.report_tables import read_report

# A balance sheet as a client holding the printed page sends it: the printed first row (a
# spanning title over blanks) as its columns, the years in the first row, a scale row, section
# rows, parenthesised negatives, footnote marks, dollar signs.
BALANCE = {
    "name": "balance",
    "columns": ["item", "December 31,", "column 3"],
    "rows": [
        ["(In thousands)", "2019", "2018"],
        ["Current assets:", "", ""],
        ["Cash and equivalents", "$14,158", "$18,211"],
        ["Accounts receivable, net (a)", "3,102", "2,950"],
        ["Land, property and equipment, net", "1,571.7", "1,498.3"],
        ["Other assets", "412", "388"],
        ["Total assets", "$19,243.7", "$23,047.3"],
        ["Current liabilities:", "", ""],
        ["Deferred revenue", "(3.1)", "(2.5)"],
        ["Gross margin", "42.5%", "40.1%"],
    ],
}
# The same cells as numbers, for pandas to compute the expected figures from.
CELLS = pd.DataFrame(
    {
        "2019": [14158, 3102, 1571.7, 412, 19243.7, -3.1, 42.5],
        "2018": [18211, 2950, 1498.3, 388, 23047.3, -2.5, 40.1],
    },
    index=["cash", "receivable", "land", "other", "total", "deferred", "margin"],
)

INCOME_ZH = {
    "name": "利润表",
    "description": "单位：万元",
    "columns": ["项目", "2019年", "2018年"],
    "rows": [
        ["营业收入", "12,500.5", "10,200.0"],
        ["营业成本", "(8,300.2)", "(7,100.4)"],
        ["净利润", "1,850.3", "1,420.8"],
    ],
}


@pytest.fixture()
async def client(data: Any) -> AsyncIterator[httpx.AsyncClient]:
    async with offline_api() as api:
        yield api


ask = ask_table


def figure(value: float, places: int = 2) -> str:
    text = f"{abs(value):,.{places}f}"
    return ("−" if value < 0 else "") + text


def test_the_header_is_found_in_the_first_rows_and_cells_are_read_as_printed() -> None:
    report = read_report(ClientTable(**BALANCE))
    assert report.columns == ["December 31, 2019", "December 31, 2018"]
    assert [report.short(0), report.short(1)] == ["2019", "2018"]
    assert report.scale == "thousand"
    labels = [row.label for row in report.rows]
    assert labels[0] == "Cash and equivalents"  # the section row is no row of figures
    assert report.rows[0].section == "Current assets"
    assert report.rows[-2].section == "Current liabilities"
    values = pd.DataFrame(
        [[row.value(0), row.value(1)] for row in report.rows], columns=["2019", "2018"]
    )
    assert values.to_numpy().tolist() == CELLS.to_numpy().tolist()


def test_a_csv_attachment_with_a_blank_header_cell_keeps_its_table() -> None:
    text = ',2019,2018\nRevenue,"1,200","1,000"\nCost of sales,(700),(650)\n'
    (table,) = parse_client_data(text, name="report.csv", source="file")
    report = read_report(table)
    assert [row.label for row in report.rows] == ["Revenue", "Cost of sales"]
    assert report.rows[1].value(0) == pytest.approx(-700)


@pytest.mark.parametrize(
    ("question", "expected", "formula"),
    [
        (
            "What was the percentage change in cash and equivalents from 2018 to 2019?",
            f"{figure((CELLS.loc['cash', '2019'] / CELLS.loc['cash', '2018'] - 1) * 100)}%",
            "(14,158 − 18,211) / 18,211",
        ),
        (
            "How much did other assets change in 2019 compared to 2018?",
            f"${figure(CELLS.loc['other', '2019'] - CELLS.loc['other', '2018'], 0)} thousand",
            "412 − 388 = 24",
        ),
        (
            "What is the average other assets for 2018 and 2019?",
            f"${figure(CELLS.loc['other'].mean(), 0)} thousand",
            "(388 + 412) / 2 = 400",
        ),
        (
            "What was the net cost of land, property, and equipment in 2019?",
            "$1,571.7 thousand",
            "Land, property and equipment, net, 2019: 1,571.7",
        ),
        (
            "What is the ratio of cash and equivalents to total assets in 2018?",
            figure(CELLS.loc["cash", "2018"] / CELLS.loc["total", "2018"]),
            "18,211 / 23,047.3",
        ),
        (
            "What percentage of total assets is other assets in 2019?",
            f"{figure(CELLS.loc['other', '2019'] / CELLS.loc['total', '2019'] * 100)}%",
            "412 / 19,243.7 × 100",
        ),
        (
            "What is the difference between cash and equivalents and other assets in 2019?",
            f"${figure(CELLS.loc['cash', '2019'] - CELLS.loc['other', '2019'], 0)} thousand",
            "14,158 − 412",
        ),
        (
            "What is the total accounts receivable for 2018 and 2019?",
            f"${figure(CELLS.loc['receivable'].sum(), 0)} thousand",
            "2,950 + 3,102",
        ),
        (
            "In which year was total assets larger?",
            str(CELLS.loc["total"].idxmax()),
            "Total assets, 2018: $23,047.3",
        ),
        (
            "What was the change in deferred revenue from 2018 to 2019?",
            f"−${figure(abs(CELLS.loc['deferred', '2019'] - CELLS.loc['deferred', '2018']), 1)} thousand",  # noqa: E501
            "−3.1 − −2.5 = −0.6",
        ),
        (
            "What was the change in gross margin from 2018 to 2019?",
            f"{figure(CELLS.loc['margin', '2019'] - CELLS.loc['margin', '2018'], 1)} percentage points",  # noqa: E501
            "42.5 − 40.1",
        ),
    ],
)
async def test_each_question_kind_states_the_figure_first_then_the_cells_and_formula(
    client: httpx.AsyncClient, question: str, expected: str, formula: str
) -> None:
    answer = await ask(client, question, BALANCE)
    assert answer.status == "ok", answer.message
    assert expected in first_sentence(answer.summary), answer.summary
    assert formula in answer.summary


async def test_a_row_it_cannot_find_is_no_data_naming_it_and_the_closest_rows(
    client: httpx.AsyncClient,
) -> None:
    answer = await ask(
        client, "What was the percentage change in goodwill impairment from 2018 to 2019?", BALANCE
    )
    assert answer.status == "no_data"
    assert "could not find" in (answer.message or "")
    assert '"' in (answer.message or "") and "closest" in (answer.message or "")


async def test_an_average_of_one_year_is_not_answered_with_that_years_cell(
    client: httpx.AsyncClient,
) -> None:
    # "The 2019 average" is the mean of the year's figure and the year before's (a balance's
    # closing and opening), never the 2019 cell alone.
    answer = await ask(client, "What is the 2019 average other assets?", BALANCE)
    assert answer.status == "ok", answer.message
    expected = CELLS.loc["other", ["2019", "2018"]].mean()
    assert f"is ${expected:,.0f} thousand" in answer.summary, answer.summary
    assert f"is ${CELLS.loc['other', '2019']:,.0f}" not in answer.summary


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        (
            "2019年营业收入比2018年增长了百分之多少？",
            lambda: f"{figure((12500.5 / 10200.0 - 1) * 100)}%",
        ),
        ("2018年和2019年净利润的平均值是多少？", lambda: f"{figure((1850.3 + 1420.8) / 2)}万元"),
    ],
)
async def test_chinese_questions_over_a_statement_in_wan_yuan(
    client: httpx.AsyncClient, question: str, expected: Any
) -> None:
    answer = await ask(client, question, INCOME_ZH)
    assert answer.status == "ok", answer.message
    assert expected() in first_sentence(answer.summary), answer.summary


def _tatqa_cases() -> list[tuple[dict[str, Any], dict[str, Any]]]:
    path = FIXTURES / "report_tables" / "tatqa_dev_sample.json"
    documents = json.loads(path.read_text(encoding="utf-8"))
    return [(doc, q) for doc in documents for q in doc["questions"]]


def _as_client_table(table: list[list[str]]) -> dict[str, Any]:
    columns: list[str] = []
    for number, cell in enumerate(table[0], start=1):
        name = cell.strip() or f"column {number}"
        columns.append(name if name not in columns else f"{name} (2)")
    return {"name": "report", "columns": columns, "rows": table[1:]}


@pytest.mark.parametrize(("doc", "case"), _tatqa_cases(), ids=lambda v: v.get("uid", "")[:8])
async def test_tables_from_real_annual_reports(
    client: httpx.AsyncClient, doc: dict[str, Any], case: dict[str, Any]
) -> None:
    answer = await ask(client, case["question"], _as_client_table(doc["table"]))
    assert answer.status == "ok", answer.message
    head = first_sentence(answer.summary)
    gold = case["answer"]
    if isinstance(gold, list):
        assert all(str(item) in head for item in gold), head
    else:
        numbers = [float(n.replace(",", "")) for n in re.findall(r"\d[\d,]*\.?\d*", head)]
        assert any(abs(n - abs(float(gold))) < 0.006 for n in numbers), head


LEASES = {
    "name": "leases",
    "columns": ["item", "Ground", "Land and"],
    "rows": [
        ["", "", "Building"],
        ["Fiscal Year", "Leases", "Leases"],
        ["2020 – 2024", "381", "697"],
        ["2025 – 2029", "198", "270"],
    ],
}

SEGMENTS = {
    "name": "segments",
    "columns": ["(In millions)", "2019", "2018"],
    "rows": [
        ["Fully-paid licenses", "$1,200.5", "$1,100.0"],
        ["Subscriptions", "950.2", "800.4"],
        ["Services", "310.0", "290.7"],
        ["Total revenue", "$2,460.7", "$2,191.1"],
    ],
}


async def test_a_table_with_its_periods_down_the_side_is_read_across(
    client: httpx.AsyncClient,
) -> None:
    answer = await ask(
        client, "What is the change in ground leases from 2020 - 2024 to 2025 - 2029?", LEASES
    )
    assert answer.status == "ok", answer.message
    expected = pd.Series([381, 198]).diff().iloc[-1]
    assert f"{figure(expected, 0)}" in first_sentence(answer.summary), answer.summary
    assert "198 − 381" in answer.summary


async def test_the_largest_row_of_a_column_is_named_with_its_figure(
    client: httpx.AsyncClient,
) -> None:
    answer = await ask(client, "Which segment has the highest revenue in 2019?", SEGMENTS)
    assert answer.status == "ok", answer.message
    values = pd.Series({"Fully-paid licenses": 1200.5, "Subscriptions": 950.2, "Services": 310.0})
    assert first_sentence(answer.summary).startswith(str(values.idxmax()))


async def test_the_rows_under_a_section_add_up_when_the_question_names_the_section(
    client: httpx.AsyncClient,
) -> None:
    answer = await ask(client, "What was the sum of all current assets in 2019?", BALANCE)
    assert answer.status == "ok", answer.message
    expected = CELLS.loc[["cash", "receivable", "land", "other"], "2019"].sum()
    assert f"${figure(expected, 1)} thousand" in first_sentence(answer.summary), answer.summary


async def test_arithmetic_over_a_printed_table_keyed_by_a_named_column_is_never_a_guess(
    client: httpx.AsyncClient,
) -> None:
    awards = {
        "name": "awards",
        "columns": ["Non-vested awards", "Shares", "Weighted-Average Grant Date Fair Value"],
        "rows": [
            ["Non-vested at December 31, 2018", "1,187,586", "$41.12"],
            ["Granted", "473,550", "$53.53"],
            ["Vested", "(365,223)", "$41.83"],
            ["Non-vested at December 31, 2019", "1,283,281", "$47.87"],
        ],
    }
    question = (
        "What is the percentage of non-vested shares granted in 2019 as a percentage of the "
        "total non-vested shares at December 31, 2019?"
    )
    answer = await ask(client, question, awards)
    assert answer.status != "ok" or "36.90%" in first_sentence(answer.summary), answer.summary


# --- the same reading from the Workspace: a widget's data and a context file -----------------

INCOME_ROWS = [
    {"item": "(In millions)", "2019": "", "2018": ""},
    {"item": "Net revenue", "2019": "$1,571.7", "2018": "$1,498.3"},
    {"item": "Cost of revenue", "2019": "(912.4)", "2018": "(870.1)"},
    {"item": "Gross margin %", "2019": "41.9%", "2018": "41.9%"},
]


async def test_a_workspace_widget_holding_an_income_statement_is_answered_from_it(
    data: Any,
) -> None:
    from support.openbb import make_client, of, query, text_of, with_widget_data

    widget = {
        "uuid": "7e570040-0000-4000-8000-000000000040",
        "origin": "OpenBB API",
        "widget_id": "income_statement",
        "name": "Income Statement",
        "description": "Annual income statement as reported",
        "params": [{"name": "symbol", "type": "ticker", "description": "", "current_value": "X"}],
        "metadata": {},
    }
    question = "What was the percentage change in net revenue from 2018 to 2019?"
    body: dict[str, Any] = {
        "today": "2024-06-30",
        "messages": [{"role": "human", "content": question}],
        "widgets": {"primary": [widget]},
    }
    async with make_client() as client:
        (call,) = of(await query(client, body), "copilotFunctionCall")
        with_widget_data(body, call, [INCOME_ROWS])
        text = text_of(await query(client, body))
    frame = pd.DataFrame(INCOME_ROWS).set_index("item")
    revenue = frame.loc["Net revenue"].str.replace(r"[$,]", "", regex=True).astype(float)
    expected = (revenue["2019"] / revenue["2018"] - 1) * 100
    assert f"{figure(expected)}%" in first_sentence(text), text
    assert "(1,571.7 − 1,498.3) / 1,498.3" in text


async def test_a_workspace_context_file_with_a_blank_label_header_is_answered_from_it(
    data: Any,
) -> None:
    from support.openbb import make_client, query, text_of

    content = ',2019,2018\nRevenue,"12,500","10,200"\nOperating expenses,"(8,300)","(7,100)"\n'
    body = {
        "today": "2024-06-30",
        "messages": [
            {"role": "human", "content": "What is the average revenue for 2018 and 2019?"}
        ],
        "context": [
            {
                "uuid": "7e570041-0000-4000-8000-000000000041",
                "name": "results.csv",
                "description": "Results in thousands",
                "data": {"content": content},
            }
        ],
    }
    async with make_client() as client:
        text = text_of(await query(client, body))
    expected = pd.Series([12500, 10200]).mean()
    assert f"{figure(expected, 0)} thousand" in first_sentence(text), text


INCOME_ROWS_ZH = [
    {"项目": "单位：万元", "2019年": "", "2018年": ""},
    {"项目": "一、营业总收入", "2019年": "", "2018年": ""},
    {"项目": "营业收入", "2019年": "12,500.5", "2018年": "10,200.0"},
    {"项目": "营业成本", "2019年": "(8,300.2)", "2018年": "(7,100.4)"},
    {"项目": "净利润", "2019年": "1,850.3*", "2018年": "1,420.8"},
]


async def test_a_workspace_widget_holding_a_chinese_income_statement_is_answered_from_it(
    data: Any,
) -> None:
    from support.openbb import make_client, of, query, text_of, with_widget_data

    widget = {
        "uuid": "7e570042-0000-4000-8000-000000000042",
        "origin": "OpenBB API",
        "widget_id": "income_statement_cn",
        "name": "利润表",
        "description": "年度利润表（单位：万元）",
        "params": [{"name": "symbol", "type": "ticker", "description": "", "current_value": "X"}],
        "metadata": {},
    }
    question = "2019年营业收入比2018年增长了多少？"
    body: dict[str, Any] = {
        "today": "2024-06-30",
        "messages": [{"role": "human", "content": question}],
        "widgets": {"primary": [widget]},
    }
    async with make_client() as client:
        (call,) = of(await query(client, body), "copilotFunctionCall")
        with_widget_data(body, call, [INCOME_ROWS_ZH])
        text = text_of(await query(client, body))
    frame = pd.DataFrame(INCOME_ROWS_ZH).set_index("项目")
    revenue = frame.loc["营业收入"].str.replace(",", "").astype(float)
    growth = revenue["2019年"] - revenue["2018年"]
    assert f"{growth:,.1f}万元" in first_sentence(text), text
    assert f"12,500.5 − 10,200.0 = {growth:,.1f}" in text, text


# A table of people with their ages: no row of it says who holds a post.
OFFICERS = {
    "name": "officers",
    "columns": ["Name", "Age", "Position"],
    "rows": [
        ["Jane Doe", "52", "Chief Executive Officer"],
        ["John Roe", "47", "Chief Financial Officer"],
        ["Ann Poe", "39", "General Counsel"],
    ],
}


@pytest.mark.parametrize(
    ("question", "table"),
    [
        ("Why did cash and equivalents decrease from 2018 to 2019?", BALANCE),
        ("What does other assets represent?", BALANCE),
        ("What do the other assets comprise of?", BALANCE),
        ("How is gross margin calculated?", BALANCE),
        ("Who is the company's Chief Financial Officer?", OFFICERS),
        ("净利润为什么增长？", INCOME_ZH),
    ],
)
async def test_a_question_the_reports_text_answers_is_not_answered_with_a_figure(
    client: httpx.AsyncClient, question: str, table: dict[str, Any]
) -> None:
    # Before: the row's 2019 figure (or the officers' mean age) came back `ok`.
    answer = await ask(client, question, table)
    assert answer.status == "no_data", answer.summary
    assert answer.message and table["name"] in answer.message
    said = re.findall(r"\d[\d,.]*", answer.message or "")
    assert not said, answer.message  # no figure from the table given as if it answered


async def test_a_share_of_a_line_it_represents_is_still_computed(
    client: httpx.AsyncClient,
) -> None:
    # "represent" asking for a share is arithmetic, not what a line means.
    answer = await ask(
        client, "What percentage of total assets does other assets represent in 2019?", BALANCE
    )
    assert answer.status == "ok", answer.message
    share = CELLS.loc["other", "2019"] / CELLS.loc["total", "2019"] * 100
    assert f"{figure(share)}%" in first_sentence(answer.summary), answer.summary


async def test_which_fiscal_year_is_answered_with_the_year(client: httpx.AsyncClient) -> None:
    answer = await ask(client, "Which fiscal year has a higher total assets?", BALANCE)
    assert answer.status == "ok", answer.message
    year = CELLS.loc["total"].astype(float).idxmax()
    assert year in first_sentence(answer.summary), answer.summary


RATES = {
    "name": "rates",
    "columns": ["Currency", "2019", "2018"],
    "rows": [["Japanese Yen", "109.01", "110.43"], ["South Korean Won", "1,165.69", "1,100.50"]],
}


async def test_a_weighted_average_is_a_measure_named_not_an_average_taken(
    client: httpx.AsyncClient,
) -> None:
    question = (
        "What are the weighted-average exchange rates for Japanese Yen and South Korean Won "
        "for 2018, respectively?"
    )
    answer = await ask(client, question, RATES)
    assert answer.status == "ok", answer.message
    for printed in ("110.43", "1,100.50"):
        assert printed in answer.summary, answer.summary
    mean = (110.43 + 1100.50) / 2
    assert f"{mean:,.2f}" not in answer.summary, answer.summary


# Quarters dated by their last day, printed latest first.
QUARTERS = {
    "name": "quarters",
    "columns": ["Quarters Ended", "July 27, 2019", "April 27, 2019", "January 26, 2019",
                "October 27, 2018"],
    "rows": [["Revenue", "$13,428", "$12,958", "$12,446", "$13,072"],
             ["Operating income", "$3,690", "$3,513", "$3,211", "$3,805"]],
}  # fmt: skip
QUARTER_CELLS = pd.DataFrame(
    [[13428, 12958, 12446, 13072], [3690, 3513, 3211, 3805]],
    index=["revenue", "operating"],
    columns=["2019-07-27", "2019-04-27", "2019-01-26", "2018-10-27"],
)
# A title printed over one quarter ("Fiscal 2019") names all the quarters under it.
FISCAL = {
    "name": "fiscal",
    "columns": ["column 1", "column 2", "column 3", "column 4", "Fiscal 2019", "column 6"],
    "rows": [["", "First", "Second", "Third", "Fourth", ""],
             ["", "Quarter", "Quarter", "Quarter", "Quarter", "Total"],
             ["Revenues", "$ 94,888", "$ 96,037", "$ 88,495", "$84,380", "$363,800"]],
}  # fmt: skip
CASH = {
    "name": "cash",
    "columns": ["item", "2019", "2018", "2017"],
    "rows": [["Net decrease in cash and cash equivalents", "(472.7)", "(7.4)", "(1,184.0)"],
             ["Unrecognized tax benefit - ending balance", "$8,840", "$8,217", "$7,527"]],
}  # fmt: skip


@pytest.mark.parametrize(
    ("question", "start", "end"),
    [
        (
            "What was the percentage change in operating income between the quarters ended "
            "January 26, 2019 and October 27, 2018?",
            "2018-10-27",
            "2019-01-26",
        ),
        (
            "What was the change in revenue between the quarters ended July 27 and April 27 in "
            "2019?",
            "2019-04-27",
            "2019-07-27",
        ),
    ],
)
async def test_a_change_between_dated_columns_runs_forward_in_time(
    client: httpx.AsyncClient, question: str, start: str, end: str
) -> None:
    row = "operating" if "operating" in question else "revenue"
    first, last = QUARTER_CELLS.loc[row, start], QUARTER_CELLS.loc[row, end]
    answer = await ask(client, question, QUARTERS)
    assert answer.status == "ok", answer.message
    lead = first_sentence(answer.summary)
    if "percentage" in question:
        assert f"{figure((last / first - 1) * 100)}%" in lead, answer.summary
    else:
        assert f"${figure(last - first, 0)}" in lead, answer.summary


async def test_a_title_over_one_quarter_names_every_quarter(client: httpx.AsyncClient) -> None:
    answer = await ask(client, "What was the revenue in the fiscal 2019 third quarter?", FISCAL)
    assert answer.status == "ok", answer.message
    assert "$88,495" in first_sentence(answer.summary), answer.summary
    other = await ask(
        client,
        "How much is the revenue in the first quarter of fiscal 2018 as a percentage of the "
        "total revenue that year?",
        FISCAL,
    )
    assert other.status == "no_data", other.summary  # the table prints fiscal 2019 only
    assert "2018" in (other.message or "")


async def test_a_line_named_by_a_change_word_is_its_own_figure(client: httpx.AsyncClient) -> None:
    answer = await ask(
        client, "What was the Net decrease in cash and cash equivalents in 2019?", CASH
    )
    assert answer.status == "ok", answer.message
    assert "(472.7)" in answer.summary or "−472.7" in first_sentence(answer.summary)
    assert "−465.3" not in answer.summary  # not the change from 2018's line


async def test_a_total_across_all_the_years_adds_every_year(client: httpx.AsyncClient) -> None:
    cells = pd.Series([8840, 8217, 7527])
    answer = await ask(
        client,
        "What is the total unrecognized tax benefit - ending balance across all 3 years?",
        CASH,
    )
    assert answer.status == "ok", answer.message
    assert f"{cells.sum():,.0f}" in first_sentence(answer.summary), answer.summary


async def test_proportions_asked_respectively_are_not_answered_with_one_year(
    client: httpx.AsyncClient,
) -> None:
    answer = await ask(
        client,
        "What are the respective proportions of cash and equivalents as a percentage of total "
        "assets in 2018 and 2019?",
        BALANCE,
    )
    if answer.status == "ok":  # both years given
        for year in ("2018", "2019"):
            share = CELLS.loc["cash", year] / CELLS.loc["total", year] * 100
            assert f"{figure(share)}%" in answer.summary, answer.summary
    else:
        assert answer.status == "no_data" and "2018" in (answer.message or "")


async def test_a_large_amount_is_also_said_in_millions(client: httpx.AsyncClient) -> None:
    # "(In thousands)" cash of $14,158 thousand is about $14.2 million; a change printed in
    # dollars with no scale (a table of whole dollars) is said in millions too.
    answer = await ask(client, "What was the cash and equivalents in 2019?", BALANCE)
    millions = CELLS.loc["cash", "2019"] * 1e3 / 1e6
    head = first_sentence(answer.summary)
    assert f"about ${millions:,.1f} million" in head, answer.summary
    dollars = {
        "name": "expenses",
        "columns": ["item", "2019", "2018"],
        "rows": [["Selling, general and administrative", "$24,371,349", "$14,794,205"]],
    }
    answer = await ask(client, "What was the increase in selling, general and administrative?",
                       dollars)  # fmt: skip
    change = pd.Series([14_794_205, 24_371_349]).diff().iloc[-1]
    head = first_sentence(answer.summary)
    assert f"${figure(change, 0)}" in head and f"about ${change / 1e6:,.1f} million" in head, head
    small = await ask(client, "What were other assets in 2019?", BALANCE)  # $412 thousand
    assert "about" not in first_sentence(small.summary), small.summary


async def test_the_years_a_table_gives_and_the_years_past_a_bound(
    client: httpx.AsyncClient,
) -> None:
    years = await ask(client, "Which years does the table show?", BALANCE)
    assert years.status == "ok", years.message
    head = first_sentence(years.summary)
    assert "2019" in head and "2018" in head, years.summary
    cash = CELLS.loc["cash"]
    for question, bound in [
        ("Which years did cash and equivalents exceed $15,000 thousand?", 15_000),
        ("How many years did cash and equivalents exceed $15 million?", 15_000),  # in thousands
    ]:
        answer = await ask(client, question, BALANCE)
        assert answer.status == "ok", answer.message
        head = first_sentence(answer.summary)
        past = cash[cash > bound]
        assert head.startswith(f"{len(past)} of the {len(cash)}"), head
        for year in cash.index:
            assert (year in head) == (year in past.index), head
    blank = {
        "name": "leases",
        "columns": ["item", "2019", "2018"],
        "rows": [["Lease obligation", "2,047", "—"]],
    }
    answer = await ask(client, "In which year was lease obligation less than 500?", blank)
    assert answer.status == "no_data" and "2018" in (answer.message or ""), answer
