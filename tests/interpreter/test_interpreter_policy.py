"""An assistant's `interpreter_auto_run` can only narrow auto-run: its python tool's code runs
unasked only where the server setting AND the caller's key (`run` scope) allow it too. Every
other combination asks first. The same holds for a key bound to an assistant on the
interpreter route."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi import FastAPI
from support.interpreter import scripted_interpreter_app
from support.live_server import LOOPBACK
from support.platform_app import app_for, client_of, key_for, lmc_events, platform_settings

from datapilot.model_client.scripted import ChatRequest, Reply, ScriptedEndpoint
from datapilot.store import Keys

pytestmark = LOOPBACK

CODE = "print('RAN', 6 * 7)"


def coder(request: ChatRequest) -> Reply:
    """Calls python once per question, then repeats what the sandbox printed."""
    if request.response_format is not None:  # the memory extraction after each turn
        return Reply(content=json.dumps({"events": []}))
    if request.messages[-1].get("role") != "tool":
        call = {"id": f"py{len(request.messages)}", "name": "python"}
        return Reply(tool_calls=[{**call, "arguments": json.dumps({"code": CODE})}])
    return Reply(content=f"the sandbox said: {request.messages[-1]['content']}")


@pytest.fixture(scope="module")
def endpoint() -> Iterator[ScriptedEndpoint]:
    with ScriptedEndpoint(coder) as served:
        yield served


@pytest.fixture(scope="module")
def app(
    tmp_path_factory: pytest.TempPathFactory, endpoint: ScriptedEndpoint, data
) -> Iterator[FastAPI]:  # type: ignore[no-untyped-def]
    yield from scripted_interpreter_app(tmp_path_factory, endpoint, "policy")


async def assistant_of(app: FastAPI, key: str, auto_run: bool) -> dict[str, Any]:
    async with client_of(app, key) as client:
        body = {"name": f"coder-{auto_run}", "tools": ["python"], "interpreter_auto_run": auto_run}
        made = await client.post("/api/v1/assistants", json=body)
    if made.status_code == 400:  # made by an earlier case already
        async with client_of(app, key) as client:
            listed = (await client.get("/api/v1/assistants")).json()
        return next(a for a in listed if a["name"] == body["name"])
    assert made.status_code == 201, made.text
    return made.json()


async def chat_turn(app: FastAPI, key: str, assistant_id: str) -> list[dict[str, Any]]:
    async with client_of(app, key) as client:
        chat = (await client.post("/api/v1/chats", json={"assistant_id": assistant_id})).json()
        sent = await client.post(f"/api/v1/chats/{chat['id']}/messages", json={"content": "6x7?"})
    assert sent.status_code == 200, sent.text
    return lmc_events(sent.text)


async def test_only_server_key_and_assistant_together_run_unasked(app) -> None:  # type: ignore[no-untyped-def]
    store = app.state.store
    keys = {True: key_for(store, "dora", "chat,manage,run"), False: key_for(store, "dora")}
    assistants = {flag: (await assistant_of(app, keys[True], flag))["id"] for flag in (True, False)}
    assert assistants[True] != assistants[False]
    settings = app.state.settings
    try:
        for server, scope, policy in itertools.product((True, False), repeat=3):
            app.state.settings = settings.model_copy(update={"interpreter_auto_run": server})
            chunks = await chat_turn(app, keys[scope], assistants[policy])
            asked = [c for c in chunks if c.get("type") == "confirmation"]
            ran = "RAN 42" in json.dumps(chunks)
            case = f"server={server} run-scope={scope} assistant={policy}"
            if server and scope and policy:
                assert ran and not asked, case
            else:
                assert asked and not ran, case
                assert asked[0]["content"]["tool"] == "python", case
    finally:
        app.state.settings = settings


async def test_a_key_bound_to_an_assistant_never_reaches_the_interpreter_route(  # type: ignore[no-untyped-def]
    app,
) -> None:
    """Whatever its assistant's policy, a bound key runs code only through that assistant's
    `python` tool in its chats: the interpreter route answers as no assistant."""
    store = app.state.store
    owner = key_for(store, "erin", "chat,manage,run")
    code = [{"role": "user", "type": "code", "format": "python", "content": CODE}]
    for policy in (False, True):
        assistant = await assistant_of(app, owner, policy)
        with store.session() as session:
            made = Keys(session).create(
                "bound", "chat,run", user="erin", assistant_id=assistant["id"]
            )
            bound = made.key.get_secret_value()
        async with client_of(app, bound) as client:
            response = await client.post("/api/v1/interpreter", json=code)
        assert response.status_code == 403 and response.json()["code"] == "bound_key"
        assert "RAN 42" not in response.text


async def test_the_policy_is_stored_with_the_python_tool(store_url: str) -> None:
    app = app_for(platform_settings(store_url))
    async with client_of(app) as client:
        refused = await client.post(
            "/api/v1/assistants",
            json={"name": "a", "tools": ["ask_data"], "interpreter_auto_run": True},
        )
        assert refused.status_code == 400 and "python" in refused.json()["detail"]
        made = await client.post("/api/v1/assistants", json={"name": "b", "tools": ["python"]})
        assert made.json()["interpreter_auto_run"] is False
        url = f"/api/v1/assistants/{made.json()['id']}"
        patched = await client.patch(url, json={"interpreter_auto_run": True})
        assert patched.status_code == 200 and patched.json()["interpreter_auto_run"] is True
        kept = await client.patch(url, json={"tools": ["python", "ask_data"]})
        assert kept.json()["interpreter_auto_run"] is True
        assert (await client.get(url)).json()["interpreter_auto_run"] is True
        dropped = await client.patch(url, json={"tools": ["ask_data"]})
        assert dropped.json()["interpreter_auto_run"] is False
        back = await client.patch(url, json={"tools": ["python"]})
        assert back.json()["interpreter_auto_run"] is False  # re-adding python does not re-allow
