"""Decompression bombs and other documents too costly to read: refused within seconds with a
413 (or the CLI's error) naming the limit and its setting, memory bounded while refusing, and
nothing of the document left in the store."""

from __future__ import annotations

import base64
import io
import re
import time
import tracemalloc
import uuid
import zipfile
import zlib
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select
from support.knowledge import docx_bytes, xlsx_bytes
from support.pdf_maker import make_pdf
from support.platform_app import app_for, client_of, key_for, platform_settings

from datapilot.knowledge.chunking import parse
from datapilot.store.models import File, LibraryChunk, LibraryDocument

INFLATED_MB = 200  # what each bomb expands to; each is a few hundred KB on disk
SECONDS = 15.0  # generous for a loaded CI machine: the refusal itself takes well under one


def _pdf(content: bytes, filters: str = "", pages: int = 1) -> bytes:
    """A PDF whose page draws `content` (its stream's bytes, under `filters`); with `pages`,
    that many pages drawing the same stream."""
    stream = b"<< /Length %d %s >>\nstream\n" % (len(content), filters.encode())
    page = (
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>"
    )
    kids = b" ".join([b"3 0 R", *(b"%d 0 R" % (6 + n) for n in range(pages - 1))])
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, pages),
        page,
        stream + content + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        *[page] * (pages - 1),
    ]
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n%s\nendobj\n" % (number, body))
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    out.writelines(b"%010d 00000 n \n" % offset for offset in offsets)
    out.write(b"trailer\n<< /Size %d /Root 1 0 R >>\n" % (len(objects) + 1))
    out.write(b"startxref\n%d\n%%%%EOF\n" % xref)
    return out.getvalue()


def _megabytes_of(unit: bytes, megabytes: int) -> Iterator[bytes]:
    """About 1 MB of `unit` repeated, `megabytes` times over, made as they are read."""
    block = unit * (1_000_000 // len(unit))
    for _ in range(megabytes):
        yield block


@cache
def pdf_bomb() -> bytes:
    """Text on a page, then a FlateDecode content stream that inflates to INFLATED_MB."""
    packer = zlib.compressobj(9)
    parts = [packer.compress(b"BT /F1 12 Tf 72 700 Td (Quarterly revenue grew) Tj ET\n")]
    parts += [packer.compress(block) for block in _megabytes_of(b" ", INFLATED_MB)]
    return _pdf(b"".join([*parts, packer.flush()]), "/Filter /FlateDecode")


def _office_bomb(base: bytes, part: str, marker: bytes, unit: bytes) -> bytes:
    """`base` (a real XLSX/DOCX) with `unit` repeated INFLATED_MB over in `part`, at `marker`."""
    source = zipfile.ZipFile(io.BytesIO(base))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as bomb:
        for info in source.infolist():
            xml = source.read(info)
            if info.filename != part:
                bomb.writestr(info.filename, xml)
                continue
            head, tail = xml.split(marker, 1)
            head = re.sub(rb"<dimension [^>]*/>", b"", head)  # it would stop openpyxl early
            with bomb.open(part, "w") as member:
                member.write(head)
                for block in _megabytes_of(unit, INFLATED_MB):
                    member.write(block)
                member.write(marker + tail)
    return out.getvalue()


@cache
def xlsx_bomb() -> bytes:
    base = xlsx_bytes("Data", [["year", "revenue"], [2021, 3.7]])
    return _office_bomb(
        base, "xl/worksheets/sheet1.xml", b"</sheetData>", b'<row><c t="n"><v>1</v></c></row>'
    )


@cache
def docx_bomb() -> bytes:
    base = docx_bytes("Revenue", "Revenue grew in 2021.", [["year", "revenue"], ["2021", "3.7"]])
    return _office_bomb(
        base, "word/document.xml", b"<w:sectPr", b"<w:p><w:r><w:t>bomb</w:t></w:r></w:p>"
    )


BOMBS: dict[str, Callable[[], bytes]] = {
    "bomb.pdf": pdf_bomb,
    "bomb.xlsx": xlsx_bomb,
    "bomb.docx": docx_bomb,
}
BOMB_LIMITS = {"kb_max_compression_ratio", "kb_max_inflated_mb"}


def _upload(name: str, data: bytes) -> dict[str, str]:
    return {"name": name, "content_base64": base64.b64encode(data).decode()}


def _stored(app: Any) -> tuple[int, int, int, list[Path]]:
    """Documents, chunks and file rows in the store, and blobs in the files folder."""
    with app.state.store.session() as session:
        counts = [
            int(session.scalar(select(func.count()).select_from(table)) or 0)
            for table in (LibraryDocument, LibraryChunk, File)
        ]
    files = app.state.settings.data_dir / "files"
    blobs = [p for p in files.rglob("*") if p.is_file()] if files.exists() else []
    return counts[0], counts[1], counts[2], blobs


async def _post_measured(app: Any, name: str, data: bytes) -> tuple[Any, float, int]:
    """Upload `data` to a new library: the answer, seconds taken, peak traced bytes."""
    library = f"research-{uuid.uuid4().hex[:8]}"
    async with client_of(app, key_for(app.state.store, "alice")) as client:
        created = await client.post("/api/v1/libraries", json={"name": library})
        assert created.status_code == 201, created.text
        body = _upload(name, data)
        tracemalloc.start()
        started = time.monotonic()
        try:
            answer = await client.post(f"/api/v1/libraries/{library}/documents", json=body)
            seconds = time.monotonic() - started
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        listed = await client.get(f"/api/v1/libraries/{library}/documents")
    assert listed.status_code == 200 and listed.json() == []
    return answer, seconds, peak


def _refusal(answer: Any, settings: set[str]) -> str:
    """The 413's setting, after checking the message names it and its environment variable."""
    assert answer.status_code == 413, answer.text[:500]
    body = answer.json()
    assert body["setting"] in settings, body
    assert f"DATAPILOT_{body['setting'].upper()}" in body["detail"], body
    return str(body["setting"])


@pytest.mark.parametrize("name", list(BOMBS))
async def test_a_decompression_bomb_is_refused_in_seconds_with_bounded_memory(
    name: str, store_url: str, tmp_path: Path
) -> None:
    """Each format's bomb: 413 naming the limit, fast, memory far below what it inflates to,
    nothing stored; with the ratio limit raised, the inflated-size limit refuses it."""
    data = BOMBS[name]()
    assert len(data) < 1_000_000
    base = platform_settings(store_url).model_copy(update={"data_dir": tmp_path / "data"})
    for update in ({}, {"kb_max_compression_ratio": 1e9}):
        app = app_for(base.model_copy(update=update))
        answer, seconds, peak = await _post_measured(app, name, data)
        setting = _refusal(answer, BOMB_LIMITS)
        assert seconds < SECONDS, f"{name} took {seconds:.1f} s to refuse"
        assert peak < INFLATED_MB * 1_000_000 / 8, f"{name} peaked at {peak / 1e6:.0f} MB"
        assert _stored(app) == (0, 0, 0, [])
        if update:
            assert setting == "kb_max_inflated_mb"


def test_the_workspace_reader_refuses_a_bomb_too() -> None:
    """Documents sent with a Workspace question are read within the same limits."""
    from datapilot.data.documents import DocumentError, DocumentSource, read_document

    tracemalloc.start()
    started = time.monotonic()
    try:
        with pytest.raises(DocumentError) as refused:
            read_document(DocumentSource(name="bomb.pdf", content=pdf_bomb()))
        seconds = time.monotonic() - started
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert "DATAPILOT_KB_MAX_COMPRESSION_RATIO" in str(refused.value)
    assert seconds < SECONDS and peak < INFLATED_MB * 1_000_000 / 8


def _rows(count: int) -> list[list[Any]]:
    return [["year", "revenue", "cost"]] + [[2000 + n, n * 1.5, n] for n in range(count)]


LIMITED: dict[str, tuple[str, Callable[[], bytes], int]] = {
    "cells.xlsx": ("kb_max_cells", lambda: xlsx_bytes("Data", _rows(60)), 100),
    "chunks.md": (
        "kb_max_chunks",
        lambda: "\n\n".join(f"Paragraph {n} of the notes." for n in range(30)).encode(),
        10,
    ),
    "objects.pdf": (
        "kb_max_page_objects",
        lambda: make_pdf([["Deposits fell 3% in the fourth quarter as clients moved." * 4]]),
        50,
    ),
}


@pytest.mark.parametrize("name", list(LIMITED))
async def test_documents_over_a_count_limit_are_refused_naming_it(
    name: str, store_url: str, tmp_path: Path
) -> None:
    """Cells, chunks and objects on a page are counted while reading: over the (lowered) limit
    the upload is refused naming it, and nothing is stored; within the defaults it reads."""
    setting, make, limit = LIMITED[name]
    data = make()
    assert parse(name, data).chunks  # a normal document within the default limits
    settings = platform_settings(store_url).model_copy(
        update={"data_dir": tmp_path / "data", setting: limit}
    )
    app = app_for(settings)
    answer, seconds, _ = await _post_measured(app, name, data)
    assert _refusal(answer, {setting}) == setting
    assert str(limit) in answer.json()["detail"]
    assert seconds < SECONDS and _stored(app) == (0, 0, 0, [])


async def test_reading_stops_at_the_time_budget(store_url: str, tmp_path: Path) -> None:
    """A PDF that is slow to interpret but not compressed (20 pages showing the same 4.5 MB of
    text operators: read in the request, not as a job; ~3 s to read through) is refused when
    the read time budget is spent, not after reading it through. The page-object cap is lifted
    so that the time budget is the limit this meets."""
    data = _pdf(b"BT /F1 1 Tf 10 10 Td (a) Tj ET\n" * 150_000, pages=20)
    settings = platform_settings(store_url).model_copy(
        update={
            "data_dir": tmp_path / "data",
            "kb_read_timeout_s": 1.0,
            "kb_max_page_objects": 100_000_000,
        }
    )
    app = app_for(settings)
    answer, seconds, _ = await _post_measured(app, "slow.pdf", data)
    assert _refusal(answer, {"kb_read_timeout_s"}) == "kb_read_timeout_s"
    assert seconds < 1.0 + SECONDS / 3, f"refused after {seconds:.1f} s"
    assert _stored(app) == (0, 0, 0, [])


def test_kb_add_prints_the_refusal_and_stores_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`datapilot kb add` names the file, the limit and its setting, exits 1, adds nothing and
    still adds the good file given with it."""
    from typer.testing import CliRunner

    from datapilot.cli import app as cli
    from datapilot.settings import get_settings

    monkeypatch.setenv("DATAPILOT_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("DATAPILOT_OFFLINE", "1")
    get_settings.cache_clear()
    bomb = tmp_path / "bomb.pdf"
    bomb.write_bytes(pdf_bomb())
    notes = tmp_path / "notes.md"
    notes.write_text("# Notes\n\nThe harbour froze twice in February.\n")
    runner = CliRunner()
    try:
        started = time.monotonic()
        added = runner.invoke(cli, ["kb", "add", "desk", str(bomb), str(notes)])
        seconds = time.monotonic() - started
        shown = runner.invoke(cli, ["kb", "show", "desk"])
    finally:
        get_settings.cache_clear()
    assert added.exit_code == 1, added.output
    error = next(line for line in added.output.splitlines() if line.startswith("error:"))
    assert "bomb.pdf" in error and "DATAPILOT_KB_MAX_COMPRESSION_RATIO" in error, error
    assert seconds < SECONDS
    assert "notes.md" in shown.output and "bomb.pdf" not in shown.output
