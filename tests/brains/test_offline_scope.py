"""The offline brain's scope rules, one by one: advice is not a data question (but the data part of
a mixed question is answered), a name inside a longer measure phrase is not a name, an index's
members are a list to rank, and period words that only name a measure's window are no "until"."""

from __future__ import annotations

from datetime import date

import pytest

from datapilot.brains.offline import OfflineBrain
from datapilot.brains.offline.advice import asks_advice
from datapilot.brains.offline.vocab import load_vocab
from datapilot.brains.offline.windows import read_time
from datapilot.core.context import QuestionContext
from datapilot.engine.brain import Understanding

TODAY = date(2022, 12, 28)


@pytest.fixture(scope="module")
def brain(data) -> OfflineBrain:  # type: ignore[no-untyped-def]
    return OfflineBrain(catalog=data.catalog)


def understand(brain: OfflineBrain, question: str) -> Understanding:
    return brain.understand_sync(question, QuestionContext(today=TODAY))


def ids(u: Understanding) -> set[str]:
    return {e.id for e in u.intent.entities} if u.intent else set()


@pytest.mark.parametrize(
    "question",
    [
        "Should I buy Tesla?",
        "should we sell our Apple shares now?",
        "Is Microsoft a good investment?",
        "Is now a good time to buy JPMorgan?",
        "Recommend me a stock",
        "我应该买苹果股票吗",
        "微软值得买入吗",
        "现在适合抄底标普500吗",
        "给我推荐几只股票",
    ],
)
def test_advice_is_out_of_scope(brain: OfflineBrain, question: str) -> None:
    u = understand(brain, question)
    assert u.status == "out_of_scope"
    assert u.message and ("investment advice" in u.message or "投资建议" in u.message)
    assert u.plan is None


@pytest.mark.parametrize(
    "question",
    [
        "Should I plot Apple in 2021?",
        "What would $10,000 invested in Apple in 2020 be worth today?",
        "Plot the best days of Microsoft in 2020",
        "苹果2020年以来的收益率",
        "如果2020年初投资1万元买入苹果，现在值多少",
    ],
)
def test_data_questions_are_not_advice(question: str) -> None:
    assert asks_advice(question, load_vocab(None)) is None


def test_the_data_part_of_a_mixed_question_is_answered(brain: OfflineBrain) -> None:
    u = understand(brain, "Compare Apple and Microsoft in 2021 — should I buy one?")
    assert u.status == "ok"
    assert ids(u) == {"AAPL", "MSFT"}
    assert any("investment advice" in note for note in u.notes)


def test_a_name_alone_does_not_make_a_poem_a_data_question(brain: OfflineBrain) -> None:
    assert understand(brain, "Write a poem about the stock market").status == "out_of_scope"
    assert understand(brain, "How did the stock market do in 2020?").status == "ok"


def test_the_market_is_the_sp500_but_not_in_market_cap(brain: OfflineBrain) -> None:
    u = understand(brain, "What did the market do in 2008?")
    assert u.status == "ok" and ids(u) == {"^GSPC"}
    u = understand(brain, "What is the market cap of Exxon?")
    assert u.status == "no_data" and ids(u) == {"XOM"}
    assert u.intent is not None and u.intent.metrics == ["fundamentals"]
    # A name left over before the measure is still a name.
    u = understand(brain, "BAA minus AAA yield spread since 2000")
    assert ids(u) == {"AAA", "BAA"}


def test_company_figures_for_the_bundled_list_are_no_data(brain: OfflineBrain) -> None:
    u = understand(brain, "What's the average P/E of the stocks you have?")
    assert u.status == "no_data"
    assert u.message and "company financial figures" in u.message


@pytest.mark.parametrize(
    ("question", "ascending", "top"),
    [
        ("Which of the S&P 500 stocks you have fell the most in 2022?", True, None),
        ("Top 5 performers among the S&P 500 members in 2021", False, 5),
        ("rank the stocks in the S&P 500 by 2021 return", False, None),
        ("标普500里的股票2021年谁涨得最多", False, None),
        ("哪只成分股今年跌得最多", True, None),
    ],
)
def test_index_members_are_ranked_by_return(
    brain: OfflineBrain, question: str, ascending: bool, top: int | None
) -> None:
    u = understand(brain, question)
    assert u.status == "ok", u.message
    assert len(ids(u)) == 20 and "^GSPC" not in ids(u)
    assert u.plan is not None
    ranks = [c.args for c in u.plan.calls() if c.interface == "rank"]
    assert ranks and ranks[0]["by"] == "return_pct"
    assert ranks[0]["ascending"] is ascending
    assert ranks[0].get("top_k") == top


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ("rank them by 2021 return", date(2021, 1, 1), date(2021, 12, 31)),
        ("sort by 2020 performance", date(2020, 1, 1), date(2020, 12, 31)),
        ("苹果从2021年3月到6月的走势", date(2021, 3, 1), date(2021, 6, 30)),
        ("从2022年1月至3月", date(2022, 1, 1), date(2022, 3, 31)),
    ],
)
def test_periods_that_name_their_own_end(text: str, start: date, end: date) -> None:
    time = read_time(text, TODAY)
    assert (time.start, time.end) == (start, end)


def test_by_a_year_alone_is_still_until() -> None:
    time = read_time("Apple by 2021", TODAY)
    assert time.end == date(2021, 12, 31) and time.start != date(2021, 1, 1)


def test_volatility_beside_a_chart_is_the_annualised_figure(brain: OfflineBrain) -> None:
    u = understand(brain, "Microsoft price chart and 20-day MA in 2022, plus the volatility")
    assert u.plan is not None
    used = {c.interface for c in u.plan.calls()}
    assert "annualized_volatility" in used
    u = understand(brain, "30-day rolling volatility of Apple in 2021")
    assert u.plan is not None
    assert "annualized_volatility" not in {c.interface for c in u.plan.calls()}
