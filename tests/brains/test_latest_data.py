"""Relative windows past the bundled data move to the latest data; names without data are left
out of an answer that still covers the others."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from skfolio.datasets import load_sp500_dataset
from support.asking import ask

from datapilot.brains.offline import OfflineBrain
from datapilot.core.context import QuestionContext
from datapilot.engine.brain import Understanding

TODAY = date(2026, 11, 23)  # years after the bundled large caps end
# The large caps' last day, from the dataset they are bundled from.
LAST = load_sp500_dataset().index.max().date()


@pytest.fixture(scope="module")
def brain(data) -> OfflineBrain:  # type: ignore[no-untyped-def]
    return OfflineBrain(catalog=data.catalog)


def understand(brain: OfflineBrain, question: str, today: date = TODAY) -> Understanding:
    return brain.understand_sync(question, QuestionContext(today=today))


def window(u: Understanding) -> tuple[date | None, date | None]:
    assert u.intent is not None
    return u.intent.start, u.intent.end


def ids(u: Understanding) -> list[str]:
    assert u.intent is not None
    return [e.id for e in u.intent.entities]


def three_years_before(day: date) -> date:
    return day.replace(year=day.year - 3)


@pytest.mark.parametrize(
    "question",
    [
        "Apple's return over the past 3 years",
        "How did Microsoft do in the last three years?",
        "近三年苹果的收益率",
        "微软过去三年的股价走势",
    ],
)
def test_a_trailing_window_past_the_data_ends_on_its_last_day(
    brain: OfflineBrain, question: str
) -> None:
    u = understand(brain, question)
    assert u.status == "ok"
    assert window(u) == (three_years_before(LAST), LAST)
    assert u.intent is not None
    assert any("moved to" in line or "移至" in line for line in u.intent.trace)
    first = u.notes[0]  # the summary starts with it
    assert str(LAST) in first and str(three_years_before(LAST)) in first


@pytest.mark.parametrize(
    ("question", "offered"),
    [
        ("Apple's return this year", (date(LAST.year, 1, 1), LAST)),
        ("苹果今年的收益率", (date(LAST.year, 1, 1), LAST)),
        ("AAPL YTD", (date(LAST.year, 1, 1), LAST)),
        ("Apple's return last quarter", (date(LAST.year, 7, 1), date(LAST.year, 9, 30))),
    ],
)
def test_a_calendar_period_named_after_the_data_is_no_data_with_the_latest_one_offered(
    brain: OfflineBrain, question: str, offered: tuple[date, date]
) -> None:
    """今年, "last quarter", YTD name a period; another period would answer another question."""
    u = understand(brain, question)
    assert u.status == "no_data"
    assert u.message is not None
    assert str(LAST) in u.message  # where the data ends
    assert f"{offered[0]}" in u.message and f"{offered[1]}" in u.message  # what can be asked


@pytest.mark.parametrize("question", ["Plot Apple's stock price", "苹果的股价走势"])
def test_no_time_words_is_the_past_year_of_the_data(brain: OfflineBrain, question: str) -> None:
    u = understand(brain, question)
    assert u.status == "ok"
    assert window(u) == (LAST.replace(year=LAST.year - 1), LAST)
    assert str(LAST) in u.notes[0]


@pytest.mark.parametrize(
    "question",
    ["Apple's return in 2025", "苹果2025年的收益率", "AAPL from 2024-01-02 to 2024-06-28"],
)
def test_dates_written_out_past_the_data_are_no_data(brain: OfflineBrain, question: str) -> None:
    u = understand(brain, question)
    assert u.status == "no_data"
    assert u.message is not None and str(LAST) in u.message


def test_a_window_days_past_the_data_is_answered_on_the_part_that_exists(
    brain: OfflineBrain,
) -> None:
    today = LAST + timedelta(days=20)
    u = understand(brain, "Apple's return over the past year", today=today)
    assert u.status == "ok"
    assert window(u) == (today.replace(year=today.year - 1), today)  # not moved
    assert any(str(LAST) in note and "AAPL" in note for note in u.notes)


def test_a_length_mostly_past_the_data_moves_onto_the_latest_data(brain: OfflineBrain) -> None:
    """Ninety days of a year past the data: the year asked is the data's last year, said first
    (a nine-month return would answer another question)."""
    today = LAST + timedelta(days=90)
    u = understand(brain, "Apple's return over the past year", today=today)
    assert u.status == "ok"
    assert window(u) == (LAST.replace(year=LAST.year - 1), LAST)
    assert str(LAST) in u.notes[0], u.notes


@pytest.mark.parametrize(
    ("question", "answered", "left_out"),
    [
        ("Compare Apple, Microsoft and Tesla in 2021", ["AAPL", "MSFT"], "TSLA"),
        ("对比苹果、微软和特斯拉2021年的收益", ["AAPL", "MSFT"], "TSLA"),
        ("How did Nvidia and Apple do in 2021?", ["AAPL"], "NVDA"),
        ("英伟达和微软2021年的股价", ["MSFT"], "NVDA"),
    ],
)
def test_a_name_without_data_is_left_out_with_a_note(
    brain: OfflineBrain, question: str, answered: list[str], left_out: str
) -> None:
    u = understand(brain, question, today=date(2022, 12, 28))
    assert u.status == "ok" and u.plan is not None
    assert ids(u) == answered
    assert any(left_out in note for note in u.notes)


def test_a_name_without_data_in_the_window_is_left_out_with_a_note(brain: OfflineBrain) -> None:
    # IBM's bundled prices end in 2013 (bokeh), Apple's in 2022.
    u = understand(brain, "Compare IBM and Apple in 2021", today=date(2022, 12, 28))
    assert u.status == "ok" and ids(u) == ["AAPL"]
    assert any("IBM" in note and "2021-01-01" in note for note in u.notes)


@pytest.mark.parametrize("question", ["Compare Tesla and Nvidia in 2021", "特斯拉和英伟达的股价"])
def test_nothing_named_has_data_is_no_data(brain: OfflineBrain, question: str) -> None:
    u = understand(brain, question, today=date(2022, 12, 28))
    assert u.status == "no_data"
    assert u.message is not None and "TSLA" in u.message


async def test_the_answer_shows_the_moved_window_and_says_so_first() -> None:
    answer = await ask("近三年苹果的收益率", QuestionContext(today=TODAY))
    assert answer.status == "ok" and answer.outputs
    assert answer.intent is not None
    assert (answer.intent.start, answer.intent.end) == (three_years_before(LAST), LAST)
    assert str(LAST) in answer.notes[0]
