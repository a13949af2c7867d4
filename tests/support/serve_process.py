"""`datapilot serve` as a real process on a loopback port, for replica and fault tests: its own
data dir (a copy of the session's seeded warehouse), its settings as environment variables."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

START_TIMEOUT_S = 300.0  # start-up imports and warms up; a loaded machine is slow, not broken
SERVE = "from datapilot.cli import app; app()"
QUIET = ("--log-level", "warning")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def replica_dir(folder: Path, seeded_warehouse: Path) -> Path:
    """A data dir of its own holding a copy of the seeded warehouse (each replica has its own
    warehouse file, as deployed)."""
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(seeded_warehouse, folder / "warehouse.duckdb")
    return folder


class ServeProcess:
    """One `datapilot serve` process; `start()` returns once `/health` answers."""

    def __init__(
        self, data_dir: Path, env: dict[str, str] | None = None, args: tuple[str, ...] = ()
    ) -> None:
        self.data_dir = data_dir
        self.env = env or {}
        self.args = args  # more `datapilot serve` options, e.g. ("--workers", "2")
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None
        self.log = data_dir / "serve.log"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def launch(self) -> None:
        env = {
            **os.environ,
            "DATAPILOT_DATA_DIR": str(self.data_dir),
            "DATAPILOT_OFFLINE": "true",
            "DATAPILOT_BRAIN": "offline",
            **self.env,
        }
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                [
                    *(sys.executable, "-c", SERVE, "serve"),
                    *("--port", str(self.port)),
                    *QUIET,
                    *self.args,
                ],
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )

    def wait_ready(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            assert self.process is not None
            if self.process.poll() is not None:
                raise RuntimeError(f"datapilot serve exited: {self.log.read_text()[-2000:]}")
            try:
                httpx.get(f"{self.url}/health", timeout=2)
                return
            except httpx.HTTPError:
                if time.monotonic() > deadline:
                    raise RuntimeError("datapilot serve did not start in time") from None
                time.sleep(0.2)

    def start(self) -> ServeProcess:
        self.launch()
        self.wait_ready()
        return self

    def kill9(self) -> None:
        assert self.process is not None
        os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=30)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=15)
