"""The `python` tool in a chat: a model's code waits for the user's go-ahead (the same
confirmation as any consequential tool), then runs in the sandbox with `dp`, and the model reads
its console output. Expected figures come from the source dataset, read with pandas."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from support.live_server import LOOPBACK
from support.platform_app import app_for, client_of, lmc_events, platform_settings

from datapilot.model_client.scripted import ChatRequest, Reply, ScriptedEndpoint

pytestmark = LOOPBACK

CODE = (
    "m = dp.prices('MSFT', '2021-01-01', '2021-12-31', field='adj_close')['MSFT']\n"
    "print('max', round(float(m.max()), 2))"
)


@pytest.fixture()
def endpoint() -> Iterator[ScriptedEndpoint]:
    with ScriptedEndpoint([Reply(content="hello")]) as served:
        yield served


def coder(request: ChatRequest) -> Reply:
    """Writes the code once, then repeats what the sandbox printed."""
    if request.response_format is not None:  # the memory extraction after each turn
        return Reply(content=json.dumps({"events": []}))
    results = [m for m in request.messages if m.get("role") == "tool"]
    if not results or request.messages[-1].get("role") == "user":
        call = {"id": "py1", "name": "python", "arguments": json.dumps({"code": CODE})}
        return Reply(tool_calls=[call])
    return Reply(content=f"the sandbox said: {results[-1]['content']}")


async def test_a_models_code_waits_for_run_then_runs_in_the_sandbox(
    store_url: str, endpoint: ScriptedEndpoint, data: object
) -> None:
    from skfolio.datasets import load_sp500_dataset

    expected = round(float(load_sp500_dataset()["MSFT"].loc["2021"].max()), 2)
    app = app_for(platform_settings(store_url, endpoint))
    async with client_of(app) as client:
        made = await client.post("/api/v1/assistants", json={"name": "Coder", "tools": ["python"]})
        assert made.status_code == 201, made.text
        chat = (await client.post("/api/v1/chats", json={"assistant_id": made.json()["id"]})).json()
        url = f"/api/v1/chats/{chat['id']}/messages"
        endpoint.load(coder)
        sent = await client.post(url, json={"content": "What was MSFT's highest close in 2021?"})
        chunks = lmc_events(sent.text)
        asked = [c for c in chunks if c.get("type") == "confirmation"]
        assert len(asked) == 1 and asked[0]["content"]["tool"] == "python"
        assert "dp.prices('MSFT'" in asked[0]["content"]["message"]
        assert chunks[-1]["content"] == "complete"
        assert f"max {expected}" not in sent.text  # nothing ran yet
        ran = await client.post(url, json={"command": "run", "stream": False})
        assert ran.status_code == 200, ran.text
        assert f"max {expected}" in ran.json()["answer"]["summary"]
