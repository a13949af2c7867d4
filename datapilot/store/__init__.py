"""The platform's SQL store: users, API keys, assistants, tools, chats, messages, files, scene
prompts and token usage, on SQLite (the default, in the data dir) or PostgreSQL
(`DATAPILOT_DATABASE_URL`).

    store = open_store(settings)          # migrates first (once per process and database)
    with store.session() as session:      # one transaction: committed on success
        new = Keys(session).create("laptop", "chat")

Sessions are made per request or command; only the engine (a connection pool) is shared.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import Engine
from sqlalchemy.engine import URL
from sqlalchemy.orm import Session

from datapilot.settings import Settings
from datapilot.store.accounts import (
    SCOPES,
    AccountError,
    KeyInfo,
    Keys,
    NewKey,
    Principal,
    Scope,
    UserInfo,
    Users,
)
from datapilot.store.database import StoreConfigError, database_url, get_engine, normalise_url
from datapilot.store.migrate import MigrationError, head_revision, upgrade

__all__ = [
    "SCOPES",
    "AccountError",
    "KeyInfo",
    "Keys",
    "MigrationError",
    "NewKey",
    "Principal",
    "Scope",
    "Store",
    "StoreConfigError",
    "UserInfo",
    "Users",
    "database_url",
    "head_revision",
    "normalise_url",
    "open_store",
]


class Store:
    """One database: its engine and a way to open sessions on it."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        # Built once: a write session is opened for every chat message.
        sqlite = engine.dialect.name == "sqlite"
        self._immediate = engine.execution_options(sqlite_immediate=True) if sqlite else None
        self._write_lock = _write_lock(engine) if sqlite else None

    @property
    def url(self) -> URL:
        return self.engine.url

    @contextmanager
    def session(self, *, write: bool = False) -> Iterator[Session]:
        """A session in one transaction: committed when the block ends, rolled back on error.

        `write=True` for a transaction that reads before it writes: on SQLite it then holds the
        write lock from its start, so concurrent writers queue instead of failing.
        """
        if not write or self._immediate is None or self._write_lock is None:
            with Session(self.engine, expire_on_commit=False) as session, session.begin():
                yield session
            return
        # This process's writers queue on a lock that hands over at once: waiting in SQLite's
        # busy handler instead sleeps in steps of up to 100 ms, which under a few concurrent
        # chats made the slowest requests wait seconds. Other processes still meet the busy
        # timeout.
        with (
            self._write_lock,
            Session(self._immediate, expire_on_commit=False) as session,
            session.begin(),
        ):
            yield session

    def upgrade(self) -> str:
        """Migrate to the newest schema now (see `migrate.upgrade`); returns the version."""
        return upgrade(self.engine)


_write_locks: dict[str, threading.Lock] = {}
_write_locks_guard = threading.Lock()


def _write_lock(engine: Engine) -> threading.Lock:
    """The lock of this process's write transactions on one SQLite database."""
    key = engine.url.render_as_string(hide_password=False)
    with _write_locks_guard:
        return _write_locks.setdefault(key, threading.Lock())


_migrated: set[str] = set()  # databases this process has brought up to date (not request state)
_migrating = threading.Lock()


def open_store(settings: Settings, *, migrate: bool = True) -> Store:
    """The store the settings name, migrated to the newest schema on first use in a process."""
    url = database_url(settings)
    if url.get_backend_name() == "sqlite" and url.database:
        Path(url.database).parent.mkdir(parents=True, exist_ok=True)
    store = Store(get_engine(url))
    if migrate:
        key = url.render_as_string(hide_password=False)
        with _migrating:
            if key not in _migrated:
                store.upgrade()
                _migrated.add(key)
    return store
