"""Which database the store uses, and one SQLAlchemy engine per database URL.

SQLite (the default, a file in the data dir) runs in WAL mode with foreign keys on, and every
transaction starts with an explicit `BEGIN`, so DDL is transactional there too (the sqlite3
module would otherwise commit before each DDL statement). PostgreSQL goes through psycopg 3
whatever driver a URL names.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from functools import lru_cache
from typing import Any
from urllib.parse import unquote

from sqlalchemy import Dialect, Engine, create_engine, event
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError, InvalidatePoolError

from datapilot.settings import Settings


class StoreConfigError(ValueError):
    """The store's URL cannot be used; the message says what to set instead."""


def database_url(settings: Settings) -> URL:
    """The store's URL: `settings.database_url`, normalised, or SQLite in the data dir."""
    if settings.database_url is None:
        return URL.create("sqlite+pysqlite", database=str(settings.database_path))
    return normalise_url(settings.database_url.get_secret_value())


def normalise_url(text: str) -> URL:
    """Accept the URL forms people copy from their hosting: `postgres://`, `postgresql://`,
    any `postgresql+driver://` (all become psycopg 3), a unix socket as `?host=/path` or as a
    percent-encoded host, and `sqlite:///path`."""
    try:
        url = make_url(text.strip())
    except ArgumentError as error:
        raise StoreConfigError(
            f"DATAPILOT_DATABASE_URL is not a database URL ({error}); use "
            "postgresql://user:password@host:5432/dbname or sqlite:///path/to/file.sqlite3"
        ) from None
    backend = url.get_backend_name()
    if backend in ("postgres", "postgresql"):
        url = url.set(drivername="postgresql+psycopg")
        host = unquote(url.host) if url.host else None
        if host and host.startswith("/"):  # libpq's percent-encoded socket directory
            # `URL.set` ignores None, so the host is dropped with the named tuple's `_replace`.
            url = url._replace(host=None).update_query_dict({"host": host})
        return url
    if backend == "sqlite":
        if url.database in (None, ""):
            raise StoreConfigError(
                "an SQLite DATAPILOT_DATABASE_URL needs a file: sqlite:///path/to/file.sqlite3"
            )
        return url.set(drivername="sqlite+pysqlite")
    raise StoreConfigError(
        f"DATAPILOT_DATABASE_URL names {backend!r}; Datapilot's store runs on PostgreSQL "
        "(postgresql://…) or SQLite (sqlite:///path)"
    )


def get_engine(url: URL) -> Engine:
    """The engine of a database, shared by every session of this process (pooled)."""
    return _engine(url.render_as_string(hide_password=False))


def server_engines() -> bool:
    """Whether this process made an engine for a database server (PostgreSQL), whose
    connections deserve a proper goodbye at exit; an SQLite file needs none."""
    return _servers > 0


_servers = 0


@lru_cache(maxsize=16)
def _engine(url_text: str) -> Engine:
    global _servers
    url = make_url(url_text)
    if url.get_backend_name() == "sqlite":
        engine = create_engine(url, connect_args={"timeout": 30})
        event.listen(engine, "connect", _sqlite_connect)
        event.listen(engine, "begin", _sqlite_begin)
        return engine
    _servers += 1
    # Sessions run in the worker threads (anyio's default limit is 40): a pool as large keeps
    # concurrent requests from queueing for a connection (SQLAlchemy's default is 5 + 10).
    engine = create_engine(url, pool_size=10, max_overflow=30)
    event.listen(engine, "checkout", _pinger(engine.dialect))
    event.listen(engine, "checkin", _checked_in)
    return engine


# A connection back in the pool within this many seconds is used again without a ping: a
# PostgreSQL round trip per transaction (SQLAlchemy's `pool_pre_ping`) was a good part of a chat
# message's store time. A connection idle longer (when a restart or a dropped link usually
# shows) is pinged first, and one that fails is replaced, the pool's older ones with it; one
# dropped within the window fails its request once and is replaced likewise.
PING_AFTER_IDLE_S = 5.0


def _checked_in(_dbapi_connection: Any, record: Any) -> None:
    record.info["checked_in_at"] = time.monotonic()


def _pinger(dialect: Dialect) -> Callable[[Any, Any, Any], None]:
    def ping_if_idle(dbapi_connection: Any, record: Any, _proxy: Any) -> None:
        last = record.info.get("checked_in_at")
        if last is None or time.monotonic() - last <= PING_AFTER_IDLE_S:
            return  # a new connection, or one in use a moment ago
        try:
            dialect.do_ping(dbapi_connection)
        except dialect.loaded_dbapi.Error as error:  # the pool connects anew and tries again
            raise InvalidatePoolError(str(error)) from error

    return ping_if_idle


def _sqlite_connect(connection: sqlite3.Connection, _record: Any) -> None:
    # SQLAlchemy emits BEGIN itself (below): the driver must not open or commit on its own.
    connection.isolation_level = None
    cursor = connection.cursor()
    for pragma in (
        "PRAGMA foreign_keys=ON",
        "PRAGMA journal_mode=WAL",
        "PRAGMA synchronous=NORMAL",  # safe with WAL; a crash loses at most the last commit
        "PRAGMA busy_timeout=30000",
    ):
        cursor.execute(pragma)
    cursor.close()


def _sqlite_begin(connection: Any) -> None:
    # A transaction that reads and then writes must take the write lock up front: upgrading a
    # read snapshot fails at once with "database is locked" when another writer got in between
    # (SQLite skips the busy timeout there), while BEGIN IMMEDIATE waits its turn.
    immediate = connection.get_execution_options().get("sqlite_immediate", False)
    connection.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")
