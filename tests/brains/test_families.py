"""The analyst families as read: what is left out of a list, what a count or a best period asks,
amounts with a scale, named episodes measured from their first day's close — and the neighbours
that must not be read so (a spread's "minus", "besides X, also …", the best year of one year)."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest
from skfolio.datasets import load_sp500_index
from support.asking import ask

from datapilot.brains.offline.brain import OfflineBrain
from datapilot.brains.offline.measures import read_amount
from datapilot.brains.offline.reading import Reading
from datapilot.core.context import QuestionContext


@pytest.fixture(scope="module")
def brain(data) -> OfflineBrain:  # type: ignore[no-untyped-def]
    return OfflineBrain(catalog=data.catalog)


def _read(brain: OfflineBrain, question: str, today: str = "2022-12-28") -> Reading:
    return brain.read(question, QuestionContext(today=date.fromisoformat(today)))


@pytest.mark.parametrize(
    ("question", "kept", "removed"),
    [
        ("Rank AAPL, MSFT, AMD and JPM by 2020 return, leave AMD out of it", 3, "AMD"),
        ("Rank the factor ETFs by 2022 return except SIZE", 4, "SIZE"),
        ("Compare JPM, BAC and KO in 2021, but not KO", 2, "KO"),
        ("2020年礼来、默沙东、辉瑞、强生、联合健康按涨幅排个名，辉瑞除外", 4, "PFE"),
        ("除了辉瑞，礼来、默沙东和辉瑞2020年谁涨得最多", 2, "PFE"),
        ("因子ETF今年的收益率排名，不算USMV", 4, "USMV"),
    ],
)
def test_a_member_left_out_is_not_asked_about_and_is_named(
    brain: OfflineBrain, question: str, kept: int, removed: str
) -> None:
    reading = _read(brain, question)
    ids = [e.id for e in reading.entities]
    assert removed not in ids and len(ids) == kept, ids
    assert reading.excluded == [removed]
    assert any(removed in line for line in reading.trace)
    assert any(removed in note for note in reading.notes)
    assert reading.ledger is not None and not reading.ledger.left_over, reading.ledger.left_over


@pytest.mark.parametrize(
    "question",
    ["BAA minus AAA yield spread since 2000", "除了苹果，还有微软2020年涨了多少"],
)
def test_words_beside_names_that_remove_nothing(brain: OfflineBrain, question: str) -> None:
    reading = _read(brain, question)
    assert reading.excluded == [] and len(reading.entities) == 2


@pytest.mark.parametrize(
    ("question", "condition", "threshold"),
    [
        ("How many trading days did AAPL close above $150 in 2021?", "close_above", 150),
        ("How many days did AAPL move more than 5% either way in 2020?", "move_beyond", 5),
        ("How many sessions did the S&P 500 fall more than 4% in 2008?", "fall_beyond", 4),
        ("How many up days did MSFT have in 2020?", "up", None),
        ("2018年VIX收盘高于20的有多少天", "close_above", 20),
        ("单日涨幅超过3%的交易日有几天？苹果2020年", "gain_beyond", 3),
        ("2020年3月标普500有多少个交易日", "sessions", None),
    ],
)
def test_a_count_reads_its_condition_and_every_word_of_it(
    brain: OfflineBrain, question: str, condition: str, threshold: float | None
) -> None:
    reading = _read(brain, question, "2022-12-28")
    assert reading.metrics[0] == "count_days"
    assert (reading.count_condition, reading.threshold) == (condition, threshold)
    assert reading.ledger is not None and not reading.ledger.left_over, reading.ledger.left_over


@pytest.mark.parametrize(
    ("question", "frequency", "sides"),
    [
        ("What was IBM's best week in 2008", "weekly", "best"),
        ("biggest monthly loss for XOM in 2020, which month?", "monthly", "worst"),
        ("Best and worst quarter for the S&P 500 between 2009 and 2012", "quarterly", "both"),
        ("微软2018年表现最差的一个月是几月？跌了多少", "monthly", "worst"),
        ("苹果哪个季度涨得最多？2021年", "quarterly", "best"),
    ],
)
def test_best_and_worst_periods_rank_the_windows_periods(
    brain: OfflineBrain, question: str, frequency: str, sides: str
) -> None:
    reading = _read(brain, question)
    assert reading.metrics[0] == "period_extremes"
    assert (reading.frequency, reading.period_sides) == (frequency, sides)


def test_the_best_year_of_one_year_ranks_the_names(brain: OfflineBrain) -> None:
    reading = _read(brain, "Which stock had the best year in 2020, AAPL or MSFT?")
    assert "period_extremes" not in reading.metrics and reading.rank


def test_single_day_biggest_gain_and_fall_respectively_are_two_days(brain: OfflineBrain) -> None:
    reading = _read(brain, "苹果2020年单日最大涨幅和最大跌幅分别是多少")
    assert set(reading.metrics) == {"best_day", "worst_day"}


@pytest.mark.parametrize(
    ("text", "amount"),
    [("5k into UNH", 5e3), ("put 2.5m in AAPL", 2.5e6), ("投了1亿买", 1e8), ("$1bn in KO", 1e9)],
)
def test_amounts_with_a_scale(text: str, amount: float) -> None:
    assert read_amount(text) == amount


async def test_the_covid_crash_runs_from_its_first_days_close_to_its_last(data: Any) -> None:
    index = load_sp500_index()["SP500"]
    fall = (index.loc["2020-03-23"] / index.loc["2020-02-19"] - 1) * 100
    answer = await ask(
        "How much did the S&P 500 fall during the COVID crash?",
        QuestionContext(today=date(2022, 12, 28), brain="offline"),
    )
    assert answer.status == "ok" and f"{fall:.2f}%" in answer.summary


@pytest.mark.parametrize(
    ("question", "leverage"),
    [
        ("What would AAPL have returned in 2021 with 2x daily leverage?", 2.0),
        ("如果用两倍杠杆，苹果2021年的收益率是多少", 2.0),
        ("3x leveraged S&P 500 in 2020 max drawdown", 3.0),
    ],
)
def test_a_daily_leverage_is_read_and_said(
    brain: OfflineBrain, question: str, leverage: float
) -> None:
    reading = _read(brain, question)
    assert reading.leverage == leverage and reading.frequency is None
    assert any(f"{leverage:g}" in note for note in reading.notes)
    assert reading.ledger is not None and not reading.ledger.left_over, reading.ledger.left_over


@pytest.mark.parametrize(
    ("question", "start"),
    [
        ("苹果月初至今涨了多少", date(2022, 12, 1)),
        ("微软季初至今的收益率", date(2022, 10, 1)),
        ("KO week-to-date return", date(2022, 12, 26)),
    ],
)
def test_period_to_date_phrases(brain: OfflineBrain, question: str, start: date) -> None:
    reading = _read(brain, question)
    assert (reading.start, reading.end) == (start, date(2022, 12, 28))


def test_the_monthly_average_return_in_chinese_is_the_mean_of_monthly_returns(
    brain: OfflineBrain,
) -> None:
    reading = _read(brain, "苹果2021年的月均收益率")
    assert reading.frequency == "monthly" and "mean" in reading.metrics


@pytest.mark.parametrize(
    "question",
    [
        "2015年初投了1亿买联合健康，2019年底值多少",
        "What would $1bn in Coca-Cola from 2015 to 2019 be worth?",
    ],
)
def test_an_amount_in_hundreds_of_millions_or_billions_is_read(
    brain: OfflineBrain, question: str
) -> None:
    reading = _read(brain, question, "2020-01-10")
    assert reading.amount in (1e8, 1e9)
    assert reading.ledger is not None and not reading.ledger.left_over, reading.ledger.left_over
