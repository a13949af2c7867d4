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
