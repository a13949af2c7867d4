"""What a web page can make a keyless local server do (review 2026-12, F3 F4 F5), in process:
a foreign Host is refused on every route and WebSocket (DNS rebinding), a foreign Origin on
every state-changing request and WebSocket (cross-site requests, WebSocket hijacking), and a
POST that a cross-site form could send is refused whatever its Origin — each before the route
runs, in the API's error shape. The same attacks from a real browser are in
`test_security_browser_attacks.py`."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi import FastAPI
from pydantic import SecretStr
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from datapilot.server.app import create_app
from datapilot.settings import Settings

WORKSPACE = "https://pro.openbb.co"
FOREIGN_HOSTS = [
    "attacker.example",
    "attacker.example:7777",
    "127.0.0.1.nip.example",
    "lo%63alhost",
]
# Reached before the fix through each of these (the review's F3: the chats, the tool sources).
READS = ["/api/v1/chats", "/api/v1/tools/sources", "/api/v1/features", "/health"]


@pytest.fixture()
def app(tmp_path: Path, data: object) -> FastAPI:
    """A keyless server (the default install: loopback clients need no key)."""
    settings = Settings(
        brain="offline",
        offline=True,
        auth_cache_s=0,
        database_url=SecretStr(f"sqlite:///{tmp_path / 'store.db'}"),
    )
    return create_app(settings, warm_up=False)


@pytest.fixture()
def client(app: FastAPI) -> Iterator[TestClient]:
    # TestClient's peer is not an address; the door's loopback rule needs one.
    with TestClient(app, base_url="http://127.0.0.1:7777", client=("127.0.0.1", 50000)) as client:
        yield client


def problem(response: object, status: int, code: str) -> None:
    assert response.status_code == status, response.text  # type: ignore[attr-defined]
    body = response.json()  # type: ignore[attr-defined]
    assert body["code"] == code and body["message"] == body["detail"], body
    assert "DATAPILOT_" in body["message"]  # says what the operator can change


@pytest.mark.parametrize("host", FOREIGN_HOSTS)
@pytest.mark.parametrize("path", READS)
def test_a_foreign_host_is_refused_on_every_route(client: TestClient, host: str, path: str) -> None:
    """Before: 200 with the chats and tool sources (only /mcp checked the Host)."""
    problem(client.get(path, headers={"host": host}), 421, "foreign_host")


@pytest.mark.parametrize(
    "host", ["127.0.0.1:7777", "localhost:7777", "localhost", "[::1]:7777", "10.1.2.3:80"]
)
def test_addresses_and_localhost_are_answered(client: TestClient, host: str) -> None:
    """No DNS name, no rebinding: an address or `localhost` is always this server's name."""
    assert client.get("/api/v1/chats", headers={"host": host}).status_code == 200


def test_an_operator_lists_the_names_the_server_answers_to(tmp_path: Path, data: object) -> None:
    settings = Settings(
        brain="offline",
        offline=True,
        database_url=SecretStr(f"sqlite:///{tmp_path / 's.db'}"),
        allowed_hosts=["data.example.com", "*.corp.example", "box.example:9000"],
        mcp_allowed_hosts=["old.example:*"],  # the older setting's entries still count
    )
    with TestClient(create_app(settings, warm_up=False), client=("127.0.0.1", 1)) as client:
        for host in [
            "data.example.com:7777",
            "a.corp.example",
            "box.example:9000",
            "old.example:1",
        ]:
            assert client.get("/api/v1/chats", headers={"host": host}).status_code == 200, host
        for host in ["box.example:9001", "corp.example.evil", "example.com"]:
            problem(client.get("/api/v1/chats", headers={"host": host}), 421, "foreign_host")


def test_mcp_refuses_a_foreign_host_the_same_way(client: TestClient) -> None:
    headers = {"host": "attacker.example", "accept": "application/json, text/event-stream"}
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    problem(client.post("/mcp", json=body, headers=headers), 421, "foreign_host")


def test_a_foreign_origin_is_refused_before_the_route_runs(client: TestClient) -> None:
    """Before: the trust route ran (a 404 for a tool that does not exist, 200 for one that
    does): the review's F5 trusted a consequential tool this way."""
    response = client.post(
        "/api/v1/tools/Nothing_here/trust", json={}, headers={"origin": "https://attacker.example"}
    )
    problem(response, 403, "foreign_origin")
    # The same request from the server's own page reaches the route: 404, the tool is unknown.
    own = client.post(
        "/api/v1/tools/Nothing_here/trust", json={}, headers={"origin": "http://127.0.0.1:7777"}
    )
    assert own.status_code == 404


@pytest.mark.parametrize(
    "origin", ["null", "http://127.0.0.1:7778.attacker.example", "http://evil"]
)
def test_origins_that_only_look_local_are_foreign(client: TestClient, origin: str) -> None:
    problem(
        client.post("/api/v1/chats", json={}, headers={"origin": origin}), 403, "foreign_origin"
    )


def test_the_workspace_posts_cross_origin_as_before(client: TestClient) -> None:
    body = {"messages": [{"role": "human", "content": "Apple's return in 2021"}]}
    response = client.post("/v1/query", json=body, headers={"origin": WORKSPACE})
    assert response.status_code == 200
    assert response.headers["access-control-allow-origin"] == WORKSPACE


def test_reads_from_a_foreign_origin_still_get_no_cors_grant(client: TestClient) -> None:
    """A GET changes nothing; CORS keeps its answer from the foreign page (no grant header)."""
    response = client.get("/api/v1/chats", headers={"origin": "https://attacker.example"})
    assert response.status_code == 200
    assert "access-control-allow-origin" not in response.headers


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"content-type": "text/plain"},
        {"content-type": "application/x-www-form-urlencoded"},
        {"content-type": "multipart/form-data; boundary=x"},
    ],
    ids=["no body", "text", "form", "multipart"],
)
def test_a_post_a_form_could_send_is_refused(client: TestClient, headers: dict[str, str]) -> None:
    """Before: a body-less POST trusted a tool (`TrustIn | None` defaults to trusted)."""
    response = client.post("/api/v1/chats", content=b"" if not headers else b"x=1", headers=headers)
    problem_body = response.json()
    assert response.status_code == 415 and problem_body["code"] == "json_required"
    assert "application/json" in problem_body["message"]
    assert client.get("/api/v1/chats").json() == []  # nothing was made


def test_json_or_a_script_only_header_passes(client: TestClient) -> None:
    assert client.post("/api/v1/chats", json={}).status_code == 201
    # A body-less POST from a script reaches its route: 404, no such tool.
    scripted = client.post("/api/v1/tools/Nothing_here/trust", headers={"x-requested-with": "x"})
    assert scripted.status_code == 404


@pytest.mark.parametrize(
    "headers",
    [{"origin": "https://attacker.example"}, {"host": "rebind.example:7777"}],
    ids=["foreign origin", "foreign host"],
)
def test_the_interpreter_socket_refuses_another_sites_page(
    client: TestClient, headers: dict[str, str]
) -> None:
    """Before: the handshake was accepted and the code ran without confirmation (F4), also
    under a rebound name (F3)."""
    with (
        pytest.raises(WebSocketDisconnect) as refused,
        client.websocket_connect("/api/v1/interpreter", headers=headers) as socket,
    ):
        socket.receive_text()
    assert refused.value.code == 1008


def test_the_page_and_programs_still_reach_the_socket(client: TestClient) -> None:
    """The server's own page (same origin) and a program (no Origin) connect; a malformed
    frame is answered, not dropped."""
    for headers in ({"origin": "http://127.0.0.1:7777"}, {}):
        with client.websocket_connect("/api/v1/interpreter", headers=headers) as socket:
            socket.send_text("not json")
            assert "error" in socket.receive_text().lower()
