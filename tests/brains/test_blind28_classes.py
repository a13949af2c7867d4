"""Classes a fresh blind set found, now read:

- "fall by more than 3% in a day": the move's length, not a window ending today;
- 2008年四季度比2007年四季度变化了多少: a change between two quarters (变化, like 增长);
- "Fama-French SMB (size)": a gloss in brackets restates the name, it adds no second entity;
- "my spreadsheet says Pfizer was up 66.7% in 2021 — can you double-check": the claim's figure
  is checked, not read as an unknown number;
- 利差最大是什么时候: the date of the widest spread;
- a drawdown not recovered says the last close of its window.

Expected figures are computed here with pandas from the source data.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from skfolio.datasets import load_sp500_dataset, load_sp500_index
from support.asking import ask_offline, series_values, shown


async def test_a_move_in_a_day_is_no_window(data: Any) -> None:
    closes = load_sp500_index()["SP500"].loc["2019-12-31":"2020-12-31"]
    falls = int((closes.pct_change().dropna() < -0.03).sum())
    question = "How many sessions in 2020 did the S&P 500 fall by more than 3% in a day?"
    answer = await ask_offline(question, date(2021, 1, 10))
    assert answer.status == "ok", answer.message
    assert f"on {falls} of {len(closes) - 1}" in answer.summary, answer.summary
    assert "2021-01" not in answer.summary, answer.summary


async def test_a_change_between_two_quarters_said_as_bianhua(data: Any) -> None:
    pce = series_values(data, "PCECC96")
    change = (pce.loc["2008-10-01"] / pce.loc["2007-10-01"] - 1) * 100
    question = "美国实际个人消费支出2008年四季度比2007年四季度变化了多少？"
    answer = await ask_offline(question, date(2009, 12, 1))
    assert answer.status == "ok", answer.message
    assert f"{abs(change):.2f}%" in answer.summary, answer.summary


async def test_a_gloss_in_brackets_adds_no_name(data: Any) -> None:
    smb = series_values(data, "FF_SMB").loc["2016"]
    compounded = ((1 + smb / 100).prod() - 1) * 100
    question = "Compounded, what was the Fama-French SMB (size) factor's return over 2016?"
    answer = await ask_offline(question, date(2019, 1, 15))
    assert answer.status == "ok", answer.message
    assert answer.intent is not None
    assert [e.id for e in answer.intent.entities] == ["FF_SMB"]
    assert f"{compounded:.2f}%" in answer.summary, answer.summary


async def test_a_claimed_figure_is_checked(data: Any) -> None:
    closes = load_sp500_dataset()["PFE"]
    actual = (closes.loc["2021-12-31"] / closes.loc["2020-12-31"] - 1) * 100
    question = "My spreadsheet says Pfizer was up 66.7% in 2021. Can you double-check that number?"
    answer = await ask_offline(question, date(2022, 6, 30))
    assert answer.status == "ok", answer.message
    assert f"{actual:.2f}%" in answer.summary, answer.summary


async def test_the_date_of_the_widest_spread(data: Any) -> None:
    spread = (series_values(data, "BAA") - series_values(data, "AAA")).loc["2008":"2009"]
    question = "2008到2009年间，穆迪Baa与Aaa公司债收益率利差最大是什么时候？利差多少？"
    answer = await ask_offline(question, date(2010, 3, 1))
    assert answer.status == "ok", answer.message
    text = shown(answer)
    assert f"{spread.max():.2f}" in text and f"{spread.idxmax():%Y-%m-%d}" in text, text


async def test_a_drawdown_not_recovered_says_where_the_window_ends(data: Any) -> None:
    closes = load_sp500_index()["SP500"].loc["2021-12-31":"2022-12-31"]
    answer = await ask_offline(
        "What was the maximum drawdown of the S&P 500 in 2022?", date(2023, 1, 5)
    )
    assert answer.status == "ok", answer.message
    assert f"({closes.index[-1]:%Y-%m-%d})" in answer.summary, answer.summary
