"""The review's browser attacks (2026-12, F3 F4 F5) on a keyless `datapilot serve` — the default
install — from a real Chromium: a page whose name was re-pointed at 127.0.0.1 (DNS rebinding,
with Chromium's `--host-resolver-rules` standing in for DNS), and a page of another site that
opens the interpreter's WebSocket and posts a form-shaped request. Before the fix the rebound
page read the chats and trusted a tool, the WebSocket ran code without confirmation, and the
`no-cors` POST trusted a consequential tool."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from support.llm import LOOPBACK
from support.loopback_server import LoopbackServer, loopback_server
from support.serve_process import ServeProcess, replica_dir
from support.web_browser import chromium_path

from datapilot.settings import Settings

pytestmark = [*LOOPBACK, pytest.mark.slow, pytest.mark.browser]

ATTACKER = "attacker.example"
REBOUND = "rebind.example"
TOOL = "Todo_addTodo"  # consequential (a POST): it asks before each call until trusted
TODO_DOCUMENT = {
    "openapi": "3.0.0",
    "info": {"title": "Todo", "version": "1"},
    "servers": [{"url": "http://127.0.0.1:9/api"}],
    "paths": {
        "/todos": {
            "post": {
                "operationId": "addTodo",
                "summary": "Add a to-do item",
                "requestBody": {
                    "content": {
                        "application/json": {
                            "schema": {"type": "object", "properties": {"text": {"type": "string"}}}
                        }
                    }
                },
                "responses": {"200": {"description": "ok"}},
            }
        }
    },
}


@pytest.fixture(scope="module")
def server(data: object, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServeProcess]:
    """A keyless server with a chat and an imported consequential tool of the local user."""
    folder = replica_dir(tmp_path_factory.mktemp("browser-door"), Settings().warehouse_path)
    process = ServeProcess(folder).start()
    try:
        with httpx.Client(base_url=process.url, timeout=60) as client:
            assert client.post("/api/v1/chats", json={"name": "private plans"}).status_code == 201
            source = {"name": "Todo", "document": json.dumps(TODO_DOCUMENT)}
            assert client.post("/api/v1/tools/sources", json=source).status_code == 201
        yield process
    finally:
        process.stop()


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    rules = f"MAP {ATTACKER} 127.0.0.1, MAP {REBOUND} 127.0.0.1"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=chromium_path(),
            args=["--no-sandbox", "--disable-gpu", f"--host-resolver-rules={rules}"],
        )
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture(scope="module")
def attacker() -> Iterator[LoopbackServer]:
    """The other site's server, on loopback as the review's was (so that Chromium's own
    private-network rules, which a real attack can get around, do not hide what the server
    itself allows)."""
    with loopback_server() as site:
        site.files["cats.html"] = ("text/html", b"<p>cat videos</p>")
        yield site


def attacker_page(chromium: Any, site: LoopbackServer) -> Any:
    page = chromium.new_page()
    page.goto(f"http://{ATTACKER}:{site.port}/files/cats.html")
    return page


def trusted(server: ServeProcess) -> bool:
    with httpx.Client(base_url=server.url, timeout=60) as client:
        source = client.get("/api/v1/tools/sources/Todo").json()
    return next(tool["trusted"] for tool in source["tools"] if tool["name"] == TOOL)


def test_a_rebound_name_reads_nothing_and_changes_nothing(
    server: ServeProcess, chromium: Any
) -> None:
    # Once its name points at 127.0.0.1, the page's origin is this server's port under the
    # attacker's name: its script runs there and calls the server as same-origin.
    page = chromium.new_page()
    page.goto(f"http://{REBOUND}:{server.port}/")
    results = page.evaluate(
        """async (tool) => {
            const chats = await fetch("/api/v1/chats");
            const trust = await fetch(`/api/v1/tools/${tool}/trust`, {
                method: "POST", headers: {"Content-Type": "application/json"}, body: "{}"});
            return [chats.status, await chats.text(), trust.status];
        }""",
        TOOL,
    )
    page.close()
    status, body, trust_status = results
    assert (status, trust_status) == (421, 421), results
    assert "private plans" not in body
    assert not trusted(server)


def test_another_site_cannot_drive_the_interpreter_socket(
    server: ServeProcess, chromium: Any, attacker: LoopbackServer
) -> None:
    page = attacker_page(chromium, attacker)
    code = "print('CSWSH', 6 * 7)"
    outcome = page.evaluate(
        """([url, code]) => new Promise((resolve) => {
            const got = {opened: false, frames: []};
            const ws = new WebSocket(url);
            ws.onopen = () => {
                got.opened = true;
                ws.send(JSON.stringify({messages: [
                    {role: "user", type: "code", format: "python", content: code},
                    {role: "user", type: "command", content: "run"}], session: "drive-by"}));
            };
            ws.onmessage = (event) => got.frames.push(event.data);
            ws.onclose = () => resolve(got);
            setTimeout(() => resolve(got), 20000);
        })""",
        [f"ws://127.0.0.1:{server.port}/api/v1/interpreter", code],
    )
    page.close()
    assert outcome == {"opened": False, "frames": []}, outcome


def test_another_site_cannot_trust_a_tool_with_a_simple_post(
    server: ServeProcess, chromium: Any, attacker: LoopbackServer
) -> None:
    page = attacker_page(chromium, attacker)
    page.evaluate(
        """async ([base, tool]) => {
            for (const body of [undefined, "trusted=true"]) {
                try {
                    await fetch(`${base}/api/v1/tools/${tool}/trust`,
                                {method: "POST", mode: "no-cors", body});
                } catch (error) { /* the answer is opaque either way */ }
            }
        }""",
        [server.url, TOOL],
    )
    page.close()
    assert not trusted(server)


def test_the_servers_own_page_still_works(server: ServeProcess, chromium: Any) -> None:
    """The guard lets the chat page's own requests through: it lists the chat made above."""
    page = chromium.new_page()
    page.goto(f"{server.url}/")
    status = page.evaluate(
        """async () => {
            const made = await fetch("/api/v1/chats", {method: "POST",
                headers: {"Content-Type": "application/json"}, body: '{"name": "from the page"}'});
            const listed = await (await fetch("/api/v1/chats")).json();
            return [made.status, listed.map((chat) => chat.name)];
        }"""
    )
    page.close()
    assert status[0] == 201 and "from the page" in status[1], status


def test_another_site_cannot_frame_the_api_page(
    server: ServeProcess, chromium: Any, attacker: LoopbackServer
) -> None:
    """Before (F15): `/docs` rendered inside the other site's frame, its buttons under the
    attacker's page (clickjacking of calls with the key the page keeps)."""
    frame_page = f'<iframe src="{server.url}/docs" width="800" height="600"></iframe>'.encode()
    attacker.files["frame.html"] = ("text/html", frame_page)
    page = chromium.new_page()
    page.goto(f"http://{ATTACKER}:{attacker.port}/files/frame.html")
    page.wait_for_timeout(3000)
    shown = [frame.url for frame in page.frames if "swagger-ui" in _content(frame)]
    page.close()
    assert shown == []


def _content(frame: Any) -> str:
    try:
        return str(frame.content())
    except Exception:  # a frame the browser blocked has no document to read
        return ""
