"""A key without the scope a route needs is refused with the command that makes one that has
it, complete (`keys create` requires `--name`), in the native family's shape."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.platform_app import client_of, platform_settings

from datapilot.server.app import create_app
from datapilot.store import Keys, open_store


@pytest.mark.asyncio
async def test_a_missing_scope_hint_is_a_command_that_runs(tmp_path: Path) -> None:
    settings = platform_settings(f"sqlite:///{tmp_path / 'store.db'}")
    store = open_store(settings)
    with store.session() as session:
        chat_key = Keys(session).create("reader", "chat").key.get_secret_value()
    app = create_app(settings, warm_up=False)
    async with client_of(app, chat_key) as client:
        reply = await client.post(
            "/api/v1/data/imports",
            json={"name": "x.csv", "content_base64": "eA==", "kind": "prices"},
        )
    assert reply.status_code == 403
    body = reply.json()
    assert set(body) == {"message", "code", "detail"}
    assert "`datapilot keys create --name NAME --scopes manage`" in body["message"]
