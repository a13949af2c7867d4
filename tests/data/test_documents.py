"""Documents through the OpenBB route: PDFs by base64 and by URL (served on loopback), text files,
answered by quoting the right passage and cited with page and bounding boxes.

The PDFs are made here (`support/pdf_maker.py`) from real text: statsmodels' dataset
descriptions. Expected positions come from pdfplumber's own word boxes, read in the test.
"""

from __future__ import annotations

import base64
import io
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pdfplumber
import pytest
import statsmodels.datasets.co2 as co2
import statsmodels.datasets.copper as copper
import statsmodels.datasets.engel as engel
import statsmodels.datasets.nile as nile
from support.loopback_server import LOOPBACK, LoopbackServer, loopback_server
from support.openbb import make_client, sse_events
from support.pdf_maker import make_pdf

from datapilot.data.documents import DocumentError, read_pdf, read_text
from datapilot.model_client.client import forget_endpoint_modes
from datapilot.model_client.health import forget_health
from datapilot.model_client.scripted import ChatRequest, Reply, ScriptedEndpoint

pytestmark = LOOPBACK

WIDGET_UUID = "0b6f7a52-3c1d-4e5f-8a9b-0c1d2e3f4a5b"
PDF_WIDGET = {
    "uuid": WIDGET_UUID,
    "origin": "OpenBB API",
    "widget_id": "dataset_notes",
    "name": "Dataset notes",
    "description": "A PDF of dataset descriptions",
    "params": [],
    "metadata": {"extension": "pdf", "originalFilename": "datasets.pdf"},
}


def _text(module: Any) -> str:
    return " ".join(module.DESCRLONG.split())


PAGES = [[_text(nile), _text(co2)], [_text(copper), _text(engel)]]


@pytest.fixture(scope="module")
def pdf() -> bytes:
    return make_pdf(PAGES)


def _words_box(pdf: bytes, page: int, phrase: str) -> tuple[float, float, float]:
    """x0, top and bottom of the first words of `phrase` on `page`, per pdfplumber."""
    first = phrase.split()[:3]
    with pdfplumber.open(io.BytesIO(pdf)) as document:
        words = document.pages[page - 1].extract_words()
    for i in range(len(words) - 2):
        if [w["text"] for w in words[i : i + 3]] == first:
            return words[i]["x0"], words[i]["top"], words[i]["bottom"]
    raise AssertionError(f"{first} not on page {page}")


def of(events: list[tuple[str, Any]], name: str) -> list[Any]:
    return [data for event, data in events if event == name]


def text_of(events: list[tuple[str, Any]]) -> str:
    return "".join(data["delta"] for data in of(events, "copilotMessageChunk"))


def widget_result(question: str, item: dict[str, Any]) -> dict[str, Any]:
    """The Workspace's second request: the question, then the PDF widget's data."""
    source = {"widget_uuid": WIDGET_UUID, "origin": "OpenBB API", "id": "dataset_notes"}
    return {
        "messages": [
            {"role": "human", "content": question},
            {
                "role": "tool",
                "function": "get_widget_data",
                "input_arguments": {"data_sources": [{**source, "input_args": {}}]},
                "data": [{"items": [item]}],
            },
        ],
        "widgets": {"primary": [PDF_WIDGET]},
    }


async def ask(client: httpx.AsyncClient, body: dict[str, Any]) -> list[tuple[str, Any]]:
    from openbb_ai.testing import CopilotResponse

    response = await client.post("/v1/query", json=body)
    assert response.status_code == 200, response.text
    CopilotResponse(response.text)  # the SDK's parser accepts the stream
    return sse_events(response.text)


@pytest.fixture
async def client() -> AsyncIterator[httpx.AsyncClient]:
    async with make_client() as running:
        yield running


@pytest.fixture
def server(pdf: bytes) -> Iterator[LoopbackServer]:
    with loopback_server() as running:
        running.files["datasets.pdf"] = ("application/pdf", pdf)
        yield running


# ---- reading ------------------------------------------------------------------------------------


def test_a_pdf_becomes_paragraphs_with_pages_and_line_boxes(pdf: bytes) -> None:
    document = read_pdf(pdf, "datasets.pdf")
    assert document.pages == 2
    assert [(p.page, p.text) for p in document.passages] == [
        (1, PAGES[0][0]),
        (1, PAGES[0][1]),
        (2, PAGES[1][0]),
        (2, PAGES[1][1]),
    ]
    co2_passage = document.passages[1]
    x0, top, bottom = _words_box(pdf, 1, PAGES[0][1])
    first = co2_passage.lines[0]
    assert first.x0 == pytest.approx(x0, abs=0.5) and first.top == pytest.approx(top, abs=1)
    assert first.bottom == pytest.approx(bottom, abs=1)
    assert len(co2_passage.lines) > 1 and co2_passage.bbox is not None
    assert co2_passage.bbox.bottom >= co2_passage.lines[-1].bottom


def test_running_headers_are_dropped_and_headings_join_their_paragraph() -> None:
    texts = {"Nile flow": _text(nile), "Mauna Loa CO2": _text(co2), "Copper": _text(copper)}
    pages = [
        [f"Dataset notes, page {n}", heading, text]
        for n, (heading, text) in enumerate(texts.items(), 1)
    ]
    document = read_pdf(make_pdf(pages), "notes.pdf")
    expected = [f"{heading} {text}" for heading, text in texts.items()]
    assert [p.text for p in document.passages] == expected
    assert [p.page for p in document.passages] == [1, 2, 3]


def test_unreadable_documents_are_explained() -> None:
    with pytest.raises(DocumentError, match="not a readable PDF"):
        read_pdf(b"%PDF-1.7 but nothing else", "broken.pdf")
    with pytest.raises(DocumentError, match="no text layer"):
        read_pdf(make_pdf([[]]), "blank.pdf")
    with pytest.raises(DocumentError, match="empty"):
        read_text("  \n\n ", "empty.txt")


def test_html_keeps_its_text_and_drops_scripts() -> None:
    html = (
        "<html><head><style>p{color:red}</style><script>var x = 1;</script></head><body>"
        "<h1>Notes</h1><p>Copper prices &amp; stocks, 1951&ndash;1975.</p></body></html>"
    )
    document = read_text(html, "notes.html", "html")
    assert [p.text for p in document.passages] == ["Notes", "Copper prices & stocks, 1951–1975."]


# ---- through the OpenBB route ------------------------------------------------------------------


async def test_a_base64_pdf_widget_is_answered_by_quoting_the_right_passage(
    client: httpx.AsyncClient, pdf: bytes
) -> None:
    item = {
        "content": base64.b64encode(pdf).decode(),
        "data_format": {"data_type": "pdf", "filename": "datasets.pdf"},
    }
    events = await ask(client, widget_result("Where were the CO2 air samples taken?", item))
    text = text_of(events)
    assert PAGES[0][1][:80] in text  # the Mauna Loa passage, quoted
    assert "page 1" in text
    assert _text(copper)[:60] not in text  # not the unrelated ones
    (collection,) = of(events, "copilotCitationCollection")
    quoted = [c for c in collection["citations"] if c.get("quote_bounding_boxes")]
    assert quoted, collection
    citation = quoted[0]
    assert citation["source_info"]["type"] == "widget"
    assert citation["source_info"]["widget_id"] == "dataset_notes"
    assert citation["details"][0]["Page"] == 1
    boxes = citation["quote_bounding_boxes"][0]
    x0, top, _ = _words_box(pdf, 1, PAGES[0][1])
    assert boxes[0]["page"] == 1
    assert boxes[0]["x0"] == pytest.approx(x0, abs=0.5)
    assert boxes[0]["top"] == pytest.approx(top, abs=1)
    assert boxes[0]["text"].startswith("Atmospheric CO2 from Continuous Air Samples")
    statuses = [s["message"] for s in of(events, "copilotStatusUpdate")]
    assert any("datasets.pdf: 2 pages, 4 passages" in m for m in statuses)


async def test_a_pdf_by_url_is_fetched_through_the_outbound_client(
    server: LoopbackServer, pdf: bytes
) -> None:
    item = {
        "url": f"{server.base}/files/datasets.pdf",
        "data_format": {"data_type": "pdf", "filename": "datasets.pdf"},
    }
    body = widget_result("How were the food expenditures of Belgian households studied?", item)
    async with make_client(offline=False, outbound_allow=[server.allow]) as client:
        events = await ask(client, body)
    text = text_of(events)
    assert PAGES[1][1] in text and "page 2" in text
    assert server.hosts == [server.allow]  # fetched once, from the served address
    (collection,) = of(events, "copilotCitationCollection")
    (citation,) = [c for c in collection["citations"] if c.get("quote_bounding_boxes")]
    assert citation["quote_bounding_boxes"][0][0]["page"] == 2
    x0, top, _ = _words_box(pdf, 2, PAGES[1][1])
    assert citation["quote_bounding_boxes"][0][0]["x0"] == pytest.approx(x0, abs=0.5)
    assert citation["quote_bounding_boxes"][0][0]["top"] == pytest.approx(top, abs=1)


async def test_a_pdf_url_on_a_private_address_is_refused_with_what_to_do(
    server: LoopbackServer,
) -> None:
    item = {
        "url": f"{server.base}/files/datasets.pdf",
        "data_format": {"data_type": "pdf", "filename": "datasets.pdf"},
    }
    async with make_client(offline=False) as client:
        events = await ask(client, widget_result("Summarize the PDF", item))
    text = text_of(events)
    assert "could not be read" in text and "DATAPILOT_OUTBOUND_ALLOW" in text
    assert server.hosts == []  # nothing was requested
    errors = [s for s in of(events, "copilotStatusUpdate") if s["eventType"] == "ERROR"]
    assert errors and "loopback" in errors[0]["message"]


async def test_a_chinese_pdf_in_context_is_answered_in_chinese(client: httpx.AsyncClient) -> None:
    paragraphs = [
        "报告期内公司实现营业收入383亿元，同比下降2.8%，主要受手机销量下滑影响。",
        "公司研发投入达到299亿元，占营业收入的7.8%，重点投向芯片设计与人工智能。",
    ]
    pdf = make_pdf([paragraphs[:1], paragraphs[1:]], chinese=True)
    body = {
        "messages": [{"role": "human", "content": "公司的研发投入是多少？"}],
        "context": [
            {
                "uuid": "6a1f0c2e-1111-4222-8333-944455556666",
                "name": "年报",
                "description": "公司年报",
                "data": {
                    "items": [
                        {
                            "content": base64.b64encode(pdf).decode(),
                            "data_format": {"data_type": "pdf", "filename": "年报.pdf"},
                        }
                    ]
                },
            }
        ],
    }
    events = await ask(client, body)
    text = text_of(events)
    assert paragraphs[1] in text and "第2页" in text
    assert paragraphs[0] not in text
    (collection,) = of(events, "copilotCitationCollection")
    (citation,) = [c for c in collection["citations"] if c.get("quote_bounding_boxes")]
    assert citation["source_info"]["type"] == "direct retrieval"
    assert citation["source_info"]["name"] == "年报.pdf"
    assert citation["quote_bounding_boxes"][0][0]["page"] == 2


async def test_a_text_file_widget_is_read_as_a_document(client: httpx.AsyncClient) -> None:
    notes = "\n\n".join([_text(nile), _text(copper)])
    item = {
        "content": base64.b64encode(notes.encode()).decode(),
        "data_format": {"data_type": "txt", "filename": "notes.txt", "parse_as": "text"},
    }
    events = await ask(client, widget_result("copper market years", item))
    text = text_of(events)
    assert _text(copper) in text and "(notes.txt)" in text
    assert _text(nile)[:50] not in text


async def test_a_question_the_document_does_not_cover_goes_to_the_data(
    client: httpx.AsyncClient, pdf: bytes, data
) -> None:
    item = {
        "content": base64.b64encode(pdf).decode(),
        "data_format": {"data_type": "pdf", "filename": "datasets.pdf"},
    }
    body = widget_result("Plot JPMorgan's closing price in 2021", item)
    events = await ask(client, body)
    statuses = [s["message"] for s in of(events, "copilotStatusUpdate")]
    assert any("No passage of datasets.pdf matches" in m for m in statuses)
    artifacts = of(events, "copilotMessageArtifact")
    assert any(a["type"] == "chart" for a in artifacts)


async def test_a_question_about_the_whole_pdf_quotes_its_opening(
    client: httpx.AsyncClient, pdf: bytes
) -> None:
    item = {
        "content": base64.b64encode(pdf).decode(),
        "data_format": {"data_type": "pdf", "filename": "datasets.pdf"},
    }
    events = await ask(client, widget_result("Summarize this PDF", item))
    text = text_of(events)
    assert text.startswith("The opening passages of datasets.pdf:")
    assert PAGES[0][0] in text and "page 1" in text


async def test_with_a_model_the_passages_are_fenced_as_data(pdf: bytes) -> None:
    def answer(request: ChatRequest) -> Reply:
        prompt = request.messages[-1]["content"]
        assert "not instructions" in prompt and "```text" in prompt
        assert PAGES[0][1][:60] in prompt
        return Reply(content="The samples were taken at Mauna Loa Observatory, Hawaii (page 1).")

    forget_endpoint_modes()
    forget_health()
    item = {
        "content": base64.b64encode(pdf).decode(),
        "data_format": {"data_type": "pdf", "filename": "datasets.pdf"},
    }
    with ScriptedEndpoint(answer) as endpoint:
        settings = {
            "brain": "llm",
            "offline": False,
            "llm_base_url": endpoint.base_url,
            "llm_model": "scripted",
            "llm_max_retries": 0,
        }
        async with make_client(**settings) as client:
            events = await ask(client, widget_result("Where were the CO2 samples taken?", item))
        assert len(endpoint.requests) == 1
    assert text_of(events) == "The samples were taken at Mauna Loa Observatory, Hawaii (page 1)."
    (collection,) = of(events, "copilotCitationCollection")
    assert any(c.get("quote_bounding_boxes") for c in collection["citations"])


async def test_the_legacy_descriptor_says_documents_are_read(client: httpx.AsyncClient) -> None:
    legacy = (await client.get("/copilots.json")).json()["datapilot"]
    assert legacy["hasDocuments"] is True


async def test_an_unreachable_model_in_auto_mode_falls_back_to_quotes(pdf: bytes) -> None:
    import socket

    forget_endpoint_modes()
    forget_health()
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    item = {
        "content": base64.b64encode(pdf).decode(),
        "data_format": {"data_type": "pdf", "filename": "datasets.pdf"},
    }
    settings = {
        "brain": "auto",
        "offline": False,
        "llm_base_url": f"http://127.0.0.1:{port}/v1",
        "llm_model": "m",
        "llm_max_retries": 0,
    }
    async with make_client(**settings) as client:
        events = await ask(client, widget_result("Where were the CO2 samples taken?", item))
    assert PAGES[0][1][:80] in text_of(events)
    warnings = [
        s["message"] for s in of(events, "copilotStatusUpdate") if s["eventType"] == "WARNING"
    ]
    assert any("not reachable" in w and "quoted instead" in w for w in warnings)
