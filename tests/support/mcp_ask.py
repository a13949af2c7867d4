"""Helpers of the tests of MCP `ask` with the asker's imported tools: an offline app's settings
that reach the loopback services, importing sources as a key's user, and one `ask` call."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cryptography.fernet import Fernet
from mcp import Client
from pydantic import SecretStr

from datapilot.settings import Settings
from support.platform_app import client_of

EUR_QUESTION = "What is the EUR exchange rate per USD?"
JPY_QUESTION = "日元汇率是多少？"
ADD_TODO = "插入待办事项：买牛奶"


def tool_settings(folder: Path, bases: tuple[str, ...]) -> Settings:
    """Offline, no model, a store in `folder`; outbound calls may reach the services `bases`."""
    return Settings(
        brain="offline",
        offline=True,
        auth_cache_s=0,
        database_url=SecretStr(f"sqlite:///{folder / 'store.sqlite3'}"),
        outbound_allow=[base.removeprefix("http://") for base in bases],
        secret_key=SecretStr(Fernet.generate_key().decode()),
    )


async def import_sources(app: Any, key: str | None, urls: list[str]) -> None:
    """Import each URL's tools as the key's user (the local user without a key)."""
    async with client_of(app, key) as client:
        for url in urls:
            added = await client.post("/api/v1/tools/sources", json={"url": url})
            assert added.status_code == 201, added.text


async def ask(client: Client, question: str) -> dict[str, Any]:
    """`ask` over MCP: its structured result."""
    result = await client.call_tool("ask", {"query": question})
    assert not result.is_error, result.content
    return dict(result.structured_content or {})
