"""The Workspace's documents kept in an assistant's library: a PDF sent with a Workspace
request is added once (by content hash), later questions are answered from the library, and
the answer carries OpenBB citations of the library passages. SQLite and PostgreSQL."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from openbb_ai.testing import CopilotResponse
from support.llm import LOOPBACK
from support.openbb import sse_events
from support.pdf_maker import make_pdf
from support.platform_app import app_for, client_of, key_for, platform_settings

pytestmark = LOOPBACK

WIDGET_UUID = "0b6f7a52-3c1d-4e5f-8a9b-0c1d2e3f4a5b"
PDF_WIDGET = {
    "uuid": WIDGET_UUID,
    "origin": "OpenBB API",
    "widget_id": "bank_report",
    "name": "Bank report",
    "description": "A PDF report",
    "params": [],
    "metadata": {"extension": "pdf", "originalFilename": "bank.pdf"},
}
PAGES = [
    ["Treasury overview. The bank holds liquid assets of $41 billion in government bonds."],
    ["Deposit outflows. Deposits fell 3% in the fourth quarter as clients moved to money funds."],
]
OTHER_PAGES = [["Harbour log. The harbour froze twice in February and the ferries ran late."]]


def workspace_request(question: str, pdf: bytes, name: str = "bank.pdf") -> dict[str, Any]:
    """The Workspace's second request, as it sends it: the question, then the PDF widget's data."""
    source = {"widget_uuid": WIDGET_UUID, "origin": "OpenBB API", "id": "bank_report"}
    item = {
        "content": base64.b64encode(pdf).decode(),
        "data_format": {"data_type": "pdf", "filename": name},
    }
    return {
        "messages": [
            {"role": "human", "content": question},
            {
                "role": "tool",
                "function": "get_widget_data",
                "input_arguments": {"data_sources": [{**source, "input_args": {}}]},
                "data": [{"items": [item]}],
            },
        ],
        "widgets": {"primary": [PDF_WIDGET]},
    }


def of(events: list[tuple[str, Any]], name: str) -> list[Any]:
    return [data for event, data in events if event == name]


@pytest.fixture()
def app(store_url: str, data, tmp_path):  # type: ignore[no-untyped-def]
    settings = platform_settings(store_url).model_copy(update={"data_dir": tmp_path / "data"})
    return app_for(settings)


async def test_workspace_pdfs_join_the_assistants_library_once_and_are_cited(app) -> None:  # type: ignore[no-untyped-def]
    pdf = make_pdf(PAGES)
    alice, bob = key_for(app.state.store, "alice"), key_for(app.state.store, "bob")
    async with client_of(app, alice) as client:
        assert (
            await client.post("/api/v1/libraries", json={"name": "research"})
        ).status_code == 201
        made = await client.post(
            "/api/v1/assistants",
            json={"name": "Desk", "library_id": "research", "public": True},
        )
        assistant = made.json()["id"]
        url = f"/assistants/{assistant}/v1/query"
        question = "Why did deposits fall in the fourth quarter?"
        first = await client.post(url, json=workspace_request(question, pdf))
        again = await client.post(url, json=workspace_request(question, pdf))
        # Later, without the PDF: the library answers.
        later = await client.post(
            url, json={"messages": [{"role": "human", "content": "How large are liquid assets?"}]}
        )
        documents = (await client.get("/api/v1/libraries/research/documents")).json()

    assert first.status_code == 200, first.text
    CopilotResponse(first.text)  # the SDK's parser accepts the stream
    events = sse_events(first.text)
    statuses = [s["message"] for s in of(events, "copilotStatusUpdate")]
    assert "Added bank.pdf to the library" in statuses
    text = "".join(d["delta"] for d in of(events, "copilotMessageChunk"))
    assert "money funds" in text
    (collection,) = of(events, "copilotCitationCollection")
    cited = [c for c in collection["citations"] if c["source_info"].get("name") == "bank.pdf"]
    assert cited and cited[0]["details"][0]["Page"] == 2
    assert "money funds" in cited[0]["details"][0]["Quote"]

    again_statuses = [s["message"] for s in of(sse_events(again.text), "copilotStatusUpdate")]
    assert not any("Added" in m for m in again_statuses)  # stored once, by content hash
    assert [(d["name"], d["pages"]) for d in documents] == [("bank.pdf", 2)]

    later_events = sse_events(later.text)
    assert "$41 billion" in "".join(d["delta"] for d in of(later_events, "copilotMessageChunk"))
    (later_cited,) = of(later_events, "copilotCitationCollection")
    pages = [
        c["details"][0].get("Page")
        for c in later_cited["citations"]
        if c["source_info"].get("name") == "bank.pdf"
    ]
    assert 1 in pages

    # Another user cannot reach alice's assistant, so never adds to her library.
    async with client_of(app, bob) as other:
        sent = await other.post(
            url,
            json=workspace_request(
                "When did the harbour freeze?", make_pdf(OTHER_PAGES), "log.pdf"
            ),
        )
        assert sent.status_code == 404
    async with client_of(app, alice) as client:
        after = (await client.get("/api/v1/libraries/research/documents")).json()
    assert [d["name"] for d in after] == ["bank.pdf"]


async def test_an_unreadable_workspace_pdf_is_reported_and_nothing_is_stored(app) -> None:  # type: ignore[no-untyped-def]
    alice = key_for(app.state.store, "alice")
    async with client_of(app, alice) as client:
        await client.post("/api/v1/libraries", json={"name": "research"})
        made = await client.post(
            "/api/v1/assistants", json={"name": "Desk", "library_id": "research"}
        )
        url = f"/assistants/{made.json()['id']}/v1/query"
        broken = b"%PDF-1.7 but nothing else"
        answered = await client.post(url, json=workspace_request("What is in it?", broken))
        documents = (await client.get("/api/v1/libraries/research/documents")).json()
    assert answered.status_code == 200
    statuses = [s["message"] for s in of(sse_events(answered.text), "copilotStatusUpdate")]
    assert any(m.startswith("bank.pdf was not added to the library:") for m in statuses)
    assert documents == []
