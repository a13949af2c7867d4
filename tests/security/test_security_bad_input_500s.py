"""Bad input the review found answered with a 500 gets a clear refusal in the API's error shape
instead: a data import named with a NUL byte or a name too long for a file (400), a refused
import's message that named the server's temporary folder (the file's name only now), a library
PDF whose page tree lists itself (400), and a tool's server redirecting to a malformed
`Location` (502, as every upstream failure)."""

from __future__ import annotations

import base64
import json
import tempfile
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi import FastAPI
from support.loopback_server import LOOPBACK, LoopbackServer, loopback_server
from support.platform_app import app_for, client_of, key_for, platform_settings

pytestmark = LOOPBACK


@pytest.fixture(scope="module")
def tool_host() -> Iterator[LoopbackServer]:
    with loopback_server() as server:
        yield server


@pytest.fixture(scope="module")
def app(
    tmp_path_factory: pytest.TempPathFactory,
    tool_host: LoopbackServer,
    data,  # type: ignore[no-untyped-def]
) -> FastAPI:
    url = f"sqlite:///{tmp_path_factory.mktemp('bad-input') / 'store.db'}"
    settings = platform_settings(url).model_copy(update={"outbound_allow": [tool_host.allow]})
    return app_for(settings)


def encoded(data: bytes) -> str:
    return base64.b64encode(data).decode()


def assert_refused(answer: Any, status: int) -> dict[str, Any]:
    """A refusal in the native error shape, naming nothing of the server's folders."""
    assert answer.status_code == status, answer.text
    body: dict[str, Any] = answer.json()
    assert body["message"] and body["code"] and body["detail"] == body["message"], body
    assert tempfile.gettempdir() not in answer.text and "dp-import-" not in answer.text
    return body


TEXT = {"type": "string"}
CSV = b"date,close\n2024-01-02,10.5\n2024-01-03,10.7\n"


async def test_an_import_named_with_a_nul_byte_or_too_long_a_name_is_refused(app: FastAPI) -> None:
    key = key_for(app.state.store, "importer")
    bad_names = {"a\u0000.csv": "control character", "x" * 480 + ".csv": "too long"}
    async with client_of(app, key) as client:
        for name, said in bad_names.items():
            body = {"name": name, "content_base64": encoded(CSV), "kind": "prices"}
            body |= {"entity_id": "ZZTEST"}
            answer = await client.post("/api/v1/data/imports", json=body)
            refused = assert_refused(answer, 400)
            assert said in refused["message"], refused
            assert refused["code"] == "invalid_request", refused


@pytest.mark.parametrize(
    ("name", "content"), [("empty.csv", b"date,close\n"), ("broken.parquet", b"not parquet")]
)
async def test_a_refused_imports_message_names_the_file_not_the_servers_folder(
    app: FastAPI, name: str, content: bytes
) -> None:
    key = key_for(app.state.store, "importer2")
    body = {"name": name, "content_base64": encoded(content), "kind": "prices"}
    async with client_of(app, key) as client:
        answer = await client.post("/api/v1/data/imports", json=body | {"entity_id": "ZZTEST"})
    refused = assert_refused(answer, 400)
    assert refused["message"].startswith(f"{name}: "), refused


def pdf_whose_page_tree_lists_itself() -> bytes:
    """A small PDF whose root page tree (object 2) lists itself among its kids, then a page."""
    text = b"BT /F1 12 Tf 72 720 Td (The loop page holds text.) Tj ET"
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [2 0 R 3 0 R] /Count 2 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n" % len(text) + text + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)


async def test_a_pdf_whose_page_tree_lists_itself_is_refused(app: FastAPI) -> None:
    key = key_for(app.state.store, "librarian")
    async with client_of(app, key) as client:
        await client.post("/api/v1/libraries", json={"name": "loops"})
        pdf = encoded(pdf_whose_page_tree_lists_itself())
        document = {"name": "loop.pdf", "content_base64": pdf}
        answer = await client.post("/api/v1/libraries/loops/documents", json=document)
        refused = assert_refused(answer, 400)
        assert "loop.pdf" in refused["message"], refused
        listed = await client.get("/api/v1/libraries/loops/documents")
    assert listed.json() == []  # nothing half-stored


async def test_a_malformed_redirect_from_a_tools_server_is_a_502(
    app: FastAPI, tool_host: LoopbackServer
) -> None:
    spec = {
        "openapi": "3.0.0",
        "info": {"title": "Redir", "version": "1"},
        "servers": [{"url": tool_host.base}],
        "paths": {
            "/redirect": {
                "get": {
                    "operationId": "quote",
                    "summary": "A quote, from wherever it moved to",
                    "parameters": [{"name": "to", "in": "query", "required": True, "schema": TEXT}],
                    "responses": {"200": {"description": "ok"}},
                }
            }
        },
    }
    key = key_for(app.state.store, "caller")
    async with client_of(app, key) as client:
        added = await client.post("/api/v1/tools/sources", json={"document": json.dumps(spec)})
        assert added.status_code == 201, added.text
        name = added.json()["tools"][0]["name"]
        answer = await client.post(
            f"/api/v1/tools/{name}/call",
            json={"arguments": {"to": "http:localhost:19020/stolen"}},
        )
    refused = assert_refused(answer, 502)
    assert refused["code"] == "upstream_failed", refused
    assert f"{tool_host.base}/redirect" in refused["message"], refused
