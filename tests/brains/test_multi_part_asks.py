"""Every part of a question is answered, or the answer says what it could not do: the gap
between two figures in percentage points, a count of up and down periods beside an average,
a window's return beside its worst sub-period, a dated window outside the data, an explicit end
after a start anchor, and counts of sessions against a moving average. Expected figures come
from the bundled source data, computed here with pandas."""

from __future__ import annotations

from datetime import date

import pandas as pd
import pytest
from support.asking import ask

from datapilot.core.answer import Answer
from datapilot.core.context import QuestionContext
from datapilot.core.outputs import TableOutput, TextOutput


def _prices(ticker: str) -> pd.Series:
    from skfolio.datasets import load_sp500_dataset

    return load_sp500_dataset()[ticker]


def _tbill() -> pd.Series:
    from statsmodels.datasets import macrodata

    frame = macrodata.load_pandas().data
    index = pd.PeriodIndex.from_fields(
        year=frame["year"].astype(int), quarter=frame["quarter"].astype(int), freq="Q"
    )
    return pd.Series(frame["tbilrate"].to_numpy(), index=index)


def _year_return(prices: pd.Series, year: int) -> float:
    before = prices.loc[: f"{year - 1}-12-31"].iloc[-1]
    return float((prices.loc[str(year)].iloc[-1] / before - 1) * 100)


async def _ask(question: str, today: date) -> Answer:
    return await ask(question, QuestionContext(today=today, brain="offline"))


def _said(answer: Answer) -> str:
    texts = [answer.summary or ""]
    for out in answer.outputs:
        if isinstance(out, TextOutput):
            texts.append(out.text)
        elif isinstance(out, TableOutput):
            texts += [str(c) for row in out.rows for c in row]
    return " ".join(texts).replace(",", "")


def _has(answer: Answer, value: float) -> bool:
    return f"{abs(value):.2f}" in _said(answer)


@pytest.mark.parametrize(
    "question",
    [
        "Which returned more in 2019, Coca-Cola or PepsiCo, and by how many percentage points?",
        "2019年百事比可口可乐多涨了几个百分点？",
    ],
)
async def test_the_gap_between_two_returns_is_given_in_points(question: str) -> None:
    ko, pep = _year_return(_prices("KO"), 2019), _year_return(_prices("PEP"), 2019)
    answer = await _ask(question, date(2020, 3, 1))
    assert answer.status == "ok", answer.message
    assert _has(answer, pep - ko), answer.summary


@pytest.mark.parametrize(
    "question",
    [
        "How many percentage points did the 3-month T-bill rate lose from Q2 2007 to Q4 2008?",
        "3个月国库券利率从2007年二季度到2008年四季度下降了几个百分点？",
    ],
)
async def test_a_rates_change_is_given_in_points(question: str) -> None:
    rates = _tbill()
    drop = float(rates[pd.Period("2008Q4")] - rates[pd.Period("2007Q2")])
    answer = await _ask(question, date(2009, 12, 31))
    assert answer.status == "ok", answer.message
    assert _has(answer, drop), answer.summary


async def test_a_gap_nothing_computes_is_never_ok() -> None:
    answer = await _ask(
        "Over the past year, was JPMorgan or Bank of America more volatile, and by how many "
        "percentage points?",
        date(2022, 7, 1),
    )
    assert answer.status != "ok"


@pytest.mark.parametrize(
    "question",
    [
        "Home Depot's average monthly return in 2021 - and how many months were up?",
        "家得宝2021年月度收益率的平均值是多少？有几个月上涨？",
    ],
)
async def test_the_months_up_are_counted_beside_the_average(question: str) -> None:
    closes = _prices("HD").loc["2020-12-01":"2021-12-31"].resample("ME").last()
    monthly = closes.pct_change().dropna() * 100
    answer = await _ask(question, date(2022, 3, 1))
    assert answer.status == "ok", answer.message
    assert _has(answer, float(monthly.mean()))
    said = _said(answer)
    up = int((monthly > 0).sum())
    assert f"{up} of 12" in said or f"{up}个月上涨" in said, said


@pytest.mark.parametrize(
    "question",
    [
        "What did Apple return in 2020, and which quarter was its worst?",
        "苹果2020年涨了多少？哪个季度最差？",
    ],
)
async def test_a_windows_return_is_given_beside_its_worst_quarter(question: str) -> None:
    prices = _prices("AAPL")
    quarters = prices.loc["2019-12-01":"2020-12-31"].resample("QE").last().pct_change() * 100
    answer = await _ask(question, date(2021, 3, 1))
    assert answer.status == "ok", answer.message
    assert _has(answer, _year_return(prices, 2020)), answer.summary
    assert _has(answer, float(quarters.dropna().min())), answer.summary


@pytest.mark.parametrize(
    "question",
    [
        "US unemployment rate in March 2015, and the change since January?",
        "美国2015年3月的失业率比1月上升了多少？",
    ],
)
async def test_a_dated_window_after_the_data_is_not_moved(question: str) -> None:
    answer = await _ask(question, date(2015, 6, 1))
    assert answer.status == "no_data"
    assert "2009" in (answer.message or "")  # where the series' data ends


@pytest.mark.parametrize(
    ("question", "today", "ticker", "start", "end"),
    [
        (
            "Microsoft's return since March 23 2020, through the end of 2021?",
            date(2022, 6, 1),
            "MSFT",
            "2020-03-23",
            "2021-12-31",
        ),
        (
            "微软从2020年3月23日低点到2021年底涨了多少？",
            date(2022, 6, 1),
            "MSFT",
            "2020-03-23",
            "2021-12-31",
        ),
    ],
)
async def test_an_explicit_end_after_a_start_anchor_is_kept(
    question: str, today: date, ticker: str, start: str, end: str
) -> None:
    prices = _prices(ticker)
    expected = (prices.loc[:end].iloc[-1] / prices.loc[:start].iloc[-1] - 1) * 100
    answer = await _ask(question, today)
    assert answer.status == "ok", answer.message
    assert str(answer.intent.end) == end if answer.intent else False
    assert _has(answer, float(expected)), answer.summary


@pytest.mark.parametrize(
    ("question", "above"),
    [
        ("How many sessions did Coca-Cola close above its 50-day moving average in 2019?", True),
        ("2019年可口可乐有多少个交易日收在50日均线下方？", False),
    ],
)
async def test_sessions_against_a_moving_average_are_counted(question: str, above: bool) -> None:
    closes = _prices("KO")
    average = closes.rolling(50).mean()
    window = (closes - average).loc["2019"]
    expected = int((window > 0).sum() if above else (window < 0).sum())
    answer = await _ask(question, date(2020, 3, 1))
    assert answer.status == "ok", answer.message
    table = next(o for o in answer.outputs if isinstance(o, TableOutput) and "count" in o.columns)
    assert table.rows[0][table.columns.index("count")] == expected
