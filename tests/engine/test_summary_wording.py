"""The summary's answer sentence says what was computed, in plain words, once.

Expected numbers come from the source datasets (skfolio's S&P 500 prices, arch's French factors).
"""

from __future__ import annotations

import re
from datetime import date

import numpy as np
import pandas as pd
import pytest
from support.asking import ask

from datapilot.core.context import QuestionContext
from datapilot.core.outputs import ChartOutput

TODAY = date(2022, 12, 28)


def _prices() -> pd.DataFrame:
    from skfolio.datasets import load_sp500_dataset

    return load_sp500_dataset()


async def _ask(question: str):  # type: ignore[no-untyped-def]
    return await ask(question, QuestionContext(today=TODAY, brain="offline"))


async def test_rebased_to_100_says_so_with_both_ends(data) -> None:  # type: ignore[no-untyped-def]
    answer = await _ask("Apple rebased to 100 in 2021")
    closes = _prices()["AAPL"]
    base, end = closes.loc[:"2020-12-31"].iloc[-1], closes.loc[:"2021-12-31"].iloc[-1]
    expected = f"{end / base * 100:.2f}"
    assert f"rebased to 100: {expected} on 2021-12-31 (from 100 on 2020-12-31)" in answer.summary
    assert "index, start" not in answer.summary
    charts = [o for o in answer.outputs if isinstance(o, ChartOutput)]
    assert charts and "rebased to 100" in charts[0].title
    assert "closing price" not in charts[0].title


async def test_a_mean_across_stocks_names_the_measure(data) -> None:  # type: ignore[no-untyped-def]
    answer = await _ask("mean annualized volatility of the 20 stocks in 2021")
    closes = _prices().loc[:"2021-12-31"]
    window = closes.loc["2020-12-31":]
    vols = window.pct_change().iloc[1:].std(ddof=1) * np.sqrt(252) * 100
    expected = f"{vols.mean():.2f}%"
    assert f"The mean annualised volatility of the 20 stocks in 2021 was {expected}" in (
        answer.summary
    )
    assert "Annualized_volatility_pct" not in answer.summary


async def test_an_investment_is_said_once(data) -> None:  # type: ignore[no-untyped-def]
    answer = await _ask("If I invested 10000 in Apple in 2021 how much would I have")
    closes = _prices()["AAPL"]
    base, end = closes.loc[:"2020-12-31"].iloc[-1], closes.loc[:"2021-12-31"].iloc[-1]
    final = f"{10000 * end / base:,.2f}"
    assert answer.summary.count(final) == 1, answer.summary
    assert f"would have been worth {final} USD on 2021-12-31" in answer.summary


@pytest.mark.parametrize(
    ("question", "start", "end"),
    [
        (
            "cumulative return of the market factor since 2017",
            "From the end of December 2016",
            "to the end of November 2018",
        ),
        ("市场因子2017年以来的累计收益", "从2016年12月末", "到2018年11月末"),
    ],
)
async def test_monthly_factor_dates_are_month_ends(  # type: ignore[no-untyped-def]
    data, question: str, start: str, end: str
) -> None:
    from arch.data import frenchdata

    raw = frenchdata.load()["Mkt-RF"]
    # The file labels each row YYYYMM: the row is that month's return.
    labels = pd.to_datetime(raw.index.astype("int64").astype(str), format="%Y%m")
    factor = pd.Series(raw.to_numpy(), index=labels)
    window = factor.loc["2017-01-01":]
    expected = f"{((1 + window / 100).prod() - 1) * 100:.2f}%"
    answer = await _ask(question)
    assert answer.summary.startswith(f"{start} {end}".replace(" 到", "到")) or (
        start in answer.summary and end in answer.summary
    ), answer.summary
    assert expected in answer.summary
    assert not re.search(r"20\d\d-\d\d-01", answer.summary.split("。")[0].split(". ")[0])


async def test_a_single_value_is_said_as_shown(data) -> None:  # type: ignore[no-untyped-def]
    answer = await _ask("Apple's close on 2021-12-31")
    close = _prices()["AAPL"].loc["2021-12-31"]
    assert f"{close:.2f} USD on 2021-12-31" in answer.summary
    assert "with plot_line" not in answer.summary
    assert "as a table" in answer.summary
    assert "the high was" not in answer.summary  # one value has no range


@pytest.mark.parametrize(
    ("question", "day"),
    [
        ("What was Apple's close on the last day of 2021", "2021-12-31"),
        ("苹果2021年最后一天的收盘价", "2021-12-31"),
        ("Apple close on the first trading day of March 2021", "2021-03-01"),
    ],
)
def test_a_day_of_a_period_is_that_one_day(question: str, day: str) -> None:
    from datapilot.brains.offline.windows import read_time

    reading = read_time(question, TODAY)
    assert (reading.start, reading.end) == (date.fromisoformat(day), date.fromisoformat(day))


async def test_the_last_day_of_a_year_answers_that_days_close(data) -> None:  # type: ignore[no-untyped-def]
    answer = await _ask("What was Apple's close on the last day of 2021")
    close = _prices()["AAPL"].loc["2021-12-31"]
    assert answer.summary.startswith(
        f"Apple Inc.'s close (adjusted) was {close:.2f} USD on 2021-12-31"
    )
    assert "2021-01" not in answer.summary  # not the whole year
