"""The faces that cannot ask (an assistant's OpenBB Workspace agent, `/v1` chat completions)
answering with the assistant's imported tools and no model: the rate the question names comes
from the server (the currency asserted on the service's side), in English and Chinese; a missing
currency is named and nothing is sent; adding a to-do is not sent, and the reply tells the user
how to run it."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from cryptography.fernet import Fernet
from pydantic import SecretStr
from support.live_server import LOOPBACK
from support.openai_face import sdk_for
from support.openbb import sse_events, text_of
from support.platform_app import app_for, client_of, key_for, platform_settings
from support.tool_servers import RATES, todo_and_fx

pytestmark = LOOPBACK

EUR_QUESTION = "What is the EUR exchange rate per USD?"
JPY_QUESTION = "日元汇率是多少？"
ADD_TODO = "插入待办事项：买牛奶"


@pytest.fixture(scope="module")
def servers() -> Iterator[tuple[str, Any, str, Any]]:
    with todo_and_fx() as services:
        yield services


@pytest.fixture()
async def desk(
    store_url: str, servers: tuple[str, Any, str, Any]
) -> AsyncIterator[tuple[Any, str, str]]:
    """An app without a model, a key of its user, and their assistant bound to the imported
    FX operation and the to-do plugin."""
    todo_base, todo, rates_base, rates = servers
    todo.state.todos.clear()
    rates.state.seen.clear()
    settings = platform_settings(store_url).model_copy(
        update={
            "outbound_allow": [b.removeprefix("http://") for b in (todo_base, rates_base)],
            "secret_key": SecretStr(Fernet.generate_key().decode()),
        }
    )
    app = app_for(settings)
    key = key_for(app.state.store, "ana")
    async with client_of(app, key) as client:
        names = []
        for url in (f"{todo_base}/plugins/todo/ai-plugin.json", f"{rates_base}/spec.json"):
            added = await client.post("/api/v1/tools/sources", json={"url": url})
            assert added.status_code == 201, added.text
            names += [t["name"] for t in added.json()["tools"]]
        made = await client.post("/api/v1/assistants", json={"name": "Desk", "tools": names})
        assert made.status_code == 201, made.text
    yield app, key, made.json()["id"]


def _not_run_reply(text: str, todo: Any) -> None:
    """The to-do was not added, and the user (not a model) reads how to add it."""
    assert todo.state.todos == []
    assert "datapilot tools call" in text and "买牛奶" in text
    assert "Tell the user" not in text  # the words meant for a model
    # What the call would do, said as a statement: no one can answer "Run it?" here.
    assert "will POST" in text and "Run it" not in text


async def test_openbb_agent_answers_with_the_assistants_tools(
    desk: tuple[Any, str, str], servers: tuple[str, Any, str, Any]
) -> None:
    app, key, assistant = desk
    _, todo, _, rates = servers

    async def ask(text: str) -> str:
        async with client_of(app, key) as client:
            answered = await client.post(
                f"/assistants/{assistant}/v1/query",
                json={"messages": [{"role": "human", "content": text}]},
            )
        assert answered.status_code == 200, answered.text
        return text_of(sse_events(answered.text))

    english = await ask(EUR_QUESTION)
    assert rates.state.seen == [("/fx", {"currency": "EUR"})]
    assert str(RATES["EUR"]) in english

    chinese = await ask(JPY_QUESTION)
    assert rates.state.seen[-1] == ("/fx", {"currency": "JPY"})
    assert str(RATES["JPY"]) in chinese

    _not_run_reply(await ask(ADD_TODO), todo)


async def test_v1_chat_completion_answers_with_the_assistants_tools(
    desk: tuple[Any, str, str], servers: tuple[str, Any, str, Any]
) -> None:
    app, key, assistant = desk
    _, todo, _, rates = servers
    async for sdk in sdk_for(app, key):
        completion = await sdk.chat.completions.create(
            model=assistant, messages=[{"role": "user", "content": EUR_QUESTION}]
        )
        assert rates.state.seen == [("/fx", {"currency": "EUR"})]
        assert str(RATES["EUR"]) in (completion.choices[0].message.content or "")

        stream = await sdk.chat.completions.create(
            model=assistant, messages=[{"role": "user", "content": JPY_QUESTION}], stream=True
        )
        streamed = "".join(
            [chunk.choices[0].delta.content or "" async for chunk in stream if chunk.choices]
        )
        assert rates.state.seen[-1] == ("/fx", {"currency": "JPY"})
        assert str(RATES["JPY"]) in streamed

        seen = len(rates.state.seen)
        missing = await sdk.chat.completions.create(
            model=assistant, messages=[{"role": "user", "content": "What is the exchange rate?"}]
        )
        assert len(rates.state.seen) == seen  # nothing is sent with an invented currency
        assert "`currency`: one of EUR" in (missing.choices[0].message.content or "")

        added = await sdk.chat.completions.create(
            model=assistant, messages=[{"role": "user", "content": ADD_TODO}]
        )
        _not_run_reply(added.choices[0].message.content or "", todo)


async def test_the_plain_workflow_tries_the_callers_imported_tools(
    desk: tuple[Any, str, str], servers: tuple[str, Any, str, Any]
) -> None:
    """`model="datapilot"` names no assistant: without a model its unanswered questions go to
    the caller's own imported tools, never another user's."""
    app, key, _ = desk
    _, _, _, rates = servers
    async for sdk in sdk_for(app, key):
        completion = await sdk.chat.completions.create(
            model="datapilot", messages=[{"role": "user", "content": EUR_QUESTION}]
        )
        assert rates.state.seen == [("/fx", {"currency": "EUR"})]
        assert str(RATES["EUR"]) in (completion.choices[0].message.content or "")
    stranger = key_for(app.state.store, "bo")
    async for sdk in sdk_for(app, stranger):
        other = await sdk.chat.completions.create(
            model="datapilot", messages=[{"role": "user", "content": EUR_QUESTION}]
        )
        assert len(rates.state.seen) == 1  # bo imported nothing: ana's service is not called
        assert str(RATES["EUR"]) not in (other.choices[0].message.content or "")


async def test_the_workspace_agent_tries_the_callers_imported_tools(
    desk: tuple[Any, str, str], servers: tuple[str, Any, str, Any]
) -> None:
    """The built-in Workspace agent (no assistant named) answers from the caller's own tools
    what its data cannot, and another user's question never reaches them."""
    app, key, _ = desk
    _, _, _, rates = servers
    body = {"messages": [{"role": "human", "content": JPY_QUESTION}]}
    async with client_of(app, key) as client:
        answered = await client.post("/v1/query", json=body)
    assert answered.status_code == 200, answered.text
    assert rates.state.seen == [("/fx", {"currency": "JPY"})]
    assert str(RATES["JPY"]) in text_of(sse_events(answered.text))
    async with client_of(app, key_for(app.state.store, "bo")) as client:
        other = await client.post("/v1/query", json=body)
    assert other.status_code == 200, other.text
    assert len(rates.state.seen) == 1
    assert str(RATES["JPY"]) not in text_of(sse_events(other.text))
