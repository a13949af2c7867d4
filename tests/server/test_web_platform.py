"""The page's platform pieces in a real Chromium against the real routes on a live server:
a knowledge library (upload from the page, a cited answer), the interpreter (Code mode: confirm,
Run, Edit, Cancel, console output, a figure, the sandbox note), the `python` tool in a chat with a
scripted model, memories and tool sources. One browser and one server for the module.

Expected figures come from the source data (pandas) or from the documents made here."""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from pydantic import SecretStr
from support.live_server import LOOPBACK, live_server
from support.pdf_maker import make_pdf
from support.plugin_servers import plugin_app
from support.web_browser import TODAY, browser, screenshot

from datapilot.model_client.scripted import ChatRequest, Reply, ScriptedEndpoint
from datapilot.server.app import create_app
from datapilot.settings import Settings

pytestmark = [*LOOPBACK, pytest.mark.xdist_group("browser"), pytest.mark.browser]

TIMEOUT_MS = 60_000
REPORT_PAGES = [
    ["Northwind Bank annual report 2022.", "This report covers the bank's results for the year."],
    [
        "Northwind Bank grew net interest income by 14% to $8.3 billion in 2022, as higher "
        "policy rates lifted loan yields faster than deposit costs.",
        "The common equity tier 1 ratio ended the year at 12.7%.",
    ],
]
MSFT_CODE = (
    "m = dp.prices('MSFT', '2021-01-01', '2021-12-31', field='adj_close')['MSFT']\n"
    "print('max', round(float(m.max()), 2))"
)


def coder(request: ChatRequest) -> Reply:
    """The scripted model: writes the code once, then repeats what the sandbox printed."""
    if request.response_format is not None:  # the memory extraction after each turn
        return Reply(content=json.dumps({"events": []}))
    names = [tool.get("function", {}).get("name") for tool in request.tools or []]
    if "python" not in names:  # another assistant: a plain reply
        return Reply(content="Noted.")
    results = [m for m in request.messages if m.get("role") == "tool"]
    if not results or request.messages[-1].get("role") == "user":
        call = {"id": "py1", "name": "python", "arguments": json.dumps({"code": MSFT_CODE})}
        return Reply(tool_calls=[call])
    return Reply(content=f"the sandbox said: {results[-1]['content']}")


@dataclass
class Server:
    base: str
    plugins: str

    def api(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        return httpx.request(method, self.base + path, timeout=60, **kwargs)


@pytest.fixture(scope="module")
def server(data, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:  # type: ignore[no-untyped-def]
    from datapilot.engine.pipeline import warm_up

    with (
        ScriptedEndpoint([Reply(content="hello")]) as endpoint,
        live_server(plugin_app()) as plugins,
    ):
        endpoint.load(coder)
        settings = Settings(
            brain="offline",
            today=TODAY,
            auth_cache_s=0,
            database_url=SecretStr(f"sqlite:///{tmp_path_factory.mktemp('web2') / 'store.db'}"),
            llm_base_url=endpoint.base_url,
            llm_model="scripted",
            llm_timeout_s=60,
            llm_max_retries=0,
            outbound_allow=[plugins.removeprefix("http://")],
            interpreter_timeout_s=60,
        )
        with ThreadPoolExecutor(1) as pool:  # what `datapilot serve` does before it answers
            pool.submit(warm_up, settings).result()
        app = create_app(settings, warm_up=False)
        with live_server(app) as base:
            yield Server(base, plugins)
        sessions = getattr(app.state, "interpreter_sessions", None)
        if sessions is not None:
            sessions.close()


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    with browser() as launched:
        yield launched


@pytest.fixture()
def page(chromium: Any, server: Server) -> Iterator[Any]:
    """A fresh English page; fails the test on any script error."""
    context = chromium.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(server.base + "/")
    yield page
    context.close()
    assert not errors, errors


def send(page: Any, text: str) -> Any:
    """Type `text` into the box and send it; the new turn's locator."""
    count = page.locator(".turn").count()
    page.fill("#question", text)
    page.press("#question", "Enter")
    return page.locator(".turn").nth(count)


def test_a_document_uploaded_from_the_page_answers_with_a_citation(
    page: Any, server: Server, tmp_path: Any
) -> None:
    page.fill("#library-name", "annual-reports")
    page.press("#library-name", "Enter")
    row = page.locator("#library-list li[data-library='annual-reports']")
    row.wait_for()
    pdf = tmp_path / "northwind.pdf"
    pdf.write_bytes(make_pdf(REPORT_PAGES))
    row.locator("input[type=file]").set_input_files(str(pdf))
    page.locator("#library-list li[data-library='annual-reports']", has_text="1 document").wait_for(
        timeout=TIMEOUT_MS
    )
    assert row.locator(".muted.small").inner_text() == "1 document"
    listed = server.api("GET", "/api/v1/libraries/annual-reports/documents").json()
    assert [(d["name"], d["pages"]) for d in listed] == [("northwind.pdf", 2)]

    page.select_option("#library", "annual-reports")
    turn = send(page, "How much did net interest income grow?")
    turn.locator(".citations-box").wait_for(timeout=TIMEOUT_MS)
    # The passage is quoted as a block quote (not markdown marks), and its citation opens it.
    quoted = turn.locator(".summary blockquote").first.inner_text()
    assert "net interest income by 14%" in quoted and not quoted.startswith(">")
    source = turn.locator(".citations-box button", has_text="northwind.pdf, page 2").first
    source.click()
    passage = turn.locator(".citations-box blockquote").first
    assert passage.is_visible() and "net interest income by 14%" in passage.inner_text()
    screenshot(page, "knowledge-cited")


def test_code_mode_confirms_runs_edits_and_cancels_in_the_sandbox(page: Any) -> None:
    page.select_option("#mode", "code")
    assert page.get_attribute("#question", "placeholder").startswith("Python code")
    code = (
        "import matplotlib.pyplot as plt\n"
        "print('total', sum(range(10)))\n"
        "plt.plot([1, 3, 2]); plt.show()"
    )
    asked = send(page, code)
    card = asked.locator(".confirm")
    card.wait_for(timeout=TIMEOUT_MS)
    assert "print('total', sum(range(10)))" in card.inner_text()
    assert page.locator(".console").count() == 0  # nothing ran before Run
    card.get_by_role("button", name="Run").click()
    ran = page.locator(".turn").nth(1)
    ran.locator(".sandbox-note").wait_for(timeout=TIMEOUT_MS)
    assert ran.locator("pre.console").inner_text().strip() == f"total {sum(range(10))}"
    image = ran.locator(".kernel-figure img")
    assert image.count() == 1
    png = base64.b64decode(image.get_attribute("src").split(",", 1)[1])
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert image.evaluate("i => i.naturalWidth") > 100  # a decoded picture, not a broken image
    note = ran.locator(".sandbox-note").inner_text()
    assert re.search(r"Ran in the sandbox \(\w+ isolation; network: .+; files: .+\)", note), note
    assert ran.locator(".error").count() == 0
    ran.locator(".sandbox-note").scroll_into_view_if_needed()
    screenshot(page, "interpreter-run")

    # Edit, then Run: the edited code runs, not the code first sent; variables persist.
    edited = send(page, "print('unused')")
    card = edited.locator(".confirm")
    card.wait_for(timeout=TIMEOUT_MS)
    card.get_by_role("button", name="Edit").click()
    card.locator("textarea").fill(json.dumps({"code": "print('edited', 6 * 7)"}))
    card.get_by_role("button", name="Run").click()
    result = page.locator(".turn").nth(3)
    result.locator(".sandbox-note").wait_for(timeout=TIMEOUT_MS)
    assert result.locator("pre.console").inner_text().strip() == "edited 42"

    # Cancel: the card says so and nothing runs.
    cancelled = send(page, "print('never')")
    card = cancelled.locator(".confirm")
    card.wait_for(timeout=TIMEOUT_MS)
    card.get_by_role("button", name="Cancel").click()
    assert card.inner_text().endswith("Cancelled.") and card.get_by_role("button").count() == 0
    page.wait_for_timeout(300)
    assert page.locator(".turn").count() == 5  # no run turn after the cancelled card
    assert "never" not in "".join(page.locator("pre.console").all_inner_texts())


def test_a_chat_with_the_python_tool_asks_then_runs_and_the_model_reads_the_output(
    page: Any, server: Server
) -> None:
    from skfolio.datasets import load_sp500_dataset

    expected = round(float(load_sp500_dataset()["MSFT"].loc["2021"].max()), 2)
    made = server.api("POST", "/api/v1/assistants", json={"name": "Coder", "tools": ["python"]})
    assert made.status_code == 201, made.text
    page.reload()
    page.select_option("#assistant", label="Coder")
    turn = send(page, "What was MSFT's highest close in 2021?")
    card = turn.locator(".confirm")
    card.wait_for(timeout=TIMEOUT_MS)
    assert "dp.prices('MSFT'" in card.locator(".code-cell").inner_text()
    assert "```" not in card.inner_text()  # the code once, in its cell
    assert turn.locator(".suggestion").count() == 0  # the next step is Run or Cancel
    assert f"max {expected}" not in page.locator("#conversation").inner_text()
    screenshot(page, "chat-python-confirm")
    card.get_by_role("button", name="Run").click()
    reply = page.locator(".turn").nth(1)
    # The reply streams in: wait for the figure itself, not for its first words.
    reply.locator(".summary", has_text=f"max {expected}").wait_for(timeout=TIMEOUT_MS)
    assert "the sandbox said" in reply.locator(".summary").inner_text()
    screenshot(page, "chat-python-ran")


def test_memories_listed_and_deleted_from_the_panel(page: Any, server: Server) -> None:
    send(page, "Remember that I report in euros")
    page.locator(".turn.complete").first.wait_for(timeout=TIMEOUT_MS)
    row = page.locator("#memory-list li", has_text="I report in euros")
    row.wait_for(timeout=TIMEOUT_MS)
    memories = server.api("GET", "/api/v1/memories").json()
    assert [m["text"] for m in memories] == ["I report in euros"]
    screenshot(page, "memories")
    delete = row.get_by_role("button", name=re.compile("^Delete"))
    delete.click()
    delete.click()  # the second press confirms
    page.locator("#memory-list", has_text="Nothing remembered.").wait_for()
    assert server.api("GET", "/api/v1/memories").json() == []


def test_a_tool_source_added_by_url_lists_its_tools(page: Any, server: Server) -> None:
    page.fill("#tool-url", server.plugins + "/research/openapi.json")
    page.click("#tool-form button[type=submit]")
    row = page.locator("#tool-list li", has_text="tools")
    row.first.wait_for(timeout=TIMEOUT_MS)
    sources = server.api("GET", "/api/v1/tools/sources").json()
    assert len(sources) == 1
    source = sources[0]
    text = row.first.inner_text()
    assert source["name"] in text and f"{len(source['tools'])} tools" in text
    assert len(source["tools"]) >= 3  # the research API's operations
    if source["problems"]:  # each problem is counted on the row, its words in the title
        assert f"Problems: {len(source['problems'])}" in text
        shown = row.first.locator("ul.problems li").all_inner_texts()
        assert shown == source["problems"]
    screenshot(page, "tool-sources")
