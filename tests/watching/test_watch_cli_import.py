"""`datapilot data import` evaluates the alerts on the rows it brings in its own process (no
server needed): a close-below alert fires on the day the imported closes cross, and the command
says so; the firing is in the owner's history."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from pydantic import SecretStr
from support.serve_process import replica_dir
from typer.testing import CliRunner

from datapilot.cli import app
from datapilot.core.watches import Condition, WatchSpec
from datapilot.settings import Settings, get_settings
from datapilot.store import Users, open_store
from datapilot.store.watches import Watches

TICKER = "ZZCLIWATCH"


def test_a_cli_import_fires_the_alerts_on_its_rows(
    data: object, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = f"sqlite:///{tmp_path / 'store.db'}"
    monkeypatch.setenv("DATAPILOT_DATABASE_URL", url)
    monkeypatch.setenv("DATAPILOT_OFFLINE", "true")
    # The terminal's import writes into the warehouse: a copy of its own, seen by no other test.
    folder = replica_dir(tmp_path / "data", Settings().warehouse_path)
    monkeypatch.setenv("DATAPILOT_DATA_DIR", str(folder))
    get_settings.cache_clear()
    settings = Settings(database_url=SecretStr(url))
    spec = WatchSpec(
        kind="alert",
        text=f"tell me when {TICKER} closes below 100",
        waiting_for_data=[TICKER],
        condition=Condition(measure="close_level", comparator="below", threshold=100),
    )
    with open_store(settings).session(write=True) as session:
        user = Users(session).create("cli").id
        watch = Watches(session, user, settings).create(spec).watch
    closes = pd.Series([101.0, 99.5, 98.0], index=pd.bdate_range("2024-03-01", periods=3))
    below = closes < 100
    crossing = closes[below & ~below.shift(1, fill_value=False)].index[0].date()
    path = tmp_path / "zz.csv"
    closes.rename("close").rename_axis("date").to_frame().to_csv(path)
    try:
        result = CliRunner().invoke(
            app, ["data", "import", str(path), "--kind", "prices", "--id", TICKER]
        )
    finally:
        get_settings.cache_clear()
    assert result.exit_code == 0, result.output
    assert f"Alert {watch.id}: {TICKER} on {crossing}" in result.output
    with open_store(settings).session() as session:
        history = Watches(session, user, settings).events(watch.id)
    assert [(e.date, e.value) for e in history] == [(crossing, closes[pd.Timestamp(crossing)])]
