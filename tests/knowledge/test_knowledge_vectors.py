"""Vector storage of knowledge libraries on both stores: pgvector SQL on PostgreSQL, a usearch
index file per library and dimension on SQLite. Dense search through the scripted embeddings
endpoint returns the nearest chunks (computed here with numpy from the chunks' text), never
another user's, forgets a removed document, survives a lost or stale index file, and says
clearly when the embeddings model changed its dimension."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import sqlalchemy as sa
from pydantic import SecretStr
from support.knowledge import ScriptedVectors, hashed_vector
from support.llm import LOOPBACK

from datapilot.knowledge import Libraries, read_upload
from datapilot.knowledge.vectors import LOADED, index_file
from datapilot.settings import Settings
from datapilot.store import Store, open_store
from datapilot.store.models import LibraryChunk, LibraryDocument, User

pytestmark = LOOPBACK  # the scripted embeddings endpoint listens on loopback

RATES = """# Rates outlook

The central bank held its policy rate at 5.25% and signalled two cuts next year.

## Curve

Ten-year yields fell 40 basis points as inflation expectations eased.
"""
OIL = """# Oil market note

Brent crude averaged 82 dollars a barrel; OPEC output cuts tightened supply.

## Refining

Refining margins widened on diesel shortages in Europe.
"""
BANKS = """# Bank earnings

Net interest margins peaked in the second quarter while deposit costs kept rising.
"""


@pytest.fixture()
def vectors() -> Iterator[ScriptedVectors]:
    scripted = ScriptedVectors()
    with scripted.running():
        yield scripted


def settings_of(store_url: str, data_dir: Path, vectors: ScriptedVectors) -> Settings:
    return Settings(
        brain="offline",
        database_url=SecretStr(store_url),
        data_dir=data_dir,
        embeddings_base_url=vectors.base_url,
        embeddings_model="hashed",
    )


def user(store: Store, name: str) -> str:
    with store.session(write=True) as session:
        row = User(name=name)
        session.add(row)
        session.flush()
        return row.id


def add(store: Store, settings: Settings, owner: str, library: str, name: str, text: str) -> str:
    upload = read_upload(settings, name, text.encode())  # embedded outside the transaction
    with store.session(write=True) as session:
        libraries = Libraries(session, owner, settings)
        libraries.ensure(library)
        return libraries.add(library, upload).id


def dense(store: Store, settings: Settings, owner: str, library: str, query: str, k: int = 3):  # type: ignore[no-untyped-def]
    with store.session() as session:
        return Libraries(session, owner, settings).search(library, query, k, mode="dense")


def nearest_texts(store: Store, library_id: str, query: str, k: int, dims: int = 64) -> list[str]:
    """The chunk texts nearest `query` by cosine, computed from the stored chunk text."""
    with store.session() as session:
        rows = session.execute(
            sa.select(LibraryChunk.heading, LibraryChunk.text).where(
                LibraryChunk.library_id == library_id, LibraryChunk.dim == dims
            )
        ).all()
    texts = [row.text for row in rows]
    matrix = np.asarray(
        [hashed_vector(f"{r.heading}\n{r.text}" if r.heading else r.text, dims) for r in rows]
    )
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    q = np.asarray(hashed_vector(query, dims))
    scores = matrix @ (q / np.linalg.norm(q))
    return [texts[i] for i in np.argsort(-scores, kind="stable")[:k]]


def library_id(store: Store, owner: str, name: str) -> str:
    with store.session() as session:
        return Libraries(session, owner, Settings()).get(name).id


def test_dense_search_returns_the_nearest_chunks_of_the_owners_library_only(
    store_url: str, tmp_path: Path, vectors: ScriptedVectors
) -> None:
    settings = settings_of(store_url, tmp_path / "data", vectors)
    store = open_store(settings)
    alice, bob = user(store, "alice"), user(store, "bob")
    add(store, settings, alice, "research", "rates.md", RATES)
    add(store, settings, alice, "research", "oil.md", OIL)
    question = "brent crude averaged dollars barrel"
    # Bob's library holds the question word for word: nearer than anything of Alice's.
    add(store, settings, bob, "research", "bob.md", f"# Bob\n\n{question}\n")
    found = dense(store, settings, alice, "research", question)
    expected = nearest_texts(store, library_id(store, alice, "research"), question, 3)
    assert [p.citation.text for p in found.passages] == expected
    assert found.passages[0].citation.source == "oil.md" and "Brent" in expected[0]
    assert all(p.citation.source != "bob.md" for p in found.passages)
    assert found.retrieval == "vectors" and found.answered
    bobs = dense(store, settings, bob, "research", question)
    assert [p.citation.source for p in bobs.passages] == ["bob.md"]


def test_removing_a_document_removes_its_vectors_from_the_index(
    store_url: str, tmp_path: Path, vectors: ScriptedVectors
) -> None:
    settings = settings_of(store_url, tmp_path / "data", vectors)
    store = open_store(settings)
    alice = user(store, "alice")
    add(store, settings, alice, "research", "rates.md", RATES)
    oil = add(store, settings, alice, "research", "oil.md", OIL)
    before = dense(store, settings, alice, "research", "brent crude oil supply", k=10)
    with store.session(write=True) as session:
        Libraries(session, alice, settings).remove("research", oil)
    after = dense(store, settings, alice, "research", "brent crude oil supply", k=10)
    assert "oil.md" in {p.citation.source for p in before.passages}
    assert {p.citation.source for p in after.passages} == {"rates.md"}
    with store.session() as session:
        remaining = set(session.scalars(sa.select(LibraryChunk.id)))
        left = session.scalar(
            sa.select(sa.func.count()).where(LibraryDocument.id == oil)  # type: ignore[arg-type]
        )
    assert left == 0 and len(after.passages) == len(remaining)
    if store_url.startswith("sqlite"):  # the index file holds exactly the remaining chunks
        from usearch.index import Index

        saved = Index.restore(str(index_file(settings, library_id(store, alice, "research"), 64)))
        assert saved is not None
        assert {int(key) for key in np.asarray(saved.keys)} == remaining


def test_a_lost_unreadable_or_stale_index_file_is_rebuilt_from_the_store(
    tmp_path: Path, vectors: ScriptedVectors
) -> None:
    settings = settings_of(f"sqlite:///{tmp_path / 'store.sqlite3'}", tmp_path / "data", vectors)
    store = open_store(settings)
    alice = user(store, "alice")
    add(store, settings, alice, "research", "rates.md", RATES)
    question = "bank deposit costs and interest margins"
    dense(store, settings, alice, "research", question)
    path = index_file(settings, library_id(store, alice, "research"), 64)
    old_index, old_meta = path.read_bytes(), path.with_suffix(".json").read_bytes()
    add(store, settings, alice, "research", "banks.md", BANKS)
    expected = nearest_texts(store, library_id(store, alice, "research"), question, 3)

    def fresh_search() -> list[str]:
        LOADED.clear()  # as a new process would: only the file and the store are left
        found = dense(store, settings, alice, "research", question)
        return [p.citation.text for p in found.passages]

    # Stale: the file and its meta of the library's previous version (before banks.md).
    path.write_bytes(old_index)
    path.with_suffix(".json").write_bytes(old_meta)
    assert fresh_search() == expected
    path.unlink()
    assert fresh_search() == expected and path.exists()
    path.write_bytes(b"not an index")
    assert fresh_search() == expected
    assert not [p.name for p in path.parent.iterdir() if p.name.startswith(".")]  # no temp left


def test_a_new_embeddings_dimension_is_searched_apart_and_said_clearly(
    store_url: str, tmp_path: Path, vectors: ScriptedVectors
) -> None:
    settings = settings_of(store_url, tmp_path / "data", vectors)
    store = open_store(settings)
    alice = user(store, "alice")
    add(store, settings, alice, "research", "rates.md", RATES)
    vectors.dimensions = 32  # the operator switched to another embeddings model
    add(store, settings, alice, "research", "oil.md", OIL)
    with store.session() as session:
        mixed = Libraries(session, alice, settings).search("research", "policy rate cuts", 5)
    vectors_only = dense(store, settings, alice, "research", "policy rate cuts", k=10)
    assert mixed.notice is not None
    assert "32 dimensions" in mixed.notice and "of 64 dimensions" in mixed.notice
    assert "add them again" in mixed.notice
    # Words still find the old document; vectors search the new model's chunks only.
    by_words = [p for p in mixed.passages if p.bm25_rank == 1]
    assert [p.citation.source for p in by_words] == ["rates.md"]
    assert by_words[0].dense_rank is None
    assert {p.citation.source for p in vectors_only.passages} == {"oil.md"}
    if store_url.startswith("postgresql"):  # one HNSW index per dimension, made at run time
        with store.engine.connect() as connection:
            names = set(
                connection.scalars(
                    sa.text("SELECT indexname FROM pg_indexes WHERE indexname LIKE 'ix_vec_%'")
                )
            )
        assert names == {"ix_vec_library_chunks_d64", "ix_vec_library_chunks_d32"}


def test_vectors_stored_as_json_before_are_converted_by_the_migration(store_url: str) -> None:
    from alembic import command

    from datapilot.store.database import normalise_url
    from datapilot.store.migrate import _config

    engine = sa.create_engine(normalise_url(store_url))
    with engine.begin() as connection:
        config = _config()
        config.attributes["connection"] = connection
        command.upgrade(config, "0005")  # the schema of JSON vectors
    now = "2026-01-02 00:00:00+00:00"
    with engine.begin() as connection:
        for statement in (
            f"INSERT INTO users (id, name, created_at) VALUES ('u', 'alice', '{now}')",
            "INSERT INTO libraries (id, owner_id, name, description, version, created_at, "
            f"updated_at) VALUES ('l', 'u', 'research', '', 1, '{now}', '{now}')",
            "INSERT INTO library_documents (id, library_id, owner_id, name, mime, size, pages, "
            f"chunks, created_at) VALUES ('d', 'l', 'u', 'a.md', 'text/md', 1, 1, 2, '{now}')",
        ):
            connection.execute(sa.text(statement))
        chunks = sa.table(
            "library_chunks",
            *(sa.column(name) for name in ("id", "library_id", "document_id", "position")),
            *(sa.column(name) for name in ("start", "end", "heading", "text")),
            sa.column("embedding", sa.JSON()),
        )
        common = {"library_id": "l", "document_id": "d", "start": 0, "end": 1, "heading": ""}
        connection.execute(
            chunks.insert(),
            [
                {**common, "id": 1, "position": 0, "text": "a", "embedding": [0.5, -1.25, 2.0]},
                {**common, "id": 2, "position": 1, "text": "b", "embedding": None},
            ],
        )
    engine.dispose()
    store = open_store(Settings(database_url=SecretStr(store_url)))
    with store.session() as session:
        rows = session.execute(
            sa.select(LibraryChunk.id, LibraryChunk.embedding, LibraryChunk.dim).order_by(
                LibraryChunk.id
            )
        ).all()
    assert rows[0].dim == 3 and rows[0].embedding.tolist() == [0.5, -1.25, 2.0]
    assert rows[1].dim is None and rows[1].embedding is None
