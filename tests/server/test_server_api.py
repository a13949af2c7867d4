"""The native API (Answer JSON and LMC streaming) and the OpenAPI schema, on the real app."""

from __future__ import annotations

import base64
import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from fastapi.routing import APIRoute

from datapilot.core.answer import Answer
from datapilot.server.app import create_app
from datapilot.settings import Settings

RANKING = {
    "question": "Rank Apple, Microsoft, Exxon, Coca-Cola and Walmart by their return in 2021",
    "today": "2022-12-28",
}


@pytest.fixture()
async def client(data) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(Settings(brain="offline", offline=True))
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        yield client


def lmc_chunks(text: str) -> list[dict[str, Any]]:
    lines = text.replace("\r\n", "\n").split("\n")
    return [json.loads(line[len("data:") :]) for line in lines if line.startswith("data:")]


async def test_ask_returns_the_answer_with_numbers_from_the_data(
    client: httpx.AsyncClient,
) -> None:
    from skfolio.datasets import load_sp500_dataset

    response = await client.post("/api/v1/ask", json=RANKING)
    assert response.status_code == 200
    answer = Answer.model_validate(response.json())
    assert answer.status == "ok"
    assert [e.id for e in answer.intent.entities] == ["AAPL", "MSFT", "XOM", "KO", "WMT"]
    (chart,) = [o for o in answer.outputs if o.kind == "chart"]
    returns = dict(chart.spec.rows)
    prices = load_sp500_dataset()[list(returns)]
    expected = (prices.loc["2021-12-31"] / prices.loc["2020-12-31"] - 1) * 100
    assert list(returns) == list(expected.sort_values(ascending=False).index)
    for ticker, value in returns.items():
        assert value == pytest.approx(expected[ticker], abs=1e-3)


async def test_a_streamed_chart_is_a_png_only_when_asked_for(client: httpx.AsyncClient) -> None:
    response = await client.post("/api/v1/ask", json={**RANKING, "stream": True})
    chunks = lmc_chunks(response.text)
    assert [c for c in chunks if c["type"] == "image"] == []
    (figure,) = [c for c in chunks if c.get("format") == "plotly.json"]
    assert figure["content"]["data"][0]["type"] == "bar"


async def test_ask_streams_lmc_chunks_that_match_the_answer(client: httpx.AsyncClient) -> None:
    plain = Answer.model_validate((await client.post("/api/v1/ask", json=RANKING)).json())
    # PNGs are drawn only when asked for (`images`): they cost more than the rest of an answer.
    response = await client.post("/api/v1/ask", json={**RANKING, "stream": True, "images": True})
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/event-stream")
    chunks = lmc_chunks(response.text)

    assert chunks[0] == {"role": "computer", "type": "console", "format": "output",
                         "content": "Reading the question…\n"}  # fmt: skip
    assert chunks[-1] == {"role": "server", "type": "status", "content": "complete"}
    starts = [c for c in chunks if c.get("start")]
    ends = [c for c in chunks if c.get("end")]
    assert len(starts) == len(ends) > 0

    message = "".join(c["content"] for c in chunks if c["type"] == "message" and "content" in c)
    assert message == plain.summary
    (image,) = [c for c in chunks if c["type"] == "image"]
    assert image["format"] == "base64.png"
    assert base64.b64decode(image["content"]).startswith(b"\x89PNG")
    (figure,) = [c for c in chunks if c.get("format") == "plotly.json"]
    assert figure["content"]["data"][0]["type"] == "bar"
    (final,) = [c for c in chunks if c["type"] == "answer"]
    streamed = Answer.model_validate(final["content"])
    assert streamed.model_dump(exclude={"timings_ms"}) == plain.model_dump(exclude={"timings_ms"})


async def test_ask_uses_tables_and_history_it_is_given(client: httpx.AsyncClient) -> None:
    table = {
        "name": "weights",
        "description": "Portfolio weights",
        "columns": ["ticker", "weight"],
        "rows": [["AAPL", 0.5], ["MSFT", 0.3], ["XOM", 0.2]],
    }
    body = {"question": "Plot the data in this table", "tables": [table], "today": "2024-06-30"}
    answer = Answer.model_validate((await client.post("/api/v1/ask", json=body)).json())
    (chart,) = [o for o in answer.outputs if o.kind == "chart"]
    assert sorted(row[-1] for row in chart.spec.rows) == [0.2, 0.3, 0.5]

    follow_up = {
        "question": "now add Microsoft",
        "today": "2022-06-30",
        "history": [
            {"role": "human", "content": "Plot Apple's closing price in 2019"},
            {"role": "ai", "content": "Here it is."},
        ],
    }
    answer = Answer.model_validate((await client.post("/api/v1/ask", json=follow_up)).json())
    assert {e.id for e in answer.intent.entities} == {"AAPL", "MSFT"}


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"question": ""}, "question"),
        ({"question": "hi", "stream": "sometimes"}, "stream"),
        ({"question": "hi", "brian": "offline"}, "brian"),
        ({"question": "hi", "today": "31/12/2020"}, "today"),
        # Found by fuzzing: ragged or ambiguous tables failed inside the run instead.
        ({"question": "0", "tables": [{"name": "t", "columns": [], "rows": [[1]]}]}, "tables"),
        (
            {"question": "hi", "tables": [{"name": "t", "columns": ["x"], "rows": [[1, 2]]}]},
            "tables",
        ),
        (
            {"question": "hi", "tables": [{"name": "t", "columns": ["x", "x"], "rows": []}]},
            "tables",
        ),
    ],
)
async def test_ask_rejects_bad_requests_naming_the_field(
    client: httpx.AsyncClient, body: dict[str, Any], field: str
) -> None:
    response = await client.post("/api/v1/ask", json=body)
    assert response.status_code == 422
    assert [item["field"] for item in response.json()["detail"]] == [field]


async def test_ask_answers_an_undecodable_body_with_a_422(client: httpx.AsyncClient) -> None:
    response = await client.post(
        "/api/v1/ask", content=b"\xff\xfe{", headers={"content-type": "application/json"}
    )
    assert response.status_code == 422
    assert "UTF-8" in response.json()["message"]


async def test_openapi_documents_every_route_with_its_models() -> None:
    app = create_app(Settings())
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as c:
        # The whole API's document moved to /api/openapi.json: /openapi.json is now the
        # published plugin's spec (tests/server/test_publish.py).
        paths = (await c.get("/api/openapi.json")).json()["paths"]
    for route in app.routes:
        if isinstance(route, APIRoute):
            for method in route.methods:
                assert method.lower() in paths[route.path], f"{method} {route.path}"

    def body_ref(path: str) -> str:
        return paths[path]["post"]["requestBody"]["content"]["application/json"]["schema"]["$ref"]

    assert body_ref("/v1/query").endswith("/WorkspaceQuery")
    assert body_ref("/v1/feedback").endswith("/Feedback")
    assert body_ref("/api/v1/ask").endswith("/AskRequest")

    ask = paths["/api/v1/ask"]["post"]["responses"]
    assert ask["200"]["content"]["application/json"]["schema"]["$ref"].endswith("/Answer")
    assert "text/event-stream" in ask["200"]["content"]
    assert ask["422"]["content"]["application/json"]["schema"]["$ref"].endswith(
        "/ValidationProblem"
    )
    assert "text/event-stream" in paths["/v1/query"]["post"]["responses"]["200"]["content"]
    health = paths["/health"]["get"]["responses"]["200"]["content"]["application/json"]
    assert health["schema"]["$ref"].endswith("/Health")
    agents = paths["/agents.json"]["get"]["responses"]["200"]["content"]["application/json"]
    assert agents["schema"]["additionalProperties"]["$ref"].endswith("/AgentDescriptor")
    # Routes without a body never answer 422.
    assert "422" not in paths["/agents.json"]["get"]["responses"]
    assert "422" not in paths["/health"]["get"]["responses"]


async def test_openapi_references_all_resolve_and_sse_events_are_described() -> None:
    app = create_app(Settings())
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as c:
        document = (await c.get("/api/openapi.json")).json()  # moved from /openapi.json

    def refs(node: object) -> list[str]:
        if isinstance(node, dict):
            found = [node["$ref"]] if isinstance(node.get("$ref"), str) else []
            return found + [r for value in node.values() for r in refs(value)]
        if isinstance(node, list):
            return [r for value in node for r in refs(value)]
        return []

    schemas = document["components"]["schemas"]
    for reference in refs(document):
        assert reference.startswith("#/components/schemas/"), reference
        assert reference.rsplit("/", 1)[1] in schemas, reference

    stream = document["paths"]["/api/v1/ask"]["post"]["responses"]["200"]["content"]
    event = stream["text/event-stream"]["schema"]
    assert event["required"] == ["data"]
    chunk = event["properties"]["data"]["contentSchema"]
    assert {"role", "type", "content", "start", "end"} <= set(chunk["properties"])
