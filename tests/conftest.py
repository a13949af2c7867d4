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
