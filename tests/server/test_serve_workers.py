"""`datapilot serve --workers N` really runs N server processes behind one port."""

from __future__ import annotations

import concurrent.futures

import httpx
import psutil
import pytest
from support.llm import LOOPBACK
from support.serve_process import ServeProcess, replica_dir

from datapilot.settings import Settings

pytestmark = [*LOOPBACK, pytest.mark.slow]  # real `datapilot serve --workers` processes

WORKERS = 2


def _worker_processes(server: ServeProcess) -> list[psutil.Process]:
    """The server's worker processes: uvicorn's supervisor spawns them with multiprocessing."""
    assert server.process is not None
    children = psutil.Process(server.process.pid).children(recursive=True)
    return [c for c in children if "spawn_main" in " ".join(c.cmdline())]


def test_workers_option_starts_that_many_processes_behind_one_port(
    data: object, tmp_path_factory: pytest.TempPathFactory
) -> None:
    folder = replica_dir(tmp_path_factory.mktemp("workers"), Settings().warehouse_path)
    server = ServeProcess(folder, args=("--workers", str(WORKERS))).start()
    try:
        workers = _worker_processes(server)
        assert len(workers) == WORKERS
        body = {"question": "Plot Apple's closing price in 2021", "today": "2022-12-28"}

        def ask(_: int) -> int:
            return httpx.post(f"{server.url}/api/v1/ask", json=body, timeout=120).status_code

        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            assert list(pool.map(ask, range(8))) == [200] * 8
        # Still the same processes: none crashed and was replaced while answering.
        assert {p.pid for p in _worker_processes(server)} == {p.pid for p in workers}
        assert all(p.is_running() for p in workers)
    finally:
        server.stop()
