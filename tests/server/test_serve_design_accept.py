"""`datapilot design accept` while `datapilot serve` runs: the next chat question is answered by
the accepted interface without a restart, and once its code is edited after acceptance the
server stops using it. The expected yield is computed with pandas from the dividends file and
skfolio's shipped prices."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pandas as pd
import pytest
from skfolio.datasets import load_sp500_dataset
from support import design as scripted
from support import paths
from support.llm import LOOPBACK
from support.serve_process import ServeProcess, replica_dir

from datapilot.data.tables import import_table
from datapilot.data.warehouse import Warehouse
from datapilot.design import library
from datapilot.design.sandbox import SandboxResult
from datapilot.design.specs import InterfaceDesign
from datapilot.settings import Settings

pytestmark = [*LOOPBACK, pytest.mark.slow]  # a real `datapilot serve`

DIVIDENDS = paths.FIXTURES / "design" / "dividends.csv"
QUESTION = "What was Apple's dividend yield at the end of 2021?"
YEAR_END = "2021-12-31"
CLI = "from datapilot.cli import app; app()"


def _expected_yield() -> float:
    dividends = pd.read_csv(DIVIDENDS, parse_dates=["date"])
    end = pd.Timestamp(YEAR_END)
    apple = dividends[dividends["ticker"] == "AAPL"]
    paid = apple[(apple["date"] > end - pd.DateOffset(years=1)) & (apple["date"] <= end)]
    close = load_sp500_dataset()["AAPL"].loc[:YEAR_END].iloc[-1]
    return float(paid["dividend"].sum()) / float(close) * 100


def _tables(answer: dict[str, Any]) -> list[dict[str, Any]]:
    return [o for o in answer["outputs"] if o["kind"] == "table"]


def test_accept_reaches_the_next_question_of_a_running_server(
    data: object, tmp_path_factory: pytest.TempPathFactory
) -> None:
    folder = replica_dir(tmp_path_factory.mktemp("design"), Settings().warehouse_path)
    warehouse = Warehouse(folder / "warehouse.duckdb")
    import_table(warehouse, DIVIDENDS)
    warehouse.close()
    package = library.write_package(
        folder,
        InterfaceDesign.model_validate(scripted.MERGED),
        scripted.CODE,
        scripted.TESTS,
        SandboxResult(ok=True),
        "scripted",
    )
    server = ServeProcess(folder, env={"DATAPILOT_TODAY": "2022-12-28"}).start()
    try:
        made = httpx.post(
            f"{server.url}/api/v1/assistants", json={"name": "A", "tools": ["ask_data"]}
        )
        assert made.status_code == 201, made.text
        chat = httpx.post(f"{server.url}/api/v1/chats", json={"assistant_id": made.json()["id"]})
        assert chat.status_code == 201, chat.text

        def ask() -> dict[str, Any]:
            sent = httpx.post(
                f"{server.url}/api/v1/chats/{chat.json()['id']}/messages",
                json={"content": QUESTION, "stream": False},
                timeout=120,
            )
            assert sent.status_code == 200, sent.text
            return sent.json()["answer"]  # type: ignore[no-any-return]

        before = ask()
        assert before["status"] != "ok" and not _tables(before), before

        env = {**os.environ, "DATAPILOT_DATA_DIR": str(folder), "DATAPILOT_OFFLINE": "true"}
        accepted = subprocess.run(
            [sys.executable, "-c", CLI, "design", "accept", "dividend_yield"],
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert accepted.returncode == 0, accepted.stdout + accepted.stderr
        assert "uses it at its next question" in accepted.stdout, accepted.stdout

        answer = ask()
        assert answer["status"] == "ok", (answer["message"], answer["notes"])
        [table] = _tables(answer)
        [row] = table["rows"]
        shown = float(row[table["columns"].index("yield_pct")])
        assert shown == pytest.approx(_expected_yield(), abs=1e-3)

        # Edited after acceptance: the hash no longer matches, so the server drops it.
        with (Path(package.path) / "interface.py").open("a", encoding="utf-8") as code:
            code.write("\n# edited after acceptance\n")
        edited = ask()
        assert edited["status"] != "ok" and not _tables(edited), edited
        assert "changed since it was accepted" in server.log.read_text(), "no warning logged"
    finally:
        server.stop()
