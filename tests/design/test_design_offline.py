"""A designed interface answers without a model: the dividend-yield requests `design requests`
finds to be gaps are answered offline once the package is accepted — in the coverage report,
from `datapilot ask` (its date argument read from the question) and in a chat without a model
whose assistant has the data workflow, from the next question after `design accept`, and no
longer once its code is edited."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from pydantic import SecretStr
from skfolio.datasets import load_sp500_dataset
from support import design as scripted
from support import paths
from support.platform_app import app_for, client_of
from typer.testing import CliRunner

from datapilot.cli import app
from datapilot.data.tables import import_table
from datapilot.data.warehouse import Warehouse
from datapilot.design import library
from datapilot.design.sandbox import SandboxResult
from datapilot.design.specs import InterfaceDesign
from datapilot.settings import Settings, get_settings

FIXTURE = paths.FIXTURES / "design" / "dividends.csv"
QUESTION = "What was Apple's dividend yield at the end of 2021?"
YEAR_END = "2021-12-31"


@pytest.fixture()
def user_dir(data, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:  # type: ignore[no-untyped-def]
    """A user's data dir (the bundled warehouse plus their dividends file), the one in use."""
    shutil.copyfile(data.warehouse.path, tmp_path / "warehouse.duckdb")
    warehouse = Warehouse(tmp_path / "warehouse.duckdb")
    import_table(warehouse, FIXTURE)
    warehouse.close()
    monkeypatch.setenv("DATAPILOT_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("DATAPILOT_DATABASE_URL", f"sqlite:///{tmp_path / 'store.sqlite3'}")
    get_settings.cache_clear()
    yield tmp_path
    get_settings.cache_clear()


def expected_yield() -> float:
    """Apple's dividends with an ex-date in the year to 2021-12-31 over that day's close, from
    the dividends file and the bundled prices' own source (skfolio's S&P 500 dataset)."""
    dividends = pd.read_csv(FIXTURE, parse_dates=["date"])
    end = pd.Timestamp(YEAR_END)
    apple = dividends[dividends["ticker"] == "AAPL"]
    paid = apple[(apple["date"] > end - pd.DateOffset(years=1)) & (apple["date"] <= end)]
    close = load_sp500_dataset()["AAPL"].loc[:YEAR_END].iloc[-1]
    return float(paid["dividend"].sum()) / float(close) * 100


def tables_of(answer: dict[str, Any]) -> list[dict[str, Any]]:
    return [o for o in answer["outputs"] if o["kind"] == "table"]


def yield_of(answer: dict[str, Any]) -> float:
    [table] = tables_of(answer)
    [row] = table["rows"]
    return float(row[table["columns"].index("yield_pct")])


def statuses(cli: CliRunner) -> dict[str, str]:
    """`design requests` over the dividends table: each yield request's status."""
    tried = cli.invoke(
        app, ["design", "requests", "table:dividends", "--per-source", "8", "--json"]
    )
    assert tried.exit_code == 0, tried.output
    rows = json.loads(tried.stdout)
    return {r["query"]: r["status"] for r in rows if r["family"] == "table_ratio_to_price"}


def test_an_accepted_design_answers_its_requests_offline(user_dir: Path) -> None:
    cli = CliRunner()
    before = statuses(cli)
    assert before and set(before.values()) == {"gap"}, before

    spec = InterfaceDesign.model_validate(scripted.MERGED)
    library.write_package(
        user_dir, spec, scripted.CODE, scripted.TESTS, SandboxResult(ok=True), "scripted"
    )
    accepted = cli.invoke(app, ["design", "accept", "dividend_yield"])
    assert accepted.exit_code == 0, accepted.output

    after = statuses(cli)
    assert after.keys() == before.keys() and set(after.values()) == {"answered"}, after

    asked = cli.invoke(app, ["ask", QUESTION, "--json", "--today", "2022-12-28"])
    assert asked.exit_code == 0, asked.output
    answer = json.loads(asked.stdout)
    assert answer["status"] == "ok" and "import:dividends.csv" in answer["sources"]
    assert yield_of(answer) == pytest.approx(expected_yield(), abs=1e-3)
    assert any("day = date: at the end of 2021" in note for note in answer["notes"])


async def test_a_running_chat_follows_accept_and_an_edit(user_dir: Path) -> None:
    """One app, never restarted: the question is a gap, `design accept` makes the next one
    answered through the design, and editing its code after acceptance takes it away again."""
    spec = InterfaceDesign.model_validate(scripted.MERGED)
    package = library.write_package(
        user_dir, spec, scripted.CODE, scripted.TESTS, SandboxResult(ok=True), "scripted"
    )
    settings = Settings(
        brain="offline",
        offline=True,
        today=date(2022, 12, 28),
        database_url=SecretStr(f"sqlite:///{user_dir / 'chats.sqlite3'}"),
    )
    async with client_of(app_for(settings)) as client:
        made = await client.post("/api/v1/assistants", json={"name": "A", "tools": ["ask_data"]})
        assert made.status_code == 201, made.text
        chat = await client.post("/api/v1/chats", json={"assistant_id": made.json()["id"]})

        async def ask() -> dict[str, Any]:
            sent = await client.post(
                f"/api/v1/chats/{chat.json()['id']}/messages",
                json={"content": QUESTION, "stream": False},
            )
            assert sent.status_code == 200, sent.text
            return sent.json()["answer"]  # type: ignore[no-any-return]

        before = await ask()
        assert before["status"] != "ok" and not tables_of(before), before

        accepted = CliRunner().invoke(app, ["design", "accept", "dividend_yield"])
        assert accepted.exit_code == 0, accepted.output
        assert "at its next question" in accepted.output, accepted.output
        answer = await ask()
        assert answer["status"] == "ok", (answer["message"], answer["notes"])
        assert yield_of(answer) == pytest.approx(expected_yield(), abs=1e-3)

        with open(Path(package.path) / "interface.py", "a", encoding="utf-8") as code:
            code.write("\n# edited after acceptance\n")
        edited = await ask()
        assert edited["status"] != "ok" and not tables_of(edited), edited
