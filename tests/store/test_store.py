"""The platform store on SQLite and on a real PostgreSQL: migrations (idempotent, concurrent,
never half-applied), the schema against the models, owners enforced, keys hashed."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from pydantic import SecretStr

from datapilot.settings import Settings
from datapilot.store import (
    AccountError,
    Keys,
    MigrationError,
    StoreConfigError,
    Users,
    head_revision,
    normalise_url,
    open_store,
)
from datapilot.store.models import ApiKey, Base, Chat, ChatMessage, User
from datapilot.store.vectors import VECTOR_INDEX_PREFIX

TABLES = {
    "users",
    "api_keys",
    "assistants",
    "tools",
    "tool_sources",  # added with imported OpenAPI/MCP tool sources
    "assistant_tools",
    "chats",
    "chat_messages",
    "files",
    "scene_prompts",
    "usage_ledger",
    # Knowledge libraries (migration 0003).
    "libraries",
    "library_documents",
    "library_chunks",
    # memory, its audit, message blocks, chat summaries, turn contexts (migration 0004)
    "memories",
    "memory_events",
    "message_blocks",
    "chat_summaries",
    "turn_contexts",
}
TABLES |= {"rate_counters"}  # added with the shared rate limits of replicas (migration 0002)
TABLES |= {"data_entries", "blobs"}  # what users add, shared by replicas (migration 0007)
TABLES |= {"library_jobs"}  # upload jobs, followed on any replica (migration 0008)
TABLES |= {"watches", "watch_events", "watch_claims"}  # watches and their runs (migration 0009)


def settings_for(url: str) -> Settings:
    return Settings(database_url=SecretStr(url))


def tables(url: str) -> set[str]:
    engine = sa.create_engine(normalise_url(url))
    try:
        return set(sa.inspect(engine).get_table_names())
    finally:
        engine.dispose()


def version(url: str) -> list[str]:
    engine = sa.create_engine(normalise_url(url))
    try:
        with engine.connect() as connection:
            return [row[0] for row in connection.execute(sa.text("SELECT * FROM alembic_version"))]
    finally:
        engine.dispose()


def test_migrating_twice_creates_every_table_once(store_url: str) -> None:
    store = open_store(settings_for(store_url))
    assert store.upgrade() == head_revision()  # the second run finds nothing to do
    assert tables(store_url) == TABLES | {"alembic_version"}
    assert version(store_url) == [head_revision()]


def test_the_migrations_build_exactly_the_models(store_url: str) -> None:
    store = open_store(settings_for(store_url))
    with store.engine.connect() as connection:
        differences = compare_metadata(MigrationContext.configure(connection), Base.metadata)
    # Vector indexes are made at run time, one per embeddings dimension: not in the models.
    differences = [d for d in differences if not _run_time_index(d)]
    assert differences == []


def _run_time_index(difference: object) -> bool:
    index = difference[1] if isinstance(difference, tuple) and len(difference) > 1 else None
    return isinstance(index, sa.Index) and str(index.name).startswith(VECTOR_INDEX_PREFIX)


@pytest.mark.slow
def test_two_processes_migrating_at_once_both_succeed(store_url: str) -> None:
    script = (
        "from datapilot.settings import Settings\n"
        "from datapilot.store import open_store\n"
        "open_store(Settings()); print('ok')\n"
    )
    env = {**os.environ, "DATAPILOT_DATABASE_URL": store_url}
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", script],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(3)
    ]
    results = [process.communicate(timeout=120) for process in processes]
    assert [process.returncode for process in processes] == [0, 0, 0], results
    assert [out.strip() for out, _ in results] == ["ok", "ok", "ok"]
    assert version(store_url) == [head_revision()]
    assert tables(store_url) == TABLES | {"alembic_version"}


def test_a_failing_migration_leaves_nothing_half_done(store_url: str) -> None:
    # A table in the way of a later CREATE TABLE of the first migration: the tables created
    # before it in the same migration must vanish with the failure.
    engine = sa.create_engine(normalise_url(store_url))
    with engine.begin() as connection:
        connection.execute(sa.text("CREATE TABLE chat_messages (id INTEGER PRIMARY KEY)"))
    engine.dispose()
    with pytest.raises(MigrationError, match="migrating the store failed"):
        open_store(settings_for(store_url))
    assert tables(store_url) == {"chat_messages"}


def test_a_database_from_a_newer_version_is_refused_clearly(store_url: str) -> None:
    open_store(settings_for(store_url))
    engine = sa.create_engine(normalise_url(store_url))
    with engine.begin() as connection:
        connection.execute(sa.text("UPDATE alembic_version SET version_num = '9999'"))
    engine.dispose()
    store = open_store(settings_for(store_url), migrate=False)
    with pytest.raises(MigrationError, match=r"9999.*upgrade Datapilot"):
        store.upgrade()


def test_keys_are_stored_as_hashes_only(store_url: str) -> None:
    store = open_store(settings_for(store_url))
    with store.session() as session:
        new = Keys(session).create("laptop", "chat")
    key = new.key.get_secret_value()
    engine = sa.create_engine(normalise_url(store_url))
    with engine.connect() as connection:
        rows = connection.execute(sa.text("SELECT * FROM api_keys")).all()
    engine.dispose()
    cells = [str(cell) for row in rows for cell in row]
    assert not any(key in cell for cell in cells)
    assert hashlib.sha256(key.encode()).hexdigest() in cells
    assert key.startswith(new.info.prefix) and len(new.info.prefix) < len(key) // 3
    if store_url.startswith("sqlite"):  # nowhere in the file or its write-ahead log either
        path = Path(store_url.removeprefix("sqlite:///"))
        for part in (path, path.with_name(path.name + "-wal")):
            if part.exists():
                assert key.encode() not in part.read_bytes()


def test_a_key_authenticates_until_it_is_revoked(store_url: str) -> None:
    store = open_store(settings_for(store_url))
    with store.session() as session:
        new = Keys(session).create("laptop", "chat,manage")
    key = new.key.get_secret_value()
    with store.session() as session:
        keys = Keys(session)
        principal = keys.authenticate(key)
        assert principal is not None and principal.user_id == new.info.owner_id
        assert principal.scopes == {"chat", "manage"} and not principal.allows("admin")
        assert keys.authenticate(key[:-1] + ("A" if key[-1] != "A" else "B")) is None
        assert keys.authenticate("not a key") is None
        keys.mark_used(principal.key_id)
    with store.session() as session:
        (listed,) = Keys(session).list()
        assert listed.last_used_at is not None and listed.active
        revoked = Keys(session).revoke(new.info.prefix)
        assert revoked.revoked_at is not None
    with store.session() as session:
        assert Keys(session).authenticate(key) is None
        assert not Keys(session).any_active()


def test_the_first_key_creates_the_first_user_and_later_keys_need_a_user(store_url: str) -> None:
    store = open_store(settings_for(store_url))
    with store.session() as session:
        first = Keys(session).create("laptop", "admin").info
        Users(session).create("bob")
    assert first.owner_name == "owner"
    with store.session() as session:
        with pytest.raises(AccountError, match=r"several users.*--user"):
            Keys(session).create("phone", "chat")
        bobs = Keys(session).create("phone", "chat", user="bob").info
        with pytest.raises(AccountError, match="no user named 'carol'"):
            Keys(session).create("tablet", "chat", user="carol")
        with pytest.raises(AccountError, match=r"unknown scope.*root"):
            Keys(session).create("tablet", "chat,root", user="bob")
        with pytest.raises(AccountError, match="exists already"):
            Users(session).create("bob")
    assert bobs.owner_name == "bob" and bobs.owner_id != first.owner_id
    with store.session() as session:
        assert [key.name for key in Keys(session).list()] == ["laptop", "phone"]


def test_revoking_needs_an_unambiguous_name(store_url: str) -> None:
    store = open_store(settings_for(store_url))
    with store.session() as session:
        Keys(session).create("a", "chat")
        Keys(session).create("b", "chat")
    with store.session() as session, pytest.raises(AccountError, match="several keys"):
        Keys(session).revoke("dp_")
    with store.session() as session, pytest.raises(AccountError, match="no key"):
        Keys(session).revoke("zzzzzzzz")


def test_rows_need_an_owner_that_exists(store_url: str) -> None:
    store = open_store(settings_for(store_url))
    now = datetime.now(UTC)
    with pytest.raises(sa.exc.IntegrityError), store.session() as session:
        session.add(ApiKey(owner_id="nobody", name="x", prefix="dp_x", key_hash="0", scopes="chat"))
    with pytest.raises(sa.exc.IntegrityError), store.session() as session:
        session.add(Chat(name="nobody's", created_at=now))  # neither a user nor a guest
    with store.session() as session:
        owner = Users(session).create("alice")
        chat = Chat(owner_id=owner.id, name="prices")
        session.add(chat)
        session.flush()
        session.add(ChatMessage(chat_id=chat.id, owner_id=owner.id, role="human", content="hi"))
    with pytest.raises(sa.exc.IntegrityError), store.session() as session:
        session.add(ChatMessage(chat_id=chat.id, owner_id=owner.id, role="wizard"))
    with store.session() as session:  # deleting the user deletes what they own
        session.execute(sa.delete(User).where(User.id == owner.id))
    with store.session() as session:
        for table in (Chat, ChatMessage):
            assert session.scalar(sa.select(sa.func.count()).select_from(table)) == 0


@pytest.mark.parametrize(
    ("given", "driver", "host", "database", "socket"),
    [
        ("postgres://u:p@db.example:5432/dp", "postgresql+psycopg", "db.example", "dp", None),
        ("postgresql://u:p@db.example/dp", "postgresql+psycopg", "db.example", "dp", None),
        ("postgresql+psycopg2://u@db.example/dp", "postgresql+psycopg", "db.example", "dp", None),
        (
            "postgresql://postgres:@/postgres?host=/run/pg",
            "postgresql+psycopg",
            None,
            "postgres",
            "/run/pg",
        ),
        ("postgresql://%2Frun%2Fpg/dp", "postgresql+psycopg", None, "dp", "/run/pg"),
        ("sqlite:////var/lib/dp.sqlite3", "sqlite+pysqlite", None, "/var/lib/dp.sqlite3", None),
    ],
)
def test_database_urls_are_normalised_to_psycopg_3(
    given: str, driver: str, host: str | None, database: str, socket: str | None
) -> None:
    url = normalise_url(given)
    assert (url.drivername, url.host, url.database) == (driver, host, database)
    assert url.query.get("host") == socket


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ("mysql://u@h/db", r"PostgreSQL.*or SQLite"),
        ("sqlite://", "needs a file"),
        ("not a url", "not a database URL"),
    ],
)
def test_unusable_database_urls_say_what_to_use(given: str, message: str) -> None:
    with pytest.raises(StoreConfigError, match=message):
        normalise_url(given)


def test_the_default_store_is_sqlite_in_the_data_dir(tmp_path: Path) -> None:
    store = open_store(Settings(data_dir=tmp_path / "data"))
    assert store.url.get_backend_name() == "sqlite"
    assert Path(str(store.url.database)) == tmp_path / "data" / "datapilot.sqlite3"
    with store.engine.connect() as connection:
        assert connection.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert connection.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
