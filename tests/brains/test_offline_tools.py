"""The offline reader choosing one of the user's tools and filling its arguments from the
question, checked against loopback services that record the request they received."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from datetime import date
from typing import Any

import pytest
from support.live_server import LOOPBACK, live_server
from support.tool_servers import RATES, SPEC, WEATHER, tool_app

from datapilot.brains.offline.tool_args import fill_arguments
from datapilot.brains.offline.tool_choice import ToolSpec, choose_tool
from datapilot.net.policy import OutboundPolicy
from datapilot.settings import get_settings
from datapilot.tools.imported import OpenAPITool
from datapilot.tools.openapi import import_document

pytestmark = LOOPBACK
TODAY = date(2026, 11, 27)
TODO = ToolSpec(
    name="ToDoList-todo",
    description="待办事项列表：插入、查询、删除待办事项",
    parameters={
        "type": "object",
        "properties": {
            "操作": {"type": "string", "enum": ["插入", "查询", "删除"]},
            "事项": {"type": "string", "description": "待办事项内容"},
        },
        "required": ["操作"],
    },
    consequential=True,
)


@pytest.fixture(scope="module")
def service() -> Iterator[tuple[dict[str, OpenAPITool], Any]]:
    app = tool_app()
    with live_server(app) as base:
        document = import_document(SPEC, fallback_name="svc", spec_url=f"{base}/openapi.json")
        policy = OutboundPolicy.from_entries([base.removeprefix("http://")])
        tools = {
            op.operation: OpenAPITool(spec=op, settings=get_settings(), policy=policy)
            for op in document.operations
        }
        yield tools, app


def specs(tools: dict[str, OpenAPITool]) -> list[ToolSpec]:
    return [
        ToolSpec(name=t.name, description=t.description, parameters=t.parameters, source="openapi")
        for t in tools.values()
    ] + [TODO]


def answer(question: str, tools: dict[str, OpenAPITool]) -> tuple[str, dict[str, Any], Any]:
    """Choose, fill and (when complete) call: the chosen name, the arguments, the reply."""
    choice = choose_tool(question, specs(tools))
    assert choice.status == "chosen" and choice.tool is not None, (question, choice)
    filled = fill_arguments(question, choice.tool.name, choice.tool.parameters, TODAY)
    assert not filled.missing, (question, filled)
    tool = next(t for t in tools.values() if t.name == choice.tool.name)
    reply = asyncio.run(tool.call(filled.arguments))
    return tool.spec.operation, filled.arguments, json.loads(reply.text)


@pytest.mark.parametrize(
    ("question", "currency"),
    [
        ("What is the EUR exchange rate per USD?", "EUR"),
        ("exchange rate of the yen", "JPY"),
        ("How many pounds per dollar is the exchange rate today?", "GBP"),
        ("欧元汇率是多少？", "EUR"),
        ("日元兑美元的汇率", "JPY"),
    ],
)
def test_fx_question_calls_the_rate_with_the_named_currency(
    service: tuple[dict[str, OpenAPITool], Any], question: str, currency: str
) -> None:
    tools, app = service
    operation, _, reply = answer(question, tools)
    assert operation == "getFxRate"
    assert app.state.seen[-1] == ("/fx", {"currency": currency})
    assert reply["rate"] == RATES[currency]


@pytest.mark.parametrize(
    ("question", "city", "day"),
    [
        ("What was the weather in Paris on 2026-11-20?", "Paris", "2026-11-20"),
        ("high temperature in Lyon yesterday", "Lyon", "2026-11-26"),
        ("巴黎2026年11月20日的天气", "巴黎", "2026-11-20"),
    ],
)
def test_weather_question_sends_the_city_and_the_day(
    service: tuple[dict[str, OpenAPITool], Any], question: str, city: str, day: str
) -> None:
    tools, app = service
    operation, _, reply = answer(question, tools)
    assert operation == "dailyWeather"
    # The unit was not said: the schema's default goes out with the said city and day.
    assert app.state.seen[-1] == ("/weather", {"city": city, "date": day, "units": "metric"})
    expected = [row for row in WEATHER if row["city"] == city and row["date"] == day]
    assert reply == expected


def test_missing_required_argument_is_named_with_its_options_and_nothing_is_sent(
    service: tuple[dict[str, OpenAPITool], Any],
) -> None:
    tools, app = service
    before = len(app.state.seen)
    question = "What is the exchange rate?"
    choice = choose_tool(question, specs(tools))
    assert choice.status == "chosen" and choice.tool is not None
    filled = fill_arguments(question, choice.tool.name, choice.tool.parameters, TODAY)
    assert filled.missing == ["currency"]
    assert filled.missing_text(choice.tool.parameters) == "needs `currency`: one of EUR, GBP, JPY"
    assert filled.call_text().endswith("(currency=?)")
    assert len(app.state.seen) == before


def test_two_currencies_for_one_parameter_are_not_guessed(
    service: tuple[dict[str, OpenAPITool], Any],
) -> None:
    tools, _ = service
    question = "exchange rate of EUR or JPY"
    choice = choose_tool(question, specs(tools))
    assert choice.tool is not None
    assert fill_arguments(question, choice.tool.name, choice.tool.parameters, TODAY).missing == [
        "currency"
    ]


def test_close_candidates_are_asked_about_not_guessed() -> None:
    rates = [
        ToolSpec(name="depositRate", description="Bank deposit interest rate"),
        ToolSpec(name="loanRate", description="Bank loan interest rate"),
    ]
    choice = choose_tool("What is the bank interest rate?", rates)
    assert choice.status == "ask"
    assert {c.name for c in choice.candidates} == {"depositRate", "loanRate"}
    assert choose_tool("What is the loan interest rate?", rates).tool == rates[1]


def test_unrelated_question_chooses_no_tool(
    service: tuple[dict[str, OpenAPITool], Any],
) -> None:
    tools, _ = service
    assert choose_tool("Sharpe ratio of AAPL over 2023", specs(tools)).status == "none"


def test_chinese_todo_fills_the_operation_and_the_item() -> None:
    question = "插入待办事项：买牛奶"
    choice = choose_tool(question, [TODO])
    assert choice.tool == TODO and TODO.consequential
    filled = fill_arguments(question, TODO.name, TODO.parameters, TODAY)
    assert filled.arguments == {"操作": "插入", "事项": "买牛奶"}
    assert filled.origins["事项"] == "question: 买牛奶"


def rate_tool(rate: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {"amount": {"type": "number"}, "rate": {"type": "number", **rate}},
        "required": ["amount", "rate"],
    }


@pytest.mark.parametrize(
    ("rate", "expected"),
    [
        ({"description": "Interest rate as a decimal fraction"}, 0.045),
        ({"description": "Interest rate", "maximum": 1}, 0.045),
        ({"description": "Interest rate in percent"}, 4.5),
        ({"description": "Interest rate", "maximum": 100}, 4.5),
    ],
)
def test_a_percent_is_sent_as_the_schema_takes_it(rate: dict[str, Any], expected: float) -> None:
    filled = fill_arguments("interest on $12,000 at 4.5%", "interest", rate_tool(rate), TODAY)
    assert filled.arguments == {"amount": 12000, "rate": expected}


def test_a_percent_the_schema_does_not_explain_is_asked_about() -> None:
    # 4.5 or 0.045: a factor of 100 is not guessed.
    filled = fill_arguments(
        "interest on $12,000 at 4.5%", "interest", rate_tool({"description": "Rate"}), TODAY
    )
    assert filled.missing == ["rate"] and filled.arguments == {"amount": 12000}


def test_a_list_of_tickers_takes_every_company_named_and_one_ticker_asks() -> None:
    one = {"type": "object", "properties": {"symbol": {"type": "string"}}, "required": ["symbol"]}
    many = {
        "type": "object",
        "properties": {"symbols": {"type": "array", "items": {"type": "string"}}},
        "required": ["symbols"],
    }
    question = "closes of Apple and MSFT"
    entities = ["AAPL"]  # what the reader resolved from "Apple"; MSFT is said as a ticker
    assert fill_arguments(question, "c", many, TODAY, entities=entities).arguments == {
        "symbols": ["AAPL", "MSFT"]
    }
    assert fill_arguments(question, "c", one, TODAY, entities=entities).missing == ["symbol"]


def test_a_year_never_fills_a_count_and_a_value_said_twice_is_asked_even_with_a_default() -> None:
    schema = {
        "type": "object",
        "properties": {
            "symbol": {"type": "string"},
            "limit": {"type": "integer", "default": 5},
            "units": {"type": "string", "enum": ["metric", "imperial"], "default": "metric"},
        },
        "required": ["symbol"],
    }
    filled = fill_arguments("closes of ACME in 2023", "c", schema, TODAY)
    assert filled.arguments == {"symbol": "ACME", "limit": 5, "units": "metric"}
    both = fill_arguments("closes of ACME, limit 3 or 4, in metric", "c", schema, TODAY)
    assert both.missing == ["limit"] and both.arguments["units"] == "metric"


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("closes of ACME with dividends", {"include_dividends": True, "monthly": False}),
        (
            "closes of ACME without dividends, monthly",
            {"include_dividends": False, "monthly": True},
        ),
        # Neither flag is said: "including" and "months" are not the flags' names.
        ("closes of ACME including today over 6 months", {"monthly": False}),
    ],
)
def test_a_flag_is_set_only_by_its_own_name(question: str, expected: dict[str, Any]) -> None:
    schema = {
        "type": "object",
        "properties": {
            "include_dividends": {"type": "boolean"},
            "monthly": {"type": "boolean", "default": False},
        },
    }
    assert fill_arguments(question, "closes", schema, TODAY).arguments == expected


def test_a_window_the_tool_cannot_take_is_reported_not_dropped() -> None:
    closes = {
        "type": "object",
        "properties": {"symbol": {"type": "string"}, "limit": {"type": "integer", "default": 5}},
        "required": ["symbol"],
    }
    filled = fill_arguments("closes of ACME over the past 30 days, limit 3", "c", closes, TODAY)
    assert filled.arguments == {"symbol": "ACME", "limit": 3}
    assert filled.unused_dates == ["over the past 30 days"]
    # A date a parameter takes is used, and "30 years" filling a number is no window left out.
    weather = {"type": "object", "properties": {"date": {"type": "string", "format": "date"}}}
    assert fill_arguments("weather on 2026-11-20", "w", weather, TODAY).unused_dates == []
    loan = {"type": "object", "properties": {"years": {"type": "integer"}}}
    assert fill_arguments("a loan over 30 years", "l", loan, TODAY).unused_dates == []


@pytest.mark.parametrize(
    ("question", "chosen"),
    [
        ("Total dividend of Apple in 2022", False),  # a dividend is not a yield
        ("Plot the dividend of Apple over time", False),
        ("What was Apple's dividend yield at the end of 2022?", True),
    ],
)
def test_one_word_of_a_tools_compound_name_never_calls_it(question: str, chosen: bool) -> None:
    """A lone tool sharing only the modifier of its name ("dividend" of dividend_yield) is not
    called: it would answer another question than the one asked. (The designed interface of the
    design stage's tests, as `design requests` tries it.)"""
    about = (
        "Trailing twelve-month dividend yield in %: dividends per share with an ex-date in the "
        "year up to the last close on or before `day`, over that close."
    )
    spec = ToolSpec(
        name="dividend_yield",
        description=about,
        parameters={
            "type": "object",
            "properties": {
                "ids": {
                    "description": "Tickers in the dividends table, e.g. ['AAPL'].",
                    "items": {"type": "string"},
                    "title": "Ids",
                    "type": "array",
                },
                "day": {
                    "anyOf": [{"format": "date", "type": "string"}, {"type": "null"}],
                    "default": None,
                    "description": "The close the yield is measured on; None = latest.",
                    "title": "Day",
                },
            },
            "required": ["ids"],
            "description": about,
        },
        source="interface",
    )
    assert (choose_tool(question, [spec]).status == "chosen") is chosen


@pytest.mark.parametrize(
    ("question", "operation"),
    [
        ("What was the weather in Paris on 2026-11-20?", "dailyWeather"),
        ("巴黎2026年11月20日的天气", "dailyWeather"),
        ("What is the EUR exchange rate per USD?", "getFxRate"),
    ],
)
def test_the_documents_own_name_on_every_tool_names_none_of_them(
    question: str, operation: str
) -> None:
    """Both operations of "Markets and weather" carry its name: its "weather" must not make the
    weather question match both alike (it chose neither)."""
    document = import_document(SPEC, fallback_name="Markets")
    specs = [
        ToolSpec(name=op.name, description=op.description, parameters=op.parameters)
        for op in document.operations
    ]
    choice = choose_tool(question, specs)
    assert choice.status == "chosen" and choice.tool is not None
    assert choice.tool.name.endswith(operation)
