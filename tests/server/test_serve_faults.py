"""Faults against a real `datapilot serve` process: kill -9 under load and a restart (the store
and the feedback file intact), `data seed --force` while it serves (answers keep coming, from
the new file), a damaged and a missing warehouse."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from support.llm import LOOPBACK
from support.platform_app import QUESTION, TODAY, apple_2021_return_pct
from support.serve_process import ServeProcess, replica_dir

from datapilot.settings import Settings

pytestmark = [*LOOPBACK, pytest.mark.slow]  # real `datapilot serve` processes
GARBAGE = bytes(range(256)) * 400  # 100 kB that no database reads


@pytest.fixture(scope="module")
def server(data: object, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServeProcess]:
    """One server on its own data dir (SQLite store, a copy of the seeded warehouse); the tests
    below run in order on it, the kill -9 one restarting it."""
    folder = replica_dir(tmp_path_factory.mktemp("faults"), Settings().warehouse_path)
    process = ServeProcess(folder).start()
    try:
        yield process
    finally:
        process.stop()


def ask(client: httpx.Client) -> httpx.Response:
    return client.post("/api/v1/ask", json={"question": QUESTION, "today": TODAY})


def answered_right(response: httpx.Response) -> bool:
    body = response.json()
    return body["status"] == "ok" and f"{apple_2021_return_pct():.2f}%" in body["summary"]


def datapilot(data_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DATAPILOT_DATA_DIR": str(data_dir), "DATAPILOT_OFFLINE": "1"}
    return subprocess.run(
        [sys.executable, "-m", "datapilot.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=180,
    )


def test_kill_9_under_load_then_restart_keeps_every_acknowledged_write(
    server: ServeProcess,
) -> None:
    client = httpx.Client(base_url=server.url, timeout=60)
    chat = client.post("/api/v1/chats", json={"name": "under load"}).json()["id"]
    acknowledged_notes: list[str] = []
    acknowledged_feedback: list[str] = []
    stop = threading.Event()

    def notes() -> None:
        with httpx.Client(base_url=server.url, timeout=30) as own:
            while not stop.is_set():
                text = f"note {uuid.uuid4().hex}"
                body = {"content": text, "role": "human_later", "stream": False}
                try:
                    if own.post(f"/api/v1/chats/{chat}/messages", json=body).status_code == 200:
                        acknowledged_notes.append(text)
                except httpx.HTTPError:
                    return  # the server is gone

    def feedback() -> None:
        with httpx.Client(base_url=server.url, timeout=30) as own:
            while not stop.is_set():
                trace = uuid.uuid4().hex
                body = {"vote": "up", "trace_id": trace, "user_comment": "x" * 4000}
                try:
                    if own.post("/v1/feedback", json=body).status_code == 200:
                        acknowledged_feedback.append(trace)
                except httpx.HTTPError:
                    return

    def asks() -> None:
        with httpx.Client(base_url=server.url, timeout=60) as own:
            while not stop.is_set():
                try:
                    ask(own)
                except httpx.HTTPError:
                    return

    workers = [threading.Thread(target=f) for f in (notes, notes, feedback, feedback, asks)]
    for worker in workers:
        worker.start()
    deadline = time.monotonic() + 60
    while (len(acknowledged_notes) < 10 or len(acknowledged_feedback) < 10) and (
        time.monotonic() < deadline
    ):
        time.sleep(0.05)
    server.kill9()  # mid-write: requests are in flight on every thread
    stop.set()
    for worker in workers:
        worker.join(timeout=60)
    client.close()
    assert len(acknowledged_notes) >= 10 and len(acknowledged_feedback) >= 10

    store = server.data_dir / "datapilot.sqlite3"
    with sqlite3.connect(store) as connection:  # recovers the write-ahead log like a restart
        assert connection.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    lines = (server.data_dir / "feedback.jsonl").read_text(encoding="utf-8").splitlines()
    traces = [json.loads(line)["trace_id"] for line in lines]  # every line whole JSON
    assert set(acknowledged_feedback) <= set(traces)

    server.start()  # the same data dir and port
    with httpx.Client(base_url=server.url, timeout=60) as after:
        stored = [m["content"] for m in after.get(f"/api/v1/chats/{chat}/messages").json()]
        assert set(acknowledged_notes) <= set(stored)
        assert answered_right(ask(after))
        assert after.get("/health").json()["status"] == "ok"


def _open_warehouses(pid: int) -> list[str]:
    """The warehouse files the process holds open (a replaced one shows as `(deleted)`)."""
    links = []
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if "warehouse.duckdb" in target:
            links.append(target)
    return links


@pytest.mark.skipif(not Path("/proc/self/fd").exists(), reason="reads /proc (Linux)")
def test_seed_force_while_serving_keeps_answers_coming_from_the_new_file(
    server: ServeProcess,
) -> None:
    path = server.data_dir / "warehouse.duckdb"
    results: list[bool] = []
    stop = threading.Event()

    def asks() -> None:
        with httpx.Client(base_url=server.url, timeout=60) as own:
            while not stop.is_set():
                results.append(answered_right(ask(own)))

    with httpx.Client(base_url=server.url, timeout=60) as client:
        assert answered_right(ask(client))
        old_inode = path.stat().st_ino
        asker = threading.Thread(target=asks)
        asker.start()
        try:
            reseeded = datapilot(server.data_dir, "data", "seed", "--force")
        finally:
            time.sleep(0.5)  # a few more answers after the swap
            stop.set()
            asker.join(timeout=120)
        assert reseeded.returncode == 0, reseeded.stderr
        assert path.stat().st_ino != old_inode
        assert answered_right(ask(client))
    assert results and all(results), results
    assert server.process is not None
    held = _open_warehouses(server.process.pid)
    assert held and not any(target.endswith("(deleted)") for target in held), held


def test_a_damaged_warehouse_is_degraded_until_seed_force(server: ServeProcess) -> None:
    path = server.data_dir / "warehouse.duckdb"
    damaged = path.with_name("incoming.duckdb")
    damaged.write_bytes(GARBAGE)
    os.replace(damaged, path)  # as a bad copy or a disk fault would leave it
    with httpx.Client(base_url=server.url, timeout=60) as client:
        health = client.get("/health")
        assert health.status_code == 503
        assert health.json()["status"] == "degraded"
        part = client.get("/api/v1/features").json()["parts"]["data"]
        assert part["fix"] == "datapilot data seed --force"
        answer = ask(client).json()
        assert answer["status"] == "error" and "datapilot data seed --force" in answer["message"]

        repaired = datapilot(server.data_dir, "data", "seed", "--force")
        assert repaired.returncode == 0, repaired.stderr
        assert "Traceback" not in repaired.stdout + repaired.stderr
        assert client.get("/health").status_code == 200
        assert answered_right(ask(client))


def test_a_missing_warehouse_is_rebuilt_as_on_first_start(server: ServeProcess) -> None:
    # A missing file is what a fresh install has: the server seeds it again from the bundled
    # data on the next request, rather than reporting itself broken.
    (server.data_dir / "warehouse.duckdb").unlink()
    with httpx.Client(base_url=server.url, timeout=120) as client:
        assert answered_right(ask(client))
        health = client.get("/health")
    assert health.status_code == 200 and health.json()["data"]["last"] == "2022-12-28"
