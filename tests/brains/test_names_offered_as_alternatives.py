"""Names offered as alternatives, "jpm or bac", "aapl vs msft", are each a name: before, the
spelling matcher read "jpm or bac" as one misspelt "JPMorgan" and answered `ok` for JPM alone.
Expected figures come from skfolio's shipped prices, computed here with pandas."""

from __future__ import annotations

from datetime import date

import pytest
from skfolio.datasets import load_sp500_dataset
from support.asking import ask

from datapilot.core.context import QuestionContext


def _return_2019(ticker: str) -> float:
    prices = load_sp500_dataset()[ticker]
    end, base = prices.loc[:"2019-12-31"].iloc[-1], prices.loc[:"2018-12-31"].iloc[-1]
    return float((end / base - 1) * 100)


@pytest.mark.parametrize(
    "question", ["jpm or bac 2019 return", "jpm or bac, who won 2019 and by how many pts"]
)
async def test_names_joined_by_or_are_each_answered(question: str) -> None:
    answer = await ask(question, QuestionContext(today=date(2020, 3, 1), brain="offline"))
    assert answer.status == "ok", answer.message
    assert answer.intent is not None
    assert {"JPM", "BAC"} <= {e.id for e in answer.intent.entities}
    for ticker in ("JPM", "BAC"):
        assert f"{_return_2019(ticker):.2f}%" in answer.summary, answer.summary
