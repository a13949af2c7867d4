"""Test-wide setup: an isolated data dir, no model configured, no network (pytest-socket)."""

from __future__ import annotations

import os
import tempfile

# Before any datapilot import reads settings: isolate the data dir and forget any user config.
_DATA_DIR = tempfile.mkdtemp(prefix="datapilot-tests-")
os.environ["DATAPILOT_DATA_DIR"] = _DATA_DIR
os.environ["DATAPILOT_CONFIG"] = os.path.join(_DATA_DIR, "absent.toml")
for _name in list(os.environ):
    if _name.startswith("DATAPILOT_LLM_") or _name in {"DATAPILOT_TODAY", "DATAPILOT_BRAIN"}:
        del os.environ[_name]
os.environ.setdefault("MPLBACKEND", "Agg")
# In-process clients (httpx's ASGITransport, Starlette's TestClient) name the server
# "testserver" or "t"; a real server would refuse those names like any other it does not know
# (`server.browser_guard`), so the test run lists them as the server's, as an operator would.
os.environ["DATAPILOT_ALLOWED_HOSTS"] = '["testserver", "t", "test"]'


# ---- data layer: the bundled warehouse, seeded once per test session -------------------------
import dataclasses  # noqa: E402

import pytest  # noqa: E402

from datapilot.data.catalog import Catalog  # noqa: E402
from datapilot.data.warehouse import Warehouse  # noqa: E402


@dataclasses.dataclass(frozen=True)
class SeededData:
    catalog: Catalog
    warehouse: Warehouse


@pytest.fixture(scope="session")
def data() -> SeededData:
    """The bundled warehouse seeded into the test data dir, with its catalog (read-only use)."""
    from datapilot.data import get_catalog, get_warehouse

    return SeededData(catalog=get_catalog(), warehouse=get_warehouse())


# ---- platform store: SQLite, and a real PostgreSQL 16 from the pgserver wheel -----------------
import uuid  # noqa: E402
from collections.abc import Iterator  # noqa: E402
from pathlib import Path  # noqa: E402


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[str]:
    """A PostgreSQL server for the whole run, shared by the xdist workers (pgserver counts its
    users and stops and deletes it with the last); yields the URL of its `postgres` database."""
    pgserver = pytest.importorskip("pgserver")
    # Outside pytest's rotating temp dirs (another run may clean those up under a live server),
    # and short, so that the socket path stays within the system's limit.
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID") or uuid.uuid4().hex
    server = pgserver.get_server(
        Path(tempfile.gettempdir()) / f"datapilot-pg-{run[:12]}", cleanup_mode="delete"
    )
    try:
        yield server.get_uri()
    finally:
        server.cleanup()


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh, empty database of each backend: an SQLite file, or a new PostgreSQL database
    (dropped afterwards)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'store.sqlite3'}"
        return
    import psycopg

    server_url: str = request.getfixturevalue("postgres_server")
    name = f"test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(server_url, autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{name}"')
    yield server_url.replace("/postgres?", f"/{name}?")
    # An app on this database shared the session's warehouse with it (replicas do); most tests
    # build apps without a lifespan, whose end would stop that: stop it with the database.
    from datapilot.data.shared import unshare
    from datapilot.settings import get_settings

    unshare(get_settings().warehouse_path)
    with psycopg.connect(server_url, autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A `perf` test compares timings measured on a machine others share: a burst of load there
    can upset one measurement, so it runs again, at most twice. A real slowdown fails all three."""
    for item in items:
        if item.get_closest_marker("perf"):
            item.add_marker(pytest.mark.flaky(reruns=2))
