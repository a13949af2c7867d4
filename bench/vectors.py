"""Vector search latency of a knowledge library: the store's index (usearch file on SQLite,
pgvector HNSW on PostgreSQL) against the numpy scan it replaced, with recall@10 against exact.

    python bench/vectors.py                      # 10,000 chunks of 384 dimensions, SQLite
    python bench/vectors.py --n 50000 --postgres # also PostgreSQL (pgserver, pgvector)

Random unit vectors are written straight into `library_chunks` (no embeddings endpoint), then
searched through `datapilot.knowledge.vectors.search`, the code `Libraries.search` calls.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent


def fill(store: object, n: int, dim: int, rng: np.random.Generator) -> tuple[str, np.ndarray]:
    from sqlalchemy import insert, text

    from datapilot.store.models import Library, LibraryChunk, LibraryDocument, User

    matrix = rng.standard_normal((n, dim)).astype(np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    with store.session(write=True) as session:  # type: ignore[attr-defined]
        user = User(name="bench")
        session.add(user)
        session.flush()
        library = Library(owner_id=user.id, name="bench", version=1)
        session.add(library)
        session.flush()
        document = LibraryDocument(
            library_id=library.id, owner_id=user.id, name="d", mime="text/plain", size=1
        )
        session.add(document)
        session.flush()
        rows = [
            {
                "id": i + 1,
                "library_id": library.id,
                "document_id": document.id,
                "position": i,
                "start": 0,
                "end": 1,
                "heading": "",
                "text": "x",
                "embedding": matrix[i],
                "dim": dim,
            }
            for i in range(n)
        ]
        for first in range(0, n, 2000):
            session.execute(insert(LibraryChunk), rows[first : first + 2000])
    if store.engine.dialect.name == "postgresql":  # type: ignore[attr-defined]
        with store.engine.begin() as connection:  # type: ignore[attr-defined]
            connection.execute(text("ANALYZE library_chunks"))  # as autovacuum would
    return library.id, matrix


def measure(store: object, settings: object, library_id: str, matrix: np.ndarray, queries: int):  # type: ignore[no-untyped-def]
    from datapilot.knowledge.vectors import ensure_index, search
    from datapilot.store.models import Library

    rng = np.random.default_rng(1)
    n, dim = matrix.shape
    asked = rng.standard_normal((queries, dim)).astype(np.float32)
    asked /= np.linalg.norm(asked, axis=1, keepdims=True)
    with store.session(write=True) as session:  # type: ignore[attr-defined]
        started = time.perf_counter()
        ensure_index(session, dim)  # PostgreSQL: the HNSW index (SQLite: nothing)
        built = time.perf_counter() - started
    with store.session() as session:  # type: ignore[attr-defined]
        library = session.get(Library, library_id)
        started = time.perf_counter()
        search(session, settings, library, asked[0], 10, n)  # SQLite: builds the usearch file
        first = time.perf_counter() - started
        index_ms, scan_ms, recall = [], [], []
        for q in asked:
            started = time.perf_counter()
            found = search(session, settings, library, q, 10, n)
            index_ms.append((time.perf_counter() - started) * 1000)
            started = time.perf_counter()
            exact = np.argsort(-(matrix @ q))[:10] + 1  # the old numpy scan (ids are 1-based)
            scan_ms.append((time.perf_counter() - started) * 1000)
            recall.append(len({i for i, _ in found} & set(exact.tolist())) / 10)
    return {
        "chunks": n,
        "dim": dim,
        "index build s": round(built + first, 2),
        "index p50 ms": round(statistics.median(index_ms), 2),
        "numpy scan p50 ms": round(statistics.median(scan_ms), 2),
        "recall@10": round(statistics.mean(recall), 3),
    }


def run(url: str, folder: Path, n: int, dim: int, queries: int) -> dict[str, object]:
    from pydantic import SecretStr

    from datapilot.settings import Settings
    from datapilot.store import open_store

    settings = Settings(database_url=SecretStr(url), data_dir=folder)
    store = open_store(settings)
    started = time.perf_counter()
    library_id, matrix = fill(store, n, dim, np.random.default_rng(0))
    written = time.perf_counter() - started
    report = measure(store, settings, library_id, matrix, queries)
    return {"store": url.split(":")[0], "write s": round(written, 1), **report}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=10_000)
    parser.add_argument("--dim", type=int, default=384)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--postgres", action="store_true", help="Also on PostgreSQL (pgserver).")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    with tempfile.TemporaryDirectory() as folder:
        base = Path(folder)
        url = f"sqlite:///{base / 'store.sqlite3'}"
        print(run(url, base / "data", args.n, args.dim, args.queries))
        if args.postgres:
            import pgserver

            server = pgserver.get_server(base / "pg", cleanup_mode="delete")
            try:
                print(run(server.get_uri(), base / "data-pg", args.n, args.dim, args.queries))
            finally:
                server.cleanup()


if __name__ == "__main__":
    main()
