"""An answer about an imported file of closes speaks of that file: its data, not the bundled
data, and its close, not an adjusted close the file never had."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from support.asking import ask

from datapilot.core.context import QuestionContext
from datapilot.data.access import DataAccess
from datapilot.data.catalog import Catalog
from datapilot.data.importer import import_file
from datapilot.data.warehouse import Warehouse
from datapilot.settings import Settings


@pytest.fixture()
def fund(tmp_path: Path) -> tuple[DataAccess, pd.DataFrame]:
    """A fund's closes in a file with a `Close` column, imported into its own warehouse."""
    days = pd.bdate_range("2023-01-02", "2024-06-28")
    steps = np.random.default_rng(7).normal(0, 0.005, len(days))
    closes = pd.DataFrame({"Date": days, "Close": (101.34 * np.exp(np.cumsum(steps))).round(2)})
    path = tmp_path / "fund.csv"
    closes.to_csv(path, index=False, date_format="%Y-%m-%d")
    warehouse = Warehouse(tmp_path / "w.duckdb")
    import_file(
        warehouse, path, "prices", entity_id="MYFUND", name="My Growth Fund", entity_kind="fund"
    )
    catalog = Catalog.load(warehouse)
    return DataAccess(Settings(data_dir=tmp_path), warehouse=warehouse, catalog=catalog), closes


@pytest.mark.parametrize(
    ("question", "absent", "said"),
    [
        (
            "My Growth Fund's return over the past year",
            ["bundled", "adjusted"],
            ["The imported data ends on 2024-06-28", "its close went from"],
        ),
        (
            "My Growth Fund近一年的收益率",
            ["内置", "复权"],
            ["导入的数据截至 2024-06-28", "收盘价从"],
        ),
    ],
)
async def test_an_imported_funds_answer_names_its_own_data_and_field(
    fund: tuple[DataAccess, pd.DataFrame], question: str, absent: list[str], said: list[str]
) -> None:
    data, closes = fund
    answer = await ask(
        question, QuestionContext(today=date(2026, 5, 1), brain="offline"), data=data
    )
    assert answer.status == "ok", answer.message
    for word in absent:
        assert word not in answer.summary, answer.summary
    for words in said:
        assert words in answer.summary, answer.summary
    # The figures are the file's closes: a year back from its last day to its last day.
    closes = closes.set_index("Date")["Close"]
    base = closes[closes.index <= "2023-06-28"].iloc[-1]
    change = (closes.iloc[-1] / base - 1) * 100
    assert f"{change:.2f}%" in answer.summary, answer.summary
