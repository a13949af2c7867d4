"""Importing data while `datapilot serve --workers 2` runs: `datapilot data import` (and the API's
`POST /api/v1/data/imports`) succeed without stopping the server, and the next question on each
worker answers from the new data. Expected figures come from skfolio's shipped prices (pandas)."""

from __future__ import annotations

import base64
import concurrent.futures
import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pandas as pd
import psutil
import pytest
from support.llm import LOOPBACK
from support.serve_process import ServeProcess, replica_dir

from datapilot.settings import Settings

pytestmark = [*LOOPBACK, pytest.mark.slow]  # a real `datapilot serve --workers 2`

WORKERS = 2
TODAY = "2022-12-28"


def _source(ticker: str) -> pd.Series:
    from skfolio.datasets import load_sp500_dataset

    return load_sp500_dataset()[ticker].loc["2020":"2021"]


def _csv(prices: pd.Series, path: Path) -> Path:
    prices.rename("close").rename_axis("date").to_frame().to_csv(path)
    return path


def _return_2021(prices: pd.Series) -> str:
    return f"{(prices.loc['2021'].iloc[-1] / prices.loc['2020'].iloc[-1] - 1) * 100:.2f}%"


def _workers(server: ServeProcess) -> list[psutil.Process]:
    assert server.process is not None
    children = psutil.Process(server.process.pid).children(recursive=True)
    return [c for c in children if "spawn_main" in " ".join(c.cmdline())]


def _open_warehouse_inodes(process: psutil.Process, warehouse: Path) -> set[int]:
    """The inodes of the warehouse files `process` holds open (the current one or replaced
    ones, which keep their inode while open)."""
    found = set()
    for entry in Path(f"/proc/{process.pid}/fd").iterdir():
        try:
            target = os.readlink(entry)
            if target.startswith(str(warehouse)) and ".write-lock" not in target:
                found.add(entry.stat().st_ino)
        except OSError:
            continue
    return found


def _wait_until(check, what: str, timeout: float = 300) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.5)


def _ask_all(server: ServeProcess, question: str, times: int = 12) -> list[dict]:  # type: ignore[type-arg]
    body = {"question": question, "today": TODAY}

    def ask(_: int) -> dict:  # type: ignore[type-arg]
        reply = httpx.post(f"{server.url}/api/v1/ask", json=body, timeout=120)
        assert reply.status_code == 200, reply.text
        return reply.json()  # type: ignore[no-any-return]

    with concurrent.futures.ThreadPoolExecutor(times) as pool:
        return list(pool.map(ask, range(times)))


def test_an_import_while_serving_reaches_the_next_question_on_every_worker(
    data: object, tmp_path_factory: pytest.TempPathFactory
) -> None:
    folder = replica_dir(tmp_path_factory.mktemp("imports"), Settings().warehouse_path)
    warehouse = folder / "warehouse.duckdb"
    server = ServeProcess(folder, args=("--workers", str(WORKERS))).start()
    try:
        workers = _workers(server)
        assert len(workers) == WORKERS
        # Both workers have warmed up: each holds the warehouse open for reading.
        _wait_until(
            lambda: all(_open_warehouse_inodes(w, warehouse) for w in workers),
            "both workers to open the warehouse",
        )
        prices = _source("AAPL")
        csv = _csv(prices, folder.parent / "myfund.csv")
        env = {**os.environ, "DATAPILOT_DATA_DIR": str(folder), "DATAPILOT_OFFLINE": "true"}
        command = [sys.executable, "-c", "from datapilot.cli import app; app()", "data", "import"]
        command += [str(csv), "--kind", "prices", "--id", "MYFUND", "--name", "My Fund"]
        command += ["--entity-kind", "etf", "--units", "USD"]
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stdout + done.stderr
        assert "Imported 505 prices rows for MYFUND" in done.stdout

        answers = _ask_all(server, "How did MYFUND do in 2021?")
        assert all(a["status"] == "ok" for a in answers), answers[0]
        assert all(_return_2021(prices) in a["summary"] for a in answers), answers[0]["summary"]
        # Every worker reads the new file (the one at the path), none the old one, once it has
        # answered a question since the import: the kernel may have handed all twelve to one
        # worker, so ask again while waiting.
        current = warehouse.stat().st_ino

        def reads_the_new_file(worker: psutil.Process) -> bool:
            if _open_warehouse_inodes(worker, warehouse) == {current}:
                return True
            _ask_all(server, "How did MYFUND do in 2021?", times=4)
            return False

        for worker in workers:
            _wait_until(
                lambda w=worker: reads_the_new_file(w),
                f"worker {worker.pid} to read the new warehouse",
                timeout=60,
            )

        # The same through the API (no keys on loopback: the manage scope is implied).
        msft = _source("MSFT")
        upload = {
            "name": "otherfund.csv",
            "content_base64": base64.b64encode(
                msft.rename("close").rename_axis("date").to_frame().to_csv().encode()
            ).decode(),
            "kind": "prices",
            "entity_id": "OTHERFUND",
            "display_name": "Other Fund",
            "entity_kind": "etf",
            "units": "USD",
        }
        reply = httpx.post(f"{server.url}/api/v1/data/imports", json=upload, timeout=120)
        assert reply.status_code == 201, reply.text
        assert reply.json()["ids"] == ["OTHERFUND"] and reply.json()["rows"] == len(msft)
        answers = _ask_all(server, "How did OTHERFUND do in 2021?")
        assert all(_return_2021(msft) in a["summary"] for a in answers), answers[0]["summary"]

        bad = {**upload, "content_base64": base64.b64encode(b"date,close\nnot a date,1\n").decode()}
        reply = httpx.post(f"{server.url}/api/v1/data/imports", json=bad, timeout=120)
        assert reply.status_code == 400 and "date" in reply.json()["detail"]

        # Tables (any columns, for the design stage), through the API and the terminal.
        rows = pd.DataFrame({"region": ["North", "South", "East"], "sales": [1.5, 2.25, 3.0]})
        table = {
            "name": "regions.csv",
            "content_base64": base64.b64encode(rows.to_csv(index=False).encode()).decode(),
            "kind": "table",
            "display_name": "regional_sales",
        }
        reply = httpx.post(f"{server.url}/api/v1/data/imports", json=table, timeout=120)
        assert reply.status_code == 201, reply.text
        assert reply.json()["ids"] == ["regional_sales"] and reply.json()["rows"] == len(rows)
        (folder / "more.csv").write_text(rows.head(2).to_csv(index=False), encoding="utf-8")
        command = [sys.executable, "-c", "from datapilot.cli import app; app()", "data", "import"]
        command += [str(folder / "more.csv"), "--kind", "table", "--name", "more_sales"]
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stdout + done.stderr
        assert "Imported 2 rows as table 'more_sales'" in done.stdout
    finally:
        server.stop()
