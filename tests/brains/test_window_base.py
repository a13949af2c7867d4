"""Where a window's returns start from: the close before a calendar period, the day itself for
trailing lengths and ranges between two days."""

from __future__ import annotations

from datetime import date

import pytest

from datapilot.brains.offline.windows import read_time

TODAY = date(2022, 12, 28)


@pytest.mark.parametrize(
    "question",
    [
        "Apple's return in 2021",
        "苹果2021年的收益率",
        "Q1 2021 return of MSFT",
        "2021年一季度",
        "上半年",
        "this year",
        "今年",
        "YTD",
        "since 2020",
        "2020年以来",
        "last month",
        "from 2019 to 2021",
    ],
)
def test_calendar_periods_start_from_the_close_before(question: str) -> None:
    assert read_time(question, TODAY).base == "before"


@pytest.mark.parametrize(
    "question",
    [
        "past 3 months",
        "the past 6 months",
        "近三年",
        "过去6个月",
        "TTM",
        "from 2022-05-10 to 2022-11-10",
        "2022年5月10日到2022年11月10日",
        "since May 10, 2021",
        "no time words at all",
    ],
)
def test_trailing_lengths_and_day_ranges_start_on_the_day(question: str) -> None:
    assert read_time(question, TODAY).base == "on_or_before"


def test_the_window_that_starts_first_decides() -> None:
    reading = read_time("2019 and the past 3 months", TODAY)
    assert reading.start == date(2019, 1, 1)
    assert reading.base == "before"
