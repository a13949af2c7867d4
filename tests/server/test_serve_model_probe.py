"""A real `datapilot serve` with a model endpoint that hangs: it starts, answers the features at
once, and has probed the endpoint by itself (its start-up did, in the background)."""

from __future__ import annotations

import time
from pathlib import Path

import httpx
import pytest
from support.dead_endpoint import blackholed_url
from support.llm import LOOPBACK
from support.serve_process import ServeProcess, replica_dir

from datapilot.server.parts import MODEL_CONNECT_S
from datapilot.settings import Settings

pytestmark = [*LOOPBACK, pytest.mark.slow]  # a real `datapilot serve` process


def test_serve_probes_a_hanging_model_endpoint_in_the_background(
    data: object, tmp_path: Path
) -> None:
    folder = replica_dir(tmp_path / "serve", Settings().warehouse_path)
    with blackholed_url() as url:
        env = {"DATAPILOT_OFFLINE": "false", "DATAPILOT_LLM_BASE_URL": url}
        server = ServeProcess(folder, env={**env, "DATAPILOT_LLM_MODEL": "m"})
        try:
            server.start()
            # No one has read the features yet: only start-up can have started the probe.
            time.sleep(MODEL_CONNECT_S + 1.5)
            # The server's first request (lazy imports, the store) is not what is measured.
            assert httpx.get(f"{server.url}/health", timeout=30).status_code == 200
            body = httpx.get(f"{server.url}/api/v1/features", timeout=30).json()
        finally:
            server.stop()
    # Reading the parts never waits for a probe: without one finished, the first read would say
    # "checking". A settled finding at the first read is the probe start-up ran by itself. (Its
    # duration is no evidence: a loaded machine's first request took over 2 s without waiting.)
    model = body["parts"]["model"]
    assert model["checking"] is False and model["available"] is False
    assert model["reason"] == (
        f"the model endpoint {url} cannot be reached: accepted no connection within 1.5 s"
    )
    log = server.log.read_text()
    assert f"note: model: the model endpoint {url} cannot be reached" in log
