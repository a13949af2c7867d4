"""The OpenBB Workspace agent end to end: the real app, the real pipeline, the offline brain."""

from __future__ import annotations

import asyncio
import json
import re
import statistics
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from openbb_ai.testing import CopilotResponse
from support import paths
from support.openbb import (
    ESTIMATES,
    ESTIMATES_WIDGET,
    human,
    make_client,
    of,
    query,
    sse_events,
    text_of,
    with_widget_data,
)

from datapilot.brains.offline import OfflineBrain

FIXTURES = paths.FIXTURES / "openbb"
# OpenBB's shared payloads only: own/ holds whole conversations (a request, the widgets' data,
# what a right answer does), replayed by test_workspace_replay.py.
FIXTURE_FILES = sorted([*FIXTURES.glob("current/*.json"), *FIXTURES.glob("v1/*.json")])

PRICE_WIDGET = {
    "uuid": "f7d23e89-1a2b-4c3d-9e8f-567890abcdef",
    "origin": "OpenBB API",
    "widget_id": "historical_price",
    "name": "Historical Stock Price",
    "description": "Daily prices of the selected ticker",
    "params": [
        {"name": "symbol", "type": "ticker", "description": "Ticker", "current_value": "AAPL"},
        {
            "name": "start_date",
            "type": "date",
            "description": "Start",
            "default_value": "2024-01-01",
        },
    ],
    "metadata": {},
}
WIDGET_ROWS = [
    {"date": "2024-01-02", "close": 185.64},
    {"date": "2024-01-03", "close": 184.25},
    {"date": "2024-01-04", "close": 181.91},
    {"date": "2024-01-05", "close": 181.18},
    {"date": "2024-01-08", "close": 185.56},
]


@pytest.fixture()
async def client(data) -> AsyncIterator[httpx.AsyncClient]:
    async with make_client() as client:
        yield client


# --- discovery --------------------------------------------------------------------------------


async def test_agents_json_describes_the_agent_and_its_features(client: httpx.AsyncClient) -> None:
    agents = (await client.get("/agents.json")).json()
    agent = agents["datapilot"]
    assert agent["endpoints"]["query"] == "http://testserver/v1/query"
    assert agent["endpoints"]["feedback"] == "http://testserver/v1/feedback"
    features = agent["features"]
    assert features["streaming"] is True
    assert features["widget-dashboard-select"] is True
    assert features["widget-dashboard-search"] is True
    assert features["model"]["type"] == "select"
    assert {"auto", "offline"} <= {option["value"] for option in features["model"]["options"]}
    assert features["offline-only"]["type"] == "toggle"
    image = await client.get(agent["image"].removeprefix("http://testserver"))
    assert image.status_code == 200 and image.content.startswith(b"\x89PNG")

    legacy = (await client.get("/copilots.json")).json()["datapilot"]
    assert legacy["hasStreaming"] is True and legacy["hasFunctionCalling"] is True
    assert legacy["endpoints"]["query"] == "http://testserver/v1/query"


# --- every payload shape the Workspace sends ----------------------------------------------------


@pytest.mark.parametrize("path", FIXTURE_FILES, ids=lambda p: f"{p.parent.name}/{p.stem}")
async def test_every_shared_payload_is_answered(client: httpx.AsyncClient, path: Path) -> None:
    payload = json.loads(path.read_text())
    response = await client.post("/v1/query", json=payload)
    assert response.status_code == 200, response.text
    parsed = CopilotResponse(response.text)
    events = sse_events(response.text)
    errors = [s for s in of(events, "copilotStatusUpdate") if s["eventType"] == "ERROR"]
    if path.stem.endswith("pdf_url"):
        # Changed: the PDF link is now fetched, and this client is offline, so the answer says
        # the document could not be read and why (it used to reply without reading it).
        (error,) = errors
        assert "openbb_story.pdf could not be read" in error["message"]
        assert "offline" in error["message"] and "offline" in parsed.text
        return
    assert not errors
    calls = parsed.function_calls
    if calls:
        # Exactly one function call, and the stream ends there.
        assert len(calls) == 1 and events[-1][0] == "copilotFunctionCall"
        widgets = payload["widgets"]
        listed = widgets if isinstance(widgets, list) else widgets.get("primary", [])
        uuids = {widget["uuid"] for widget in listed}
        arguments = calls[0].content["input_arguments"]
        asked = [s["widget_uuid"] for s in arguments.get("data_sources", [arguments])]
        assert asked and set(asked) <= uuids
        assert "datapilot" in calls[0].content["extra_state"]
    else:
        assert parsed.text.strip()


# --- a corpus question, checked against the raw data --------------------------------------------


async def test_a_chart_question_streams_in_order_with_the_right_numbers(
    client: httpx.AsyncClient,
) -> None:
    from skfolio.datasets import load_sp500_dataset

    events = await query(
        client, human("Plot Apple's closing price from Jan 23, 2018 to today", "2019-03-13")
    )
    kinds = [name for name, _ in events]
    order = [
        "copilotStatusUpdate",
        "copilotMessageChunk",
        "copilotMessageArtifact",
        # The answer's Python script, as a reasoning step after the artifacts (new with
        # `Answer.code`; before it the citations followed the artifacts directly).
        "copilotStatusUpdate",
        "copilotCitationCollection",
        "copilotPromptSuggestions",
    ]
    assert [k for i, k in enumerate(kinds) if i == 0 or kinds[i - 1] != k] == order

    steps = [s["message"] for s in of(events, "copilotStatusUpdate")]
    assert any(m.startswith("Understood:") for m in steps)
    assert any(m.startswith("Planned ") for m in steps)

    (chart,) = of(events, "copilotMessageArtifact")
    assert chart["type"] == "chart"
    params = chart["chart_params"]
    assert params["chartType"] == "line" and params["xKey"] == "date"
    (column,) = params["yKey"]
    series = {row["date"]: row[column] for row in chart["content"]}
    raw = load_sp500_dataset()["AAPL"].loc["2018-01-23":"2019-03-13"]
    assert len(series) == len(raw)
    assert series["2018-01-23"] == pytest.approx(raw.iloc[0])
    assert series["2019-03-13"] == pytest.approx(raw.iloc[-1])
    assert max(series.values()) == pytest.approx(raw.max())
    assert f"{raw.iloc[-1]:.2f}" in text_of(events)

    (citations,) = of(events, "copilotCitationCollection")
    assert citations["citations"]
    (suggestions,) = of(events, "copilotPromptSuggestions")
    assert any("Apple" in s for s in suggestions["suggestions"])


async def test_candlesticks_come_drawn_beside_their_price_table(client: httpx.AsyncClient) -> None:
    # The Workspace draws no candlestick: the drawn chart (every indicator panel) comes as an
    # image in an html artifact, the numbers as a table.
    import base64

    from bokeh_sampledata.stocks import IBM

    events = await query(
        client,
        human("Show me a candlestick chart of IBM with MACD over the past 6 months", "2012-06-30"),
    )
    artifacts = of(events, "copilotMessageArtifact")
    assert [a["type"] for a in artifacts] == ["html", "table"]
    image = re.search(r'src="data:image/png;base64,([^"]+)"', artifacts[0]["content"])
    assert image and base64.b64decode(image[1]).startswith(b"\x89PNG")
    prices = artifacts[1]["content"]
    assert {"open", "high", "low", "close", "macd", "signal"} <= set(prices[0])
    raw = dict(zip(IBM["date"], IBM["close"], strict=True))
    for row in prices:
        assert row["close"] == pytest.approx(raw[row["date"]])


async def test_a_chinese_k_line_request_gets_its_candlestick(client: httpx.AsyncClient) -> None:
    from bokeh_sampledata.stocks import AAPL

    events = await query(client, human("画出苹果2012年的K线图，加上成交量和KDJ", "2022-12-28"))
    artifacts = of(events, "copilotMessageArtifact")
    assert [a["type"] for a in artifacts] == ["html", "table"]
    assert "K线" in artifacts[0]["name"] and "<img" in artifacts[0]["content"]
    rows = artifacts[1]["content"]
    year = {d: v for d, v in zip(AAPL["date"], AAPL["volume"], strict=True) if d.startswith("2012")}
    assert [row["date"] for row in rows] == sorted(year)
    assert [row["volume"] for row in rows] == pytest.approx([year[d] for d in sorted(year)])


# --- widgets as data ------------------------------------------------------------------------


async def test_widget_round_trip(client: httpx.AsyncClient) -> None:
    question = "What was the average close in this widget?"
    body = human(question, "2024-06-30", widgets={"primary": [PRICE_WIDGET], "secondary": []})
    first = await query(client, body)
    (call,) = of(first, "copilotFunctionCall")
    assert first[-1][0] == "copilotFunctionCall"
    assert call["function"] == "get_widget_data"
    (source,) = call["input_arguments"]["data_sources"]
    assert source == {
        "widget_uuid": PRICE_WIDGET["uuid"],
        "origin": "OpenBB API",
        "id": "historical_price",
        "input_args": {"symbol": "AAPL", "start_date": "2024-01-01"},
    }

    # The Workspace fetches the data and posts the conversation again with a tool message.
    body["messages"] += [
        {
            "role": "ai",
            "content": json.dumps({k: call[k] for k in ("function", "input_arguments")}),
        },
        {
            "role": "tool",
            "function": "get_widget_data",
            "input_arguments": call["input_arguments"],
            "data": [{"items": [{"content": json.dumps(WIDGET_ROWS)}]}],
            "extra_state": call["extra_state"],
        },
    ]
    second = await query(client, body)
    assert not of(second, "copilotFunctionCall")
    expected = statistics.mean(row["close"] for row in WIDGET_ROWS)
    values = [
        value
        for artifact in of(second, "copilotMessageArtifact")
        for row in artifact["content"]
        for key, value in row.items()
        if key == "mean"
    ]
    assert values == [pytest.approx(expected, abs=0.005)]  # tables show 2 decimals
    assert f"{expected:.2f}".rstrip("0") in text_of(second)
    (citations,) = of(second, "copilotCitationCollection")
    widget_citations = [c for c in citations["citations"] if c["source_info"]["type"] == "widget"]
    assert widget_citations[0]["source_info"]["widget_id"] == "historical_price"


async def test_widget_round_trip_with_a_v1_client(client: httpx.AsyncClient) -> None:
    widget = {"uuid": "ff6368ec-a397-4baf-9f5a-fecd9fd797a3", "name": "prices", "description": "x"}
    body = human("Plot the data in this widget", "2024-06-30", widgets=[widget])
    (call,) = of(await query(client, body), "copilotFunctionCall")
    assert call["input_arguments"] == {"widget_uuid": widget["uuid"]}

    csv_text = "date,close\n" + "\n".join(f"{r['date']},{r['close']}" for r in WIDGET_ROWS)
    body["messages"] += [
        {"role": "ai", "content": json.dumps({"function": "get_widget_data", **call})},
        {
            "role": "tool",
            "function": "get_widget_data",
            "input_arguments": call["input_arguments"],
            "content": csv_text,
        },
    ]
    events = await query(client, body)
    (chart,) = [a for a in of(events, "copilotMessageArtifact") if a["type"] == "chart"]
    (column,) = chart["chart_params"]["yKey"]
    assert [row[column] for row in chart["content"]] == [row["close"] for row in WIDGET_ROWS]


async def test_explicit_context_data_answers_the_question(client: httpx.AsyncClient) -> None:
    body = human("What were the highest and lowest values in this table?", "2024-06-30")
    body["context"] = [
        {
            "uuid": "9f2a3d1e-7c55-4f0e-8a55-2b7e5e0d9c11",
            "name": "weights",
            "description": "Portfolio weights",
            "data": {"content": "ticker,weight\nAAPL,0.5\nMSFT,0.3\nXOM,0.2\n"},
        }
    ]
    events = await query(client, body)
    text = text_of(events)
    assert "0.5" in text and "0.2" in text


async def test_a_text_widget_is_quoted_in_the_answer(client: httpx.AsyncClient) -> None:
    path = FIXTURES / "current" / "message_with_primary_widget_and_tool_call.json"
    payload = json.loads(path.read_text())
    content = payload["messages"][-1]["data"][0]["items"][0]["content"]
    text = text_of(await query(client, payload))
    for headline in (line.strip() for line in content.splitlines() if line.strip()):
        assert headline.strip('"') in text
    assert "no data" not in text and "not in the catalog" not in text


# --- conversation ---------------------------------------------------------------------------


async def test_a_follow_up_builds_on_the_conversation(client: httpx.AsyncClient) -> None:
    body = {
        "messages": [
            {"role": "human", "content": "Plot Apple's closing price in 2019"},
            {"role": "ai", "content": "Here is Apple's closing price in 2019."},
            {"role": "human", "content": "now add Microsoft"},
        ],
        "today": "2022-06-30",
    }
    events = await query(client, body)
    (chart,) = [a for a in of(events, "copilotMessageArtifact") if a["type"] == "chart"]
    assert set(chart["chart_params"]["yKey"]) == {"AAPL", "MSFT"}
    assert chart["name"].endswith("turn 2")  # unique within the chat
    dates = [row["date"] for row in chart["content"]]
    assert dates[0].startswith("2019-01") and dates[-1].startswith("2019-12")


@pytest.mark.parametrize(
    ("question", "today"),
    [
        ("Compare the cumulative returns of JPMorgan and Bank of America since 2020", "2021-06-30"),
        ("美国1980年代的失业率", "2009-09-30"),
        ("标普500指数近三年的走势", "2022-12-28"),
    ],
)
async def test_suggested_follow_ups_can_be_answered(
    client: httpx.AsyncClient, question: str, today: str
) -> None:
    (suggestions,) = of(await query(client, human(question, today)), "copilotPromptSuggestions")
    assert suggestions["suggestions"]
    for suggestion in suggestions["suggestions"]:
        events = await query(client, human(suggestion, today))
        assert of(events, "copilotMessageArtifact"), suggestion
        assert not [s for s in of(events, "copilotStatusUpdate") if s["eventType"] == "ERROR"]


# --- errors -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "field", "words"),
    [
        (b'{"messages": [', "body", "not valid JSON"),
        (b"{}", "messages", "Field required"),
        (b'{"messages": []}', "messages", "cannot be empty"),
        (b'{"messages": [{"role": "robot", "content": "hi"}]}', "messages.0", "role"),
        (b'{"messages": [{"role": "ai", "content": "hi"}]}', "messages", "No human message"),
        # Not UTF-8: FastAPI alone answers a bare 400.
        (b"|\xbd\xa8\x02\xff", "body", "not UTF-8"),
        # Found by fuzzing: the SDK's validators crashed (500) on widgets that are not objects.
        (b'{"messages": [], "widgets": [null, null]}', "widgets.0", "not null"),
        (
            b'{"messages": [{"role": "human", "content": "hi"}], "widgets": {"primary": '
            b'[{"widget_id": "w", "origin": "o", "name": "n", "params": [3]}]}}',
            "widgets.primary.0.params.0",
            "must be an object",
        ),
    ],
)
async def test_malformed_payloads_get_422_with_the_field(
    client: httpx.AsyncClient, body: bytes, field: str, words: str
) -> None:
    response = await client.post(
        "/v1/query", content=body, headers={"content-type": "application/json"}
    )
    assert response.status_code == 422
    problem = response.json()
    fields = [item["field"] for item in problem["detail"]]
    assert any(f == field or f.startswith(field + ".") for f in fields), fields
    assert words in problem["message"]


async def test_a_brain_failure_after_streaming_began_ends_cleanly(
    client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def broken(self, question, context):
        raise RuntimeError("the planner lost its notes")

    monkeypatch.setattr(OfflineBrain, "understand", broken)
    events = await query(client, human("Plot Apple's closing price in 2019", "2022-06-30"))
    statuses = of(events, "copilotStatusUpdate")
    assert statuses[0]["eventType"] == "INFO"  # the stream had begun
    errors = [s for s in statuses if s["eventType"] == "ERROR"]
    assert len(errors) == 1 and "the planner lost its notes" in errors[0]["message"]
    assert "the planner lost its notes" in text_of(events)
    assert not of(events, "copilotPromptSuggestions")


async def test_a_summary_failure_mid_sentence_keeps_the_results(
    client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def stutters(self, question, understanding, run, context):
        yield "Apple closed 2019 "
        raise RuntimeError("lost the thread")

    monkeypatch.setattr(OfflineBrain, "summarize", stutters)
    events = await query(client, human("Plot Apple's closing price in 2019", "2022-06-30"))
    assert text_of(events).startswith("Apple closed 2019")
    warnings = [s for s in of(events, "copilotStatusUpdate") if s["eventType"] == "WARNING"]
    assert any("lost the thread" in w["message"] for w in warnings)
    assert [a["type"] for a in of(events, "copilotMessageArtifact")] == ["chart"]


async def test_a_slow_request_is_stopped_by_the_timeout(
    data, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def dawdles(self, question, context):
        await asyncio.sleep(30)

    monkeypatch.setattr(OfflineBrain, "understand", dawdles)
    async with make_client(request_timeout_s=0.5) as client:
        started = time.perf_counter()
        events = await query(client, human("Plot Apple's closing price in 2019", "2022-06-30"))
    assert time.perf_counter() - started < 5
    (error,) = [s for s in of(events, "copilotStatusUpdate") if s["eventType"] == "ERROR"]
    assert "longer than 0.5 s" in error["message"]
    assert "longer than 0.5 s" in text_of(events)


# --- CORS, feedback, health --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("origin", "allowed"),
    [
        ("https://pro.openbb.co", True),
        ("http://localhost:1420", True),
        ("http://127.0.0.1:5050", True),
        ("https://evil.example", False),
    ],
)
async def test_cors(client: httpx.AsyncClient, origin: str, allowed: bool) -> None:
    response = await client.options(
        "/v1/query",
        headers={
            "Origin": origin,
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "content-type",
        },
    )
    assert (response.headers.get("access-control-allow-origin") == origin) is allowed


async def test_feedback_is_appended_as_json_lines(data, tmp_path: Path) -> None:
    async with make_client(data_dir=tmp_path / "fresh") as client:
        vote = {"vote": "up", "tags": ["accurate"], "user_prompt": "q", "trace_id": "t1", "x": 1}
        assert (await client.post("/v1/feedback", json=vote)).json() == {"status": "ok"}
        down = {"vote": "down", "user_comment": "wrong window"}
        assert (await client.post("/v1/feedback", json=down)).status_code == 200
        bad = await client.post("/v1/feedback", json={"tags": ["no vote"]})
        assert bad.status_code == 422 and bad.json()["detail"][0]["field"] == "vote"
    lines = (tmp_path / "fresh" / "feedback.jsonl").read_text().splitlines()
    entries = [json.loads(line) for line in lines]
    assert [e["vote"] for e in entries] == ["up", "down"]
    assert entries[0]["tags"] == ["accurate"] and "x" not in entries[0]
    assert entries[1]["user_comment"] == "wrong window" and entries[1]["received_at"]


async def test_health_reports_version_and_data_coverage(client: httpx.AsyncClient, data) -> None:
    from datapilot import __version__

    health = (await client.get("/health")).json()
    available = data.catalog.entities(available=True)
    assert health["status"] == "ok" and health["version"] == __version__
    assert health["data"]["entities"] == len(available) > 0
    assert health["data"]["first"] == min(e.first for e in available if e.first).isoformat()
    assert health["data"]["last"] == max(e.last for e in available if e.last).isoformat()


# --- the user's widgets and tables first ----------------------------------------------------------


def _estimates_frame():
    import pandas as pd

    frame = pd.DataFrame(ESTIMATES).set_index("fiscal_year")
    frame["revenue_avg"] = frame["revenue_avg"].str.rstrip("B").astype(float) * 1e9
    frame["eps_avg"] = frame["eps_avg"].astype(float)
    return frame


async def test_a_selected_widget_answers_for_its_symbol_before_bundled_data(
    client: httpx.AsyncClient,
) -> None:
    body = human("What is the latest stock price of AAPL?", "2024-06-30")
    body["widgets"] = {"primary": [PRICE_WIDGET], "secondary": []}
    (call,) = of(await query(client, body), "copilotFunctionCall")
    (source,) = call["input_arguments"]["data_sources"]
    assert source["widget_uuid"] == PRICE_WIDGET["uuid"]
    with_widget_data(body, call, [WIDGET_ROWS])
    events = await query(client, body)
    text = text_of(events)
    assert str(WIDGET_ROWS[-1]["close"]) in text  # 185.56 on 2024-01-08, not bundled 2022 data
    assert "2022" not in text
    (citations,) = of(events, "copilotCitationCollection")
    assert [c["source_info"].get("widget_id") for c in citations["citations"]] == [
        "historical_price"
    ]


async def test_openbb_tsla_payload_asks_for_the_selected_widget(client: httpx.AsyncClient) -> None:
    payload = json.loads((FIXTURES / "current" / "retrieve_widget_from_dashboard.json").read_text())
    events = await query(client, payload)
    (call,) = of(events, "copilotFunctionCall")
    asked = [s["id"] for s in call["input_arguments"]["data_sources"]]
    assert asked[0] == "stock_price" and "no bundled data" not in text_of(events)
    # The widget's data answers for TSLA, though the bundled data has none.
    quote = {"symbol": "TSLA", "price": "$251.44", "change": "(1.2%)", "volume": "98.1M"}
    with_widget_data(payload, call, [quote])
    events = await query(client, payload)
    assert "251.44 USD" in text_of(events) and "no bundled data" not in text_of(events)
    (citations,) = of(events, "copilotCitationCollection")
    assert citations["citations"][0]["source_info"]["widget_id"] == "stock_price"


async def test_openbb_yield_curve_payload_is_read_not_crashed(client: httpx.AsyncClient) -> None:
    path = FIXTURES / "current" / "retrieve_widget_from_dashboard_with_result.json"
    payload = json.loads(path.read_text())
    rows = json.loads(payload["messages"][-1]["data"][0]["items"][0]["content"])
    events = await query(client, payload)
    assert not [s for s in of(events, "copilotStatusUpdate") if s["eventType"] != "INFO"]
    text = text_of(events)
    for row in rows:  # every rate quoted to its fourth decimal, as sent
        assert f"{row['maturity']} {row['rate']}" in text
    (chart,) = [a for a in of(events, "copilotMessageArtifact") if a["type"] == "chart"]
    assert chart["chart_params"]["xKey"] == "maturity"


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("What is the consensus revenue for FY2024?", lambda f: "391,000,000,000"),
        (
            "Which year has the highest EPS estimate?",
            lambda f: f"{f['eps_avg'].max():g}, in {f['eps_avg'].idxmax()}",
        ),
        (
            "Revenue growth 2023→2026 in %",
            lambda f: (
                f"({(f.loc[2026, 'revenue_avg'] / f.loc[2023, 'revenue_avg'] - 1) * 100:.2f}%)"
            ),
        ),
        ("Average EPS estimate?", lambda f: f"{f['eps_avg'].mean():.2f}"),
    ],
)
async def test_estimates_table_questions(
    client: httpx.AsyncClient, question: str, expected: Any
) -> None:
    body = human(question, "2024-06-30", widgets={"primary": [ESTIMATES_WIDGET]})
    (call,) = of(await query(client, body), "copilotFunctionCall")
    with_widget_data(body, call, [ESTIMATES])
    text = text_of(await query(client, body))
    assert expected(_estimates_frame()) in text


async def test_plot_by_key_puts_the_key_on_x(client: httpx.AsyncClient) -> None:
    body = human("avg EPS by fiscal year as a bar chart", "2024-06-30")
    body["context"] = [
        {
            "uuid": "5d1c7a0e-3b7e-4c4f-8d8e-1f2a3b4c5d6e",
            "name": "estimates",
            "description": "EPS estimates",
            "data": {"content": json.dumps(ESTIMATES)},
        }
    ]
    events = await query(client, body)
    (chart,) = [a for a in of(events, "copilotMessageArtifact") if a["type"] == "chart"]
    assert chart["chart_params"]["chartType"] == "bar"
    assert chart["chart_params"]["xKey"] == "fiscal_year"
    frame = _estimates_frame()
    (y,) = chart["chart_params"]["yKey"]
    assert {row["fiscal_year"]: row[y] for row in chart["content"]} == pytest.approx(
        frame["eps_avg"].to_dict()
    )


async def test_two_widgets_are_both_fetched_used_and_cited(client: httpx.AsyncClient) -> None:
    second = {**PRICE_WIDGET, "uuid": "a1b2c3d4-0000-4000-8000-000000000002", "name": "MSFT Price"}
    second["widget_id"] = "historical_price_2"
    second["params"] = [{**PRICE_WIDGET["params"][0], "current_value": "MSFT"}]
    msft = [{"date": r["date"], "close": round(r["close"] * 2.1, 2)} for r in WIDGET_ROWS]
    body = human("Summarize the data in these widgets", "2024-06-30")
    body["widgets"] = {"primary": [PRICE_WIDGET, second]}
    (call,) = of(await query(client, body), "copilotFunctionCall")
    assert len(call["input_arguments"]["data_sources"]) == 2
    with_widget_data(body, call, [WIDGET_ROWS, msft])
    events = await query(client, body)
    text = text_of(events)
    for name, rows in (("Historical Stock Price", WIDGET_ROWS), ("MSFT Price", msft)):
        assert f'"{name}" has {len(rows)} rows' in text
        assert f"latest {rows[-1]['close']:g}" in text
    (citations,) = of(events, "copilotCitationCollection")
    cited = {c["source_info"].get("widget_id") for c in citations["citations"]}
    assert {"historical_price", "historical_price_2"} <= cited


async def test_a_request_delegated_by_copilot_is_answered_and_followed_up(
    client: httpx.AsyncClient,
) -> None:
    from skfolio.datasets import load_sp500_dataset

    prices = load_sp500_dataset()
    body = {
        "messages": [
            {"role": "human", "content": "Ask Datapilot for help"},
            {
                "role": "ai",
                "agent_id": "openbb-copilot",
                "content": "What was the maximum drawdown of JPMorgan in 2021?",
            },
        ],
        "today": "2022-06-30",
    }
    first = text_of(await query(client, body))
    assert "JPM" in first or "JPMorgan" in first
    body["messages"] += [
        {"role": "ai", "content": first},
        {"role": "ai", "agent_id": "openbb-copilot", "content": "what about 2020?"},
    ]
    events = await query(client, body)
    jpm = prices["JPM"].loc["2019-12-31":"2020-12-31"]
    drawdown = (jpm / jpm.cummax() - 1).min() * 100
    assert f"{abs(drawdown):.2f}" in text_of(events)


async def test_an_extra_data_source_fetches_what_bundled_data_lacks(
    client: httpx.AsyncClient,
) -> None:
    payload = json.loads((FIXTURES / "current" / "retrieve_widget_from_dashboard.json").read_text())
    body = human("Plot the historical price of Tesla in 2024", "2024-06-30")
    body["widgets"] = {"primary": [], "secondary": [], "extra": payload["widgets"]["extra"]}
    (call,) = of(await query(client, body), "copilotFunctionCall")
    assert call["function"] == "get_extra_widget_data"
    (source,) = call["input_arguments"]["data_sources"]
    assert source["id"] == "historical_price" and source["input_args"]["symbol"] == "TSLA"
    tsla = [{"date": r["date"], "close": round(r["close"] * 1.3, 2)} for r in WIDGET_ROWS]
    with_widget_data(body, call, [tsla])
    events = await query(client, body)
    (chart,) = [a for a in of(events, "copilotMessageArtifact") if a["type"] == "chart"]
    (y,) = chart["chart_params"]["yKey"]
    assert [row[y] for row in chart["content"]] == [row["close"] for row in tsla]
    assert "no bundled data" not in text_of(events)


async def test_dashboard_widgets_are_picked_by_what_the_question_says(
    client: httpx.AsyncClient,
) -> None:
    news = {
        **PRICE_WIDGET,
        "uuid": "c0ffee00-0000-4000-8000-000000000001",
        "widget_id": "company_news",
        "name": "Company News",
        "description": "Latest news headlines about a company",
    }
    estimates = {**ESTIMATES_WIDGET, "uuid": "c0ffee00-0000-4000-8000-000000000002"}
    body = human("What is the EPS consensus estimate for AAPL?", "2024-06-30")
    # The estimates widget is listed last: it is picked by its words, not by its position.
    body["widgets"] = {"primary": [], "secondary": [news, PRICE_WIDGET, estimates]}
    (call,) = of(await query(client, body), "copilotFunctionCall")
    asked = [s["id"] for s in call["input_arguments"]["data_sources"]]
    assert asked == ["analyst_estimates"]


async def test_a_donut_chart_of_a_table(client: httpx.AsyncClient) -> None:
    body = human("Show the portfolio weights as a donut chart", "2024-06-30")
    weights = {"AAPL": 0.5, "MSFT": 0.3, "XOM": 0.2}
    body["context"] = [
        {
            "uuid": "9f2a3d1e-7c55-4f0e-8a55-2b7e5e0d9c12",
            "name": "weights",
            "description": "Portfolio weights",
            "data": {
                "content": "ticker,weight\n" + "".join(f"{k},{v}\n" for k, v in weights.items())
            },
        }
    ]
    events = await query(client, body)
    (chart,) = [a for a in of(events, "copilotMessageArtifact") if a["type"] == "chart"]
    params = chart["chart_params"]
    assert params["chartType"] == "donut" and params["calloutLabelKey"] == "ticker"
    assert {row["ticker"]: row[params["angleKey"]] for row in chart["content"]} == weights


async def test_follow_ups_chain_over_several_turns(client: httpx.AsyncClient) -> None:
    from skfolio.datasets import load_sp500_dataset

    prices = load_sp500_dataset()
    body = {
        "messages": [
            {
                "role": "human",
                "content": "Compare the returns of JPMorgan and Bank of America in 2021",
            },
            {"role": "ai", "content": "Here are the returns."},
            {"role": "human", "content": "their maximum drawdown?"},
            {"role": "ai", "content": "Here are the drawdowns."},
            {"role": "human", "content": "what about 2020?"},
        ],
        "today": "2022-06-30",
    }
    text = text_of(await query(client, body))
    for ticker in ("JPM", "BAC"):
        closes = prices[ticker].loc["2019-12-31":"2020-12-31"]
        drawdown = (closes / closes.cummax() - 1).min() * 100
        assert f"{abs(drawdown):.2f}" in text, ticker


async def test_a_question_the_table_cannot_answer_lists_its_columns(
    client: httpx.AsyncClient,
) -> None:
    body = human("What is the dividend yield in this table?", "2024-06-30")
    body["context"] = [
        {
            "uuid": "5d1c7a0e-3b7e-4c4f-8d8e-1f2a3b4c5d6f",
            "name": "estimates",
            "description": "EPS estimates",
            "data": {"content": json.dumps(ESTIMATES)},
        }
    ]
    text = text_of(await query(client, body))
    first = text.split(". ")[0]
    assert "could not find" in first
    assert all(column in first for column in ESTIMATES[0])
    latest = _estimates_frame()["eps_avg"].iloc[-1]
    assert f"latest {latest:g}" in text


async def test_a_table_of_links_is_an_html_artifact_with_clickable_escaped_cells(
    client: httpx.AsyncClient,
) -> None:
    news = [
        {"title": "Apple <b>beats</b> estimates", "url": "https://example.com/apple-beats"},
        {"title": "Apple opens developer conference", "url": "https://example.com/wwdc"},
    ]
    body = human("Show this table", "2024-06-30")
    body["context"] = [
        {
            "uuid": "7e57ab1e-0000-4000-8000-00000000000a",
            "name": "news",
            "description": "Company news",
            "data": {"content": json.dumps(news)},
        }
    ]
    events = await query(client, body)
    (artifact,) = of(events, "copilotMessageArtifact")
    assert artifact["type"] == "html"
    html = artifact["content"]
    for item in news:
        assert f'<a href="{item["url"]}"' in html
    assert "&lt;b&gt;beats&lt;/b&gt;" in html and "<b>" not in html
