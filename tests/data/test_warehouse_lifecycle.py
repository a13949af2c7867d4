"""The warehouse file's life under a running app: damaged, repaired, replaced, deleted; and the
`datapilot data` commands' failures as messages (run as real processes, no tracebacks)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from datapilot.core.answer import Answer
from datapilot.data.importer import import_file
from datapilot.data.seeding import seed
from datapilot.data.warehouse import Warehouse
from datapilot.server.app import create_app
from datapilot.settings import Settings

pytestmark = pytest.mark.slow  # real `datapilot` processes, 5-10 s each
QUESTION = {"question": "What was Apple's return in 2021?", "today": "2022-12-28"}
GARBAGE = bytes(range(256)) * 400  # 100 kB that no database reads


def apple_2021_return() -> float:
    from skfolio.datasets import load_sp500_dataset

    close = load_sp500_dataset()["AAPL"]
    return float((close.loc["2021-12-31"] / close.loc["2020-12-31"] - 1) * 100)


def answered_correctly(answer: Answer) -> bool:
    """The answer is ok and states Apple's 2021 return as computed from the source data."""
    return answer.status == "ok" and f"{apple_2021_return():.2f}%" in answer.summary


@pytest.fixture()
async def app_on(tmp_path: Path) -> AsyncIterator[tuple[httpx.AsyncClient, Path]]:
    """An app on its own data dir (not yet seeded) and that dir's warehouse path."""
    app = create_app(Settings(data_dir=tmp_path, brain="offline", offline=True))
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        yield client, tmp_path / "warehouse.duckdb"


async def ask(client: httpx.AsyncClient) -> Answer:
    response = await client.post("/api/v1/ask", json=QUESTION)
    assert response.status_code == 200, response.text
    return Answer.model_validate(response.json())


async def test_a_damaged_warehouse_is_unhealthy_until_seed_force_repairs_it(app_on) -> None:
    client, path = app_on
    path.write_bytes(GARBAGE)

    health = await client.get("/health")
    assert health.status_code == 503
    body = health.json()
    # The public check says one word; why, and the fix, are for callers the server lets in.
    assert body["status"] == "degraded" and body["data"] is None
    assert str(path) not in health.text and "damaged" not in health.text
    part = (await client.get("/api/v1/features")).json()["parts"]["data"]
    assert not part["available"] and "damaged" in part["reason"]
    assert part["fix"] == "datapilot data seed --force"
    answer = await ask(client)
    assert answer.status == "error" and "datapilot data seed --force" in (answer.message or "")
    assert path.read_bytes() == GARBAGE  # nothing repaired behind the user's back

    report = seed(path, show_progress=False, repair=True)
    assert report.moved_aside is not None and report.moved_aside.parent == path.parent
    assert report.moved_aside.read_bytes() == GARBAGE
    assert report.moved_aside.name.startswith("warehouse.duckdb.damaged-")

    health = await client.get("/health")
    assert health.status_code == 200 and health.json()["status"] == "ok"
    assert health.json()["data"]["last"] == "2022-12-28"
    assert answered_correctly(await ask(client))


async def test_the_app_starts_on_a_damaged_warehouse(tmp_path: Path) -> None:
    (tmp_path / "warehouse.duckdb").write_bytes(GARBAGE)
    app = create_app(Settings(data_dir=tmp_path, brain="offline", offline=True))
    async with app.router.lifespan_context(app):  # start-up, warm-up included, must not fail
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
            health = await client.get("/health")
    assert health.status_code == 503 and health.json()["status"] == "degraded"
    documented = app.openapi()["paths"]["/health"]["get"]["responses"]["503"]
    assert documented["content"]["application/json"]["schema"]["$ref"].endswith("/Health")


async def test_a_warehouse_replaced_under_the_app_is_read_on_the_next_request(
    app_on, tmp_path_factory
) -> None:
    client, path = app_on
    assert answered_correctly(await ask(client))  # the app now holds the file open
    before = (await client.get("/health")).json()["data"]

    # Another copy, with one more series of the user's, put in place as a reseed does.
    other = tmp_path_factory.mktemp("other") / "warehouse.duckdb"
    seed(other, show_progress=False)
    csv = other.parent / "mine.csv"
    csv.write_text("date,value\n2024-01-02,1.5\n2024-02-01,1.75\n")
    import_file(Warehouse(other), csv, "series", entity_id="ZZLIFE", name="Zephyr rate", units="%")
    Warehouse(other).close()
    os.replace(other, path)

    after = (await client.get("/health")).json()["data"]
    assert after["entities"] == before["entities"] + 1
    assert (before["last"], after["last"]) == ("2022-12-28", "2024-02-01")
    assert answered_correctly(await ask(client))


async def test_a_deleted_warehouse_is_seeded_again_on_the_next_request(app_on) -> None:
    client, path = app_on
    assert answered_correctly(await ask(client))
    path.unlink()
    assert answered_correctly(await ask(client))
    assert (await client.get("/health")).status_code == 200


# ---- the commands, as a user runs them -----------------------------------------------------


def datapilot(data_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DATAPILOT_DATA_DIR": str(data_dir), "DATAPILOT_OFFLINE": "1"}
    return subprocess.run(
        [sys.executable, "-m", "datapilot.cli", "data", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def one_line(text: str) -> str:
    return " ".join(text.split())  # rich wraps long messages


async def test_a_reseed_by_the_command_while_the_app_serves(app_on) -> None:
    client, path = app_on
    assert answered_correctly(await ask(client))
    inode = path.stat().st_ino

    reseeded = datapilot(path.parent, "seed", "--force")
    assert reseeded.returncode == 0, reseeded.stderr
    assert path.stat().st_ino != inode  # a new file is in place
    assert answered_correctly(await ask(client))
    # The app now holds the new file; an import still goes through (a copy put in place).
    csv = path.parent / "mine.csv"
    csv.write_text("date,value\n2024-01-02,1.5\n")
    imported = datapilot(path.parent, "import", str(csv), "--kind", "series", "--id", "ZZ")
    assert imported.returncode == 0, imported.stderr
    assert path.stat().st_ino != inode
    assert answered_correctly(await ask(client))


def test_seed_refuses_a_damaged_file_and_force_moves_it_aside(tmp_path: Path) -> None:
    path = tmp_path / "warehouse.duckdb"
    path.write_bytes(GARBAGE)

    refused = datapilot(tmp_path, "seed")
    assert refused.returncode == 1
    assert "Traceback" not in refused.stdout + refused.stderr
    assert "damaged" in refused.stderr and "datapilot data seed --force" in one_line(refused.stderr)

    repaired = datapilot(tmp_path, "seed", "--force")
    assert repaired.returncode == 0, repaired.stderr
    (aside,) = tmp_path.glob("warehouse.duckdb.damaged-*")
    assert aside.read_bytes() == GARBAGE
    assert aside.name in one_line(repaired.stdout)
    status = datapilot(tmp_path, "status")
    assert status.returncode == 0 and "AAPL" in status.stdout


def test_import_while_the_warehouse_is_held_goes_through_and_the_holder_sees_it(
    tmp_path: Path,
) -> None:
    path = tmp_path / "warehouse.duckdb"
    seed(path, show_progress=False)
    csv = tmp_path / "mine.csv"
    csv.write_text("date,value\n2024-01-02,1.5\n")
    held = Warehouse(path)
    held.coverage()  # a reader, as a running server holds one
    try:
        result = datapilot(tmp_path, "import", str(csv), "--kind", "series", "--id", "ZZ")
        assert result.returncode == 0, result.stderr
        # The holder's next read is of the new file.
        assert held.series(["ZZ"])["value"].tolist() == [1.5]
    finally:
        held.close()


def test_a_data_dir_that_cannot_be_created_is_a_message(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    for command in (["status"], ["seed"], ["find", "Apple"]):
        result = datapilot(blocker / "data", *command)
        assert result.returncode == 1, command
        assert "Traceback" not in result.stdout + result.stderr, command
        assert "DATAPILOT_DATA_DIR" in one_line(result.stderr), command
