"""Asking questions over a client's report table through `/api/v1/ask` of an offline server,
as the report-table tests do."""

from __future__ import annotations

import contextlib
import re
from collections.abc import AsyncIterator
from typing import Any

import httpx

from datapilot.core.answer import Answer
from datapilot.server.app import create_app
from datapilot.settings import Settings


@contextlib.asynccontextmanager
async def offline_api() -> AsyncIterator[httpx.AsyncClient]:
    """A client of an offline server's app, in process."""
    app = create_app(Settings(brain="offline", offline=True))
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as client:
        yield client


async def ask_table(client: httpx.AsyncClient, question: str, table: dict[str, Any]) -> Answer:
    """The answer to `question` over the one client table `table`."""
    body = {"question": question, "tables": [table], "today": "2024-06-30"}
    response = await client.post("/api/v1/ask", json=body)
    assert response.status_code == 200, response.text
    return Answer.model_validate(response.json())


def first_sentence(summary: str) -> str:
    return re.split(r"(?<=[.。])\s", summary.strip(), maxsplit=1)[0]
