"""Workspace payloads of every shape become the same question and context."""

from __future__ import annotations

import json
from datetime import date

import pytest
from support import paths

from datapilot.server.openbb.context import QueryInputError, prepare_query
from datapilot.server.openbb.request import WorkspaceQuery
from datapilot.settings import Settings

FIXTURES = paths.FIXTURES / "openbb"
SETTINGS = Settings(today=date(2021, 6, 30), brain="offline")


def _fixture(name: str) -> dict:
    return json.loads((FIXTURES / name).read_text())


def _prepare(payload: dict, settings: Settings = SETTINGS):
    return prepare_query(WorkspaceQuery.model_validate(payload), settings)


def test_question_is_the_last_human_message_and_history_the_text_before() -> None:
    prepared = _prepare(_fixture("current/multiple_messages.json"))
    assert prepared.question.startswith("what is 2 + 2?")
    assert [(m.role, m.content) for m in prepared.context.history] == [
        ("human", "what is 1 + 1?"),
        ("ai", "2"),
    ]
    assert prepared.context.today == date(2021, 6, 30)


def test_explicit_context_becomes_a_table_named_after_it() -> None:
    for version in ("current", "v1"):
        prepared = _prepare(_fixture(f"{version}/message_with_context.json"))
        (table,) = prepared.context.tables
        assert table.name == "favourite_food"
        assert table.description == "The user's favourite food"
        assert table.rows == [["pizza"]]


def test_dashboard_widgets_are_listed_with_their_current_arguments() -> None:
    prepared = _prepare(_fixture("current/retrieve_widget_from_dashboard.json"))
    widgets = {w.widget_id: w for w in prepared.context.widgets}
    assert widgets["stock_price"].primary and widgets["stock_price"].params == {"symbol": "TSLA"}
    assert not widgets["company_news"].primary
    assert widgets["company_news"].params == {"symbol": "TSLA", "start_date": "2024-01-01"}
    # Changed: "extra" sources are listed now (they can be fetched with get_extra_widget_data),
    # marked as not on the dashboard.
    assert widgets["historical_price"].extra and not widgets["historical_price"].primary
    assert not widgets["stock_price"].extra
    assert prepared.context.tables == []


def test_v1_widget_list_is_primary_and_marks_the_legacy_protocol() -> None:
    prepared = _prepare(_fixture("v1/retrieve_widget_from_dashboard.json"))
    (widget,) = prepared.context.widgets
    assert widget.primary and widget.name == "get_weather"
    assert prepared.legacy


def test_tool_results_become_tables_named_after_their_widget() -> None:
    payload = _fixture("current/retrieve_widget_from_dashboard_with_result.json")
    expected = json.loads(payload["messages"][-1]["data"][0]["items"][0]["content"])
    prepared = _prepare(payload)
    (table,) = prepared.context.tables
    assert table.name == "Yield Curve" and table.source == "widget"
    frame = table.to_frame()
    assert frame["rate"].sum() == pytest.approx(sum(row["rate"] for row in expected))
    (received,) = prepared.received
    assert received.widget.widget_id == "yield_curve"
    assert received.input_args == {"country": "united_states", "startDate": "2025-01-16"}
    assert prepared.question == "Give me the yield curve data to the fourth decimal as a float."
    # The function-call message is not conversation text.
    assert prepared.context.history == []


def test_v1_tool_content_text_is_accepted() -> None:
    prepared = _prepare(_fixture("v1/retrieve_widget_from_dashboard_with_result.json"))
    (table,) = prepared.context.tables
    assert table.rows == [["The weather in London is 10 degrees Celsius."]]
    assert table.name == "get_weather"


def test_pdf_links_become_documents_to_fetch() -> None:
    # Changed: PDF links used to be reported as "not read"; they are now documents, fetched
    # (through the SSRF-safe outbound client) when the question is answered.
    payload = _fixture("current/message_with_primary_widget_and_tool_call_pdf_url.json")
    prepared = _prepare(payload)
    assert prepared.context.tables == [] and prepared.notes == []
    (document,) = prepared.documents
    assert document.name == "openbb_story.pdf" and document.kind == "pdf"
    assert document.url == "https://some-url.com/openbb_story.pdf"
    assert document.widget_uuid == "123e4567-e89b-12d3-a456-426614174000"


def test_extra_state_resumes_and_options_choose_the_brain() -> None:
    payload = {
        "messages": [
            {"role": "human", "content": "average close in the price widget"},
            {
                "role": "tool",
                "function": "get_widget_data",
                "input_arguments": {"data_sources": [{"widget_uuid": "x", "id": "px"}]},
                "data": {"content": "date,close\n2021-01-04,10\n2021-01-05,12\n"},
                "extra_state": {"datapilot": {"resume_state": {"step": "after-widgets"}}},
            },
        ],
        "workspace_options": ["offline-only"],
        "api_keys": {"openai_api_key": "sk-test"},
        "timezone": "Asia/Shanghai",
        "unknown_field": {"is": "ignored"},
    }
    prepared = _prepare(payload, Settings(brain="auto"))
    context = prepared.context
    assert context.resume_state == {"step": "after-widgets"}
    assert context.offline is True and context.llm_api_key == "sk-test"
    assert context.tables[0].to_frame()["close"].mean() == 11
    assert context.brain == "auto"

    payload["workspace_options"] = {"model": "gpt-4o-mini", "offline-only": False}
    context = _prepare(payload, Settings(brain="auto")).context
    assert (context.brain, context.llm_model, context.offline) == ("llm", "gpt-4o-mini", False)
    payload["workspace_options"] = {"model": "offline"}
    assert _prepare(payload, Settings(brain="auto")).context.brain == "offline"


def test_a_conversation_without_a_human_question_is_refused() -> None:
    with pytest.raises(QueryInputError) as caught:
        _prepare({"messages": [{"role": "ai", "content": "hello"}]})
    assert caught.value.field == "messages"


def test_widget_arguments_fall_back_to_the_values_it_last_ran_with() -> None:
    widget = {
        "uuid": "3f6e1f4c-8a3b-4f9e-9c55-0a1b2c3d4e5f",
        "origin": "OpenBB API",
        "widget_id": "prices",
        "name": "Prices",
        "description": "",
        "params": [
            {"name": "symbol", "type": "ticker", "description": "", "executed_value": "MSFT"},
            {"name": "interval", "type": "text", "description": "", "default_value": "1d"},
        ],
    }
    prepared = _prepare({"messages": [{"role": "human", "content": "hi"}], "widgets": [widget]})
    (info,) = prepared.context.widgets
    assert info.params == {"symbol": "MSFT", "interval": "1d"}


def test_a_request_delegated_by_another_agent_is_the_question() -> None:
    payload = {
        "messages": [
            {"role": "human", "content": "compare the banks"},
            {"role": "ai", "agent_id": "copilot", "content": "Max drawdown of JPM in 2021?"},
            {"role": "ai", "content": "JPMorgan's maximum drawdown in 2021 was …"},
            {"role": "ai", "agent_id": "copilot", "content": "what about 2020?"},
        ]
    }
    prepared = _prepare(payload)
    assert prepared.question == "what about 2020?"
    assert [(m.role, m.content[:12]) for m in prepared.context.history] == [
        ("human", "compare the "),
        ("human", "Max drawdown"),
        ("ai", "JPMorgan's m"),
    ]
    assert prepared.turn == 3
