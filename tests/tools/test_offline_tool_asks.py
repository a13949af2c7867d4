"""The user's tools answering offline with what the reader resolved and what it asks back: a
company named in the question fills a ticker parameter on the MCP server (Apple → AAPL, 贵州茅台 →
600519.SH, taken from the brain's answer as the faces do), two companies for one ticker are asked
about, and close tools are asked about with one follow-up question per tool that, asked next,
calls that tool."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date
from typing import Any

import pytest
from support import mcp_quotes_server
from support.live_server import LOOPBACK
from support.tool_questions import question_tools

from datapilot.brains import answer as ask
from datapilot.brains import run as run_brain
from datapilot.brains.offline import OfflineBrain
from datapilot.core.context import QuestionContext
from datapilot.core.intent import Intent
from datapilot.engine.context import RequestContext
from datapilot.engine.pipeline import final_answer
from datapilot.server.suggestions import follow_ups
from datapilot.settings import get_settings
from datapilot.tools import ToolOutput
from datapilot.tools.offline import answer_with_tools, try_user_tools

pytestmark = LOOPBACK
TODAY = date(2026, 11, 27)


@pytest.fixture(scope="module")
def quotes(data) -> Iterator[dict[str, Any]]:  # type: ignore[no-untyped-def]
    """The MCP server's two tools, imported from the running server."""
    with question_tools(OfflineBrain(catalog=data.catalog)) as tools:
        yield {name: t for name, t in tools.real.items() if name.startswith("Quotes_")}


def request() -> RequestContext:
    return RequestContext.for_request(QuestionContext(today=TODAY, brain="offline"), get_settings())


async def intent_of(question: str) -> Intent:
    answer = await ask(question, request())
    assert answer.intent is not None, answer
    return answer.intent


@pytest.mark.parametrize(
    ("question", "symbol"),
    [
        ("Apple's daily closes from the quotes server", "AAPL"),
        # The 500 of the index's name is no count: the limit stays the schema's default.
        ("标普500的每日收盘价 closes", "^GSPC"),
    ],
)
async def test_a_name_the_brain_knows_fills_the_ticker_on_the_server(
    quotes: dict[str, Any], question: str, symbol: str
) -> None:
    reply = await answer_with_tools(
        question, quotes, TODAY, can_ask=True, intent=await intent_of(question)
    )
    assert reply is not None and reply.answer.status == "ok", reply
    assert mcp_quotes_server.CALLS[-1] == ("closes", {"symbol": symbol, "limit": 5})
    # The trace says where the ticker came from (实体 in a Chinese note).
    origins = (f"symbol = entity: {symbol}", f"symbol = 实体：{symbol}")
    assert any(o in note for note in reply.answer.notes for o in origins), reply.answer.notes


async def test_a_chinese_name_the_data_cannot_answer_goes_to_the_tool_with_its_code(
    quotes: dict[str, Any],
) -> None:
    # No local data for 贵州茅台: the brain says no_data, and the face tries the user's tools with
    # the entity the brain's answer carries.
    question = "贵州茅台近六个月的每日收盘价 closes"
    answer = await final_answer(
        try_user_tools(run_brain(question, request()), question, lambda: quotes, TODAY)
    )
    assert answer.status == "ok", answer
    assert mcp_quotes_server.CALLS[-1] == ("closes", {"symbol": "600519.SH", "limit": 5})
    # The tool takes no dates: the window said is named as not applied, not dropped unseen.
    assert any("近六个月" in note and "没有用上" in note for note in answer.notes), answer.notes


async def test_two_companies_for_one_ticker_are_asked_about_and_nothing_is_sent(
    quotes: dict[str, Any],
) -> None:
    question = "daily closes of Apple and Microsoft"
    before = len(mcp_quotes_server.CALLS)
    reply = await answer_with_tools(
        question, quotes, TODAY, can_ask=True, intent=await intent_of(question)
    )
    assert reply is not None and reply.answer.status == "no_data"
    assert reply.answer.message is not None and "`symbol`" in reply.answer.message
    assert len(mcp_quotes_server.CALLS) == before


@dataclass
class RateTool:
    name: str
    description: str
    source: str = "openapi"
    parameters: dict[str, Any] = field(
        default_factory=lambda: {
            "type": "object",
            "properties": {"term": {"type": "string", "enum": ["1y", "5y"], "default": "1y"}},
        }
    )
    calls: list[dict[str, Any]] = field(default_factory=list)

    async def call(self, arguments: dict[str, Any]) -> ToolOutput:
        self.calls.append(arguments)
        return ToolOutput(text="3.1%")


@pytest.mark.parametrize(
    ("question", "offered"),
    [
        ("What is the bank interest rate over 5y?", "Use {name}: {question}"),
        ("银行利率是多少？5y", "用 {name}：{question}"),
    ],
)
async def test_close_tools_are_asked_about_with_a_follow_up_per_tool(
    question: str, offered: str
) -> None:
    tools = {
        "depositRate": RateTool("depositRate", "Bank deposit interest rate (银行存款利率)"),
        "loanRate": RateTool("loanRate", "Bank loan interest rate (银行贷款利率)"),
    }
    reply = await answer_with_tools(question, tools, TODAY, can_ask=True)
    assert reply is not None and reply.answer.status == "no_data"
    assert not any(t.calls for t in tools.values())
    expected = [offered.format(name=name, question=question) for name in tools]
    assert sorted(reply.answer.follow_ups) == sorted(expected)
    # The faces' suggestions (OpenBB, the web page) offer them before anything else.
    assert sorted(follow_ups(reply.answer)[:2]) == sorted(expected)
    # Asked next, a follow-up calls the tool it names with the first question's values.
    chosen = await answer_with_tools(expected[1], tools, TODAY, can_ask=True)
    assert chosen is not None and chosen.answer.status == "ok"
    assert tools["loanRate"].calls == [{"term": "5y"}] and tools["depositRate"].calls == []
