"""Bring a database to the newest schema: Alembic, run from code, under a lock.

Two processes starting together (server workers, a CLI command beside a server) must not both
migrate: PostgreSQL serialises them with an advisory lock, SQLite with a lock file beside the
database. Whoever comes second finds the schema current and does nothing. Each migration runs in
its own transaction with its version row (transactional DDL on both backends, see `engine.py`),
and afterwards the version is checked against the code's.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from filelock import FileLock, Timeout
from sqlalchemy import Connection, Engine, text
from sqlalchemy.exc import SQLAlchemyError

if TYPE_CHECKING:  # Alembic (~0.1-0.3 s to import) loads only when a database is not current
    from alembic.config import Config
    from alembic.script import ScriptDirectory

log = logging.getLogger(__name__)

_MIGRATIONS = Path(__file__).parent / "migrations"
# Any constant the other tenants of a PostgreSQL server are unlikely to pick: "datapilot".
_PG_LOCK_KEY = 0x64617461_70696C6F & 0x7FFFFFFFFFFFFFFF
LOCK_TIMEOUT_S = 300.0


class MigrationError(RuntimeError):
    """The schema could not be brought up to date; the message says why and what to do."""


# A migration file's own `revision = "…"` and `down_revision = "…"` lines.
_REVISION_LINE = re.compile(r'^(revision|down_revision)\b[^=\n]*=\s*(?:None|"([^"]*)")', re.M)


def _config() -> Config:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(_MIGRATIONS))
    return config


def head_revision() -> str:
    """The newest schema version this code knows."""
    from alembic.script import ScriptDirectory

    head = ScriptDirectory.from_config(_config()).get_current_head()
    if head is None:  # pragma: no cover - the package ships its migrations
        raise MigrationError("no store migrations found in the installed package")
    return head


def current_revision(engine: Engine) -> str | None:
    """The database's schema version (None before the first migration)."""
    from alembic.runtime.migration import MigrationContext

    with engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()


def upgrade(engine: Engine) -> str:
    """Migrate the database to the newest schema (a no-op when it is current); returns the
    version. Raises `MigrationError` when the database is newer than this code or a migration
    fails (the database then stays at the last complete version)."""
    # The common case at start-up, a current database, is told without Alembic or a lock.
    listed = listed_head()
    if listed is not None and _stamped(engine) == listed:
        return listed
    from alembic import command
    from alembic.runtime.migration import MigrationContext
    from alembic.script import ScriptDirectory

    head = head_revision()
    if current_revision(engine) == head:  # no lock needed
        return head
    with _migration_lock(engine) as connection:
        config = _config()
        config.attributes["connection"] = connection
        found = MigrationContext.configure(connection).get_current_revision()
        if connection.in_transaction():
            connection.commit()
        script = ScriptDirectory.from_config(config)
        if found is not None and found != head and found not in _known(script):
            raise MigrationError(
                f"the store's schema is at version {found}, which this Datapilot does not know "
                "(a newer version migrated it); upgrade Datapilot"
            )
        if found != head:
            log.info("migrating the store from %s to %s", found or "an empty database", head)
            try:
                command.upgrade(config, "head")
            except Exception as error:
                raise MigrationError(
                    f"migrating the store failed ({type(error).__name__}: {error}); it stays at "
                    f"version {_version(connection) or 'empty'}"
                ) from error
        reached = _version(connection)
    if reached != head:
        raise MigrationError(f"the store's schema is at {reached} after migrating, not {head}")
    return head


def listed_head() -> str | None:
    """The newest schema version as the migration files name it, read as text (Alembic reads
    them as modules); None unless they form one line of versions."""
    versions, parents = set(), set()
    for path in (_MIGRATIONS / "versions").glob("*.py"):
        found = {m[1]: m[2] for m in _REVISION_LINE.finditer(path.read_text(encoding="utf-8"))}
        if found.get("revision"):
            versions.add(found["revision"])
            if found.get("down_revision"):
                parents.add(found["down_revision"])
    heads = versions - parents
    return heads.pop() if len(heads) == 1 and len(parents) == len(versions) - 1 else None


def _stamped(engine: Engine) -> str | None:
    """The database's one version row, read with plain SQL (None without one)."""
    try:
        with engine.connect() as connection:
            rows = connection.execute(text("SELECT version_num FROM alembic_version")).all()
    except SQLAlchemyError:  # no version table yet: Alembic creates it
        return None
    return str(rows[0][0]) if len(rows) == 1 else None


def _known(script: ScriptDirectory) -> set[str]:
    return {revision.revision for revision in script.walk_revisions()}


def _version(connection: Connection) -> str | None:
    from alembic.runtime.migration import MigrationContext

    version = MigrationContext.configure(connection).get_current_revision()
    if connection.in_transaction():
        connection.commit()
    return version


@contextmanager
def _migration_lock(engine: Engine) -> Iterator[Connection]:
    """A connection held under the process-wide migration lock of this database."""
    if engine.dialect.name == "postgresql":
        with engine.connect() as connection:
            # A session-level lock: it spans the migrations' own transactions.
            connection.execute(text("SELECT pg_advisory_lock(:key)"), {"key": _PG_LOCK_KEY})
            connection.commit()
            try:
                yield connection
            finally:
                if connection.in_transaction():
                    connection.rollback()
                connection.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": _PG_LOCK_KEY})
                connection.commit()
        return
    database = engine.url.database
    if not database or database == ":memory:":  # one connection, nobody to race with
        with engine.connect() as connection:
            yield connection
        return
    lock = FileLock(f"{database}.migrate.lock", timeout=LOCK_TIMEOUT_S)
    try:
        lock.acquire()
    except Timeout:
        raise MigrationError(
            f"another process has held the store's migration lock ({lock.lock_file}) for "
            f"{LOCK_TIMEOUT_S:.0f} s; if none is running, delete that file"
        ) from None
    try:
        with engine.connect() as connection:
            yield connection
    finally:
        lock.release()
