"""The API's documents and discovery: `/docs` works in a browser once keys exist and offline (its
files come from this server), the document declares bearer keys, the plugin manifest fits what
hosts show, and static files go out compressed with cache headers."""

from __future__ import annotations

import gzip
import re
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import plotly
import pytest
from fastapi import FastAPI
from pydantic import SecretStr
from typer.testing import CliRunner

from datapilot.server.app import create_app
from datapilot.settings import Settings, get_settings
from datapilot.store import Keys, open_store


def _settings(tmp_path: Path, **values: object) -> Settings:
    database = SecretStr(f"sqlite:///{tmp_path / 'store.sqlite3'}")
    return Settings(brain="offline", offline=True, database_url=database, **values)  # type: ignore[arg-type]


@pytest.fixture()
def keyed(tmp_path: Path, data) -> tuple[FastAPI, str]:  # type: ignore[no-untyped-def]
    """An app whose store holds a chat key (so every call needs one)."""
    settings = _settings(tmp_path)
    with open_store(settings).session(write=True) as session:
        key = Keys(session).create("docs", "chat").key.get_secret_value()
    return create_app(settings, warm_up=False), key


@pytest.fixture()
async def client(keyed: tuple[FastAPI, str]) -> AsyncIterator[httpx.AsyncClient]:
    # Not loopback: the docs must load for a browser elsewhere too.
    transport = httpx.ASGITransport(app=keyed[0], client=("203.0.113.9", 50000))
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        yield client


async def test_docs_page_loads_without_a_key_from_local_files(
    client: httpx.AsyncClient, keyed: tuple[FastAPI, str]
) -> None:
    page = await client.get("/docs")
    assert page.status_code == 200 and "SwaggerUIBundle" in page.text
    urls = re.findall(r"""(?:src|href)=["']([^"']+)["']""", page.text)
    urls += re.findall(r"""url: ?["']([^"']+)["']""", page.text)
    assert urls and all(url.startswith("/") for url in urls), urls  # nothing from a CDN
    for url in urls:
        asset = await client.get(url, headers={"accept-encoding": "gzip"})
        assert asset.status_code == 200, url
    script = next(url for url in urls if url.endswith("swagger-ui-bundle.js"))
    bundle = await client.get(script, headers={"accept-encoding": "gzip"})
    assert bundle.headers["content-encoding"] == "gzip"
    assert "max-age=31536000" in bundle.headers["cache-control"]
    # What the Authorize button does: the same calls with the key succeed, without it they don't.
    key = keyed[1]
    assert (await client.get("/api/v1/features")).status_code == 401
    authorized = await client.get("/api/v1/features", headers={"Authorization": f"Bearer {key}"})
    assert authorized.status_code == 200


async def test_the_api_document_declares_bearer_keys(client: httpx.AsyncClient) -> None:
    document = (await client.get("/api/openapi.json")).json()
    assert document["components"]["securitySchemes"]["bearer"]["scheme"] == "bearer"
    assert document["security"] == [{"bearer": []}]
    # Public operations say that they need none; keyed ones inherit the document's.
    assert document["paths"]["/health"]["get"]["security"] == []
    assert "security" not in document["paths"]["/api/v1/ask"]["post"]


async def test_manifest_fits_plugin_hosts(tmp_path: Path, data) -> None:  # type: ignore[no-untyped-def]
    default = create_app(_settings(tmp_path), warm_up=False)
    own_terms = create_app(
        _settings(tmp_path, plugin_legal_url="https://example.org/terms"), warm_up=False
    )
    transport = httpx.ASGITransport(app=default)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        manifest = (await client.get("/.well-known/ai-plugin.json")).json()
        legal = await client.get(manifest["legal_info_url"])
    transport = httpx.ASGITransport(app=own_terms)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        theirs = (await client.get("/.well-known/ai-plugin.json")).json()
    assert len(manifest["description_for_human"]) <= 100
    assert manifest["legal_info_url"] == "http://testserver/legal"
    assert legal.status_code == 200 and "not investment advice" in legal.text
    assert theirs["legal_info_url"] == "https://example.org/terms"


def test_serve_warns_while_the_contact_email_is_empty(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from datapilot.cli import app

    started: list[str] = []
    monkeypatch.setattr("datapilot.commands.serve._run", lambda config: started.append(config.app))
    monkeypatch.setenv("DATAPILOT_DATABASE_URL", f"sqlite:///{tmp_path / 'serve.sqlite3'}")
    outputs = []
    for email in ("", "data@example.org"):
        monkeypatch.setenv("DATAPILOT_PLUGIN_CONTACT_EMAIL", email)
        get_settings.cache_clear()
        try:
            outputs.append(CliRunner().invoke(app, ["serve", "--port", "1"]).output)
        finally:
            get_settings.cache_clear()
    assert len(started) == 2  # the server starts either way
    assert "DATAPILOT_PLUGIN_CONTACT_EMAIL" in outputs[0]
    assert "DATAPILOT_PLUGIN_CONTACT_EMAIL" not in outputs[1]


async def test_plotly_goes_out_compressed_and_cached(client: httpx.AsyncClient) -> None:
    source = (Path(plotly.__file__).parent / "package_data" / "plotly.min.js").read_bytes()
    async with client.stream(
        "GET", "/web/vendor/plotly.min.js", headers={"accept-encoding": "gzip"}
    ) as response:
        wire = b"".join([chunk async for chunk in response.aiter_raw()])
    assert response.headers["content-encoding"] == "gzip"
    assert gzip.decompress(wire) == source
    assert len(wire) < len(source) / 2
    max_age = int(re.search(r"max-age=(\d+)", response.headers["cache-control"])[1])  # type: ignore[index]
    assert max_age >= 30 * 24 * 3600
    again = await client.get(
        "/web/vendor/plotly.min.js", headers={"if-none-match": response.headers["etag"]}
    )
    assert again.status_code == 304 and not again.content
    # A client that takes no gzip gets the file as it is.
    plain = await client.get("/web/vendor/plotly.min.js", headers={"accept-encoding": "identity"})
    assert "content-encoding" not in plain.headers and plain.content == source
    module = await client.get("/web/static/app.js", headers={"accept-encoding": "gzip"})
    assert module.headers["content-encoding"] == "gzip" and module.headers["etag"]
