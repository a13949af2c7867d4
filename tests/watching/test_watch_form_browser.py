"""The page's "New watch" form in a real Chromium against a live server on loopback: a sentence
is checked first and shows what it was understood as; Save makes that watch (listed, in the
store); words not read are the error and nothing can be saved; a watch is paused, resumed and
deleted from its row; the form's words follow the page's language, and a Chinese sentence is
shown as understood in Chinese. The page runs under its strict CSP without a console error."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.live_server import LOOPBACK, live_server
from support.web_browser import browser, screenshot, web_settings

from datapilot.server.app import create_app
from datapilot.settings import Settings
from datapilot.store import Users, open_store
from datapilot.store.watches import Watches

pytestmark = [*LOOPBACK, pytest.mark.xdist_group("browser"), pytest.mark.browser]
TIMEOUT_MS = 30_000
APPLE = "tell me when Apple closes below 150"


@pytest.fixture(scope="module")
def server(data: object, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Any]]:
    settings = web_settings(Path(tmp_path_factory.mktemp("watch-form")) / "store.db")
    store = open_store(settings)
    with store.session(write=True) as session:
        user = Users(session).create("local").id  # the loopback page's user: the first one

    def stored() -> list[tuple[str, str]]:
        with store.session() as session:
            return [(w.text, w.status) for w in Watches(session, user, Settings()).list()]

    with live_server(create_app(settings, warm_up=False)) as base:
        yield base, stored


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    with browser() as launched:
        yield launched


def test_a_watch_is_checked_saved_paused_and_deleted_on_the_page(
    chromium: Any, server: tuple[str, Any]
) -> None:
    base, stored = server
    context = chromium.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(base + "/")
    form = page.locator("#watch-form")
    form.wait_for(state="visible", timeout=TIMEOUT_MS)
    page.locator("#watch-list", has_text="No watches yet.").wait_for(timeout=TIMEOUT_MS)

    # Words not read: named as the error, nothing to save.
    page.locator("#watch-text").fill("alert me when Apple's volatility exceeds 30%")
    page.locator("#watch-preview").click()
    problem = page.locator("#watch-problem")
    problem.wait_for(state="visible", timeout=TIMEOUT_MS)
    assert '"volatility"' in problem.inner_text() and '"exceeds"' in problem.inner_text()
    assert page.locator("#watch-save").is_hidden()

    page.locator("#watch-text").fill(APPLE)
    page.locator("#watch-preview").click()
    understood = page.locator("#watch-understood")
    understood.wait_for(state="visible", timeout=TIMEOUT_MS)
    said = understood.inner_text()
    assert "Apple Inc. (AAPL)" in said and "close below 150" in said and "Kind: alert" in said
    assert problem.is_hidden() and stored() == []  # checked, not saved
    screenshot(page, "watch-form")
    page.locator("#watch-save").click()
    row = page.locator("#watch-list .watch-item", has_text=APPLE)
    row.wait_for(timeout=TIMEOUT_MS)
    assert stored() == [(APPLE, "active")]
    assert page.locator("#watch-text").input_value() == ""

    row.locator(".watch-toggle").click()
    page.locator('#watch-list .watch-item[data-status="paused"]').wait_for(timeout=TIMEOUT_MS)
    assert stored() == [(APPLE, "paused")]
    page.locator("#watch-list .watch-item .watch-toggle", has_text="Resume").click()
    page.locator('#watch-list .watch-item[data-status="active"]').wait_for(timeout=TIMEOUT_MS)
    assert stored() == [(APPLE, "active")]
    delete = page.locator("#watch-list .watch-item button.danger")
    delete.click()
    delete.click()  # the second click confirms
    page.locator("#watch-list", has_text="No watches yet.").wait_for(timeout=TIMEOUT_MS)
    assert stored() == []

    page.locator("#lang-switch").click()
    assert page.locator("label[for=watch-text]").inner_text() == "新建关注"
    page.locator("#watch-text").fill("苹果收盘价跌破150时提醒我")
    page.locator("#watch-preview").click()
    understood.wait_for(state="visible", timeout=TIMEOUT_MS)
    assert "收盘价低于 150" in understood.inner_text() and "理解为" in understood.inner_text()
    page.locator("#watch-save").click()
    page.locator("#watch-saved", has_text="已保存").wait_for(timeout=TIMEOUT_MS)
    assert stored() == [("苹果收盘价跌破150时提醒我", "active")]
    context.close()
    # The refused sentence's 422 is the browser's own log line of that answer, as expected.
    assert [e for e in errors if "status of 422" not in e] == [], errors
