"""Explicit day-to-day ranges parse exactly, in every common way of writing them."""

from __future__ import annotations

from datetime import date

import pytest

from datapilot.brains.offline.windows import read_time

TODAY = date(2026, 11, 23)
START, END = date(2022, 5, 10), date(2023, 5, 10)


@pytest.mark.parametrize(
    "question",
    [
        "2022年05月10日到2023年5月10",  # the second 日 left out
        "2022年5月10至2023年5月10",
        "苹果2022年5月10到2023年5月10的收益",
        "22年5月10到23年5月10",
        "2022年5月10日至2023年5月10日",
        "2022年5月10号到2023年5月10号",
        "2022年5月10日~2023年5月10日",
        "2022年5月10日—2023年5月10日",
        "2022-05-10~2023-05-10",
        "2022-05-10 - 2023-05-10",
        "2022/5/10到2023/5/10",
        "2022.5.10-2023.5.10",
        "2022.05.10–2023.05.10",
        "May 10 2022 to May 10 2023",
        "from May 10, 2022 to May 10, 2023",
        "10 May 2022 to 10 May 2023",
        "from 5/10/2022 to 5/10/2023",
        "between 2022-05-10 and 2023-05-10",
        "May 10th 2022 through May 10th 2023",
    ],
)
def test_day_ranges_are_exact(question: str) -> None:
    reading = read_time(question, TODAY)
    assert (reading.start, reading.end) == (START, END)
    assert reading.base == "on_or_before"


def test_second_day_without_year_or_suffix_takes_the_first_ones_year() -> None:
    reading = read_time("2022年5月10日到5月20", TODAY)
    assert (reading.start, reading.end) == (START, date(2022, 5, 20))


@pytest.mark.parametrize("question", ["2022年5月10只股票", "2022年5月10个交易日"])
def test_a_count_after_the_month_is_no_day(question: str) -> None:
    reading = read_time(question, TODAY)
    assert reading.start == date(2022, 1, 1) or reading.start == date(2022, 5, 1)
    assert reading.start != reading.end
