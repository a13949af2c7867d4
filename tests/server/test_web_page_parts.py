"""The page in a real Chromium: Code mode is hidden, with the reason and the fix, while the host
cannot isolate code (bubblewrap off the server's PATH) and back once it can; the code reproducing
an answer is collapsed; chats are named after what the first answer resolved, in the question's
language; a model's Markdown renders as lists, bold and tables, never as markup; a table
comparing a few names on several numbers also shows as grouped bars."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from support.live_server import LOOPBACK, live_server
from support.serve_process import replica_dir
from support.web_browser import browser, web_settings

from datapilot.interpreter import isolation
from datapilot.server.app import create_app
from datapilot.settings import Settings

pytestmark = [*LOOPBACK, pytest.mark.xdist_group("browser"), pytest.mark.browser]
TIMEOUT_MS = 30_000


@dataclass
class Server:
    base: str
    settings: Settings

    def api(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        return httpx.request(method, self.base + path, timeout=60, **kwargs)


@pytest.fixture(scope="module")
def server(data, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:  # type: ignore[no-untyped-def]
    from datapilot.engine.pipeline import warm_up

    folder = tmp_path_factory.mktemp("web-parts")
    # A data dir of its own: the page imports a file into it.
    data_dir = replica_dir(folder / "data", Settings().warehouse_path)
    settings = web_settings(folder / "store.db").model_copy(update={"data_dir": data_dir})
    with ThreadPoolExecutor(1) as pool:
        pool.submit(warm_up, settings).result()
    with live_server(create_app(settings, warm_up=False)) as base:
        yield Server(base, settings)


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    with browser() as launched:
        yield launched


def open_page(chromium: Any, server: Server, locale: str = "en-US") -> Any:
    context = chromium.new_context(viewport={"width": 1280, "height": 800}, locale=locale)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(server.base + "/")
    page.errors = errors  # checked by the tests: CSP violations and uncaught errors land here
    return page


def ask(page: Any, question: str) -> Any:
    done = page.locator(".turn.complete").count()
    page.fill("#question", question)
    page.press("#question", "Enter")
    page.locator(".turn.complete").nth(done).wait_for(timeout=TIMEOUT_MS)
    return page.locator(".turn").nth(done)


def test_code_mode_is_hidden_with_the_fix_until_bubblewrap_is_there(
    chromium: Any, server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert shutil.which("bwrap"), "this test hides the machine's bubblewrap"
    before = os.environ["PATH"]
    empty = tmp_path / "bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))  # the server runs in this process: its PATH
    isolation.available_level.cache_clear()
    page = open_page(chromium, server)
    note = page.locator("#code-off")
    note.wait_for(timeout=TIMEOUT_MS)
    assert page.locator("#mode").is_hidden()
    assert "bubblewrap" in note.inner_text() and "install bubblewrap" in note.inner_text()

    monkeypatch.setenv("PATH", before)  # installed: the same server, no restart
    page.reload()
    page.locator("#mode").wait_for(state="visible", timeout=TIMEOUT_MS)
    assert page.locator("#code-off").is_hidden()
    assert page.locator("#mode option[value=code]").count() == 1
    assert not page.errors, page.errors
    page.context.close()


def test_the_reproducing_code_is_collapsed_under_the_chart(chromium: Any, server: Server) -> None:
    page = open_page(chromium, server)
    turn = ask(page, "Plot Apple's closing price in 2019")
    cell = turn.locator("details.code-cell").first
    cell.wait_for(timeout=TIMEOUT_MS)
    assert cell.get_attribute("open") is None
    assert turn.locator(".code-cell pre").first.is_hidden()
    assert turn.locator(".plot").first.is_visible()
    cell.locator("summary").click()  # one click shows it
    assert turn.locator(".code-cell pre").first.is_visible()
    assert "prices" in turn.locator(".code-cell pre").first.inner_text()
    assert not page.errors, page.errors
    page.context.close()


@pytest.mark.parametrize(
    ("locale", "question", "words"),
    [
        ("en-US", "Compare Apple and Microsoft returns in 2021", ["Apple", "Microsoft", "2021"]),
        ("zh-CN", "比较苹果和微软2021年的收益率", ["苹果", "微软", "2021年"]),
    ],
)
def test_a_chat_is_named_after_what_its_first_answer_resolved(
    chromium: Any, server: Server, locale: str, question: str, words: list[str]
) -> None:
    page = open_page(chromium, server, locale)
    ask(page, question)
    # Named by intent: the entities and the window, not the first characters of the question.
    current = page.locator("#chat-list li.current .chat-name")
    page.wait_for_function(
        "q => document.querySelector('#chat-list li.current .chat-name')?.textContent !== q",
        arg=question[:60],
        timeout=TIMEOUT_MS,
    )
    name = current.inner_text()
    assert all(word in name for word in words), name
    assert " · " in name
    chat_id = page.locator("#chat-list li.current").get_attribute("data-chat")
    assert server.api("GET", f"/api/v1/chats/{chat_id}").json()["name"] == name
    # A second question keeps the name; a rename by the user wins.
    ask(page, "And in 2020?" if locale == "en-US" else "2020年呢？")
    assert current.inner_text() == name
    assert not page.errors, page.errors
    page.context.close()


MARKDOWN = (
    "Apple **beat** Microsoft in 2021.\n\n"
    "- Apple: *up* 35%\n- Microsoft: up 51%\n\n"
    "| name | return |\n|---|---|\n| Apple | 35% |\n| Microsoft | 51% |\n\n"
    "<img src=x onerror=\"document.title='pwned'\"> [see](javascript:alert(1)) "
    "[source](https://example.com/report)"
)


def test_a_models_markdown_renders_safely(chromium: Any, server: Server) -> None:
    chat = server.api("POST", "/api/v1/chats", json={"name": "markdown"}).json()
    said = server.api(
        "POST",
        f"/api/v1/chats/{chat['id']}/messages",
        json={"content": "How much did Apple return in 2021?", "stream": False},
    )
    assert said.status_code in (200, 201), said.text
    stored = server.api(
        "POST",
        f"/api/v1/chats/{chat['id']}/messages",
        json={"content": MARKDOWN, "role": "assistant", "stream": False},
    )
    assert stored.status_code in (200, 201), stored.text
    page = open_page(chromium, server)
    page.locator(f"li[data-chat='{chat['id']}'] .chat-name").click()
    page.locator(".turn.complete").first.wait_for(timeout=TIMEOUT_MS)
    summary = page.locator(".turn .summary").last
    assert summary.locator(".lead").inner_text() == "Apple beat Microsoft in 2021."
    assert summary.locator(".lead strong").inner_text() == "beat"
    assert summary.locator("ul li").all_inner_texts() == ["Apple: up 35%", "Microsoft: up 51%"]
    assert summary.locator("ul li em").inner_text() == "up"
    assert summary.locator("table th").all_inner_texts() == ["name", "return"]
    assert summary.locator("table td").all_inner_texts() == ["Apple", "35%", "Microsoft", "51%"]
    text = summary.inner_text()
    assert "**" not in text and "|---|" not in text
    # Markup in the text stays text: no element, no handler, no javascript: link.
    assert summary.locator("img").count() == 0 and "<img src=x" in text
    assert page.title() != "pwned"
    links = summary.locator("a")
    assert links.count() == 1 and links.get_attribute("href") == "https://example.com/report"
    assert links.get_attribute("rel") == "noopener noreferrer"
    assert not page.errors, page.errors
    page.context.close()


def test_a_table_of_several_numbers_per_name_also_shows_grouped_bars(
    chromium: Any, server: Server
) -> None:
    from skfolio.datasets import load_sp500_dataset

    page = open_page(chromium, server)
    turn = ask(page, "Summary statistics of Apple and Microsoft closing prices in 2021")
    plot = turn.locator("figure.table .plot").first
    plot.locator(".barlayer .trace").first.wait_for(timeout=TIMEOUT_MS)
    figure = plot.evaluate(
        "p => ({mode: p.layout.barmode, traces: p.data.map(d => ({name: d.name, x: d.x, y: d.y}))})"
    )
    assert figure["mode"] == "group"
    # One trace per number, named with its unit as the table's header says it.
    traces = {trace["name"].split(" (")[0]: trace for trace in figure["traces"]}
    assert {"mean", "median", "max"} <= set(traces)
    assert traces["mean"]["x"] == ["AAPL", "MSFT"]
    closes = load_sp500_dataset()[["AAPL", "MSFT"]].loc["2021"]
    for shown, expected in zip(traces["mean"]["y"], closes.mean(), strict=True):
        assert shown == pytest.approx(expected, abs=0.01)
    assert not page.errors, page.errors
    page.context.close()


def test_a_file_imported_on_the_page_is_answered_by_the_next_question(
    chromium: Any, server: Server, tmp_path: Path
) -> None:
    from skfolio.datasets import load_sp500_dataset

    prices = load_sp500_dataset()["KO"].loc["2020":"2021"]
    csv = tmp_path / "page-fund.csv"
    prices.rename("close").rename_axis("date").to_frame().to_csv(csv)
    page = open_page(chromium, server)
    panel = page.locator("#panel-data")
    panel.wait_for(timeout=TIMEOUT_MS)
    page.set_input_files("#data-file", str(csv))
    page.select_option("#data-kind", "prices")
    page.fill("#data-id", "PAGEFUND")
    page.fill("#data-name", "Page Fund")
    panel.get_by_role("button", name="Import").click()
    result = page.locator("#data-result")
    result.wait_for(timeout=TIMEOUT_MS)
    page.wait_for_function("() => document.getElementById('data-result').textContent.length > 0")
    assert f"Imported {len(prices)} rows for PAGEFUND" in result.inner_text()
    turn = ask(page, "How did PAGEFUND do in 2021?")
    expected = (prices.loc["2021"].iloc[-1] / prices.loc["2020"].iloc[-1] - 1) * 100
    assert f"{expected:.2f}%" in turn.locator(".summary").first.inner_text()
    assert not page.errors, page.errors
    page.context.close()
