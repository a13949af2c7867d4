"""Scene prompts: chosen from the last three messages (word matching offline, the model's pick
when configured, word matching again when the model names no listed scene), added to the
system prompt and recorded on the answered message."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from support.llm import LOOPBACK
from support.platform_app import TODAY, app_for, client_of, lmc_events, platform_settings

from datapilot.assistants.models import ScenePromptInfo
from datapilot.assistants.scenes import by_words
from datapilot.model_client.scripted import ChatRequest, Reply, ScriptedEndpoint

RISK = ("Risk review", "Focus on volatility, drawdown and value at risk; state the worst case.")
INCOME = ("Dividend income", "Focus on dividend yield, payout ratio and income stability.")


def scene(label: str, prompt: str) -> ScenePromptInfo:
    now = datetime.now(UTC)
    return ScenePromptInfo(id=label, label=label, prompt=prompt, assistant_id=None, created_at=now)


@pytest.mark.parametrize(
    ("messages", "expected"),
    [
        (["What was the worst drawdown of AAPL in 2021?"], "Risk review"),
        (["我想看看股息收益"], None),  # no shared word with either English scene
        (["How volatile was MSFT?", "And the dividend yield of KO?"], "Dividend income"),
        (
            ["What dividend does KO pay?", "thanks", "ok", "and its risk of a drawdown?"],
            "Risk review",
        ),
        (["hello"], None),
    ],
)
def test_scene_by_words(messages: list[str], expected: str | None) -> None:
    chosen = by_words([scene(*RISK), scene(*INCOME)], messages)
    assert (chosen.label if chosen else None) == expected


async def make(client: Any) -> tuple[str, str]:
    assistant = (await client.post("/api/v1/assistants", json={"name": "Analyst"})).json()
    for label, prompt in (RISK, INCOME):
        created = await client.post(
            "/api/v1/scene-prompts",
            json={"label": label, "prompt": prompt, "assistant_id": assistant["id"]},
        )
        assert created.status_code == 201, created.text
    chat = (await client.post("/api/v1/chats", json={"assistant_id": assistant["id"]})).json()
    return assistant["id"], chat["id"]


async def context_of(client: Any, chat_id: str, text: str) -> dict[str, Any]:
    body = (
        await client.post(
            f"/api/v1/chats/{chat_id}/messages",
            json={"content": text, "today": TODAY, "stream": False},
        )
    ).json()
    url = f"/api/v1/chats/{chat_id}/messages/{body['message']['id']}/context"
    return (await client.get(url)).json()


async def test_the_scene_is_chosen_offline_and_recorded(store_url: str, data: object) -> None:
    app = app_for(platform_settings(store_url))
    async with client_of(app) as client:
        _, chat_id = await make(client)
        record = await context_of(client, chat_id, "What was the max drawdown of AAPL in 2021?")
    assert record["scene_label"] == "Risk review" and record["scene_by"] == "words"


async def test_the_scene_chosen_leads_the_streamed_reply_and_comes_back_with_the_message(
    store_url: str, data: object
) -> None:
    app = app_for(platform_settings(store_url))
    async with client_of(app) as client:
        assistant_id, chat_id = await make(client)
        scenes = (await client.get("/api/v1/scene-prompts")).json()
        path = f"/api/v1/chats/{chat_id}/messages"
        asked = {"content": "How deep was the drawdown of AAPL in 2021?", "today": TODAY}
        streamed = await client.post(path, json=asked)
        # A new chat of the same assistant: the last three messages are only this one.
        other = (await client.post("/api/v1/chats", json={"assistant_id": assistant_id})).json()
        unmatched = await client.post(
            f"/api/v1/chats/{other['id']}/messages", json={"content": "hello", "stream": False}
        )
        plain = (await client.post("/api/v1/chats", json={})).json()
        no_scenes = await client.post(f"/api/v1/chats/{plain['id']}/messages", json=asked)
    chunks = lmc_events(streamed.text)
    risk = next(s["id"] for s in scenes if s["label"] == "Risk review")
    # Right after the chunk naming the stored message, before any of the reply.
    assert chunks[0]["format"] == "message"
    assert chunks[1] == {
        "role": "server",
        "type": "status",
        "format": "scene",
        "content": {"id": risk, "label": "Risk review", "by": "words"},
    }
    assert [c for c in chunks if c.get("format") == "scene"] == [chunks[1]]
    assert unmatched.json()["scene"] == {"id": None, "label": None, "by": "words"}
    assert not [c for c in lmc_events(no_scenes.text) if c.get("format") == "scene"]


def picking(label: str) -> Any:
    def model(request: ChatRequest) -> Reply:
        schema = (request.response_format or {}).get("json_schema", {}).get("name")
        if schema == "scene":
            return Reply(content=label)
        if request.response_format is not None:
            return Reply(content='{"events": []}')
        return Reply(content="Noted.")

    return model


@LOOPBACK[0]
@LOOPBACK[1]
async def test_the_model_picks_the_scene_and_its_prompt_is_sent(store_url: str) -> None:
    with ScriptedEndpoint(picking('{"label": "Dividend income"}')) as endpoint:
        app = app_for(platform_settings(store_url, endpoint))
        async with client_of(app) as client:
            _, chat_id = await make(client)
            picked = await context_of(client, chat_id, "Tell me about Coca-Cola.")
            system = next(r for r in endpoint.requests if r.response_format is None)
            endpoint.load(picking("the second one, I think"))  # malformed: no JSON
            fallback = await context_of(client, chat_id, "How deep was its drawdown in 2020?")
            endpoint.load(picking('{"label": "Macro outlook"}'))  # not a listed scene
            unknown = await context_of(client, chat_id, "And the value at risk?")
            endpoint.load(picking('{"label": "none"}'))
            none = await context_of(client, chat_id, "Thanks.")

    assert picked["scene_label"] == "Dividend income" and picked["scene_by"] == "model"
    assert INCOME[1] in system.messages[0]["content"]
    assert fallback["scene_label"] == "Risk review" and fallback["scene_by"] == "words"
    assert unknown["scene_label"] == "Risk review" and unknown["scene_by"] == "words"
    assert none["scene_label"] is None and none["scene_by"] == "model"
