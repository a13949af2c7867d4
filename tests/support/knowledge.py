"""Helpers of the knowledge tests: a scripted embeddings/rerank endpoint on loopback, a PDF
with an /Encrypt dictionary, and Office files made in the test."""

from __future__ import annotations

import hashlib
import io
import json
import re
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

DIMENSIONS = 64


def hashed_vector(text: str, dimensions: int = DIMENSIONS) -> list[float]:
    """A bag-of-words vector: each lowercased word adds 1 to a dimension chosen by its hash."""
    vector = [0.0] * dimensions
    for word in re.findall(r"\w+", text.lower()):
        vector[int(hashlib.md5(word.encode()).hexdigest(), 16) % dimensions] += 1.0
    return vector


class ScriptedVectors:
    """`POST /v1/embeddings` (hashed bag-of-words vectors, or `broken` JSON) and
    `POST /v1/rerank` (documents in reverse order), recording every request body."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self.broken = False
        self.dimensions = DIMENSIONS  # change it to play a switch of embeddings model
        self.vectorise: Callable[[str], list[float]] | None = None  # instead of hashed words
        self._server: ThreadingHTTPServer | None = None

    @property
    def base_url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def _reply(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        self.requests.append((path, body))
        if self.broken:
            return {"object": "list", "data": [{"vector": [1, 2]}]}
        if path.endswith("/embeddings"):
            items = body["input"] if isinstance(body["input"], list) else [body["input"]]
            return {
                "object": "list",
                "model": body.get("model"),
                "data": [
                    {
                        "object": "embedding",
                        "index": n,
                        "embedding": (self.vectorise or self._hashed)(text),
                    }
                    for n, text in enumerate(items)
                ],
            }
        count = len(body["documents"])
        return {
            "results": [
                {"index": i, "relevance_score": float(rank)}
                for rank, i in enumerate(range(count))  # the last document scores highest
            ]
        }

    def _hashed(self, text: str) -> list[float]:
        return hashed_vector(text, self.dimensions)

    @contextmanager
    def running(self) -> Iterator[ScriptedVectors]:
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                data = json.dumps(owner._reply(self.path, body)).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        thread.start()
        try:
            yield self
        finally:
            self._server.shutdown()
            self._server.server_close()


def encrypted_pdf() -> bytes:
    """A one-page PDF whose trailer names a Standard security handler with a user password."""
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>",
        b"<< /Filter /Standard /V 1 /R 2 /O <"
        + b"ab" * 32
        + b"> /U <"
        + b"cd" * 32
        + b"> /P -4 >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for offset in offsets:
        out += b"%010d 00000 n \n" % offset
    out += (
        b"trailer\n<< /Size %d /Root 1 0 R /Encrypt 4 0 R /ID [<" % (len(objects) + 1)
        + b"01" * 16
        + b"> <"
        + b"01" * 16
        + b">] >>\nstartxref\n%d\n%%%%EOF\n" % xref
    )
    return bytes(out)


def docx_bytes(heading: str, paragraph: str, rows: list[list[str]]) -> bytes:
    import docx

    document = docx.Document()
    document.add_heading(heading, 1)
    document.add_paragraph(paragraph)
    table = document.add_table(rows=len(rows), cols=len(rows[0]))
    for r, row in enumerate(rows):
        for c, value in enumerate(row):
            table.cell(r, c).text = value
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def xlsx_bytes(sheet: str, rows: list[list[Any]]) -> bytes:
    import openpyxl

    book = openpyxl.Workbook()
    ws = book.active
    assert ws is not None
    ws.title = sheet
    for row in rows:
        ws.append(row)
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


# --- a small library of the test's own notes, answered offline as `ask --library` does -----------


@dataclass(frozen=True)
class NotesLibrary:
    """A library named "notes" holding the test's documents, in a store of its own."""

    store: Any
    owner: str
    settings: Any


def notes_library(data_dir: Path, documents: dict[str, str]) -> NotesLibrary:
    """A store in `data_dir` whose one user has a library "notes" holding `documents`
    (file name → text)."""
    from datapilot.knowledge import Libraries, read_upload
    from datapilot.settings import Settings
    from datapilot.store import open_store
    from datapilot.store.models import User

    settings = Settings(data_dir=data_dir, offline=True)
    store = open_store(settings)
    with store.session(write=True) as session:
        user = User(name="reader")
        session.add(user)
        session.flush()
        owner = user.id
        Libraries(session, owner, settings).create("notes")
    for name, text in documents.items():
        upload = read_upload(settings, name, text.encode())
        with store.session(write=True) as session:
            Libraries(session, owner, settings).add("notes", upload)
    return NotesLibrary(store, owner, settings)


def library_answer(question: str, library: NotesLibrary) -> tuple[str, str]:
    """(status, summary) of the offline library answer, as `ask --library` gives it."""
    import asyncio

    from datapilot.core.context import QuestionContext
    from datapilot.engine.pipeline import final_answer
    from datapilot.knowledge.answering import library_events

    settings = library.settings
    context = QuestionContext(today=settings.effective_today(), brain="offline", offline=True)
    events = library_events(question, library.store, library.owner, "notes", context, settings)
    answer = asyncio.run(final_answer(events))
    return answer.status, answer.summary or ""


def not_mentioned_opening(question: str) -> str:
    """How a library answer says first that its documents do not mention what `question` asks."""
    if any("\u4e00" <= c <= "\u9fff" for c in question):
        return "知识库“notes”的文档中没有提到这一点。"
    return "The documents in the library 'notes' do not mention this."
