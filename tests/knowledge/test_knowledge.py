"""Knowledge libraries: documents by API and CLI, structure-aware chunks with pages and offsets,
persisted BM25, vectors through a scripted embeddings endpoint, upload limits, answers that cite
their passages, and assistants that read their library. Store-backed tests run on SQLite and
PostgreSQL."""

from __future__ import annotations

import base64
import json
from typing import Any

import pandas as pd
import pytest
from sqlalchemy import func, select
from support import paths
from support.knowledge import ScriptedVectors, docx_bytes, encrypted_pdf, xlsx_bytes
from support.llm import LOOPBACK
from support.pdf_maker import make_pdf
from support.platform_app import app_for, client_of, key_for, lmc_events, platform_settings

from datapilot.knowledge.chunking import parse
from datapilot.store.models import LibraryChunk

pytestmark = LOOPBACK  # the scripted endpoints listen on loopback

REPORT = """# Northwind Bank annual report 2022

Northwind Bank grew net interest income by 14% to $8.3 billion in 2022, as higher policy rates
lifted loan yields faster than deposit costs.

## Capital

The common equity tier 1 ratio ended the year at 12.7%, above the 10.5% regulatory minimum.

## 风险

信用成本上升：不良贷款率从1.1%升至1.4%，主要来自商业地产贷款。
"""
NOTES = "Weather notes\n\nThe harbour froze twice in February; ferries ran late."
PDF_PAGES = [
    ["Treasury overview. The bank holds liquid assets of $41 billion."],
    ["Deposit outflows. Deposits fell 3% in the fourth quarter as clients moved to money funds."],
]


def upload(name: str, data: bytes) -> dict[str, str]:
    return {"name": name, "content_base64": base64.b64encode(data).decode()}


@pytest.fixture()
def app(store_url: str, data, tmp_path):  # type: ignore[no-untyped-def]
    settings = platform_settings(store_url).model_copy(update={"data_dir": tmp_path / "data"})
    return app_for(settings)


async def _library(client: Any, name: str = "research") -> str:
    created = await client.post("/api/v1/libraries", json={"name": name})
    assert created.status_code == 201, created.text
    return str(created.json()["id"])


async def test_documents_are_cut_into_cited_passages_and_searched(app) -> None:  # type: ignore[no-untyped-def]
    alice = key_for(app.state.store, "alice")
    async with client_of(app, alice) as client:
        await _library(client)
        added = [
            await client.post("/api/v1/libraries/research/documents", json=upload(name, data))
            for name, data in [
                ("report.md", REPORT.encode()),
                ("treasury.pdf", make_pdf(PDF_PAGES)),
                ("notes.txt", NOTES.encode()),
            ]
        ]
        listed = (await client.get("/api/v1/libraries/research/documents")).json()
        library = (await client.get("/api/v1/libraries/research")).json()
        capital = await client.post(
            "/api/v1/libraries/research/search", json={"query": "CET1 tier 1 capital ratio"}
        )
        deposits = await client.post(
            "/api/v1/libraries/research/search", json={"query": "Why did deposits fall?", "k": 2}
        )
        chinese = await client.post(
            "/api/v1/libraries/research/search", json={"query": "不良贷款率"}
        )
    assert [a.status_code for a in added] == [201, 201, 201], [a.text for a in added]
    assert [d["name"] for d in listed] == ["report.md", "treasury.pdf", "notes.txt"]
    assert library["documents"] == 3 and listed[1]["pages"] == 2
    best = capital.json()["passages"][0]["citation"]
    # The citation's offsets point at the passage in the file itself.
    assert best["source"] == "report.md" and best["page"] is None
    assert REPORT[best["start"] : best["end"]] == best["text"]
    assert "12.7%" in best["text"]
    cited = deposits.json()["passages"][0]["citation"]
    assert cited["source"] == "treasury.pdf" and cited["page"] == 2
    assert "Deposits fell 3%" in cited["text"]
    found = chinese.json()["passages"][0]["citation"]
    assert REPORT[found["start"] : found["end"]] == found["text"] and "1.4%" in found["text"]
    assert chinese.json()["retrieval"] == "bm25" and chinese.json()["answered"]


async def test_another_user_never_sees_a_library(app) -> None:  # type: ignore[no-untyped-def]
    alice, bob = key_for(app.state.store, "alice"), key_for(app.state.store, "bob")
    async with client_of(app, alice) as client:
        library = await _library(client)
        await client.post(f"/api/v1/libraries/{library}/documents", json=upload("r.md", b"x y z"))
    async with client_of(app, bob) as client:
        answers = [
            await client.get(f"/api/v1/libraries/{library}"),
            await client.get(f"/api/v1/libraries/{library}/documents"),
            await client.post(f"/api/v1/libraries/{library}/search", json={"query": "x"}),
            await client.delete(f"/api/v1/libraries/{library}"),
            await client.post("/api/v1/ask", json={"question": "x y", "library": library}),
        ]
        mine = (await client.get("/api/v1/libraries")).json()
    assert [a.status_code for a in answers[:4]] == [404, 404, 404, 404]
    assert answers[4].json()["status"] == "error" and "no library" in answers[4].json()["message"]
    assert mine == []


def _chunks(app: Any, library: str) -> int:
    with app.state.store.session() as session:
        return int(
            session.scalar(select(func.count()).where(LibraryChunk.library_id == library)) or 0
        )


async def test_uploads_over_a_limit_or_unreadable_are_refused_and_leave_nothing(
    store_url: str, data, tmp_path
) -> None:  # type: ignore[no-untyped-def]
    settings = platform_settings(store_url).model_copy(
        update={
            "data_dir": tmp_path / "data",
            "kb_max_file_mb": 0.05,
            "kb_max_pages": 1,
            "kb_max_documents": 1,
        }
    )
    app = app_for(settings)
    async with client_of(app, key_for(app.state.store, "alice")) as client:
        library = await _library(client)
        path = f"/api/v1/libraries/{library}/documents"
        big = await client.post(path, json=upload("big.txt", b"word " * 20_000))
        pages = await client.post(path, json=upload("two.pdf", make_pdf(PDF_PAGES)))
        locked = await client.post(path, json=upload("locked.pdf", encrypted_pdf()))
        broken = await client.post(path, json=upload("broken.pdf", b"%PDF-1.4\n1 0 obj <<"))
        assert _chunks(app, library) == 0
        assert (await client.get(path)).json() == []
        first = await client.post(path, json=upload("a.md", b"alpha beta"))
        second = await client.post(path, json=upload("b.md", b"gamma delta"))
        listed = (await client.get(path)).json()
    assert big.status_code == 413 and "DATAPILOT_KB_MAX_FILE_MB" in big.json()["detail"]
    assert big.json()["setting"] == "kb_max_file_mb"
    assert pages.status_code == 413 and "DATAPILOT_KB_MAX_PAGES" in pages.json()["detail"]
    assert locked.status_code == 400 and "password" in locked.json()["detail"]
    assert broken.status_code == 400 and "broken.pdf" in broken.json()["detail"]
    assert first.status_code == 201
    assert second.status_code == 413 and "DATAPILOT_KB_MAX_DOCUMENTS" in second.json()["detail"]
    assert [d["name"] for d in listed] == ["a.md"] and _chunks(app, library) == 1


async def test_ask_answers_from_a_library_with_citations_or_says_nothing_answers(app) -> None:  # type: ignore[no-untyped-def]
    async with client_of(app, key_for(app.state.store, "alice")) as client:
        await _library(client)
        await client.post(
            "/api/v1/libraries/research/documents", json=upload("report.md", REPORT.encode())
        )
        answered = await client.post(
            "/api/v1/ask",
            json={"question": "How much did net interest income grow?", "library": "research"},
        )
        unanswered = await client.post(
            "/api/v1/ask",
            json={"question": "Who won the football cup in Brazil?", "library": "research"},
        )
        streamed = await client.post(
            "/api/v1/ask",
            json={"question": "net interest income growth", "library": "research", "stream": True},
        )
    answer = answered.json()
    assert answer["status"] == "ok"
    citation = answer["citations"][0]
    assert citation["source"] == "report.md" and "14%" in citation["text"]
    assert REPORT[citation["start"] : citation["end"]] == citation["text"]
    assert "14%" in answer["summary"] and answer["quotes"][0]["source"] == "report.md"
    assert unanswered.json()["status"] == "no_data" and unanswered.json()["citations"] == []
    chunks = lmc_events(streamed.text)
    cited = [c for c in chunks if c.get("format") == "citations"]
    assert cited and cited[0]["role"] == "assistant" and cited[0]["type"] == "message"
    assert cited[0]["content"][0]["source"] == "report.md"


async def test_the_bm25_index_is_saved_per_version_and_not_rebuilt_per_query(
    app, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    from datapilot.knowledge import index as index_module

    async with client_of(app, key_for(app.state.store, "alice")) as client:
        library = await _library(client)
        path = f"/api/v1/libraries/{library}"
        await client.post(f"{path}/documents", json=upload("report.md", REPORT.encode()))
        await client.post(f"{path}/search", json={"query": "tier 1 ratio"})
        folder = app.state.settings.data_dir / "knowledge" / library
        first = sorted(p.name for p in folder.iterdir())
        # A new process: nothing in memory; the saved index answers without building.
        index_module.CACHE._items.clear()

        def refuse(*args: object, **kwargs: object) -> None:
            raise AssertionError("the index was rebuilt")

        monkeypatch.setattr(index_module.LibraryIndex, "build", refuse)
        again = await client.post(f"{path}/search", json={"query": "tier 1 ratio"})
        monkeypatch.undo()
        added = await client.post(f"{path}/documents", json=upload("n.txt", NOTES.encode()))
        ferries = await client.post(f"{path}/search", json={"query": "ferries ran late"})
        second = sorted(p.name for p in folder.iterdir())
    assert first == ["v1"] and again.json()["passages"][0]["citation"]["source"] == "report.md"
    assert added.status_code == 201
    assert ferries.json()["passages"][0]["citation"]["source"] == "n.txt"
    assert second == ["v2"]  # the stale version is gone


async def test_vectors_from_an_embeddings_endpoint_are_fused_with_bm25_and_reranked(
    store_url: str, data, tmp_path
) -> None:  # type: ignore[no-untyped-def]
    vectors = ScriptedVectors()
    with vectors.running():
        base = platform_settings(store_url).model_copy(
            update={
                "data_dir": tmp_path / "data",
                "embeddings_base_url": vectors.base_url,
                "embeddings_model": "hashed-64",
            }
        )
        app = app_for(base)
        async with client_of(app, key_for(app.state.store, "alice")) as client:
            library = await _library(client)
            path = f"/api/v1/libraries/{library}"
            added = await client.post(f"{path}/documents", json=upload("r.md", REPORT.encode()))
            fused = await client.post(f"{path}/search", json={"query": "tier 1 ratio", "k": 3})
            vectors.broken = True
            refused = await client.post(f"{path}/documents", json=upload("n.txt", NOTES.encode()))
            vectors.broken = False
        reranking = app_for(base.model_copy(update={"rerank_url": f"{vectors.base_url}/rerank"}))
        async with client_of(reranking, key_for(reranking.state.store, "alice")) as client:
            reranked = await client.post(f"{path}/search", json={"query": "tier 1 ratio", "k": 3})
    assert added.status_code == 201
    with app.state.store.session() as session:
        stored = session.scalars(
            select(LibraryChunk.embedding).where(LibraryChunk.library_id == library)
        ).all()
    # Vectors are float32 arrays now (pgvector / BLOB columns), no longer JSON lists.
    assert len(stored) == added.json()["chunks"]
    assert all(v is not None and len(v) == 64 for v in stored)
    embedded = [body for where, body in vectors.requests if where.endswith("/embeddings")]
    assert embedded[0]["model"] == "hashed-64"
    result = fused.json()
    assert result["retrieval"] == "bm25+vectors"
    best = result["passages"][0]
    assert "12.7%" in best["citation"]["text"] and best["bm25_rank"] and best["dense_rank"]
    assert refused.status_code == 502 and "DATAPILOT_EMBEDDINGS_BASE_URL" in refused.text
    assert _chunks(app, library) == len(stored)  # nothing of the refused upload remains
    rr = reranked.json()
    assert rr["retrieval"] == "bm25+vectors+rerank"
    # The scripted reranker puts the last candidate first: the order is the endpoint's.
    assert [p["citation"]["text"] for p in rr["passages"]] != [
        p["citation"]["text"] for p in result["passages"]
    ]


async def test_an_assistant_with_a_library_quotes_and_cites_it_in_its_chat(app) -> None:  # type: ignore[no-untyped-def]
    async with client_of(app, key_for(app.state.store, "alice")) as client:
        await _library(client)
        await client.post(
            "/api/v1/libraries/research/documents", json=upload("report.md", REPORT.encode())
        )
        created = await client.post(
            "/api/v1/assistants", json={"name": "analyst", "library_id": "research"}
        )
        missing = await client.post(
            "/api/v1/assistants", json={"name": "other", "library_id": "nope"}
        )
        assistant = created.json()["id"]
        chat = (await client.post("/api/v1/chats", json={"assistant_id": assistant})).json()["id"]
        reply = await client.post(
            f"/api/v1/chats/{chat}/messages",
            json={"content": "What was the tier 1 capital ratio?", "stream": False},
        )
        messages = (await client.get(f"/api/v1/chats/{chat}/messages")).json()
    assert created.status_code == 201 and created.json()["library_id"]
    assert missing.status_code == 404 and "no library" in missing.text
    body = reply.json()
    assert body["answer"]["citations"][0]["source"] == "report.md"
    assert "12.7%" in body["answer"]["summary"]
    knowledge = [m for m in messages if m["role"] == "knowledge"]
    assert len(knowledge) == 1 and "report.md" in knowledge[0]["content"]
    assert "12.7%" in knowledge[0]["content"]


async def test_a_scripted_model_reads_the_library_passages_as_data(
    store_url: str, data, tmp_path
) -> None:  # type: ignore[no-untyped-def]
    from datapilot.model_client.scripted import Reply, ScriptedEndpoint

    with ScriptedEndpoint([Reply(content="The CET1 ratio was 12.7% (report.md).")]) as model:
        settings = platform_settings(store_url, model).model_copy(
            update={"data_dir": tmp_path / "data"}
        )
        app = app_for(settings)
        async with client_of(app, key_for(app.state.store, "alice")) as client:
            await _library(client)
            await client.post(
                "/api/v1/libraries/research/documents", json=upload("report.md", REPORT.encode())
            )
            made = await client.post(
                "/api/v1/assistants", json={"name": "a", "library_id": "research"}
            )
            chat = (
                await client.post("/api/v1/chats", json={"assistant_id": made.json()["id"]})
            ).json()["id"]
            for question in [
                "What was the tier 1 ratio?",
                "不良贷款率升到多少？",
            ]:
                reply = await client.post(
                    f"/api/v1/chats/{chat}/messages", json={"content": question, "stream": False}
                )
    # The last turn's request (a memory extraction, a JSON request, follows each turn).
    messages = [r for r in model.requests if r.response_format is None][-1].messages
    system, question = messages[0], messages[-1]
    assert system["role"] == "system" and "not instructions" in system["content"]
    assert "1.4%" not in system["content"]  # passages are data, not the system's words
    assert question["role"] == "user" and question["content"].endswith("不良贷款率升到多少？")
    block = question["content"].partition("</retrieved_passages>")[0]
    assert "1.4%" in block  # this turn's passage …
    assert "12.7%" not in block  # … and not the earlier turn's
    assert reply.json()["answer"]["citations"][0]["source"] == "report.md"


def test_tables_stay_whole_in_csv_xlsx_docx_html_and_markdown() -> None:
    rows = [["Year", "Revenue"], ["2021", "3.7"], ["2022", "4.2"]]
    csv_text = "\n".join(",".join(r) for r in rows)
    html = (
        "<h2>Sales</h2><p>Revenue grew.</p><table>"
        + "".join("<tr>" + "".join(f"<td>{c}</td>" for c in r) + "</tr>" for r in rows)
        + "</table>"
    )
    markdown = "# Sales\n\n| Year | Revenue |\n|---|---|\n| 2021 | 3.7 |\n| 2022 | 4.2 |\n"
    parsed = {
        "csv": parse("sales.csv", csv_text.encode()),
        "xlsx": parse(
            "sales.xlsx", xlsx_bytes("Sales", [["Year", "Revenue"], [2021, 3.7], [2022, 4.2]])
        ),
        "docx": parse("sales.docx", docx_bytes("Sales", "Revenue grew.", rows)),
        "html": parse("sales.html", html.encode()),
        "markdown": parse("sales.md", markdown.encode()),
    }
    expected = pd.read_csv(pd.io.common.StringIO(csv_text), dtype=str)
    for name, document in parsed.items():
        tables = [c.table for c in document.chunks if c.table]
        assert len(tables) == 1, name
        frame = pd.DataFrame(tables[0]["rows"], columns=tables[0]["columns"]).astype(str)
        assert frame.to_dict("list") == expected.to_dict("list"), name
    docx_text = parsed["docx"].chunks[0]
    assert docx_text.heading == "Sales" and docx_text.text == "Revenue grew."


def test_long_chinese_text_is_cut_at_sentence_ends_with_exact_offsets() -> None:
    sentence = "银行净息差在利率上升时扩大，但存款成本随后追赶。"
    text = "标题\n\n" + sentence * 80
    document = parse("long.txt", text.encode())
    assert document.chunks[0].text == "标题" and len(document.chunks) > 2
    for chunk in document.chunks[1:]:
        assert text[chunk.start : chunk.end] == chunk.text
        assert chunk.text.endswith("。")
        assert len(chunk.text) <= 1200


def test_kb_commands_and_ask_library_chart_a_table_from_a_document(
    tmp_path, monkeypatch, data
) -> None:  # type: ignore[no-untyped-def]
    from typer.testing import CliRunner

    from datapilot.cli import app as cli
    from datapilot.settings import get_settings

    monkeypatch.setenv("DATAPILOT_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("DATAPILOT_OFFLINE", "1")
    monkeypatch.setenv("DATAPILOT_BRAIN", "offline")
    get_settings.cache_clear()
    sales = tmp_path / "sales.md"
    sales.write_text(
        "# Revenue by year\n\nRevenue kept growing.\n\n| Year | Revenue |\n|---|---|\n"
        "| 2020 | 3.1 |\n| 2021 | 3.7 |\n| 2022 | 4.2 |\n"
    )
    report = tmp_path / "report.md"
    report.write_text(REPORT)
    runner = CliRunner()
    try:
        added = runner.invoke(cli, ["kb", "add", "desk", str(sales), str(report)])
        listed = runner.invoke(cli, ["kb", "list"])
        shown = runner.invoke(cli, ["kb", "show", "desk"])
        asked = runner.invoke(
            cli, ["ask", "What was the tier 1 ratio?", "--library", "desk", "--json"]
        )
        charted = runner.invoke(
            cli, ["ask", "Plot the revenue table by year", "--library", "desk", "--json"]
        )
        gone = runner.invoke(cli, ["kb", "remove", "desk"])
        after = runner.invoke(cli, ["kb", "list"])
    finally:
        get_settings.cache_clear()
    assert added.exit_code == 0, added.output
    assert "sales.md" in added.output and "report.md" in added.output
    assert "desk  (2 documents)" in listed.output
    assert "report.md" in shown.output
    answer = json.loads(asked.output)
    assert answer["status"] == "ok" and answer["citations"][0]["source"] == "report.md"
    chart = json.loads(charted.output)
    assert chart["status"] == "ok", chart
    kinds = [o["kind"] for o in chart["outputs"]]
    assert "chart" in kinds and chart["citations"][0]["source"] == "sales.md"
    table = next(o for o in chart["outputs"] if o["kind"] == "table")
    values = [row for row in json.dumps(table)]  # the table holds the document's numbers
    assert "4.2" in "".join(values) and "3.1" in "".join(values)
    assert gone.exit_code == 0 and "No libraries yet" in after.output


def test_bm25_finds_the_answer_passage_of_the_bench_questions(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The retrieval bench's corpus (≥ 50 questions, English and Chinese) keeps BM25's recall@5
    at or above the 0.85 target offline."""
    import sys

    bench = paths.ROOT / "bench"
    sys.path.insert(0, str(bench))
    try:
        import retrieval
    finally:
        sys.path.remove(str(bench))
    from datapilot.settings import Settings

    questions = json.loads((bench / "retrieval_corpus" / "questions.json").read_text())
    chinese = [q for q in questions if any("\u4e00" <= c <= "\u9fff" for c in q["q"])]
    assert len(questions) >= 50 and 10 <= len(chinese) < len(questions)
    settings = Settings(data_dir=tmp_path / "data", offline=True)
    store, owner = retrieval.build(settings)
    report = retrieval.evaluate(store, owner, settings, "bm25")
    assert report["recall@5"] >= 0.85, report["misses"]
