"""The published tools help a caller who has only them (an MCP host over stdio): a search names
every entity the text names, and an unknown interface is answered with the ones that exist."""

from __future__ import annotations

from typing import Any

import pytest

from datapilot.settings import Settings
from datapilot.tools.published.operations import (
    InterfaceInput,
    OperationContext,
    OperationError,
    SearchInput,
    operation,
)


def _context() -> OperationContext:
    return OperationContext(Settings(brain="offline", offline=True))


@pytest.mark.parametrize("query", ["苹果和微软", "Apple and Microsoft"])
async def test_a_search_finds_every_entity_the_text_names(data: Any, query: str) -> None:
    outcome = await operation("search_entities").run(SearchInput(query=query), _context())
    ids = [hit.id for hit in outcome.result.entities]  # type: ignore[attr-defined]
    assert ids[:2] == ["AAPL", "MSFT"], ids
    assert len(ids) == len(set(ids))
    assert outcome.text.startswith("AAPL: Apple")


async def test_an_unknown_interface_is_answered_with_the_callable_ones(data: Any) -> None:
    with pytest.raises(OperationError) as refused:
        await operation("call_interface").run(InterfaceInput(name="get_ohlc"), _context())
    message = refused.value.message
    assert "did you mean get_ohlcv?" in message
    assert "get_prices" in message and "/api/" not in message  # no route: stdio has none
    assert "max_drawdown" not in message  # it takes an earlier step's data, not plain values


async def test_counts_in_a_call_s_text_agree_with_their_number(data: Any) -> None:
    """'1 table', '2 problems': a host reading the text sees counts written as English writes
    them, not 'table(s)'."""
    call = operation("call_interface")
    week = {"entity": "AAPL", "start": "2012-12-24", "end": "2012-12-31"}
    outcome = await call.run(InterfaceInput(name="get_ohlcv", arguments=week), _context())
    assert outcome.text.splitlines()[0] == "get_ohlcv: 1 table", outcome.text
    with pytest.raises(OperationError) as refused:
        wrong = InterfaceInput(name="get_ohlcv", arguments={"ids": ["AAPL"]})
        await call.run(wrong, _context())
    assert "(2 problems)" in refused.value.message, refused.value.message
    assert "(s)" not in outcome.text + refused.value.message


async def test_the_progress_of_a_chinese_question_is_reported_in_chinese(data: Any) -> None:
    """What an MCP host shows while `ask` runs (notifications/progress): in the question's
    language, the interfaces' names aside (code, as in the plan view)."""
    import re
    from datetime import date

    from support.asking import run

    from datapilot.core.context import QuestionContext
    from datapilot.tools.published.progress import reporting

    said: list[str] = []
    context = QuestionContext(today=date(2022, 6, 30), brain="offline")
    events = run("苹果2021年的收益率", context)
    async for _ in reporting(events, lambda done, total, message: said.append(message)):
        pass
    assert len(said) >= 4, said
    names = re.compile(r"\b[a-z]+(?:_[a-z]+)+\b")  # get_prices, period_return
    english = [m for m in said if re.search(r"[A-Za-z]{2,}", names.sub("", m).replace("AAPL", ""))]
    assert not english, said
