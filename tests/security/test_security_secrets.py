"""The server's environment belongs to its operator: a tool source added over the API cannot name
an environment variable as its secret (unless the operator set a prefix aside for that), the
refusal never tells whether the variable exists, and no value reaches the tool's host; a source
added in the server's terminal still may."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from cryptography.fernet import Fernet
from pydantic import SecretStr
from support.live_server import LOOPBACK, live_server
from support.platform_app import app_for, client_of, key_for, platform_settings
from support.plugin_servers import TOKEN, plugin_app

from datapilot.settings import Settings
from datapilot.store import open_store
from datapilot.tools.secrets import AuthIn, AuthStored, SecretsError, reveal, store_auth

pytestmark = LOOPBACK
SERVER_SECRET = "operator-only-value-5d1c"


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[str, Any]]:
    api = plugin_app()
    with live_server(api) as base:
        yield base, api


def settings_for(store_url: str, base: str, **more: Any) -> Settings:
    return platform_settings(store_url).model_copy(
        update={
            "outbound_allow": [base.removeprefix("http://")],
            "secret_key": SecretStr(Fernet.generate_key().decode()),
            **more,
        }
    )


def source(base: str, variable: str) -> dict[str, Any]:
    return {
        "url": f"{base}/research/ai-plugin.json",
        "auth": {"type": "service_http", "secret_env": variable},
    }


async def test_the_api_cannot_read_the_servers_environment(
    store_url: str, server: tuple[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    base, api = server
    monkeypatch.setenv("DATAPILOT_LLM_API_KEY", SERVER_SECRET)
    monkeypatch.setenv("SOME_SERVICE_TOKEN", SERVER_SECRET)
    monkeypatch.delenv("NO_SUCH_VARIABLE_HERE", raising=False)
    settings = settings_for(store_url, base)
    app = app_for(settings)
    key = key_for(open_store(settings), "mallory", "chat,manage")
    refusals = {}
    async with client_of(app, key) as client:
        for variable in (
            "DATAPILOT_LLM_API_KEY",
            "SOME_SERVICE_TOKEN",
            "PATH",
            "NO_SUCH_VARIABLE_HERE",
        ):
            added = await client.post("/api/v1/tools/sources", json=source(base, variable))
            assert added.status_code == 400, added.text
            detail = added.json()["detail"]
            assert "operator" in detail and "secret itself" in detail
            refusals[variable] = detail.replace(variable, "NAME")
        assert (await client.get("/api/v1/tools/sources")).json() == []
    # One refusal, whether the variable exists or not: no oracle.
    assert len(set(refusals.values())) == 1, refusals
    sent = [headers for _, _, headers, _ in api.state.seen]
    assert not any(SERVER_SECRET in str(headers) for headers in sent)


async def test_an_operator_prefix_lets_the_api_name_those_variables_only(
    store_url: str, server: tuple[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    base, api = server
    monkeypatch.setenv("DATAPILOT_TOOL_SECRET_RESEARCH", TOKEN)
    monkeypatch.setenv("DATAPILOT_SECRET_KEY_COPY", SERVER_SECRET)
    settings = settings_for(store_url, base, tool_secret_env_prefix="DATAPILOT_TOOL_SECRET_")
    app = app_for(settings)
    key = key_for(open_store(settings), "ana", "chat,manage")
    async with client_of(app, key) as client:
        outside = await client.post(
            "/api/v1/tools/sources", json=source(base, "DATAPILOT_SECRET_KEY_COPY")
        )
        assert outside.status_code == 400 and "DATAPILOT_TOOL_SECRET_" in outside.json()["detail"]
        added = await client.post(
            "/api/v1/tools/sources", json=source(base, "DATAPILOT_TOOL_SECRET_RESEARCH")
        )
        assert added.status_code == 201, added.text
        assert TOKEN not in added.text
        called = await client.post(
            "/api/v1/tools/Research.getPrices/call", json={"arguments": {"symbol": "ACME"}}
        )
        assert called.status_code == 200, called.text
    assert not any(SERVER_SECRET in str(headers) for _, _, headers, _ in api.state.seen)


def test_a_stored_name_is_checked_again_before_every_call(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A source stored before the rule (or under a prefix since withdrawn) reveals nothing."""
    monkeypatch.setenv("DATAPILOT_SECRET_KEY_COPY", SERVER_SECRET)
    stored = AuthStored(type="service_http", secret_env="DATAPILOT_SECRET_KEY_COPY")
    with pytest.raises(SecretsError) as refused:
        reveal(stored, Settings())
    assert SERVER_SECRET not in str(refused.value) and "operator" in str(refused.value)
    # The terminal is the operator's: any variable may be named there, and is read.
    auth = AuthIn(type="service_http", secret_env="DATAPILOT_SECRET_KEY_COPY")
    with pytest.raises(SecretsError):
        store_auth(auth, Settings())
    by_operator = store_auth(auth, Settings(), operator=True)
    assert reveal(by_operator, Settings()) == SERVER_SECRET
