"""The OpenBB Workspace agent's side of a conversation, for tests: the app in process, a query
and its SSE events, a human message, a widget's data returned, and a sample estimates widget."""

from __future__ import annotations

import json
from typing import Any

import httpx
from openbb_ai.testing import CopilotResponse

from datapilot.server.app import create_app
from datapilot.settings import Settings


def make_client(**settings: Any) -> httpx.AsyncClient:
    """The app in process, offline brain and offline mode unless `settings` say otherwise."""
    app = create_app(Settings(**{"brain": "offline", "offline": True, **settings}))
    transport = httpx.ASGITransport(app=app)
    return httpx.AsyncClient(transport=transport, base_url="http://testserver", timeout=60)


def sse_events(text: str) -> list[tuple[str, Any]]:
    """(event, decoded data) in wire order, parsed independently of the SDK's helper."""
    events = []
    for block in text.replace("\r\n", "\n").split("\n\n"):
        name, data = None, []
        for line in block.split("\n"):
            if line.startswith("event:"):
                name = line[len("event:") :].strip()
            elif line.startswith("data:"):
                data.append(line[len("data:") :].strip())
        if name:
            events.append((name, json.loads("\n".join(data))))
    return events


async def query(client: httpx.AsyncClient, body: dict[str, Any]) -> list[tuple[str, Any]]:
    response = await client.post("/v1/query", json=body)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/event-stream")
    CopilotResponse(response.text)  # the SDK's own parser accepts the stream
    return sse_events(response.text)


def human(text: str, today: str | None = None, **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"messages": [{"role": "human", "content": text}], **extra}
    if today:
        body["today"] = today
    return body


def of(events: list[tuple[str, Any]], name: str) -> list[Any]:
    return [data for event, data in events if event == name]


def text_of(events: list[tuple[str, Any]]) -> str:
    return "".join(data["delta"] for data in of(events, "copilotMessageChunk"))


ESTIMATES = [
    {"fiscal_year": 2023, "revenue_avg": "383.3B", "eps_avg": "6.13", "margin": "25.3%"},
    {"fiscal_year": 2024, "revenue_avg": "391.0B", "eps_avg": "6.70", "margin": "26.1%"},
    {"fiscal_year": 2025, "revenue_avg": "415.2B", "eps_avg": "7.35", "margin": "(1.5%)"},
    {"fiscal_year": 2026, "revenue_avg": "440.1B", "eps_avg": "8.02", "margin": "27.0%"},
]
ESTIMATES_WIDGET = {
    "uuid": "0b8c6f1e-2a4d-4e5f-9a1b-3c2d1e0f9a8b",
    "origin": "OpenBB API",
    "widget_id": "analyst_estimates",
    "name": "Analyst Estimates",
    "description": "Consensus estimates by fiscal year",
    "params": [
        {"name": "symbol", "type": "ticker", "description": "Ticker", "current_value": "AAPL"}
    ],
    "metadata": {},
}


def with_widget_data(body: dict[str, Any], call: dict[str, Any], rows: list[list[Any]]) -> None:
    """Append the Workspace's reply to a get_widget_data call: one data item per source."""
    body["messages"] += [
        {
            "role": "ai",
            "content": json.dumps({k: call[k] for k in ("function", "input_arguments")}),
        },
        {
            "role": "tool",
            "function": call["function"],
            "input_arguments": call["input_arguments"],
            "data": [{"items": [{"content": json.dumps(r)}]} for r in rows],
            "extra_state": call["extra_state"],
        },
    ]
