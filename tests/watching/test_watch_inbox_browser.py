"""The watches' inbox in a real Chromium against a live server on loopback: the unread badge
counts the reports and firings, an event opens with its answer and chart and is then read, and
"mark all read" clears the badge; the words follow the page's language. The figure the report
quotes is computed here with pandas from skfolio's shipped prices."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import date
from typing import Any

import pytest
from support.live_server import LOOPBACK, live_server
from support.web_browser import browser, screenshot, web_settings

from datapilot.core.watches import Condition, Schedule, WatchSpec
from datapilot.server.app import create_app
from datapilot.store import Users, open_store
from datapilot.store.watches import Watches, WatchRuns
from datapilot.watching.running import Runner

pytestmark = [*LOOPBACK, pytest.mark.xdist_group("browser"), pytest.mark.browser]
TIMEOUT_MS = 30_000


def apple_2019_last_close() -> str:
    from skfolio.datasets import load_sp500_dataset

    return f"{load_sp500_dataset()['AAPL'].loc['2019'].iloc[-1]:.2f}"


@pytest.fixture(scope="module")
def server(data: object, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    settings = web_settings(tmp_path_factory.mktemp("inbox") / "store.db")
    store = open_store(settings)
    with store.session(write=True) as session:
        user = Users(session).create("local").id  # the loopback page's user: the first one
        report = WatchSpec(
            kind="report",
            text="every Monday, plot Apple's closing price in 2019",
            question="Plot Apple's closing price in 2019",
            schedule=Schedule(kind="weekly", weekday=0),
        )
        alert = WatchSpec(
            kind="alert",
            text="tell me when the S&P 500 falls more than 2% in a day",
            condition=Condition(measure="daily_move", comparator="below", threshold=-2),
        )
        watches = Watches(session, user, settings)
        made = watches.create(report).watch
        fired = watches.create(alert).watch
        WatchRuns(session, settings).record(
            fired.id, kind="alert", day=date(2022, 12, 15), entity="^GSPC", value=-2.49,
            threshold=-2.0,
        )  # fmt: skip
    # The report runs as the scheduler runs it: the pipeline, for its owner.
    # (in a thread of its own: this one may run the tests' event loop)
    with ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, Runner(settings, store).run_report(made)).result()
    with live_server(create_app(settings, warm_up=False)) as base:
        yield base


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    with browser() as launched:
        yield launched


def test_the_inbox_counts_opens_and_reads_events(chromium: Any, server: str) -> None:
    base = server
    context = chromium.new_context(viewport={"width": 1280, "height": 800}, locale="en-US")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(base + "/")
    badge = page.locator("#inbox-badge")
    badge.wait_for(state="visible", timeout=TIMEOUT_MS)
    assert badge.inner_text() == "2"
    items = page.locator("#inbox-list .inbox-item")
    assert items.count() == 2 and page.locator("#inbox-list .inbox-item.unread").count() == 2

    report = page.locator("#inbox-list .inbox-item", has_text="Apple")
    report.locator("button").click()
    dialog = page.locator("#inbox-dialog")
    dialog.wait_for(state="visible", timeout=TIMEOUT_MS)
    assert apple_2019_last_close() in dialog.locator(".inbox-summary").inner_text()
    dialog.locator(".plot .scatterlayer .trace").first.wait_for(timeout=TIMEOUT_MS)
    page.wait_for_function("document.getElementById('inbox-badge').textContent === '1'")
    screenshot(page, "watch-inbox")
    page.locator("#inbox-close").click()
    assert page.locator("#inbox-list .inbox-item.unread").count() == 1

    alert = page.locator("#inbox-list .inbox-item", has_text="S&P 500")
    alert.locator("button").click()
    assert "-2.49%" in dialog.locator(".inbox-summary").inner_text()
    page.locator("#inbox-close").click()
    page.locator("#inbox-badge").wait_for(state="hidden", timeout=TIMEOUT_MS)

    page.locator("#lang-switch").click()
    assert page.locator("#inbox-button [data-i18n=inbox]").inner_text() == "收件箱"
    context.close()
    assert not errors, errors
