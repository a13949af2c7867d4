"""Classes a fresh blind set (blind58) found, each failing before its fix:

- slang and shorthand of busy askers: 巨硬 (Microsoft), "hd max dd 2020? peak/trough dts" (a
  lower-case ticker first, before a measure; "dts" for dates);
- 那五檔因子ETF counts five funds (檔 is Taiwan's counter for a fund), no order book;
- a figure checked in a yes/no question ("did the Nasdaq really lose about 80% from its March
  2000 record close? How deep was the fall") or e-mailed as a claim ("a listener emailed that
  Apple gained more than 80% in 2020. True or not?") is checked, not read as a threshold; the
  fall from a peak named by its period is measured without a recovery word;
- "the highest quarterly unemployment rate in the 1970s, and in the 1980s? Which quarters?":
  each decade's highest, dated, never the highest of both decades together;
- "did WTI really drop under $40 in 2015? On what day did it first settle below $40": the drop
  under the level is the crossing the first close dates.

Expected figures are computed here with pandas from the source data.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest
from support.asking import ask_offline, series_values
from support.numeric_expect import fall_from_peak, source_frame


def _drawdown(closes: Any) -> tuple[float, str, str]:
    peak = closes.cummax()
    drawdown = closes / peak - 1
    trough = drawdown.idxmin()
    top = closes.loc[:trough].idxmax()
    return float(drawdown.min() * 100), f"{top:%Y-%m-%d}", f"{trough:%Y-%m-%d}"


@pytest.mark.parametrize(
    ("question", "entity", "start", "end", "today"),
    [
        (
            "巨硬2021年上半年最大回撤多少？从哪天砸到哪天的",
            "MSFT",
            "2020-12-31",
            "2021-06-30",
            date(2021, 7, 5),
        ),
        ("hd max dd 2020? peak/trough dts", "HD", "2019-12-31", "2020-12-31", date(2021, 1, 5)),
    ],
)
async def test_slang_names_and_shorthand(
    data: Any, question: str, entity: str, start: str, end: str, today: date
) -> None:
    closes = source_frame("skfolio_sp500")[entity].loc[start:end]
    depth, top, trough = _drawdown(closes)
    answer = await ask_offline(question, today)
    assert answer.status == "ok", answer.message
    for shown in (f"{depth:.2f}%", top, trough):
        assert shown in answer.summary, (shown, answer.summary)


async def test_five_funds_counted_with_dang_are_no_order_book(data: Any) -> None:
    answer = await ask_offline(
        "美股那五檔因子ETF（MTUM、QUAL、SIZE、USMV、VLUE），2021年哪一檔報酬最好？多少？",
        date(2022, 2, 1),
    )
    assert answer.status == "ok", answer.message


async def test_a_figure_checked_in_a_yes_no_question_and_a_fall_from_a_named_peak(
    data: Any,
) -> None:
    closes = source_frame("arch_nasdaq")["^IXIC"].dropna().loc[:"2016-06-30"]
    depth, peak, trough, _ = fall_from_peak(closes, "2000-03-01", "2000-03-31")
    answer = await ask_offline(
        "Fact-checking an episode: did the Nasdaq really lose about 80% from its March 2000 "
        "record close? How deep was the fall and when did it bottom?",
        date(2016, 6, 30),
    )
    assert answer.status == "ok", answer.message
    for shown in (f"{depth:.2f}%", peak, trough):
        assert shown in answer.summary, (shown, answer.summary)


async def test_a_claim_emailed_is_checked(data: Any) -> None:
    closes = source_frame("skfolio_sp500")["AAPL"]
    gain = (closes.loc[:"2020-12-31"].iloc[-1] / closes.loc[:"2019-12-31"].iloc[-1] - 1) * 100
    answer = await ask_offline(
        "A listener emailed that Apple gained more than 80% in 2020. True or not?",
        date(2021, 3, 1),
    )
    assert answer.status == "ok", answer.message
    assert f"{gain:.2f}%" in answer.summary, answer.summary


async def test_each_decades_highest_dated(data: Any) -> None:
    rate = source_frame("statsmodels_macro")["UNRATE"]
    seventies = rate.loc["1970-01-01":"1979-12-31"]
    eighties = rate.loc["1980-01-01":"1989-12-31"]
    answer = await ask_offline(
        "For my macro paper: what was the highest quarterly US unemployment rate in the 1970s, "
        "and in the 1980s? Which quarters?",
        date(2010, 1, 1),
    )
    assert answer.status == "ok", answer.message
    for decade in (seventies, eighties):
        for shown in (f"{decade.max():.2f}%", f"{decade.idxmax():%Y-%m-%d}"):
            assert shown in answer.summary, (shown, answer.summary)


async def test_a_drop_under_a_level_is_the_crossing_the_first_close_dates(data: Any) -> None:
    wti = series_values(data, "DCOILWTICO").loc["2015"].dropna()
    below = wti[wti < 40]
    answer = await ask_offline(
        "Did WTI crude really drop under $40 in 2015? On what day did it first settle below $40 "
        "that year, and at what price?",
        date(2016, 1, 15),
    )
    assert answer.status == "ok", answer.message
    assert f"{below.index[0]:%Y-%m-%d}" in answer.summary, answer.summary
    assert f"{below.iloc[0]:.2f}" in answer.summary, answer.summary


async def test_a_rates_change_beside_a_levels_is_not_ranked_as_one_measure(data: Any) -> None:
    answer = await ask_offline(
        "1970s oil shock recession, 1973Q4 to 1975Q1: by how much did US real GDP shrink, and how "
        "many points did the unemployment rate rise over those same quarters?",
        date(2010, 2, 1),
    )
    assert answer.status == "no_data", answer.summary
    assert "percentage points" in (answer.message or ""), answer.message


async def test_a_worst_case_table_asks_no_ranking(data: Any) -> None:
    closes = source_frame("skfolio_sp500")["KO"].loc["2007-12-31":"2009-12-31"]
    depth, top, trough = _drawdown(closes)
    answer = await ask_offline(
        "coca-cola max drawdown from 2008 through 2009 - how deep, and on what dates were the "
        "peak and the trough? need it for a worst-case table",
        date(2010, 6, 1),
    )
    assert answer.status == "ok", answer.message
    for shown in (f"{depth:.2f}%", top, trough):
        assert shown in answer.summary, (shown, answer.summary)
