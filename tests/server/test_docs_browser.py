"""`/docs` in a real browser once the server has keys: the page and the document load without a
key and without the internet, and a call tried after Authorize succeeds with the key."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.live_server import LOOPBACK, live_server
from support.web_browser import browser, web_settings

from datapilot.server.app import create_app
from datapilot.store import Keys, open_store

pytestmark = [*LOOPBACK, pytest.mark.xdist_group("browser"), pytest.mark.browser]


@pytest.fixture(scope="module")
def keyed_server(data, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    settings = web_settings(Path(tmp_path_factory.mktemp("docs")) / "store.sqlite3")
    with open_store(settings).session(write=True) as session:
        key = Keys(session).create("docs", "chat").key.get_secret_value()
    with live_server(create_app(settings, warm_up=False)) as url:
        yield url, key


def test_docs_load_offline_and_authorize_makes_calls_work(keyed_server: tuple[str, str]) -> None:
    url, key = keyed_server
    outside: list[str] = []
    with browser() as chromium:
        page: Any = chromium.new_page()  # type: ignore[attr-defined]

        def only_this_server(route: Any) -> None:
            if route.request.url.startswith(url):
                route.continue_()
            else:  # a CDN, or anything else beyond this server
                outside.append(route.request.url)
                route.abort()

        page.route("**/*", only_this_server)
        page.goto(f"{url}/docs")
        page.locator("button.authorize").first.wait_for(timeout=30_000)
        operation = page.locator("[id^='operations-'][id$='features_api_v1_features_get']")
        operation.locator(".opblock-summary").click()
        operation.locator(".try-out__btn").click()
        operation.locator(".execute").click()
        code = f"#{operation.get_attribute('id')} .live-responses-table tbody .response-col_status"

        def answered(expected: str) -> None:
            page.wait_for_function(
                "([s, e]) => document.querySelector(s)?.innerText.trim().startsWith(e)",
                arg=[code, expected],
                timeout=30_000,
            )

        answered("401")  # no key yet
        page.locator("button.authorize").first.click()
        page.locator(".modal-ux input").first.fill(key)
        page.locator(".modal-ux .auth-btn-wrapper .authorize").first.click()
        page.locator(".modal-ux .btn-done").first.click()
        operation.locator(".btn-clear").click()
        operation.locator(".execute").click()
        answered("200")
    assert not outside
