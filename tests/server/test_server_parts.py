"""What the server says it has: `/api/v1/features` reports the interpreter unavailable, with the
reason and the fix, while bubblewrap is off the server's PATH, and available again as soon as it
is back (no restart), when a kernel then starts at namespace level."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr

from datapilot.interpreter import isolation
from datapilot.interpreter.kernel import SandboxKernel
from datapilot.server.app import create_app
from datapilot.settings import Settings


def hide_bwrap(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> str:
    """PATH without bubblewrap (a folder with nothing in it); returns the PATH to restore."""
    assert shutil.which("bwrap"), "these tests need bubblewrap on the machine"
    empty = tmp_path / "bin"
    empty.mkdir()
    before = os.environ["PATH"]
    monkeypatch.setenv("PATH", str(empty))
    return before


def test_features_say_the_interpreter_is_off_without_bubblewrap_and_on_once_it_is_back(
    data: object, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = Settings(
        brain="offline",
        offline=True,
        auth_cache_s=0,
        database_url=SecretStr(f"sqlite:///{tmp_path / 'store.db'}"),
    )
    isolation.available_level.cache_clear()
    before = hide_bwrap(monkeypatch, tmp_path)
    client = TestClient(create_app(settings, warm_up=False), client=("127.0.0.1", 50000))
    found = client.get("/api/v1/features").json()
    assert found["features"]["interpreter"] is False
    part = found["parts"]["interpreter"]
    assert part["available"] is False
    assert "bubblewrap" in part["reason"] and "install bubblewrap" in part["fix"]
    # The other parts keep their shape: a map of name -> {available, reason, fix}.
    assert {"chinese_font", "model", "live_providers"} <= set(found["parts"])
    assert found["features"]["chats"] is True  # the rest of the map is unchanged

    monkeypatch.setenv("PATH", before)  # bubblewrap "installed"; the same server, no restart
    found = client.get("/api/v1/features").json()
    assert found["features"]["interpreter"] is True
    assert found["parts"]["interpreter"] == {
        "available": True,
        "required": False,
        "reason": "",
        "fix": "",
    }
    kernel = SandboxKernel(settings).start()
    try:
        assert kernel.level == "namespace"
        assert kernel.isolation.network.startswith("namespace")
    finally:
        kernel.close()


@pytest.mark.enable_socket
@pytest.mark.allow_hosts(["127.0.0.1"])
def test_a_model_endpoint_that_cannot_be_reached_is_named(
    data: object, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from datapilot.server.parts import check_parts

    # Port 9 (discard) on loopback: nothing listens there.
    settings = Settings(
        brain="offline",
        offline=False,
        llm_base_url="http://127.0.0.1:9/v1",
        llm_model="m",
        database_url=SecretStr(f"sqlite:///{tmp_path / 'store.db'}"),
    )
    parts = check_parts(settings, ["model", "live_providers"])
    assert parts["model"].available is False
    assert "127.0.0.1:9" in parts["model"].reason and "DATAPILOT_LLM_BASE_URL" in parts["model"].fix
    assert parts["live_providers"].available is False
    assert "datapilot[live]" in parts["live_providers"].fix
