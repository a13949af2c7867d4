"""A widget's table with a model configured: the table reaches the model as fenced data, and the
grounding checks hold its summary to the table's numbers (through the real Workspace route)."""

from __future__ import annotations

import json
import re
from typing import Any

import httpx
import pandas as pd
from support.llm import LOOPBACK, time_limit
from support.openbb import (
    ESTIMATES,
    ESTIMATES_WIDGET,
    human,
    of,
    query,
    text_of,
    with_widget_data,
)

from datapilot.model_client.client import forget_endpoint_modes
from datapilot.model_client.health import forget_health
from datapilot.model_client.scripted import ChatRequest, Reply, ScriptedEndpoint
from datapilot.server.app import create_app
from datapilot.settings import Settings

pytestmark = LOOPBACK

QUESTION = "What is the consensus revenue for FY2024?"
PLAN = {
    "status": "ok",
    "intent": {
        "rewritten": "Consensus revenue for fiscal 2024 from the Analyst Estimates widget",
        "entities": [{"name": "Analyst Estimates", "id": "Analyst Estimates"}],
        "table": True,
    },
    "plan": {
        "steps": [
            {
                "calls": [
                    {
                        "interface": "get_client_table",
                        "args": {"name": "Analyst Estimates"},
                        "output": "estimates",
                    }
                ]
            },
            {
                "calls": [
                    {
                        "interface": "table_lookup",
                        "args": {
                            "frame": {"$ref": "estimates"},
                            "rows": ["FY2024"],
                            "columns": ["revenue_avg"],
                        },
                        "output": "cell",
                    }
                ]
            },
            {
                "calls": [
                    {
                        "interface": "show_table",
                        "args": {"frame": {"$ref": "cell"}, "title": "Consensus revenue"},
                        "output": "table",
                    }
                ]
            },
        ]
    },
}


def _revenue_2024() -> float:
    frame = pd.DataFrame(ESTIMATES).set_index("fiscal_year")
    return float(frame.loc[2024, "revenue_avg"].rstrip("B")) * 1e9


def _model(summary: str) -> Any:
    """A model that asks for the widget, plans a lookup once its data is there, then writes
    `summary`."""
    seen: list[str] = []

    def reply(request: ChatRequest) -> Reply:
        seen.append(request.prompt)
        if request.stream:
            return Reply(content=summary)
        if "Analyst Estimates" in request.prompt and "391.0B" in request.prompt:
            return Reply(content=json.dumps(PLAN))
        return Reply(content='{"status": "need_widgets", "widgets": ["w1"]}')

    reply.seen = seen  # type: ignore[attr-defined]
    return reply


async def _ask(summary: str) -> tuple[list[tuple[str, Any]], list[str]]:
    forget_endpoint_modes()
    forget_health()
    model = _model(summary)
    with ScriptedEndpoint(model) as endpoint:
        settings = {
            "brain": "llm",
            "offline": False,
            "llm_base_url": endpoint.base_url,
            "llm_model": "scripted",
            "llm_max_retries": 0,
        }
        body = human(QUESTION, "2024-06-30", widgets={"primary": [ESTIMATES_WIDGET]})
        app = create_app(Settings(**settings))
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
            (call,) = of(await query(client, body), "copilotFunctionCall")
            with_widget_data(body, call, [ESTIMATES])
            events = await query(client, body)
    return events, model.seen


@time_limit(120)
async def test_the_widget_table_reaches_the_model_fenced_and_a_right_figure_passes() -> None:
    exact = f"{_revenue_2024():,.0f}"  # 391,000,000,000
    summary = f"The consensus revenue for FY2024 is {exact} USD, from your Analyst Estimates."
    events, prompts = await _ask(summary)
    planning = [p for p in prompts if "391.0B" in p]
    assert planning, "the widget's rows never reached the model"
    # The rows sit inside the data fence, as data, not among the instructions.
    assert re.search(r"<data>[^<]*2024[^<]*391\.0B[^<]*</data>", planning[0])
    assert text_of(events) == summary  # grounded: every figure is in the computed results
    (citations,) = of(events, "copilotCitationCollection")
    assert citations["citations"][0]["source_info"]["widget_id"] == "analyst_estimates"


@time_limit(120)
async def test_an_invented_figure_is_caught_and_the_table_answer_given_instead() -> None:
    events, _ = await _ask("The consensus revenue for FY2024 is 405.2 billion dollars.")
    text = text_of(events)
    assert "405.2" not in text
    # The checked template answers instead, quoting the table's cell exactly, and says why.
    assert f"{_revenue_2024():,.0f}" in text
    warnings = [s["message"] for s in of(events, "copilotStatusUpdate") if s["eventType"] != "INFO"]
    # Changed: the note is short and in the question's language; why is in the answer's trace.
    assert any("did not hold up against the results" in w for w in warnings), warnings
