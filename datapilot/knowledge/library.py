"""A user's knowledge libraries in the store: create, list, delete; documents added (stored
once per content hash, read into chunks, embedded when configured) and removed; search.

Reading and embedding a document (`read_upload`) happens before the write transaction, so the
store's write lock is never held across parsing or a network call; `Libraries.add` then writes
the document and all its chunks in one transaction: a refused or failed upload leaves nothing.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from pydantic import BaseModel
from sqlalchemy import delete, func, select, update
from sqlalchemy.orm import Session

from datapilot.core.quotes import Citation
from datapilot.data.documents import DocumentError, DocumentTooLarge, ReadLimits
from datapilot.knowledge import vectors as stored_vectors
from datapilot.knowledge.chunking import Chunk, format_of, parse
from datapilot.knowledge.embeddings import embed, embeddings_configured, rerank
from datapilot.knowledge.errors import KnowledgeError, LibraryNotFound, UploadRefused
from datapilot.knowledge.index import CACHE, CANDIDATES, Entry, LibraryIndex, fuse
from datapilot.knowledge.infos import DocumentInfo, Found, LibraryInfo, SearchResult
from datapilot.settings import Settings
from datapilot.store.blobs import share_blob, write_blob
from datapilot.store.models import Assistant, File, Library, LibraryChunk, LibraryDocument, utcnow

_MIMES = {
    "pdf": "application/pdf",
    "text": "text/plain",
    "markdown": "text/markdown",
    "html": "text/html",
    "csv": "text/csv",
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
}


class Upload(BaseModel):
    """A document read (and embedded) before it is written."""

    name: str
    mime: str
    data: bytes
    pages: int
    chunks: list[Chunk]
    vectors: list[list[float]] | None = None


def files_root(settings: Settings) -> Path:
    """The platform's content-addressed file store (shared with chat files)."""
    return settings.data_dir / "files"


def index_root(settings: Settings) -> Path:
    return settings.data_dir / "knowledge"


def read_upload(settings: Settings, name: str, data: bytes, mime: str | None = None) -> Upload:
    """Check the limits, read `data` into chunks within them (pages, inflated size, cells,
    chunks, time: see `ReadLimits`) and embed them (when configured). Raises `UploadRefused`
    naming the setting or the problem."""
    limit = settings.kb_max_file_mb * 1_000_000
    if len(data) > limit:
        raise UploadRefused(
            f"{name} is {len(data) / 1e6:.1f} MB, over DATAPILOT_KB_MAX_FILE_MB "
            f"({settings.kb_max_file_mb:g} MB); split it or raise the setting",
            "kb_max_file_mb",
        )
    if not data:
        raise UploadRefused(f"{name} is empty; send a document with text in it")
    fmt = format_of(name, data, mime or "")
    try:
        parsed = parse(name, data, mime or "", ReadLimits.of(settings))
    except DocumentTooLarge as error:
        raise UploadRefused(str(error), error.setting) from None
    except DocumentError as error:
        raise UploadRefused(str(error)) from None
    vectors = None
    if embeddings_configured(settings):
        vectors = embed(settings, [c.indexed for c in parsed.chunks]).tolist()
    return Upload(
        name=name,
        mime=mime or _MIMES[fmt],
        data=data,
        pages=parsed.pages,
        chunks=parsed.chunks,
        vectors=vectors,
    )


def library_id_of(session: Session, owner_id: str, ref: str) -> str:
    """The id of the user's library `ref` (id or name); raises `LibraryNotFound`."""
    found = session.scalar(
        select(Library.id).where(
            Library.owner_id == owner_id, (Library.id == ref) | (Library.name == ref)
        )
    )
    if found is None:
        raise LibraryNotFound(
            f"no library {ref!r}; list yours with GET /api/v1/libraries or `datapilot kb list`"
        )
    return found


class Libraries:
    """One user's libraries in one session."""

    def __init__(self, session: Session, owner_id: str, settings: Settings) -> None:
        self.session = session
        self.owner_id = owner_id
        self.settings = settings

    # --- libraries ------------------------------------------------------------------------

    def _row(self, ref: str) -> Library:
        row = self.session.scalar(
            select(Library).where(
                Library.owner_id == self.owner_id, (Library.id == ref) | (Library.name == ref)
            )
        )
        if row is None:
            raise LibraryNotFound(
                f"no library {ref!r}; list yours with GET /api/v1/libraries or `datapilot kb list`"
            )
        return row

    def _info(self, row: Library) -> LibraryInfo:
        count = self.session.scalar(
            select(func.count()).where(LibraryDocument.library_id == row.id)
        )
        return LibraryInfo(
            id=row.id,
            name=row.name,
            description=row.description,
            documents=int(count or 0),
            created_at=row.created_at,
        )

    def create(self, name: str, description: str = "") -> LibraryInfo:
        name = name.strip()
        if not name:
            raise KnowledgeError("a library needs a name")
        taken = self.session.scalar(
            select(Library.id).where(Library.owner_id == self.owner_id, Library.name == name)
        )
        if taken is not None:
            raise KnowledgeError(f"you have a library named {name!r} already; pick another name")
        row = Library(owner_id=self.owner_id, name=name, description=description)
        self.session.add(row)
        self.session.flush()
        return self._info(row)

    def ensure(self, name: str) -> LibraryInfo:
        """The library `name` (or id), created when it does not exist."""
        try:
            return self._info(self._row(name))
        except LibraryNotFound:
            return self.create(name)

    def all(self) -> list[LibraryInfo]:
        rows = self.session.scalars(
            select(Library).where(Library.owner_id == self.owner_id).order_by(Library.created_at)
        )
        return [self._info(row) for row in rows]

    def get(self, ref: str) -> LibraryInfo:
        return self._info(self._row(ref))

    def delete(self, ref: str) -> None:
        row = self._row(ref)
        library_id = row.id
        file_ids = select(LibraryDocument.file_id).where(LibraryDocument.library_id == library_id)
        self.session.execute(delete(File).where(File.id.in_(file_ids)))
        self.session.execute(delete(LibraryChunk).where(LibraryChunk.library_id == library_id))
        self.session.execute(
            delete(LibraryDocument).where(LibraryDocument.library_id == library_id)
        )
        # Assistants bound to it answer without a library from now on.
        self.session.execute(
            update(Assistant).where(Assistant.library_id == library_id).values(library_id=None)
        )
        self.session.delete(row)
        self.session.flush()
        shutil.rmtree(index_root(self.settings) / library_id, ignore_errors=True)

    # --- documents ------------------------------------------------------------------------

    def documents(self, ref: str) -> list[DocumentInfo]:
        row = self._row(ref)
        rows = self.session.scalars(
            select(LibraryDocument)
            .where(LibraryDocument.library_id == row.id)
            .order_by(LibraryDocument.created_at)
        )
        return [DocumentInfo.model_validate(r) for r in rows]

    def with_content(self, ref: str, digest: str) -> DocumentInfo | None:
        """The library's document whose bytes have the SHA-256 `digest`, if it holds one."""
        library = self._row(ref)
        row = self.session.scalar(
            select(LibraryDocument)
            .join(File, File.id == LibraryDocument.file_id)
            .where(LibraryDocument.library_id == library.id, File.sha256 == digest)
            .limit(1)
        )
        return None if row is None else DocumentInfo.model_validate(row)

    def add(self, ref: str, upload: Upload) -> DocumentInfo:
        """Write a read document and its chunks; the library's index is rebuilt on next use."""
        library = self._row(ref)
        count = self.session.scalar(
            select(func.count()).where(LibraryDocument.library_id == library.id)
        )
        if int(count or 0) >= self.settings.kb_max_documents:
            raise UploadRefused(
                f"the library {library.name!r} holds {count} documents, the most "
                f"DATAPILOT_KB_MAX_DOCUMENTS allows ({self.settings.kb_max_documents}); remove "
                "one or raise the setting",
                "kb_max_documents",
            )
        digest, path = write_blob(files_root(self.settings), upload.data)
        share_blob(self.session, digest, upload.data)  # replicas on PostgreSQL share the bytes
        file = File(
            owner_id=self.owner_id,
            name=upload.name,
            sha256=digest,
            mime=upload.mime,
            size=len(upload.data),
            path=path,
        )
        self.session.add(file)
        self.session.flush()
        document = LibraryDocument(
            library_id=library.id,
            owner_id=self.owner_id,
            file_id=file.id,
            name=upload.name,
            mime=upload.mime,
            size=len(upload.data),
            pages=upload.pages,
            chunks=len(upload.chunks),
        )
        self.session.add(document)
        self.session.flush()
        vectors: list[list[float] | None] = [None] * len(upload.chunks)
        if upload.vectors is not None:
            vectors = list(upload.vectors)
        self.session.add_all(
            LibraryChunk(
                library_id=library.id,
                document_id=document.id,
                position=position,
                page=chunk.page,
                start=chunk.start,
                end=chunk.end,
                heading=chunk.heading,
                text=chunk.text,
                table=chunk.table,
                embedding=vector,
                dim=None if vector is None else len(vector),
            )
            for position, (chunk, vector) in enumerate(zip(upload.chunks, vectors, strict=True))
        )
        for dim in {len(v) for v in vectors if v is not None}:
            stored_vectors.ensure_index(self.session, dim)
        self._changed(library)
        self.session.flush()
        return DocumentInfo.model_validate(document)

    def remove(self, ref: str, document_id: str) -> None:
        library = self._row(ref)
        document = self.session.scalar(
            select(LibraryDocument).where(
                LibraryDocument.id == document_id, LibraryDocument.library_id == library.id
            )
        )
        if document is None:
            raise LibraryNotFound(
                f"the library {library.name!r} has no document {document_id!r}; list them with "
                f"GET /api/v1/libraries/{library.name}/documents"
            )
        self.session.execute(delete(LibraryChunk).where(LibraryChunk.document_id == document.id))
        file_id = document.file_id
        self.session.delete(document)
        if file_id is not None:  # its row only: the bytes may be another file's too
            self.session.execute(delete(File).where(File.id == file_id))
        self._changed(library)
        self.session.flush()

    def _changed(self, library: Library) -> None:
        self.session.execute(
            update(Library)
            .where(Library.id == library.id)
            .values(version=Library.version + 1, updated_at=utcnow())
        )

    # --- search ---------------------------------------------------------------------------

    def index(self, ref: str) -> tuple[Library, LibraryIndex]:
        """The library's index for its current version: from memory, disk, or built now."""
        library = self._row(ref)
        key = (library.id, library.version)
        found = CACHE.get(key)
        if found is not None:
            return library, found
        folder = index_root(self.settings) / library.id / f"v{library.version}"
        found = LibraryIndex.load(folder) if folder.exists() else None
        if found is None:
            rows = self.session.execute(
                select(
                    LibraryChunk.id, LibraryChunk.heading, LibraryChunk.text, LibraryDocument.name
                )
                .join(LibraryDocument, LibraryDocument.id == LibraryChunk.document_id)
                .where(LibraryChunk.library_id == library.id)
                .order_by(LibraryChunk.id)
            )
            # Every passage is indexed with its document's name: a question naming the
            # document (华东银行2022年…) then favours none of its passages, where only the short
            # title passage would hold those words and win on them.
            entries = [
                Entry(
                    id=r.id,
                    text="\n".join(filter(None, [_title(r.name), r.heading, r.text])),
                    title=_title(r.name),
                )
                for r in rows
            ]
            dims = stored_vectors.dims_of(self.session, library.id)
            found = LibraryIndex.build(entries, folder, dims)
            for old in folder.parent.glob("v*"):  # earlier versions are never read again
                if old.name != folder.name:
                    shutil.rmtree(old, ignore_errors=True)
        CACHE.put(key, found)
        return library, found

    def search(self, ref: str, query: str, k: int = 5, *, mode: str = "auto") -> SearchResult:
        """The `k` passages that best answer `query`. `mode`: auto (fusion when vectors are
        there), bm25 or dense (for the bench)."""
        library, index = self.index(ref)
        asked, query = query, index.as_read(query)
        bm25 = index.bm25(query) if mode in ("auto", "bm25") else []
        dense: list[tuple[int, float]] = []
        notice = None
        if mode in ("auto", "dense") and index.dims and embeddings_configured(self.settings):
            dense, notice = self._dense(library, index, query)
        answered = index.answers(query, bm25, dense)
        ranked = fuse(bm25, dense)[:CANDIDATES]
        used = "bm25+vectors" if dense and bm25 else ("vectors" if dense else "bm25")
        if self.settings.rerank_url and ranked:
            order = rerank(self.settings, query, [index.texts[r.id] for r in ranked])
            ranked = [ranked[i] for i in order]
            used += "+rerank"
        ranked = ranked[:k]
        ids = [index.ids[r.id] for r in ranked]
        rows: dict[int, _Row] = {}
        query_rows = self.session.execute(
            select(LibraryChunk, LibraryDocument.name)
            .join(LibraryDocument, LibraryDocument.id == LibraryChunk.document_id)
            .where(LibraryChunk.id.in_(ids))
        )
        for chunk, name in query_rows:
            rows[chunk.id] = _Row(chunk, name)
        passages = [
            Found(
                citation=Citation(
                    source=rows[i].name,
                    page=rows[i].chunk.page,
                    start=rows[i].chunk.start,
                    end=rows[i].chunk.end,
                    text=rows[i].chunk.text,
                ),
                document_id=rows[i].chunk.document_id,
                heading=rows[i].chunk.heading,
                table=rows[i].chunk.table,
                score=round(r.score, 6),
                bm25_rank=r.bm25,
                dense_rank=r.dense,
                holds=index.holds(query, r.id),
            )
            for i, r in zip(ids, ranked, strict=True)
            if i in rows
        ]
        return SearchResult(
            query=asked,
            library=library.name,
            answered=answered and bool(passages),
            passages=passages,
            retrieval=used,
            notice=notice,
        )

    def _dense(
        self, library: Library, index: LibraryIndex, query: str
    ) -> tuple[list[tuple[int, float]], str | None]:
        """(position, cosine) of the chunks nearest the query's vector, and a notice when some
        chunks have vectors of another dimension (another embeddings model): those are left
        to BM25 until their documents are added again."""
        vector = embed(self.settings, [query], kind="query")[0]
        dim = int(vector.shape[0])
        hits = stored_vectors.search(
            self.session, self.settings, library, vector, CANDIDATES, index.dims.get(dim, 0)
        )
        dense = [(index.positions[i], score) for i, score in hits if i in index.positions]
        other = {d: n for d, n in index.dims.items() if d != dim}
        notice = None
        if other:
            listed = ", ".join(f"{n} of {d} dimensions" for d, n in sorted(other.items()))
            notice = (
                f"the embeddings model now gives vectors of {dim} dimensions, but {listed} in "
                f"the library {library.name!r} came from another model: those passages are "
                "searched by words only; remove their documents and add them again to embed "
                "them with the current model"
            )
        return dense, notice


def _title(name: str) -> str:
    """A document's name as words: its stem, separators as spaces."""
    stem = name.rsplit(".", 1)[0] if "." in name else name
    return " ".join(stem.replace("_", " ").replace("-", " ").split())


class _Row:
    def __init__(self, chunk: LibraryChunk, name: str) -> None:
        self.chunk = chunk
        self.name = name
        self.id = chunk.id
