"""Advice asked on the occasion of a move ("should I buy AMD now after the drop?", AMD跌了这么多，
该抄底吗) asks no figure: the move is why the user asks, not what. The answer is out_of_scope,
saying what data it can show instead; a real data question beside the advice ("should I buy AMD?
what was its 2022 return") still gets its figure. Expected figures come from skfolio's shipped
prices, computed here with pandas."""

from __future__ import annotations

from datetime import date

import pytest
from skfolio.datasets import load_sp500_dataset
from support.asking import ask

from datapilot.core.context import QuestionContext

TODAY = date(2022, 12, 28)


@pytest.mark.parametrize(
    "question",
    [
        "should I buy AMD now after the drop?",
        "Should I sell Coca-Cola after this rally?",
        "is it a good time to buy AMD after the big decline?",
        "should I buy more AMD given the fall?",
        "AMD跌了这么多，该抄底吗",
        "AMD大跌之后现在适合买入吗？",
        "可口可乐涨了这么多，应该卖出吗？",
    ],
)
async def test_advice_on_the_occasion_of_a_move_is_out_of_scope(question: str) -> None:
    answer = await ask(question, QuestionContext(today=TODAY, brain="offline"))
    assert answer.status == "out_of_scope", answer.summary
    said = answer.message or ""
    assert "investment advice" in said or "投资建议" in said, said
    # What it can show instead, about the name asked of.
    assert any(n in said for n in ("Advanced Micro Devices", "超威半导体", "Coca-Cola", "可口可乐"))


def _return_2022(ticker: str) -> float:
    prices = load_sp500_dataset()[ticker]
    end, start = prices.loc[:"2022-12-28"].iloc[-1], prices.loc[:"2021-12-31"].iloc[-1]
    return float((end / start - 1) * 100)


@pytest.mark.parametrize(
    "question",
    [
        "should I buy AMD? what was its 2022 return",
        "should I buy AMD after the drop? how much did it fall in 2022?",
        "AMD跌了这么多，该抄底吗？2022年跌了多少？",
    ],
)
async def test_the_data_asked_beside_advice_is_answered(question: str) -> None:
    answer = await ask(question, QuestionContext(today=TODAY, brain="offline"))
    assert answer.status == "ok", answer.message
    assert f"{abs(_return_2022('AMD')):.2f}%" in answer.summary, answer.summary
    assert any("investment advice" in n or "投资建议" in n for n in answer.notes), answer.notes
