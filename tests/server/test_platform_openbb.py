"""Each assistant as its own OpenBB Workspace agent."""

from __future__ import annotations

import pytest
from openbb_ai.testing import CopilotResponse
from support.platform_app import (
    QUESTION,
    app_for,
    apple_2021_return_pct,
    client_of,
    key_for,
    platform_settings,
)


@pytest.fixture()
def app(tmp_path, data):  # type: ignore[no-untyped-def]
    return app_for(platform_settings(f"sqlite:///{tmp_path / 'store.sqlite3'}"))


async def test_an_assistant_is_an_agent_of_its_own(app) -> None:  # type: ignore[no-untyped-def]
    key = key_for(app.state.store, "alice")
    async with client_of(app, key) as client:
        created = await client.post(
            "/api/v1/assistants", json={"name": "Desk", "description": "Rates desk", "public": True}
        )
        assistant = created.json()["id"]
    async with client_of(app) as anonymous:  # descriptors are public, like /agents.json
        described = await anonymous.get(f"/assistants/{assistant}/agents.json")
        refused = await anonymous.post(
            f"/assistants/{assistant}/v1/query",
            json={"messages": [{"role": "human", "content": QUESTION}]},
        )
    (entry,) = described.json().values()
    assert entry["name"] == "Desk" and entry["description"] == "Rates desk"
    assert entry["endpoints"]["query"].endswith(f"/assistants/{assistant}/v1/query")
    assert refused.status_code == 401
    async with client_of(app, key) as client:
        answered = await client.post(
            f"/assistants/{assistant}/v1/query",
            json={"messages": [{"role": "human", "content": QUESTION}]},
        )
    parsed = CopilotResponse(answered.text)
    assert f"{apple_2021_return_pct():.2f}%" in parsed.text
    # No model is configured: the Workspace shows so beside the answer, as the other faces do.
    steps = [e.content for e in parsed.events if e.event_type == "copilotStatusUpdate"]
    notices = [s for s in steps if "No model is configured" in s.get("message", "")]
    assert notices and notices[-1]["eventType"] == "INFO", steps
    assert "No model is configured" not in parsed.text


async def test_a_private_assistant_stays_private(app) -> None:  # type: ignore[no-untyped-def]
    alice, bob = key_for(app.state.store, "alice"), key_for(app.state.store, "bob")
    async with client_of(app, alice) as client:
        created = await client.post(
            "/api/v1/assistants", json={"name": "Secret desk", "description": "hush"}
        )
        assistant = created.json()["id"]
    async with client_of(app) as anonymous:
        described = (await anonymous.get(f"/assistants/{assistant}/agents.json")).text
    assert "Secret desk" not in described and "hush" not in described
    async with client_of(app, bob) as other:
        answered = await other.post(
            f"/assistants/{assistant}/v1/query",
            json={"messages": [{"role": "human", "content": QUESTION}]},
        )
    assert answered.status_code == 404
