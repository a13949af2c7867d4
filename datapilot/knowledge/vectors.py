"""Dense search of a library's chunk vectors where the store keeps them.

PostgreSQL: SQL over pgvector (`ORDER BY embedding <=> :q`), scoped to the library and its
owner. The column has no fixed dimension, so each dimension gets its own partial HNSW index on
`embedding::vector(D) WHERE dim = D`, made when a library first stores vectors of that length.
HNSW filters after its graph walk, so when the index scan returns fewer rows than the library
holds and `k` asks for, the query is run again exactly.

SQLite: an embedded usearch index per library and dimension in the data dir. The store's float32
column stays the source of truth: a file of another library version is brought in step (chunks
added, removed) and a missing or unreadable one is rebuilt, then written aside and renamed.
"""

from __future__ import annotations

import json
import logging
import os
import uuid
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from sqlalchemy import func, select, text
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session

from datapilot.knowledge.index import IndexCache
from datapilot.settings import Settings
from datapilot.store.models import Library, LibraryChunk
from datapilot.store.vectors import HNSW_MAX_DIM, VECTOR_INDEX_PREFIX

log = logging.getLogger(__name__)
_FETCH = 500  # ids per IN (...) when reading vectors to add to an index
# Up to this many vectors usearch compares them all (SIMD, ~1 ms for 10,000 of 384 dimensions):
# exact, where its graph walk may miss neighbours; above, the HNSW graph with a wide search.
EXACT_LIMIT = 50_000
EXPANSION_SEARCH = 256  # usearch's candidates per graph search (its default 64 misses many)
EF_SEARCH = 200  # pgvector's hnsw.ef_search (default 40): recall over speed, and room to filter


def dims_of(session: Session, library_id: str) -> dict[int, int]:
    """How many of the library's chunks have vectors of each dimension."""
    rows = session.execute(
        select(LibraryChunk.dim, func.count())
        .where(LibraryChunk.library_id == library_id, LibraryChunk.dim.is_not(None))
        .group_by(LibraryChunk.dim)
    )
    return {int(dim or 0): int(count) for dim, count in rows}


def _postgres(session: Session) -> bool:
    return session.get_bind().dialect.name == "postgresql"


def index_name(dim: int) -> str:
    return f"{VECTOR_INDEX_PREFIX}library_chunks_d{int(dim)}"


def ensure_index(session: Session, dim: int) -> None:
    """On PostgreSQL, the HNSW index of vectors of `dim` dimensions, made if missing (in a
    savepoint: a failure leaves the caller's transaction usable, search is then exact)."""
    if not _postgres(session) or not 0 < dim <= HNSW_MAX_DIM:
        return
    name = index_name(dim)
    if session.scalar(text("SELECT 1 FROM pg_class WHERE relname = :name"), {"name": name}):
        return
    try:
        with session.begin_nested():
            session.execute(
                text(
                    f"CREATE INDEX IF NOT EXISTS {name} ON library_chunks "
                    f"USING hnsw ((embedding::vector({int(dim)})) vector_cosine_ops) "
                    f"WHERE dim = {int(dim)}"
                )
            )
    except DBAPIError as error:  # e.g. another writer made it at the same moment
        log.warning("could not create the vector index %s: %s", name, error)


def search(
    session: Session,
    settings: Settings,
    library: Library,
    query: np.ndarray,
    k: int,
    held: int,
) -> list[tuple[int, float]]:
    """(chunk id, cosine similarity) of the `k` chunks nearest `query`, best first, among the
    library's `held` vectors of the query's dimension."""
    if held == 0:
        return []
    if _postgres(session):
        return _sql(session, library, query, k, held)
    return _embedded(session, settings, library, int(query.shape[0])).nearest(query, k)


def _sql(
    session: Session, library: Library, query: np.ndarray, k: int, held: int
) -> list[tuple[int, float]]:
    dim = int(query.shape[0])
    column = f"c.embedding::vector({dim})"
    statement = text(
        f"SELECT c.id, {column} <=> CAST(:q AS vector({dim})) AS distance "
        "FROM library_chunks c JOIN libraries l ON l.id = c.library_id "
        f"WHERE c.library_id = :library AND l.owner_id = :owner AND c.dim = {dim} "
        f"ORDER BY {column} <=> CAST(:q AS vector({dim})) LIMIT :k"
    )
    params = {
        "q": "[" + ",".join(f"{float(x):.9g}" for x in query) + "]",
        "library": library.id,
        "owner": library.owner_id,
        "k": k,
    }
    session.execute(text(f"SET LOCAL hnsw.ef_search = {max(EF_SEARCH, k)}"))
    rows = session.execute(statement, params).all()
    if len(rows) < min(k, held):  # the approximate index filtered the library's rows out
        session.execute(text("SET LOCAL enable_indexscan = off"))
        rows = session.execute(statement, params).all()
        session.execute(text("SET LOCAL enable_indexscan = on"))
    return [(int(chunk_id), 1.0 - float(distance)) for chunk_id, distance in rows]


# --- SQLite: usearch files --------------------------------------------------------------------


@dataclass
class EmbeddedIndex:
    """A library's usearch index of one dimension, for one library version."""

    version: int
    index: object  # usearch.index.Index

    def nearest(self, query: np.ndarray, k: int) -> list[tuple[int, float]]:
        size = len(self.index)  # type: ignore[arg-type]
        if size == 0:
            return []
        matches = self.index.search(  # type: ignore[attr-defined]
            query.astype(np.float32), min(k, size), exact=size <= EXACT_LIMIT
        )
        return [
            (int(key), 1.0 - float(distance))
            for key, distance in zip(matches.keys, matches.distances, strict=True)
        ]


LOADED: IndexCache[EmbeddedIndex] = IndexCache(32)  # per (library, dimension): not request state


def index_file(settings: Settings, library_id: str, dim: int) -> Path:
    return settings.data_dir / "knowledge" / library_id / f"vectors-d{int(dim)}.usearch"


def _meta_file(path: Path) -> Path:
    return path.with_suffix(".json")


def _restore(path: Path, dim: int) -> object | None:
    from usearch.index import Index

    if not path.exists():
        return None
    try:
        found = Index.restore(str(path), view=False)
    except (OSError, RuntimeError, ValueError) as error:
        log.warning("the vector index %s is unreadable (%s): rebuilding it", path, error)
        return None
    return found if found is not None and found.ndim == dim else None


def _embedded(session: Session, settings: Settings, library: Library, dim: int) -> EmbeddedIndex:
    key = (library.id, dim)
    found = LOADED.get(key)
    if found is not None and found.version == library.version:
        return found
    path = index_file(settings, library.id, dim)
    try:
        meta = json.loads(_meta_file(path).read_text())
    except (OSError, ValueError):
        meta = {}
    index = _restore(path, dim)
    if index is not None:
        index.expansion_search = EXPANSION_SEARCH  # type: ignore[attr-defined]
    current = (
        index is not None
        and meta.get("version") == library.version
        and meta.get("count") == len(index)  # type: ignore[arg-type]
    )
    if not current:
        index = _in_step(session, library.id, dim, index)
        _write(index, path, library.version)
    found = EmbeddedIndex(version=library.version, index=index)
    LOADED.put(key, found)
    return found


def _in_step(session: Session, library_id: str, dim: int, index: object | None) -> object:
    """`index` (or a new one) holding exactly the library's chunk vectors of `dim`."""
    from usearch.index import Index

    if index is None:
        index = Index(ndim=dim, metric="cos", dtype="f32", expansion_search=EXPANSION_SEARCH)
    stored = set(
        session.scalars(
            select(LibraryChunk.id).where(
                LibraryChunk.library_id == library_id, LibraryChunk.dim == dim
            )
        )
    )
    held = {int(key) for key in np.asarray(index.keys)}  # type: ignore[attr-defined]
    gone = sorted(held - stored)
    if gone:
        index.remove(np.asarray(gone, dtype=np.uint64))  # type: ignore[attr-defined]
    new = sorted(stored - held)
    for first in range(0, len(new), _FETCH):
        rows = session.execute(
            select(LibraryChunk.id, LibraryChunk.embedding).where(
                LibraryChunk.id.in_(new[first : first + _FETCH])
            )
        ).all()
        keys = np.asarray([row.id for row in rows], dtype=np.uint64)
        vectors = np.stack([np.asarray(row.embedding, dtype=np.float32) for row in rows])
        index.add(keys, vectors)  # type: ignore[attr-defined]
    return index


def _write(index: object, path: Path, version: int) -> None:
    """Save aside, then rename: a reader never opens half a file. The meta file names the
    library version and count the index holds, so a stale file is seen without reading it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    unique = uuid.uuid4().hex
    temporary = path.with_name(f".{path.name}.{unique}")
    try:
        index.save(str(temporary))  # type: ignore[attr-defined]
        os.replace(temporary, path)
        meta = {"version": version, "count": len(index)}  # type: ignore[arg-type]
        temporary_meta = path.with_name(f".{path.stem}.{unique}.json")
        temporary_meta.write_text(json.dumps(meta))
        os.replace(temporary_meta, _meta_file(path))
    except OSError as error:  # searched from memory all the same; rebuilt on the next start
        log.warning("could not save the vector index %s: %s", path, error)
        temporary.unlink(missing_ok=True)
