"""Credentials never follow a redirect to another origin (scheme, host or port): not the
Authorization, Cookie or Proxy-Authorization headers, not an imported tool's own auth header
(`X-Api-Key`), not a key the caller put in the query string. Two real servers on loopback
ports; the second one must never see the secret."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, RedirectResponse
from support.live_server import LOOPBACK, live_server

from datapilot.net import OutboundPolicy, afetch, fetch
from datapilot.settings import Settings
from datapilot.tools.imported import OpenAPITool
from datapilot.tools.openapi import OperationSpec, Param
from datapilot.tools.secrets import AuthStored

pytestmark = LOOPBACK
SECRET = "s3cr3t-key-5f1e"
SEEN = list[tuple[str, dict[str, str]]]


def recording_app(seen: SEEN) -> FastAPI:
    """Records every request (path with query, headers); `/redirect?to=URL&status=N` redirects."""
    app = FastAPI()

    @app.api_route("/{path:path}", methods=["GET", "POST"])
    async def anything(path: str, request: Request) -> Any:
        seen.append((str(request.url.path) + "?" + request.url.query, dict(request.headers)))
        if path == "redirect":
            status = int(request.query_params.get("status", "302"))
            return RedirectResponse(request.query_params["to"], status_code=status)
        return JSONResponse([{"ok": 1}])

    return app


@pytest.fixture(scope="module")
def servers() -> Iterator[tuple[str, SEEN, str, SEEN]]:
    first: SEEN = []
    second: SEEN = []
    with live_server(recording_app(first)) as a, live_server(recording_app(second)) as b:
        yield a, first, b, second


@pytest.fixture()
def seen(servers: tuple[str, SEEN, str, SEEN]) -> tuple[SEEN, SEEN]:
    servers[1].clear()
    servers[3].clear()
    return servers[1], servers[3]


def _port(base: str) -> str:
    return base.rsplit(":", 1)[1]


def _policy(a: str, b: str) -> OutboundPolicy:
    """Both test servers, by address and as `localhost`."""
    return OutboundPolicy.from_entries(
        [f"127.0.0.1:{_port(a)}", f"127.0.0.1:{_port(b)}", f"localhost:{_port(b)}"]
    )


def _others(a: str, b: str) -> list[str]:
    """The second server as another host (localhost) and as another port of the same host."""
    return [f"http://localhost:{_port(b)}/landing", f"{b}/landing"]


def _carries_secret(record: tuple[str, dict[str, str]]) -> bool:
    path, headers = record
    return SECRET in path or any(SECRET in value for value in headers.values())


async def test_an_imported_tools_auth_header_stays_with_its_origin(
    servers: tuple[str, SEEN, str, SEEN], seen: tuple[SEEN, SEEN], monkeypatch: pytest.MonkeyPatch
) -> None:
    a, _, b, _ = servers
    monkeypatch.setenv("SECURITY_TEST_API_KEY", SECRET)
    spec = OperationSpec(
        name="Quotes_get",
        qualified="Quotes.get",
        operation="get",
        method="GET",
        path="/redirect",
        base_url=a,
        parameters={"type": "object", "properties": {"to": {"type": "string"}}},
        params={"to": Param(location="query", name="to")},
    )
    auth = AuthStored(
        type="service_http",
        scheme="header",
        header="X-Api-Key",
        secret_env="SECURITY_TEST_API_KEY",
        env_named_by_operator=True,  # as a source added in the server's terminal
    )
    tool = OpenAPITool(spec=spec, settings=Settings(), auth=auth, policy=_policy(a, b))
    for target in _others(a, b):
        await tool.call({"to": target})
    first, second = seen
    assert [h.get("x-api-key") for _, h in first] == [SECRET, SECRET]  # the origin asked: yes
    assert len(second) == 2 and not any(_carries_secret(r) for r in second), second


@pytest.mark.parametrize("status", [302, 307])
def test_authorization_cookie_and_proxy_credentials_stay_with_their_origin(
    servers: tuple[str, SEEN, str, SEEN], seen: tuple[SEEN, SEEN], status: int
) -> None:
    a, _, b, _ = servers
    headers = {
        "Authorization": f"Bearer {SECRET}",
        "Cookie": f"session={SECRET}",
        "Proxy-Authorization": f"Basic {SECRET}",
        "X-Api-Key": SECRET,
        "Accept": "application/json",
    }
    for target in _others(a, b):
        params = {"to": target, "status": str(status)}
        response = fetch(f"{a}/redirect", headers=headers, params=params, policy=_policy(a, b))
        assert response.status == 200
    first, second = seen
    assert all(h.get("authorization") == f"Bearer {SECRET}" for _, h in first)
    assert len(second) == 2 and not any(_carries_secret(r) for r in second), second
    # Harmless headers still go along.
    assert all(h.get("accept") == "application/json" for _, h in second)


async def test_a_redirect_within_the_origin_keeps_the_credentials(
    servers: tuple[str, SEEN, str, SEEN], seen: tuple[SEEN, SEEN]
) -> None:
    a, _, b, _ = servers
    response = await afetch(
        f"{a}/redirect",
        headers={"X-Api-Key": SECRET},
        params={"to": "/landing"},
        policy=_policy(a, b),
    )
    assert response.status == 200
    first, _ = seen
    assert [h.get("x-api-key") for _, h in first] == [SECRET, SECRET]


@pytest.mark.parametrize("name", ["api_key", "access_token", "apiKey"])
def test_a_query_string_key_is_not_carried_to_another_origin(
    servers: tuple[str, SEEN, str, SEEN], seen: tuple[SEEN, SEEN], name: str
) -> None:
    # The first server echoes the caller's query into the Location, as redirectors often do.
    a, _, b, _ = servers
    for target in _others(a, b):
        echoed = f"{target}?{name}={SECRET}&symbol=AAPL"
        params = {"to": echoed, name: SECRET}
        assert fetch(f"{a}/redirect", params=params, policy=_policy(a, b)).status == 200
    _, second = seen
    assert len(second) == 2 and not any(_carries_secret(r) for r in second), second
    assert all("symbol=AAPL" in path for path, _ in second)  # the rest of the query stays


async def test_a_query_parameter_named_secret_by_the_caller_stays_with_its_origin(
    servers: tuple[str, SEEN, str, SEEN], seen: tuple[SEEN, SEEN]
) -> None:
    a, _, b, _ = servers
    target = f"http://localhost:{_port(b)}/landing?x={SECRET}"
    response = await afetch(
        f"{a}/redirect",
        params={"to": target, "x": SECRET},
        secret_params={"x"},
        policy=_policy(a, b),
    )
    assert response.status == 200
    _, second = seen
    assert len(second) == 1 and not _carries_secret(second[0]), second
